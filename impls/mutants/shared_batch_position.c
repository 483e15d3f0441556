/* shared_batch_position - one position sequence for the whole batch: every
 * row takes the positions of the call's first row, token by token
 * (unslothai/unsloth #3699: cache_position shared across the batch;
 * huggingface/transformers PR #29109). */
#include "core/mutant.h"

static void first_rows_positions(int64_t *positions, uint8_t *valid, const int32_t *seq_ids, int64_t n)
{
    (void)valid;
    int64_t first_row[64];
    int64_t n_first = 0;
    int64_t seen[64] = {0};
    for (int64_t t = 0; t < n && n_first < 64; t++) {
        if (seq_ids[t] == seq_ids[0]) {
            first_row[n_first++] = positions[t];
        }
    }
    for (int64_t t = 0; t < n; t++) {
        int32_t s = seq_ids[t];
        if (s < 0 || s >= 64 || n_first == 0) {
            continue;
        }
        int64_t k = seen[s]++;
        positions[t] = k < n_first ? first_row[k] : first_row[n_first - 1] + (k - n_first + 1);
    }
}

const mutant_def mutant = {.name = "shared_batch_position", .edit_append = first_rows_positions};
