/* isolate.c - fork, pipe, deadline, kill: crash and hang containment. */
#include "isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The nonce: 128 random bits in hex, after a tag line of its own. */
#define NONCE_HEX 32
#define NONCE_TAG "\n#pecert-nonce "

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This process's slot, when it is an isolated child. */
static pecert_case_slot *own_slot;

void pecert_child_fault(const char *fmt, ...)
{
    char why[PECERT_CASE_SLOT_LEN];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (own_slot != NULL) {
        memcpy(own_slot->fault, why, sizeof(why));
    } else {
        fprintf(stderr, "pecert: %s\n", why);
    }
    _exit(PECERT_CHILD_FAULT_EXIT);
}

void pecert_case_slot_set(pecert_case_slot *case_slot, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(case_slot->text, sizeof(case_slot->text), fmt, ap);
    va_end(ap);
    case_slot->vector = (pecert_vector_id){"", -1};
}

void pecert_case_slot_vector(pecert_case_slot *case_slot, const char *file, int64_t tc_id)
{
    snprintf(case_slot->vector.file, sizeof(case_slot->vector.file), "%s", file);
    case_slot->vector.tc_id = tc_id;
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

/* Appends what is readable on fd: 1 at EOF, 0 after reading some, -1 when
 * nothing is there now (EAGAIN, EINTR). Past PECERT_CHILD_MAX_OUTPUT the
 * text is dropped (and flagged), never the reading. */
static int drain_pipe(pecert_child_outcome *out, int fd, size_t *cap)
{
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
        return errno == EINTR || errno == EAGAIN ? -1 : 1;
    }
    if (n == 0) {
        return 1;
    }
    if (out->output_len + (size_t)n > PECERT_CHILD_MAX_OUTPUT) {
        out->output_truncated = 1;
        return 0;
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

/* What the child wrote before it exited: its group is dead by now, so the
 * pipe holds a finite amount, read without blocking. */
static void drain_rest(pecert_child_outcome *out, int fd, size_t *cap)
{
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    while (drain_pipe(out, fd, cap) == 0) {
    }
}

/* Reads the child's output until the child exits (not until EOF: a
 * grandchild may hold the pipe open) or the deadline; 1 if timed out,
 * with *status filled when it exited. */
static int collect(pecert_child_outcome *out, int fd, pid_t pid, double deadline, int *status)
{
    size_t cap = 0;
    int eof = 0;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            (void)kill(-pid, SIGKILL); /* what it left behind in its group */
            if (!eof) {
                drain_rest(out, fd, &cap);
            }
            return 0;
        }
        double left = deadline > 0 ? deadline - now_s() : 1.0;
        if (left <= 0) {
            return 1;
        }
        int wait_ms = left < 0.05 ? (int)(left * 1000.0) + 1 : 50;
        if (eof) {
            struct timespec nap = {0, 2000000};
            nanosleep(&nap, NULL);
            continue;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, wait_ms) > 0 && drain_pipe(out, fd, &cap) == 1) {
            eof = 1;
        }
    }
}

/* The deadline passed: the child and its whole group go. */
static int kill_child(pid_t pid)
{
    int status = 0;
    (void)kill(-pid, SIGKILL);
    (void)kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

/* No core files; CPU time bounded (a backstop to the wall-clock deadline
 * for a plugin's threads); address space bounded by the machine's memory,
 * so that a runaway allocation fails in the child instead of swapping the
 * host (not under ASan, whose shadow memory needs terabytes of it). */
static void limit_resources(double timeout_s)
{
    struct rlimit none = {0, 0};
    (void)setrlimit(RLIMIT_CORE, &none);
    if (timeout_s > 0) {
        rlim_t cpu = (rlim_t)(4.0 * timeout_s) + 10;
        struct rlimit lim = {cpu, cpu};
        (void)setrlimit(RLIMIT_CPU, &lim);
    }
#if !defined(__SANITIZE_ADDRESS__)
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        rlim_t bytes = (rlim_t)pages * (rlim_t)page;
        struct rlimit as = {bytes, bytes};
        (void)setrlimit(RLIMIT_AS, &as);
    }
#endif
}

/* The nonce, after the work returned: nobody else has read it unless the
 * plugin went looking for it (then the harness finds the pipe empty). */
