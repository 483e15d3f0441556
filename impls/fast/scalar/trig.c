/*
 * trig.c - sin and cos of p * inv_freq for |p * inv_freq| < 2^36, and the
 * table rows built from them: the portable kernels and the exact model
 * every SIMD lane reproduces (x86/avx2/trig.c, x86/avx512/trig.c perform
 * these operations in this order, fma exactly where fma() is called).
 *
 * Angle. A = p * f is split exactly into a_hi + a_lo (fma two-product),
 * so no position is rounded into the angle: p < 2^53 is exact, and the
 * float32 angle of the official code (error up to 2^-24 |A|: 0.125 rad at
 * p = 2^20) is avoided entirely.
 *
 * Reduction (Cody-Waite with fma). k = nearest integer of a_hi * 2/pi,
 * taken by adding 1.5 * 2^52 inside an fma (the sum's last bits are k, so
 * k mod 4, the quadrant, is read from them). Then
 *     r = fma(-k, P1, a_hi)      exact: the result is a multiple of
 *                                2^-52 below 2 in magnitude (P1, the
 *                                double nearest pi/2, and a_hi >= 1 are
 *                                multiples of 2^-52)
 *     r = fma(-k, P2, r)         P2 = pi/2 - P1 to 2^-107; one rounding
 *     r = r + a_lo               one rounding
 * With |A| < 2^36: |k| < 2^36, so the dropped term k * (pi/2 - P1 - P2)
 * is < 2^-70, and |a_lo| <= ulp(a_hi)/2 <= 2^-17 keeps |r| within
 * pi/4 + 8e-6. The reduced angle is off by at most 2 roundings of r,
 * 2^-53 (1.1e-16 rad) at any position in range.
 *
 * Polynomials. fdlibm's minimax kernels (k_sin.c, k_cos.c, Sun
 * Microsystems 1993, "permission to use, copy, modify, and distribute this
 * software is freely granted, provided that this notice is preserved"):
 * degree 13 odd for sin and 14 even for cos on [-pi/4, pi/4], each within
 * 2^-58 of the function; evaluated by Horner in fma, 1 ulp in double
 * (measured against 200-bit mpmath on 2e5 points: 1.1e-16 for both).
 *
 * Result. sin/cos within ~3e-16 of the exact values. table.c advances
 * most rows from the previous one by the angle-addition step (31 steps at
 * most, < 2e-14 more) and emit_f32 multiplies by the attention scaling and
 * rounds once to float32 (half an ulp, <= 3e-8). Max abs error of the f32
 * table against `ref` is therefore half a float32 ulp of the value;
 * `pecert bench` prints the measured maximum at positions 2^11 .. 2^24.
 */
#include <math.h>
#include <string.h>

#include "../fast.h"

static const double inv_pio2 = 0x1.45f306dc9c883p-1;
static const double round_shift = 0x1.8p52;
static const double pio2_hi = 0x1.921fb54442d18p+0;
static const double pio2_lo = 0x1.1a62633145c07p-54;

/* fdlibm k_sin.c S1..S6 and k_cos.c C1..C6. */
static const double sin_c1 = -0x1.5555555555549p-3;
static const double sin_c2 = 0x1.111111110f8a6p-7;
static const double sin_c3 = -0x1.a01a019c161d5p-13;
static const double sin_c4 = 0x1.71de357b1fe7dp-19;
static const double sin_c5 = -0x1.ae5e68a2b9cebp-26;
static const double sin_c6 = 0x1.5d93a5acfd57cp-33;
static const double cos_c1 = 0x1.555555555554cp-5;
static const double cos_c2 = -0x1.6c16c16c15177p-10;
static const double cos_c3 = 0x1.a01a019cb1590p-16;
static const double cos_c4 = -0x1.27e4f809c52adp-22;
static const double cos_c5 = 0x1.1ee9ebdb4b1c4p-29;
static const double cos_c6 = -0x1.8fae9be8838d4p-37;

void pecert__fast_sincos_poly(double r, double *out_sin, double *out_cos)
{
    double z = r * r;
    double ps = fma(z, sin_c6, sin_c5);
    double pc = fma(z, cos_c6, cos_c5);

    ps = fma(z, ps, sin_c4);
    ps = fma(z, ps, sin_c3);
    ps = fma(z, ps, sin_c2);
    ps = fma(z, ps, sin_c1);
    pc = fma(z, pc, cos_c4);
    pc = fma(z, pc, cos_c3);
    pc = fma(z, pc, cos_c2);
    pc = fma(z, pc, cos_c1);
    /* sin r = r + r^3 ps(z);  cos r = (1 - z/2) + z^2 pc(z). */
    *out_sin = fma(r * z, ps, r);
    *out_cos = fma(z * z, pc, fma(-0.5, z, 1.0));
}

void pecert__fast_sincos_quadrant(int quadrant, double sin_r, double cos_r, double *out_sin,
                                  double *out_cos)
{
    /* sin(r + q pi/2), cos(r + q pi/2) for q = 0..3:
     * (s, c), (c, -s), (-s, -c), (-c, s). */
    double s = (quadrant & 1) ? cos_r : sin_r;
    double c = (quadrant & 1) ? sin_r : cos_r;

    *out_sin = (quadrant & 2) ? -s : s;
    *out_cos = ((quadrant + 1) & 2) ? -c : c;
}

void pecert__fast_sincos_scalar(double position, double inv_freq, double *out_sin,
                                double *out_cos)
{
    double a_hi = position * inv_freq;
    double a_lo = fma(position, inv_freq, -a_hi);
    double shifted = fma(a_hi, inv_pio2, round_shift);
    double k = shifted - round_shift;
    double r = fma(-k, pio2_hi, a_hi);
    uint64_t bits;
    double s;
    double c;

    r = fma(-k, pio2_lo, r);
    r = r + a_lo;
    memcpy(&bits, &shifted, sizeof(bits));
    pecert__fast_sincos_poly(r, &s, &c);
    pecert__fast_sincos_quadrant((int)(bits & 3), s, c, out_sin, out_cos);
}

void pecert__fast_sincos_row_scalar(const double *inv_freq, int32_t half, double position,
                                   double *out_cos, double *out_sin)
{
    int32_t i;

    for (i = 0; i < half; i++) {
        pecert__fast_sincos_scalar(position, inv_freq[i], &out_sin[i], &out_cos[i]);
    }
}

/* One position further: the angle-addition formulas in double, no fma
 * (the SIMD kernels use the same multiplies and add/subtract). */
void pecert__fast_step_row_scalar(const double *step_cos, const double *step_sin, int32_t half,
                                  double *cos, double *sin)
{
    int32_t i;

    for (i = 0; i < half; i++) {
        double c = cos[i] * step_cos[i] - sin[i] * step_sin[i];
        double s = sin[i] * step_cos[i] + cos[i] * step_sin[i];

        cos[i] = c;
        sin[i] = s;
    }
}

void pecert__fast_emit_f32_scalar(const double *cos, const double *sin, int32_t half,
                                  double scaling, int layout, float *out_cos, float *out_sin)
{
    int32_t i;

    for (i = 0; i < half; i++) {
        float c = (float)(cos[i] * scaling);
        float s = (float)(sin[i] * scaling);

        if (layout == PECERT__FAST_PAIRS) {
            out_cos[2 * i] = c;
            out_cos[2 * i + 1] = c;
            out_sin[2 * i] = -s;
            out_sin[2 * i + 1] = s;
        } else {
            out_cos[i] = c;
            out_sin[i] = s;
        }
    }
}
