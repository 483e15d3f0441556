/* check_runner.c - isolation: crashing, hanging and wrong plugins are
 * reported and the run finishes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "filter.h"
#include "job_pool.h"
#include "runner.h"
#include "suites.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

typedef struct run_fixture {
    char plugin[1024];
    char oracle[1024];
    pecert_run_results results;
    int status;
    char err[2048];
} run_fixture;

/* Runs BUILD/impls/rel with BUILD/impls/oracle_rel as the oracle. */
static void run_plugin_with(run_fixture *f, const char *rel, const char *oracle_rel, const char *filter,
                            double timeout_s)
{
    snprintf(f->plugin, sizeof(f->plugin), "%s/impls/%s", test_build_dir(), rel);
    snprintf(f->oracle, sizeof(f->oracle), "%s/impls/%s", test_build_dir(), oracle_rel);
    pecert_run_options opt = {f->plugin, f->oracle, PECERT_SOURCE_DIR "/vectors", filter,
                              timeout_s, NULL, NULL};
    f->err[0] = '\0';
    f->status = pecert_run(&f->results, &opt, f->err, sizeof(f->err));
}

static void run_plugin(run_fixture *f, const char *rel, const char *filter, double timeout_s)
{
    run_plugin_with(f, rel, "ref.so", filter, timeout_s);
}

static const pecert_check_result *find(const run_fixture *f, const char *id)
{
    for (size_t i = 0; i < f->results.n_checks; i++) {
        if (strcmp(f->results.checks[i].check_id, id) == 0) {
            return &f->results.checks[i];
        }
    }
    ck_abort_msg("check %s not in the results", id);
    return NULL;
}

START_TEST(segfaulting_plugin_is_a_crash_naming_the_case)
{
    run_fixture f;
    run_plugin(&f, "testing/segv.so", "rope.*", 30.0);
    ck_assert_msg(f.status == PECERT_EXIT_FAIL, "status %d: %s", f.status, f.err);
    const pecert_check_result *r = find(&f, "rope.apply.golden");
    ck_assert_int_eq(r->verdict, PECERT_VERDICT_CRASH);
    ck_assert_msg(strstr(r->diagnosis, "signal 11") != NULL, "%s", r->diagnosis);
    ck_assert_msg(strstr(r->diagnosis, ".json:tcId=") != NULL, "%s", r->diagnosis);
    /* The vector it died on is data too: the worst case's, and cited. */
    ck_assert_msg(strstr(r->diagnosis, r->worst_vector.file) != NULL && r->worst_vector.tc_id >= 0, "%s",
                  r->worst_vector.file);
    ck_assert_int_eq(r->n_vrefs, 1);
    ck_assert_str_ne(r->vrefs[0].source, "?:?");
    /* The run went on after the crash: every later check has a result. */
    ck_assert_int_eq(find(&f, "rope.inplace_and_strides")->verdict, PECERT_VERDICT_CRASH);
    /* A NULL op is "not supported", never a pass. */
    ck_assert_int_eq(find(&f, "rope.freq.golden")->verdict, PECERT_VERDICT_UNSUPPORTED);
    pecert_run_results_free(&f.results);
}
END_TEST

START_TEST(hanging_plugin_times_out_and_the_run_finishes)
{
    run_fixture f;
    run_plugin(&f, "testing/hang.so", "rope.[ai]*", 0.5);
    ck_assert_msg(f.status == PECERT_EXIT_FAIL, "status %d: %s", f.status, f.err);
    ck_assert_int_eq((int)f.results.n_checks, 4); /* apply.golden, identity, inverse, inplace */
    for (size_t i = 0; i < f.results.n_checks; i++) {
        const pecert_check_result *r = &f.results.checks[i];
        ck_assert_msg(r->verdict == PECERT_VERDICT_TIMEOUT, "%s: %s", r->check_id, r->diagnosis);
        ck_assert(r->elapsed_s < 5.0);
    }
    pecert_run_results_free(&f.results);
}
END_TEST

/* A failing golden check's evidence names its vectors as data: every case
 * record its file and tcId, the worst case's vector, and the citations
 * drawn from those fields, with provenance. */
