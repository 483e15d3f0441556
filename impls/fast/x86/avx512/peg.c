/*
 * peg.c (AVX-512) - peg_cell: scalar/taps.c's arithmetic, channel for
 * channel (for each channel: 0, then + w_t x_t over the taps in order, a
 * multiply then an add; then centre + (sum + bias)), with the sums of 128
 * channels in eight registers across the taps (eight chains of adds keep
 * both FMA ports busy), then 64, the last partial block under lane masks.
 *
 * peg_row3: the same sums for a grid row's cells under a 3 x 3 kernel,
 * swept along the row 16 channels at a time: the nine taps and
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
 * about 12 cycles, its 11 adds. The edge cells and the grid's first and
 * last rows are swept too, with the taps inside the grid only (compile-
 * time flags: the same operations as their taps one by one): through
 * peg_cell, with plain stores, they had been ~14% of a call's time (perf);
 * 2026-12-08, the plugin alternating with the build before, caches
 * cleared between calls, min of 30: one thread 1.13-1.20 -> 1.02-1.13 ms,
 * two 0.76-0.82 -> 0.69-0.79 (copy 0.51). Two rows a sweep (each source
 * row read from L2 by two sweeps, not three) were tried: one thread 1-4%
 * faster, two 0-8% slower; not kept.
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

/* One cell's sum for 16 channels over the taps inside the grid: row i
 * (0, 1, 2: above, at, below the cell; those above and below where UP,
 * DOWN), column j (a, b, c: left of, at, right of it; where LEFT, RIGHT),
 * in kernel order, 0 + w_t v_t a multiply then an add each; then b1 +
 * (sum + bias): peg_cell's operations on patch_taps' taps (family/peg.c).
 * v[i][j]: the window. */
ALWAYS_INLINE __m512 cell16(int up, int down, int left, int right, const __m512 w[9], __m512 bias,
                            const __m512 v[3][3])
{
    const int row[3] = {up, 1, down}, col[3] = {left, 1, right};
    __m512 sum = _mm512_setzero_ps();

    _Pragma("GCC unroll 3") for (int i = 0; i < 3; i++) {
        _Pragma("GCC unroll 3") for (int j = 0; j < 3; j++) {
            if (row[i] && col[j]) {
                sum = _mm512_add_ps(sum, _mm512_mul_ps(w[3 * i + j], v[i][j]));
            }
        }
    }
    return _mm512_add_ps(v[1][1], _mm512_add_ps(sum, bias));
}

ALWAYS_INLINE void put16(float *out, __m512 v, __mmask16 m, int stream)
{
    if (stream) {
        _mm512_stream_ps(out, v);
    } else {
        _mm512_mask_storeu_ps(out, m, v);
    }
}

/* Column x of the rows present (UP, DOWN) into the window's column j. */
ALWAYS_INLINE void load_column(int up, int down, __m512 v[3][3], int j, const float *const *src, int64_t at,
                               __mmask16 m)
{
    v[0][j] = up ? _mm512_maskz_loadu_ps(m, src[0] + at) : _mm512_setzero_ps();
    v[1][j] = _mm512_maskz_loadu_ps(m, src[1] + at);
    v[2][j] = down ? _mm512_maskz_loadu_ps(m, src[2] + at) : _mm512_setzero_ps();
}

/* One 16-channel slice (lanes m) of a grid row's cells 0 .. cells - 1,
 * swept with the window of three columns carried from cell to cell; the
 * first and last cells without the taps left and right of the grid, a
 * row at the grid's top or bottom (UP, DOWN 0) without those above or
 * below it. Each inner cell also prefetches the next 128 bytes of
 * ahead[from, to). */
ALWAYS_INLINE void row3_slice(int up, int down, float *out, const float *const *src, const float *taps,
                              int64_t channels, int64_t cells, __mmask16 m, int stream, const char *ahead,
                              int64_t from, int64_t to)
{
    __m512 w[9], v[3][3];

    _Pragma("GCC unroll 9") for (int t = 0; t < 9; t++) {
        w[t] = _mm512_maskz_loadu_ps(m, taps + t * channels);
    }
    const __m512 bias = _mm512_maskz_loadu_ps(m, taps + 9 * channels);

    load_column(up, down, v, 1, src, 0, m);
    if (cells == 1) {
        put16(out, cell16(up, down, 0, 0, w, bias, v), m, stream);
        return;
    }
    load_column(up, down, v, 2, src, channels, m);
    put16(out, cell16(up, down, 0, 1, w, bias, v), m, stream);
    for (int64_t x = 1; x + 1 < cells; x++) {
        if (from + 128 <= to) {
            _mm_prefetch(ahead + from, _MM_HINT_T1);
            _mm_prefetch(ahead + from + 64, _MM_HINT_T1);
            from += 128;
        }
        _Pragma("GCC unroll 3") for (int i = 0; i < 3; i++) {
            v[i][0] = v[i][1];
            v[i][1] = v[i][2];
        }
        load_column(up, down, v, 2, src, (x + 1) * channels, m);
        put16(out + x * channels, cell16(up, down, 1, 1, w, bias, v), m, stream);
    }
    _Pragma("GCC unroll 3") for (int i = 0; i < 3; i++) {
        v[i][0] = v[i][1];
        v[i][1] = v[i][2];
    }
    put16(out + (cells - 1) * channels, cell16(up, down, 1, 0, w, bias, v), m, stream);
}

/* Every slice of a row with the rows above and below present or not. */
ALWAYS_INLINE void row3(int up, int down, float *out, const float *const *src, const float *taps, int64_t channels,
                        int64_t cells, int stream, const float *ahead)
{
    /* The slices share the row ahead in address order, 128 bytes a cell. */
    int64_t bytes = ahead == NULL ? 0 : cells * channels * (int64_t)sizeof(float), step = 128 * (cells - 2);
    int64_t ch = 0, from = 0;

    for (; ch + 16 <= channels; ch += 16, from += step) {
        const float *slice[3] = {up ? src[0] + ch : NULL, src[1] + ch, down ? src[2] + ch : NULL};

        if (stream) {
            row3_slice(up, down, out + ch, slice, taps + ch, channels, cells, (__mmask16)0xffff, 1,
                       (const char *)ahead, from, bytes);
        } else {
            row3_slice(up, down, out + ch, slice, taps + ch, channels, cells, (__mmask16)0xffff, 0,
                       (const char *)ahead, from, bytes);
        }
    }
    if (ch < channels) {
        const float *slice[3] = {up ? src[0] + ch : NULL, src[1] + ch, down ? src[2] + ch : NULL};
        __mmask16 last = (__mmask16)((1u << (channels - ch)) - 1u);

        row3_slice(up, down, out + ch, slice, taps + ch, channels, cells, last, 0, (const char *)ahead, from, bytes);
    }
}

void pecert__fast_peg_row3_avx512(float *out, const float *const *src, const float *taps, int64_t channels,
                                  int64_t cells, int stream, const float *ahead)
{
    PECERT__FAST_BY_ROWS_PRESENT(row3, src, out, src, taps, channels, cells, stream, ahead);
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
