/* swin_row_multiplier_short - the Swin relative_position_index with the
 * row offset multiplied by 2 * window_w - 2 instead of 2 * window_w - 1,
 * the "more reasonable" multiplier proposed in microsoft/Swin-Transformer
 * #367: the last column offset of one row difference and the first of the
 * next share a table row, so two relative offsets read one bias. Wrong on
 * every window wider than one column, square ones included. */
#include "core/mutant.h"

static int64_t row_length(int32_t window_h, int32_t window_w)
{
    (void)window_h;
    return 2 * (int64_t)window_w - 2;
}

static void patch(pecert_plugin *desc)
{
    mutant_patch_swin_index(desc, row_length);
}

const mutant_def mutant = {.name = "swin_row_multiplier_short", .patch = patch};
