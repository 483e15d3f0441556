/* posinterp_bicubic_for_bilinear - a bilinear grid (SigLIP 2's
 * resize_positional_embeddings, Qwen3-VL's four-corner blend) resized
 * bicubically: timm's NaFlexViT defaulted SigLIP 2's position embedding
 * to bicubic, "significant deviation in cosine similarity" against the
 * transformers model (huggingface/pytorch-image-models PR #2543). */
#include "core/mutant.h"

static pecert_status broken(void *instance, const pecert_posinterp_args *a)
{
    static const mutant_posinterp_rule rule = {.bicubic_always = 1};
    (void)instance;
    return mutant_posinterp(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->pos_interpolate = broken;
}

const mutant_def mutant = {.name = "posinterp_bicubic_for_bilinear", .patch = patch};
