/* fast_math - a GPU fast-math build (nvcc --use_fast_math turns sinf/cosf
 * into __sinf/__cosf): float32 Cody-Waite reduction and short polynomials
 * of a few ulps instead of correctly reduced libm calls (core/trig.c). */
#include "core/honest.h"

const honest_formulation honest = {
    .name = "fast_math",
    .follows = "fast-math sin/cos: float32 Cody-Waite reduction + polynomial (nvcc --use_fast_math)",
    .trig = HONEST_TRIG_FAST,
};
