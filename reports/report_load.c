/* report_load.c - results files and the mutant catalogue into a report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "certify_checks.h"
#include "input_file.h"
#include "json_text.h"
#include "report.h"
#include "report_bench.h"
#include "report_load.h"
#include "results_json.h"

/* Results of a big run are a few MiB; anything past this is not ours. */
#define MAX_INPUT_BYTES ((size_t)256 << 20)
#define MAX_INPUT_WORDS "the 256 MiB a results or report file may have"

static const char *const role_names[PECERT_ROLE_COUNT] = {
    [PECERT_ROLE_CERTIFY] = "certify",
    [PECERT_ROLE_ALLOWED] = "allowed_to_fail",
    [PECERT_ROLE_MUTANT] = "mutant",
};

const char *pecert_report_role_name(pecert_report_role role)
{
    return (unsigned)role < PECERT_ROLE_COUNT ? role_names[role] : "certify";
}

static pecert_report_role role_from_name(const char *name)
{
    for (int r = 0; r < PECERT_ROLE_COUNT; r++) {
        if (name != NULL && strcmp(name, role_names[r]) == 0) {
            return (pecert_report_role)r;
        }
    }
    return PECERT_ROLE_CERTIFY;
}

/* The whole file as text (its length in *len), or NULL with "FILE: why"
 * in err. */
static char *read_text(const char *path, size_t *len, char *err, size_t err_len)
{
    return pecert_input_read(path, MAX_INPUT_BYTES, MAX_INPUT_WORDS, len, err, err_len);
}

static void read_str(char *dst, size_t len, const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    snprintf(dst, len, "%s", cJSON_IsString(item) ? item->valuestring : "");
}

/* A catalogue entry or a report's "mutant" object into *e. */
static void expect_from_json(pecert_mutant_expect *e, const cJSON *m)
{
    memset(e, 0, sizeof(*e));
    read_str(e->bug_class, sizeof(e->bug_class), m, "bug_class");
    read_str(e->diagnosis, sizeof(e->diagnosis), m, "diagnosis");
    read_str(e->finding, sizeof(e->finding), m, "finding");
    const cJSON *id = NULL;
    cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(m, "must_fail"))
    {
        if (cJSON_IsString(id) && e->n_must_fail < PECERT_MUTANT_MAX_MUST_FAIL) {
            snprintf(e->must_fail[e->n_must_fail++], sizeof(e->must_fail[0]), "%s", id->valuestring);
        }
    }
}

/* A catalogued mutant with no results (so the report can say so). */
static int add_not_run(pecert_report *rep, const char *name, const pecert_mutant_expect *e,
                       const char *origin)
{
    pecert_run_results empty;
    memset(&empty, 0, sizeof(empty));
    snprintf(empty.info.plugin_name, sizeof(empty.info.plugin_name), "%s", name);
    if (pecert_report_add_run(rep, &empty, PECERT_ROLE_MUTANT, origin) != 0) {
        return -1;
    }
    pecert_report_run *run = &rep->runs[rep->n_runs - 1];
    run->expect = *e;
    run->not_run = 1;
    return 0;
}

