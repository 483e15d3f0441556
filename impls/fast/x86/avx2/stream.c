/*
 * stream.c (AVX2) - the table ops' rows written with streaming stores
 * (impls/fast/README.md, "Memory traffic": an output of 8 MiB or more
 * would not stay cached, and reading it for ownership is wasted
 * bandwidth). The values are scalar/narrow.c's and a plain copy's: the
 * same conversions, only the store differs. The elements before a row's
 * first 32-byte boundary and after its last full vector take plain
 * stores; the caller fences once its rows are done.
 */
#include <immintrin.h>
#include <stdint.h>

#include "../../fast.h"

#if !defined(__AVX2__)
#error "x86/avx2/*.c needs -mavx2 -mfma -mf16c"
#endif

/* 8 doubles rounded to 8 floats. */
static inline __m256 narrow8(const double *a)
{
    __m128 lo = _mm256_cvtpd_ps(_mm256_loadu_pd(a));
    __m128 hi = _mm256_cvtpd_ps(_mm256_loadu_pd(a + 4));

    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

void pecert__fast_narrow_row_stream_avx2(float *out, const double *a, int64_t n)
{
    int64_t i = 0;

    for (; i < n && (uintptr_t)(out + i) % 32 != 0; i++) {
        out[i] = (float)a[i]; /* up to the first aligned vector */
    }

    for (; i + 8 <= n; i += 8) {
        _mm256_stream_ps(out + i, narrow8(a + i));
    }
    for (; i < n; i++) {
        out[i] = (float)a[i];
    }
}

void pecert__fast_interleave_row_stream_avx2(float *out, const double *a, const double *b, int64_t n)
{
    int64_t i = 0;

    /* Pairs up to the first aligned vector (none is, at an odd float
     * offset: then every pair takes the plain stores below). */
    for (; i < n && (uintptr_t)(out + 2 * i) % 32 != 0; i++) {
        out[2 * i] = (float)a[i];
        out[2 * i + 1] = (float)b[i];
    }

    for (; i + 4 <= n; i += 4) {
        __m128 x = _mm256_cvtpd_ps(_mm256_loadu_pd(a + i));
        __m128 y = _mm256_cvtpd_ps(_mm256_loadu_pd(b + i));
        __m256 pairs = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_unpacklo_ps(x, y)), _mm_unpackhi_ps(x, y), 1);

        _mm256_stream_ps(out + 2 * i, pairs);
    }
    for (; i < n; i++) {
        out[2 * i] = (float)a[i];
        out[2 * i + 1] = (float)b[i];
    }
}

void pecert__fast_copy_row_stream_avx2(float *out, const float *a, int64_t n)
{
    int64_t i = 0;

    for (; i < n && (uintptr_t)(out + i) % 32 != 0; i++) {
        out[i] = a[i];
    }

    for (; i + 8 <= n; i += 8) {
        _mm256_stream_ps(out + i, _mm256_loadu_ps(a + i));
    }
    for (; i < n; i++) {
        out[i] = a[i];
    }
}

/* relpos2d's output rows: each run base[j] + row, in 8-float vectors
 * streamed out (out 64-byte aligned, n a multiple of 16: the caller's
 * checks); the sums are the portable loop's, one float add each. */
void pecert__fast_outer_sum_stream_avx2(float *out, const float *base, int64_t runs, const float *row, int64_t n)
{
    for (int64_t j = 0; j < runs; j++) {
        __m256 b = _mm256_set1_ps(base[j]);
        float *o = out + j * n;

        for (int64_t i = 0; i < n; i += 8) {
            _mm256_stream_ps(o + i, _mm256_add_ps(b, _mm256_loadu_ps(row + i)));
        }
    }
}

/* ---- a table row's step and its streamed emission in one pass ---------------
 * trig.c's step_row (the angle-addition step in double, multiplies then
 * one add or subtract per value, no fma: the same bits) on 4 frequencies
 * a register, its new row stored back as the state and, rounded to float,
 * streamed out at once, as the AVX-512 kernel does: two passes leave the
 * stores' write-combining buffers idle while the step runs. Rows 64-byte
 * aligned (the caller checks); a tail under a vector takes the scalar
 * code's operations and plain stores. */

static inline void step4(const double *step_cos, const double *step_sin, double *cos, double *sin, int32_t i,
                         __m128 *c_out, __m128 *s_out)
{
    __m256d c = _mm256_loadu_pd(cos + i);
    __m256d s = _mm256_loadu_pd(sin + i);
    __m256d sc = _mm256_loadu_pd(step_cos + i);
    __m256d ss = _mm256_loadu_pd(step_sin + i);
    __m256d c2 = _mm256_sub_pd(_mm256_mul_pd(c, sc), _mm256_mul_pd(s, ss));
    __m256d s2 = _mm256_add_pd(_mm256_mul_pd(s, sc), _mm256_mul_pd(c, ss));

    _mm256_storeu_pd(cos + i, c2);
    _mm256_storeu_pd(sin + i, s2);
    *c_out = _mm256_cvtpd_ps(c2);
    *s_out = _mm256_cvtpd_ps(s2);
}

