/* posinterp_no_antialias - SigLIP 2's (and DINOv2 with registers') grid
 * resized with the plain bilinear (bicubic) taps where the model asks
 * F.interpolate(..., antialias=True): the same where a grid grows, wrong
 * wherever it shrinks, where antialias averages every source row under a
 * widened kernel. openvinotoolkit/openvino.genai PR #4444 built LFM2-VL's
 * SigLIP 2 grid with "ordinary bilinear weights" (review: "these
 * matrices differ and produce incorrect vision embeddings"). */
#include "core/mutant.h"

static pecert_status broken(void *instance, const pecert_posinterp_args *a)
{
    static const mutant_posinterp_rule rule = {.no_antialias = 1};
    (void)instance;
    return mutant_posinterp(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->pos_interpolate = broken;
}

const mutant_def mutant = {.name = "posinterp_no_antialias", .patch = patch};
