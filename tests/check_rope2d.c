/*
 * check_rope2d.c - the 2-D vision RoPE ops of `ref` and `fast` (ABI 1.6;
 * Qwen2.5-VL's attention windows, ABI 1.10):
 * positions and rotations worked out on paper for tiny grids (the golden
 * vectors check the real towers), fast against ref over shapes the
 * vectors do not hold (strided, in place, scattered positions that skip
 * fast's tables, every ISA variant), and the refusals of bad arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

/* Packed f32 [tokens, heads, dim] with channels chan_stride apart. */
static pecert_tensor f32_3d(float *data, int64_t tokens, int64_t heads, int64_t dim, int64_t chan_stride)
{
    return pecert_tensor_3d(data, tokens, heads, dim, heads * dim * chan_stride, dim * chan_stride, chan_stride);
}

static pecert_status run_index(const fast_handle *h, int32_t scheme, int32_t merge, const int64_t *grid,
                               int64_t n_images, int64_t *out, int64_t tokens, int32_t window_units)
{
    pecert_tensor t = pecert_tensor_2d(out, PECERT_DTYPE_I64, 2, tokens);
    pecert_rope2d_index_args a = {.struct_size = sizeof(a), .scheme = scheme, .spatial_merge_size = merge,
                                  .window_units = window_units, .grid_thw = grid, .n_images = n_images,
                                  .out_positions = &t};
    return h->plugin.desc->rope2d_index(h->instance, &a);
}

/* ---- positions on paper ------------------------------------------------------- */

/* A 4 x 4 grid in 2 x 2 windows (Qwen2-VL's rot_pos_emb): the windows
 * row-major, the patches row-major inside each; then a video of two
 * 2 x 2 frames (each frame again); then Llama 4's 2 x 3 tile: 1-based,
 * row-major, the class token last at (0, 0). */
START_TEST(test_index_on_paper)
{
    static const int64_t grid_windows[] = {1, 4, 4};
    static const int64_t want_windows[2][16] = {{0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3},
                                                {0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3}};
    static const int64_t grid_video[] = {2, 2, 2};
    static const int64_t want_video[2][8] = {{0, 0, 1, 1, 0, 0, 1, 1}, {0, 1, 0, 1, 0, 1, 0, 1}};
    static const int64_t grid_cls[] = {1, 2, 3};
    static const int64_t want_cls[2][7] = {{1, 1, 1, 2, 2, 2, 0}, {1, 2, 3, 1, 2, 3, 0}};
    const char *names[2] = {"ref", "fast"};
    for (int p = 0; p < 2; p++) {
        fast_handle h;
        int64_t out[2 * 16];
        builtin_open(&h, names[p]);
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_MERGE_WINDOWS, 2, grid_windows, 1, out, 16, 0), PECERT_OK);
        ck_assert_msg(memcmp(out, want_windows, sizeof(want_windows)) == 0, "%s: merge windows", names[p]);
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_MERGE_WINDOWS, 2, grid_video, 1, out, 8, 0), PECERT_OK);
        ck_assert_msg(memcmp(out, want_video, sizeof(want_video)) == 0, "%s: video frames", names[p]);
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_ROW_MAJOR_CLS, 1, grid_cls, 1, out, 7, 0), PECERT_OK);
        ck_assert_msg(memcmp(out, want_cls, sizeof(want_cls)) == 0, "%s: class token", names[p]);
        builtin_close(&h);
    }
}
END_TEST

/* Qwen2.5-VL's attention windows (ABI 1.10), worked on paper. A 12 x 16
 * grid is 6 x 8 merge units of 2 x 2 patches; windows of 4 x 4 units: the
 * first window's units (0, 0), (0, 1), (0, 2), (0, 3), then (1, 0): tokens
 * 0-19 below; the second window (units columns 4-7) starts at token 64
 * with patch (0, 8); the third (unit rows 4-5, ragged) at 128 with (8, 0);
 * the fourth at 160 with (8, 8). Then a video of two 4 x 6 frames in
 * windows of 2 x 2 units (2 x 3 units: a full window, then a ragged one of
 * units (0, 2) and (1, 2)), each frame again. */
