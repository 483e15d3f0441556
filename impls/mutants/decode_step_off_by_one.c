/* decode_step_off_by_one - prefill is right, but every decode step (a call
 * with one token) uses the cache length after it was incremented: position
 * + 1 (microsoft/onnxruntime-genai PR #2354: 0, 10, 11 instead of 0, 9, 10;
 * fla-org/flash-linear-attention #766). */
#include "core/mutant.h"

static void step_plus_one(int64_t *positions, uint8_t *valid, const int32_t *seq_ids, int64_t n)
{
    (void)valid;
    (void)seq_ids;
    if (n == 1) {
        positions[0] += 1;
    }
}

const mutant_def mutant = {.name = "decode_step_off_by_one", .edit_append = step_plus_one};
