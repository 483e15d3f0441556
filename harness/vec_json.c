/*
 * vec_json.c - the loader's error line, fixed-schema key checking, typed
 * JSON getters and the arena that owns a loaded file's small allocations.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vec_internal.h"

/* ---- the error line ---------------------------------------------------- */

/* Drop a UTF-8 sequence that truncation cut in half, so a short buffer
 * still holds valid text. */
static void trim_partial_utf8(char *s, size_t len)
{
    size_t i = len;
    size_t need = 1;

    if (len == 0) {
        return;
    }
    i = len - 1;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) {
        i--;
    }
    if (((unsigned char)s[i] & 0xE0) == 0xC0) {
        need = 2;
    } else if (((unsigned char)s[i] & 0xF0) == 0xE0) {
        need = 3;
    } else if (((unsigned char)s[i] & 0xF8) == 0xF0) {
        need = 4;
    }
    if (len - i < need) {
        s[i] = '\0';
    }
}

/* Keys and paths come from the file: a newline in them must not turn the
 * message into two lines. */
static void one_line(char *s)
{
    for (; *s != '\0'; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            *s = '?';
        }
    }
}

void pecert__vec_loc(char *buf, size_t buf_len, const char *loc,
                     const char *key)
{
    const char *sep = ".";

    if (loc == NULL || loc[0] == '\0') {
        loc = "";
        sep = "";
    }
    if (key == NULL || key[0] == '\0') {
        key = "";
        sep = "";
    } else if (key[0] == '[') {
        sep = "";
    }
    (void)snprintf(buf, buf_len, "%s%s%s", loc, sep, key);
}

