/*
 * peg.c (AVX-512) - peg_cell: scalar/taps.c's arithmetic, channel for
 * channel (for each channel: 0, then + w_t x_t over the taps in order, a
 * multiply then an add; then centre + (sum + bias)), with the sums of 128
 * channels in eight registers across the taps (eight chains of adds keep
 * both FMA ports busy), then 64, the last partial block under lane masks.
 *
 * peg_row3: the same sums for a grid row's inner cells under a 3 x 3
 * kernel, swept along the row 16 channels at a time: the nine taps and
 * the bias stay in registers, and so do the three columns of source cells
 * a cell reads, so that a cell loads only its new column (3 vectors) where
 * peg_cell loads 18. The source cells are 4 * channels bytes apart, nearly
 * a page, which the hardware prefetchers do not follow: the row two
 * below (the next row's new one) is prefetched into L2 in address order
 * as the row is swept, two lines a cell. Measured on 64 x 64 x 768 in
 * `pecert bench` (one thread, Zen 4, x from memory): 4.5-5.5 ms by
 * peg_cell; swept 2.6-3.4 ms, with the row ahead prefetched 1.1-1.4 ms
 * (into L1: 1.5-1.9); plain stores instead of streaming ones 3x slower
 * (each strided line is read for ownership first); prefetching the
 * cells a few ahead in each row gained nothing. In L1 a cell costs
 * about 12 cycles, its 11 adds.
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

/* One 16-channel slice of peg_row3 (lanes m): cells 1 .. cells - 2, each
 * 0 + w0 a0 + w1 b0 + w2 c0 + w3 a1 + ... + w8 c2 in kernel order (a, b,
 * c: the columns left of, at and right of the cell; 0, 1, 2: the rows
 * above, at and below), then b1 + (sum + bias): peg_cell's operations.
 * Each cell also prefetches the next 128 bytes of ahead[from, to). */
ALWAYS_INLINE void row3_slice(float *out, const float *const *src, const float *taps, int64_t channels,
                              int64_t cells, __mmask16 m, int stream, const char *ahead, int64_t from, int64_t to)
{
    __m512 w[9];

    _Pragma("GCC unroll 9") for (int t = 0; t < 9; t++) {
        w[t] = _mm512_maskz_loadu_ps(m, taps + t * channels);
    }
    const __m512 bias = _mm512_maskz_loadu_ps(m, taps + 9 * channels);
    const float *p0 = src[0], *p1 = src[1], *p2 = src[2];
    __m512 a0 = _mm512_maskz_loadu_ps(m, p0), a1 = _mm512_maskz_loadu_ps(m, p1), a2 = _mm512_maskz_loadu_ps(m, p2);
    __m512 b0 = _mm512_maskz_loadu_ps(m, p0 + channels), b1 = _mm512_maskz_loadu_ps(m, p1 + channels),
           b2 = _mm512_maskz_loadu_ps(m, p2 + channels);

    for (int64_t x = 1; x + 1 < cells; x++) {
        int64_t next = (x + 1) * channels;

        if (from + 128 <= to) {
            _mm_prefetch(ahead + from, _MM_HINT_T1);
            _mm_prefetch(ahead + from + 64, _MM_HINT_T1);
            from += 128;
        }
        __m512 c0 = _mm512_maskz_loadu_ps(m, p0 + next), c1 = _mm512_maskz_loadu_ps(m, p1 + next),
               c2 = _mm512_maskz_loadu_ps(m, p2 + next);
        __m512 sum = _mm512_add_ps(_mm512_setzero_ps(), _mm512_mul_ps(w[0], a0));

        sum = _mm512_add_ps(sum, _mm512_mul_ps(w[1], b0));
        sum = _mm512_add_ps(sum, _mm512_mul_ps(w[2], c0));
        sum = _mm512_add_ps(sum, _mm512_mul_ps(w[3], a1));
        sum = _mm512_add_ps(sum, _mm512_mul_ps(w[4], b1));
        sum = _mm512_add_ps(sum, _mm512_mul_ps(w[5], c1));
        sum = _mm512_add_ps(sum, _mm512_mul_ps(w[6], a2));
        sum = _mm512_add_ps(sum, _mm512_mul_ps(w[7], b2));
        sum = _mm512_add_ps(sum, _mm512_mul_ps(w[8], c2));
        __m512 v = _mm512_add_ps(b1, _mm512_add_ps(sum, bias));
        if (stream) {
            _mm512_stream_ps(out + x * channels, v);
        } else {
            _mm512_mask_storeu_ps(out + x * channels, m, v);
        }
        a0 = b0, a1 = b1, a2 = b2;
        b0 = c0, b1 = c1, b2 = c2;
    }
}

void pecert__fast_peg_row3_avx512(float *out, const float *const *src, const float *taps, int64_t channels,
                                  int64_t cells, int stream, const float *ahead)
{
    /* The slices share the row ahead in address order, 128 bytes a cell. */
    int64_t bytes = ahead == NULL ? 0 : cells * channels * (int64_t)sizeof(float), step = 128 * (cells - 2);
    int64_t ch = 0, from = 0;

    for (; ch + 16 <= channels; ch += 16, from += step) {
        const float *slice[3] = {src[0] + ch, src[1] + ch, src[2] + ch};

        if (stream) {
            row3_slice(out + ch, slice, taps + ch, channels, cells, (__mmask16)0xffff, 1, (const char *)ahead, from,
                       bytes);
        } else {
            row3_slice(out + ch, slice, taps + ch, channels, cells, (__mmask16)0xffff, 0, (const char *)ahead, from,
                       bytes);
        }
    }
    if (ch < channels) {
        const float *slice[3] = {src[0] + ch, src[1] + ch, src[2] + ch};
        __mmask16 last = (__mmask16)((1u << (channels - ch)) - 1u);

        row3_slice(out + ch, slice, taps + ch, channels, cells, last, 0, (const char *)ahead, from, bytes);
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
