/* sine2d_axes_swapped - the columns' channels before the rows' (x, y)
 * where DETR concatenates (pos_y, pos_x): the order users expect and ask
 * about (IDEA-Research/DAB-DETR #36, Atten4Vis/ConditionalDETR #19), and
 * the order of DETR's own learned variant (DetrLearnedPositionEmbedding
 * concatenates the column embedding first), so that a port that shares
 * code between the two swaps one of them. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_sine2d_rule rule = {.axes_swapped = 1};
    mutant_patch_sine2d(desc, &rule);
}

const mutant_def mutant = {.name = "sine2d_axes_swapped", .patch = patch};
