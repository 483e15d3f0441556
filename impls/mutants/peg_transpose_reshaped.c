/* peg_transpose_reshaped - a PEG's tokens [N, C] transposed to [C, N] and
 * that memory reshaped to the channels-last grid [H, W, C], as a
 * channels-first port's transpose(1, 2).view(B, C, H, W) becomes when it is
 * carried into a channels-last framework without dropping the transpose:
 * the grid then holds the tokens and channels interleaved, so the kernel
 * convolves unrelated values (and the residual adds them back). keras-hub's
 * SegFormer spatial-reduction convolution over the same tokens shipped it
 * (keras-team/keras-hub at adce690, keras_hub/src/models/mit/mit_layers.py:
 * ops.reshape(ops.transpose(x, [0, 2, 1]), (B, H, W, C))), brought in by
 * DavidLandup0/deepvision PR #126 and taken out by keras-team/keras-hub
 * PR #1883 ("remove transpose"). */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_peg_rule rule = {.transposed_read = 1};
    mutant_patch_peg(desc, &rule);
}

const mutant_def mutant = {.name = "peg_transpose_reshaped", .patch = patch};
