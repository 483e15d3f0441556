/* yarn_mscale_twice - the attention factor applied twice, to cos/sin and
 * again (Ministral3's 1.2773 where 1.0 was expected, vllm PR #48623). */
#include "core/mutant.h"

static double again(const pecert_rope_config *c, double scaling)
{
    (void)c;
    return scaling;
}

const mutant_def mutant = {.name = "yarn_mscale_twice", .scaling_factor = again};
