/* fp16_positions - position ids stored as float16: integers above 2048 are
 * lost (EleutherAI/gpt-neox #1003; NVIDIA/Megatron-LM #535). */
#include <math.h>

#include "core/mutant.h"

static void round_to_fp16(const pecert_rope_config *c, int64_t *pos, int64_t n)
{
    (void)c;
    for (int64_t i = 0; i < n; i++) {
        _Float16 h = (_Float16)pos[i];
        double back = (double)h;
        pos[i] = isfinite(back) ? (int64_t)back : 65504;
    }
}

const mutant_def mutant = {.name = "fp16_positions", .edit_positions = round_to_fp16};
