/*
 * check_conveniences.c - what pytest and ctest users reach for, on the
 * command line: -j, --fail-fast, --durations, --case, --last-failed,
 * --impl NAME.so, the folded "not supported" line, did you mean, every
 * --help, make install.
 * Each test runs build/pecert as a user would and reads what it printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "suites.h"

/* A mutant whose rope.apply.golden fails (and the checks after it pass). */
#define FAILING_MUTANT "mutants/pairing_swapped"

static void mutant_path(char *path, size_t len)
{
    test_impl_path(path, len, FAILING_MUTANT);
}

/* Runs `pecert ARGS --no-timings --json FILE` one at a time and with -j 2:
 * the exit status, the lines and the JSON bytes must be the same. Returns
 * the exit status, with the output in out. */
static int parallel_reads_as_serial(char *out, size_t out_len, const char *args)
{
    static char two[1 << 16];
    char json1[] = "/tmp/pecert-j1-XXXXXX";
    char json2[] = "/tmp/pecert-j2-XXXXXX";
    ck_assert_int_ge(mkstemp(json1), 0);
    ck_assert_int_ge(mkstemp(json2), 0);
    int rc1 = test_pecert(out, out_len, "%s --no-timings --json %s", args, json1);
    int rc2 = test_pecert(two, sizeof(two), "%s --no-timings -j 2 --json %s", args, json2);
    ck_assert_int_eq(rc1, rc2);
    ck_assert_msg(strcmp(out, two) == 0, "-j 2 printed other lines than one at a time: %s", args);
    char *a = test_read_file(json1);
    char *b = test_read_file(json2);
    ck_assert_msg(strcmp(a, b) == 0, "-j 2 wrote other JSON than one at a time: %s", args);
    free(a);
    free(b);
    unlink(json1);
    unlink(json2);
    return rc1;
}

/* -j N runs checks at once and prints (and writes) exactly what one at a
 * time does: same lines, same order, same JSON bytes. */
