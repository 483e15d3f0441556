/* peg_axes_swapped - a PEG's token grid viewed with its height and width
 * exchanged (view(B, C, W, H) for a row-major H x W grid): square grids
 * hide it, every non-square one convolves the wrong neighbours. The same
 * view of a row-major H x W token grid with W and H exchanged shipped in
 * apchenstu/mvsnerf (#53: src_grid.view(B, D, W_pad, H_pad, 2), "it should
 * be view(B, D, H_pad, W_pad, 2)", harmless there only because an
 * order-free reshape followed). */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_peg_rule rule = {.axes_swapped = 1};
    mutant_patch_peg(desc, &rule);
}

const mutant_def mutant = {.name = "peg_axes_swapped", .patch = patch};
