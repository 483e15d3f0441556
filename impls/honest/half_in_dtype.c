/* half_in_dtype - transformers on a float16/bfloat16 model
 * (modeling_llama.py: LlamaRotaryEmbedding.forward returns
 * cos.to(dtype=x.dtype), apply_rotary_pos_emb multiplies and adds in that
 * dtype; vLLM casts its cos_sin_cache to the query dtype the same way):
 * cos/sin rounded to the half type, each product and the sum too. */
#include "core/honest.h"

const honest_formulation honest = {
    .name = "half_in_dtype",
    .follows = "transformers apply_rotary_pos_emb on f16/bf16: cos/sin and products in the model dtype",
    .rotation = HONEST_ROTATE_IN_DTYPE,
};
