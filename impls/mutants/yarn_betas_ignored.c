/* yarn_betas_ignored - rope_scaling.beta_fast/beta_slow not read: the
 * paper defaults 32/1 always used. */
#include "core/mutant.h"

static void defaults(pecert_rope_config *c)
{
    c->present &= ~(uint32_t)(PECERT_ROPE_HAS_BETA_FAST | PECERT_ROPE_HAS_BETA_SLOW);
}

const mutant_def mutant = {.name = "yarn_betas_ignored", .edit_config = defaults};
