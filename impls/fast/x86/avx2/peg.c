/*
 * peg.c (AVX2) - peg_cell: scalar/taps.c's arithmetic, channel for
 * channel (for each channel: 0, then + w_t x_t over the taps in order, a
 * multiply then an add; then centre + (sum + bias)), with the sums of 32
 * channels in four registers across the taps; the last channels past a
 * multiple of 8 in the scalar arithmetic.
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX2__)
#error "x86/avx2/*.c needs -mavx2 -mfma -mf16c"
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Channels [c0, c0 + 8 regs). */
ALWAYS_INLINE void block(float *out, const float *const *src, const float *const *w, int32_t taps, const float *bias,
                         const float *centre, int64_t c0, int regs)
{
    __m256 sum[4];

    _Pragma("GCC unroll 4") for (int i = 0; i < regs; i++) {
        sum[i] = _mm256_setzero_ps();
    }
    for (int32_t t = 0; t < taps; t++) {
        _Pragma("GCC unroll 4") for (int i = 0; i < regs; i++) {
            __m256 product = _mm256_mul_ps(_mm256_loadu_ps(w[t] + c0 + 8 * i), _mm256_loadu_ps(src[t] + c0 + 8 * i));

            sum[i] = _mm256_add_ps(sum[i], product);
        }
    }
    _Pragma("GCC unroll 4") for (int i = 0; i < regs; i++) {
        __m256 v = _mm256_add_ps(_mm256_loadu_ps(centre + c0 + 8 * i),
                                 _mm256_add_ps(sum[i], _mm256_loadu_ps(bias + c0 + 8 * i)));

        _mm256_storeu_ps(out + c0 + 8 * i, v);
    }
}

void pecert__fast_peg_cell_avx2(float *out, const float *const *src, const float *const *w, int32_t taps,
                                const float *bias, const float *centre, int64_t begin, int64_t end)
{
    int64_t c0 = begin;

    for (; c0 + 32 <= end; c0 += 32) {
        block(out, src, w, taps, bias, centre, c0, 4);
    }
    for (; c0 + 8 <= end; c0 += 8) {
        block(out, src, w, taps, bias, centre, c0, 1);
    }
    for (; c0 < end; c0++) {
        float sum = 0.0f;

        for (int32_t t = 0; t < taps; t++) {
            sum += w[t][c0] * src[t][c0];
        }
        out[c0] = centre[c0] + (sum + bias[c0]);
    }
}
