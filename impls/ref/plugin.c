/*
 * plugin.c - the descriptor of `ref`, its instances and error reporting.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ref.h"

static const char *const ref_capabilities[] = {"pecert.rope/1", "pecert.alibi/1", "pecert.t5/1",
                                                "pecert.sinusoidal/1", "pecert.learned/1",
                                                "pecert.sincos2d/1", "pecert.relpos/1",
                                                "pecert.mrope/1", "pecert.rope2d/1",
                                                "pecert.posinterp/1", "pecert.cope/1", "pecert.peg/1",
                                                "pecert.sine2d/1", "pecert.relpos2d/1", "pecert.deberta/1", NULL};

/* create: the instance holds only the per-instance error buffer, so that
 * two instances used from two threads never share mutable state. */
static pecert_status ref_create(void **out_instance)
{
    pecert__ref_instance *instance;

    if (out_instance == NULL) {
        return PECERT_E_INVAL;
    }
    *out_instance = NULL;
    instance = calloc(1, sizeof(*instance));
    if (instance == NULL) {
        return PECERT_E_NOMEM;
    }
    *out_instance = instance;
    return PECERT_OK;
}

static void ref_destroy(void *instance)
{
    free(instance);
}

static const char *ref_last_error(void *instance)
{
    const pecert__ref_instance *self = instance;

    if (self == NULL) {
        return "";
    }
    return self->error;
}

static const pecert_plugin ref_plugin = {
    .abi_version = PECERT_ABI_VERSION,
    .struct_size = sizeof(pecert_plugin),
    .id = "org.pecert.ref",
    .name = "ref",
    .version = "1.0.0",
    .vendor = "pecert",
    .capabilities = ref_capabilities,
    .create = ref_create,
    .destroy = ref_destroy,
    .last_error = ref_last_error,
    .rope_freqs = pecert__ref_rope_freqs,
    .rope_cos_sin = pecert__ref_rope_cos_sin,
    .rope_apply = pecert__ref_rope_apply,
    .session_create = pecert__ref_session_create,
    .session_destroy = pecert__ref_session_destroy,
    .session_append = pecert__ref_session_append,
    .session_read_keys = pecert__ref_session_read_keys,
    .alibi_slopes = pecert__ref_alibi_slopes,
    .alibi_bias = pecert__ref_alibi_bias,
    .t5_bucket = pecert__ref_t5_bucket,
    .sinusoidal = pecert__ref_sinusoidal,
    .learned_lookup = pecert__ref_learned_lookup,
    .sincos_2d = pecert__ref_sincos_2d,
    .swin_index = pecert__ref_swin_index,
    .shaw_index = pecert__ref_shaw_index,
    .txl_pos_emb = pecert__ref_txl_pos_emb,
    .txl_rel_shift = pecert__ref_txl_rel_shift,
    .mrope_index = pecert__ref_mrope_index,
    .mrope_apply = pecert__ref_mrope_apply,
    .rope2d_index = pecert__ref_rope2d_index,
    .rope2d_apply = pecert__ref_rope2d_apply,
    .pos_interpolate = pecert__ref_pos_interpolate,
    .cope_logits = pecert__ref_cope_logits,
    .peg_apply = pecert__ref_peg_apply,
    .sine2d = pecert__ref_sine2d,
    .relpos2d_bias = pecert__ref_relpos2d_bias,
    .deberta_bias = pecert__ref_deberta_bias,
};

/* pecert_plugin_entry refuses a host of another ABI major: field layout is
 * only guaranteed within one major (plugin.h, "Compatibility rules"). */
const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    if (PECERT_ABI_MAJOR_OF(host_abi_version) != PECERT_ABI_MAJOR) {
        return NULL;
    }
    return &ref_plugin;
}

void pecert__ref_begin_call(pecert__ref_call *call, void *instance,
                            const char *op)
{
    call->instance = instance;
    call->op = op;
    if (call->instance != NULL) {
        call->instance->error[0] = '\0';
    }
}

pecert_status pecert__ref_fail(const pecert__ref_call *call,
                               pecert_status status, const char *fmt, ...)
{
    va_list ap;
    int used;
    char *buffer;

    if (call->instance == NULL) {
        return status;
    }
    buffer = call->instance->error;
    used = snprintf(buffer, PECERT__REF_ERROR_LEN, "%s: ", call->op);
    if (used < 0 || used >= PECERT__REF_ERROR_LEN) {
        return status;
    }
    va_start(ap, fmt);
    (void)vsnprintf(buffer + used, (size_t)(PECERT__REF_ERROR_LEN - used),
                    fmt, ap);
    va_end(ap);
    return status;
}