/* One entry of a pecert-report/1 "runs" array. */
static int load_report_run(pecert_report *rep, const cJSON *entry, const char *path, char *err,
                           size_t err_len)
{
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(entry, "results");
    const cJSON *role = cJSON_GetObjectItemCaseSensitive(entry, "role");
    pecert_report_role r = role_from_name(cJSON_IsString(role) ? role->valuestring : NULL);
    pecert_mutant_expect e;
    expect_from_json(&e, cJSON_GetObjectItemCaseSensitive(entry, "mutant"));
    if (cJSON_IsNull(results) && r == PECERT_ROLE_MUTANT) {
        char name[64];
        read_str(name, sizeof(name), entry, "plugin");
        return add_not_run(rep, name, &e, path);
    }
    pecert_run_results res;
    pecert_id_rules ids = pecert_results_id_rules();
    if (pecert_run_results_from_json(&res, results, &ids, err, err_len) != 0) {
        return -1;
    }
    if (pecert_report_add_run(rep, &res, r, path) != 0) {
        pecert_run_results_free(&res);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    rep->runs[rep->n_runs - 1].expect = e;
    return 0;
}

static int load_report_doc(pecert_report *rep, const cJSON *root, const char *path, char *err,
                           size_t err_len)
{
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (!cJSON_IsArray(runs)) {
        snprintf(err, err_len, "%s: runs: missing or not an array", path);
        return -1;
    }
    int i = 0;
    const cJSON *entry = NULL;
    cJSON_ArrayForEach(entry, runs)
    {
        char why[1024];
        if (!cJSON_IsObject(entry) || load_report_run(rep, entry, path, why, sizeof(why)) != 0) {
            snprintf(err, err_len, "%s: runs[%d]: %s", path, i, cJSON_IsObject(entry) ? why : "not an object");
            return -1;
        }
        i++;
    }
    return 0;
}

static int load_doc(pecert_report *rep, const cJSON *root, const char *path, char *err, size_t err_len)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (cJSON_IsString(schema) && strcmp(schema->valuestring, PECERT_REPORT_SCHEMA) == 0) {
        return load_report_doc(rep, root, path, err, err_len);
    }
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, PECERT_RESULTS_SCHEMA) != 0) {
        snprintf(err, err_len, "%s: schema: expected \"%s\" or \"%s\", got %s%.64s%s", path,
                 PECERT_RESULTS_SCHEMA, PECERT_REPORT_SCHEMA, cJSON_IsString(schema) ? "\"" : "",
                 cJSON_IsString(schema) ? schema->valuestring : "none", cJSON_IsString(schema) ? "\"" : "");
        return -1;
    }
    pecert_run_results res;
    char why[1024];
    pecert_id_rules ids = pecert_results_id_rules();
    if (pecert_run_results_from_json(&res, root, &ids, why, sizeof(why)) != 0) {
        snprintf(err, err_len, "%s: %s", path, why);
        return -1;
    }
    if (pecert_report_add_run(rep, &res, PECERT_ROLE_CERTIFY, path) != 0) {
        pecert_run_results_free(&res);
        snprintf(err, err_len, "%s: out of memory", path);
        return -1;
    }
    return 0;
}

/* text[0..len) as a JSON object, refused as pecert refuses any input it
 * did not write (json_text.h: a NUL, \u0000, a duplicate key, text after
 * the value); NULL with "NAME: problem". */
static cJSON *parse_text(const char *text, size_t len, const char *name, char *err, size_t err_len)
{
    cJSON *root = pecert_json_parse_strict(text, len, name, NULL, err, err_len);
    if (root != NULL && !cJSON_IsObject(root)) {
        snprintf(err, err_len, "%s: not a JSON object", name);
        cJSON_Delete(root);
        root = NULL;
    }
    return root;
}

/* Parses path as JSON (report_bench.h); NULL with "FILE: problem" in err. */
cJSON *pecert__report_parse_file(const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char *text = read_text(path, &len, err, err_len);
    cJSON *root = text != NULL ? parse_text(text, len, path, err, err_len) : NULL;
    free(text);
    return root;
}

/* The checks a document holds: a results file's, or every run's of a
 * report file. */
static size_t count_checks(const cJSON *root, size_t *n_runs)
{
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    size_t n = 0;
    *n_runs = 1;
    if (!cJSON_IsArray(runs)) {
        return (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "checks"));
    }
    *n_runs = (size_t)cJSON_GetArraySize(runs);
    const cJSON *entry = NULL;
    cJSON_ArrayForEach(entry, runs)
    {
        const cJSON *results = cJSON_GetObjectItemCaseSensitive(entry, "results");
        n += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(results, "checks"));
    }
    return n;
}

/* What a file may cost in memory: a small multiple of its size. A check
 * pecert writes takes a kilobyte or more of JSON (diagnosis, records,
 * points); the model's fixed-size result is about 13 KiB. A file of bare
 * entries (50,000 checks in 1.5 MB once took 747 MB) is refused before
 * any is read. */
