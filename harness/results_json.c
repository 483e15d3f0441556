/* results_json.c - results model <-> JSON, atomic file output. */
#include "results_json.h"

#include "atomic_write.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* JSON has no NaN or infinity: a non-finite number travels as a string. */
static cJSON *number_or_string(double v)
{
    if (isfinite(v)) {
        return cJSON_CreateNumber(v);
    }
    return cJSON_CreateString(isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
}

static double read_number(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNumber(item)) {
        return item->valuedouble;
    }
    if (cJSON_IsString(item)) {
        if (strcmp(item->valuestring, "inf") == 0) {
            return INFINITY;
        }
        if (strcmp(item->valuestring, "-inf") == 0) {
            return -INFINITY;
        }
        return NAN;
    }
    return NAN;
}

static void read_string(char *dst, size_t dst_len, const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    dst[0] = '\0';
    if (cJSON_IsString(item)) {
        snprintf(dst, dst_len, "%s", item->valuestring);
    }
}

/* An integer field, or fallback when absent or not a finite number in
 * range (files from older pecert versions lack the newer fields). */
static int64_t read_int(const cJSON *obj, const char *key, int64_t fallback)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(item) || !(fabs(item->valuedouble) < 9.0e15)) {
        return fallback;
    }
    return (int64_t)item->valuedouble;
}

/* A count (cases, failed, ...): absent is 0 (files from before the
 * field); present, an integer in [0, 2^53], else -1: a cast of 1e300 or
 * NaN to int64_t is undefined, and no run has that many cases. */
static int read_count(const cJSON *obj, const char *key, int64_t *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = 0;
    if (item == NULL) {
        return 0;
    }
    if (!cJSON_IsNumber(item) || !(item->valuedouble >= 0 && item->valuedouble <= 9007199254740992.0) ||
        item->valuedouble != floor(item->valuedouble)) {
        return -1;
    }
    *out = (int64_t)item->valuedouble;
    return 0;
}

/* A number of a point or grid: numbers as they are, "inf"/"-inf"/"nan"
 * (how non-finite values travel) back to themselves. */
static double item_number(const cJSON *item)
{
    if (cJSON_IsNumber(item)) {
        return item->valuedouble;
    }
    if (cJSON_IsString(item) && strcmp(item->valuestring, "inf") == 0) {
        return INFINITY;
    }
    if (cJSON_IsString(item) && strcmp(item->valuestring, "-inf") == 0) {
        return -INFINITY;
    }
    return NAN;
}

static cJSON *points_to_json(const pecert_check_result *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr != NULL && i < r->n_points; i++) {
        cJSON *p = cJSON_CreateArray();
        cJSON_AddItemToArray(p, cJSON_CreateNumber((double)r->points[i].position));
        cJSON_AddItemToArray(p, number_or_string(r->points[i].error));
        cJSON_AddItemToArray(p, number_or_string(r->points[i].bound));
        cJSON_AddItemToArray(arr, p);
    }
    return arr;
}

static cJSON *heatmap_to_json(const pecert_heatmap *h)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "case", h->label);
    cJSON_AddStringToObject(obj, "row_axis", h->row_axis);
    cJSON_AddStringToObject(obj, "col_axis", h->col_axis);
    cJSON_AddNumberToObject(obj, "rows", h->rows);
    cJSON_AddNumberToObject(obj, "cols", h->cols);
    cJSON *ratio = cJSON_AddArrayToObject(obj, "ratio");
    for (int64_t i = 0; ratio != NULL && i < (int64_t)h->rows * h->cols; i++) {
        cJSON_AddItemToArray(ratio, number_or_string(h->ratio[i]));
    }
    return obj;
}

static cJSON *vrefs_to_json(const pecert_check_result *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr != NULL && i < r->n_vrefs; i++) {
        const pecert_vector_ref *v = &r->vrefs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", v->file);
        cJSON_AddNumberToObject(o, "tcId", (double)v->tc_id);
        cJSON_AddStringToObject(o, "comment", v->comment);
        cJSON_AddStringToObject(o, "flags", v->flags);
        cJSON_AddStringToObject(o, "source", v->source);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* One record per failing case (and per note), as data (docs/reports.md).
 * The numbers are written for value failures only. */
static cJSON *failure_to_json(const pecert_failure *f)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL) {
        return NULL;
    }
    cJSON_AddStringToObject(o, "kind", pecert_failure_kind_name(f->kind));
    cJSON_AddStringToObject(o, "case", f->where);
    if (f->file[0] != '\0') {
        cJSON_AddStringToObject(o, "file", f->file);
        cJSON_AddNumberToObject(o, "tcId", (double)f->tc_id);
    }
    if (f->kind == PECERT_FAILURE_VALUE) {
        cJSON_AddStringToObject(o, "element", f->element);
        if (f->position >= 0) {
            cJSON_AddNumberToObject(o, "position", (double)f->position);
        }
        cJSON_AddItemToObject(o, "want", number_or_string(f->want));
        cJSON_AddItemToObject(o, "got", number_or_string(f->got));
        cJSON_AddItemToObject(o, "error", number_or_string(f->error));
        cJSON_AddItemToObject(o, "bound", number_or_string(f->bound));
        cJSON_AddNumberToObject(o, "elements_off", (double)f->n_bad);
        cJSON_AddNumberToObject(o, "elements_checked", (double)f->n_checked);
    }
    cJSON_AddStringToObject(o, "line", f->line);
    return o;
}

