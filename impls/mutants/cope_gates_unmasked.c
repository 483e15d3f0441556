/* cope_gates_unmasked - the causal (and padding) mask applied to CoPE's
 * attention logits only, never to its gates: every later or padded key's
 * gate still counts in the cumulative sum, so each position also counts
 * tokens the query cannot see. dingo-actual/om
 * (src/om/arcformer/arc_memory_stacked.py at 83ff1f2) sums unmasked gates
 * and adds the tril mask's log only later, in apply_attention. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_cope_rule rule = {.gates_unmasked = 1};
    mutant_patch_cope(desc, &rule);
}

const mutant_def mutant = {.name = "cope_gates_unmasked", .patch = patch};
