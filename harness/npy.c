/*
 * npy.c - the .npy reader and writer (npy.h).
 *
 * The header is a Python dict literal; only what numpy.lib.format writes
 * is accepted (three known keys, string / bool / tuple-of-ints values),
 * with every length checked against the bytes actually there.
 */
#include "npy.h"

#include "input_file.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct npy_ctx {
    const char *name;
    char *err;
    size_t err_len;
} npy_ctx;

static int npy_fail(const npy_ctx *c, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int npy_fail(const npy_ctx *c, const char *field, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(c->err, c->err_len, "%s: %s: %s", c->name, field, why);
    return -1;
}

/* ---- the header dict ---------------------------------------------------- */

typedef struct header_cursor {
    const char *p;
    const char *end;
} header_cursor;

typedef struct header_fields {
    char descr[8];
    int fortran_order;
    int ndim;
    int64_t shape[PECERT_NPY_MAX_DIMS];
    int seen_descr, seen_order, seen_shape;
} header_fields;

static void skip_space(header_cursor *h)
{
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t')) {
        h->p++;
    }
}

static int accept(header_cursor *h, char ch)
{
    skip_space(h);
    if (h->p < h->end && *h->p == ch) {
        h->p++;
        return 1;
    }
    return 0;
}

/* A quoted string into out (at most len - 1 characters). */
static int read_string(header_cursor *h, char *out, size_t len)
{
    skip_space(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) {
        return -1;
    }
    char quote = *h->p++;
    size_t n = 0;
    while (h->p < h->end && *h->p != quote) {
        if (n + 1 >= len) {
            return -1;
        }
        out[n++] = *h->p++;
    }
    if (h->p >= h->end) {
        return -1;
    }
    h->p++;
    out[n] = '\0';
    return 0;
}

static int read_bool(header_cursor *h, int *out)
{
    skip_space(h);
    size_t left = (size_t)(h->end - h->p);
    if (left >= 4 && strncmp(h->p, "True", 4) == 0) {
        h->p += 4;
        *out = 1;
        return 0;
    }
    if (left >= 5 && strncmp(h->p, "False", 5) == 0) {
        h->p += 5;
        *out = 0;
        return 0;
    }
    return -1;
}

static int read_dim(header_cursor *h, int64_t *out)
{
    skip_space(h);
    int64_t v = 0;
    int digits = 0;
    while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
        if (v > (PECERT_NPY_MAX_ELEMENTS * 16) / 10) {
            return -1; /* a dimension no dump can have: stop before overflow */
        }
        v = v * 10 + (*h->p++ - '0');
        digits++;
    }
    if (h->p < h->end && *h->p == 'L') { /* Python 2 longs */
        h->p++;
    }
    *out = v;
    return digits > 0 ? 0 : -1;
}

/* (d0, d1, ...) with an optional trailing comma; () is a 0-d array. */
static int read_shape(const npy_ctx *c, header_cursor *h, header_fields *f)
{
    if (!accept(h, '(')) {
        return npy_fail(c, "header.shape", "expected a tuple of integers");
    }
    f->ndim = 0;
    while (!accept(h, ')')) {
        if (f->ndim == PECERT_NPY_MAX_DIMS) {
            return npy_fail(c, "header.shape", "more than %d dimensions", PECERT_NPY_MAX_DIMS);
        }
        if (read_dim(h, &f->shape[f->ndim]) != 0) {
            return npy_fail(c, "header.shape", "expected non-negative integers below 2^32");
        }
        f->ndim++;
        if (!accept(h, ',') && (skip_space(h), h->p >= h->end || *h->p != ')')) {
            return npy_fail(c, "header.shape", "expected ',' or ')'");
        }
    }
    return 0;
}

