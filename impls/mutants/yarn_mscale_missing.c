/* yarn_mscale_missing - the attention factor (mscale) never applied to
 * cos/sin (DeepSeek V2/V3 ports: sglang PR #22711, vllm PR #48623). */
#include "core/mutant.h"

static double undo(const pecert_rope_config *c, double scaling)
{
    (void)c;
    return 1.0 / scaling;
}

const mutant_def mutant = {.name = "yarn_mscale_missing", .scaling_factor = undo};