static cJSON *failures_to_json(const pecert_check_result *r)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr != NULL && i < r->n_failures; i++) {
        cJSON_AddItemToArray(arr, failure_to_json(&r->failures[i]));
    }
    return arr;
}

/* The i in [0, n) whose name_of(i) is name, or -1: enums read back. */
static int index_of_name(const char *name, const char *(*name_of)(int), int n)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(name, name_of(i)) == 0) {
            return i;
        }
    }
    return -1;
}

static const char *failure_kind_name_at(int k)
{
    return pecert_failure_kind_name((pecert_failure_kind)k);
}

static int failure_kind_from_name(const char *name)
{
    return index_of_name(name, failure_kind_name_at, PECERT_FAILURE_KIND_COUNT);
}

static int failure_from_json(pecert_check_result *r, const cJSON *o)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    int k = cJSON_IsString(kind) ? failure_kind_from_name(kind->valuestring) : -1;
    if (!cJSON_IsObject(o) || k < 0) {
        return -1;
    }
    pecert_failure f = pecert_failure_blank((pecert_failure_kind)k);
    read_string(f.where, sizeof(f.where), o, "case");
    read_string(f.file, sizeof(f.file), o, "file");
    f.tc_id = f.file[0] != '\0' ? read_int(o, "tcId", -1) : -1;
    read_string(f.line, sizeof(f.line), o, "line");
    if (f.kind == PECERT_FAILURE_VALUE) {
        read_string(f.element, sizeof(f.element), o, "element");
        f.position = read_int(o, "position", -1);
        f.want = item_number(cJSON_GetObjectItemCaseSensitive(o, "want"));
        f.got = item_number(cJSON_GetObjectItemCaseSensitive(o, "got"));
        f.error = item_number(cJSON_GetObjectItemCaseSensitive(o, "error"));
        f.bound = item_number(cJSON_GetObjectItemCaseSensitive(o, "bound"));
        f.n_bad = read_int(o, "elements_off", 0);
        f.n_checked = read_int(o, "elements_checked", 0);
    }
    return pecert_check_result_add_failure(r, &f);
}

/* The cases that did not fail, when the run kept them (--verbose):
 * "case_log": [{"outcome", "ratio", "line"}], absent otherwise. */
static void case_log_to_json(cJSON *obj, const pecert_check_result *r)
{
    if (r->n_case_records == 0 && r->n_case_records_dropped == 0) {
        return;
    }
    cJSON *arr = cJSON_AddArrayToObject(obj, "case_log");
    for (size_t i = 0; arr != NULL && i < r->n_case_records; i++) {
        const pecert_case_record *c = &r->cases[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "outcome", pecert_case_outcome_name(c->outcome));
        cJSON_AddItemToObject(o, "ratio", number_or_string(c->ratio));
        cJSON_AddStringToObject(o, "line", c->line);
        cJSON_AddItemToArray(arr, o);
    }
    if (r->n_case_records_dropped > 0) {
        cJSON_AddNumberToObject(obj, "case_log_dropped", (double)r->n_case_records_dropped);
    }
}

static const char *case_outcome_name_at(int k)
{
    return pecert_case_outcome_name((pecert_case_outcome)k);
}

/* 1 if the case log agrees with the counts: no more declined records than
 * declined cases, nor beyond-scope records than such cases, nor records
 * within bound than twice the cases answered (mrope.index.golden logs
 * each of a vector's two comparisons, of which one may pass and one fail). */
static int case_log_consistent(const pecert_check_result *r)
{
    int64_t n[PECERT_CASE_OUTCOME_COUNT] = {0};
    for (size_t i = 0; i < r->n_case_records; i++) {
        n[r->cases[i].outcome]++;
    }
    int64_t answered = r->n_cases - r->n_unsupported - r->n_oracle_refused;
    return n[PECERT_CASE_DECLINED] <= r->n_unsupported - r->n_beyond_scope &&
           n[PECERT_CASE_BEYOND_SCOPE] <= r->n_beyond_scope &&
           n[PECERT_CASE_WITHIN] <= 2 * (answered > 0 ? answered : 0);
}

