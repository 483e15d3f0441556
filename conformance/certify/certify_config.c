/*
 * certify_config.c - config.json -> pecert_certify_model: the readers of
 * each model_type, the table that picks them, and the walk of the
 * document (text_config, vision_config). rope_scaling is
 * certify_scaling.c's, layer types certify_layers.c's, the description
 * certify_describe.c's and the files certify_profiles.c's.
 *
 * Source of every rule: transformers v4.57.6 (753d6110), the model's
 * configuration_*.py (which keys it reads, defaults, legacy spellings) and
 * modeling_rope_utils.py (_validate_* key sets per rope_type, the
 * _compute_* functions that consume them).
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "json_text.h"
#include "vectors.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-model_type readers ------------------------------------------- */

/* Head geometry: head_dim, else hidden_size / num_attention_heads (key
 * names differ per model family). */
static int read_heads(map_ctx *c, const char *hidden_key, const char *heads_key, const char *kv_key)
{
    pecert_certify_model *m = c->m;
    int32_t hidden = 0;
    if (cfg_read_int32(c, c->root, hidden_key, 1, 1 << 20, &hidden) < 0 ||
        cfg_read_int32(c, c->root, heads_key, 1, 1 << 16, &m->num_heads) < 0) {
        return -1;
    }
    m->num_kv_heads = m->num_heads;
    if (kv_key != NULL && cfg_read_int32(c, c->root, kv_key, 1, m->num_heads, &m->num_kv_heads) < 0) {
        return -1;
    }
    if (m->num_heads < 1) {
        return cfg_fail(c, heads_key, "required");
    }
    if (m->num_heads % m->num_kv_heads != 0) {
        return cfg_fail(c, kv_key, "%d does not divide %s = %d", m->num_kv_heads, heads_key, m->num_heads);
    }
    m->head_dim = hidden / m->num_heads;
    if (cfg_read_int32(c, c->root, "head_dim", 1, 1 << 16, &m->head_dim) < 0) {
        return -1;
    }
    if (m->head_dim >= 1) {
        return 0;
    }
    if (hidden > 0) { /* present, but fewer channels than heads */
        return cfg_fail(c, hidden_key, "%d is smaller than %s = %d: head_dim = %s // %s would be 0 (give head_dim)",
                        hidden, heads_key, m->num_heads, hidden_key, heads_key);
    }
    return cfg_fail(c, hidden_key, "required (or head_dim)");
}

/* rotary_dim = int(head_dim * partial_rotary_factor) (HF
 * _compute_default_rope_parameters), even. */
static int set_rotary_dim(map_ctx *c, double partial, const char *key)
{
    pecert_rope_config *r = &c->m->rope;
    r->head_dim = c->m->head_dim;
    r->rotary_dim = (int32_t)(c->m->head_dim * partial);
    if (r->rotary_dim < 2 || r->rotary_dim % 2 != 0) {
        return cfg_fail(c, key, "gives rotary_dim %d (head_dim %d): must be even and >= 2", r->rotary_dim,
                        r->head_dim);
    }
    return 0;
}

/* max_position_embeddings, rope_theta, top-level original_max (Phi-3). */
static int read_rope_common(map_ctx *c, const char *theta_key, double theta_default)
{
    pecert_rope_config *r = &c->m->rope;
    int64_t top_omp = 0;
    r->struct_size = sizeof(*r);
    r->rope_theta = theta_default;
    if (cfg_read_num(c, c->root, theta_key, theta_key, 1.0 + 1e-9, 1e12, &r->rope_theta) < 0 ||
        cfg_read_int(c, c->root, "max_position_embeddings", "max_position_embeddings", 1, (int64_t)1 << 40,
                     &c->m->max_position_embeddings) < 0) {
        return -1;
    }
    if (c->m->max_position_embeddings < 1) {
        return cfg_fail(c, "max_position_embeddings", "required");
    }
    r->max_position_embeddings = c->m->max_position_embeddings;
    int rc = cfg_read_int(c, c->root, "original_max_position_embeddings", "original_max_position_embeddings", 1,
                          (int64_t)1 << 40, &top_omp);
    if (rc < 0) {
        return -1;
    }
    if (rc == 1) {
        r->present |= PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS;
        r->original_max_position_embeddings = top_omp;
    }
    return 0;
}

/* Phi3Config (transformers v4.57.6): original_max_position_embeddings
 * defaults to 4096, so LongRoPE's switch length and factor come from it
 * even when config.json omits it; _rope_scaling_validation raises
 * ValueError unless rope_scaling is exactly {type, short_factor,
 * long_factor} with type longrope (after "su" / "yarn" are renamed). */
static int check_phi3_scaling(map_ctx *c)
{
    pecert_rope_config *r = &c->m->rope;
    const cJSON *rs = cfg_get(c->root, "rope_scaling");
    if (!(r->present & PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS)) {
        r->present |= PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS;
        r->original_max_position_embeddings = 4096;
    }
    if (rs == NULL) {
        return 0;
    }
    const cJSON *type = cfg_get(rs, "type");
    if (!cJSON_IsObject(rs) || cJSON_GetArraySize(rs) != 3 || !cJSON_IsString(type) ||
        cfg_get(rs, "short_factor") == NULL || cfg_get(rs, "long_factor") == NULL) {
        return cfg_fail(c, "rope_scaling", "Phi3Config requires exactly the keys type, short_factor and long_factor "
                                           "(it raises ValueError otherwise)");
    }
    if (strcmp(type->valuestring, "longrope") != 0 && strcmp(type->valuestring, "su") != 0 &&
        strcmp(type->valuestring, "yarn") != 0) {
        return cfg_fail(c, "rope_scaling.type", "'%s': Phi3Config accepts only longrope (or su / yarn, renamed to it) "
                        "and raises ValueError otherwise", type->valuestring);
    }
    return 0;
}

/* DeepseekV3Config sets head_dim = qk_rope_head_dim before calling
 * PretrainedConfig.__init__, which then sets every leftover kwarg: a
 * config.json head_dim wins (configuration_deepseek_v3.py, __init__; V2
 * sets it after, so there the file's value is dropped). The rotary module
 * reads head_dim, the rotated slice is qk_rope_head_dim wide: with the
 * two different the official code builds cos/sin that do not fit, so
 * there is no encoding to certify. */
static int check_deepseek_v3_head_dim(map_ctx *c)
{
    int32_t head_dim = c->m->head_dim;
    if (cfg_read_int32(c, c->root, "head_dim", 1, 1 << 16, &head_dim) < 0) {
        return -1;
    }
    if (head_dim != c->m->head_dim) {
        return cfg_fail(c, "head_dim", "%d differs from qk_rope_head_dim %d: DeepseekV3Config keeps it, its rotary "
                        "module then builds cos/sin %d wide for a rotated slice %d wide, which transformers cannot "
                        "run", (int)head_dim, (int)c->m->head_dim, (int)head_dim, (int)c->m->head_dim);
    }
    return 0;
}

/* The Llama-shaped models: head_dim or hidden/heads, partial_rotary_factor,
 * rope_theta, rope_scaling. */
