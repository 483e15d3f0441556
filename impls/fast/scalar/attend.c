/*
 * attend.c - the attention kernels of the decode session (session.c) in
 * portable C: the fallback, and the exact model every SIMD kernel
 * reproduces bit for bit (fast.h). -ffp-contract=off: fma only where
 * fmaf() is called.
 *
 * dot_rows: out[j] = q . row_j in float32 over 16 lanes. Lane l sums
 *   channels c = l (mod 16) in channel order, acc = fmaf(q[c], r[c], acc)
 *   from +0; channels past head_dim count as q = r = 0 (what a masked
 *   SIMD load gives, so the tail is the same in every ISA). The lanes
 *   are then added pairwise: l + (l + 8), l + (l + 4), l + (l + 2),
 *   l + (l + 1). Error: each lane rounds ceil(d / 16) times, the tree 4
 *   more: |dot - q.k| <= (ceil(d / 16) + 4) u sum |q_c k_c| (u = 2^-24).
 *
 * softmax_weights: w[j] = float(exp(s[j] - max)) and their sum in
 *   double. exp by Cody-Waite: k = nearest(x / ln 2) (the 1.5 * 2^52
 *   shift), r = (x - k ln2_hi) - k ln2_lo with ln2_hi's last 21 bits
 *   zero (k ln2_hi exact for |k| < 2^21, and x - k ln2_hi exact by
 *   Sterbenz), exp(r) by its Taylor polynomial of degree 11 in Horner
 *   form (|r| <= 0.347: truncation 0.347^12 / 12! < 7e-15), times 2^k
 *   set in the exponent bits. No fma anywhere. Relative error below
 *   1e-14 before the one rounding to float (relative error <= u): the
 *   weight's error is that rounding, nothing else. x < -104 (exp below 2^-150,
 *   which rounds to +0 in float) and x = -inf give +0; NaN stays NaN.
 *   The sum adds (double)w[j] into lane j mod 8, from +0, then the
 *   lanes pairwise as above (l + 4, l + 2, l + 1).
 *
 * weighted_rows: out[c] = sum_j w[j] row_j[c] in float32, j in order,
 *   acc = fmaf(w[j], r[c], acc) from +0 per channel; a row whose weight
 *   is 0 is skipped (padding and weights that underflowed: a NaN in an
 *   unattended value row never reaches the output). n <= 64 per call
 *   (PECERT__FAST_ATTEND_BLOCK): the session adds each block's sums in
 *   double, so float rounding never accumulates over more than 64 terms.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../fast.h"

#define DOT_LANES 16
#define SUM_LANES 8

double pecert__fast_exp_weight_scalar(double x)
{
    static const double taylor[PECERT__FAST_EXP_TERMS] = PECERT__FAST_EXP_TAYLOR;
    const double shift = 0x1.8p52;
    double t, k, r, p = taylor[0];
    int64_t bits, kk;

    if (x < PECERT__FAST_EXP_FLOOR) {
        return 0.0;
    }
    t = x * PECERT__FAST_INV_LN2 + shift;
    k = t - shift;
    r = (x - k * PECERT__FAST_LN2_HI) - k * PECERT__FAST_LN2_LO;
    for (int i = 1; i < PECERT__FAST_EXP_TERMS; i++) {
        p = p * r + taylor[i];
    }
    /* t's low bits hold k (two's complement): t and the shift differ by
     * k ulps of 1 in the same binade. */
    memcpy(&bits, &t, sizeof(bits));
    kk = bits - (int64_t)0x4338000000000000;
    bits = (kk + 1023) << 52;
    memcpy(&t, &bits, sizeof(t));
    return p * t;
}

/* One dot product in the 16-lane order. */
static float dot16(const float *restrict q, const float *restrict r, int32_t d)
{
    float acc[DOT_LANES] = {0};

    for (int32_t c0 = 0; c0 < d; c0 += DOT_LANES) {
        for (int l = 0; l < DOT_LANES; l++) {
            int in = c0 + l < d;

            acc[l] = fmaf(in ? q[c0 + l] : 0.0f, in ? r[c0 + l] : 0.0f, acc[l]);
        }
    }
    for (int width = DOT_LANES / 2; width >= 1; width /= 2) {
        for (int l = 0; l < width; l++) {
            acc[l] = acc[l] + acc[l + width];
        }
    }
    return acc[0];
}

void pecert__fast_dot_rows_scalar(const float *restrict q, size_t q_stride, int32_t g,
                                  const float *restrict rows, size_t stride, int64_t n, int32_t d,
                                  float *restrict out, size_t out_stride)
{
    for (int32_t h = 0; h < g; h++) {
        for (int64_t j = 0; j < n; j++) {
            out[(size_t)h * out_stride + (size_t)j] = dot16(q + (size_t)h * q_stride, rows + (size_t)j * stride, d);
        }
    }
}

double pecert__fast_softmax_weights_scalar(const double *restrict scores, int64_t n, double max,
                                           float *restrict w)
{
    double sum[SUM_LANES] = {0};

    for (int64_t j = 0; j < n; j++) {
        w[j] = (float)pecert__fast_exp_weight_scalar(scores[j] - max);
        sum[j % SUM_LANES] = sum[j % SUM_LANES] + (double)w[j];
    }
    for (int width = SUM_LANES / 2; width >= 1; width /= 2) {
        for (int l = 0; l < width; l++) {
            sum[l] = sum[l] + sum[l + width];
        }
    }
    return sum[0];
}

/* One head's weighted sum over the block, channels [0, d). */
void pecert__fast_weighted_head_scalar(const float *restrict w, const float *restrict rows,
                                       size_t stride, int64_t n, int32_t d, float *restrict out)
{
    for (int32_t c = 0; c < d; c++) {
        out[c] = 0.0f;
    }
    for (int64_t j = 0; j < n; j++) {
        const float *r = rows + (size_t)j * stride;

        if (w[j] == 0.0f) {
            continue;
        }
        for (int32_t c = 0; c < d; c++) {
            out[c] = fmaf(w[j], r[c], out[c]);
        }
    }
}

void pecert__fast_weighted_rows_scalar(const float *restrict w, size_t w_stride, int32_t g,
                                       const float *restrict rows, size_t stride, int64_t n,
                                       int32_t d, float *restrict out, size_t out_stride)
{
    for (int32_t h = 0; h < g; h++) {
        pecert__fast_weighted_head_scalar(w + (size_t)h * w_stride, rows, stride, n, d,
                                          out + (size_t)h * out_stride);
    }
}
