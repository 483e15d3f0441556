/* check_compare.c - the error model and the case bookkeeping built on it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "family.h"
#include "results_json.h"
#include "rope_checks.h"
#include "suites.h"
#include "tolerance.h"

START_TEST(equal_values_have_ratio_zero)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    pecert_case_worst_add(&w, 0, 1.5, 1.5, 0.0);
    ck_assert_double_eq(w.ratio, 0.0);
    ck_assert_int_eq(w.n_bad, 0);
}
END_TEST

START_TEST(nan_output_is_never_within_a_bound)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    pecert_case_worst_add(&w, 0, NAN, 1.0, 1e30);
    ck_assert(isinf(w.ratio));
    ck_assert_int_eq(w.n_bad, 1);
    ck_assert(pecert_exceeds(NAN, 1.0));
}
END_TEST

START_TEST(worst_element_is_kept)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    pecert_case_worst_add(&w, 0, 1.0, 1.0 + 1e-7, 1e-6);
    pecert_case_worst_add(&w, 7, 1.0, 1.0 + 3e-6, 1e-6);
    pecert_case_worst_add(&w, 9, 1.0, 1.0 + 2e-6, 1e-6);
    ck_assert_int_eq(w.index, 7);
    ck_assert_int_eq(w.n_bad, 2);
    ck_assert_int_eq(w.n_checked, 3);
    ck_assert_double_eq_tol(w.ratio, 3.0, 1e-6);
}
END_TEST

/* The bound on a rotated element grows with the angle: at position 0 only
 * rounding is allowed; the growth is linear in |theta|. */
START_TEST(rotated_bound_grows_with_angle)
{
    double at_zero = pecert_tol_rotated(1.0, 0.0, 1.0, 0, 1.0);
    double at_far = pecert_tol_rotated(1.0, 1048576.0, 1.0, 0, 1.0);
    ck_assert_double_eq_tol(at_zero, PECERT_TOL_VALUE_U * PECERT_U32, 1e-20);
    ck_assert(at_far > 1000 * at_zero);
    ck_assert_double_eq_tol(pecert_tol_rotated(2.0, 3.0, 1.0, 0, 1.5),
                            3.0 * pecert_tol_rotated(1.0, 3.0, 1.0, 0, 1.0), 1e-18);
    /* Low frequencies carry the float32 exponent's rounding: a larger
     * relative bound, as derived in TOLERANCES.md. */
    ck_assert(pecert_tol_freq(1e-4, 0) / 1e-4 > pecert_tol_freq(1.0, 0) / 1.0);
}
END_TEST

/* The frequency bound of pair i admits an engine that forms theta_scale^i
 * (ggml): derived on paper, theta_scale = powf(1e4, -1/64) carries at most
 * 1u (correctly rounded, in [0.5, 1)), the recurrence rounds one product
 * per pair (1u), so pair i may sit (2i)u beyond the official code's
 * (|ln f| + 8)u. Each side of the bound must hold its own part. */
START_TEST(frequency_bound_grows_with_the_pair_index)
{
    double f63 = pow(1e4, -126.0 / 128.0);
    double official = pecert_freq_error_u(f63);
    double recurrence = official + 2.0 * 63;
    ck_assert_double_eq_tol(pecert_tol_freq(f63, 63), (official + recurrence) * PECERT_U32 * f63, 1e-22);
    ck_assert(pecert_tol_freq(f63, 63) > pecert_tol_freq(f63, 0));
    /* Pair 0 (frequency 1) gains nothing: the off-by-one margin below is
     * the one the highest frequency gives. */
    ck_assert_double_eq_tol(pecert_tol_freq(1.0, 0), 2.0 * pecert_freq_error_u(1.0) * PECERT_U32, 1e-22);
}
END_TEST

/* Tightness, derived on paper: a decode off-by-one at position p <= 4096 moves
 * the angle of frequency 1 by exactly 1 rad, i.e. the pair by ~0.96 of its
 * norm (2 sin(1/2)); the bound at small positions must be far below that,
 * or the suite could not catch the most common cache bug. */
START_TEST(off_by_one_is_far_outside_the_bound_at_small_positions)
{
    double move = 2.0 * sin(0.5);
    ck_assert(move > 100.0 * pecert_tol_rotated(1.0, 4096.0, 1.0, 0, 1.0));
    ck_assert(pecert_tol_freq(1.0, 0) < 1e-5);
    /* At the lowest frequency of theta 1e4, d 128 (pair 63) the shift moves
     * the angle by f63 = 1.15e-4; with the pair-index term the angle bound
     * at position 4096 is (2 (9.07 + 8) + 126 + 2) u * 4096 f63 = 4.5e-6:
     * the lowest pair alone still sees the shift 25 times over. */
    double f63 = pow(1e4, -126.0 / 128.0);
    ck_assert(f63 > 20.0 * pecert_tol_angle(4096.0 * f63, f63, 63));
}
END_TEST

