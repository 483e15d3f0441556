/* llama3_ignored - rope_scaling of type llama3 ignored: the model runs
 * unscaled (llama.cpp PR #8676; mlx-vlm PR #1710; unsloth PR #6197). */
#include "core/mutant.h"

static void unscaled(pecert_rope_config *c)
{
    if (c->rope_type == PECERT_ROPE_LLAMA3) {
        c->rope_type = PECERT_ROPE_DEFAULT;
    }
}

const mutant_def mutant = {.name = "llama3_ignored", .edit_config = unscaled};
