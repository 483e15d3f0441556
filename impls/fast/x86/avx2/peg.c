/*
 * peg.c (AVX2) - peg_cell: scalar/taps.c's arithmetic, channel for
 * channel (for each channel: 0, then + w_t x_t over the taps in order, a
 * multiply then an add; then centre + (sum + bias)), with the sums of 32
 * channels in four registers across the taps; the last channels past a
 * multiple of 8 in the scalar arithmetic.
 *
 * peg_row3: x86/avx512/peg.c's sweep of a grid row's cells (its edge
 * cells and the grid's first and last rows with the taps inside the grid)
 * under a 3 x 3 kernel, 16 channels (a 64-byte line) at a time: the three columns
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

/* One cell's sums for 8 channels (all lanes when full, else lanes m) over
 * the taps inside the grid: row i (0, 1, 2: above, at, below the cell;
 * those above and below where UP, DOWN), column j (a, b, c: left of, at,
 * right of it; where LEFT, RIGHT), in kernel order, 0 + w_t v_t a
 * multiply then an add each; then b1 + (sum + bias): peg_cell's
 * operations on patch_taps' taps. v[i][j]: the window. */
ALWAYS_INLINE __m256 cell8(int up, int down, int left, int right, const float *taps, int64_t channels,
                           const __m256 v[3][3], int full, __m256i m)
{
    const int row[3] = {up, 1, down}, col[3] = {left, 1, right};
    __m256 sum = _mm256_setzero_ps();

    _Pragma("GCC unroll 3") for (int i = 0; i < 3; i++) {
        _Pragma("GCC unroll 3") for (int j = 0; j < 3; j++) {
            if (row[i] && col[j]) {
                sum = _mm256_add_ps(sum, tap(taps, channels, 3 * i + j, v[i][j], full, m));
            }
        }
    }
    return _mm256_add_ps(v[1][1], _mm256_add_ps(sum, load(taps + 9 * channels, full, m)));
}

/* Column `at` of the rows present (UP, DOWN) into the window's column j,
 * W / 8 registers (h). */
ALWAYS_INLINE void load_column(int W, int up, int down, __m256 v[2][3][3], int j, const float *const *src,
                               int64_t at, int full, __m256i m)
{
    _Pragma("GCC unroll 2") for (int h = 0; h < W / 8; h++) {
        v[h][0][j] = up ? load(src[0] + at + 8 * h, full, m) : _mm256_setzero_ps();
        v[h][1][j] = load(src[1] + at + 8 * h, full, m);
        v[h][2][j] = down ? load(src[2] + at + 8 * h, full, m) : _mm256_setzero_ps();
    }
}

ALWAYS_INLINE void shift_window(int W, __m256 v[2][3][3])
{
    _Pragma("GCC unroll 2") for (int h = 0; h < W / 8; h++) {
        _Pragma("GCC unroll 3") for (int i = 0; i < 3; i++) {
            v[h][i][0] = v[h][i][1];
            v[h][i][1] = v[h][i][2];
        }
    }
}

/* Cell x's W channels (LEFT, RIGHT: its neighbours' columns inside the
 * grid), stored together: at 16 a whole 64-byte line, which a streaming
 * store needs (two halves of a line streamed 64 cells apart leave the
 * write-combining buffer partial: 4-5x slower on Zen 3). */
ALWAYS_INLINE void put_cell(int W, int up, int down, int left, int right, float *out, const float *taps,
                            int64_t channels, __m256 v[2][3][3], int full, __m256i m, int stream)
{
    __m256 r[2];

    _Pragma("GCC unroll 2") for (int h = 0; h < W / 8; h++) {
        r[h] = cell8(up, down, left, right, taps + 8 * h, channels, v[h], full, m);
    }
    _Pragma("GCC unroll 2") for (int h = 0; h < W / 8; h++) {
        if (!full) {
            _mm256_maskstore_ps(out + 8 * h, m, r[h]);
        } else if (stream) {
            _mm256_stream_ps(out + 8 * h, r[h]);
        } else {
            _mm256_storeu_ps(out + 8 * h, r[h]);
        }
    }
}