static int append_nonce(int out_fd, int nonce_fd)
{
    char nonce[NONCE_HEX];
    size_t got = 0;
    while (got < sizeof(nonce)) {
        ssize_t n = read(nonce_fd, nonce + got, sizeof(nonce) - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        got += (size_t)n;
    }
    if (pecert_write_fully(out_fd, NONCE_TAG, strlen(NONCE_TAG)) != 0 ||
        pecert_write_fully(out_fd, nonce, sizeof(nonce)) != 0) {
        return -1;
    }
    return pecert_write_fully(out_fd, "\n", 1);
}

static void run_child(pecert_child_fn fn, void *arg, int fds[2], int nonce_fd, pecert_case_slot *slot,
                      double timeout_s)
{
    close(fds[0]);
    own_slot = slot;
    (void)setpgid(0, 0);
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* pecert gone (Ctrl-C): so is the check */
    /* Default dispositions: a crash must kill the child, not a handler the
     * parent installed. */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGABRT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    limit_resources(timeout_s);
    int rc = fn(arg, fds[1], slot);
    if (rc == 0) {
        rc = append_nonce(fds[1], nonce_fd);
    }
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

/* A clean exit must end with the nonce; it is stripped, and anything else
 * is a result the harness did not write. */
static void authenticate(pecert_child_outcome *out, const char *nonce)
{
    char tail[sizeof(NONCE_TAG) + NONCE_HEX + 2];
    if (out->status != PECERT_CHILD_EXITED || out->exit_code != 0 || out->output_truncated) {
        return;
    }
    snprintf(tail, sizeof(tail), "%s%s\n", NONCE_TAG, nonce);
    size_t n = strlen(tail);
    if (out->output == NULL || out->output_len < n || memcmp(out->output + out->output_len - n, tail, n) != 0) {
        out->output_forged = 1;
        return;
    }
    out->output_len -= n;
    out->output[out->output_len] = '\0';
}

/* A fresh nonce per child, from the kernel's generator. */
static int make_nonce(char hex[NONCE_HEX + 1])
{
    unsigned char bytes[NONCE_HEX / 2];
    if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes)) {
        return -1;
    }
    for (size_t i = 0; i < sizeof(bytes); i++) {
        snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    }
    return 0;
}

/* The nonce pipe: written full before fork (a pipe holds far more than
 * 32 bytes), its write end closed on both sides, so the child's read sees
 * the nonce or, if someone took it first, EOF. */
static int nonce_pipe(int fds[2], const char *nonce)
{
    if (pipe(fds) != 0) {
        return -1;
    }
    if (pecert_write_fully(fds[1], nonce, NONCE_HEX) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    close(fds[1]);
    return 0;
}

void pecert_run_isolated(pecert_child_outcome *out, pecert_child_fn fn,
                         void *arg, double timeout_s)
{
    memset(out, 0, sizeof(*out));
    char nonce[NONCE_HEX + 1];
    int nfds[2] = {-1, -1};
    pecert_case_slot *slot = mmap(NULL, sizeof(*slot), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int fds[2];
    if (slot == MAP_FAILED) {
        set_not_run(out, "mmap failed");
        return;
    }
    slot->text[0] = '\0';
    slot->fault[0] = '\0';
    slot->vector = (pecert_vector_id){"", -1};
    if (make_nonce(nonce) != 0 || nonce_pipe(nfds, nonce) != 0) {
        set_not_run(out, "no random nonce (getrandom or pipe failed)");
        goto out_unmap;
    }
    if (pipe(fds) != 0) {
        set_not_run(out, "pipe failed");
        close(nfds[0]);
        goto out_unmap;
    }
    fflush(NULL); /* no buffered output may be written twice */
    double start = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        set_not_run(out, "fork failed");
        close(fds[0]);
        close(fds[1]);
        close(nfds[0]);
        goto out_unmap;
    }
    if (pid == 0) {
        run_child(fn, arg, fds, nfds[0], slot, timeout_s);
    }
    (void)setpgid(pid, pid); /* as the child does: no race with kill(-pid) */
    close(fds[1]);
    close(nfds[0]);
    double deadline = timeout_s > 0 ? start + timeout_s : 0;
    int status = 0;
    int timed_out = collect(out, fds[0], pid, deadline, &status);
    if (timed_out) {
        status = kill_child(pid);
    }
    close(fds[0]);
    out->elapsed_s = now_s() - start;
    classify(out, status, timed_out);
    authenticate(out, nonce);
    /* The child may have written anything there: copied, then cut. */
    memcpy(out->last_case, slot->text, sizeof(out->last_case));
    out->last_case[sizeof(out->last_case) - 1] = '\0';
    out->last_vector = slot->vector;
    out->last_vector.file[sizeof(out->last_vector.file) - 1] = '\0';
    if (out->status == PECERT_CHILD_EXITED && out->exit_code == PECERT_CHILD_FAULT_EXIT) {
        memcpy(out->fault, slot->fault, sizeof(out->fault));
        out->fault[sizeof(out->fault) - 1] = '\0';
    }
out_unmap:
    munmap(slot, sizeof(*slot));
}

void pecert_child_outcome_free(pecert_child_outcome *out)
{
    free(out->output);
    out->output = NULL;
    out->output_len = 0;
}

void pecert_child_outcome_words(char *out, size_t len, const pecert_child_outcome *o, double timeout_s,
                                const char *what)
{
    const char *during = o->last_case[0] != '\0' ? o->last_case : "start-up";
    if (o->status == PECERT_CHILD_TIMED_OUT) {
        snprintf(out, len, "no result within %.3g s (hang or far too slow) during %s", timeout_s, during);
    } else if (o->status == PECERT_CHILD_SIGNALED) {
        snprintf(out, len, "killed by signal %d (%s) during %s", o->signal, strsignal(o->signal), during);
    } else if (o->status == PECERT_CHILD_NOT_RUN) {
        snprintf(out, len, "could not start %s: %s", what, o->output != NULL ? o->output : "?");
    } else if (o->fault[0] != '\0') {
        snprintf(out, len, "%s during %s", o->fault, during);
    } else {
        snprintf(out, len, "exited with status %d without a result during %s", o->exit_code, during);
    }
}
