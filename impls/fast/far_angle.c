/*
 * far_angle.c - sin and cos of p * f past the vector range (2^36 <= |A|
 * < 2^64), in portable scalar code.
 *
 * The vector kernels reduce A = p * f by pi/2 with a two-term pi/2 and
 * need the low part of the product to stay below ~4e-6 rad (scalar/trig.c).
 * Positions that far out are rare (2^36 tokens at f = 1), so they take
 * this slower path, which keeps every term in double-double:
 *
 *   1. A = a_hi + a_lo exactly (fma two-product).
 *   2. k = nearest integer to a_hi * 2/pi; pi/2 = P1 + P2 + P3 (doubles,
 *      |pi/2 - (P1 + P2 + P3)| < 2^-163). k*P1 and k*P2 are formed
 *      exactly (two-product), k*P3 rounded once, and the seven terms are
 *      summed with Ogita-Rump-Oishi Sum2 into a double-double.
 *   3. k came from a rounded product, so |r| may still be up to
 *      |A| * 2^-52 (< 2^12); step 2 runs again on r, now with a small k.
 *
 * Error: Sum2 over terms of size |A| gives |A| * 2^-104 (< 2^-40 = 9e-13
 * at |A| < 2^64), the constant's truncation k * 2^-163 and the rounding of
 * k*P3 k * 2^-160 are far below it. sin/cos of the reduced r then carry the
 * polynomial's ~1 ulp (scalar/trig.c), and the quadrant comes from k mod 4
 * taken exactly (fmod). So the far path is within ~1e-12 of the true
 * sin/cos, 10^4 times finer than a float32 ulp.
 */
#include <math.h>

#include "fast.h"

static const double pio2_1 = 0x1.921fb54442d18p+0;
static const double pio2_2 = 0x1.1a62633145c07p-54;
static const double pio2_3 = -0x1.f1976b7ed8fbcp-110;
static const double inv_pio2 = 0x1.45f306dc9c883p-1;
static const double pio4 = 0x1.921fb54442d18p-1;

typedef struct dd {
    double hi;
    double lo;
} dd;

/* Knuth's TwoSum: hi + lo == a + b exactly. */
static dd two_sum(double a, double b)
{
    double hi = a + b;
    double b_part = hi - a;

    return (dd){hi, (a - (hi - b_part)) + (b - b_part)};
}

/* hi + lo == a * b exactly (explicit fma; nothing else is contracted). */
static dd two_product(double a, double b)
{
    double hi = a * b;

    return (dd){hi, fma(a, b, -hi)};
}

/* x - k * pi/2 as a double-double; adds k mod 4 to *quadrant. */
static dd reduce_once(dd x, int *quadrant)
{
    double k = nearbyint(x.hi * inv_pio2);
    dd k1 = two_product(k, pio2_1);
    dd k2 = two_product(k, pio2_2);
    double terms[6] = {-k1.hi, x.lo, -k1.lo, -k2.hi, -k2.lo, -(k * pio2_3)};
    double sum = x.hi;
    double errors = 0.0;
    int i;

    if (k == 0.0) {
        return x;
    }
    /* Sum2: the running sum's rounding errors, gathered exactly. */
    for (i = 0; i < 6; i++) {
        dd step = two_sum(sum, terms[i]);

        sum = step.hi;
        errors += step.lo;
    }
    *quadrant = (*quadrant + 4 + (int)fmod(k, 4.0)) & 3;
    return two_sum(sum, errors);
}

void pecert__fast_far_sincos(double position, double inv_freq, double *out_sin,
                             double *out_cos)
{
    dd r = two_product(position, inv_freq);
    int quadrant = 0;
    double s;
    double c;
    double s_fixed;
    double c_fixed;

    r = reduce_once(r, &quadrant);
    if (fabs(r.hi) > pio4) {
        r = reduce_once(r, &quadrant);
    }
    pecert__fast_sincos_poly(r.hi, &s, &c);
    /* sin(hi + lo) = sin hi + cos hi * lo, cos likewise (lo <= ulp/2). */
    s_fixed = s + c * r.lo;
    c_fixed = c - s * r.lo;
    pecert__fast_sincos_quadrant(quadrant, s_fixed, c_fixed, out_sin, out_cos);
}

void pecert__fast_far_row(const double *inv_freq, int32_t half, double position,
                          double *out_cos, double *out_sin)
{
    int32_t i;

    for (i = 0; i < half; i++) {
        pecert__fast_far_sincos(position, inv_freq[i], &out_sin[i], &out_cos[i]);
    }
}