/* 0, or -1 for a case_log that is not an array of known records or that
 * claims more cases than the counts (a forged log). */
static int case_log_from_json(pecert_check_result *r, const cJSON *obj)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, "case_log");
    const cJSON *o = NULL;
    int64_t dropped = 0;
    if (arr == NULL) {
        return 0;
    }
    if (!cJSON_IsArray(arr)) {
        return -1;
    }
    r->keep_cases = 1;
    cJSON_ArrayForEach(o, arr)
    {
        const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(o, "outcome");
        const cJSON *line = cJSON_GetObjectItemCaseSensitive(o, "line");
        int k = cJSON_IsString(outcome) ? index_of_name(outcome->valuestring, case_outcome_name_at,
                                                        PECERT_CASE_OUTCOME_COUNT)
                                        : -1;
        if (k < 0 || !cJSON_IsString(line) ||
            pecert_check_result_add_case(r, (pecert_case_outcome)k,
                                         item_number(cJSON_GetObjectItemCaseSensitive(o, "ratio")),
                                         line->valuestring) != 0) {
            return -1;
        }
    }
    if (read_count(obj, "case_log_dropped", &dropped) != 0) {
        return -1;
    }
    r->n_case_records_dropped += dropped; /* past the cap, add_case counted too */
    return case_log_consistent(r) ? 0 : -1;
}

/* "failures" (records), or a file from before them: "details" (lines). */
static int failures_from_json(pecert_check_result *r, const cJSON *obj)
{
    const cJSON *d = NULL;
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(obj, "failures");
    if (records == NULL) {
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(obj, "details"))
        {
            if (cJSON_IsString(d) && pecert_check_result_add_line(r, PECERT_FAILURE_STATUS, d->valuestring) != 0) {
                return -1;
            }
        }
        return 0;
    }
    if (!cJSON_IsArray(records)) {
        return -1;
    }
    cJSON_ArrayForEach(d, records)
    {
        if (failure_from_json(r, d) != 0) {
            return -1;
        }
    }
    r->n_failures_dropped = read_int(obj, "failures_dropped", 0);
    r->n_failures_summarized = read_int(obj, "failures_summarized", 0);
    r->n_points_summarized = read_int(obj, "points_summarized", 0);
    return 0;
}

static cJSON *precision_to_json(const pecert_precision *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "ratio", number_or_string(p->ratio));
    cJSON_AddItemToObject(o, "error_u", number_or_string(p->error_u));
    cJSON_AddItemToObject(o, "official_u", number_or_string(p->official_u));
    cJSON_AddStringToObject(o, "measure", p->measure);
    cJSON_AddStringToObject(o, "where", p->where);
    return o;
}

static void precision_from_json(pecert_precision *p, const cJSON *o)
{
    if (!cJSON_IsObject(o)) {
        return;
    }
    p->graded = 1;
    p->ratio = read_number(o, "ratio");
    p->error_u = read_number(o, "error_u");
    p->official_u = read_number(o, "official_u");
    read_string(p->measure, sizeof(p->measure), o, "measure");
    read_string(p->where, sizeof(p->where), o, "where");
    if (!(p->ratio >= 0)) { /* absent or not a number: no grade */
        memset(p, 0, sizeof(*p));
    }
}