/* One slice of peg_row3, W = 8 or 16 channels (W / 8 registers a column;
 * all lanes when full, else one register of lanes m): the row's cells 0
 * .. cells - 1, the window of three columns carried from cell to cell;
 * the first and last cells without the taps left and right of the grid,
 * a row at the grid's top or bottom (UP, DOWN 0) without those above or
 * below it. Each inner cell also prefetches the next line of ahead[from,
 * to). */
ALWAYS_INLINE void row3_slice(int W, int up, int down, float *out, const float *const *src, const float *taps,
                              int64_t channels, int64_t cells, int full, __m256i m, int stream, const char *ahead,
                              int64_t from, int64_t to)
{
    __m256 v[2][3][3];

    load_column(W, up, down, v, 1, src, 0, full, m);
    if (cells == 1) {
        put_cell(W, up, down, 0, 0, out, taps, channels, v, full, m, stream);
        return;
    }
    load_column(W, up, down, v, 2, src, channels, full, m);
    put_cell(W, up, down, 0, 1, out, taps, channels, v, full, m, stream);
    for (int64_t x = 1; x + 1 < cells; x++) {
        if (from + 64 <= to) {
            _mm_prefetch(ahead + from, _MM_HINT_T1);
            from += 64;
        }
        shift_window(W, v);
        load_column(W, up, down, v, 2, src, (x + 1) * channels, full, m);
        put_cell(W, up, down, 1, 1, out + x * channels, taps, channels, v, full, m, stream);
    }
    shift_window(W, v);
    put_cell(W, up, down, 1, 0, out + (cells - 1) * channels, taps, channels, v, full, m, stream);
}

/* Every slice of a row with the rows above and below present or not. */
ALWAYS_INLINE void row3(int up, int down, float *out, const float *const *src, const float *taps, int64_t channels,
                        int64_t cells, int stream, const float *ahead)
{
    /* The slices share the row ahead in address order, a line a cell (it
     * is 4 lines a cell long: the first quarter of the slices fetch it). */
    int64_t bytes = ahead == NULL ? 0 : cells * channels * (int64_t)sizeof(float), step = 64 * (cells - 2);
    int64_t ch = 0, from = 0;
    const __m256i all = _mm256_set1_epi32(-1);

    for (; ch + 16 <= channels; ch += 16, from += step) {
        const float *slice[3] = {up ? src[0] + ch : NULL, src[1] + ch, down ? src[2] + ch : NULL};

        if (stream) {
            row3_slice(16, up, down, out + ch, slice, taps + ch, channels, cells, 1, all, 1, (const char *)ahead,
                       from, bytes);
        } else {
            row3_slice(16, up, down, out + ch, slice, taps + ch, channels, cells, 1, all, 0, (const char *)ahead,
                       from, bytes);
        }
    }
    /* The last channels (the caller streams only when there are none). */
    for (; ch < channels; ch += 8, from += step) {
        const float *slice[3] = {up ? src[0] + ch : NULL, src[1] + ch, down ? src[2] + ch : NULL};

        if (ch + 8 <= channels) {
            row3_slice(8, up, down, out + ch, slice, taps + ch, channels, cells, 1, all, 0, (const char *)ahead,
                       from, bytes);
        } else {
            row3_slice(8, up, down, out + ch, slice, taps + ch, channels, cells, 0, lanes(channels - ch), 0,
                       (const char *)ahead, from, bytes);
        }
    }
}

void pecert__fast_peg_row3_avx2(float *out, const float *const *src, const float *taps, int64_t channels,
                                int64_t cells, int stream, const float *ahead)
{
    PECERT__FAST_BY_ROWS_PRESENT(row3, src, out, src, taps, channels, cells, stream, ahead);
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
