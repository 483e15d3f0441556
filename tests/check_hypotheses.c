/* check_hypotheses.c - the hypothesis replay names the bug of a float32
 * engine as it does of a double one: every mutant whose bug is one of the
 * replayed hypotheses, built on `ref` and on the float32 honest base,
 * gets exactly that hypothesis on rope.apply.golden (and no earlier one of
 * the list, which would have been recorded first). */
#include <stdio.h>
#include <string.h>

#include "runner.h"
#include "suites.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

static const struct {
    const char *mutant;
    const char *symptom;
} cases[] = {
    {"decode_off_by_one", "hypothesis:positions+1"},
    {"physical_index", "hypothesis:physical_index"},
    {"pairing_swapped", "hypothesis:pairing_swapped"},
    /* H rotates the whole head: judged under the requested call, the
     * channels past rotary_dim had a bound of 0, which no float32 engine
     * that rotates them meets. */
    {"rotary_dim_from_head_dim", "hypothesis:rotary_dim_head_dim"},
    {"llama3_ignored", "hypothesis:rope_scaling_ignored"},
    {"yarn_mscale_missing", "hypothesis:scaling_missing"},
    {"yarn_mscale_twice", "hypothesis:scaling_twice"},
};

static const char *const bases[] = {"mutants", "mutants-f32"};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

START_TEST(each_base_gets_the_hypothesis_of_its_bug)
{
    const char *base = bases[_i / (int)N_CASES];
    const char *mutant = cases[_i % (int)N_CASES].mutant;
    const char *want = cases[_i % (int)N_CASES].symptom;
    char plugin[1024];
    char oracle[1024];
    char err[2048] = "";
    snprintf(plugin, sizeof(plugin), "%s/impls/%s/%s.so", test_build_dir(), base, mutant);
    snprintf(oracle, sizeof(oracle), "%s/impls/ref.so", test_build_dir());
    pecert_run_options opt = {
        plugin, oracle, PECERT_SOURCE_DIR "/vectors", "rope.apply.golden", test_check_timeout(60.0), NULL, NULL};
    pecert_run_results res;
    int status = pecert_run(&res, &opt, err, sizeof(err));
    ck_assert_msg(status == PECERT_EXIT_FAIL && res.n_checks == 1, "%s/%s: status %d %s", base, mutant, status, err);
    const pecert_check_result *r = &res.checks[0];
    int hypotheses = 0;
    for (int i = 0; i < r->n_symptoms; i++) {
        hypotheses += strncmp(r->symptoms[i], "hypothesis:", 11) == 0;
    }
    ck_assert_msg(pecert_check_has_symptom(r, want), "%s/%s: no %s", base, mutant, want);
    ck_assert_msg(hypotheses == 1, "%s/%s: %d hypotheses recorded", base, mutant, hypotheses);
    pecert_run_results_free(&res);
}
END_TEST

Suite *make_hypotheses_suite(void)
{
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_loop_test(core, each_base_gets_the_hypothesis_of_its_bug, 0, (int)(2 * N_CASES));
    return test_suite_of("hypotheses", core, NULL);
}
