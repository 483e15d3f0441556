/*
 * certify_layers.c - checkpoints whose layers rotate differently (Gemma 3's
 * sliding and full layers, Llama 4's NoPE layers, Qwen3-Next's linear
 * attention, Cohere2's pattern): which layers are which, read from
 * config.json as each config class reads it, and the encoding of each
 * layer type. Split from certify_config.c, whose model readers call it.
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "vectors.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-layer encodings ------------------------------------------------ */

/* The number of layers, num_hidden_layers or the class's default. */
static int read_layer_count(map_ctx *c, int32_t default_layers)
{
    c->m->n_layers = default_layers;
    if (cfg_read_int32(c, c->root, "num_hidden_layers", 1, PECERT_CERTIFY_MAX_LAYERS, &c->m->n_layers) < 0) {
        return -1;
    }
    return 0;
}

/* 1 if a and b rotate alike. Default rope is theta and width alone; a
 * scaled one is compared no further (its types stay apart). */
static int same_encoding(const pecert_rope_config *a, const pecert_rope_config *b)
{
    return a->layer_kind == b->layer_kind && a->rope_type == b->rope_type && a->rope_type == PECERT_ROPE_DEFAULT &&
           a->rope_theta == b->rope_theta && a->rotary_dim == b->rotary_dim && a->head_dim == b->head_dim;
}

/* The index of the layer type named name with encoding rope, added when
 * new; a type that rotates like an earlier one is that one (Gemma 3 with
 * rope_local_base_freq = rope_theta and no scaling has one encoding).
 * Layer types are few and named by the mapping, never by the file. */
static int layer_type_index(pecert_certify_model *m, const char *name, const pecert_rope_config *rope)
{
    for (int t = 0; t < m->n_layer_types; t++) {
        if (strcmp(m->layer_types[t].name, name) == 0 || same_encoding(&m->layer_types[t].rope, rope)) {
            return t;
        }
    }
    pecert_certify_layer_type *lt = &m->layer_types[m->n_layer_types];
    memset(lt, 0, sizeof(*lt));
    snprintf(lt->name, sizeof(lt->name), "%s", name);
    lt->rope = *rope;
    return m->n_layer_types++;
}

/* Layer i is of the type named names[kind[i]] with encoding ropes[kind[i]]
 * (two kinds at most). One type for every layer means no per-layer
 * encoding at all. */
static void set_layer_types(pecert_certify_model *m, const uint8_t *kind, const char *const names[2],
                            const pecert_rope_config *const ropes[2])
{
    m->n_layer_types = 0;
    for (int32_t i = 0; i < m->n_layers; i++) {
        int t = layer_type_index(m, names[kind[i]], ropes[kind[i]]);
        m->layer_type_of[i] = (uint8_t)t;
        m->layer_types[t].n_layers++;
    }
    /* One rotary type for every layer: no per-layer encoding. (Every layer
     * NoPE stays a layer type: certify then checks that nothing rotates.) */
    if (m->n_layer_types == 1 && m->layer_types[0].rope.layer_kind == PECERT_LAYER_ROPE) {
        m->rope = m->layer_types[0].rope;
        m->n_layer_types = 0;
        memset(m->layer_type_of, 0, sizeof(m->layer_type_of));
    }
}

/* The rope config with layer_kind NOPE: the layer rotates nothing. */
static pecert_rope_config nope_of(const pecert_rope_config *rope)
{
    pecert_rope_config nope = *rope;
    nope.layer_kind = PECERT_LAYER_NOPE;
    return nope;
}

/* no_rope_layers (1 = RoPE, 0 = NoPE; Llama4TextConfig and SmolLM3Config),
 * or, when absent or empty, a NoPE layer every no_rope_layer_interval
 * (default 4) layers: layer i rotates iff (i + 1) % interval != 0. kind[i]
 * becomes 0 for a RoPE layer, 1 for a NoPE one. */
static int read_no_rope_layers(map_ctx *c, uint8_t *kind)
{
    int32_t interval = 4;
    const pecert_certify_model *m = c->m;
    if (cfg_read_int32(c, c->root, "no_rope_layer_interval", 1, 1 << 16, &interval) < 0) {
        return -1;
    }
    const cJSON *list = cfg_get(c->root, "no_rope_layers");
    int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;
    if (list != NULL && !cJSON_IsArray(list)) {
        return cfg_fail(c, "no_rope_layers", "expected a list of 0/1 flags");
    }
    if (n > 0 && n != m->n_layers) {
        return cfg_fail(c, "no_rope_layers", "has %d flags for num_hidden_layers = %d", n, m->n_layers);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(list, i);
        if (!(cJSON_IsNumber(e) || cJSON_IsBool(e)) || (cJSON_IsNumber(e) && e->valuedouble != 0 && e->valuedouble != 1)) {
            return cfg_fail(c, "no_rope_layers", "element %d is not 0 or 1", i);
        }
        kind[i] = (uint8_t)(cJSON_IsNumber(e) ? e->valuedouble == 0 : cJSON_IsFalse(e));
    }
    for (int32_t i = 0; n == 0 && i < m->n_layers; i++) {
        kind[i] = (uint8_t)((i + 1) % interval == 0);
    }
    return 0;
}

