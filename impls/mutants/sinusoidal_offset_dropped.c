/* sinusoidal_offset_dropped - fairseq's sinusoidal positions (M2M-100,
 * NLLB, FSMT, Speech2Text, XGLM) read at row p instead of padding_idx +
 * 1 + p: the make_positions offset dropped when the table is ported as a
 * plain tensor2tensor timing signal, padding still zeroed. Every token
 * reads the row of a position padding_idx + 1 earlier. */
#include "core/mutant.h"

static const mutant_sinusoidal_rule rule = {1u << PECERT_SINUSOIDAL_FAIRSEQ, PECERT_SINUSOIDAL_T2T, 1};

static void patch(pecert_plugin *desc)
{
    mutant_patch_sinusoidal(desc, &rule);
}

const mutant_def mutant = {.name = "sinusoidal_offset_dropped", .patch = patch};
