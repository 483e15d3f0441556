/*
 * check_certificate.c - what a certification says (issue 43): one verdict
 * class for one plugin on one checkpoint whichever path asks
 * (certificate.h), a coverage that names what was not examined, declines
 * of the checkpoint's own configuration honoured, and sentences true of
 * what was observed.
 *
 * The plugin is ops_subset.so: `ref` with only the operation families
 * $PECERT_TEST_OPS names, as engines come.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "certificate.h"
#include "certify_plan.h"
#include "results.h"
#include "suites.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

/* The profiles of the class table: RoPE (llama3 scaling), partial rotary,
 * M-RoPE with a vision tower, a ViT (learned table + tower), BERT
 * (learned), Bloom (ALiBi), T5. */
static const char *const profiles[] = {"llama-3.1-8b", "gpt-neox-20b", "qwen2-vl-7b", "vit-b-16",
                                       "bert-base",    "bloom",        "t5-base"};
#define N_PROFILES (sizeof(profiles) / sizeof(profiles[0]))

/* Each operation set and the class the rule (certificate.h) gives it on
 * each profile above, derived from the rule by hand:
 *  - no operation of a profile's encoding: NOT APPLICABLE;
 *  - rope without session/mrope/vision ops: CERTIFIED for the RoPE text
 *    models (the rest not examined), NOT APPLICABLE for the others;
 *  - a session that declines rotary_dim < head_dim: gpt-neox-20b (24 of
 *    96) NOT CERTIFIED, the full-rotary ones still CERTIFIED; Bloom's
 *    attention runs in the session (ALiBi inside it): CERTIFIED;
 *  - rope declining every scaled rope_type (the way docs/certify.md's adapter does):
 *    llama-3.1-8b (llama3 scaling) NOT CERTIFIED from both paths (it once
 *    read NOT APPLICABLE in --all-profiles), the default-RoPE ones
 *    CERTIFIED;
 *  - learned, ALiBi and T5 without RoPE: the RoPE ones NOT APPLICABLE,
 *    bert-base and t5-base CERTIFIED, vit-b-16 CERTIFIED for its table
 *    with its tower not examined, Bloom CERTIFIED. */
static const struct {
    const char *ops;
    int session_full_rotary;
    int default_rope_only;
    const char *classes[N_PROFILES];
} table[] = {
    {"", 0, 0, {"NOT APPLICABLE", "NOT APPLICABLE", "NOT APPLICABLE", "NOT APPLICABLE", "NOT APPLICABLE",
             "NOT APPLICABLE", "NOT APPLICABLE"}},
    {"rope", 0, 0, {"CERTIFIED", "CERTIFIED", "CERTIFIED", "NOT APPLICABLE", "NOT APPLICABLE", "NOT APPLICABLE",
                 "NOT APPLICABLE"}},
    {"rope,session", 1, 0, {"CERTIFIED", "NOT CERTIFIED", "CERTIFIED", "NOT APPLICABLE", "NOT APPLICABLE", "CERTIFIED",
                         "NOT APPLICABLE"}},
    {"rope", 0, 1, {"NOT CERTIFIED", "CERTIFIED", "CERTIFIED", "NOT APPLICABLE", "NOT APPLICABLE",
                    "NOT APPLICABLE", "NOT APPLICABLE"}},
    {"learned,alibi,t5", 0, 0, {"NOT APPLICABLE", "NOT APPLICABLE", "NOT APPLICABLE", "CERTIFIED", "CERTIFIED",
                             "CERTIFIED", "CERTIFIED"}},
};
#define N_SETS (sizeof(table) / sizeof(table[0]))

/* A profiles directory holding the table's profiles only. */
static void profiles_dir(char *dir)
{
    char cmd[2048];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (size_t i = 0; i < N_PROFILES; i++) {
        snprintf(cmd, sizeof(cmd), "cp %s/conformance/profiles/%s.json %s/", PECERT_SOURCE_DIR, profiles[i], dir);
        ck_assert_int_eq(system(cmd), 0);
    }
}

