/* sinusoidal_paper_table_for_t2t - Whisper's encoder table (and fairseq's,
 * M2M-100's), tensor2tensor's sin | cos halves at base^(-i/(d/2 - 1)),
 * computed as "Attention Is All You Need" section 3.5 writes it: sin at 2i,
 * cos at 2i + 1, base^(-2i/d). A port that reads the paper instead of
 * sinusoids(): layout and frequencies both wrong, rows right. */
#include "core/mutant.h"

static const mutant_sinusoidal_rule rule = {(1u << PECERT_SINUSOIDAL_T2T) | (1u << PECERT_SINUSOIDAL_FAIRSEQ),
                                            PECERT_SINUSOIDAL_INTERLEAVED, 0};

static void patch(pecert_plugin *desc)
{
    mutant_patch_sinusoidal(desc, &rule);
}

const mutant_def mutant = {.name = "sinusoidal_paper_table_for_t2t", .patch = patch};
