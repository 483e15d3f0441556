/*
 * attend.c (AVX-512) - the decode session's attention kernels: scalar/attend.c's
 * arithmetic lane for lane (its comment has the definitions).
 *
 * Up to four query heads at a time (PECERT__FAST_BY_GROUP), so every row
 * chunk is loaded once for all of them. dot_rows keeps each dot's 16
 * lanes in one zmm register, sixteen dots at a time (four heads by four
 * rows, two by eight, one by sixteen) reduced together by a
 * transposition (reduce16_x16), the rest two rows at once; a tail chunk
 * is a zero-masked load, which is the scalar model's q = r = 0 past
 * head_dim. softmax_weights: the
 * exponential and the sum's 8 lanes on one register of doubles.
 * weighted_rows: 32 channels of each head (8 zmm accumulators for four)
 * per pass over the block's rows, a tail under lane masks.
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX512F__) || !defined(__AVX512DQ__)
#error "x86/avx512/attend.c needs -mavx512f -mavx512dq"
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Channels c0 .. c0+15 of a row, zero past d. */
ALWAYS_INLINE __m512 load16(const float *p, int32_t c0, int32_t d)
{
    if (c0 + 16 <= d) {
        return _mm512_loadu_ps(p + c0);
    }
    return _mm512_maskz_loadu_ps((__mmask16)((1u << (d - c0)) - 1u), p + c0);
}

/* The 16 lanes added pairwise: l + (l+8), l + (l+4), l + (l+2), l + (l+1). */
ALWAYS_INLINE float reduce16(__m512 v)
{
    __m256 s8 = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    __m128 s1 = _mm_add_ss(s2, _mm_movehdup_ps(s2));

    return _mm_cvtss_f32(s1);
}


/* Rows j and j + 1 against heads [0, G). */
ALWAYS_INLINE void dot_two_rows(const float *q, size_t qs, int G, const float *r0, const float *r1,
                                int32_t d, float *out, size_t os)
{
    __m512 a[PECERT__FAST_MAX_GROUP][2];

    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        a[h][0] = a[h][1] = _mm512_setzero_ps();
    }
    for (int32_t c = 0; c < d; c += 16) {
        __m512 k0 = load16(r0, c, d), k1 = load16(r1, c, d);

        _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
            __m512 qc = load16(q + (size_t)h * qs, c, d);

            a[h][0] = _mm512_fmadd_ps(qc, k0, a[h][0]);
            a[h][1] = _mm512_fmadd_ps(qc, k1, a[h][1]);
        }
    }
    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        out[(size_t)h * os] = reduce16(a[h][0]);
        out[(size_t)h * os + 1] = reduce16(a[h][1]);
    }
}

/* Row j against heads [0, G). */
ALWAYS_INLINE void dot_one_row(const float *q, size_t qs, int G, const float *r, int32_t d, float *out,
                               size_t os)
{
    __m512 a[PECERT__FAST_MAX_GROUP];

    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        a[h] = _mm512_setzero_ps();
    }
    for (int32_t c = 0; c < d; c += 16) {
        __m512 k = load16(r, c, d);

        _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
            a[h] = _mm512_fmadd_ps(load16(q + (size_t)h * qs, c, d), k, a[h]);
        }
    }
    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        out[(size_t)h * os] = reduce16(a[h]);
    }
}

/* reduce16 of sixteen registers at once, by a transposition: each stage
 * adds the lanes reduce16 pairs (l + 8, then + 4, + 2, + 1) of two
 * registers' halves side by side, so every sum is reduce16's, of the same
 * two operands. Lane i of the result is reduce16(v[i]). */