/* The class a `certify --all-profiles` line gives name, or "". */
static const char *matrix_class(const char *out, const char *name, char *buf, size_t len)
{
    char key[96];
    snprintf(key, sizeof(key), "\n  %s ", name);
    const char *at = strstr(out, key);
    buf[0] = '\0';
    if (at != NULL) {
        at += strlen(key);
        at += strspn(at, " ");
        const char *classes[] = {"NOT CERTIFIED", "NOT APPLICABLE", "CERTIFIED"};
        for (int i = 0; i < 3; i++) {
            if (strncmp(at, classes[i], strlen(classes[i])) == 0) {
                snprintf(buf, len, "%s", classes[i]);
            }
        }
    }
    return buf;
}

/* The class the verdict line of `certify --profile` gives, or "". */
static const char *single_class(const char *out, char *buf, size_t len)
{
    const char *at = strstr(out, "verdict: ops_subset ");
    buf[0] = '\0';
    if (at != NULL) {
        at += strlen("verdict: ops_subset ");
        const char *end = strstr(at, " for ");
        if (end != NULL) {
            snprintf(buf, len, "%.*s", (int)(end - at), at);
        }
    }
    return buf;
}

/* Same plugin, same profile, same class: from `certify --profile`, from
 * the --all-profiles line, and from the table; the exit status follows
 * the class (0 only for CERTIFIED). */
START_TEST(one_class_from_every_path)
{
    static char out[1 << 17];
    char dir[] = "/tmp/pecert-classes-XXXXXX";
    profiles_dir(dir);
    for (size_t s = 0; s < N_SETS; s++) {
        /* The checks' children inherit the environment (ops_subset.c). */
        ck_assert_int_eq(setenv("PECERT_TEST_OPS", table[s].ops, 1), 0);
        if (table[s].session_full_rotary) {
            ck_assert_int_eq(setenv("PECERT_TEST_SESSION_FULL_ROTARY", "1", 1), 0);
        } else {
            ck_assert_int_eq(unsetenv("PECERT_TEST_SESSION_FULL_ROTARY"), 0);
        }
        if (table[s].default_rope_only) {
            ck_assert_int_eq(setenv("PECERT_TEST_DEFAULT_ROPE_ONLY", "1", 1), 0);
        } else {
            ck_assert_int_eq(unsetenv("PECERT_TEST_DEFAULT_ROPE_ONLY"), 0);
        }
        (void)test_pecert(out, sizeof(out), "certify --all-profiles --profiles %s --impl %s/impls/testing/ops_subset.so "
                                            "-j 2 --no-timings",
                          dir, test_build_dir());
        char *matrix = strdup(out);
        ck_assert_ptr_nonnull(matrix);
        for (size_t p = 0; p < N_PROFILES; p++) {
            char from_matrix[32];
            char from_single[32];
            matrix_class(matrix, profiles[p], from_matrix, sizeof(from_matrix));
            int code = test_pecert(out, sizeof(out), "certify --profile %s --profiles %s --impl "
                                                     "%s/impls/testing/ops_subset.so --quiet",
                                   profiles[p], dir, test_build_dir());
            single_class(out, from_single, sizeof(from_single));
            ck_assert_msg(strcmp(from_matrix, from_single) == 0 && strcmp(from_single, table[s].classes[p]) == 0,
                          "ops '%s' on %s: --all-profiles says '%s', --profile says '%s', the rule '%s'\n%.3000s",
                          table[s].ops, profiles[p], from_matrix, from_single, table[s].classes[p], out);
            ck_assert_msg((code == 0) == (strcmp(from_single, "CERTIFIED") == 0), "%s on %s: exit %d for %s",
                          table[s].ops, profiles[p], code, from_single);
        }
        free(matrix);
    }
    test_remove_dir(dir);
}
END_TEST

