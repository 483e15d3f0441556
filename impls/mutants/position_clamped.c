/* position_clamped - positions clamped to max_position_embeddings - 1, as a
 * cos/sin cache sized to the config length does (vllm #3488 family). */
#include "core/mutant.h"

static void clamp(const pecert_rope_config *c, int64_t *pos, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (pos[i] >= c->max_position_embeddings) {
            pos[i] = c->max_position_embeddings - 1;
        }
    }
}

const mutant_def mutant = {.name = "position_clamped", .edit_positions = clamp};