/* What a Llama-shaped config class assumes for a key config.json leaves
 * out: its __init__ defaults in transformers v4.57.6 (conformance/
 * inventory.json holds each class's defaults, and tests/inventory/ checks
 * that a config without the key is certified as with the default). head_dim
 * 0: hidden_size / num_attention_heads (also what an explicit null gives,
 * and what Qwen3MoeConfig, which has no head_dim parameter, always gives
 * unless config.json sets one); scaling NULL: none. Models not listed
 * default to rope_theta 10000, partial 1.0. */
typedef struct rope_defaults {
    const char *model_type;
    double rope_theta;
    double partial_rotary_factor;
    int32_t head_dim;
    const char *rope_scaling; /* JSON of the class's default rope_scaling */
} rope_defaults;

static const rope_defaults llama_like_defaults[] = {
    {"mixtral", 1e6, 1.0, 0, NULL},
    {"qwen2_vl", 1e6, 1.0, 0, NULL},
    {"qwen2_5_vl", 1e6, 1.0, 0, NULL},
    {"qwen3_vl", 5e6, 1.0, 128, NULL},
    {"ernie4_5_moe", 500000.0, 1.0, 0, NULL},
    {"glm4_moe", 10000.0, 0.5, 0, NULL},
    {"nemotron", 10000.0, 0.5, 0, NULL},
    {"qwen3_next", 10000.0, 0.25, 256, NULL},
    {"phi", 10000.0, 0.5, 0, NULL},
    {"stablelm", 10000.0, 0.25, 0, NULL},
    {"glm4", 10000.0, 0.5, 128, NULL},
    {"gemma", 10000.0, 1.0, 256, NULL},
    {"gemma2", 10000.0, 1.0, 256, NULL},
    {"gemma3_text", 1e6, 1.0, 256, NULL},
    {"gemma3", 1e6, 1.0, 256, NULL},
    {"smollm3", 2e6, 1.0, 0, NULL},
    {"cohere2", 10000.0, 1.0, 0, NULL},
    {"exaone4", 10000.0, 1.0, 0, NULL},
    {"qwen3", 10000.0, 1.0, 128, NULL},
    {"seed_oss", 10000.0, 1.0, 128, NULL},
    {"ernie4_5", 500000.0, 1.0, 128, NULL},
    {"helium", 100000.0, 1.0, 128, NULL},
    {"apertus", 12000000.0, 1.0, 0,
     "{\"factor\": 8.0, \"high_freq_factor\": 4.0, \"low_freq_factor\": 1.0, "
     "\"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"}"},
    {"gpt_oss", 150000.0, 1.0, 64,
     "{\"beta_fast\": 32.0, \"beta_slow\": 1.0, \"factor\": 32.0, \"original_max_position_embeddings\": 4096, "
     "\"rope_type\": \"yarn\", \"truncate\": false}"},
};

static const rope_defaults *defaults_of(const char *model_type)
{
    static const rope_defaults plain = {"", 10000.0, 1.0, 0, NULL};
    for (size_t i = 0; i < sizeof(llama_like_defaults) / sizeof(llama_like_defaults[0]); i++) {
        if (strcmp(llama_like_defaults[i].model_type, model_type) == 0) {
            return &llama_like_defaults[i];
        }
    }
    return &plain;
}

/* Whether the model's code rotates part of a head: Phi3's, GLM-4's,
 * GLM-4.5's (glm4_moe), Nemotron's and Qwen3-Next's
 * apply_rotary_pos_emb slice q[..., :rotary_dim] themselves, Phi's and
 * StableLM's attention does (query_rot / query_pass). Every other
 * Llama-shaped apply multiplies the whole head by cos/sin of rotary_dim
 * channels, which does not broadcast: transformers cannot run it. */
static int splits_partial_rotary(const char *model_type)
{
    static const char *const splitters[] = {"phi3", "phi", "stablelm", "glm4", "glm4_moe", "nemotron", "qwen3_next", NULL};
    return cfg_in_list(model_type, splitters);
}

/* The class's default rope_scaling, mapped as if config.json held it. */
static int map_default_scaling(map_ctx *c, const char *json)
{
    cJSON *rs = cJSON_Parse(json);
    int rc = rs != NULL ? cfg_map_scaling_object(c, rs) : cfg_fail(c, "rope_scaling", "internal: bad default");
    cJSON_Delete(rs);
    return rc;
}

/* DeepseekV3Attention.__init__ multiplies its softmax scale by
 * yarn_get_mscale(factor, mscale_all_dim)^2 when rope_scaling has a truthy
 * mscale_all_dim (modeling_deepseek_v3.py): a YaRN effect outside the
 * rotation, which certify does not check; it says so. */
static void warn_deepseek_v3_softmax_scale(map_ctx *c)
{
    const pecert_rope_config *r = &c->m->rope;
    if (!(r->present & PECERT_ROPE_HAS_MSCALE_ALL_DIM) || r->mscale_all_dim == 0.0 ||
        !(r->present & PECERT_ROPE_HAS_FACTOR)) {
        return;
    }
    double mscale = r->factor <= 1.0 ? 1.0 : 0.1 * r->mscale_all_dim * log(r->factor) + 1.0;
    cfg_warn(c, "rope_scaling.mscale_all_dim", "DeepseekV3Attention scales its softmax by yarn_get_mscale(factor, "
             "mscale_all_dim)^2 = %.6g, outside the rotation: not certified", mscale * mscale);
}

/* Olmo2Config._rope_scaling_validation: rope_scaling is null or exactly
 * {"type": "linear" | "dynamic", "factor": float > 1}, else ValueError.
 * (An integer factor, which it also refuses, reads here as the number it
 * is: cJSON keeps no int/float distinction.) */
static int check_olmo2_scaling(map_ctx *c)
{
    const cJSON *rs = cfg_get(c->root, "rope_scaling");
    if (rs == NULL || cJSON_IsNull(rs)) {
        return 0;
    }
    const cJSON *type = cJSON_IsObject(rs) ? cfg_get(rs, "type") : NULL;
    const cJSON *factor = cJSON_IsObject(rs) ? cfg_get(rs, "factor") : NULL;
    if (cJSON_GetArraySize(rs) != 2 || !cJSON_IsString(type) ||
        (strcmp(type->valuestring, "linear") != 0 && strcmp(type->valuestring, "dynamic") != 0) ||
        !cJSON_IsNumber(factor) || !(factor->valuedouble > 1.0)) {
        return cfg_fail(c, "rope_scaling", "Olmo2Config accepts only {\"type\": \"linear\" or \"dynamic\", "
                                           "\"factor\": > 1} (it raises ValueError otherwise)");
    }
    return 0;
}

/* Qwen2VLAttention and Qwen2_5_VLAttention index
 * rope_scaling["mrope_section"] unconditionally: without it transformers
 * raises KeyError, so a Qwen-VL config is M-RoPE or nothing. */
/* Qwen3VLTextRotaryEmbedding.__init__ reads config.rope_scaling.get(...)
 * (AttributeError when null), its rope_type only ("default" when absent:
 * a legacy "type" is read by nothing), mrope_section with the default
 * [24, 20, 20], and interleaves the sections whatever mrope_interleaved
 * says (forward calls apply_interleaved_mrope unconditionally). */