/* Runs certify with the given operation families (and knobs) into out. */
static int certify_with(char *out, size_t len, const char *ops, const char *knob, const char *args)
{
    ck_assert_int_eq(setenv("PECERT_TEST_OPS", ops, 1), 0);
    if (knob != NULL) {
        ck_assert_int_eq(setenv(knob, "1", 1), 0);
    }
    return test_pecert(out, len, "certify --impl %s/impls/testing/ops_subset.so %s", test_build_dir(), args);
}

/* CERTIFIED with concerns not examined says so in its own line, and the
 * coverage goes into the JSON, the JUnit and the HTML header alike. */
START_TEST(coverage_is_in_every_output)
{
    static char out[1 << 17];
    char dir[] = "/tmp/pecert-coverage-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char args[1200];
    snprintf(args, sizeof(args), "--profile llama-3.1-8b --quiet --json %s/c.json --junit %s/c.xml --html %s/c.html",
             dir, dir, dir);
    ck_assert_int_eq(certify_with(out, sizeof(out), "rope", NULL, args), 0);
    ck_assert_msg(strstr(out, "verdict: ops_subset CERTIFIED for llama-3.1-8b (llama): ") != NULL &&
                      strstr(out, "; not examined: half precision, threads, decode/KV cache, batching/padding\n") !=
                          NULL &&
                      strstr(out, "\ncoverage: certified: the checkpoint's encoding, config mapping, frequencies, "
                                  "rotation, positions; not examined: half precision (rope.half_precision: declined "
                                  "by the plugin); not examined, no operation: threads, decode/KV cache, "
                                  "batching/padding\n") != NULL,
                  "%.4000s", out);
    const char *files[3] = {"c.json", "c.xml", "c.html"};
    const char *says[3] = {"\"class\":\t\"CERTIFIED\"", "<property name=\"coverage\" value=\"certified: the "
                                                            "checkpoint&#39;s encoding",
                           "coverage: certified: the checkpoint&#39;s encoding"};
    for (int i = 0; i < 3; i++) {
        char path[1200];
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        char *text = test_read_file(path);
        ck_assert_msg(strstr(text, says[i]) != NULL && strstr(text, "decode/KV cache") != NULL, "%s lacks '%s'",
                      files[i], says[i]);
        free(text);
    }
    test_remove_dir(dir);
}
END_TEST

/* A KV-cache path that declines the checkpoint's rotary_dim cannot serve
 * it: NOT CERTIFIED, naming the path (it was CERTIFIED, the session
 * checks being optional); a RoPE checkpoint's session checks hold no ALiBi
 * case (12 of them once sat in llama-2-7b's) and only its own pairing. */
START_TEST(the_session_follows_the_checkpoint)
{
    static char out[1 << 17];
    ck_assert_int_eq(certify_with(out, sizeof(out), "rope,session", "PECERT_TEST_SESSION_FULL_ROTARY",
                                  "--profile gpt-neox-20b --quiet"), 1);
    ck_assert_msg(strstr(out, "diagnosis: the plugin's decode/KV cache path declines the checkpoint's encoding") != NULL &&
                      strstr(out, "(rotary_dim 24 of 96") != NULL &&
                      strstr(out, "coverage: declined: decode/KV cache, batching/padding") != NULL,
                  "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --impl ref --profile llama-2-7b --filter "
                                                   "'decode.*,batch.*' --verbose"),
                     0);
    ck_assert_msg(strstr(out, "alibi") == NULL && strstr(out, "interleaved") == NULL &&
                      strstr(out, "split_half from position 0") != NULL,
                  "%.6000s", out);
}
END_TEST

/* An engine whose cos/sin cache ends at 2^16 (scoped_64k.so declares
 * max_position 65536) keeps every check it can take: sweeps with a far
 * position are held to the scope position by position, no longer refused
 * whole; the far length past llama-2-7b's 4096 is not the checkpoint's own
 * configuration; and the coverage states the scope certified. */