int pecert__vec_fail(const vec_ctx *ctx, const char *loc, const char *key,
                     const char *fmt, ...)
{
    char field[VEC_LOC_LEN * 2];
    va_list ap;
    int n;

    if (ctx == NULL || ctx->err == NULL || ctx->err_len == 0) {
        return -1;
    }
    pecert__vec_loc(field, sizeof field, loc, key);
    n = snprintf(ctx->err, ctx->err_len, "%s: %s: ",
                 ctx->path != NULL ? ctx->path : "(null)",
                 field[0] != '\0' ? field : "manifest");
    if (n >= 0 && (size_t)n < ctx->err_len) {
        va_start(ap, fmt);
        (void)vsnprintf(ctx->err + n, ctx->err_len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    trim_partial_utf8(ctx->err, strlen(ctx->err));
    one_line(ctx->err);
    return -1;
}

/* ---- key tables -------------------------------------------------------- */

const char *pecert__vec_type_name(const cJSON *item)
{
    if (item == NULL) {
        return "nothing";
    }
    switch (item->type & 0xFF) {
    case cJSON_False:
    case cJSON_True:
        return "bool";
    case cJSON_NULL:
        return "null";
    case cJSON_Number:
        return "number";
    case cJSON_String:
        return "string";
    case cJSON_Array:
        return "array";
    case cJSON_Object:
        return "object";
    default:
        return "invalid value";
    }
}

static size_t key_index(const vec_key *keys, size_t n_keys, const char *name)
{
    for (size_t i = 0; i < n_keys; i++) {
        if (strcmp(keys[i].name, name) == 0) {
            return i;
        }
    }
    return n_keys;
}

int pecert__vec_fields(const vec_ctx *ctx, const char *loc, const cJSON *obj,
                       const vec_key *keys, size_t n_keys, const cJSON **out)
{
    const cJSON *child;

    if (!cJSON_IsObject(obj)) {
        return pecert__vec_fail(ctx, loc, NULL, "expected an object, got %s",
                                pecert__vec_type_name(obj));
    }
    memset(out, 0, n_keys * sizeof *out);
    /* Walk the object rather than look keys up: that is what finds
     * unknown keys (typos) and duplicates (cJSON keeps both). */
    for (child = obj->child; child != NULL; child = child->next) {
        const char *name = child->string != NULL ? child->string : "";
        size_t i = key_index(keys, n_keys, name);

        if (i == n_keys) {
            return pecert__vec_fail(ctx, loc, name, "unknown key");
        }
        if (out[i] != NULL) {
            return pecert__vec_fail(ctx, loc, name, "duplicate key");
        }
        out[i] = child;
    }
    for (size_t i = 0; i < n_keys; i++) {
        if (keys[i].required && out[i] == NULL) {
            return pecert__vec_fail(ctx, loc, keys[i].name,
                                    "missing required key");
        }
    }
    return 0;
}

/* ---- typed getters ----------------------------------------------------- */

int pecert__vec_int(const vec_ctx *ctx, const char *loc, const char *key,
                    const cJSON *item, int64_t lo, int64_t hi, int64_t *out)
{
    double d;

    if (!cJSON_IsNumber(item)) {
        return pecert__vec_fail(ctx, loc, key, "expected an integer, got %s",
                                pecert__vec_type_name(item));
    }
    d = item->valuedouble;
    /* Range first on the double: casting an out-of-range double to an
     * integer type is undefined behaviour. */
    if (!isfinite(d) || d != floor(d)) {
        return pecert__vec_fail(ctx, loc, key,
                                "expected an integer, got %.17g", d);
    }
    if (d < (double)lo || d > (double)hi) {
        return pecert__vec_fail(ctx, loc, key,
                                "%.17g out of range [%lld, %lld]", d,
                                (long long)lo, (long long)hi);
    }
    *out = (int64_t)d;
    return 0;
}

int pecert__vec_number(const vec_ctx *ctx, const char *loc, const char *key,
                       const cJSON *item, double *out)
{
    if (!cJSON_IsNumber(item)) {
        return pecert__vec_fail(ctx, loc, key, "expected a number, got %s",
                                pecert__vec_type_name(item));
    }
    if (!isfinite(item->valuedouble)) {
        return pecert__vec_fail(ctx, loc, key, "number is not finite");
    }
    *out = item->valuedouble;
    return 0;
}

int pecert__vec_text_ok(const char *s)
{
    for (; *s != '\0'; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            return 0;
        }
    }
    return 1;
}

int pecert__vec_string(const vec_ctx *ctx, const char *loc, const char *key,
                       const cJSON *item, int nonempty, const char **out)
{
    if (!cJSON_IsString(item) || item->valuestring == NULL) {
        return pecert__vec_fail(ctx, loc, key, "expected a string, got %s",
                                pecert__vec_type_name(item));
    }
    if (nonempty && item->valuestring[0] == '\0') {
        return pecert__vec_fail(ctx, loc, key, "empty string");
    }
    /* Every string ends up in a one-line report or diagnostic. */
    if (!pecert__vec_text_ok(item->valuestring)) {
        return pecert__vec_fail(ctx, loc, key,
                                "control character in string");
    }
    *out = item->valuestring;
    return 0;
}

int pecert__vec_bool(const vec_ctx *ctx, const char *loc, const char *key,
                     const cJSON *item, int *out)
{
    if (!cJSON_IsBool(item)) {
        return pecert__vec_fail(ctx, loc, key, "expected a bool, got %s",
                                pecert__vec_type_name(item));
    }
    *out = cJSON_IsTrue(item) ? 1 : 0;
    return 0;
}

/* ---- arena ------------------------------------------------------------- */

#define VEC_CHUNK_BYTES ((size_t)64 << 10)

struct vec_chunk {
    vec_chunk *next;         /* older chunk                             */
    size_t used;             /* bytes handed out from data              */
    size_t cap;              /* bytes in data                           */
    max_align_t data[];      /* aligned for any type                    */
};

void *pecert__vec_alloc(vec_arena *arena, size_t n, size_t size)
{
    const size_t align = sizeof(max_align_t);
    vec_chunk *c = arena->head;
    size_t bytes;
    void *p;

    if (size != 0 && n > (SIZE_MAX / 2) / size) {
        return NULL;
    }
    bytes = (n * size + align - 1) / align * align;
    if (c == NULL || c->cap - c->used < bytes) {
        size_t cap = bytes > VEC_CHUNK_BYTES ? bytes : VEC_CHUNK_BYTES;

        c = calloc(1, sizeof *c + cap);
        if (c == NULL) {
            return NULL;
        }
        c->cap = cap;
        c->next = arena->head;
        arena->head = c;
    }
    p = (unsigned char *)c->data + c->used;
    c->used += bytes;
    return p;
}

char *pecert__vec_strdup(vec_arena *arena, const char *s)
{
    size_t len = strlen(s) + 1;
    char *p = pecert__vec_alloc(arena, len, 1);

    if (p != NULL) {
        memcpy(p, s, len);
    }
    return p;
}

void pecert__vec_arena_free(vec_arena *arena)
{
    vec_chunk *c = arena->head;

    while (c != NULL) {
        vec_chunk *next = c->next;

        free(c);
        c = next;
    }
    arena->head = NULL;
}