cJSON *pecert_check_result_to_json(const pecert_check_result *r)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL) {
        return NULL;
    }
    cJSON_AddStringToObject(obj, "check", r->check_id);
    cJSON_AddStringToObject(obj, "verdict", pecert_verdict_name(r->verdict));
    cJSON_AddNumberToObject(obj, "cases", (double)r->n_cases);
    cJSON_AddNumberToObject(obj, "failed", (double)r->n_failed);
    cJSON_AddNumberToObject(obj, "unsupported", (double)r->n_unsupported);
    cJSON_AddNumberToObject(obj, "oracle_refused", (double)r->n_oracle_refused);
    if (r->n_beyond_scope > 0) {
        cJSON *scope = cJSON_AddObjectToObject(obj, "beyond_scope");
        cJSON_AddNumberToObject(scope, "cases", (double)r->n_beyond_scope);
        cJSON_AddStringToObject(scope, "first", r->beyond_scope);
    }
    if (r->declined[0] != '\0') {
        cJSON_AddStringToObject(obj, "declined", r->declined);
    }
    cJSON_AddItemToObject(obj, "worst_ratio", number_or_string(r->worst_ratio));
    cJSON_AddStringToObject(obj, "worst_case", r->worst_case);
    if (r->worst_vector.file[0] != '\0') {
        cJSON_AddStringToObject(obj, "worst_file", r->worst_vector.file);
        cJSON_AddNumberToObject(obj, "worst_tcId", (double)r->worst_vector.tc_id);
    }
    cJSON_AddStringToObject(obj, "diagnosis", r->diagnosis);
    cJSON_AddItemToObject(obj, "failures", failures_to_json(r));
    if (r->n_failures_dropped > 0) {
        cJSON_AddNumberToObject(obj, "failures_dropped", (double)r->n_failures_dropped);
    }
    if (r->n_failures_summarized > 0) {
        cJSON_AddNumberToObject(obj, "failures_summarized", (double)r->n_failures_summarized);
    }
    if (r->n_points_summarized > 0) {
        cJSON_AddNumberToObject(obj, "points_summarized", (double)r->n_points_summarized);
    }
    case_log_to_json(obj, r);
    cJSON *symptoms = cJSON_AddArrayToObject(obj, "symptoms");
    for (int i = 0; symptoms != NULL && i < r->n_symptoms; i++) {
        cJSON_AddItemToArray(symptoms, cJSON_CreateString(r->symptoms[i]));
    }
    cJSON_AddStringToObject(obj, "points_axis", pecert_point_axis_name(r->points_axis));
    cJSON_AddItemToObject(obj, "points", points_to_json(r));
    if (r->precision.graded) {
        cJSON_AddItemToObject(obj, "precision", precision_to_json(&r->precision));
    }
    cJSON_AddNumberToObject(obj, "elapsed_s", r->elapsed_s);
    cJSON_AddNumberToObject(obj, "index", r->index);
    if (r->heatmap.rows > 0) {
        cJSON_AddItemToObject(obj, "heatmap", heatmap_to_json(&r->heatmap));
    }
    if (r->n_vrefs > 0) {
        cJSON_AddItemToObject(obj, "vectors_cited", vrefs_to_json(r));
    }
    if (r->plugin_output_bytes > 0) {
        cJSON *printed = cJSON_AddObjectToObject(obj, "plugin_output");
        cJSON_AddNumberToObject(printed, "bytes", (double)r->plugin_output_bytes);
        cJSON_AddStringToObject(printed, "first", r->plugin_output);
    }
    return obj;
}

static const char *verdict_name_at(int v)
{
    return pecert_verdict_name((pecert_verdict)v);
}

int pecert_verdict_from_name(const char *name)
{
    return index_of_name(name, verdict_name_at, PECERT_VERDICT_COUNT);
}

static const char *point_axis_name_at(int a)
{
    return pecert_point_axis_name((pecert_point_axis)a);
}

/* "points_axis": position when absent (results written before it, whose
 * decode plots then read "position"), -1 for a name pecert has none of. */
static int point_axis_from_json(const cJSON *obj)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, "points_axis");
    if (a == NULL) {
        return PECERT_AXIS_POSITION;
    }
    return cJSON_IsString(a) ? index_of_name(a->valuestring, point_axis_name_at, PECERT_AXIS_COUNT) : -1;
}

static int points_from_json(pecert_check_result *r, pecert_point_axis axis, const cJSON *arr)
{
    r->points_axis = axis;
    const cJSON *p = NULL;
    cJSON_ArrayForEach(p, arr)
    {
        if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 3) {
            return -1;
        }
        const cJSON *pos = cJSON_GetArrayItem(p, 0);
        if (!cJSON_IsNumber(pos) || !(fabs(pos->valuedouble) < 9.0e18)) {
            return -1;
        }
        double err = item_number(cJSON_GetArrayItem(p, 1));
        double bound = item_number(cJSON_GetArrayItem(p, 2));
        if (pecert_check_result_add_point(r, axis, (int64_t)pos->valuedouble, err, bound) != 0) {
            return -1;
        }
    }
    return 0;
}

static int heatmap_from_json(pecert_heatmap *h, const cJSON *obj)
{
    const cJSON *ratio = cJSON_GetObjectItemCaseSensitive(obj, "ratio");
    int64_t rows = read_int(obj, "rows", 0);
    int64_t cols = read_int(obj, "cols", 0);
    if (!cJSON_IsArray(ratio) || rows <= 0 || cols <= 0 || rows > PECERT_HEATMAP_MAX_CELLS ||
        cols > PECERT_HEATMAP_MAX_CELLS || rows * cols > PECERT_HEATMAP_MAX_CELLS ||
        cJSON_GetArraySize(ratio) != rows * cols ||
        pecert_heatmap_alloc(h, (int32_t)rows, (int32_t)cols) != 0) {
        return -1;
    }
    read_string(h->label, sizeof(h->label), obj, "case");
    read_string(h->row_axis, sizeof(h->row_axis), obj, "row_axis");
    read_string(h->col_axis, sizeof(h->col_axis), obj, "col_axis");
    int64_t i = 0;
    const cJSON *v = NULL;
    cJSON_ArrayForEach(v, ratio)
    {
        h->ratio[i++] = item_number(v);
    }
    return 0;
}

