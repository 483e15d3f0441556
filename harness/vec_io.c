/*
 * vec_io.c - bounded reads of manifest and payload files, and the inflate
 * of a payload into a buffer of exactly the declared size.
 */
#include <stdlib.h>
#include <string.h>

/* next_in becomes const: the compressed bytes are only read. */
#define ZLIB_CONST
#include <zlib.h>

#include "input_file.h"
#include "vec_internal.h"

/* The shared input rules (input_file.h), each error in the loader's
 * "file: field: why" form. */
int pecert__vec_read_file(const vec_ctx *ctx, const char *field,
                          const char *path, size_t max_len,
                          const char *limit_name, unsigned char **out,
                          size_t *out_len)
{
    char err[4352]; /* a path of up to 4096 bytes and the reason */
    size_t len = 0;
    char *text = pecert_input_read(path, max_len, limit_name, &len, err,
                                   sizeof(err));

    *out = (unsigned char *)text;
    *out_len = text != NULL ? len : 0;
    return text != NULL ? 0 : pecert__vec_fail(ctx, field, NULL, "%s", err);
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
    /* The stream's Adler-32 is not computed: the manifest's crc32 of the
     * decompressed bytes (checked by the caller) is the integrity check,
     * and the second checksum was a sixth of the load's time. */
    (void)inflateValidate(&zs, 0);
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
