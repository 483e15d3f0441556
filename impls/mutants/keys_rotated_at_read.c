/* keys_rotated_at_read - the cache stores keys unrotated and rotates them at
 * read time with the reading query's position, so every cached key is used
 * at a position it does not have. Then R(p)q . R(p)k = q . k: attention loses
 * all relative position — exactly what running every token at position 0
 * gives, which is how this mutant does it (the "cached keys rotated for one
 * position and reused at another" class; transformers #27226 and the
 * k-shift bugs of llama.cpp PR #4889 are its relatives). */
#include "core/mutant.h"

static void all_at_query_position(int64_t *positions, uint8_t *valid, const int32_t *seq_ids, int64_t n)
{
    (void)valid;
    (void)seq_ids;
    for (int64_t t = 0; t < n; t++) {
        positions[t] = 0;
    }
}

const mutant_def mutant = {.name = "keys_rotated_at_read", .edit_append = all_at_query_position};
