/*
 * stream.c (AVX-512) - the table ops' rows written with streaming stores
 * (impls/fast/README.md, "Memory traffic": an output of 12 MiB or more
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
