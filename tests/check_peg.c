/*
 * check_peg.c - CPVT's PEG (ABI 1.9, peg_apply) in `ref`, `fast` and an
 * honest float32 variant: grids worked out on paper (the golden vectors
 * check the authors' PosCNN), fast's own invariants (strided inputs packed
 * to the packed call's bits, the thread split changing no bit, under every
 * ISA variant), and the refusals of bad arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

static pecert_tensor f32_2d(float *data, int64_t rows, int64_t cols)
{
    return pecert_tensor_2d(data, PECERT_DTYPE_F32, rows, cols);
}

static pecert_tensor f32_1d(float *data, int64_t n)
{
    pecert_tensor t = pecert_tensor_2d(data, PECERT_DTYPE_F32, n, 1);
    t.ndim = 1;
    return t;
}

static pecert_tensor kernel_view(float *data, int64_t c, int64_t k)
{
    return pecert_tensor_3d(data, c, k, k, k * k, k, 1);
}

static pecert_peg_args make_args(int32_t prefix, int64_t h, int64_t w, int64_t k, const pecert_tensor *x,
                                 const pecert_tensor *weight, const pecert_tensor *bias, pecert_tensor *out)
{
    return (pecert_peg_args){.struct_size = sizeof(pecert_peg_args), .prefix_tokens = prefix, .grid_h = h,
                             .grid_w = w, .kernel = k, .x = x, .weight = weight, .bias = bias, .out = out};
}

/* ---- on paper ------------------------------------------------------------------ */

/*
 * A class token (7) and a 2 x 3 grid of one channel, x = [[1, 2, 3], [4, 5,
 * 6]], kernel all ones, bias 0.5: each patch's output is itself plus 0.5
 * plus the sum of its in-grid 3 x 3 neighbourhood (itself included; the
 * zero padding adds nothing):
 *   corner (0, 0): 1 + 0.5 + (1 + 2 + 4 + 5) = 13.5
 *   edge (0, 1):   2 + 0.5 + (1 + 2 + 3 + 4 + 5 + 6) = 23.5
 *   corner (0, 2): 3 + 0.5 + (2 + 3 + 5 + 6) = 19.5
 *   and by symmetry (1, 0) = 4 + 0.5 + 12 = 16.5, (1, 1) = 5 + 0.5 + 21 =
 *   26.5, (1, 2) = 6 + 0.5 + 16 = 22.5; the class token row stays 7.
 * With the kernel's centre tap alone (1, others 0) and bias 0 every patch
 * doubles: x + x. All exact in float32.
 */
START_TEST(test_on_paper)
{
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        float x[7] = {7, 1, 2, 3, 4, 5, 6};
        float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, centre[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
        float half = 0.5f, zero = 0.0f, out[7];
        pecert_tensor tx = f32_2d(x, 7, 1), to = f32_2d(out, 7, 1);
        pecert_tensor tk = kernel_view(ones, 1, 3), tb = f32_1d(&half, 1);
        pecert_peg_args a = make_args(1, 2, 3, 3, &tx, &tk, &tb, &to);
        ck_assert_int_eq(h.plugin.desc->peg_apply(h.instance, &a), PECERT_OK);
        const float want[7] = {7, 13.5f, 23.5f, 19.5f, 16.5f, 26.5f, 22.5f};
        for (int i = 0; i < 7; i++) {
            ck_assert_msg(out[i] == want[i], "%s: out[%d] = %g, want %g", abi_engines[p], i, (double)out[i],
                          (double)want[i]);
        }
        pecert_tensor tc = kernel_view(centre, 1, 3), tz = f32_1d(&zero, 1);
        a = make_args(1, 2, 3, 3, &tx, &tc, &tz, &to);
        ck_assert_int_eq(h.plugin.desc->peg_apply(h.instance, &a), PECERT_OK);
        for (int i = 0; i < 7; i++) {
            float twice = i == 0 ? 7.0f : 2.0f * x[i];
            ck_assert_msg(out[i] == twice, "%s, centre tap: out[%d] = %g, want %g", abi_engines[p], i, (double)out[i],
                          (double)twice);
        }
        builtin_close(&h);
    }
}
END_TEST

/* ---- fast's invariants ----------------------------------------------------------- */

