/*
 * attend.c (AVX2) - the decode session's attention kernels: scalar/attend.c's
 * arithmetic lane for lane (its comment has the definitions).
 *
 * Up to four query heads at a time (PECERT__FAST_BY_GROUP), so every row
 * chunk is loaded once for all of them. dot_rows keeps each dot's 16
 * lanes in two ymm registers (channels c..c+7 and c+8..c+15: eight FMA
 * chains for four heads); a tail chunk is read with a masked load (the
 * lanes past head_dim are 0 in q and in the row, as in the scalar model).
 * softmax_weights: the exponential on 4 doubles per register, the sum's
 * 8 lanes in two. weighted_rows: 16 channels of each head (8 ymm
 * accumulators for four) per pass over the block's rows; the channels
 * past the last 16 in the scalar arithmetic.
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX2__) || !defined(__FMA__)
#error "x86/avx2/*.c needs -mavx2 -mfma -mf16c"
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Lanes c0 + 0..7 of a row, zero past d. */
ALWAYS_INLINE __m256 load8(const float *p, int32_t c0, int32_t d)
{
    static const int32_t ramp[8] = {0, 1, 2, 3, 4, 5, 6, 7};

    if (c0 + 8 <= d) {
        return _mm256_loadu_ps(p + c0);
    }
    if (c0 >= d) {
        return _mm256_setzero_ps();
    }
    __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(d - c0), _mm256_loadu_si256((const __m256i *)ramp));
    return _mm256_maskload_ps(p + c0, mask);
}

/* The 16 lanes (lo = 0..7, hi = 8..15) added pairwise to one float. */
ALWAYS_INLINE float reduce16(__m256 lo, __m256 hi)
{
    __m256 s8 = _mm256_add_ps(lo, hi);
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    __m128 s1 = _mm_add_ss(s2, _mm_movehdup_ps(s2));

    return _mm_cvtss_f32(s1);
}


/* Row r against heads [0, G): the 16 lanes of each in two registers. */
ALWAYS_INLINE void dot_one_row(const float *q, size_t qs, int G, const float *r, int32_t d, float *out,
                               size_t os)
{
    __m256 lo[PECERT__FAST_MAX_GROUP], hi[PECERT__FAST_MAX_GROUP];

    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        lo[h] = hi[h] = _mm256_setzero_ps();
    }
    for (int32_t c = 0; c < d; c += 16) {
        __m256 k0 = load8(r, c, d), k1 = load8(r, c + 8, d);

        _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
            lo[h] = _mm256_fmadd_ps(load8(q + (size_t)h * qs, c, d), k0, lo[h]);
            hi[h] = _mm256_fmadd_ps(load8(q + (size_t)h * qs, c + 8, d), k1, hi[h]);
        }
    }
    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        out[(size_t)h * os] = reduce16(lo[h], hi[h]);
    }
}

ALWAYS_INLINE void dot_heads(int G, const float *q, size_t qs, const float *rows, size_t stride,
                             int64_t n, int32_t d, float *out, size_t os)
{
    for (int64_t j = 0; j < n; j++) {
        dot_one_row(q, qs, G, rows + (size_t)j * stride, d, out + j, os);
    }
}

void pecert__fast_dot_rows_avx2(const float *restrict q, size_t q_stride, int32_t g,
                                const float *restrict rows, size_t stride, int64_t n, int32_t d,
                                float *restrict out, size_t out_stride)
{
    for (int32_t h = 0; h < g; h += PECERT__FAST_MAX_GROUP) {
        const float *qh = q + (size_t)h * q_stride;
        float *oh = out + (size_t)h * out_stride;

        PECERT__FAST_BY_GROUP(g - h, dot_heads, qh, q_stride, rows, stride, n, d, oh, out_stride);
    }
}

/* scalar/attend.c's exponential on four lanes (x < floor gives +0). */
ALWAYS_INLINE __m256d exp_weight4(__m256d x)
{
    const __m256d shift = _mm256_set1_pd(0x1.8p52);
    __m256d t = _mm256_add_pd(_mm256_mul_pd(x, _mm256_set1_pd(PECERT__FAST_INV_LN2)), shift);
    __m256d k = _mm256_sub_pd(t, shift);
    __m256d r = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(k, _mm256_set1_pd(PECERT__FAST_LN2_HI))),
                              _mm256_mul_pd(k, _mm256_set1_pd(PECERT__FAST_LN2_LO)));
    static const double taylor[PECERT__FAST_EXP_TERMS] = PECERT__FAST_EXP_TAYLOR;
    __m256d p = _mm256_set1_pd(taylor[0]);

    for (int i = 1; i < PECERT__FAST_EXP_TERMS; i++) {
        p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(taylor[i]));
    }
    __m256i kk = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_set1_epi64x(0x4338000000000000));
    __m256d scale = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(kk, _mm256_set1_epi64x(1023)), 52));
    __m256d under = _mm256_cmp_pd(x, _mm256_set1_pd(PECERT__FAST_EXP_FLOOR), _CMP_LT_OQ);

    return _mm256_andnot_pd(under, _mm256_mul_pd(p, scale));
}

