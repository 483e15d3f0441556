/* posinterp_axes_swapped - the resized grid built with its height and
 * width exchanged and written row by row: an h x w image reads the w x h
 * resize. pytorch/torchtitan PR #4244 (a vision tower's position
 * interpolation passed (y, x) to grid_sample over an "xy" meshgrid; the
 * two swaps cancel on square grids, so only non-square images were
 * wrong). */
#include "core/mutant.h"

static pecert_status broken(void *instance, const pecert_posinterp_args *a)
{
    static const mutant_posinterp_rule rule = {.axes_swapped = 1};
    (void)instance;
    return mutant_posinterp(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->pos_interpolate = broken;
}

const mutant_def mutant = {.name = "posinterp_axes_swapped", .patch = patch};
