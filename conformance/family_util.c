/* family_util.c - vector walking, guarded output buffers and comparisons
 * for the checks of the ABI 1.2 families (family.h). */
#include "family.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate.h"

#define GUARD_BYTE 0xA5


size_t pecert_for_each_test(const pecert_check_env *env, pecert_check_result *r,
                            const char *op, pecert_test_fn fn)
{
    size_t n = 0;
    for (size_t i = 0; i < env->n_files; i++) {
        const pecert_vfile *f = &env->files[i];
        for (size_t j = 0; j < f->n_tests; j++) {
            const pecert_vtest *t = &f->tests[j];
            if (strcmp(t->op, op) != 0) {
                continue;
            }
            char where[PECERT_RESULT_LINE_MAX];
            snprintf(where, sizeof(where), "%s:tcId=%lld%s", f->path, (long long)t->tc_id,
                     env->strided_outputs ? " (strided output)" : "");
            pecert_case_slot_set(env->case_slot, "%s %s", where, op);
            pecert_case_slot_vector(env->case_slot, f->path, t->tc_id);
            pecert_check_result_enter_vector(r, f->path, t->tc_id);
            fn(env, r, t, where);
            pecert_check_result_leave_vector(r);
            n++;
        }
    }
    return n;
}

size_t pecert_for_each_golden(const pecert_check_env *env, pecert_check_result *r,
                              const char *op, pecert_test_fn fn)
{
    size_t n = pecert_for_each_test(env, r, op, fn);
    pecert_check_env strided = *env;
    strided.strided_outputs = 1;
    (void)pecert_for_each_test(&strided, r, op, fn);
    return n;
}

/* Runs fn on every test of op (both passes when golden) and concludes,
 * the cases named "<op> <noun>". */
static void run_and_conclude(const pecert_check_env *env, pecert_check_result *r, const char *op,
                             pecert_test_fn fn, int golden, const char *noun)
{
    if (golden) {
        (void)pecert_for_each_golden(env, r, op, fn);
    } else {
        (void)pecert_for_each_test(env, r, op, fn);
    }
    char what[PECERT_RESULT_LINE_MAX];
    snprintf(what, sizeof(what), "%s %s", op, noun);
    pecert_check_conclude(r, what);
}

void pecert_run_golden(const pecert_check_env *env, pecert_check_result *r, const char *op, pecert_test_fn fn)
{
    run_and_conclude(env, r, op, fn, 1, "cases (packed and strided)");
}

void pecert_run_vectors(const pecert_check_env *env, pecert_check_result *r, const char *op, pecert_test_fn fn)
{
    run_and_conclude(env, r, op, fn, 0, "vectors");
}

void pecert_run_configurations(const pecert_check_env *env, pecert_check_result *r, const char *op,
                               pecert_test_fn fn)
{
    run_and_conclude(env, r, op, fn, 0, "configurations");
}

static size_t elem_size(pecert_dtype dtype)
{
    return (dtype == PECERT_DTYPE_F64 || dtype == PECERT_DTYPE_I64) ? 8 : 4;
}

/* Storage extents: the shape, or with padding (3 more on the last axis,
 * 1 more on the others) so that every stride differs from the packed one. */
static void storage_extents(const pecert_out_buf *b, int64_t *ext)
{
    for (uint32_t k = 0; k < b->view.ndim; k++) {
        ext[k] = b->view.shape[k] + (b->padded ? (k + 1 == b->view.ndim ? 3 : 1) : 0);
    }
}

/* Storage offset (elements) of packed index i of the view: i itself when
 * the view is packed. */
static int64_t storage_offset(const pecert_out_buf *b, int64_t i)
{
    if (!b->padded) {
        return i;
    }
    int64_t off = 0;
    for (uint32_t k = b->view.ndim; k-- > 0;) {
        int64_t n = b->view.shape[k] > 0 ? b->view.shape[k] : 1;
        off += (i % n) * b->view.strides[k];
        i /= n;
    }
    return off;
}

/* The bytes an unwritten element holds: NaN, or the integer sentinel. */
static void fill_value(pecert_dtype dtype, unsigned char out[8])
{
    if (dtype == PECERT_DTYPE_F32) {
        float v = NAN;
        memcpy(out, &v, sizeof(v));
    } else if (dtype == PECERT_DTYPE_F64) {
        double v = NAN;
        memcpy(out, &v, sizeof(v));
    } else if (dtype == PECERT_DTYPE_I64) {
        int64_t v = PECERT_INT_SENTINEL;
        memcpy(out, &v, sizeof(v));
    } else {
        int32_t v = (int32_t)PECERT_INT_SENTINEL;
        memcpy(out, &v, sizeof(v));
    }
}

