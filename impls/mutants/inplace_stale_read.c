/* inplace_stale_read - in place, the second channel of a pair is computed
 * from the first channel's already-rotated value (out[a] written before
 * x[a] is read again). Out of place it is correct, which is why only a
 * check that runs in place finds it (llama.cpp PR #19296, in-place
 * non-contiguous rope on Vulkan/CUDA). */
#include <math.h>

#include "core/mutant.h"

static void rotate_row(const pecert_rope_apply_args *a, int64_t t, int64_t h, const double *inv,
                       double scaling)
{
    int64_t rot = a->config->rotary_dim;
    mutant_real p = (mutant_real)a->positions[t];
    for (int64_t i = 0; i < rot / 2; i++) {
        mutant_real c;
        mutant_real s;
        mutant_sincos(p * (mutant_real)inv[i], &s, &c);
        c *= (mutant_real)scaling;
        s *= (mutant_real)scaling;
        int64_t ia;
        int64_t ib;
        mutant_pair(a->pairing, rot, i, &ia, &ib);
        float *xa = mutant_elem(a->x, t, h, ia);
        float *xb = mutant_elem(a->x, t, h, ib);
        mutant_real b = *xb;
        *mutant_elem(a->out, t, h, ia) = (float)(*xa * c - b * s);
        *mutant_elem(a->out, t, h, ib) = (float)(b * c + *xa * s); /* *xa may be stale */
    }
    for (int64_t d = rot; d < a->x->shape[2]; d++) {
        *mutant_elem(a->out, t, h, d) = *mutant_elem(a->x, t, h, d);
    }
}

static pecert_status apply_stale(void *ref_instance, const pecert_rope_apply_args *args)
{
    return mutant_apply_rows(ref_instance, args, rotate_row);
}

const mutant_def mutant = {.name = "inplace_stale_read", .apply = apply_stale};
