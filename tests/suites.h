/*
 * suites.h - every Check suite of the unit-test binary, one per unit.
 * Each tests/check_<unit>.c defines make_<unit>_suite(); check_main.c runs
 * them all.
 */
#ifndef PECERT_TESTS_SUITES_H
#define PECERT_TESTS_SUITES_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>

Suite *make_vectors_suite(void);
Suite *make_compare_suite(void);
Suite *make_plugin_load_suite(void);
Suite *make_runner_suite(void);
Suite *make_cli_suite(void);
Suite *make_sinusoidal_suite(void);
Suite *make_fast_suite(void);
Suite *make_fast_mrope_suite(void);
Suite *make_rope2d_suite(void);
Suite *make_posinterp_suite(void);
Suite *make_cope_suite(void);
Suite *make_peg_suite(void);
Suite *make_sine2d_suite(void);
Suite *make_relpos2d_suite(void);
Suite *make_deberta_suite(void);
Suite *make_certify_sine2d_suite(void);
Suite *make_fast_alibi_suite(void);
Suite *make_fast_session_suite(void);
Suite *make_fast_tables_suite(void);
Suite *make_reports_suite(void);
Suite *make_certify_suite(void);
Suite *make_certify_vision_suite(void);
Suite *make_certify_wrappers_suite(void);
Suite *make_certify_sinusoidal_suite(void);
Suite *make_hypotheses_suite(void);
Suite *make_precision_suite(void);
Suite *make_dumps_suite(void);
Suite *make_conveniences_suite(void);
Suite *make_hostile_suite(void);
Suite *make_certificate_suite(void);
Suite *make_engine_suite(void);
Suite *make_python_suite(void);
Suite *make_bench_probe_suite(void);

/* ARRAY_LEN: how many elements the array a holds (an array, not a pointer). */
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* test_tcase_of: a test case named name holding tests[0..n) in that order;
 * timeout_s > 0 sets its timeout, 0 keeps Check's default. TEST_TCASE
 * takes the tests as arguments: TEST_TCASE("core", 120, a, b, c). */
TCase *test_tcase_of(const char *name, double timeout_s, const TTest *const *tests, size_t n);
#define TEST_TCASE(name, timeout_s, ...)                                                                          \
    test_tcase_of((name), (timeout_s), (const TTest *const[]){__VA_ARGS__},                                      \
                  sizeof((const TTest *const[]){__VA_ARGS__}) / sizeof(const TTest *))

/* test_suite_of: a suite named name of the test cases that follow, in that
 * order, ended by NULL. */
Suite *test_suite_of(const char *name, ...);

/* test_next_random: SplitMix64's next value from state (advanced): the
 * tests' seeded random inputs, the same on every machine. */
uint64_t test_next_random(uint64_t *state);

/* test_remove_dir: removes the directory dir and all below it (a test's
 * mkdtemp directory); the test fails if it cannot. */
void test_remove_dir(const char *dir);

/* test_check_timeout: a per-check time limit handed to pecert, times
 * CK_TIMEOUT_MULTIPLIER when set (make asan sets 4: every check runs
 * several times slower there). */
double test_check_timeout(double seconds);

/* The build directory (plugins live in BUILD/impls), from $PECERT_BUILD. */
const char *test_build_dir(void);
/* BUILD/family-vectors: the families' vectors without the checkpoints'
 * profiles and mappings, as the mutation gate runs its mutants (`make
 * unit` copies them there; the test fails, saying so, where they are not):
 * for a test of a whole run's plumbing or of a mutant's verdict, at 40% of
 * a run on every vector. */
const char *test_family_vectors(void);
/* test_impl_path: BUILD/impls/NAME.so into path ("mutants/x", "ref", ...). */
void test_impl_path(char *path, size_t len, const char *name);

/* test_pecert runs BUILD/pecert with the formatted arguments (through the
 * shell), its stdout and stderr into out; returns its exit status. */
int test_pecert(char *out, size_t out_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* test_read_file: the whole file at path, malloc'ed and NUL-terminated
 * (the test fails if it cannot be read). */
char *test_read_file(const char *path);
/* test_make_temp_file: creates the empty file mkstemp names from
 * path_template (".../name-XXXXXX", rewritten in place); the test
 * unlinks it. */
void test_make_temp_file(char *path_template);
/* Mapping a config.json in a certify test: test_certify_parse_ok maps json
 * into *m or fails the test with pecert's error; test_certify_parse_fails_
 * naming requires a refusal in one line naming key; both leave pecert's
 * error in err (of len). test_certify_warned_about is 1 if m warns about
 * key ("key: why"). */
struct pecert_certify_model;
void test_certify_parse_ok(struct pecert_certify_model *m, const char *json, char *err, size_t len);
void test_certify_parse_fails_naming(struct pecert_certify_model *m, const char *json, const char *key, char *err,
                                     size_t len);
int test_certify_warned_about(const struct pecert_certify_model *m, const char *key);
/* test_certify_run: pecert certify of the mapped model m on the plugin
 * (test_impl_path's name; ref the oracle), vectors NULL or a file or
 * directory, into *res (free it); pecert's error in err. Returns the exit
 * status; at least one check must have run. */
struct pecert_run_results;
int test_certify_run(struct pecert_run_results *res, const struct pecert_certify_model *m, const char *plugin,
                     const char *vectors, char *err, size_t len);
/* test_certify_expect_leads: for each case, the config mapped into *m and
 * certified on the plugin (test_certify_run without vectors) must pass
 * when lead is "", else fail with lead as its first finding's id. */
typedef struct test_certify_case {
    const char *config, *plugin, *lead;
} test_certify_case;
void test_certify_expect_leads(struct pecert_certify_model *m, const test_certify_case *cases, size_t n);
/* test_write_text: the file at path (created or truncated) := text. */
void test_write_text(const char *path, const char *text);
/* test_read_in: the file dir/name, read as test_read_file reads it. */
char *test_read_in(const char *dir, const char *name);

#endif /* PECERT_TESTS_SUITES_H */
