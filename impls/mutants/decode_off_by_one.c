/* decode_off_by_one - every position one step too far: the cache length
 * used as position after it was already incremented (onnxruntime-genai PR
 * #2354; flash-linear-attention #766). */
#include "core/mutant.h"

static void plus_one(const pecert_rope_config *c, int64_t *pos, int64_t n)
{
    (void)c;
    for (int64_t i = 0; i < n; i++) {
        pos[i] += 1;
    }
}

const mutant_def mutant = {.name = "decode_off_by_one", .edit_positions = plus_one};
