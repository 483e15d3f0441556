/*
 * runner.h - run the conformance checks on one plugin, each in its own
 * child process, and collect the results model.
 */
#ifndef PECERT_RUN_RUNNER_H
#define PECERT_RUN_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "filter.h" /* pecert_filter_selects: --filter, for the callers of a run */
#include "engine.h"
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
    const char *filter;       /* globs on check ids (filter.c), NULL = all */
    double timeout_s;         /* per check; <= 0 = none                 */
    /* Called after each check (progress, verbose output); may be NULL. */
    void (*on_check)(const pecert_check_result *r, size_t done, size_t total, void *user);
    void *user;
} pecert_run_options;

/* Options added after pecert_run_options was in wide use; kept apart so
 * existing positional initialisers of that struct stay complete. */
typedef struct pecert_run_extras {
    /* --shard I/N: run only the k-th selected checks (k counted from 0 in
     * registry order, after --filter) with k mod N == I - 1. Deterministic,
     * so N shards cover the selection exactly once and merge back into an
     * unsharded run (each result keeps k as its index). 0/0 = 1/1. */
    int shard_index;
    int shard_count;
    /* Called before each check of this shard (progress); may be NULL.
     * done counts the checks finished, total those of this shard. */
    void (*on_start)(const char *check_id, size_t done, size_t total, void *user);
    /* --verbose: keep every case that did not fail (results.h
     * pecert_case_record), not only the failing ones. */
    int keep_cases;
    int jobs;       /* -j: checks at once (pecert_plan_hooks.jobs)     */
    int fail_fast;  /* --fail-fast (pecert_plan_hooks.fail_fast)       */
    /* --case FILE:tcId: the checks see only that vector (FILE a loaded
     * file's path, or its path's tail after a '/': "rope/x.json", "x.json";
     * it must name one file). NULL: every vector. */
    const char *case_spec;
    /* --sandbox off: the engine host without its seccomp filters (a GPU
     * driver needs more than they allow); every output says so. */
    pecert_sandbox_mode sandbox;
} pecert_run_extras;

/*
 * pecert_run loads the vectors and the plugins, runs every selected check
 * in a forked child and fills *out. Returns a PECERT_EXIT_* status; on
 * USAGE or LOAD, err holds one line saying what and where.
 */
int pecert_run(pecert_run_results *out, const pecert_run_options *opt, char *err,
               size_t err_len);

/* pecert_run_ex: pecert_run with extras (NULL = none). */
int pecert_run_ex(pecert_run_results *out, const pecert_run_options *opt,
                  const pecert_run_extras *extras, char *err, size_t err_len);

struct pecert_check;
struct pecert_vfile;
struct pecert_plugin;

/* What a check runs against: the plugin and the oracle, the vector files,
 * whether every case is kept (--verbose), the child's time limit. */
typedef struct pecert_exec_subjects {
    const struct pecert_plugin *plugin;
    const struct pecert_plugin *oracle;
    const struct pecert_vfile *files;
    size_t n_files;
    int keep_cases;
    double timeout_s;
    const struct pecert_certify_model *certify_model; /* certify's checks' checkpoint; NULL in a run */
} pecert_exec_subjects;

/* pecert_exec_check: one check, the only way either runner (run,
 * certify) executes one: UNSUPPORTED when the plugin leaves an operation
 * the check needs NULL, else the check in its own child (the plugin and
 * oracle instances created there, the plugin's declared scope guarded, its
 * stdout/stderr captured, the result written as JSON) and its outcome
 * taken as a result (a crash, hang, or missing or forged result a CRASH
 * or TIMEOUT naming why). */
void pecert_exec_check(pecert_check_result *r, const struct pecert_check *check, const pecert_exec_subjects *x);

/* The diagnosis of a check pecert_exec_check finds UNSUPPORTED because
 * the plugin leaves an operation it needs NULL (run folds these into one
 * line unless --verbose). */
#define PECERT_DIAGNOSIS_NOT_IMPLEMENTED \
    "plugin does not implement an operation this check needs (NULL in its descriptor)"

/* A plan: the checks a runner runs, in order, each with its files. */
typedef struct pecert_plan_item {
    const struct pecert_check *check;
    const struct pecert_vfile *files;
    size_t n_files;
    int32_t index;            /* its result's index (the merge order)      */
    /* 1: the plan's reason to exist (certify: the checkpoint's encoding);
     * the judge holds a decline of it against the plugin. */
    int essential;
} pecert_plan_item;

/* What a plan's run does around each check; every field may be NULL/0. */
typedef struct pecert_plan_hooks {
    /* The vectors a failure may cite (run_info.h), paths shown relative to
     * cite_dir: the loaded files, which a check's files may be copies of. */
    const struct pecert_vfile *cite_files;
    size_t n_cite_files;
    const char *cite_dir;
    /* After a check, before its result is kept: the plan's own verdict
     * rules (certify's essential checks); nonzero fails the run whatever
     * the verdict. */
    int (*judge)(pecert_check_result *r, const pecert_plan_item *item, void *user);
    void (*on_start)(const char *check_id, size_t done, size_t total, void *user);
    void (*on_check)(const pecert_check_result *r, size_t done, size_t total, void *user);
    void *user;
    /* -j: checks executed at once, each in a worker process of its own
     * (job_pool.h); <= 1: one after another. The results are kept and
     * reported in plan order either way. */
    int jobs;
    /* --fail-fast: after the first check that fails (crashes, times out,
     * or the judge fails), start no other; out then holds fewer results
     * than the plan has items. */
    int fail_fast;
} pecert_plan_hooks;

/* pecert_run_plan: the one loop of both runners. Each item executed
 * (pecert_exec_check, with x's plugin, oracle, time limit, verbosity and
 * model, and the item's files), its vectors cited, judged, appended to out
 * and reported. PECERT_EXIT_PASS, or FAIL when a check failed, crashed or
 * timed out, the judge said so, or memory ran out. */
int pecert_run_plan(pecert_run_results *out, const pecert_plan_item *items, size_t n, const pecert_exec_subjects *x,
                    const pecert_plan_hooks *hooks);

/* pecert_capture_plugin: the run information both runners show about a
 * plugin: the host, the plugin's path, id, name and version, its
 * describe() line (ISA, threads) and declared scope, each read in a child
 * (plugin code may crash), and pecert's version. */
struct pecert_loaded_plugin;
void pecert_capture_plugin(pecert_run_info *info, const struct pecert_loaded_plugin *p, double timeout_s);

#endif /* PECERT_RUN_RUNNER_H */
