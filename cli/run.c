/*
 * run.c - `pecert run`: every selected check on one plugin, each in its own
 * process, printed as it finishes and written as JSON, HTML and JUnit.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "outputs.h"
#include "plugin_load.h"
#include "report.h"
#include "runner.h"

const char pecert_usage_run[] =
    "usage: pecert run --impl NAME|PATH [options]\n"
    "\n"
    "Runs every check (each in its own process, with a time limit) on a plugin.\n"
    "NAME is a built-in plugin (build/impls/NAME.so); PATH is any plugin .so;\n"
    "python:FILE.py or python:MODULE[:OBJECT] is an engine written in Python\n"
    "(docs/python-engines.md).\n"
    "\n"
    "options:\n"
    "  --impl NAME|PATH   the plugin to certify (required)\n"
    "  --filter GLOBS     only checks whose id matches a glob; comma-separated, and\n"
    "                     !GLOB excludes (e.g. 'rope.*.golden' or 'rope.*,!rope.half_*')\n"
    "  --vectors DIR      golden vectors (default: $PECERT_VECTORS or the source tree's);\n"
    "                     the property checks take their configs from them too, so a\n"
    "                     check whose family has no vectors in DIR is not applicable;\n"
    "                     *.json files that are not vector manifests are skipped\n"
    PECERT_OUTPUTS_USAGE
    "  --shard I/N        run only shard I of N (checks k with k mod N = I-1);\n"
    "                     `pecert report` merges the shards' --json files\n"
    "  --no-timings       write 0 for every elapsed time (byte-stable outputs)\n"
    "  --timeout S        seconds per check before it is killed (default 120)\n"
    PECERT_SANDBOX_USAGE
    "  -j, --jobs N       checks run at once, each in a process of its own (default\n"
    "                     1); the lines and files are those of one at a time\n"
    "  --fail-fast        start no check after the first that fails, crashes or times\n"
    "                     out (with -j, the one beside it may finish); says how many\n"
    "                     were not run\n"
    "  --durations N      print the N slowest checks and their times at the end\n"
    "  --case FILE:tcId   rerun one golden vector: the checks see only test tcId of\n"
    "                     the vector file FILE (its path, or its end: rope/x.json);\n"
    "                     checks with no case on it are left out (said in one line)\n"
    "  --last-failed FILE only the checks that failed, crashed or timed out in FILE\n"
    "                     (a --json of run or report); if none did, every check\n"
    "  --oracle PATH      the reference plugin used for bounds (default: built-in ref)\n"
    "  --max-details N    failing cases printed per check (default 8; 'all' for every\n"
    "                     one); --json, --html and --junit always hold every one\n"
    "  --quiet            print only failures and the summary\n"
    "  --verbose          print every case of every check (within bound, declined,\n"
    "                     beyond scope: also in --json), its time, and the environment\n"
    "  --help             this text\n"
    "\n"
    "On a terminal a progress line shows checks done/total, the running check\n"
    "and the elapsed time; it is never written when stdout is not a terminal.\n"
    "\n"
    "exit status: 0 every selected check passed, 1 a check failed, crashed or\n"
    "             timed out (or none passed: nothing certified), 2 bad usage or\n"
    "             input, 3 the plugin failed to load\n";

#define PECERT_MAX_FOLDED 1024

typedef struct run_cli {
    const char *impl;
    const char *filter;
    const char *vectors;
    pecert_report_outputs out;  /* --json, --html, --junit, --no-timings */
    const char *oracle;
    double timeout_s;
    int verbose;
    int quiet;
    int max_details;     /* failure lines per check (--max-details)    */
    int shard_index;     /* 0/0: not sharded */
    int shard_count;
    int jobs;            /* -j N: checks at once                       */
    int fail_fast;       /* --fail-fast                                */
    int durations;       /* --durations N: the N slowest, 0 = none     */
    size_t planned;      /* checks this run (shard) planned            */
    const char *case_spec;   /* --case FILE:tcId                       */
    pecert_sandbox_mode sandbox; /* --sandbox                          */
    const char *last_failed; /* --last-failed FILE                     */
    size_t n_no_case;        /* --case: checks with no case on it      */
    /* The checks whose operations the plugin leaves NULL, folded into one
     * line at the end unless --verbose: their indices in the results. */
    size_t not_implemented[PECERT_MAX_FOLDED];
    size_t n_not_implemented;
    int progress;        /* stdout is a terminal and not --quiet */
    double started_s;    /* monotonic clock at the start of the run */
} run_cli;

