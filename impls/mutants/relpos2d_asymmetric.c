/* relpos2d_asymmetric - SAM's relative-position tables resized with source
 * row i L / L' (no half-pixel offset) where get_rel_pos' interpolate reads
 * (i + 0.5) L / L' - 0.5: the zero-offset row moves (62.70 instead of 63
 * for 127 -> 79 rows). Blaizzy/mlx-vlm's DeepSeek-OCR SAM encoder
 * (mlx_vlm/models/deepseekocr/sam.py, get_rel_pos at 9b13f52) runs it on
 * every 640-pixel crop. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_relpos2d_rule rule = {.asymmetric = 1};
    mutant_patch_relpos2d(desc, &rule);
}

const mutant_def mutant = {.name = "relpos2d_asymmetric", .patch = patch};
