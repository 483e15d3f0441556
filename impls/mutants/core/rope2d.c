/*
 * rope2d.c - the 2-D vision RoPE of plugin.h (rope2d_apply) in the base's
 * precision (mutant_real: double on ref, float on the float32 base), with
 * the conventions of a mutant_rope2d_rule broken on request. The right
 * rotation: pair j of D/2 turns by the first axis' position times
 * f_j = theta^(-4j/D) for j < D/4, by the other axis' times g_(j - D/4)
 * beyond (g = f for BLOCKS, theta^(-(4i+2)/D) for ALTERNATE).
 */
#include <stdlib.h>

#include "mutant.h"

static mutant_real mutant_pow(mutant_real base, mutant_real e)
{
#if MUTANT_F32
    return powf(base, e);
#else
    return pow(base, e);
#endif
}

/* Pair j's angle for token t, under the rule. */
static mutant_real pair_angle(const pecert_rope2d_apply_args *a, const mutant_rope2d_rule *rule, int64_t j,
                              int64_t t)
{
    int64_t q = a->head_dim / 4;
    int64_t tokens = a->x->shape[0];
    int second = j >= q && !rule->first_half_twice;
    int alternate = a->frequencies == PECERT_ROPE2D_ALTERNATE && !rule->blocks_always;
    int64_t i = j % q;
    mutant_real e = (mutant_real)(4 * i + (second && alternate ? 2 : 0)) / (mutant_real)a->head_dim;
    int column = (second ? !a->columns_first : a->columns_first) != rule->swap_axes;
    mutant_real p = (mutant_real)a->positions[(column ? tokens : 0) + t];
    return p * mutant_pow((mutant_real)a->theta, -e);
}

static void rotate_head(const pecert_rope2d_apply_args *a, const mutant_rope2d_rule *rule, int64_t t, int64_t h,
                        mutant_real *v)
{
    int64_t d = a->head_dim;
    int64_t half = d / 2;
    for (int64_t k = 0; k < d; k++) {
        v[k] = *mutant_elem(a->x, t, h, k);
    }
    for (int64_t k = 0; k < d; k++) {
        mutant_real s;
        mutant_real c;
        int64_t partner;
        mutant_real sign;
        if (a->pairing == PECERT_PAIRING_INTERLEAVED) {
            mutant_sincos(pair_angle(a, rule, k / 2, t), &s, &c);
            partner = k ^ 1;
            sign = k % 2 == 0 ? -1 : 1;
        } else {
            /* rotate_half: channel k with k +- D/2, cos/sin of pair k mod
             * D/2 (tiled), or of pair k/2 (repeated: the bug). */
            mutant_sincos(pair_angle(a, rule, rule->cos_repeated ? k / 2 : k % half, t), &s, &c);
            partner = k < half ? k + half : k - half;
            sign = k < half ? -1 : 1;
        }
        *mutant_elem(a->out, t, h, k) = (float)(v[k] * c + sign * v[partner] * s);
    }
}

pecert_status mutant_rope2d_apply(const pecert_rope2d_apply_args *a, const mutant_rope2d_rule *rule)
{
    if (a == NULL || a->x == NULL || a->out == NULL || a->positions == NULL || a->head_dim < 4 ||
        a->head_dim % 4 != 0 || a->x->ndim != 3 || a->x->shape[2] != a->head_dim ||
        a->x->dtype != PECERT_DTYPE_F32 || a->out->dtype != PECERT_DTYPE_F32) {
        return PECERT_E_INVAL;
    }
    mutant_real *v = malloc((size_t)a->head_dim * sizeof(mutant_real));
    if (v == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int64_t t = 0; t < a->x->shape[0]; t++) {
        for (int64_t h = 0; h < a->x->shape[1]; h++) {
            rotate_head(a, rule, t, h, v);
        }
    }
    free(v);
    return PECERT_OK;
}
