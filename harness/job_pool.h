/*
 * job_pool.h - run n independent jobs in up to `jobs` forked workers and
 * hand their results back in job order.
 *
 * Each job runs in a child process of its own (so a job that crashes or
 * leaks takes nothing else with it) and returns text (JSON); the pool
 * stores it, and whatever the worker printed, in private temporary files
 * and gives both to the parent's deliver callback, in index order,
 * whatever order the workers finish in: the output of a parallel run
 * reads as a sequential one's.
 *
 * The pool reaps with waitpid(-1): the calling process must have no other
 * children while it runs (pecert's commands fork nothing else meanwhile).
 */
#ifndef PECERT_HARNESS_JOB_POOL_H
#define PECERT_HARNESS_JOB_POOL_H

#include <stddef.h>

/* In the child: job index's result as malloc'ed text, or NULL (then the
 * job is delivered as failed with "no result"). */
typedef char *(*pecert_pool_work)(size_t index, void *user);

/* In the parent, in index order: text is the job's result (len bytes,
 * NUL-terminated, the pool frees it after the call), or NULL when the
 * worker died or wrote nothing; why then says what happened ("killed by
 * signal 9"). printed is what the worker wrote to stdout and stderr ("" if
 * nothing), for the caller to show where the job's lines go. */
typedef void (*pecert_pool_deliver)(size_t index, const char *text, size_t len, const char *why,
                                    const char *printed, void *user);

/* In the parent, whenever a job starts or ends: done jobs of total, and
 * how many are running. NULL: no progress. */
typedef void (*pecert_pool_progress)(size_t done, size_t total, int running, void *user);

/* In the parent, as soon as a job's worker has ended (text its result,
 * or NULL), and again after each delivery (text NULL): nonzero stops the
 * pool from starting any job after the ones already started
 * (--fail-fast). NULL: every job runs. */
typedef int (*pecert_pool_stop)(const char *text, size_t len, void *user);

typedef struct pecert_pool {
    size_t n;                       /* jobs                                  */
    int jobs;                       /* workers at once, >= 1                 */
    pecert_pool_work work;
    pecert_pool_deliver deliver;
    pecert_pool_progress progress;  /* or NULL                               */
    void *user;
    pecert_pool_stop stop;          /* or NULL                               */
} pecert_pool;

/* pecert_pool_run runs every job and delivers each exactly once (once
 * stop said so, every job it had started, and no other). Returns
 * 0, or -1 with err when it cannot start (no temporary directory, no
 * memory): then nothing was delivered. A job fork(2) cannot start is
 * tried again when a running worker ends, and delivered as failed
 * ("fork: ...") when none is running. A worker dies with the parent
 * (PR_SET_PDEATHSIG); SIGINT, SIGTERM or SIGHUP to the parent removes
 * the temporary files before it dies of the signal. */
int pecert_pool_run(const pecert_pool *pool, char *err, size_t err_len);

/* The largest --jobs a command accepts (more workers than mutants or
 * cores only wait). */
#define PECERT_POOL_MAX_JOBS 1024

#endif /* PECERT_HARNESS_JOB_POOL_H */