static int map_qwen3_vl_scaling(map_ctx *c)
{
    const cJSON *rs = cfg_get(c->root, "rope_scaling");
    if (!cJSON_IsObject(rs)) {
        return cfg_fail(c, "rope_scaling", "required for Qwen3-VL (Qwen3VLTextRotaryEmbedding reads "
                        "config.rope_scaling.get(...): null raises AttributeError)");
    }
    if (cfg_get(rs, "type") != NULL) {
        return cfg_fail(c, "rope_scaling.type", "Qwen3VLTextRotaryEmbedding reads rope_type only; pecert refuses a "
                        "key the model ignores");
    }
    int interleaved = 1;
    if (cfg_read_bool(c, rs, "mrope_interleaved", "rope_scaling.mrope_interleaved", &interleaved) < 0) {
        return -1;
    }
    if (!interleaved) {
        cfg_warn(c, "rope_scaling.mrope_interleaved", "false, but Qwen3VLTextRotaryEmbedding interleaves the sections "
                 "whatever it says: certified interleaved");
    }
    c->m->mrope_interleaved = 1;
    if (cfg_get(rs, "mrope_section") == NULL) {
        static const int32_t defaults[3] = {24, 20, 20};
        if (c->m->rope.rotary_dim / 2 != 64) {
            return cfg_fail(c, "rope_scaling.mrope_section", "absent: the default [24, 20, 20] does not cover "
                            "rotary_dim/2 = %d", c->m->rope.rotary_dim / 2);
        }
        memcpy(c->m->mrope_section, defaults, sizeof(defaults));
        c->m->n_sections = 3;
        c->m->kind = PECERT_PE_MROPE;
    } else if (c->m->n_sections != 3) {
        return cfg_fail(c, "rope_scaling.mrope_section", "has %d sections: interleaved M-RoPE takes 3 (t, h, w)",
                        (int)c->m->n_sections);
    }
    return 0;
}

static int require_mrope(map_ctx *c)
{
    if (cfg_is_qwen_vl(c->m->model_type) && c->m->kind != PECERT_PE_MROPE) {
        return cfg_fail(c, "rope_scaling.mrope_section", "required for model_type '%s' (its attention reads "
                        "rope_scaling[\"mrope_section\"])", c->m->model_type);
    }
    return 0;
}

/* The positional keys a Llama-shaped model_type reads: the common ones,
 * and its per-layer ones. */
/* GraniteMoeConfig sets position_embedding_type "rope" before
 * PretrainedConfig applies config.json's keys, so config.json's value wins;
 * GraniteMoeModel builds no rotary module unless it is "rope". */
static int check_position_embedding_type(map_ctx *c)
{
    const cJSON *pe = cfg_get(c->root, "position_embedding_type");
    if (pe == NULL || cJSON_IsNull(pe)) {
        return 0;
    }
    if (!cJSON_IsString(pe)) {
        return cfg_fail(c, "position_embedding_type", "expected a string");
    }
    return strcmp(pe->valuestring, "rope") == 0
               ? 0
               : cfg_fail(c, "position_embedding_type",
                          "'%s': GraniteMoeModel rotates only with \"rope\" (anything else "
                          "is a model without position encoding, which pecert does not certify)", pe->valuestring);
}

static int reject_unknown_llama_like(map_ctx *c)
{
    static const char *const known[] = {"rope_theta", "rope_scaling", "max_position_embeddings",
                                        "partial_rotary_factor", "original_max_position_embeddings",
                                        "qk_rope_head_dim", "rope_interleave", NULL};
    static const char *const gemma3[] = {"rope_theta", "rope_scaling", "max_position_embeddings",
                                         "partial_rotary_factor", "rope_local_base_freq", NULL};
    static const char *const no_rope[] = {"rope_theta", "rope_scaling", "max_position_embeddings",
                                          "partial_rotary_factor", "no_rope_layers", "no_rope_layer_interval", NULL};
    static const char *const granitemoe[] = {"rope_theta", "rope_scaling", "max_position_embeddings",
                                             "position_embedding_type", NULL};
    const char *mt = c->m->model_type;
    const char *const *keys = strncmp(mt, "gemma3", 6) == 0  ? gemma3
                              : strcmp(mt, "smollm3") == 0   ? no_rope
                              : strcmp(mt, "granitemoe") == 0 ? granitemoe
                                                             : known;
    return cfg_reject_unknown_positional(c, c->root, keys, "") != 0 ? -1 : check_position_embedding_type(c);
}


/* What one model's code does differently from the Llama shape:
 * OlmoeAttention and GraniteMoeAttention size their heads hidden_size /
 * num_attention_heads whatever head_dim says, while its rotary module reads head_dim (a
 * different head_dim is a model transformers cannot run);
 * NemotronRotaryEmbedding computes default RoPE whatever rope_scaling says
 * (its config class has no such field), so a scaled config is refused. */
static int check_model_quirks(map_ctx *c)
{
    const pecert_certify_model *m = c->m;
    int32_t hidden = 0;
    if ((strcmp(m->model_type, "olmoe") == 0 || strcmp(m->model_type, "granitemoe") == 0) &&
        cfg_get(c->root, "head_dim") != NULL &&
        cfg_read_int32(c, c->root, "hidden_size", 1, 1 << 20, &hidden) >= 0 && m->head_dim != hidden / m->num_heads) {
        return cfg_fail(c, "head_dim",
                        "%d differs from hidden_size / num_attention_heads = %d: %s's attention uses the "
                        "latter, its rotary module the former (transformers cannot run it)", (int)m->head_dim,
                        (int)(hidden / m->num_heads), m->model_type);
    }
    if (strcmp(m->model_type, "nemotron") == 0 && cfg_get(c->root, "rope_scaling") != NULL) {
        return cfg_fail(c, "rope_scaling", "NemotronRotaryEmbedding computes default RoPE whatever rope_scaling says "
                        "(NemotronConfig has no such field); pecert refuses a field the model ignores");
    }
    return 0;
}

static int map_llama_like(map_ctx *c)
{
    const rope_defaults *d = defaults_of(c->m->model_type);
    double partial = d->partial_rotary_factor;
    pecert_certify_model *m = c->m;
    if (reject_unknown_llama_like(c) != 0 ||
        read_heads(c, "hidden_size", "num_attention_heads", "num_key_value_heads") != 0 ||
        cfg_read_num(c, c->root, "partial_rotary_factor", "partial_rotary_factor", 1e-6, 1.0, &partial) < 0) {
        return -1;
    }
    if (d->head_dim > 0 && cfg_get(c->root, "head_dim") == NULL) {
        m->head_dim = d->head_dim;
    }
    if (check_model_quirks(c) != 0) {
        return -1;
    }
    /* DeepSeek MLA: the rotary part of q/k is qk_rope_head_dim wide
     * (DeepseekV2Config sets head_dim = qk_rope_head_dim, 64 by default). */
    if (strncmp(m->model_type, "deepseek", 8) == 0) {
        m->head_dim = 64;
        if (cfg_read_int32(c, c->root, "qk_rope_head_dim", 2, 1 << 16, &m->head_dim) < 0) {
            return -1;
        }
    }
    if (partial < 1.0 && !splits_partial_rotary(m->model_type)) {
        return cfg_fail(c, "partial_rotary_factor", "%.17g: %s's apply_rotary_pos_emb rotates the whole head with "
                        "cos/sin of int(head_dim * factor) channels, which transformers cannot run (only Phi, Phi-3, "
                        "StableLM, GLM-4 and GPT-NeoX rotate part of a head)", partial, m->model_type);
    }
    if (strcmp(m->model_type, "deepseek_v3") == 0 && check_deepseek_v3_head_dim(c) != 0) {
        return -1;
    }
    if (read_rope_common(c, "rope_theta", d->rope_theta) != 0 ||
        set_rotary_dim(c, partial, "partial_rotary_factor") != 0 ||
        (strcmp(m->model_type, "phi3") == 0 && check_phi3_scaling(c) != 0) ||
        (strcmp(m->model_type, "olmo2") == 0 && check_olmo2_scaling(c) != 0)) {
        return -1;
    }
    /* The top-level original length is read by LongRoPE only (getattr on
     * the config); every other rope type ignores it. */
    int defaulted = d->rope_scaling != NULL && cfg_get(c->root, "rope_scaling") == NULL;
    int rc = defaulted ? map_default_scaling(c, d->rope_scaling) : cfg_map_rope_scaling(c);
    if (rc == 0 && cfg_is_qwen3_vl(m->model_type)) {
        rc = map_qwen3_vl_scaling(c);
    }
    if (rc == 0 && strcmp(m->model_type, "deepseek_v3") == 0) {
        warn_deepseek_v3_softmax_scale(c);
    }
    return rc != 0 || require_mrope(c) != 0 ? -1 : cfg_map_layers(c);
}

