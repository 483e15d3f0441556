/* rotary_dim_from_head_dim - partial_rotary_factor ignored: frequencies
 * and pairs taken from head_dim (pie-project/pie PR #603; llama.cpp PR
 * #4889, Phi-2's n_rot). */
#include "core/mutant.h"

static void whole_head(pecert_rope_config *c)
{
    c->rotary_dim = c->head_dim;
}

const mutant_def mutant = {.name = "rotary_dim_from_head_dim", .edit_config = whole_head};
