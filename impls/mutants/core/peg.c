/*
 * peg.c - peg_apply (plugin.h) in the base's precision (mutant_real:
 * double on ref, float on the float32 base), with the token layout of a
 * mutant_peg_rule read the wrong way. The right PEG reads tokens [N, C] as
 * the grid [C, H, W] through a transpose, convolves each channel with its
 * own zero-padded kernel, adds the bias and the input, and writes tokens
 * [N, C] back; a rule changes only how the grid is read (the write back
 * follows PosCNN's flatten(2).transpose(1, 2) of whatever was read).
 */
#include <math.h>

#include "mutant.h"

static mutant_real x_flat(const pecert_tensor *x, int64_t prefix, int64_t flat)
{
    int64_t c = x->shape[1];
    int64_t row = prefix + flat / c, ch = flat % c;
    return (mutant_real)((const float *)x->data)[row * x->strides[0] + ch * x->strides[1]];
}

/* Token t, channel ch of the grid as the rule reads it. */
static mutant_real grid_in(const pecert_peg_args *a, const mutant_peg_rule *rule, int64_t t, int64_t ch)
{
    int64_t n = a->grid_h * a->grid_w, c = a->x->shape[1];
    int64_t f = t * c + ch;
    /* transposed_read: element f of the [C, N] transpose is x[f % N][f / N] */
    return x_flat(a->x, a->prefix_tokens, rule->transposed_read ? (f % n) * c + f / n : f);
}

static mutant_real weight_at(const pecert_peg_args *a, int64_t ch, int64_t i, int64_t j)
{
    const pecert_tensor *w = a->weight;
    return (mutant_real)((const float *)w->data)[ch * w->strides[0] + i * w->strides[1] + j * w->strides[2]];
}

static pecert_status broken_peg(const pecert_peg_args *a, const mutant_peg_rule *rule)
{
    int64_t h = a->grid_h, w = a->grid_w, n = h * w, c = a->x->shape[1], r = a->kernel / 2;
    if (rule->square) {
        h = w = (int64_t)llround(sqrt((double)n));
        if (h * w != n) {
            return PECERT_E_INVAL; /* view(B, C, s, s) fails when N is not a square */
        }
    }
    if (rule->axes_swapped) {
        int64_t t = h;
        h = w;
        w = t;
    }
    for (int64_t row = 0; row < a->prefix_tokens; row++) {
        for (int64_t ch = 0; ch < c; ch++) {
            mutant_store_2d(a->out, row, ch, (double)x_flat(a->x, 0, row * c + ch));
        }
    }
    for (int64_t y = 0; y < h; y++) {
        for (int64_t x = 0; x < w; x++) {
            for (int64_t ch = 0; ch < c; ch++) {
                mutant_real sum = 0;
                for (int64_t i = 0; i < a->kernel; i++) {
                    for (int64_t j = 0; j < a->kernel; j++) {
                        int64_t sy = y + i - r, sx = x + j - r;
                        if (sy >= 0 && sy < h && sx >= 0 && sx < w) {
                            sum += weight_at(a, ch, i, j) * grid_in(a, rule, sy * w + sx, ch);
                        }
                    }
                }
                mutant_real b = (mutant_real)((const float *)a->bias->data)[ch * a->bias->strides[0]];
                mutant_real v = grid_in(a, rule, y * w + x, ch) + (sum + b);
                mutant_store_2d(a->out, a->prefix_tokens + y * w + x, ch, (double)v);
            }
        }
    }
    return PECERT_OK;
}

/* The base's peg_apply (it validates the call) and this mutant's rule. */
static pecert_status (*base_peg_apply)(void *instance, const pecert_peg_args *args);
static const mutant_peg_rule *active_rule;

/* The base answers first: a call it refuses is refused the same way, and
 * one it accepts is valid for the hand-written kernel, which then
 * overwrites the output. */
static pecert_status peg_apply(void *instance, const pecert_peg_args *a)
{
    pecert_status st = base_peg_apply(instance, a);
    return st == PECERT_OK ? broken_peg(a, active_rule) : st;
}

void mutant_patch_peg(pecert_plugin *desc, const mutant_peg_rule *rule)
{
    base_peg_apply = desc->peg_apply;
    active_rule = rule;
    desc->peg_apply = peg_apply;
}
