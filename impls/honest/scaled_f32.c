/* scaled_f32 - the scalings computed in float32 end to end, where the
 * official code uses Python floats: the YaRN correction range with logf
 * and floorf/ceilf (ggml.c ggml_rope_yarn_corr_dims), YaRN's mscale
 * 0.1f * logf(factor) + 1 (ggml rope_yarn), llama3's wavelength bounds,
 * the dynamic NTK base and LongRoPE's attention factor. */
#include "core/honest.h"

const honest_formulation honest = {
    .name = "scaled_f32",
    .follows = "YaRN/LongRoPE/llama3/dynamic constants in float32 (ggml_rope_yarn_corr_dims style)",
    .scaled_in_f32 = 1,
};
