/*
 * report.c - `pecert report`: render or merge saved results.
 *
 * Reads any number of --json files of `pecert run` (several plugins, the
 * shards of a run, earlier merged reports), merges the shards of each run
 * back into one, and writes the self-contained HTML report, JUnit XML and
 * the merged JSON; --bench adds a Speed section to the HTML from the files
 * of `pecert bench` and `make bench-peers` (reports/report_bench.h). Bad
 * input is one line naming the file, exit status 2, and no output file
 * touched: everything is read, checked and rendered before the first byte
 * is written.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "outputs.h"
#include "report.h"
#include "report_bench.h"
#include "runner.h"

const char pecert_usage_report[] =
    "usage: pecert report RESULTS.json... [-o FILE.html] [--junit FILE] [--json FILE] [options]\n"
    "\n"
    "Renders or merges results saved by `pecert run --json`: several plugins,\n"
    "and the shards of a run (--shard I/N), which are joined into the run an\n"
    "unsharded `pecert run` would have written.\n"
    "\n"
    "options:\n"
    "  -o, --html FILE     the self-contained HTML report\n"
    "  --junit FILE        JUnit XML (one testcase per check per plugin)\n"
    "  --json FILE         the merged results (one run: that run's own JSON)\n"
    "  --mutants FILE      mutant catalogue: plugins it names are mutants, which\n"
    "                      pass when caught (e.g. impls/mutants/catalogue.json)\n"
    "  --allow-fail NAME   show plugin NAME's failures without failing (repeatable)\n"
    "  --bench FILE        a Speed section in the HTML from the JSON of `pecert\n"
    "                      bench` or of `make bench-peers` (told apart by their\n"
    "                      schema; one flag per file, at most one of each); the\n"
    "                      JSON and JUnit outputs do not change\n"
    "  --mutant-failures N keep, of each mutant run, the first N failing cases of\n"
    "                      each check and the error samples of the checks its\n"
    "                      catalogue entry names (needs --mutants); the rest is\n"
    "                      counted, and stays in the run's own results file\n"
    "  --no-timings        write 0 for every elapsed time (byte-stable outputs)\n"
    "  --quiet             print only the runs that fail (and mutants that escape)\n"
    "                      and the verdict, as `run --quiet` prints only failures\n"
    "  --help              this text\n"
    "\n"
    "exit status: 0 every certified plugin passed and every mutant was caught,\n"
    "             1 otherwise, 2 bad usage or input (no file written)\n";

#define MAX_ALLOW_FAIL 64
/* One pecert-bench/1 and one pecert-bench-peers/1 file. */
#define MAX_BENCH 2

typedef struct report_cli {
    pecert_report_outputs out;
    const char *catalogue;
    const char *allow_fail[MAX_ALLOW_FAIL];
    int n_allow_fail;
    const char *bench[MAX_BENCH];
    int n_bench;
    int quiet;
    int mutant_failures; /* --mutant-failures N; -1: every record */
} report_cli;

static int parse_report_args(report_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"mutants", required_argument, NULL, 'm'},    {"allow-fail", required_argument, NULL, 'a'},
        {"quiet", no_argument, NULL, 'q'},            {"help", no_argument, NULL, 'h'},
        {"bench", required_argument, NULL, 'B'},      {"mutant-failures", required_argument, NULL, 'M'},
        PECERT_OUTPUT_GETOPT,                         {NULL, 0, NULL, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': cli->out.path[PECERT_FORMAT_HTML] = optarg; break; /* -o: --html */
        case 'm': cli->catalogue = optarg; break;
        case 'q': cli->quiet = 1; break;
        case 'M':
            if (pecert_parse_count(&cli->mutant_failures, optarg, 0, PECERT_RESULT_MAX_FAILURES) != 0) {
                return pecert_usage_error(pecert_usage_report, "report: --mutant-failures '%s': expected a count in [0, %d]",
                                          optarg, PECERT_RESULT_MAX_FAILURES);
            }
            break;
        case 'a':
            if (cli->n_allow_fail == MAX_ALLOW_FAIL) {
                return pecert_usage_error(pecert_usage_report, "report: more than %d --allow-fail", MAX_ALLOW_FAIL);
            }
            cli->allow_fail[cli->n_allow_fail++] = optarg;
            break;
        case 'B':
            if (cli->n_bench == MAX_BENCH) {
                return pecert_usage_error(pecert_usage_report, "report: more than %d --bench", MAX_BENCH);
            }
            cli->bench[cli->n_bench++] = optarg;
            break;
        case 'h': fputs(pecert_usage_report, stdout); return -1;
        default:
            if (pecert_outputs_option(&cli->out, c, optarg)) {
                break;
            }
            return pecert_bad_option(pecert_usage_report, "report", argv);
        }
    }
    if (cli->mutant_failures >= 0 && cli->catalogue == NULL) {
        return pecert_usage_error(pecert_usage_report, "report: --mutant-failures needs --mutants (which runs are mutants)");
    }
    if (optind == argc) {
        return pecert_usage_error(pecert_usage_report, "report: no results file given");
    }
    return 0;
}

