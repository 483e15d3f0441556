/*
 * posinterp.c - pos_interpolate (plugin.h, pecert_posinterp_args) in
 * float32 as a port of PyTorch's CPU kernels computes it: every quantity
 * in float, as nn.functional.interpolate's float path has it.
 *
 * The scale is float ((n_in - 1) / (n_out - 1), n_in / n_out, or 1 /
 * scale_factor rounded to float), the source coordinate s (i + 0.5) - 0.5
 * (or s i) is float, its integer part and fraction are taken in float,
 * the cubic coefficients are evaluated in float from that fraction, and
 * the antialias weights are float values of the filter, normalised in
 * float. A cell is the sum over its tap rows of the row weight times the
 * row's float sum across its tap columns (the width first, as PyTorch's
 * kernels and its separable antialias pass both do). The variants differ
 * in their RoPE arithmetic only: this one engine serves them all, the
 * float32 resize that `ref`'s double oracle and the official float32
 * outputs must both admit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "honest.h"

#define CUBIC_A -0.75f     /* mode="bicubic"                      */
#define CUBIC_A_AA -0.5f   /* the antialias filter's cubic        */

typedef struct float_taps {
    int64_t width;  /* taps per output index (unused ones: weight 0) */
    int64_t *index; /* [n_out * width]                               */
    float *weight;  /* [n_out * width]                               */
} float_taps;

static float cubic_near(float x, float a)
{
    return ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f;
}

static float cubic_far(float x, float a)
{
    return ((a * x - 5.0f * a) * x + 8.0f * a) * x - 4.0f * a;
}

static float aa_filter(int32_t mode, float x)
{
    x = fabsf(x);
    if (mode == PECERT_POSINTERP_BILINEAR) {
        return x < 1.0f ? 1.0f - x : 0.0f;
    }
    if (x < 1.0f) {
        return cubic_near(x, CUBIC_A_AA);
    }
    return x < 2.0f ? cubic_far(x, CUBIC_A_AA) : 0.0f;
}

static int64_t clamp_index(int64_t j, int64_t n)
{
    return j < 0 ? 0 : (j >= n ? n - 1 : j);
}

static float axis_scale(const pecert_posinterp_args *a, int64_t n_in, int64_t n_out, double scale)
{
    if (a->align_corners) {
        return n_out > 1 ? (float)(n_in - 1) / (float)(n_out - 1) : 0.0f;
    }
    return scale > 0.0 ? (float)(1.0 / scale) : (float)n_in / (float)n_out;
}

static void plan_cubic(float s, int align, int64_t n_in, int64_t i, int64_t *index, float *weight)
{
    float real = align ? s * (float)i : s * ((float)i + 0.5f) - 0.5f;
    float base = floorf(real);
    float t = real - base;
    weight[0] = cubic_far(t + 1.0f, CUBIC_A);
    weight[1] = cubic_near(t, CUBIC_A);
    weight[2] = cubic_near(1.0f - t, CUBIC_A);
    weight[3] = cubic_far(2.0f - t, CUBIC_A);
    for (int k = 0; k < 4; k++) {
        index[k] = clamp_index((int64_t)base - 1 + k, n_in);
    }
}

static void plan_linear(float s, int align, int64_t n_in, int64_t i, int64_t *index, float *weight)
{
    float real = align ? s * (float)i : s * ((float)i + 0.5f) - 0.5f;
    real = real < 0.0f ? 0.0f : real;
    int64_t i0 = (int64_t)real;
    float l1 = fminf(fmaxf(real - (float)i0, 0.0f), 1.0f);
    index[0] = i0;
    index[1] = i0 + (i0 < n_in - 1 ? 1 : 0);
    weight[0] = 1.0f - l1;
    weight[1] = l1;
}

static void plan_antialias(int32_t mode, float s, int64_t n_in, int64_t i, int64_t width, int64_t *index,
                           float *weight)
{
    float support = (mode == PECERT_POSINTERP_BILINEAR ? 1.0f : 2.0f) * (s >= 1.0f ? s : 1.0f);
    float invscale = s >= 1.0f ? 1.0f / s : 1.0f;
    float centre = s * ((float)i + 0.5f);
    int64_t lo = (int64_t)(centre - support + 0.5f);
    int64_t hi = (int64_t)(centre + support + 0.5f);
    lo = lo < 0 ? 0 : lo;
    hi = hi > n_in ? n_in : hi;
    float total = 0.0f;
    for (int64_t k = 0; k < width; k++) {
        int64_t j = lo + k;
        index[k] = j < hi ? j : lo;
        weight[k] = j < hi ? aa_filter(mode, ((float)j - centre + 0.5f) * invscale) : 0.0f;
        total += weight[k];
    }
    for (int64_t k = 0; total != 0.0f && k < width; k++) {
        weight[k] /= total;
    }
}

