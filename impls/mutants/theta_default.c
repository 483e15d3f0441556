/* theta_default - rope_theta not read from the config: the default 10000
 * is used (Llama-3's 500000, Qwen2's 1e6 silently lost). */
#include "core/mutant.h"

static void default_theta(pecert_rope_config *c)
{
    c->rope_theta = 10000.0;
}

const mutant_def mutant = {.name = "theta_default", .edit_config = default_theta};
