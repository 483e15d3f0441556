/*
 * check_posinterp.c - the position-embedding interpolation op of `ref` and
 * `fast` (ABI 1.7): resizes worked out on paper for tiny grids (the golden
 * vectors check the real models), fast against ref over configurations and
 * layouts the vectors do not hold (strided views, prefix rows, merge
 * windows, every ISA variant), and the refusals of bad arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

/* f32 [rows, dim] with channels chan_stride apart and rows dim * chan_stride apart. */
static pecert_tensor f32_2d(float *data, int64_t rows, int64_t dim, int64_t chan_stride)
{
    pecert_tensor t = pecert_tensor_2d(data, PECERT_DTYPE_F32, rows, dim);
    t.strides[0] = dim * chan_stride;
    t.strides[1] = chan_stride;
    return t;
}

/* The geometry of one call; table and out are set by the caller. */
typedef struct resize {
    int32_t mode, align_corners, antialias, prefix, merge;
    int64_t gh, gw, oh, ow;
    double scale_h, scale_w;
} resize;

static pecert_posinterp_args make_args(const resize *r, const pecert_tensor *table, pecert_tensor *out)
{
    return (pecert_posinterp_args){.struct_size = sizeof(pecert_posinterp_args), .mode = r->mode,
                                   .align_corners = r->align_corners, .antialias = r->antialias,
                                   .prefix_tokens = r->prefix, .merge_size = r->merge, .grid_h = r->gh,
                                   .grid_w = r->gw, .out_h = r->oh, .out_w = r->ow, .scale_h = r->scale_h,
                                   .scale_w = r->scale_w, .table = table, .out = out};
}

static pecert_status run(const fast_handle *h, const resize *r, float *table, float *out, int64_t dim)
{
    pecert_tensor tt = f32_2d(table, r->prefix + r->gh * r->gw, dim, 1);
    pecert_tensor to = f32_2d(out, r->prefix + r->oh * r->ow, dim, 1);
    pecert_posinterp_args a = make_args(r, &tt, &to);
    return h->plugin.desc->pos_interpolate(h->instance, &a);
}

/* ---- on paper ----------------------------------------------------------------- */

typedef struct paper_case {
    const char *what;
    resize r;
    float table[8];
    float want[16];
    double tol; /* 0: exact (dyadic weights); else |got - want| <= tol */
} paper_case;

/*
 * Worked by hand from the definitions in plugin.h (the same numbers
 * PyTorch 1.13's F.interpolate prints for these inputs):
 *  - bilinear, align_corners, [[1, 2], [3, 5]] 2x2 -> 3x3: coordinates 0,
 *    0.5, 1 per axis, so edge midpoints are pair means and the centre is
 *    (1 + 2 + 3 + 5) / 4 = 2.75; the prefix row 7 is copied;
 *  - bicubic 1x4 -> 1x2, [1, 2, 4, 8]: s = 2, x = 2i + 0.5, t = 0.5, and
 *    A = -0.75 gives the taps (-3/32, 19/32, 19/32, -3/32) on indices
 *    clamped to the grid: 0.5*1 + 19/32*2 - 3/32*4 = 1.3125 and
 *    -3/32*2 + 19/32*4 + 0.5*8 = 6.1875; the row axis (1 -> 1) is the
 *    identity (t = 0: taps 0, 1, 0, 0);
 *  - bilinear antialias 1x4 -> 1x2: support 2, centres 1 and 3, triangle
 *    weights (0.75, 0.75, 0.25) and (0.25, 0.75, 0.75) over indices 0..2
 *    and 1..3, normalised by 1.75: 13/7 and 38/7;
 *  - bilinear 4x4 -> 4x4 with merge 2: the identity, written in 2x2
 *    windows (rows 0 1 4 5, 2 3 6 7, 8 9 12 13, 10 11 14 15).
 */
static const paper_case paper[] = {
    {"bilinear align_corners 2x2 -> 3x3",
     {PECERT_POSINTERP_BILINEAR, 1, 0, 1, 1, 2, 2, 3, 3, 0, 0},
     {7, 1, 2, 3, 5},
     {7, 1, 1.5f, 2, 2, 2.75f, 3.5f, 3, 4, 5},
     0},
    {"bicubic 1x4 -> 1x2",
     {PECERT_POSINTERP_BICUBIC, 0, 0, 0, 1, 1, 4, 1, 2, 0, 0},
     {1, 2, 4, 8},
     {1.3125f, 6.1875f},
     0},
    {"bilinear antialias 1x4 -> 1x2",
     {PECERT_POSINTERP_BILINEAR, 0, 1, 0, 1, 1, 4, 1, 2, 0, 0},
     {1, 2, 4, 8},
     {(float)(13.0 / 7.0), (float)(38.0 / 7.0)},
     4 * 0x1p-23 * 6},
};

