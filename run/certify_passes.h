/*
 * certify_passes.h - certify one plugin for one checkpoint: every check that
 * applies to the checkpoint's positional encoding, at exactly its derived
 * parameters, each in its own child process, `ref` as the oracle. A
 * checkpoint with layer types (certify_config.h) is certified once per
 * type, its checks reported as "ID@type" and diagnosed per type.
 */
#ifndef PECERT_RUN_CERTIFY_PASSES_H
#define PECERT_RUN_CERTIFY_PASSES_H

#include <stddef.h>

#include "certify_config.h"
#include "engine.h"
#include "results.h"

typedef struct pecert_certify_options {
    const char *plugin_path;   /* resolved .so path                        */
    const char *oracle_path;   /* `ref` .so                                */
    /* The checkpoint's profile vectors (a manifest recorded from the
     * official model class), or NULL when there are none. */
    const char *vectors_path;
    double timeout_s;          /* per check; <= 0 = none                   */
    /* Globs over the planned checks' ids (filter.c), NULL = all. A
     * filtered run certifies nothing: it is for looking at a check. */
    const char *filter;
    /* Called after each check; may be NULL. */
    void (*on_check)(const pecert_check_result *r, size_t done, size_t total, void *user);
    void *user;
    int keep_cases;            /* --verbose: every case that did not fail */
    pecert_sandbox_mode sandbox; /* --sandbox (runner.h, pecert_run_extras) */
} pecert_certify_options;

/*
 * pecert_certify_run runs the applicable checks on the plugin at m's
 * parameters and fills *out (free with pecert_run_results_free; its
 * info.filter reads "certify NAME (model_type): <derived parameters>", the
 * line reports show as the run's selection). Returns a PECERT_EXIT_* status
 * (runner.h): PASS exactly when the run's class is CERTIFIED
 * (certificate.h; NOT CERTIFIED and NOT APPLICABLE are FAIL), or, under
 * --filter, when no selected check failed; on USAGE or LOAD, err holds one
 * line.
 */
int pecert_certify_run(pecert_run_results *out, const pecert_certify_model *m,
                       const pecert_certify_options *opt, char *err, size_t err_len);

#endif /* PECERT_RUN_CERTIFY_PASSES_H */