/* Llama 4 (Llama4TextConfig + Llama4TextRotaryEmbedding, transformers
 * v4.57.6): head_dim defaults to 128 and rope_theta to 500000; the rotary
 * class computes llama3 whenever rope_scaling is set, whatever its
 * rope_type says, and default rope otherwise; apply_rotary_emb multiplies
 * adjacent pairs as complex numbers (interleaved). Llama4TextConfig runs no
 * rope_config_validation. */
static int map_llama4_text(map_ctx *c)
{
    static const char *const known[] = {"rope_theta", "rope_scaling", "max_position_embeddings",
                                        "no_rope_layers", "no_rope_layer_interval", NULL};
    pecert_certify_model *m = c->m;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        read_heads(c, "hidden_size", "num_attention_heads", "num_key_value_heads") != 0) {
        return -1;
    }
    if (cfg_get(c->root, "head_dim") == NULL) {
        m->head_dim = 128;
    }
    if (read_rope_common(c, "rope_theta", 500000.0) != 0 || set_rotary_dim(c, 1.0, "head_dim") != 0) {
        return -1;
    }
    const cJSON *rs = cfg_get(c->root, "rope_scaling");
    const cJSON *type = rs == NULL                           ? NULL
                        : cfg_get(rs, "rope_type") != NULL ? cfg_get(rs, "rope_type")
                                                           : cfg_get(rs, "type");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "llama3") != 0) {
        return cfg_fail(c, "rope_scaling.rope_type",
                        "'%s': Llama4TextRotaryEmbedding computes llama3 whenever rope_scaling is set (KeyError "
                        "without llama3's keys); pecert refuses a rope_type the official model ignores",
                        type->valuestring);
    }
    return cfg_map_rope_scaling(c) != 0 ? -1 : cfg_map_no_rope_layers(c, 48);
}

/* GPT-NeoX: rotary_pct (default 0.25) and rotary_emb_base (default 10000)
 * become partial_rotary_factor and rope_theta (GPTNeoXConfig.__init__).
 * A config.json that save_pretrained wrote holds those two as well; the
 * class sets them from rotary_pct and rotary_emb_base whatever the file
 * says (the inventory's probes: conformance/inventory.json), so they are
 * read by nothing and ignored here too. */
static int map_gpt_neox(map_ctx *c)
{
    static const char *const known[] = {"rotary_pct", "rotary_emb_base", "rope_scaling",
                                        "max_position_embeddings", "use_parallel_residual",
                                        "partial_rotary_factor", "rope_theta", NULL};
    double partial = 0.25;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        read_heads(c, "hidden_size", "num_attention_heads", NULL) != 0 ||
        cfg_read_num(c, c->root, "rotary_pct", "rotary_pct", 1e-6, 1.0, &partial) < 0 ||
        read_rope_common(c, "rotary_emb_base", 10000.0) != 0 ||
        set_rotary_dim(c, partial, "rotary_pct") != 0) {
        return -1;
    }
    return cfg_map_rope_scaling(c);
}

/* GPT-J: rotary_dim channels (null = the whole head), base 10000 literal
 * in create_sinusoidal_positions, table of n_positions rows. */
static int map_gptj(map_ctx *c)
{
    static const char *const known[] = {"rotary_dim", "n_positions", NULL};
    pecert_certify_model *m = c->m;
    pecert_rope_config *r = &m->rope;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        read_heads(c, "n_embd", "n_head", NULL) != 0) {
        return -1;
    }
    r->struct_size = sizeof(*r);
    r->rope_theta = 10000.0;
    r->head_dim = m->head_dim;
    /* GPTJConfig's rotary_dim defaults to 64; an explicit null rotates the
     * whole head (GPTJAttention: `if self.rotary_dim is not None`). */
    r->rotary_dim = cfg_get(c->root, "rotary_dim") == NULL ? 64 : m->head_dim;
    if (cfg_read_int32(c, c->root, "rotary_dim", 2, m->head_dim, &r->rotary_dim) < 0 ||
        cfg_read_int(c, c->root, "n_positions", "n_positions", 1, (int64_t)1 << 40, &m->max_position_embeddings) < 0) {
        return -1;
    }
    if (r->rotary_dim % 2 != 0 || r->rotary_dim > m->head_dim) {
        return cfg_fail(c, "rotary_dim", "%d: must be even and at most head_dim %d (64 when absent)", r->rotary_dim,
                        m->head_dim);
    }
    if (m->max_position_embeddings < 1) {
        return cfg_fail(c, "n_positions", "required");
    }
    r->max_position_embeddings = m->max_position_embeddings;
    return 0;
}

/* Falcon (FalconConfig, modeling_falcon.py): head_dim is a read-only
 * property (hidden_size // num_attention_heads), so a head_dim key makes
 * PretrainedConfig's setattr raise; the key/value heads are num_kv_heads
 * under new_decoder_architecture or without multi_query, else 1
 * (FalconAttention.num_kv_heads); FalconRotaryEmbedding is Llama's
 * (rope_type read first, no validation) and rotates the whole head with
 * rotate_half. alibi true replaces the rotation by ALiBi. */
static int read_falcon_heads(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    int new_arch = 0;
    int multi_query = 1;
    if (cfg_get(c->root, "head_dim") != NULL) {
        return cfg_fail(c, "head_dim", "FalconConfig.head_dim is a read-only property (hidden_size // "
                        "num_attention_heads): transformers cannot load a config that sets it");
    }
    const char *hidden = cfg_get(c->root, "hidden_size") == NULL && cfg_get(c->root, "n_embed") != NULL ? "n_embed"
                                                                                                 : "hidden_size";
    if (read_heads(c, hidden, "num_attention_heads", "num_kv_heads") != 0 ||
        cfg_read_bool(c, c->root, "new_decoder_architecture", "new_decoder_architecture", &new_arch) < 0 ||
        cfg_read_bool(c, c->root, "multi_query", "multi_query", &multi_query) < 0) {
        return -1;
    }
    if (!new_arch && multi_query) {
        m->num_kv_heads = 1;
    }
    return 0;
}