START_TEST(test_attention_windows_on_paper)
{
    static const int64_t grid[] = {1, 12, 16};
    static const int64_t want_rows[20] = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3};
    static const int64_t want_cols[20] = {0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7, 0, 1, 0, 1};
    static const int64_t starts[3][3] = {{64, 0, 8}, {128, 8, 0}, {160, 8, 8}};
    static const int64_t video[] = {2, 4, 6};
    static const int64_t want_video_rows[24] = {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3,
                                                0, 0, 1, 1, 2, 2, 3, 3};
    static const int64_t want_video_cols[24] = {0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3,
                                                4, 5, 4, 5, 4, 5, 4, 5};
    const char *names[2] = {"ref", "fast"};
    for (int p = 0; p < 2; p++) {
        fast_handle h;
        int64_t out[2 * 192];
        builtin_open(&h, names[p]);
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_ATTENTION_WINDOWS, 2, grid, 1, out, 192, 4), PECERT_OK);
        ck_assert_msg(memcmp(out, want_rows, sizeof(want_rows)) == 0 && memcmp(out + 192, want_cols,
                      sizeof(want_cols)) == 0, "%s: the first window", names[p]);
        for (int i = 0; i < 3; i++) {
            ck_assert_msg(out[starts[i][0]] == starts[i][1] && out[192 + starts[i][0]] == starts[i][2],
                          "%s: window %d starts at (%lld, %lld)", names[p], i + 1,
                          (long long)out[starts[i][0]], (long long)out[192 + starts[i][0]]);
        }
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_ATTENTION_WINDOWS, 2, video, 1, out, 48, 2), PECERT_OK);
        for (int f = 0; f < 2; f++) {
            ck_assert_msg(memcmp(out + 24 * f, want_video_rows, sizeof(want_video_rows)) == 0 &&
                          memcmp(out + 48 + 24 * f, want_video_cols, sizeof(want_video_cols)) == 0,
                          "%s: frame %d", names[p], f);
        }
        builtin_close(&h);
    }
}
END_TEST

/* fast's window walk against ref's over grids, windows and frames no
 * vector holds: a window wider than the grid, one unit, ragged both ways,
 * several images. */
START_TEST(test_attention_windows_fast_matches_ref)
{
    static const int64_t grids[] = {2, 10, 18, 1, 16, 16, 3, 2, 30, 1, 14, 6};
    enum { TOKENS = 2 * 10 * 18 + 16 * 16 + 3 * 2 * 30 + 14 * 6 };
    static int64_t want[2 * TOKENS], got[2 * TOKENS];
    fast_handle ref, fast;
    builtin_open(&ref, "ref");
    builtin_open(&fast, "fast");
    for (int32_t units = 1; units <= 9; units++) {
        const int32_t scheme = PECERT_ROPE2D_ATTENTION_WINDOWS;
        ck_assert_int_eq(run_index(&ref, scheme, 2, grids, 4, want, TOKENS, units), PECERT_OK);
        ck_assert_int_eq(run_index(&fast, scheme, 2, grids, 4, got, TOKENS, units), PECERT_OK);
        ck_assert_msg(memcmp(want, got, sizeof(want)) == 0, "window_units %d", units);
    }
    builtin_close(&ref);
    builtin_close(&fast);
}
END_TEST

/* ---- rotations on paper ------------------------------------------------------- */

typedef struct apply_case {
    pecert_rope_pairing pairing;
    int32_t frequencies;
    int32_t columns_first;
    double want[4];
} apply_case;

static pecert_status run_apply(const fast_handle *h, const apply_case *c, int32_t head_dim, double theta,
                               const int64_t *positions, pecert_tensor *x, pecert_tensor *out)
{
    pecert_rope2d_apply_args a = {.struct_size = sizeof(a), .pairing = c->pairing, .frequencies = c->frequencies,
                                  .columns_first = c->columns_first, .head_dim = head_dim, .theta = theta,
                                  .positions = positions, .x = x, .out = out};
    return h->plugin.desc->rope2d_apply(h->instance, &a);
}

