/* int32_whole_head.c - `fast` narrowed to what many C/C++ and GPU engines
 * support: positions stored as int32 (a position past 2^31 - 1 is
 * declined) and whole heads only (rotary_dim < head_dim declined). Inside
 * that scope it is fast, bit for bit: rope.thread_determinism and
 * rope.pairing_convention must still give it verdicts. */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <stdint.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *fast;

static int in_scope(const pecert_rope_config *config, const int64_t *positions, int64_t n)
{
    for (int64_t i = 0; positions != NULL && i < n; i++) {
        if (positions[i] > INT32_MAX || positions[i] < INT32_MIN) {
            return 0;
        }
    }
    return config == NULL || config->rotary_dim == config->head_dim;
}

static pecert_status apply(void *instance, const pecert_rope_apply_args *a)
{
    if (a != NULL && a->x != NULL && !in_scope(a->config, a->positions, a->x->shape[0])) {
        return PECERT_E_UNSUPPORTED;
    }
    return fast->rope_apply(instance, a);
}

static pecert_status cos_sin(void *instance, pecert_tensor *out_cos, pecert_tensor *out_sin,
                             const pecert_rope_config *config, int64_t seq_len, const int64_t *positions,
                             int64_t n_positions)
{
    if (!in_scope(config, positions, n_positions)) {
        return PECERT_E_UNSUPPORTED;
    }
    return fast->rope_cos_sin(instance, out_cos, out_sin, config, seq_len, positions, n_positions);
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    fast = testing_load_beside(&desc, "fast.so");
    if (fast == NULL) {
        return NULL;
    }
    desc = *fast;
    desc.id = "org.pecert.testing.int32_whole_head";
    desc.name = "int32_whole_head";
    desc.rope_apply = apply;
    desc.rope_cos_sin = cos_sin;
    return &desc;
}