/* layer_types ("sliding_attention" / "full_attention", one per layer), or,
 * when absent, a full-attention layer every sliding_window_pattern
 * (default pattern) layers: layer i slides iff (i + 1) % pattern != 0
 * (Gemma3TextConfig, Cohere2Config, Exaone4Config). kind[i] becomes 0 for
 * a sliding layer, 1 for a full one. */
static int read_sliding_layers(map_ctx *c, int32_t pattern, uint8_t *kind)
{
    const pecert_certify_model *m = c->m;
    const cJSON *list = cfg_get(c->root, "layer_types");
    if (list == NULL) {
        if (cfg_read_int32(c, c->root, "sliding_window_pattern", 1, 1 << 16, &pattern) < 0) {
            return -1;
        }
        for (int32_t i = 0; i < m->n_layers; i++) {
            kind[i] = (uint8_t)((i + 1) % pattern == 0);
        }
        return 0;
    }
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) != m->n_layers) {
        return cfg_fail(c, "layer_types",
                        "expected a list of num_hidden_layers = %d layer types (layer_type_validation)",
                        m->n_layers);
    }
    for (int32_t i = 0; i < m->n_layers; i++) {
        const cJSON *e = cJSON_GetArrayItem(list, i);
        int sliding = cJSON_IsString(e) && strcmp(e->valuestring, "sliding_attention") == 0;
        if (!sliding && !(cJSON_IsString(e) && strcmp(e->valuestring, "full_attention") == 0)) {
            return cfg_fail(c, "layer_types", "element %d: expected \"sliding_attention\" or \"full_attention\"",
                            (int)i);
        }
        kind[i] = (uint8_t)!sliding;
    }
    return 0;
}

/* 1 if config.json's sliding_window is set (absent: the class default). */
static int read_has_window(map_ctx *c, int default_set)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(c->root, "sliding_window");
    if (w == NULL) {
        return default_set;
    }
    return !cJSON_IsNull(w);
}

/* Llama 4 and SmolLM3: no_rope_layers. Llama 4's NoPE layers also scale
 * their queries (attn_temperature_tuning), outside the rotation. */
/* Mllama (MllamaTextModel): the layers cross_attention_layers names are
 * MllamaCrossAttentionDecoderLayer (text queries on the image's keys, no
 * rotary), every other one rotates with MllamaRotaryEmbedding; the class's
 * default list is [3, 8, ..., 38] of 40 layers. */
static int map_cross_attention_layers(map_ctx *c)
{
    static const int32_t defaults[] = {3, 8, 13, 18, 23, 28, 33, 38};
    uint8_t kind[PECERT_CERTIFY_MAX_LAYERS];
    if (read_layer_count(c, 40) != 0) {
        return -1;
    }
    memset(kind, 0, sizeof(kind));
    const cJSON *list = cfg_get(c->root, "cross_attention_layers");
    if (list != NULL && !cJSON_IsArray(list)) {
        return cfg_fail(c, "cross_attention_layers", "expected a list of layer indices");
    }
    int n = list != NULL ? cJSON_GetArraySize(list) : (int)(sizeof(defaults) / sizeof(defaults[0]));
    for (int i = 0; i < n; i++) {
        const cJSON *e = list != NULL ? cJSON_GetArrayItem(list, i) : NULL;
        double v = e != NULL ? (cJSON_IsNumber(e) ? e->valuedouble : -1) : defaults[i];
        if (v < 0 || v != (int32_t)v) {
            return cfg_fail(c, "cross_attention_layers", "element %d is not a layer index", i);
        }
        if (v >= c->m->n_layers) { /* never reached by the layer loop: the model builds no such layer */
            continue;
        }
        kind[(int32_t)v] = 1;
    }
    const pecert_rope_config nope = nope_of(&c->m->rope);
    const char *const names[2] = {"rope", "nope"};
    const pecert_rope_config *const ropes[2] = {&c->m->rope, &nope};
    set_layer_types(c->m, kind, names, ropes);
    return 0;
}

