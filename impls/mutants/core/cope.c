/*
 * cope.c - cope_logits (plugin.h) in the base's precision (mutant_real:
 * double on ref, float on the float32 base), with the conventions of a
 * mutant_cope_rule broken on request. The right CoPE: gates
 * sigmoid(q . gk / sqrt(d)) times the mask, positions their sum from each
 * key to the last, clamped at npos - 1, the embedding logit blended
 * between the two integer positions around it, the logit (q . k + z) /
 * sqrt(d) (nodiv: q . k / sqrt(d) + z), -inf where masked.
 */
#include <math.h>
#include <stdlib.h>

#include "mutant.h"

static mutant_real at(const pecert_tensor *t, int64_t i, int64_t j)
{
    return (mutant_real)((const float *)t->data)[i * t->strides[0] + j * t->strides[1]];
}

static mutant_real dot(const pecert_tensor *q, int64_t i, const pecert_tensor *x, int64_t j)
{
    mutant_real s = 0;
    for (int64_t c = 0; c < q->shape[1]; c++) {
        s += at(q, i, c) * at(x, j, c);
    }
    return s;
}

static mutant_real embedding_dot(const pecert_tensor *q, int64_t i, const pecert_tensor *e, int64_t t)
{
    mutant_real s = 0;
    for (int64_t c = 0; c < q->shape[1]; c++) {
        s += at(q, i, c) * at(e, c, t);
    }
    return s;
}

static mutant_real clamp_top(mutant_real x, int64_t npos)
{
    mutant_real top = (mutant_real)(npos - 1);
    return x < top || isnan((double)x) ? x : top;
}

/* Row i's gates into g (masked unless the rule drops the mask). */
static void row_gates(const pecert_cope_args *a, const mutant_cope_rule *rule, int64_t i, mutant_real *g)
{
    mutant_real scale = rule->gate_unscaled ? 1 : 1 / (mutant_real)sqrt((double)a->q->shape[1]);
    for (int64_t j = 0; j < a->k->shape[0]; j++) {
        mutant_real m = a->mask != NULL && !rule->gates_unmasked ? at(a->mask, i, j) : 1;
        g[j] = m / (1 + (mutant_real)exp(-(double)(dot(a->q, i, a->gate_k, j) * scale)));
    }
}

/* Row i's positions from its gates, into p. */
static void row_positions(const pecert_cope_args *a, const mutant_cope_rule *rule, const mutant_real *g,
                          mutant_real *p)
{
    int64_t n_k = a->k->shape[0];
    mutant_real sum = 0;
    if (rule->prefix_clamped) {
        /* clamped prefix sums C(P), then C(P_last) - C(P_{j-1}) */
        mutant_real last = 0;
        for (int64_t j = 0; j < n_k; j++) {
            last += g[j];
        }
        last = clamp_top(last, a->npos);
        for (int64_t j = 0; j < n_k; j++) {
            p[j] = last - clamp_top(sum, a->npos);
            sum += g[j];
        }
        return;
    }
    for (int64_t step = 0; step < n_k; step++) {
        int64_t j = rule->forward_cumsum ? step : n_k - 1 - step;
        sum += g[j];
        p[j] = clamp_top(sum, a->npos);
    }
}

static void row_logits(const pecert_cope_args *a, const mutant_cope_rule *rule, int64_t i, const mutant_real *p)
{
    mutant_real inv = 1 / (mutant_real)sqrt((double)a->q->shape[1]);
    int scaled_after = a->nodiv != rule->position_scale_flipped;
    for (int64_t j = 0; j < a->k->shape[0]; j++) {
        mutant_store_2d(a->positions, i, j, (double)p[j]);
        if (a->mask != NULL && at(a->mask, i, j) == 0) {
            mutant_store_2d(a->logits, i, j, -INFINITY);
            continue;
        }
        if (isnan((double)p[j])) {
            mutant_store_2d(a->logits, i, j, NAN);
            continue;
        }
        mutant_real lo = (mutant_real)floor((double)p[j]);
        mutant_real w = p[j] - lo;
        mutant_real z = (1 - w) * embedding_dot(a->q, i, a->pos_emb, (int64_t)lo) +
                        w * embedding_dot(a->q, i, a->pos_emb, (int64_t)ceil((double)p[j]));
        mutant_real qk = dot(a->q, i, a->k, j);
        mutant_store_2d(a->logits, i, j, (double)(scaled_after ? qk * inv + z : (qk + z) * inv));
    }
}

/* The base's cope_logits (it validates the call) and the rule of the one
 * mutant this plugin is. */
static pecert_status (*base_cope_logits)(void *instance, const pecert_cope_args *args);
static const mutant_cope_rule *active_rule;

static pecert_status broken_cope(const pecert_cope_args *a, const mutant_cope_rule *rule)
{
    int64_t n_k = a->k->shape[0];
    mutant_real *g = malloc((size_t)(2 * n_k + 1) * sizeof(mutant_real));
    if (g == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int64_t i = 0; i < a->q->shape[0]; i++) {
        row_gates(a, rule, i, g);
        row_positions(a, rule, g, g + n_k);
        row_logits(a, rule, i, g + n_k);
    }
    free(g);
    return PECERT_OK;
}

/* The base answers first: a call it refuses is refused the same way, and
 * one it accepts is valid for the hand-written kernel, which then
 * overwrites both outputs. */
static pecert_status cope_logits(void *instance, const pecert_cope_args *a)
{
    pecert_status st = base_cope_logits(instance, a);
    return st == PECERT_OK ? broken_cope(a, active_rule) : st;
}

void mutant_patch_cope(pecert_plugin *desc, const mutant_cope_rule *rule)
{
    base_cope_logits = desc->cope_logits;
    active_rule = rule;
    desc->cope_logits = cope_logits;
}
