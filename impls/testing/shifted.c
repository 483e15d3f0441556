/*
 * shifted.c - the `ref` plugin with every position shifted by one: the
 * classic decode off-by-one (position taken as cache length + 1). It must
 * fail `pecert run` with exit status 1.
 *
 * It forwards to build/impls/ref.so, found next to its own directory, so
 * the bug is exactly "+1" and nothing else.
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static const pecert_plugin *ref_desc;

/* build/impls/ref.so (ref_beside.h). */
static const pecert_plugin *load_ref(void)
{
    return testing_load_ref(&ref_desc);
}

static int64_t *shift_positions(const int64_t *positions, int64_t n)
{
    int64_t *shifted = malloc((size_t)(n > 0 ? n : 1) * sizeof(*shifted));
    for (int64_t i = 0; shifted != NULL && i < n; i++) {
        shifted[i] = positions[i] + 1; /* the bug */
    }
    return shifted;
}

static pecert_status shifted_create(void **out)
{
    return ref_desc->create(out);
}

static void shifted_destroy(void *instance)
{
    ref_desc->destroy(instance);
}

static const char *shifted_last_error(void *instance)
{
    return ref_desc->last_error(instance);
}

static pecert_status shifted_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                   const pecert_rope_config *config, int64_t seq_len)
{
    return ref_desc->rope_freqs(instance, out_inv_freq, out_scaling, config, seq_len);
}

static pecert_status shifted_cos_sin(void *instance, pecert_tensor *out_cos, pecert_tensor *out_sin,
                                     const pecert_rope_config *config, int64_t seq_len,
                                     const int64_t *positions, int64_t n)
{
    int64_t *shifted = shift_positions(positions, n);
    if (shifted == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert_status st = ref_desc->rope_cos_sin(instance, out_cos, out_sin, config, seq_len, shifted, n);
    free(shifted);
    return st;
}

static pecert_status shifted_apply(void *instance, const pecert_rope_apply_args *args)
{
    int64_t *shifted = shift_positions(args->positions, args->x->shape[0]);
    if (shifted == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert_rope_apply_args copy = *args;
    copy.positions = shifted;
    pecert_status st = ref_desc->rope_apply(instance, &copy);
    free(shifted);
    return st;
}

static const char *const caps[] = {"pecert.rope/1", NULL};

static const pecert_plugin desc = {
    .abi_version = PECERT_ABI_VERSION,
    .struct_size = sizeof(pecert_plugin),
    .id = "org.pecert.testing.shifted",
    .name = "shifted",
    .version = "0",
    .vendor = "pecert tests",
    .capabilities = caps,
    .create = shifted_create,
    .destroy = shifted_destroy,
    .last_error = shifted_last_error,
    .rope_freqs = shifted_freqs,
    .rope_cos_sin = shifted_cos_sin,
    .rope_apply = shifted_apply,
};

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (ref_desc == NULL) {
        ref_desc = load_ref();
    }
    return ref_desc != NULL ? &desc : NULL;
}
