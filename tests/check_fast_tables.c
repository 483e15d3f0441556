/*
 * check_fast_tables.c - fast's table and index ops as they are written for
 * speed (family/rows.c, scalar/index.c and its ISA builds, t5.c's
 * thresholds) against their promises:
 *   - every ISA variant and 1, 2 and 3 threads give the scalar variant's
 *     bits, and where the values are integers or copies, ref's too:
 *     sinusoidal (every variant, f32 and f64, positions past 2^36 rad
 *     where the far reduction takes over, FAIRSEQ's padding rows),
 *     txl_pos_emb (clamped), sincos_2d (class token, both layouts), swin_index,
 *     shaw_index and t5_bucket (i32 and i64), learned_lookup,
 *     txl_rel_shift, pos_interpolate, peg_apply, relpos2d_bias, deberta_bias and sine2d (a transposed
 *     output too; sine2d's tables and its pixel-by-pixel path equal to
 *     ref's bits), each large enough to run threaded; mrope_index (masked
 *     too) and rope2d_index, equal to ref's;
 *   - an output whose rows share elements is written in row order, as
 *     ref writes it;
 *   - outputs of 8 MiB or more (streaming stores), at row starts 0, 1
 *     and 2 floats past a line, equal the rows of calls too small to
 *     stream;
 *   - T5's threshold rows (calls of >= 4096 distances) give the bucket
 *     function's own value for every distance: the same call cut into
 *     short ones (which evaluate it per distance) and ref agree, over
 *     dense ranges and around every bucket edge up to 2^52, for 4 to 128
 *     buckets, both directions.
 * The conformance checks hold the same ops to the official vectors.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast_handle.h"
#include "suites.h"

/* One op call on a handle, into out (bytes), from a case's arguments. */
typedef struct table_case {
    const char *name;
    size_t bytes;
    pecert_status (*run)(const fast_handle *f, const struct table_case *c, void *out);
    int variant;      /* the op's own switch (variant, dtype, ...)         */
    int exact;        /* integers or copies: ref's bits too                */
} table_case;

static pecert_tensor matrix(void *data, pecert_dtype dtype, int64_t rows, int64_t cols)
{
    return (pecert_tensor){sizeof(pecert_tensor), dtype, 2, 0, data, {rows, cols}, {cols, 1}};
}

/* sinusoidal: variant = 4 * (f64) + PECERT_SINUSOIDAL_*. 700 positions:
 * 0.., a jump to 2^40 + k (far angles at the low channels), and for
 * FAIRSEQ a -1 (padding) every 50th. */
#define SIN_ROWS 700
#define SIN_DIM 514
static pecert_status run_sinusoidal(const fast_handle *f, const table_case *c, void *out)
{
    static int64_t positions[SIN_ROWS];
    int variant = c->variant % 4;
    pecert_dtype dtype = c->variant >= 4 ? PECERT_DTYPE_F64 : PECERT_DTYPE_F32;
    pecert_tensor t = matrix(out, dtype, SIN_ROWS, SIN_DIM);
    pecert_sinusoidal_args a = {.struct_size = sizeof(a), .variant = variant, .dim = SIN_DIM,
                                .padding_idx = variant == PECERT_SINUSOIDAL_FAIRSEQ ? 1 : -1, .base = 10000.0,
                                .positions = positions, .n = SIN_ROWS, .out = &t};

    for (int64_t i = 0; i < SIN_ROWS; i++) {
        positions[i] = i < 600 ? i : ((int64_t)1 << 40) + i;
        if (variant == PECERT_SINUSOIDAL_FAIRSEQ && i % 50 == 7) {
            positions[i] = -1;
        }
    }
    return f->plugin.desc->sinusoidal(f->instance, &a);
}

/* txl_pos_emb: klen 900, d_model 512, clamp 700; variant 1 = f64. */
static pecert_status run_txl(const fast_handle *f, const table_case *c, void *out)
{
    pecert_tensor t = matrix(out, c->variant ? PECERT_DTYPE_F64 : PECERT_DTYPE_F32, 900, 512);
    pecert_txl_pos_emb_args a = {.struct_size = sizeof(a), .d_model = 512, .klen = 900, .clamp_len = 700, .out = &t};

    return f->plugin.desc->txl_pos_emb(f->instance, &a);
}

/* sincos_2d: a 30 x 20 grid of 512 channels and a class token; variant
 * 2 * layout + (f64). */
static pecert_status run_sincos2d(const fast_handle *f, const table_case *c, void *out)
{
    pecert_tensor t = matrix(out, c->variant % 2 ? PECERT_DTYPE_F64 : PECERT_DTYPE_F32, 1 + 30 * 20, 512);
    pecert_sincos2d_args a = {.struct_size = sizeof(a), .embed_dim = 512, .grid_h = 30, .grid_w = 20,
                              .cls_token = 1, .layout = c->variant / 2, .base = 10000.0, .out = &t};

    return f->plugin.desc->sincos_2d(f->instance, &a);
}

/* swin_index: a 37 x 19 window (703 tokens). */
static pecert_status run_swin(const fast_handle *f, const table_case *c, void *out)
{
    pecert_tensor t = matrix(out, c->variant ? PECERT_DTYPE_I64 : PECERT_DTYPE_I32, 37 * 19, 37 * 19);
    pecert_swin_index_args a = {.struct_size = sizeof(a), .window_h = 37, .window_w = 19, .out = &t};

    return f->plugin.desc->swin_index(f->instance, &a);
}

