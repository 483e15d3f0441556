/*
 * plugin.c - the descriptor of `fast`, its instances, errors, thread
 * count, describe() and the per-instance scratch memory.
 */
#include <inttypes.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

static const char *const fast_capabilities[] = {
    "pecert.rope/1",   "pecert.alibi/1",    "pecert.t5/1",    "pecert.sinusoidal/1",
    "pecert.learned/1", "pecert.sincos2d/1", "pecert.relpos/1", "pecert.mrope/1",
    "pecert.rope2d/1",  "pecert.posinterp/1", "pecert.cope/1",
    "pecert.peg/1",     "pecert.sine2d/1", "pecert.relpos2d/1", "pecert.deberta/1", NULL};

/* Why the last create() on this thread failed (an unknown PECERT_ISA, a
 * CPU without the ISA it names): create has no instance to hold the
 * message, so last_error(NULL) returns it. */
static _Thread_local char create_error[PECERT__FAST_ERROR_LEN];

static void describe_instance(pecert__fast_instance *instance)
{
    snprintf(instance->description, sizeof(instance->description), "isa=%s threads=%" PRId32,
             instance->kernels->name, instance->n_threads);
}

/* The default thread count is OpenMP's (OMP_NUM_THREADS, else the CPUs
 * this process may run on), capped like set_num_threads. */
static int32_t default_threads(void)
{
    int n = omp_get_max_threads();

    if (n < 1) {
        return 1;
    }
    return n > PECERT__FAST_MAX_THREADS ? PECERT__FAST_MAX_THREADS : (int32_t)n;
}

static pecert_status fast_create(void **out_instance)
{
    const pecert__fast_kernels *kernels = NULL;
    pecert__fast_instance *instance;
    pecert_status status;

    create_error[0] = '\0';
    if (out_instance == NULL) {
        snprintf(create_error, sizeof(create_error), "create: out_instance is NULL");
        return PECERT_E_INVAL;
    }
    *out_instance = NULL;
    status = pecert__fast_select_kernels(&kernels, create_error, sizeof(create_error));
    if (status != PECERT_OK) {
        return status;
    }
    instance = calloc(1, sizeof(*instance));
    if (instance == NULL) {
        snprintf(create_error, sizeof(create_error), "create: out of memory");
        return PECERT_E_NOMEM;
    }
    instance->kernels = kernels;
    instance->n_threads = default_threads();
    describe_instance(instance);
    *out_instance = instance;
    return PECERT_OK;
}

static void fast_destroy(void *opaque)
{
    pecert__fast_instance *instance = opaque;

    if (instance == NULL) {
        return;
    }
    pecert__fast_freq_cache_free(&instance->cache);
    free(instance->scratch);
    free(instance);
}

static const char *fast_last_error(void *opaque)
{
    const pecert__fast_instance *instance = opaque;

    return instance == NULL ? create_error : instance->error;
}

