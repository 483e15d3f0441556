/*
 * t5.c - T5 relative-position buckets as the official code computes them:
 * in float32 (transformers models/t5/modeling_t5.py,
 * T5Attention._relative_position_bucket):
 *
 *   large = max_exact + (log(a.float() / max_exact)
 *                        / math.log(max_distance / max_exact)
 *                        * (n - max_exact)).to(long)
 *
 * Every operation rounds to float32 (torch converts the Python scalars to
 * the tensor's dtype): the quotient, logf, the division by the float32
 * log ratio, the product; then truncation, and min(large, n - 1). Near an
 * exact integer (|d| = 16, 32, 64 of the released 32/128 config) this may
 * land one bucket below exact math, which TOLERANCES.md ("T5 buckets")
 * admits. The argument checks are ref's.
 */
#include <math.h>

#include "honest.h"

static int64_t bucket_f32(int64_t r, int bidirectional, int64_t num_buckets, int64_t max_distance)
{
    int64_t n = bidirectional ? num_buckets / 2 : num_buckets;
    int64_t base = bidirectional && r > 0 ? n : 0;
    int64_t a = bidirectional ? (r < 0 ? -r : r) : (r < 0 ? -r : 0);
    int64_t max_exact = n / 2;
    if (a < max_exact) {
        return base + a;
    }
    float ratio = (float)log((double)max_distance / (double)max_exact); /* math.log, then to float32 */
    float x = logf((float)a / (float)max_exact) / ratio * (float)(n - max_exact);
    int64_t large = max_exact + (int64_t)x;
    return base + (large < n - 1 ? large : n - 1);
}

static pecert_status t5_bucket(const pecert__ref_call *call, const void *op_args)
{
    const pecert_t5_bucket_args *args = op_args;

    (void)call;
    for (int64_t i = 0; i < args->n; i++) {
        pecert__ref_store_int(args->out, &i,
                              bucket_f32(args->relative_positions[i], args->bidirectional, args->num_buckets,
                                         args->max_distance));
    }
    return PECERT_OK;
}

pecert_status honest_t5_bucket(void *instance, const pecert_t5_bucket_args *args)
{
    return pecert__ref_run(instance, "t5_bucket", args, sizeof(*args), pecert__ref_check_t5_args,
                           t5_bucket);
}