/* shaw_index: 500 queries at 3 + 2i, 700 keys at i, K 9. */
static pecert_status run_shaw(const fast_handle *f, const table_case *c, void *out)
{
    static int64_t q[500], k[700];
    pecert_tensor t = matrix(out, c->variant ? PECERT_DTYPE_I64 : PECERT_DTYPE_I32, 500, 700);
    pecert_shaw_index_args a = {.struct_size = sizeof(a), .max_relative_position = 9, .q_positions = q, .n_q = 500,
                                .k_positions = k, .n_k = 700, .out = &t};

    for (int64_t i = 0; i < 700; i++) {
        k[i] = i;
    }
    for (int64_t i = 0; i < 500; i++) {
        q[i] = 3 + 2 * i;
    }
    return f->plugin.desc->shaw_index(f->instance, &a);
}

/* t5_bucket: 300007 distances -70000 .. 229990, then -8 .. 6 (not a
 * multiple of 16: the SIMD counts' last distances go through the portable
 * loop, where the buckets still differ from one distance to the next); variant
 * bit 0 = i64, bit 1 = causal; bit 2: 2.2 M distances (-1.1 M .. 1.1 M:
 * 8.4 MiB of i32, streamed) into 64 buckets over 1000 (15 thresholds:
 * AVX2's 16-lane edge set). */
#define T5_N 300007
#define T5_BIG 2200000
static pecert_status run_t5(const fast_handle *f, const table_case *c, void *out)
{
    static int64_t rel[T5_BIG];
    int big = (c->variant & 4) != 0;
    int64_t shape = big ? T5_BIG : T5_N;
    pecert_tensor t = {sizeof(pecert_tensor), c->variant & 1 ? PECERT_DTYPE_I64 : PECERT_DTYPE_I32, 1, 0, out,
                       {shape}, {1}};
    pecert_t5_bucket_args a = {.struct_size = sizeof(a), .bidirectional = !(c->variant & 2),
                               .num_buckets = big ? 64 : 32, .max_distance = big ? 1000 : 128,
                               .relative_positions = rel, .n = shape, .out = &t};

    for (int64_t i = 0; i < shape; i++) {
        rel[i] = big ? i - T5_BIG / 2 : i < shape - 15 ? i - 70000 : i - (shape - 15) - 8;
    }
    return f->plugin.desc->t5_bucket(f->instance, &a);
}

/* learned_lookup: a [1000, 300] table gathered at 1000 positions (i * 7
 * mod 1000); variant 1 = PADDING_OFFSET with padding_idx 1 and -1s. */
static pecert_status run_learned(const fast_handle *f, const table_case *c, void *out)
{
    static float table[1000 * 300];
    static int64_t positions[1000];
    pecert_tensor tt = matrix(table, PECERT_DTYPE_F32, 1000, 300);
    pecert_tensor t = matrix(out, PECERT_DTYPE_F32, 1000, 300);
    pecert_learned_args a = {.struct_size = sizeof(a), .convention = c->variant, .padding_idx = c->variant ? 1 : -1,
                             .table = &tt, .positions = positions, .n = 1000, .out = &t};

    for (int64_t i = 0; i < 1000 * 300; i++) {
        table[i] = (float)i;
    }
    for (int64_t i = 0; i < 1000; i++) {
        positions[i] = c->variant ? (i % 9 == 4 ? -1 : i * 7 % 990) : i * 7 % 1000;
    }
    return f->plugin.desc->learned_lookup(f->instance, &a);
}

/* txl_rel_shift of [100, 300, 10] scores; variant 1 = zero_triu. */
static pecert_status run_rel_shift(const fast_handle *f, const table_case *c, void *out)
{
    static float x[100 * 300 * 10];
    pecert_tensor tx = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, x, {100, 300, 10}, {3000, 10, 1}};
    pecert_tensor t = tx;
    pecert_txl_rel_shift_args a = {.struct_size = sizeof(a), .zero_triu = c->variant, .x = &tx, .out = &t};

    t.data = out;
    for (int64_t i = 0; i < 100 * 300 * 10; i++) {
        x[i] = (float)i;
    }
    return f->plugin.desc->txl_rel_shift(f->instance, &a);
}

/* pos_interpolate: a 20 x 20 grid of 300 channels and a class row to 40 x
 * 36; variant 0 bicubic, 1 bilinear with antialias (downsampling to 9 x 7
 * of the same bytes is too small to thread: upsampled both), 2 bicubic to
 * 120 x 96, 13 MiB: streamed out from each thread's accumulator. */