double pecert__fast_softmax_weights_avx2(const double *restrict scores, int64_t n, double max,
                                         float *restrict w)
{
    __m256d lo = _mm256_setzero_pd(), hi = lo;
    __m256d m = _mm256_set1_pd(max);
    int64_t j = 0;
    double sum[8];

    for (; j + 8 <= n; j += 8) {
        __m128 w0 = _mm256_cvtpd_ps(exp_weight4(_mm256_sub_pd(_mm256_loadu_pd(scores + j), m)));
        __m128 w1 = _mm256_cvtpd_ps(exp_weight4(_mm256_sub_pd(_mm256_loadu_pd(scores + j + 4), m)));

        _mm_storeu_ps(w + j, w0);
        _mm_storeu_ps(w + j + 4, w1);
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(w0));
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(w1));
    }
    _mm256_storeu_pd(sum, lo);
    _mm256_storeu_pd(sum + 4, hi);
    for (; j < n; j++) {
        w[j] = (float)pecert__fast_exp_weight_scalar(scores[j] - max);
        sum[j % 8] = sum[j % 8] + (double)w[j];
    }
    for (int width = 4; width >= 1; width /= 2) {
        for (int l = 0; l < width; l++) {
            sum[l] = sum[l] + sum[l + width];
        }
    }
    return sum[0];
}

/* Channels [c0, c0 + 16) of heads [0, G) (c0 + 16 <= d). A row of weight
 * 0 is skipped for that head, unless the caller knows the block has none
 * (dense, a constant of each instance: a prefill's and a decode step's
 * blocks but the few holding padding or underflowed weights): the same
 * fma chains without a test per row and head, 22.5 -> 19.3 ns a row of
 * four heads of 128 channels on Zen 3. */
ALWAYS_INLINE void weighted_block(int G, const int dense, const float *w, size_t ws, const float *rows,
                                  size_t stride, int64_t n, int32_t c0, float *out, size_t os)
{
    __m256 lo[PECERT__FAST_MAX_GROUP], hi[PECERT__FAST_MAX_GROUP];

    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        lo[h] = hi[h] = _mm256_setzero_ps();
    }
    for (int64_t j = 0; j < n; j++) {
        const float *r = rows + (size_t)j * stride + c0;
        __m256 v0 = _mm256_loadu_ps(r), v1 = _mm256_loadu_ps(r + 8);

        _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
            const float *wj = w + (size_t)h * ws + (size_t)j;

            if (dense || *wj != 0.0f) {
                __m256 b = _mm256_broadcast_ss(wj);

                lo[h] = _mm256_fmadd_ps(b, v0, lo[h]);
                hi[h] = _mm256_fmadd_ps(b, v1, hi[h]);
            }
        }
    }
    _Pragma("GCC unroll 4") for (int h = 0; h < G; h++) {
        _mm256_storeu_ps(out + (size_t)h * os + c0, lo[h]);
        _mm256_storeu_ps(out + (size_t)h * os + c0 + 8, hi[h]);
    }
}

ALWAYS_INLINE void weighted_dense(int G, const float *w, size_t ws, const float *rows, size_t stride, int64_t n,
                                  int32_t c0, float *out, size_t os)
{
    weighted_block(G, 1, w, ws, rows, stride, n, c0, out, os);
}

ALWAYS_INLINE void weighted_heads(int G, const float *w, size_t ws, const float *rows, size_t stride, int64_t n,
                                  int32_t c0, float *out, size_t os)
{
    weighted_block(G, 0, w, ws, rows, stride, n, c0, out, os);
}

void pecert__fast_weighted_rows_avx2(const float *restrict w, size_t w_stride, int32_t g,
                                     const float *restrict rows, size_t stride, int64_t n,
                                     int32_t d, float *restrict out, size_t out_stride)
{
    int32_t c0 = 0;
    int dense = 1;

    for (int32_t h = 0; h < g && dense; h++) {
        for (int64_t j = 0; j < n; j++) {
            dense &= w[(size_t)h * w_stride + (size_t)j] != 0.0f;
        }
    }
    for (; c0 + 16 <= d; c0 += 16) {
        for (int32_t h = 0; h < g; h += PECERT__FAST_MAX_GROUP) {
            const float *wh = w + (size_t)h * w_stride;
            float *oh = out + (size_t)h * out_stride;

            if (dense) {
                PECERT__FAST_BY_GROUP(g - h, weighted_dense, wh, w_stride, rows, stride, n, c0, oh, out_stride);
            } else {
                PECERT__FAST_BY_GROUP(g - h, weighted_heads, wh, w_stride, rows, stride, n, c0, oh, out_stride);
            }
        }
    }
    for (int32_t h = 0; c0 < d && h < g; h++) {
        pecert__fast_weighted_head_scalar(w + (size_t)h * w_stride, rows + c0, stride, n, d - c0,
                                          out + (size_t)h * out_stride + c0);
    }
}
