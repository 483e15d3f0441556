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

#include <cJSON.h>

#include "checks.h"
#include "commands.h"
#include "report.h"
#include "results_json.h"
#include "runner.h"

static const char usage_mutation[] =
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
    "                     <build>/impls/mutants and <build>/impls/mutants-f32)\n"
    "  --vectors DIR      golden vectors (default as for `pecert run`)\n"
    "  --timeout S        seconds per check (default 120)\n"
    "  --honest FILE      results of an honest variant (pecert run --json);\n"
    "                     repeatable: the honest side of the separation table\n"
    "  --separation FILE  write the separation table (markdown) to FILE\n"
    "  --doc FILE         splice the table into FILE between its separation\n"
    "                     markers (TOLERANCES.md)\n"
    "  --help             this text\n"
    "\n"
    "Each mutant's line names the checks that caught it and the diagnosis it got.\n"
    "exit status: 0 every mutant caught and diagnosed, 1 one escaped (or was not\n"
    "             diagnosed, or failed to load), 2 bad usage or catalogue\n";

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
} mutation_opts;

static char *read_text(const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long len = -1;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && len < (1L << 24) &&
        fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1)) != NULL) {
        size_t got = fread(text, 1, (size_t)len, f);
        text[got] = '\0';
    }
    if (text == NULL) {
        snprintf(err, err_len, "%s: cannot read (missing, unreadable or over 16 MiB)", path);
    }
    if (f != NULL) {
        fclose(f);
    }
    return text;
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

/* Runs one mutant; returns 1 if caught (and, when the catalogue says how,
 * diagnosed), 0 if missed, -1 on load error. */
static int run_mutant(const cJSON *m, const mutation_opts *o, const char *dir, const char *oracle,
                      pecert_report *rep)
{
    const char *name = cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring;
    char path[PATH_MAX];
    char err[2048] = "";
    snprintf(path, sizeof(path), "%s/%s.so", dir, name);
    pecert_run_options opt = {path, oracle, o->vectors, NULL, o->timeout_s, NULL, NULL};
    pecert_run_results res;
    int status = pecert_run(&res, &opt, err, sizeof(err));
    if (status == PECERT_EXIT_USAGE || status == PECERT_EXIT_LOAD) {
        printf("  ERROR   %-28s %s\n", name, err);
        pecert_run_results_free(&res);
        return -1;
    }
    int caught = 1;
    char missed[512] = "";
    char by[512] = ""; /* the named checks, for the caught line */
    const cJSON *id = NULL;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(m, "must_fail"))
    {
        const pecert_check_result *r = pecert_run_results_find(&res, id->valuestring);
        if (r == NULL || r->verdict < PECERT_VERDICT_FAIL) {
            caught = 0;
            strncat(missed, id->valuestring, sizeof(missed) - strlen(missed) - 2);
            strncat(missed, " ", sizeof(missed) - strlen(missed) - 1);
        }
        size_t used = strlen(by);
        snprintf(by + used, sizeof(by) - used, "%s%s", used > 0 ? ", " : "", id->valuestring);
    }
    size_t failing = 0;
    for (size_t i = 0; i < res.n_checks; i++) {
        failing += res.checks[i].verdict >= PECERT_VERDICT_FAIL;
    }
    const pecert_finding *named = expected_finding(&res, m);
    const cJSON *finding = cJSON_GetObjectItemCaseSensitive(m, "finding");
    if (!caught) {
        printf("  MISSED  %-28s passes %s\n", name, missed);
    } else if (cJSON_IsString(finding) && named == NULL) {
        caught = 0;
        printf("  UNNAMED %-28s caught, but the diagnosis does not name '%s'\n", name, finding->valuestring);
    } else {
        char line[2048];
        snprintf(line, sizeof(line), "caught  %-28s by %s (%zu of %zu checks fail); diagnosis: %s", name, by, failing,
                 res.n_checks, named != NULL ? named->bug : "(none expected)");
        pecert_print_wrapped(2, 8, line);
    }
    if (pecert_report_add_run(rep, &res, PECERT_ROLE_MUTANT, path) != 0) {
        pecert_run_results_free(&res);
    }
    return caught;
}

/* Every built mutant must have an entry (and the reverse, checked when
 * running). Returns the number of unlisted mutants. */
