/*
 * posinterp.c - pos_interpolate (plugin.h) in the base's precision
 * (mutant_real: double on ref, float on the float32 base), with the
 * conventions of a mutant_posinterp_rule broken on request. The right
 * resize: per axis, output i reads source coordinate x = i (n_in - 1) /
 * (n_out - 1) with align_corners, else (i + 0.5) s - 0.5 (s = n_in / n_out,
 * or 1 / scale); bicubic takes four clamped taps of the A = -0.75 kernel,
 * bilinear two from x clamped at 0; antialias takes the normalised window
 * of the A = -0.5 kernel (or the triangle) around (i + 0.5) s, stretched
 * by s when s > 1.
 */
#include <math.h>
#include <stdlib.h>

#include "mutant.h"

typedef struct axis {
    int64_t width;
    int64_t *index;
    mutant_real *weight;
} axis;

/* The conventions the mutant actually uses, the rule applied. */
typedef struct conventions {
    int bicubic;
    int align_corners;
    int antialias;
    mutant_real cubic_a;
    int truncate;
} conventions;

static mutant_real cubic(mutant_real x, mutant_real A)
{
    x = x < 0 ? -x : x;
    if (x < 1) {
        return ((A + 2) * x - (A + 3)) * x * x + 1;
    }
    return x < 2 ? ((A * x - 5 * A) * x + 8 * A) * x - 4 * A : 0;
}

static mutant_real window_kernel(const conventions *cv, mutant_real x)
{
    mutant_real ax = x < 0 ? -x : x;
    return cv->bicubic ? cubic(x, (mutant_real)-0.5) : (ax < 1 ? 1 - ax : 0);
}

static void plain(const conventions *cv, mutant_real step, int64_t n_in, int64_t i, int64_t *index, mutant_real *w)
{
    mutant_real x = cv->align_corners ? step * (mutant_real)i : step * ((mutant_real)i + (mutant_real)0.5) - (mutant_real)0.5;
    if (cv->bicubic) {
        mutant_real f = (mutant_real)floor((double)x);
        for (int k = 0; k < 4; k++) {
            int64_t j = (int64_t)f - 1 + k;
            index[k] = j < 0 ? 0 : (j >= n_in ? n_in - 1 : j);
            w[k] = cubic(x - (f - 1 + (mutant_real)k), cv->cubic_a);
        }
        return;
    }
    x = x < 0 ? 0 : x;
    int64_t i0 = (int64_t)x;
    index[0] = i0;
    index[1] = i0 < n_in - 1 ? i0 + 1 : i0;
    w[1] = x - (mutant_real)i0;
    w[0] = 1 - w[1];
}

static void window(const conventions *cv, mutant_real step, mutant_real support, int64_t n_in, int64_t i,
                   int64_t width, int64_t *index, mutant_real *w)
{
    mutant_real center = step * ((mutant_real)i + (mutant_real)0.5);
    mutant_real inv = step >= 1 ? 1 / step : 1;
    int64_t lo = (int64_t)(center - support + (mutant_real)0.5);
    int64_t hi = (int64_t)(center + support + (mutant_real)0.5);
    mutant_real total = 0;
    lo = lo < 0 ? 0 : lo;
    hi = hi > n_in ? n_in : hi;
    for (int64_t k = 0; k < width; k++) {
        index[k] = lo + k < hi ? lo + k : lo;
        w[k] = lo + k < hi ? window_kernel(cv, ((mutant_real)(lo + k) - center + (mutant_real)0.5) * inv) : 0;
        total += w[k];
    }
    for (int64_t k = 0; total != 0 && k < width; k++) {
        w[k] /= total;
    }
}

static int make_axis(const conventions *cv, int64_t n_in, int64_t n_out, double scale, axis *t)
{
    mutant_real step = cv->align_corners ? (n_out > 1 ? (mutant_real)(n_in - 1) / (mutant_real)(n_out - 1) : 0)
                                         : (scale > 0 ? (mutant_real)(1.0 / scale) : (mutant_real)n_in / (mutant_real)n_out);
    mutant_real half = cv->bicubic ? 2 : 1;
    mutant_real support = cv->antialias && step >= 1 ? half * step : half;
    t->width = cv->antialias ? (int64_t)ceil(2.0 * (double)support) + 1 : (int64_t)(2 * half);
    t->index = malloc((size_t)(n_out * t->width) * sizeof(int64_t));
    t->weight = malloc((size_t)(n_out * t->width) * sizeof(mutant_real));
    if (t->index == NULL || t->weight == NULL) {
        return 0;
    }
    for (int64_t i = 0; i < n_out; i++) {
        if (cv->antialias) {
            window(cv, step, support, n_in, i, t->width, t->index + i * t->width, t->weight + i * t->width);
        } else {
            plain(cv, step, n_in, i, t->index + i * t->width, t->weight + i * t->width);
        }
        for (int64_t k = 0; cv->truncate && k < t->width; k++) {
            t->weight[i * t->width + k] = (mutant_real)(int64_t)t->weight[i * t->width + k];
        }
    }
    return 1;
}