/* Falcon with alibi true (Falcon-RW): build_alibi_tensor is Bloom's
 * (max_bias 8), but FalconAttention adds the bias to q . k and scales the
 * sum by 1/sqrt(head_dim) (eager: attention_logits *= inv_norm_factor;
 * sdpa: _update_causal_mask puts alibi / sqrt(head_dim) in the mask). The
 * rotary fields stay in the config (FalconRotaryEmbedding is built and
 * never applied); a rope_scaling there would be ignored: refused. */
static int map_falcon_alibi(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    const cJSON *rs = cfg_get(c->root, "rope_scaling");
    if (rs != NULL && !cJSON_IsNull(rs)) {
        return cfg_fail(c, "rope_scaling", "set with alibi true: FalconAttention never rotates then, so the model "
                        "ignores it; pecert refuses a field the model ignores");
    }
    m->kind = PECERT_PE_ALIBI;
    m->alibi_max_bias = 8.0;
    m->alibi_bias_scale = 1.0 / sqrt((double)m->head_dim);
    m->alibi_bf16_reference = 1; /* slopes[..., None].bfloat16() * arange_tensor */
    m->max_position_embeddings = 2048; /* FalconConfig's default */
    return cfg_read_int(c, c->root, "max_position_embeddings", "max_position_embeddings", 1, (int64_t)1 << 40,
                        &m->max_position_embeddings) < 0 ? -1 : 0;
}

static int map_falcon(map_ctx *c)
{
    static const char *const known[] = {"alibi", "rope_theta", "rope_scaling", "max_position_embeddings", NULL};
    int alibi = 0;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 || read_falcon_heads(c) != 0 ||
        cfg_read_bool(c, c->root, "alibi", "alibi", &alibi) < 0) {
        return -1;
    }
    if (alibi) {
        return map_falcon_alibi(c);
    }
    c->m->max_position_embeddings = 2048; /* FalconConfig's default */
    return read_rope_common(c, "rope_theta", 10000.0) != 0 || set_rotary_dim(c, 1.0, "num_attention_heads") != 0
               ? -1
               : cfg_map_rope_scaling(c);
}

/* Hunyuan (HunYuanDenseV1 / HunYuanMoEV1RotaryEmbedding, transformers
 * v4.57.6): rope_scaling type "dynamic" with a truthy alpha is a fixed
 * base, rope_theta * alpha^(d / (d - 2)) with d = config.head_dim, over
 * the whole head, attention_scaling 1; the other keys of that dict are not
 * read (factor only by dynamic_rope_update past max_position_embeddings,
 * where it recomputes dynamic NTK from rope_theta without alpha). Any other
 * rope_scaling is the library's. Both classes size their heads by
 * config.head_dim, which the config class leaves None: required. */
static int map_hunyuan_alpha(map_ctx *c, const cJSON *rs)
{
    static const char *const keys[] = {"type", "rope_type", "alpha", "factor", "beta_fast", "beta_slow",
                                       "mscale", "mscale_all_dim", NULL};
    pecert_rope_config *r = &c->m->rope;
    double alpha = 0.0;
    const cJSON *item = NULL;
    int unread = 0;
    cJSON_ArrayForEach(item, rs) {
        char shown[160];
        snprintf(shown, sizeof(shown), "rope_scaling.%s", item->string);
        if (!cfg_in_list(item->string, keys)) {
            return cfg_fail(c, shown, "not a key of Hunyuan's dynamic-alpha rope_scaling (pecert refuses what it "
                            "cannot certify)");
        }
        unread += strcmp(item->string, "type") != 0 && strcmp(item->string, "rope_type") != 0 &&
                  strcmp(item->string, "alpha") != 0;
    }
    if (cfg_read_num(c, rs, "alpha", "rope_scaling.alpha", DBL_TRUE_MIN, 1e12, &alpha) < 0) {
        return -1;
    }
    if (r->head_dim <= 2) {
        return cfg_fail(c, "head_dim", "%d: the alpha base divides by head_dim - 2", r->head_dim);
    }
    double theta = r->rope_theta;
    r->rope_theta = theta * pow(alpha, (double)r->head_dim / (double)(r->head_dim - 2));
    r->rope_type = PECERT_ROPE_DEFAULT;
    if (unread > 0) {
        cfg_warn(c, "rope_scaling", "%d key(s) besides type and alpha are not read by the alpha path (ignored)",
                 unread);
    }
    cfg_warn(c, "rope_scaling.alpha", "certified as default RoPE, base rope_theta * alpha^(d/(d-2)) = %.17g, at every "
             "position; past max_position_embeddings transformers recomputes dynamic NTK without alpha", r->rope_theta);
    return 0;
}

static int map_hunyuan(map_ctx *c)
{
    static const char *const known[] = {"rope_theta", "rope_scaling", "max_position_embeddings", NULL};
    const cJSON *hd = cfg_get(c->root, "head_dim");
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        read_heads(c, "hidden_size", "num_attention_heads", "num_key_value_heads") != 0) {
        return -1;
    }
    if (hd == NULL || cJSON_IsNull(hd)) {
        return cfg_fail(c, "head_dim", "required: the attention sizes its heads by config.head_dim, which the config "
                        "class leaves None (transformers cannot run it)");
    }
    c->m->max_position_embeddings = 2048; /* HunYuanDenseV1Config's default */
    if (read_rope_common(c, "rope_theta", 10000.0) != 0 || set_rotary_dim(c, 1.0, "head_dim") != 0) {
        return -1;
    }
    const cJSON *rs = cfg_get(c->root, "rope_scaling");
    const cJSON *type = cJSON_IsObject(rs) ? cfg_get(rs, "rope_type") : NULL;
    type = cJSON_IsObject(rs) && type == NULL ? cfg_get(rs, "type") : type;
    const cJSON *alpha = cJSON_IsObject(rs) ? cfg_get(rs, "alpha") : NULL;
    int alpha_path = cJSON_IsString(type) && strcmp(type->valuestring, "dynamic") == 0 && alpha != NULL &&
                     !cJSON_IsNull(alpha) && !(cJSON_IsNumber(alpha) && alpha->valuedouble == 0.0) &&
                     !cJSON_IsFalse(alpha);
    return alpha_path ? map_hunyuan_alpha(c, rs) : cfg_map_rope_scaling(c);
}

/* Bloom: ALiBi with max_bias 8 (build_alibi_tensor's literal), n_head. */
static int map_bloom(map_ctx *c)
{
    static const char *const known[] = {NULL};
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        read_heads(c, "hidden_size", "n_head", NULL) != 0) {
        return -1;
    }
    c->m->kind = PECERT_PE_ALIBI;
    c->m->alibi_max_bias = 8.0;
    c->m->alibi_bias_scale = 1.0;
    return 0;
}

/* MPT: attn_config.alibi / alibi_bias_max (MptAttentionConfig defaults
 * true / 8). transformers' MptModel always applies ALiBi, so alibi false
 * (llm-foundry's learned or rotary positions) has no reference here; and
 * learned_pos_emb is llm-foundry's switch, which MptModel never reads. */
