/*
 * t5.c - T5 relative-position buckets (op t5_bucket), transformers
 * T5Attention._relative_position_bucket: for r = key - query,
 *     bidirectional: n = num_buckets / 2, bucket n when r > 0, a = |r|
 *     causal:        n = num_buckets,     bucket 0,          a = max(-r, 0)
 *     max_exact = n / 2; a < max_exact: + a, else
 *     + min(max_exact + floor(ln(a / max_exact) / ln(max_distance / max_exact)
 *           * (n - max_exact)), n - 1).
 * The log term is taken in long double; where it is an integer up to
 * 2^-50 relative it is that integer (the exact-math bucket; the reference's
 * float32 log may land either side there and TOLERANCES.md accepts both).
 * Per (num_buckets, max_distance) the term's constants are hoisted, and
 * distances from n on saturate without a log.
 */
#include <inttypes.h>
#include <math.h>

#include "../family.h"

typedef struct t5_plan {
    int bidirectional;
    int64_t n;          /* buckets per side                              */
    int64_t max_exact;  /* n / 2                                         */
    long double scale;  /* (n - max_exact) / ln(max_distance / max_exact) */
} t5_plan;

static int64_t bucket(const t5_plan *p, int64_t r)
{
    int64_t base = 0;
    int64_t a;
    int64_t large;
    long double x;
    long double k;

    if (p->bidirectional) {
        base = r > 0 ? p->n : 0;
        a = r < 0 ? -r : r;
    } else {
        a = r < 0 ? -r : 0;
    }
    if (a < p->max_exact) {
        return base + a;
    }
    x = logl((long double)a / (long double)p->max_exact) * p->scale;
    if (x >= (long double)(p->n - 1 - p->max_exact) + 1.0L) {
        return base + p->n - 1;
    }
    k = roundl(x);
    large = p->max_exact + (int64_t)(fabsl(x - k) <= 0x1p-50L * (x > 1 ? x : 1) ? k : floorl(x));
    return base + (large < p->n - 1 ? large : p->n - 1);
}

static pecert_status check_t5_args(const pecert__fast_call *call, const pecert_t5_bucket_args *a)
{
    int64_t n = a->bidirectional ? a->num_buckets / 2 : a->num_buckets;
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "reserved0=%" PRId32 " must be 0",
                                   a->reserved0);
    }
    if (status == PECERT_OK && a->bidirectional != 0 && a->bidirectional != 1) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "bidirectional=%" PRId32 " must be 0 or 1",
                                   a->bidirectional);
    }
    if (status == PECERT_OK && n / 2 < 1) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "num_buckets=%" PRId32 " leaves no exact bucket (needs >= %d)",
                                   a->num_buckets, a->bidirectional ? 4 : 2);
    }
    if (status == PECERT_OK && a->max_distance <= n / 2) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "max_distance=%" PRId64 " must exceed max_exact=%" PRId64,
                                   a->max_distance, n / 2);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "relative_positions", a->relative_positions,
                                             a->n);
    }
    if (status == PECERT_OK) {
        int64_t shape[1] = {a->n};

        status = pecert__fast_fam_check_view(call, "out", a->out, 1, shape, PECERT__FAM_INT, 1);
    }
    return status;
}

pecert_status pecert__fast_t5_bucket(void *instance, const pecert_t5_bucket_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    t5_plan plan;

    status = pecert__fast_fam_enter(&call, instance, "t5_bucket", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_t5_args(&call, args);
    }
    if (status != PECERT_OK) {
        return status;
    }
    plan.bidirectional = args->bidirectional;
    plan.n = args->bidirectional ? args->num_buckets / 2 : args->num_buckets;
    plan.max_exact = plan.n / 2;
    plan.scale = (long double)(plan.n - plan.max_exact) /
                 logl((long double)args->max_distance / (long double)plan.max_exact);
    for (int64_t i = 0; i < args->n; i++) {
        pecert__fast_fam_store_int(args->out, &i, bucket(&plan, args->relative_positions[i]));
    }
    return PECERT_OK;
}