/* 1601 rows x 24 channels x 9 taps x 4 bytes = 1.4 MiB of work: past
 * fast's 1 MiB threshold, so the 2-thread runs do split. */
enum { GH = 40, GW = 40, CH = 24, PREFIX = 1, ROWS = PREFIX + GH * GW };

static void fill(float *x, float *w, float *b)
{
    pecert_rng rng = {0x70656775u};
    for (int i = 0; i < ROWS * CH; i++) {
        x[i] = pecert_rng_float(&rng);
    }
    for (int i = 0; i < CH * 9; i++) { /* 3 x 3 kernels */
        w[i] = pecert_rng_float(&rng);
    }
    for (int i = 0; i < CH; i++) {
        b[i] = pecert_rng_float(&rng);
    }
}

/* fast (isa, threads) on x, strided by `spread` floats per element when > 1. */
static void fast_run(const char *isa, int threads, const float *x, const float *w, const float *b, int spread,
                     float *out)
{
    fast_handle h;
    ck_assert_int_eq(fast_open(&h, isa), PECERT_OK);
    ck_assert_int_eq(h.plugin.desc->set_num_threads(h.instance, threads), PECERT_OK);
    float *wide = calloc((size_t)(ROWS * CH * spread), sizeof(float));
    ck_assert_ptr_nonnull(wide);
    for (int i = 0; i < ROWS * CH; i++) {
        wide[i * spread] = x[i];
    }
    pecert_tensor tx = f32_2d(wide, ROWS, CH);
    tx.strides[0] = CH * spread;
    tx.strides[1] = spread;
    pecert_tensor tw = kernel_view((float *)(uintptr_t)w, CH, 3), tb = f32_1d((float *)(uintptr_t)b, CH);
    pecert_tensor to = f32_2d(out, ROWS, CH);
    pecert_peg_args a = make_args(PREFIX, GH, GW, 3, &tx, &tw, &tb, &to);
    ck_assert_msg(h.plugin.desc->peg_apply(h.instance, &a) == PECERT_OK, "%s", h.plugin.desc->last_error(h.instance));
    free(wide);
    fast_close(&h);
}

START_TEST(test_fast_invariants)
{
    static float x[ROWS * CH], w[CH * 9], b[CH], out0[ROWS * CH], out1[ROWS * CH];
    fill(x, w, b);
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        fast_handle probe;
        pecert_status st = fast_open(&probe, fast_isas[i]);
        fast_close(&probe);
        if (st == PECERT_E_UNSUPPORTED) {
            continue; /* this CPU lacks the ISA */
        }
        fast_run(fast_isas[i], 1, x, w, b, 1, out0);
        fast_run(fast_isas[i], 2, x, w, b, 1, out1);
        ck_assert_msg(memcmp(out0, out1, sizeof(out0)) == 0, "the thread count changes fast's bits (%s)", fast_isas[i]);
        fast_run(fast_isas[i], 2, x, w, b, 3, out1);
        ck_assert_msg(memcmp(out0, out1, sizeof(out0)) == 0, "strided inputs change fast's bits (%s)", fast_isas[i]);
    }
}
END_TEST

/* ---- other kernels, against ref ----------------------------------------------------- */

/*
 * Kernels 1, 5 and 7 (the vectors hold 3, CPVT's), a class token, a
 * non-square grid and 72 channels: fast and the honest float32 engine
 * against ref (double, rounded once). Bound: (T + 3) u S for the float32
 * sum (TOLERANCES.md) plus u |out| for ref's own rounding.
 */
