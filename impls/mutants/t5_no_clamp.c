/* t5_no_clamp - T5 relative buckets without the final
 * min(bucket, num_buckets - 1): distances past max_distance spill into
 * buckets that do not exist, or the other direction's (huggingface/candle
 * PR #1312). Below max_distance the answer is ref's. */
#include <math.h>
#include <stdlib.h>

#include "core/mutant.h"

static pecert_status (*ref_bucket)(void *, const pecert_t5_bucket_args *);

/* Writes the unclamped logarithmic bucket where the reference saturates. */
static void unclamp(const pecert_t5_bucket_args *a, int64_t i)
{
    int64_t nb = a->bidirectional ? a->num_buckets / 2 : a->num_buckets;
    int64_t rel = a->relative_positions[i];
    int64_t offset = a->bidirectional && rel > 0 ? nb : 0;
    int64_t n = a->bidirectional ? llabs(rel) : (rel < 0 ? -rel : 0);
    int64_t max_exact = nb / 2;
    if (n < a->max_distance || max_exact < 1) {
        return;
    }
    double scaled = log((double)n / (double)max_exact) / log((double)a->max_distance / (double)max_exact) *
                    (double)(nb - max_exact);
    int64_t large = max_exact + (int64_t)scaled; /* the bug: no min(large, nb - 1) */
    mutant_store_1d(a->out, i, (double)(offset + large));
}

static pecert_status bucket(void *instance, const pecert_t5_bucket_args *a)
{
    pecert_status st = ref_bucket(instance, a);
    for (int64_t i = 0; st == PECERT_OK && i < a->n; i++) {
        unclamp(a, i);
    }
    return st;
}

static void patch(pecert_plugin *desc)
{
    ref_bucket = desc->t5_bucket;
    if (ref_bucket != NULL) {
        desc->t5_bucket = bucket;
    }
}

const mutant_def mutant = {.name = "t5_no_clamp", .patch = patch};
