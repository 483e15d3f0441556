/* check_cli.c - the command line: exit statuses and one-line errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "certify_checks.h"
#include "checks.h"
#include "../cli/commands.h"
#include "json_text.h"
#include "suites.h"

/* Runs build/pecert with args; returns its exit status, with what it
 * printed (stdout and stderr) in err. */
static int pecert(char *err, size_t err_len, const char *args)
{
    return test_pecert(err, err_len, "%s", args);
}

START_TEST(help_everywhere_exits_zero)
{
    char err[8192];
    ck_assert_int_eq(pecert(err, sizeof(err), "--help"), 0);
    ck_assert_int_eq(pecert(err, sizeof(err), "run --help"), 0);
    ck_assert_int_eq(pecert(err, sizeof(err), "list --help"), 0);
}
END_TEST

/* `pecert help` lists the commands of main.c's table, and `pecert help
 * NAME` prints exactly what `pecert NAME --help` prints, for each. */
START_TEST(help_names_every_command_and_prints_its_usage)
{
    static char list[8192], by_help[16384], by_option[16384];
    ck_assert_int_eq(pecert(list, sizeof(list), "help"), 0);
    const char *line = strstr(list, "commands:\n");
    ck_assert_ptr_nonnull(line);
    int n = 0;
    for (line = strchr(line, '\n') + 1; strncmp(line, "  help ", 7) != 0; line = strchr(line, '\n') + 1) {
        char name[32];
        ck_assert_int_eq(sscanf(line, "  %31s", name), 1);
        char args[64];
        snprintf(args, sizeof(args), "help %s", name);
        ck_assert_int_eq(pecert(by_help, sizeof(by_help), args), 0);
        snprintf(args, sizeof(args), "%s --help", name);
        ck_assert_int_eq(pecert(by_option, sizeof(by_option), args), 0);
        ck_assert_msg(strncmp(by_help, "usage: pecert ", 14) == 0, "help %s: %.200s", name, by_help);
        ck_assert_str_eq(by_help, by_option);
        n++;
    }
    ck_assert_int_eq(n, 8);
}
END_TEST

/* A command line the tool must refuse: its exit status, and a piece of
 * the one-line error that must name what was wrong. */
typedef struct refused_line {
    const char *args;
    int status;
    const char *says;
} refused_line;

static const refused_line refused_lines[] = {
    {"", 2, "usage: pecert"},
    {"frobnicate", 2, "unknown command 'frobnicate'"},
    {"run", 2, "--impl NAME|PATH is required"},
    {"run --impl ref --timeout -3", 2, "--timeout '-3'"},
    {"run --impl ref --frob", 2, "--frob"},
    {"run --impl /nonexistent/plugin.so", 3, "/nonexistent/plugin.so: cannot load"},
    {"run --impl ref --vectors /nonexistent-vectors", 2, "/nonexistent-vectors"},
    {"run --impl ref --filter rope.freq.golden --json /nonexistent-dir/r.json", 2, "/nonexistent-dir/r.json"},
    {"help rnu", 2, "unknown command 'rnu' (did you mean 'run'?)"},
    {"diagnose --profile llama-3.1-8b --bogus", 2, "diagnose: unknown or incomplete option '--bogus'"},
    {"dump --bogus", 2, "dump: unknown or incomplete option '--bogus'"},
    /* Every report-writing command checks its outputs (cli/outputs.c)
     * before it reads or runs anything. */
    {"certify --profile llama-3.1-8b --impl ref --junit /nonexistent-dir/c.xml", 2,
     "certify: --junit /nonexistent-dir/c.xml: cannot write in /nonexistent-dir"},
    {"report --html /nonexistent-dir/r.html /nonexistent-results.json", 2,
     "report: --html /nonexistent-dir/r.html: cannot write in /nonexistent-dir"},
    {"mutation --json /nonexistent-dir/m.json", 2, "mutation: --json /nonexistent-dir/m.json: cannot write in"},
    {"bench --only session,rope", 2,
     "--only: expected a list of apply, table, alibi, session, hosts, families: 'session,rope'"},
};