static float table_at(const pecert_tensor *t, int64_t row, int64_t d)
{
    return ((const float *)t->data)[row * t->strides[0] + d * t->strides[1]];
}

static void resize(const pecert_posinterp_args *a, const axis *ty, const axis *tx)
{
    int64_t m = a->merge_size;
    for (int64_t y = 0; y < a->out_h; y++) {
        for (int64_t x = 0; x < a->out_w; x++) {
            int64_t row = a->prefix_tokens + ((y / m) * (a->out_w / m) + x / m) * m * m + (y % m) * m + x % m;
            for (int64_t d = 0; d < a->table->shape[1]; d++) {
                mutant_real sum = 0;
                for (int64_t p = 0; p < ty->width; p++) {
                    mutant_real across = 0;
                    for (int64_t q = 0; q < tx->width; q++) {
                        int64_t src = a->prefix_tokens + ty->index[y * ty->width + p] * a->grid_w +
                                      tx->index[x * tx->width + q];
                        across += tx->weight[x * tx->width + q] * (mutant_real)table_at(a->table, src, d);
                    }
                    sum += ty->weight[y * ty->width + p] * across;
                }
                mutant_store_2d(a->out, row, d, (double)sum);
            }
        }
    }
}

pecert_status mutant_posinterp(const pecert_posinterp_args *a, const mutant_posinterp_rule *rule)
{
    if (a == NULL || a->table == NULL || a->out == NULL || a->table->ndim != 2 || a->out->ndim != 2 ||
        a->merge_size < 1 || a->grid_h < 1 || a->grid_w < 1 || a->out_h < 1 || a->out_w < 1 ||
        a->out_h % a->merge_size != 0 || a->out_w % a->merge_size != 0 || a->prefix_tokens < 0 ||
        a->table->shape[0] != a->prefix_tokens + a->grid_h * a->grid_w ||
        a->out->shape[0] != a->prefix_tokens + a->out_h * a->out_w || a->out->shape[1] != a->table->shape[1] ||
        a->table->dtype != PECERT_DTYPE_F32 || a->out->dtype != PECERT_DTYPE_F32) {
        return PECERT_E_INVAL;
    }
    conventions cv = {.bicubic = a->mode == PECERT_POSINTERP_BICUBIC || rule->bicubic_always,
                      .align_corners = a->align_corners && !rule->half_pixel,
                      .antialias = a->antialias && !rule->no_antialias,
                      .cubic_a = rule->keys_cubic ? (mutant_real)-0.5 : (mutant_real)-0.75,
                      .truncate = rule->weights_truncated};
    if (rule->count_shortcut && a->grid_h * a->grid_w == a->out_h * a->out_w) {
        for (int64_t r = 0; r < a->table->shape[0]; r++) {
            for (int64_t d = 0; d < a->table->shape[1]; d++) {
                mutant_store_2d(a->out, r, d, table_at(a->table, r, d));
            }
        }
        return PECERT_OK;
    }
    if (rule->axes_swapped) {
        pecert_posinterp_args swapped = *a;
        mutant_posinterp_rule rest = *rule;
        swapped.out_h = a->out_w;
        swapped.out_w = a->out_h;
        swapped.scale_h = a->scale_w;
        swapped.scale_w = a->scale_h;
        rest.axes_swapped = 0;
        return mutant_posinterp(&swapped, &rest);
    }
    double scale_h = rule->ignore_scale ? 0.0 : a->scale_h;
    double scale_w = rule->ignore_scale ? 0.0 : a->scale_w;
    axis ty = {0, NULL, NULL};
    axis tx = {0, NULL, NULL};
    pecert_status status = PECERT_E_NOMEM;
    if (make_axis(&cv, a->grid_h, a->out_h, scale_h, &ty) && make_axis(&cv, a->grid_w, a->out_w, scale_w, &tx)) {
        for (int64_t r = 0; r < a->prefix_tokens; r++) {
            for (int64_t d = 0; d < a->table->shape[1]; d++) {
                mutant_store_2d(a->out, r, d, table_at(a->table, r, d));
            }
        }
        resize(a, &ty, &tx);
        status = PECERT_OK;
    }
    free(ty.index);
    free(ty.weight);
    free(tx.index);
    free(tx.weight);
    return status;
}
