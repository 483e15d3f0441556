/* peg_not_transposed - a PEG's tokens [N, C] reshaped to the grid [C, H, W]
 * directly, without the transpose PosCNN does first
 * (feat_token.transpose(1, 2).view(B, C, H, W)): every channel plane of the
 * convolution is a slice of interleaved tokens and channels, so the kernel
 * mixes unrelated values. FoundationVision/OmniTokenizer #11 and #12 (PEG
 * in OmniTokenizer/modules/attention.py: x.reshape(*shape, -1) on tokens
 * laid out otherwise; "we did mis-process the tensor shape in PEG") and
 * lucidrains/phenaki-pytorch #42 ("the reshape in the PEG module should be
 * a rearrange"). */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_peg_rule rule = {.not_transposed = 1};
    mutant_patch_peg(desc, &rule);
}

const mutant_def mutant = {.name = "peg_not_transposed", .patch = patch};
