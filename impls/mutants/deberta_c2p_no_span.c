/* deberta_c2p_no_span - DeBERTa's c2p term reads table row clamp(b(i - j),
 * 0, 2 span - 1): the + att_span that centres the table is missing, so
 * every key at or after its query reads row 0 and the others row b.
 * guillaume-be/rust-bert's DeBERTa-v2 (disentangled_attention_bias in
 * src/models/deberta_v2/attention.rs, `relative_pos.clamp(0, att_span * 2
 * - 1)` for c2p_pos), present since PR #242, open (its DeBERTa v1 adds the
 * span). */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_deberta_rule rule = {.c2p_no_span = 1};
    mutant_patch_deberta(desc, &rule);
}

const mutant_def mutant = {.name = "deberta_c2p_no_span", .patch = patch};
