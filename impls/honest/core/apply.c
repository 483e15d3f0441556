/*
 * apply.c - rope_apply of an honest variant: f32, f16 or bf16 x (out of
 * the same dtype), any strides, in place allowed.
 *
 * For a pair (a, b) with cos c and sin s (the attention scaling folded
 * in): a' = a c - b s, b' = b c + a s, each product and sum rounded to
 * float32 (transformers' x * cos + rotate_half(x) * sin), or as one
 * float complex product (Meta's view_as_complex(x) * freqs_cis). Half
 * precision x is widened, rotated in float32 and rounded once, unless the
 * variant rotates in the data's own dtype as transformers does on a
 * half-precision model: cos and sin cast to the dtype (cos.to(x.dtype)),
 * each product and the sum rounded to it.
 */
#include <complex.h>
#include <inttypes.h>
#include <stdlib.h>

#include "honest.h"

static int is_half(pecert_dtype d)
{
    return d == PECERT_DTYPE_F16 || d == PECERT_DTYPE_BF16;
}

/* ref's view checks know f32; a half view is checked as f32 except for
 * its alignment, which is its own 2 bytes. */
static pecert_status check_view(const pecert__ref_call *call, const char *name,
                                const pecert_tensor *t, int is_output)
{
    if (t == NULL || t->struct_size < sizeof(*t) || !is_half(t->dtype)) {
        return pecert__ref_check_tensor(call, name, t, 3, 0, is_output);
    }
    pecert_tensor as_f32 = *t;
    as_f32.dtype = PECERT_DTYPE_F32;
    as_f32.data = (void *)((uintptr_t)t->data & ~(uintptr_t)3);
    pecert_status st = pecert__ref_check_tensor(call, name, &as_f32, 3, 0, is_output);
    if (st == PECERT_OK && (uintptr_t)t->data % 2 != 0) {
        st = pecert__ref_fail(call, PECERT_E_INVAL, "%s.data is not aligned to its 2-byte dtype", name);
    }
    return st;
}

static pecert_status check_header(const pecert__ref_call *call, const pecert_rope_apply_args *a)
{
    if (a == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "args is NULL");
    }
    if (a->struct_size < sizeof(*a)) {
        return pecert__ref_fail(call, PECERT_E_ABI, "args.struct_size=%" PRIu32 " is smaller than %zu",
                                a->struct_size, sizeof(*a));
    }
    if (a->pairing != PECERT_PAIRING_SPLIT_HALF && a->pairing != PECERT_PAIRING_INTERLEAVED) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "args.pairing=%" PRId32 " must be 0 or 1", a->pairing);
    }
    for (size_t i = 0; i < sizeof(a->reserved) / sizeof(a->reserved[0]); i++) {
        if (a->reserved[i] != 0) {
            return pecert__ref_fail(call, PECERT_E_UNSUPPORTED, "args.reserved[%zu] is non-zero", i);
        }
    }
    return pecert__ref_check_layer_config(call, a->config);
}

static pecert_status check_shapes(const pecert__ref_call *call, const pecert_rope_apply_args *a)
{
    for (int k = 0; k < 3; k++) {
        if (a->out->shape[k] != a->x->shape[k]) {
            return pecert__ref_fail(call, PECERT_E_INVAL, "out.shape[%d]=%" PRId64 " differs from x.shape[%d]=%" PRId64,
                                    k, a->out->shape[k], k, a->x->shape[k]);
        }
    }
    if (a->x->shape[2] != a->config->head_dim) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "x.shape[2]=%" PRId64 " must equal config.head_dim=%" PRId32,
                                a->x->shape[2], a->config->head_dim);
    }
    if (a->x->dtype != a->out->dtype) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "out.dtype=%" PRId32 " differs from x.dtype=%" PRId32,
                                a->out->dtype, a->x->dtype);
    }
    return PECERT_OK;
}

static pecert_status check_arguments(const pecert__ref_call *call, const pecert_rope_apply_args *a)
{
    pecert_status st = check_header(call, a);
    if (st == PECERT_OK) {
        st = pecert__ref_check_seq_len(call, a->seq_len);
    }
    if (st == PECERT_OK) {
        st = check_view(call, "x", a->x, 0);
    }
    if (st == PECERT_OK) {
        st = check_view(call, "out", a->out, 1);
    }
    if (st == PECERT_OK) {
        st = check_shapes(call, a);
    }
    if (st == PECERT_OK) {
        st = pecert__ref_check_positions(call, a->positions, a->x->shape[0]);
    }
    if (st == PECERT_OK) {
        st = pecert__ref_check_in_place(call, a->x, a->out, is_half(a->x->dtype) ? 2 : 4);
    }
    return st;
}

/* Element (t, h, d) of a checked view, as float, and a store rounding to
 * the view's dtype. */
