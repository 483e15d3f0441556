/*
 * job_pool.c - forked workers, results through private temporary files,
 * delivered in job order (job_pool.h).
 *
 * Files rather than pipes: a result is megabytes of JSON, and a worker
 * that writes to a file never blocks on a parent busy judging an earlier
 * job; the parent reads a file only after its worker has exited, so it
 * never sees half of one.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job_pool.h"

typedef enum { JOB_PENDING, JOB_RUNNING, JOB_DONE } job_state;

typedef struct job {
    job_state state;
    pid_t pid;
    int wait_status;
    char why[128]; /* set when there is no result */
} job;

typedef struct pool_state {
    const pecert_pool *pool;
    job *jobs;
    char dir[4096];
    size_t started;
    size_t delivered;
    size_t done;
    int running;
} pool_state;

static void result_path(char *out, size_t len, const pool_state *s, size_t index)
{
    snprintf(out, len, "%s/%zu.json", s->dir, index);
}

/* The child: run the job, store its text, exit 0 (1: no result). */
static void __attribute__((noreturn)) worker(const pool_state *s, size_t index)
{
    char path[4200];
    result_path(path, sizeof(path), s, index);
    char *text = s->pool->work(index, s->pool->user);
    int ok = 0;
    FILE *f = text != NULL ? fopen(path, "wb") : NULL;
    if (f != NULL) {
        size_t len = strlen(text);
        ok = fwrite(text, 1, len, f) == len;
        ok = fclose(f) == 0 && ok;
    }
    if (!ok) {
        (void)unlink(path);
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

/* The text of a finished job's file (malloc'ed), or NULL with why. */
static char *read_result(const pool_state *s, size_t index, size_t *len)
{
    job *j = &s->jobs[index];
    if (WIFSIGNALED(j->wait_status)) {
        snprintf(j->why, sizeof(j->why), "the worker was killed by signal %d (%s)", WTERMSIG(j->wait_status),
                 strsignal(WTERMSIG(j->wait_status)));
        return NULL;
    }
    char path[4200];
    result_path(path, sizeof(path), s, index);
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *text = NULL;
    if (f != NULL && fstat(fileno(f), &st) == 0 && (text = malloc((size_t)st.st_size + 1)) != NULL) {
        *len = fread(text, 1, (size_t)st.st_size, f);
        text[*len] = '\0';
    }
    if (f != NULL) {
        fclose(f);
    }
    (void)unlink(path);
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
        size_t len = 0;
        size_t index = s->delivered++;
        char *text = s->jobs[index].why[0] != '\0' ? NULL : read_result(s, index, &len);
        s->pool->deliver(index, text, len, s->jobs[index].why, s->pool->user);
        free(text);
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
            s->jobs[i].state = JOB_DONE;
            s->jobs[i].wait_status = status;
            s->running--;
            s->done++;
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
    while (s->started < s->pool->n && s->running < s->pool->jobs) {
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

static void remove_dir(const pool_state *s)
{
    for (size_t i = 0; i < s->pool->n; i++) {
        char path[4200];
        result_path(path, sizeof(path), s, i);
        (void)unlink(path); /* left by a job never delivered (none, normally) */
    }
    (void)rmdir(s->dir);
}

int pecert_pool_run(const pecert_pool *pool, char *err, size_t err_len)
{
    pool_state s = {.pool = pool};
    const char *tmp = getenv("TMPDIR");
    snprintf(s.dir, sizeof(s.dir), "%s/pecert-jobs-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(s.dir) == NULL) {
        snprintf(err, err_len, "%s: cannot make a temporary directory for the workers' results: %s", s.dir,
                 strerror(errno));
        return -1;
    }
    s.jobs = calloc(pool->n > 0 ? pool->n : 1, sizeof(*s.jobs));
    if (s.jobs == NULL) {
        snprintf(err, err_len, "out of memory for %zu jobs", pool->n);
        (void)rmdir(s.dir);
        return -1;
    }
    while (s.delivered < pool->n) {
        fill(&s);
        deliver_ready(&s);
        if (s.running > 0) {
            reap_one(&s);
            progress(&s);
        }
        deliver_ready(&s);
    }
    remove_dir(&s);
    free(s.jobs);
    return 0;
}