START_TEST(refused_line_exits_with_its_status_and_says_why)
{
    const refused_line *c = &refused_lines[_i];
    char err[8192];
    ck_assert_int_eq(pecert(err, sizeof(err), c->args), c->status);
    ck_assert_msg(strstr(err, c->says) != NULL, "pecert %s: no '%s' in: %s", c->args, c->says, err);
}
END_TEST

/* Output paths are checked before any work: a bench would otherwise
 * measure for minutes and then fail to save (this test would time out),
 * a run would print its checks first. */
START_TEST(unwritable_outputs_are_refused_before_any_work)
{
    char err[8192];

    ck_assert_int_eq(pecert(err, sizeof(err), "bench --json /nonexistent-dir/b.json"), 2);
    ck_assert_msg(strstr(err, "pecert: bench: --json /nonexistent-dir/b.json: cannot write in "
                              "/nonexistent-dir") != NULL,
                  "%s", err);
    ck_assert_int_eq(pecert(err, sizeof(err), "run --impl ref --html /tmp"), 2);
    ck_assert_msg(strstr(err, "pecert: run: --html /tmp: is a directory") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "PASS") == NULL, "checks ran before the refusal: %s", err);
    ck_assert_int_eq(pecert(err, sizeof(err), "certify --profile gpt2 --impl ref --junit "
                                              "/nonexistent-dir/j.xml"),
                     2);
    ck_assert_msg(strstr(err, "certify: --junit /nonexistent-dir/j.xml") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "derived") == NULL, "certify worked before the refusal: %s", err);
}
END_TEST

/* The foundation's promise: ref with every position shifted by one must
 * fail the whole run with exit status 1. */
START_TEST(shifted_ref_fails_the_run_with_status_1)
{
    char err[8192];
    char args[1024];
    snprintf(args, sizeof(args), "run --impl %s/impls/testing/shifted.so", test_build_dir());
    ck_assert_int_eq(pecert(err, sizeof(err), args), 1);
}
END_TEST

/* Writes a one-mutant catalogue to a temp file; returns its path. */
static void write_catalogue(char *path, const char *must_fail)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"schema\": \"pecert-mutants/1\", \"mutants\": [{\"name\": \"inplace_stale_read\", "
               "\"must_fail\": [\"%s\"]}]}", must_fail);
    fclose(f);
}

/* The mutation gate itself must be able to fail: inplace_stale_read is
 * correct out of place, so naming rope.apply.golden as its catcher is a
 * miss, and the command says so with status 1. */
START_TEST(mutation_reports_a_missed_mutant)
{
    char path[] = "/tmp/pecert-catalogue-XXXXXX";
    char err[8192];
    char args[256];
    char dir[] = "/tmp/pecert-mutants-XXXXXX";
    char cmd[1024];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* A tree with ref and this one mutant only (the mutant finds ref at
     * ../ref.so next to itself). */
    snprintf(cmd, sizeof(cmd), "mkdir -p %s/mutants && cp %s/impls/ref.so %s/ && "
             "cp %s/impls/mutants/inplace_stale_read.so %s/mutants/",
             dir, test_build_dir(), dir, test_build_dir(), dir);
    ck_assert_int_eq(system(cmd), 0);
    write_catalogue(path, "rope.apply.golden");
    snprintf(args, sizeof(args), "mutation --catalogue %s --dir %s/mutants --vectors %s", path, dir,
             test_family_vectors());
    ck_assert_int_eq(pecert(err, sizeof(err), args), 1);
    ck_assert_msg(strstr(err, "MISSED  inplace_stale_read") != NULL, "%s", err);
    ck_assert_ptr_nonnull(strstr(err, "0/1 mutants caught"));
    test_remove_dir(dir);
    unlink(path);
}
END_TEST

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

/* The number of "case_log" records of the first check in a results file,
 * -1 when it has none, with the check's case count in *cases. */
