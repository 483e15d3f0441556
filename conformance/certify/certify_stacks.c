/*
 * certify_stacks.c - encoder-decoders whose two stacks rotate with RoPE,
 * each read from a nested config by its own class (transformers v4.57.6):
 *   t5gemma  T5GemmaConfig: encoder and decoder are T5GemmaModuleConfig
 *            dicts (Gemma 2's fields); a missing decoder is the encoder's
 *            (decoder = encoder). Each stack builds T5GemmaRotaryEmbedding
 *            from its own config; the encoder numbers arange(L), the
 *            decoder cache_position; cross-attention rotates nothing.
 *   dia      DiaConfig: encoder_config (DiaEncoderConfig) and
 *            decoder_config (DiaDecoderConfig), each its class's defaults
 *            when absent; DiaRotaryEmbedding per stack, the encoder's
 *            positions arange(L) whatever position_ids say.
 * pecert certifies one encoding: the stacks must rotate alike (rope type,
 * base, scaling, head_dim, rotary part), and the positions certified run
 * to the longer stack's max_position_embeddings (default RoPE's angles do
 * not depend on it; a scaled rope's do, so there the two must agree). The
 * decoder's heads shape the checks (its KV cache is the one decoding fills).
 */
#include "certify_config.h"
#include "certify_reads.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct stacks_rule {
    const char *model_type;
    const char *encoder_key, *decoder_key;   /* the nested configs' keys     */
    const char *encoder_rule, *decoder_rule; /* cfg_map_nested's rule types  */
    int decoder_is_encoder;                  /* an absent decoder: the encoder's */
} stacks_rule;

static const stacks_rule stacks_rules[] = {
    {"t5gemma", "encoder", "decoder", "t5_gemma_module", "t5_gemma_module", 1},
    {"dia", "encoder_config", "decoder_config", "dia_encoder", "dia_decoder", 0},
};

static const stacks_rule *find_stacks(const char *model_type)
{
    for (size_t i = 0; i < sizeof(stacks_rules) / sizeof(stacks_rules[0]); i++) {
        if (strcmp(stacks_rules[i].model_type, model_type) == 0) {
            return &stacks_rules[i];
        }
    }
    return NULL;
}

/* The nested config at key: an object, or the class's defaults (an empty
 * one) when absent or null; anything else is refused. */
static int nested_config(map_ctx *c, const char *key, const cJSON *empty, const cJSON **out)
{
    const cJSON *v = cfg_get(c->root, key);
    if (v != NULL && !cJSON_IsObject(v)) {
        return cfg_fail(c, key, "expected an object (the stack's config)");
    }
    *out = v != NULL ? v : empty;
    return 0;
}

/* 1 when the two stacks' rotations are one encoding: everything of the
 * rope config but its length, which default RoPE's angles ignore. */
static int rotate_alike(const pecert_certify_model *a, const pecert_certify_model *b)
{
    pecert_rope_config ra = a->rope;
    pecert_rope_config rb = b->rope;
    if (ra.rope_type == PECERT_ROPE_DEFAULT && rb.rope_type == PECERT_ROPE_DEFAULT) {
        ra.max_position_embeddings = rb.max_position_embeddings;
    }
    return memcmp(&ra, &rb, sizeof(ra)) == 0 && a->head_dim == b->head_dim && a->pairing == b->pairing &&
           a->n_layer_types == 0 && b->n_layer_types == 0;
}

/* The encoder's warnings join the decoder's (each already names its key). */
static void add_warnings(pecert_certify_model *m, const pecert_certify_model *from)
{
    for (int i = 0; i < from->n_warnings && m->n_warnings < PECERT_CERTIFY_MAX_WARNINGS; i++) {
        memcpy(m->warnings[m->n_warnings++], from->warnings[i], sizeof(m->warnings[0]));
    }
}

int cfg_map_stacks(map_ctx *c)
{
    const stacks_rule *rule = find_stacks(c->m->model_type);
    if (rule == NULL) {
        return cfg_fail(c, "model_type", "'%s' has no stacks rule (a bug in pecert)", c->m->model_type);
    }
    cJSON *empty = cJSON_CreateObject();
    if (empty == NULL) {
        return cfg_fail(c, "model_type", "out of memory");
    }
    const cJSON *top = c->root;
    const cJSON *enc = NULL;
    const cJSON *dec = NULL;
    int rc = nested_config(c, rule->encoder_key, empty, &enc);
    rc = rc == 0 ? nested_config(c, rule->decoder_key, empty, &dec) : rc;
    if (rc == 0 && rule->decoder_is_encoder && cfg_get(top, rule->decoder_key) == NULL) {
        dec = enc;
    }
    /* The encoder into a model of its own, then the decoder into c's. */
    pecert_certify_model *encoder = calloc(1, sizeof(*encoder)); /* large: not on the stack */
    if (encoder == NULL) {
        cJSON_Delete(empty);
        return cfg_fail(c, "model_type", "out of memory");
    }
    snprintf(encoder->name, sizeof(encoder->name), "%s", c->m->name);
    char enc_prefix[64];
    char dec_prefix[64];
    snprintf(enc_prefix, sizeof(enc_prefix), "%s.", rule->encoder_key);
    snprintf(dec_prefix, sizeof(dec_prefix), "%s.", rule->decoder_key);
    map_ctx e = *c;
    e.m = encoder;
    e.owned = NULL;
    rc = rc == 0 ? cfg_map_nested(&e, enc, enc_prefix, rule->encoder_rule) : rc;
    cJSON_Delete(e.owned);
    rc = rc == 0 ? cfg_map_nested(c, dec, dec_prefix, rule->decoder_rule) : rc;
    if (rc == 0 && !rotate_alike(encoder, c->m)) {
        rc = cfg_fail(c, rule->encoder_key, "the encoder rotates otherwise than the decoder (rope_theta %g and %g, "
                      "rotary_dim %d and %d, rope type, scaling or length): pecert certifies one encoding per "
                      "checkpoint", encoder->rope.rope_theta, c->m->rope.rope_theta, (int)encoder->rope.rotary_dim,
                      (int)c->m->rope.rotary_dim);
    }
    if (rc == 0 && encoder->max_position_embeddings > c->m->max_position_embeddings) {
        c->m->max_position_embeddings = encoder->max_position_embeddings;
        c->m->rope.max_position_embeddings = encoder->max_position_embeddings;
    }
    if (rc == 0) {
        add_warnings(c->m, encoder);
    }
    free(encoder);
    c->root = top;
    c->key_prefix = "";
    cJSON_Delete(empty);
    return rc;
}
