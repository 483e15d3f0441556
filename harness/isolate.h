/*
 * isolate.h - run a piece of work in a forked child with a time limit.
 *
 * A plugin under test may crash, abort, hang or scribble on memory; the
 * runner must survive all of it and report which case was running. The
 * child writes its result to a pipe; a shared-memory slot holds the name of
 * the case in progress so a crash can be attributed.
 *
 * The child runs in a process group of its own (killed as a group when it
 * ends, so a grandchild the plugin forked cannot outlive the check or hold
 * the pipe open), with no core files and a CPU-time limit. Its result is
 * authenticated: the parent makes a random nonce for each child, and the
 * child's harness code reads it from a pipe only after the work returned,
 * then ends the result with it. A result the plugin wrote and _exit()ed
 * after has no nonce; one it wrote before the real one leaves the text
 * unparsable. Either is "forged" (output_forged), never a verdict. The
 * plugin under test does not run in the child at all (engine.h): the nonce
 * guards the judge's own result against a mistake of its own.
 */
#ifndef PECERT_HARNESS_ISOLATE_H
#define PECERT_HARNESS_ISOLATE_H

#include <stddef.h>

#include "results.h"

typedef enum pecert_child_status {
    PECERT_CHILD_EXITED = 0, /* exited normally; see exit_code            */
    PECERT_CHILD_SIGNALED,   /* killed by a signal it raised (segv, abort) */
    PECERT_CHILD_TIMED_OUT,  /* we killed it at the deadline              */
    PECERT_CHILD_NOT_RUN     /* fork/pipe/mmap failed; see output         */
} pecert_child_status;

#define PECERT_CASE_SLOT_LEN 512

/* Shared memory a child keeps naming its current case in, read by the
 * parent when the child dies or hangs: the case's words, and the golden
 * vector it checks as data (file "" when none; the parent cites it only
 * when it is a loaded vector, since plugin code runs in the child). */
typedef struct pecert_case_slot {
    char text[PECERT_CASE_SLOT_LEN];
    pecert_vector_id vector;
    char fault[PECERT_CASE_SLOT_LEN]; /* pecert_child_fault's words */
} pecert_case_slot;

/* The exit status of a child that ended by pecert_child_fault. */
#define PECERT_CHILD_FAULT_EXIT 86
/* Result text bigger than this is a runaway child: it is cut and flagged. */
#define PECERT_CHILD_MAX_OUTPUT ((size_t)64 << 20)

typedef struct pecert_child_outcome {
    pecert_child_status status;
    int exit_code;                      /* when EXITED                     */
    int signal;                         /* when SIGNALED                   */
    char *output;                       /* malloc'ed, NUL-terminated text  */
    size_t output_len;
    int output_truncated;               /* hit PECERT_CHILD_MAX_OUTPUT     */
    int output_forged;                  /* EXITED 0 without the nonce at
                                         * the end: not the harness's result
                                         * (output then holds it unstripped) */
    char last_case[PECERT_CASE_SLOT_LEN]; /* case running when it ended    */
    pecert_vector_id last_vector;       /* its golden vector ("" if none)  */
    char fault[PECERT_CASE_SLOT_LEN];   /* why it ended by pecert_child_fault ("" if not) */
    double elapsed_s;
} pecert_child_outcome;

/*
 * The work: write the result text to out_fd; keep case_slot naming the
 * current case (pecert_case_slot_set). Return 0 on success. Runs in the
 * child only.
 */
typedef int (*pecert_child_fn)(void *arg, int out_fd, pecert_case_slot *case_slot);

/*
 * pecert_run_isolated runs fn(arg) in a child process, reads its output,
 * and waits at most timeout_s seconds (<= 0: no limit). Always fills *out;
 * release it with pecert_child_outcome_free.
 */
void pecert_run_isolated(pecert_child_outcome *out, pecert_child_fn fn,
                         void *arg, double timeout_s);

void pecert_child_outcome_free(pecert_child_outcome *out);

/* pecert_child_outcome_words: why a child gave no result, in one line:
 * "no result within T s (hang or far too slow) during CASE", "killed by
 * signal N (NAME) during CASE", "could not start WHAT: why", "exited with
 * status N without a result during CASE", "FAULT during CASE" (CASE "start-up" when none was
 * named). The runner's CRASH/TIMEOUT diagnosis and `pecert dump` say it
 * alike. */
void pecert_child_outcome_words(char *out, size_t len, const pecert_child_outcome *o, double timeout_s,
                                const char *what);

/* pecert_case_slot_set writes a description of the current case (and
 * forgets the vector of the one before). */
void pecert_case_slot_set(pecert_case_slot *case_slot, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* pecert_case_slot_vector: the current case checks golden vector (file,
 * tc_id). */
void pecert_case_slot_vector(pecert_case_slot *case_slot, const char *file, int64_t tc_id);

/* pecert_child_fault: in an isolated child, ends it at once with why
 * (printf-style) as its outcome's fault, for a failure the child saw
 * rather than one it made: its engine host broke the wire protocol. Out
 * of one, prints it and exits with the same status. */
_Noreturn void pecert_child_fault(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* pecert_write_fully writes len bytes to fd, retrying short writes. */
int pecert_write_fully(int fd, const char *buf, size_t len);

#endif /* PECERT_HARNESS_ISOLATE_H */
