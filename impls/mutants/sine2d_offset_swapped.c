/* sine2d_offset_swapped - Deformable DETR's -0.5 offset on the cumulative
 * counts where the model has none, or none where it has it: the sine
 * module of one DETR variant reused for another. JeffZuo953/EndoSD's
 * Mask2Former head (multitask_moe_lora/seg_heads/mask2former_head/
 * positional_encoding.py) subtracts 0.5 for a model whose checkpoint was
 * trained without it; PaddlePaddle/PaddleDetection #3718 had to add the
 * offset to its DETR PositionEmbedding before Deformable DETR matched. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_sine2d_rule rule = {.offset_swapped = 1};
    mutant_patch_sine2d(desc, &rule);
}

const mutant_def mutant = {.name = "sine2d_offset_swapped", .patch = patch};
