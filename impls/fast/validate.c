/*
 * validate.c - argument checks shared by fast's ops.
 *
 * plugin.h: a plugin never crashes on bad input; it returns E_INVAL (E_ABI
 * for a struct too small, E_UNSUPPORTED for a valid request it does not
 * do) with one line naming the argument and the limit it broke. Every
 * check here runs before the first byte of output is written.
 */
#include <inttypes.h>
#include <math.h>
#include <stdalign.h>

#include "fast.h"

/* Every `present` bit ABI 1.x defines. */
#define KNOWN_PRESENT_BITS ((uint32_t)((PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS << 1) - 1))

/* rope_type 6..63 are reserved for later rope types (plugin.h). */
#define LAST_RESERVED_ROPE_TYPE 63

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static pecert_status check_config_kind(const pecert__fast_call *call,
                                       const pecert_rope_config *config)
{
    if (config == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config is NULL");
    }
    if (config->struct_size < sizeof(pecert_rope_config)) {
        return pecert__fast_fail(call, PECERT_E_ABI,
                                 "config.struct_size=%" PRIu32 " is below "
                                 "sizeof(pecert_rope_config)=%zu",
                                 config->struct_size, sizeof(pecert_rope_config));
    }
    if (config->rope_type < 0 || config->rope_type > LAST_RESERVED_ROPE_TYPE) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.rope_type=%" PRId32 " is outside 0..%d",
                                 config->rope_type, LAST_RESERVED_ROPE_TYPE);
    }
    if (config->rope_type > PECERT_ROPE_LLAMA3) {
        return pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                 "config.rope_type=%" PRId32 " is reserved (known: 0..%d)",
                                 config->rope_type, PECERT_ROPE_LLAMA3);
    }
    if ((config->present & ~KNOWN_PRESENT_BITS) != 0) {
        return pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                 "config.present=0x%" PRIx32 " sets unknown bits (known 0x%" PRIx32
                                 ")",
                                 config->present, KNOWN_PRESENT_BITS);
    }
    return PECERT_OK;
}

/* A non-zero reserved word asks for something a later minor defines
 * (M-RoPE sections): refused, never ignored. */
static pecert_status check_config_reserved(const pecert__fast_call *call,
                                           const pecert_rope_config *config)
{
    size_t i;

    if (config->reserved0 != 0 || config->reserved1 != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.reserved%d=%" PRId32 " must be 0",
                                 config->reserved0 != 0 ? 0 : 1,
                                 config->reserved0 != 0 ? config->reserved0 : config->reserved1);
    }
    for (i = 0; i < ARRAY_LEN(config->reserved); i++) {
        if (config->reserved[i] != 0) {
            return pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                     "config.reserved[%zu]=0x%" PRIx64 " is non-zero; this "
                                     "plugin gives it no meaning",
                                     i, config->reserved[i]);
        }
    }
    return PECERT_OK;
}

static pecert_status check_config_dims(const pecert__fast_call *call,
                                       const pecert_rope_config *config)
{
    if (config->head_dim <= 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.head_dim=%" PRId32 " must be > 0",
                                 config->head_dim);
    }
    if (config->rotary_dim < 2 || config->rotary_dim % 2 != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.rotary_dim=%" PRId32 " must be even and >= 2",
                                 config->rotary_dim);
    }
    if (config->rotary_dim > config->head_dim) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.rotary_dim=%" PRId32 " exceeds head_dim=%" PRId32,
                                 config->rotary_dim, config->head_dim);
    }
    /* Every rope type raises theta to a power; yarn takes its log. */
    if (!isfinite(config->rope_theta) || config->rope_theta <= 1.0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.rope_theta=%.17g must be finite and > 1",
                                 config->rope_theta);
    }
    return PECERT_OK;
}

pecert_status pecert__fast_check_layer_config(const pecert__fast_call *call,
                                              const pecert_rope_config *config)
{
    pecert_status status = check_config_kind(call, config);

    if (status == PECERT_OK && config->layer_kind != PECERT_LAYER_ROPE &&
        config->layer_kind != PECERT_LAYER_NOPE) {
        status = pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                   "config.layer_kind=%" PRId32 " is not 0 (rope) or 1 (nope)",
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

pecert_status pecert__fast_check_config(const pecert__fast_call *call,
                                        const pecert_rope_config *config)
{
    pecert_status status = pecert__fast_check_layer_config(call, config);

    if (status == PECERT_OK && config->layer_kind != PECERT_LAYER_ROPE) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "config.layer_kind=%" PRId32 " is not 0 (rope): a layer "
                                   "without rotation has no frequencies",
                                   config->layer_kind);
    }
    return status;
}

pecert_status pecert__fast_check_seq_len(const pecert__fast_call *call, int64_t seq_len)
{
    if (seq_len < 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "seq_len=%" PRId64 " must be >= 0 (0 = derive it)", seq_len);
    }
    return PECERT_OK;
}

