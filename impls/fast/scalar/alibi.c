/*
 * alibi.c - one row of ALiBi biases in portable C: the fallback kernels,
 * the tails of the SIMD ones, and the arithmetic every SIMD kernel
 * reproduces bit for bit.
 *
 * For key positions k[j] and a query q (exact doubles, |.| < 2^53) and
 * the head's slope m (plugin.h pecert_alibi_bias_args):
 *     linear:     out[j] = m * (k[j] - q)
 *     symmetric:  out[j] = -m * |k[j] - q|
 * in double: one subtraction, one multiplication (no fma: the tree builds
 * with -ffp-contract=off), then for f32 one round-to-nearest conversion.
 * k[j] - q is the correctly rounded difference of two integers (exact
 * while it stays below 2^53), the same in every lane of every ISA.
 */
#include <math.h>

#include "../fast.h"

void pecert__fast_alibi_keys_scalar(double *restrict out, const int64_t *restrict k, int64_t n)
{
    for (int64_t j = 0; j < n; j++) {
        out[j] = (double)k[j];
    }
}

void pecert__fast_alibi_row_f32_scalar(float *restrict out, const double *restrict k, int64_t n,
                                       double m, double q, int symmetric)
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

void pecert__fast_alibi_row_f64_scalar(double *restrict out, const double *restrict k, int64_t n,
                                       double m, double q, int symmetric)
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
