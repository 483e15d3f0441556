/*
 * mutation.c - `pecert mutation`: proves the checks catch real bugs.
 *
 * Every mutant plugin (a correct engine with one real-world bug put back
 * in) is run through every check; it is caught only if each check its
 * catalogue entry names fails and the diagnosis names its bug. Every
 * mutant is built on two bases (impls/mutants/core/mutant.h): `ref`
 * (double) and a float32 honest variant, and both sets are run: a
 * diagnosis that only works on an otherwise exact engine would fail the
 * float32 ports it exists for. A mutant without an entry, or an entry
 * without a mutant, is an error too: the catalogue and the plugins must
 * stay in step.
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

/* --dir python:DIR: the mutants are Python engines (as --impl python:). */
#define PYTHON_PREFIX "python:"

#include "certify_checks.h"
#include "checks.h"
#include "commands.h"
#include "outputs.h"
#include "input_file.h"
#include "json_text.h"
#include "job_pool.h"
#include "plugin_load.h"
#include "report.h"
#include "results_json.h"
#include "runner.h"

const char pecert_usage_mutation[] =
    "usage: pecert mutation [options]\n"
    "\n"
    "Runs every mutant (a correct engine with one real-world bug, built on ref\n"
    "and on a float32 honest variant) through every check and fails unless\n"
    "each is caught by the checks its catalogue entry names and the diagnosis\n"
    "names the bug its entry expects.\n"
    "\n"
    "options:\n"
    "  --catalogue FILE   mutant catalogue (default: impls/mutants/catalogue.json)\n"
    "  --dir DIR          built mutants of one base; repeatable (default:\n"
    "                     <build>/impls/mutants and <build>/impls/mutants-f32);\n"
    "                     python:DIR for engines written in Python (DIR/NAME.py)\n"
    "  --vectors DIR      golden vectors (default as for `pecert run`)\n"
    "  --jobs N           mutants run at once, each in a worker process of its\n"
    "                     own (default 1); the lines still print in catalogue order\n"
    "  --timeout S        seconds per check (default 120)\n"
    "  --json FILE        every mutant's results (pecert-report/1, as `pecert\n"
    "                     report --json` writes them), atomically\n"
    "  --html FILE        the HTML report of the mutants, atomically\n"
    "  --junit FILE       JUnit XML: one testcase per mutant, passing when it is\n"
    "                     caught and diagnosed, atomically\n"
    "  --no-timings       write 0 for every elapsed time (byte-stable outputs)\n"
    "  --honest FILE      results of an honest variant (pecert run --json);\n"
    "                     repeatable: the honest side of the separation table\n"
    "  --separation FILE  write the separation table (markdown) to FILE\n"
    "  --doc FILE         splice the table into FILE between its separation\n"
    "                     markers (TOLERANCES.md)\n"
    "  --quiet            print only the mutants not caught (MISSED, UNNAMED,\n"
    "                     ERROR) and the summary lines; no progress line\n"
    "  --help             this text\n"
    "\n"
    "Each mutant's line names the checks that caught it and the diagnosis it got.\n"
    "On a terminal a progress line shows mutants done/total and the elapsed time;\n"
    "it is never written when stdout is not a terminal.\n"
    "\n"
    "exit status: 0 every mutant caught and diagnosed, 1 one escaped (or was not\n"
    "             diagnosed, or failed to load), 2 bad usage, catalogue or output\n"
    "             path\n";

#define MAX_BASES 8

typedef struct mutation_opts {
    const char *catalogue;
    const char *dirs[MAX_BASES];
    int n_dirs;
    const char *vectors;
    double timeout_s;
    const char *honest[64];
    int n_honest;
    const char *separation;
    const char *doc;
    int jobs;
    int quiet;
    pecert_report_outputs out; /* --json, --html, --junit, --no-timings */
} mutation_opts;

/* The catalogue and the document the separation table goes into: a few
 * KiB each. */
static char *read_text(const char *path, size_t *len, char *err, size_t err_len)
{
    return pecert_input_read(path, (size_t)16 << 20, "the 16 MiB a catalogue or document may have", len, err,
                             err_len);
}

