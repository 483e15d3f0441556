/* cope_position_scale - CoPE's position logits added after the attention
 * scale, q . k / sqrt(d) + z, where the authors' default adds them first
 * and scales the sum ((q . k + z) / sqrt(d); --cope-nodiv is the other
 * way, and the flag flips it back): every position logit comes out
 * sqrt(head_dim) times too large or too small. lucidrains/x-transformers
 * (x_transformers/attend.py at 9252ed7: sim = sim + self.cope(q, sim) on
 * the already scaled sim) has the nodiv order as its only one. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_cope_rule rule = {.position_scale_flipped = 1};
    mutant_patch_cope(desc, &rule);
}

const mutant_def mutant = {.name = "cope_position_scale", .patch = patch};