START_TEST(nan_output_fails_golden_apply)
{
    run_fixture f;
    run_plugin(&f, "testing/nan.so", "rope.apply.golden", 60.0);
    ck_assert_int_eq(f.status, PECERT_EXIT_FAIL);
    const pecert_check_result *r = find(&f, "rope.apply.golden");
    ck_assert_int_eq(r->verdict, PECERT_VERDICT_FAIL);
    for (size_t i = 0; i < r->n_failures; i++) {
        const pecert_failure *x = &r->failures[i];
        if (x->kind == PECERT_FAILURE_NOTE) {
            continue;
        }
        ck_assert_msg(strstr(x->file, "/vectors/") != NULL && x->tc_id >= 0, "%s", x->line);
        char name[300];
        snprintf(name, sizeof(name), "%s:tcId=%lld", x->file, (long long)x->tc_id);
        ck_assert_msg(strncmp(x->where, name, strlen(name)) == 0, "%s vs %s", x->where, name);
        /* the element's words and its position as data agree */
        if (x->kind == PECERT_FAILURE_VALUE) {
            char pos[32];
            snprintf(pos, sizeof(pos), "pos=%lld", (long long)x->position);
            ck_assert_msg(x->position >= 0 && strstr(x->element, pos) != NULL, "%s", x->element);
        }
    }
    ck_assert_str_ne(r->worst_vector.file, "");
    ck_assert_int_ge(r->n_vrefs, 1);
    ck_assert_msg(strstr(r->vrefs[0].file, "/vectors/") == NULL, "relative: %s", r->vrefs[0].file);
    ck_assert_str_ne(r->vrefs[0].source, "?:?");
    pecert_run_results_free(&f.results);
}
END_TEST

START_TEST(ref_passes_golden_frequencies)
{
    run_fixture f;
    run_plugin(&f, "ref.so", "rope.freq.golden", 60.0);
    ck_assert_msg(f.status == PECERT_EXIT_PASS, "status %d: %s", f.status, f.err);
    ck_assert_int_eq(find(&f, "rope.freq.golden")->verdict, PECERT_VERDICT_PASS);
    ck_assert(find(&f, "rope.freq.golden")->n_cases > 0);
    pecert_run_results_free(&f.results);
}
END_TEST

START_TEST(shifted_positions_fail_golden_apply)
{
    run_fixture f;
    run_plugin(&f, "testing/shifted.so", "rope.*.golden", 60.0);
    ck_assert_int_eq(f.status, PECERT_EXIT_FAIL);
    ck_assert_int_eq(find(&f, "rope.apply.golden")->verdict, PECERT_VERDICT_FAIL);
    ck_assert_int_eq(find(&f, "rope.cos_sin.golden")->verdict, PECERT_VERDICT_FAIL);
    /* Frequencies do not depend on positions: the bug is localised. */
    ck_assert_int_eq(find(&f, "rope.freq.golden")->verdict, PECERT_VERDICT_PASS);
    pecert_run_results_free(&f.results);
}
END_TEST

START_TEST(unknown_filter_is_a_usage_error)
{
    run_fixture f;
    run_plugin(&f, "ref.so", "no.such.check", 10.0);
    ck_assert_int_eq(f.status, PECERT_EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(f.err, "no.such.check"));
    pecert_run_results_free(&f.results);
}
END_TEST

/* The oracle refusing a config is its own outcome: the checks that need
 * it say "the oracle refused" with the oracle's message, and none of it
 * is counted against the plugin (ref here, which is right). With nothing
 * else selected, nothing was certified either: exit 1, saying so. */
START_TEST(oracle_refusal_is_not_the_plugins_failure)
{
    run_fixture f;
    run_plugin_with(&f, "ref.so", "testing/oracle_refuses.so", "rope.apply.golden,rope.cos_sin.golden", 60.0);
    ck_assert_msg(f.status == PECERT_EXIT_FAIL, "status %d: %s", f.status, f.err);
    ck_assert_int_eq(f.results.n_findings, 1);
    ck_assert_str_eq(f.results.findings[0].id, "nothing_certified");
    const pecert_check_result *r = find(&f, "rope.apply.golden");
    ck_assert_int_eq(r->verdict, PECERT_VERDICT_UNSUPPORTED);
    ck_assert_int_eq(r->n_failed, 0);
    ck_assert_int_gt(r->n_oracle_refused, 0);
    ck_assert_msg(strstr(r->diagnosis, "the oracle refused all") != NULL, "%s", r->diagnosis);
    ck_assert_msg(strstr(r->diagnosis, "config refused by the test oracle") != NULL, "%s", r->diagnosis);
    ck_assert_int_eq(find(&f, "rope.cos_sin.golden")->verdict, PECERT_VERDICT_UNSUPPORTED);
    pecert_run_results_free(&f.results);
}
END_TEST

/* An engine with mrope_apply but no mrope_index still gets a verdict on
 * its text-only rotation (it was "not supported" as a whole). */
