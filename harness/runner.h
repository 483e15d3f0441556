/*
 * runner.h - run the conformance checks on one plugin, each in its own
 * child process, and collect the results model.
 */
#ifndef PECERT_HARNESS_RUNNER_H
#define PECERT_HARNESS_RUNNER_H

#include <stddef.h>

#include "results.h"

/* Exit statuses of `pecert run` (and of pecert_run's return). */
enum {
    PECERT_EXIT_PASS = 0,     /* every check passed                     */
    PECERT_EXIT_FAIL = 1,     /* a check failed, crashed or timed out   */
    PECERT_EXIT_USAGE = 2,    /* bad usage or bad input (vectors)       */
    PECERT_EXIT_LOAD = 3      /* the plugin (or oracle) failed to load  */
};

typedef struct pecert_run_options {
    const char *plugin_path;  /* resolved .so path                      */
    const char *oracle_path;  /* `ref` .so: angle bounds, expectations  */
    const char *vectors_dir;  /* root of the vector files               */
    const char *filter;       /* fnmatch glob on check ids, NULL = all  */
    double timeout_s;         /* per check; <= 0 = none                 */
    /* Called after each check (progress, verbose output); may be NULL. */
    void (*on_check)(const pecert_check_result *r, size_t done, size_t total, void *user);
    void *user;
} pecert_run_options;

/*
 * pecert_run loads the vectors and the plugins, runs every selected check
 * in a forked child and fills *out. Returns a PECERT_EXIT_* status; on
 * USAGE or LOAD, err holds one line saying what and where.
 */
int pecert_run(pecert_run_results *out, const pecert_run_options *opt, char *err,
               size_t err_len);

#endif /* PECERT_HARNESS_RUNNER_H */
