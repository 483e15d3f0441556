/* cope_cumsum_forward - CoPE's positions as a forward cumulative sum of
 * the gates, counting from the first key up to key j, where the authors'
 * code flips, sums and flips back: a key's position is the number of
 * gated tokens between it and the query, not since the start.
 * lucidrains/x-transformers commit 7448c7a added pos = gates.cumsum(dim=-1)
 * (removed by 046611e, "default CoPE to what they did in the paper");
 * kvnyu24/Nexus (nexus/components/embeddings/cope.py at 019b0c0:
 * positions = torch.cumsum(gates, dim=1)) ships it. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_cope_rule rule = {.forward_cumsum = 1};
    mutant_patch_cope(desc, &rule);
}

const mutant_def mutant = {.name = "cope_cumsum_forward", .patch = patch};
