/*
 * peg.c (AVX-512) - peg_cell: scalar/taps.c's arithmetic, channel for
 * channel (for each channel: 0, then + w_t x_t over the taps in order, a
 * multiply then an add; then centre + (sum + bias)), with the sums of 128
 * channels in eight registers across the taps (eight chains of adds keep
 * both FMA ports busy), then 64, the last partial block under lane masks.
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX512F__)
#error "x86/avx512/peg.c needs -mavx512f"
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Channels [c0, c0 + 16 regs) with mask `last` on the last register. */
ALWAYS_INLINE void block(float *out, const float *const *src, const float *const *w, int32_t taps, const float *bias,
                         const float *centre, int64_t c0, int regs, __mmask16 last)
{
    __m512 sum[8];

    _Pragma("GCC unroll 8") for (int i = 0; i < regs; i++) {
        sum[i] = _mm512_setzero_ps();
    }
    for (int32_t t = 0; t < taps; t++) {
        _Pragma("GCC unroll 8") for (int i = 0; i < regs; i++) {
            __mmask16 m = i + 1 < regs ? (__mmask16)0xffff : last;
            __m512 product = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, w[t] + c0 + 16 * i),
                                           _mm512_maskz_loadu_ps(m, src[t] + c0 + 16 * i));

            sum[i] = _mm512_add_ps(sum[i], product);
        }
    }
    _Pragma("GCC unroll 8") for (int i = 0; i < regs; i++) {
        __mmask16 m = i + 1 < regs ? (__mmask16)0xffff : last;
        __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, centre + c0 + 16 * i),
                                 _mm512_add_ps(sum[i], _mm512_maskz_loadu_ps(m, bias + c0 + 16 * i)));

        _mm512_mask_storeu_ps(out + c0 + 16 * i, m, v);
    }
}

void pecert__fast_peg_cell_avx512(float *out, const float *const *src, const float *const *w, int32_t taps,
                                  const float *bias, const float *centre, int64_t begin, int64_t end)
{
    int64_t c0 = begin;

    for (; c0 + 128 <= end; c0 += 128) {
        block(out, src, w, taps, bias, centre, c0, 8, (__mmask16)0xffff);
    }
    for (; c0 + 64 <= end; c0 += 64) {
        block(out, src, w, taps, bias, centre, c0, 4, (__mmask16)0xffff);
    }
    if (c0 < end) {
        int64_t left = end - c0;
        int regs = (int)((left + 15) / 16);
        int rem = (int)(left - 16 * (regs - 1));
        __mmask16 last = (__mmask16)((1u << rem) - 1u);

        switch (regs) { /* left < 64: 1 to 4 registers, the last masked */
        case 4: block(out, src, w, taps, bias, centre, c0, 4, last); break;
        case 3: block(out, src, w, taps, bias, centre, c0, 3, last); break;
        case 2: block(out, src, w, taps, bias, centre, c0, 2, last); break;
        default: block(out, src, w, taps, bias, centre, c0, 1, last); break;
        }
    }
}
