/*
 * dump_input.c - dump pairs, KV caches and decode traces read into one
 * [tokens][heads][dim] array pair (dump_input.h).
 */
#include "dump_input.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safetensors.h"

/* [tokens, heads, dim] of a, by the layout and the config's heads. */
static int shape_of(const pecert_npy *a, const char *path, const pecert_certify_model *m, int htd,
                    pecert_dump_shape *s, char *err, size_t len)
{
    int64_t d[PECERT_NPY_MAX_DIMS];
    int nd = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (!(i == 0 && a->ndim == 4 && a->shape[0] == 1)) { /* a batch of one */
            d[nd++] = a->shape[i];
        }
    }
    int32_t hd = m->rope.head_dim;
    if (nd == 2 && d[1] % hd == 0) {
        *s = (pecert_dump_shape){d[0], (int32_t)(d[1] / hd), hd};
    } else if (nd == 3) {
        *s = htd ? (pecert_dump_shape){d[1], (int32_t)d[0], (int32_t)d[2]}
                 : (pecert_dump_shape){d[0], (int32_t)d[1], (int32_t)d[2]};
    } else {
        snprintf(err, len, "%s: shape has %d dimensions: expected [tokens, heads, head_dim], [heads, tokens, head_dim] "
                 "(--layout htd) or [tokens, heads*head_dim]", path, a->ndim);
        return -1;
    }
    if (s->dim != hd || (s->heads != m->num_heads && s->heads != m->num_kv_heads) || s->tokens < 1) {
        snprintf(err, len, "%s: %lld tokens x %d heads x %d channels: the config has head_dim %d and %d query or %d "
                 "key/value heads", path, (long long)s->tokens, (int)s->heads, (int)s->dim, (int)hd,
                 (int)m->num_heads, (int)m->num_kv_heads);
        return -1;
    }
    return 0;
}

/* a as [tokens][heads][dim] into out (transposed from htd). */
static void thd_values(double *out, const pecert_npy *a, const pecert_dump_shape *s, int htd)
{
    for (int64_t t = 0; t < s->tokens; t++) {
        for (int32_t h = 0; h < s->heads; h++) {
            size_t from = htd ? ((size_t)h * (size_t)s->tokens + (size_t)t) * (size_t)s->dim
                              : ((size_t)t * (size_t)s->heads + (size_t)h) * (size_t)s->dim;
            memcpy(out + ((size_t)t * (size_t)s->heads + (size_t)h) * (size_t)s->dim, a->data + from,
                   (size_t)s->dim * sizeof(double));
        }
    }
}

/* The two tensors of one pair, shapes checked against m and each other. */
typedef struct loaded_pair {
    pecert_npy before;
    pecert_npy after;
    pecert_dump_shape shape;
} loaded_pair;

static int load_tensors(loaded_pair *p, const char *before, const char *after, const pecert_dump_source *src,
                        const pecert_certify_model *m, char *err, size_t len)
{
    pecert_dump_shape sa;
    memset(p, 0, sizeof(*p));
    if (pecert_tensor_load(&p->before, before, src->tensor, src->bf16, 0, err, len) != 0 ||
        pecert_tensor_load(&p->after, after, src->tensor, src->bf16, 0, err, len) != 0 ||
        shape_of(&p->before, before, m, src->htd, &p->shape, err, len) != 0 ||
        shape_of(&p->after, after, m, src->htd, &sa, err, len) != 0) {
        return -1;
    }
    if (sa.tokens != p->shape.tokens || sa.heads != p->shape.heads) {
        snprintf(err, len, "%s: %lld tokens x %d heads, but %s has %lld x %d", after, (long long)sa.tokens,
                 (int)sa.heads, before, (long long)p->shape.tokens, (int)p->shape.heads);
        return -1;
    }
    return 0;
}

static void free_tensors(loaded_pair *p)
{
    pecert_npy_free(&p->before);
    pecert_npy_free(&p->after);
}

static double pair_eps(const loaded_pair *p)
{
    return fmax(pecert_npy_epsilon(p->before.dtype), pecert_npy_epsilon(p->after.dtype));
}

