/* deberta_integer_ratio - DeBERTa's log buckets take ln((max_position - 1)
 * / mid) with the division in integers: ln 3 for ln 3.99 at 512 positions
 * and 256 buckets, and every bucket past the exact ones moves (b(511) =
 * 289 for 255). guillaume-be/rust-bert's DeBERTa-v2 (make_log_bucket_position
 * in src/models/deberta_v2/attention.rs, `((max_position - 1) / mid) as
 * f64`), present since PR #242, open. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_deberta_rule rule = {.integer_ratio = 1};
    mutant_patch_deberta(desc, &rule);
}

const mutant_def mutant = {.name = "deberta_integer_ratio", .patch = patch};
