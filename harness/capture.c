/* capture.c - a check child's stdout/stderr into a bounded buffer. */
#include "capture.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pecert_capture {
    int read_fd;
    int stopping;       /* set by end: leave at the first quiet poll */
    pthread_t drainer;
    char kept[PECERT_CAPTURE_KEEP + 1];
    size_t n_kept;
    int64_t total;
};

/* Reads until EOF, or, once end asked, until the pipe is quiet for 50 ms:
 * a grandchild the plugin forked may hold a write end open for ever. */
static void *drain(void *arg)
{
    pecert_capture *c = arg;
    char buf[4096];
    for (;;) {
        struct pollfd pfd = {.fd = c->read_fd, .events = POLLIN};
        int ready = poll(&pfd, 1, 50);
        if (ready == 0 && __atomic_load_n(&c->stopping, __ATOMIC_SEQ_CST)) {
            break;
        }
        if (ready <= 0) {
            continue;
        }
        ssize_t n = read(c->read_fd, buf, sizeof(buf));
        if (n == 0) {
            break;
        }
        if (n < 0) {
            continue; /* EINTR */
        }
        size_t room = PECERT_CAPTURE_KEEP - c->n_kept;
        size_t take = (size_t)n < room ? (size_t)n : room;
        memcpy(c->kept + c->n_kept, buf, take);
        c->n_kept += take;
        c->total += n;
    }
    return NULL;
}

pecert_capture *pecert_capture_begin(void)
{
    int fds[2];
    pecert_capture *c = calloc(1, sizeof(*c));
    if (c == NULL || pipe(fds) != 0) {
        free(c);
        return NULL;
    }
    fflush(stdout);
    fflush(stderr);
    c->read_fd = fds[0];
    if (pthread_create(&c->drainer, NULL, drain, c) != 0 || dup2(fds[1], STDOUT_FILENO) < 0 ||
        dup2(fds[1], STDERR_FILENO) < 0) {
        close(fds[0]);
        close(fds[1]);
        free(c);
        return NULL; /* a thread that started reads EOF and ends */
    }
    close(fds[1]);
    return c;
}

int64_t pecert_capture_end(pecert_capture *c, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (c == NULL) {
        return 0;
    }
    fflush(stdout);
    fflush(stderr);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
    }
    __atomic_store_n(&c->stopping, 1, __ATOMIC_SEQ_CST);
    pthread_join(c->drainer, NULL);
    size_t n = c->n_kept < cap - 1 ? c->n_kept : cap - 1;
    memcpy(buf, c->kept, n);
    buf[n] = '\0';
    int64_t total = c->total;
    close(c->read_fd);
    free(c);
    return total;
}
