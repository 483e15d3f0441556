/*
 * common.c - argument checks and element access shared by the ABI 1.2
 * families of `fast` (family.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdalign.h>
#include <string.h>

#include "../family.h"

pecert_status pecert__fast_fam_check_args(const pecert__fast_call *call, const void *args,
                                          size_t need)
{
    uint32_t struct_size;

    if (args == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "args is NULL");
    }
    memcpy(&struct_size, args, sizeof(struct_size));
    if (struct_size < need) {
        return pecert__fast_fail(call, PECERT_E_ABI,
                                 "args.struct_size=%" PRIu32 " is below the %zu bytes of ABI 1.2",
                                 struct_size, need);
    }
    return PECERT_OK;
}

pecert_status pecert__fast_fam_enter(pecert__fast_call *call, void *instance, const char *op,
                                     const void *args, size_t need)
{
    if (pecert__fast_begin_call(call, instance, op) != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    return pecert__fast_fam_check_args(call, args, need);
}

pecert_status pecert__fast_fam_check_reserved(const pecert__fast_call *call, const char *name,
                                              const uint64_t *words, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (words[i] != 0) {
            return pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                     "%s.reserved[%zu]=0x%" PRIx64
                                     " is non-zero; ABI 1.2 gives it no meaning",
                                     name, i, words[i]);
        }
    }
    return PECERT_OK;
}

/* 1 if every value lies in (-2^53, 2^53), i.e. u = v + 2^53 - 1 taken
 * unsigned is at most 2^54 - 2: then neither u nor u + 1 reaches bit 54
 * (u + 1 catches v = 2^53; u wraps to >= 2^63 below -2^53 + 1 and fails
 * the first test). Shifts, adds and ors only, so even SSE2 vectorizes
 * the pass (`omp simd`: fast builds with -fopenmp); the loop with an
 * early exit it replaces was 10% of a one-query alibi_bias call. The
 * caller looks for the culprit only when this fails. */
static uint64_t outside_bits(const int64_t *values, int64_t n)
{
    const uint64_t shift = (uint64_t)PECERT__FAST_POSITION_LIMIT - 1;
    uint64_t outside = 0;

#pragma omp simd reduction(| : outside)
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = (uint64_t)values[i] + shift;

        outside |= (u >> 54) | ((u + 1) >> 54);
    }
    return outside;
}

/* Long arrays are checked on the instance's threads, each share read as
 * four quarters in turn, a kibibyte of each at a time: where DRAM's
 * latency bounds one core, a single sequential stream leaves its
 * bandwidth unused (apply.c, choose_streams). */
#define RANGE_TURN 128
#define RANGE_TURNS_MIN ((int64_t)1 << 20)

static uint64_t outside_in_turns(const int64_t *values, int64_t n)
{
    int64_t quarter = n / (4 * RANGE_TURN) * RANGE_TURN;
    uint64_t outside = 0;

    for (int64_t i = 0; i < quarter; i += RANGE_TURN) {
        for (int k = 0; k < 4; k++) {
            outside |= outside_bits(values + k * quarter + i, RANGE_TURN);
        }
    }
    return outside | outside_bits(values + 4 * quarter, n - 4 * quarter);
}

typedef struct range_check {
    const int64_t *values;
    int64_t n;
    uint64_t outside[PECERT__FAST_MAX_THREADS];
} range_check;

static void check_share(void *context, int ith, int nth)
{
    range_check *check = context;
    int64_t begin;
    int64_t end;

    pecert__fast_share(check->n, ith, nth, &begin, &end);
    check->outside[ith] = outside_in_turns(check->values + begin, end - begin);
}

static int ints_in_range(const pecert__fast_call *call, const int64_t *values, int64_t n)
{
    range_check check; /* 8 KiB on the stack: the scratch may be held */
    uint64_t outside = 0;
    int threads;

    if (n < RANGE_TURNS_MIN) {
        return outside_bits(values, n) == 0;
    }
    threads = pecert__fast_threads(call, (size_t)n * sizeof(int64_t), n / RANGE_TURN);
    check.values = values;
    check.n = n;
    pecert__fast_run(threads, check_share, &check);
    for (int i = 0; i < threads; i++) {
        outside |= check.outside[i];
    }
    return outside == 0;
}

pecert_status pecert__fast_fam_check_ints(const pecert__fast_call *call, const char *name,
                                          const int64_t *values, int64_t n)
{
    if (n < 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s: count %" PRId64 " must be >= 0", name,
                                 n);
    }
    if (n > 0 && values == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s is NULL for %" PRId64 " values", name,
                                 n);
    }
    if (n > 0 && (uintptr_t)values % alignof(int64_t) != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s is not aligned to 8 bytes", name);
    }
    if (!ints_in_range(call, values, n)) {
        for (int64_t i = 0; i < n; i++) {
            if (values[i] <= -PECERT__FAST_POSITION_LIMIT ||
                values[i] >= PECERT__FAST_POSITION_LIMIT) {
                return pecert__fast_fail(call, PECERT_E_INVAL,
                                         "%s[%" PRId64 "]=%" PRId64 " is outside (-2^53, 2^53)",
                                         name, i, values[i]);
            }
        }
    }
    return PECERT_OK;
}

