/* dynamic_static - dynamic NTK applied statically: the base scaled as if
 * the sequence were always factor * max_position_embeddings long, whatever
 * its length (vllm #3488, #5093). */
#include "core/mutant.h"

static int64_t always_scaled(const pecert_rope_config *c, int64_t seq_len, const int64_t *pos,
                             int64_t n)
{
    (void)pos;
    (void)n;
    if (c->rope_type != PECERT_ROPE_DYNAMIC) {
        return seq_len;
    }
    return (int64_t)(c->factor * (double)c->max_position_embeddings);
}

const mutant_def mutant = {.name = "dynamic_static", .edit_seq_len = always_scaled};
