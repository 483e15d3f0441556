/*
 * stream.c (AVX-512) - the table ops' rows written with streaming stores
 * (impls/fast/README.md, "Memory traffic": an output of 8 MiB or more
 * would not stay cached, and reading it for ownership is wasted
 * bandwidth). The values are scalar/narrow.c's and a plain copy's: the
 * same conversions, only the store differs. The elements before a row's
 * first 64-byte boundary and after its last full vector take plain
 * stores; the caller fences once its rows are done.
 */
#include <immintrin.h>
#include <stdint.h>

#include "../../fast.h"

#if !defined(__AVX512F__)
#error "x86/avx512/*.c needs -mavx512f"
#endif

/* 16 doubles rounded to 16 floats. */
static inline __m512 narrow16(const double *a)
{
    __m256 lo = _mm512_cvtpd_ps(_mm512_loadu_pd(a));
    __m256 hi = _mm512_cvtpd_ps(_mm512_loadu_pd(a + 8));

    return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

void pecert__fast_narrow_row_stream_avx512(float *out, const double *a, int64_t n)
{
    int64_t i = 0;

    for (; i < n && (uintptr_t)(out + i) % 64 != 0; i++) {
        out[i] = (float)a[i]; /* up to the first aligned vector */
    }

    for (; i + 16 <= n; i += 16) {
        _mm512_stream_ps(out + i, narrow16(a + i));
    }
    for (; i < n; i++) {
        out[i] = (float)a[i];
    }
}

void pecert__fast_interleave_row_stream_avx512(float *out, const double *a, const double *b, int64_t n)
{
    const __m512i order = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    int64_t i = 0;

    /* Pairs up to the first aligned vector (none is, at an odd float
     * offset: then every pair takes the plain stores below). */
    for (; i < n && (uintptr_t)(out + 2 * i) % 64 != 0; i++) {
        out[2 * i] = (float)a[i];
        out[2 * i + 1] = (float)b[i];
    }

    for (; i + 8 <= n; i += 8) {
        __m512 x = _mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_loadu_pd(a + i)));
        __m512 y = _mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_loadu_pd(b + i)));

        _mm512_stream_ps(out + 2 * i, _mm512_permutex2var_ps(x, order, y));
    }
    for (; i < n; i++) {
        out[2 * i] = (float)a[i];
        out[2 * i + 1] = (float)b[i];
    }
}

void pecert__fast_copy_row_stream_avx512(float *out, const float *a, int64_t n)
{
    int64_t i = 0;

    for (; i < n && (uintptr_t)(out + i) % 64 != 0; i++) {
        out[i] = a[i];
    }

    for (; i + 16 <= n; i += 16) {
        _mm512_stream_ps(out + i, _mm512_loadu_ps(a + i));
    }
    for (; i < n; i++) {
        out[i] = a[i];
    }
}

/* relpos2d's output rows: each run base[j] + row, in 16-float vectors
 * streamed out (out 64-byte aligned, n a multiple of 16: the caller's
 * checks); the sums are the portable loop's, one float add each. */
void pecert__fast_outer_sum_stream_avx512(float *out, const float *base, int64_t runs, const float *row, int64_t n)
{
    for (int64_t j = 0; j < runs; j++) {
        __m512 b = _mm512_set1_ps(base[j]);
        float *o = out + j * n;

        for (int64_t i = 0; i < n; i += 16) {
            _mm512_stream_ps(o + i, _mm512_add_ps(b, _mm512_loadu_ps(row + i)));
        }
    }
}

/* ---- a table row's step and its streamed emission in one pass ---------------
 * trig.c's step_row (the angle-addition step in double, multiplies then
 * one add or subtract per value, no fma: the same bits) on 8 frequencies,
 * its new row stored back as the state and, rounded to float, streamed
 * out at once: the separate passes left the stores' write-combining
 * buffers idle while the step ran. Rows 64-byte aligned (the caller
 * checks); tails take plain masked stores. */

static inline __mmask8 first8(int32_t left)
{
    return left >= 8 ? (__mmask8)0xff : (__mmask8)((1u << left) - 1u);
}

static inline void step8(const double *step_cos, const double *step_sin, double *cos, double *sin, int32_t i,
                         __mmask8 m, __m256 *c_out, __m256 *s_out)
{
    __m512d c = _mm512_maskz_loadu_pd(m, cos + i);
    __m512d s = _mm512_maskz_loadu_pd(m, sin + i);
    __m512d sc = _mm512_maskz_loadu_pd(m, step_cos + i);
    __m512d ss = _mm512_maskz_loadu_pd(m, step_sin + i);
    __m512d c2 = _mm512_sub_pd(_mm512_mul_pd(c, sc), _mm512_mul_pd(s, ss));
    __m512d s2 = _mm512_add_pd(_mm512_mul_pd(s, sc), _mm512_mul_pd(c, ss));

    _mm512_mask_storeu_pd(cos + i, m, c2);
    _mm512_mask_storeu_pd(sin + i, m, s2);
    *c_out = _mm512_cvtpd_ps(c2);
    *s_out = _mm512_cvtpd_ps(s2);
}

