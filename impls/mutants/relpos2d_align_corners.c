/* relpos2d_align_corners - SAM's relative-position tables resized corner
 * to corner, source row i (L - 1) / (L' - 1) (align_corners=True), where
 * get_rel_pos' nn.functional.interpolate(mode="linear") uses half-pixel
 * centres, (i + 0.5) L / L' - 0.5. TimmyOVO/deepseek-ocr.rs shipped it
 * (get_rel_pos_vec, fixed in 86a3e8c: "Match PyTorch F.interpolate(...,
 * mode=\"linear\") default behavior"); NVIDIA/TensorRT-Model-Connect's SAM
 * and DeepSeek-OCR plugins build it from linspace(0, 1) and interp1d. Right
 * at the trained size, wrong at every other image size. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_relpos2d_rule rule = {.align_corners = 1};
    mutant_patch_relpos2d(desc, &rule);
}

const mutant_def mutant = {.name = "relpos2d_align_corners", .patch = patch};
