/*
 * loadtime.c - a plugin whose load-time code misbehaves, by $LOADTIME_MODE:
 *   exit     its constructor calls exit(0);
 *   segv     its constructor dereferences NULL;
 *   hang     pecert_plugin_entry never returns;
 *   garbage  pecert_plugin_entry returns a pointer to nothing;
 *   (unset)  a correct plugin with no operations.
 * This code used to run in pecert's own process: exit made pecert exit 0
 * with no outputs, the others killed or hung it. Now each is "cannot
 * load" with the reason, exit 3 (tests/check_cli.c).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pecert/plugin.h"

static const char *mode(void)
{
    const char *m = getenv("LOADTIME_MODE");
    return m != NULL ? m : "";
}

__attribute__((constructor)) static void misbehave_at_load(void)
{
    if (strcmp(mode(), "exit") == 0) {
        exit(0);
    }
    if (strcmp(mode(), "segv") == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
}

static pecert_status create(void **out)
{
    *out = NULL;
    return PECERT_OK;
}

static void destroy(void *instance)
{
    (void)instance;
}

static const char *last_error(void *instance)
{
    (void)instance;
    return "";
}

static const pecert_plugin desc = {
    .abi_version = PECERT_ABI_VERSION,
    .struct_size = sizeof(pecert_plugin),
    .id = "org.pecert.testing.loadtime",
    .name = "loadtime",
    .version = "1",
    .create = create,
    .destroy = destroy,
    .last_error = last_error,
};

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (strcmp(mode(), "hang") == 0) {
        for (;;) {
            pause();
        }
    }
    if (strcmp(mode(), "garbage") == 0) {
        return (const pecert_plugin *)(uintptr_t)0x10;
    }
    return &desc;
}