START_TEST(text_only_rotation_judged_without_mrope_index)
{
    run_fixture f;
    run_plugin(&f, "testing/mrope_apply_only.so", "mrope.text_only_is_rope", 60.0);
    ck_assert_msg(f.status == PECERT_EXIT_PASS, "status %d: %s", f.status, f.err);
    const pecert_check_result *r = find(&f, "mrope.text_only_is_rope");
    ck_assert_int_eq(r->verdict, PECERT_VERDICT_PASS);
    ck_assert_int_gt(r->n_cases - r->n_unsupported, 0);
    pecert_run_results_free(&f.results);
}
END_TEST

/* Engines with int32 positions that rotate whole heads only: one declines
 * the rest itself, one declares that scope (ABI 1.3) and writes garbage
 * outside it. Both get thread-determinism verdicts within int32 and
 * pairing verdicts on a whole-head probe, instead of "not supported", and
 * decode verdicts on their whole-head configs; the declared one is never
 * called outside its scope (rope, M-RoPE and decode session alike), and its
 * scope is in the run's info. */
START_TEST(narrow_engines_get_verdicts_inside_their_scope)
{
    const char *const plugins[] = {"testing/int32_whole_head.so", "testing/scoped_int32.so"};
    const char *const ids[] = {"rope.thread_determinism", "rope.pairing_convention", "decode.prefill_equivalence",
                               "rope.apply.golden", "mrope.apply.golden"};
    for (int p = 0; p < 2; p++) {
        run_fixture f;
        run_plugin(&f, plugins[p],
                   "rope.thread_determinism,rope.pairing_convention,decode.prefill_equivalence,rope.apply.golden,"
                   "mrope.apply.golden",
                   120.0);
        ck_assert_msg(f.status == PECERT_EXIT_PASS, "%s: status %d: %s", plugins[p], f.status, f.err);
        for (int i = 0; i < 5; i++) {
            const pecert_check_result *r = find(&f, ids[i]);
            ck_assert_msg(r->verdict == PECERT_VERDICT_PASS, "%s %s: %s", plugins[p], ids[i], r->diagnosis);
            ck_assert_int_gt(r->n_cases - r->n_unsupported, 0); /* the in-scope cases, judged */
            if (i < 3) {
                ck_assert_int_gt(r->n_unsupported, 0); /* the out-of-scope ones, not */
            }
            if (i < 3 && p == 0) { /* and a pass says what was declined */
                ck_assert_msg(strstr(r->diagnosis, " declined by the plugin (first: ") != NULL, "%s", r->diagnosis);
            }
        }
        if (p == 1) { /* the decode session's partial configs never reached the plugin */
            ck_assert_int_gt(find(&f, "decode.prefill_equivalence")->n_beyond_scope, 0);
        }
        const char *scope = f.results.info.plugin_scope;
        ck_assert_msg(p == 0 ? strcmp(scope, "none declared") == 0 : strstr(scope, "positions <= 2147483647") != NULL,
                      "%s: scope '%s'", plugins[p], scope);
        if (p == 1) {
            ck_assert_int_gt(find(&f, "rope.thread_determinism")->n_beyond_scope, 0);
        }
        pecert_run_results_free(&f.results);
    }
}
END_TEST

/* A plugin that looks for the result pipe to write a PASS into
 * (impls/testing/forger.c) finds none: it runs in the engine host, which
 * holds no descriptor of the check's but its channel. Then it _exit()s
 * (a CRASH saying the engine exited in the middle of a call), or lets the
 * check go on with its wrong frequency (a FAIL): never a pass. */
START_TEST(forged_results_are_crashes)
{
    const char *const modes[] = {"exit", "continue", "other"};
    const pecert_verdict verdicts[] = {PECERT_VERDICT_CRASH, PECERT_VERDICT_FAIL, PECERT_VERDICT_CRASH};
    for (int m = 0; m < 3; m++) {
        run_fixture f;
        ck_assert_int_eq(setenv("FORGER_MODE", modes[m], 1), 0);
        run_plugin(&f, "testing/forger.so", "rope.freq.golden", 30.0);
        ck_assert_msg(f.status == PECERT_EXIT_FAIL, "%s: status %d: %s", modes[m], f.status, f.err);
        const pecert_check_result *r = find(&f, "rope.freq.golden");
        ck_assert_msg(r->verdict == verdicts[m], "%s: verdict %d: %s", modes[m], (int)r->verdict, r->diagnosis);
        ck_assert_msg(verdicts[m] != PECERT_VERDICT_CRASH ||
                          strstr(r->diagnosis, "the engine host exited with status 0 in the middle of a call") != NULL,
                      "%s: %s", modes[m], r->diagnosis);
        pecert_run_results_free(&f.results);
    }
    unsetenv("FORGER_MODE");
}
END_TEST

