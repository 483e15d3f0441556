/*
 * validate.c - structural argument checks shared by every op of `ref`.
 *
 * plugin.h: a plugin never crashes on bad input; it returns PECERT_E_INVAL
 * (or E_ABI for a struct that is too small) and says why, naming the
 * argument and the limit it broke. Checks that depend on the rope type's
 * formulas live in params.c next to the defaults they guard.
 */
#include <inttypes.h>
#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "ref.h"

/* Every present bit ABI 1.0 defines; others belong to a later minor. */
#define KNOWN_PRESENT_BITS ((uint32_t)((PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS << 1) - 1))

/* rope_type values 6..63 are reserved for later rope types (plugin.h). */
#define LAST_RESERVED_ROPE_TYPE 63

static pecert_status check_config_header(const pecert__ref_call *call,
                                         const pecert_rope_config *config)
{
    if (config == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "config is NULL");
    }
    if (config->struct_size < sizeof(pecert_rope_config)) {
        return pecert__ref_fail(call, PECERT_E_ABI,
                                "config.struct_size=%" PRIu32 " is smaller than "
                                "sizeof(pecert_rope_config)=%zu",
                                config->struct_size, sizeof(pecert_rope_config));
    }
    if (config->rope_type < 0 || config->rope_type > LAST_RESERVED_ROPE_TYPE) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.rope_type=%" PRId32 " is outside 0..%d",
                                config->rope_type, LAST_RESERVED_ROPE_TYPE);
    }
    if (config->rope_type > PECERT_ROPE_LLAMA3) {
        return pecert__ref_fail(call, PECERT_E_UNSUPPORTED,
                                "config.rope_type=%" PRId32 " is reserved; ABI 1.0 "
                                "defines 0..%d",
                                config->rope_type, PECERT_ROPE_LLAMA3);
    }
    if ((config->present & ~KNOWN_PRESENT_BITS) != 0) {
        return pecert__ref_fail(call, PECERT_E_UNSUPPORTED,
                                "config.present=0x%" PRIx32 " sets bits ABI 1.0 "
                                "does not define (known mask 0x%" PRIx32 ")",
                                config->present, KNOWN_PRESENT_BITS);
    }
    return PECERT_OK;
}

/* The reserved words may give meaning to a later minor (M-RoPE sections),
 * so a non-zero value is a request this ABI 1.0 plugin cannot honour. */
static pecert_status check_config_reserved(const pecert__ref_call *call,
                                           const pecert_rope_config *config)
{
    if (config->reserved0 != 0 || config->reserved1 != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.reserved%d=%" PRId32 " must be 0",
                                config->reserved0 != 0 ? 0 : 1,
                                config->reserved0 != 0 ? config->reserved0 : config->reserved1);
    }
    return pecert__ref_check_reserved_of(call, "config", config->reserved,
                                         sizeof(config->reserved) / sizeof(config->reserved[0]),
                                         "1.0");
}

static pecert_status check_config_dims(const pecert__ref_call *call,
                                       const pecert_rope_config *config)
{
    if (config->head_dim <= 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.head_dim=%" PRId32 " must be positive",
                                config->head_dim);
    }
    if (config->rotary_dim < 2) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.rotary_dim=%" PRId32 " must be at least 2",
                                config->rotary_dim);
    }
    if (config->rotary_dim % 2 != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.rotary_dim=%" PRId32 " must be even",
                                config->rotary_dim);
    }
    if (config->rotary_dim > config->head_dim) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.rotary_dim=%" PRId32 " exceeds head_dim=%" PRId32,
                                config->rotary_dim, config->head_dim);
    }
    /* Every formula raises theta to a power and takes its log (yarn). */
    if (!isfinite(config->rope_theta) || config->rope_theta <= 1.0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.rope_theta=%.17g must be finite and > 1",
                                config->rope_theta);
    }
    return PECERT_OK;
}