static int read_entry(const npy_ctx *c, header_cursor *h, header_fields *f)
{
    char key[32];
    if (read_string(h, key, sizeof(key)) != 0 || !accept(h, ':')) {
        return npy_fail(c, "header", "expected 'key': value");
    }
    if (strcmp(key, "descr") == 0) {
        f->seen_descr = 1;
        return read_string(h, f->descr, sizeof(f->descr)) == 0
                   ? 0
                   : npy_fail(c, "header.descr", "expected a simple dtype string such as '<f4' (structured dtypes "
                              "are not tensors)");
    }
    if (strcmp(key, "fortran_order") == 0) {
        f->seen_order = 1;
        return read_bool(h, &f->fortran_order) == 0 ? 0 : npy_fail(c, "header.fortran_order", "expected True or False");
    }
    if (strcmp(key, "shape") == 0) {
        f->seen_shape = 1;
        return read_shape(c, h, f);
    }
    return npy_fail(c, "header", "unknown key '%s' (numpy writes descr, fortran_order, shape)", key);
}

static int parse_header(const npy_ctx *c, const char *text, size_t len, header_fields *f)
{
    header_cursor h = {text, text + len};
    memset(f, 0, sizeof(*f));
    if (len == 0 || text[len - 1] != '\n') {
        return npy_fail(c, "header", "does not end with a newline (truncated or not written by numpy)");
    }
    h.end--;
    if (!accept(&h, '{')) {
        return npy_fail(c, "header", "expected a dict literal '{...}'");
    }
    while (!accept(&h, '}')) {
        if (read_entry(c, &h, f) != 0) {
            return -1;
        }
        if (!accept(&h, ',') && (skip_space(&h), h.p >= h.end || *h.p != '}')) {
            return npy_fail(c, "header", "expected ',' or '}'");
        }
    }
    skip_space(&h);
    if (h.p != h.end) {
        return npy_fail(c, "header", "text after the dict");
    }
    if (!f->seen_descr || !f->seen_order || !f->seen_shape) {
        return npy_fail(c, "header", "missing %s", !f->seen_descr ? "descr" : !f->seen_order ? "fortran_order" : "shape");
    }
    return 0;
}

/* ---- dtypes ------------------------------------------------------------- */

static int dtype_of(const npy_ctx *c, const char *descr, int bf16, pecert_npy_dtype *out, size_t *size)
{
    static const struct {
        const char *code;
        pecert_npy_dtype t;
        size_t size;
    } known[] = {{"f4", PECERT_NPY_F32, 4}, {"f8", PECERT_NPY_F64, 8}, {"f2", PECERT_NPY_F16, 2},
                 {"i8", PECERT_NPY_I64, 8}, {"i4", PECERT_NPY_I32, 4}, {"u2", PECERT_NPY_BF16, 2}};
    char order = descr[0];
    if (order == '>') {
        return npy_fail(c, "header.descr", "'%s' is big-endian: save with .astype('<%s')", descr, descr + 1);
    }
    if (order != '<' && order != '=' && order != '|') {
        return npy_fail(c, "header.descr", "'%s': expected a byte order '<' and a type", descr);
    }
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(descr + 1, known[i].code) == 0) {
            if (known[i].t == PECERT_NPY_BF16 && !bf16) {
                return npy_fail(c, "header.descr", "'<u2' is uint16: pass --bf16 if it holds bfloat16 bits "
                                "(torch's .view(torch.uint16))");
            }
            *out = known[i].t;
            *size = known[i].size;
            return 0;
        }
    }
    return npy_fail(c, "header.descr", "'%s' is not a dump pecert reads (float32, float64, float16, bfloat16 as "
                    "<u2, int64, int32)", descr);
}

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    int mant = h & 0x3ff;
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exp == 0) {
        return sign * ldexp((double)mant, -24);
    }
    if (exp == 31) {
        return mant == 0 ? sign * INFINITY : NAN;
    }
    return sign * ldexp((double)(mant | 0x400), exp - 25);
}