static int map_mpt(map_ctx *c)
{
    static const char *const known_top[] = {"max_seq_len", "learned_pos_emb", NULL};
    static const char *const known_attn[] = {"alibi", "alibi_bias_max", NULL};
    const cJSON *attn = cfg_get(c->root, "attn_config");
    int alibi = 1;
    int32_t bias_max = 8;
    pecert_certify_model *m = c->m;
    /* An array's items have no key: only an object can be read (a fuzzer
     * find: attn_config given as [3, 1, 1]). */
    if (attn != NULL && !cJSON_IsObject(attn)) {
        return cfg_fail(c, "attn_config", "expected an object (MptAttentionConfig's fields)");
    }
    if (cfg_reject_unknown_positional(c, c->root, known_top, "") != 0 ||
        (attn != NULL && cfg_reject_unknown_positional(c, attn, known_attn, "attn_config.") != 0) ||
        read_heads(c, "d_model", "n_heads", NULL) != 0 ||
        cfg_read_int(c, c->root, "max_seq_len", "max_seq_len", 1, (int64_t)1 << 40, &m->max_position_embeddings) < 0) {
        return -1;
    }
    if (attn != NULL && (cfg_read_bool(c, attn, "alibi", "attn_config.alibi", &alibi) < 0 ||
                         cfg_read_int32(c, attn, "alibi_bias_max", 1, 64, &bias_max) < 0)) {
        return -1;
    }
    if (!alibi) {
        return cfg_fail(c, "attn_config.alibi", "false has no reference in transformers' MptModel (ALiBi only)");
    }
    m->kind = PECERT_PE_ALIBI;
    m->alibi_max_bias = bias_max;
    m->alibi_bias_scale = 1.0;
    return 0;
}

/* T5: relative_attention_num_buckets (32), _max_distance (128). */
static int map_t5(map_ctx *c)
{
    static const char *const known[] = {"relative_attention_num_buckets", "relative_attention_max_distance", NULL};
    pecert_certify_model *m = c->m;
    int32_t d_kv = 64;
    m->t5_num_buckets = 32;
    m->t5_max_distance = 128;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_int32(c, c->root, "num_heads", 1, 1 << 16, &m->num_heads) < 0 ||
        cfg_read_int32(c, c->root, "d_kv", 1, 1 << 16, &d_kv) < 0 ||
        cfg_read_int32(c, c->root, "relative_attention_num_buckets", 4, 1 << 20, &m->t5_num_buckets) < 0 ||
        cfg_read_int(c, c->root, "relative_attention_max_distance", "relative_attention_max_distance", 1,
                     (int64_t)1 << 40, &m->t5_max_distance) < 0) {
        return -1;
    }
    /* _relative_position_bucket: max_exact = num_buckets/2 (bidirectional
     * halves it again) must stay below max_distance for the log branch. */
    if (m->t5_max_distance <= m->t5_num_buckets / 2) {
        return cfg_fail(c, "relative_attention_max_distance", "%lld must exceed num_buckets/2 = %d",
                        (long long)m->t5_max_distance, m->t5_num_buckets / 2);
    }
    m->kind = PECERT_PE_T5;
    m->head_dim = d_kv;
    m->num_kv_heads = m->num_heads;
    return 0;
}

/* BERT / RoBERTa / GPT-2: a learned table of max_position_embeddings (GPT-2:
 * n_positions) rows; only position_embedding_type "absolute" is learned. */
static int map_learned_text(map_ctx *c)
{
    static const char *const known[] = {"max_position_embeddings", "position_embedding_type", "n_positions", NULL};
    pecert_certify_model *m = c->m;
    const int gpt2 = strcmp(m->model_type, "gpt2") == 0;
    const cJSON *pet = cfg_get(c->root, "position_embedding_type");
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        read_heads(c, gpt2 ? "n_embd" : "hidden_size", gpt2 ? "n_head" : "num_attention_heads", NULL) != 0 ||
        cfg_read_int(c, c->root, gpt2 ? "n_positions" : "max_position_embeddings",
                     gpt2 ? "n_positions" : "max_position_embeddings", 1, (int64_t)1 << 32,
                     &m->max_position_embeddings) < 0) {
        return -1;
    }
    if (pet != NULL && (!cJSON_IsString(pet) || strcmp(pet->valuestring, "absolute") != 0)) {
        return cfg_fail(c, "position_embedding_type", "only \"absolute\" (a learned table) is certifiable");
    }
    if (m->max_position_embeddings < 1) {
        return cfg_fail(c, gpt2 ? "n_positions" : "max_position_embeddings", "required");
    }
    m->kind = PECERT_PE_LEARNED;
    m->learned_rows = m->max_position_embeddings;
    m->learned_dim = m->head_dim * m->num_heads;
    return 0;
}

/* The ViT family: a learned table of (image_size / patch_size)^2 rows
 * after its class row (ViTEmbeddings, Dinov2Embeddings,
 * Dinov2WithRegistersEmbeddings: the registers take no position) or its
 * class and distillation rows (DeiTEmbeddings). The config classes'
 * patch_size defaults: 16, and Dinov2Config's 14. The resize of the
 * table to another image is the @vision pass's (certify_vision.c). */
static int map_vit(map_ctx *c)
{
    static const char *const known[] = {NULL};
    pecert_certify_model *m = c->m;
    int32_t image, patch, prefix;
    if (cfg_vit_defaults(m->model_type, &image, &patch, &prefix) != 0) {
        return cfg_fail(c, "model_type", "'%s' has no ViT-family rule in certify_vision.c", m->model_type);
    }
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        read_heads(c, "hidden_size", "num_attention_heads", NULL) != 0 ||
        cfg_read_int32(c, c->root, "image_size", 1, 1 << 16, &image) < 0 ||
        cfg_read_int32(c, c->root, "patch_size", 1, 1 << 16, &patch) < 0) {
        return -1;
    }
    if (image % patch != 0) {
        return cfg_fail(c, "patch_size", "%d does not divide image_size %d", patch, image);
    }
    m->kind = PECERT_PE_LEARNED;
    m->learned_rows = (int64_t)(image / patch) * (image / patch) + prefix;
    m->learned_dim = m->head_dim * m->num_heads;
    m->max_position_embeddings = m->learned_rows;
    return 0;
}

/* ---- the model_type table --------------------------------------------- */

typedef struct model_rule {
    const char *model_type;
    int (*map)(map_ctx *c);
    pecert_rope_pairing pairing;  /* of the model's apply code           */
    int type_overrides_rope_type; /* map_ctx: the config class's BC copy  */
    int runs_validation;          /* map_ctx: rope_config_validation      */
} model_rule;