static pecert_status fast_set_num_threads(void *opaque, int32_t n)
{
    pecert__fast_instance *instance = opaque;
    pecert__fast_call call;

    if (pecert__fast_begin_call(&call, instance, "set_num_threads") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    if (n < 1 || n > PECERT__FAST_MAX_THREADS) {
        return pecert__fast_fail(&call, PECERT_E_INVAL, "n=%" PRId32 " must be in 1..%d", n,
                                 PECERT__FAST_MAX_THREADS);
    }
    instance->n_threads = n;
    describe_instance(instance);
    return PECERT_OK;
}

static const char *fast_describe(void *opaque)
{
    const pecert__fast_instance *instance = opaque;

    return instance == NULL ? "" : instance->description;
}

static const pecert_plugin fast_plugin = {
    .abi_version = PECERT_ABI_VERSION,
    .struct_size = sizeof(pecert_plugin),
    .id = "org.pecert.fast",
    .name = "fast",
    .version = "1.0.0",
    .vendor = "pecert",
    .capabilities = fast_capabilities,
    .create = fast_create,
    .destroy = fast_destroy,
    .last_error = fast_last_error,
    .rope_freqs = pecert__fast_rope_freqs,
    .rope_cos_sin = pecert__fast_rope_cos_sin,
    .rope_apply = pecert__fast_rope_apply,
    .set_num_threads = fast_set_num_threads,
    .describe = fast_describe,
    .session_create = pecert__fast_session_create,
    .session_destroy = pecert__fast_session_destroy,
    .session_append = pecert__fast_session_append,
    .session_read_keys = pecert__fast_session_read_keys,
    .alibi_slopes = pecert__fast_alibi_slopes,
    .alibi_bias = pecert__fast_alibi_bias,
    .t5_bucket = pecert__fast_t5_bucket,
    .sinusoidal = pecert__fast_sinusoidal,
    .learned_lookup = pecert__fast_learned_lookup,
    .sincos_2d = pecert__fast_sincos_2d,
    .swin_index = pecert__fast_swin_index,
    .shaw_index = pecert__fast_shaw_index,
    .txl_pos_emb = pecert__fast_txl_pos_emb,
    .txl_rel_shift = pecert__fast_txl_rel_shift,
    .mrope_index = pecert__fast_mrope_index,
    .mrope_apply = pecert__fast_mrope_apply,
    .rope2d_index = pecert__fast_rope2d_index,
    .rope2d_apply = pecert__fast_rope2d_apply,
    .pos_interpolate = pecert__fast_pos_interpolate,
    .cope_logits = pecert__fast_cope_logits,
    .peg_apply = pecert__fast_peg_apply,
    .sine2d = pecert__fast_sine2d,
    .relpos2d_bias = pecert__fast_relpos2d_bias,
    .deberta_bias = pecert__fast_deberta_bias,
};

/* Refuse another ABI major: field layout is only fixed within one. */
const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    if (PECERT_ABI_MAJOR_OF(host_abi_version) != PECERT_ABI_MAJOR) {
        return NULL;
    }
    return &fast_plugin;
}

pecert_status pecert__fast_begin_call(pecert__fast_call *call, void *instance, const char *op)
{
    call->instance = instance;
    call->op = op;
    /* fast has create(): a NULL instance is a host bug, and there would be
     * nowhere to put the message or the scratch memory. */
    if (call->instance == NULL) {
        return PECERT_E_INVAL;
    }
    call->instance->error[0] = '\0';
    return PECERT_OK;
}

pecert_status pecert__fast_fail(const pecert__fast_call *call, pecert_status status,
                                const char *fmt, ...)
{
    va_list ap;
    char *buffer;
    int used;

    if (call->instance == NULL) {
        return status;
    }
    buffer = call->instance->error;
    used = snprintf(buffer, PECERT__FAST_ERROR_LEN, "%s: ", call->op);
    if (used < 0 || used >= PECERT__FAST_ERROR_LEN) {
        return status;
    }
    va_start(ap, fmt);
    (void)vsnprintf(buffer + used, (size_t)(PECERT__FAST_ERROR_LEN - used), fmt, ap);
    va_end(ap);
    return status;
}

void *pecert__fast_scratch(const pecert__fast_call *call, size_t len)
{
    pecert__fast_instance *instance = call->instance;
    size_t rounded = (len + 63) & ~(size_t)63;
    void *fresh;

    if (rounded <= instance->scratch_len && instance->scratch != NULL) {
        return instance->scratch;
    }
    fresh = aligned_alloc(64, rounded > 0 ? rounded : 64);
    if (fresh == NULL) {
        (void)pecert__fast_fail(call, PECERT_E_NOMEM, "cannot allocate %zu bytes of scratch",
                                rounded);
        return NULL;
    }
    free(instance->scratch);
    instance->scratch = fresh;
    instance->scratch_len = rounded;
    return fresh;
}

int pecert__fast_threads(const pecert__fast_call *call, size_t bytes, int64_t items)
{
    int64_t n = call->instance->n_threads;

    if (bytes < PECERT__FAST_PARALLEL_MIN_BYTES || items < 2) {
        return 1;
    }
    return (int)(n < items ? n : items);
}
