/* alibi_exponent_off_by_one - ALiBi slopes 2^(-8h/c) for h = 0..c-1 instead
 * of 2^(-8(h+1)/c): the first head gets slope 1 and every slope is one step
 * too large (paiml/aprender PR #2143). The bias follows the slopes. */
#include <math.h>

#include "core/mutant.h"

/* The paper's slopes (plugin.h, ALiBi) with the exponent off by one. */
static double slope(int32_t h, int32_t n, double max_bias)
{
    int32_t c = 1;
    while (c * 2 <= n) {
        c *= 2;
    }
    if (h < c) {
        return pow(2.0, -max_bias * (double)h / (double)c); /* the bug: h, not h + 1 */
    }
    int32_t j = h - c + 1;
    return pow(2.0, -max_bias * (double)(2 * j - 1) / (double)(2 * c));
}

const mutant_def mutant = {.name = "alibi_exponent_off_by_one", .alibi_slope = slope};
