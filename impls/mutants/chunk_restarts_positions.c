/* chunk_restarts_positions - chunked prefill restarts positions at 0 in
 * every chunk: each sequence's tokens in a call are numbered from 0, so the
 * keys of later chunks are rotated for the wrong positions and read by
 * queries at others (Blaizzy/mlx-vlm PR #1621). */
#include "core/mutant.h"

static void restart(int64_t *positions, uint8_t *valid, const int32_t *seq_ids, int64_t n)
{
    (void)valid;
    int64_t next[64] = {0};
    for (int64_t t = 0; t < n; t++) {
        int32_t s = seq_ids[t];
        if (s >= 0 && s < 64) {
            positions[t] = next[s]++;
        }
    }
}

const mutant_def mutant = {.name = "chunk_restarts_positions", .edit_append = restart};
