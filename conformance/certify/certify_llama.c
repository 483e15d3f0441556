/*
 * certify_llama.c - the readers of the Llama-like decoders: every model
 * type whose config class is LlamaConfig's kin (Llama, Mistral, Qwen 2/3
 * and their VL text models, Phi, Gemma, DeepSeek, OLMo 2, GPT-OSS, ...:
 * the table in certify_config.c), with the quirks each config class adds,
 * and Llama 4's text model.
 *
 * Source of every rule: transformers v4.57.6 (753d6110), the model's
 * configuration_*.py and modeling_rope_utils.py.
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "vectors.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Phi3Config (transformers v4.57.6), and Phi4MultimodalConfig, its copy:
 * original_max_position_embeddings defaults to 4096, so LongRoPE's switch
 * length and factor come from it even when config.json omits it;
 * _rope_scaling_validation raises ValueError unless rope_scaling is
 * exactly {type, short_factor, long_factor} with type longrope (after
 * "su" / "yarn" are renamed). */
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

/* LongcatFlashConfig keeps head_dim (64), which its rotary module reads,
 * apart from qk_rope_head_dim (64), the slice its MLA rotates
 * (configuration_longcat_flash.py, LongcatFlashMLA.forward): with the two
 * different the official code cannot run. */
static int check_longcat_head_dim(map_ctx *c)
{
    int32_t rope = 64;
    if (cfg_read_int32(c, c->root, "qk_rope_head_dim", 1, 1 << 16, &rope) < 0) {
        return -1;
    }
    if (rope != c->m->head_dim) {
        return cfg_fail(c, "qk_rope_head_dim", "%d differs from head_dim %d: LongcatFlashRotaryEmbedding builds cos/sin "
                        "%d wide for a rotated slice %d wide, which transformers cannot run", (int)rope,
                        (int)c->m->head_dim, (int)c->m->head_dim, (int)rope);
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
    {"qwen2_vl_text", 1e6, 1.0, 0, NULL},
    {"qwen2_5_vl_text", 1e6, 1.0, 0, NULL},
    {"qwen2_5_omni_thinker", 1e6, 1.0, 0, "{\"mrope_section\": [16, 24, 24], \"rope_type\": \"default\"}"},
    /* Qwen3OmniMoeTextConfig: head_dim or hidden_size // num_attention_heads. */
    {"qwen3_omni_moe_thinker", 1e6, 1.0, 0, NULL},
    {"qwen3_vl_text", 5e6, 1.0, 128, NULL},
    /* Qwen3VLMoeTextConfig: head_dim or hidden_size // num_attention_heads. */
    {"qwen3_vl_moe", 5e6, 1.0, 0, NULL},
    {"qwen3_vl_moe_text", 5e6, 1.0, 0, NULL},
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
    {"gemma3n_text", 1e6, 1.0, 256, NULL},
    {"gemma3n", 1e6, 1.0, 256, NULL},
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
    {"bitnet", 500000.0, 1.0, 0, NULL},
    {"flex_olmo", 500000.0, 1.0, 0, NULL},
    {"vaultgemma", 10000.0, 1.0, 256, NULL},
    {"persimmon", 25000.0, 0.5, 0, NULL},
    {"glm", 10000.0, 0.5, 128, NULL},
    {"lfm2", 1e6, 1.0, 0, NULL},
    {"falcon_h1", 100000.0, 1.0, 0, NULL},
    {"minimax", 1e6, 1.0, 0, NULL},
    {"emu3_text_model", 1e6, 1.0, 0, NULL},
    {"longcat_flash", 1e7, 1.0, 64, NULL},
    {"jetmoe", 10000.0, 1.0, 128, NULL},
    {"csm", 500000.0, 1.0, 0, NULL},
    {"EvollaModel", 500000.0, 1.0, 0, NULL},
    {"moonshine", 10000.0, 0.9, 0, NULL},
    {"phimoe", 1e6, 1.0, 0, NULL},
    {"modernbert-decoder", 160000.0, 1.0, 0, NULL},
    {"modernbert", 160000.0, 1.0, 0, NULL},
    {"mllama_text_model", 500000.0, 1.0, 0, NULL},
    {"granitemoehybrid", 10000.0, 1.0, 0, NULL},
    {"t5_gemma_module", 10000.0, 1.0, 256, NULL},
    /* Glm4vTextConfig has no partial_rotary_factor of its own (a kwarg
     * PretrainedConfig sets, read by the rope init); Glm4vMoeTextConfig's
     * is 0.5. */
    {"glm4v", 10000.0, 1.0, 0, NULL},
    {"glm4v_text", 10000.0, 1.0, 0, NULL},
    {"glm4v_moe", 10000.0, 0.5, 0, NULL},
    {"glm4v_moe_text", 10000.0, 0.5, 0, NULL},
    {"dia_encoder", 10000.0, 1.0, 128, NULL},
    {"dia_decoder", 10000.0, 1.0, 128, NULL},
    {"moshi", 10000.0, 1.0, 0, NULL},
    {"kyutai_speech_to_text", 100000.0, 1.0, 0, NULL},
    {"recurrent_gemma", 10000.0, 0.5, 0, NULL},
    /* BambaConfig sets rope_theta 10000, rope_scaling None and
     * partial_rotary_factor 0.5 in its body, then passes **kwargs to
     * PretrainedConfig.__init__: a config.json value of any of them wins. */
    {"bamba", 10000.0, 0.5, 0, NULL},
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
    static const char *const splitters[] = {"phi3",      "phi4_multimodal", "phi",       "stablelm",
                                            "glm4",      "glm4_moe",        "nemotron",  "qwen3_next",
                                            "persimmon", "glm",             "moonshine", "recurrent_gemma",
                                            "bamba",     "glm4v",           "glm4v_text", "glm4v_moe",
                                            "glm4v_moe_text", NULL};
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
    cfg_warn(c, "rope_scaling.mscale_all_dim", "%s scales its softmax by yarn_get_mscale(factor, "
             "mscale_all_dim)^2 = %.6g, outside the rotation: not certified",
             strcmp(c->m->model_type, "longcat_flash") == 0 ? "LongcatFlashMLA" : "DeepseekV3Attention", mscale * mscale);
}

/* Olmo2Config._rope_scaling_validation (ChameleonConfig's is the same): rope_scaling is null or exactly
 * {"type": "linear" | "dynamic", "factor": float > 1}, else ValueError.
 * (An integer factor, which it also refuses, reads here as the number it
 * is: cJSON keeps no int/float distinction.) */
static int check_olmo2_scaling(map_ctx *c, const char *config_class)
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
        return cfg_fail(c, "rope_scaling", "%s accepts only {\"type\": \"linear\" or \"dynamic\", "
                        "\"factor\": > 1} (it raises ValueError otherwise)", config_class);
    }
    /* ChameleonAttention._init_rope's dynamic class (and OpenLlama's)
     * recomputes inv_freq once a position passes max_position_embeddings
     * and keeps it for every later call: an encoding that depends on what
     * came before. */
    if (strcmp(config_class, "Olmo2Config") != 0 && strcmp(type->valuestring, "dynamic") == 0) {
        return cfg_fail(c, "rope_scaling.type", "dynamic: %s's dynamic NTK class overwrites its inv_freq past "
                        "max_position_embeddings and keeps it for later calls; pecert certifies no encoding that "
                        "depends on earlier calls", config_class);
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
        return cfg_fail(c, "rope_scaling", "required for Qwen3-VL (Qwen3VLTextRotaryEmbedding, and its MoE copy, reads "
                        "config.rope_scaling.get(...): null raises AttributeError)");
    }
    /* Qwen3OmniMoeTextConfig copies a legacy "type" over rope_type first
     * (its thinker's rotary class reads rope_type, Qwen3-VL's alike); its
     * released config also says "interleaved", which nothing reads. */
    int omni = strcmp(c->m->model_type, "qwen3_omni_moe_thinker") == 0;
    if (!omni && cfg_get(rs, "type") != NULL) {
        return cfg_fail(c, "rope_scaling.type", "Qwen3VLTextRotaryEmbedding reads rope_type only; pecert refuses a "
                        "key the model ignores");
    }
    if (omni && cfg_get(rs, "interleaved") != NULL) {
        cfg_warn(c, "rope_scaling.interleaved", "read by nothing: Qwen3OmniMoeThinkerTextRotaryEmbedding interleaves "
                 "the sections whatever it says");
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

/* GraniteMoE and GraniteMoeShared (its shared-expert variant, the same
 * attention, rotary module and position_embedding_type rule). */
static int is_granitemoe(const char *model_type)
{
    return strcmp(model_type, "granitemoe") == 0 || strcmp(model_type, "granitemoeshared") == 0;
}

/* Where the base is read: Lfm2Config.__init__ takes kwargs.get("theta",
 * rope_theta) ("to fit original config keys"): a "theta" key wins over
 * rope_theta. ModernBertDecoderConfig keeps it as global_rope_theta
 * (rope_theta is its attribute_map alias, which PretrainedConfig.__init__
 * sets after the class's own fields: a rope_theta key wins).
 * ModernBertConfig calls PretrainedConfig.__init__ first and sets
 * global_rope_theta after it: its rope_theta is overwritten, read by
 * nothing (refused, check_model_quirks). Every other class reads
 * rope_theta. */
static const char *theta_key(const map_ctx *c)
{
    if (strcmp(c->m->model_type, "lfm2") == 0 && cfg_get(c->root, "theta") != NULL) {
        return "theta";
    }
    if (strcmp(c->m->model_type, "modernbert") == 0 ||
        (strcmp(c->m->model_type, "modernbert-decoder") == 0 && cfg_get(c->root, "rope_theta") == NULL)) {
        return "global_rope_theta";
    }
    return "rope_theta";
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
    static const char *const modernbert[] = {"rope_theta", "rope_scaling", "max_position_embeddings",
                                             "global_rope_theta", "local_rope_theta", NULL};
    static const char *const modernbert_encoder[] = {"rope_theta", "rope_scaling", "max_position_embeddings",
                                                     "global_rope_theta", "local_rope_theta",
                                                     "global_attn_every_n_layers", "local_attention", NULL};
    /* RecurrentGemmaConfig has neither a rope_scaling nor a
     * max_position_embeddings: such a key is read by nothing. */
    static const char *const recurrent_gemma[] = {"rope_theta", "partial_rotary_factor", NULL};
    const char *mt = c->m->model_type;
    const char *const *keys = strncmp(mt, "gemma3", 6) == 0               ? gemma3
                              : strcmp(mt, "smollm3") == 0                ? no_rope
                              : is_granitemoe(mt) || strcmp(mt, "granitemoehybrid") == 0 ? granitemoe
                              : strcmp(mt, "modernbert-decoder") == 0     ? modernbert
                              : strcmp(mt, "modernbert") == 0             ? modernbert_encoder
                              : strcmp(mt, "recurrent_gemma") == 0        ? recurrent_gemma
                                                                          : known;
    return cfg_reject_unknown_positional(c, c->root, keys, "") != 0 ? -1 : check_position_embedding_type(c);
}


/* What a Llama-shaped model computes beside the rotation certify checks,
 * said where a porter reads it: in the description (a position or vision
 * note) or as a warning naming the key (transformers v4.57.6):
 *   csm        its depth decoder (depth_decoder_config, CsmDepthDecoderModel)
 *              rotates with a rope of its own and numbers its positions by
 *              cache_position, ignoring the position_ids it is given;
 *   glm4v(_moe)  Glm4vVisionModel: Qwen2-VL's 2-D RoPE and a learned table
 *              sampled by grid_sample;
 *   moshi      MoshiDepthDecoder: use_rope False, MoshiFlexibleLinear picks
 *              its q/k/v weights by cache_position; the Mimi audio encoder;
 *   kyutai_speech_to_text  the Mimi codec of codec_config, a rope of its own;
 *   phi4_multimodal  the image embedder (a SigLIP table read through
 *              bucketized patch coordinates) and the audio conformer's
 *              relative attention bias. */
typedef enum { NOTE_POSITION, NOTE_VISION, NOTE_WARNING } note_kind;

typedef struct model_note {
    const char *model_type;
    note_kind kind;
    const char *key; /* the warning's key; NULL for a note */
    const char *text;
} model_note;

/* vision_note holds 159 characters. */
#define GLM4V_TOWER                                                                                                    \
    "GLM-4V's vision tower (Glm4vVisionModel: a 2-D RoPE in merge windows, a learned table sampled by grid_sample) " \
    "is not certified"

/* A warning's text holds 191 characters (cfg_warn). */
static const model_note model_notes[] = {
    {"csm", NOTE_POSITION, NULL,
     "CSM's depth decoder has a rope of its own and numbers positions by cache_position, whatever position_ids it is "
     "given: pecert certifies the backbone's rotation only"},
    {"glm4v", NOTE_VISION, NULL, GLM4V_TOWER},
    {"glm4v_moe", NOTE_VISION, NULL, GLM4V_TOWER},
    {"moshi", NOTE_WARNING, "depth_decoder_config",
     "the depth decoder rotates nothing and picks its weights by position (MoshiFlexibleLinear), the audio encoder "
     "(Mimi) has a rope of its own: certify checks the main decoder's rotation"},
    {"kyutai_speech_to_text", NOTE_WARNING, "codec_config",
     "the audio codec (codec_config, Mimi) rotates with a rope of its own: certify checks the decoder's rotation only "
     "(the codec's config.json certifies as model_type mimi)"},
    /* EvollaConfig's model_type is "EvollaModel" (its registry key evolla):
     * a Llama decoder (EvollaRotaryEmbedding, the default rope) over a
     * SaProt protein encoder with ESM's rotary of its own. */
    {"EvollaModel", NOTE_WARNING, "protein_encoder_config",
     "the protein encoder's layers (SaProt: ESM's rotary, EvollaSaProtRotaryEmbedding) and the aligner's "
     "cross-attention are not certified: certify checks the decoder's rotation"},
    {"phi4_multimodal", NOTE_VISION, NULL,
     "Phi-4-multimodal's image tower (a learned table read at bucketized patch coordinates) and its audio encoder's "
     "relative attention bias are not certified"},
};

static void note_what_is_not_certified(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    for (size_t i = 0; i < sizeof(model_notes) / sizeof(model_notes[0]); i++) {
        const model_note *n = &model_notes[i];
        if (strcmp(n->model_type, m->model_type) != 0) {
            continue;
        }
        if (n->kind == NOTE_WARNING) {
            cfg_warn(c, n->key, "%s", n->text);
        } else {
            char *into = n->kind == NOTE_POSITION ? m->position_note : m->vision_note;
            size_t len = n->kind == NOTE_POSITION ? sizeof(m->position_note) : sizeof(m->vision_note);
            snprintf(into, len, "%s", n->text);
        }
    }
}

/* What one model's code does differently from the Llama shape:
 * OlmoeAttention, GraniteMoeAttention and PhimoeAttention size their
 * heads hidden_size / num_attention_heads whatever head_dim says, while
 * their rotary modules read head_dim (a different head_dim is a model
 * transformers cannot run); OpenLlamaAttention builds its rotary module
 * from its own hidden_size / num_attention_heads, so a head_dim is read by
 * nothing, and refused as such;
 * NemotronRotaryEmbedding computes default RoPE whatever rope_scaling says
 * (its config class has no such field), so a scaled config is refused. */
static int check_model_quirks(map_ctx *c)
{
    const pecert_certify_model *m = c->m;
    int32_t hidden = 0;
    if ((strcmp(m->model_type, "olmoe") == 0 || strcmp(m->model_type, "phimoe") == 0 ||
         strcmp(m->model_type, "open-llama") == 0 || strcmp(m->model_type, "modernbert") == 0 ||
         strcmp(m->model_type, "glm4v") == 0 || strcmp(m->model_type, "glm4v_text") == 0 ||
         is_granitemoe(m->model_type)) &&
        cfg_get(c->root, "head_dim") != NULL &&
        cfg_read_int32(c, c->root, "hidden_size", 1, 1 << 20, &hidden) >= 0 && m->head_dim != hidden / m->num_heads) {
        return cfg_fail(c, "head_dim",
                        strcmp(m->model_type, "open-llama") == 0
                            ? "%d differs from hidden_size / num_attention_heads = %d: %s's attention and rotary "
                              "module use the latter, so head_dim is read by nothing"
                            : "%d differs from hidden_size / num_attention_heads = %d: %s's attention uses the "
                              "latter, its rotary module the former (transformers cannot run it)",
                        (int)m->head_dim, (int)(hidden / m->num_heads), m->model_type);
    }
    /* GraniteMoeHybridModel builds its rotary module only when
     * position_embedding_type is "rope"; its default None (or "nope") is
     * a model without positions (Granite 4.0-H's). */
    if (strcmp(m->model_type, "granitemoehybrid") == 0) {
        const cJSON *pe = cfg_get(c->root, "position_embedding_type");
        if (!cJSON_IsString(pe) || strcmp(pe->valuestring, "rope") != 0) {
            return cfg_fail(c, "position_embedding_type", "%s: GraniteMoeHybridModel rotates only with \"rope\"; "
                            "anything else is a model without position encoding, which pecert does not certify",
                            cJSON_IsString(pe) ? pe->valuestring : "null or absent");
        }
    }
    if (strcmp(m->model_type, "modernbert") == 0 && cfg_get(c->root, "rope_theta") != NULL) {
        return cfg_fail(c, "rope_theta", "ModernBertConfig sets global_rope_theta after PretrainedConfig.__init__ "
                        "applies rope_theta (its attribute_map alias), so rope_theta is read by nothing; pecert "
                        "refuses it (global_rope_theta is the base)");
    }
    /* MllamaRotaryEmbedding.__init__ reads config.rope_scaling["rope_type"]
     * (TypeError when null, KeyError without the key; MllamaTextConfig
     * copies no legacy "type"). */
    if (strcmp(m->model_type, "mllama_text_model") == 0) {
        const cJSON *rs = cfg_get(c->root, "rope_scaling");
        if (!cJSON_IsObject(rs) || cfg_get(rs, "rope_type") == NULL) {
            return cfg_fail(c, "rope_scaling", "%s: MllamaRotaryEmbedding reads rope_scaling[\"rope_type\"] (the "
                            "model cannot be built without it)", cJSON_IsObject(rs) ? "has no rope_type" : "required");
        }
    }
    /* PhimoeRotaryEmbedding multiplies cos/sin by rope_scaling's
     * short_mscale or long_mscale, picked by the sequence's length, in
     * place of LongRoPE's attention factor: a pair of scales pecert's rope
     * configuration cannot state. */
    if (strcmp(m->model_type, "phimoe") == 0 && cfg_get(c->root, "rope_scaling") != NULL) {
        return cfg_fail(c, "rope_scaling", "PhimoeRotaryEmbedding scales cos/sin by short_mscale or long_mscale, "
                        "picked by the sequence's length, in place of LongRoPE's attention factor: not certifiable "
                        "by pecert (its rope configuration has one attention factor)");
    }
    if (strcmp(m->model_type, "nemotron") == 0 && cfg_get(c->root, "rope_scaling") != NULL) {
        return cfg_fail(c, "rope_scaling", "NemotronRotaryEmbedding computes default RoPE whatever rope_scaling says "
                        "(NemotronConfig has no such field); pecert refuses a field the model ignores");
    }
    note_what_is_not_certified(c);
    return 0;
}

/* Moonshine (an encoder-decoder for speech): MoonshineConfig's
 * attribute_map reads num_attention_heads as encoder_num_attention_heads,
 * and the encoder's and the decoder's rotary modules are both built on the
 * whole config, so their channels are int(hidden_size / encoder heads *
 * partial_rotary_factor) wide; each attention rotates that many channels
 * of its own heads (hidden_size / its heads wide; MoonshineAttention).
 * With the decoder's heads another width, its layers are another encoding
 * (a slice of a different head), which pecert does not model: refused. */
static int read_moonshine_heads(map_ctx *c)
{
    int32_t hidden = 288;
    int32_t decoder_heads = 8;
    if (cfg_read_heads(c, "hidden_size", "encoder_num_attention_heads", "encoder_num_key_value_heads") != 0 ||
        cfg_read_int32(c, c->root, "hidden_size", 1, 1 << 20, &hidden) < 0 ||
        cfg_read_int32(c, c->root, "decoder_num_attention_heads", 1, 1 << 16, &decoder_heads) < 0) {
        return -1;
    }
    if (hidden / decoder_heads != c->m->head_dim) {
        return cfg_fail(c, "decoder_num_attention_heads", "%d gives the decoder heads %d wide, the encoder's are %d: "
                        "both rotate the encoder-sized channels, a slice of a different head in each, which pecert "
                        "does not certify (one head shape per checkpoint)", (int)decoder_heads,
                        (int)(hidden / decoder_heads), (int)c->m->head_dim);
    }
    return 0;
}

/* Each Llama-shaped config class's defaults for its width, heads and
 * length (conformance/inventory.json: transformers v4.57.6's), and its
 * signature's num_key_value_heads (MistralConfig's 8; None, the query
 * heads, for LlamaConfig): a wrapper's
 * text_config often leaves them out (LLaVA-1.5's names model_type and
 * max_position_embeddings only: LlamaConfig's 4096 and 32 apply;
 * PaliGemma's no length: GemmaConfig's 8192).
 * tests/inventory/ drops each from every top-level default config: the
 * answer must stay (or be a refusal). */
typedef struct size_defaults {
    const char *model_type;
    int32_t hidden_size, num_attention_heads;
    int64_t max_position_embeddings; /* 0: the class has none (required) */
    int32_t num_key_value_heads;     /* 0: None, the query heads           */
} size_defaults;

static const size_defaults llama_like_sizes[] = {
    {"llama", 4096, 32, 2048, 0}, {"mistral", 4096, 32, 131072, 8}, {"mixtral", 4096, 32, 131072, 8},
    {"qwen2", 4096, 32, 32768, 32}, {"qwen2_vl", 8192, 64, 32768, 8}, {"qwen2_5_vl", 8192, 64, 32768, 8},
    {"qwen3_vl", 4096, 32, 128000, 32}, {"phi3", 3072, 32, 4096, 0}, {"qwen2_vl_text", 8192, 64, 32768, 8},
    {"qwen2_5_vl_text", 8192, 64, 32768, 8}, {"qwen3_vl_text", 4096, 32, 128000, 32},
    {"qwen2_5_omni_thinker", 3584, 28, 32768, 4}, {"qwen3_omni_moe_thinker", 2048, 28, 32768, 4},
    {"qwen3_vl_moe", 2048, 16, 128000, 16}, {"qwen3_vl_moe_text", 2048, 16, 128000, 16},
    {"phi4_multimodal", 3072, 32, 131072, 8}, {"phi", 2048, 32, 2048, 0}, {"gemma", 3072, 16, 8192, 16},
    {"gpt_oss", 2880, 64, 131072, 8}, {"qwen3", 4096, 32, 32768, 32}, {"qwen3_moe", 2048, 32, 32768, 4},
    {"seed_oss", 4096, 80, 524288, 8}, {"apertus", 4096, 32, 65536, 0}, {"arcee", 2560, 32, 4096, 0},
    {"stablelm", 2560, 32, 4096, 32}, {"granite", 4096, 32, 2048, 0}, {"granitemoe", 4096, 32, 2048, 0},
    {"olmo2", 4096, 32, 2048, 0}, {"ministral", 4096, 32, 131072, 8}, {"gemma2", 2304, 8, 8192, 4},
    {"ernie4_5", 1024, 16, 131072, 2}, {"cohere", 8192, 64, 8192, 0}, {"glm4", 4096, 32, 131072, 2},
    {"helium", 2560, 20, 4096, 20}, {"open-llama", 4096, 32, 2048, 0}, {"phimoe", 4096, 32, 131072, 8},
    {"modernbert-decoder", 768, 12, 8192, 0}, {"recurrent_gemma", 2560, 10, 0, 0}, {"olmoe", 2048, 16, 4096, 0},
    {"qwen2_moe", 2048, 16, 32768, 16}, {"starcoder2", 3072, 24, 4096, 2},
    {"ernie4_5_moe", 2560, 20, 131072, 4}, {"glm4_moe", 4096, 96, 131072, 8}, {"nemotron", 6144, 48, 4096, 0},
    {"qwen3_next", 2048, 16, 32768, 2}, {"gemma3_text", 2304, 8, 131072, 4},
    {"gemma3n_text", 2048, 8, 32768, 2}, {"smollm3", 2048, 16, 32768, 4}, {"cohere2", 8192, 64, 8192, 0},
    {"exaone4", 4096, 32, 2048, 32}, {"deepseek_v2", 4096, 32, 2048, 0}, {"deepseek_v3", 7168, 128, 4096, 128},
    {"olmo", 4096, 32, 2048, 0}, {"olmo3", 4096, 32, 2048, 0}, {"flex_olmo", 4096, 32, 4096, 0},
    {"bitnet", 2560, 20, 2048, 5}, {"granitemoeshared", 4096, 32, 2048, 0}, {"diffllama", 2048, 32, 2048, 0},
    {"dots1", 4608, 32, 2048, 32}, {"vaultgemma", 2304, 8, 8192, 4}, {"persimmon", 4096, 64, 16384, 0},
    {"glm", 4096, 32, 131072, 2}, {"doge", 1024, 8, 2048, 0}, {"lfm2", 2560, 32, 128000, 8},
    {"falcon_h1", 4096, 32, 8192, 8}, {"aria_text", 4096, 32, 2048, 0}, {"minimax", 4096, 32, 131072, 8},
    {"emu3_text_model", 4096, 32, 9216, 8}, {"longcat_flash", 6144, 64, 131072, 0}, {"mimi", 512, 8, 8000, 8},
    {"jetmoe", 2048, 32, 4096, 16}, {"csm", 2048, 32, 2048, 8}, {"chameleon", 4096, 32, 4096, 32},
    {"bamba", 4096, 32, 262144, 8}, {"modernbert", 768, 12, 8192, 0}, {"moshi", 4096, 32, 3000, 0},
    {"kyutai_speech_to_text", 2048, 32, 750, 0}, {"t5_gemma_module", 2304, 8, 8192, 4},
    {"dia_encoder", 1024, 16, 1024, 16}, {"dia_decoder", 2048, 16, 3072, 4},
    {"glm4v", 4096, 32, 32768, 2}, {"glm4v_text", 4096, 32, 32768, 2}, {"glm4v_moe", 4096, 96, 65536, 8},
    {"glm4v_moe_text", 4096, 96, 65536, 8}, {"mllama_text_model", 4096, 32, 131072, 8},
    {"granitemoehybrid", 4096, 32, 2048, 0},
};

static size_defaults sizes_of(const char *model_type)
{
    for (size_t i = 0; i < sizeof(llama_like_sizes) / sizeof(llama_like_sizes[0]); i++) {
        if (strcmp(llama_like_sizes[i].model_type, model_type) == 0) {
            return llama_like_sizes[i];
        }
    }
    return (size_defaults){model_type, 0, 0, 0, 0};
}

/* The heads of a Llama-shaped config, the class's defaults where it
 * leaves them out: its own keys for Moonshine. */
static int read_llama_like_heads(map_ctx *c)
{
    if (strcmp(c->m->model_type, "moonshine") == 0) {
        return read_moonshine_heads(c);
    }
    size_defaults d = sizes_of(c->m->model_type);
    if (cfg_read_heads_or(c, "hidden_size", "num_attention_heads", "num_key_value_heads", d.hidden_size,
                          d.num_attention_heads) != 0) {
        return -1;
    }
    /* Absent: the class's default (a null one is None: the query heads). */
    if (d.num_key_value_heads > 0 && !cJSON_HasObjectItem(c->root, "num_key_value_heads")) {
        pecert_certify_model *m = c->m;
        if (m->num_heads % d.num_key_value_heads != 0) {
            return cfg_fail(c, "num_key_value_heads", "absent: %s's default %d does not divide "
                            "num_attention_heads = %d (the model cannot be built)", m->model_type,
                            (int)d.num_key_value_heads, (int)m->num_heads);
        }
        m->num_kv_heads = d.num_key_value_heads;
    }
    return 0;
}

/* ModernBertDecoderModel builds its global_rotary_emb and its
 * local_rotary_emb from the same config: the sliding and the full layers
 * rotate alike, at the global base, and local_rope_theta is read by
 * nothing. Said either way (two rotary modules, one encoding). */
static int warn_modernbert_local_theta(map_ctx *c)
{
    double local_theta = 160000.0;
    int rc = cfg_read_num(c, c->root, "local_rope_theta", "local_rope_theta", 1.0 + 1e-9, 1e12, &local_theta);
    if (rc < 0) {
        return -1;
    }
    if (local_theta != c->m->rope.rope_theta) {
        cfg_warn(c, "local_rope_theta", "%g is read by nothing: ModernBertDecoderModel builds its local rotary "
                 "module from the same config as the global one, so every layer rotates at %g (certified so)",
                 local_theta, c->m->rope.rope_theta);
    } else {
        cfg_warn(c, "layer_types", "the sliding and full layers rotate alike (ModernBertDecoderModel builds "
                 "local_rotary_emb from the same config as global_rotary_emb): certified as one encoding");
    }
    return 0;
}

/* RecurrentGemma (RecurrentGemmaSdpaAttention): the rotary module is built
 * for int(partial_rotary_factor * head_dim) channels, and the head split
 * by torch.chunk into int(1 / partial_rotary_factor) pieces, the first
 * rotated and the second passed: only a factor of 0.5 gives two pieces of
 * the rotated width (any other cannot run). The model has no
 * max_position_embeddings; its attention is local, attention_window_size
 * (2048) tokens wide, the length certified. */
static int read_recurrent_gemma(map_ctx *c, double partial)
{
    int64_t window = 2048;
    if (partial != 0.5) {
        return cfg_fail(c, "partial_rotary_factor", "%.17g: RecurrentGemmaSdpaAttention splits the head into "
                        "int(1 / factor) chunks and rotates the first with cos/sin of factor * head_dim channels, "
                        "which transformers can run only for 0.5", partial);
    }
    if (cfg_read_int(c, c->root, "attention_window_size", "attention_window_size", 1, (int64_t)1 << 40, &window) < 0) {
        return -1;
    }
    c->m->max_position_embeddings = window;
    return 0;
}

int cfg_map_llama_like(map_ctx *c)
{
    const rope_defaults *d = defaults_of(c->m->model_type);
    double partial = d->partial_rotary_factor;
    pecert_certify_model *m = c->m;
    if (reject_unknown_llama_like(c) != 0 || read_llama_like_heads(c) != 0 ||
        cfg_read_num(c, c->root, "partial_rotary_factor", "partial_rotary_factor", 1e-6, 1.0, &partial) < 0) {
        return -1;
    }
    if (d->head_dim > 0 && cfg_get(c->root, "head_dim") == NULL) {
        m->head_dim = d->head_dim;
    }
    m->max_position_embeddings = sizes_of(m->model_type).max_position_embeddings;
    /* JetMoeConfig: head_dim is an attribute_map alias of kv_channels, the
     * width JetMoeAttention and its rotary module use; its query heads are
     * num_key_value_heads * num_experts_per_tok, which config.json states. */
    if (strcmp(m->model_type, "jetmoe") == 0 &&
        cfg_read_int32(c, c->root, "kv_channels", 2, 1 << 16, &m->head_dim) < 0) {
        return -1;
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
    if ((strcmp(m->model_type, "deepseek_v3") == 0 && check_deepseek_v3_head_dim(c) != 0) ||
        (strcmp(m->model_type, "longcat_flash") == 0 && check_longcat_head_dim(c) != 0)) {
        return -1;
    }
    if (strcmp(m->model_type, "recurrent_gemma") == 0 && read_recurrent_gemma(c, partial) != 0) {
        return -1;
    }
    if (cfg_read_rope_common(c, theta_key(c), d->rope_theta) != 0 ||
        cfg_set_rotary_dim(c, partial, "partial_rotary_factor") != 0 ||
        (cfg_is_phi3_like(m->model_type) && check_phi3_scaling(c) != 0) ||
        (strcmp(m->model_type, "olmo2") == 0 && check_olmo2_scaling(c, "Olmo2Config") != 0) ||
        (strcmp(m->model_type, "chameleon") == 0 && check_olmo2_scaling(c, "ChameleonConfig") != 0) ||
        (strcmp(m->model_type, "open-llama") == 0 && check_olmo2_scaling(c, "OpenLlamaConfig") != 0)) {
        return -1;
    }
    /* The top-level original length is read by LongRoPE only (getattr on
     * the config); every other rope type ignores it. */
    int defaulted = d->rope_scaling != NULL && cfg_get(c->root, "rope_scaling") == NULL;
    int rc = defaulted ? map_default_scaling(c, d->rope_scaling) : cfg_map_rope_scaling(c);
    if (rc == 0 && cfg_is_qwen3_vl(m->model_type)) {
        rc = map_qwen3_vl_scaling(c);
    }
    if (rc == 0 && strcmp(m->model_type, "modernbert-decoder") == 0) {
        rc = warn_modernbert_local_theta(c);
    }
    if (rc == 0 && (strcmp(m->model_type, "deepseek_v3") == 0 || strcmp(m->model_type, "longcat_flash") == 0)) {
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
int cfg_map_llama4_text(map_ctx *c)
{
    static const char *const known[] = {"rope_theta", "rope_scaling", "max_position_embeddings",
                                        "no_rope_layers", "no_rope_layer_interval", NULL};
    pecert_certify_model *m = c->m;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_heads(c, "hidden_size", "num_attention_heads", "num_key_value_heads") != 0) {
        return -1;
    }
    if (cfg_get(c->root, "head_dim") == NULL) {
        m->head_dim = 128;
    }
    if (cfg_read_rope_common(c, "rope_theta", 500000.0) != 0 || cfg_set_rotary_dim(c, 1.0, "head_dim") != 0) {
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