/* Loads, merges and annotates (the bench files into bench, which rep
 * then borrows); 0, or -1 with one line in err. */
static int build_report(pecert_report *rep, pecert_bench *bench, const report_cli *cli, char **files, int n_files,
                        char *err, size_t err_len)
{
    for (int i = 0; i < cli->n_bench; i++) {
        if (pecert_bench_load_file(bench, cli->bench[i], err, err_len) != 0) {
            return -1;
        }
    }
    rep->bench = cli->n_bench > 0 ? bench : NULL;
    for (int i = 0; i < n_files; i++) {
        if (pecert_report_load_file(rep, files[i], err, err_len) != 0) {
            return -1;
        }
    }
    if (pecert_report_merge(rep, err, err_len) != 0) {
        return -1;
    }
    if (cli->catalogue != NULL && pecert_report_apply_catalogue(rep, cli->catalogue, err, err_len) != 0) {
        return -1;
    }
    for (int i = 0; i < cli->n_allow_fail; i++) {
        if (pecert_report_allow_fail(rep, cli->allow_fail[i]) == 0) {
            snprintf(err, err_len, "--allow-fail '%s': no plugin of that name in the results", cli->allow_fail[i]);
            return -1;
        }
    }
    rep->no_timings = cli->out.no_timings;
    pecert_report_finish(rep);
    if (cli->mutant_failures >= 0) {
        pecert_report_summarize_mutants(rep, cli->mutant_failures);
    }
    return 0;
}

/* One line per run: what a CI log should show (under --quiet, only the
 * runs that fail the report or are allowed to fail but did). */
static void print_run(const pecert_report_run *run, int quiet)
{
    if (run->role == PECERT_ROLE_MUTANT) {
        int escaped = run->not_run || !run->caught || !run->diagnosed;
        const char *outcome = run->not_run ? "ESCAPED (no results)"
                              : !run->caught ? "ESCAPED" : !run->diagnosed ? "NOT DIAGNOSED" : "caught";
        if (!quiet || escaped) {
            printf("  mutant  %-28s %s\n", run->label, outcome);
        }
        return;
    }
    size_t counts[PECERT_VERDICT_COUNT];
    pecert_run_results_count(&run->res, counts);
    int failed = pecert_report_run_failed(run);
    if (quiet && !failed) {
        return;
    }
    printf("  %-7s %-28s %zu passed, %zu failed, %zu crashed, %zu timed out, %zu not supported%s\n",
           failed ? "FAIL" : "PASS", run->label, counts[PECERT_VERDICT_PASS], counts[PECERT_VERDICT_FAIL],
           counts[PECERT_VERDICT_CRASH], counts[PECERT_VERDICT_TIMEOUT], counts[PECERT_VERDICT_UNSUPPORTED],
           failed && run->role == PECERT_ROLE_ALLOWED ? " (allowed to fail)" : "");
    pecert_certificate c;
    if (pecert_report_run_certificate(run, &c)) { /* certify: its class and coverage, as certify printed them */
        char coverage[4096];
        pecert_coverage_line(coverage, sizeof(coverage), &c);
        printf("          %s; coverage: %s\n", pecert_cert_class_name(c.cls), coverage);
    }
    if (failed) {
        pecert_print_findings(&run->res);
    }
}

static void print_written(const char *what, const char *path)
{
    struct stat st;
    if (path != NULL && stat(path, &st) == 0) {
        printf("%s: %s (%lld bytes)\n", what, path, (long long)st.st_size);
    }
}

int pecert_cmd_report(int argc, char **argv)
{
    report_cli cli;
    memset(&cli, 0, sizeof(cli));
    cli.mutant_failures = -1;
    int rc = parse_report_args(&cli, argc, argv);
    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
    }
    if (pecert_outputs_check("report", &cli.out) != 0) {
        return PECERT_EXIT_USAGE;
    }
    pecert_report rep;
    pecert_bench bench;
    memset(&rep, 0, sizeof(rep));
    memset(&bench, 0, sizeof(bench));
    char err[4096] = "";
    if (build_report(&rep, &bench, &cli, argv + optind, argc - optind, err, sizeof(err)) != 0 ||
        pecert_report_write(&rep, &cli.out, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        pecert_report_free(&rep);
        pecert_bench_free(&bench);
        return PECERT_EXIT_USAGE;
    }
    int passed = pecert_report_passed(&rep);
    for (size_t i = 0; i < rep.n_runs; i++) {
        print_run(&rep.runs[i], cli.quiet);
    }
    printf("report: %s\n", passed ? "PASS" : "FAIL");
    if (!cli.quiet) {
        for (int i = 0; i < PECERT_FORMAT_COUNT; i++) {
            print_written(pecert_report_formats[i].option, cli.out.path[i]);
        }
    }
    pecert_report_free(&rep);
    pecert_bench_free(&bench);
    return passed ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL;
}
