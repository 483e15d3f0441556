/* yarn_mscale_all_dim_dropped - rope_scaling.mscale_all_dim not read, so
 * the DeepSeek attention factor becomes get_mscale(factor, mscale) instead
 * of the ratio of the two (onnxruntime/mobius PR #548; transformers PR
 * #47435). */
#include "core/mutant.h"

static void drop(pecert_rope_config *c)
{
    c->present &= ~(uint32_t)PECERT_ROPE_HAS_MSCALE_ALL_DIM;
    c->mscale_all_dim = 0.0;
}

const mutant_def mutant = {.name = "yarn_mscale_all_dim_dropped", .edit_config = drop};