double pecert_npy_element(const unsigned char *p, pecert_npy_dtype t)
{
    switch (t) {
    case PECERT_NPY_F32: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case PECERT_NPY_F64: {
        double v;
        memcpy(&v, p, 8);
        return v;
    }
    case PECERT_NPY_F16:
        return half_to_double((uint16_t)(p[0] | (p[1] << 8)));
    case PECERT_NPY_BF16: {
        uint32_t bits = (uint32_t)(p[0] | (p[1] << 8)) << 16;
        float v;
        memcpy(&v, &bits, 4);
        return v;
    }
    case PECERT_NPY_I64: {
        int64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    case PECERT_NPY_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    }
    return NAN;
}

static int is_integer_type(pecert_npy_dtype t)
{
    return t == PECERT_NPY_I64 || t == PECERT_NPY_I32;
}

int pecert_npy_int_inexact(const unsigned char *p, pecert_npy_dtype t, long long *value)
{
    int64_t v = 0;
    if (t != PECERT_NPY_I64) {
        return 0;
    }
    memcpy(&v, p, 8);
    *value = (long long)v;
    return v > PECERT_NPY_EXACT_INT || v < -PECERT_NPY_EXACT_INT;
}

/* ---- the file ----------------------------------------------------------- */

/* The header's offset and length from the preamble. */
static int read_preamble(const npy_ctx *c, const unsigned char *b, size_t len, size_t *hdr, size_t *hdr_len)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (len < 10 || memcmp(b, magic, 6) != 0) {
        return npy_fail(c, "magic", len < 10 ? "file shorter than a .npy preamble (10 bytes)"
                                             : "not a .npy file (no \\x93NUMPY magic)");
    }
    int major = b[6];
    if (major == 1) {
        *hdr = 10;
        *hdr_len = (size_t)b[8] | ((size_t)b[9] << 8);
    } else if (major == 2 || major == 3) {
        if (len < 12) {
            return npy_fail(c, "magic", "file shorter than a version %d preamble (12 bytes)", major);
        }
        *hdr = 12;
        *hdr_len = (size_t)b[8] | ((size_t)b[9] << 8) | ((size_t)b[10] << 16) | ((size_t)b[11] << 24);
    } else {
        return npy_fail(c, "version", "%d.%d: pecert reads format 1.0, 2.0 and 3.0", major, b[7]);
    }
    if (*hdr_len > len - *hdr) {
        return npy_fail(c, "header", "%zu bytes announced, %zu in the file (truncated)", *hdr_len, len - *hdr);
    }
    return 0;
}

static int convert(const npy_ctx *c, pecert_npy *out, const unsigned char *data, size_t size, int allow_nonfinite)
{
    out->data = malloc((size_t)(out->n > 0 ? out->n : 1) * sizeof(double));
    if (out->data == NULL) {
        return npy_fail(c, "data", "out of memory for %lld elements", (long long)out->n);
    }
    for (int64_t i = 0; i < out->n; i++) {
        long long exact = 0;
        if (pecert_npy_int_inexact(data + (size_t)i * size, out->dtype, &exact)) {
            free(out->data);
            out->data = NULL;
            return npy_fail(c, "data", "element %lld is %lld: beyond +-2^53, the integers pecert holds exactly",
                            (long long)i, exact);
        }
        double v = pecert_npy_element(data + (size_t)i * size, out->dtype);
        out->data[i] = v;
        if (!allow_nonfinite && !isfinite(v)) {
            free(out->data);
            out->data = NULL;
            return npy_fail(c, "data", "element %lld is %s: a dump must hold finite values", (long long)i,
                            isnan(v) ? "NaN" : "infinite");
        }
    }
    return 0;
}

int pecert_npy_parse(pecert_npy *out, const unsigned char *bytes, size_t len, const char *name, int bf16,
                     int allow_nonfinite, char *err, size_t err_len)
{
    npy_ctx c = {name, err, err_len};
    size_t hdr = 0;
    size_t hdr_len = 0;
    header_fields f;
    size_t size = 0;
    memset(out, 0, sizeof(*out));
    if (read_preamble(&c, bytes, len, &hdr, &hdr_len) != 0 ||
        parse_header(&c, (const char *)bytes + hdr, hdr_len, &f) != 0 ||
        dtype_of(&c, f.descr, bf16, &out->dtype, &size) != 0) {
        return -1;
    }
    if (f.fortran_order) {
        return npy_fail(&c, "header.fortran_order", "True: save a C-ordered array (np.ascontiguousarray)");
    }
    out->ndim = f.ndim;
    out->n = 1;
    for (int d = 0; d < f.ndim; d++) {
        out->shape[d] = f.shape[d];
        if (f.shape[d] != 0 && out->n > PECERT_NPY_MAX_ELEMENTS / f.shape[d]) {
            return npy_fail(&c, "header.shape", "more than %lld elements", (long long)PECERT_NPY_MAX_ELEMENTS);
        }
        out->n *= f.shape[d];
    }
    size_t data_at = hdr + hdr_len;
    size_t want = (size_t)out->n * size;
    if (len - data_at != want) {
        return npy_fail(&c, "data", "%zu bytes, the header's shape and dtype need %zu (%s)", len - data_at, want,
                        len - data_at < want ? "truncated" : "trailing bytes");
    }
    return convert(&c, out, bytes + data_at, size, allow_nonfinite || is_integer_type(out->dtype));
}

