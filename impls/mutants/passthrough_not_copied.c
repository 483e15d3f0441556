/* passthrough_not_copied - out of place, the channels past rotary_dim are
 * never written (the output buffer keeps whatever it held: empty_like
 * garbage, flash-linear-attention PR #967). */
#include "core/mutant.h"

static pecert_status rotate_only(void *ref_instance, const pecert_rope_apply_args *args)
{
    const pecert_rope_config *c = args->config;
    pecert_rope_config rotary = *c;
    rotary.head_dim = c->rotary_dim;
    pecert_tensor x = mutant_channel_view(args->x, 0, c->rotary_dim);
    pecert_tensor out = mutant_channel_view(args->out, 0, c->rotary_dim);
    pecert_rope_apply_args a = *args;
    a.config = &rotary;
    a.x = &x;
    a.out = &out;
    return mutant_ref()->rope_apply(ref_instance, &a);
}

const mutant_def mutant = {.name = "passthrough_not_copied", .apply = rotate_only};
