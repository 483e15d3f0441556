/* physical_index - position ids ignored; the token's index in the flattened
 * batch used instead (transformers #22161 GPT-NeoX under left padding;
 * unsloth #3699 cache_position shared across the batch). */
#include "core/mutant.h"

static void index_as_position(const pecert_rope_config *c, int64_t *pos, int64_t n)
{
    (void)c;
    for (int64_t i = 0; i < n; i++) {
        pos[i] = i;
    }
}

const mutant_def mutant = {.name = "physical_index", .edit_positions = index_as_position};
