/*
 * sincos2d.c - sincos_2d (plugin.h) in the base's precision (mutant_real:
 * double on ref, float on the float32 base), with RT-DETR's table rows
 * numbered the way a mutant_sincos2d_rule says.
 */
#include <math.h>

#include "mutant.h"

/* The two coordinates of table row k: plugin.h's, or for RT-DETR's layout
 * the row-major patch (k / grid_w, k mod grid_w) when the rule says so. */
static void coords(const pecert_sincos2d_args *a, const mutant_sincos2d_rule *rule, int64_t k, int64_t *first,
                   int64_t *second)
{
    if (a->layout == PECERT_SINCOS2D_RT_DETR && rule->rt_detr_row_major) {
        *first = k / a->grid_w;
        *second = k % a->grid_w;
    } else if (a->layout == PECERT_SINCOS2D_RT_DETR) {
        *first = k / a->grid_h;
        *second = k % a->grid_h;
    } else {
        *first = k % a->grid_w;
        *second = k / a->grid_w;
    }
}

static void write_half(const pecert_sincos2d_args *a, int64_t row, int64_t c0, int64_t v)
{
    int64_t q = a->embed_dim / 4;
    for (int64_t i = 0; i < q; i++) {
        mutant_real w = (mutant_real)exp(-log(a->base) * (double)i / (double)q);
        mutant_real s, c;
        mutant_sincos((mutant_real)v * w, &s, &c);
        mutant_store_2d(a->out, row, c0 + i, (double)s);
        mutant_store_2d(a->out, row, c0 + q + i, (double)c);
    }
}

static pecert_status broken_sincos2d(const pecert_sincos2d_args *a, const mutant_sincos2d_rule *rule)
{
    for (int64_t k = 0; k < (int64_t)a->grid_h * a->grid_w; k++) {
        int64_t first, second;
        coords(a, rule, k, &first, &second);
        write_half(a, a->cls_token + k, 0, first);
        write_half(a, a->cls_token + k, a->embed_dim / 2, second);
    }
    return PECERT_OK; /* the base wrote the class row's zeros */
}

/* The base answers first: a call it refuses is refused the same way, and
 * one it accepts is valid for the hand-written kernel, which then
 * overwrites the output. */
static pecert_status (*base_sincos2d)(void *instance, const pecert_sincos2d_args *args);
static const mutant_sincos2d_rule *active_rule;

static pecert_status sincos2d(void *instance, const pecert_sincos2d_args *a)
{
    pecert_status st = base_sincos2d(instance, a);
    return st == PECERT_OK ? broken_sincos2d(a, active_rule) : st;
}

void mutant_patch_sincos2d(pecert_plugin *desc, const mutant_sincos2d_rule *rule)
{
    base_sincos2d = desc->sincos_2d;
    active_rule = rule;
    desc->sincos_2d = sincos2d;
}
