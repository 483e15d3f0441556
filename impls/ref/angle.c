/*
 * angle.c - sin and cos of position * inv_freq, accurate for any position.
 *
 * Hugging Face (models/llama/modeling_llama.py, LlamaRotaryEmbedding.forward)
 * forms the angle as a float32 product and calls cos/sin on it, so at
 * position 2^20 its angle is already off by up to 2^20 * 2^-24 rad. The
 * oracle must not inherit that: it forms the angle exactly and reduces it
 * modulo pi/2 with a 3-double pi/2, then evaluates sin/cos on the small
 * remainder.
 *
 * Method (|A| = |p * w| < 2^64, p an integer below 2^53, w a double):
 *   1. A = a_hi + a_lo exactly (fma two-product).
 *   2. k = nearest integer to a_hi * 2/pi; pi/2 = C1 + C2 + C3 (each a
 *      double, |pi/2 - (C1+C2+C3)| < 2^-163). k*C1 and k*C2 are formed
 *      exactly (two-product), k*C3 is rounded once. The seven terms
 *      a_hi - k*C1 (exact by Sterbenz), a_lo, ... are added with
 *      compensated summation (Ogita-Rump-Oishi Sum2) and kept as a
 *      double-double r = r_hi + r_lo.
 *   3. Because k came from a rounded product, |r| may still exceed pi/4
 *      by up to |A| * 2^-52; step 2 runs once more on r (then k is small
 *      and the second pass is exact to double-double precision).
 *   4. sin(r) = sin(r_hi) + cos(r_hi) * r_lo, cos(r) = cos(r_hi) -
 *      sin(r_hi) * r_lo (|r_lo| <= ulp(r_hi)/2, so the dropped terms are
 *      below 2^-106 relative), then the quadrant k mod 4 picks signs.
 *
 * Error bound: the reduced argument r is within |A| * 2^-150 + |r| * 2^-104
 * of A mod pi/2 (the constant's truncation contributes k * 2^-163, the
 * rounding of k*C3 k * 2^-160, the compensated sum gamma_5 * u * (terms
 * of size |A| * 2^-52) ~ |A| * 2^-152). For |A| < 2^64 that is an absolute
 * error below 2^-86. glibc's sin/cos on |x| <= pi/4 are within 1 ulp, the
 * correction and its addition add at most 1/2 ulp: each result is within
 * 1.5 ulp of the exact sin/cos plus 2^-86 absolute. Measured against
 * 400-bit mpmath (25k random p < 2^53 with |A| < 2^64, plus positions at
 * continued-fraction convergents of pi/2, where A mod pi/2 is tiny): at
 * most 1.0 ulp. The harness compares at float32 precision, 2^29 coarser.
 */
#include <math.h>

#include "ref.h"

/* pi/2 as the unevaluated sum of three doubles (computed with 400-bit
 * mpmath: each term is the double nearest the remainder of the others). */
static const double pio2_1 = 0x1.921fb54442d18p+0;
static const double pio2_2 = 0x1.1a62633145c07p-54;
static const double pio2_3 = -0x1.f1976b7ed8fbcp-110;
static const double two_over_pi = 0x1.45f306dc9c883p-1;
static const double pi_over_4 = 0x1.921fb54442d18p-1;

/* An unevaluated sum hi + lo with |lo| <= ulp(hi) / 2. */
typedef struct double_double {
    double hi;
    double lo;
} double_double;

/* Knuth's TwoSum: s + e == a + b exactly, for any magnitudes. */
static double_double two_sum(double a, double b)
{
    double_double r;
    double b_virtual;

    r.hi = a + b;
    b_virtual = r.hi - a;
    r.lo = (a - (r.hi - b_virtual)) + (b - b_virtual);
    return r;
}

/* p + e == a * b exactly (no underflow), via an explicit fma call: the
 * build uses -ffp-contract=off, so no other product is ever fused. */
static double_double two_product(double a, double b)
{
    double_double r;

    r.hi = a * b;
    r.lo = fma(a, b, -r.hi);
    return r;
}

/* Sum2 (Ogita, Rump, Oishi 2005): the sum of n terms as accurate as if
 * computed in twice the working precision, returned as a double-double. */
static double_double compensated_sum(const double *terms, int n)
{
    double_double step;
    double sum = terms[0];
    double errors = 0.0;
    int i;

    for (i = 1; i < n; i++) {
        step = two_sum(sum, terms[i]);
        sum = step.hi;
        errors += step.lo;
    }
    return two_sum(sum, errors);
}

/* One reduction pass: x - k * pi/2 with k = nearest(x.hi * 2/pi), and the
 * quadrant k mod 4 added to *quadrant. */
static double_double reduce_pass(double_double x, int *quadrant)
{
    double k = nearbyint(x.hi * two_over_pi);
    double k_mod_4;
    double_double k_c1;
    double_double k_c2;
    double terms[7];

    if (k == 0.0) {
        return x;
    }
    k_c1 = two_product(k, pio2_1);
    k_c2 = two_product(k, pio2_2);
    terms[0] = x.hi;
    terms[1] = -k_c1.hi;
    terms[2] = x.lo;
    terms[3] = -k_c1.lo;
    terms[4] = -k_c2.hi;
    terms[5] = -k_c2.lo;
    terms[6] = -(k * pio2_3);
    /* fmod is exact, so the quadrant is right even for k above 2^53. */
    k_mod_4 = fmod(k, 4.0);
    *quadrant = (*quadrant + 4 + (int)k_mod_4) & 3;
    return compensated_sum(terms, 7);
}

void pecert__ref_sin_cos(double position, double inv_freq, double *out_sin,
                         double *out_cos)
{
    double_double r = two_product(position, inv_freq);
    int quadrant = 0;
    double sin_hi;
    double cos_hi;
    double sin_r;
    double cos_r;

    r = reduce_pass(r, &quadrant);
    if (fabs(r.hi) > pi_over_4) {
        r = reduce_pass(r, &quadrant);
    }
    sin_hi = sin(r.hi);
    cos_hi = cos(r.hi);
    sin_r = sin_hi + cos_hi * r.lo;
    cos_r = cos_hi - sin_hi * r.lo;
    switch (quadrant) {
    case 0:
        *out_sin = sin_r;
        *out_cos = cos_r;
        break;
    case 1:
        *out_sin = cos_r;
        *out_cos = -sin_r;
        break;
    case 2:
        *out_sin = -sin_r;
        *out_cos = -cos_r;
        break;
    default:
        *out_sin = -cos_r;
        *out_cos = sin_r;
        break;
    }
}
