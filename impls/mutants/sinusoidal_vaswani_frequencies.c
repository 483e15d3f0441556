/* sinusoidal_vaswani_frequencies - a tensor2tensor / fairseq table
 * (Whisper's encoder sinusoids, M2M-100's, Pegasus-X's), whose frequencies
 * are base^(-i/(d/2 - 1)), computed with the paper's base^(-2i/d): the
 * right layout and rows, every channel but the first a little slower. */
#include "core/mutant.h"

static const mutant_sinusoidal_rule rule = {(1u << PECERT_SINUSOIDAL_T2T) | (1u << PECERT_SINUSOIDAL_FAIRSEQ),
                                            PECERT_SINUSOIDAL_CONCAT, 0};

static void patch(pecert_plugin *desc)
{
    mutant_patch_sinusoidal(desc, &rule);
}

const mutant_def mutant = {.name = "sinusoidal_vaswani_frequencies", .patch = patch};
