/*
 * t5.c - T5 relative-position buckets (op t5_bucket).
 *
 * transformers v4.57.6 models/t5/modeling_t5.py,
 * T5Attention._relative_position_bucket (after Mesh TensorFlow
 * transformer_layers.py): for relative position r = key - query,
 *     bidirectional: n = num_buckets / 2, bucket = n if r > 0, a = |r|
 *     causal:        n = num_buckets,     bucket = 0,          a = max(-r, 0)
 *     max_exact = n / 2
 *     a < max_exact: bucket += a
 *     else:          bucket += min(max_exact + floor(ln(a / max_exact)
 *                              / ln(max_distance / max_exact) * (n - max_exact)),
 *                              n - 1)
 * The reference forms the log term in float32. Here it is long double, and
 * a term within 2^-50 (relative) of an integer is taken as that integer:
 * with integer inputs the term is an exact integer exactly when
 * (a / max_exact)^(n - max_exact) is a power of max_distance / max_exact
 * (a = 16 of max_exact 8, max_distance 128 ...), and floor() of a rounded
 * log would otherwise land one bucket low there. At such positions the
 * reference's own float32 log may go either way (TOLERANCES.md, "T5
 * buckets", accepts both neighbours); this is the exact-math bucket.
 */
#include <inttypes.h>
#include <math.h>

#include "ref.h"

static int64_t bucket(int64_t r, int bidirectional, int64_t num_buckets, int64_t max_distance)
{
    int64_t n = bidirectional ? num_buckets / 2 : num_buckets;
    int64_t base = 0;
    int64_t a;
    int64_t max_exact = n / 2;
    int64_t large;
    long double x;
    long double k;

    if (bidirectional) {
        base = r > 0 ? n : 0;
        a = r < 0 ? -r : r;
    } else {
        a = r < 0 ? -r : 0;
    }
    if (a < max_exact) {
        return base + a;
    }
    x = logl((long double)a / (long double)max_exact) /
        logl((long double)max_distance / (long double)max_exact) * (long double)(n - max_exact);
    k = roundl(x);
    large = max_exact + (int64_t)(fabsl(x - k) <= 0x1p-50L * (x > 1 ? x : 1) ? k : floorl(x));
    return base + (large < n - 1 ? large : n - 1);
}

pecert_status pecert__ref_check_t5_args(const pecert__ref_call *call, const void *args)
{
    const pecert_t5_bucket_args *a = args;
    int64_t n = a->bidirectional ? a->num_buckets / 2 : a->num_buckets;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    if (status == PECERT_OK && a->bidirectional != 0 && a->bidirectional != 1) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "bidirectional=%" PRId32 " must be 0 or 1",
                                  a->bidirectional);
    }
    if (status == PECERT_OK && n / 2 < 1) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "num_buckets=%" PRId32 " leaves no exact bucket", a->num_buckets);
    }
    /* The log term divides by ln(max_distance / max_exact). */
    if (status == PECERT_OK && a->max_distance <= n / 2) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "max_distance=%" PRId64 " must exceed max_exact=%" PRId64,
                                  a->max_distance, n / 2);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "relative_positions", a->relative_positions, a->n);
    }
    if (status == PECERT_OK) {
        int64_t shape[1] = {a->n};

        status = pecert__ref_check_view(call, "out", a->out, 1, shape, PECERT__REF_INT, 1);
    }
    return status;
}

static pecert_status t5_bucket(const pecert__ref_call *call, const void *op_args)
{
    const pecert_t5_bucket_args *args = op_args;
    int64_t i;

    (void)call;
    for (i = 0; i < args->n; i++) {
        pecert__ref_store_int(args->out, &i,
                              bucket(args->relative_positions[i], args->bidirectional,
                                     args->num_buckets, args->max_distance));
    }
    return PECERT_OK;
}

pecert_status pecert__ref_t5_bucket(void *instance, const pecert_t5_bucket_args *args)
{
    return pecert__ref_run(instance, "t5_bucket", args, sizeof(*args),
                           pecert__ref_check_t5_args, t5_bucket);
}