static int case_log_size(const char *path, int *cases)
{
    char *text = test_read_file(path);
    ck_assert_ptr_nonnull(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(root);
    const cJSON *check = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "checks"), 0);
    const cJSON *log = cJSON_GetObjectItemCaseSensitive(check, "case_log");
    *cases = (int)cJSON_GetObjectItemCaseSensitive(check, "cases")->valuedouble;
    int n = log != NULL ? cJSON_GetArraySize(log) : -1;
    cJSON_Delete(root);
    return n;
}

/* text with every run of blanks and newlines as one space: what a printed
 * line says, wherever the terminal layout wrapped it (it wraps at a fixed
 * width, so the break moves with the length of the vectors' path). */
static const char *unwrapped(const char *text)
{
    static char flat[1 << 18];
    size_t n = 0;
    for (const char *p = text; *p != '\0' && n + 1 < sizeof(flat); p++) {
        int blank = *p == ' ' || *p == '\n';
        if (!blank || (n > 0 && flat[n - 1] != ' ')) {
            flat[n++] = blank ? ' ' : *p;
        }
    }
    flat[n] = '\0';
    return flat;
}

/* --verbose shows every case, passing and declined too, and the JSON of a
 * verbose run keeps them (a record per comparison: one per case here); a run
 * without it keeps failures only. example declines every scaled rope
 * type, so rope.freq.golden has both kinds. */
START_TEST(verbose_shows_every_case)
{
    static char out[1 << 18];
    char path[] = "/tmp/pecert-verbose-XXXXXX";
    test_make_temp_file(path);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl example --filter rope.freq.golden --verbose --json %s",
                                 path),
                     0);
    ck_assert_msg(strstr(out, "\n          ok       ") != NULL, "%.2000s", out);
    ck_assert_msg(strstr(out, "\n          declined ") != NULL && strstr(unwrapped(out), "rope_freqs declined: ") != NULL,
                  "%.2000s", out);
    int cases = 0;
    int logged = case_log_size(path, &cases);
    ck_assert_int_eq(logged, cases); /* one record per case here: one comparison each */
    ck_assert_int_gt(cases, 20);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl example --filter rope.freq.golden --json %s", path), 0);
    ck_assert_msg(strstr(out, "          ok ") == NULL, "%s", out);
    ck_assert_int_eq(case_log_size(path, &cases), -1);
    unlink(path);
}
END_TEST

/* report --quiet means what run --quiet means: only what fails, and the
 * verdict; without it, every run has its line. */
START_TEST(report_quiet_prints_only_failures_and_the_verdict)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-rq-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --filter rope.freq.golden --quiet --json %s/ref.json",
                                 dir),
                     0);
    ck_assert_int_eq(test_pecert(out, sizeof(out),
                                 "run --impl %s/impls/testing/shifted.so --filter rope.apply.golden --quiet --json "
                                 "%s/shifted.json",
                                 test_build_dir(), dir),
                     1);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/ref.json %s/shifted.json --quiet", dir, dir), 1);
    ck_assert_msg(strstr(out, "PASS    ref") == NULL && strstr(out, "FAIL    shifted") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "report: FAIL") != NULL, "%s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/ref.json --quiet", dir), 0);
    ck_assert_msg(strcmp(out, "report: PASS\n") == 0, "%s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/ref.json %s/shifted.json", dir, dir), 1);
    ck_assert_msg(strstr(out, "PASS    ref") != NULL, "%s", out);
    test_remove_dir(dir);
}
END_TEST

/* The catalogue's entries of the named mutants (and no other), at path. */
static void write_catalogue_subset(const char *path, const char *const *names, int n)
{
    char *text = test_read_file(PECERT_SOURCE_DIR "/impls/mutants/catalogue.json");
    ck_assert_ptr_nonnull(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(root);
    cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "mutants");
    for (int i = cJSON_GetArraySize(list) - 1; i >= 0; i--) {
        const char *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, i), "name")->valuestring;
        int keep = 0;
        for (int k = 0; k < n; k++) {
            keep |= strcmp(name, names[k]) == 0;
        }
        if (!keep) {
            cJSON_DeleteItemFromArray(list, i);
        }
    }
    ck_assert_int_eq(cJSON_GetArraySize(list), n);
    char *out = cJSON_Print(root);
    test_write_text(path, out);
    free(out);
    cJSON_Delete(root);
}

