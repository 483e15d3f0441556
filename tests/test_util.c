/*
 * test_util.c - helpers every suite may use (declared in suites.h): the
 * suite and test-case builders, and the tests' random numbers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "certify_config.h"
#include "certify_passes.h"
#include "runner.h"

TCase *test_tcase_of(const char *name, double timeout_s, const TTest *const *tests, size_t n)
{
    TCase *tc = tcase_create(name);
    if (timeout_s > 0) {
        tcase_set_timeout(tc, timeout_s);
    }
    for (size_t i = 0; i < n; i++) {
        tcase_add_test(tc, tests[i]);
    }
    return tc;
}

Suite *test_suite_of(const char *name, ...)
{
    Suite *s = suite_create(name);
    va_list ap;
    va_start(ap, name);
    for (TCase *tc = va_arg(ap, TCase *); tc != NULL; tc = va_arg(ap, TCase *)) {
        suite_add_tcase(s, tc);
    }
    va_end(ap);
    return s;
}

uint64_t test_next_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void test_remove_dir(const char *dir)
{
    char cmd[1200];

    ck_assert_uint_lt(strlen(dir), sizeof(cmd) - 16);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

char *test_read_in(const char *dir, const char *name)
{
    char path[1200];

    ck_assert_uint_lt(strlen(dir) + strlen(name), sizeof(path) - 2);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return test_read_file(path);
}

void test_make_temp_file(char *path_template)
{
    int fd = mkstemp(path_template);

    ck_assert_msg(fd >= 0, "mkstemp %s", path_template);
    close(fd);
}

void test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    ck_assert_msg(fclose(f) == 0, "cannot write %s", path);
}

double test_check_timeout(double seconds)
{
    const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
    double k = m != NULL ? atof(m) : 1.0;
    return seconds * (k > 1.0 ? k : 1.0);
}

void test_certify_parse_ok(pecert_certify_model *m, const char *json, char *err, size_t len)
{
    ck_assert_msg(pecert_certify_parse(m, json, "test", err, len) == 0, "%s", err);
}

void test_certify_parse_fails_naming(pecert_certify_model *m, const char *json, const char *key, char *err, size_t len)
{
    ck_assert_int_eq(pecert_certify_parse(m, json, "test", err, len), -1);
    ck_assert_msg(strstr(err, key) != NULL, "error '%s' does not name '%s'", err, key);
    ck_assert_ptr_null(strchr(err, '\n'));
}

int test_certify_warned_about(const pecert_certify_model *m, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i < m->n_warnings; i++) {
        if (strncmp(m->warnings[i], key, n) == 0 && m->warnings[i][n] == ':') {
            return 1;
        }
    }
    return 0;
}

int test_certify_run(pecert_run_results *res, const pecert_certify_model *m, const char *plugin, const char *vectors,
                     char *err, size_t len)
{
    char plugin_path[1024];
    char oracle_path[1024];
    test_impl_path(plugin_path, sizeof(plugin_path), plugin);
    test_impl_path(oracle_path, sizeof(oracle_path), "ref");
    pecert_certify_options opt = {plugin_path, oracle_path, vectors, test_check_timeout(60.0), NULL,
                                  NULL,        NULL,        0,       PECERT_SANDBOX_ON};
    int status = pecert_certify_run(res, m, &opt, err, len);
    ck_assert_int_ge((int)res->n_checks, 1);
    return status;
}

void test_certify_expect_leads(pecert_certify_model *m, const test_certify_case *cases, size_t n)
{
    char err[1024];
    for (size_t i = 0; i < n; i++) {
        pecert_run_results res;
        test_certify_parse_ok(m, cases[i].config, err, sizeof(err));
        int status = test_certify_run(&res, m, cases[i].plugin, NULL, err, sizeof(err));
        const char *lead = res.n_findings > 0 ? res.findings[0].id : "";
        int want = cases[i].lead[0] == '\0' ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL;
        ck_assert_msg(status == want && strcmp(lead, cases[i].lead) == 0,
                      "%s on %s: exit %d, lead '%s' (want %d, '%s')", cases[i].plugin, m->model_type, status, lead,
                      want, cases[i].lead);
        pecert_run_results_free(&res);
    }
}
