/*
 * check_sine2d.c - DETR's 2-D sine embedding from a pixel mask (ABI 1.11,
 * sine2d) in `ref`, `fast` and an honest float32 variant: maps worked out
 * on paper (the golden vectors check transformers' classes), and the
 * refusals of bad arguments. fast's tables and threads are held to ref's
 * bits in check_fast_tables.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

static pecert_sine2d_args make_args(int32_t f, int32_t normalize, double temperature, const pecert_tensor *mask,
                                    pecert_tensor *out)
{
    return (pecert_sine2d_args){.struct_size = sizeof(pecert_sine2d_args), .num_pos_feats = f,
                                .normalize = normalize, .temperature_y = temperature, .temperature_x = temperature,
                                .scale = 2 * M_PI, .offset = 0.0, .eps = 1e-6, .mask = mask, .out = out};
}

/* Every element of out within tol of want. */
static void expect_near(const char *engine, const char *what, const float *out, const double *want, int n, double tol)
{
    for (int i = 0; i < n; i++) {
        ck_assert_msg(fabs((double)out[i] - want[i]) <= tol, "%s, %s: out[%d] = %.9g, want %.9g", engine, what, i,
                      (double)out[i], want[i]);
    }
}

/* ---- on paper ------------------------------------------------------------------ */

/*
 * F = 2 (dim_t = T^0 = 1 for both channels of an axis: [sin v, cos v]).
 *   normalize 0, mask [[1, 0], [0, 0]]: the counts are the coordinates.
 *   (0,0): y 1, x 1 -> [sin 1, cos 1, sin 1, cos 1]; (0,1): y 0 (its column
 *   has no valid pixel), x 1 -> [0, 1, sin 1, cos 1]; (1,0): y 1, x 0 ->
 *   [sin 1, cos 1, 0, 1]; (1,1): [0, 1, 0, 1].
 *   normalize 1, a 2 x 2 map all valid: row r's y = (r + 1) / (2 + 1e-6) *
 *   2 pi, pi (1 - e) and 2 pi (1 - e) with e = 1e-6 / (2 + 1e-6): sin is
 *   pi e and -2 pi e (1.5708e-6, -3.1416e-6 to 5 digits), cos -1 and 1.
 * F = 4, T = 100, normalize 0, a 1 x 1 map: dim_t = [1, 1, 100^(2/4) = 10,
 *   10], so each axis is [sin 1, cos 1, sin 0.1, cos 0.1].
 * float32 results: within 2e-7 of the counts' values (an ulp of 1 is
 * 1.2e-7); the normalised ones within 4 u |angle| + 2u more (u = 2^-24:
 * a float32 engine rounds the sum, quotient and product by scale before
 * the sine, 7.5e-7 at pi, 1.5e-6 at 2 pi).
 */
START_TEST(test_on_paper)
{
    const double s1 = sin(1.0), c1 = cos(1.0), e = 1e-6 / (2 + 1e-6);
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        int64_t corner[4] = {1, 0, 0, 0}, full[4] = {1, 1, 1, 1}, one[1] = {1};
        float out[4 * 8];
        pecert_tensor tm = pecert_tensor_2d(corner, PECERT_DTYPE_I64, 2, 2);
        pecert_tensor to = pecert_tensor_2d(out, PECERT_DTYPE_F32, 4, 4);
        pecert_sine2d_args a = make_args(2, 0, 10000.0, &tm, &to);
        ck_assert_int_eq(h.plugin.desc->sine2d(h.instance, &a), PECERT_OK);
        const double counts[16] = {s1, c1, s1, c1, 0, 1, s1, c1, s1, c1, 0, 1, 0, 1, 0, 1};
        expect_near(abi_engines[p], "counts of a corner pixel", out, counts, 16, 2e-7);

        tm = pecert_tensor_2d(full, PECERT_DTYPE_I64, 2, 2);
        a = make_args(2, 1, 10000.0, &tm, &to);
        ck_assert_int_eq(h.plugin.desc->sine2d(h.instance, &a), PECERT_OK);
        const double y0[2] = {M_PI * e, -1}, y1[2] = {-2 * M_PI * e, 1};
        const double u = 0x1p-24;
        expect_near(abi_engines[p], "normalised row 0", out, y0, 2, 4 * u * M_PI + 2 * u);
        expect_near(abi_engines[p], "normalised row 1", out + 2 * 4, y1, 2, 4 * u * 2 * M_PI + 2 * u);
        expect_near(abi_engines[p], "normalised column 1", out + 1 * 4 + 2, y1, 2, 4 * u * 2 * M_PI + 2 * u);

        tm = pecert_tensor_2d(one, PECERT_DTYPE_I64, 1, 1);
        to = pecert_tensor_2d(out, PECERT_DTYPE_F32, 1, 8);
        a = make_args(4, 0, 100.0, &tm, &to);
        ck_assert_int_eq(h.plugin.desc->sine2d(h.instance, &a), PECERT_OK);
        const double pairs[8] = {s1, c1, sin(0.1), cos(0.1), s1, c1, sin(0.1), cos(0.1)};
        expect_near(abi_engines[p], "dim_t of a pair", out, pairs, 8, 2e-7);
        builtin_close(&h);
    }
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

static void expect_refusal(const fast_handle *h, const char *name, pecert_sine2d_args a, const float *out, size_t n,
                           pecert_status want, const char *field)
{
    expect_refused(h, name, h->plugin.desc->sine2d(h->instance, &a), want, field);
    expect_unwritten(out, n, -7.0f, name, field);
}

START_TEST(test_refusals)
{
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        int64_t mask[6] = {1, 1, 0, 1, 1, 0}, bad_mask[6] = {1, 1, 0, 1, 2, 0};
        float out[6 * 8];
        fill_f32(out, ARRAY_LEN(out), -7.0f);
        pecert_tensor tm = pecert_tensor_2d(mask, PECERT_DTYPE_I64, 2, 3);
        pecert_tensor to = pecert_tensor_2d(out, PECERT_DTYPE_F32, 6, 8);
        const pecert_sine2d_args good = make_args(4, 1, 10000.0, &tm, &to);
        size_t n = ARRAY_LEN(out);
        const char *e = abi_engines[p];
        pecert_sine2d_args a = good;
        a.num_pos_feats = 3;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "num_pos_feats");
        a = good;
        a.normalize = 2;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "normalize");
        a = good;
        a.temperature_x = 0.0;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "temperature");
        a = good;
        a.eps = 0.0;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "eps");
        a = good;
        a.scale = INFINITY;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "scale");
        pecert_tensor tbad = pecert_tensor_2d(bad_mask, PECERT_DTYPE_I64, 2, 3);
        a = good;
        a.mask = &tbad;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "mask[1][1]");
        pecert_tensor tshort = pecert_tensor_2d(out, PECERT_DTYPE_F32, 5, 8);
        a = good;
        a.out = &tshort;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "out");
        a = good;
        a.reserved0 = 1;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "reserved0");
        a = good;
        a.reserved[3] = 1;
        expect_refusal(&h, e, a, out, n, PECERT_E_UNSUPPORTED, "reserved");
        a = good;
        a.struct_size = 8;
        expect_refusal(&h, e, a, out, n, PECERT_E_ABI, "struct_size");
        ck_assert_int_eq(h.plugin.desc->sine2d(h.instance, &good), PECERT_OK);
        builtin_close(&h);
    }
}
END_TEST

Suite *make_sine2d_suite(void)
{
    return test_suite_of("sine2d", TEST_TCASE("sine2d", 60, test_on_paper, test_refusals), NULL);
}
