/*
 * certify_all.c - `pecert certify --all-profiles --impl X`: the porter's
 * matrix. Every bundled profile is certified on the plugin in turn and
 * gets one line: CERTIFIED, NOT CERTIFIED with the first diagnosis, or NOT
 * APPLICABLE when the plugin implements none of the profile's encoding
 * (every check but the mapping "not supported"). All the runs go into one
 * JSON / HTML / JUnit report, each labelled with its profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "certificate.h"
#include "certify_all.h"
#include "certify_checks.h"
#include "certify_config.h"
#include "certify_passes.h"
#include "job_pool.h"
#include "report.h"
#include "results_json.h"
#include "runner.h"

#define MAX_PROFILES 512

typedef enum profile_outcome { CERTIFIED, NOT_CERTIFIED, NOT_APPLICABLE, BROKEN } profile_outcome;

/* The first thing wrong, in the diagnosis's words when it names it. */
static void first_reason(char *out, size_t len, const pecert_run_results *res)
{
    if (res->n_findings > 0) {
        snprintf(out, len, "%s", res->findings[0].bug);
        return;
    }
    for (size_t i = 0; i < res->n_checks; i++) {
        if (res->checks[i].verdict >= PECERT_VERDICT_FAIL) {
            snprintf(out, len, "%s: %s", res->checks[i].check_id, res->checks[i].diagnosis);
            return;
        }
    }
    /* Nothing failed: the plugin declined what the checkpoint needs. */
    size_t used = (size_t)snprintf(out, len, "no check failed, but the plugin declined:");
    for (size_t i = 0; i < res->n_checks && used < len; i++) {
        if (res->checks[i].verdict == PECERT_VERDICT_UNSUPPORTED) {
            used += (size_t)snprintf(out + used, len - used, " %s", res->checks[i].check_id);
        }
    }
}

/* One profile's certification, as the line and the report need it. */
typedef struct profile_run {
    int status;                 /* PECERT_EXIT_*, or -1: the profile did not load */
    char err[2048];
    char kind[64];              /* the checkpoint's encoding, in words           */
    pecert_run_results res;     /* when status is PASS or FAIL                   */
} profile_run;

/* Certifies profile name on the plugin into *pr. */
static void certify_one(profile_run *pr, const pecert_certify_all_opts *o, const char *name)
{
    char vbuf[1024];
    memset(pr, 0, sizeof(*pr));
    pr->status = -1;
    pecert_certify_model *m = malloc(sizeof(*m));
    if (m == NULL || pecert_certify_load_profile(m, o->profiles_dir, name, pr->err, sizeof(pr->err)) != 0) {
        if (m == NULL) {
            snprintf(pr->err, sizeof(pr->err), "out of memory");
        }
        free(m);
        return;
    }
    snprintf(pr->kind, sizeof(pr->kind), "%s", pecert_pe_kind_name(m->kind));
    pecert_certify_options opt = {o->plugin_path,
                                  o->oracle_path,
                                  pecert_certify_profile_vectors(vbuf, sizeof(vbuf), o->vectors_dir, name),
                                  o->timeout_s,
                                  NULL,
                                  NULL,
                                  NULL,
                                  0,
                                  o->sandbox};
    pr->status = pecert_certify_run(&pr->res, m, &opt, pr->err, sizeof(pr->err));
    free(m);
}

static int has_results(const profile_run *pr)
{
    return pr->status == PECERT_EXIT_PASS || pr->status == PECERT_EXIT_FAIL;
}

/* Prints profile name's line from *pr and moves its run into rep. */
static profile_outcome judge_profile(profile_run *pr, const char *name, pecert_report *rep, int *load_failed)
{
    profile_outcome outcome = BROKEN;
    char reason[2 * PECERT_RESULT_LINE_MAX] = "";
    if (!has_results(pr)) {
        printf("  %-22s ERROR: %s\n", name, pr->err);
        *load_failed |= pr->status == PECERT_EXIT_LOAD;
        if (pr->status != -1) {
            pecert_run_results_free(&pr->res);
        }
        return BROKEN;
    }
    /* The class certify --profile gives (certificate.h), never another. */
    pecert_certificate c;
    pecert_certificate_of(&c, &pr->res);
    if (c.cls == PECERT_CERT_NOT_APPLICABLE) {
        outcome = NOT_APPLICABLE;
        printf("  %-22s NOT APPLICABLE: the plugin has none of the operations of %s's encoding\n", name, pr->kind);
    } else if (c.cls == PECERT_CERT_CERTIFIED) {
        outcome = CERTIFIED;
        pecert_not_examined_list(reason, sizeof(reason), &c);
        printf("  %-22s CERTIFIED%s%s%s\n", name, reason[0] != '\0' ? " (not examined: " : "", reason,
               reason[0] != '\0' ? ")" : "");
    } else {
        outcome = NOT_CERTIFIED;
        first_reason(reason, sizeof(reason), &pr->res);
        printf("  %-22s NOT CERTIFIED: %s\n", name, reason);
    }
    if (pecert_report_add_run(rep, &pr->res, PECERT_ROLE_CERTIFY, name) != 0) {
        outcome = BROKEN;
    }
    pecert_run_results_free(&pr->res); /* moved into rep, or not kept */
    fflush(stdout);
    return outcome;
}