/* Checks the shape of one entry; returns 0 or -1 with err naming the field. */
static int validate_entry(const cJSON *m, int index, const char *path, char *err, size_t err_len)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
    const cJSON *must = cJSON_GetObjectItemCaseSensitive(m, "must_fail");
    if (!cJSON_IsString(name) || name->valuestring[0] == '\0') {
        snprintf(err, err_len, "%s: mutants[%d].name: missing or not a string", path, index);
        return -1;
    }
    if (!cJSON_IsArray(must) || cJSON_GetArraySize(must) == 0) {
        snprintf(err, err_len, "%s: mutants[%d].must_fail: must name at least one check", path, index);
        return -1;
    }
    const cJSON *id = NULL;
    cJSON_ArrayForEach(id, must)
    {
        if (!cJSON_IsString(id) || pecert_check_find(id->valuestring) == NULL) {
            snprintf(err, err_len, "%s: mutants[%d].must_fail: '%s' is not a check id", path, index,
                     cJSON_IsString(id) ? id->valuestring : "?");
            return -1;
        }
    }
    return 0;
}

/* The finding the catalogue expects the diagnosis to name, or NULL. */
static const pecert_finding *expected_finding(const pecert_run_results *res, const cJSON *m)
{
    const cJSON *finding = cJSON_GetObjectItemCaseSensitive(m, "finding");
    for (int i = 0; cJSON_IsString(finding) && i < res->n_findings; i++) {
        if (strcmp(res->findings[i].id, finding->valuestring) == 0) {
            return &res->findings[i];
        }
    }
    return NULL;
}

/* One `pecert mutation`: what the jobs share, and what they add up to. */
typedef struct mutation_run {
    const mutation_opts *o;
    const cJSON *list;          /* the catalogue's mutants                */
    int per_base;               /* entries in list                        */
    const char *oracle;
    pecert_report sep;          /* honest runs and mutants: separation    */
    pecert_report out;          /* the mutants alone: --json/--html/--junit */
    int want_out;
    int caught;
    int errors;
    int header_done[MAX_BASES]; /* "mutants in DIR:" printed              */
    int progress;               /* stdout is a terminal and not --quiet   */
    double started_s;
    size_t last_done;           /* the progress line last drawn, redrawn  */
    size_t last_total;          /* under the lines a result prints        */
    int last_running;
} mutation_run;

/* Clears the progress line before a line of output takes its place. */
static void clear_progress(const mutation_run *st)
{
    if (st->progress) {
        pecert_term_raw("\r\033[K");
    }
}

static void on_progress(size_t done, size_t total, int running, void *user)
{
    mutation_run *st = user;
    st->last_done = done;
    st->last_total = total;
    st->last_running = running;
    if (st->progress) {
        char line[160];
        snprintf(line, sizeof(line), "\r\033[K[%zu/%zu mutants done] %d running, %.1f s elapsed", done, total, running,
                 pecert_now_s() - st->started_s);
        pecert_term_raw(line);
    }
}

/* "mutants in DIR:" once per base, before its first line. */
static void base_header(mutation_run *st, int base)
{
    if (!st->header_done[base]) {
        st->header_done[base] = 1;
        clear_progress(st);
        printf("mutants in %s:\n", st->o->dirs[base]);
    }
}

/* A line of base's: always printed when it reports a problem, and under
 * --quiet only then. */
static void mutant_line(mutation_run *st, int base, int problem, const char *text)
{
    if (st->o->quiet && !problem) {
        return;
    }
    base_header(st, base);
    clear_progress(st);
    pecert_print_wrapped(2, 8, text);
}

/* Judges one mutant's results against its entry; returns 1 if caught
 * (and, when the catalogue says how, diagnosed), else 0. */
static int judge_mutant(mutation_run *st, int base, const cJSON *m, const pecert_run_results *res)
{
    const char *name = cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring;
    int caught = 1;
    char missed[512] = "";
    char by[512] = ""; /* the named checks, for the caught line */
    const cJSON *id = NULL;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(m, "must_fail"))
    {
        const pecert_check_result *r = pecert_run_results_find(res, id->valuestring);
        if (r == NULL || r->verdict < PECERT_VERDICT_FAIL) {
            caught = 0;
            strncat(missed, id->valuestring, sizeof(missed) - strlen(missed) - 2);
            strncat(missed, " ", sizeof(missed) - strlen(missed) - 1);
        }
        size_t used = strlen(by);
        snprintf(by + used, sizeof(by) - used, "%s%s", used > 0 ? ", " : "", id->valuestring);
    }
    size_t failing = 0;
    for (size_t i = 0; i < res->n_checks; i++) {
        failing += res->checks[i].verdict >= PECERT_VERDICT_FAIL;
    }
    const pecert_finding *named = expected_finding(res, m);
    const cJSON *finding = cJSON_GetObjectItemCaseSensitive(m, "finding");
    char line[2048];
    if (!caught) {
        snprintf(line, sizeof(line), "MISSED  %-28s passes %s", name, missed);
    } else if (cJSON_IsString(finding) && named == NULL) {
        caught = 0;
        snprintf(line, sizeof(line), "UNNAMED %-28s caught, but the diagnosis does not name '%s'", name,
                 finding->valuestring);
    } else {
        snprintf(line, sizeof(line), "caught  %-28s by %s (%zu of %zu checks fail); diagnosis: %s", name, by, failing,
                 res->n_checks, named != NULL ? named->bug : "(none expected)");
    }
    mutant_line(st, base, !caught, line);
    return caught;
}

