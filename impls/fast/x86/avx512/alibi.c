/*
 * alibi.c (AVX-512) - one row of ALiBi biases, 8 keys per zmm register of
 * doubles, one 64-byte line of biases per store.
 *
 * The arithmetic is scalar/alibi.c's, lane for lane, as in
 * x86/avx2/alibi.c (double subtract, sign mask, double multiply, VCVTPD2PS
 * rounding to nearest); the last partial line is the same code under a
 * lane mask (masked-off lanes load no key and store nothing).
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX512F__) || !defined(__AVX512DQ__)
#error "x86/avx512/alibi.c needs -mavx512f -mavx512dq"
#endif

/* Doubles per register; f32 biases per line. */
#define LANES 8
#define STEP 16

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* What every lane of a row shares: q, the sign mask and the multiplier. */
typedef struct row_consts {
    __m512d q;
    __m512d mask;     /* all ones (linear) or all but the sign bit      */
    __m512d mult;     /* m (linear) or -m (symmetric)                   */
} row_consts;

ALWAYS_INLINE row_consts make_consts(double m, double q, int symmetric)
{
    __m512i keep = _mm512_set1_epi64(symmetric ? INT64_MAX : -1);

    return (row_consts){_mm512_set1_pd(q), _mm512_castsi512_pd(keep),
                        _mm512_set1_pd(symmetric ? -m : m)};
}

/* The biases of the keys of k[0..7] that `lanes` selects, in double. */
ALWAYS_INLINE __m512d bias8(const double *k, __mmask8 lanes, const row_consts *c)
{
    __m512d d = _mm512_sub_pd(_mm512_maskz_loadu_pd(lanes, k), c->q);

    return _mm512_mul_pd(_mm512_and_pd(d, c->mask), c->mult);
}

/* The biases of keys k[0..15] (the lanes `lanes` selects) in f32. */
ALWAYS_INLINE __m512 bias16_f32(const double *k, __mmask16 lanes, const row_consts *c)
{
    __m256 lo = _mm512_cvtpd_ps(bias8(k, (__mmask8)lanes, c));
    __m256 hi = _mm512_cvtpd_ps(bias8(k + LANES, (__mmask8)(lanes >> LANES), c));

    return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

/* Full lines stream when asked (out is then 64-byte aligned and every
 * full line starts a multiple of 64 bytes past it). */
ALWAYS_INLINE void row_f32(float *out, const double *k, int64_t n, double m, double q,
                           int symmetric, int stream)
{
    row_consts c = make_consts(m, q, symmetric);
    int64_t j = 0;

    for (; j + STEP <= n; j += STEP) {
        __m512 v = bias16_f32(k + j, 0xffff, &c);

        if (stream) {
            _mm512_stream_ps(out + j, v);
        } else {
            _mm512_storeu_ps(out + j, v);
        }
    }
    if (j < n) {
        __mmask16 lanes = (__mmask16)((1u << (n - j)) - 1);

        _mm512_mask_storeu_ps(out + j, lanes, bias16_f32(k + j, lanes, &c));
    }
}

ALWAYS_INLINE void row_f64(double *out, const double *k, int64_t n, double m, double q,
                           int symmetric, int stream)
{
    row_consts c = make_consts(m, q, symmetric);
    int64_t j = 0;

    for (; j + LANES <= n; j += LANES) {
        __m512d v = bias8(k + j, 0xff, &c);

        if (stream) {
            _mm512_stream_pd(out + j, v);
        } else {
            _mm512_storeu_pd(out + j, v);
        }
    }
    if (j < n) {
        __mmask8 lanes = (__mmask8)((1u << (n - j)) - 1);

        _mm512_mask_storeu_pd(out + j, lanes, bias8(k + j, lanes, &c));
    }
}

/* VCVTQQ2PD: exact for |k| < 2^53, as (double)k is. */
void pecert__fast_alibi_keys_avx512(double *out, const int64_t *k, int64_t n)
{
    int64_t j = 0;

    for (; j + LANES <= n; j += LANES) {
        _mm512_storeu_pd(out + j, _mm512_cvtepi64_pd(_mm512_loadu_si512(k + j)));
    }
    if (j < n) {
        __mmask8 lanes = (__mmask8)((1u << (n - j)) - 1);

        _mm512_mask_storeu_pd(out + j, lanes,
                              _mm512_cvtepi64_pd(_mm512_maskz_loadu_epi64(lanes, k + j)));
    }
}

void pecert__fast_alibi_row_f32_avx512(float *out, const double *k, int64_t n, double m,
                                       double q, int symmetric)
{
    row_f32(out, k, n, m, q, symmetric, 0);
}

void pecert__fast_alibi_row_f32_avx512_stream(float *out, const double *k, int64_t n, double m,
                                              double q, int symmetric)
{
    row_f32(out, k, n, m, q, symmetric, 1);
}

void pecert__fast_alibi_row_f64_avx512(double *out, const double *k, int64_t n, double m,
                                       double q, int symmetric)
{
    row_f64(out, k, n, m, q, symmetric, 0);
}

void pecert__fast_alibi_row_f64_avx512_stream(double *out, const double *k, int64_t n, double m,
                                              double q, int symmetric)
{
    row_f64(out, k, n, m, q, symmetric, 1);
}
