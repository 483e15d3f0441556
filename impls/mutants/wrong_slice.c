/* wrong_slice - a partial rotary applied to the last rotary_dim channels of
 * the head instead of the first (the "pairing applied to the wrong slice"
 * class; vllm-omni PR #1784, HabanaAI/vllm-fork PR #2133). */
#include "core/mutant.h"

static pecert_status apply_to_tail(void *ref_instance, const pecert_rope_apply_args *args)
{
    const pecert_rope_config *c = args->config;
    int64_t head_dim = args->x->shape[2];
    int64_t offset = head_dim - c->rotary_dim;
    if (offset < 0) {
        offset = 0;
    }
    pecert_rope_config tail = *c;
    tail.head_dim = c->rotary_dim;
    pecert_tensor x = mutant_channel_view(args->x, offset, c->rotary_dim);
    pecert_tensor out = mutant_channel_view(args->out, offset, c->rotary_dim);
    pecert_rope_apply_args a = *args;
    a.config = &tail;
    a.x = &x;
    a.out = &out;
    pecert_status st = mutant_ref()->rope_apply(ref_instance, &a);
    for (int64_t t = 0; st == PECERT_OK && t < args->x->shape[0]; t++) {
        for (int64_t h = 0; h < args->x->shape[1]; h++) {
            for (int64_t d = 0; d < offset; d++) {
                *mutant_elem(args->out, t, h, d) = *mutant_elem(args->x, t, h, d);
            }
        }
    }
    return st;
}

const mutant_def mutant = {.name = "wrong_slice", .apply = apply_to_tail};