/* `pecert mutation --jobs 2`, end to end: the lines in catalogue order,
 * JUnit and JSON with every mutant, no progress line on a pipe, and
 * --quiet printing only the summary when every mutant is caught. (That
 * the order holds whichever worker ends first is the job pool's test,
 * check_runner.c, where the finishing order is forced.) */
START_TEST(mutation_in_parallel_reads_as_in_sequence)
{
    /* in catalogue order */
    static const char *const names[] = {"pairing_swapped", "decode_off_by_one", "inplace_stale_read"};
    char dir[] = "/tmp/pecert-mutants-XXXXXX";
    char cmd[2048];
    static char out[1 << 16];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "mkdir -p %s/mutants && cp %s/impls/ref.so %s/", dir, test_build_dir(), dir);
    ck_assert_int_eq(system(cmd), 0);
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof(cmd), "cp %s/impls/mutants/%s.so %s/mutants/", test_build_dir(), names[i], dir);
        ck_assert_int_eq(system(cmd), 0);
    }
    char catalogue[600];
    snprintf(catalogue, sizeof(catalogue), "%s/catalogue.json", dir);
    write_catalogue_subset(catalogue, names, 3);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "mutation --catalogue %s --dir %s/mutants --jobs 2 --junit %s/m.xml "
                                                   "--json %s/m.json --vectors %s",
                                 catalogue, dir, dir, dir, test_family_vectors()),
                     0);
    const char *a = strstr(out, "caught  pairing_swapped");
    const char *b = strstr(out, "caught  decode_off_by_one");
    const char *c = strstr(out, "caught  inplace_stale_read");
    ck_assert_msg(a != NULL && b != NULL && c != NULL && a < b && b < c, "%s", out);
    ck_assert_msg(strstr(out, "2 at a time") != NULL && strstr(out, "3/3 mutants caught") != NULL, "%s", out);
    ck_assert_msg(strchr(out, '\r') == NULL, "a progress line on a pipe: %s", out);
    char *text = test_read_in(dir, "m.xml");
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < 3; i++) {
        char testcase[128];
        snprintf(testcase, sizeof(testcase), "name=\"%s\"", names[i]);
        ck_assert_msg(strstr(text, testcase) != NULL, "%s", text);
    }
    ck_assert_msg(strstr(text, "failures=\"0\"") != NULL, "%s", text);
    free(text);
    text = test_read_in(dir, "m.json");
    ck_assert_ptr_nonnull(text);
    cJSON *json = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(json);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "runs")), 3);
    cJSON_Delete(json);
    /* --quiet on one of them (its lines are what is tested, not the
     * mutants again: each run of a mutant is ~2 s) */
    write_catalogue_subset(catalogue, names, 1);
    snprintf(cmd, sizeof(cmd), "rm %s/mutants/%s.so %s/mutants/%s.so", dir, names[1], dir, names[2]);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "mutation --catalogue %s --dir %s/mutants --quiet --vectors %s",
                                 catalogue, dir, test_family_vectors()),
                     0);
    ck_assert_msg(strstr(out, "caught  ") == NULL && strstr(out, "mutants in") == NULL, "%s", out);
    ck_assert_msg(strstr(out, "mutation: 1/1 mutants caught") != NULL, "%s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "mutation --jobs 0"), 2);
    ck_assert_msg(strstr(out, "--jobs '0': expected a count in [1, 1024]") != NULL, "%s", out);
    test_remove_dir(dir);
}
END_TEST

/* A user's own vector directory: only RoPE vectors and a results file
 * saved beside them. The results file is skipped with a warning naming
 * it; the checks of other families are "not applicable", never failed;
 * a perfect plugin exits 0. A directory of nothing but such files is bad
 * input (2), with one line naming it. */