pecert_status pecert__ref_check_layer_config(const pecert__ref_call *call,
                                             const pecert_rope_config *config)
{
    pecert_status status = check_config_header(call, config);

    if (status == PECERT_OK && config->layer_kind != PECERT_LAYER_ROPE &&
        config->layer_kind != PECERT_LAYER_NOPE) {
        status = pecert__ref_fail(call, PECERT_E_UNSUPPORTED,
                                  "config.layer_kind=%" PRId32 " is not 0 (rope) or 1 (nope); "
                                  "ABI 1.4 defines no other",
                                  config->layer_kind);
    }
    if (status == PECERT_OK) {
        status = check_config_reserved(call, config);
    }
    if (status == PECERT_OK) {
        status = check_config_dims(call, config);
    }
    return status;
}

pecert_status pecert__ref_check_config(const pecert__ref_call *call,
                                       const pecert_rope_config *config)
{
    pecert_status status = pecert__ref_check_layer_config(call, config);

    if (status == PECERT_OK && config->layer_kind != PECERT_LAYER_ROPE) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "config.layer_kind=%" PRId32 " is not 0 (rope): %s has no "
                                  "meaning for a layer without rotation (plugin.h)",
                                  config->layer_kind, call->op);
    }
    return status;
}

pecert_status pecert__ref_check_seq_len(const pecert__ref_call *call,
                                        int64_t seq_len)
{
    if (seq_len < 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "seq_len=%" PRId64 " must be >= 0 (0 = derive it)",
                                seq_len);
    }
    return PECERT_OK;
}

pecert_status pecert__ref_check_positions(const pecert__ref_call *call,
                                          const int64_t *positions,
                                          int64_t n_positions)
{
    int64_t i;

    if (n_positions < 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "n_positions=%" PRId64 " must be >= 0", n_positions);
    }
    if (n_positions == 0) {
        return PECERT_OK;
    }
    if (positions == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "positions is NULL for %" PRId64 " tokens", n_positions);
    }
    if ((uintptr_t)positions % alignof(int64_t) != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "positions is not aligned to %zu bytes",
                                alignof(int64_t));
    }
    /* Below 2^53 in magnitude every position is an exact double. Negative
     * positions rotate backwards: the rope.inverse property uses them. */
    for (i = 0; i < n_positions; i++) {
        if (positions[i] <= -PECERT__REF_POSITION_LIMIT ||
            positions[i] >= PECERT__REF_POSITION_LIMIT) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "positions[%" PRId64 "]=%" PRId64
                                    " is outside (-2^53, 2^53)",
                                    i, positions[i]);
        }
    }
    return PECERT_OK;
}

static size_t dtype_size(pecert_dtype dtype)
{
    return (dtype == PECERT_DTYPE_F64 || dtype == PECERT_DTYPE_I64) ? 8 : 4;
}

/* f32 (and f64 where allowed) are accepted; the reserved half types and
 * f64 elsewhere are valid requests this plugin does not do. */
static pecert_status check_float_dtype(const pecert__ref_call *call,
                                       const char *name, pecert_dtype dtype,
                                       int allow_f64)
{
    if (dtype == PECERT_DTYPE_F32 || (allow_f64 && dtype == PECERT_DTYPE_F64)) {
        return PECERT_OK;
    }
    /* Floating types a later minor may add to this op: valid, not done. */
    if (dtype == PECERT_DTYPE_F64 || dtype == PECERT_DTYPE_F16 ||
        dtype == PECERT_DTYPE_BF16) {
        return pecert__ref_fail(call, PECERT_E_UNSUPPORTED,
                                "%s.dtype=%" PRId32 " is not supported here (%s)",
                                name, dtype, allow_f64 ? "f32 or f64" : "f32 only");
    }
    return pecert__ref_fail(call, PECERT_E_INVAL,
                            "%s.dtype=%" PRId32 " must be a floating type (%s)",
                            name, dtype, allow_f64 ? "f32 or f64" : "f32");
}