static pecert_status check_dtype(const pecert__fast_call *call, const char *name,
                                 pecert_dtype dtype, uint32_t dtypes)
{
    if (dtype > 0 && dtype < 32 && (dtypes & (1u << dtype)) != 0) {
        return PECERT_OK;
    }
    /* A float type an op could take (f64, the half types) or i32 for an
     * integer output: valid requests this plugin declines. */
    if (((dtypes & PECERT__FAM_FLOAT) != 0 &&
         (dtype == PECERT_DTYPE_F64 || dtype == PECERT_DTYPE_F16 || dtype == PECERT_DTYPE_BF16)) ||
        ((dtypes & PECERT__FAM_INT) != 0 && dtype == PECERT_DTYPE_I32)) {
        return pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                 "%s.dtype=%" PRId32 " is not supported here", name, dtype);
    }
    return pecert__fast_fail(call, PECERT_E_INVAL, "%s.dtype=%" PRId32 " must be %s", name, dtype,
                             (dtypes & PECERT__FAM_INT) != 0
                                 ? "i64 or i32"
                                 : ((dtypes & (1u << PECERT_DTYPE_F64)) != 0 ? "f32 or f64"
                                                                             : "f32"));
}

pecert_status pecert__fast_fam_check_view(const pecert__fast_call *call, const char *name,
                                          const pecert_tensor *tensor, uint32_t ndim,
                                          const int64_t *shape, uint32_t dtypes, int is_output)
{
    pecert_status status = pecert__fast_check_tensor_header(call, name, tensor, ndim);
    int64_t limit;
    int64_t reach = 0;

    if (status == PECERT_OK) {
        status = check_dtype(call, name, tensor->dtype, dtypes);
    }
    if (status != PECERT_OK) {
        return status;
    }
    for (uint32_t k = 0; k < ndim; k++) {
        if (shape != NULL && tensor->shape[k] != shape[k]) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "%s.shape[%" PRIu32 "]=%" PRId64 " must be %" PRId64, name, k,
                                     tensor->shape[k], shape[k]);
        }
        if (tensor->shape[k] < 0 || tensor->strides[k] < 0) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "%s.shape[%" PRIu32 "]=%" PRId64 ", strides[%" PRIu32
                                     "]=%" PRId64 ": both must be >= 0",
                                     name, k, tensor->shape[k], k, tensor->strides[k]);
        }
    }
    if (pecert__fast_is_empty(tensor)) {
        return PECERT_OK;
    }
    limit = PTRDIFF_MAX / (int64_t)pecert__fast_dtype_size(tensor->dtype);
    for (uint32_t k = 0; k < ndim; k++) {
        int64_t extent = tensor->shape[k] - 1;

        if (extent > 0 && tensor->strides[k] > (limit - reach) / extent) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "%s.strides[%" PRIu32 "]=%" PRId64 " with shape[%" PRIu32
                                     "]=%" PRId64 " reaches past the address space",
                                     name, k, tensor->strides[k], k, tensor->shape[k]);
        }
        reach += extent * tensor->strides[k];
        if (is_output && tensor->strides[k] == 0 && extent > 0) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "%s.strides[%" PRIu32 "]=0 with shape[%" PRIu32 "]=%" PRId64
                                     " writes one element several times",
                                     name, k, k, tensor->shape[k]);
        }
    }
    return pecert__fast_check_tensor_data(call, name, tensor);
}

void *pecert__fast_fam_elem(const pecert_tensor *t, const int64_t *index)
{
    int64_t offset = 0;

    for (uint32_t k = 0; k < t->ndim; k++) {
        offset += index[k] * t->strides[k];
    }
    return (unsigned char *)t->data + offset * (int64_t)pecert__fast_dtype_size(t->dtype);
}

void pecert__fast_fam_store_float(const pecert_tensor *t, const int64_t *index, double value)
{
    void *p = pecert__fast_fam_elem(t, index);

    if (t->dtype == PECERT_DTYPE_F64) {
        *(double *)p = value;
    } else {
        *(float *)p = (float)value;
    }
}

void pecert__fast_fam_store_int(const pecert_tensor *t, const int64_t *index, int64_t value)
{
    void *p = pecert__fast_fam_elem(t, index);

    if (t->dtype == PECERT_DTYPE_I64) {
        *(int64_t *)p = value;
    } else {
        *(int32_t *)p = (int32_t)value;
    }
}

void pecert__fast_fam_sincos(double position, double freq, double *out_sin, double *out_cos)
{
    if (fabs(position * freq) < PECERT__FAST_NEAR_LIMIT) {
        pecert__fast_sincos_scalar(position, freq, out_sin, out_cos);
    } else {
        pecert__fast_far_sincos(position, freq, out_sin, out_cos);
    }
}