START_TEST(jobs_read_as_one_at_a_time)
{
    static char one[65536];
    static char two[65536];
    char plugin[1024];
    char args[2048];
    mutant_path(plugin, sizeof(plugin));
    snprintf(args, sizeof(args), "run --impl %s --filter 'rope.*,t5.*'", plugin);
    ck_assert_int_eq(parallel_reads_as_serial(one, sizeof(one), args), 1);
    ck_assert_msg(strstr(one, "FAIL    rope.apply.golden") != NULL, "%.4000s", one);
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
    /* The check beside the failing one may finish; none starts after either. */
    ck_assert_msg(parallel_not_run > 0 && parallel_not_run >= serial_not_run - 1, "%.4000s", out);
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

/* --impl NAME.so is the file in the working directory, as `./NAME.so`
 * (dlopen would look for a bare name on the library path). */
START_TEST(impl_file_name_is_in_the_working_directory)
{
    char dir[] = "/tmp/pecert-impl-XXXXXX";
    char cwd[4096];
    char cmd[16384];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    const char *build = test_build_dir();
    const char *sep = build[0] == '/' ? "" : "/";
    snprintf(cmd, sizeof(cmd),
             "cp %s%s%s/impls/ref.so %s/myrope.so && cd %s && %s%s%s/pecert run --impl myrope.so "
             "--filter rope.freq.golden >%s/out.txt 2>&1",
             build[0] == '/' ? "" : cwd, sep, build, dir, dir, build[0] == '/' ? "" : cwd, sep, build, dir);
    int rc = system(cmd);
    snprintf(cmd, sizeof(cmd), "%s/out.txt", dir);
    char *out = test_read_file(cmd);
    ck_assert_msg(rc == 0, "exit %d:\n%.4000s", rc, out);
    ck_assert_msg(strstr(out, "certifying ./myrope.so") != NULL, "%.4000s", out);
    free(out);
    test_remove_dir(dir);
}
END_TEST

/* The checks a plugin cannot run (an operation left NULL) share one line
 * by default, the results that matter above it; --verbose gives each its
 * own line, and the JSON keeps every one either way. */
START_TEST(not_implemented_checks_fold_into_one_line)
{
    static char out[1 << 16];
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl example"), 0);
    ck_assert_msg(strstr(out, "NULL in its descriptor") == NULL, "%.4000s", out);
    const char *folded = strstr(out, " checks need operations the plugin leaves NULL");
    ck_assert_msg(folded != NULL, "%.4000s", out);
    while (folded > out && folded[-1] != '\n') {
        folded--;
    }
    int n = 0;
    ck_assert_msg(sscanf(folded, "  N/A     %d checks need operations the plugin leaves NULL", &n) == 1 && n > 10,
                  "%.4000s", out);
    ck_assert_msg(strstr(folded + 1, "  N/A     ") == NULL, "an N/A line after the folded one: %.4000s", out);
    ck_assert_msg(strstr(folded, "alibi.slopes.golden") != NULL && strstr(folded, "peg.golden") != NULL, "%.4000s",
                  folded);
    ck_assert_msg(strstr(out, "PASS    rope.apply.golden") < folded, "the folded line is not after the results");
    ck_assert_int_eq(
        test_pecert(out, sizeof(out), "run --impl example --verbose --filter 'alibi.*,rope.freq.golden'"), 0);
    ck_assert_msg(strstr(out, "N/A     alibi.slopes.golden") != NULL, "%.4000s", out);
    ck_assert_msg(strstr(out, "need operations the plugin leaves NULL") == NULL, "%.4000s", out);
}
END_TEST

/* A mistyped command, profile or check id is answered with the nearest
 * real one; a word near nothing gets no guess. */
START_TEST(mistyped_names_get_a_suggestion)
{
    static char out[1 << 16];
    ck_assert_int_eq(test_pecert(out, sizeof(out), "rnu"), 2);
    ck_assert_msg(strstr(out, "unknown command 'rnu' (did you mean 'run'?)") != NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile lama-3.1-8b --impl ref"), 2);
    ck_assert_msg(strstr(out, "no such profile (did you mean 'llama-3.1-8b'?)") != NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --filter rope.aply.golden"), 2);
    ck_assert_msg(strstr(out, "matches no check (did you mean 'rope.apply.golden'?)") != NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile zzzzzzzz --impl ref"), 2);
    ck_assert_msg(strstr(out, "did you mean") == NULL, "%.4000s", out);
    /* A model_type written another way is named; a real model type a letter
     * from a mapped one (sam2, sam) is another model: no guess. */
    char config[] = "/tmp/pecert-mt-XXXXXX";
    test_make_temp_file(config);
    test_write_text(config, "{\"model_type\": \"Qwen2-MoE\"}");
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --config %s --print", config), 2);
    ck_assert_msg(strstr(out, "'Qwen2-MoE' has no mapping in pecert (did you mean 'qwen2_moe'?)") != NULL, "%.4000s",
                  out);
    test_write_text(config, "{\"model_type\": \"sam2\"}");
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --config %s --print", config), 2);
    ck_assert_msg(strstr(out, "'sam2' has no mapping") != NULL && strstr(out, "did you mean") == NULL, "%.4000s",
                  out);
    unlink(config);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "help"), 0);
    ck_assert_msg(strstr(out, "--version") != NULL, "help does not list --version: %.4000s", out);
}
END_TEST

/* Every command's --help says its options and its exit statuses. */
START_TEST(every_command_help_gives_options_and_exit_statuses)
{
    static const char *const commands[] = {"list", "run", "certify", "report", "diagnose", "dump", "mutation",
                                           "bench"};
    static char out[1 << 16];
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        ck_assert_int_eq(test_pecert(out, sizeof(out), "%s --help", commands[i]), 0);
        ck_assert_msg(strstr(out, "options:\n") != NULL && strstr(out, "  --help") != NULL, "%s: %.2000s",
                      commands[i], out);
        ck_assert_msg(strstr(out, "exit status: 0 ") != NULL, "%s --help has no exit statuses", commands[i]);
    }
}
END_TEST

/* make install PREFIX=...: the installed pecert runs from anywhere with its
 * own plugins and vectors, and an engine's build finds <pecert/plugin.h>
 * through pkg-config. */
START_TEST(make_install_gives_a_working_pecert_and_a_pkg_config_file)
{
    char dir[] = "/tmp/pecert-install-XXXXXX";
    char cmd[16384];
    char path[4200];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char build[4096];
    const char *b = test_build_dir();
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    snprintf(build, sizeof(build), "%s%s%s", b[0] == '/' ? "" : cwd, b[0] == '/' ? "" : "/", b);
    snprintf(cmd, sizeof(cmd),
             "make -s -C %s BUILD=%s PREFIX=%s/usr install >%s/log 2>&1 && cd / && "
             "%s/usr/bin/pecert --version >>%s/log 2>&1 && "
             "%s/usr/bin/pecert run --impl ref --filter 'rope.freq.golden,t5.*' --json %s/r.json >>%s/log 2>&1 && "
             "printf '#include <pecert/plugin.h>\\nint main(void) { return PECERT_ABI_MAJOR > 0 ? 0 : 1; }\\n' "
             ">%s/engine.c && "
             "cc $(PKG_CONFIG_PATH=%s/usr/lib/pkgconfig pkg-config --cflags pecert) %s/engine.c -o %s/engine "
             ">>%s/log 2>&1 && %s/engine",
             PECERT_SOURCE_DIR, build, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir);
    int rc = system(cmd);
    char *log = test_read_in(dir, "log");
    ck_assert_msg(rc == 0, "exit %d:\n%.4000s", rc, log);
    char want[4200];
    snprintf(want, sizeof(want), "certifying %s/usr/bin/../lib/pecert/impls/ref.so", dir);
    ck_assert_msg(strstr(log, want) != NULL, "not the installed plugin:\n%.4000s", log);
    ck_assert_msg(strstr(log, "PASS    t5.bucket.golden") != NULL, "%.4000s", log);
    free(log);
    char *results = test_read_in(dir, "r.json");
    snprintf(want, sizeof(want), "\"vectors_dir\":\t\"%s/usr/bin/../share/pecert/vectors\"", dir);
    ck_assert_msg(strstr(results, want) != NULL, "not the installed vectors (%s)", want);
    free(results);
    snprintf(path, sizeof(path), "%s/usr/share/pecert/vectors/t5", dir);
    ck_assert_int_eq(access(path, R_OK), 0);
    test_remove_dir(dir);
}
END_TEST

/* A failed check names the command that reruns its worst case, and that
 * command (--case FILE:tcId) runs the checks on that one vector only. */
START_TEST(case_reruns_the_one_vector_a_failure_names)
{
    static char out[1 << 16];
    char plugin[1024];
    mutant_path(plugin, sizeof(plugin));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl %s --filter rope.apply.golden", plugin), 1);
    const char *hint = strstr(out, "--case ");
    ck_assert_msg(hint != NULL, "no rerun line: %.4000s", out);
    char spec[512];
    ck_assert_int_eq(sscanf(hint, "--case %511s", spec), 1);
    ck_assert_msg(strchr(spec, ':') != NULL, "%s", spec);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl %s --filter rope.apply.golden --case %s", plugin, spec),
                     1);
    ck_assert_msg(strstr(out, "FAIL    rope.apply.golden            1 of 1 rope.apply vectors") != NULL,
                  "%.4000s", out);
    /* Every check on the one vector: those with no case on it are said, not shown. */
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --case rope/apply_llama.json:3"), 0);
    ck_assert_msg(strstr(out, "PASS    rope.apply.golden            1 rope.apply vectors") != NULL, "%.4000s", out);
    ck_assert_msg(strstr(out, "checks have no case on it (not run)") != NULL, "%.4000s", out);
    ck_assert_msg(strstr(out, "t5.bucket.golden") == NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --case apply_llama.json:999"), 2);
    ck_assert_msg(strstr(out, "has no tcId 999 (it has 9 tests, tcId 1..9)") != NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --case nothere.json:1"), 2);
    ck_assert_msg(strstr(out, "no vector file is named 'nothere.json'") != NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --case 7"), 2);
    ck_assert_msg(strstr(out, "expected FILE:tcId") != NULL, "%.4000s", out);
}
END_TEST

/* --last-failed FILE reruns exactly the checks that failed in FILE; a file
 * where nothing failed reruns everything (as pytest --lf). */
START_TEST(last_failed_reruns_the_failures_of_a_results_file)
{
    static char out[1 << 16];
    char plugin[1024];
    char json[] = "/tmp/pecert-lf-XXXXXX";
    ck_assert_int_ge(mkstemp(json), 0);
    mutant_path(plugin, sizeof(plugin));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl %s --filter 'rope.freq.golden,rope.apply.golden,"
                                                   "rope.identity_at_zero' --json %s",
                                 plugin, json),
                     1);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl %s --last-failed %s", plugin, json), 1);
    ck_assert_msg(strstr(out, "--last-failed ") != NULL && strstr(out, ": rope.apply.golden\n") != NULL, "%.4000s",
                  out);
    ck_assert_msg(strstr(out, "(of 1 checks)") != NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --filter rope.freq.golden --json %s", json), 0);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --last-failed %s --filter 'rope.*'", json), 2);
    ck_assert_msg(strstr(out, "--last-failed and --filter exclude each other") != NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --last-failed /nonexistent.json"), 2);
    ck_assert_msg(strstr(out, "/nonexistent.json") != NULL, "%.4000s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --last-failed %s --quiet -j 2", json), 0);
    ck_assert_msg(strstr(out, "no check failed there; running every check") != NULL, "%.4000s", out);
    char every[64];
    snprintf(every, sizeof(every), "(of %zu checks)", pecert_num_checks);
    ck_assert_msg(strstr(out, every) != NULL, "%.4000s", out);
    unlink(json);
}
END_TEST