START_TEST(test_on_paper)
{
    const char *names[2] = {"ref", "fast"};
    for (int p = 0; p < 2; p++) {
        fast_handle h;
        builtin_open(&h, names[p]);
        for (size_t k = 0; k < ARRAY_LEN(paper); k++) {
            const paper_case *c = &paper[k];
            float table[8];
            float out[16] = {0};
            memcpy(table, c->table, sizeof(table));
            ck_assert_int_eq(run(&h, &c->r, table, out, 1), PECERT_OK);
            for (int64_t i = 0; i < c->r.prefix + c->r.oh * c->r.ow; i++) {
                double err = fabs((double)out[i] - (double)c->want[i]);
                ck_assert_msg(err <= c->tol, "%s %s: out[%lld] = %.9g, want %.9g", names[p], c->what, (long long)i,
                              (double)out[i], (double)c->want[i]);
            }
        }
        float grid[16];
        float out[16];
        static const int window_order[16] = {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15};
        for (int i = 0; i < 16; i++) {
            grid[i] = (float)(i + 1);
        }
        resize merge = {PECERT_POSINTERP_BILINEAR, 0, 0, 0, 2, 4, 4, 4, 4, 0, 0};
        ck_assert_int_eq(run(&h, &merge, grid, out, 1), PECERT_OK);
        for (int i = 0; i < 16; i++) {
            ck_assert_msg(out[i] == grid[window_order[i]], "%s merge: out[%d] = %g, want %g", names[p], i,
                          (double)out[i], (double)grid[window_order[i]]);
        }
        builtin_close(&h);
    }
}
END_TEST

/* ---- fast against ref ------------------------------------------------------------ */

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state;
}

typedef struct fast_case {
    resize r;
    int64_t dim, chan_stride;
} fast_case;

/*
 * fast's float taps against ref's double result. The bound is the
 * posinterp.golden error model (TOLERANCES.md) at its largest for these
 * grids (n_in <= 48 per axis): weights and sum 2 (taps + 6) u S with S <=
 * 1.5 max|e| for the 4 + 4 cubic taps (Σ|w| <= 1.5: 2 * 14 * 1.5 -> 42u),
 * and the coordinate term 2 * 4u (n_y + n_x + 2) * 4.5 max|e| <= 8u * 98 *
 * 4.5 -> about 3530u: 2^-11 of max|e| holds both with room, and is still
 * some 400 times below the smallest wrong-kernel error the mutants show
 * (Keys' a = -0.5: 0.196 on the DINOv2 16 x 16 vector).
 */
static void compare_fast(const fast_case *c, const char *isa)
{
    const resize *r = &c->r;
    int64_t in_rows = r->prefix + r->gh * r->gw;
    int64_t out_rows = r->prefix + r->oh * r->ow;
    size_t n_in = (size_t)(in_rows * c->dim * c->chan_stride);
    size_t n_out = (size_t)(out_rows * c->dim * c->chan_stride);
    float *table = calloc(n_in, sizeof(float));
    float *want = calloc(n_out, sizeof(float));
    float *got = calloc(n_out, sizeof(float));
    ck_assert(table != NULL && want != NULL && got != NULL);
    uint64_t state = 0x706f73696e746572ull + (uint64_t)(r->gh * 131 + r->ow);
    for (size_t i = 0; i < n_in; i++) {
        table[i] = (float)((double)(next_random(&state) >> 11) * 0x1p-53 * 2.0 - 1.0);
    }
    fast_handle ref;
    fast_handle fast;
    if (!ref_and_fast_open(&ref, &fast, isa)) {
        free(table), free(want), free(got);
        return;
    }
    pecert_tensor tt = f32_2d(table, in_rows, c->dim, c->chan_stride);
    pecert_tensor tw = f32_2d(want, out_rows, c->dim, c->chan_stride);
    pecert_tensor tg = f32_2d(got, out_rows, c->dim, c->chan_stride);
    pecert_posinterp_args a = make_args(r, &tt, &tw);
    ck_assert_int_eq(ref.plugin.desc->pos_interpolate(ref.instance, &a), PECERT_OK);
    a.out = &tg;
    ck_assert_msg(fast.plugin.desc->pos_interpolate(fast.instance, &a) == PECERT_OK, "%s",
                  fast.plugin.desc->last_error(fast.instance));
    double worst = 0.0;
    for (size_t i = 0; i < n_out; i += (size_t)c->chan_stride) {
        double e = fabs((double)got[i] - (double)want[i]);
        worst = e > worst || isnan(e) ? e : worst;
    }
    for (size_t i = 0; i < (size_t)(r->prefix * c->dim * c->chan_stride); i += (size_t)c->chan_stride) {
        ck_assert_msg(got[i] == table[i], "isa %s: prefix element %zu not copied", isa != NULL ? isa : "-", i);
    }
    ck_assert_msg(worst <= 0x1p-11, "isa %s %lldx%lld -> %lldx%lld mode %d aa %d ac %d D=%lld: worst %.3g",
                  isa != NULL ? isa : "-", (long long)r->gh, (long long)r->gw, (long long)r->oh, (long long)r->ow,
                  r->mode, r->antialias, r->align_corners, (long long)c->dim, worst);
    fast_close(&fast);
    builtin_close(&ref);
    free(table), free(want), free(got);
}

