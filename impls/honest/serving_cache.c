/* serving_cache - a serving engine's cos/sin cache (vLLM
 * model_executor/layers/rotary_embedding: _compute_cos_sin_cache over
 * arange(max_position_embeddings) in float32, indexed by position in
 * forward). Positions outside the cache are declined, not extrapolated. */
#include "core/honest.h"

const honest_formulation honest = {
    .name = "serving_cache",
    .follows = "vLLM rotary_embedding _compute_cos_sin_cache: float32 table indexed by position",
    .position_cache = 1,
};
