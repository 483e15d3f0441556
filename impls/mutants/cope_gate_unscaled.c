/* cope_gate_unscaled - CoPE's gates as sigmoid(q . k), the paper's equation
 * (Golovneva et al. 2024 write the gate sigma(q_i^T k_j)), where the
 * authors' code divides the gate logit by sqrt(head_dim) first: every gate
 * is pushed towards 0 or 1, the positions towards integer counts.
 * dingo-actual/om (src/om/arcformer/arc_memory_stacked.py at 83ff1f2:
 * gates = torch.sigmoid(torch.matmul(q, k.transpose(-2, -1)))) and
 * ryancinsight/RustGPT (src/cop.rs at 24d0481: 1 / (1 + exp(-dot)) on the
 * raw dot product) ship it. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_cope_rule rule = {.gate_unscaled = 1};
    mutant_patch_cope(desc, &rule);
}

const mutant_def mutant = {.name = "cope_gate_unscaled", .patch = patch};