/* Under a failed check whose worst case is a golden vector: the command
 * that reruns that one case (--case), its file as the vectors directory
 * names it. */
static void print_rerun(const pecert_check_result *r, const run_cli *cli)
{
    const char *file = r->worst_vector.file;
    size_t dir_len = strlen(cli->vectors);
    if (r->verdict < PECERT_VERDICT_FAIL || file[0] == '\0' || cli->case_spec != NULL) {
        return;
    }
    if (strncmp(file, cli->vectors, dir_len) == 0 && file[dir_len] == '/') {
        file += dir_len + 1;
    }
    char line[1024 + 512];
    snprintf(line, sizeof(line), "rerun the worst case: pecert run --impl %s --filter %s --case %s:%lld", cli->impl,
             r->check_id, file, (long long)r->worst_vector.tc_id);
    pecert_print_wrapped(10, 4, line);
}

static void print_result(const pecert_check_result *r, const run_cli *cli)
{
    pecert_print_opts o = {PECERT_CHECK_ID_COLUMN, cli->quiet, cli->verbose, cli->out.no_timings, cli->max_details};
    pecert_print_check(r, &o);
    print_rerun(r, cli);
}

/* The progress line: redrawn in place ("\r", erase to end of line). */
static void on_start(const char *check_id, size_t done, size_t total, void *user)
{
    const run_cli *cli = user;
    if (cli->progress) {
        char line[256];
        snprintf(line, sizeof(line), "\r\033[K[%zu/%zu done] running %s, %.1f s elapsed", done, total, check_id,
                 pecert_now_s() - cli->started_s);
        pecert_term_raw(line);
        fflush(stdout);
    }
}

static void on_check(const pecert_check_result *r, size_t done, size_t total, void *user)
{
    run_cli *cli = user;
    cli->planned = total;
    if (cli->progress) {
        pecert_term_raw("\r\033[K"); /* the result line replaces the progress line */
    }
    if (cli->case_spec != NULL && r->verdict == PECERT_VERDICT_UNSUPPORTED && r->n_cases == 0) {
        cli->n_no_case++; /* nothing of it applies to the one vector */
        return;
    }
    if (!cli->verbose && r->verdict == PECERT_VERDICT_UNSUPPORTED &&
        strcmp(r->diagnosis, PECERT_DIAGNOSIS_NOT_IMPLEMENTED) == 0 && cli->n_not_implemented < PECERT_MAX_FOLDED) {
        cli->not_implemented[cli->n_not_implemented++] = done - 1; /* r is results->checks[done - 1] */
        return;
    }
    print_result(r, cli);
    fflush(stdout);
}

/* The folded checks: one line naming them all, where each would have had
 * two ("N/A id plugin does not implement ..."). */
static void print_not_implemented(const run_cli *cli, const pecert_run_results *res)
{
    if (cli->n_not_implemented == 0 || cli->quiet) {
        return;
    }
    size_t len = 256;
    for (size_t i = 0; i < cli->n_not_implemented; i++) {
        len += strlen(res->checks[cli->not_implemented[i]].check_id) + 2;
    }
    char *line = malloc(len);
    if (line == NULL) {
        return;
    }
    size_t used = (size_t)snprintf(line, len, "N/A     %zu checks need operations the plugin leaves NULL (--verbose: "
                                              "a line each):", cli->n_not_implemented);
    for (size_t i = 0; i < cli->n_not_implemented; i++) {
        used += (size_t)snprintf(line + used, len - used, "%s %s", i > 0 ? "," : "",
                                 res->checks[cli->not_implemented[i]].check_id);
    }
    pecert_print_wrapped(2, 8, line);
    free(line);
}

