/* deberta_scale_no_sqrt - DeBERTa's c2p and p2c terms divided by d sf
 * instead of sqrt(d sf): 192 for 13.86 at head_dim 64 with both terms, the
 * relative bias 13.9 times too small (the content score keeps its root).
 * guillaume-be/rust-bert's DeBERTa-v2 (disentangled_attention_bias in
 * src/models/deberta_v2/attention.rs, `let scale = d as f64 *
 * scale_factor`), present since PR #242, open. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_deberta_rule rule = {.scale_no_sqrt = 1};
    mutant_patch_deberta(desc, &rule);
}

const mutant_def mutant = {.name = "deberta_scale_no_sqrt", .patch = patch};
