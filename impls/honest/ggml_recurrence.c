/* ggml_recurrence - ggml's CPU rope (ggml/src/ggml-cpu/ops.cpp,
 * ggml_rope_cache_init): theta_scale = powf(freq_base, -2.0f/n_dims), the
 * angle starts at float(p) and is multiplied by theta_scale after each
 * pair, so its relative error grows with the pair index (about 36 u at the
 * last pair of theta 1e4, d 128); rope_yarn's blend for the scalings. */
#include "core/honest.h"

const honest_formulation honest = {
    .name = "ggml_recurrence",
    .follows = "ggml-cpu ops.cpp ggml_rope_cache_init: theta *= theta_scale, float32",
    .freqs = HONEST_FREQ_RECURRENCE,
};