START_TEST(pairing_maps_channels)
{
    int64_t a;
    int64_t b;
    pecert_rope_pair(PECERT_PAIRING_SPLIT_HALF, 64, 3, &a, &b);
    ck_assert_int_eq(a, 3);
    ck_assert_int_eq(b, 35);
    pecert_rope_pair(PECERT_PAIRING_INTERLEAVED, 64, 3, &a, &b);
    ck_assert_int_eq(a, 6);
    ck_assert_int_eq(b, 7);
}
END_TEST

/* f is a value failure of vector tc_id in file, at element, against
 * bound, with n_bad of n_checked elements off. */
static void expect_value_failure(const pecert_failure *f, const char *file, int64_t tc_id, const char *element,
                                 double bound, int64_t n_bad, int64_t n_checked)
{
    ck_assert_int_eq(f->kind, PECERT_FAILURE_VALUE);
    ck_assert_str_eq(f->file, file);
    ck_assert_int_eq(f->tc_id, tc_id);
    ck_assert_str_eq(f->element, element);
    ck_assert_double_eq(f->bound, bound);
    ck_assert_int_eq(f->n_bad, n_bad);
    ck_assert_int_eq(f->n_checked, n_checked);
}

START_TEST(failed_case_records_a_detail_line)
{
    pecert_check_result r;
    pecert_check_result_init(&r, "x.y");
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    pecert_case_worst_add(&w, 4, 2.0, 1.0, 0.5);
    pecert_check_result_enter_vector(&r, "file.json", 3);
    pecert_case_finish(&r, &w, "file.json:tcId=3", "[t=0]");
    pecert_check_result_leave_vector(&r);
    pecert_check_conclude(&r, "vectors");
    ck_assert_int_eq(r.verdict, PECERT_VERDICT_FAIL);
    ck_assert_int_eq(r.n_failed, 1);
    ck_assert_ptr_nonnull(strstr(r.failures[0].line, "file.json:tcId=3 [t=0]: want 0x3f800000 (1) got 0x40000000 (2)"));
    ck_assert_ptr_nonnull(strstr(r.diagnosis, "1 of 1 vectors outside the bound"));
    /* ... and the same case as data: the vector, the element, the numbers. */
    const pecert_failure *f = &r.failures[0];
    expect_value_failure(f, "file.json", 3, "[t=0]", 0.5, 1, 1);
    ck_assert_double_eq(f->want, 1.0);
    ck_assert_double_eq(f->got, 2.0);
    ck_assert_double_eq(f->error, 1.0);
    pecert_check_result_release(&r);
}
END_TEST

/* Nothing to run proves nothing: never PASS, and, since a vector
 * directory may hold other families only, "not applicable", not FAIL. */
START_TEST(a_check_that_ran_nothing_is_not_applicable)
{
    pecert_check_result r;
    pecert_check_result_init(&r, "x.y");
    pecert_check_conclude(&r, "vectors");
    ck_assert_int_eq(r.verdict, PECERT_VERDICT_UNSUPPORTED);
    ck_assert_str_eq(r.diagnosis, "not applicable: no vectors in the vector directory");
}
END_TEST

