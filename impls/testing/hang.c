/* hang.c - a plugin that never returns from rope_apply (tests timeouts). */
#include <unistd.h>

#include "misbehave.h"

static pecert_status apply_hang(void *instance, const pecert_rope_apply_args *args)
{
    (void)instance;
    (void)args;
    for (;;) {
        pause();
    }
    return PECERT_OK;
}

static const pecert_plugin misbehave_desc =
    MISBEHAVE_DESCRIPTOR(PECERT_ABI_VERSION, sizeof(pecert_plugin), apply_hang);