START_TEST(test_fast_matches_ref)
{
    const fast_case cases[] = {
        {{PECERT_POSINTERP_BICUBIC, 0, 0, 1, 1, 14, 14, 24, 24, 0, 0}, 37, 1},
        {{PECERT_POSINTERP_BICUBIC, 0, 0, 2, 1, 14, 14, 5, 9, 0, 0}, 16, 2},
        {{PECERT_POSINTERP_BICUBIC, 0, 1, 1, 1, 37, 37, 16, 45, 0, 0}, 9, 1},
        {{PECERT_POSINTERP_BICUBIC, 0, 0, 1, 1, 37, 37, 16, 37, 16.1 / 37.0, 37.1 / 37.0}, 8, 3},
        {{PECERT_POSINTERP_BICUBIC, 1, 0, 0, 1, 7, 9, 13, 4, 0, 0}, 33, 1},
        {{PECERT_POSINTERP_BILINEAR, 0, 1, 0, 1, 16, 16, 6, 40, 0, 0}, 17, 1},
        {{PECERT_POSINTERP_BILINEAR, 1, 0, 0, 2, 48, 48, 16, 24, 0, 0}, 24, 2},
        {{PECERT_POSINTERP_BILINEAR, 0, 0, 3, 4, 5, 3, 8, 12, 0, 0}, 1, 1},
        {{PECERT_POSINTERP_BILINEAR, 1, 0, 0, 1, 1, 6, 1, 1, 0, 0}, 64, 1},
    };
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
            compare_fast(&cases[k], fast_isas[i]);
        }
    }
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

/* Each bad call must return want, write no element, and name the field. */
static void expect_refusal(const fast_handle *h, const char *name, pecert_posinterp_args a, const float *out, size_t n,
                           pecert_status want, const char *field)
{
    expect_refused(h, name, h->plugin.desc->pos_interpolate(h->instance, &a), want, field);
    expect_unwritten(out, n, -1.0f, name, field);
}

START_TEST(test_refusals)
{
    const char *names[2] = {"ref", "fast"};
    for (int p = 0; p < 2; p++) {
        fast_handle h;
        float table[1 + 4 * 2] = {0};
        float out[1 + 6 * 4];
        fill_f32(out, ARRAY_LEN(out), -1.0f);
        resize r = {PECERT_POSINTERP_BICUBIC, 0, 0, 1, 1, 2, 4, 4, 6, 0, 0};
        pecert_tensor tt = f32_2d(table, 9, 1, 1);
        pecert_tensor to = f32_2d(out, 25, 1, 1);
        builtin_open(&h, names[p]);
        const pecert_posinterp_args good = make_args(&r, &tt, &to);
        const size_t n = ARRAY_LEN(out);
        pecert_posinterp_args a = good;
        a.mode = 2;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "mode");
        a = good;
        a.align_corners = 1;
        a.antialias = 1;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "antialias");
        a = good;
        a.prefix_tokens = 65;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "prefix_tokens");
        a = good;
        a.grid_w = 0;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "grid_w");
        a = good;
        a.out_h = 5000;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "out_h");
        a = good;
        a.merge_size = 4;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "merge_size");
        a = good;
        a.scale_w = 1.0; /* floor(4 * 1.0) = 4, not out_w = 6 */
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "scale_w");
        a = good;
        a.mode = PECERT_POSINTERP_BILINEAR;
        a.scale_h = 2.0;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "scale_h");
        a = good;
        a.reserved[2] = 1;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_UNSUPPORTED, "reserved");
        a = good;
        a.struct_size = 16;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_ABI, "struct_size");
        a = good;
        a.prefix_tokens = 0; /* the table then has a row too many */
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "table");
        pecert_tensor short_out = f32_2d(out, 24, 1, 1);
        a = good;
        a.out = &short_out;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "out");
        pecert_tensor aliased = f32_2d(table, 25, 1, 1); /* over the table */
        a = good;
        a.out = &aliased;
        expect_refusal(&h, names[p], a, out, n, PECERT_E_INVAL, "out");
        ck_assert_int_eq(h.plugin.desc->pos_interpolate(h.instance, &good), PECERT_OK);
        builtin_close(&h);
    }
}
END_TEST

Suite *make_posinterp_suite(void)
{
    return test_suite_of("posinterp",
                         TEST_TCASE("posinterp", 120,
                                    test_on_paper,
                                    test_fast_matches_ref,
                                    test_refusals),
                         NULL);
}
