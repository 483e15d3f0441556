/*
 * check_conveniences.c - what pytest and ctest users reach for, on the
 * command line: -j, --fail-fast, --durations (more to come with issue 41).
 * Each test runs build/pecert as a user would and reads what it printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"

/* A mutant whose rope.apply.golden fails (and the checks after it pass). */
#define FAILING_MUTANT "mutants/pairing_swapped"

static void mutant_path(char *path, size_t len)
{
    test_impl_path(path, len, FAILING_MUTANT);
}

/* -j N runs checks at once and prints (and writes) exactly what one at a
 * time does: same lines, same order, same JSON bytes. */
START_TEST(jobs_read_as_one_at_a_time)
{
    static char one[65536];
    static char two[65536];
    char plugin[1024];
    char json1[] = "/tmp/pecert-j1-XXXXXX";
    char json2[] = "/tmp/pecert-j2-XXXXXX";
    ck_assert_int_ge(mkstemp(json1), 0);
    ck_assert_int_ge(mkstemp(json2), 0);
    mutant_path(plugin, sizeof(plugin));
    ck_assert_int_eq(test_pecert(one, sizeof(one), "run --impl %s --filter 'rope.*,t5.*' --no-timings --json %s",
                                 plugin, json1),
                     1);
    ck_assert_int_eq(test_pecert(two, sizeof(two), "run --impl %s --filter 'rope.*,t5.*' --no-timings -j 2 --json %s",
                                 plugin, json2),
                     1);
    ck_assert_str_eq(one, two);
    char *a = test_read_file(json1);
    char *b = test_read_file(json2);
    ck_assert_msg(strcmp(a, b) == 0, "-j 2 wrote other JSON than -j 1");
    free(a);
    free(b);
    unlink(json1);
    unlink(json2);
    ck_assert_int_eq(test_pecert(two, sizeof(two), "run --impl ref --jobs 0"), 2);
    ck_assert_msg(strstr(two, "--jobs '0': expected a count in [1, 1024]") != NULL, "%.4000s", two);
    ck_assert_int_eq(test_pecert(two, sizeof(two), "run --impl ref -j x"), 2);
    ck_assert_msg(strstr(two, "-j 'x'") != NULL, "%.4000s", two);
}
END_TEST

/* The "N of M checks not run" of a --fail-fast run's last line; -1 if none. */
static int not_run_of(const char *out, int *planned)
{
    const char *line = strstr(out, "--fail-fast: stopped after the first failure; ");
    int n = -1;
    if (line == NULL || sscanf(line, "--fail-fast: stopped after the first failure; %d of %d checks not run", &n,
                               planned) != 2) {
        return -1;
    }
    return n;
}

/* --fail-fast: one at a time, the first failing check is the last one
 * run, and the run says how many were not; with -j 2 the check running
 * beside it may finish too, and nothing after those starts. */
START_TEST(fail_fast_stops_at_the_first_failure)
{
    static char out[65536];
    char plugin[1024];
    int planned = 0;
    mutant_path(plugin, sizeof(plugin));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl %s --filter 'rope.*' --fail-fast", plugin), 1);
    const char *fail = strstr(out, "FAIL    rope.");
    ck_assert_msg(fail != NULL, "no failure in:\n%.4000s", out);
    ck_assert_msg(strstr(fail + 1, "PASS    ") == NULL && strstr(fail + 1, "FAIL    ") == NULL,
                  "a check ran after the first failure:\n%.4000s", out);
    int serial_not_run = not_run_of(out, &planned);
    ck_assert_msg(serial_not_run > 0, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl %s --filter 'rope.*' --fail-fast -j 2", plugin), 1);
    int parallel_not_run = not_run_of(out, &planned);
    ck_assert_msg(parallel_not_run > 0 && parallel_not_run >= serial_not_run - 2, "%.4000s", out);
    /* A run that passes runs everything and says nothing about stopping. */
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --filter 'rope.freq.golden' --fail-fast"), 0);
    ck_assert_msg(strstr(out, "--fail-fast") == NULL, "%.4000s", out);
}
END_TEST

/* --durations N: the N slowest checks, slowest first, with their times. */
START_TEST(durations_list_the_slowest_checks)
{
    static char out[65536];
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --filter 'rope.*' --durations 3"), 0);
    const char *head = strstr(out, "slowest 3 of ");
    ck_assert_msg(head != NULL, "%.4000s", out);
    double prev = 1e300;
    const char *line = strchr(head, '\n');
    for (int i = 0; i < 3; i++) {
        double t = 0;
        char id[128];
        ck_assert_msg(line != NULL && sscanf(line + 1, " %lf s %127s", &t, id) == 2, "line %d of:\n%.4000s", i, head);
        ck_assert_msg(strncmp(id, "rope.", 5) == 0, "%s", id);
        ck_assert_msg(t <= prev, "not slowest first:\n%.4000s", head);
        prev = t;
        line = strchr(line + 1, '\n');
    }
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --durations 0"), 2);
    ck_assert_msg(strstr(out, "--durations '0'") != NULL, "%.4000s", out);
}
END_TEST

Suite *make_conveniences_suite(void)
{
    Suite *s = suite_create("conveniences");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, jobs_read_as_one_at_a_time);
    tcase_add_test(core, fail_fast_stops_at_the_first_failure);
    tcase_add_test(core, durations_list_the_slowest_checks);
    suite_add_tcase(s, core);
    return s;
}
