/*
 * job_pool.c - forked workers, results through private temporary files,
 * delivered in job order (job_pool.h).
 *
 * Files rather than pipes: a result is megabytes of JSON, and a worker
 * that writes to a file never blocks on a parent busy judging an earlier
 * job; the parent reads a file only after its worker has exited, so it
 * never sees half of one. What a worker prints goes to a file of its own
 * too, shown with its job's lines rather than over another job's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job_pool.h"

typedef enum { JOB_PENDING, JOB_RUNNING, JOB_DONE } job_state;

#define JOB_PATH_MAX 4200

typedef struct job {
    job_state state;
    pid_t pid;
    int wait_status;
    char why[128];                /* set when there is no result */
    char *text;                   /* its result, read when it ended (stop) */
    size_t text_len;
    int text_read;
    char result[JOB_PATH_MAX];    /* the worker's result file    */
    char printed[JOB_PATH_MAX];   /* its stdout and stderr       */
} job;

typedef struct pool_state {
    const pecert_pool *pool;
    job *jobs;
    char dir[4096];
    size_t started;
    size_t delivered;
    int stopped;                  /* stop() said so: start nothing more */
    size_t done;
    int running;
} pool_state;

/* ---- cleanup on a fatal signal ------------------------------------------ */

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CLEANUP_SIGNALS (sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))

/* The pool the handler cleans up after (one pool runs at a time). */
static pool_state *volatile armed_pool;

/* unlink and rmdir only: async-signal-safe, paths made before arming. */
static void remove_files_and_die(int sig)
{
    pool_state *s = armed_pool;
    for (size_t i = 0; s != NULL && i < s->pool->n; i++) {
        (void)unlink(s->jobs[i].result);
        (void)unlink(s->jobs[i].printed);
    }
    if (s != NULL) {
        (void)rmdir(s->dir);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void arm(pool_state *s, struct sigaction saved[N_CLEANUP_SIGNALS])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = remove_files_and_die;
    sigemptyset(&sa.sa_mask);
    armed_pool = s;
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++) {
        (void)sigaction(cleanup_signals[i], &sa, &saved[i]);
    }
}

static void disarm(const struct sigaction saved[N_CLEANUP_SIGNALS])
{
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++) {
        (void)sigaction(cleanup_signals[i], &saved[i], NULL);
    }
    armed_pool = NULL;
}

/* ---- the worker ---------------------------------------------------------- */

/* The child: output to its own file, run the job, store its text, exit 0
 * (1: no result). */
static void __attribute__((noreturn)) worker(const pool_state *s, size_t index)
{
    const job *j = &s->jobs[index];
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++) {
        signal(cleanup_signals[i], SIG_DFL); /* the parent cleans up, once */
    }
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* pecert gone: so is the job */
    int out = open(j->printed, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out >= 0) {
        (void)dup2(out, STDOUT_FILENO);
        (void)dup2(out, STDERR_FILENO);
        close(out);
    }
    char *text = s->pool->work(index, s->pool->user);
    int ok = 0;
    FILE *f = text != NULL ? fopen(j->result, "wb") : NULL;
    if (f != NULL) {
        size_t len = strlen(text);
        ok = fwrite(text, 1, len, f) == len;
        ok = fclose(f) == 0 && ok;
    }
    if (!ok) {
        (void)unlink(j->result);
    }
    free(text);
    fflush(NULL);
    _exit(ok ? 0 : 1);
}

/* Starts job index; 0, or -1 when fork failed (errno kept). */
static int start(pool_state *s, size_t index)
{
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        worker(s, index);
    }
    s->jobs[index].state = JOB_RUNNING;
    s->jobs[index].pid = pid;
    s->running++;
    return 0;
}

static void progress(const pool_state *s)
{
    if (s->pool->progress != NULL) {
        s->pool->progress(s->done, s->pool->n, s->running, s->pool->user);
    }
}

/* ---- the parent ---------------------------------------------------------- */

/* The whole file at path (malloc'ed, NUL-terminated, *len bytes), then
 * removed; NULL when it is missing or memory is short. */
static char *take_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *text = NULL;
    *len = 0;
    if (f != NULL && fstat(fileno(f), &st) == 0 && (text = malloc((size_t)st.st_size + 1)) != NULL) {
        *len = fread(text, 1, (size_t)st.st_size, f);
        text[*len] = '\0';
    }
    if (f != NULL) {
        fclose(f);
    }
    (void)unlink(path);
    return text;
}