static void vrefs_from_json(pecert_check_result *r, const cJSON *arr)
{
    const cJSON *o = NULL;
    cJSON_ArrayForEach(o, arr)
    {
        if (!cJSON_IsObject(o) || r->n_vrefs >= PECERT_RESULT_MAX_VREFS) {
            continue;
        }
        pecert_vector_ref *v = &r->vrefs[r->n_vrefs++];
        read_string(v->file, sizeof(v->file), o, "file");
        v->tc_id = read_int(o, "tcId", -1);
        read_string(v->comment, sizeof(v->comment), o, "comment");
        read_string(v->flags, sizeof(v->flags), o, "flags");
        read_string(v->source, sizeof(v->source), o, "source");
    }
}

int pecert_check_result_from_json(pecert_check_result *r, const cJSON *obj,
                                  char *err, size_t err_len)
{
    const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(obj, "verdict");
    const cJSON *check = cJSON_GetObjectItemCaseSensitive(obj, "check");
    if (!cJSON_IsString(check) || !cJSON_IsString(verdict) ||
        pecert_verdict_from_name(verdict->valuestring) < 0) {
        snprintf(err, err_len, "result: missing or bad 'check'/'verdict'");
        return -1;
    }
    pecert_check_result_init(r, check->valuestring);
    r->verdict = (pecert_verdict)pecert_verdict_from_name(verdict->valuestring);
    const cJSON *scope = cJSON_GetObjectItemCaseSensitive(obj, "beyond_scope");
    if (read_count(obj, "cases", &r->n_cases) != 0 || read_count(obj, "failed", &r->n_failed) != 0 ||
        read_count(obj, "unsupported", &r->n_unsupported) != 0 ||
        read_count(obj, "oracle_refused", &r->n_oracle_refused) != 0 ||
        read_count(scope, "cases", &r->n_beyond_scope) != 0) {
        snprintf(err, err_len, "result: a count (cases, failed, unsupported, oracle_refused) is not an integer in "
                               "[0, 2^53]");
        return -1;
    }
    if (r->n_failed > r->n_cases || r->n_unsupported > r->n_cases || r->n_beyond_scope > r->n_unsupported) {
        snprintf(err, err_len, "result: counts do not add up (failed %lld, unsupported %lld of %lld cases)",
                 (long long)r->n_failed, (long long)r->n_unsupported, (long long)r->n_cases);
        return -1;
    }
    if (cJSON_IsObject(scope)) {
        read_string(r->beyond_scope, sizeof(r->beyond_scope), scope, "first");
    }
    r->worst_ratio = read_number(obj, "worst_ratio");
    r->elapsed_s = read_number(obj, "elapsed_s");
    read_string(r->worst_case, sizeof(r->worst_case), obj, "worst_case");
    read_string(r->worst_vector.file, sizeof(r->worst_vector.file), obj, "worst_file");
    r->worst_vector.tc_id = r->worst_vector.file[0] != '\0' ? read_int(obj, "worst_tcId", -1) : -1;
    read_string(r->diagnosis, sizeof(r->diagnosis), obj, "diagnosis");
    read_string(r->declined, sizeof(r->declined), obj, "declined");
    precision_from_json(&r->precision, cJSON_GetObjectItemCaseSensitive(obj, "precision"));
    if (failures_from_json(r, obj) != 0) {
        pecert_check_result_release(r);
        snprintf(err, err_len, "result: malformed 'failures'");
        return -1;
    }
    char why[256];
    if (pecert_verdict_unfounded(r, why, sizeof(why)) != NULL) {
        snprintf(err, err_len, "%s: verdict \"%s\" contradicts its own record: %s", r->check_id,
                 pecert_verdict_name(r->verdict), why);
        pecert_check_result_release(r);
        return -1;
    }
    if (case_log_from_json(r, obj) != 0) {
        pecert_check_result_release(r);
        snprintf(err, err_len, "result: malformed 'case_log'");
        return -1;
    }
    const cJSON *d = NULL;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(obj, "symptoms"))
    {
        if (cJSON_IsString(d)) {
            pecert_check_symptom(r, "%s", d->valuestring);
        }
    }
    int axis = point_axis_from_json(obj);
    if (axis < 0) {
        pecert_check_result_release(r);
        snprintf(err, err_len, "result: 'points_axis' is neither \"position\" nor \"token\"");
        return -1;
    }
    if (points_from_json(r, (pecert_point_axis)axis, cJSON_GetObjectItemCaseSensitive(obj, "points")) != 0) {
        pecert_check_result_release(r);
        snprintf(err, err_len, "result: malformed 'points'");
        return -1;
    }
    int64_t index = 0;
    if (read_count(obj, "index", &index) != 0 || index > INT32_MAX) {
        pecert_check_result_release(r);
        snprintf(err, err_len, "result: 'index' is not an integer in 0..2^31-1");
        return -1;
    }
    r->index = (int32_t)index;
    const cJSON *heatmap = cJSON_GetObjectItemCaseSensitive(obj, "heatmap");
    if (heatmap != NULL && heatmap_from_json(&r->heatmap, heatmap) != 0) {
        pecert_check_result_release(r);
        snprintf(err, err_len, "result: malformed 'heatmap'");
        return -1;
    }
    vrefs_from_json(r, cJSON_GetObjectItemCaseSensitive(obj, "vectors_cited"));
    const cJSON *printed = cJSON_GetObjectItemCaseSensitive(obj, "plugin_output");
    if (cJSON_IsObject(printed) && read_count(printed, "bytes", &r->plugin_output_bytes) == 0) {
        read_string(r->plugin_output, sizeof(r->plugin_output), printed, "first");
    }
    return 0;
}