/* out[2i] = sin, out[2i + 1] = cos of the stepped row. */
void pecert__fast_step_interleave_stream_avx512(const double *step_cos, const double *step_sin, int32_t half,
                                                double *cos, double *sin, float *out)
{
    const __m512i order = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    int32_t i = 0;

    for (; i < half; i += 8) {
        __mmask8 m = first8(half - i);
        __m256 c;
        __m256 s;
        __m512 v;

        step8(step_cos, step_sin, cos, sin, i, m, &c, &s);
        v = _mm512_permutex2var_ps(_mm512_castps256_ps512(s), order, _mm512_castps256_ps512(c));
        if (m == 0xff) {
            _mm512_stream_ps(out + 2 * i, v);
        } else {
            _mm512_mask_storeu_ps(out + 2 * i, (__mmask16)((1u << (2 * (half - i))) - 1u), v);
        }
    }
}

/* out_sin[i] = sin, out_cos[i] = cos of the stepped row. */
void pecert__fast_step_halves_stream_avx512(const double *step_cos, const double *step_sin, int32_t half,
                                            double *cos, double *sin, float *out_sin, float *out_cos)
{
    int32_t i = 0;

    for (; i + 16 <= half; i += 16) {
        __m256 c0, s0, c1, s1;

        step8(step_cos, step_sin, cos, sin, i, 0xff, &c0, &s0);
        step8(step_cos, step_sin, cos, sin, i + 8, 0xff, &c1, &s1);
        _mm512_stream_ps(out_sin + i, _mm512_insertf32x8(_mm512_castps256_ps512(s0), s1, 1));
        _mm512_stream_ps(out_cos + i, _mm512_insertf32x8(_mm512_castps256_ps512(c0), c1, 1));
    }
    for (; i < half; i += 8) {
        __mmask8 m = first8(half - i);
        __m256 c, s;

        step8(step_cos, step_sin, cos, sin, i, m, &c, &s);
        _mm256_mask_storeu_ps(out_sin + i, m, s);
        _mm256_mask_storeu_ps(out_cos + i, m, c);
    }
}

/* ---- weighted sums of rows, streamed ----------------------------------------
 * scalar/taps.c's sum_rows from zero, (((0 + w_0 x_0) + w_1 x_1) + ...),
 * for 1 to 4 taps into 1 to 4 outputs over the same rows (output k's
 * weights w[k * taps ..]), each value stored once, streamed (every out
 * 64-byte aligned, the caller checks; a tail under 16 values takes masked
 * plain stores): summed into an accumulator and then copied, the copy
 * was a fifth of a resize's time. Each row's vector is loaded once for
 * all the outputs (an upsampling's neighbouring cells share their rows),
 * and the tap and output counts are constants of each instance, the rows'
 * pointers and weights in registers: 64 x 64 x 1024 bicubic from 16 x 16,
 * one thread, alternating with the build before (a loop over the taps
 * per vector, reloading them, one output a call), 0.97-1.01 -> 0.86-0.89
 * ms for the constants, -> 0.83-0.85 for the shared loads. */
static inline __attribute__((always_inline)) void sum_taps(int K, int TAPS, float *const *out, const float *const *x,
                                                           const float *w, int64_t n)
{
    __m512 wk[4][4];

    _Pragma("GCC unroll 4") for (int k = 0; k < K; k++) {
        _Pragma("GCC unroll 4") for (int t = 0; t < TAPS; t++) {
            wk[k][t] = _mm512_set1_ps(w[k * TAPS + t]);
        }
    }
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1u);
        __m512 v[4];

        _Pragma("GCC unroll 4") for (int t = 0; t < TAPS; t++) {
            v[t] = _mm512_maskz_loadu_ps(m, x[t] + i);
        }
        _Pragma("GCC unroll 4") for (int k = 0; k < K; k++) {
            __m512 acc = _mm512_add_ps(_mm512_setzero_ps(), _mm512_mul_ps(wk[k][0], v[0]));

            _Pragma("GCC unroll 3") for (int t = 1; t < TAPS; t++) {
                acc = _mm512_add_ps(acc, _mm512_mul_ps(wk[k][t], v[t]));
            }
            if (m == (__mmask16)0xffff) {
                _mm512_stream_ps(out[k] + i, acc);
            } else {
                _mm512_mask_storeu_ps(out[k] + i, m, acc);
            }
        }
    }
}

void pecert__fast_sum_rows_stream_avx512(float *const *out, int32_t outs, const float *const *x, const float *w,
                                         int32_t taps, int64_t n)
{
    PECERT__FAST_BY_OUTS_AND_TAPS(sum_taps, outs, taps, out, x, w, n)
}