/* "I/N" with 1 <= I <= N <= PECERT_MAX_SHARDS; 0 or -1. */
static int parse_shard(run_cli *cli, const char *arg)
{
    char *end = NULL;
    long i = strtol(arg, &end, 10);
    if (end == arg || *end != '/') {
        return -1;
    }
    const char *rest = end + 1;
    long n = strtol(rest, &end, 10);
    if (end == rest || *end != '\0' || n < 1 || n > PECERT_MAX_SHARDS || i < 1 || i > n) {
        return -1;
    }
    cli->shard_index = (int)i;
    cli->shard_count = (int)n;
    return 0;
}

static int parse_run_args(run_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"impl", required_argument, NULL, 'i'},   {"filter", required_argument, NULL, 'f'},
        {"vectors", required_argument, NULL, 'v'},
        {"timeout", required_argument, NULL, 't'}, {"oracle", required_argument, NULL, 'o'},
        {"verbose", no_argument, NULL, 'V'},       {"help", no_argument, NULL, 'h'},
        {"shard", required_argument, NULL, 'S'},   {"quiet", no_argument, NULL, 'q'},
        {"max-details", required_argument, NULL, 'D'},
        {"jobs", required_argument, NULL, 'N'},    {"fail-fast", no_argument, NULL, 'F'},
        {"durations", required_argument, NULL, 'R'}, {"case", required_argument, NULL, 'C'},
        {"last-failed", required_argument, NULL, 'L'}, {"sandbox", required_argument, NULL, 'B'},
        PECERT_OUTPUT_GETOPT, {NULL, 0, NULL, 0}};
    int c;
    int rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
        switch (c) {
        case 'N':
            if (pecert_parse_count(&cli->jobs, optarg, 1, PECERT_MAX_JOBS) != 0) {
                return pecert_usage_error(pecert_usage_run, "run: --jobs '%s': expected a count in [1, %d]", optarg,
                                          PECERT_MAX_JOBS);
            }
            break;
        case 'F': cli->fail_fast = 1; break;
        case 'C': cli->case_spec = optarg; break;
        case 'L': cli->last_failed = optarg; break;
        case 'R':
            if (pecert_parse_count(&cli->durations, optarg, 1, 100000) != 0) {
                return pecert_usage_error(pecert_usage_run, "run: --durations '%s': expected a count >= 1", optarg);
            }
            break;
        case 'i': cli->impl = optarg; break;
        case 'f': cli->filter = optarg; break;
        case 'v': cli->vectors = optarg; break;
        case 'j':
            if (pecert_parse_count(&cli->jobs, optarg, 1, PECERT_MAX_JOBS) != 0) {
                return pecert_usage_error(pecert_usage_run, "run: -j '%s': expected a count in [1, %d]", optarg,
                                          PECERT_MAX_JOBS);
            }
            break;
        case 'o': cli->oracle = optarg; break;
        case 'V': cli->verbose = 1; break;
        case 'q': cli->quiet = 1; break;
        case 'D':
            if (pecert_parse_max_details(&cli->max_details, optarg) != 0) {
                return pecert_usage_error(pecert_usage_run, "run: --max-details '%s': expected a count >= 0 or 'all'", optarg);
            }
            break;
        case 'S':
            if (parse_shard(cli, optarg) != 0) {
                return pecert_usage_error(pecert_usage_run, "run: --shard '%s': expected I/N with 1 <= I <= N <= %d", optarg,
                                          PECERT_MAX_SHARDS);
            }
            break;
        case 't':
            if ((rc = pecert_timeout_arg(&cli->timeout_s, pecert_usage_run, "run", optarg)) != 0) {
                return rc;
            }
            break;
        case 'B':
            if ((rc = pecert_sandbox_arg(&cli->sandbox, pecert_usage_run, "run", optarg)) != 0) {
                return rc;
            }
            break;
        case 'h': fputs(pecert_usage_run, stdout); return -1;
        default:
            if (pecert_outputs_option(&cli->out, c, optarg)) {
                break;
            }
            return pecert_bad_option(pecert_usage_run, "run", argv);
        }
    }
    if ((rc = pecert_no_operands(pecert_usage_run, "run", argc, argv)) != 0) {
        return rc;
    }
    if (cli->impl == NULL) {
        return pecert_usage_error(pecert_usage_run, "run: --impl NAME|PATH is required");
    }
    if (cli->quiet && cli->verbose) {
        return pecert_usage_error(pecert_usage_run, "run: --quiet and --verbose exclude each other");
    }
    if (cli->last_failed != NULL && cli->filter != NULL) {
        return pecert_usage_error(pecert_usage_run, "run: --last-failed and --filter exclude each other");
    }
    return 0;
}

