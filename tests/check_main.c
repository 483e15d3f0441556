/* check_main.c - runs every unit-test suite; exit 0 only if all pass. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "job_pool.h"
#include "suites.h"

const char *test_build_dir(void)
{
    const char *dir = getenv("PECERT_BUILD");
    return (dir != NULL && dir[0] != '\0') ? dir : "build";
}

const char *test_family_vectors(void)
{
    static char dir[4096];
    char stamp[4200];
    snprintf(dir, sizeof(dir), "%s/family-vectors", test_build_dir());
    snprintf(stamp, sizeof(stamp), "%s/copied", dir);
    ck_assert_msg(access(stamp, F_OK) == 0, "%s: missing (`make %s` copies the family vectors there)", stamp, stamp);
    return dir;
}

void test_impl_path(char *path, size_t len, const char *name)
{
    snprintf(path, len, "%s/impls/%s.so", test_build_dir(), name);
}

int test_pecert(char *out, size_t out_len, const char *fmt, ...)
{
    char args[4096];
    char cmd[8192];
    char log[] = "/tmp/pecert-test-XXXXXX";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    test_make_temp_file(log);
    snprintf(cmd, sizeof(cmd), "%s/pecert %s >%s 2>&1", test_build_dir(), args, log);
    int status = system(cmd);
    FILE *f = fopen(log, "r");
    size_t n = f != NULL ? fread(out, 1, out_len - 1, f) : 0;
    out[n] = '\0';
    if (f != NULL) {
        fclose(f);
    }
    unlink(log);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* Every suite, longest first (measured on the 2-core machine class): the
 * pool starts them in this order, so the long ones do not end the run
 * alone. */
static Suite *(*const suites[])(void) = {
    make_python_suite,    make_certify_suite,      make_cli_suite,        make_certify_vision_suite,
    make_reports_suite,   make_vectors_suite,      make_runner_suite,     make_engine_suite,
    make_dumps_suite,     make_fast_suite,         make_fast_alibi_suite, make_fast_mrope_suite,
    make_rope2d_suite,    make_posinterp_suite,    make_cope_suite,       make_peg_suite,         make_sine2d_suite, make_certify_sine2d_suite, make_relpos2d_suite,
    make_deberta_suite,
    make_compare_suite,   make_plugin_load_suite,  make_sinusoidal_suite, make_hypotheses_suite,
    make_precision_suite, make_conveniences_suite, make_hostile_suite,    make_certificate_suite,
    make_certify_wrappers_suite,
    make_certify_sinusoidal_suite, make_fast_session_suite, make_fast_tables_suite, make_bench_probe_suite,
};
#define N_SUITES (sizeof(suites) / sizeof(suites[0]))

typedef struct unit_totals {
    int run;
    int failed;
    int lost;   /* suites whose worker gave no count */
} unit_totals;

/* In a worker: one suite, its counts as "RUN FAILED". */
static char *run_suite(size_t index, void *user)
{
    (void)user;
    SRunner *runner = srunner_create(suites[index]());
    srunner_run_all(runner, CK_NORMAL);
    char *text = malloc(64);
    if (text != NULL) {
        snprintf(text, 64, "%d %d", srunner_ntests_run(runner), srunner_ntests_failed(runner));
    }
    srunner_free(runner);
    return text;
}

/* In the parent, in suite order: what the suite printed, then its counts. */
static void suite_done(size_t index, const char *text, size_t len, const char *why, const char *printed, void *user)
{
    unit_totals *t = user;
    int run = 0;
    int failed = 0;
    (void)len;
    fputs(printed, stdout);
    if (text == NULL || sscanf(text, "%d %d", &run, &failed) != 2) {
        printf("unit: suite %zu of %zu gave no result: %s\n", index + 1, N_SUITES, text == NULL ? why : text);
        t->lost++;
        return;
    }
    t->run += run;
    t->failed += failed;
    fflush(stdout);
}

/* One runner over every suite in this process: what CK_RUN_SUITE,
 * CK_RUN_CASE and Check's log files expect. */
static int run_serially(void)
{
    SRunner *runner = srunner_create(suites[0]());
    for (size_t i = 1; i < N_SUITES; i++) {
        srunner_add_suite(runner, suites[i]());
    }
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0';
}

/* Workers at once: $PECERT_TEST_JOBS, else the CPUs online. */
static int test_jobs(void)
{
    const char *v = getenv("PECERT_TEST_JOBS");
    long n = v != NULL ? strtol(v, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

/* The suites run in a pool of worker processes (each suite's output is
 * printed whole, in suite order); with CK_RUN_SUITE, CK_RUN_CASE or a
 * Check log file asked for, in one runner as Check itself would. */
int main(void)
{
    int jobs = test_jobs();
    if (env_set("CK_RUN_SUITE") || env_set("CK_RUN_CASE") || env_set("CK_LOG_FILE_NAME") ||
        env_set("CK_XML_LOG_FILE_NAME") || env_set("CK_TAP_LOG_FILE_NAME") || jobs == 1) {
        return run_serially();
    }
    unit_totals t = {0, 0, 0};
    char err[512];
    pecert_pool pool = {N_SUITES, jobs, run_suite, suite_done, NULL, &t, NULL};
    if (pecert_pool_run(&pool, err, sizeof(err)) != 0) {
        fprintf(stderr, "unit: %s\n", err);
        return EXIT_FAILURE;
    }
    printf("unit: %d checks in %zu suites, %d failed%s (%d at a time)\n", t.run, N_SUITES, t.failed,
           t.lost > 0 ? ", and a suite gave no result" : "", jobs);
    return t.failed == 0 && t.lost == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    ck_assert_int_ge(len, 0);
    rewind(f);
    char *text = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
    text[len] = '\0';
    fclose(f);
    return text;
}
