/* fp16_angle - the angle p * inv_freq computed in float16: cos error 0.78
 * at position 1857 (EleutherAI/gpt-neox #1003; candle PR #3520). The
 * frequencies and scaling are ref's; only the angle's precision is lost. */
#include <math.h>

#include "core/mutant.h"

static void rotate_row(const pecert_rope_apply_args *a, int64_t t, int64_t h, const double *inv,
                       double scaling)
{
    int64_t rot = a->config->rotary_dim;
    for (int64_t i = 0; i < rot / 2; i++) {
        _Float16 angle = (_Float16)((_Float16)a->positions[t] * (_Float16)inv[i]);
        mutant_real c;
        mutant_real s;
        mutant_sincos((mutant_real)angle, &s, &c);
        c *= (mutant_real)scaling;
        s *= (mutant_real)scaling;
        int64_t ia;
        int64_t ib;
        mutant_pair(a->pairing, rot, i, &ia, &ib);
        mutant_real xa = *mutant_elem(a->x, t, h, ia);
        mutant_real xb = *mutant_elem(a->x, t, h, ib);
        *mutant_elem(a->out, t, h, ia) = (float)(xa * c - xb * s);
        *mutant_elem(a->out, t, h, ib) = (float)(xb * c + xa * s);
    }
    for (int64_t d = rot; d < a->x->shape[2]; d++) {
        *mutant_elem(a->out, t, h, d) = *mutant_elem(a->x, t, h, d);
    }
}

static pecert_status apply_fp16_angle(void *ref_instance, const pecert_rope_apply_args *args)
{
    return mutant_apply_rows(ref_instance, args, rotate_row);
}

const mutant_def mutant = {.name = "fp16_angle", .apply = apply_fp16_angle};