/* D = 4, theta = 100, one token at row 2, column 3, x = (1, 0, 0, 1).
 * Pair 0 turns by the first axis times f_0 = 1, pair 1 by the other times
 * g_0: 1 (blocks) or 100^(-2/4) = 0.1 (alternate). Split-half pairs are
 * channels (0, 2) and (1, 3), interleaved (0, 1) and (2, 3); a pair
 * (a, b) = (1, 0) turns into (cos, sin), (0, 1) into (-sin, cos). */
START_TEST(test_apply_on_paper)
{
    const apply_case cases[] = {
        {PECERT_PAIRING_SPLIT_HALF, PECERT_ROPE2D_BLOCKS, 0, {cos(2.0), -sin(3.0), sin(2.0), cos(3.0)}},
        {PECERT_PAIRING_SPLIT_HALF, PECERT_ROPE2D_ALTERNATE, 0, {cos(2.0), -sin(0.3), sin(2.0), cos(0.3)}},
        {PECERT_PAIRING_SPLIT_HALF, PECERT_ROPE2D_BLOCKS, 1, {cos(3.0), -sin(2.0), sin(3.0), cos(2.0)}},
        {PECERT_PAIRING_INTERLEAVED, PECERT_ROPE2D_BLOCKS, 0, {cos(2.0), sin(2.0), -sin(3.0), cos(3.0)}},
        {PECERT_PAIRING_INTERLEAVED, PECERT_ROPE2D_BLOCKS, 1, {cos(3.0), sin(3.0), -sin(2.0), cos(2.0)}},
    };
    static const int64_t positions[2] = {2, 3};
    const char *names[2] = {"ref", "fast"};
    for (int p = 0; p < 2; p++) {
        fast_handle h;
        builtin_open(&h, names[p]);
        for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
            float x[4] = {1, 0, 0, 1};
            float y[4];
            pecert_tensor tx = f32_3d(x, 1, 1, 4, 1);
            pecert_tensor ty = f32_3d(y, 1, 1, 4, 1);
            ck_assert_int_eq(run_apply(&h, &cases[k], 4, 100.0, positions, &tx, &ty), PECERT_OK);
            for (int d = 0; d < 4; d++) {
                ck_assert_msg(fabs(y[d] - cases[k].want[d]) < 2e-7, "%s case %zu channel %d: %.9g, want %.9g",
                              names[p], k, d, y[d], cases[k].want[d]);
            }
        }
        builtin_close(&h);
    }
}
END_TEST

/* ---- fast against ref --------------------------------------------------------- */

typedef struct fast_shape {
    apply_case c;
    int32_t head_dim;
    int64_t tokens;
    int64_t heads;
    int64_t chan_stride;
    int in_place;
    int64_t spread; /* positions in [-spread/8, spread): wide = no tables */
} fast_shape;

/* fast's float cos/sin and float rotation against ref's double: a float
 * rounding of cos, of sin and of each product and sum, a few u of the
 * pair norm (<= sqrt(2) here), and the angle's error ~ |p f| u (fast
 * reduces a double angle; f carries ~|ln f| u). */
static double fast_bound(int64_t spread)
{
    return 1e-6 + 4.0 * (double)spread * 0x1p-52;
}

