/*
 * trig.c (AVX-512) - table rows, 8 frequencies per zmm register.
 *
 * The algorithm and its error bound are scalar/trig.c's; every line below
 * is the vector form of one line there (fma where it calls fma(), plain
 * operations elsewhere), so each lane is bit-identical to the scalar
 * result. Tails use masked loads and stores with the same arithmetic.
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX512F__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__) || \
    !defined(__FMA__)
#error "x86/avx512/*.c needs -mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma -mf16c"
#endif

/* Doubles per register. */
#define DOUBLE_LANES 8

typedef struct sincos_lanes {
    __m512d sin;
    __m512d cos;
} sincos_lanes;

/* sin(r), cos(r) of |r| <= pi/4: pecert__fast_sincos_poly. */
static inline sincos_lanes poly(__m512d r)
{
    __m512d z = _mm512_mul_pd(r, r);
    __m512d ps = _mm512_fmadd_pd(z, _mm512_set1_pd(0x1.5d93a5acfd57cp-33),
                                 _mm512_set1_pd(-0x1.ae5e68a2b9cebp-26));
    __m512d pc = _mm512_fmadd_pd(z, _mm512_set1_pd(-0x1.8fae9be8838d4p-37),
                                 _mm512_set1_pd(0x1.1ee9ebdb4b1c4p-29));
    sincos_lanes out;

    ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(0x1.71de357b1fe7dp-19));
    ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(-0x1.a01a019c161d5p-13));
    ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(0x1.111111110f8a6p-7));
    ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(-0x1.5555555555549p-3));
    pc = _mm512_fmadd_pd(z, pc, _mm512_set1_pd(-0x1.27e4f809c52adp-22));
    pc = _mm512_fmadd_pd(z, pc, _mm512_set1_pd(0x1.a01a019cb1590p-16));
    pc = _mm512_fmadd_pd(z, pc, _mm512_set1_pd(-0x1.6c16c16c15177p-10));
    pc = _mm512_fmadd_pd(z, pc, _mm512_set1_pd(0x1.555555555554cp-5));
    out.sin = _mm512_fmadd_pd(_mm512_mul_pd(r, z), ps, r);
    out.cos = _mm512_fmadd_pd(_mm512_mul_pd(z, z), pc,
                              _mm512_fnmadd_pd(_mm512_set1_pd(0.5), z, _mm512_set1_pd(1.0)));
    return out;
}

/* pecert__fast_sincos_scalar on 8 lanes. */
static inline sincos_lanes sincos8(__m512d position, __m512d inv_freq)
{
    const __m512d shift = _mm512_set1_pd(0x1.8p52);
    const __m512i one = _mm512_set1_epi64(1);
    const __m512i two = _mm512_set1_epi64(2);
    const __m512d sign = _mm512_set1_pd(-0.0);
    __m512d a_hi = _mm512_mul_pd(position, inv_freq);
    __m512d a_lo = _mm512_fmsub_pd(position, inv_freq, a_hi);
    __m512d shifted = _mm512_fmadd_pd(a_hi, _mm512_set1_pd(0x1.45f306dc9c883p-1), shift);
    __m512d k = _mm512_sub_pd(shifted, shift);
    __m512i quadrant = _mm512_castpd_si512(shifted);
    __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(0x1.921fb54442d18p+0), a_hi);
    __mmask8 odd = _mm512_test_epi64_mask(quadrant, one);
    __mmask8 negate_sin = _mm512_test_epi64_mask(quadrant, two);
    __mmask8 negate_cos = _mm512_test_epi64_mask(_mm512_add_epi64(quadrant, one), two);
    sincos_lanes base;
    sincos_lanes out;

    r = _mm512_fnmadd_pd(k, _mm512_set1_pd(0x1.1a62633145c07p-54), r);
    r = _mm512_add_pd(r, a_lo);
    base = poly(r);
    out.sin = _mm512_mask_blend_pd(odd, base.sin, base.cos);
    out.cos = _mm512_mask_blend_pd(odd, base.cos, base.sin);
    out.sin = _mm512_mask_xor_pd(out.sin, negate_sin, out.sin, sign);
    out.cos = _mm512_mask_xor_pd(out.cos, negate_cos, out.cos, sign);
    return out;
}