static cJSON *info_to_json(const pecert_run_info *info)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "path", info->plugin_path);
    cJSON_AddStringToObject(obj, "id", info->plugin_id);
    cJSON_AddStringToObject(obj, "name", info->plugin_name);
    cJSON_AddStringToObject(obj, "version", info->plugin_version);
    cJSON_AddStringToObject(obj, "describe", info->plugin_describe);
    cJSON_AddStringToObject(obj, "scope", info->plugin_scope);
    if (info->unsandboxed) { /* absent: the engine host ran sandboxed */
        cJSON_AddStringToObject(obj, "sandbox", "off");
    }
    return obj;
}

static cJSON *environment_to_json(const pecert_run_info *info)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "cpu", info->cpu_model);
    cJSON_AddNumberToObject(obj, "cpus_online", info->cpus_online);
    cJSON_AddStringToObject(obj, "os", info->os);
    cJSON_AddStringToObject(obj, "compiler", info->compiler);
    return obj;
}

static cJSON *selection_to_json(const pecert_run_info *info)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "filter", info->filter);
    cJSON_AddNumberToObject(obj, "shard_index", info->shard_index);
    cJSON_AddNumberToObject(obj, "shard_count", info->shard_count);
    cJSON_AddNumberToObject(obj, "selected", info->n_selected);
    return obj;
}

static cJSON *vector_set_to_json(const pecert_run_results *run)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "hash", run->info.vectors_hash);
    cJSON *files = cJSON_AddArrayToObject(obj, "files");
    for (size_t i = 0; files != NULL && i < run->n_sources; i++) {
        const pecert_vector_source *v = &run->sources[i];
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "path", v->path);
        cJSON_AddStringToObject(f, "family", v->family);
        cJSON_AddStringToObject(f, "repo", v->repo);
        cJSON_AddStringToObject(f, "commit", v->commit);
        cJSON_AddStringToObject(f, "tag", v->tag);
        cJSON_AddNumberToObject(f, "vectors", (double)v->n_vectors);
        cJSON_AddItemToArray(files, f);
    }
    return obj;
}

cJSON *pecert_run_results_to_json(const pecert_run_results *run)
{
    cJSON *root = cJSON_CreateObject();
    if (root == NULL) {
        return NULL;
    }
    size_t counts[PECERT_VERDICT_COUNT];
    pecert_run_results_count(run, counts);
    cJSON_AddStringToObject(root, "schema", PECERT_RESULTS_SCHEMA);
    cJSON_AddStringToObject(root, "pecert_version", run->info.pecert_version);
    cJSON_AddItemToObject(root, "plugin", info_to_json(&run->info));
    cJSON_AddItemToObject(root, "environment", environment_to_json(&run->info));
    cJSON_AddStringToObject(root, "vectors_dir", run->info.vectors_dir);
    cJSON_AddNumberToObject(root, "vector_files", run->info.n_vector_files);
    cJSON_AddNumberToObject(root, "vectors", run->info.n_vectors);
    cJSON_AddItemToObject(root, "vector_set", vector_set_to_json(run));
    cJSON_AddItemToObject(root, "selection", selection_to_json(&run->info));
    cJSON_AddNumberToObject(root, "timeout_s", run->info.timeout_s);
    cJSON *summary = cJSON_AddObjectToObject(root, "summary");
    for (int v = 0; v < PECERT_VERDICT_COUNT; v++) {
        cJSON_AddNumberToObject(summary, pecert_verdict_name((pecert_verdict)v),
                                (double)counts[v]);
    }
    cJSON *findings = cJSON_AddArrayToObject(root, "diagnosis");
    for (int i = 0; findings != NULL && i < run->n_findings; i++) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "id", run->findings[i].id);
        cJSON_AddStringToObject(f, "bug", run->findings[i].bug);
        cJSON_AddStringToObject(f, "evidence", run->findings[i].evidence);
        cJSON_AddItemToArray(findings, f);
    }
    cJSON *checks = cJSON_AddArrayToObject(root, "checks");
    for (size_t i = 0; checks != NULL && i < run->n_checks; i++) {
        cJSON_AddItemToArray(checks, pecert_check_result_to_json(&run->checks[i]));
    }
    return root;
}

