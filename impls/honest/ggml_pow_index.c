/* ggml_pow_index - ggml's CUDA rope (ggml/src/ggml-cuda/rope.cu):
 * theta = pos * powf(theta_scale, i0/2), theta_scale = powf(freq_base,
 * -2.0f/n_dims); the rounding of theta_scale is raised to the i-th power,
 * the same error growth as the CPU recurrence. */
#include "core/honest.h"

const honest_formulation honest = {
    .name = "ggml_pow_index",
    .follows = "ggml-cuda rope.cu: pos * powf(theta_scale, i), float32",
    .freqs = HONEST_FREQ_POW_INDEX,
};
