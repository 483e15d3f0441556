/*
 * input_file.c - opening and reading a file pecert was given
 * (input_file.h).
 */
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not regular is, in the words of ls -l's first column. */
static const char *file_type_name(mode_t mode)
{
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    return S_ISBLK(mode) ? "a block device" : "not a regular file";
}

int pecert_input_open(const char *path, size_t max_len, const char *limit, size_t *len, char *err, size_t err_len)
{
    struct stat st;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer before fstat could say what it is. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int why = errno;
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(why));
        errno = why; /* the caller may tell "no such file" apart */
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        snprintf(err, err_len, "%s: cannot stat: %s", path, strerror(errno));
        (void)close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, err_len, "%s: is %s, not a regular file", path, file_type_name(st.st_mode));
        (void)close(fd);
        return -1;
    }
    if (st.st_size < 0 || (uintmax_t)st.st_size > max_len) {
        snprintf(err, err_len, "%s: %jd bytes, more than %s (%zu bytes)", path, (intmax_t)st.st_size, limit,
                 max_len);
        (void)close(fd);
        return -1;
    }
    *len = (size_t)st.st_size;
    return fd;
}

int pecert_input_read_fd(int fd, const char *path, unsigned char *buf, size_t len, char *err, size_t err_len)
{
    size_t got = 0;
    unsigned char extra;
    ssize_t r;
    while (got < len) {
        r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            snprintf(err, err_len, "%s: %s", path, r < 0 ? strerror(errno) : "shrank while being read");
            return -1;
        }
        got += (size_t)r;
    }
    do {
        r = read(fd, &extra, 1);
    } while (r < 0 && errno == EINTR);
    if (r != 0) {
        snprintf(err, err_len, "%s: %s", path, r > 0 ? "grew while being read" : "cannot be read to its end");
        return -1;
    }
    return 0;
}

char *pecert_input_read(const char *path, size_t max_len, const char *limit, size_t *len, char *err, size_t err_len)
{
    size_t n = 0;
    int fd = pecert_input_open(path, max_len, limit, &n, err, err_len);
    if (fd < 0) {
        return NULL;
    }
    unsigned char *buf = malloc(n + 1);
    if (buf == NULL) {
        snprintf(err, err_len, "%s: out of memory for %zu bytes", path, n);
    } else if (pecert_input_read_fd(fd, path, buf, n, err, err_len) != 0) {
        free(buf);
        buf = NULL;
    } else {
        buf[n] = '\0';
        *len = n;
    }
    (void)close(fd);
    return (char *)buf;
}
