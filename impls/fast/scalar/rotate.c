/*
 * rotate.c - the rotation of one token's heads in portable C: the
 * fallback kernels, the generic kernel for any channel stride, and the
 * arithmetic every SIMD kernel reproduces bit for bit.
 *
 * For a pair (a, b) with table entries c = cos, s = sin (scaled):
 *     out_a = a*c - b*s,   out_b = b*c + a*s          (float32, no fma)
 * split-half (models/llama/modeling_llama.py, rotate_half): a = x[i],
 * b = x[i + half]. Interleaved (models/gptj/modeling_gptj.py,
 * rotate_every_two): a = x[2i], b = x[2i+1]; its table row stores
 * sin[2i] = -s, so out_a = a*cos[2i] + b*sin[2i] is a*c - b*s exactly and
 * each lane of a vector does the same multiply-add.
 *
 * Each pair is read before it is written, so out == x (in place) is safe;
 * f16/bf16 values are widened to float32, rotated, and rounded back once.
 */
#include <string.h>

#include "../fast.h"

/* The element types as load/store functions (f32 arithmetic for all). */
static float load(const void *base, int64_t index, pecert__fast_dtype dtype)
{
    switch (dtype) {
    case PECERT__FAST_F16:
        return pecert__fast_f16_to_f32(((const uint16_t *)base)[index]);
    case PECERT__FAST_BF16:
        return pecert__fast_bf16_to_f32(((const uint16_t *)base)[index]);
    default:
        return ((const float *)base)[index];
    }
}

static void store(void *base, int64_t index, float value, pecert__fast_dtype dtype)
{
    switch (dtype) {
    case PECERT__FAST_F16:
        ((uint16_t *)base)[index] = pecert__fast_f32_to_f16(value);
        break;
    case PECERT__FAST_BF16:
        ((uint16_t *)base)[index] = pecert__fast_f32_to_bf16(value);
        break;
    default:
        ((float *)base)[index] = value;
        break;
    }
}

static size_t element_size(pecert__fast_dtype dtype)
{
    return dtype == PECERT__FAST_F32 ? sizeof(float) : sizeof(uint16_t);
}

/* The head-h row of a span in x / out. */
static const void *x_row(const pecert__fast_span *span, int64_t h, size_t size)
{
    return (const char *)span->x + (size_t)(h * span->x_head) * size;
}

static void *out_row(const pecert__fast_span *span, int64_t h, size_t size)
{
    return (char *)span->out + (size_t)(h * span->out_head) * size;
}

/* Pairs [first, half) of one head with strided channels: pair i is
 * channels (a, b); its table entries are cos[i], sin[i] (split) or
 * cos[a], sin[a] and cos[b], sin[b] (pairs). */
static void rotate_head(const pecert__fast_span *span, const void *x, void *out, int32_t first,
                        pecert__fast_dtype dtype, int layout)
{
    int32_t i;

    for (i = first; i < span->half; i++) {
        int64_t a = layout == PECERT__FAST_PAIRS ? 2 * (int64_t)i : i;
        int64_t b = layout == PECERT__FAST_PAIRS ? a + 1 : i + (int64_t)span->half;
        float xa = load(x, a * span->x_chan, dtype);
        float xb = load(x, b * span->x_chan, dtype);

        if (layout == PECERT__FAST_PAIRS) {
            store(out, a * span->out_chan, xa * span->cos[a] + xb * span->sin[a], dtype);
            store(out, b * span->out_chan, xb * span->cos[b] + xa * span->sin[b], dtype);
        } else {
            store(out, a * span->out_chan, xa * span->cos[i] - xb * span->sin[i], dtype);
            store(out, b * span->out_chan, xb * span->cos[i] + xa * span->sin[i], dtype);
        }
    }
}

/* Channels rotary_dim .. head_dim - 1 of one head, bit for bit. */
static void copy_head(const pecert__fast_span *span, const void *x, void *out, size_t size)
{
    int64_t d;

    if (span->x_chan == 1 && span->out_chan == 1) {
        size_t first = (size_t)(2 * span->half) * size;

        memcpy((char *)out + first, (const char *)x + first,
               (size_t)(span->head_dim - 2 * span->half) * size);
        return;
    }
    for (d = 2 * (int64_t)span->half; d < span->head_dim; d++) {
        memcpy((char *)out + (size_t)(d * span->out_chan) * size,
               (const char *)x + (size_t)(d * span->x_chan) * size, size);
    }
}

/* Head by head: the rotation, then the passthrough copy - `ref`'s order,
 * which also makes this the canonical kernel for odd output layouts. */
void pecert__fast_rotate_strided(const pecert__fast_span *span, pecert__fast_dtype dtype,
                                 int layout)
{
    size_t size = element_size(dtype);
    int64_t h;

    for (h = 0; h < span->n_heads; h++) {
        const void *x = x_row(span, h, size);
        void *out = out_row(span, h, size);

        rotate_head(span, x, out, 0, dtype, layout);
        if (span->copy_pass) {
            copy_head(span, x, out, size);
        }
    }
}

void pecert__fast_rotate_tail(const pecert__fast_span *span, const void *x, void *out,
                              int32_t first, pecert__fast_dtype dtype, int layout)
{
    pecert__fast_span unit = *span;

    unit.x_chan = 1;
    unit.out_chan = 1;
    rotate_head(&unit, x, out, first, dtype, layout);
}

/* The contiguous kernels are the generic one with unit channel strides
 * (the compiler specialises the calls below). */
static void rotate_contiguous(const pecert__fast_span *span, pecert__fast_dtype dtype,
                              int layout)
{
    pecert__fast_span unit = *span;

    unit.x_chan = 1;
    unit.out_chan = 1;
    pecert__fast_rotate_strided(&unit, dtype, layout);
}

void pecert__fast_rotate_f32_split_scalar(const pecert__fast_span *span)
{
    rotate_contiguous(span, PECERT__FAST_F32, PECERT__FAST_SPLIT);
}

void pecert__fast_rotate_f32_pairs_scalar(const pecert__fast_span *span)
{
    rotate_contiguous(span, PECERT__FAST_F32, PECERT__FAST_PAIRS);
}

void pecert__fast_rotate_f16_split_scalar(const pecert__fast_span *span)
{
    rotate_contiguous(span, PECERT__FAST_F16, PECERT__FAST_SPLIT);
}

void pecert__fast_rotate_f16_pairs_scalar(const pecert__fast_span *span)
{
    rotate_contiguous(span, PECERT__FAST_F16, PECERT__FAST_PAIRS);
}

void pecert__fast_rotate_bf16_split_scalar(const pecert__fast_span *span)
{
    rotate_contiguous(span, PECERT__FAST_BF16, PECERT__FAST_SPLIT);
}

void pecert__fast_rotate_bf16_pairs_scalar(const pecert__fast_span *span)
{
    rotate_contiguous(span, PECERT__FAST_BF16, PECERT__FAST_PAIRS);
}