/* The text of a finished job's result (malloc'ed), or NULL with its why. */
static char *read_result(job *j, size_t *len)
{
    if (WIFSIGNALED(j->wait_status)) {
        snprintf(j->why, sizeof(j->why), "the worker was killed by signal %d (%s)", WTERMSIG(j->wait_status),
                 strsignal(WTERMSIG(j->wait_status)));
        (void)unlink(j->result);
        return NULL;
    }
    char *text = take_file(j->result, len);
    if (text == NULL) {
        snprintf(j->why, sizeof(j->why), "the worker wrote no result (exit status %d)",
                 WIFEXITED(j->wait_status) ? WEXITSTATUS(j->wait_status) : -1);
    }
    return text;
}

/* Delivers every finished job whose predecessors are delivered. */
static void deliver_ready(pool_state *s)
{
    while (s->delivered < s->pool->n && s->jobs[s->delivered].state == JOB_DONE) {
        size_t index = s->delivered++;
        job *j = &s->jobs[index];
        size_t len = 0;
        size_t printed_len = 0;
        char *text = j->text_read ? j->text : j->why[0] != '\0' ? NULL : read_result(j, &len);
        len = j->text_read ? j->text_len : len;
        j->text = NULL;
        char *printed = take_file(j->printed, &printed_len);
        s->pool->deliver(index, text, len, j->why, printed != NULL ? printed : "", s->pool->user);
        free(printed);
        free(text);
        if (s->pool->stop != NULL && s->pool->stop(NULL, 0, s->pool->user)) {
            s->stopped = 1;
        }
    }
}

/* Waits for one worker to end and marks its job done. */
static void reap_one(pool_state *s)
{
    int status = 0;
    pid_t pid;
    do {
        pid = waitpid(-1, &status, 0);
    } while (pid < 0 && errno == EINTR);
    for (size_t i = 0; pid > 0 && i < s->pool->n; i++) {
        if (s->jobs[i].state == JOB_RUNNING && s->jobs[i].pid == pid) {
            job *j = &s->jobs[i];
            j->state = JOB_DONE;
            j->wait_status = status;
            s->running--;
            s->done++;
            if (s->pool->stop != NULL) { /* judged now, delivered in order later */
                j->text = read_result(j, &j->text_len);
                j->text_read = 1;
                s->stopped |= s->pool->stop(j->text, j->text_len, s->pool->user) != 0;
            }
            return;
        }
    }
    if (pid < 0) {
        /* no child left that we know of: every running job is lost */
        for (size_t i = 0; i < s->pool->n; i++) {
            if (s->jobs[i].state == JOB_RUNNING) {
                s->jobs[i].state = JOB_DONE;
                snprintf(s->jobs[i].why, sizeof(s->jobs[i].why), "the worker was lost (waitpid: %s)",
                         strerror(errno));
                s->running--;
                s->done++;
            }
        }
    }
}

/* Starts what the pool has room for; a job fork cannot start with no
 * worker running is done, failed. */
static void fill(pool_state *s)
{
    while (!s->stopped && s->started < s->pool->n && s->running < s->pool->jobs) {
        size_t index = s->started;
        if (start(s, index) != 0) {
            if (s->running > 0) {
                return; /* try again when a worker has ended */
            }
            s->jobs[index].state = JOB_DONE;
            snprintf(s->jobs[index].why, sizeof(s->jobs[index].why), "fork: %s", strerror(errno));
            s->done++;
        }
        s->started++;
        progress(s);
    }
}

/* The temporary directory and every job's file names in it. */
static int prepare(pool_state *s, char *err, size_t err_len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(s->dir, sizeof(s->dir), "%s/pecert-jobs-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(s->dir) == NULL) {
        snprintf(err, err_len, "%s: cannot make a temporary directory for the workers' results: %s", s->dir,
                 strerror(errno));
        return -1;
    }
    s->jobs = calloc(s->pool->n > 0 ? s->pool->n : 1, sizeof(*s->jobs));
    if (s->jobs == NULL) {
        snprintf(err, err_len, "out of memory for %zu jobs", s->pool->n);
        (void)rmdir(s->dir);
        return -1;
    }
    for (size_t i = 0; i < s->pool->n; i++) {
        snprintf(s->jobs[i].result, sizeof(s->jobs[i].result), "%s/%zu.json", s->dir, i);
        snprintf(s->jobs[i].printed, sizeof(s->jobs[i].printed), "%s/%zu.out", s->dir, i);
    }
    return 0;
}

int pecert_pool_run(const pecert_pool *pool, char *err, size_t err_len)
{
    pool_state s = {.pool = pool};
    if (prepare(&s, err, err_len) != 0) {
        return -1;
    }
    struct sigaction saved[N_CLEANUP_SIGNALS];
    arm(&s, saved);
    while (s.delivered < (s.stopped ? s.started : pool->n)) {
        fill(&s);
        deliver_ready(&s);
        if (s.running > 0) {
            reap_one(&s);
            progress(&s);
        }
        deliver_ready(&s);
    }
    disarm(saved);
    (void)rmdir(s.dir); /* every file was taken at delivery */
    free(s.jobs);
    return 0;
}