static void compare_fast(const fast_shape *s, const char *isa)
{
    size_t n = (size_t)(s->tokens * s->heads * s->head_dim * s->chan_stride);
    float *x = calloc(n, sizeof(float));
    float *want = calloc(n, sizeof(float));
    float *got = calloc(n, sizeof(float));
    int64_t *pos = malloc(2 * (size_t)s->tokens * sizeof(int64_t));
    ck_assert(x != NULL && want != NULL && got != NULL && pos != NULL);
    uint64_t state = 0x726f706532640001ull + (uint64_t)s->head_dim;
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)((double)(test_next_random(&state) >> 11) * 0x1p-53 * 2.0 - 1.0);
    }
    for (int64_t i = 0; i < 2 * s->tokens; i++) {
        pos[i] = (int64_t)(test_next_random(&state) % (uint64_t)(s->spread + s->spread / 8)) - s->spread / 8;
    }
    fast_handle ref;
    fast_handle fast;
    if (!ref_and_fast_open(&ref, &fast, isa)) {
        free(x), free(want), free(got), free(pos);
        return;
    }
    pecert_tensor tx = f32_3d(x, s->tokens, s->heads, s->head_dim, s->chan_stride);
    pecert_tensor tw = f32_3d(want, s->tokens, s->heads, s->head_dim, s->chan_stride);
    ck_assert_int_eq(run_apply(&ref, &s->c, s->head_dim, 10000.0, pos, &tx, &tw), PECERT_OK);
    if (s->in_place) {
        memcpy(got, x, n * sizeof(float));
    }
    pecert_tensor tg = f32_3d(got, s->tokens, s->heads, s->head_dim, s->chan_stride);
        ck_assert_int_eq(run_apply(&fast, &s->c, s->head_dim, 10000.0, pos, s->in_place ? &tg : &tx, &tg), PECERT_OK);
    double worst = 0.0;
    for (size_t i = 0; i < n; i += (size_t)s->chan_stride) {
        double e = fabs((double)got[i] - (double)want[i]);
        worst = e > worst || isnan(e) ? e : worst;
    }
    ck_assert_msg(worst <= fast_bound(s->spread), "isa %s D=%d spread %lld: worst %.3g > %.3g", isa != NULL ? isa : "-",
                  s->head_dim, (long long)s->spread, worst, fast_bound(s->spread));
    fast_close(&fast);
    builtin_close(&ref);
    free(x), free(want), free(got), free(pos);
}

START_TEST(test_fast_matches_ref)
{
    const fast_shape shapes[] = {
        {{PECERT_PAIRING_SPLIT_HALF, PECERT_ROPE2D_BLOCKS, 0, {0}}, 80, 257, 3, 1, 0, 32},
        {{PECERT_PAIRING_SPLIT_HALF, PECERT_ROPE2D_ALTERNATE, 0, {0}}, 64, 300, 2, 3, 0, 64},
        {{PECERT_PAIRING_INTERLEAVED, PECERT_ROPE2D_BLOCKS, 1, {0}}, 88, 577, 2, 1, 1, 25},
        {{PECERT_PAIRING_INTERLEAVED, PECERT_ROPE2D_ALTERNATE, 0, {0}}, 4, 33, 1, 2, 1, 1 << 20},
        {{PECERT_PAIRING_SPLIT_HALF, PECERT_ROPE2D_BLOCKS, 1, {0}}, 128, 5000, 4, 1, 0, 1 << 30},
    };
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        for (size_t k = 0; k < ARRAY_LEN(shapes); k++) {
            compare_fast(&shapes[k], fast_isas[i]);
        }
    }
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

/* Each bad call must return want, write no element, and say in one line
 * what is wrong (the field named). */
static void expect_apply_refusal(const fast_handle *h, const char *name, pecert_rope2d_apply_args a, pecert_status want,
                                 const char *field)
{
    expect_refused(h, name, h->plugin.desc->rope2d_apply(h->instance, &a), want, field);
}