static void print_summary(const pecert_run_results *res)
{
    if (res->info.shard_count > 1) {
        printf("diagnosis: made over the whole run, when `pecert report` merges the %d shards' --json files\n",
               res->info.shard_count);
    }
    pecert_print_findings(res);
    size_t counts[PECERT_VERDICT_COUNT];
    pecert_run_results_count(res, counts);
    printf("%s: %zu passed, %zu failed, %zu crashed, %zu timed out, %zu not supported (of %zu checks)%s%s\n",
           res->info.plugin_name, counts[PECERT_VERDICT_PASS], counts[PECERT_VERDICT_FAIL],
           counts[PECERT_VERDICT_CRASH], counts[PECERT_VERDICT_TIMEOUT], counts[PECERT_VERDICT_UNSUPPORTED],
           res->n_checks, res->info.unsandboxed ? "; " : "", res->info.unsandboxed ? PECERT_UNSANDBOXED_WORDS : "");
}

static void print_environment(const pecert_run_results *res)
{
    const pecert_run_info *i = &res->info;
    printf("environment: %s, %d CPUs, %s, built with %s\n", i->cpu_model, i->cpus_online, i->os, i->compiler);
    printf("plugin: %s %s (%s)%s%s; declared scope: %s\n", i->plugin_id, i->plugin_version, i->plugin_name,
           i->plugin_describe[0] != '\0' ? ", " : "", i->plugin_describe,
           i->plugin_scope[0] != '\0' ? i->plugin_scope : "none declared");
    printf("vectors: %d files, %d vectors, %s\n", i->n_vector_files, i->n_vectors, i->vectors_hash);
}

/* --last-failed FILE: the ids of the checks that failed, crashed or timed
 * out in FILE (results of run, or a report: every run in it), joined as a
 * --filter into *out (malloc'ed; NULL when none failed). 0, or -1 after
 * saying why. */