START_TEST(partial_vector_directory_is_judged_honestly)
{
    char dir[] = "/tmp/pecert-vdir-XXXXXX";
    char cmd[4096];
    static char out[1 << 16];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "cp -r %s/vectors/rope %s/ && echo '{\"schema\": \"pecert-results/1\"}' >%s/results.json",
             PECERT_SOURCE_DIR, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "run --impl ref --vectors %s --filter '*.golden'", dir);
    ck_assert_int_eq(pecert(out, sizeof(out), cmd), 0);
    ck_assert_msg(strstr(out, "warning: ") != NULL && strstr(out, "results.json") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "learned.golden               not applicable: no learned.lookup") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "FAIL") == NULL, "%s", out);
    snprintf(cmd, sizeof(cmd), "rm -rf %s/rope", dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "run --impl ref --vectors %s", dir);
    ck_assert_int_eq(pecert(out, sizeof(out), cmd), 2);
    ck_assert_msg(strstr(out, "no vector manifests (pecert-vectors/1)") != NULL, "%s", out);
    test_remove_dir(dir);
}
END_TEST

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle)) {
        n++;
    }
    return n;
}

/* pecert run --impl BUILD/impls/IMPL.so FLAGS with the JSON, HTML and
 * JUnit outputs written to dir/r.json, r.html and r.xml; its exit status,
 * and what it printed in out. */
static int run_to_every_output(char *out, size_t out_len, const char *dir, const char *impl, const char *flags)
{
    return test_pecert(out, out_len, "run --impl %s/impls/%s.so %s --json %s/r.json --html %s/r.html --junit %s/r.xml",
                       test_build_dir(), impl, flags, dir, dir, dir);
}

/* Every failing vector reaches the outputs: the terminal prints
 * --max-details of them and says how many more; the JSON holds each as a
 * record (file, tcId, element, error, bound); the HTML lists them all in a
 * collapsible section; JUnit's body has every line. pairing_swapped fails
 * every rope.apply vector, one value record and one hypothesis note each. */
START_TEST(all_evidence_reaches_every_output)
{
    char dir[] = "/tmp/pecert-evidence-XXXXXX";
    char cmd[4096];
    static char out[1 << 18];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(run_to_every_output(out, sizeof(out), dir, "mutants/pairing_swapped",
                                         "--filter rope.apply.golden --max-details 2"),
                     1);
    ck_assert_msg(count_of(out, "\n          /") == 2, "%s", out);
    char *json = test_read_in(dir, "r.json");
    int values = count_of(json, "\"kind\":\t\"value\"");
    ck_assert_int_ge(values, 20);
    ck_assert_int_eq(count_of(json, "\"element\":"), values);
    ck_assert_int_eq(count_of(json, "\"elements_off\":"), values);
    char more[64];
    snprintf(more, sizeof(more), "... and %d more", 2 * values - 2);
    ck_assert_msg(strstr(out, more) != NULL, "want '%s' in: %s", more, out);
    char *html = test_read_in(dir, "r.html");
    ck_assert_ptr_nonnull(strstr(html, "<details class=\"all-failures\"><summary>All "));
    char *xml = test_read_in(dir, "r.xml");
    ck_assert_int_ge(count_of(xml, "elements off)"), values); /* + the message's first line */
    /* --max-details all: no "more" line; 0: none but the count. */
    snprintf(cmd, sizeof(cmd), "run --impl %s/impls/mutants/pairing_swapped.so --filter rope.apply.golden --max-details all",
             test_build_dir());
    ck_assert_int_eq(pecert(out, sizeof(out), cmd), 1);
    ck_assert_msg(strstr(out, "... and ") == NULL && count_of(out, "\n          /") == 2 * values, "%s", out);
    free(json);
    free(html);
    free(xml);
    test_remove_dir(dir);
}
END_TEST