static void compare_kernel(const char *plugin, int64_t k)
{
    enum { H = 7, W = 11, C = 72, P = 1, N = P + H * W };
    static float x[N * C], w[C * 49], b[C], want[N * C], got[N * C];
    pecert_rng rng = {0x6b65726eu + (uint64_t)k};
    for (int i = 0; i < N * C; i++) {
        x[i] = pecert_rng_float(&rng);
    }
    for (int64_t i = 0; i < C * k * k; i++) {
        w[i] = pecert_rng_float(&rng);
    }
    for (int i = 0; i < C; i++) {
        b[i] = pecert_rng_float(&rng);
    }
    pecert_tensor tx = f32_2d(x, N, C), tw = kernel_view(w, C, k), tb = f32_1d(b, C);
    pecert_tensor tr = f32_2d(want, N, C), tg = f32_2d(got, N, C);
    fast_handle ref, h;
    builtin_open(&ref, "ref");
    builtin_open(&h, plugin);
    pecert_peg_args a = make_args(P, H, W, k, &tx, &tw, &tb, &tr);
    ck_assert_int_eq(ref.plugin.desc->peg_apply(ref.instance, &a), PECERT_OK);
    a.out = &tg;
    ck_assert_msg(h.plugin.desc->peg_apply(h.instance, &a) == PECERT_OK, "%s kernel %lld: %s", plugin, (long long)k,
                  h.plugin.desc->last_error(h.instance));
    const double u = 0x1p-24;
    for (int64_t row = 0; row < N; row++) {
        for (int64_t c = 0; c < C; c++) {
            double s = 0.0;
            int taps = 0;
            if (row >= P) {
                int64_t y = (row - P) / W, z = (row - P) % W, r = k / 2;
                s = fabs(x[row * C + c]) + fabs(b[c]);
                for (int64_t i = 0; i < k; i++) {
                    for (int64_t j = 0; j < k; j++) {
                        int64_t sy = y + i - r, sz = z + j - r;
                        if (sy >= 0 && sy < H && sz >= 0 && sz < W) {
                            s += fabs((double)w[(c * k + i) * k + j] * x[(P + sy * W + sz) * C + c]);
                            taps++;
                        }
                    }
                }
            }
            double bound = row < P ? 0.0 : (taps + 3) * u * s + u * fabs(want[row * C + c]);
            double err = fabs((double)got[row * C + c] - want[row * C + c]);
            ck_assert_msg(err <= bound, "%s kernel %lld: row %lld channel %lld: %g from ref > %g", plugin, (long long)k,
                          (long long)row, (long long)c, err, bound);
        }
    }
    builtin_close(&h);
    builtin_close(&ref);
}

START_TEST(test_kernels_match_ref)
{
    const int64_t kernels[] = {1, 5, 7};
    for (size_t i = 0; i < ARRAY_LEN(kernels); i++) {
        compare_kernel("fast", kernels[i]);
        compare_kernel("honest/official_f32", kernels[i]);
    }
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

static void expect_refusal(const fast_handle *h, const char *name, pecert_peg_args a, const float *out, size_t n,
                           pecert_status want, const char *field)
{
    expect_refused(h, name, h->plugin.desc->peg_apply(h->instance, &a), want, field);
    expect_unwritten(out, n, -7.0f, name, field);
}

START_TEST(test_refusals)
{
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        float x[1 + 2 * 3] = {0}, w[9] = {0}, b[1] = {0}, out[7];
        fill_f32(out, ARRAY_LEN(out), -7.0f);
        pecert_tensor tx = f32_2d(x, 7, 1), tw = kernel_view(w, 1, 3), tb = f32_1d(b, 1), to = f32_2d(out, 7, 1);
        const pecert_peg_args good = make_args(1, 2, 3, 3, &tx, &tw, &tb, &to);
        size_t n = ARRAY_LEN(out);
        pecert_peg_args a = good;
        a.kernel = 2;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "kernel");
        a = good;
        a.grid_w = 0;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "grid_w");
        a = good;
        a.prefix_tokens = 0; /* x then has a row too many */
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "x.shape");
        pecert_tensor wide_w = kernel_view(w, 1, 1);
        a = good;
        a.weight = &wide_w;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "weight");
        pecert_tensor no_bias = f32_1d(b, 2);
        a = good;
        a.bias = &no_bias;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "bias");
        pecert_tensor over_x = f32_2d(x, 7, 1);
        a = good;
        a.out = &over_x;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "overlaps");
        a = good;
        a.reserved[3] = 1;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_UNSUPPORTED, "reserved");
        a = good;
        a.struct_size = 8;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_ABI, "struct_size");
        ck_assert_int_eq(h.plugin.desc->peg_apply(h.instance, &good), PECERT_OK);
        builtin_close(&h);
    }
}
END_TEST

Suite *make_peg_suite(void)
{
    return test_suite_of("peg",
                         TEST_TCASE("peg", 120,
                                    test_on_paper,
                                    test_fast_invariants,
                                    test_kernels_match_ref,
                                    test_refusals),
                         NULL);
}