static float load(const pecert_tensor *v, int64_t t, int64_t h, int64_t d)
{
    int64_t off = t * v->strides[0] + h * v->strides[1] + d * v->strides[2];
    switch (v->dtype) {
    case PECERT_DTYPE_F16:
        return honest_f16_to_f32(((const uint16_t *)v->data)[off]);
    case PECERT_DTYPE_BF16:
        return honest_bf16_to_f32(((const uint16_t *)v->data)[off]);
    default:
        return ((const float *)v->data)[off];
    }
}

/* v rounded to dtype and back (identity for f32). */
static float round_to(pecert_dtype dtype, float v)
{
    if (dtype == PECERT_DTYPE_F16) {
        return honest_f16_to_f32(honest_f32_to_f16(v));
    }
    if (dtype == PECERT_DTYPE_BF16) {
        return honest_bf16_to_f32(honest_f32_to_bf16(v));
    }
    return v;
}

static void put(const pecert_tensor *v, int64_t t, int64_t h, int64_t d, float value)
{
    int64_t off = t * v->strides[0] + h * v->strides[1] + d * v->strides[2];
    switch (v->dtype) {
    case PECERT_DTYPE_F16:
        ((uint16_t *)v->data)[off] = honest_f32_to_f16(value);
        break;
    case PECERT_DTYPE_BF16:
        ((uint16_t *)v->data)[off] = honest_f32_to_bf16(value);
        break;
    default:
        ((float *)v->data)[off] = value;
        break;
    }
}

/* The rotated pair (a', b') of (a, b) by the variant's arithmetic. */
void honest_rotate_pair(pecert_dtype dtype, float a, float b, float c, float s, float *ra, float *rb)
{
    if (honest.rotation == HONEST_ROTATE_IN_DTYPE && dtype != PECERT_DTYPE_F32) {
        float ch = round_to(dtype, c);
        float sh = round_to(dtype, s);
        *ra = round_to(dtype, a * ch) - round_to(dtype, b * sh);
        *rb = round_to(dtype, b * ch) + round_to(dtype, a * sh);
    } else if (honest.rotation == HONEST_ROTATE_COMPLEX) {
        float complex z = CMPLXF(a, b) * CMPLXF(c, s);
        *ra = crealf(z);
        *rb = cimagf(z);
    } else {
        *ra = a * c - b * s;
        *rb = b * c + a * s;
    }
}

static void rotate_token(const pecert_rope_apply_args *a, int64_t t, int32_t half, const float *cs,
                         const float *sn)
{
    const pecert_tensor *x = a->x;
    for (int64_t h = 0; h < x->shape[1]; h++) {
        for (int32_t i = 0; i < half; i++) {
            int64_t ia = a->pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i : i;
            int64_t ib = a->pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i + 1 : i + half;
            float ra;
            float rb;
            honest_rotate_pair(x->dtype, load(x, t, h, ia), load(x, t, h, ib), cs[i], sn[i], &ra, &rb);
            put(a->out, t, h, ia, ra);
            put(a->out, t, h, ib, rb);
        }
        for (int64_t d = 2 * half; d < x->shape[2]; d++) {
            put(a->out, t, h, d, load(x, t, h, d)); /* exact: same dtype */
        }
    }
}

pecert_status honest_rope_apply(void *instance, const pecert_rope_apply_args *args)
{
    pecert__ref_call call;
    honest_freqs f;
    pecert__ref_begin_call(&call, instance, "rope_apply");
    pecert_status st = check_arguments(&call, args);
    if (st == PECERT_OK && args->config->layer_kind == PECERT_LAYER_NOPE) {
        for (int64_t t = 0; t < args->x->shape[0]; t++) {
            rotate_token(args, t, 0, NULL, NULL); /* no pair: every channel passes through */
        }
        return PECERT_OK;
    }
    if (st == PECERT_OK) {
        st = honest_freqs_init(&call, &f, args->config, args->seq_len, args->positions, args->x->shape[0]);
    }
    if (st != PECERT_OK) {
        return st;
    }
    size_t half = (size_t)(f.half > 0 ? f.half : 1);
    /* Every row first: a declined position must leave out untouched. */
    float *rows = NULL;
    int64_t n = args->x->shape[0];
    if (n > 0) {
        rows = malloc((size_t)n * 2 * half * sizeof(float));
        st = rows != NULL ? PECERT_OK : pecert__ref_fail(&call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t t = 0; st == PECERT_OK && t < n; t++) {
        st = honest_row(&call, instance, &f, args->config, args->positions[t], rows + (size_t)t * 2 * half,
                        rows + (size_t)t * 2 * half + half);
    }
    for (int64_t t = 0; st == PECERT_OK && t < n; t++) {
        rotate_token(args, t, f.half, rows + (size_t)t * 2 * half, rows + (size_t)t * 2 * half + half);
    }
    free(rows);
    honest_freqs_free(&f);
    return st;
}