/* A base's mutants are plugins (NAME.so) or, in a python:DIR base,
 * engines written in Python (NAME.py, run as python:DIR/NAME.py). */
static const char *mutant_suffix(const char *dir)
{
    return strncmp(dir, PYTHON_PREFIX, strlen(PYTHON_PREFIX)) == 0 ? ".py" : ".so";
}

/* Job index of the pool: mutant (index mod per_base) of base (index div
 * per_base); its catalogue entry, and its plugin's path in path. */
static const cJSON *job_mutant(const mutation_run *st, size_t index, int *base, char *path, size_t path_len)
{
    *base = (int)(index / (size_t)st->per_base);
    const cJSON *m = cJSON_GetArrayItem(st->list, (int)(index % (size_t)st->per_base));
    snprintf(path, path_len, "%s/%s%s", st->o->dirs[*base], cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring,
             mutant_suffix(st->o->dirs[*base]));
    return m;
}

/* The worker: one mutant through every check, as JSON {"status",
 * "error", "results"} (results absent when the plugin did not load). */
static char *run_mutant(size_t index, void *user)
{
    const mutation_run *st = user;
    int base;
    char path[PATH_MAX];
    char err[2048] = "";
    (void)job_mutant(st, index, &base, path, sizeof(path));
    pecert_run_options opt = {path, st->oracle, st->o->vectors, NULL, st->o->timeout_s, NULL, NULL};
    pecert_run_results res;
    int status = pecert_run(&res, &opt, err, sizeof(err));
    cJSON *root = cJSON_CreateObject();
    if (root != NULL) {
        cJSON_AddNumberToObject(root, "status", status);
        cJSON_AddStringToObject(root, "error", err);
        if (status != PECERT_EXIT_USAGE && status != PECERT_EXIT_LOAD) {
            cJSON_AddItemToObject(root, "results", pecert_run_results_to_json(&res));
        }
    }
    pecert_run_results_free(&res);
    char *text = root != NULL ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* Moves a copy of the results in results into rep as a mutant run. */
static void keep_run(pecert_report *rep, const cJSON *results, const char *path)
{
    char err[256];
    pecert_run_results res;
    pecert_id_rules ids = pecert_results_id_rules();
    if (pecert_run_results_from_json(&res, results, &ids, err, sizeof(err)) == 0 &&
        pecert_report_add_run(rep, &res, PECERT_ROLE_MUTANT, path) != 0) {
        pecert_run_results_free(&res);
    }
}

/* What a worker printed (a plugin's own output, a warning), shown where
 * its mutant's line goes, not over another's. */
static void show_printed(mutation_run *st, int base, const char *printed)
{
    if (printed[0] != '\0') {
        base_header(st, base);
        clear_progress(st);
        fflush(stdout);
        fputs(printed, stderr);
        if (printed[strlen(printed) - 1] != '\n') {
            fputc('\n', stderr);
        }
    }
}

/* The parent, in catalogue order: judge the mutant, keep its results. */
static void on_result(size_t index, const char *text, size_t len, const char *why, const char *printed, void *user)
{
    mutation_run *st = user;
    int base;
    char path[PATH_MAX];
    const cJSON *m = job_mutant(st, index, &base, path, sizeof(path));
    const char *name = cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring;
    char line[2600];
    if (!st->o->quiet) {
        base_header(st, base);
    }
    show_printed(st, base, printed);
    cJSON *root = text != NULL ? cJSON_ParseWithLength(text, len) : NULL;
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
    pecert_run_results res;
    char err[256] = "no results";
    pecert_id_rules ids = pecert_results_id_rules();
    if (root == NULL || !cJSON_IsObject(results) ||
        pecert_run_results_from_json(&res, results, &ids, err, sizeof(err)) != 0) {
        if (text == NULL) {
            snprintf(line, sizeof(line), "ERROR   %-28s %s", name, why);
        } else if (cJSON_IsString(error) && error->valuestring[0] != '\0') {
            snprintf(line, sizeof(line), "ERROR   %-28s %s", name, error->valuestring);
        } else {
            snprintf(line, sizeof(line), "ERROR   %-28s the worker's results do not read: %s", name, err);
        }
        mutant_line(st, base, 1, line);
        st->errors++;
        cJSON_Delete(root);
        on_progress(st->last_done, st->last_total, st->last_running, st);
        return;
    }
    st->caught += judge_mutant(st, base, m, &res);
    if (pecert_report_add_run(&st->sep, &res, PECERT_ROLE_MUTANT, path) != 0) {
        pecert_run_results_free(&res);
    }
    if (st->want_out) {
        keep_run(&st->out, results, path);
    }
    cJSON_Delete(root);
    fflush(stdout);
    on_progress(st->last_done, st->last_total, st->last_running, st);
}

/* Every built mutant must have an entry (and the reverse, checked when
 * running). Returns the number of unlisted mutants. */
static int unlisted_mutants(mutation_run *st, int base)
{
    const char *dir = st->o->dirs[base];
    const char *suffix = mutant_suffix(dir);
    DIR *d = opendir(strcmp(suffix, ".py") == 0 ? dir + strlen(PYTHON_PREFIX) : dir);
    int unlisted = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, suffix) != 0) {
            continue;
        }
        int found = 0;
        const cJSON *m = NULL;
        cJSON_ArrayForEach(m, st->list)
        {
            const char *n = cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring;
            found |= strlen(n) == len - 3 && strncmp(n, e->d_name, len - 3) == 0;
        }
        if (!found) {
            char line[600];
            snprintf(line, sizeof(line), "ERROR   %-28s built but not in the catalogue", e->d_name);
            mutant_line(st, base, 1, line);
            unlisted++;
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    return unlisted;
}

