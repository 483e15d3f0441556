/*
 * sine2d.c - sine2d (plugin.h) in the base's precision (mutant_real:
 * double on ref, float on the float32 base), with one step of DETR's sine
 * embedding done the way a mutant_sine2d_rule says: the mask ignored (the
 * padded map's extent for every line), Deformable DETR's offset where the
 * model has none or none where it has one, each axis' sin and cos in
 * halves instead of interleaved, or the columns' channels before the rows'.
 */
#include <stdlib.h>

#include "mutant.h"

static int64_t mask_at(const pecert_tensor *m, int64_t r, int64_t c)
{
    int64_t at = r * m->strides[0] + c * m->strides[1];
    return m->dtype == PECERT_DTYPE_I32 ? ((const int32_t *)m->data)[at] : ((const int64_t *)m->data)[at];
}

/* The cumulative counts as the rule reads the mask. */
static void counts(const pecert_sine2d_args *a, const mutant_sine2d_rule *rule, int64_t *y, int64_t *x)
{
    int64_t h = a->mask->shape[0], w = a->mask->shape[1];
    for (int64_t r = 0; r < h; r++) {
        int64_t along = 0;
        for (int64_t c = 0; c < w; c++) {
            int64_t m = rule->mask_ignored ? 1 : mask_at(a->mask, r, c);
            along += m;
            x[r * w + c] = along;
            y[r * w + c] = (r > 0 ? y[(r - 1) * w + c] : 0) + m;
        }
    }
}

static mutant_real coordinate(const pecert_sine2d_args *a, const mutant_sine2d_rule *rule, int64_t count,
                              int64_t total)
{
    if (!a->normalize) {
        return (mutant_real)count;
    }
    mutant_real offset = (mutant_real)a->offset;
    if (rule->offset_swapped) {
        offset = a->offset == 0.0 ? (mutant_real)-0.5 : 0;
    }
    return ((mutant_real)count + offset) / ((mutant_real)total + (mutant_real)a->eps) * (mutant_real)a->scale;
}

/* F channels of one axis from channel c0: interleaved, or sin | cos halves. */
static void write_axis(const pecert_sine2d_args *a, const mutant_sine2d_rule *rule, int64_t row, int64_t c0,
                       mutant_real v, double temperature)
{
    int64_t f = a->num_pos_feats;
    for (int64_t i = 0; i < f; i++) {
        mutant_real dim_t = (mutant_real)pow(temperature, (double)(2 * (i / 2)) / (double)f);
        mutant_real s, c;
        mutant_sincos(v / dim_t, &s, &c);
        int64_t at = rule->halves ? (i % 2 == 0 ? i / 2 : f / 2 + i / 2) : i;
        mutant_store_2d(a->out, row, c0 + at, (double)(i % 2 == 0 ? s : c));
    }
}

static pecert_status broken_sine2d(const pecert_sine2d_args *a, const mutant_sine2d_rule *rule)
{
    int64_t h = a->mask->shape[0], w = a->mask->shape[1], f = a->num_pos_feats;
    int64_t *y = malloc((size_t)(h * w) * sizeof(int64_t));
    int64_t *x = malloc((size_t)(h * w) * sizeof(int64_t));
    if (y == NULL || x == NULL) {
        free(y);
        free(x);
        return PECERT_E_NOMEM;
    }
    counts(a, rule, y, x);
    int64_t y_at = rule->axes_swapped ? f : 0;
    for (int64_t r = 0; r < h; r++) {
        for (int64_t c = 0; c < w; c++) {
            int64_t p = r * w + c;
            write_axis(a, rule, p, y_at, coordinate(a, rule, y[p], y[(h - 1) * w + c]), a->temperature_y);
            write_axis(a, rule, p, f - y_at, coordinate(a, rule, x[p], x[r * w + w - 1]), a->temperature_x);
        }
    }
    free(y);
    free(x);
    return PECERT_OK;
}

/* The base answers first: a call it refuses is refused the same way, and
 * one it accepts is valid for the hand-written kernel, which then
 * overwrites the output. */
static pecert_status (*base_sine2d)(void *instance, const pecert_sine2d_args *args);
static const mutant_sine2d_rule *active_rule;

static pecert_status sine2d(void *instance, const pecert_sine2d_args *a)
{
    pecert_status st = base_sine2d(instance, a);
    return st == PECERT_OK ? broken_sine2d(a, active_rule) : st;
}

void mutant_patch_sine2d(pecert_plugin *desc, const mutant_sine2d_rule *rule)
{
    base_sine2d = desc->sine2d;
    active_rule = rule;
    desc->sine2d = sine2d;
}
