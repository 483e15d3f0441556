/*
 * sinusoidal.c - a sinusoidal table read the way a mutant_sinusoidal_rule
 * says: each token's row is the base's own table of another variant, or
 * the right table at another row, so the mutant differs from its base by
 * the rule alone (and in the base's precision).
 */
#include <stddef.h>

#include "mutant.h"

/* The base's sinusoidal (it validates the call) and this mutant's rule. */
static pecert_status (*base_sinusoidal)(void *instance, const pecert_sinusoidal_args *args);
static const mutant_sinusoidal_rule *active_rule;

/* Row t of a [n, dim] output as a [1, dim] tensor. */
static pecert_tensor row_view(const pecert_tensor *out, int64_t t)
{
    pecert_tensor v = *out;
    size_t elem = out->dtype == PECERT_DTYPE_F64 ? sizeof(double) : sizeof(float);
    v.data = (char *)out->data + (size_t)(t * out->strides[0]) * elem;
    v.shape[0] = 1;
    return v;
}

/* Token t's row under the rule: a padding token keeps the base's zero row. */
static pecert_status broken_row(void *instance, const pecert_sinusoidal_args *a, int64_t t)
{
    const mutant_sinusoidal_rule *rule = active_rule;
    int64_t p = a->positions[t];
    pecert_tensor out = row_view(a->out, t);
    pecert_sinusoidal_args b = *a;
    b.positions = &p;
    b.n = 1;
    b.out = &out;
    if (a->variant == PECERT_SINUSOIDAL_FAIRSEQ && p == -1) {
        return base_sinusoidal(instance, &b);
    }
    if (a->variant == PECERT_SINUSOIDAL_FAIRSEQ && !rule->offset_dropped) {
        p += a->padding_idx + 1;
    }
    b.variant = rule->as;
    b.padding_idx = rule->as == PECERT_SINUSOIDAL_FAIRSEQ ? a->padding_idx : -1;
    return base_sinusoidal(instance, &b);
}

/* The base answers first: a call it refuses is refused the same way, and
 * one it accepts is overwritten row by row. */
static pecert_status sinusoidal(void *instance, const pecert_sinusoidal_args *a)
{
    pecert_status st = base_sinusoidal(instance, a);
    if (st != PECERT_OK || a->variant < 0 || a->variant > 31 || !(active_rule->from & (1u << a->variant))) {
        return st;
    }
    for (int64_t t = 0; t < a->n && st == PECERT_OK; t++) {
        st = broken_row(instance, a, t);
    }
    return st;
}

void mutant_patch_sinusoidal(pecert_plugin *desc, const mutant_sinusoidal_rule *rule)
{
    base_sinusoidal = desc->sinusoidal;
    active_rule = rule;
    if (base_sinusoidal != NULL) {
        desc->sinusoidal = sinusoidal;
    }
}
