/* sincos2d_rtdetr_row_major - RT-DETR's 2-D sin-cos table with its rows
 * numbered as the row-major patches (row r | column c for token r w + c),
 * as huggingface/transformers PR #41380 (merged 2025-10-09, after v4.57.6)
 * rewrote build_2d_sincos_position_embedding in RT-DETR, RT-DETRv2 and
 * D-FINE ("xy" meshgrid, the height's half first). lyuwenyu/RT-DETR's
 * HybridEncoder, ultralytics' AIFI and transformers v4.57.6 build the "ij"
 * meshgrid of (width, height) and flatten it (row k: k / h | k mod h), and
 * the checkpoints were trained so: the two agree on square feature maps
 * only, and a port that follows the newer code gives a 640 x 480 image's
 * tokens other positions than the checkpoint's own code. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_sincos2d_rule rule = {.rt_detr_row_major = 1};
    mutant_patch_sincos2d(desc, &rule);
}

const mutant_def mutant = {.name = "sincos2d_rtdetr_row_major", .patch = patch};
