/*
 * alibi.c - ALiBi slopes and biases (ops alibi_slopes, alibi_bias).
 *
 * Slopes: Press et al., "Train Short, Test Long" (ALiBi), get_slopes in
 * ofirpress/attention_with_linear_biases fairseq/models/transformer.py
 * (TransformerDecoder.__init__), the same values as transformers' Bloom
 * build_alibi_tensor and, with max_bias = alibi_bias_max, llm-foundry's
 * gen_slopes (MPT). With c = 2^floor(log2 n):
 *     m_h = 2^(-max_bias * h / c),            h = 1 .. c
 *     then 2^(-max_bias * (2j - 1) / (2c)),   j = 1 .. n - c.
 * Computed in double as exp2 of an exact exponent (no rounded base raised
 * to a power, which is what makes Bloom's float32 slopes drift).
 *
 * Bias: -m_h * (q - k) (linear, causal) or -m_h * |q - k| (symmetric), the
 * distance formed exactly in integers.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "ref.h"

/* The largest power of two <= n (n >= 1). */
static int64_t floor_pow2(int64_t n)
{
    int64_t c = 1;

    while (c <= n / 2) {
        c *= 2;
    }
    return c;
}

/* Slope of head index h (0-based) of n heads (also used by the decode
 * session's ALiBi). */
double pecert__ref_alibi_slope(int64_t n, double max_bias, int64_t h)
{
    int64_t c = floor_pow2(n);

    if (h < c) {
        return exp2(-max_bias * (double)(h + 1) / (double)c);
    }
    return exp2(-max_bias * (double)(2 * (h - c) + 1) / (double)(2 * c));
}

static pecert_status check_heads(const pecert__ref_call *call, int32_t num_heads,
                                 double max_bias)
{
    if (num_heads < 1) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "num_heads=%" PRId32 " must be >= 1",
                                num_heads);
    }
    if (!isfinite(max_bias) || max_bias <= 0.0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "max_bias=%.17g must be finite and > 0",
                                max_bias);
    }
    return PECERT_OK;
}

static pecert_status check_slopes_args(const pecert__ref_call *call, const void *op_args)
{
    const pecert_alibi_slopes_args *args = op_args;
    int64_t shape[1] = {args->num_heads};
    pecert_status status = pecert__ref_check_reserved(call, "args", args->reserved, 4);

    if (status == PECERT_OK) {
        status = check_heads(call, args->num_heads, args->max_bias);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "out", args->out, 1, shape, PECERT__REF_FLOAT, 1);
    }
    return status;
}

static pecert_status alibi_slopes(const pecert__ref_call *call, const void *op_args)
{
    const pecert_alibi_slopes_args *args = op_args;

    (void)call;
    for (int64_t h = 0; h < args->num_heads; h++) {
        pecert__ref_store_float(args->out, &h, pecert__ref_alibi_slope(args->num_heads, args->max_bias, h));
    }
    return PECERT_OK;
}

pecert_status pecert__ref_alibi_slopes(void *instance, const pecert_alibi_slopes_args *args)
{
    return pecert__ref_run(instance, "alibi_slopes", args, sizeof(*args), check_slopes_args,
                           alibi_slopes);
}

static pecert_status check_bias_args(const pecert__ref_call *call, const void *op_args)
{
    const pecert_alibi_bias_args *args = op_args;
    int64_t shape[3];
    pecert_status status = pecert__ref_check_reserved(call, "args", args->reserved, 4);

    if (status == PECERT_OK && args->reserved0 != 0) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    if (status == PECERT_OK && args->symmetric != 0 && args->symmetric != 1) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "symmetric=%" PRId32 " must be 0 or 1",
                                  args->symmetric);
    }
    if (status == PECERT_OK) {
        status = check_heads(call, args->num_heads, args->max_bias);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "q_positions", args->q_positions, args->n_q);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "k_positions", args->k_positions, args->n_k);
    }
    shape[0] = args->num_heads;
    shape[1] = args->n_q;
    shape[2] = args->n_k;
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "out", args->out, 3, shape, PECERT__REF_FLOAT, 1);
    }
    return status;
}

static pecert_status alibi_bias(const pecert__ref_call *call, const void *op_args)
{
    const pecert_alibi_bias_args *args = op_args;
    int64_t idx[3];

    (void)call;
    for (idx[0] = 0; idx[0] < args->num_heads; idx[0]++) {
        double m = pecert__ref_alibi_slope(args->num_heads, args->max_bias, idx[0]);

        for (idx[1] = 0; idx[1] < args->n_q; idx[1]++) {
            for (idx[2] = 0; idx[2] < args->n_k; idx[2]++) {
                /* |q|, |k| < 2^53: the difference fits int64 exactly. */
                int64_t d = args->k_positions[idx[2]] - args->q_positions[idx[1]];

                if (args->symmetric) {
                    d = -llabs(d);
                }
                pecert__ref_store_float(args->out, idx, m * (double)d);
            }
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_alibi_bias(void *instance, const pecert_alibi_bias_args *args)
{
    return pecert__ref_run(instance, "alibi_bias", args, sizeof(*args),
                           check_bias_args, alibi_bias);
}