/* A plugin that forks a sleeper (impls/testing/grandchild.c) is refused:
 * the engine host's sandbox allows threads, never processes, and never a
 * file opened for writing. The check ends with its own verdict, and the
 * plugin's own words (captured) say that fork failed. */
START_TEST(a_grandchild_neither_holds_the_check_nor_outlives_it)
{
    char pidfile[] = "/tmp/pecert-grandchild-XXXXXX";
    test_make_temp_file(pidfile);
    ck_assert_int_eq(setenv("GRANDCHILD_PIDFILE", pidfile, 1), 0);
    run_fixture f;
    run_plugin(&f, "testing/grandchild.so", "rope.freq.golden", 20.0);
    unsetenv("GRANDCHILD_PIDFILE");
    ck_assert_msg(f.status == PECERT_EXIT_PASS, "status %d: %s", f.status, f.err);
    const pecert_check_result *r = find(&f, "rope.freq.golden");
    ck_assert_msg(r->verdict == PECERT_VERDICT_PASS && r->elapsed_s < 10.0, "%s (%.1f s)", r->diagnosis, r->elapsed_s);
    ck_assert_msg(strstr(r->plugin_output, "grandchild: fork: Operation not permitted") != NULL, "plugin said '%s'",
                  r->plugin_output);
    FILE *p = fopen(pidfile, "r");
    int pid = 0;
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(fscanf(p, "%d", &pid), EOF); /* not written: no file opens for writing */
    fclose(p);
    unlink(pidfile);
    pecert_run_results_free(&f.results);
}
END_TEST

/* ---- the job pool (pecert mutation --jobs) ----------------------------- */

typedef struct pool_probe {
    size_t order[8];  /* indexes in the order delivered */
    char text[8][32];
    char why[8][128];
    char printed[8][64];
    size_t n;
    int max_running;
    size_t last_done;
} pool_probe;

/* Job 0 is the slowest, so it ends last; job 3 dies on a signal; job 5
 * returns no result; each prints a line, to stdout or stderr. */
static char *probe_work(size_t index, void *user)
{
    (void)user;
    usleep((useconds_t)(index == 0 ? 300000 : 20000));
    fprintf(index % 2 ? stderr : stdout, "job %zu says hello\n", index);
    if (index == 3) {
        raise(SIGKILL);
    }
    if (index == 5) {
        return NULL;
    }
    char *text = malloc(32);
    snprintf(text, 32, "job %zu", index);
    return text;
}

static void probe_deliver(size_t index, const char *text, size_t len, const char *why, const char *printed,
                          void *user)
{
    pool_probe *p = user;
    snprintf(p->printed[p->n], sizeof(p->printed[p->n]), "%s", printed);
    p->order[p->n] = index;
    snprintf(p->text[p->n], sizeof(p->text[p->n]), "%s", text != NULL ? text : "-");
    snprintf(p->why[p->n], sizeof(p->why[p->n]), "%s", why);
    ck_assert(text == NULL || strlen(text) == len);
    p->n++;
}

static void probe_progress(size_t done, size_t total, int running, void *user)
{
    pool_probe *p = user;
    ck_assert_uint_le(done, total);
    p->max_running = running > p->max_running ? running : p->max_running;
    p->last_done = done;
}

/* Results come back in job order whatever order the workers end in, each
 * exactly once; a worker that dies or returns nothing is delivered with
 * why; never more workers than asked. */
START_TEST(job_pool_delivers_in_order_and_reports_dead_workers)
{
    for (int jobs = 1; jobs <= 3; jobs++) {
        pool_probe p = {0};
        pecert_pool pool = {6, jobs, probe_work, probe_deliver, probe_progress, &p, NULL};
        char err[256] = "";
        ck_assert_int_eq(pecert_pool_run(&pool, err, sizeof(err)), 0);
        ck_assert_uint_eq(p.n, 6);
        ck_assert_int_eq(p.max_running, jobs);
        for (size_t i = 0; i < 6; i++) {
            ck_assert_uint_eq(p.order[i], i);
        }
        ck_assert_str_eq(p.text[0], "job 0");
        ck_assert_str_eq(p.text[4], "job 4");
        ck_assert_str_eq(p.text[3], "-");
        ck_assert_msg(strstr(p.why[3], "killed by signal 9") != NULL, "%s", p.why[3]);
        ck_assert_str_eq(p.text[5], "-");
        ck_assert_msg(strstr(p.why[5], "wrote no result (exit status 1)") != NULL, "%s", p.why[5]);
        ck_assert_str_eq(p.why[1], "");
        ck_assert_str_eq(p.printed[0], "job 0 says hello\n");
        ck_assert_str_eq(p.printed[1], "job 1 says hello\n");
        ck_assert_uint_eq(p.last_done, 6); /* the last progress call counts every job */
    }
}
END_TEST

