/* pairing_swapped - interleaved and split-half pairing exchanged: a
 * checkpoint's rope type mapped to the wrong convention (llama.cpp PR
 * #13260 Plamo, PR #13261 Orion, ik_llama.cpp PR #2290). */
#include "core/mutant.h"

static pecert_rope_pairing swap(pecert_rope_pairing p)
{
    return p == PECERT_PAIRING_INTERLEAVED ? PECERT_PAIRING_SPLIT_HALF : PECERT_PAIRING_INTERLEAVED;
}

const mutant_def mutant = {.name = "pairing_swapped", .edit_pairing = swap};
