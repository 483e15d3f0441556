/*
 * sinusoidal.c - sinusoidal tables as torch computes them in float32, the
 * arithmetic an honest float32 engine has (transformers v4.57.6):
 *   T2T, FAIRSEQ        M2M100SinusoidalPositionalEmbedding.get_embedding:
 *                       emb = exp(arange(h) * -(log(B) / (h - 1))), each a
 *                       float32 exp; the angle row * emb, a float32
 *                       product; sinf and cosf.
 *   CONCAT, INTERLEAVED CTRL's positional_encoding(..., torch.float):
 *                       1 / pow(B, 2 * (j // 2) / d), the exponent, the
 *                       power and the reciprocal in float32, then the
 *                       float32 product with the row.
 * The argument checks, the layouts and fairseq's rows are ref's.
 */
#include <math.h>

#include "honest.h"

/* Channel j's float32 frequency; 0 for sin, 1 for cos, -1 for zero. */
static int channel_f32(const pecert_sinusoidal_args *a, int32_t j, float *freq)
{
    int32_t d = a->dim;
    int32_t h = d / 2;
    if (a->variant == PECERT_SINUSOIDAL_INTERLEAVED || a->variant == PECERT_SINUSOIDAL_CONCAT) {
        int32_t sentinel = d - h;
        int32_t i = a->variant == PECERT_SINUSOIDAL_INTERLEAVED ? j / 2 : (j < sentinel ? j : j - sentinel);
        float exponent = (float)(2 * i) / (float)d;
        *freq = 1.0f / powf((float)a->base, exponent);
        return a->variant == PECERT_SINUSOIDAL_INTERLEAVED ? j % 2 : (j < sentinel ? 0 : 1);
    }
    if (j >= 2 * h) {
        return -1;
    }
    float step = (float)(log(a->base) / (h - 1 > 1 ? (double)(h - 1) : 1.0)); /* math.log, then float32 */
    *freq = expf((float)(j % h) * -step);
    return j < h ? 0 : 1;
}

static pecert_status sinusoidal(const pecert__ref_call *call, const void *op_args)
{
    const pecert_sinusoidal_args *a = op_args;
    int64_t idx[2];
    (void)call;
    for (idx[0] = 0; idx[0] < a->n; idx[0]++) {
        int64_t p = a->positions[idx[0]];
        int fairseq = a->variant == PECERT_SINUSOIDAL_FAIRSEQ;
        int64_t row = fairseq ? (p == -1 ? -1 : (int64_t)a->padding_idx + 1 + p) : p;
        for (idx[1] = 0; idx[1] < a->dim; idx[1]++) {
            float freq = 0.0f;
            int kind = row < 0 ? -1 : channel_f32(a, (int32_t)idx[1], &freq);
            float angle = (float)row * freq;
            float value = kind < 0 ? 0.0f : kind == 0 ? sinf(angle) : cosf(angle);
            pecert__ref_store_float(a->out, idx, (double)value);
        }
    }
    return PECERT_OK;
}

pecert_status honest_sinusoidal(void *instance, const pecert_sinusoidal_args *args)
{
    return pecert__ref_run(instance, "sinusoidal", args, sizeof(*args), pecert__ref_check_sinusoidal_args, sinusoidal);
}
