/* deberta_p2c_sign_flipped - DeBERTa's p2c term reads table row
 * clamp(-b(i - j) + span): transformers' own -relative_pos, which goes with
 * the transpose after its gather, taken without the transpose. Both terms
 * read clamp(b(i - j) + span). nntrainer shipped it in its DeBERTa-v2
 * attention layer (Applications/CausalLM, add_relative_attn_score), fixed
 * in PR #3982 ("Fix DeBERTa V2 p2c relative position index"): every
 * off-diagonal score wrong. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_deberta_rule rule = {.p2c_sign = 1};
    mutant_patch_deberta(desc, &rule);
}

const mutant_def mutant = {.name = "deberta_p2c_sign_flipped", .patch = patch};
