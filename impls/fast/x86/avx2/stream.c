/*
 * stream.c (AVX2) - the table ops' rows written with streaming stores
 * (impls/fast/README.md, "Memory traffic": an output of 12 MiB or more
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