int pecert_out_init(pecert_out_buf *b, const pecert_check_env *env, pecert_dtype dtype, uint32_t ndim,
                    const int64_t *shape)
{
    int64_t ext[PECERT_MAX_DIMS];
    memset(b, 0, sizeof(*b));
    b->elem_size = elem_size(dtype);
    b->padded = env->strided_outputs;
    b->view.ndim = ndim;
    b->n = 1;
    b->storage = 1;
    for (uint32_t k = 0; k < ndim; k++) {
        b->view.shape[k] = shape[k];
        b->n *= shape[k];
    }
    storage_extents(b, ext);
    for (uint32_t k = 0; k < ndim; k++) {
        b->storage *= ext[k];
    }
    size_t bytes = ((size_t)b->storage + 2 * PECERT_GUARD_ELEMS) * b->elem_size;
    b->base = malloc(bytes);
    if (b->base == NULL) {
        return -1;
    }
    memset(b->base, GUARD_BYTE, bytes);
    unsigned char *data = b->base + PECERT_GUARD_ELEMS * b->elem_size;
    int64_t stride = 1;
    for (uint32_t k = ndim; k-- > 0;) {
        b->view.strides[k] = stride;
        stride *= ext[k];
    }
    unsigned char fill[8];
    fill_value(dtype, fill);
    /* Every element of the view, in packed order: its offset kept by an
     * odometer over the shape (no division per element). */
    int64_t idx[PECERT_MAX_DIMS] = {0};
    int64_t off = 0;
    for (int64_t i = 0; i < b->n; i++) {
        memcpy(data + (size_t)off * b->elem_size, fill, b->elem_size);
        for (uint32_t k = ndim; k-- > 0;) {
            off += b->view.strides[k];
            if (++idx[k] < shape[k]) {
                break;
            }
            off -= b->view.strides[k] * shape[k];
            idx[k] = 0;
        }
    }
    b->view.struct_size = sizeof(b->view);
    b->view.dtype = dtype;
    b->view.data = data;
    return 0;
}

int pecert_out_open(pecert_out_buf *b, const pecert_check_env *env, pecert_check_result *r, pecert_dtype dtype,
                    uint32_t ndim, const int64_t *shape, const char *where)
{
    if (pecert_out_init(b, env, dtype, ndim, shape) != 0) {
        pecert_case_fail(r, where, "out of memory");
        return 0;
    }
    return 1;
}

void pecert_out_free(pecert_out_buf *b)
{
    free(b->base);
    memset(b, 0, sizeof(*b));
}

int pecert_out_guards_ok(const pecert_out_buf *b)
{
    size_t guard = PECERT_GUARD_ELEMS * b->elem_size;
    size_t tail = guard + (size_t)b->storage * b->elem_size;
    for (size_t i = 0; i < guard; i++) {
        if (b->base[i] != GUARD_BYTE || b->base[tail + i] != GUARD_BYTE) {
            return 0;
        }
    }
    if (!b->padded) {
        return 1;
    }
    /* Every storage element, an odometer over the padded extents: one
     * outside the view (some index past its shape) is a gap between
     * strided rows, and must hold the guard still. */
    int64_t ext[PECERT_MAX_DIMS];
    int64_t idx[PECERT_MAX_DIMS] = {0};
    uint32_t ndim = b->view.ndim;
    storage_extents(b, ext);
    int outside = 0; /* indices past their shape (at 0: an empty axis's) */
    for (uint32_t k = 0; k < ndim; k++) {
        outside += 0 >= b->view.shape[k];
    }
    for (int64_t s = 0; s < b->storage; s++) {
        const unsigned char *p = b->base + guard + (size_t)s * b->elem_size;
        for (size_t j = 0; outside > 0 && j < b->elem_size; j++) {
            if (p[j] != GUARD_BYTE) {
                return 0; /* a write into the gaps between strided rows */
            }
        }
        for (uint32_t k = ndim; k-- > 0;) {
            outside -= idx[k] >= b->view.shape[k];
            if (++idx[k] < ext[k]) {
                outside += idx[k] >= b->view.shape[k];
                break;
            }
            idx[k] = 0;
            outside += idx[k] >= b->view.shape[k];
        }
    }
    return 1;
}