/* -j: what the pool's workers and its parent share. */
typedef struct matrix_run {
    const pecert_certify_all_opts *o;
    char **names;
    pecert_report *rep;
    int *counts;
    int load_failed;
} matrix_run;

/* In a worker: profile index certified, as JSON {status, err, kind, results}. */
static char *certify_in_worker(size_t index, void *user)
{
    const matrix_run *mr = user;
    profile_run *pr = malloc(sizeof(*pr));
    if (pr == NULL) {
        return NULL;
    }
    certify_one(pr, mr->o, mr->names[index]);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "status", pr->status);
    cJSON_AddStringToObject(root, "err", pr->err);
    cJSON_AddStringToObject(root, "kind", pr->kind);
    if (has_results(pr)) {
        cJSON_AddItemToObject(root, "results", pecert_run_results_to_json(&pr->res));
        pecert_run_results_free(&pr->res);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(pr);
    return text;
}

/* In the parent, in profile order: the worker's certification, judged. */
static void profile_delivered(size_t index, const char *text, size_t len, const char *why, const char *printed,
                              void *user)
{
    matrix_run *mr = user;
    profile_run *pr = calloc(1, sizeof(*pr));
    cJSON *root = text != NULL ? cJSON_ParseWithLength(text, len) : NULL;
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "err");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    if (printed[0] != '\0') {
        fputs(printed, stderr);
    }
    if (pr == NULL) {
        mr->counts[BROKEN]++;
        cJSON_Delete(root);
        return;
    }
    pr->status = cJSON_IsNumber(status) ? status->valueint : -1;
    snprintf(pr->err, sizeof(pr->err), "%s", cJSON_IsString(err) ? err->valuestring : why);
    snprintf(pr->kind, sizeof(pr->kind), "%s", cJSON_IsString(kind) ? kind->valuestring : "?");
    if (has_results(pr)) {
        char perr[256];
        pecert_id_rules ids = pecert_results_id_rules();
        if (!cJSON_IsObject(results) || pecert_run_results_from_json(&pr->res, results, &ids, perr, sizeof(perr)) != 0) {
            snprintf(pr->err, sizeof(pr->err), "the worker's results do not read: %s", perr);
            pr->status = -1;
        }
    }
    mr->counts[judge_profile(pr, mr->names[index], mr->rep, &mr->load_failed)]++;
    cJSON_Delete(root);
    free(pr);
}

/* Each run of the report labelled with its profile (the plugin is the
 * same in all of them). */
static int write_matrix(pecert_report *rep, const pecert_certify_all_opts *o)
{
    if (!pecert_report_outputs_wanted(o->out)) {
        return 0;
    }
    pecert_report_finish(rep);
    for (size_t i = 0; i < rep->n_runs; i++) {
        snprintf(rep->runs[i].label, sizeof(rep->runs[i].label), "%s · %s", rep->runs[i].res.info.plugin_name,
                 rep->runs[i].origin);
    }
    char err[2048] = "out of memory";
    if (pecert_report_write(rep, o->out, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        return -1;
    }
    return 0;
}

int pecert_certify_all(const pecert_certify_all_opts *o)
{
    char *names[MAX_PROFILES];
    int n = pecert_certify_profile_names(o->profiles_dir, names, MAX_PROFILES);
    if (n <= 0) {
        fprintf(stderr, "pecert: %s: no profiles (cannot open it, or no NAME.json in it)\n", o->profiles_dir);
        return PECERT_EXIT_USAGE;
    }
    printf("pecert certify --all-profiles: %s on %d profiles\n", o->plugin_path, n);
    pecert_report rep = {.no_timings = o->out->no_timings};
    int counts[BROKEN + 1] = {0};
    int load_failed = 0;
    char err[512] = "";
    matrix_run mr = {o, names, &rep, counts, 0};
    pecert_pool pool = {(size_t)n, o->jobs, certify_in_worker, profile_delivered, NULL, &mr, NULL};
    if (o->jobs > 1 && pecert_pool_run(&pool, err, sizeof(err)) == 0) {
        load_failed = mr.load_failed;
    } else {
        if (err[0] != '\0') {
            fprintf(stderr, "pecert: %s; certifying the profiles one at a time\n", err);
        }
        for (int i = 0; i < n && !load_failed; i++) { /* a plugin that does not load fails every profile alike */
            profile_run *pr = malloc(sizeof(*pr));
            if (pr != NULL) {
                certify_one(pr, o, names[i]);
            }
            counts[pr != NULL ? judge_profile(pr, names[i], &rep, &load_failed) : BROKEN]++;
            free(pr);
        }
    }
    for (int i = 0; i < n; i++) {
        free(names[i]);
    }
    printf("certify: %d certified, %d not certified, %d not applicable%s%s%s\n", counts[CERTIFIED],
           counts[NOT_CERTIFIED], counts[NOT_APPLICABLE], counts[BROKEN] > 0 ? ", errors: " : "",
           counts[BROKEN] > 0 ? "see above" : "",
           o->sandbox == PECERT_SANDBOX_OFF ? "; " PECERT_UNSANDBOXED_WORDS : "");
    int written = write_matrix(&rep, o);
    pecert_report_free(&rep);
    if (load_failed) {
        return PECERT_EXIT_LOAD;
    }
    if (counts[BROKEN] > 0 || written != 0) {
        return PECERT_EXIT_USAGE;
    }
    return counts[NOT_CERTIFIED] == 0 && counts[CERTIFIED] > 0 ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL;
}
