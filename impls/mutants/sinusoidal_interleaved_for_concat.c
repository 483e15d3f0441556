/* sinusoidal_interleaved_for_concat - Marian's, Pegasus's or CTRL's table
 * (sin | cos halves) built with XLM's create_sinusoidal_embeddings, the
 * paper's sin at 2i, cos at 2i + 1: the same frequencies in the other
 * layout, the one Marian's own docstring says it is not. */
#include "core/mutant.h"

static const mutant_sinusoidal_rule rule = {1u << PECERT_SINUSOIDAL_CONCAT, PECERT_SINUSOIDAL_INTERLEAVED, 0};

static void patch(pecert_plugin *desc)
{
    mutant_patch_sinusoidal(desc, &rule);
}

const mutant_def mutant = {.name = "sinusoidal_interleaved_for_concat", .patch = patch};
