/*
 * relpos2d.c - relpos2d_bias (plugin.h, pecert_relpos2d_args) in float32
 * as transformers' SamVisionAttention computes it on the CPU: the table
 * resized by linear interpolation in float32 (source coordinate, weights
 * and the blend), the rows gathered with get_rel_pos' float32 index, each
 * einsum's dot product accumulated in float32 channel by channel, and
 * rel_h + rel_w added in float32. Single-threaded; one engine for all the
 * variants (they differ in their RoPE arithmetic).
 */
#include <stdlib.h>

#include "honest.h"

/* The table [L, C] resized to rows x C in float32, as upsample_linear1d. */
static float *resize_table(const pecert_tensor *t, int64_t rows)
{
    int64_t len = t->shape[0];
    int64_t channels = t->shape[1];
    const float *data = t->data;
    float *out = malloc((size_t)(rows * channels) * sizeof(float));
    if (out == NULL) {
        return NULL;
    }
    float scale = (float)len / (float)rows;
    for (int64_t r = 0; r < rows; r++) {
        float src = len == rows ? (float)r : scale * ((float)r + 0.5f) - 0.5f;
        src = src > 0.0f ? src : 0.0f;
        int64_t lo = (int64_t)src;
        int64_t hi = lo < len - 1 ? lo + 1 : lo;
        float w1 = src - (float)lo;
        float w0 = 1.0f - w1;
        for (int64_t c = 0; c < channels; c++) {
            float a = data[lo * t->strides[0] + c * t->strides[1]];
            float b = data[hi * t->strides[0] + c * t->strides[1]];
            out[r * channels + c] = w0 * a + w1 * b;
        }
    }
    return out;
}

/* One axis: dots[(h * tokens_q + i) * k + b] in float32. */
static void axis_dots(const pecert_relpos2d_args *a, const float *table, int64_t q, int64_t k, int vertical,
                      float *dots)
{
    const pecert_tensor *x = a->query;
    const float *data = x->data;
    int64_t tokens_q = a->q_h * a->q_w;
    int64_t channels = x->shape[2];
    for (int64_t h = 0; h < x->shape[0]; h++) {
        for (int64_t i = 0; i < tokens_q; i++) {
            int64_t coord = vertical ? i / a->q_w : i % a->q_w;
            const float *qrow = data + h * x->strides[0] + i * x->strides[1];
            for (int64_t b = 0; b < k; b++) {
                const float *row = table + pecert__ref_relpos2d_row(q, k, coord, b) * channels;
                float dot = 0.0f;
                for (int64_t c = 0; c < channels; c++) {
                    dot += qrow[c * x->strides[2]] * row[c];
                }
                dots[(h * tokens_q + i) * k + b] = dot;
            }
        }
    }
}

static pecert_status relpos2d(const pecert__ref_call *call, const void *op_args)
{
    const pecert_relpos2d_args *a = op_args;
    int64_t n = a->query->shape[0];
    int64_t tokens_q = a->q_h * a->q_w;
    int64_t tokens_k = a->k_h * a->k_w;
    float *table_h = resize_table(a->rel_pos_h, 2 * (a->q_h > a->k_h ? a->q_h : a->k_h) - 1);
    float *table_w = resize_table(a->rel_pos_w, 2 * (a->q_w > a->k_w ? a->q_w : a->k_w) - 1);
    float *dots_h = malloc((size_t)(n * tokens_q * a->k_h) * sizeof(float));
    float *dots_w = malloc((size_t)(n * tokens_q * a->k_w) * sizeof(float));
    pecert_status status = PECERT_OK;
    if (table_h == NULL || table_w == NULL || dots_h == NULL || dots_w == NULL) {
        status = pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    } else {
        axis_dots(a, table_h, a->q_h, a->k_h, 1, dots_h);
        axis_dots(a, table_w, a->q_w, a->k_w, 0, dots_w);
        float *out = a->out->data;
        for (int64_t h = 0; h < n; h++) {
            for (int64_t i = 0; i < tokens_q; i++) {
                const float *rh = dots_h + (h * tokens_q + i) * a->k_h;
                const float *rw = dots_w + (h * tokens_q + i) * a->k_w;
                float *row = out + h * a->out->strides[0] + i * a->out->strides[1];
                for (int64_t j = 0; j < tokens_k; j++) {
                    row[j * a->out->strides[2]] = rh[j / a->k_w] + rw[j % a->k_w];
                }
            }
        }
    }
    free(table_h);
    free(table_w);
    free(dots_h);
    free(dots_w);
    return status;
}

pecert_status honest_relpos2d_bias(void *instance, const pecert_relpos2d_args *args)
{
    return pecert__ref_run(instance, "relpos2d_bias", args, sizeof(*args), pecert__ref_check_relpos2d, relpos2d);
}