unsigned char *pecert_dump_file_bytes(const char *path, size_t *len, char *err, size_t err_len)
{
    /* 2^28 elements of 8 bytes, and room for a header. */
    size_t limit = (size_t)PECERT_NPY_MAX_ELEMENTS * 8 + ((size_t)1 << 20);
    return (unsigned char *)pecert_input_read(path, limit, "the 2 GiB a dump may have", len, err, err_len);
}

int pecert_npy_load(pecert_npy *out, const char *path, int bf16, int allow_nonfinite, char *err, size_t err_len)
{
    size_t len = 0;
    memset(out, 0, sizeof(*out));
    unsigned char *bytes = pecert_dump_file_bytes(path, &len, err, err_len);
    if (bytes == NULL) {
        return -1;
    }
    int rc = pecert_npy_parse(out, bytes, len, path, bf16, allow_nonfinite, err, err_len);
    free(bytes);
    return rc;
}

void pecert_npy_free(pecert_npy *a)
{
    free(a->data);
    a->data = NULL;
}

const char *pecert_npy_dtype_name(pecert_npy_dtype t)
{
    static const char *const names[] = {"float32", "float64", "float16", "bfloat16", "int64", "int32"};
    return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

double pecert_npy_epsilon(pecert_npy_dtype t)
{
    switch (t) {
    case PECERT_NPY_F32:
        return ldexp(1.0, -24);
    case PECERT_NPY_F64:
        return ldexp(1.0, -53);
    case PECERT_NPY_F16:
        return ldexp(1.0, -11);
    case PECERT_NPY_BF16:
        return ldexp(1.0, -8);
    default:
        return 0.0;
    }
}

/* ---- writing ------------------------------------------------------------ */

int pecert_npy_write(const char *path, const double *values, int ndim, const int64_t *shape, int i64, char *err,
                     size_t err_len)
{
    char header[256];
    int used = snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': (", i64 ? "<i8" : "<f4");
    int64_t n = 1;
    for (int d = 0; d < ndim && used > 0 && (size_t)used < sizeof(header); d++) { /* numpy's "(2, 3)", "(2,)" */
        used += snprintf(header + used, sizeof(header) - (size_t)used, "%lld%s", (long long)shape[d],
                         d + 1 < ndim ? ", " : ndim == 1 ? "," : "");
        n *= shape[d];
    }
    if (used <= 0 || (size_t)used + 80 > sizeof(header)) {
        snprintf(err, err_len, "%s: too many dimensions", path);
        return -1;
    }
    used += snprintf(header + used, sizeof(header) - (size_t)used, "), }");
    size_t total = 10 + (size_t)used + 1;
    size_t pad = (64 - total % 64) % 64;
    FILE *fp = fopen(path, "wb");
    if (fp == NULL) {
        snprintf(err, err_len, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    size_t hlen = (size_t)used + pad + 1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    int ok = fwrite(pre, 1, 10, fp) == 10 && fwrite(header, 1, (size_t)used, fp) == (size_t)used;
    for (size_t i = 0; ok && i < pad; i++) {
        ok = fputc(' ', fp) != EOF;
    }
    ok = ok && fputc('\n', fp) != EOF;
    for (int64_t i = 0; ok && i < n; i++) {
        if (i64) {
            int64_t v = (int64_t)values[i];
            ok = fwrite(&v, 8, 1, fp) == 1;
        } else {
            float v = (float)values[i];
            ok = fwrite(&v, 4, 1, fp) == 1;
        }
    }
    ok = fclose(fp) == 0 && ok;
    if (!ok) {
        snprintf(err, err_len, "%s: write error", path);
        return -1;
    }
    return 0;
}