/* --filter: globs, commas, '!' exclusions (filter.c). */
START_TEST(filter_takes_several_globs_and_exclusions)
{
    ck_assert(pecert_filter_selects(NULL, "rope.apply.golden"));
    ck_assert(pecert_filter_selects("", "rope.apply.golden"));
    ck_assert(pecert_filter_selects("rope.*.golden", "rope.apply.golden"));
    ck_assert(!pecert_filter_selects("rope.*.golden", "rope.inverse"));
    ck_assert(pecert_filter_selects("t5.*,rope.inverse", "rope.inverse"));
    ck_assert(pecert_filter_selects("t5.*,rope.inverse", "t5.bucket.golden"));
    ck_assert(!pecert_filter_selects("rope.*,!rope.half_*", "rope.half_precision"));
    ck_assert(pecert_filter_selects("rope.*,!rope.half_*", "rope.inverse"));
    ck_assert(pecert_filter_selects("!rope.*", "t5.bucket.golden")); /* exclusions alone: the rest */
    ck_assert(!pecert_filter_selects("!rope.*", "rope.inverse"));
    ck_assert(!pecert_filter_selects("rope.inverse,!rope.inverse", "rope.inverse")); /* exclusion wins */
}
END_TEST

/* A filtered run loads the payloads of the ops its checks read
 * (pecert_check_reads) and no other: each family of checks, run alone on
 * the bundled vectors (whose checkpoints' learned tables it then skips),
 * passes on ref with cases in every check ref supports, and a check that
 * read a skipped payload would have aborted (a CRASH here). */
START_TEST(each_family_runs_alone_on_the_payloads_it_reads)
{
    char done[64][32];
    size_t n_done = 0;
    for (size_t i = 0; i < pecert_num_checks; i++) {
        char family[32];
        snprintf(family, sizeof(family), "%.*s", (int)strcspn(pecert_checks[i]->id, "."), pecert_checks[i]->id);
        size_t k = 0;
        while (k < n_done && strcmp(done[k], family) != 0) {
            k++;
        }
        if (k < n_done) {
            continue;
        }
        ck_assert_uint_lt(n_done, 64);
        snprintf(done[n_done++], sizeof(done[0]), "%s", family);
        char filter[40];
        snprintf(filter, sizeof(filter), "%s.*", family);
        run_fixture f;
        run_plugin(&f, "ref.so", filter, 120.0);
        ck_assert_msg(f.status == PECERT_EXIT_PASS, "--filter %s: status %d: %s", filter, f.status, f.err);
        for (size_t c = 0; c < f.results.n_checks; c++) {
            const pecert_check_result *r = &f.results.checks[c];
            /* ref has no threads to compare (rope.thread_determinism) */
            ck_assert_msg(r->n_cases > 0 || r->verdict == PECERT_VERDICT_UNSUPPORTED, "%s: no case", r->check_id);
        }
        pecert_run_results_free(&f.results);
    }
    ck_assert_uint_ge(n_done, 18);
}
END_TEST

Suite *make_runner_suite(void)
{
    return test_suite_of("runner",
                         TEST_TCASE("core", 120,
                                    ref_passes_golden_frequencies,
                                    filter_takes_several_globs_and_exclusions,
                                    job_pool_delivers_in_order_and_reports_dead_workers,
                                    oracle_refusal_is_not_the_plugins_failure,
                                    text_only_rotation_judged_without_mrope_index,
                                    narrow_engines_get_verdicts_inside_their_scope,
                                    shifted_positions_fail_golden_apply,
                                    each_family_runs_alone_on_the_payloads_it_reads),
                         TEST_TCASE("errors", 120,
                                    segfaulting_plugin_is_a_crash_naming_the_case,
                                    hanging_plugin_times_out_and_the_run_finishes,
                                    nan_output_fails_golden_apply,
                                    unknown_filter_is_a_usage_error),
                         /* The hostile-plugin suite (docs/threat-model.md):
                          * CK_RUN_CASE=hostile runs it across the suites. */
                         TEST_TCASE("hostile", 120,
                                    forged_results_are_crashes,
                                    a_grandchild_neither_holds_the_check_nor_outlives_it),
                         NULL);
}
