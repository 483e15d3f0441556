/* isolate.c - fork, pipe, deadline, kill: crash and hang containment. */
#include "isolate.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pecert_case_slot_set(char *case_slot, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(case_slot, PECERT_CASE_SLOT_LEN, fmt, ap);
    va_end(ap);
}

int pecert_write_fully(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static void set_not_run(pecert_child_outcome *out, const char *what)
{
    out->status = PECERT_CHILD_NOT_RUN;
    out->output = strdup(what);
    out->output_len = out->output != NULL ? strlen(what) : 0;
}

/* Appends what is readable on fd; returns 1 at EOF, 0 if more may come. */
static int drain_pipe(pecert_child_outcome *out, int fd, size_t *cap)
{
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    }
    if (n == 0) {
        return 1;
    }
    if (out->output_len + (size_t)n > PECERT_CHILD_MAX_OUTPUT) {
        out->output_truncated = 1;
        return 0; /* keep reading so the child is not blocked, drop the rest */
    }
    if (out->output_len + (size_t)n + 1 > *cap) {
        size_t grown_cap = (*cap + (size_t)n + 1) * 2;
        char *grown = realloc(out->output, grown_cap);
        if (grown == NULL) {
            out->output_truncated = 1;
            return 0;
        }
        out->output = grown;
        *cap = grown_cap;
    }
    memcpy(out->output + out->output_len, buf, (size_t)n);
    out->output_len += (size_t)n;
    out->output[out->output_len] = '\0';
    return 0;
}

/* Reads the child's output until EOF or the deadline; 1 if timed out. */
static int read_until_deadline(pecert_child_outcome *out, int fd, double deadline)
{
    size_t cap = 0;
    for (;;) {
        int wait_ms = -1;
        if (deadline > 0) {
            double left = deadline - now_s();
            if (left <= 0) {
                return 1;
            }
            wait_ms = (int)(left * 1000.0) + 1;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, wait_ms);
        if (ready < 0 && errno != EINTR) {
            return 0;
        }
        if (ready > 0 && drain_pipe(out, fd, &cap)) {
            return 0;
        }
    }
}

/* Waits for the child to end; kills it if it outlives the deadline. */
static int reap_child(pid_t pid, double deadline, int *timed_out)
{
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            return status;
        }
        if (r < 0 && errno != EINTR) {
            return status;
        }
        if (*timed_out || (deadline > 0 && now_s() > deadline)) {
            *timed_out = 1;
            (void)kill(pid, SIGKILL);
            (void)waitpid(pid, &status, 0);
            return status;
        }
        struct timespec nap = {0, 2000000};
        nanosleep(&nap, NULL);
    }
}

static void run_child(pecert_child_fn fn, void *arg, int fds[2], char *slot)
{
    close(fds[0]);
    /* Default dispositions: a crash must kill the child, not a handler the
     * parent installed. */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGABRT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    int rc = fn(arg, fds[1], slot);
    close(fds[1]);
    _exit(rc == 0 ? 0 : 1);
}

static void classify(pecert_child_outcome *out, int status, int timed_out)
{
    if (timed_out) {
        out->status = PECERT_CHILD_TIMED_OUT;
    } else if (WIFSIGNALED(status)) {
        out->status = PECERT_CHILD_SIGNALED;
        out->signal = WTERMSIG(status);
    } else {
        out->status = PECERT_CHILD_EXITED;
        out->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
}

void pecert_run_isolated(pecert_child_outcome *out, pecert_child_fn fn,
                         void *arg, double timeout_s)
{
    memset(out, 0, sizeof(*out));
    char *slot = mmap(NULL, PECERT_CASE_SLOT_LEN, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int fds[2];
    if (slot == MAP_FAILED) {
        set_not_run(out, "mmap failed");
        return;
    }
    slot[0] = '\0';
    if (pipe(fds) != 0) {
        set_not_run(out, "pipe failed");
        goto out_unmap;
    }
    fflush(NULL); /* no buffered output may be written twice */
    double start = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        set_not_run(out, "fork failed");
        close(fds[0]);
        close(fds[1]);
        goto out_unmap;
    }
    if (pid == 0) {
        run_child(fn, arg, fds, slot);
    }
    close(fds[1]);
    double deadline = timeout_s > 0 ? start + timeout_s : 0;
    int timed_out = read_until_deadline(out, fds[0], deadline);
    close(fds[0]);
    int status = reap_child(pid, deadline, &timed_out);
    out->elapsed_s = now_s() - start;
    classify(out, status, timed_out);
    memcpy(out->last_case, slot, PECERT_CASE_SLOT_LEN);
    out->last_case[PECERT_CASE_SLOT_LEN - 1] = '\0';
out_unmap:
    munmap(slot, PECERT_CASE_SLOT_LEN);
}

void pecert_child_outcome_free(pecert_child_outcome *out)
{
    free(out->output);
    out->output = NULL;
    out->output_len = 0;
}
