/* dynamic_wrong_length - dynamic NTK recomputed from the number of tokens in
 * the call (the new chunk) instead of max(position)+1: a decode step past L0
 * goes back to the unscaled base (transformers #27226; TensorRT-LLM #1299). */
#include "core/mutant.h"

static int64_t chunk_length(const pecert_rope_config *c, int64_t seq_len, const int64_t *pos,
                            int64_t n)
{
    (void)pos;
    if (c->rope_type != PECERT_ROPE_DYNAMIC || seq_len != 0 || n == 0) {
        return seq_len;
    }
    return n;
}

const mutant_def mutant = {.name = "dynamic_wrong_length", .edit_seq_len = chunk_length};