START_TEST(result_json_round_trip_keeps_infinity)
{
    pecert_check_result r;
    pecert_check_result_init(&r, "rope.apply.golden");
    r.verdict = PECERT_VERDICT_FAIL;
    r.worst_ratio = INFINITY;
    r.n_cases = 5;
    ck_assert_int_eq(pecert_check_result_add_line(&r, PECERT_FAILURE_STATUS, "detail <b>"), 0);
    pecert_failure v = pecert_failure_blank(PECERT_FAILURE_VALUE);
    /* The vector is data (the open vector), not read from the case's name. */
    snprintf(v.where, sizeof(v.where), "other.json:tcId=99 (a name only)");
    pecert_check_result_enter_vector(&r, "dir/a.json", 12);
    snprintf(v.element, sizeof(v.element), "[t=1,h=0,d=3] pos=7");
    v.position = 7;
    v.want = 1.0;
    v.got = NAN;
    v.error = INFINITY;
    v.bound = 1e-7;
    v.n_bad = 2;
    v.n_checked = 64;
    ck_assert_int_eq(pecert_check_result_add_failure(&r, &v), 0);
    ck_assert_int_eq(pecert_check_result_add_line(&r, PECERT_FAILURE_NOTE, "a note names no vector"), 0);
    pecert_check_result_leave_vector(&r);
    r.worst_vector = (pecert_vector_id){"dir/a.json", 12};
    ck_assert_int_eq(pecert_check_result_add_point(&r, PECERT_AXIS_TOKEN, 65536, 1e-3, 2e-3), 0);
    cJSON *json = pecert_check_result_to_json(&r);
    pecert_check_result back;
    char err[128];
    ck_assert_int_eq(pecert_check_result_from_json(&back, json, err, sizeof(err)), 0);
    ck_assert_str_eq(back.check_id, "rope.apply.golden");
    ck_assert_int_eq(back.verdict, PECERT_VERDICT_FAIL);
    ck_assert(isinf(back.worst_ratio));
    ck_assert_int_eq(back.n_cases, 5);
    ck_assert_int_eq((int)back.n_failures, 3);
    ck_assert_str_eq(back.failures[2].file, "");
    ck_assert_int_eq(back.failures[2].tc_id, -1);
    ck_assert_str_eq(back.worst_vector.file, "dir/a.json");
    ck_assert_int_eq(back.worst_vector.tc_id, 12);
    ck_assert_int_eq(back.points_axis, PECERT_AXIS_TOKEN);
    ck_assert_str_eq(back.failures[0].line, "detail <b>");
    ck_assert_int_eq(back.failures[0].kind, PECERT_FAILURE_STATUS);
    ck_assert_int_eq(back.failures[0].tc_id, -1);
    const pecert_failure *b = &back.failures[1];
    expect_value_failure(b, "dir/a.json", 12, "[t=1,h=0,d=3] pos=7", 1e-7, 2, 64);
    ck_assert_int_eq(b->position, 7);
    ck_assert(isnan(b->got) && isinf(b->error));
    ck_assert_int_eq((int)back.n_points, 1);
    ck_assert_int_eq(back.points[0].position, 65536);
    /* an axis pecert has no name for is refused, not read as position */
    pecert_check_result bad;
    cJSON_ReplaceItemInObjectCaseSensitive(json, "points_axis", cJSON_CreateString("banana"));
    ck_assert_int_eq(pecert_check_result_from_json(&bad, json, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "result: 'points_axis' is neither \"position\" nor \"token\"");
    cJSON_Delete(json);
    pecert_check_result_release(&back);
    pecert_check_result_release(&r);
}
END_TEST

/* Every failing case is kept, up to PECERT_RESULT_MAX_FAILURES; past it
 * they are counted (and the count survives the JSON). */
START_TEST(failures_kept_up_to_the_cap_then_counted)
{
    pecert_check_result r;
    pecert_check_result_init(&r, "x.y");
    for (int i = 0; i < PECERT_RESULT_MAX_FAILURES + 5; i++) {
        pecert_case_fail(&r, "case", "n=%d", i);
    }
    ck_assert_int_eq((int)r.n_failures, PECERT_RESULT_MAX_FAILURES);
    ck_assert_int_eq(r.n_failures_dropped, 5);
    ck_assert_int_eq(r.n_failed, PECERT_RESULT_MAX_FAILURES + 5);
    ck_assert_str_eq(r.failures[PECERT_RESULT_MAX_FAILURES - 1].line, "case: n=4095");
    r.verdict = PECERT_VERDICT_FAIL; /* what its failed cases make it: a pass would be refused */
    cJSON *json = pecert_check_result_to_json(&r);
    pecert_check_result back;
    char err[128];
    ck_assert_int_eq(pecert_check_result_from_json(&back, json, err, sizeof(err)), 0);
    ck_assert_int_eq((int)back.n_failures, PECERT_RESULT_MAX_FAILURES);
    ck_assert_int_eq(back.n_failures_dropped, 5);
    cJSON_Delete(json);
    pecert_check_result_release(&back);
    pecert_check_result_release(&r);
}
END_TEST

/* A results file from before the records ("details": lines) still loads. */
START_TEST(old_details_lines_load_as_records)
{
    cJSON *json = cJSON_Parse("{\"check\": \"x.y\", \"verdict\": \"fail\", \"details\": [\"a\", \"b\"]}");
    pecert_check_result back;
    char err[128];
    ck_assert_int_eq(pecert_check_result_from_json(&back, json, err, sizeof(err)), 0);
    ck_assert_int_eq((int)back.n_failures, 2);
    ck_assert_str_eq(back.failures[1].line, "b");
    cJSON_Delete(json);
    pecert_check_result_release(&back);
    json = cJSON_Parse("{\"check\": \"x.y\", \"verdict\": \"fail\", \"failures\": [{\"kind\": \"bogus\"}]}");
    ck_assert_int_eq(pecert_check_result_from_json(&back, json, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "failures"));
    cJSON_Delete(json);
}
END_TEST

START_TEST(atomic_write_reports_unwritable_path)
{
    char err[256];
    ck_assert_int_eq(pecert_write_file_atomic("/nonexistent-dir/x.json", "{}", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent-dir/x.json"));
}
END_TEST

START_TEST(atomic_write_leaves_no_temporary)
{
    char dir[] = "/tmp/pecert-atomic-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/out.json", dir);
    char err[256];
    ck_assert_int_eq(pecert_write_file_atomic(path, "{\"a\":1}", err, sizeof(err)), 0);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char buf[32] = "";
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
    fclose(f);
    ck_assert_str_eq(buf, "{\"a\":1}\n");
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(dir), 0); /* fails if a temporary was left */
}
END_TEST

/* An output buffer (family.h) in the strided layout: every view element
 * starts as NaN (an element the plugin forgets shows), every other byte
 * holds the guard, and a write anywhere but a view element (a gap between
 * strided rows, or past either end) is seen; the packed layout has no
 * gaps. The walk is an odometer over the shape (family_util.c). */
START_TEST(output_buffers_see_writes_outside_the_view)
{
    for (int strided = 0; strided < 2; strided++) {
        pecert_check_env env;
        memset(&env, 0, sizeof(env));
        env.strided_outputs = strided;
        pecert_out_buf b;
        const int64_t shape[3] = {2, 3, 4};
        ck_assert_int_eq(pecert_out_init(&b, &env, PECERT_DTYPE_F32, 3, shape), 0);
        ck_assert_int_eq(b.padded, strided);
        for (int64_t i = 0; i < b.n; i++) {
            ck_assert(isnan(pecert_out_get(&b, i)));
        }
        ck_assert(pecert_out_guards_ok(&b));
        float *data = b.view.data;
        for (int64_t i0 = 0; i0 < 2; i0++) {
            for (int64_t i1 = 0; i1 < 3; i1++) {
                for (int64_t i2 = 0; i2 < 4; i2++) {
                    data[i0 * b.view.strides[0] + i1 * b.view.strides[1] + i2 * b.view.strides[2]] =
                        (float)(i0 * 12 + i1 * 4 + i2);
                }
            }
        }
        ck_assert(pecert_out_guards_ok(&b));
        for (int64_t i = 0; i < b.n; i++) {
            ck_assert_double_eq(pecert_out_get(&b, i), (double)i);
        }
        if (strided) {
            float keep = data[4];
            data[4] = 1.0f; /* row 0's gap after its 4 elements (stride 4 + 3) */
            ck_assert(!pecert_out_guards_ok(&b));
            data[4] = keep;
            ck_assert(pecert_out_guards_ok(&b));
            float *last_gap = data + b.storage - 1; /* the last row's padding */
            *last_gap = 2.0f;
            ck_assert(!pecert_out_guards_ok(&b));
            memset(last_gap, 0xA5, sizeof(float));
        }
        data[b.storage] = 3.0f; /* the guard past the end */
        ck_assert(!pecert_out_guards_ok(&b));
        pecert_out_free(&b);
    }
}
END_TEST

Suite *make_compare_suite(void)
{
    return test_suite_of("compare",
                         TEST_TCASE("core", 0,
                                    equal_values_have_ratio_zero,
                                    worst_element_is_kept,
                                    rotated_bound_grows_with_angle,
                                    frequency_bound_grows_with_the_pair_index,
                                    pairing_maps_channels,
                                    failed_case_records_a_detail_line,
                                    result_json_round_trip_keeps_infinity,
                                    failures_kept_up_to_the_cap_then_counted,
                                    old_details_lines_load_as_records,
                                    output_buffers_see_writes_outside_the_view),
                         TEST_TCASE("limits", 0, off_by_one_is_far_outside_the_bound_at_small_positions),
                         TEST_TCASE("errors", 0,
                                    nan_output_is_never_within_a_bound,
                                    a_check_that_ran_nothing_is_not_applicable,
                                    atomic_write_reports_unwritable_path,
                                    atomic_write_leaves_no_temporary),
                         NULL);
}
