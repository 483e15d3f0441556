/* check_precision.c - the precision grade tells "less precise" from
 * "wrong": its arithmetic (values derived by hand below), a float32 engine
 * graded far from the official code yet passing, one computing as the
 * official code does graded near it, and the grade surviving the JSON the
 * child process and --json files carry. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_json.h"
#include "rope_checks.h"
#include "runner.h"
#include "suites.h"
#include "tolerance.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

/* exact 1, official 1 + u, plugin 1 + 36 u (scale 1): 36 u against 1 u,
 * grade 36. An official value that is exact by luck is floored (0.5 u):
 * grade 72. The larger multiple is the one kept. */
START_TEST(grade_is_the_largest_multiple_of_the_official_error)
{
    pecert_grade g;
    pecert_grade_init(&g);
    pecert_grade_add(&g, 0, 1.0 + 36 * PECERT_U32, 1.0 + PECERT_U32, 1.0, 1.0, 0.5);
    ck_assert_double_eq_tol(g.error_u, 36.0, 1e-9);
    ck_assert_double_eq_tol(g.official_u, 1.0, 1e-9);
    ck_assert_double_eq_tol(g.ratio, 36.0, 1e-9);
    pecert_grade_add(&g, 1, 2.0 + 72 * PECERT_U32, 2.0, 2.0, 2.0, 0.5);
    ck_assert_int_eq(g.index, 1);
    ck_assert_double_eq_tol(g.ratio, 72.0, 1e-9);
    pecert_grade_add(&g, 2, NAN, 1.0, 1.0, 1.0, 0.5); /* the bound's business */
    ck_assert_int_eq(g.index, 1);
}
END_TEST

static pecert_run_results run_freq(const char *variant)
{
    char plugin[1024];
    char oracle[1024];
    char err[2048] = "";
    snprintf(plugin, sizeof(plugin), "%s/impls/honest/%s.so", test_build_dir(), variant);
    snprintf(oracle, sizeof(oracle), "%s/impls/ref.so", test_build_dir());
    pecert_run_options opt = {
        plugin, oracle, PECERT_SOURCE_DIR "/vectors", "rope.freq.golden", test_check_timeout(60.0), NULL, NULL};
    pecert_run_results res;
    int status = pecert_run(&res, &opt, err, sizeof(err));
    ck_assert_msg(status == PECERT_EXIT_PASS && res.n_checks == 1, "%s: status %d %s", variant, status, err);
    return res;
}

/* ggml's recurrence lands ~36 u at the last pairs where the official code
 * is within ~1 u (TOLERANCES.md): graded less precise, and still PASS. */
START_TEST(recurrence_passes_and_is_graded_less_precise)
{
    pecert_run_results res = run_freq("ggml_recurrence");
    const pecert_check_result *r = &res.checks[0];
    ck_assert_int_eq(r->verdict, PECERT_VERDICT_PASS);
    ck_assert_msg(r->precision.ratio > PECERT_PRECISION_NOTE_RATIO, "grade %g", r->precision.ratio);
    ck_assert_msg(r->precision.error_u > 20 && r->precision.error_u < 60, "error %g u", r->precision.error_u);
    ck_assert_ptr_nonnull(strstr(r->precision.where, "inv_freq["));
    cJSON *j = pecert_check_result_to_json(r);
    pecert_check_result back;
    char err[256];
    ck_assert_int_eq(pecert_check_result_from_json(&back, j, err, sizeof(err)), 0);
    ck_assert(back.precision.graded);
    ck_assert_double_eq(back.precision.ratio, r->precision.ratio);
    ck_assert_str_eq(back.precision.where, r->precision.where);
    pecert_check_result_release(&back);
    cJSON_Delete(j);
    pecert_run_results_free(&res);
}
END_TEST

/* The official float32 arithmetic is, by construction, as precise as the
 * official code: graded at most a few times it, below the note. */
START_TEST(official_arithmetic_is_graded_as_precise)
{
    pecert_run_results res = run_freq("official_f32");
    const pecert_check_result *r = &res.checks[0];
    ck_assert_int_eq(r->verdict, PECERT_VERDICT_PASS);
    ck_assert_msg(r->precision.ratio <= PECERT_PRECISION_NOTE_RATIO, "grade %g at %s", r->precision.ratio,
                  r->precision.where);
    pecert_run_results_free(&res);
}
END_TEST

/* The porter's complaint that started it: certify said NOT CERTIFIED for
 * llama-2-7b to ggml's recurrence. It is CERTIFIED, with the grade said. */
START_TEST(certify_says_less_precise_and_certifies)
{
    static char out[1 << 16];
    int status = test_pecert(out, sizeof(out), "certify --profile llama-2-7b --impl %s/impls/honest/ggml_recurrence.so --quiet",
                             test_build_dir());
    ck_assert_msg(status == 0, "exit %d: %s", status, out);
    ck_assert_ptr_nonnull(strstr(out, "CERTIFIED for llama-2-7b"));
    ck_assert_ptr_null(strstr(out, "NOT CERTIFIED"));
    ck_assert_ptr_nonnull(strstr(out, "precision: less precise than the official float32 code (not a failure): rope.freq.golden"));
}
END_TEST

Suite *make_precision_suite(void)
{
    return test_suite_of("precision",
                         TEST_TCASE("core", 120,
                                    grade_is_the_largest_multiple_of_the_official_error,
                                    recurrence_passes_and_is_graded_less_precise,
                                    official_arithmetic_is_graded_as_precise,
                                    certify_says_less_precise_and_certifies),
                         NULL);
}
