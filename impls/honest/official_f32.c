/* official_f32 - the official float32 arithmetic: transformers v4.57.6
 * modeling_rope_utils.py (inv_freq = 1 / base ** (arange(0, d, 2).float()
 * / d), the exponent rounded to float32) and modeling_llama.py
 * (LlamaRotaryEmbedding.forward: angle float(p) * inv_freq in float32,
 * cos/sin times attention_scaling; apply_rotary_pos_emb). */
#include "core/honest.h"

const honest_formulation honest = {
    .name = "official_f32",
    .follows = "transformers modeling_rope_utils.py + modeling_llama.py, float32",
    .freqs = HONEST_FREQ_TORCH,
    .scaled_in_f32 = 0,
    .trig = HONEST_TRIG_LIBM,
    .rotation = HONEST_ROTATE_HF,
    .position_cache = 0,
};
