/*
 * overlap.c - do two strided views share a byte?
 *
 * plugin.h allows out == x exactly and forbids partial overlap, while
 * views that interleave without touching (read the Q slice of a fused QKV
 * buffer, write its K slice) are valid; comparing spans cannot tell these
 * apart. In bytes, views a and b share a byte iff
 *
 *     sum_k u_k * A_k + e_a  -  sum_k v_k * B_k - e_b  =  b.data - a.data
 *
 * for indices 0 <= u_k < a.shape[k], 0 <= v_k < b.shape[k] and byte
 * offsets 0 <= e_a < size(a), 0 <= e_b < size(b), with A_k, B_k the byte
 * strides. Terms of equal stride merge (their index ranges add), and the
 * bounded equation is decided by depth-first search from the largest
 * stride down: a value is tried only if the smaller terms can still reach
 * the remainder. For nested layouts (packed, padded, fused) at most two
 * values survive per level; past a work cap the answer is "overlap",
 * which can refuse an exotic layout but never accept a racy one.
 */
#include "fast.h"

/* Three axes and one element axis per view. */
#define MAX_TERMS 8
#define WORK_CAP 1000000

typedef struct term {
    int64_t stride; /* bytes, > 0                                        */
    int64_t low;    /* lowest multiple, <= 0                             */
    int64_t high;   /* highest multiple, >= 0                            */
} term;

typedef struct search {
    term terms[MAX_TERMS];
    int64_t up[MAX_TERMS + 1];   /* sum of stride * high of terms t..   */
    int64_t down[MAX_TERMS + 1]; /* sum of stride * -low of terms t..   */
    int n;
    long work;
} search;

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Adds multiples [low, high] of stride, merging an equal stride and
 * keeping strides in decreasing order. */
static void add_term(search *s, int64_t stride, int64_t low, int64_t high)
{
    int i;

    if (stride == 0 || (low == 0 && high == 0)) {
        return;
    }
    for (i = 0; i < s->n; i++) {
        if (s->terms[i].stride == stride) {
            s->terms[i].low += low;
            s->terms[i].high += high;
            return;
        }
    }
    for (i = s->n; i > 0 && s->terms[i - 1].stride < stride; i--) {
        s->terms[i] = s->terms[i - 1];
    }
    s->terms[i] = (term){stride, low, high};
    s->n++;
}

/* A view's axes and element bytes: positive multiples for a, negative
 * for b (the equation's sign). */
static void add_view(search *s, const pecert_tensor *view, int sign)
{
    int64_t size = (int64_t)pecert__fast_dtype_size(view->dtype);
    uint32_t k;

    for (k = 0; k < view->ndim; k++) {
        int64_t last = view->shape[k] - 1;

        /* An extent-1 axis may carry any stride: skip it before scaling. */
        if (last > 0) {
            add_term(s, view->strides[k] * size, sign < 0 ? -last : 0, sign > 0 ? last : 0);
        }
    }
    add_term(s, 1, sign < 0 ? -(size - 1) : 0, sign > 0 ? size - 1 : 0);
}

static void prepare(search *s)
{
    int t;

    s->up[s->n] = 0;
    s->down[s->n] = 0;
    for (t = s->n - 1; t >= 0; t--) {
        s->up[t] = s->up[t + 1] + s->terms[t].stride * s->terms[t].high;
        s->down[t] = s->down[t + 1] - s->terms[t].stride * s->terms[t].low;
    }
}

/* 1 if terms t.. can sum to target (or the work ran out), else 0. */
static int reachable(search *s, int t, int64_t target)
{
    const term *c;
    int64_t low;
    int64_t high;
    int64_t v;

    if (++s->work > WORK_CAP) {
        return 1;
    }
    if (t == s->n) {
        return target == 0;
    }
    c = &s->terms[t];
    /* v * stride must leave what terms t+1.. reach: [-down, up]. */
    low = -floor_div(-(target - s->up[t + 1]), c->stride);
    high = floor_div(target + s->down[t + 1], c->stride);
    low = low < c->low ? c->low : low;
    high = high > c->high ? c->high : high;
    for (v = low; v <= high; v++) {
        if (reachable(s, t + 1, target - v * c->stride)) {
            return 1;
        }
    }
    return 0;
}

int pecert__fast_views_overlap(const pecert_tensor *a, const pecert_tensor *b)
{
    search s;
    /* Both spans meet (the caller checked), so the gap fits an int64. */
    int64_t gap = (int64_t)((intptr_t)b->data - (intptr_t)a->data);

    if (pecert__fast_is_empty(a) || pecert__fast_is_empty(b)) {
        return 0;
    }
    s.n = 0;
    s.work = 0;
    add_view(&s, a, +1);
    add_view(&s, b, -1);
    prepare(&s);
    return reachable(&s, 0, gap);
}
