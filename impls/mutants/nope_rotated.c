/* nope_rotated - the layer kind ignored: a NoPE layer (Llama 4's
 * no_rope_layers, SmolLM3's every 4th layer) is rotated like every other
 * (NVIDIA/TensorRT-LLM PR #3382: "we'll (incorrectly) apply RoPE" on
 * Llama 4's NoPE layers; airockchip/rknn-llm #501: RoPE applied on
 * SmolLM3's NoPE layers). Both rope_apply and the decode session see the
 * rotary layer's config. */
#include "core/mutant.h"

static void rotate_every_layer(pecert_rope_config *c)
{
    c->layer_kind = PECERT_LAYER_ROPE;
}

const mutant_def mutant = {.name = "nope_rotated", .edit_config = rotate_every_layer};
