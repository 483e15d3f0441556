/* sine2d_halves - each axis' sin and cos in halves (sin of every
 * frequency, then cos) instead of DETR's interleaved sin, cos: MAE's and
 * Marian's layout where DETR stacks and flattens. facebookresearch/mae #63
 * sets the two layouts side by side (the MAE table is halves, DETR's
 * interleaved); a checkpoint trained with one reads the other's channels
 * as other frequencies. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_sine2d_rule rule = {.halves = 1};
    mutant_patch_sine2d(desc, &rule);
}

const mutant_def mutant = {.name = "sine2d_halves", .patch = patch};
