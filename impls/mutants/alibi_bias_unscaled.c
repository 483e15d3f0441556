/* alibi_bias_unscaled - Falcon's ALiBi added to the scaled scores, as
 * Bloom's is, instead of to q . k before the 1/sqrt(head_dim) scale: the
 * bias is sqrt(head_dim) times too large (NVIDIA/TensorRT-Model-Connect
 * PR #11 and PR #32: falcon-rw-1b diverged from HF "once ALiBi affected
 * attention scores", fixed with an alibi_bias_scale of 1/sqrt(head_dim);
 * OpenNMT/CTranslate2 PR #1449 added scale_alibi for the same model). The
 * session is created with the bias scale dropped. */
#include <stddef.h>

#include "core/mutant.h"

static pecert_status (*base_session_create)(void *instance, void **out, const pecert_session_config *config);

static pecert_status session_create_unscaled(void *instance, void **out, const pecert_session_config *config)
{
    if (config == NULL) {
        return base_session_create(instance, out, config);
    }
    pecert_session_config unscaled = *config;
    unscaled.alibi_bias_scale = 0.0; /* 0 = 1: Bloom's order */
    return base_session_create(instance, out, &unscaled);
}

static void patch(pecert_plugin *desc)
{
    base_session_create = desc->session_create;
    desc->session_create = session_create_unscaled;
}

const mutant_def mutant = {.name = "alibi_bias_unscaled", .patch = patch};
