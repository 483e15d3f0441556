/* longrope_always_short - the LongRoPE switch never taken: short factors at
 * every length (the sequence length is not passed to the frequency code). */
#include "core/mutant.h"

static int64_t never_long(const pecert_rope_config *c, int64_t seq_len, const int64_t *pos,
                          int64_t n)
{
    (void)pos;
    (void)n;
    return c->rope_type == PECERT_ROPE_LONGROPE ? 1 : seq_len;
}

const mutant_def mutant = {.name = "longrope_always_short", .edit_seq_len = never_long};