static void info_from_json(pecert_run_info *info, const cJSON *root)
{
    const cJSON *plugin = cJSON_GetObjectItemCaseSensitive(root, "plugin");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(root, "environment");
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(root, "selection");
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, "vector_set");
    read_string(info->plugin_path, sizeof(info->plugin_path), plugin, "path");
    read_string(info->plugin_id, sizeof(info->plugin_id), plugin, "id");
    read_string(info->plugin_name, sizeof(info->plugin_name), plugin, "name");
    read_string(info->plugin_version, sizeof(info->plugin_version), plugin, "version");
    read_string(info->plugin_describe, sizeof(info->plugin_describe), plugin, "describe");
    read_string(info->plugin_scope, sizeof(info->plugin_scope), plugin, "scope");
    char sandbox[8] = "";
    read_string(sandbox, sizeof(sandbox), plugin, "sandbox");
    info->unsandboxed = strcmp(sandbox, "off") == 0;
    read_string(info->pecert_version, sizeof(info->pecert_version), root, "pecert_version");
    read_string(info->vectors_dir, sizeof(info->vectors_dir), root, "vectors_dir");
    info->n_vector_files = (int)read_int(root, "vector_files", 0);
    info->n_vectors = (int)read_int(root, "vectors", 0);
    read_string(info->vectors_hash, sizeof(info->vectors_hash), set, "hash");
    info->timeout_s = read_number(root, "timeout_s");
    read_string(info->cpu_model, sizeof(info->cpu_model), env, "cpu");
    info->cpus_online = (int)read_int(env, "cpus_online", 0);
    read_string(info->os, sizeof(info->os), env, "os");
    read_string(info->compiler, sizeof(info->compiler), env, "compiler");
    read_string(info->filter, sizeof(info->filter), sel, "filter");
}

/* selection.shard_index, .shard_count and .selected: absent in files of
 * older versions (one whole run); present, each within what `pecert run`
 * writes, so that a count of 0 or 2^40 cannot pass for a whole run. */
static int selection_from_json(pecert_run_info *info, const cJSON *root, size_t max_checks, char *err,
                               size_t err_len)
{
    const cJSON *sel = cJSON_GetObjectItemCaseSensitive(root, "selection");
    int64_t index = 1;
    int64_t count = 1;
    int64_t selected = -1;
    const cJSON *has_index = cJSON_GetObjectItemCaseSensitive(sel, "shard_index");
    const cJSON *has_count = cJSON_GetObjectItemCaseSensitive(sel, "shard_count");
    const cJSON *has_selected = cJSON_GetObjectItemCaseSensitive(sel, "selected");
    if (has_count != NULL && (read_count(sel, "shard_count", &count) != 0 || count < 1 || count > PECERT_MAX_SHARDS)) {
        snprintf(err, err_len, "selection.shard_count: not an integer in 1..%d", PECERT_MAX_SHARDS);
        return -1;
    }
    if (has_index != NULL && (read_count(sel, "shard_index", &index) != 0 || index < 1 || index > count)) {
        snprintf(err, err_len, "selection.shard_index: not an integer in 1..shard_count (%lld)", (long long)count);
        return -1;
    }
    if (has_selected != NULL && (read_count(sel, "selected", &selected) != 0 || (size_t)selected > max_checks)) {
        snprintf(err, err_len, "selection.selected: not an integer in 0..%zu (the most checks a run holds)",
                 max_checks);
        return -1;
    }
    info->shard_index = (int)index;
    info->shard_count = (int)count;
    info->n_selected = (int)selected;
    return 0;
}

static int sources_from_json(pecert_run_results *run, const cJSON *files)
{
    int n = cJSON_GetArraySize(files);
    if (n <= 0) {
        return 0;
    }
    run->sources = calloc((size_t)n, sizeof(*run->sources));
    if (run->sources == NULL) {
        return -1;
    }
    const cJSON *f = NULL;
    cJSON_ArrayForEach(f, files)
    {
        pecert_vector_source *v = &run->sources[run->n_sources++];
        read_string(v->path, sizeof(v->path), f, "path");
        read_string(v->family, sizeof(v->family), f, "family");
        read_string(v->repo, sizeof(v->repo), f, "repo");
        read_string(v->commit, sizeof(v->commit), f, "commit");
        read_string(v->tag, sizeof(v->tag), f, "tag");
        v->n_vectors = read_int(f, "vectors", 0);
    }
    return 0;
}

