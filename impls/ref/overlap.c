/*
 * overlap.c - do two strided views share an element?
 *
 * plugin.h: out may alias x exactly (in place); partial overlap is
 * invalid. Views that interleave inside one buffer without touching (a Q
 * slice read, the K slice of the same fused QKV buffer written) are
 * neither, and must work, so comparing memory spans is not enough.
 *
 * Two views share an element iff
 *     sum_k u_k * out.strides[k] - sum_k v_k * x.strides[k] = x.data - out.data
 * for some indices 0 <= u_k, v_k < shape[k] (in elements). That is a
 * bounded linear Diophantine problem; it is solved exactly by branch and
 * bound over the strides in decreasing order (as numpy's
 * solve_may_share_memory does): at each stride only the index values that
 * leave a remainder the smaller strides can still reach are tried. For
 * nested layouts (each stride beyond the reach of the smaller ones: packed,
 * padded and fused buffers) at most two values survive per stride. The
 * work is capped; past the cap the views are reported as overlapping,
 * which can only refuse an exotic layout, never accept a racy one.
 */
#include <stdint.h>

#include "ref.h"

/* Terms: up to 3 axes of each view. */
#define MAX_TERMS (2 * 3)

/* Search nodes before giving up (conservatively: "overlapping"). */
#define WORK_LIMIT 1000000

/* One stride and the index range it is multiplied by: [0, shape - 1] for
 * an axis of out, [-(shape - 1), 0] for an axis of x, the sum of both for
 * an axis the views share a stride on (the sum of two integer ranges is
 * an integer range, so merging is exact and keeps the search small). */
typedef struct overlap_term {
    int64_t stride; /* > 0                              */
    int64_t low;    /* <= 0                             */
    int64_t high;   /* >= 0                             */
} overlap_term;

typedef struct overlap_search {
    overlap_term terms[MAX_TERMS];
    int64_t reach_up[MAX_TERMS + 1];   /* sum of stride * high from t on */
    int64_t reach_down[MAX_TERMS + 1]; /* sum of stride * -low from t on */
    int n_terms;
    long work;
} overlap_search;

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return -floor_div(-a, b);
}

/* The term with this stride: an existing one, or a new zero-range term
 * inserted so that strides stay in decreasing order. */
static overlap_term *term_for(overlap_search *s, int64_t stride)
{
    int i;

    for (i = 0; i < s->n_terms; i++) {
        if (s->terms[i].stride == stride) {
            return &s->terms[i];
        }
    }
    for (i = s->n_terms; i > 0 && s->terms[i - 1].stride < stride; i--) {
        s->terms[i] = s->terms[i - 1];
    }
    s->terms[i].stride = stride;
    s->terms[i].low = 0;
    s->terms[i].high = 0;
    s->n_terms++;
    return &s->terms[i];
}

/* Adds every axis of one view; extent-1 and stride-0 axes contribute
 * nothing. out's indices count up, x's count down (sign -1). */
static void add_terms(overlap_search *s, const pecert_tensor *t, int sign)
{
    uint32_t k;

    for (k = 0; k < t->ndim; k++) {
        int64_t last = t->shape[k] - 1;
        overlap_term *term;

        if (last <= 0 || t->strides[k] == 0) {
            continue;
        }
        term = term_for(s, t->strides[k]);
        if (sign > 0) {
            term->high += last;
        } else {
            term->low -= last;
        }
    }
}

static void prepare_reach(overlap_search *s)
{
    int t;

    s->reach_up[s->n_terms] = 0;
    s->reach_down[s->n_terms] = 0;
    for (t = s->n_terms - 1; t >= 0; t--) {
        s->reach_up[t] = s->reach_up[t + 1] + s->terms[t].stride * s->terms[t].high;
        s->reach_down[t] = s->reach_down[t + 1] - s->terms[t].stride * s->terms[t].low;
    }
}

/* 1 if sum_{u >= t} index_u * stride_u can equal target (or the work ran
 * out), 0 if provably not. */
static int reachable(overlap_search *s, int t, int64_t target)
{
    const overlap_term *term;
    int64_t low;
    int64_t high;
    int64_t v;

    if (++s->work > WORK_LIMIT) {
        return 1;
    }
    if (t == s->n_terms) {
        return target == 0;
    }
    term = &s->terms[t];
    /* v * stride must leave a remainder the smaller terms can reach. */
    low = ceil_div(target - s->reach_up[t + 1], term->stride);
    high = floor_div(target + s->reach_down[t + 1], term->stride);
    low = low < term->low ? term->low : low;
    high = high > term->high ? term->high : high;
    for (v = low; v <= high; v++) {
        if (reachable(s, t + 1, target - v * term->stride)) {
            return 1;
        }
    }
    return 0;
}

int pecert__ref_views_overlap(const pecert_tensor *x, const pecert_tensor *out,
                              size_t element_size)
{
    overlap_search search;
    intptr_t byte_gap = (intptr_t)((uintptr_t)x->data - (uintptr_t)out->data);

    if (pecert__ref_is_empty(x) || pecert__ref_is_empty(out)) {
        return 0;
    }
    /* Both are aligned to element_size, so the gap is whole elements:
     * out.data + sum(u * out.strides) == x.data + sum(v * x.strides). */
    search.n_terms = 0;
    search.work = 0;
    add_terms(&search, out, +1);
    add_terms(&search, x, -1);
    prepare_reach(&search);
    return reachable(&search, 0, (int64_t)(byte_gap / (intptr_t)element_size));
}
