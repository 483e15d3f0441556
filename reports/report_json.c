/* report_json.c - the merged results as JSON, and writing every output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "report.h"
#include "atomic_write.h"
#include "json_text.h"
#include "results_json.h"

static cJSON *expect_to_json(const pecert_mutant_expect *e)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "bug_class", e->bug_class);
    cJSON_AddStringToObject(obj, "diagnosis", e->diagnosis);
    cJSON_AddStringToObject(obj, "finding", e->finding);
    cJSON *must = cJSON_AddArrayToObject(obj, "must_fail");
    for (int i = 0; must != NULL && i < e->n_must_fail; i++) {
        cJSON_AddItemToArray(must, cJSON_CreateString(e->must_fail[i]));
    }
    return obj;
}

/* What a summarized mutant run left out, and where it is. */
static cJSON *summary_note(const pecert_report *rep, const pecert_report_run *run)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddNumberToObject(obj, "failures_per_check", rep->mutant_failures);
    cJSON_AddStringToObject(obj, "points", "kept for the checks its catalogue entry names");
    cJSON_AddStringToObject(obj, "results_file", run->origin);
    return obj;
}

/* A certify run's class and coverage, as certify printed them: for
 * scripts. A reader recomputes them from the checks (certificate.h) and
 * never takes these on trust. */
static void add_certificate(cJSON *obj, const pecert_report_run *run)
{
    pecert_certificate c;
    if (!pecert_report_run_certificate(run, &c)) {
        return;
    }
    char coverage[4096];
    pecert_coverage_line(coverage, sizeof(coverage), &c);
    cJSON *cert = cJSON_AddObjectToObject(obj, "certificate");
    cJSON_AddStringToObject(cert, "class", pecert_cert_class_name(c.cls));
    cJSON_AddStringToObject(cert, "coverage", coverage);
    cJSON *list = cJSON_AddArrayToObject(cert, "concerns");
    for (int i = 0; list != NULL && i < c.n_concerns; i++) {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddStringToObject(k, "concern", c.concerns[i].name);
        cJSON_AddStringToObject(k, "state", pecert_concern_state_name(c.concerns[i].state));
        cJSON_AddStringToObject(k, "why", c.concerns[i].why);
        cJSON_AddItemToArray(list, k);
    }
}

static cJSON *entry_to_json(const pecert_report *rep, const pecert_report_run *run)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "plugin", run->res.info.plugin_name);
    cJSON_AddStringToObject(obj, "role", pecert_report_role_name(run->role));
    if (run->role == PECERT_ROLE_MUTANT) {
        cJSON_AddItemToObject(obj, "mutant", expect_to_json(&run->expect));
        cJSON_AddBoolToObject(obj, "caught", run->caught);
        cJSON_AddBoolToObject(obj, "diagnosed", run->diagnosed);
        if (rep->mutants_summarized && !run->not_run) {
            cJSON_AddItemToObject(obj, "summarized", summary_note(rep, run));
        }
    }
    add_certificate(obj, run);
    cJSON_AddItemToObject(obj, "results",
                          run->not_run ? cJSON_CreateNull() : pecert_run_results_to_json(&run->res));
    return obj;
}

/* One certified run is written as itself, so merged shards compare
 * equal to an unsharded run's --json file. */
static int is_single_run(const pecert_report *rep)
{
    return rep->n_runs == 1 && rep->runs[0].role == PECERT_ROLE_CERTIFY && !rep->runs[0].not_run;
}

char *pecert_report_json(const pecert_report *rep)
{
    cJSON *root;
    if (is_single_run(rep)) {
        root = pecert_run_results_to_json(&rep->runs[0].res);
        add_certificate(root, &rep->runs[0]);
    } else {
        root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "schema", PECERT_REPORT_SCHEMA);
        cJSON_AddStringToObject(root, "verdict", pecert_report_passed(rep) ? "pass" : "fail");
        cJSON *runs = cJSON_AddArrayToObject(root, "runs");
        for (size_t i = 0; runs != NULL && i < rep->n_runs; i++) {
            cJSON_AddItemToArray(runs, entry_to_json(rep, &rep->runs[i]));
        }
    }
    char *text = root != NULL ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return text;
}
