/* bf16_positions - position ids held in bfloat16: 8 significant bits, so
 * 15962 becomes 15936 (huggingface/candle PR #3520; mlx-lm PR #1076). */
#include <string.h>

#include "core/mutant.h"

static int64_t to_bf16(int64_t p)
{
    float f = (float)p;
    uint32_t bits;
    memcpy(&bits, &f, sizeof(bits));
    bits += 0x7fffu + ((bits >> 16) & 1u); /* round to nearest even */
    bits &= 0xffff0000u;
    memcpy(&f, &bits, sizeof(f));
    return (int64_t)f;
}

static void round_to_bf16(const pecert_rope_config *c, int64_t *pos, int64_t n)
{
    (void)c;
    for (int64_t i = 0; i < n; i++) {
        pos[i] = to_bf16(pos[i]);
    }
}

const mutant_def mutant = {.name = "bf16_positions", .edit_positions = round_to_bf16};
