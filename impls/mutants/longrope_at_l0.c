/* longrope_at_l0 - the LongRoPE switch on the wrong side of L0: `>=`
 * instead of `>`, so a sequence of exactly L0 tokens gets the long factors
 * (mistral.rs #251; the L0 boundary class of llama.cpp #24823). */
#include "core/mutant.h"

static int64_t inclusive(const pecert_rope_config *c, int64_t seq_len, const int64_t *pos,
                         int64_t n)
{
    if (c->rope_type != PECERT_ROPE_LONGROPE) {
        return seq_len;
    }
    int64_t len = seq_len;
    if (len == 0) {
        for (int64_t i = 0; i < n; i++) {
            len = pos[i] + 1 > len ? pos[i] + 1 : len;
        }
    }
    return len == c->original_max_position_embeddings ? len + 1 : seq_len;
}

const mutant_def mutant = {.name = "longrope_at_l0", .edit_seq_len = inclusive};