/* A plugin's hostile text (impls/testing/bad_text.c) never drives the
 * terminal and never breaks an output: every control character and
 * invalid byte is shown as an escape, and the JSON, HTML and JUnit files
 * are valid UTF-8. */
START_TEST(hostile_plugin_text_is_shown_not_obeyed)
{
    char dir[] = "/tmp/pecert-badtext-XXXXXX";
    char cmd[4096];
    char path[512];
    char why[128];
    static char out[1 << 16];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(run_to_every_output(out, sizeof(out), dir, "testing/bad_text", "--filter rope.freq.golden --verbose"),
                     1);
    ck_assert_msg(strpbrk(out, "\r\033\a") == NULL && strstr(out, "\xc2\x9b") == NULL &&
                      strstr(out, "\xff") == NULL,
                  "raw control bytes reached the terminal");
    /* (the terminal wraps long lines at spaces: the escapes are whole) */
    ck_assert_msg(strstr(out, "\\r  PASS") != NULL && strstr(out, "forged \\x1b[32m\\u009b31m\\x07") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\\x1b]0;pwned\\x07") != NULL, "%s", out); /* describe(), under --verbose */
    /* What it printed is in the result, bounded, shown under --verbose only. */
    ck_assert_msg(strstr(out, "the plugin printed ") != NULL && strstr(out, "| chatty engine line 0 \\x1b[31mred") != NULL,
                  "%s", out);
    ck_assert_msg(count_of(out, "chatty engine line") < 60, "%d lines of plugin output shown",
                  count_of(out, "chatty engine line"));
    snprintf(cmd, sizeof(cmd), "run --impl %s/impls/testing/bad_text.so --filter rope.freq.golden", test_build_dir());
    ck_assert_int_eq(pecert(out, sizeof(out), cmd), 1);
    ck_assert_msg(strstr(out, "chatty") == NULL, "plugin output reached the terminal: %s", out);
    const char *const files[] = {"r.json", "r.html", "r.xml"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        char *text = test_read_file(path);
        ck_assert_msg(pecert_json_text_check(text, strlen(text), why, sizeof(why)) == 0, "%s: %s", files[i], why);
        free(text);
    }
    test_remove_dir(dir);
}
END_TEST

/* `pecert run ... --json x.json | head -1`: the reader goes away after one
 * line, and pecert still writes x.json (SIGPIPE ignored). */
START_TEST(a_closed_pipe_does_not_lose_the_results)
{
    char dir[] = "/tmp/pecert-pipe-XXXXXX";
    char cmd[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "%s/pecert run --impl ref --filter 'rope.*' --json %s/x.json | head -c 1 >/dev/null",
             test_build_dir(), dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "%s/x.json", dir);
    char *text = test_read_file(cmd);
    ck_assert_ptr_nonnull(strstr(text, "pecert-results/1"));
    free(text);
    test_remove_dir(dir);
}
END_TEST

/* Load-time code runs in a child first (impls/testing/loadtime.c): a
 * constructor's exit(0) or segfault, an entry that hangs or returns a
 * garbage pointer is "cannot load" with the reason and exit 3, and pecert
 * itself is never killed, hung or made to exit 0 without outputs. */
