/*
 * family_tol.h - the error model of the families beyond RoPE.
 *
 * conformance/TOLERANCES.md derives each bound (sections "ALiBi", "T5
 * buckets", "Sinusoidal tables", ...). As in harness/tolerance.h, a bound
 * covers two honest float32 computations (the official code and the
 * plugin), so one-sided estimates appear twice. Integer outputs (buckets,
 * indices, position ids) are compared exactly and need no bound here.
 */
#ifndef PECERT_CONFORMANCE_FAMILY_TOL_H
#define PECERT_CONFORMANCE_FAMILY_TOL_H

#include <math.h>
#include <stdint.h>

#include "pecert/plugin.h"
#include "tolerance.h"

/*
 * pecert_tol_alibi_slope: bound on |got - want| for an ALiBi slope of
 * num_heads heads. Bloom raises a float32-rounded base to the power h
 * (h <= num_heads), which multiplies the base's rounding by h; pow, the
 * reciprocal of MPT and the output rounding add a few u; an exponent
 * e = max_bias h / c rounded to float32 moves 2^-e by |ln m| u. One side:
 * (num_heads + 4 + |ln m|) u relative.
 */
static inline double pecert_tol_alibi_slope(double want, int64_t num_heads)
{
    double l = (want > 0 && isfinite(want)) ? fabs(log(want)) : 0.0;
    return 2.0 * ((double)num_heads + 4.0 + l) * PECERT_U32 * fabs(want);
}

/* pecert_tol_alibi_bias: a bias is a slope times an exact integer distance
 * (below 2^24 in every vector), rounded once more (1 u a side). */
static inline double pecert_tol_alibi_bias(double want, double slope_bound_rel)
{
    return (slope_bound_rel + 2.0 * PECERT_U32) * fabs(want);
}

/*
 * pecert_tol_bf16_reference: what a reference that rounds to bfloat16 adds
 * to a bound (Falcon's build_alibi_tensor casts its slopes to bfloat16 and
 * forms the bias as a bfloat16 product: 1 rounding for a slope, 2 for a
 * bias). A bfloat16 rounding (8 significant bits, u = 2^-8) moves a value
 * by at most 2^-8 of its magnitude, measured on the rounded value want,
 * (1 + 2^-8) from the exact one. A plugin that computes exactly and one
 * that rounds as the reference does both pass; every ALiBi bug pecert
 * knows moves a slope by 2^(1/4) or more (TOLERANCES.md).
 */
#define PECERT_BF16_U (1.0 / 256.0)
static inline double pecert_tol_bf16_reference(double want, int roundings)
{
    return (double)roundings * PECERT_BF16_U * (1.0 + PECERT_BF16_U) * fabs(want);
}

/*
 * pecert_t5_log_boundary: 1 when relative position r falls where the
 * reference's float32 log decides between two buckets: its log coordinate
 * max_exact + ln(a / max_exact) / ln(max_distance / max_exact) * (n -
 * max_exact), in long double, lies within PECERT_T5_BOUNDARY_U float32
 * units of an integer. There the official bucket depends on the log
 * implementation (torch's vectorised Sleef log, glibc logf and TF's Eigen
 * log differ by an ulp), so both neighbours are accepted.
 */
#define PECERT_T5_BOUNDARY_U 32.0

static inline int pecert_t5_log_boundary(int64_t r, int bidirectional, int64_t num_buckets,
                                         int64_t max_distance)
{
    int64_t n = bidirectional ? num_buckets / 2 : num_buckets;
    int64_t max_exact = n / 2;
    int64_t a = bidirectional ? (r < 0 ? -r : r) : (r < 0 ? -r : 0);
    /* a == max_exact is log(1) = 0 exactly; from n on every value
     * saturates to the side's last bucket either way. */
    if (max_exact < 1 || a <= max_exact || max_distance <= max_exact) {
        return 0;
    }
    long double x = (long double)max_exact +
                    logl((long double)a / (long double)max_exact) /
                        logl((long double)max_distance / (long double)max_exact) *
                        (long double)(n - max_exact);
    long double k = roundl(x);
    return k <= (long double)(n - 1) &&
           fabsl(x - k) <= (long double)(PECERT_T5_BOUNDARY_U * PECERT_U32) * (x > 1 ? x : 1);
}

/*
 * pecert_sinusoidal_angle: the angle magnitude of channel j of a sinusoidal
 * embedding for table row `row` (variant, dim, base as in plugin.h), or 0
 * for a zero channel: the input of the bound, never of a golden value.
 * Frequencies are those of plugin.h's variant comment.
 */
static inline double pecert_sinusoidal_angle(int32_t variant, int64_t dim, double base, int64_t j,
                                             int64_t row, double *freq)
{
    int64_t h = dim / 2;
    double ln_base = log(base);
    double f;
    if (variant == PECERT_SINUSOIDAL_INTERLEAVED) {
        f = exp(-ln_base * (double)(2 * (j / 2)) / (double)dim);
    } else if (variant == PECERT_SINUSOIDAL_CONCAT) {
        int64_t i = j < dim - h ? j : j - (dim - h);
        f = exp(-ln_base * (double)(2 * i) / (double)dim);
    } else if (j >= 2 * h) {
        f = 0.0;
    } else {
        f = exp(-(double)(j % h) * ln_base / (h - 1 > 1 ? (double)(h - 1) : 1.0));
    }
    *freq = f;
    return fabs((double)row) * f;
}

/* The pair index the sinusoidal families pass to tolerance.h: their
 * tables are formed per channel (exp or pow of the channel's exponent) by
 * every implementation we know, never by a recurrence over channels, so
 * the pair-index growth term of RoPE engines does not apply. */
#define PECERT_TOL_PER_CHANNEL 0

/* pecert_tol_sinusoidal: one channel of a sinusoidal table: the RoPE
 * angle and value bound (tolerance.h) at attention scaling 1. */
static inline double pecert_tol_sinusoidal(double angle, double freq)
{
    return freq > 0 ? pecert_tol_trig(angle, freq, PECERT_TOL_PER_CHANNEL, 1.0) : 0.0;
}

/* pecert_sinusoidal_bound: the bound of channel j for the token at
 * position p of a sinusoidal table (plugin.h's variant, dim, base,
 * padding_idx): FAIRSEQ reads row padding_idx + 1 + p, and its padding
 * token (p = -1) the zero row, bound 0. */
static inline double pecert_sinusoidal_bound(int32_t variant, int64_t dim, double base, int64_t padding_idx, int64_t p,
                                             int64_t j)
{
    double f = 0.0;
    if (variant == PECERT_SINUSOIDAL_FAIRSEQ && p == -1) {
        return 0.0;
    }
    int64_t row = variant == PECERT_SINUSOIDAL_FAIRSEQ ? padding_idx + 1 + p : p;
    double angle = pecert_sinusoidal_angle(variant, dim, base, j, row, &f); /* sets f: before its use */
    return pecert_tol_sinusoidal(angle, f);
}

#endif /* PECERT_CONFORMANCE_FAMILY_TOL_H */
