/*
 * one_nan.c - the `ref` plugin that writes one NaN into rope_apply's
 * output when the rope type is dynamic NTK: every other value exact. A
 * NaN must be named as a NaN, not as the frequencies of a dynamic scaling
 * selected by the wrong length (which is what a failure confined to the
 * dynamic cases once read as).
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <math.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *ref_desc;

static pecert_status one_nan_apply(void *instance, const pecert_rope_apply_args *args)
{
    pecert_status st = ref_desc->rope_apply(instance, args);
    if (st == PECERT_OK && args->config->rope_type == PECERT_ROPE_DYNAMIC && args->out->dtype == PECERT_DTYPE_F32 &&
        args->out->shape[0] > 0) {
        ((float *)args->out->data)[0] = NAN; /* the bug: one element */
    }
    return st;
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (ref_desc == NULL && (ref_desc = testing_ref_copy(&desc, "one_nan")) != NULL) {
        desc.id = "org.pecert.testing.one_nan";
        desc.rope_apply = one_nan_apply;
    }
    return ref_desc != NULL ? &desc : NULL;
}
