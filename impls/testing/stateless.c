/*
 * stateless.c - `ref` as a stateless plugin: create and destroy NULL, as
 * plugin.h allows ("every call gets NULL"), the way docs/certify.md's
 * adapter is written. Every tool must run it: `pecert dump` once
 * segfaulted calling the NULL create. Each call makes and releases a ref
 * instance of its own, keeping ref's last error in a buffer.
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <stdio.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *ref_desc;
static char last[512]; /* the last call's error, ref's words */

static const char *stateless_last_error(void *instance)
{
    (void)instance;
    return last;
}

/* A ref instance for one call, or NULL. */
static void *begin(void)
{
    void *inst = NULL;
    last[0] = '\0';
    return ref_desc->create(&inst) == PECERT_OK ? inst : NULL;
}

static pecert_status end(void *inst, pecert_status st)
{
    if (st != PECERT_OK) {
        snprintf(last, sizeof(last), "%s", ref_desc->last_error(inst));
    }
    ref_desc->destroy(inst);
    return st;
}

static pecert_status stateless_apply(void *instance, const pecert_rope_apply_args *args)
{
    (void)instance;
    void *inst = begin();
    return inst == NULL ? PECERT_E_NOMEM : end(inst, ref_desc->rope_apply(inst, args));
}

static pecert_status stateless_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                     const pecert_rope_config *config, int64_t seq_len)
{
    (void)instance;
    void *inst = begin();
    return inst == NULL ? PECERT_E_NOMEM
                        : end(inst, ref_desc->rope_freqs(inst, out_inv_freq, out_scaling, config, seq_len));
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (ref_desc == NULL) {
        const pecert_plugin *ref = testing_load_ref(&desc);
        if (ref == NULL) {
            return NULL;
        }
        ref_desc = ref;
        desc = (pecert_plugin){.abi_version = PECERT_ABI_VERSION,
                               .struct_size = sizeof(pecert_plugin),
                               .id = "org.pecert.testing.stateless",
                               .name = "stateless",
                               .version = "0",
                               .vendor = "pecert tests",
                               .capabilities = ref->capabilities,
                               .create = NULL,
                               .destroy = NULL,
                               .last_error = stateless_last_error,
                               .rope_freqs = stateless_freqs,
                               .rope_apply = stateless_apply};
    }
    return &desc;
}