START_TEST(test_refusals)
{
    const char *names[2] = {"ref", "fast"};
    static const int64_t positions[4] = {0, 1, 2, 3};
    for (int p = 0; p < 2; p++) {
        fast_handle h;
        float x[2 * 8] = {0};
        float y[2 * 8];
        pecert_tensor tx = f32_3d(x, 2, 1, 8, 1);
        pecert_tensor ty = f32_3d(y, 2, 1, 8, 1);
        builtin_open(&h, names[p]);
        pecert_rope2d_apply_args good = {.struct_size = sizeof(good), .head_dim = 8, .theta = 10000.0,
                                         .positions = positions, .x = &tx, .out = &ty};
        ck_assert_int_eq(h.plugin.desc->rope2d_apply(h.instance, &good), PECERT_OK);
        pecert_rope2d_apply_args a = good;
        a.head_dim = 6;
        expect_apply_refusal(&h, names[p], a, PECERT_E_INVAL, "head_dim");
        a = good;
        a.theta = 1.0;
        expect_apply_refusal(&h, names[p], a, PECERT_E_INVAL, "theta");
        a = good;
        a.frequencies = 2;
        expect_apply_refusal(&h, names[p], a, PECERT_E_INVAL, "frequencies");
        a = good;
        a.reserved0 = 1;
        expect_apply_refusal(&h, names[p], a, PECERT_E_UNSUPPORTED, "reserved0");
        a = good;
        a.reserved[3] = 1;
        expect_apply_refusal(&h, names[p], a, PECERT_E_UNSUPPORTED, "reserved");
        a = good;
        a.columns_first = 2;
        expect_apply_refusal(&h, names[p], a, PECERT_E_INVAL, "columns_first");
        a = good;
        a.struct_size = 16;
        expect_apply_refusal(&h, names[p], a, PECERT_E_ABI, "struct_size");
        a = good;
        tx.shape[0] = 1; /* out's shape no longer x's */
        expect_apply_refusal(&h, names[p], a, PECERT_E_INVAL, "out");
        tx.shape[0] = 2;

        static const int64_t odd_grid[] = {1, 3, 4};
        static const int64_t video[] = {2, 2, 2};
        int64_t out[2 * 16];
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_MERGE_WINDOWS, 2, odd_grid, 1, out, 12, 0), PECERT_E_INVAL);
        ck_assert_ptr_nonnull(strstr(h.plugin.desc->last_error(h.instance), "spatial_merge_size"));
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_ROW_MAJOR, 1, video, 1, out, 8, 0), PECERT_E_INVAL);
        ck_assert_ptr_nonnull(strstr(h.plugin.desc->last_error(h.instance), "t=2"));
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_ROW_MAJOR, 2, odd_grid, 1, out, 12, 0), PECERT_E_INVAL);
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_MERGE_WINDOWS, 2, video, 1, out, 9, 0), PECERT_E_INVAL);
        ck_assert_ptr_nonnull(strstr(h.plugin.desc->last_error(h.instance), "out_positions"));
        static const int64_t square[] = {1, 4, 4};
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_ATTENTION_WINDOWS, 2, square, 1, out, 16, 0), PECERT_E_INVAL);
        ck_assert_ptr_nonnull(strstr(h.plugin.desc->last_error(h.instance), "window_units"));
        /* merge windows take no attention window; a scheme past 3 is none */
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_MERGE_WINDOWS, 2, square, 1, out, 16, 4), PECERT_E_INVAL);
        ck_assert_ptr_nonnull(strstr(h.plugin.desc->last_error(h.instance), "window_units"));
        ck_assert_int_eq(run_index(&h, 4, 2, square, 1, out, 16, 0), PECERT_E_INVAL);
        ck_assert_ptr_nonnull(strstr(h.plugin.desc->last_error(h.instance), "scheme"));
        static const int64_t huge[] = {1 << 20, 1 << 20, 1 << 20};
        ck_assert_int_eq(run_index(&h, PECERT_ROPE2D_MERGE_WINDOWS, 1, huge, 1, out, 16, 0), PECERT_E_INVAL);
        ck_assert_ptr_nonnull(strstr(h.plugin.desc->last_error(h.instance), "2^40"));
        builtin_close(&h);
    }
}
END_TEST

Suite *make_rope2d_suite(void)
{
    return test_suite_of("rope2d",
                         TEST_TCASE("rope2d", 120,
                                    test_index_on_paper,
                                    test_attention_windows_on_paper,
                                    test_attention_windows_fast_matches_ref,
                                    test_apply_on_paper,
                                    test_fast_matches_ref,
                                    test_refusals),
                         NULL);
}
