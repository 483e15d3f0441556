/* rope2d_axes_swapped - the 2-D vision RoPE with its two axes exchanged:
 * the half the model turns by the column turned by the row and the other
 * way round. llama.cpp's shared 2-D rope took Pixtral's [height, width]
 * order for Llama 4, whose Llama4VisionRotaryEmbedding puts the x
 * (column) frequencies first, and "output completely incoherent result"
 * (ggml-org/llama.cpp PR #13282, which added the flag); a Qwen-like tower
 * built [h, w] where its checkpoint interleaves [w, h] (osaurus-ai/
 * vmlx-swift PR #225: "vertical readable, horizontal not"). */
#include "core/mutant.h"

static pecert_status swapped(void *instance, const pecert_rope2d_apply_args *a)
{
    static const mutant_rope2d_rule rule = {.swap_axes = 1};
    (void)instance;
    return mutant_rope2d_apply(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->rope2d_apply = swapped;
}

const mutant_def mutant = {.name = "rope2d_axes_swapped", .patch = patch};