static cJSON *load_catalogue(const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char *text = read_text(path, &len, err, err_len);
    cJSON *root = text != NULL ? pecert_json_parse_strict(text, len, path, NULL, err, err_len) : NULL;
    free(text);
    if (root == NULL) {
        return NULL;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "mutants");
    int i = 0;
    const cJSON *m = NULL;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0) {
        snprintf(err, err_len, "%s: mutants: missing or empty", path);
        goto out_bad;
    }
    cJSON_ArrayForEach(m, list)
    {
        if (validate_entry(m, i++, path, err, err_len) != 0) {
            goto out_bad;
        }
    }
    return root;
out_bad:
    cJSON_Delete(root);
    return NULL;
}

static int parse_mutation_args(mutation_opts *o, int argc, char **argv)
{
    static const struct option opts[] = {
        {"catalogue", required_argument, NULL, 'c'}, {"dir", required_argument, NULL, 'd'},
        {"vectors", required_argument, NULL, 'v'},   {"timeout", required_argument, NULL, 't'},
        {"honest", required_argument, NULL, 'H'},    {"separation", required_argument, NULL, 's'},
        {"doc", required_argument, NULL, 'D'},       {"help", no_argument, NULL, 'h'},
        {"jobs", required_argument, NULL, 'j'},      {"quiet", no_argument, NULL, 'q'},
        PECERT_OUTPUT_GETOPT,                        {NULL, 0, NULL, 0}};
    int c;
    int rc;
    char *end = NULL;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': o->catalogue = optarg; break;
        case 'd':
            if (o->n_dirs == MAX_BASES) {
                return pecert_usage_error(pecert_usage_mutation, "mutation: --dir: at most %d", MAX_BASES);
            }
            o->dirs[o->n_dirs++] = optarg;
            break;
        case 'v': o->vectors = optarg; break;
        case 't':
            if ((rc = pecert_timeout_arg(&o->timeout_s, pecert_usage_mutation, "mutation", optarg)) != 0) {
                return rc;
            }
            break;
        case 'j': {
            long n = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || n < 1 || n > PECERT_POOL_MAX_JOBS) {
                return pecert_usage_error(pecert_usage_mutation, "mutation: --jobs '%s': expected a count in [1, %d]", optarg,
                                          PECERT_POOL_MAX_JOBS);
            }
            o->jobs = (int)n;
            break;
        }
        case 'H':
            if (o->n_honest == (int)(sizeof(o->honest) / sizeof(o->honest[0]))) {
                return pecert_usage_error(pecert_usage_mutation, "mutation: --honest: at most %d files", o->n_honest);
            }
            o->honest[o->n_honest++] = optarg;
            break;
        case 's': o->separation = optarg; break;
        case 'D': o->doc = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'h': fputs(pecert_usage_mutation, stdout); return -1;
        default:
            if (pecert_outputs_option(&o->out, c, optarg)) {
                break;
            }
            return pecert_bad_option(pecert_usage_mutation, "mutation", argv);
        }
    }
    if ((rc = pecert_no_operands(pecert_usage_mutation, "mutation", argc, argv)) != 0) {
        return rc;
    }
    return 0;
}

