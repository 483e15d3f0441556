/*
 * alibi.c - ALiBi slopes and biases (ops alibi_slopes, alibi_bias).
 *
 * With c = 2^floor(log2 n): m_h = 2^(-max_bias (h+1) / c) for h < c, then
 * 2^(-max_bias (2(h-c) + 1) / (2c)) (plugin.h), each an exp2 of an exponent
 * formed in double. The bias -m (q - k) is m * (k - q): k - q of two exact
 * integers below 2^53 taken in double rounds exactly as the int64
 * difference converted would, so the hot loop runs on doubles (k positions
 * converted once per call) and vectorizes.
 */
#include <inttypes.h>
#include <math.h>

#include "../family.h"

double pecert__fast_alibi_slope(int64_t n, double max_bias, int64_t h)
{
    int64_t c = 1;

    while (c <= n / 2) {
        c *= 2;
    }
    if (h < c) {
        return exp2(-max_bias * (double)(h + 1) / (double)c);
    }
    return exp2(-max_bias * (double)(2 * (h - c) + 1) / (double)(2 * c));
}

static pecert_status check_heads(const pecert__fast_call *call, int32_t num_heads, double max_bias)
{
    if (num_heads < 1) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "num_heads=%" PRId32 " must be >= 1",
                                 num_heads);
    }
    if (!isfinite(max_bias) || max_bias <= 0.0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "max_bias=%.17g must be finite and > 0",
                                 max_bias);
    }
    return PECERT_OK;
}

pecert_status pecert__fast_alibi_slopes(void *instance, const pecert_alibi_slopes_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    int64_t shape[1];

    if (pecert__fast_begin_call(&call, instance, "alibi_slopes") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    status = pecert__fast_fam_check_args(&call, args, args != NULL ? args->struct_size : 0,
                                         sizeof(*args));
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_reserved(&call, "args", args->reserved, 4);
    }
    if (status == PECERT_OK) {
        status = check_heads(&call, args->num_heads, args->max_bias);
    }
    if (status == PECERT_OK) {
        shape[0] = args->num_heads;
        status = pecert__fast_fam_check_view(&call, "out", args->out, 1, shape, PECERT__FAM_FLOAT,
                                             1);
    }
    if (status != PECERT_OK) {
        return status;
    }
    for (int64_t h = 0; h < args->num_heads; h++) {
        pecert__fast_fam_store_float(args->out, &h,
                                     pecert__fast_alibi_slope(args->num_heads, args->max_bias, h));
    }
    return PECERT_OK;
}

static pecert_status check_bias_args(const pecert__fast_call *call,
                                     const pecert_alibi_bias_args *args)
{
    int64_t shape[3];
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", args->reserved, 4);

    if (status == PECERT_OK && args->reserved0 != 0) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "reserved0=%" PRId32 " must be 0",
                                   args->reserved0);
    }
    if (status == PECERT_OK && args->symmetric != 0 && args->symmetric != 1) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "symmetric=%" PRId32 " must be 0 or 1",
                                   args->symmetric);
    }
    if (status == PECERT_OK) {
        status = check_heads(call, args->num_heads, args->max_bias);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "q_positions", args->q_positions, args->n_q);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "k_positions", args->k_positions, args->n_k);
    }
    if (status == PECERT_OK) {
        shape[0] = args->num_heads;
        shape[1] = args->n_q;
        shape[2] = args->n_k;
        status = pecert__fast_fam_check_view(call, "out", args->out, 3, shape, PECERT__FAM_FLOAT,
                                             1);
    }
    return status;
}

/* One output row: m * (k_j - q) (linear) or -m |k_j - q| (symmetric). */
static void bias_row_f32(float *restrict out, const double *restrict k, int64_t n, double m,
                         double q, int symmetric)
{
    if (symmetric) {
        for (int64_t j = 0; j < n; j++) {
            out[j] = (float)(-m * fabs(k[j] - q));
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            out[j] = (float)(m * (k[j] - q));
        }
    }
}

static void bias_row_f64(double *restrict out, const double *restrict k, int64_t n, double m,
                         double q, int symmetric)
{
    if (symmetric) {
        for (int64_t j = 0; j < n; j++) {
            out[j] = -m * fabs(k[j] - q);
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            out[j] = m * (k[j] - q);
        }
    }
}

pecert_status pecert__fast_alibi_bias(void *instance, const pecert_alibi_bias_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    const pecert_tensor *out;
    double *k;
    double *row;
    int64_t n_k;
    int contiguous;

    if (pecert__fast_begin_call(&call, instance, "alibi_bias") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    status = pecert__fast_fam_check_args(&call, args, args != NULL ? args->struct_size : 0,
                                         sizeof(*args));
    if (status == PECERT_OK) {
        status = check_bias_args(&call, args);
    }
    if (status != PECERT_OK) {
        return status;
    }
    out = args->out;
    n_k = args->n_k;
    if (pecert__fast_is_empty(out)) {
        return PECERT_OK;
    }
    contiguous = out->strides[2] == 1;
    /* k positions as doubles, then (strided outputs) one row of biases. */
    k = pecert__fast_scratch(&call, (size_t)n_k * 2 * sizeof(double));
    if (k == NULL) {
        return PECERT_E_NOMEM;
    }
    row = k + n_k;
    for (int64_t j = 0; j < n_k; j++) {
        k[j] = (double)args->k_positions[j];
    }
    for (int64_t h = 0; h < args->num_heads; h++) {
        double m = pecert__fast_alibi_slope(args->num_heads, args->max_bias, h);

        for (int64_t i = 0; i < args->n_q; i++) {
            double q = (double)args->q_positions[i];
            int64_t base = h * out->strides[0] + i * out->strides[1];

            if (contiguous && out->dtype == PECERT_DTYPE_F32) {
                bias_row_f32((float *)out->data + base, k, n_k, m, q, args->symmetric);
            } else if (contiguous) {
                bias_row_f64((double *)out->data + base, k, n_k, m, q, args->symmetric);
            } else {
                bias_row_f64(row, k, n_k, m, q, args->symmetric);
                for (int64_t j = 0; j < n_k; j++) {
                    if (out->dtype == PECERT_DTYPE_F32) {
                        ((float *)out->data)[base + j * out->strides[2]] = (float)row[j];
                    } else {
                        ((double *)out->data)[base + j * out->strides[2]] = row[j];
                    }
                }
            }
        }
    }
    return PECERT_OK;
}
