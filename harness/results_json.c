/* results_json.c - results model <-> JSON, atomic file output. */
#include "results_json.h"

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
    cJSON_AddItemToObject(obj, "worst_ratio", number_or_string(r->worst_ratio));
    cJSON_AddStringToObject(obj, "worst_case", r->worst_case);
    cJSON_AddStringToObject(obj, "diagnosis", r->diagnosis);
    cJSON *details = cJSON_AddArrayToObject(obj, "details");
    for (int i = 0; details != NULL && i < r->n_details; i++) {
        cJSON_AddItemToArray(details, cJSON_CreateString(r->details[i]));
    }
    cJSON *symptoms = cJSON_AddArrayToObject(obj, "symptoms");
    for (int i = 0; symptoms != NULL && i < r->n_symptoms; i++) {
        cJSON_AddItemToArray(symptoms, cJSON_CreateString(r->symptoms[i]));
    }
    cJSON_AddItemToObject(obj, "points", points_to_json(r));
    cJSON_AddNumberToObject(obj, "elapsed_s", r->elapsed_s);
    return obj;
}

static int verdict_from_name(const char *name)
{
    for (int v = 0; v < PECERT_VERDICT_COUNT; v++) {
        if (strcmp(name, pecert_verdict_name((pecert_verdict)v)) == 0) {
            return v;
        }
    }
    return -1;
}

static int points_from_json(pecert_check_result *r, const cJSON *arr)
{
    const cJSON *p = NULL;
    cJSON_ArrayForEach(p, arr)
    {
        if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 3) {
            return -1;
        }
        double pos = cJSON_GetArrayItem(p, 0)->valuedouble;
        const cJSON *e = cJSON_GetArrayItem(p, 1);
        const cJSON *b = cJSON_GetArrayItem(p, 2);
        double err = cJSON_IsNumber(e) ? e->valuedouble : INFINITY;
        double bound = cJSON_IsNumber(b) ? b->valuedouble : NAN;
        if (pecert_check_result_add_point(r, (int64_t)pos, err, bound) != 0) {
            return -1;
        }
    }
    return 0;
}

int pecert_check_result_from_json(pecert_check_result *r, const cJSON *obj,
                                  char *err, size_t err_len)
{
    const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(obj, "verdict");
    const cJSON *check = cJSON_GetObjectItemCaseSensitive(obj, "check");
    if (!cJSON_IsString(check) || !cJSON_IsString(verdict) ||
        verdict_from_name(verdict->valuestring) < 0) {
        snprintf(err, err_len, "result: missing or bad 'check'/'verdict'");
        return -1;
    }
    pecert_check_result_init(r, check->valuestring);
    r->verdict = (pecert_verdict)verdict_from_name(verdict->valuestring);
    r->n_cases = (int64_t)read_number(obj, "cases");
    r->n_failed = (int64_t)read_number(obj, "failed");
    r->n_unsupported = (int64_t)read_number(obj, "unsupported");
    r->worst_ratio = read_number(obj, "worst_ratio");
    r->elapsed_s = read_number(obj, "elapsed_s");
    read_string(r->worst_case, sizeof(r->worst_case), obj, "worst_case");
    read_string(r->diagnosis, sizeof(r->diagnosis), obj, "diagnosis");
    const cJSON *d = NULL;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(obj, "details"))
    {
        if (cJSON_IsString(d) && r->n_details < PECERT_RESULT_MAX_DETAILS) {
            snprintf(r->details[r->n_details++], PECERT_RESULT_LINE_MAX, "%s",
                     d->valuestring);
        }
    }
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(obj, "symptoms"))
    {
        if (cJSON_IsString(d)) {
            pecert_check_symptom(r, "%s", d->valuestring);
        }
    }
    if (points_from_json(r, cJSON_GetObjectItemCaseSensitive(obj, "points")) != 0) {
        pecert_check_result_release(r);
        snprintf(err, err_len, "result: malformed 'points'");
        return -1;
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
    cJSON_AddStringToObject(root, "vectors_dir", run->info.vectors_dir);
    cJSON_AddNumberToObject(root, "vector_files", run->info.n_vector_files);
    cJSON_AddNumberToObject(root, "vectors", run->info.n_vectors);
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

static int write_all(FILE *f, const char *text)
{
    size_t len = strlen(text);
    return fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF ? 0 : -1;
}

int pecert_write_file_atomic(const char *path, const char *text, char *err,
                             size_t err_len)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
        snprintf(err, err_len, "%s: path too long", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        snprintf(err, err_len, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    int failed = write_all(f, text);
    failed |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    failed |= fclose(f) != 0;
    if (failed || rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
        (void)unlink(tmp);
        return -1;
    }
    return 0;
}
