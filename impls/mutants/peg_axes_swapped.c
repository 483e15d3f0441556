/* peg_axes_swapped - a PEG's token grid viewed with its height and width
 * exchanged (view(B, C, W, H) for a row-major H x W grid): square grids
 * hide it, every non-square one convolves the wrong neighbours.
 * huggingface/transformers PR #18597 (the TF port of CvT's depthwise
 * convolutional projection permuted NCHW to NWHC: "I can change the comment
 * and leave the permutation as so"; the merged code dropped it) and
 * OSUPCVLab/SegFormer3D #27 (its DWConv assumes D = H = W). */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_peg_rule rule = {.axes_swapped = 1};
    mutant_patch_peg(desc, &rule);
}

const mutant_def mutant = {.name = "peg_axes_swapped", .patch = patch};