START_TEST(a_declared_scope_trims_sweeps_case_by_case)
{
    static char out[1 << 17];
    int rc = test_pecert(out, sizeof(out), "certify --impl %s/impls/testing/scoped_64k.so --profile llama-2-7b",
                         test_build_dir());
    ck_assert_msg(rc == 0, "exit %d:\n%.6000s", rc, out);
    const char *kept[] = {"rope.norm_preservation", "rope.long_position_precision", "rope.half_precision",
                          "rope.thread_determinism", "rope.inverse"};
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        char line[96];
        snprintf(line, sizeof(line), "  PASS    %s", kept[i]);
        ck_assert_msg(strstr(out, line) != NULL, "%s not PASS:\n%.6000s", kept[i], out);
    }
    ck_assert_msg(strstr(out, "positions (up to position 65536, the plugin's declared max_position)") != NULL,
                  "%.6000s", out);
}
END_TEST

/* One diagnosis: a plugin that rotates every token after the first at
 * p + 1 is named alike by run, certify and `pecert diagnose` on its dump
 * (certify once said "a failure the diagnosis cannot name yet" while
 * diagnose said "off by one (+1) from token 1 on"). */
START_TEST(run_certify_and_diagnose_name_the_partial_off_by_one)
{
    static char out[1 << 17];
    const char *named = "off by one (+1) from token 1 on";
    char plugin[1024];
    snprintf(plugin, sizeof(plugin), "%s/impls/testing/shift_after_first.so", test_build_dir());
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --impl %s --profile llama-3.1-8b --quiet", plugin), 1);
    ck_assert_msg(strstr(out, named) != NULL && strstr(out, "cannot name yet") == NULL, "certify:\n%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl %s -j 2 --quiet", plugin), 1);
    ck_assert_msg(strstr(out, named) != NULL && strstr(out, "cannot name yet") == NULL, "run:\n%.4000s", out);
    char dir[] = "/tmp/pecert-partial-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "dump --impl %s --profile llama-3.1-8b --out %s", plugin, dir), 0);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s/q_pre.npy --after "
                                                   "%s/q_post.npy --positions %s/positions.npy",
                                 dir, dir, dir),
                     1);
    ck_assert_msg(strstr(out, named) != NULL, "diagnose:\n%.4000s", out);
    test_remove_dir(dir);
}
END_TEST

/* The vector set a certification rests on is named: its hash (once empty:
 * "recorded from the official model class, set ") and its files' paths as
 * they are (an absolute path once lost its leading '/'). */
START_TEST(the_vector_set_is_named_in_full)
{
    static char out[1 << 17];
    char dir[] = "/tmp/pecert-vset-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --impl fast --profile llama-3.1-8b --quiet --vectors "
                                                   "%s/vectors --json %s/c.json --html %s/c.html",
                                 PECERT_SOURCE_DIR, dir, dir),
                     0);
    char *json = test_read_in(dir, "c.json");
    char want[1400];
    snprintf(want, sizeof(want), "\"path\":\t\"%s/vectors/profiles/llama-3.1-8b.json\"", PECERT_SOURCE_DIR);
    ck_assert_msg(strstr(json, "\"hash\":\t\"fnv1a64:") != NULL && strstr(json, want) != NULL, "%.3000s",
                  strstr(json, "\"vector_set\"") != NULL ? strstr(json, "\"vector_set\"") : json);
    free(json);
    char *html = test_read_in(dir, "c.html");
    ck_assert_ptr_nonnull(strstr(html, "recorded from the official model class, set fnv1a64:"));
    free(html);
    test_remove_dir(dir);
}
END_TEST

/* Every check certify's plan runs belongs to a concern of the table: a
 * check added to the plan without one would be certified under "other
 * checks", which names nothing a porter can act on. */
