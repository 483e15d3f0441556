/*
 * safetensors.c - one tensor of a .safetensors file (safetensors.h).
 */
#include "safetensors.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "json_text.h"

/* The header may be large (a checkpoint's), but not beyond this. */
#define MAX_HEADER ((uint64_t)100 << 20)

static int st_fail(char *err, size_t len, const char *path, const char *name, const char *why)
{
    snprintf(err, len, "%s%s%s: %s", path, name != NULL ? ":" : "", name != NULL ? name : "", why);
    return -1;
}

static int dtype_of(const char *code, pecert_npy_dtype *t, size_t *size)
{
    static const struct {
        const char *code;
        pecert_npy_dtype t;
        size_t size;
    } known[] = {{"F32", PECERT_NPY_F32, 4}, {"F64", PECERT_NPY_F64, 8}, {"F16", PECERT_NPY_F16, 2},
                 {"BF16", PECERT_NPY_BF16, 2}, {"I64", PECERT_NPY_I64, 8}, {"I32", PECERT_NPY_I32, 4}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(code, known[i].code) == 0) {
            *t = known[i].t;
            *size = known[i].size;
            return 0;
        }
    }
    return -1;
}

/* The header as JSON, read as strictly as every JSON pecert reads
 * (json_text.h). The safetensors library reads it with serde into a map,
 * where a later entry of the same name replaces an earlier one and
 * "\u0000" stays inside a name; cJSON would read the first entry and cut
 * the name at the NUL, so a dump could be read as another tensor than the
 * library's: both are refused. NULL with "FILE: header: why" in err. */
static cJSON *parse_header(const char *text, size_t len, const char *path, char *err, size_t err_len)
{
    char *copy = malloc(len + 1);
    char name[4200];
    if (copy == NULL) {
        st_fail(err, err_len, path, NULL, "out of memory for the header");
        return NULL;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    snprintf(name, sizeof(name), "%s: header", path);
    cJSON *root = pecert_json_parse_strict(copy, len, name,
                                           " (a tensor named twice: the safetensors library would read another entry "
                                           "than pecert; refused)",
                                           err, err_len);
    free(copy);
    return root;
}

/* The entry of name (or of the only tensor), with its name in *found. */
static const cJSON *find_entry(const cJSON *root, const char *name, const char **found, char *why, size_t len)
{
    const cJSON *item = NULL;
    const cJSON *only = NULL;
    int n = 0;
    char names[160] = "";
    cJSON_ArrayForEach(item, root) {
        if (strcmp(item->string, "__metadata__") == 0) {
            continue;
        }
        if (name != NULL && strcmp(item->string, name) == 0) {
            *found = item->string;
            return item;
        }
        size_t used = strlen(names);
        if (used + strlen(item->string) + 3 < sizeof(names)) {
            snprintf(names + used, sizeof(names) - used, "%s%s", n > 0 ? ", " : "", item->string);
        }
        only = item;
        n++;
    }
    if (name == NULL && n == 1) {
        *found = only->string;
        return only;
    }
    snprintf(why, len, "%s; the file holds %d tensor%s (%s)%s", name != NULL ? "no such tensor" : "name the tensor",
             n, n == 1 ? "" : "s", names, name == NULL ? ": FILE.safetensors:NAME or --tensor NAME" : "");
    return NULL;
}

/* shape, dtype and offsets of entry e, checked against the data's size. */
static int read_entry(pecert_npy *out, const cJSON *e, size_t data_len, size_t *begin, size_t *size, char *why,
                      size_t len)
{
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsString(dt) || dtype_of(dt->valuestring, &out->dtype, size) != 0) {
        snprintf(why, len, "dtype %s: pecert reads F32, F64, F16, BF16, I64, I32",
                 cJSON_IsString(dt) ? dt->valuestring : "(missing)");
        return -1;
    }
    if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) > PECERT_NPY_MAX_DIMS || !cJSON_IsArray(off) ||
        cJSON_GetArraySize(off) != 2) {
        snprintf(why, len, "shape (at most %d dims) and data_offsets [begin, end] required", PECERT_NPY_MAX_DIMS);
        return -1;
    }
    out->ndim = cJSON_GetArraySize(shape);
    out->n = 1;
    for (int d = 0; d < out->ndim; d++) {
        double v = cJSON_GetArrayItem(shape, d)->valuedouble;
        /* Each dimension bounded on its own too: after a 0 the product stays
         * 0 and would let any size through to the cast below. */
        if (!cJSON_IsNumber(cJSON_GetArrayItem(shape, d)) || v < 0 || v != floor(v) ||
            v > (double)PECERT_NPY_MAX_ELEMENTS || (double)out->n * v > (double)PECERT_NPY_MAX_ELEMENTS) {
            snprintf(why, len, "shape: dimension %d is not an integer in 0..%lld elements", d,
                     (long long)PECERT_NPY_MAX_ELEMENTS);
            return -1;
        }
        out->shape[d] = (int64_t)v;
        out->n *= out->shape[d];
    }
    double b = cJSON_GetArrayItem(off, 0)->valuedouble;
    double e_end = cJSON_GetArrayItem(off, 1)->valuedouble;
    if (!(b >= 0 && e_end >= b && e_end <= (double)data_len && b == floor(b) && e_end == floor(e_end)) ||
        (size_t)(e_end - b) != (size_t)out->n * *size) {
        snprintf(why, len, "data_offsets [%.0f, %.0f]: %lld elements of %zu bytes need %zu bytes within the %zu of data",
                 b, e_end, (long long)out->n, *size, (size_t)out->n * *size, data_len);
        return -1;
    }
    *begin = (size_t)b;
    return 0;
}

