/*
 * deberta.c - deberta_bias (plugin.h) in the base's precision
 * (mutant_real: double on ref, float on the float32 base), with the
 * buckets or the p2c row read the way a mutant_deberta_rule says: the p2c
 * row at -b(i - j) (nntrainer), the buckets spread over the sequence
 * length (TensorRT's plugin), (max_position - 1) / mid in integers, the
 * c2p row without + span, the terms divided by d sf without its root
 * (rust-bert). Everything else is plugin.h's: the rows clamped to the
 * table, the dot products, the division by sqrt(d sf).
 */
#include <math.h>
#include <stdlib.h>

#include "mutant.h"

/* b(r) as the rule reads it (a ratio of 1 or less puts every far r past
 * the last row, as the ports' arithmetic does). */
static int64_t bucket(const mutant_deberta_rule *rule, int64_t r, int64_t bucket_size, int64_t max_position,
                      int64_t len)
{
    int64_t mid = bucket_size / 2;
    int64_t distance = r < 0 ? -r : r;
    if (bucket_size <= 0 || distance <= mid) {
        return r;
    }
    int64_t top = rule->length_as_max ? len : max_position;
    double ratio = rule->integer_ratio ? (double)((top - 1) / mid) : (double)(top - 1) / (double)mid;
    double x = ratio > 1.0 ? log((double)distance / (double)mid) / log(ratio) * (double)(mid - 1) : 1e9;
    int64_t b = mid + (int64_t)ceil(x < 1e9 ? x : 1e9);
    return r < 0 ? -b : b;
}

static int64_t row_of(const mutant_deberta_rule *rule, const pecert_deberta_args *a, int p2c, int64_t r, int64_t len)
{
    int64_t span = a->bucket_size > 0 ? a->bucket_size : a->max_position;
    int64_t b = bucket(rule, r, a->bucket_size, a->max_position, len);
    int64_t row = (p2c && rule->p2c_sign ? -b : b) + (!p2c && rule->c2p_no_span ? 0 : span);
    return row < 0 ? 0 : row > 2 * span - 1 ? 2 * span - 1 : row;
}

static mutant_real dot(const pecert_tensor *x, int64_t n, int64_t t, const pecert_tensor *table, int64_t h,
                       int64_t row)
{
    const float *xd = x->data;
    const float *td = table->data;
    mutant_real sum = 0;
    for (int64_t c = 0; c < x->shape[2]; c++) {
        sum += (mutant_real)xd[n * x->strides[0] + t * x->strides[1] + c * x->strides[2]] *
               (mutant_real)td[h * table->strides[0] + row * table->strides[1] + c * table->strides[2]];
    }
    return sum;
}

static pecert_status broken_deberta(const pecert_deberta_args *a, const mutant_deberta_rule *rule)
{
    int64_t n = a->q->shape[0], len = a->q->shape[1];
    /* Each term's row per distance i - j, once ([term][i - j + len - 1]). */
    int64_t *rows = malloc((size_t)(2 * (2 * len - 1)) * sizeof(int64_t));
    if (rows == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int64_t r = -(len - 1); r <= len - 1; r++) {
        rows[r + len - 1] = row_of(rule, a, 0, r, len);
        rows[2 * len - 1 + r + len - 1] = row_of(rule, a, 1, r, len);
    }
    int c2p = (a->terms & PECERT_DEBERTA_C2P) != 0, p2c = (a->terms & PECERT_DEBERTA_P2C) != 0;
    int64_t heads = (c2p ? a->pos_key : a->pos_query)->shape[0];
    double d_sf = (double)a->q->shape[2] * (double)(1 + c2p + p2c);
    mutant_real s = (mutant_real)(rule->scale_no_sqrt ? d_sf : sqrt(d_sf));
    float *out = a->out->data;
    for (int64_t b = 0; b < n; b++) {
        for (int64_t i = 0; i < len; i++) {
            for (int64_t j = 0; j < len; j++) {
                mutant_real bias = 0;
                if (c2p) {
                    bias += dot(a->q, b, i, a->pos_key, b % heads, rows[i - j + len - 1]) / s;
                }
                if (p2c) {
                    bias += dot(a->k, b, j, a->pos_query, b % heads, rows[2 * len - 1 + i - j + len - 1]) / s;
                }
                out[b * a->out->strides[0] + i * a->out->strides[1] + j * a->out->strides[2]] = (float)bias;
            }
        }
    }
    free(rows);
    return PECERT_OK;
}

/* The base answers first: a call it refuses is refused the same way, and
 * one it accepts is valid for the hand-written kernel, which then
 * overwrites the output. */
static pecert_status (*base_deberta)(void *instance, const pecert_deberta_args *args);
static const mutant_deberta_rule *active_rule;

static pecert_status deberta(void *instance, const pecert_deberta_args *a)
{
    pecert_status st = base_deberta(instance, a);
    return st == PECERT_OK ? broken_deberta(a, active_rule) : st;
}

void mutant_patch_deberta(pecert_plugin *desc, const mutant_deberta_rule *rule)
{
    base_deberta = desc->deberta_bias;
    active_rule = rule;
    desc->deberta_bias = deberta;
}