/* Flags per config class in transformers v4.57.6: LlamaConfig, Qwen2Config,
 * Qwen2VLTextConfig, PhiConfig, GptOssConfig, DeepseekV2/V3Config and
 * GPTNeoXConfig copy "type" over "rope_type" and run
 * rope_config_validation; MistralConfig, MixtralConfig, GemmaConfig and
 * Llama4TextConfig do neither; Phi3Config runs its own, stricter
 * _rope_scaling_validation (check_phi3_scaling), Olmo2Config its own
 * (check_olmo2_scaling).
 * Pairing per model's reference code in transformers v4.57.6: rotate_half
 * (split half) in modeling_llama & co; GPT-J rotate_every_two and
 * DeepSeek-V2's complex multiply (view_as_complex of adjacent pairs),
 * DeepSeek-V3's apply_rotary_pos_emb_interleave (rope_interleave) are
 * interleaved.
 * The model types added from the inventory (conformance/profiles/
 * INVENTORY.md), each read in transformers v4.57.6: Qwen3Config,
 * Qwen3MoeConfig, SeedOssConfig, ApertusConfig, ArceeConfig,
 * StableLmConfig and Ernie4_5Config copy "type" and validate;
 * GraniteConfig and CohereConfig validate without copying (rope_type wins,
 * as their rotary modules read it first); Olmo2Config, MinistralConfig,
 * Gemma2Config, Glm4Config and HeliumConfig do neither. Every one builds
 * inv_freq through ROPE_INIT_FUNCTIONS (head_dim, partial_rotary_factor).
 * Pairing: their rotate_half splits the halves (x[..., : d // 2]) except
 * Cohere's, ERNIE 4.5's, GLM-4's and Helium's, which take x[..., 0::2] and
 * x[..., 1::2] against cos/sin repeated by repeat_interleave(2): adjacent
 * pairs, GLM-4's on the first rotary_dim channels only. Qwen2_5_VLTextConfig
 * copies "type" (mrope read as default) and validates like Qwen2-VL's, and
 * its apply_multimodal_rotary_pos_emb is Qwen2-VL's. Second round:
 * OlmoeConfig, Qwen2MoeConfig, Starcoder2Config, Ernie4_5_MoeConfig,
 * Glm4MoeConfig and SmolLM3Config copy "type" and validate;
 * Gemma3TextConfig, Cohere2Config, NemotronConfig, Qwen3VLTextConfig and
 * Qwen3NextConfig validate without copying; Exaone4Config does neither. Split halves for
 * all but Cohere 2's and ERNIE 4.5 MoE's adjacent pairs; GLM-4.5
 * (glm4_moe), Nemotron and Qwen3-Next slice the rotary channels off in
 * their apply,
 * like Phi-3 (check_model_quirks and map_layers hold what else differs).
 * Third round: GraniteMoeConfig validates without copying (GraniteMoe's
 * heads are hidden_size / heads, like OLMoE's); FalconConfig and
 * HunYuanDenseV1Config do neither, and have their own mappers
 * (map_falcon: key/value heads, ALiBi with the bias before the score
 * scale; map_hunyuan: the dynamic-alpha fixed base). All split halves.
 * Each is held to the model's own outputs by a profile's vectors or
 * vectors/mappings/ (tests/inventory/check_inventory.py). */