int pecert_safetensors_parse(pecert_npy *out, const unsigned char *bytes, size_t len, const char *path,
                             const char *name, int allow_nonfinite, char *err, size_t err_len)
{
    memset(out, 0, sizeof(*out));
    if (len < 8) {
        return st_fail(err, err_len, path, NULL, "shorter than a safetensors header length (8 bytes)");
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) {
        hlen = hlen << 8 | bytes[i];
    }
    if (hlen > MAX_HEADER || hlen > len - 8) {
        return st_fail(err, err_len, path, NULL, "header length beyond the file (truncated, or not safetensors)");
    }
    char why[320] = "";
    cJSON *root = parse_header((const char *)bytes + 8, (size_t)hlen, path, err, err_len);
    if (root == NULL) {
        return -1;
    }
    const char *found = NULL;
    const cJSON *e = cJSON_IsObject(root) ? find_entry(root, name, &found, why, sizeof(why)) : NULL;
    size_t begin = 0;
    size_t size = 0;
    size_t data_len = len - 8 - (size_t)hlen;
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        st_fail(err, err_len, path, NULL, "header: not a JSON object");
    } else if (e == NULL || read_entry(out, e, data_len, &begin, &size, why, sizeof(why)) != 0) {
        st_fail(err, err_len, path, found != NULL ? found : name, why);
    } else if ((out->data = malloc((size_t)(out->n > 0 ? out->n : 1) * sizeof(double))) == NULL) {
        st_fail(err, err_len, path, found, "out of memory");
    } else {
        const unsigned char *data = bytes + 8 + hlen + begin;
        rc = 0;
        for (int64_t i = 0; i < out->n && rc == 0; i++) {
            long long exact = 0;
            if (pecert_npy_int_inexact(data + (size_t)i * size, out->dtype, &exact)) {
                snprintf(why, sizeof(why), "element %lld is %lld: beyond +-2^53, the integers pecert holds exactly",
                         (long long)i, exact);
                rc = st_fail(err, err_len, path, found, why);
                break;
            }
            out->data[i] = pecert_npy_element(data + (size_t)i * size, out->dtype);
            if (!allow_nonfinite && out->dtype != PECERT_NPY_I64 && out->dtype != PECERT_NPY_I32 &&
                !isfinite(out->data[i])) {
                snprintf(why, sizeof(why), "element %lld is %s: a dump must hold finite values", (long long)i,
                         isnan(out->data[i]) ? "NaN" : "infinite");
                rc = st_fail(err, err_len, path, found, why);
            }
        }
        if (rc != 0) {
            pecert_npy_free(out);
        }
    }
    cJSON_Delete(root);
    return rc;
}

int pecert_safetensors_load(pecert_npy *out, const char *path, const char *name, int allow_nonfinite, char *err,
                            size_t err_len)
{
    size_t len = 0;
    memset(out, 0, sizeof(*out));
    unsigned char *bytes = pecert_dump_file_bytes(path, &len, err, err_len);
    if (bytes == NULL) {
        return -1;
    }
    int rc = pecert_safetensors_parse(out, bytes, len, path, name, allow_nonfinite, err, err_len);
    free(bytes);
    return rc;
}

int pecert_tensor_load(pecert_npy *out, const char *path, const char *default_name, int bf16, int allow_nonfinite,
                       char *err, size_t err_len)
{
    static const char ext[] = ".safetensors";
    const char *at = strstr(path, ext);
    if (at == NULL || (at[sizeof(ext) - 1] != '\0' && at[sizeof(ext) - 1] != ':')) {
        return pecert_npy_load(out, path, bf16, allow_nonfinite, err, err_len);
    }
    char file[4096];
    size_t n = (size_t)(at - path) + sizeof(ext) - 1;
    if (n >= sizeof(file)) {
        snprintf(err, err_len, "%.*s...: path too long", 64, path);
        return -1;
    }
    memcpy(file, path, n);
    file[n] = '\0';
    const char *name = at[sizeof(ext) - 1] == ':' ? at + sizeof(ext) : default_name;
    return pecert_safetensors_load(out, file, name, allow_nonfinite, err, err_len);
}