/* step_row's one value, as scalar/trig.c computes it. */
static inline void step1(const double *step_cos, const double *step_sin, double *cos, double *sin, int32_t i)
{
    double c = cos[i], s = sin[i];

    cos[i] = c * step_cos[i] - s * step_sin[i];
    sin[i] = s * step_cos[i] + c * step_sin[i];
}

/* out[2i] = sin, out[2i + 1] = cos of the stepped row. */
void pecert__fast_step_interleave_stream_avx2(const double *step_cos, const double *step_sin, int32_t half,
                                              double *cos, double *sin, float *out)
{
    int32_t i = 0;

    for (; i + 4 <= half; i += 4) {
        __m128 c, s;

        step4(step_cos, step_sin, cos, sin, i, &c, &s);
        _mm256_stream_ps(out + 2 * i, _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_unpacklo_ps(s, c)),
                                                           _mm_unpackhi_ps(s, c), 1));
    }
    for (; i < half; i++) {
        step1(step_cos, step_sin, cos, sin, i);
        out[2 * i] = (float)sin[i];
        out[2 * i + 1] = (float)cos[i];
    }
}

/* out_sin[i] = sin, out_cos[i] = cos of the stepped row. */
void pecert__fast_step_halves_stream_avx2(const double *step_cos, const double *step_sin, int32_t half,
                                          double *cos, double *sin, float *out_sin, float *out_cos)
{
    int32_t i = 0;

    for (; i + 8 <= half; i += 8) {
        __m128 c0, s0, c1, s1;

        step4(step_cos, step_sin, cos, sin, i, &c0, &s0);
        step4(step_cos, step_sin, cos, sin, i + 4, &c1, &s1);
        _mm256_stream_ps(out_sin + i, _mm256_insertf128_ps(_mm256_castps128_ps256(s0), s1, 1));
        _mm256_stream_ps(out_cos + i, _mm256_insertf128_ps(_mm256_castps128_ps256(c0), c1, 1));
    }
    for (; i < half; i++) {
        step1(step_cos, step_sin, cos, sin, i);
        out_sin[i] = (float)sin[i];
        out_cos[i] = (float)cos[i];
    }
}

/* ---- weighted sums of rows, streamed ----------------------------------------
 * scalar/taps.c's sum_rows from zero, (((0 + w_0 x_0) + w_1 x_1) + ...),
 * for 1 to 4 taps into 1 to 4 outputs over the same rows (output k's
 * weights w[k * taps ..]), each value stored once, streamed (every out
 * 64-byte aligned, the caller checks; a tail under 8 values in the scalar
 * arithmetic): each row's vector is loaded once for all the outputs (an
 * upsampling's neighbouring cells share their rows). The tap and output
 * counts are constants of each instance of sum_taps (the rows' pointers
 * and weights in registers): a loop over the taps per vector, reloading
 * them, ran slower than the plain sums and a streamed copy on Zen 3. */
static inline __attribute__((always_inline)) void sum_taps(int K, int TAPS, float *const *out, const float *const *x,
                                                           const float *w, int64_t n)
{
    __m256 wk[4][4];
    int64_t i = 0;

    _Pragma("GCC unroll 4") for (int k = 0; k < K; k++) {
        _Pragma("GCC unroll 4") for (int t = 0; t < TAPS; t++) {
            wk[k][t] = _mm256_set1_ps(w[k * TAPS + t]);
        }
    }
    for (; i + 8 <= n; i += 8) {
        __m256 v[4];

        _Pragma("GCC unroll 4") for (int t = 0; t < TAPS; t++) {
            v[t] = _mm256_loadu_ps(x[t] + i);
        }
        _Pragma("GCC unroll 4") for (int k = 0; k < K; k++) {
            __m256 acc = _mm256_add_ps(_mm256_setzero_ps(), _mm256_mul_ps(wk[k][0], v[0]));

            _Pragma("GCC unroll 3") for (int t = 1; t < TAPS; t++) {
                acc = _mm256_add_ps(acc, _mm256_mul_ps(wk[k][t], v[t]));
            }
            _mm256_stream_ps(out[k] + i, acc);
        }
    }
    for (; i < n; i++) {
        for (int k = 0; k < K; k++) {
            float acc = 0.0f + w[k * TAPS] * x[0][i];

            for (int t = 1; t < TAPS; t++) {
                acc += w[k * TAPS + t] * x[t][i];
            }
            out[k][i] = acc;
        }
    }
}

void pecert__fast_sum_rows_stream_avx2(float *const *out, int32_t outs, const float *const *x, const float *w,
                                       int32_t taps, int64_t n)
{
    PECERT__FAST_BY_OUTS_AND_TAPS(sum_taps, outs, taps, out, x, w, n)
}