static const model_rule model_rules[] = {
    {"llama", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"mistral", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mixtral", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"qwen2", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen2_vl", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen2_5_vl", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen3_vl", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"phi3", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"phi", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"gemma", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"gpt_oss", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen3", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen3_moe", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"seed_oss", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"apertus", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"arcee", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"stablelm", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"granite", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"granitemoe", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"olmo2", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ministral", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"gemma2", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ernie4_5", map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"cohere", map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 1},
    {"glm4", map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"helium", map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"olmoe", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen2_moe", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"starcoder2", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"ernie4_5_moe", map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"glm4_moe", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"nemotron", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"qwen3_next", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"gemma3_text", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"smollm3", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"cohere2", map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 1},
    {"exaone4", map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"deepseek_v2", map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"deepseek_v3", map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"llama4_text", map_llama4_text, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"gpt_neox", map_gpt_neox, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"gptj", map_gptj, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"falcon", map_falcon, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"hunyuan_v1_dense", map_hunyuan, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bloom", map_bloom, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mpt", map_mpt, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"t5", map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bert", map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"roberta", map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"gpt2", map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vit", map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"deit", map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dinov2", map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dinov2_with_registers", map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
};

/* What a model_type's mapping reads, in words, by its mapper. */
static const char *mapping_words(const char *model_type, int (*map)(map_ctx *c))
{
    if (map == map_llama_like && strcmp(model_type, "gemma3_text") == 0) {
        return "RoPE per layer: full layers rope_theta + rope_scaling, sliding layers rope_local_base_freq "
               "(layer_types or sliding_window_pattern; text_config of gemma3)";
    }
    if (map == map_llama_like && strcmp(model_type, "smollm3") == 0) {
        return "RoPE per layer: rope_theta, rope_scaling; NoPE where no_rope_layers is 0";
    }
    if (map == map_llama_like && (strcmp(model_type, "cohere2") == 0 || strcmp(model_type, "exaone4") == 0)) {
        return "RoPE per layer: rope_theta, rope_scaling on the sliding-window layers; NoPE on the others "
               "(layer_types or sliding_window_pattern)";
    }
    if (map == map_llama_like && cfg_is_qwen3_vl(model_type)) {
        return "interleaved M-RoPE: text_config's rope_theta, rope_scaling (required) with mrope_section "
               "(default [24, 20, 20]), head_dim";
    }
    if (map == map_llama_like && cfg_is_qwen_vl(model_type)) {
        return "M-RoPE: rope_theta, rope_scaling with mrope_section, head_dim (text_config when nested)";
    }
    return map == map_llama_like    ? "RoPE: rope_theta, rope_scaling, head_dim, partial_rotary_factor"
           : map == map_llama4_text ? "RoPE: text_config (llama3 when rope_scaling is set); NoPE where no_rope_layers is 0"
           : map == map_gpt_neox    ? "RoPE: rotary_pct, rotary_emb_base, rope_scaling"
           : map == map_gptj        ? "RoPE: rotary_dim"
           : map == map_hunyuan     ? "RoPE: rope_theta, head_dim (required), rope_scaling; dynamic with alpha is a "
                                      "fixed base rope_theta * alpha^(d/(d-2))"
           : map == map_falcon      ? "RoPE: rope_theta, rope_scaling, num_kv_heads / multi_query; ALiBi scaled "
                                      "by 1/sqrt(head_dim) when alibi is true"
           : map == map_bloom       ? "ALiBi: n_head"
           : map == map_mpt         ? "ALiBi: attn_config.alibi, alibi_bias_max"
           : map == map_t5          ? "T5 buckets: relative_attention_num_buckets, max_distance"
           : map == map_vit         ? "learned: the patch grid's table after its class row (deit: and its "
                                      "distillation row); resized to other images in the @vision pass"
                                    : "learned: max_position_embeddings / n_positions";
}

const char *pecert_certify_model_type(size_t i, pecert_rope_pairing *pairing, const char **reads)
{
    if (i >= sizeof(model_rules) / sizeof(model_rules[0])) {
        return NULL;
    }
    *pairing = model_rules[i].pairing;
    *reads = mapping_words(model_rules[i].model_type, model_rules[i].map);
    return model_rules[i].model_type;
}

static const model_rule *find_model(const char *model_type)
{
    for (size_t i = 0; i < sizeof(model_rules) / sizeof(model_rules[0]); i++) {
        if (strcmp(model_rules[i].model_type, model_type) == 0) {
            return &model_rules[i];
        }
    }
    return NULL;
}

/* 1 if a and b are one name written with other case or separators ("Qwen2-MoE",
 * "qwen2_moe"): model types are lower case with '_'. */
static int same_name_but_spelling(const char *a, const char *b)
{
    for (;;) {
        while (*a == '_' || *a == '-' || *a == ' ' || *a == '.') {
            a++;
        }
        while (*b == '_' || *b == '-' || *b == ' ' || *b == '.') {
            b++;
        }
        if (*a == '\0' || *b == '\0' || tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
            return *a == '\0' && *b == '\0';
        }
        a++;
        b++;
    }
}

/* The mapped model type a model_type pecert does not know is a spelling
 * of, or NULL. Only spelling: a real model type a letter away from a
 * mapped one (gpt_neo, gpt_neox) is another model, never a typo of it. */
static const char *same_but_spelling(const char *model_type)
{
    for (size_t i = 0; i < sizeof(model_rules) / sizeof(model_rules[0]); i++) {
        if (same_name_but_spelling(model_type, model_rules[i].model_type)) {
            return model_rules[i].model_type;
        }
    }
    return NULL;
}

/* Llama 4's config.json (model_type llama4, Llama4Config) holds the text
 * model's fields under text_config, which Llama4Config hands to
 * Llama4TextConfig; the vision tower's fields are not positional for the
 * language model. Qwen2VLConfig does the same when text_config is there
 * (a config.json transformers v4.57 saves) and builds the text config from
 * the top-level fields otherwise (the released checkpoints). Reads from
 * text_config, whose model_type must be inner when given. Returns 0, or -1
 * after cfg_fail(). */
static int enter_text_config(map_ctx *c, const char *inner_type)
{
    const cJSON *text = cfg_get(c->root, "text_config");
    if (!cJSON_IsObject(text)) {
        return cfg_fail(c, "text_config", "required for model_type '%s' (an object: the text model's fields)",
                        c->m->model_type);
    }
    const cJSON *inner = cfg_get(text, "model_type");
    if (inner != NULL && (!cJSON_IsString(inner) || strcmp(inner->valuestring, inner_type) != 0)) {
        return cfg_fail(c, "text_config.model_type", "expected '%s'", inner_type);
    }
    c->root = text;
    c->key_prefix = "text_config.";
    return 0;
}

static int map_document(map_ctx *c)
{
    const cJSON *mt = cfg_get(c->root, "model_type");
    if (!cJSON_IsObject(c->root)) {
        return cfg_fail(c, "(document)", "expected a JSON object");
    }
    if (!cJSON_IsString(mt)) {
        return cfg_fail(c, "model_type", "required (a string)");
    }
    snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", mt->valuestring);
    const char *rule_type = mt->valuestring;
    if (strcmp(rule_type, "llama4") == 0) {
        if (enter_text_config(c, "llama4_text") != 0) {
            return -1;
        }
        rule_type = "llama4_text";
    } else if (strcmp(rule_type, "gemma3") == 0) {
        if (enter_text_config(c, "gemma3_text") != 0) {
            return -1;
        }
        rule_type = "gemma3_text";
    } else if (cfg_is_qwen3_vl(rule_type)) {
        /* Qwen3VLConfig builds its text model from text_config only. */
        if (enter_text_config(c, "qwen3_vl_text") != 0) {
            return -1;
        }
    } else if (strcmp(rule_type, "llava") == 0) {
        /* LlavaConfig: the language model under text_config, its
         * model_type "llama" when left out (Pixtral-12B's is mistral). */
        const cJSON *text = cfg_get(c->root, "text_config");
        const cJSON *inner = cJSON_IsObject(text) ? cfg_get(text, "model_type") : NULL;
        rule_type = cJSON_IsString(inner) ? inner->valuestring : "llama";
        const model_rule *inner_rule = find_model(rule_type);
        if (enter_text_config(c, rule_type) != 0) {
            return -1;
        }
        if (inner_rule == NULL || inner_rule->map != map_llama_like) {
            return cfg_fail(c, "model_type", "'%s' under llava has no mapping in pecert (llava's text models: the "
                            "llama-like ones of --list-model-types)", rule_type);
        }
        /* The text model is its own model type to the mapper (defaults,
         * known keys, quirks); the checkpoint's stays llava. */
        snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", rule_type);
    } else if (cfg_is_qwen_vl(rule_type) && cfg_get(c->root, "text_config") != NULL &&
               enter_text_config(c, strcmp(rule_type, "qwen2_vl") == 0 ? "qwen2_vl_text" : "qwen2_5_vl_text") != 0) {
        return -1;
    }
    const model_rule *rule = find_model(rule_type);
    if (rule == NULL) {
        const char *near = same_but_spelling(mt->valuestring);
        return cfg_fail(c, "model_type", "'%s' has no mapping in pecert%s%s%s (see conformance/profiles/README.md)",
                        mt->valuestring, near != NULL ? " (did you mean '" : "", near != NULL ? near : "",
                        near != NULL ? "'?)" : "");
    }
    c->m->pairing = rule->pairing;
    c->type_overrides_rope_type = rule->type_overrides_rope_type;
    c->runs_validation = rule->runs_validation;
    c->m->rope.struct_size = sizeof(c->m->rope);
    if (rule->map(c) != 0) {
        return -1;
    }
    if (strcmp(c->m->model_type, "deepseek_v3") == 0) {
        int interleave = 1;
        if (cfg_read_bool(c, c->root, "rope_interleave", "rope_interleave", &interleave) < 0) {
            return -1;
        }
        c->m->pairing = interleave ? PECERT_PAIRING_INTERLEAVED : PECERT_PAIRING_SPLIT_HALF;
    }
    snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", mt->valuestring);
    return cfg_map_vision(c, c->m->model_type);
}

int cfg_map_object(pecert_certify_model *out, const cJSON *root, const char *name, char *err, size_t err_len)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", name);
    err[0] = '\0';
    map_ctx c = {root, out, err, err_len, root, "", 0, 0};
    return root == NULL ? cfg_fail(&c, "(document)", "not valid JSON") : map_document(&c);
}

/* What Python's json and cJSON would read differently is refused before
 * the mapping sees it (json_text.h): duplicate keys (Python's json, which
 * transformers reads config.json with, keeps the last; cJSON's lookups
 * the first), NUL bytes and \u0000, bad UTF-8, text after the value. */
#define DUPLICATE_KEY_NOTE                                                                                           \
    " (Python's json, which transformers reads config.json with, would keep the last value; pecert refuses the "    \
    "ambiguity)"

int pecert_certify_parse(pecert_certify_model *out, const char *json_text, const char *name,
                         char *err, size_t err_len)
{
    cJSON *root = pecert_json_parse_strict(json_text, strlen(json_text), name, DUPLICATE_KEY_NOTE, err, err_len);
    int rc = -1;
    if (root != NULL) {
        rc = cfg_map_object(out, root, name, err, err_len);
    } else {
        memset(out, 0, sizeof(*out));
    }
    cJSON_Delete(root);
    return rc;
}

const char *pecert_pe_kind_name(pecert_pe_kind kind)
{
    static const char *const names[] = {"rope", "mrope", "alibi", "t5", "learned", "rope2d"};
    return kind >= PECERT_PE_ROPE && kind <= PECERT_PE_ROPE2D ? names[kind] : "?";
}
