/* meta_complex - Meta's llama (llama/model.py, precompute_freqs_cis and
 * apply_rotary_emb): freqs = 1 / theta ** (arange(0, dim, 2).float() /
 * dim), torch.outer(t, freqs) in float32, torch.polar into complex64
 * freqs_cis, then view_as_complex(x) * freqs_cis. */
#include "core/honest.h"

const honest_formulation honest = {
    .name = "meta_complex",
    .follows = "meta-llama model.py precompute_freqs_cis + apply_rotary_emb, complex64",
    .rotation = HONEST_ROTATE_COMPLEX,
};
