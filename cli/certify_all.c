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

#include "certify_all.h"
#include "certify_config.h"
#include "certify_passes.h"
#include "report.h"
#include "runner.h"

#define MAX_PROFILES 512

typedef enum profile_outcome { CERTIFIED, NOT_CERTIFIED, NOT_APPLICABLE, BROKEN } profile_outcome;

/* No check beyond the mapping ran anything: the plugin lacks the encoding. */
static int applies(const pecert_run_results *res)
{
    for (size_t i = 0; i < res->n_checks; i++) {
        if (strcmp(res->checks[i].check_id, "certify.mapping") != 0 &&
            res->checks[i].verdict != PECERT_VERDICT_UNSUPPORTED) {
            return 1;
        }
    }
    return 0;
}

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

/* Certifies one profile, prints its line, and moves its run into rep. */
static profile_outcome certify_profile(const pecert_certify_all_opts *o, const char *name, pecert_report *rep,
                                       int *load_failed)
{
    char err[2048] = "";
    char vbuf[1024];
    pecert_certify_model *m = malloc(sizeof(*m));
    if (m == NULL || pecert_certify_load_profile(m, o->profiles_dir, name, err, sizeof(err)) != 0) {
        printf("  %-22s ERROR: %s\n", name, m != NULL ? err : "out of memory");
        free(m);
        return BROKEN;
    }
    pecert_certify_options opt = {o->plugin_path, o->oracle_path, pecert_certify_profile_vectors(vbuf, sizeof(vbuf), o->vectors_dir, name),
                                  o->timeout_s, NULL, NULL, NULL, 0};
    pecert_run_results res;
    int status = pecert_certify_run(&res, m, &opt, err, sizeof(err));
    profile_outcome outcome = BROKEN;
    char reason[2 * PECERT_RESULT_LINE_MAX] = "";
    if (status == PECERT_EXIT_USAGE || status == PECERT_EXIT_LOAD) {
        printf("  %-22s ERROR: %s\n", name, err);
        *load_failed |= status == PECERT_EXIT_LOAD;
    } else if (!applies(&res)) {
        outcome = NOT_APPLICABLE;
        printf("  %-22s NOT APPLICABLE: the plugin implements none of %s's operations\n", name,
               pecert_pe_kind_name(m->kind));
    } else if (status == PECERT_EXIT_PASS) {
        outcome = CERTIFIED;
        printf("  %-22s CERTIFIED\n", name);
    } else {
        outcome = NOT_CERTIFIED;
        first_reason(reason, sizeof(reason), &res);
        printf("  %-22s NOT CERTIFIED: %s\n", name, reason);
    }
    if (outcome != BROKEN && pecert_report_add_run(rep, &res, PECERT_ROLE_CERTIFY, name) != 0) {
        outcome = BROKEN;
    }
    pecert_run_results_free(&res);
    free(m);
    return outcome;
}

/* Each run of the report labelled with its profile (the plugin is the
 * same in all of them). */
static int write_matrix(pecert_report *rep, const pecert_certify_all_opts *o)
{
    if (o->json == NULL && o->html == NULL && o->junit == NULL) {
        return 0;
    }
    pecert_report_finish(rep);
    for (size_t i = 0; i < rep->n_runs; i++) {
        snprintf(rep->runs[i].label, sizeof(rep->runs[i].label), "%s · %s", rep->runs[i].res.info.plugin_name,
                 rep->runs[i].origin);
    }
    pecert_report_outputs out = {o->html, o->junit, o->json};
    char err[2048] = "out of memory";
    if (pecert_report_write(rep, &out, err, sizeof(err)) != 0) {
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
    pecert_report rep = {0};
    int counts[BROKEN + 1] = {0};
    int load_failed = 0;
    for (int i = 0; i < n; i++) {
        if (!load_failed) { /* a plugin that does not load fails every profile alike */
            counts[certify_profile(o, names[i], &rep, &load_failed)]++;
        }
        free(names[i]);
    }
    printf("certify: %d certified, %d not certified, %d not applicable%s%s\n", counts[CERTIFIED],
           counts[NOT_CERTIFIED], counts[NOT_APPLICABLE], counts[BROKEN] > 0 ? ", errors: " : "",
           counts[BROKEN] > 0 ? "see above" : "");
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
