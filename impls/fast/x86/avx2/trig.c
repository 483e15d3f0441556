/*
 * trig.c (AVX2 + FMA) - table rows, 4 frequencies per ymm register.
 *
 * The algorithm and its error bound are scalar/trig.c's; every line below
 * is the vector form of one line there, so each lane is bit-identical to
 * the scalar result. The last half % 4 frequencies go through the scalar
 * function itself.
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX2__) || !defined(__FMA__)
#error "x86/avx2/*.c needs -mavx2 -mfma -mf16c"
#endif

/* Doubles per register. */
#define DOUBLE_LANES 4

typedef struct sincos_lanes {
    __m256d sin;
    __m256d cos;
} sincos_lanes;

/* sin(r), cos(r) of |r| <= pi/4: pecert__fast_sincos_poly. */
static inline sincos_lanes poly(__m256d r)
{
    __m256d z = _mm256_mul_pd(r, r);
    __m256d ps = _mm256_fmadd_pd(z, _mm256_set1_pd(0x1.5d93a5acfd57cp-33),
                                 _mm256_set1_pd(-0x1.ae5e68a2b9cebp-26));
    __m256d pc = _mm256_fmadd_pd(z, _mm256_set1_pd(-0x1.8fae9be8838d4p-37),
                                 _mm256_set1_pd(0x1.1ee9ebdb4b1c4p-29));
    sincos_lanes out;

    ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(0x1.71de357b1fe7dp-19));
    ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(-0x1.a01a019c161d5p-13));
    ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(0x1.111111110f8a6p-7));
    ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(-0x1.5555555555549p-3));
    pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(-0x1.27e4f809c52adp-22));
    pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(0x1.a01a019cb1590p-16));
    pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(-0x1.6c16c16c15177p-10));
    pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(0x1.555555555554cp-5));
    out.sin = _mm256_fmadd_pd(_mm256_mul_pd(r, z), ps, r);
    out.cos = _mm256_fmadd_pd(_mm256_mul_pd(z, z), pc,
                              _mm256_fnmadd_pd(_mm256_set1_pd(0.5), z, _mm256_set1_pd(1.0)));
    return out;
}

/* All-ones lanes where (bits & flag) != 0, as a double mask. */
static inline __m256d lanes_with(__m256i bits, __m256i flag)
{
    return _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(bits, flag), flag));
}

/* pecert__fast_sincos_scalar on 4 lanes. */
static inline sincos_lanes sincos4(__m256d position, __m256d inv_freq)
{
    const __m256d shift = _mm256_set1_pd(0x1.8p52);
    const __m256i one = _mm256_set1_epi64x(1);
    const __m256i two = _mm256_set1_epi64x(2);
    const __m256d sign = _mm256_set1_pd(-0.0);
    __m256d a_hi = _mm256_mul_pd(position, inv_freq);
    __m256d a_lo = _mm256_fmsub_pd(position, inv_freq, a_hi);
    __m256d shifted = _mm256_fmadd_pd(a_hi, _mm256_set1_pd(0x1.45f306dc9c883p-1), shift);
    __m256d k = _mm256_sub_pd(shifted, shift);
    __m256i quadrant = _mm256_castpd_si256(shifted);
    __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(0x1.921fb54442d18p+0), a_hi);
    __m256d odd = lanes_with(quadrant, one);
    __m256d negate_sin = lanes_with(quadrant, two);
    __m256d negate_cos = lanes_with(_mm256_add_epi64(quadrant, one), two);
    sincos_lanes base;
    sincos_lanes out;

    r = _mm256_fnmadd_pd(k, _mm256_set1_pd(0x1.1a62633145c07p-54), r);
    r = _mm256_add_pd(r, a_lo);
    base = poly(r);
    out.sin = _mm256_blendv_pd(base.sin, base.cos, odd);
    out.cos = _mm256_blendv_pd(base.cos, base.sin, odd);
    out.sin = _mm256_xor_pd(out.sin, _mm256_and_pd(negate_sin, sign));
    out.cos = _mm256_xor_pd(out.cos, _mm256_and_pd(negate_cos, sign));
    return out;
}

/* Stores 4 floats as 8 in the PAIRS layout: (c, c) and (-s, s). */
static inline void store_pairs(float *out_cos, float *out_sin, __m128 c, __m128 s)
{
    const __m256i twice = _mm256_set_epi32(3, 3, 2, 2, 1, 1, 0, 0);
    const __m256 even_sign = _mm256_set_ps(0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f);
    __m256 c2 = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(c), twice);
    __m256 s2 = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(s), twice);

    _mm256_storeu_ps(out_cos, c2);
    _mm256_storeu_ps(out_sin, _mm256_xor_ps(s2, even_sign));
}

void pecert__fast_sincos_row_avx2(const double *inv_freq, int32_t half, double position,
                                  double *out_cos, double *out_sin)
{
    __m256d p = _mm256_set1_pd(position);
    int32_t i;

    for (i = 0; i + DOUBLE_LANES <= half; i += DOUBLE_LANES) {
        sincos_lanes v = sincos4(p, _mm256_loadu_pd(inv_freq + i));

        _mm256_storeu_pd(out_cos + i, v.cos);
        _mm256_storeu_pd(out_sin + i, v.sin);
    }
    if (i < half) {
        pecert__fast_sincos_row_scalar(inv_freq + i, half - i, position, out_cos + i,
                                       out_sin + i);
    }
}

/* pecert__fast_step_row_scalar on 4 lanes. */
void pecert__fast_step_row_avx2(const double *step_cos, const double *step_sin, int32_t half,
                                double *cos, double *sin)
{
    int32_t i;

    for (i = 0; i + DOUBLE_LANES <= half; i += DOUBLE_LANES) {
        __m256d c = _mm256_loadu_pd(cos + i);
        __m256d s = _mm256_loadu_pd(sin + i);
        __m256d step_c = _mm256_loadu_pd(step_cos + i);
        __m256d step_s = _mm256_loadu_pd(step_sin + i);

        _mm256_storeu_pd(cos + i, _mm256_sub_pd(_mm256_mul_pd(c, step_c), _mm256_mul_pd(s, step_s)));
        _mm256_storeu_pd(sin + i, _mm256_add_pd(_mm256_mul_pd(s, step_c), _mm256_mul_pd(c, step_s)));
    }
    if (i < half) {
        pecert__fast_step_row_scalar(step_cos + i, step_sin + i, half - i, cos + i, sin + i);
    }
}

void pecert__fast_emit_f32_avx2(const double *cos, const double *sin, int32_t half,
                                double scaling, int layout, float *out_cos, float *out_sin)
{
    __m256d scale = _mm256_set1_pd(scaling);
    int32_t i;

    for (i = 0; i + DOUBLE_LANES <= half; i += DOUBLE_LANES) {
        __m128 c = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_loadu_pd(cos + i), scale));
        __m128 s = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_loadu_pd(sin + i), scale));

        if (layout == PECERT__FAST_PAIRS) {
            store_pairs(out_cos + 2 * i, out_sin + 2 * i, c, s);
        } else {
            _mm_storeu_ps(out_cos + i, c);
            _mm_storeu_ps(out_sin + i, s);
        }
    }
    if (i < half) {
        int32_t skip = layout == PECERT__FAST_PAIRS ? 2 * i : i;

        pecert__fast_emit_f32_scalar(cos + i, sin + i, half - i, scaling, layout,
                                     out_cos + skip, out_sin + skip);
    }
}