/* Grows d by p's tokens (d->shape.tokens counts those already there). */
static int append_pair(pecert_dump_input *d, const loaded_pair *p, int htd, char *err, size_t len)
{
    size_t row = (size_t)p->shape.heads * (size_t)p->shape.dim;
    size_t have = (size_t)d->shape.tokens * row;
    size_t add = (size_t)p->shape.tokens * row;
    double *x = realloc(d->x, (have + add) * sizeof(double));
    if (x != NULL) {
        d->x = x;
    }
    double *y = x != NULL ? realloc(d->y, (have + add) * sizeof(double)) : NULL;
    if (y != NULL) {
        d->y = y;
    }
    if (x == NULL || y == NULL) {
        snprintf(err, len, "diagnose: out of memory");
        return -1;
    }
    thd_values(d->x + have, &p->before, &p->shape, htd);
    thd_values(d->y + have, &p->after, &p->shape, htd);
    if (d->shape.tokens == 0) {
        d->shape = p->shape;
        d->dtype = p->before.dtype;
    } else {
        d->shape.tokens += p->shape.tokens;
    }
    d->eps = fmax(d->eps, pair_eps(p));
    return 0;
}

int pecert_dump_load_pair(pecert_dump_input *d, const char *before, const char *after, const pecert_dump_source *src,
                          const pecert_certify_model *m, char *err, size_t len)
{
    loaded_pair p;
    memset(d, 0, sizeof(*d));
    int rc = load_tensors(&p, before, after, src, m, err, len) == 0 ? append_pair(d, &p, src->htd, err, len) : -1;
    free_tensors(&p);
    return rc;
}

int64_t *pecert_dump_read_positions(const char *path, int64_t n, int64_t min, char *err, size_t len)
{
    pecert_npy p;
    if (pecert_tensor_load(&p, path, NULL, 0, 0, err, len) != 0) {
        return NULL;
    }
    int64_t *out = NULL;
    int vector = p.ndim == 1 || (p.ndim == 2 && p.shape[0] == 1);
    if (p.dtype != PECERT_NPY_I64 && p.dtype != PECERT_NPY_I32) {
        snprintf(err, len, "%s: %s: positions must be int64 or int32", path, pecert_npy_dtype_name(p.dtype));
    } else if (!vector || p.n != n) {
        snprintf(err, len, "%s: %lld positions in %d dimensions: expected one per token (%lld)", path, (long long)p.n,
                 p.ndim, (long long)n);
    } else if ((out = malloc(((size_t)n + 1) * sizeof(int64_t))) == NULL) {
        snprintf(err, len, "%s: out of memory", path);
    } else {
        for (int64_t i = 0; i < n; i++) {
            out[i] = (int64_t)p.data[i];
            if (out[i] < min || out[i] > ((int64_t)1 << 40)) {
                snprintf(err, len, "%s: position %lld of %s %lld: expected %s..2^40", path, (long long)out[i],
                         min < 0 ? "slot" : "token", (long long)i, min < 0 ? "-1 (empty)" : "0");
                free(out);
                out = NULL;
                break;
            }
        }
    }
    pecert_npy_free(&p);
    return out;
}

/* ---- decode traces --------------------------------------------------------- */

/* The NNNN of a "step_NNNN" directory name, or -1. */
static long step_number_of(const char *name)
{
    if (strncmp(name, "step_", 5) != 0 || name[5] == '\0' || strlen(name + 5) > 9) {
        return -1;
    }
    for (const char *c = name + 5; *c != '\0'; c++) {
        if (*c < '0' || *c > '9') {
            return -1;
        }
    }
    return strtol(name + 5, NULL, 10);
}

typedef struct trace_step {
    int32_t number;
    char name[16];              /* "step_" and at most 9 digits */
} trace_step;

static int compare_steps(const void *a, const void *b)
{
    int32_t x = ((const trace_step *)a)->number;
    int32_t y = ((const trace_step *)b)->number;
    return (x > y) - (x < y);
}

/* The step directories under dir, sorted by number; -1 with the reason
 * in err. */
static int32_t list_steps(const char *dir, trace_step *steps, char *err, size_t len)
{
    DIR *dp = opendir(dir);
    if (dp == NULL) {
        snprintf(err, len, "%s: cannot open the trace directory: %s", dir, strerror(errno));
        return -1;
    }
    int32_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        long k = step_number_of(e->d_name);
        if (k < 0) {
            continue;
        }
        if (n == PECERT_TRACE_MAX_STEPS) {
            snprintf(err, len, "%s: more than %d step_NNNN directories", dir, PECERT_TRACE_MAX_STEPS);
            closedir(dp);
            return -1;
        }
        steps[n].number = (int32_t)k;
        snprintf(steps[n].name, sizeof(steps[n].name), "%s", e->d_name);
        n++;
    }
    closedir(dp);
    qsort(steps, (size_t)n, sizeof(*steps), compare_steps);
    for (int32_t i = 1; i < n; i++) {
        if (steps[i].number == steps[i - 1].number) {
            snprintf(err, len, "%s: %s and %s are both step %d", dir, steps[i - 1].name, steps[i].name,
                     (int)steps[i].number);
            return -1;
        }
    }
    if (n == 0) {
        snprintf(err, len, "%s: no step_NNNN directory: a trace is step_0000/{q_pre,q_post}.npy, step_0001/...", dir);
    }
    return n > 0 ? n : -1;
}

