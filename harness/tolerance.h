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

/* Unit roundoff of float32: u = 2^-24. */
#define PECERT_U32 (0.5 * (double)FLT_EPSILON)

/* Rounding steps of a float32 inverse frequency besides the exponent:
 * pow (2u), reciprocal (1u), a scaling blend (yarn ramp, llama3 smoothing,
 * longrope factor: 4u), one more for the factor's own rounding. */
#define PECERT_TOL_FREQ_C 8.0
/* Rounding of cos/sin and of the rotation a*c - b*s itself, per
 * implementation 8u of the pair norm (two implementations: 16u). */
#define PECERT_TOL_VALUE_U 16.0
/* Attention scaling: computed once in double or float: 4u per side. */
#define PECERT_TOL_SCALING_U 8.0

/*
 * pecert_freq_error_u: one float32 computation's relative error of the
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

/* pecert_tol_freq: bound on |got - want| for an inverse frequency. */
static inline double pecert_tol_freq(double want)
{
    return 2.0 * pecert_freq_error_u(want) * PECERT_U32 * fabs(want);
}

/* pecert_tol_scaling: bound for the attention scaling factor. */
static inline double pecert_tol_scaling(double want)
{
    return PECERT_TOL_SCALING_U * PECERT_U32 * fabs(want);
}

/* pecert_tol_angle: bound on the difference of two float32 angles
 * p * inv_freq: the frequency's error plus the rounding of p (above 2^24)
 * and of the product, half an ulp each, on both sides. */
static inline double pecert_tol_angle(double abs_angle, double inv_freq)
{
    return 2.0 * (pecert_freq_error_u(inv_freq) + 1.0) * PECERT_U32 * abs_angle;
}

/* pecert_tol_trig: bound for scaling * cos(theta) (or sin). */
static inline double pecert_tol_trig(double abs_angle, double inv_freq, double scaling)
{
    return fabs(scaling) * (pecert_tol_angle(abs_angle, inv_freq) + PECERT_TOL_VALUE_U * PECERT_U32);
}

/* pecert_tol_rotated: bound for one rotated channel of a pair of norm
 * pair_norm: an angle error d moves the pair by at most pair_norm * d. */
static inline double pecert_tol_rotated(double pair_norm, double abs_angle, double inv_freq,
                                        double scaling)
{
    return fabs(scaling) * pair_norm *
           (pecert_tol_angle(abs_angle, inv_freq) + PECERT_TOL_VALUE_U * PECERT_U32);
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
