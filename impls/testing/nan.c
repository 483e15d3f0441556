/* nan.c - a plugin whose rope_apply writes NaN everywhere. */
#include <math.h>
#include <stdint.h>

#include "misbehave.h"

static pecert_status apply_nan(void *instance, const pecert_rope_apply_args *args)
{
    (void)instance;
    const pecert_tensor *o = args->out;
    float *data = o->data;
    for (int64_t t = 0; t < o->shape[0]; t++) {
        for (int64_t h = 0; h < o->shape[1]; h++) {
            for (int64_t d = 0; d < o->shape[2]; d++) {
                data[t * o->strides[0] + h * o->strides[1] + d * o->strides[2]] = NAN;
            }
        }
    }
    return PECERT_OK;
}

static const pecert_plugin misbehave_desc =
    MISBEHAVE_DESCRIPTOR(PECERT_ABI_VERSION, sizeof(pecert_plugin), apply_nan);
