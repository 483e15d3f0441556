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

/* Calls of at least this many distances build the thresholds (about 3
 * logl() per bucket) and take the vector rows. */
#define T5_TABLE_MIN 4096
/* Distances per row of a threaded call. */
#define T5_CHUNK 16384

/* Bucket of a distance a on the side without offset: bucket() at r = -a,
 * for both forms. */
static int64_t large_bucket(const t5_plan *p, int64_t a)
{
    return bucket(p, -a);
}

/* The smallest distance whose bucket is at least v (max_exact < v < n):
 * the log term's inverse as a guess, then the bucket function itself
 * moves it to the exact edge (it is monotone in the distance). Distances
 * past 2^53 never occur (check_ints): the edge is clamped there. */
static int64_t threshold(const t5_plan *p, int64_t v)
{
    long double guess = ceill((long double)p->max_exact * expl((long double)(v - p->max_exact) / p->scale));
    int64_t a = guess < 0x1p53L ? (int64_t)guess : ((int64_t)1 << 53);

    a = a > p->max_exact ? a : p->max_exact;
    while (a > p->max_exact && large_bucket(p, a - 1) >= v) {
        a--;
    }
    while (a < ((int64_t)1 << 53) && large_bucket(p, a) < v) {
        a++;
    }
    return a;
}

static void t5_chunk(const pecert__fast_row_job *job, int64_t r, void *scratch)
{
    const pecert_t5_bucket_args *args = job->op;
    int64_t first = r * T5_CHUNK;
    int64_t n = args->n - first < T5_CHUNK ? args->n - first : T5_CHUNK;
    int wide = args->out->dtype == PECERT_DTYPE_I64;

    (void)scratch;
    job->kernels->t5_row((char *)args->out->data + first * (wide ? 8 : 4), wide, args->relative_positions + first,
                         n, job->plan);
}

/* A long contiguous call: the thresholds once, then vector rows over the
 * instance's threads. */
static pecert_status run_table(const pecert__fast_call *call, const pecert_t5_bucket_args *args, const t5_plan *plan)
{
    pecert__fast_row_job job = {.row = t5_chunk, .op = args, .kernels = call->instance->kernels,
                                .rows = (args->n + T5_CHUNK - 1) / T5_CHUNK};
    pecert__fast_t5_table *table = pecert__fast_fam_row_memory(call, args->out,
                                                               sizeof(pecert__fast_t5_table), 0, &job);

    if (table == NULL) {
        return PECERT_E_NOMEM;
    }
    table->bidirectional = plan->bidirectional;
    table->n = plan->n;
    table->max_exact = plan->max_exact;
    table->count = (int32_t)(plan->n - 1 - plan->max_exact);
    table->stream = job.streaming;
    for (int32_t i = 0; i < table->count; i++) {
        table->threshold[i] = threshold(plan, plan->max_exact + 1 + i);
    }
    job.plan = table;
    pecert__fast_fam_run_rows(&job);
    return PECERT_OK;
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
    if (args->n < T5_TABLE_MIN || plan.n - 1 - plan.max_exact > PECERT__FAST_T5_MAX_THRESHOLDS ||
        args->out->strides[0] != 1) {
        for (int64_t i = 0; i < args->n; i++) {
            pecert__fast_fam_store_int(args->out, &i, bucket(&plan, args->relative_positions[i]));
        }
        return PECERT_OK;
    }
    return run_table(&call, args, &plan);
}
