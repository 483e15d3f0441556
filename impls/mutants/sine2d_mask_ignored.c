/* sine2d_mask_ignored - DETR's sine embedding with every pixel taken as
 * valid: each line normalised by the padded feature map's extent, so an
 * image padded to its batch's largest gets coordinates that stop short of
 * 2 pi at its own edge, and its outputs change with the other images of
 * the batch. transformers' Mask2FormerSinePositionEmbedding (v4.57.6,
 * models/mask2former/modeling_mask2former.py) takes a missing mask as all
 * valid, right for Mask2Former, which passes none; a DETR port built on it
 * drops pixel_mask (facebookresearch/detr #70: the mask is how the
 * encoding sees the image inside its padding). */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_sine2d_rule rule = {.mask_ignored = 1};
    mutant_patch_sine2d(desc, &rule);
}

const mutant_def mutant = {.name = "sine2d_mask_ignored", .patch = patch};