static int unlisted_mutants(const cJSON *list, const char *dir)
{
    DIR *d = opendir(dir);
    int unlisted = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0) {
            continue;
        }
        int found = 0;
        const cJSON *m = NULL;
        cJSON_ArrayForEach(m, list)
        {
            const char *n = cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring;
            found |= strlen(n) == len - 3 && strncmp(n, e->d_name, len - 3) == 0;
        }
        if (!found) {
            printf("  ERROR   %-28s built but not in the catalogue\n", e->d_name);
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
    char *text = read_text(path, err, err_len);
    cJSON *root = text != NULL ? cJSON_Parse(text) : NULL;
    free(text);
    if (root == NULL) {
        if (err[0] == '\0') {
            snprintf(err, err_len, "%s: not valid JSON", path);
        }
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
        {NULL, 0, NULL, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': o->catalogue = optarg; break;
        case 'd':
            if (o->n_dirs == MAX_BASES) {
                return pecert_usage_error(usage_mutation, "mutation: --dir: at most %d", MAX_BASES);
            }
            o->dirs[o->n_dirs++] = optarg;
            break;
        case 'v': o->vectors = optarg; break;
        case 't':
            if (pecert_parse_seconds(&o->timeout_s, optarg) != 0) {
                return pecert_usage_error(usage_mutation, "mutation: --timeout '%s': expected seconds in (0, 86400]", optarg);
            }
            break;
        case 'H':
            if (o->n_honest == (int)(sizeof(o->honest) / sizeof(o->honest[0]))) {
                return pecert_usage_error(usage_mutation, "mutation: --honest: at most %d files", o->n_honest);
            }
            o->honest[o->n_honest++] = optarg;
            break;
        case 's': o->separation = optarg; break;
        case 'D': o->doc = optarg; break;
        case 'h': fputs(usage_mutation, stdout); return -1;
        default:
            return pecert_usage_error(usage_mutation, "mutation: unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        return pecert_usage_error(usage_mutation, "mutation: unexpected argument '%s'", argv[optind]);
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
    char *text = read_text(path, err, err_len);
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

/* Runs every mutant of one base; returns the number caught and adds
 * load errors and unlisted mutants to *errors. */
static int run_base(const cJSON *list, const mutation_opts *o, const char *dir, const char *oracle, int *errors,
                    pecert_report *rep)
{
    printf("mutants in %s:\n", dir);
    int caught = 0;
    *errors += unlisted_mutants(list, dir);
    const cJSON *m = NULL;
    cJSON_ArrayForEach(m, list)
    {
        int r = run_mutant(m, o, dir, oracle, rep);
        caught += r == 1;
        *errors += r < 0;
    }
    return caught;
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
    mutation_opts o = {PECERT_SOURCE_DIR "/impls/mutants/catalogue.json", {NULL}, 0, pecert_default_vectors(), 120.0,
                       {NULL}, 0, NULL, NULL};
    int rc = parse_mutation_args(&o, argc, argv);
    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
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
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "mutants");
    int per_base = cJSON_GetArraySize(list);
    printf("pecert mutation: %d mutants from %s, on %d bases\n", per_base, o.catalogue, o.n_dirs);
    pecert_report rep = {0};
    if (load_honest(&rep, &o, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        pecert_report_free(&rep);
        cJSON_Delete(root);
        return PECERT_EXIT_USAGE;
    }
    int caught = 0;
    int errors = 0;
    for (int b = 0; b < o.n_dirs; b++) {
        caught += run_base(list, &o, o.dirs[b], oracle, &errors, &rep);
    }
    int total = per_base * o.n_dirs;
    printf("mutation: %d/%d mutants caught by their named checks and diagnosed%s\n", caught, total,
           errors > 0 ? " (with errors)" : "");
    cJSON_Delete(root);
    /* A table from a gate that failed would publish a mutant that escaped
     * (or never ran) as if it had been measured. */
    int passed = caught == total && errors == 0;
    int written = passed ? write_separation(&rep, &o, err, sizeof(err)) : 0;
    if (written != 0) {
        fprintf(stderr, "pecert: %s\n", err);
    } else if (!passed && (o.doc != NULL || o.separation != NULL)) {
        printf("separation: table not written (the mutation gate failed)\n");
    }
    pecert_report_free(&rep);
    return passed && written == 0 ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL;
}
