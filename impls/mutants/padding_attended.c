/* padding_attended - the padding mask is dropped: padding tokens of a batch
 * are attended to like real ones (transformers #22161 family; padded vs
 * unpadded forwards differ). */
#include "core/mutant.h"

static void all_valid(int64_t *positions, uint8_t *valid, const int32_t *seq_ids, int64_t n)
{
    (void)positions;
    (void)seq_ids;
    for (int64_t t = 0; t < n; t++) {
        valid[t] = 1;
    }
}

const mutant_def mutant = {.name = "padding_attended", .edit_append = all_valid};