/* certify --all-profiles -j 2 prints and writes what one at a time does:
 * eight profiles of every kind of encoding and pass (RoPE, layers,
 * M-RoPE with a tower, learned, ALiBi, T5, Swin, a sinusoid with a decoder
 * table) in a directory of their own; every bundled profile certifying is
 * `make profiles`' gate. */
START_TEST(all_profiles_in_parallel_read_as_in_sequence)
{
    static char one[1 << 16];
    char dir[] = "/tmp/pecert-j-profiles-XXXXXX";
    char cmd[2048];
    char args[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd),
             "cd %s && cp llama-2-7b.json gemma-3-1b.json qwen3-vl-4b.json bert-base.json bloom.json t5-base.json "
             "swin-tiny-patch4-window7-224.json whisper-large-v3.json %s/", PECERT_SOURCE_DIR "/conformance/profiles",
             dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(args, sizeof(args), "certify --all-profiles --profiles %s --impl example", dir);
    parallel_reads_as_serial(one, sizeof(one), args);
    ck_assert_msg(strstr(one, "  llama-2-7b             CERTIFIED") != NULL, "%.4000s", one);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *make_conveniences_suite(void)
{
    return test_suite_of("conveniences",
                         TEST_TCASE("core", 120,
                                    jobs_read_as_one_at_a_time,
                                    fail_fast_stops_at_the_first_failure,
                                    durations_list_the_slowest_checks,
                                    impl_file_name_is_in_the_working_directory,
                                    not_implemented_checks_fold_into_one_line,
                                    mistyped_names_get_a_suggestion,
                                    every_command_help_gives_options_and_exit_statuses,
                                    make_install_gives_a_working_pecert_and_a_pkg_config_file,
                                    case_reruns_the_one_vector_a_failure_names,
                                    last_failed_reruns_the_failures_of_a_results_file,
                                    all_profiles_in_parallel_read_as_in_sequence),
                         NULL);
}