/* The first min(left, 8) lanes. */
static inline __mmask8 lanes_mask(int32_t left)
{
    return left >= DOUBLE_LANES ? (__mmask8)0xff : (__mmask8)((1u << left) - 1u);
}

/* The first 2 * min(left, 8) float lanes (each value stored twice). */
static inline __mmask16 pairs_mask(int32_t left)
{
    return left >= DOUBLE_LANES ? (__mmask16)0xffff : (__mmask16)((1u << (2 * left)) - 1u);
}

/* Stores 8 floats as 16 in the PAIRS layout: (c, c) and (-s, s). */
static inline void store_pairs(float *out_cos, float *out_sin, __m256 c, __m256 s,
                               __mmask16 mask)
{
    const __m512i twice = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    __m512 c2 = _mm512_permutexvar_ps(twice, _mm512_castps256_ps512(c));
    __m512 s2 = _mm512_permutexvar_ps(twice, _mm512_castps256_ps512(s));

    s2 = _mm512_mask_xor_ps(s2, (__mmask16)0x5555, s2, _mm512_set1_ps(-0.0f));
    _mm512_mask_storeu_ps(out_cos, mask, c2);
    _mm512_mask_storeu_ps(out_sin, mask, s2);
}

void pecert__fast_sincos_row_avx512(const double *inv_freq, int32_t half, double position,
                                    double *out_cos, double *out_sin)
{
    __m512d p = _mm512_set1_pd(position);
    int32_t i;

    for (i = 0; i < half; i += DOUBLE_LANES) {
        __mmask8 mask = lanes_mask(half - i);
        sincos_lanes v = sincos8(p, _mm512_maskz_loadu_pd(mask, inv_freq + i));

        _mm512_mask_storeu_pd(out_cos + i, mask, v.cos);
        _mm512_mask_storeu_pd(out_sin + i, mask, v.sin);
    }
}

/* pecert__fast_step_row_scalar on 8 lanes. */
void pecert__fast_step_row_avx512(const double *step_cos, const double *step_sin, int32_t half,
                                  double *cos, double *sin)
{
    int32_t i;

    for (i = 0; i < half; i += DOUBLE_LANES) {
        __mmask8 mask = lanes_mask(half - i);
        __m512d c = _mm512_maskz_loadu_pd(mask, cos + i);
        __m512d s = _mm512_maskz_loadu_pd(mask, sin + i);
        __m512d step_c = _mm512_maskz_loadu_pd(mask, step_cos + i);
        __m512d step_s = _mm512_maskz_loadu_pd(mask, step_sin + i);

        _mm512_mask_storeu_pd(cos + i, mask,
                              _mm512_sub_pd(_mm512_mul_pd(c, step_c), _mm512_mul_pd(s, step_s)));
        _mm512_mask_storeu_pd(sin + i, mask,
                              _mm512_add_pd(_mm512_mul_pd(s, step_c), _mm512_mul_pd(c, step_s)));
    }
}

void pecert__fast_emit_f32_avx512(const double *cos, const double *sin, int32_t half,
                                  double scaling, int layout, float *out_cos, float *out_sin)
{
    __m512d scale = _mm512_set1_pd(scaling);
    int32_t i;

    for (i = 0; i < half; i += DOUBLE_LANES) {
        __mmask8 mask = lanes_mask(half - i);
        __m256 c = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_maskz_loadu_pd(mask, cos + i), scale));
        __m256 s = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_maskz_loadu_pd(mask, sin + i), scale));

        if (layout == PECERT__FAST_PAIRS) {
            store_pairs(out_cos + 2 * i, out_sin + 2 * i, c, s, pairs_mask(half - i));
        } else {
            _mm256_mask_storeu_ps(out_cos + i, mask, c);
            _mm256_mask_storeu_ps(out_sin + i, mask, s);
        }
    }
}