pecert_status pecert__fast_check_positions(const pecert__fast_call *call,
                                           const int64_t *positions, int64_t n_positions,
                                           pecert__fast_positions *out)
{
    pecert__fast_positions seen = {0, 0};
    int64_t i;

    if (n_positions < 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "n_positions=%" PRId64 " must be >= 0",
                                 n_positions);
    }
    if (n_positions > 0 && positions == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "positions is NULL for %" PRId64 " tokens",
                                 n_positions);
    }
    if (n_positions > 0 && (uintptr_t)positions % alignof(int64_t) != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "positions is not aligned to %zu bytes",
                                 alignof(int64_t));
    }
    for (i = 0; i < n_positions; i++) {
        int64_t p = positions[i];
        int64_t magnitude = p < 0 ? -p : p;

        /* Below 2^53 every position is an exact double (and -p exists). */
        if (p <= -PECERT__FAST_POSITION_LIMIT || p >= PECERT__FAST_POSITION_LIMIT) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "positions[%" PRId64 "]=%" PRId64 " is outside (-2^53, 2^53)",
                                     i, p);
        }
        if (i == 0 || p > seen.max_position) {
            seen.max_position = p;
        }
        if (magnitude > seen.max_magnitude) {
            seen.max_magnitude = magnitude;
        }
    }
    if (out != NULL) {
        *out = seen;
    }
    return PECERT_OK;
}

size_t pecert__fast_dtype_size(pecert_dtype dtype)
{
    switch (dtype) {
    case PECERT_DTYPE_F64:
    case PECERT_DTYPE_I64:
        return 8;
    case PECERT_DTYPE_F16:
    case PECERT_DTYPE_BF16:
        return 2;
    default:
        return 4;
    }
}

static const char *dtype_name(pecert_dtype dtype)
{
    static const char *const names[] = {"invalid", "f32", "f64", "f16", "bf16", "i32", "i64"};

    return dtype >= 0 && (size_t)dtype < ARRAY_LEN(names) ? names[dtype] : "unknown";
}

/* The floating types are valid requests (E_UNSUPPORTED when the op does
 * not take one); integer and unknown codes are invalid. */
static pecert_status check_dtype(const pecert__fast_call *call, const char *name,
                                 pecert_dtype dtype, uint32_t allowed)
{
    int floating = dtype == PECERT_DTYPE_F32 || dtype == PECERT_DTYPE_F64 ||
                   dtype == PECERT_DTYPE_F16 || dtype == PECERT_DTYPE_BF16;

    if (floating && (allowed & (1u << dtype)) != 0) {
        return PECERT_OK;
    }
    return pecert__fast_fail(call, floating ? PECERT_E_UNSUPPORTED : PECERT_E_INVAL,
                             "%s.dtype=%" PRId32 " (%s) is not taken here (allowed mask 0x%" PRIx32
                             ")",
                             name, dtype, dtype_name(dtype), allowed);
}

int pecert__fast_is_empty(const pecert_tensor *tensor)
{
    uint32_t k;

    for (k = 0; k < tensor->ndim; k++) {
        if (tensor->shape[k] == 0) {
            return 1;
        }
    }
    return 0;
}

size_t pecert__fast_view_bytes(const pecert_tensor *tensor)
{
    size_t bytes = pecert__fast_dtype_size(tensor->dtype);

    for (uint32_t k = 0; k < tensor->ndim; k++) {
        if (__builtin_mul_overflow(bytes, (size_t)tensor->shape[k], &bytes)) {
            return SIZE_MAX;
        }
    }
    return bytes;
}

int64_t pecert__fast_max_offset(const pecert_tensor *tensor)
{
    int64_t offset = 0;
    uint32_t k;

    if (pecert__fast_is_empty(tensor)) {
        return 0;
    }
    for (k = 0; k < tensor->ndim; k++) {
        offset += (tensor->shape[k] - 1) * tensor->strides[k];
    }
    return offset;
}

/* Non-negative shapes and strides, and a farthest byte offset that fits a
 * ptrdiff_t, so no address computation can overflow. */
static pecert_status check_extents(const pecert__fast_call *call, const char *name,
                                   const pecert_tensor *tensor)
{
    int64_t limit = PTRDIFF_MAX / (int64_t)pecert__fast_dtype_size(tensor->dtype);
    int64_t reach = 0;
    uint32_t k;

    for (k = 0; k < tensor->ndim; k++) {
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
    for (k = 0; k < tensor->ndim; k++) {
        int64_t extent = tensor->shape[k] - 1;

        if (extent > 0 && tensor->strides[k] > (limit - reach) / extent) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "%s.strides[%" PRIu32 "]=%" PRId64 " with shape[%" PRIu32
                                     "]=%" PRId64 " reaches past the address space",
                                     name, k, tensor->strides[k], k, tensor->shape[k]);
        }
        reach += extent * tensor->strides[k];
    }
    return PECERT_OK;
}