/* The honest variants' results (--honest), as certified runs. */
static int load_honest(pecert_report *rep, const mutation_opts *o, char *err, size_t err_len)
{
    for (int i = 0; i < o->n_honest; i++) {
        if (pecert_report_load_file(rep, o->honest[i], err, err_len) != 0) {
            return -1;
        }
    }
    return 0;
}

#define DOC_BEGIN "<!-- separation: begin"
#define DOC_END "<!-- separation: end -->"

/* doc's text with the lines between its separation markers replaced by
 * table (malloc'ed), or NULL with err naming the file. */
static char *spliced(const char *path, const char *table, char *err, size_t err_len)
{
    size_t len = 0;
    char *text = read_text(path, &len, err, err_len);
    char *begin = text != NULL ? strstr(text, DOC_BEGIN) : NULL;
    char *body = begin != NULL ? strchr(begin, '\n') : NULL;
    char *end = body != NULL ? strstr(body, DOC_END) : NULL;
    if (end == NULL) {
        if (text != NULL) {
            snprintf(err, err_len, "%s: no '%s ...' line followed by '%s'", path, DOC_BEGIN, DOC_END);
        }
        free(text);
        return NULL;
    }
    size_t head = (size_t)(body + 1 - text);
    size_t n = head + strlen(table) + strlen(end) + 2;
    char *out = malloc(n);
    if (out != NULL) {
        snprintf(out, n, "%.*s%s%s", (int)head, text, table, end);
    }
    free(text);
    return out;
}

/* pecert_write_file_atomic ends the file with a newline of its own. */
static void drop_final_newline(char *text)
{
    size_t n = text != NULL ? strlen(text) : 0;
    if (n > 0 && text[n - 1] == '\n') {
        text[n - 1] = '\0';
    }
}

/* The separation table of the run: printed, and written where asked. */
static int write_separation(pecert_report *rep, const mutation_opts *o, char *err, size_t err_len)
{
    pecert_separation sep;
    if (pecert_report_apply_catalogue(rep, o->catalogue, err, err_len) != 0) {
        return -1;
    }
    pecert_report_finish(rep);
    if (pecert_report_separation(rep, &sep) != 0) {
        snprintf(err, err_len, "out of memory for the separation table");
        return -1;
    }
    int missed = 0;
    for (size_t i = 0; i < sep.n_rows; i++) {
        missed += !pecert_separation_row_meets_goal(&sep.rows[i]);
    }
    printf("separation: %zu checks measured (%d honest runs, %d mutant runs); %d miss the goal "
           "(honest <= %.2g, mutant >= %.3g): TOLERANCES.md says why\n",
           sep.n_rows, sep.n_honest_runs, sep.n_mutant_runs, missed, PECERT_SEPARATION_HONEST_GOAL,
           PECERT_SEPARATION_MUTANT_GOAL);
    char *table = pecert_separation_markdown(&sep);
    pecert_separation_free(&sep);
    int rc = table != NULL ? 0 : -1;
    if (table == NULL) {
        snprintf(err, err_len, "out of memory for the separation table");
    }
    char *doc = rc == 0 && o->doc != NULL ? spliced(o->doc, table, err, err_len) : NULL;
    drop_final_newline(table);
    drop_final_newline(doc);
    if (rc == 0 && o->separation != NULL) {
        rc = pecert_write_file_atomic(o->separation, table, err, err_len);
    }
    if (rc == 0 && o->doc != NULL) {
        rc = doc != NULL ? pecert_write_file_atomic(o->doc, doc, err, err_len) : -1;
    }
    free(doc);
    free(table);
    return rc;
}

/* --json, --html, --junit of the mutants alone (the honest runs are the
 * separation table's, not this gate's). 0, or -1 after saying why. */