int pecert__ref_is_empty(const pecert_tensor *tensor)
{
    uint32_t k;

    for (k = 0; k < tensor->ndim; k++) {
        if (tensor->shape[k] == 0) {
            return 1;
        }
    }
    return 0;
}

int64_t pecert__ref_max_offset(const pecert_tensor *tensor)
{
    int64_t offset = 0;
    uint32_t k;

    if (pecert__ref_is_empty(tensor)) {
        return 0;
    }
    for (k = 0; k < tensor->ndim; k++) {
        offset += (tensor->shape[k] - 1) * tensor->strides[k];
    }
    return offset;
}

/* Shapes and strides must be >= 0, and the farthest element's byte offset
 * must fit a ptrdiff_t, so the address arithmetic never overflows. */
static pecert_status check_extents(const pecert__ref_call *call,
                                   const char *name,
                                   const pecert_tensor *tensor)
{
    int64_t limit = PTRDIFF_MAX / (int64_t)dtype_size(tensor->dtype);
    int64_t reach = 0;
    uint32_t k;

    for (k = 0; k < tensor->ndim; k++) {
        if (tensor->shape[k] < 0 || tensor->strides[k] < 0) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "%s.shape[%" PRIu32 "]=%" PRId64 ", strides[%" PRIu32
                                    "]=%" PRId64 ": both must be >= 0",
                                    name, k, tensor->shape[k], k, tensor->strides[k]);
        }
    }
    if (pecert__ref_is_empty(tensor)) {
        return PECERT_OK;
    }
    for (k = 0; k < tensor->ndim; k++) {
        int64_t extent = tensor->shape[k] - 1;

        if (extent > 0 && tensor->strides[k] > (limit - reach) / extent) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "%s.strides[%" PRIu32 "]=%" PRId64 " with shape[%" PRIu32
                                    "]=%" PRId64 " reaches past the address space",
                                    name, k, tensor->strides[k], k, tensor->shape[k]);
        }
        reach += extent * tensor->strides[k];
    }
    return PECERT_OK;
}

/* An output axis with stride 0 and extent > 1 writes one element twice. */
static pecert_status check_output_strides(const pecert__ref_call *call,
                                          const char *name,
                                          const pecert_tensor *tensor)
{
    uint32_t k;

    for (k = 0; k < tensor->ndim; k++) {
        if (tensor->strides[k] == 0 && tensor->shape[k] > 1) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "%s.strides[%" PRIu32 "]=0 with shape[%" PRIu32 "]=%" PRId64
                                    " makes output elements overlap",
                                    name, k, k, tensor->shape[k]);
        }
    }
    return PECERT_OK;
}

static pecert_status check_tensor_header(const pecert__ref_call *call,
                                         const char *name,
                                         const pecert_tensor *tensor,
                                         uint32_t ndim)
{
    if (tensor == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "%s is NULL", name);
    }
    if (tensor->struct_size < sizeof(pecert_tensor)) {
        return pecert__ref_fail(call, PECERT_E_ABI,
                                "%s.struct_size=%" PRIu32 " is smaller than "
                                "sizeof(pecert_tensor)=%zu",
                                name, tensor->struct_size, sizeof(pecert_tensor));
    }
    if (tensor->ndim != ndim) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "%s.ndim=%" PRIu32 " must be %" PRIu32,
                                name, tensor->ndim, ndim);
    }
    if (tensor->reserved0 != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "%s.reserved0=%" PRIu32 " must be 0",
                                name, tensor->reserved0);
    }
    return PECERT_OK;
}

/* The layout of a view whose header and dtype are checked: extents, an
 * output's strides, then (when not empty) data present and aligned. */
static pecert_status check_layout(const pecert__ref_call *call, const char *name,
                                  const pecert_tensor *tensor, int is_output)
{
    pecert_status status = check_extents(call, name, tensor);

    if (status == PECERT_OK && is_output) {
        status = check_output_strides(call, name, tensor);
    }
    if (status != PECERT_OK || pecert__ref_is_empty(tensor)) {
        return status;
    }
    if (tensor->data == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "%s.data is NULL", name);
    }
    if ((uintptr_t)tensor->data % dtype_size(tensor->dtype) != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "%s.data is not aligned to its %zu-byte dtype",
                                name, dtype_size(tensor->dtype));
    }
    return PECERT_OK;
}