START_TEST(every_planned_check_has_a_concern)
{
    for (size_t i = 0; i < pecert_certify_plan_len; i++) {
        const char *id = pecert_certify_plan[i].check->id;
        ck_assert_msg(strcmp(pecert_check_concern(id), "other checks") != 0, "%s has no concern", id);
    }
    ck_assert_str_eq(pecert_check_concern("rope.apply.golden@sliding"), "rotation");
    ck_assert_str_eq(pecert_check_concern("certify.rope2d.reference@vision"), "vision tower");
    ck_assert_str_eq(pecert_check_concern("certify.mapping@vision"), "config mapping");
}
END_TEST

/* A run where most checks are not supported no longer reads "1 certified
 * plugin passes every check": the report says what was not examined. */
START_TEST(a_partial_run_says_what_was_not_examined)
{
    static char out[1 << 17];
    char dir[] = "/tmp/pecert-partialrun-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(setenv("PECERT_TEST_OPS", "alibi", 1), 0);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl %s/impls/testing/ops_subset.so -j 2 --quiet --json "
                                                   "%s/r.json",
                                 test_build_dir(), dir),
                     0);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/r.json -o %s/r.html", dir, dir), 0);
    char *html = test_read_in(dir, "r.html");
    ck_assert_msg(strstr(html, "1 plugin passes every check it was examined by (") != NULL &&
                      strstr(html, "checks not supported: not examined)") != NULL,
                  "%.2000s", strstr(html, "<p class=\"big\">") != NULL ? strstr(html, "<p class=\"big\">") : html);
    free(html);
    test_remove_dir(dir);
}
END_TEST

/* A plugin that refuses rows past a learned table with E_UNSUPPORTED (the
 * ABI asks E_INVAL) is not certified, and told exactly that: never "does
 * not check the table's bounds", which it does. */
START_TEST(a_wrong_status_is_named_as_a_wrong_status)
{
    static char out[1 << 17];
    ck_assert_int_eq(certify_with(out, sizeof(out), "learned", "PECERT_TEST_LEARNED_UNSUPPORTED",
                                  "--profile bert-base"), 1);
    ck_assert_msg(strstr(out, "diagnosis: learned lookup refuses a row outside the table with PECERT_E_UNSUPPORTED: "
                              "the ABI asks") != NULL &&
                      strstr(out, "does not check the table's bounds") == NULL,
                  "%.4000s", out);
}
END_TEST

/* A grade tells "less precise" from "wrong": shown under a passing check
 * only (a 5.35e7x grade once sat under a failure). */
START_TEST(precision_is_noted_under_passing_checks_only)
{
    pecert_check_result r;
    pecert_check_result_init(&r, "rope.freq.golden");
    r.precision.graded = 1;
    r.precision.ratio = 5.35e7;
    r.verdict = PECERT_VERDICT_PASS;
    ck_assert_int_eq(pecert_precision_noted(&r), 1);
    for (int v = PECERT_VERDICT_UNSUPPORTED; v < PECERT_VERDICT_COUNT; v++) {
        r.verdict = (pecert_verdict)v;
        ck_assert_int_eq(pecert_precision_noted(&r), 0);
    }
    r.verdict = PECERT_VERDICT_PASS;
    r.precision.ratio = PECERT_PRECISION_NOTE_RATIO;
    ck_assert_int_eq(pecert_precision_noted(&r), 0);
    pecert_check_result_release(&r);
}
END_TEST

Suite *make_certificate_suite(void)
{
    return test_suite_of("certificate",
                         TEST_TCASE("core", 900,
                                    one_class_from_every_path,
                                    coverage_is_in_every_output,
                                    the_session_follows_the_checkpoint,
                                    a_wrong_status_is_named_as_a_wrong_status,
                                    a_declared_scope_trims_sweeps_case_by_case,
                                    run_certify_and_diagnose_name_the_partial_off_by_one,
                                    a_partial_run_says_what_was_not_examined,
                                    every_planned_check_has_a_concern,
                                    the_vector_set_is_named_in_full,
                                    precision_is_noted_under_passing_checks_only),
                         NULL);
}
