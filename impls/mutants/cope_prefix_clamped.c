/* cope_prefix_clamped - CoPE's positions as a difference of clamped prefix
 * sums, C(P_last) - C(P_{j-1}) with C(x) = min(x, npos - 1), where the
 * authors' code clamps each position itself: once the prefix saturates,
 * every later key's position collapses to 0 and the earlier ones shrink.
 * ryancinsight/RustGPT commit f591e8b (src/cop.rs:
 * prefix.push(acc.min(self.max_pos as f32)), then p = prefix[i] -
 * prefix[j - 1]); its earlier 24d0481 clamped each position. */
#include "core/mutant.h"

static void patch(pecert_plugin *desc)
{
    static const mutant_cope_rule rule = {.prefix_clamped = 1};
    mutant_patch_cope(desc, &rule);
}

const mutant_def mutant = {.name = "cope_prefix_clamped", .patch = patch};
