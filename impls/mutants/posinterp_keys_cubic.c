/* posinterp_keys_cubic - bicubic with Keys' a = -0.5 where PyTorch's
 * mode="bicubic" uses A = -0.75: every weight off the grid's own points
 * moves. Blaizzy/mlx-vlm #1241 (MoonViT's position embedding, cosine
 * 0.9894 against the official tower on a 36 x 46 grid, 0.99994 when no
 * interpolation is needed). */
#include "core/mutant.h"

static pecert_status broken(void *instance, const pecert_posinterp_args *a)
{
    static const mutant_posinterp_rule rule = {.keys_cubic = 1};
    (void)instance;
    return mutant_posinterp(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->pos_interpolate = broken;
}

const mutant_def mutant = {.name = "posinterp_keys_cubic", .patch = patch};