static int plan_axis(const pecert_posinterp_args *a, int64_t n_in, int64_t n_out, double scale, float_taps *t)
{
    float s = axis_scale(a, n_in, n_out, scale);
    if (a->antialias) {
        float support = (a->mode == PECERT_POSINTERP_BILINEAR ? 1.0f : 2.0f) * (s >= 1.0f ? s : 1.0f);
        t->width = (int64_t)ceilf(support) * 2 + 1;
    } else {
        t->width = a->mode == PECERT_POSINTERP_BILINEAR ? 2 : 4;
    }
    t->index = malloc((size_t)(n_out * t->width) * sizeof(int64_t));
    t->weight = malloc((size_t)(n_out * t->width) * sizeof(float));
    if (t->index == NULL || t->weight == NULL) {
        return 0;
    }
    for (int64_t i = 0; i < n_out; i++) {
        int64_t *index = t->index + i * t->width;
        float *weight = t->weight + i * t->width;
        if (a->antialias) {
            plan_antialias(a->mode, s, n_in, i, t->width, index, weight);
        } else if (a->mode == PECERT_POSINTERP_BILINEAR) {
            plan_linear(s, a->align_corners, n_in, i, index, weight);
        } else {
            plan_cubic(s, a->align_corners, n_in, i, index, weight);
        }
    }
    return 1;
}

static float *at(const pecert_tensor *t, int64_t row, int64_t d)
{
    return (float *)t->data + row * t->strides[0] + d * t->strides[1];
}

/* Output row of grid cell (y, x): row-major, or in merge x merge windows. */
static int64_t out_row(const pecert_posinterp_args *a, int64_t y, int64_t x)
{
    int64_t m = a->merge_size;
    int64_t windows_across = a->out_w / m;
    return a->prefix_tokens + (((y / m) * windows_across + x / m) * m + y % m) * m + x % m;
}

static void resize_cell(const pecert_posinterp_args *a, const float_taps *ty, const float_taps *tx, int64_t y,
                        int64_t x)
{
    int64_t row = out_row(a, y, x);
    for (int64_t d = 0; d < a->table->shape[1]; d++) {
        float sum = 0.0f;
        for (int64_t p = 0; p < ty->width; p++) {
            int64_t src_y = ty->index[y * ty->width + p];
            float across = 0.0f;
            for (int64_t q = 0; q < tx->width; q++) {
                int64_t src = a->prefix_tokens + src_y * a->grid_w + tx->index[x * tx->width + q];
                across += tx->weight[x * tx->width + q] * *at(a->table, src, d);
            }
            sum += ty->weight[y * ty->width + p] * across;
        }
        *at(a->out, row, d) = sum;
    }
}

/* Every source row's horizontal sums once (each resize_cell's `across`,
 * the same terms in the same order), shared by the output rows that read
 * it; NULL when it does not fit (resize_cell then works cell by cell). */
static float *row_sums(const pecert_posinterp_args *a, const float_taps *tx)
{
    int64_t dim = a->table->shape[1];
    float *rows = malloc((size_t)a->grid_h * (size_t)a->out_w * (size_t)dim * sizeof(float));
    if (rows == NULL) {
        return NULL;
    }
    for (int64_t sy = 0; sy < a->grid_h; sy++) {
        for (int64_t x = 0; x < a->out_w; x++) {
            for (int64_t d = 0; d < dim; d++) {
                float across = 0.0f;
                for (int64_t q = 0; q < tx->width; q++) {
                    int64_t src = a->prefix_tokens + sy * a->grid_w + tx->index[x * tx->width + q];
                    across += tx->weight[x * tx->width + q] * *at(a->table, src, d);
                }
                rows[(sy * a->out_w + x) * dim + d] = across;
            }
        }
    }
    return rows;
}

static void resize_cell_from_rows(const pecert_posinterp_args *a, const float_taps *ty, const float *rows, int64_t y,
                                  int64_t x)
{
    int64_t dim = a->table->shape[1];
    int64_t row = out_row(a, y, x);
    for (int64_t d = 0; d < dim; d++) {
        float sum = 0.0f;
        for (int64_t p = 0; p < ty->width; p++) {
            sum += ty->weight[y * ty->width + p] * rows[(ty->index[y * ty->width + p] * a->out_w + x) * dim + d];
        }
        *at(a->out, row, d) = sum;
    }
}

static pecert_status pos_interpolate(const pecert__ref_call *call, const void *op_args)
{
    const pecert_posinterp_args *args = op_args;
    pecert_status st = PECERT_OK;
    float_taps ty = {0, NULL, NULL};
    float_taps tx = {0, NULL, NULL};
    if (plan_axis(args, args->grid_h, args->out_h, args->scale_h, &ty) &&
        plan_axis(args, args->grid_w, args->out_w, args->scale_w, &tx)) {
        for (int64_t r = 0; r < args->prefix_tokens; r++) {
            for (int64_t d = 0; d < args->table->shape[1]; d++) {
                *at(args->out, r, d) = *at(args->table, r, d);
            }
        }
        float *rows = row_sums(args, &tx);
        for (int64_t y = 0; y < args->out_h; y++) {
            for (int64_t x = 0; x < args->out_w; x++) {
                if (rows != NULL) {
                    resize_cell_from_rows(args, &ty, rows, y, x);
                } else {
                    resize_cell(args, &ty, &tx, y, x);
                }
            }
        }
        free(rows);
    } else {
        st = pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    free(ty.index), free(ty.weight), free(tx.index), free(tx.weight);
    return st;
}

pecert_status honest_pos_interpolate(void *instance, const pecert_posinterp_args *args)
{
    return pecert__ref_run(instance, "pos_interpolate", args, sizeof(*args),
                           pecert__ref_check_posinterp, pos_interpolate);
}