/* An output axis with stride 0 and extent > 1 writes one element twice. */
static pecert_status check_output_strides(const pecert__fast_call *call, const char *name,
                                          const pecert_tensor *tensor)
{
    uint32_t k;

    for (k = 0; k < tensor->ndim; k++) {
        if (tensor->strides[k] == 0 && tensor->shape[k] > 1) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "%s.strides[%" PRIu32 "]=0 with shape[%" PRIu32 "]=%" PRId64
                                     " writes one element several times",
                                     name, k, k, tensor->shape[k]);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__fast_check_tensor_header(const pecert__fast_call *call, const char *name,
                                               const pecert_tensor *tensor, uint32_t ndim)
{
    if (tensor == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s is NULL", name);
    }
    if (tensor->struct_size < sizeof(pecert_tensor)) {
        return pecert__fast_fail(call, PECERT_E_ABI,
                                 "%s.struct_size=%" PRIu32 " is below sizeof(pecert_tensor)=%zu",
                                 name, tensor->struct_size, sizeof(pecert_tensor));
    }
    if (tensor->ndim != ndim) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s.ndim=%" PRIu32 " must be %" PRIu32,
                                 name, tensor->ndim, ndim);
    }
    if (tensor->reserved0 != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s.reserved0=%" PRIu32 " must be 0",
                                 name, tensor->reserved0);
    }
    return PECERT_OK;
}

pecert_status pecert__fast_check_tensor(const pecert__fast_call *call, const char *name,
                                        const pecert_tensor *tensor, uint32_t ndim,
                                        uint32_t dtypes, int is_output)
{
    pecert_status status = pecert__fast_check_tensor_header(call, name, tensor, ndim);

    if (status == PECERT_OK) {
        status = check_dtype(call, name, tensor->dtype, dtypes);
    }
    if (status == PECERT_OK) {
        status = check_extents(call, name, tensor);
    }
    if (status == PECERT_OK && is_output) {
        status = check_output_strides(call, name, tensor);
    }
    if (status != PECERT_OK || pecert__fast_is_empty(tensor)) {
        return status;
    }
    return pecert__fast_check_tensor_data(call, name, tensor);
}

pecert_status pecert__fast_check_tensor_data(const pecert__fast_call *call, const char *name,
                                             const pecert_tensor *tensor)
{
    size_t size = pecert__fast_dtype_size(tensor->dtype);

    if (tensor->data == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s.data is NULL", name);
    }
    if ((uintptr_t)tensor->data % size != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s.data is not aligned to its %zu-byte dtype",
                                 name, size);
    }
    return PECERT_OK;
}

int pecert__fast_same_view(const pecert_tensor *a, const pecert_tensor *b)
{
    uint32_t k;

    if (a->data != b->data || a->ndim != b->ndim || a->dtype != b->dtype) {
        return 0;
    }
    for (k = 0; k < a->ndim; k++) {
        if (a->strides[k] != b->strides[k] || a->shape[k] != b->shape[k]) {
            return 0;
        }
    }
    return 1;
}

/* Disjoint byte spans settle the common case; views whose spans meet
 * (slices of one fused buffer) go to the exact byte-level test of
 * overlap.c. Both views are checked; their dtypes may differ. */
pecert_status pecert__fast_check_aliasing(const pecert__fast_call *call, const char *a_name,
                                          const pecert_tensor *a, const char *b_name,
                                          const pecert_tensor *b, int allow_same)
{
    uintptr_t a_begin = (uintptr_t)a->data;
    uintptr_t b_begin = (uintptr_t)b->data;
    uintptr_t a_end;
    uintptr_t b_end;

    if (pecert__fast_is_empty(a) || pecert__fast_is_empty(b)) {
        return PECERT_OK;
    }
    if (allow_same && pecert__fast_same_view(a, b)) {
        return PECERT_OK;
    }
    a_end = a_begin + ((uintptr_t)pecert__fast_max_offset(a) + 1) * pecert__fast_dtype_size(a->dtype);
    b_end = b_begin + ((uintptr_t)pecert__fast_max_offset(b) + 1) * pecert__fast_dtype_size(b->dtype);
    if (a_begin >= b_end || b_begin >= a_end || !pecert__fast_views_overlap(a, b)) {
        return PECERT_OK;
    }
    return pecert__fast_fail(call, PECERT_E_INVAL, "%s shares bytes with %s%s", b_name, a_name,
                             allow_same ? " without being the same view (same data, dtype, "
                                          "shape and strides): partial overlap"
                                        : "");
}
