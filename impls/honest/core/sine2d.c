/*
 * sine2d.c - sine2d (plugin.h, pecert_sine2d_args) in float32 as
 * transformers' DetrSinePositionEmbedding computes it on the CPU: the
 * cumulative sums as float32 counts (exact below 2^24), the normalisation
 * (y + offset) / (y_last + eps) * scale in float32, dim_t =
 * temperature ** (2 * floor(i / 2) / F) as torch's float32 pow, then
 * sinf / cosf of y / dim_t. Single-threaded; one engine for all the
 * variants (they differ in their RoPE arithmetic).
 */
#include <math.h>
#include <stdlib.h>

#include "honest.h"

static float coordinate(const pecert_sine2d_args *a, int64_t count, int64_t last)
{
    float v = (float)count;
    if (!a->normalize) {
        return v;
    }
    return (v + (float)a->offset) / ((float)last + (float)a->eps) * (float)a->scale;
}

static void write_axis(const pecert_sine2d_args *a, float *row, float v, const float *dim_t)
{
    for (int32_t i = 0; i < a->num_pos_feats; i++) {
        float angle = v / dim_t[i];
        row[i * a->out->strides[1]] = i % 2 == 0 ? sinf(angle) : cosf(angle);
    }
}

static pecert_status sine2d(const pecert__ref_call *call, const void *op_args)
{
    const pecert_sine2d_args *a = op_args;
    int64_t h = a->mask->shape[0];
    int64_t w = a->mask->shape[1];
    int32_t f = a->num_pos_feats;
    int64_t *y = malloc((size_t)(h * w) * sizeof(int64_t));
    int64_t *x = malloc((size_t)(h * w) * sizeof(int64_t));
    float *dim_t = malloc(2 * (size_t)f * sizeof(float));
    if (y == NULL || x == NULL || dim_t == NULL) {
        free(y);
        free(x);
        free(dim_t);
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < f; i++) {
        float exponent = (float)(2 * (i / 2)) / (float)f;
        dim_t[i] = powf((float)a->temperature_y, exponent);
        dim_t[f + i] = powf((float)a->temperature_x, exponent);
    }
    pecert__ref_sine2d_counts(a->mask, y, x);
    float *out = a->out->data;
    for (int64_t r = 0; r < h; r++) {
        for (int64_t c = 0; c < w; c++) {
            float *row = out + (r * w + c) * a->out->strides[0];
            write_axis(a, row, coordinate(a, y[r * w + c], y[(h - 1) * w + c]), dim_t);
            write_axis(a, row + f * a->out->strides[1], coordinate(a, x[r * w + c], x[r * w + w - 1]), dim_t + f);
        }
    }
    free(y);
    free(x);
    free(dim_t);
    return PECERT_OK;
}

pecert_status honest_sine2d(void *instance, const pecert_sine2d_args *args)
{
    return pecert__ref_run(instance, "sine2d", args, sizeof(*args), pecert__ref_check_sine2d, sine2d);
}