static int append_positions(pecert_dump_input *d, int64_t first, int64_t n, const int64_t *given)
{
    int64_t *p = realloc(d->positions, ((size_t)(first + n) + 1) * sizeof(int64_t));
    if (p == NULL) {
        return -1;
    }
    d->positions = p;
    for (int64_t i = 0; i < n; i++) {
        p[first + i] = given != NULL ? given[i] : first + i;
    }
    return 0;
}

/* Step k of the trace appended to d; *given says whether it had its
 * own positions.npy. */
static int load_step(pecert_dump_input *d, const char *dir, const trace_step *step, const pecert_dump_source *src,
                     const pecert_certify_model *m, int *given, char *err, size_t len)
{
    char before[PATH_MAX + 32];
    char after[PATH_MAX + 32];
    char pos[PATH_MAX + 32];
    if (strlen(dir) >= PATH_MAX) {
        snprintf(err, len, "diagnose: --trace: the directory's path is longer than %d bytes", PATH_MAX);
        return -1;
    }
    snprintf(before, sizeof(before), "%s/%s/q_pre.npy", dir, step->name);
    snprintf(after, sizeof(after), "%s/%s/q_post.npy", dir, step->name);
    snprintf(pos, sizeof(pos), "%s/%s/positions.npy", dir, step->name);
    loaded_pair p;
    int64_t first = d->shape.tokens;
    int rc = load_tensors(&p, before, after, src, m, err, len);
    if (rc == 0 && d->shape.tokens > 0 && p.shape.heads != d->shape.heads) {
        snprintf(err, len, "%s: %d heads, but the steps before have %d", before, (int)p.shape.heads,
                 (int)d->shape.heads);
        rc = -1;
    }
    int64_t *step_positions = NULL;
    *given = rc == 0 && access(pos, F_OK) == 0;
    if (rc == 0 && *given && (step_positions = pecert_dump_read_positions(pos, p.shape.tokens, 0, err, len)) == NULL) {
        rc = -1;
    }
    if (rc == 0 && (append_pair(d, &p, src->htd, err, len) != 0 ||
                    append_positions(d, first, p.shape.tokens, step_positions) != 0)) {
        snprintf(err, len, "diagnose: out of memory");
        rc = -1;
    }
    free(step_positions);
    free_tensors(&p);
    return rc;
}

int pecert_dump_load_trace(pecert_dump_input *d, const char *dir, const pecert_dump_source *src,
                           const pecert_certify_model *m, char *err, size_t len)
{
    memset(d, 0, sizeof(*d));
    trace_step *steps = malloc(PECERT_TRACE_MAX_STEPS * sizeof(*steps));
    int32_t n = steps != NULL ? list_steps(dir, steps, err, len) : -1;
    if (steps == NULL) {
        snprintf(err, len, "diagnose: out of memory");
    }
    d->step_first = n > 0 ? malloc(((size_t)n + 1) * sizeof(int64_t)) : NULL;
    d->step_number = n > 0 ? malloc((size_t)n * sizeof(int32_t)) : NULL;
    int rc = n > 0 && d->step_first != NULL && d->step_number != NULL ? 0 : -1;
    int first_given = 0;
    for (int32_t i = 0; rc == 0 && i < n; i++) {
        int given = 0;
        d->step_first[i] = d->shape.tokens;
        d->step_number[i] = steps[i].number;
        rc = load_step(d, dir, &steps[i], src, m, &given, err, len);
        first_given = i == 0 ? given : first_given;
        if (rc == 0 && given != first_given) {
            snprintf(err, len, "%s/%s: %s positions.npy, but %s %s: give every step's positions or none", dir,
                     steps[i].name, given ? "has" : "has no", steps[0].name, first_given ? "has" : "has none");
            rc = -1;
        }
    }
    free(steps);
    if (rc != 0) {
        pecert_dump_input_free(d);
        return -1;
    }
    d->n_steps = n;
    d->step_first[n] = d->shape.tokens;
    d->steps_give_positions = first_given;
    return 0;
}

void pecert_dump_input_free(pecert_dump_input *d)
{
    free(d->x);
    free(d->y);
    free(d->positions);
    free(d->step_first);
    free(d->step_number);
    memset(d, 0, sizeof(*d));
}
