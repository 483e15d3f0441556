/*
 * results_json.h - the results model as JSON: the format of --json files
 * and of the pipe between a check's child process and the runner.
 */
#ifndef PECERT_HARNESS_RESULTS_JSON_H
#define PECERT_HARNESS_RESULTS_JSON_H

#include <stddef.h>

#include <cJSON.h>

#include "results.h"

#define PECERT_RESULTS_SCHEMA "pecert-results/1"

/* pecert_verdict_from_name: the verdict a results file names ("pass", ...,
 * as pecert_verdict_name writes them), or -1. */
int pecert_verdict_from_name(const char *name);

/* pecert_check_result_to_json: a new cJSON object (caller deletes), or NULL. */
cJSON *pecert_check_result_to_json(const pecert_check_result *r);

/* pecert_check_result_from_json fills *r from an object made by
 * pecert_check_result_to_json. Returns 0, or -1 with a message in err. */
int pecert_check_result_from_json(pecert_check_result *r, const cJSON *obj,
                                  char *err, size_t err_len);

/* pecert_run_results_to_json: the whole run, schema pecert-results/1. */
cJSON *pecert_run_results_to_json(const pecert_run_results *run);

/* The check ids a results file may name. The host library knows none:
 * the floor that does (conformance/, pecert_results_id_rules) hands them
 * in. known(id) is nonzero for a check of this pecert; a run holds at most
 * max_checks. */
typedef struct pecert_id_rules {
    int (*known)(const char *id);
    size_t max_checks;
} pecert_id_rules;

/* pecert_run_results_from_json fills *run from a pecert-results/1 document
 * (as pecert_run_results_to_json writes it; fields added after the first
 * version default sensibly when absent), each check id held to ids.
 * Returns 0, or -1 with "FIELD: problem" in err and *run empty. */
int pecert_run_results_from_json(pecert_run_results *run, const cJSON *root, const pecert_id_rules *ids, char *err,
                                 size_t err_len);

/* pecert_write_file_atomic writes text to path through a temporary file in
 * the same directory and rename(2), so readers never see half a file.
 * Returns 0, or -1 with "path: reason" in err. */
int pecert_write_file_atomic(const char *path, const char *text, char *err,
                             size_t err_len);

#endif /* PECERT_HARNESS_RESULTS_JSON_H */
