/* linear_inverted - linear scaling multiplies positions by the factor
 * instead of dividing (position interpolation read backwards). */
#include "core/mutant.h"

static void invert(pecert_rope_config *c)
{
    if (c->rope_type == PECERT_ROPE_LINEAR) {
        c->factor = 1.0 / c->factor;
    }
}

const mutant_def mutant = {.name = "linear_inverted", .edit_config = invert};
