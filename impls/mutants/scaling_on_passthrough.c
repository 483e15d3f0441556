/* scaling_on_passthrough - the attention scaling multiplied into the whole
 * head, passthrough channels of a partial rotary included. */
#include "core/mutant.h"

static void scale_rest(const pecert_rope_config *c, double scaling, const pecert_rope_apply_args *a)
{
    const pecert_tensor *o = a->out;
    for (int64_t t = 0; t < o->shape[0]; t++) {
        for (int64_t h = 0; h < o->shape[1]; h++) {
            for (int64_t d = c->rotary_dim; d < o->shape[2]; d++) {
                float *e = mutant_elem(o, t, h, d);
                *e = (float)(*e * scaling);
            }
        }
    }
}

const mutant_def mutant = {.name = "scaling_on_passthrough", .post_apply = scale_rest};