static void findings_from_json(pecert_run_results *run, const cJSON *arr)
{
    const cJSON *f = NULL;
    cJSON_ArrayForEach(f, arr)
    {
        if (run->n_findings < PECERT_MAX_FINDINGS) {
            pecert_finding *out = &run->findings[run->n_findings++];
            read_string(out->id, sizeof(out->id), f, "id");
            read_string(out->bug, sizeof(out->bug), f, "bug");
            read_string(out->evidence, sizeof(out->evidence), f, "evidence");
        }
    }
}

/* Every check of the run; err names the first bad one. */
/* A check of a results file: one pecert has, and not one already read. */
static const char *check_id_problem(const pecert_run_results *run, const pecert_id_rules *ids, const char *id)
{
    if (!ids->known(id)) {
        return "is not a pecert check";
    }
    for (size_t k = 0; k < run->n_checks; k++) {
        if (strcmp(run->checks[k].check_id, id) == 0) {
            return "appears twice";
        }
    }
    return NULL;
}

static int checks_from_json(pecert_run_results *run, const cJSON *checks, const pecert_id_rules *ids, char *err,
                            size_t err_len)
{
    int i = 0;
    const cJSON *c = NULL;
    if ((size_t)cJSON_GetArraySize(checks) > ids->max_checks) {
        snprintf(err, err_len, "checks: %d entries, but a pecert run holds at most %zu", cJSON_GetArraySize(checks),
                 ids->max_checks);
        return -1;
    }
    cJSON_ArrayForEach(c, checks)
    {
        pecert_check_result r;
        char why[256];
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "check");
        const char *problem = cJSON_IsString(id) ? check_id_problem(run, ids, id->valuestring) : NULL;
        if (problem != NULL) {
            snprintf(err, err_len, "checks[%d].check: '%.64s' %s", i, id->valuestring, problem);
            return -1;
        }
        if (!cJSON_IsObject(c) || pecert_check_result_from_json(&r, c, why, sizeof(why)) != 0) {
            snprintf(err, err_len, "checks[%d]: %s", i, cJSON_IsObject(c) ? why : "not an object");
            return -1;
        }
        if (cJSON_GetObjectItemCaseSensitive(c, "index") == NULL) {
            r.index = i; /* written before checks carried their index */
        }
        if (pecert_run_results_append(run, &r) != 0) {
            pecert_check_result_release(&r);
            snprintf(err, err_len, "checks[%d]: out of memory", i);
            return -1;
        }
        i++;
    }
    return 0;
}

int pecert_run_results_from_json(pecert_run_results *run, const cJSON *root, const pecert_id_rules *ids, char *err,
                                 size_t err_len)
{
    memset(run, 0, sizeof(*run));
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const cJSON *plugin = cJSON_GetObjectItemCaseSensitive(root, "plugin");
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(root, "checks");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, PECERT_RESULTS_SCHEMA) != 0) {
        snprintf(err, err_len, "schema: expected \"%s\", got %s%s%s", PECERT_RESULTS_SCHEMA,
                 cJSON_IsString(schema) ? "\"" : "", cJSON_IsString(schema) ? schema->valuestring : "none",
                 cJSON_IsString(schema) ? "\"" : "");
        return -1;
    }
    if (!cJSON_IsObject(plugin) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(plugin, "name"))) {
        snprintf(err, err_len, "plugin: missing, or without a name");
        return -1;
    }
    if (!cJSON_IsArray(checks)) {
        snprintf(err, err_len, "checks: missing or not an array");
        return -1;
    }
    info_from_json(&run->info, root);
    if (selection_from_json(&run->info, root, ids->max_checks, err, err_len) != 0) {
        return -1;
    }
    findings_from_json(run, cJSON_GetObjectItemCaseSensitive(root, "diagnosis"));
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, "vector_set");
    if (sources_from_json(run, cJSON_GetObjectItemCaseSensitive(set, "files")) != 0) {
        snprintf(err, err_len, "vector_set: out of memory");
        goto out_bad;
    }
    if (checks_from_json(run, checks, ids, err, err_len) != 0) {
        goto out_bad;
    }
    if (run->info.n_selected < 0) {
        run->info.n_selected = (int)run->n_checks;
    }
    return 0;
out_bad:
    pecert_run_results_free(run);
    return -1;
}

int pecert_write_file_atomic(const char *path, const char *text, char *err,
                             size_t err_len)
{
    return pecert_write_files_atomic(&path, &text, 1, err, err_len);
}