pecert_status pecert__ref_check_tensor(const pecert__ref_call *call,
                                       const char *name,
                                       const pecert_tensor *tensor,
                                       uint32_t ndim, int allow_f64,
                                       int is_output)
{
    pecert_status status = check_tensor_header(call, name, tensor, ndim);

    if (status == PECERT_OK) {
        status = check_float_dtype(call, name, tensor->dtype, allow_f64);
    }
    return status == PECERT_OK ? check_layout(call, name, tensor, is_output) : status;
}

static int same_view(const pecert_tensor *a, const pecert_tensor *b)
{
    uint32_t k;

    if (a->data != b->data || a->ndim != b->ndim) {
        return 0;
    }
    for (k = 0; k < a->ndim; k++) {
        if (a->strides[k] != b->strides[k] || a->shape[k] != b->shape[k]) {
            return 0;
        }
    }
    return 1;
}

/* Disjoint byte spans settle the common case at once; views whose spans
 * meet (slices of one fused buffer) go to the exact test of overlap.c. */
pecert_status pecert__ref_check_in_place(const pecert__ref_call *call,
                                         const pecert_tensor *x,
                                         const pecert_tensor *out,
                                         size_t element_size)
{
    uintptr_t x_begin = (uintptr_t)x->data;
    uintptr_t out_begin = (uintptr_t)out->data;
    uintptr_t x_end;
    uintptr_t out_end;

    if (pecert__ref_is_empty(x) || pecert__ref_is_empty(out) || same_view(x, out)) {
        return PECERT_OK;
    }
    x_end = x_begin + ((uintptr_t)pecert__ref_max_offset(x) + 1) * element_size;
    out_end = out_begin + ((uintptr_t)pecert__ref_max_offset(out) + 1) * element_size;
    if (x_begin >= out_end || out_begin >= x_end ||
        !pecert__ref_views_overlap(x, out, element_size)) {
        return PECERT_OK;
    }
    return pecert__ref_fail(call, PECERT_E_INVAL,
                            "out shares elements with x without being x itself "
                            "(same data, shape and strides): partial overlap");
}

/* The other families' views (ABI 1.2): a dtype from a set, an exact shape. */
static pecert_status check_view_dtype(const pecert__ref_call *call, const char *name,
                                      pecert_dtype dtype, uint32_t dtypes)
{
    if (dtype > 0 && dtype < 32 && (dtypes & (1u << dtype)) != 0) {
        return PECERT_OK;
    }
    if (dtype == PECERT_DTYPE_F16 || dtype == PECERT_DTYPE_BF16 ||
        ((dtypes & PECERT__REF_FLOAT) != 0 && dtype == PECERT_DTYPE_F64) ||
        ((dtypes & PECERT__REF_INT) != 0 && dtype == PECERT_DTYPE_I32)) {
        return pecert__ref_fail(call, PECERT_E_UNSUPPORTED,
                                "%s.dtype=%" PRId32 " is not supported here", name, dtype);
    }
    return pecert__ref_fail(call, PECERT_E_INVAL, "%s.dtype=%" PRId32 " must be %s", name,
                            dtype, (dtypes & PECERT__REF_INT) != 0 ? "i64 or i32" : "f32 or f64");
}