#define MEMORY_PER_BYTE 64
#define MEMORY_FLOOR ((size_t)64 << 20)

int pecert_report_load_text(pecert_report *rep, const char *text, size_t len, const char *name, char *err,
                            size_t err_len)
{
    char why[256];
    pecert_id_rules ids = pecert_results_id_rules();
    if (pecert__report_precount(text, len, ids.max_checks, PECERT_REPORT_MAX_RUNS, why, sizeof(why)) != 0) {
        snprintf(err, err_len, "%s: %s: not a file pecert wrote (refused before parsing it)", name, why);
        return -1;
    }
    cJSON *root = parse_text(text, len, name, err, err_len);
    if (root == NULL) {
        return -1;
    }
    size_t n_runs = 0;
    size_t n_checks = count_checks(root, &n_runs);
    size_t cost = n_checks * sizeof(pecert_check_result) + n_runs * sizeof(pecert_report_run);
    if (cost > MEMORY_PER_BYTE * len + MEMORY_FLOOR) {
        snprintf(err, err_len, "%s: %zu checks in %zu runs would take %zu MiB for a %zu-byte file: not a file pecert "
                               "wrote", name, n_checks, n_runs, cost >> 20, len);
        cJSON_Delete(root);
        return -1;
    }
    int rc = load_doc(rep, root, name, err, err_len);
    cJSON_Delete(root);
    return rc;
}

int pecert_report_load_file(pecert_report *rep, const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char *text = read_text(path, &len, err, err_len);
    int rc = text != NULL ? pecert_report_load_text(rep, text, len, path, err, err_len) : -1;
    free(text);
    return rc;
}

/* plugin is the mutant name: on ref ("NAME") or on the float32 base
 * ("NAME.f32", impls/mutants/core/wrap.c). */
static int is_mutant_named(const char *plugin, const char *name)
{
    size_t n = strlen(name);
    return strncmp(plugin, name, n) == 0 && (plugin[n] == '\0' || strcmp(plugin + n, ".f32") == 0);
}

/* Marks every run of mutant name (either base) as the mutant e, catalogue
 * entry i; 0 if there is none. */
static int mark_mutant(pecert_report *rep, const char *name, const pecert_mutant_expect *e, int i)
{
    int found = 0;
    for (size_t k = 0; k < rep->n_runs; k++) {
        if (is_mutant_named(rep->runs[k].res.info.plugin_name, name)) {
            rep->runs[k].role = PECERT_ROLE_MUTANT;
            rep->runs[k].expect = *e;
            rep->runs[k].catalogue_order = i + 1;
            found = 1;
        }
    }
    return found;
}

/* Marks or adds every mutant of the catalogue's list; 0 or -1 with err. */
static int apply_entries(pecert_report *rep, const cJSON *list, const char *path, char *err, size_t err_len)
{
    int i = 0;
    const cJSON *m = NULL;
    cJSON_ArrayForEach(m, list)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
        pecert_mutant_expect e;
        if (!cJSON_IsString(name) || name->valuestring[0] == '\0') {
            snprintf(err, err_len, "%s: mutants[%d].name: missing or not a string", path, i);
            return -1;
        }
        expect_from_json(&e, m);
        if (!mark_mutant(rep, name->valuestring, &e, i) &&
            (add_not_run(rep, name->valuestring, &e, path) != 0 || !mark_mutant(rep, name->valuestring, &e, i))) {
            snprintf(err, err_len, "%s: out of memory", path);
            return -1;
        }
        i++;
    }
    return 0;
}

int pecert_report_apply_catalogue(pecert_report *rep, const char *path, char *err, size_t err_len)
{
    cJSON *root = pecert__report_parse_file(path, err, err_len);
    if (root == NULL) {
        return -1;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "mutants");
    int rc = -1;
    if (!cJSON_IsArray(list)) {
        snprintf(err, err_len, "%s: mutants: missing or not an array", path);
    } else {
        rc = apply_entries(rep, list, path, err, err_len);
    }
    cJSON_Delete(root);
    return rc;
}
