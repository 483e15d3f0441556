/* alibi_geometric - ALiBi slopes as one geometric sequence
 * 2^(-max_bias * h / n), h = 1..n, for every head count: right for powers
 * of two, wrong for 6, 12, 20, 40... heads, where the paper interleaves a
 * second sequence (ml-explore/mlx #343 / PR #3071; TensorRT-LLM PR #1611). */
#include <math.h>
#include <stdlib.h>

#include "core/mutant.h"

static double geometric_slope(int32_t h, int32_t n, double max_bias)
{
    return pow(2.0, -max_bias * (double)(h + 1) / (double)n);
}

static pecert_status slopes(void *instance, const pecert_alibi_slopes_args *a)
{
    (void)instance;
    if (a == NULL || a->out == NULL || a->num_heads < 1 || a->out->shape[0] != a->num_heads) {
        return PECERT_E_INVAL;
    }
    for (int32_t h = 0; h < a->num_heads; h++) {
        mutant_store_1d(a->out, h, geometric_slope(h, a->num_heads, a->max_bias));
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
        double m = geometric_slope(h, a->num_heads, a->max_bias);
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

const mutant_def mutant = {.name = "alibi_geometric", .patch = patch};