pecert_status pecert__ref_check_view(const pecert__ref_call *call, const char *name,
                                     const pecert_tensor *tensor, uint32_t ndim,
                                     const int64_t *shape, uint32_t dtypes, int is_output)
{
    pecert_status status = check_tensor_header(call, name, tensor, ndim);
    uint32_t k;

    if (status == PECERT_OK) {
        status = check_view_dtype(call, name, tensor->dtype, dtypes);
    }
    for (k = 0; status == PECERT_OK && shape != NULL && k < ndim; k++) {
        if (tensor->shape[k] != shape[k]) {
            status = pecert__ref_fail(call, PECERT_E_INVAL,
                                      "%s.shape[%" PRIu32 "]=%" PRId64 " must be %" PRId64,
                                      name, k, tensor->shape[k], shape[k]);
        }
    }
    return status == PECERT_OK ? check_layout(call, name, tensor, is_output) : status;
}

pecert_status pecert__ref_check_reserved_of(const pecert__ref_call *call, const char *name,
                                            const uint64_t *words, size_t n, const char *abi)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (words[i] != 0) {
            return pecert__ref_fail(call, PECERT_E_UNSUPPORTED,
                                    "%s.reserved[%zu]=0x%" PRIx64 " is non-zero; "
                                    "ABI %s gives it no meaning", name, i, words[i], abi);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_check_reserved(const pecert__ref_call *call, const char *name,
                                         const uint64_t *words, size_t n)
{
    return pecert__ref_check_reserved_of(call, name, words, n, "1.2");
}

pecert_status pecert__ref_enter(pecert__ref_call *call, void *instance, const char *op,
                                const void *args, size_t need)
{
    uint32_t struct_size;

    pecert__ref_begin_call(call, instance, op);
    if (args == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "args is NULL");
    }
    memcpy(&struct_size, args, sizeof(struct_size));
    if (struct_size < need) {
        return pecert__ref_fail(call, PECERT_E_ABI,
                                "args.struct_size=%" PRIu32 " is smaller than %zu",
                                struct_size, need);
    }
    return PECERT_OK;
}

pecert_status pecert__ref_run(void *instance, const char *op, const void *args, size_t args_size,
                              pecert__ref_step check, pecert__ref_step compute)
{
    pecert__ref_call call;
    pecert_status status = pecert__ref_enter(&call, instance, op, args, args_size);

    if (status == PECERT_OK) {
        status = check(&call, args);
    }
    if (status == PECERT_OK) {
        status = compute(&call, args);
    }
    return status;
}

pecert_status pecert__ref_check_ints(const pecert__ref_call *call, const char *name,
                                     const int64_t *values, int64_t n)
{
    int64_t i;

    if (n < 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "%s: count %" PRId64 " must be >= 0",
                                name, n);
    }
    if (n > 0 && values == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "%s is NULL for %" PRId64 " values",
                                name, n);
    }
    if (n > 0 && (uintptr_t)values % alignof(int64_t) != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "%s is not aligned to 8 bytes", name);
    }
    for (i = 0; i < n; i++) {
        if (values[i] <= -PECERT__REF_POSITION_LIMIT || values[i] >= PECERT__REF_POSITION_LIMIT) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "%s[%" PRId64 "]=%" PRId64 " is outside (-2^53, 2^53)",
                                    name, i, values[i]);
        }
    }
    return PECERT_OK;
}

void *pecert__ref_elem(const pecert_tensor *t, const int64_t *index)
{
    int64_t offset = 0;
    uint32_t k;

    for (k = 0; k < t->ndim; k++) {
        offset += index[k] * t->strides[k];
    }
    return (unsigned char *)t->data + offset * (int64_t)dtype_size(t->dtype);
}

void pecert__ref_store_float(const pecert_tensor *t, const int64_t *index, double value)
{
    void *p = pecert__ref_elem(t, index);

    if (t->dtype == PECERT_DTYPE_F64) {
        *(double *)p = value;
    } else {
        *(float *)p = (float)value;
    }
}

void pecert__ref_store_int(const pecert_tensor *t, const int64_t *index, int64_t value)
{
    void *p = pecert__ref_elem(t, index);

    if (t->dtype == PECERT_DTYPE_I64) {
        *(int64_t *)p = value;
    } else {
        *(int32_t *)p = (int32_t)value;
    }
}
