/* rope2d_frequencies_blocks - Pixtral's 2-D RoPE with both axes on the
 * same frequencies theta^(-4i/D): PixtralRotaryEmbedding gives the height
 * the even and the width the odd frequencies of theta^(-2j/D), so the
 * width's are shifted by half a step. ServiceNow/Fast-LLM PR #401
 * ("Frequencies were slightly different from Pixtral"): its Rotary2D took
 * arange(0, 1, 4/head) for both axes until the fix viewed the inverse
 * frequencies as (-1, 2). The blocks are Qwen2-VL's and Llama 4's rule,
 * so only Pixtral's vectors see it. */
#include "core/mutant.h"

static pecert_status blocks(void *instance, const pecert_rope2d_apply_args *a)
{
    static const mutant_rope2d_rule rule = {.blocks_always = 1};
    (void)instance;
    return mutant_rope2d_apply(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->rope2d_apply = blocks;
}

const mutant_def mutant = {.name = "rope2d_frequencies_blocks", .patch = patch};
