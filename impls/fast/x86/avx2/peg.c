/*
 * peg.c (AVX2) - peg_cell: scalar/taps.c's arithmetic, channel for
 * channel (for each channel: 0, then + w_t x_t over the taps in order, a
 * multiply then an add; then centre + (sum + bias)), with the sums of 32
 * channels in four registers across the taps; the last channels past a
 * multiple of 8 in the scalar arithmetic.
 *
 * peg_row3: x86/avx512/peg.c's sweep of a grid row's inner cells under a
 * 3 x 3 kernel, 16 channels (a 64-byte line) at a time: the three columns
 * of source cells a cell reads are carried from cell to cell, so a cell
 * loads its one new column where peg_cell loads 18 sources; the nine taps
 * and the bias are read from L1 as operands (16 registers do not hold
 * them beside a window of 18). The same prefetch of the row two below (a
 * line a cell) and streaming stores past 8 MiB, for the same reasons (that
 * file says them). A cell's line is streamed whole: 8-channel slices,
 * whose two halves of a line were streamed 64 cells apart, ran 2.3x
 * slower on Zen 3 (64 x 64 x 768 from memory, one thread: 8.4 -> 3.7 ms).
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

/* Lanes [0, left) of a register, for the masked loads and stores of a
 * slice narrower than 8 channels. */
static inline __m256i lanes(int64_t left)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

ALWAYS_INLINE __m256 load(const float *p, int full, __m256i m)
{
    return full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m);
}

/* w_t * v, the tap's weights read from the taps' rows (L1). */
ALWAYS_INLINE __m256 tap(const float *taps, int64_t channels, int t, __m256 v, int full, __m256i m)
{
    return _mm256_mul_ps(load(taps + t * channels, full, m), v);
}

/* One cell's sums for 8 channels (all lanes when full, else lanes m):
 * 0 + w0 a0 + w1 b0 + w2 c0 + w3 a1 + ... + w8 c2 in kernel order (a, b,
 * c: the columns left of, at and right of the cell; 0, 1, 2: the rows
 * above, at and below), then b1 + (sum + bias): peg_cell's operations. */
ALWAYS_INLINE __m256 cell8(const float *taps, int64_t channels, const __m256 a[3], const __m256 b[3],
                           const __m256 c[3], int full, __m256i m)
{
    __m256 sum = _mm256_add_ps(_mm256_setzero_ps(), tap(taps, channels, 0, a[0], full, m));

    sum = _mm256_add_ps(sum, tap(taps, channels, 1, b[0], full, m));
    sum = _mm256_add_ps(sum, tap(taps, channels, 2, c[0], full, m));
    sum = _mm256_add_ps(sum, tap(taps, channels, 3, a[1], full, m));
    sum = _mm256_add_ps(sum, tap(taps, channels, 4, b[1], full, m));
    sum = _mm256_add_ps(sum, tap(taps, channels, 5, c[1], full, m));
    sum = _mm256_add_ps(sum, tap(taps, channels, 6, a[2], full, m));
    sum = _mm256_add_ps(sum, tap(taps, channels, 7, b[2], full, m));
    sum = _mm256_add_ps(sum, tap(taps, channels, 8, c[2], full, m));
    return _mm256_add_ps(b[1], _mm256_add_ps(sum, load(taps + 9 * channels, full, m)));
}

/* One slice of peg_row3, W = 8 or 16 channels (W / 8 registers a column;
 * all lanes when full, else one register of lanes m): cells 1 .. cells -
 * 2 by cell8, the window of three columns carried from cell to cell. A
 * cell's W channels are stored together: at 16 a whole 64-byte line, which
 * a streaming store needs (two halves of a line streamed 64 cells apart
 * leave the write-combining buffer partial: 4-5x slower on Zen 3). Each
 * cell also prefetches the next line of ahead[from, to). */
ALWAYS_INLINE void row3_slice(int W, float *out, const float *const *src, const float *taps, int64_t channels,
                              int64_t cells, int full, __m256i m, int stream, const char *ahead, int64_t from,
                              int64_t to)
{
    __m256 a[2][3], b[2][3], c[2][3];

    _Pragma("GCC unroll 2") for (int h = 0; h < W / 8; h++) {
        _Pragma("GCC unroll 3") for (int r = 0; r < 3; r++) {
            a[h][r] = load(src[r] + 8 * h, full, m);
            b[h][r] = load(src[r] + channels + 8 * h, full, m);
        }
    }
    for (int64_t x = 1; x + 1 < cells; x++) {
        int64_t next = (x + 1) * channels;
        __m256 v[2];

        if (from + 64 <= to) {
            _mm_prefetch(ahead + from, _MM_HINT_T1);
            from += 64;
        }
        _Pragma("GCC unroll 2") for (int h = 0; h < W / 8; h++) {
            _Pragma("GCC unroll 3") for (int r = 0; r < 3; r++) {
                c[h][r] = load(src[r] + next + 8 * h, full, m);
            }
            v[h] = cell8(taps + 8 * h, channels, a[h], b[h], c[h], full, m);
        }
        _Pragma("GCC unroll 2") for (int h = 0; h < W / 8; h++) {
            float *o = out + x * channels + 8 * h;

            if (!full) {
                _mm256_maskstore_ps(o, m, v[h]);
            } else if (stream) {
                _mm256_stream_ps(o, v[h]);
            } else {
                _mm256_storeu_ps(o, v[h]);
            }
            _Pragma("GCC unroll 3") for (int r = 0; r < 3; r++) {
                a[h][r] = b[h][r];
                b[h][r] = c[h][r];
            }
        }
    }
}

void pecert__fast_peg_row3_avx2(float *out, const float *const *src, const float *taps, int64_t channels,
                                int64_t cells, int stream, const float *ahead)
{
    /* The slices share the row ahead in address order, a line a cell (it
     * is 4 lines a cell long: the first quarter of the slices fetch it). */
    int64_t bytes = ahead == NULL ? 0 : cells * channels * (int64_t)sizeof(float), step = 64 * (cells - 2);
    int64_t ch = 0, from = 0;
    const __m256i all = _mm256_set1_epi32(-1);

    for (; ch + 16 <= channels; ch += 16, from += step) {
        const float *slice[3] = {src[0] + ch, src[1] + ch, src[2] + ch};

        if (stream) {
            row3_slice(16, out + ch, slice, taps + ch, channels, cells, 1, all, 1, (const char *)ahead, from, bytes);
        } else {
            row3_slice(16, out + ch, slice, taps + ch, channels, cells, 1, all, 0, (const char *)ahead, from, bytes);
        }
    }
    /* The last channels (the caller streams only when there are none). */
    for (; ch < channels; ch += 8, from += step) {
        const float *slice[3] = {src[0] + ch, src[1] + ch, src[2] + ch};

        if (ch + 8 <= channels) {
            row3_slice(8, out + ch, slice, taps + ch, channels, cells, 1, all, 0, (const char *)ahead, from, bytes);
        } else {
            row3_slice(8, out + ch, slice, taps + ch, channels, cells, 0, lanes(channels - ch), 0,
                       (const char *)ahead, from, bytes);
        }
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
