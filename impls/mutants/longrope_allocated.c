/* longrope_allocated - LongRoPE short/long factors chosen from the
 * allocated context (max_position_embeddings) instead of the sequence
 * length: long factors even for short prompts (vllm PR #8254, #27431;
 * llama.cpp #24823). */
#include "core/mutant.h"

static int64_t allocated(const pecert_rope_config *c, int64_t seq_len, const int64_t *pos,
                         int64_t n)
{
    (void)pos;
    (void)n;
    return c->rope_type == PECERT_ROPE_LONGROPE ? c->max_position_embeddings : seq_len;
}

const mutant_def mutant = {.name = "longrope_allocated", .edit_seq_len = allocated};
