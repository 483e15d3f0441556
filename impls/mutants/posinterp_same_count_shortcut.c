/* posinterp_same_count_shortcut - the table returned unchanged whenever
 * the image has as many patches as the table's grid, whatever the grid's
 * shape: a 7 x 28 image gets the 14 x 14 table's rows as they are.
 * huggingface/pytorch-image-models PR #2737 (resample_abs_pos_embed's
 * early return on an unchanged token count); the original DINO's
 * `if npatch == N: return pos_embed`, quoted in facebookresearch/dino #8,
 * which DINOv2 and transformers guard with `and w == h`. */
#include "core/mutant.h"

static pecert_status broken(void *instance, const pecert_posinterp_args *a)
{
    static const mutant_posinterp_rule rule = {.count_shortcut = 1};
    (void)instance;
    return mutant_posinterp(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->pos_interpolate = broken;
}

const mutant_def mutant = {.name = "posinterp_same_count_shortcut", .patch = patch};
