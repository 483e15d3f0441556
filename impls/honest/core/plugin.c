/*
 * plugin.c - the descriptor every honest variant exports, its instances,
 * and the error reporting ref's validators (linked in) call.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "honest.h"

static const char *const capabilities[] = {"pecert.rope/1",    "pecert.t5/1",     "pecert.sinusoidal/1",
                                           "pecert.learned/1", "pecert.rope2d/1", "pecert.posinterp/1",
                                           "pecert.cope/1",    "pecert.peg/1",    "pecert.sine2d/1",
                                           "pecert.relpos2d/1", "pecert.deberta/1", "pecert.sincos2d/1", NULL};

static pecert_status honest_create(void **out_instance)
{
    if (out_instance == NULL) {
        return PECERT_E_INVAL;
    }
    *out_instance = calloc(1, sizeof(honest_instance));
    return *out_instance != NULL ? PECERT_OK : PECERT_E_NOMEM;
}

static void honest_destroy(void *instance)
{
    honest_instance *self = instance;
    if (self != NULL) {
        honest_cache_free(self->cache);
    }
    free(self);
}

static const char *honest_last_error(void *instance)
{
    const honest_instance *self = instance;
    return self != NULL ? self->ref.error : "";
}

static const char *honest_describe(void *instance)
{
    (void)instance;
    return honest.follows;
}

static pecert_plugin descriptor = {
    .abi_version = PECERT_ABI_VERSION,
    .struct_size = sizeof(pecert_plugin),
    .vendor = "pecert (honest variant)",
    .version = "1.0.0",
    .capabilities = capabilities,
    .create = honest_create,
    .destroy = honest_destroy,
    .last_error = honest_last_error,
    .rope_freqs = honest_rope_freqs,
    .rope_cos_sin = honest_rope_cos_sin,
    .rope_apply = honest_rope_apply,
    /* Single-threaded, and says so (plugin.h: NULL): a thread count it would
     * only honour trivially could not fail rope.thread_determinism. */
    .set_num_threads = NULL,
    .describe = honest_describe,
    .session_create = honest_session_create,
    .session_destroy = honest_session_destroy,
    .session_append = honest_session_append,
    .session_read_keys = honest_session_read_keys,
    .t5_bucket = honest_t5_bucket,
    .swin_index = honest_swin_index,
    .sinusoidal = honest_sinusoidal,
    .learned_lookup = pecert__ref_learned_lookup,
    .rope2d_index = pecert__ref_rope2d_index,
    .rope2d_apply = honest_rope2d_apply,
    .pos_interpolate = honest_pos_interpolate,
    .cope_logits = honest_cope_logits,
    .peg_apply = honest_peg_apply,
    .sine2d = honest_sine2d,
    .sincos_2d = honest_sincos_2d,
    .relpos2d_bias = honest_relpos2d_bias,
    .deberta_bias = honest_deberta_bias,
};

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    static char id[96];
    static char name[80];
    if (PECERT_ABI_MAJOR_OF(host_abi_version) != PECERT_ABI_MAJOR) {
        return NULL;
    }
    snprintf(id, sizeof(id), "org.pecert.honest.%s", honest.name);
    snprintf(name, sizeof(name), "honest-%s", honest.name);
    descriptor.id = id;
    descriptor.name = name;
    return &descriptor;
}

/* ref's validators report through these two (ref.h). */
void pecert__ref_begin_call(pecert__ref_call *call, void *instance, const char *op)
{
    call->instance = instance;
    call->op = op;
    if (call->instance != NULL) {
        call->instance->error[0] = '\0';
    }
}

pecert_status pecert__ref_fail(const pecert__ref_call *call, pecert_status status, const char *fmt, ...)
{
    if (call->instance == NULL) {
        return status;
    }
    char *buffer = call->instance->error;
    int used = snprintf(buffer, PECERT__REF_ERROR_LEN, "%s: ", call->op);
    if (used < 0 || used >= PECERT__REF_ERROR_LEN) {
        return status;
    }
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(buffer + used, (size_t)(PECERT__REF_ERROR_LEN - used), fmt, ap);
    va_end(ap);
    return status;
}
