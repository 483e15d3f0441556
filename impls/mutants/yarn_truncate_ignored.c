/* yarn_truncate_ignored - rope_scaling.truncate=false (gpt-oss) not read:
 * the correction range is always floored/ceiled. */
#include "core/mutant.h"

static void always_truncate(pecert_rope_config *c)
{
    c->truncate = 1;
    c->present |= PECERT_ROPE_HAS_TRUNCATE;
}

const mutant_def mutant = {.name = "yarn_truncate_ignored", .edit_config = always_truncate};