static int write_outputs(mutation_run *st)
{
    char err[2048] = "";
    if (!st->want_out) {
        return 0;
    }
    int rc = pecert_report_apply_catalogue(&st->out, st->o->catalogue, err, sizeof(err));
    if (rc == 0) {
        st->out.no_timings = st->o->out.no_timings;
        pecert_report_finish(&st->out);
        rc = pecert_report_write(&st->out, &st->o->out, err, sizeof(err));
    }
    if (rc != 0) {
        fprintf(stderr, "pecert: %s\n", err);
    }
    return rc;
}

/* Runs every mutant of every base in the pool; the summary line. */
static int run_all(mutation_run *st)
{
    char err[2048] = "";
    for (int b = 0; b < st->o->n_dirs; b++) {
        st->errors += unlisted_mutants(st, b);
    }
    pecert_pool pool = {(size_t)st->per_base * (size_t)st->o->n_dirs, st->o->jobs, run_mutant, on_result,
                        on_progress, st, NULL};
    st->progress = !st->o->quiet && isatty(STDOUT_FILENO);
    st->started_s = pecert_now_s();
    if (pecert_pool_run(&pool, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        return -1;
    }
    clear_progress(st);
    int total = (int)pool.n;
    printf("mutation: %d/%d mutants caught by their named checks and diagnosed%s\n", st->caught, total,
           st->errors > 0 ? " (with errors)" : "");
    return st->caught == total && st->errors == 0;
}

int pecert_cmd_mutation(int argc, char **argv)
{
    char impls[PATH_MAX];
    char dir_ref[PATH_MAX + 16];
    char dir_f32[PATH_MAX + 16];
    char oracle[PATH_MAX + 16];
    pecert_impl_dir(impls, sizeof(impls));
    snprintf(dir_ref, sizeof(dir_ref), "%s/mutants", impls);
    snprintf(dir_f32, sizeof(dir_f32), "%s/mutants-f32", impls);
    snprintf(oracle, sizeof(oracle), "%s/ref.so", impls);
    mutation_opts o = {.catalogue = pecert_default_catalogue(),
                       .vectors = pecert_default_vectors(),
                       .timeout_s = 120.0,
                       .jobs = 1};
    int rc = parse_mutation_args(&o, argc, argv);
    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
    }
    const char *const names[] = {"--separation", "--doc"};
    const char *const paths[] = {o.separation, o.doc};
    if (pecert_outputs_check("mutation", &o.out) != 0 || pecert_check_outputs("mutation", names, paths, 2) != 0) {
        return PECERT_EXIT_USAGE;
    }
    if (o.n_dirs == 0) {
        o.dirs[o.n_dirs++] = dir_ref;
        o.dirs[o.n_dirs++] = dir_f32;
    }
    char err[2048] = "";
    cJSON *root = load_catalogue(o.catalogue, err, sizeof(err));
    if (root == NULL) {
        fprintf(stderr, "pecert: %s\n", err);
        return PECERT_EXIT_USAGE;
    }
    mutation_run st = {.o = &o, .oracle = oracle};
    st.list = cJSON_GetObjectItemCaseSensitive(root, "mutants");
    st.per_base = cJSON_GetArraySize(st.list);
    st.want_out = pecert_report_outputs_wanted(&o.out);
    if (!o.quiet) {
        printf("pecert mutation: %d mutants from %s, on %d bases, %d at a time\n", st.per_base, o.catalogue, o.n_dirs,
               o.jobs);
    }
    if (load_honest(&st.sep, &o, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        pecert_report_free(&st.sep);
        cJSON_Delete(root);
        return PECERT_EXIT_USAGE;
    }
    int passed = run_all(&st);
    int written = passed >= 0 ? write_outputs(&st) : 0;
    /* A table from a gate that failed would publish a mutant that escaped
     * (or never ran) as if it had been measured. */
    if (passed == 1 && written == 0) {
        written = write_separation(&st.sep, &o, err, sizeof(err));
        if (written != 0) {
            fprintf(stderr, "pecert: %s\n", err);
        }
    } else if (passed == 0 && (o.doc != NULL || o.separation != NULL)) {
        printf("separation: table not written (the mutation gate failed)\n");
    }
    cJSON_Delete(root);
    pecert_report_free(&st.sep);
    pecert_report_free(&st.out);
    if (passed < 0 || written != 0) {
        return passed < 0 ? PECERT_EXIT_FAIL : PECERT_EXIT_USAGE;
    }
    return passed ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL;
}
