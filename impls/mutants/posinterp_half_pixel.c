/* posinterp_half_pixel - Qwen3-VL's position grid resized with half-pixel
 * centres (align_corners=False) where fast_pos_embed_interpolate samples
 * torch.linspace(0, side - 1, n), corners to corners: every patch but the
 * centre one reads a position scaled about the centre by side (n - 1) /
 * (n (side - 1)). llama.cpp's mtmd resized the 48 x 48 grid with
 * GGML_SCALE_MODE_BILINEAR (ggml-org/llama.cpp PR #25781, "use
 * align_corners for Qwen3-VL vision position-embedding interpolation");
 * SGLang's default path did the same (sgl-project/sglang PR #22052). */
#include "core/mutant.h"

static pecert_status broken(void *instance, const pecert_posinterp_args *a)
{
    static const mutant_posinterp_rule rule = {.half_pixel = 1};
    (void)instance;
    return mutant_posinterp(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->pos_interpolate = broken;
}

const mutant_def mutant = {.name = "posinterp_half_pixel", .patch = patch};
