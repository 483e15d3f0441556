/*
 * check_relpos2d.c - the decomposed relative positions of MViTv2 and SAM
 * (ABI 1.12, relpos2d_bias) in `ref`, `fast` and an honest float32
 * variant: biases worked out on paper (the golden vectors check
 * transformers' and segment-anything's code), and the refusals of bad
 * arguments.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

static pecert_relpos2d_args make_args(const int64_t sizes[4], const pecert_tensor *query, const pecert_tensor *th,
                                      const pecert_tensor *tw, pecert_tensor *out)
{
    return (pecert_relpos2d_args){.struct_size = sizeof(pecert_relpos2d_args), .q_h = sizes[0], .q_w = sizes[1],
                                  .k_h = sizes[2], .k_w = sizes[3], .query = query, .rel_pos_h = th,
                                  .rel_pos_w = tw, .out = out};
}

/* Every element of out within tol of want. */
static void expect_near(const char *engine, const char *what, const float *out, const double *want, int n, double tol)
{
    for (int i = 0; i < n; i++) {
        ck_assert_msg(fabs((double)out[i] - want[i]) <= tol, "%s, %s: out[%d] = %.9g, want %.9g", engine, what, i,
                      (double)out[i], want[i]);
    }
}

/* One call of C = 1 channel: the query's values, the tables', the sizes. */
static void run_case(const fast_handle *h, const char *engine, const char *what, const int64_t sizes[4], float *query,
                     int64_t n, float *rh, int64_t len_h, float *rw, int64_t len_w, const double *want, double tol)
{
    float out[64];
    int64_t tq = sizes[0] * sizes[1], tk = sizes[2] * sizes[3];
    pecert_tensor tx = pecert_tensor_3d(query, n, tq, 1, tq, 1, 1);
    pecert_tensor th = pecert_tensor_2d(rh, PECERT_DTYPE_F32, len_h, 1);
    pecert_tensor tw = pecert_tensor_2d(rw, PECERT_DTYPE_F32, len_w, 1);
    pecert_tensor to = pecert_tensor_3d(out, n, tq, tk, tq * tk, tk, 1);
    pecert_relpos2d_args a = make_args(sizes, &tx, &th, &tw, &to);
    ck_assert_int_eq(h->plugin.desc->relpos2d_bias(h->instance, &a), PECERT_OK);
    expect_near(engine, what, out, want, (int)(n * tq * tk), tol);
}

/* ---- on paper ------------------------------------------------------------------ */

/*
 * One channel, so a bias is q (Rh[row] + Rw[row]).
 *   2 x 2 on 2 x 2, tables of 3 rows (2 * 2 - 1: no resize), Rh = [1, 2,
 *   4], Rw = [8, 16, 32], row a - b + 1: query (0, 1) against key (0, 0)
 *   reads Rh[1] + Rw[2] = 2 + 32 = 34; head 0's query 1, head 1's 2 (the
 *   bias doubles).
 *   1 x 3 on 1 x 3: Rh = [1] (1 row, as needed), Rw = [0, 10, 20] resized
 *   to 5 rows at (i + 0.5) 3/5 - 0.5 = -0.2 (clamped to 0), 0.4, 1, 1.6,
 *   2.2 (the last row repeated): [0, 4, 10, 16, 20]; row a - b + 2, plus
 *   Rh's 1. Corners aligned would give [0, 5, 10, 15, 20], no half-pixel
 *   offset [0, 6, 12, 18, 20].
 *   pooled keys, 2 x 1 queries on 1 x 1 keys: rows 2 * 2 - 1 = 3, s_q =
 *   max(1/2, 1) = 1, s_k = max(2/1, 1) = 2, row a - 2b + 0 = a: Rh = [5, 7,
 *   9] gives [5, 7]; 1 x 1 queries on 2 x 1 keys: s_q = 2, s_k = 1, row
 *   2a - b + 1: keys 0, 1 read rows 1, 0: [7, 5].
 * Sums of small integers are exact in float32; the resized rows within a
 * few ulps of 20 (1e-5).
 */
