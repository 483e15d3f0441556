/* atomic_write.c - temp files beside their targets, renamed all at once. */
#include "atomic_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "isolate.h"

/* The temporary files of the write in progress, for the signal handler
 * (unlink is async-signal-safe; the paths are fixed before it is armed). */
static char pending[PECERT_ATOMIC_MAX_FILES][PATH_MAX + 32];
static volatile sig_atomic_t n_pending;

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CLEANUP_SIGNALS (sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))

static void remove_pending_and_die(int sig)
{
    for (sig_atomic_t i = 0; i < n_pending; i++) {
        (void)unlink(pending[i]);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void arm(struct sigaction *saved)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = remove_pending_and_die;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++) {
        (void)sigaction(cleanup_signals[i], &sa, &saved[i]);
    }
}

static void disarm(const struct sigaction *saved)
{
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++) {
        (void)sigaction(cleanup_signals[i], &saved[i], NULL);
    }
}

/* path's directory and last component (dirname/basename on copies). */
static void split_path(const char *path, char dir[PATH_MAX], char base[PATH_MAX])
{
    char dir_buf[PATH_MAX];
    char base_buf[PATH_MAX];
    snprintf(dir_buf, sizeof(dir_buf), "%s", path);
    snprintf(base_buf, sizeof(base_buf), "%s", path);
    snprintf(dir, PATH_MAX, "%s", dirname(dir_buf));
    snprintf(base, PATH_MAX, "%s", basename(base_buf));
}

/* ".NAME.pecert-tmp-PID-XXXXXX" in NAME's directory: rename(2) stays on
 * one file system, and mkstemp opens it O_CREAT|O_EXCL. Returns the fd or
 * -1. */
static int make_temp(const char *path, char *tmp, size_t tmp_len)
{
    char dir[PATH_MAX];
    char base[PATH_MAX];
    split_path(path, dir, base);
    if (snprintf(tmp, tmp_len, "%s/.%s.pecert-tmp-%ld-XXXXXX", dir, base, (long)getpid()) >= (int)tmp_len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd >= 0) {
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask); /* as fopen(path, "w") would create it */
    }
    return fd;
}

/* A temporary of NAME's that a pecert killed with SIGKILL (the one signal
 * it cannot clean up after) left: ".NAME.pecert-tmp-PID-XXXXXX" whose PID
 * no longer runs. Removed when NAME is next written. */
static void remove_stale_temps(const char *path)
{
    char dir[PATH_MAX];
    char base[PATH_MAX];
    char prefix[PATH_MAX + 16];
    split_path(path, dir, base);
    int n = snprintf(prefix, sizeof(prefix), ".%s.pecert-tmp-", base);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && n > 0 && (e = readdir(d)) != NULL) {
        char *end = NULL;
        if (strncmp(e->d_name, prefix, (size_t)n) != 0) {
            continue;
        }
        long pid = strtol(e->d_name + n, &end, 10);
        int named_by_pid = end != e->d_name + n && *end == '-' && pid > 0;
        if (named_by_pid && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            char stale[PATH_MAX * 2];
            snprintf(stale, sizeof(stale), "%s/%s", dir, e->d_name);
            (void)unlink(stale);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
}

static int write_text(int fd, const char *text)
{
    if (pecert_write_fully(fd, text, strlen(text)) != 0 || pecert_write_fully(fd, "\n", 1) != 0) {
        return -1;
    }
    return fsync(fd);
}

static void unlink_pending(void)
{
    for (sig_atomic_t i = 0; i < n_pending; i++) {
        (void)unlink(pending[i]);
    }
    n_pending = 0;
}

int pecert_write_files_atomic(const char *const *paths, const char *const *texts, int n, char *err,
                              size_t err_len)
{
    struct sigaction saved[N_CLEANUP_SIGNALS];
    const char *target[PECERT_ATOMIC_MAX_FILES];
    int rc = 0;
    if (n > PECERT_ATOMIC_MAX_FILES) {
        snprintf(err, err_len, "internal: %d files in one atomic write (at most %d)", n, PECERT_ATOMIC_MAX_FILES);
        return -1;
    }
    n_pending = 0;
    arm(saved);
    for (int i = 0; rc == 0 && i < n; i++) {
        if (paths[i] == NULL) {
            continue;
        }
        char tmp[sizeof(pending[0])];
        remove_stale_temps(paths[i]);
        int fd = make_temp(paths[i], tmp, sizeof(tmp));
        if (fd < 0) {
            snprintf(err, err_len, "%s: cannot create: %s", paths[i], strerror(errno));
            rc = -1;
            break;
        }
        memcpy(pending[n_pending], tmp, sizeof(tmp));
        target[n_pending] = paths[i];
        n_pending++;
        if (write_text(fd, texts[i]) != 0 || close(fd) != 0) {
            snprintf(err, err_len, "%s: cannot write: %s", paths[i], strerror(errno));
            rc = -1;
        }
    }
    for (sig_atomic_t i = 0; rc == 0 && i < n_pending; i++) {
        if (rename(pending[i], target[i]) != 0) {
            snprintf(err, err_len, "%s: cannot write: %s", target[i], strerror(errno));
            rc = -1; /* rare (the directory changed under us): the rest stay unrenamed */
        }
    }
    if (rc != 0) {
        unlink_pending();
    }
    n_pending = 0;
    disarm(saved);
    return rc;
}
