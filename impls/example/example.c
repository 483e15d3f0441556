/*
 * example.c - the smallest useful pecert plugin. Copy it to wrap your own
 * engine: replace the code under "Your engine" with calls into yours.
 *
 * It implements rope_freqs (default rope type only) and rope_apply (f32,
 * both pairings, strided); rope_cos_sin is NULL, which the harness reports
 * as "not supported", never as passed.
 *
 * Build: cc -std=c17 -shared -fPIC -Iinclude example.c -o example.so -lm
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "pecert/plugin.h"

/* Duty: never print or abort; return a status and keep one line for
 * last_error in the instance (no global error state). */
typedef struct example_instance {
    const char *error; /* static strings only: nothing to free */
} example_instance;

static pecert_status fail(void *instance, pecert_status status, const char *why)
{
    if (instance != NULL) {
        ((example_instance *)instance)->error = why;
    }
    return status;
}

static pecert_status example_create(void **out_instance)
{
    example_instance *self;

    if (out_instance == NULL) {
        return PECERT_E_INVAL;
    }
    self = calloc(1, sizeof(*self));
    if (self == NULL) {
        return PECERT_E_NOMEM;
    }
    self->error = "";
    *out_instance = self;
    return PECERT_OK;
}

static void example_destroy(void *instance)
{
    free(instance);
}

static const char *example_last_error(void *instance)
{
    return instance != NULL ? ((example_instance *)instance)->error : "";
}

/* Duty: a struct smaller than the one compiled against is an ABI error; a
 * valid request the engine cannot do is UNSUPPORTED, not a wrong answer. */
static pecert_status check_config(void *instance, const pecert_rope_config *config)
{
    if (config == NULL) {
        return fail(instance, PECERT_E_INVAL, "config is NULL");
    }
    if (config->struct_size < sizeof(*config)) {
        return fail(instance, PECERT_E_ABI, "config.struct_size is too small");
    }
    if (config->rope_type != PECERT_ROPE_DEFAULT) {
        return fail(instance, PECERT_E_UNSUPPORTED, "config.rope_type: only default (0)");
    }
    /* A field this engine does not implement is declined, never ignored:
     * a NoPE layer (Llama 4, SmolLM3) must not be rotated. */
    if (config->layer_kind != PECERT_LAYER_ROPE) {
        return fail(instance, PECERT_E_UNSUPPORTED, "config.layer_kind: only rotary layers (0)");
    }
    if (config->head_dim <= 0 || config->rotary_dim < 2 || config->rotary_dim % 2 != 0 ||
        config->rotary_dim > config->head_dim || !(config->rope_theta > 1.0)) {
        return fail(instance, PECERT_E_INVAL,
                    "config: need even 2 <= rotary_dim <= head_dim and rope_theta > 1");
    }
    return PECERT_OK;
}

/* Your engine: the default RoPE frequency theta^(-2i/d) of transformers
 * (modeling_rope_utils.py, _compute_default_rope_parameters). */
static double inv_freq(const pecert_rope_config *config, int32_t i)
{
    return 1.0 / pow(config->rope_theta, (double)(2 * i) / (double)config->rotary_dim);
}

static pecert_status example_rope_freqs(void *instance, double *out_inv_freq,
                                        double *out_attention_scaling,
                                        const pecert_rope_config *config, int64_t seq_len)
{
    pecert_status status = check_config(instance, config);
    int32_t i;

    (void)seq_len; /* only dynamic and longrope depend on it */
    if (status != PECERT_OK) {
        return status;
    }
    if (out_inv_freq == NULL || out_attention_scaling == NULL) {
        return fail(instance, PECERT_E_INVAL, "rope_freqs: an output pointer is NULL");
    }
    for (i = 0; i < config->rotary_dim / 2; i++) {
        out_inv_freq[i] = inv_freq(config, i);
    }
    *out_attention_scaling = 1.0; /* the default type does not scale */
    return PECERT_OK;
}

/* Your engine: rotate the first rotary_dim channels of one head; pairs are
 * (i, i + d/2) split-half (Llama's rotate_half) or (2i, 2i + 1)
 * interleaved (GPT-J's rotate_every_two); later channels pass through. */
static void rotate_head(const pecert_rope_config *config, pecert_rope_pairing pairing,
                        double position, const float *x, int64_t sx, float *out, int64_t so)
{
    int32_t half = config->rotary_dim / 2;
    int32_t i;

    for (i = 0; i < half; i++) {
        double angle = position * inv_freq(config, i);
        int32_t a = pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i : i;
        int32_t b = pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i + 1 : i + half;
        double xa = (double)x[a * sx]; /* read both before writing: out may be x */
        double xb = (double)x[b * sx];

        out[a * so] = (float)(xa * cos(angle) - xb * sin(angle));
        out[b * so] = (float)(xb * cos(angle) + xa * sin(angle));
    }
    for (i = config->rotary_dim; i < config->head_dim; i++) {
        out[i * so] = x[i * sx];
    }
}