int cfg_map_no_rope_layers(map_ctx *c, int32_t default_layers)
{
    uint8_t kind[PECERT_CERTIFY_MAX_LAYERS];
    if (read_layer_count(c, default_layers) != 0 || read_no_rope_layers(c, kind) != 0) {
        return -1;
    }
    const pecert_rope_config nope = nope_of(&c->m->rope);
    const char *const names[2] = {"rope", "nope"};
    const pecert_rope_config *const ropes[2] = {&c->m->rope, &nope};
    set_layer_types(c->m, kind, names, ropes);
    if (c->m->n_layer_types > 1 && strcmp(c->m->model_type, "llama4") == 0) {
        cfg_warn(c, "no_rope_layers", "the NoPE layers scale their queries by attn_temperature_tuning (outside the "
                 "rotation): certify checks that those layers rotate nothing, not the scaling");
    }
    return 0;
}

/* Gemma 3 (Gemma3TextModel.__init__): the full-attention layers rotate
 * with rope_theta and rope_scaling (rotary_emb), the sliding ones with a
 * deep copy of the config holding rope_theta = rope_local_base_freq
 * (default 10000) and rope_scaling {"rope_type": "default"}
 * (rotary_emb_local); Gemma3DecoderLayer picks by self_attn.is_sliding. */
static int map_gemma3_layers(map_ctx *c, int32_t default_layers, int32_t pattern)
{
    uint8_t kind[PECERT_CERTIFY_MAX_LAYERS];
    pecert_rope_config local;
    memset(&local, 0, sizeof(local));
    local.struct_size = sizeof(local);
    local.head_dim = c->m->rope.head_dim;
    local.rotary_dim = c->m->rope.rotary_dim;
    local.max_position_embeddings = c->m->rope.max_position_embeddings;
    local.rope_type = PECERT_ROPE_DEFAULT;
    local.rope_theta = 10000.0;
    if (cfg_read_num(c, c->root, "rope_local_base_freq", "rope_local_base_freq", 1.0 + 1e-9, 1e12,
                     &local.rope_theta) < 0 ||
        read_layer_count(c, default_layers) != 0 || read_sliding_layers(c, pattern, kind) != 0) {
        return -1;
    }
    const char *const names[2] = {"sliding", "full"};
    const pecert_rope_config *const ropes[2] = {&local, &c->m->rope};
    set_layer_types(c->m, kind, names, ropes);
    return 0;
}

/* ModernBERT (ModernBertAttention.__init__): layer i is global when
 * i % global_attn_every_n_layers == 0 (rotary module from the config,
 * global_rope_theta), else local (a deep copy of the config whose
 * rope_theta, global_rope_theta's alias, is local_rope_theta, or the
 * global base when that is null; its rope_scaling and length unchanged)
 * and attends within local_attention / 2 tokens each side. Flash
 * attention's ModernBertUnpaddedRotaryEmbedding computes the same angles. */
static int map_modernbert_layers(map_ctx *c)
{
    uint8_t kind[PECERT_CERTIFY_MAX_LAYERS];
    pecert_rope_config local = c->m->rope;
    int32_t every = 3;
    /* Absent: the class's 10000; null: the global base (local stays it). */
    if (!cJSON_HasObjectItem(c->root, "local_rope_theta")) {
        local.rope_theta = 10000.0;
    }
    if (cfg_read_num(c, c->root, "local_rope_theta", "local_rope_theta", 1.0 + 1e-9, 1e12, &local.rope_theta) < 0 ||
        cfg_read_int32(c, c->root, "global_attn_every_n_layers", 1, PECERT_CERTIFY_MAX_LAYERS, &every) < 0 ||
        read_layer_count(c, 22) != 0) {
        return -1;
    }
    for (int32_t i = 0; i < c->m->n_layers; i++) {
        kind[i] = i % every == 0;
    }
    const char *const names[2] = {"sliding", "full"};
    const pecert_rope_config *const ropes[2] = {&local, &c->m->rope};
    set_layer_types(c->m, kind, names, ropes);
    return 0;
}

/* Cohere 2 (Cohere2Attention): `if self.sliding_window is not None:` rotate,
 * and sliding_window is config.sliding_window (default 4096) on the
 * sliding layers only: the full-attention layers are NoPE, and every layer
 * is when config.json sets sliding_window to null. Exaone 4
 * (Exaone4Attention): `if self.sliding_window is None or self.is_sliding:`
 * rotate: with a window only the sliding layers rotate, without one every
 * layer does; Exaone4Config then derives layer_types from a pattern of 0,
 * a ZeroDivisionError, so layer_types must be given. */
