/* peg_square_grid - a PEG's grid side taken as sqrt(N) for N tokens
 * (H = W = int(math.sqrt(N))), right for square images only: a non-square
 * grid whose token count is a square (8 x 2 = 16 -> 4 x 4) is convolved as
 * the wrong grid without an error, any other fails. keras-team/keras-hub's
 * MixFFN, the same depthwise convolution over tokens (at adce690,
 * keras_hub/src/models/mit/mit_layers.py: H, W = int(math.sqrt(shape[1]))) and
 * OSUPCVLab/SegFormer3D #27 (n = cube_root(N), "assuming D = H = W"). */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_peg_rule rule = {.square = 1};
    mutant_patch_peg(desc, &rule);
}

const mutant_def mutant = {.name = "peg_square_grid", .patch = patch};