/* The farthest element's byte offset must not overflow (a hostile stride). */
static int offsets_fit(const pecert_tensor *t)
{
    int64_t reach = 0;
    int k;

    for (k = 0; k < 3; k++) {
        if (t->shape[k] > 1 && t->strides[k] > (PTRDIFF_MAX / 4 - reach) / (t->shape[k] - 1)) {
            return 0;
        }
        reach += t->shape[k] > 1 ? (t->shape[k] - 1) * t->strides[k] : 0;
    }
    return 1;
}

/* Duty: the host allocates every tensor; check it before touching it. */
static int is_f32_view(const pecert_tensor *t, int32_t head_dim)
{
    return t != NULL && t->struct_size >= sizeof(*t) && t->dtype == PECERT_DTYPE_F32 &&
           t->ndim == 3 && t->shape[0] >= 0 && t->shape[1] >= 0 && t->shape[2] == head_dim &&
           t->strides[0] >= 0 && t->strides[1] >= 0 && t->strides[2] >= 0 && offsets_fit(t) &&
           (uintptr_t)t->data % sizeof(float) == 0 &&
           (t->data != NULL || t->shape[0] == 0 || t->shape[1] == 0);
}

/* Duty: out may be x itself (same data and strides); any other overlap is
 * invalid. This simple test catches same data with other strides only;
 * a real plugin should also compare the memory spans of the two views. */
static int bad_alias(const pecert_tensor *x, const pecert_tensor *out)
{
    return x->data == out->data &&
           (x->strides[0] != out->strides[0] || x->strides[1] != out->strides[1] ||
            x->strides[2] != out->strides[2]);
}

static pecert_status example_rope_apply(void *instance, const pecert_rope_apply_args *args)
{
    pecert_status status;
    int64_t t;
    int64_t h;

    if (args == NULL || args->struct_size < sizeof(*args)) {
        return fail(instance, PECERT_E_ABI, "rope_apply: args is NULL or too small");
    }
    status = check_config(instance, args->config);
    if (status != PECERT_OK) {
        return status;
    }
    /* Duty: a valid request you do not implement is "unsupported", not
     * "invalid" (f16/bf16 here): the report then says so, not "failed". */
    if (args->x != NULL && args->out != NULL &&
        (args->x->dtype != PECERT_DTYPE_F32 || args->out->dtype != PECERT_DTYPE_F32) &&
        (args->x->dtype == PECERT_DTYPE_F16 || args->x->dtype == PECERT_DTYPE_BF16 ||
         args->out->dtype == PECERT_DTYPE_F16 || args->out->dtype == PECERT_DTYPE_BF16)) {
        return fail(instance, PECERT_E_UNSUPPORTED, "rope_apply: only f32 tensors");
    }
    if (!is_f32_view(args->x, args->config->head_dim) ||
        !is_f32_view(args->out, args->config->head_dim) ||
        args->out->shape[0] != args->x->shape[0] || args->out->shape[1] != args->x->shape[1] ||
        (args->x->shape[0] > 0 && args->positions == NULL) || bad_alias(args->x, args->out) ||
        (args->pairing != PECERT_PAIRING_SPLIT_HALF &&
         args->pairing != PECERT_PAIRING_INTERLEAVED)) {
        return fail(instance, PECERT_E_INVAL, "rope_apply: need f32 x and out of shape "
                    "[tokens, heads, head_dim], positions, and a known pairing");
    }
    for (t = 0; t < args->x->shape[0]; t++) {
        for (h = 0; h < args->x->shape[1]; h++) {
            const pecert_tensor *x = args->x;
            const pecert_tensor *out = args->out;

            rotate_head(args->config, args->pairing, (double)args->positions[t],
                        (const float *)x->data + t * x->strides[0] + h * x->strides[1],
                        x->strides[2],
                        (float *)out->data + t * out->strides[0] + h * out->strides[1],
                        out->strides[2]);
        }
    }
    return PECERT_OK;
}

static const char *const example_capabilities[] = {"pecert.rope/1", NULL};

/* Duty: a static, immutable descriptor; a NULL function = not implemented. */
static const pecert_plugin example_plugin = {
    .abi_version = PECERT_ABI_VERSION,
    .struct_size = sizeof(pecert_plugin),
    .id = "org.pecert.example",
    .name = "example",
    .version = "1.0.0",
    .vendor = "pecert",
    .capabilities = example_capabilities,
    .create = example_create,
    .destroy = example_destroy,
    .last_error = example_last_error,
    .rope_freqs = example_rope_freqs,
    .rope_cos_sin = NULL,
    .rope_apply = example_rope_apply,
};

/* Duty: refuse (return NULL) a host whose ABI major differs. */
const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    if (PECERT_ABI_MAJOR_OF(host_abi_version) != PECERT_ABI_MAJOR) {
        return NULL;
    }
    return &example_plugin;
}