static pecert_status run_posinterp(const fast_handle *f, const table_case *c, void *out)
{
    static float table[(1 + 20 * 20) * 300];
    int64_t out_h = c->variant == 2 ? 120 : 40, out_w = c->variant == 2 ? 96 : 36;
    pecert_tensor tt = matrix(table, PECERT_DTYPE_F32, 1 + 20 * 20, 300);
    pecert_tensor t = matrix(out, PECERT_DTYPE_F32, 1 + out_h * out_w, 300);
    pecert_posinterp_args a = {.struct_size = sizeof(a), .mode = c->variant == 1 ? PECERT_POSINTERP_BILINEAR
                                                                                   : PECERT_POSINTERP_BICUBIC,
                               .antialias = c->variant == 1, .prefix_tokens = 1, .merge_size = 1, .grid_h = 20,
                               .grid_w = 20, .out_h = out_h, .out_w = out_w, .table = &tt, .out = &t};
    uint64_t state = 5;

    for (size_t i = 0; i < ARRAY_LEN(table); i++) {
        table[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
    }
    return f->plugin.desc->pos_interpolate(f->instance, &a);
}

/* rope2d_apply over a 48 x 64 image (positions row-major, the last 64
 * tokens' columns jumping far in variant 0: per-token rows) of 8 heads x
 * 128 channels: variant 0 split-half blocks out of place, 12.25 MiB
 * (streamed), 1 interleaved alternate in place (x copied into out first;
 * both axes from tables), 2 variant 0 on 256 x 64 tokens and a row more,
 * 64 MiB and a token: one thread then rotates four ranges in turn, each
 * starting mid-token. */
#define R2D_TOKENS (49 * 64)
#define R2D_BIG (256 * 64 + 1)
static pecert_status run_rope2d_apply(const fast_handle *f, const table_case *c, void *out)
{
    static float x[R2D_BIG * 8 * 128];
    static int64_t pos[2 * R2D_BIG];
    int64_t tokens = c->variant == 2 ? R2D_BIG : R2D_TOKENS;
    pecert_tensor tx = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, x, {tokens, 8, 128}, {8 * 128, 128, 1}};
    pecert_tensor to = tx;
    pecert_rope2d_apply_args a = {.struct_size = sizeof(a), .pairing = c->variant == 1 ? PECERT_PAIRING_INTERLEAVED
                                                                                        : PECERT_PAIRING_SPLIT_HALF,
                                  .frequencies = c->variant == 1 ? PECERT_ROPE2D_ALTERNATE : PECERT_ROPE2D_BLOCKS,
                                  .head_dim = 128, .theta = 10000.0, .positions = pos, .x = &tx, .out = &to};
    uint64_t state = 11;

    for (size_t i = 0; i < (size_t)tokens * 8 * 128; i++) {
        x[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
    }
    for (int64_t t = 0; t < tokens; t++) {
        pos[t] = t / 64;
        pos[tokens + t] = t >= tokens - 64 && c->variant != 1 ? ((int64_t)1 << 40) + 977 * t : t % 64;
    }
    to.data = out;
    if (c->variant == 1) {
        memcpy(out, x, (size_t)tokens * 8 * 128 * sizeof(float));
        a.x = &to;
    }
    return f->plugin.desc->rope2d_apply(f->instance, &a);
}

/* peg_apply on eight grids, each with a class row: variant 0 a 5 x 5
 * filter over 40 x 40 cells of 500 channels (past a 384-channel pass and a
 * 128-channel register block, a masked tail), 1 the same into a
 * transposed out; the 3 x 3 filters that AVX2 and AVX-512 sweep along a
 * row, its edge cells and the grid's top and bottom rows with the taps
 * inside the grid (peg_row3): 2 over 37 x 43 cells of 500 channels (a
 * masked slice), 3 over 64 x 64 cells of 768 (12 MiB: streamed), 4 a grid
 * of one inner row (3 x 200) of 508 channels (AVX2's 16-channel slices,
 * then one of 8 and a masked one), 5 of one inner column (200 x 3), 6 a
 * grid of one row (1 x 600: neither above nor below), 7 of one column
 * (600 x 1: a row of one cell). */
static const struct peg_grid {
    int64_t h, w, kernel, channels;
} peg_grids[] = {{40, 40, 5, 500}, {40, 40, 5, 500}, {37, 43, 3, 500}, {64, 64, 3, 768}, {3, 200, 3, 508},
                 {200, 3, 3, 500}, {1, 600, 3, 500}, {600, 1, 3, 500}};
static pecert_status run_peg(const fast_handle *f, const table_case *c, void *out)
{
    static float x[(1 + 64 * 64) * 768], w[768 * 25], b[768];
    const struct peg_grid *g = &peg_grids[c->variant];
    int64_t rows = 1 + g->h * g->w, ch = g->channels;
    pecert_tensor tx = matrix(x, PECERT_DTYPE_F32, rows, ch);
    pecert_tensor tw = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, w, {ch, g->kernel, g->kernel},
                        {g->kernel * g->kernel, g->kernel, 1}};
    pecert_tensor tb = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 1, 0, b, {ch}, {1}};
    pecert_tensor t = c->variant == 1 ? (pecert_tensor){sizeof(pecert_tensor), PECERT_DTYPE_F32, 2, 0, out,
                                                        {rows, ch}, {1, rows}}
                                      : matrix(out, PECERT_DTYPE_F32, rows, ch);
    pecert_peg_args a = {.struct_size = sizeof(a), .prefix_tokens = 1, .grid_h = g->h, .grid_w = g->w,
                         .kernel = g->kernel, .x = &tx, .weight = &tw, .bias = &tb, .out = &t};
    uint64_t state = 9;

    for (int64_t i = 0; i < rows * ch; i++) {
        x[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
    }
    for (int64_t i = 0; i < ch * g->kernel * g->kernel; i++) {
        w[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
    }
    for (int64_t i = 0; i < ch; i++) {
        b[i] = (float)i;
    }
    return f->plugin.desc->peg_apply(f->instance, &a);
}

/* relpos2d_bias: variant 0 eight heads of 14 x 13 queries on 14 x 13 keys,
 * C 80 (the groups of four queries of a grid row end one short; a dot's
 * 16 lanes past 64 channels masked), tables of 20 and 31 rows (resized);
 * 1 the same into a transposed out (element by element); 2 one head of 40
 * x 40 on 40 x 40, C 64, 10 MiB (streamed, k_w 40: built in L1, copied);
 * 3 one head of 32 x 32 on 48 x 48, C 64, tables of 79 rows resized to
 * 95, 9 MiB (streamed, k_w 48: summed by outer_sum_stream). */
static const struct relpos2d_grid {
    int64_t n, q_h, q_w, k_h, k_w, c, rows_h, rows_w;
} relpos2d_grids[] = {{8, 14, 13, 14, 13, 80, 20, 31}, {8, 14, 13, 14, 13, 80, 20, 31},
                      {1, 40, 40, 40, 40, 64, 79, 79}, {1, 32, 32, 48, 48, 64, 79, 79}};
static pecert_status run_relpos2d(const fast_handle *f, const table_case *c, void *out)
{
    static float query[1600 * 80], rel_h[79 * 80], rel_w[79 * 80];
    const struct relpos2d_grid *g = &relpos2d_grids[c->variant];
    int64_t tq = g->q_h * g->q_w, tk = g->k_h * g->k_w;
    pecert_tensor tx = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, query, {g->n, tq, g->c}, {tq * g->c, g->c, 1}};
    pecert_tensor th = matrix(rel_h, PECERT_DTYPE_F32, g->rows_h, g->c);
    pecert_tensor tw = matrix(rel_w, PECERT_DTYPE_F32, g->rows_w, g->c);
    pecert_tensor t = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, out, {g->n, tq, tk}, {tq * tk, tk, 1}};
    uint64_t state = 11;

    if (c->variant == 1) {
        t.strides[1] = 1;
        t.strides[2] = tq;
    }
    for (size_t i = 0; i < ARRAY_LEN(query); i++) {
        query[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
    }
    for (size_t i = 0; i < ARRAY_LEN(rel_h); i++) {
        rel_h[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
        rel_w[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
    }
    pecert_relpos2d_args a = {.struct_size = sizeof(a), .q_h = g->q_h, .q_w = g->q_w, .k_h = g->k_h,
                              .k_w = g->k_w, .query = &tx, .rel_pos_h = &th, .rel_pos_w = &tw, .out = &t};
    return f->plugin.desc->relpos2d_bias(f->instance, &a);
}

/* deberta_bias over 4 heads of 260 tokens, d 72 (a dot's 16 lanes past 64
 * masked): variant 0 both terms, buckets of 64 (rows of 128), two table
 * heads; 1 the same from channel-strided q and k (transposed [n, d, L]
 * storage), a strided table (rows 2 d apart) and a transposed out; 2 p2c
 * alone, no buckets (max_position 300: the runs clamp at the table's
 * ends). */
#define DEB_N 4
#define DEB_L 260
#define DEB_D 72
static pecert_status run_deberta(const fast_handle *f, const table_case *c, void *out)
{
    static float q[DEB_N * DEB_L * DEB_D], k[DEB_N * DEB_L * DEB_D], tables[2][2 * 600 * 2 * DEB_D];
    int strided = c->variant == 1;
    int64_t span = c->variant == 2 ? 300 : 64, rows = 2 * span, heads = 2, row_stride = strided ? 2 * DEB_D : DEB_D;
    pecert_tensor tq = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, q, {DEB_N, DEB_L, DEB_D},
                        {DEB_L * DEB_D, strided ? 1 : DEB_D, strided ? DEB_L : 1}};
    pecert_tensor tk = tq;
    pecert_tensor tt[2];
    pecert_tensor t = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, out, {DEB_N, DEB_L, DEB_L},
                       {DEB_L * DEB_L, strided ? 1 : DEB_L, strided ? DEB_L : 1}};
    uint64_t state = 13;

    tk.data = k;
    for (int i = 0; i < 2; i++) {
        tt[i] = (pecert_tensor){sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, tables[i], {heads, rows, DEB_D},
                                {rows * row_stride, row_stride, 1}};
    }
    for (size_t i = 0; i < ARRAY_LEN(q); i++) {
        q[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
        k[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
    }
    for (size_t i = 0; i < ARRAY_LEN(tables[0]); i++) {
        tables[0][i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
        tables[1][i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-52 - 0.5);
    }
    pecert_deberta_args a = {.struct_size = sizeof(a),
                             .terms = c->variant == 2 ? PECERT_DEBERTA_P2C : PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C,
                             .bucket_size = c->variant == 2 ? 0 : 64, .max_position = c->variant == 2 ? 300 : 512,
                             .q = &tq, .k = &tk, .pos_key = c->variant == 2 ? NULL : &tt[0], .pos_query = &tt[1],
                             .out = &t};
    return f->plugin.desc->deberta_bias(f->instance, &a);
}

/* sine2d: variant 0 a DETR batch's padded map (100 x 134, the image 83 x
 * 120: two totals per axis, tables), streamed; 1 a staircase (64 x 64,
 * pixel (r, c) valid for r <= c: every line a total of its own, 1..64,
 * whose tables, 2144 rows an axis, would outgrow half the map's 4096
 * pixels: pixel by pixel); 2 a padded 45 x 50 map into a transposed
 * output, Deformable DETR's offset. */
static const struct sine2d_map {
    int64_t h, w, image_h, image_w, f;
} sine2d_maps[] = {{100, 134, 83, 120, 128}, {64, 64, 0, 0, 64}, {45, 50, 40, 31, 64}};
static pecert_status run_sine2d(const fast_handle *f, const table_case *c, void *out)
{
    static int64_t mask[100 * 134];
    const struct sine2d_map *m = &sine2d_maps[c->variant];
    int64_t rows = m->h * m->w, cols = 2 * m->f;
    for (int64_t i = 0; i < rows; i++) {
        mask[i] = m->image_h > 0 ? (i / m->w < m->image_h && i % m->w < m->image_w) : i / m->w <= i % m->w;
    }
    pecert_tensor tm = matrix(mask, PECERT_DTYPE_I64, m->h, m->w);
    pecert_tensor t = c->variant == 2 ? (pecert_tensor){sizeof(pecert_tensor), PECERT_DTYPE_F32, 2, 0, out,
                                                        {rows, cols}, {1, rows}}
                                      : matrix(out, PECERT_DTYPE_F32, rows, cols);
    pecert_sine2d_args a = {.struct_size = sizeof(a), .num_pos_feats = (int32_t)m->f, .normalize = 1,
                            .temperature_y = 10000.0, .temperature_x = c->variant == 1 ? 20.0 : 10000.0,
                            .scale = 2 * M_PI, .offset = c->variant == 2 ? -0.5 : 0.0, .eps = 1e-6,
                            .mask = &tm, .out = &t};
    return f->plugin.desc->sine2d(f->instance, &a);
}

/* mrope_index: 2 prompts of 3000 tokens, each text, a vision start, an
 * image of 32 x 48 patches merged 2 x 2 (384 tokens), text; variant 1 masks
 * the first 10 tokens of the second prompt (the generic store path). */
static pecert_status run_mrope_index(const fast_handle *f, const table_case *c, void *out)
{
    static int64_t ids[2 * 3000], mask[2 * 3000], deltas[2];
    static const int64_t grid[6] = {1, 32, 48, 1, 32, 48};
    pecert_tensor pos = {sizeof(pecert_tensor), PECERT_DTYPE_I64, 3, 0, out, {3, 2, 3000}, {6000, 3000, 1}};
    pecert_tensor d = {sizeof(pecert_tensor), PECERT_DTYPE_I64, 1, 0, deltas, {2}, {1}};
    pecert_mrope_index_args a = {.struct_size = sizeof(a), .spatial_merge_size = 2, .image_token_id = 151655,
                                 .video_token_id = 151656, .vision_start_token_id = 151652, .batch = 2,
                                 .seq_len = 3000, .input_ids = ids, .attention_mask = c->variant ? mask : NULL,
                                 .image_grid_thw = grid, .n_images = 2, .out_position_ids = &pos, .out_deltas = &d};

    for (int64_t i = 0; i < 2 * 3000; i++) {
        int64_t t = i % 3000 - (c->variant && i >= 3000 ? 10 : 0);

        ids[i] = t == 50 ? 151652 : (t > 50 && t <= 434 ? 151655 : 1000 + i % 77);
        mask[i] = !(c->variant && i >= 3000 && i < 3010);
    }
    return f->plugin.desc->mrope_index(f->instance, &a);
}

/* rope2d_index: a 64 x 96 image in 2 x 2 merge windows, then a 2-frame
 * 16 x 16 video. */
static pecert_status run_rope2d_index(const fast_handle *f, const table_case *c, void *out)
{
    static const int64_t grid[6] = {1, 64, 96, 2, 16, 16};
    pecert_tensor t = {sizeof(pecert_tensor), PECERT_DTYPE_I64, 2, 0, out, {2, 64 * 96 + 512}, {64 * 96 + 512, 1}};
    pecert_rope2d_index_args a = {.struct_size = sizeof(a), .scheme = PECERT_ROPE2D_MERGE_WINDOWS,
                                  .spatial_merge_size = 2, .grid_thw = grid, .n_images = 2, .out_positions = &t};

    (void)c;
    return f->plugin.desc->rope2d_index(f->instance, &a);
}

static const table_case cases[] = {
    {"mrope_index", 3 * 2 * 3000 * 8, run_mrope_index, 0, 1},
    {"mrope_index, masked", 3 * 2 * 3000 * 8, run_mrope_index, 1, 1},
    {"rope2d_index", 2 * (64 * 96 + 512) * 8, run_rope2d_index, 0, 1},
    {"pos_interpolate bicubic", (1 + 40 * 36) * 300 * 4, run_posinterp, 0, 0},
    {"pos_interpolate bilinear antialias", (1 + 40 * 36) * 300 * 4, run_posinterp, 1, 0},
    {"pos_interpolate bicubic, streamed", (1 + 120 * 96) * 300 * 4, run_posinterp, 2, 0},
    {"rope2d_apply split-half, streamed", R2D_TOKENS * 8 * 128 * 4, run_rope2d_apply, 0, 0},
    {"rope2d_apply interleaved, in place", R2D_TOKENS * 8 * 128 * 4, run_rope2d_apply, 1, 0},
    {"rope2d_apply split-half, four ranges", (size_t)R2D_BIG * 8 * 128 * 4, run_rope2d_apply, 2, 0},
    {"peg_apply 5 x 5", (1 + 40 * 40) * 500 * 4, run_peg, 0, 0},
    {"peg_apply 5 x 5, transposed out", (1 + 40 * 40) * 500 * 4, run_peg, 1, 0},
    {"peg_apply 3 x 3, swept", (1 + 37 * 43) * 500 * 4, run_peg, 2, 0},
    {"peg_apply 3 x 3, swept and streamed", (1 + 64 * 64) * 768 * 4, run_peg, 3, 0},
    {"peg_apply 3 x 3, one inner row", (1 + 3 * 200) * 508 * 4, run_peg, 4, 0},
    {"peg_apply 3 x 3, one inner column", (1 + 200 * 3) * 500 * 4, run_peg, 5, 0},
    {"peg_apply 3 x 3, a grid of one row", (1 + 1 * 600) * 500 * 4, run_peg, 6, 0},
    {"peg_apply 3 x 3, a grid of one column", (1 + 600 * 1) * 500 * 4, run_peg, 7, 0},
    {"relpos2d_bias 14 x 13, C 80", 8 * 182 * 182 * 4, run_relpos2d, 0, 0},
    {"relpos2d_bias transposed out", 8 * 182 * 182 * 4, run_relpos2d, 1, 0},
    {"relpos2d_bias 40 x 40, streamed", 1600 * 1600 * 4, run_relpos2d, 2, 0},
    {"relpos2d_bias 32 x 32 on 48 x 48, streamed sums", 1024 * 2304 * 4, run_relpos2d, 3, 0},
    {"deberta_bias c2p + p2c, buckets", DEB_N * DEB_L * DEB_L * 4, run_deberta, 0, 0},
    {"deberta_bias strided views", DEB_N * DEB_L * DEB_L * 4, run_deberta, 1, 0},
    {"deberta_bias p2c, no buckets", DEB_N * DEB_L * DEB_L * 4, run_deberta, 2, 0},
    {"sine2d padded map, streamed", 100 * 134 * 256 * 4, run_sine2d, 0, 1},
    {"sine2d staircase mask, pixel by pixel", 64 * 64 * 128 * 4, run_sine2d, 1, 1},
    {"sine2d transposed out, offset", 45 * 50 * 128 * 4, run_sine2d, 2, 1},
    {"learned_lookup plain", 1000 * 300 * 4, run_learned, 0, 1},
    {"learned_lookup padding offset", 1000 * 300 * 4, run_learned, 1, 1},
    {"txl_rel_shift", 100 * 300 * 10 * 4, run_rel_shift, 0, 1},
    {"txl_rel_shift zero_triu", 100 * 300 * 10 * 4, run_rel_shift, 1, 1},
    {"sinusoidal interleaved f32", SIN_ROWS * SIN_DIM * 4, run_sinusoidal, PECERT_SINUSOIDAL_INTERLEAVED, 0},
    {"sinusoidal concat f32", SIN_ROWS * SIN_DIM * 4, run_sinusoidal, PECERT_SINUSOIDAL_CONCAT, 0},
    {"sinusoidal fairseq f32", SIN_ROWS * SIN_DIM * 4, run_sinusoidal, PECERT_SINUSOIDAL_FAIRSEQ, 0},
    {"sinusoidal t2t f64", SIN_ROWS * SIN_DIM * 8, run_sinusoidal, 4 + 2, 0},
    {"sinusoidal interleaved f64", SIN_ROWS * SIN_DIM * 8, run_sinusoidal, 4 + PECERT_SINUSOIDAL_INTERLEAVED, 0},
    {"txl_pos_emb f32", 900 * 512 * 4, run_txl, 0, 0},
    {"txl_pos_emb f64", 900 * 512 * 8, run_txl, 1, 0},
    {"sincos_2d f32", 601 * 512 * 4, run_sincos2d, 0, 0},
    {"sincos_2d f64", 601 * 512 * 8, run_sincos2d, 1, 0},
    {"sincos_2d rt_detr f32", 601 * 512 * 4, run_sincos2d, 2 * PECERT_SINCOS2D_RT_DETR, 0},
    {"swin_index i32", 703 * 703 * 4, run_swin, 0, 1},
    {"swin_index i64", 703 * 703 * 8, run_swin, 1, 1},
    {"shaw_index i32", 500 * 700 * 4, run_shaw, 0, 1},
    {"shaw_index i64", 500 * 700 * 8, run_shaw, 1, 1},
    {"t5_bucket bidirectional i32", T5_N * 4, run_t5, 0, 1},
    {"t5_bucket causal i64", T5_N * 8, run_t5, 3, 1},
    {"t5_bucket bidirectional i32, 15 thresholds, streamed", T5_BIG * 4, run_t5, 4, 1},
};

START_TEST(every_isa_and_thread_count_gives_the_scalar_bits)
{
    const table_case *c = &cases[_i];
    /* 64-byte aligned, as streaming stores want (a byte count they round) */
    unsigned char *want = aligned_alloc(64, (c->bytes + 63) / 64 * 64);
    unsigned char *got = aligned_alloc(64, (c->bytes + 63) / 64 * 64);
    fast_handle f;

    ck_assert(want != NULL && got != NULL);
    ck_assert_msg(c->bytes >= ((size_t)1 << 20) || c->run == run_mrope_index || c->run == run_rope2d_index,
                  "%s: too small to run threaded", c->name);
    ck_assert_int_eq(fast_open(&f, "scalar"), PECERT_OK);
    ck_assert_int_eq(f.plugin.desc->set_num_threads(f.instance, 1), PECERT_OK);
    ck_assert_msg(c->run(&f, c, want) == PECERT_OK, "%s: %s", c->name, f.plugin.desc->last_error(f.instance));
    fast_close(&f);
    if (c->exact) {
        fast_handle ref;

        builtin_open(&ref, "ref");
        memset(got, 0xa5, c->bytes);
        ck_assert_int_eq(c->run(&ref, c, got), PECERT_OK);
        ck_assert_msg(memcmp(want, got, c->bytes) == 0, "%s: fast's values differ from ref's", c->name);
        builtin_close(&ref);
    }
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        if (fast_open(&f, fast_isas[i]) != PECERT_OK) {
            fast_close(&f); /* this CPU lacks it */
            continue;
        }
        for (int threads = 1; threads <= 3; threads++) {
            memset(got, 0xa5, c->bytes);
            ck_assert_int_eq(f.plugin.desc->set_num_threads(f.instance, threads), PECERT_OK);
            ck_assert_int_eq(c->run(&f, c, got), PECERT_OK);
            ck_assert_msg(memcmp(want, got, c->bytes) == 0, "%s: PECERT_ISA=%s with %d threads changes bits",
                          c->name, fast_isas[i], threads);
        }
        fast_close(&f);
    }
    free(want);
    free(got);
}
END_TEST

/* An output whose rows share elements (strides {1, 1}: element i + j) is
 * written row after row on one thread, as ref writes it: the same last
 * writes. 500 x 700 indices, large enough that a disjoint view would be
 * threaded. */
START_TEST(rows_that_share_elements_are_written_in_row_order)
{
    static int64_t q[500], k[700];
    int32_t got[1199], want[1199];
    fast_handle f, ref;

    for (int64_t i = 0; i < 700; i++) {
        k[i] = 5 * i;
    }
    for (int64_t i = 0; i < 500; i++) {
        q[i] = 7 * i;
    }
    builtin_open(&ref, "ref");
    ck_assert_int_eq(fast_open(&f, NULL), PECERT_OK);
    ck_assert_int_eq(f.plugin.desc->set_num_threads(f.instance, 2), PECERT_OK);
    for (int side = 0; side < 2; side++) {
        const fast_handle *h = side ? &f : &ref;
        pecert_tensor t = {sizeof(pecert_tensor), PECERT_DTYPE_I32, 2, 0, side ? got : want, {500, 700}, {1, 1}};
        pecert_shaw_index_args a = {.struct_size = sizeof(a), .max_relative_position = 300, .q_positions = q,
                                    .n_q = 500, .k_positions = k, .n_k = 700, .out = &t};

        ck_assert_msg(h->plugin.desc->shaw_index(h->instance, &a) == PECERT_OK, "%s",
                      h->plugin.desc->last_error(h->instance));
    }
    ck_assert_msg(memcmp(got, want, sizeof(got)) == 0, "fast's last writes differ from ref's");
    fast_close(&f);
    builtin_close(&ref);
}
END_TEST

/* Outputs of 8 MiB or more are written with streaming stores (plain ones
 * up to a row's first vector boundary; rows on a line one step from the
 * last stepped and streamed in one pass): at a row start 0, 1 and 2
 * floats past a 64-byte boundary, large sinusoidal tables (interleaved,
 * halves) and a lookup equal the same rows made by calls too small to
 * stream, and a Transformer-XL table its rows made unfused. */
#define BIG_ROWS 3200
#define BIG_DIM 1024
static void big_call(const fast_handle *f, int op, int64_t first, int64_t rows, float *out, int64_t *positions,
                     const float *table)
{
    pecert_tensor t = matrix(out, PECERT_DTYPE_F32, rows, BIG_DIM);
    pecert_tensor tt = matrix((void *)(uintptr_t)table, PECERT_DTYPE_F32, BIG_ROWS, BIG_DIM);
    pecert_status st;

    for (int64_t i = 0; i < rows; i++) {
        positions[i] = first + i;
    }
    if (op == 0) {
        pecert_sinusoidal_args a = {.struct_size = sizeof(a), .variant = PECERT_SINUSOIDAL_INTERLEAVED,
                                    .dim = BIG_DIM, .padding_idx = -1, .base = 10000.0, .positions = positions,
                                    .n = rows, .out = &t};
        st = f->plugin.desc->sinusoidal(f->instance, &a);
    } else if (op == 1) {
        pecert_sinusoidal_args a = {.struct_size = sizeof(a), .variant = 2, .dim = BIG_DIM, .padding_idx = -1,
                                    .base = 10000.0, .positions = positions, .n = rows, .out = &t};
        st = f->plugin.desc->sinusoidal(f->instance, &a);
    } else if (op == 2) {
        pecert_learned_args a = {.struct_size = sizeof(a), .padding_idx = -1, .table = &tt, .positions = positions,
                                 .n = rows, .out = &t};
        st = f->plugin.desc->learned_lookup(f->instance, &a);
    } else {
        pecert_txl_pos_emb_args a = {.struct_size = sizeof(a), .d_model = BIG_DIM, .klen = rows, .out = &t};
        st = f->plugin.desc->txl_pos_emb(f->instance, &a);
    }
    ck_assert_msg(st == PECERT_OK, "%s", f->plugin.desc->last_error(f->instance));
}

START_TEST(streamed_rows_equal_plain_rows)
{
    size_t n = (size_t)BIG_ROWS * BIG_DIM;
    float *buffer = aligned_alloc(64, (n + 64) * sizeof(float));
    float *plain = malloc(n * sizeof(float));
    float *table = malloc(n * sizeof(float));
    int64_t *positions = malloc(BIG_ROWS * sizeof(int64_t));
    fast_handle f;

    ck_assert(buffer != NULL && plain != NULL && table != NULL && positions != NULL);
    ck_assert(n * sizeof(float) >= ((size_t)12 << 20));
    for (size_t i = 0; i < n; i++) {
        table[i] = (float)i;
    }
    ck_assert_int_eq(fast_open(&f, NULL), PECERT_OK);
    for (int op = 0; op < 4; op++) {
        /* 96 rows a call: 384 KiB, never streamed; a multiple of the
         * table rows' anchor spacing (32), so every row is made by the
         * same steps as in the one large call. A Transformer-XL table has
         * no partial call: its reference is the large call a float past
         * a line, where no row may take the fused step-and-stream
         * (table.c, pecert__fast_rows_step_out; rows on a line do). */
        for (int64_t r = 0; op < 3 && r < BIG_ROWS; r += 96) {
            big_call(&f, op, r, BIG_ROWS - r < 96 ? BIG_ROWS - r : 96, plain + r * BIG_DIM, positions, table);
        }
        if (op == 3) {
            big_call(&f, op, 0, BIG_ROWS, buffer + 1, positions, table);
            memcpy(plain, buffer + 1, n * sizeof(float));
        }
        for (int shift = 0; shift < 3; shift++) {
            memset(buffer, 0xa5, (n + 64) * sizeof(float));
            big_call(&f, op, 0, BIG_ROWS, buffer + shift, positions, table);
            ck_assert_msg(memcmp(buffer + shift, plain, n * sizeof(float)) == 0,
                          "op %d: a streamed output %d floats past a line differs from the plain one", op, shift);
            ck_assert_msg(shift == 0 || ((unsigned char *)buffer)[0] == 0xa5, "op %d wrote before its output", op);
        }
    }
    fast_close(&f);
    free(buffer);
    free(plain);
    free(table);
    free(positions);
}
END_TEST

/* Distances to try for one config: every r in [-3000, 3000], and r = +-(e +
 * d) for d in -2..2 around e = 2^k and 3 * 2^k up to 2^52 (bucket edges
 * of large max_distance fall between them; the dense range holds the
 * edges of small ones). */
static int64_t t5_distances(int64_t *out)
{
    int64_t n = 0;

    for (int64_t r = -3000; r <= 3000; r++) {
        out[n++] = r;
    }
    for (int k = 11; k <= 51; k++) {
        for (int64_t m = 1; m <= 3; m += 2) {
            for (int64_t d = -2; d <= 2; d++) {
                out[n++] = m * ((int64_t)1 << k) + d;
                out[n++] = -(m * ((int64_t)1 << k) + d);
            }
        }
    }
    return n;
}

static void t5_call(const fast_handle *f, const pecert_t5_bucket_args *base, const int64_t *rel, int64_t n,
                    int64_t *out)
{
    pecert_tensor t = {sizeof(pecert_tensor), PECERT_DTYPE_I64, 1, 0, out, {n}, {1}};
    pecert_t5_bucket_args a = *base;

    a.relative_positions = rel;
    a.n = n;
    a.out = &t;
    ck_assert_msg(f->plugin.desc->t5_bucket(f->instance, &a) == PECERT_OK, "%s",
                  f->plugin.desc->last_error(f->instance));
}

START_TEST(t5_threshold_rows_are_the_bucket_function)
{
    static const int32_t buckets[] = {4, 6, 32, 64, 128};
    static const int64_t distances[] = {128, 1000, 100000, (int64_t)1 << 40};
    int64_t *rel = malloc(8000 * sizeof(int64_t));
    int64_t *fast_rows = malloc(8000 * sizeof(int64_t));
    int64_t *fast_short = malloc(8000 * sizeof(int64_t));
    int64_t *oracle = malloc(8000 * sizeof(int64_t));
    int64_t n = t5_distances(rel);
    fast_handle f, ref;

    ck_assert(n >= 4096 && n <= 8000);
    ck_assert_int_eq(fast_open(&f, NULL), PECERT_OK);
    builtin_open(&ref, "ref");
    for (int dir = 0; dir < 2; dir++) {
        for (size_t b = 0; b < ARRAY_LEN(buckets); b++) {
            for (size_t m = 0; m < ARRAY_LEN(distances); m++) {
                pecert_t5_bucket_args a = {.struct_size = sizeof(a), .bidirectional = dir,
                                           .num_buckets = buckets[b], .max_distance = distances[m]};

                if (a.max_distance <= (dir ? buckets[b] / 4 : buckets[b] / 2)) {
                    continue;
                }
                t5_call(&f, &a, rel, n, fast_rows);
                for (int64_t i = 0; i < n; i += 1000) {
                    t5_call(&f, &a, rel + i, n - i < 1000 ? n - i : 1000, fast_short + i);
                }
                t5_call(&ref, &a, rel, n, oracle);
                for (int64_t i = 0; i < n; i++) {
                    ck_assert_msg(fast_rows[i] == fast_short[i] && fast_rows[i] == oracle[i],
                                  "%d buckets, max_distance %lld, %s: r = %lld gives %lld (rows), %lld (one by "
                                  "one), %lld (ref)",
                                  buckets[b], (long long)distances[m], dir ? "bidirectional" : "causal",
                                  (long long)rel[i], (long long)fast_rows[i], (long long)fast_short[i],
                                  (long long)oracle[i]);
                }
            }
        }
    }
    builtin_close(&ref);
    fast_close(&f);
    free(rel);
    free(fast_rows);
    free(fast_short);
    free(oracle);
}
END_TEST

/* Long position arrays are checked on threads, each share in four
 * quarters taken in turn (family/common.c): one value out of range is
 * found wherever it sits (each quarter's first and last, the remainder
 * past the quarters, a thread's share boundary), on 1, 2 and 3 threads,
 * and named with its index; nothing is written. */
START_TEST(long_position_checks_find_every_bad_value)
{
    const int64_t n = ((int64_t)1 << 20) + 1000; /* past RANGE_TURNS_MIN, a remainder */
    const int64_t quarter = n / 512 * 128;
    const int64_t spots[] = {0, quarter - 1, quarter, 2 * quarter + 5, 4 * quarter - 1, 4 * quarter, n / 2,
                             n / 3, n - 1};
    int64_t *rel = calloc((size_t)n, sizeof(int64_t));
    int32_t *out = malloc((size_t)n * sizeof(int32_t));
    pecert_tensor t = {sizeof(pecert_tensor), PECERT_DTYPE_I32, 1, 0, out, {n}, {1}};
    pecert_t5_bucket_args a = {.struct_size = sizeof(a), .bidirectional = 1, .num_buckets = 32, .max_distance = 128,
                               .relative_positions = rel, .n = n, .out = &t};
    fast_handle f;

    ck_assert(rel != NULL && out != NULL);
    ck_assert_int_eq(fast_open(&f, NULL), PECERT_OK);
    for (int threads = 1; threads <= 3; threads++) {
        ck_assert_int_eq(f.plugin.desc->set_num_threads(f.instance, threads), PECERT_OK);
        for (size_t k = 0; k < ARRAY_LEN(spots); k++) {
            char want[96];

            rel[spots[k]] = k % 2 ? (int64_t)1 << 53 : -((int64_t)1 << 53);
            memset(out, 0x5a, (size_t)n * sizeof(int32_t));
            ck_assert_int_eq(f.plugin.desc->t5_bucket(f.instance, &a), PECERT_E_INVAL);
            snprintf(want, sizeof(want), "relative_positions[%lld]=", (long long)spots[k]);
            ck_assert_msg(strstr(f.plugin.desc->last_error(f.instance), want) != NULL, "%d threads: %s", threads,
                          f.plugin.desc->last_error(f.instance));
            ck_assert(out[0] == 0x5a5a5a5a && out[n - 1] == 0x5a5a5a5a);
            rel[spots[k]] = 0;
        }
        ck_assert_int_eq(f.plugin.desc->t5_bucket(f.instance, &a), PECERT_OK);
    }
    fast_close(&f);
    free(rel);
    free(out);
}
END_TEST

Suite *make_fast_tables_suite(void)
{
    TCase *core = TEST_TCASE("core", 120, t5_threshold_rows_are_the_bucket_function,
                             long_position_checks_find_every_bad_value,
                             rows_that_share_elements_are_written_in_row_order, streamed_rows_equal_plain_rows);

    tcase_add_loop_test(core, every_isa_and_thread_count_gives_the_scalar_bits, 0, (int)ARRAY_LEN(cases));
    return test_suite_of("fast_tables", core, NULL);
}
