/*
 * relpos2d.c - relpos2d_bias (plugin.h) in the base's precision
 * (mutant_real: double on ref, float on the float32 base), with the
 * tables resized the way a mutant_relpos2d_rule says: corner to corner
 * (align_corners=True), or at i L / L' without the half-pixel offset.
 * Everything else is plugin.h's: get_rel_pos' float32 index, the two dot
 * products.
 */
#include <stdlib.h>

#include "mutant.h"

/* The source coordinate of resized row `row` (L' = out_rows) as the rule
 * reads it; plugin.h's half-pixel centres when the rule is all zero. */
static double source_row(const mutant_relpos2d_rule *rule, int64_t len, int64_t out_rows, int64_t row)
{
    double src;
    if (rule->align_corners) {
        src = out_rows > 1 ? (double)row * (double)(len - 1) / (double)(out_rows - 1) : 0.0;
    } else if (rule->asymmetric) {
        src = (double)row * (double)len / (double)out_rows;
    } else {
        src = ((double)row + 0.5) * (double)len / (double)out_rows - 0.5;
    }
    return src > 0.0 ? src : 0.0;
}

/* The table [L, C] resized to out_rows rows as the rule reads it. */
static mutant_real *resize(const pecert_tensor *t, int64_t out_rows, const mutant_relpos2d_rule *rule)
{
    int64_t len = t->shape[0], channels = t->shape[1];
    const float *data = t->data;
    mutant_real *out = malloc((size_t)(out_rows * channels) * sizeof(mutant_real));
    for (int64_t r = 0; out != NULL && r < out_rows; r++) {
        int64_t lo = r < len ? r : len - 1, hi = lo;
        double w = 0.0;
        if (len != out_rows) {
            double src = source_row(rule, len, out_rows, r);
            lo = (int64_t)src;
            lo = lo < len - 1 ? lo : len - 1;
            hi = lo < len - 1 ? lo + 1 : lo;
            w = src - (double)lo;
        }
        for (int64_t c = 0; c < channels; c++) {
            mutant_real a = data[lo * t->strides[0] + c * t->strides[1]];
            mutant_real b = data[hi * t->strides[0] + c * t->strides[1]];
            out[r * channels + c] = (mutant_real)(1.0 - w) * a + (mutant_real)w * b;
        }
    }
    return out;
}

/* get_rel_pos' float32 index (plugin.h). */
static int64_t rel_row(int64_t q, int64_t k, int64_t a, int64_t b)
{
    double ratio_q = (double)k / (double)q > 1.0 ? (double)k / (double)q : 1.0;
    double ratio_k = (double)q / (double)k > 1.0 ? (double)q / (double)k : 1.0;
    float rel = ((float)a * (float)ratio_q - (float)b * (float)ratio_k) + (float)((double)(k - 1) * ratio_k);
    return (int64_t)rel;
}

static mutant_real dot(const pecert_tensor *x, int64_t head, int64_t i, const mutant_real *row)
{
    const float *data = x->data;
    mutant_real sum = 0;
    for (int64_t c = 0; c < x->shape[2]; c++) {
        sum += (mutant_real)data[head * x->strides[0] + i * x->strides[1] + c * x->strides[2]] * row[c];
    }
    return sum;
}

static pecert_status broken_relpos2d(const pecert_relpos2d_args *a, const mutant_relpos2d_rule *rule)
{
    int64_t channels = a->query->shape[2];
    int64_t rows_h = 2 * (a->q_h > a->k_h ? a->q_h : a->k_h) - 1;
    int64_t rows_w = 2 * (a->q_w > a->k_w ? a->q_w : a->k_w) - 1;
    mutant_real *th = resize(a->rel_pos_h, rows_h, rule);
    mutant_real *tw = resize(a->rel_pos_w, rows_w, rule);
    if (th == NULL || tw == NULL) {
        free(th);
        free(tw);
        return PECERT_E_NOMEM;
    }
    float *out = a->out->data;
    for (int64_t head = 0; head < a->query->shape[0]; head++) {
        for (int64_t i = 0; i < a->q_h * a->q_w; i++) {
            for (int64_t j = 0; j < a->k_h * a->k_w; j++) {
                int64_t row_h = rel_row(a->q_h, a->k_h, i / a->q_w, j / a->k_w);
                int64_t row_w = rel_row(a->q_w, a->k_w, i % a->q_w, j % a->k_w);
                mutant_real bias = dot(a->query, head, i, th + row_h * channels) +
                                   dot(a->query, head, i, tw + row_w * channels);
                out[head * a->out->strides[0] + i * a->out->strides[1] + j * a->out->strides[2]] = (float)bias;
            }
        }
    }
    free(th);
    free(tw);
    return PECERT_OK;
}

/* The base answers first: a call it refuses is refused the same way, and
 * one it accepts is valid for the hand-written kernel, which then
 * overwrites the output. */
static pecert_status (*base_relpos2d)(void *instance, const pecert_relpos2d_args *args);
static const mutant_relpos2d_rule *active_rule;

static pecert_status relpos2d(void *instance, const pecert_relpos2d_args *a)
{
    pecert_status st = base_relpos2d(instance, a);
    return st == PECERT_OK ? broken_relpos2d(a, active_rule) : st;
}

void mutant_patch_relpos2d(pecert_plugin *desc, const mutant_relpos2d_rule *rule)
{
    base_relpos2d = desc->relpos2d_bias;
    active_rule = rule;
    desc->relpos2d_bias = relpos2d;
}