double pecert_out_get(const pecert_out_buf *b, int64_t i)
{
    const unsigned char *p = (const unsigned char *)b->view.data + (size_t)storage_offset(b, i) * b->elem_size;
    switch (b->view.dtype) {
    case PECERT_DTYPE_F32: {
        float v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    case PECERT_DTYPE_F64: {
        double v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    case PECERT_DTYPE_I64: {
        int64_t v;
        memcpy(&v, p, sizeof(v));
        return (double)v;
    }
    default: {
        int32_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    }
}

int pecert_out_status(pecert_check_result *r, const pecert_subject *s, pecert_status st,
                      const pecert_out_buf *b, const char *where, const char *op)
{
    if (!pecert_case_status(r, s, st, where, op)) {
        return 0;
    }
    if (b != NULL && !pecert_out_guards_ok(b)) {
        pecert_case_fail(r, where, "%s wrote outside its output view (guard zone changed)", op);
        return 0;
    }
    return 1;
}

int pecert_out_within(const pecert_out_buf *got, const double *want, const double *tol)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < got->n; i++) {
        pecert_case_worst_add(&w, i, pecert_out_get(got, i), want[i], tol[i]);
    }
    return pecert_case_worst_holds(&w);
}

int pecert_out_kept(pecert_check_result *r, const pecert_subject *s, pecert_status st, pecert_out_buf *b,
                    const char *where, const char *op)
{
    if (!pecert_out_status(r, s, st, b, where, op)) {
        pecert_out_free(b);
        return 0;
    }
    return 1;
}

void pecert_elem_name(char *out, size_t len, const char *name, uint32_t ndim,
                      const int64_t *shape, int64_t index)
{
    int64_t idx[PECERT_MAX_DIMS];
    for (uint32_t k = ndim; k-- > 0;) {
        idx[k] = shape[k] > 0 ? index % shape[k] : 0;
        index = shape[k] > 0 ? index / shape[k] : 0;
    }
    int n = snprintf(out, len, "%s[", name);
    for (uint32_t k = 0; k < ndim && n > 0 && (size_t)n < len; k++) {
        n += snprintf(out + n, len - (size_t)n, "%s%lld", k > 0 ? "," : "", (long long)idx[k]);
    }
    if (n > 0 && (size_t)n < len) {
        snprintf(out + n, len - (size_t)n, "]");
    }
}

static void finish(pecert_check_result *r, const pecert_case_worst *w, const pecert_vtensor *want,
                   const char *where)
{
    char elem[128];
    pecert_elem_name(elem, sizeof(elem), want->name, want->ndim, want->shape,
                     w->index < 0 ? 0 : w->index);
    pecert_case_finish(r, w, where, elem);
}

void pecert_out_worst_exact(pecert_case_worst *w, const pecert_out_buf *got, const float *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        pecert_case_worst_add(w, i, pecert_out_get(got, i), want[i], 0.0);
    }
}

void pecert_compare_exact(pecert_check_result *r, const pecert_out_buf *got,
                          const pecert_vtensor *want, const char *where)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < want->num_elements; i++) {
        pecert_case_worst_add(&w, i, pecert_out_get(got, i), pecert_vtensor_get(want, i), 0.0);
    }
    finish(r, &w, want, where);
}

void pecert_compare_bounded(pecert_check_result *r, const pecert_out_buf *got,
                            const pecert_vtensor *want, pecert_elem_bound bound,
                            const void *ctx, const char *where)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < want->num_elements; i++) {
        double v = pecert_vtensor_get(want, i);
        pecert_case_worst_add(&w, i, pecert_out_get(got, i), v, bound(ctx, i, v));
    }
    finish(r, &w, want, where);
}

void pecert_judge_bounded(pecert_check_result *r, const pecert_subject *s, pecert_status st, pecert_out_buf *got,
                          const pecert_vtensor *want, pecert_elem_bound bound, const void *ctx, const char *where,
                          const char *op)
{
    if (pecert_out_status(r, s, st, got, where, op)) {
        pecert_compare_bounded(r, got, want, bound, ctx, where);
    }
    pecert_out_free(got);
}
