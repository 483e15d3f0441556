/*
 * vec_io.c - bounded reads of manifest and payload files, and the inflate
 * of a payload into a buffer of exactly the declared size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* next_in becomes const: the compressed bytes are only read. */
#define ZLIB_CONST
#include <zlib.h>

#include "vec_internal.h"

/* Read exactly len bytes; a file that shrinks or grows under us is an
 * error rather than a silently different payload. */
static int read_exact(const vec_ctx *ctx, const char *field, const char *path,
                      int fd, unsigned char *buf, size_t len)
{
    size_t got = 0;
    unsigned char extra;
    ssize_t r;

    while (got < len) {
        r = read(fd, buf + got, len - got);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            return pecert__vec_fail(ctx, field, NULL, "cannot read %s: %s",
                                    path, strerror(errno));
        }
        if (r == 0) {
            return pecert__vec_fail(ctx, field, NULL,
                                    "%s shrank while being read", path);
        }
        got += (size_t)r;
    }
    r = read(fd, &extra, 1);
    if (r != 0) {
        return pecert__vec_fail(ctx, field, NULL, "%s %s", path,
                                r > 0 ? "grew while being read"
                                      : "cannot be read to its end");
    }
    return 0;
}

/* Open without blocking (a FIFO would hang the run) and insist on a
 * regular file no bigger than max_len. */
static int open_bounded(const vec_ctx *ctx, const char *field,
                        const char *path, size_t max_len,
                        const char *limit_name, size_t *out_len)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        return pecert__vec_fail(ctx, field, NULL, "cannot open %s: %s", path,
                                strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        (void)close(fd);
        return pecert__vec_fail(ctx, field, NULL, "%s is not a regular file",
                                path);
    }
    if (st.st_size < 0 || (uintmax_t)st.st_size > max_len) {
        (void)close(fd);
        return pecert__vec_fail(ctx, field, NULL,
                                "%s is %jd bytes, more than %s (%zu)", path,
                                (intmax_t)st.st_size, limit_name, max_len);
    }
    *out_len = (size_t)st.st_size;
    return fd;
}

int pecert__vec_read_file(const vec_ctx *ctx, const char *field,
                          const char *path, size_t max_len,
                          const char *limit_name, unsigned char **out,
                          size_t *out_len)
{
    unsigned char *buf;
    size_t len = 0;
    int fd = open_bounded(ctx, field, path, max_len, limit_name, &len);
    int rc = -1;

    *out = NULL;
    *out_len = 0;
    if (fd < 0) {
        return -1;
    }
    buf = malloc(len + 1);
    if (buf == NULL) {
        (void)pecert__vec_fail(ctx, field, NULL, "out of memory reading %s",
                               path);
        goto out_close;
    }
    if (read_exact(ctx, field, path, fd, buf, len) != 0) {
        free(buf);
        goto out_close;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    rc = 0;
out_close:
    (void)close(fd);
    return rc;
}

/* After Z_FINISH stopped with the output full: does the stream still have
 * bytes to give? One probe byte tells, without inflating the rest (a
 * small stream can expand to gigabytes). *zret gets the probe's result,
 * which is the stream's verdict when nothing more came out. */
static int inflate_has_more(z_stream *zs, int *zret)
{
    unsigned char probe;
    int more;

    zs->next_out = &probe;
    zs->avail_out = 1;
    *zret = inflate(zs, Z_FINISH);
    more = zs->avail_out == 0;
    zs->next_out = NULL; /* probe goes out of scope */
    zs->avail_out = 0;
    return more;
}

/* Turn inflate's final state into a verdict on the stream. */
static int inflate_verdict(const vec_ctx *ctx, const z_stream *zs, int zret,
                           size_t raw_bytes)
{
    switch (zret) {
    case Z_STREAM_END:
        if (zs->total_out != raw_bytes) {
            return pecert__vec_fail(ctx, "payload", NULL,
                                    "decompressed size %lu != raw_bytes %zu",
                                    zs->total_out, raw_bytes);
        }
        if (zs->avail_in != 0) {
            return pecert__vec_fail(ctx, "payload", NULL,
                                    "%u bytes of trailing garbage after "
                                    "the zlib stream", zs->avail_in);
        }
        return 0;
    case Z_BUF_ERROR:
        return pecert__vec_fail(ctx, "payload", NULL,
                                "truncated zlib stream (decompressed %lu of "
                                "raw_bytes %zu)", zs->total_out, raw_bytes);
    case Z_MEM_ERROR:
        return pecert__vec_fail(ctx, "payload", NULL, "out of memory");
    case Z_NEED_DICT:
        return pecert__vec_fail(ctx, "payload", NULL,
                                "corrupt zlib stream: needs a dictionary");
    default:
        return pecert__vec_fail(ctx, "payload", NULL,
                                "corrupt zlib stream: %s",
                                zs->msg != NULL ? zs->msg : zError(zret));
    }
}

int pecert__vec_inflate(const vec_ctx *ctx, const unsigned char *in,
                        size_t in_len, unsigned char *out, size_t raw_bytes)
{
    z_stream zs;
    int zret;
    int rc;

    /* avail_in/avail_out are uInt; the caller's limits keep both sizes
     * far below, but a silent wrap here would be a wrong verdict. */
    if (in_len > UINT32_MAX || raw_bytes > UINT32_MAX) {
        return pecert__vec_fail(ctx, "payload", NULL, "too large to inflate");
    }
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK) {
        return pecert__vec_fail(ctx, "payload", NULL, "inflateInit failed");
    }
    zs.next_in = in;
    zs.avail_in = (uInt)in_len;
    zs.next_out = out;
    zs.avail_out = (uInt)raw_bytes;
    zret = inflate(&zs, Z_FINISH);
    if (zret == Z_BUF_ERROR && zs.avail_out == 0 &&
        inflate_has_more(&zs, &zret)) {
        rc = pecert__vec_fail(ctx, "payload", NULL,
                              "decompresses to more than raw_bytes %zu",
                              raw_bytes);
    } else {
        rc = inflate_verdict(ctx, &zs, zret, raw_bytes);
    }
    (void)inflateEnd(&zs);
    return rc;
}