static int map_sliding_rope_layers(map_ctx *c, int32_t default_layers)
{
    uint8_t kind[PECERT_CERTIFY_MAX_LAYERS];
    int exaone = strcmp(c->m->model_type, "exaone4") == 0;
    int windowed = read_has_window(c, 1);
    if (read_layer_count(c, default_layers) != 0) {
        return -1;
    }
    if (exaone && !windowed && cfg_get(c->root, "layer_types") == NULL) {
        return cfg_fail(c, "sliding_window", "null without layer_types: Exaone4Config derives layer_types with "
                        "sliding_window_pattern 0 (ZeroDivisionError)");
    }
    if (read_sliding_layers(c, 4, kind) != 0) {
        return -1;
    }
    for (int32_t i = 0; i < c->m->n_layers; i++) {
        int rotates = exaone ? (!windowed || kind[i] == 0) : (windowed && kind[i] == 0);
        kind[i] = (uint8_t)!rotates;
    }
    const pecert_rope_config nope = nope_of(&c->m->rope);
    const char *const names[2] = {"sliding", "full"};
    const pecert_rope_config *const ropes[2] = {&c->m->rope, &nope};
    set_layer_types(c->m, kind, names, ropes);
    return 0;
}

/* Layers of linear attention, which has no positions to encode, beside
 * full-attention ones: Qwen3-Next's layer_types, or a full-attention layer
 * every full_attention_interval (default 4) layers, the others
 * Qwen3NextGatedDeltaNet; MiniMax's layer_types, or (MiniMaxConfig's
 * default) full attention on the even layers and lightning attention on
 * the odd ones. The full-attention layers rotate with the config's rope;
 * the others are no attention layer a plugin's rope or session computes,
 * so certify says it leaves them out. */
static int map_linear_attention_layers(map_ctx *c)
{
    const int minimax = strcmp(c->m->model_type, "minimax") == 0;
    int32_t interval = minimax ? 2 : 4;
    int linear = 0;
    if (read_layer_count(c, minimax ? 32 : 48) != 0 ||
        (!minimax && cfg_read_int32(c, c->root, "full_attention_interval", 1, 1 << 16, &interval) < 0)) {
        return -1;
    }
    const cJSON *list = cfg_get(c->root, "layer_types");
    if (list != NULL && (!cJSON_IsArray(list) || cJSON_GetArraySize(list) != c->m->n_layers)) {
        return cfg_fail(c, "layer_types",
                        "expected a list of num_hidden_layers = %d layer types (layer_type_validation)",
                        (int)c->m->n_layers);
    }
    for (int32_t i = 0; i < c->m->n_layers; i++) {
        const cJSON *e = list != NULL ? cJSON_GetArrayItem(list, i) : NULL;
        int is_linear = e != NULL && cJSON_IsString(e) && strcmp(e->valuestring, "linear_attention") == 0;
        if (e != NULL && !is_linear && !(cJSON_IsString(e) && strcmp(e->valuestring, "full_attention") == 0)) {
            return cfg_fail(c, "layer_types", "element %d: expected \"linear_attention\" or \"full_attention\"",
                            (int)i);
        }
        linear += list != NULL ? is_linear : minimax ? (i + 1) % 2 == 0 : (i + 1) % interval != 0;
    }
    if (linear > 0) {
        cfg_warn(c, list != NULL || minimax ? "layer_types" : "full_attention_interval",
                 "%d of %d layers are linear attention (%s, no position encoding): certify checks the "
                 "rotation of the %d full-attention layers", linear, (int)c->m->n_layers,
                 minimax ? "lightning attention" : "Gated DeltaNet", (int)c->m->n_layers - linear);
    }
    return 0;
}

/* Granite 4.0 (GraniteMoeHybridModel): layer i attends when
 * layer_types[i] is "attention" (rotated when position_embedding_type is
 * "rope", checked by the caller), else it is a Mamba mixer with no
 * positions. GraniteMoeHybridConfig's attribute_map reads layers_block_type
 * as layer_types: without a list (None, the default) the model cannot be
 * built (TypeError indexing it). */
