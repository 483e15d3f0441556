/* deberta_length_as_max_position - DeBERTa's log buckets spread over the
 * sequence length, ln((L - 1) / mid), instead of max_relative_positions.
 * NVIDIA/TensorRT's disentangledAttentionPlugin computed it from the
 * sequence dimension (disentangledKernel.cu, from 568092da), issue #3370,
 * fixed in TensorRT 10.0 (147005ff): right only at L = 512. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_deberta_rule rule = {.length_as_max = 1};
    mutant_patch_deberta(desc, &rule);
}

const mutant_def mutant = {.name = "deberta_length_as_max_position", .patch = patch};
