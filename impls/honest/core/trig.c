/*
 * trig.c - sin and cos of a float32 angle, as the variant evaluates them.
 *
 * LIBM: glibc's sinf/cosf, reduced exactly and rounded within an ulp.
 * FAST: what GPU fast-math builds do (CUDA's __sinf/__cosf family, and the
 * sincos of many hand-written kernels): reduce by k = rint(x * 2/pi) with
 * pi/2 split in three float32 parts (Cody and Waite) using fused
 * multiply-adds, then short Taylor polynomials on [-pi/4, pi/4] in float32
 * Horner form. Its error is a few float32 ulps (the sine's degree-7
 * truncation alone is (pi/4)^9 / 9! = 3.1e-7, about 5 u), which is the point:
 * an honest engine may be that coarse.
 */
#include <math.h>

#include "honest.h"

/* pi/2 = PIO2_1 + PIO2_2 + PIO2_3, each the float nearest the remainder. */
#define PIO2_1 1.57079637e+00f
#define PIO2_2 -4.37113883e-08f
#define PIO2_3 -1.71512451e-15f

/* Taylor coefficients 1/k!, rounded to float32. */
static float sin_poly(float r)
{
    float r2 = r * r;
    float p = -1.0f / 5040.0f;
    p = p * r2 + 1.0f / 120.0f;
    p = p * r2 - 1.0f / 6.0f;
    return r + r * r2 * p;
}

static float cos_poly(float r)
{
    float r2 = r * r;
    float p = 1.0f / 40320.0f;
    p = p * r2 - 1.0f / 720.0f;
    p = p * r2 + 1.0f / 24.0f;
    p = p * r2 - 0.5f;
    return 1.0f + r2 * p;
}

/* x - k pi/2 for the float k nearest x * 2/pi; adds k's quadrant. */
static float reduce(float x, int *quadrant)
{
    float k = rintf(x * (float)M_2_PI);
    float r = fmaf(-k, PIO2_1, x);
    r = fmaf(-k, PIO2_2, r);
    r = fmaf(-k, PIO2_3, r);
    int q = (int)fmodf(k, 4.0f); /* k is an integer-valued float */
    *quadrant += q < 0 ? q + 4 : q;
    return r;
}

static void fast_sincos(float x, float *out_sin, float *out_cos)
{
    int quadrant = 0;
    float r = reduce(x, &quadrant);
    /* Past 2^23 the product x * 2/pi is itself rounded to an even integer
     * or coarser, so r may exceed pi/4: reduce once more (hardware sin
     * units likewise always evaluate inside their base interval). */
    if (fabsf(r) > (float)M_PI_4) {
        r = reduce(r, &quadrant);
    }
    float s = sin_poly(r);
    float c = cos_poly(r);
    quadrant %= 4;
    switch (quadrant) {
    case 0:
        *out_sin = s;
        *out_cos = c;
        break;
    case 1:
        *out_sin = c;
        *out_cos = -s;
        break;
    case 2:
        *out_sin = -s;
        *out_cos = -c;
        break;
    default:
        *out_sin = -c;
        *out_cos = s;
        break;
    }
}

void honest_sincos(float theta, float *out_sin, float *out_cos)
{
    if (honest.trig == HONEST_TRIG_FAST) {
        fast_sincos(theta, out_sin, out_cos);
    } else {
        *out_sin = sinf(theta);
        *out_cos = cosf(theta);
    }
}
