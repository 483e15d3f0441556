/*
 * tolerance.h - the error model every comparison uses.
 *
 * conformance/TOLERANCES.md derives each bound; the constants here are the
 * ones it justifies. A bound covers the difference between two honest
 * float32 computations (the official float32 code and the plugin under
 * test), so each one-sided error estimate appears twice.
 */
#ifndef PECERT_HARNESS_TOLERANCE_H
#define PECERT_HARNESS_TOLERANCE_H

#include <float.h>
#include <math.h>
#include <stdint.h>

/* Unit roundoff of float32: u = 2^-24. */
#define PECERT_U32 (0.5 * (double)FLT_EPSILON)

/* Rounding steps of a float32 inverse frequency besides the exponent:
 * pow (2u), reciprocal (1u), a scaling blend (yarn ramp, llama3 smoothing,
 * longrope factor: 4u), one more for the factor's own rounding. */
#define PECERT_TOL_FREQ_C 8.0
/* Growth per pair index of an honest engine's frequency error, in u:
 * engines that form theta^(-2i/d) as theta_scale^i (ggml's CPU recurrence
 * theta *= theta_scale, its CUDA powf(theta_scale, i)) carry theta_scale's
 * rounding (<= 1u: a correctly rounded powf in [0.5, 1)) i times, and the
 * recurrence rounds one more product (1u) per pair. */
#define PECERT_TOL_FREQ_PAIR_U 2.0
/* Rounding of cos/sin and of the rotation a*c - b*s itself, per
 * implementation 8u of the pair norm (two implementations: 16u). */
#define PECERT_TOL_VALUE_U 16.0
/* Attention scaling: computed once in double or float: 4u per side. */
#define PECERT_TOL_SCALING_U 8.0

/*
 * pecert_freq_error_u: the official float32 code's relative error of the
 * inverse frequency inv_freq, in units of u. theta^(-2i/d) is evaluated as
 * pow(theta, e) with e = 2i/d rounded to float32; that rounding moves the
 * result by e * ln(theta) * u = |ln inv_freq| * u, which dominates at the
 * low frequencies.
 */
static inline double pecert_freq_error_u(double inv_freq)
{
    double l = (inv_freq > 0 && isfinite(inv_freq)) ? fabs(log(inv_freq)) : 0.0;
    return l + PECERT_TOL_FREQ_C;
}

/*
 * pecert_freq_pair_error_u: the two sides a frequency comparison adds up,
 * in u: the official code's error, and an honest engine's, which is the
 * same plus PECERT_TOL_FREQ_PAIR_U per pair index (pair 0 is the highest
 * frequency). `ref` (double) and the torch formulation sit on the first
 * part alone.
 */
static inline double pecert_freq_pair_error_u(double inv_freq, int64_t pair)
{
    double i = pair > 0 ? (double)pair : 0.0;
    return 2.0 * pecert_freq_error_u(inv_freq) + PECERT_TOL_FREQ_PAIR_U * i;
}

/* pecert_tol_freq: bound on |got - want| for the inverse frequency of
 * pair index `pair`. */
static inline double pecert_tol_freq(double want, int64_t pair)
{
    return pecert_freq_pair_error_u(want, pair) * PECERT_U32 * fabs(want);
}

/* pecert_tol_scaling: bound for the attention scaling factor. */
static inline double pecert_tol_scaling(double want)
{
    return PECERT_TOL_SCALING_U * PECERT_U32 * fabs(want);
}

/* pecert_tol_angle: bound on the difference of two float32 angles
 * p * inv_freq of pair `pair`: the frequencies' errors plus the rounding
 * of p (above 2^24) and of the product, half an ulp each, on both sides. */
static inline double pecert_tol_angle(double abs_angle, double inv_freq, int64_t pair)
{
    return (pecert_freq_pair_error_u(inv_freq, pair) + 2.0) * PECERT_U32 * abs_angle;
}

/* pecert_tol_trig: bound for scaling * cos(theta) (or sin). */
static inline double pecert_tol_trig(double abs_angle, double inv_freq, int64_t pair, double scaling)
{
    return fabs(scaling) * (pecert_tol_angle(abs_angle, inv_freq, pair) + PECERT_TOL_VALUE_U * PECERT_U32);
}

/* pecert_tol_rotated: bound for one rotated channel of pair `pair` of
 * norm pair_norm: an angle error d moves the pair by at most pair_norm * d. */
static inline double pecert_tol_rotated(double pair_norm, double abs_angle, double inv_freq,
                                        int64_t pair, double scaling)
{
    return fabs(scaling) * pair_norm *
           (pecert_tol_angle(abs_angle, inv_freq, pair) + PECERT_TOL_VALUE_U * PECERT_U32);
}

/* pecert_tol_norm: bound on | |out pair| - scaling |x pair| |; a rotation
 * preserves the norm exactly, so only value rounding is allowed. */
static inline double pecert_tol_norm(double pair_norm, double scaling)
{
    return fabs(scaling) * pair_norm * PECERT_TOL_VALUE_U * PECERT_U32;
}

/* pecert_exceeds: 1 if err is outside bound, NaN included. */
static inline int pecert_exceeds(double err, double bound)
{
    return !(err <= bound);
}

#endif /* PECERT_HARNESS_TOLERANCE_H */