START_TEST(test_on_paper)
{
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        const int64_t square[4] = {2, 2, 2, 2};
        float q2[8] = {1, 1, 1, 1, 2, 2, 2, 2}, rh3[3] = {1, 2, 4}, rw3[3] = {8, 16, 32};
        const double want_square[32] = {18, 10, 17, 9,  34, 18, 33, 17, 20, 12, 18, 10, 36, 20, 34, 18,
                                        36, 20, 34, 18, 68, 36, 66, 34, 40, 24, 36, 20, 72, 40, 68, 36};
        const char *e = abi_engines[p];
        run_case(&h, e, "2x2 on 2x2, two heads", square, q2, 2, rh3, 3, rw3, 3, want_square, 0.0);

        const int64_t row[4] = {1, 3, 1, 3};
        float ones[3] = {1, 1, 1}, rh1[1] = {1}, rw_small[3] = {0, 10, 20};
        const double want_row[9] = {11, 5, 1, 17, 11, 5, 21, 17, 11};
        run_case(&h, e, "a 3-row table resized to 5", row, ones, 1, rh1, 1, rw_small, 3, want_row, 1e-5);

        const int64_t pooled[4] = {2, 1, 1, 1}, spread[4] = {1, 1, 2, 1};
        float rh_pool[3] = {5, 7, 9}, rw0[1] = {0};
        const double want_pooled[2] = {5, 7}, want_spread[2] = {7, 5};
        run_case(&h, e, "2x1 queries on 1x1 keys", pooled, ones, 1, rh_pool, 3, rw0, 1, want_pooled, 0.0);
        run_case(&h, e, "1x1 queries on 2x1 keys", spread, ones, 1, rh_pool, 3, rw0, 1, want_spread, 0.0);
        builtin_close(&h);
    }
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

static void expect_refusal(const fast_handle *h, const char *name, pecert_relpos2d_args a, const float *out,
                           size_t n, pecert_status want, const char *field)
{
    expect_refused(h, name, h->plugin.desc->relpos2d_bias(h->instance, &a), want, field);
    expect_unwritten(out, n, -7.0f, name, field);
}

START_TEST(test_refusals)
{
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        float query[4 * 2] = {0}, rh[3 * 2] = {0}, rw[3 * 2] = {0}, out[4 * 4];
        fill_f32(out, ARRAY_LEN(out), -7.0f);
        const int64_t sizes[4] = {2, 2, 2, 2};
        pecert_tensor tx = pecert_tensor_3d(query, 1, 4, 2, 8, 2, 1);
        pecert_tensor th = pecert_tensor_2d(rh, PECERT_DTYPE_F32, 3, 2);
        pecert_tensor tw = pecert_tensor_2d(rw, PECERT_DTYPE_F32, 3, 2);
        pecert_tensor to = pecert_tensor_3d(out, 1, 4, 4, 16, 4, 1);
        const pecert_relpos2d_args good = make_args(sizes, &tx, &th, &tw, &to);
        size_t n = ARRAY_LEN(out);
        const char *e = abi_engines[p];
        pecert_relpos2d_args a = good;
        a.k_w = 0;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "k_w");
        a = good;
        a.q_h = 3;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "query.shape");
        pecert_tensor narrow = pecert_tensor_2d(rw, PECERT_DTYPE_F32, 6, 1);
        a = good;
        a.rel_pos_w = &narrow;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "rel_pos_w");
        pecert_tensor empty = pecert_tensor_2d(rh, PECERT_DTYPE_F32, 0, 2);
        a = good;
        a.rel_pos_h = &empty;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "rel_pos_h");
        pecert_tensor short_out = pecert_tensor_3d(out, 1, 4, 3, 12, 3, 1);
        a = good;
        a.out = &short_out;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "out");
        pecert_tensor onto = pecert_tensor_3d(query, 1, 4, 4, 16, 4, 1);
        a = good;
        a.out = &onto;
        expect_refused(&h, e, h.plugin.desc->relpos2d_bias(h.instance, &a), PECERT_E_INVAL, "overlap");
        a = good;
        a.reserved0 = 1;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "reserved0");
        a = good;
        a.reserved[3] = 1;
        expect_refusal(&h, e, a, out, n, PECERT_E_UNSUPPORTED, "reserved");
        a = good;
        a.struct_size = 8;
        expect_refusal(&h, e, a, out, n, PECERT_E_ABI, "struct_size");
        ck_assert_int_eq(h.plugin.desc->relpos2d_bias(h.instance, &good), PECERT_OK);
        builtin_close(&h);
    }
}
END_TEST

Suite *make_relpos2d_suite(void)
{
    return test_suite_of("relpos2d", TEST_TCASE("relpos2d", 60, test_on_paper, test_refusals), NULL);
}
