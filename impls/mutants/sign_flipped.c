/* sign_flipped - rotate_half with the wrong sign, i.e. rotation by -theta
 * (a transposed rotation matrix; the complex multiply by conj(e^{i theta})). */
#include "core/mutant.h"

static void negate(const pecert_rope_config *c, int64_t *pos, int64_t n)
{
    (void)c;
    for (int64_t i = 0; i < n; i++) {
        pos[i] = -pos[i];
    }
}

const mutant_def mutant = {.name = "sign_flipped", .edit_positions = negate};
