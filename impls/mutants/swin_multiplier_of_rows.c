/* swin_multiplier_of_rows - the Swin relative_position_index with the row
 * offset multiplied by 2 * window_h - 1 (the window's height) where the
 * row length is 2 * window_w - 1: nnFormer's WindowAttention
 * (282857341/nnFormer #8, fixed by PR #88). Harmless on the square windows
 * of Swin's checkpoints; on a window taller than wide, offsets overlap and
 * run past the table, on one wider than tall two offsets share a row. */
#include "core/mutant.h"

static int64_t row_length(int32_t window_h, int32_t window_w)
{
    (void)window_w;
    return 2 * (int64_t)window_h - 1;
}

static void patch(pecert_plugin *desc)
{
    mutant_patch_swin_index(desc, row_length);
}

const mutant_def mutant = {.name = "swin_multiplier_of_rows", .patch = patch};