ALWAYS_INLINE __m512 reduce16_x16(const __m512 v[16])
{
    __m512 w[8];
    __m512 u[4];
    __m512 t[2];

    _Pragma("GCC unroll 8") for (int m = 0; m < 8; m++) { /* [v2m's l + (l+8) | v2m+1's] */
        w[m] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * m], v[2 * m + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_f32x4(v[2 * m], v[2 * m + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    }
    _Pragma("GCC unroll 4") for (int m = 0; m < 4; m++) { /* block k: v(4m+k)'s l + (l+4) */
        u[m] = _mm512_add_ps(_mm512_shuffle_f32x4(w[2 * m], w[2 * m + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f32x4(w[2 * m], w[2 * m + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    }
    _Pragma("GCC unroll 2") for (int m = 0; m < 2; m++) { /* block k: v(8m+k), v(8m+4+k): l + (l+2) */
        t[m] = _mm512_add_ps(_mm512_shuffle_ps(u[2 * m], u[2 * m + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_ps(u[2 * m], u[2 * m + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    }
    /* Lane 4k + q: v(4q + k)'s l + (l+1); then into lane order. */
    __m512 s = _mm512_add_ps(_mm512_shuffle_ps(t[0], t[1], _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_ps(t[0], t[1], _MM_SHUFFLE(3, 1, 3, 1)));

    return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), s);
}

/* Rows j .. j + R - 1 against heads [0, G), R = 16 / G (G = 1, 2, 4):
 * sixteen dots, each with its own accumulator as dot_two_rows keeps
 * them, reduced together (reduce16_x16). */
ALWAYS_INLINE void dot_sixteen(const float *q, size_t qs, int G, const float *rows, size_t stride, int32_t d,
                               float *out, size_t os)
{
    const int R = 16 / G;
    __m512 a[16];
    float sums[16];

    _Pragma("GCC unroll 16") for (int i = 0; i < 16; i++) {
        a[i] = _mm512_setzero_ps();
    }
    for (int32_t c = 0; c < d; c += 16) {
        __m512 qc[PECERT__FAST_MAX_GROUP];

        _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
            qc[h] = load16(q + (size_t)h * qs, c, d);
        }
        _Pragma("GCC unroll 16") for (int r = 0; r < R; r++) {
            __m512 k = load16(rows + (size_t)r * stride, c, d);

            _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
                a[h * R + r] = _mm512_fmadd_ps(qc[h], k, a[h * R + r]);
            }
        }
    }
    _mm512_storeu_ps(sums, reduce16_x16(a));
    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        _Pragma("GCC unroll 16") for (int r = 0; r < R; r++) {
            out[(size_t)h * os + r] = sums[h * R + r];
        }
    }
}

ALWAYS_INLINE void dot_heads(int G, const float *q, size_t qs, const float *rows, size_t stride,
                             int64_t n, int32_t d, float *out, size_t os)
{
    int64_t j = 0;

    if (G != 3) {
        for (; j + 16 / G <= n; j += 16 / G) {
            dot_sixteen(q, qs, G, rows + (size_t)j * stride, stride, d, out + j, os);
        }
    }
    for (; j + 2 <= n; j += 2) {
        dot_two_rows(q, qs, G, rows + (size_t)j * stride, rows + (size_t)(j + 1) * stride, d, out + j, os);
    }
    if (j < n) {
        dot_one_row(q, qs, G, rows + (size_t)j * stride, d, out + j, os);
    }
}

void pecert__fast_dot_rows_avx512(const float *restrict q, size_t q_stride, int32_t g,
                                  const float *restrict rows, size_t stride, int64_t n, int32_t d,
                                  float *restrict out, size_t out_stride)
{
    for (int32_t h = 0; h < g; h += PECERT__FAST_MAX_GROUP) {
        const float *qh = q + (size_t)h * q_stride;
        float *oh = out + (size_t)h * out_stride;

        PECERT__FAST_BY_GROUP(g - h, dot_heads, qh, q_stride, rows, stride, n, d, oh, out_stride);
    }
}

/* scalar/attend.c's exponential on eight lanes (x < floor gives +0). */
ALWAYS_INLINE __m512d exp_weight8(__m512d x)
{
    const __m512d shift = _mm512_set1_pd(0x1.8p52);
    __m512d t = _mm512_add_pd(_mm512_mul_pd(x, _mm512_set1_pd(PECERT__FAST_INV_LN2)), shift);
    __m512d k = _mm512_sub_pd(t, shift);
    __m512d r = _mm512_sub_pd(_mm512_sub_pd(x, _mm512_mul_pd(k, _mm512_set1_pd(PECERT__FAST_LN2_HI))),
                              _mm512_mul_pd(k, _mm512_set1_pd(PECERT__FAST_LN2_LO)));
    static const double taylor[PECERT__FAST_EXP_TERMS] = PECERT__FAST_EXP_TAYLOR;
    __m512d p = _mm512_set1_pd(taylor[0]);

    for (int i = 1; i < PECERT__FAST_EXP_TERMS; i++) {
        p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(taylor[i]));
    }
    __m512i kk = _mm512_sub_epi64(_mm512_castpd_si512(t), _mm512_set1_epi64(0x4338000000000000));
    __m512d scale = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(kk, _mm512_set1_epi64(1023)), 52));
    __mmask8 keep = _mm512_cmp_pd_mask(x, _mm512_set1_pd(PECERT__FAST_EXP_FLOOR), _CMP_NLT_UQ);

    return _mm512_maskz_mul_pd(keep, p, scale);
}

double pecert__fast_softmax_weights_avx512(const double *restrict scores, int64_t n, double max,
                                           float *restrict w)
{
    __m512d sum = _mm512_setzero_pd();
    __m512d m = _mm512_set1_pd(max);
    double lanes[8];
    int64_t j = 0;

    for (; j + 8 <= n; j += 8) {
        __m256 wj = _mm512_cvtpd_ps(exp_weight8(_mm512_sub_pd(_mm512_loadu_pd(scores + j), m)));

        _mm256_storeu_ps(w + j, wj);
        sum = _mm512_add_pd(sum, _mm512_cvtps_pd(wj));
    }
    if (j < n) {
        __mmask8 tail = (__mmask8)((1u << (n - j)) - 1u);
        __m256 wj = _mm512_cvtpd_ps(exp_weight8(_mm512_sub_pd(_mm512_maskz_loadu_pd(tail, scores + j), m)));

        _mm256_mask_storeu_ps(w + j, tail, wj);
        sum = _mm512_mask_add_pd(sum, tail, sum, _mm512_cvtps_pd(wj));
    }
    _mm512_storeu_pd(lanes, sum);
    for (int width = 4; width >= 1; width /= 2) {
        for (int l = 0; l < width; l++) {
            lanes[l] = lanes[l] + lanes[l + width];
        }
    }
    return lanes[0];
}

/* Channels [c0, c0 + 32) (masks m0, m1 past d) of heads [0, G). */
ALWAYS_INLINE void weighted_heads(int G, const float *w, size_t ws, const float *rows, size_t stride,
                                  int64_t n, int32_t c0, __mmask16 m0, __mmask16 m1, float *out, size_t os)
{
    __m512 a[PECERT__FAST_MAX_GROUP][2];

    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        a[h][0] = a[h][1] = _mm512_setzero_ps();
    }
    for (int64_t j = 0; j < n; j++) {
        const float *r = rows + (size_t)j * stride + c0;
        __m512 v0 = _mm512_maskz_loadu_ps(m0, r), v1 = _mm512_maskz_loadu_ps(m1, r + 16);

        _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
            float wj = w[(size_t)h * ws + (size_t)j];

            if (wj != 0.0f) {
                __m512 b = _mm512_set1_ps(wj);

                a[h][0] = _mm512_fmadd_ps(b, v0, a[h][0]);
                a[h][1] = _mm512_fmadd_ps(b, v1, a[h][1]);
            }
        }
    }
    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        _mm512_mask_storeu_ps(out + (size_t)h * os + c0, m0, a[h][0]);
        _mm512_mask_storeu_ps(out + (size_t)h * os + c0 + 16, m1, a[h][1]);
    }
}

void pecert__fast_weighted_rows_avx512(const float *restrict w, size_t w_stride, int32_t g,
                                       const float *restrict rows, size_t stride, int64_t n,
                                       int32_t d, float *restrict out, size_t out_stride)
{
    for (int32_t c0 = 0; c0 < d; c0 += 32) {
        int32_t left = d - c0;
        __mmask16 m0 = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
        __mmask16 m1 = left >= 32 ? (__mmask16)0xffff : left > 16 ? (__mmask16)((1u << (left - 16)) - 1u) : 0;

        for (int32_t h = 0; h < g; h += PECERT__FAST_MAX_GROUP) {
            const float *wh = w + (size_t)h * w_stride;
            float *oh = out + (size_t)h * out_stride;

            PECERT__FAST_BY_GROUP(g - h, weighted_heads, wh, w_stride, rows, stride, n, c0, m0, m1, oh, out_stride);
        }
    }
}
