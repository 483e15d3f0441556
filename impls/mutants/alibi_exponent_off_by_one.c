/* alibi_exponent_off_by_one - ALiBi slopes 2^(-8h/c) for h = 0..c-1 instead
 * of 2^(-8(h+1)/c): the first head gets slope 1 and every slope is one step
 * too large (paiml/aprender PR #2143). The bias follows the slopes. */
#include <math.h>

#include "core/mutant.h"

/* The paper's slopes (plugin.h, ALiBi) with the exponent off by one. */
static double slope(int32_t h, int32_t n, double max_bias)
{
    int32_t c = 1;
    while (c * 2 <= n) {
        c *= 2;
    }
    if (h < c) {
        return pow(2.0, -max_bias * (double)h / (double)c); /* the bug: h, not h + 1 */
    }
    int32_t j = h - c + 1;
    return pow(2.0, -max_bias * (double)(2 * j - 1) / (double)(2 * c));
}

static pecert_status slopes(void *instance, const pecert_alibi_slopes_args *a)
{
    (void)instance;
    if (a == NULL || a->out == NULL || a->num_heads < 1 || a->out->shape[0] != a->num_heads) {
        return PECERT_E_INVAL;
    }
    for (int32_t h = 0; h < a->num_heads; h++) {
        mutant_store_1d(a->out, h, slope(h, a->num_heads, a->max_bias));
    }
    return PECERT_OK;
}

static pecert_status bias(void *instance, const pecert_alibi_bias_args *a)
{
    (void)instance;
    if (a == NULL || a->out == NULL || a->num_heads < 1 || a->out->ndim != 3) {
        return PECERT_E_INVAL;
    }
    for (int32_t h = 0; h < a->num_heads; h++) {
        double m = slope(h, a->num_heads, a->max_bias);
        for (int64_t i = 0; i < a->n_q; i++) {
            for (int64_t j = 0; j < a->n_k; j++) {
                double d = (double)(a->q_positions[i] - a->k_positions[j]);
                double v = -m * (a->symmetric ? fabs(d) : d);
                int64_t off = h * a->out->strides[0] + i * a->out->strides[1] + j * a->out->strides[2];
                if (a->out->dtype == PECERT_DTYPE_F64) {
                    ((double *)a->out->data)[off] = v;
                } else {
                    ((float *)a->out->data)[off] = (float)v;
                }
            }
        }
    }
    return PECERT_OK;
}

static void patch(pecert_plugin *desc)
{
    desc->alibi_slopes = slopes;
    desc->alibi_bias = bias;
}

const mutant_def mutant = {.name = "alibi_exponent_off_by_one", .patch = patch};