static int map_mamba_layers(map_ctx *c)
{
    int mamba = 0;
    if (read_layer_count(c, 32) != 0) {
        return -1;
    }
    const cJSON *list = cfg_get(c->root, "layer_types");
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) != c->m->n_layers) {
        return cfg_fail(c, "layer_types", "required: a list of num_hidden_layers = %d \"mamba\" / \"attention\" "
                        "(GraniteMoeHybridModel indexes config.layers_block_type, None without it)",
                        (int)c->m->n_layers);
    }
    for (int32_t i = 0; i < c->m->n_layers; i++) {
        const cJSON *e = cJSON_GetArrayItem(list, i);
        int is_mamba = cJSON_IsString(e) && strcmp(e->valuestring, "mamba") == 0;
        if (!is_mamba && !(cJSON_IsString(e) && strcmp(e->valuestring, "attention") == 0)) {
            return cfg_fail(c, "layer_types", "element %d: expected \"mamba\" or \"attention\"", (int)i);
        }
        mamba += is_mamba;
    }
    if (mamba == c->m->n_layers) {
        return cfg_fail(c, "layer_types", "every layer is Mamba: the model has no attention, no positions to "
                        "certify");
    }
    if (mamba > 0) {
        cfg_warn(c, "layer_types", "%d of %d layers are Mamba (no position encoding): certify checks the rotation "
                 "of the %d attention layers", mamba, (int)c->m->n_layers, (int)c->m->n_layers - mamba);
    }
    return 0;
}

/* RecurrentGemma (RecurrentGemmaModel.__init__): layer i is of
 * block_types[i % len(block_types)] (recurrent, recurrent, attention by
 * default), and only the attention blocks have positions (the recurrent
 * ones, RG-LRU, none): certify says it leaves the others out. */
static int map_recurrent_blocks(map_ctx *c)
{
    static const char *const defaults[] = {"recurrent", "recurrent", "attention"};
    const cJSON *list = cfg_get(c->root, "block_types");
    int n = list != NULL && cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 3;
    int attention = 0;
    if (read_layer_count(c, 26) != 0) {
        return -1;
    }
    if (list != NULL && (!cJSON_IsArray(list) || n == 0)) {
        return cfg_fail(c, "block_types", "expected a non-empty list of \"recurrent\" / \"attention\"");
    }
    for (int32_t i = 0; i < c->m->n_layers; i++) {
        const cJSON *e = list != NULL ? cJSON_GetArrayItem(list, i % n) : NULL;
        const char *type = list != NULL ? (cJSON_IsString(e) ? e->valuestring : "") : defaults[i % n];
        if (strcmp(type, "attention") != 0 && strcmp(type, "recurrent") != 0) {
            return cfg_fail(c, "block_types", "element %d: expected \"recurrent\" or \"attention\"", (int)(i % n));
        }
        attention += strcmp(type, "attention") == 0;
    }
    if (attention < c->m->n_layers) {
        cfg_warn(c, "block_types", "%d of %d layers are recurrent (RG-LRU, no position encoding): certify checks the "
                 "rotation of the %d attention layers", (int)c->m->n_layers - attention, (int)c->m->n_layers,
                 attention);
    }
    return 0;
}

/* The per-layer rule of a Llama-shaped model_type, after its rope is
 * mapped: which layers rotate, and with what. */
int cfg_map_layers(map_ctx *c)
{
    const char *mt = c->m->model_type;
    if (strcmp(mt, "gemma3_text") == 0 || strcmp(mt, "gemma3") == 0) {
        return map_gemma3_layers(c, 26, 6);
    }
    /* Gemma3nTextConfig: 35 layers, a full one every fifth when layer_types
     * is absent (it has no sliding_window_pattern); the model builds its
     * two rotary modules as Gemma 3's does. */
    if (strcmp(mt, "gemma3n_text") == 0 || strcmp(mt, "gemma3n") == 0) {
        return map_gemma3_layers(c, 35, 5);
    }
    if (strcmp(mt, "modernbert") == 0) {
        return map_modernbert_layers(c);
    }
    if (strcmp(mt, "mllama_text_model") == 0) {
        return map_cross_attention_layers(c);
    }
    if (strcmp(mt, "granitemoehybrid") == 0) {
        return map_mamba_layers(c);
    }
    if (strcmp(mt, "smollm3") == 0) {
        return cfg_map_no_rope_layers(c, 36);
    }
    if (strcmp(mt, "cohere2") == 0) {
        return map_sliding_rope_layers(c, 40);
    }
    if (strcmp(mt, "exaone4") == 0) {
        return map_sliding_rope_layers(c, 32);
    }
    if (strcmp(mt, "qwen3_next") == 0 || strcmp(mt, "minimax") == 0) {
        return map_linear_attention_layers(c);
    }
    if (strcmp(mt, "recurrent_gemma") == 0) {
        return map_recurrent_blocks(c);
    }
    return 0;
}
