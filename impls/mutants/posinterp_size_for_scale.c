/* posinterp_size_for_scale - DINOv2's scale_factor form ((n + 0.1) / M,
 * which PyTorch maps coordinates with: 1 / scale, not M / n) replaced by
 * the size form: every patch off the centre reads a slightly different
 * position, even an axis whose size does not change. transformers'
 * DINOv2-with-registers port switched between the two and noted "the
 * hidden states are not equivalent" (huggingface/transformers PR
 * #35411); facebookresearch/dinov2 PR #378 keeps the offset models on
 * scale_factor for exactly that reason. */
#include "core/mutant.h"

static pecert_status broken(void *instance, const pecert_posinterp_args *a)
{
    static const mutant_posinterp_rule rule = {.ignore_scale = 1};
    (void)instance;
    return mutant_posinterp(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->pos_interpolate = broken;
}

const mutant_def mutant = {.name = "posinterp_size_for_scale", .patch = patch};