static int last_failed_filter(char **out, const char *path)
{
    pecert_report rep = {0};
    char err[2048] = "";
    *out = NULL;
    if (pecert_report_load_file(&rep, path, err, sizeof(err)) != 0 || pecert_report_merge(&rep, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: run: --last-failed %s\n", err);
        pecert_report_free(&rep);
        return -1;
    }
    size_t len = 1;
    for (size_t i = 0; i < rep.n_runs; i++) {
        for (size_t c = 0; c < rep.runs[i].res.n_checks; c++) {
            len += strlen(rep.runs[i].res.checks[c].check_id) + 1;
        }
    }
    char *filter = calloc(len, 1);
    size_t used = 0;
    for (size_t i = 0; filter != NULL && i < rep.n_runs; i++) {
        for (size_t c = 0; c < rep.runs[i].res.n_checks; c++) {
            const pecert_check_result *r = &rep.runs[i].res.checks[c];
            if (r->verdict >= PECERT_VERDICT_FAIL && (used == 0 || !pecert_filter_selects(filter, r->check_id))) {
                used += (size_t)snprintf(filter + used, len - used, "%s%s", used > 0 ? "," : "", r->check_id);
            }
        }
    }
    pecert_report_free(&rep);
    if (filter == NULL) {
        fprintf(stderr, "pecert: run: --last-failed %s: out of memory\n", path);
        return -1;
    }
    if (used == 0) {
        printf("--last-failed %s: no check failed there; running every check\n", path);
        free(filter);
        return 0;
    }
    printf("--last-failed %s: %s\n", path, filter);
    *out = filter;
    return 0;
}

int pecert_cmd_run(int argc, char **argv)
{
    run_cli cli = {.timeout_s = 120.0, .vectors = pecert_default_vectors(), .max_details = PECERT_DEFAULT_MAX_DETAILS};
    int rc = parse_run_args(&cli, argc, argv);
    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
    }
    if (pecert_outputs_check("run", &cli.out) != 0) {
        return PECERT_EXIT_USAGE;
    }
    char dir[PATH_MAX];
    char plugin_path[PATH_MAX];
    char oracle_path[PATH_MAX];
    pecert_impl_dir(dir, sizeof(dir));
    if (pecert_plugin_resolve(plugin_path, sizeof(plugin_path), cli.impl, dir) != 0 ||
        pecert_plugin_resolve(oracle_path, sizeof(oracle_path), cli.oracle != NULL ? cli.oracle : "ref", dir) != 0) {
        return pecert_usage_error(pecert_usage_run, "run: --impl/--oracle '%s': path too long", cli.impl);
    }
    pecert_run_options opt = {plugin_path, oracle_path, cli.vectors, cli.filter, cli.timeout_s,
                              on_check, &cli};
    char *failed_filter = NULL;
    if (cli.last_failed != NULL) {
        if (last_failed_filter(&failed_filter, cli.last_failed) != 0) {
            return PECERT_EXIT_USAGE;
        }
        cli.filter = failed_filter; /* NULL: nothing failed there, every check runs */
        opt.filter = cli.filter;
    }
    pecert_run_extras extras = {cli.shard_index, cli.shard_count, on_start,      cli.verbose,
                                cli.jobs,        cli.fail_fast,   cli.case_spec, cli.sandbox};
    pecert_run_results res;
    char err[2048] = "";
    cli.progress = !cli.quiet && isatty(STDOUT_FILENO);
    cli.started_s = pecert_now_s();
    if (!cli.quiet) {
        printf("pecert %s: certifying %s", PECERT_VERSION, plugin_path);
        printf(cli.shard_count > 0 ? " (shard %d/%d)\n" : "\n", cli.shard_index, cli.shard_count);
    }
    int status = pecert_run_ex(&res, &opt, &extras, err, sizeof(err));
    if (status == PECERT_EXIT_USAGE || status == PECERT_EXIT_LOAD) {
        fprintf(stderr, "pecert: %s\n", err);
        pecert_run_results_free(&res);
        free(failed_filter);
        return status;
    }
    if (cli.verbose) {
        print_environment(&res);
    }
    print_not_implemented(&cli, &res);
    if (cli.case_spec != NULL && cli.n_no_case > 0) {
        printf("--case %s: %zu checks have no case on it (not run)\n", cli.case_spec, cli.n_no_case);
    }
    if (cli.durations > 0 && !cli.out.no_timings) {
        pecert_print_durations(&res, cli.durations);
    }
    print_summary(&res);
    if (cli.fail_fast && res.n_checks < cli.planned) {
        printf("--fail-fast: stopped after the first failure; %zu of %zu checks not run\n",
               cli.planned - res.n_checks, cli.planned);
    }
    if (pecert_outputs_write_run(&res, "pecert run", &cli.out) != 0) {
        status = PECERT_EXIT_USAGE;
    }
    pecert_run_results_free(&res);
    free(failed_filter);
    return status;
}
