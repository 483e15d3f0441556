/* posinterp_weights_truncated - the interpolation weights built in an
 * integer type: every fractional weight becomes 0, so only patches that
 * land exactly on a table row keep a position embedding (the rest are 0).
 * Blaizzy/mlx-vlm PR #2304: Qwen3-VL's fast_pos_embed_interpolate took
 * the weights' dtype from a quantized pos_embed (packed uint32): 99.9% of
 * the position rows came out zero, and nothing errored. */
#include "core/mutant.h"

static pecert_status broken(void *instance, const pecert_posinterp_args *a)
{
    static const mutant_posinterp_rule rule = {.weights_truncated = 1};
    (void)instance;
    return mutant_posinterp(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->pos_interpolate = broken;
}

const mutant_def mutant = {.name = "posinterp_weights_truncated", .patch = patch};
