/*
 * shift_after_first.c - the `ref` plugin with every token after the first
 * of a call rotated at its position + 1: a partial off-by-one (a chunked
 * prefill that counts the first token twice). No replayed hypothesis
 * explains it (token 0 is right); the recovery of each token's position
 * from its rotation (rope_recover.h) names it, in run and certify as in
 * `pecert diagnose`: "off by one (+1) from token 1 on".
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <stdlib.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *ref_desc;

static pecert_status shifted_apply(void *instance, const pecert_rope_apply_args *args)
{
    int64_t n = args->x->shape[0];
    int64_t *pos = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (pos == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int64_t i = 0; i < n; i++) {
        pos[i] = args->positions[i] + (i > 0); /* the bug */
    }
    pecert_rope_apply_args copy = *args;
    copy.positions = pos;
    pecert_status st = ref_desc->rope_apply(instance, &copy);
    free(pos);
    return st;
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (ref_desc == NULL && (ref_desc = testing_ref_copy(&desc, "shift_after_first")) != NULL) {
        desc.id = "org.pecert.testing.shift_after_first";
        desc.rope_apply = shifted_apply;
        desc.rope_cos_sin = NULL; /* the bug is in apply; tables would disagree otherwise */
        desc.session_create = NULL;
        desc.session_destroy = NULL;
        desc.session_append = NULL;
        desc.session_read_keys = NULL;
    }
    return ref_desc != NULL ? &desc : NULL;
}