START_TEST(load_time_misbehaviour_is_a_load_error)
{
    static const struct {
        const char *mode;
        const char *says;
    } cases[] = {
        {"exit", "its load-time code exited (status 0) before pecert could use it"},
        {"segv", "was killed by signal 11 (Segmentation fault)"},
        {"hang", "did not return within 2 s"},
        {"garbage", "was killed by signal 11 (Segmentation fault)"},
    };
    static char out[8192];
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "run --impl %s/impls/testing/loadtime.so --filter rope.inverse --json /tmp/pecert-lt.json",
             test_build_dir());
    ck_assert_int_eq(setenv("PECERT_LOAD_TIMEOUT", "2", 1), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(setenv("LOADTIME_MODE", cases[i].mode, 1), 0);
        int status = pecert(out, sizeof(out), cmd);
        ck_assert_msg(status == 3 && strstr(out, "cannot load: ") != NULL && strstr(out, cases[i].says) != NULL,
                      "%s: exit %d: %s", cases[i].mode, status, out);
    }
    unsetenv("LOADTIME_MODE");
    unsetenv("PECERT_LOAD_TIMEOUT");
    /* An entry exported as data: calling it executes a non-executable page. */
    char data_cmd[1024];
    snprintf(data_cmd, sizeof(data_cmd), "run --impl %s/impls/testing/entry_is_data.so --filter rope.inverse",
             test_build_dir());
    int data_status = pecert(out, sizeof(out), data_cmd);
    ck_assert_msg(data_status == 3 && strstr(out, "cannot load: ") != NULL && strstr(out, "killed by signal") != NULL,
                  "exit %d: %s", data_status, out);
    ck_assert_int_eq(pecert(out, sizeof(out), cmd), 1); /* loads; implements nothing: nothing certified */
    unlink("/tmp/pecert-lt.json");
}
END_TEST

START_TEST(mutation_rejects_unknown_check_ids)
{
    char path[] = "/tmp/pecert-catalogue-XXXXXX";
    char err[8192];
    char args[256];
    write_catalogue(path, "rope.no_such_check");
    snprintf(args, sizeof(args), "mutation --catalogue %s", path);
    ck_assert_int_eq(pecert(err, sizeof(err), args), 2);
    ck_assert_ptr_nonnull(strstr(err, "mutants[0].must_fail: 'rope.no_such_check' is not a check id"));
    unlink(path);
}
END_TEST

START_TEST(list_shows_checks_and_vectors)
{
    char out[8192];
    ck_assert_int_eq(pecert(out, sizeof(out), "list"), 0);
}
END_TEST

/* Every check id, the registry's and certify's, fits the id column run,
 * certify and list print: a longer one pushes its summary out of line
 * (rope.long_position_precision did, at 28 in a column of 26). */
START_TEST(every_check_id_fits_the_id_column)
{
    const pecert_check *certify[] = {&pecert_check_certify_mapping, &pecert_check_certify_rope_reference,
                                     &pecert_check_certify_alibi_reference, &pecert_check_certify_t5_reference,
                                     &pecert_check_certify_learned_reference};
    for (size_t i = 0; i < pecert_num_checks; i++) {
        ck_assert_msg(strlen(pecert_checks[i]->id) <= PECERT_CHECK_ID_COLUMN, "%s", pecert_checks[i]->id);
    }
    for (size_t i = 0; i < sizeof(certify) / sizeof(certify[0]); i++) {
        ck_assert_msg(strlen(certify[i]->id) <= PECERT_CHECK_ID_COLUMN, "%s", certify[i]->id);
    }
}
END_TEST

Suite *make_cli_suite(void)
{
    TCase *errors = TEST_TCASE("errors", 60,
                               unwritable_outputs_are_refused_before_any_work,
                               mutation_rejects_unknown_check_ids,
                               partial_vector_directory_is_judged_honestly);
    tcase_add_loop_test(errors, refused_line_exits_with_its_status_and_says_why, 0,
                        (int)ARRAY_LEN(refused_lines));
    return test_suite_of("cli",
                         TEST_TCASE("core", 300,
                                    help_everywhere_exits_zero,
                                    help_names_every_command_and_prints_its_usage,
                                    list_shows_checks_and_vectors,
                                    every_check_id_fits_the_id_column,
                                    shifted_ref_fails_the_run_with_status_1,
                                    mutation_reports_a_missed_mutant,
                                    mutation_in_parallel_reads_as_in_sequence,
                                    verbose_shows_every_case,
                                    report_quiet_prints_only_failures_and_the_verdict,
                                    all_evidence_reaches_every_output),
                         errors,
                         /* see check_runner.c */
                         TEST_TCASE("hostile", 120,
                                    hostile_plugin_text_is_shown_not_obeyed,
                                    a_closed_pipe_does_not_lose_the_results,
                                    load_time_misbehaviour_is_a_load_error),
                         NULL);
}
