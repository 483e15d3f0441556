/*
 * certify_scaling.c - config.json's rope_scaling, read as transformers
 * v4.57.6 reads it (modeling_rope_utils.py: the keys each rope_type
 * allows, their defaults, the _validate_* rules and the legacy "type",
 * "su" and "mrope" spellings). Split from certify_config.c, whose model
 * readers call it.
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "vectors.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rope_scaling ------------------------------------------------------ */

typedef struct rope_type_rule {
    const char *name;          /* rope_scaling's rope_type / type          */
    pecert_rope_type type;
    const char *const *keys;   /* keys allowed besides rope_type / type    */
} rope_type_rule;

static const char *const keys_default[] = {NULL};
static const char *const keys_factor[] = {"factor", NULL};
static const char *const keys_dynamic[] = {"factor", "original_max_position_embeddings", NULL};
static const char *const keys_yarn[] = {"factor", "attention_factor", "beta_fast", "beta_slow",
                                        "original_max_position_embeddings", "mscale",
                                        "mscale_all_dim", "truncate", NULL};
static const char *const keys_longrope[] = {"short_factor", "long_factor", "attention_factor",
                                            "factor", "original_max_position_embeddings", NULL};
static const char *const keys_llama3[] = {"factor", "original_max_position_embeddings",
                                          "low_freq_factor", "high_freq_factor", NULL};

/* _validate_*_parameters of modeling_rope_utils.py, plus the two legacy
 * spellings config classes rewrite: Phi3Config "su" -> longrope,
 * Qwen2VLConfig "mrope" -> default (with mrope_section). */
static const rope_type_rule rope_rules[] = {
    {"default", PECERT_ROPE_DEFAULT, keys_default},  {"linear", PECERT_ROPE_LINEAR, keys_factor},
    {"dynamic", PECERT_ROPE_DYNAMIC, keys_dynamic},  {"yarn", PECERT_ROPE_YARN, keys_yarn},
    {"longrope", PECERT_ROPE_LONGROPE, keys_longrope}, {"su", PECERT_ROPE_LONGROPE, keys_longrope},
    {"llama3", PECERT_ROPE_LLAMA3, keys_llama3},     {"mrope", PECERT_ROPE_DEFAULT, keys_default},
};

/* Qwen2-VL and Qwen2.5-VL: M-RoPE text models whose config class takes
 * mrope_section in rope_scaling (rope_config_validation ignore_keys) and
 * nests the text model under text_config when saved by v4.57; their text
 * models' own types (qwen2_vl_text: Qwen2VLTextConfig, the class the
 * wrapper builds) read the same fields at the top level. */
int cfg_is_qwen_vl(const char *model_type)
{
    return strcmp(model_type, "qwen2_vl") == 0 || strcmp(model_type, "qwen2_5_vl") == 0 ||
           strcmp(model_type, "qwen2_vl_text") == 0 || strcmp(model_type, "qwen2_5_vl_text") == 0 ||
           strcmp(model_type, "qwen2_5_omni_thinker") == 0 ||
           cfg_is_qwen3_vl(model_type) || cfg_is_glm4v(model_type);
}

/* GLM-4.1V and GLM-4.5V (Glm4vTextConfig, Glm4vMoeTextConfig): Qwen2-VL's
 * sectioned M-RoPE over part of the head (their apply slices
 * q[..., :rotary_dim]), mrope_section in rope_scaling, which their
 * attention indexes unconditionally; GLM-4.1V pairs adjacent channels
 * (rotate_half_llm on the sections' first half, repeat_interleave'd),
 * GLM-4.5V rotates halves. */
int cfg_is_glm4v(const char *model_type)
{
    return strcmp(model_type, "glm4v") == 0 || strcmp(model_type, "glm4v_text") == 0 ||
           strcmp(model_type, "glm4v_moe") == 0 || strcmp(model_type, "glm4v_moe_text") == 0;
}

int cfg_is_phi3_like(const char *model_type)
{
    return strcmp(model_type, "phi3") == 0 || strcmp(model_type, "phi4_multimodal") == 0;
}

/* Qwen3-VL (Qwen3VLTextRotaryEmbedding, transformers v4.57.6): M-RoPE
 * whose sections are interleaved (apply_interleaved_mrope), always; its
 * MoE sibling (Qwen3VLMoeTextRotaryEmbedding) is the same code, and each
 * text model's own type reads the same fields at the top level. */
int cfg_is_qwen3_vl(const char *model_type)
{
    return strcmp(model_type, "qwen3_vl") == 0 || strcmp(model_type, "qwen3_vl_text") == 0 ||
           strcmp(model_type, "qwen3_vl_moe") == 0 || strcmp(model_type, "qwen3_vl_moe_text") == 0 ||
           strcmp(model_type, "qwen3_omni_moe_thinker") == 0;
}

/* The rotary classes read rope_scaling.get("rope_type", rope_scaling.get(
 * "type")); a config class that copies "type" over "rope_type" first
 * (type_overrides_rope_type) makes the legacy key win when both exist. */
static int scaling_type(map_ctx *c, const cJSON *rs, const rope_type_rule **out)
{
    const char *first = c->type_overrides_rope_type ? "type" : "rope_type";
    const char *second = c->type_overrides_rope_type ? "rope_type" : "type";
    const char *key = cfg_get(rs, first) != NULL ? first : cfg_get(rs, second) != NULL ? second : NULL;
    if (key == NULL && cfg_is_qwen3_vl(c->m->model_type)) { /* rope_scaling.get("rope_type", "default") */
        *out = &rope_rules[0];
        return 0;
    }
    if (key == NULL) {
        return cfg_fail(c, "rope_scaling", "has neither rope_type nor the legacy type");
    }
    const cJSON *v = cfg_get(rs, key);
    char shown[64];
    snprintf(shown, sizeof(shown), "rope_scaling.%s", key);
    if (!cJSON_IsString(v)) {
        return cfg_fail(c, shown, "expected a string");
    }
    /* Phi3Config._rope_scaling_adjustment: type "su" or "yarn" is LongRoPE. */
    const char *name = cfg_is_phi3_like(c->m->model_type) && strcmp(v->valuestring, "yarn") == 0
                           ? "longrope" : v->valuestring;
    for (size_t i = 0; i < sizeof(rope_rules) / sizeof(rope_rules[0]); i++) {
        if (strcmp(name, rope_rules[i].name) == 0) {
            *out = &rope_rules[i];
            snprintf(c->m->rope_type_key, sizeof(c->m->rope_type_key), "%s", key);
            return 0;
        }
    }
    return cfg_fail(c, shown, "unknown rope type '%s'", v->valuestring);
}

/* Every rope_scaling key must belong to the type (HF only warns). */
static int check_scaling_keys(map_ctx *c, const cJSON *rs, const rope_type_rule *rule)
{
    const cJSON *item = NULL;
    cJSON_ArrayForEach(item, rs) {
        const char *k = item->string;
        int ok = strcmp(k, "rope_type") == 0 || strcmp(k, "type") == 0 || cfg_in_list(k, rule->keys) ||
                 (strcmp(k, "mrope_section") == 0 && cfg_is_qwen_vl(c->m->model_type)) ||
                 (strcmp(k, "mrope_interleaved") == 0 && cfg_is_qwen3_vl(c->m->model_type)) ||
                 (strcmp(k, "interleaved") == 0 && strcmp(c->m->model_type, "qwen3_omni_moe_thinker") == 0);
        if (!ok) {
            char shown[160];
            snprintf(shown, sizeof(shown), "rope_scaling.%s", k);
            return cfg_fail(c, shown, "not a key of rope type '%s' (pecert refuses what it cannot certify)",
                            rule->name);
        }
    }
    return 0;
}

static int read_factor_list(map_ctx *c, const cJSON *rs, const char *key, double *out)
{
    const cJSON *v = cfg_get(rs, key);
    char shown[64];
    snprintf(shown, sizeof(shown), "rope_scaling.%s", key);
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    if (c->m->rope.rotary_dim / 2 > PECERT_CERTIFY_MAX_FACTORS) {
        return cfg_fail(c, shown, "rotary_dim/2 = %d factors: pecert holds at most %d", c->m->rope.rotary_dim / 2,
                        PECERT_CERTIFY_MAX_FACTORS);
    }
    if (n != c->m->rope.rotary_dim / 2) {
        return cfg_fail(c, shown, "expected a list of rotary_dim/2 = %d numbers", c->m->rope.rotary_dim / 2);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(e) || !(e->valuedouble > 0) || !isfinite(e->valuedouble)) {
            return cfg_fail(c, shown, "element %d is not a positive number", i);
        }
        out[i] = e->valuedouble;
    }
    return 0;
}

/* The scalar rope_scaling keys. transformers v4.57.6 (modeling_rope_utils.py)
 * raises on none of their values: _validate_*_parameters only warns
 * (factor < 1, attention_factor < 0) and the _compute_* functions compute.
 * So any finite value is read, with three exceptions where the official
 * code raises or yields no finite frequency, each refused with the reason:
 * a beta < 0 (find_correction_dim's math.log raises ValueError; 0 means
 * "the default", `get(key) or 32`), a freq factor <= 0 (llama3's
 * old_context_len / low_freq_factor raises ZeroDivisionError at 0; a
 * negative one inverts the wavelength bands, which pecert refuses rather
 * than certify), and a factor <= 0 (inv_freq / factor is infinite or
 * negative). */
static int read_scaling_numbers(map_ctx *c, const cJSON *rs)
{
    pecert_rope_config *r = &c->m->rope;
    int64_t omp = 0;
    int truncate = 1;
    int rc = 0;
    r->present |= cfg_read_num(c, rs, "factor", "rope_scaling.factor", DBL_TRUE_MIN, DBL_MAX, &r->factor) == 1
                      ? PECERT_ROPE_HAS_FACTOR : 0u;
    rc = cfg_read_int(c, rs, "original_max_position_embeddings",
                      "rope_scaling.original_max_position_embeddings", 1, (int64_t)1 << 40, &omp);
    r->present |= rc == 1 ? PECERT_ROPE_HAS_ORIGINAL_MAX_POS : 0u;
    r->original_max_position_embeddings = rc == 1 ? omp : r->original_max_position_embeddings;
    r->present |= cfg_read_num(c, rs, "attention_factor", "rope_scaling.attention_factor", -DBL_MAX, DBL_MAX,
                               &r->attention_factor) == 1 ? PECERT_ROPE_HAS_ATTENTION_FACTOR : 0u;
    r->present |= cfg_read_num(c, rs, "beta_fast", "rope_scaling.beta_fast", 0, DBL_MAX, &r->beta_fast) == 1
                      ? PECERT_ROPE_HAS_BETA_FAST : 0u;
    r->present |= cfg_read_num(c, rs, "beta_slow", "rope_scaling.beta_slow", 0, DBL_MAX, &r->beta_slow) == 1
                      ? PECERT_ROPE_HAS_BETA_SLOW : 0u;
    r->present |= cfg_read_num(c, rs, "mscale", "rope_scaling.mscale", -DBL_MAX, DBL_MAX, &r->mscale) == 1
                      ? PECERT_ROPE_HAS_MSCALE : 0u;
    r->present |= cfg_read_num(c, rs, "mscale_all_dim", "rope_scaling.mscale_all_dim", -DBL_MAX, DBL_MAX,
                               &r->mscale_all_dim) == 1 ? PECERT_ROPE_HAS_MSCALE_ALL_DIM : 0u;
    r->present |= cfg_read_num(c, rs, "low_freq_factor", "rope_scaling.low_freq_factor", DBL_TRUE_MIN, DBL_MAX,
                               &r->low_freq_factor) == 1 ? PECERT_ROPE_HAS_LOW_FREQ_FACTOR : 0u;
    r->present |= cfg_read_num(c, rs, "high_freq_factor", "rope_scaling.high_freq_factor", DBL_TRUE_MIN, DBL_MAX,
                               &r->high_freq_factor) == 1 ? PECERT_ROPE_HAS_HIGH_FREQ_FACTOR : 0u;
    rc = cfg_read_bool(c, rs, "truncate", "rope_scaling.truncate", &truncate);
    r->present |= rc == 1 ? PECERT_ROPE_HAS_TRUNCATE : 0u;
    r->truncate = rc == 1 ? truncate : 0; /* absent: present says so, the field stays 0 */
    return c->err[0] != '\0' ? -1 : 0;
}

/* Cross-key rules: required keys per type, and orderings the formulas
 * need (beta_fast > beta_slow, low < high). What transformers warns
 * about and still computes is a note kept in the model and printed by
 * certify (rope_warn); what certify itself leaves unchecked, cfg_warn. */

/* Only a config class that runs rope_config_validation warns upstream. */
#define rope_warn(c, ...)                                                                              \
    do {                                                                                               \
        if ((c)->runs_validation) {                                                                    \
            cfg_warn((c), __VA_ARGS__);                                                                \
        }                                                                                              \
    } while (0)

static int has_key(const pecert_rope_config *r, uint32_t bit)
{
    return (r->present & bit) != 0;
}

/* _validate_llama3_parameters: the four keys are required (KeyError);
 * high <= low and original >= max_position_embeddings only warn. With
 * high <= low the compute function has no smoothing band (torch.where
 * discards the division by high - low): Llama 4 Scout ships low == high. */
static int check_llama3_rules(map_ctx *c, const pecert_rope_config *r)
{
    const uint32_t need = PECERT_ROPE_HAS_ORIGINAL_MAX_POS | PECERT_ROPE_HAS_LOW_FREQ_FACTOR |
                          PECERT_ROPE_HAS_HIGH_FREQ_FACTOR;
    if ((r->present & need) != need) {
        return cfg_fail(c, "rope_scaling", "llama3 needs original_max_position_embeddings, "
                                           "low_freq_factor and high_freq_factor");
    }
    if (!(r->high_freq_factor > r->low_freq_factor)) {
        rope_warn(c, "rope_scaling.high_freq_factor",
             "%.17g <= low_freq_factor %.17g: transformers warns and computes (no smoothed band)",
             r->high_freq_factor, r->low_freq_factor);
    }
    if (r->original_max_position_embeddings >= r->max_position_embeddings) {
        rope_warn(c, "rope_scaling.original_max_position_embeddings",
             "%lld >= max_position_embeddings %lld: transformers warns and computes",
             (long long)r->original_max_position_embeddings, (long long)r->max_position_embeddings);
    }
    return 0;
}

/* get_mscale(scale, m) = 0.1 * m * log(scale) + 1 for scale > 1. */
static double yarn_mscale(double scale, double m)
{
    return scale <= 1.0 ? 1.0 : 0.1 * m * log(scale) + 1.0;
}

/* _validate_yarn_parameters warns when (beta_fast or 32) < (beta_slow or
 * 1), when attention_factor < 0, and when original_max_position_embeddings
 * is unset or max_position_embeddings / it differs from factor;
 * _compute_yarn_parameters divides by get_mscale(factor, mscale_all_dim)
 * when mscale and mscale_all_dim are both truthy (ZeroDivisionError at 0). */
static int check_yarn_rules(map_ctx *c, const pecert_rope_config *r)
{
    double fast = has_key(r, PECERT_ROPE_HAS_BETA_FAST) && r->beta_fast != 0 ? r->beta_fast : 32.0;
    double slow = has_key(r, PECERT_ROPE_HAS_BETA_SLOW) && r->beta_slow != 0 ? r->beta_slow : 1.0;
    int ratio = has_key(r, PECERT_ROPE_HAS_MSCALE) && r->mscale != 0 && has_key(r, PECERT_ROPE_HAS_MSCALE_ALL_DIM) &&
                r->mscale_all_dim != 0 && !has_key(r, PECERT_ROPE_HAS_ATTENTION_FACTOR);
    if (ratio && yarn_mscale(r->factor, r->mscale_all_dim) == 0.0) {
        return cfg_fail(c, "rope_scaling.mscale_all_dim",
                        "%.17g makes get_mscale(factor, mscale_all_dim) zero: the official code raises "
                        "ZeroDivisionError", r->mscale_all_dim);
    }
    if (fast < slow) {
        rope_warn(c, "rope_scaling.beta_fast", "%.17g < beta_slow %.17g: transformers warns and computes", fast, slow);
    }
    if (!has_key(r, PECERT_ROPE_HAS_ORIGINAL_MAX_POS)) {
        rope_warn(c, "rope_scaling.original_max_position_embeddings",
             "unset: transformers warns and takes max_position_embeddings as the pre-yarn length");
    } else if ((double)r->max_position_embeddings / (double)r->original_max_position_embeddings != r->factor) {
        rope_warn(c, "rope_scaling.factor",
             "%.17g differs from max_position_embeddings / original_max_position_embeddings = %.17g: "
             "transformers warns and uses factor", r->factor,
             (double)r->max_position_embeddings / (double)r->original_max_position_embeddings);
    }
    return 0;
}

/* _validate_longrope_parameters: with a top-level
 * original_max_position_embeddings (Phi-3) it warns that factor should be
 * used instead; without one it warns when factor is missing or < 1 and
 * when attention_factor < 0. */
static void check_longrope_rules(map_ctx *c, const pecert_rope_config *r)
{
    if (has_key(r, PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS)) {
        rope_warn(c, "original_max_position_embeddings",
             "top-level (Phi-3 style): transformers warns that rope_scaling.factor should carry the ratio "
             "instead, and computes factor = max_position_embeddings / it");
        return;
    }
    if (!has_key(r, PECERT_ROPE_HAS_FACTOR)) {
        rope_warn(c, "rope_scaling.factor", "missing: transformers warns and computes");
    }
}

static int check_scaling_rules(map_ctx *c)
{
    const pecert_rope_config *r = &c->m->rope;
    pecert_rope_type t = r->rope_type;
    int needs_factor = t == PECERT_ROPE_LINEAR || t == PECERT_ROPE_DYNAMIC || t == PECERT_ROPE_YARN ||
                       t == PECERT_ROPE_LLAMA3;
    int reads_factor = needs_factor || (t == PECERT_ROPE_LONGROPE && !has_key(r, PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS));
    if (needs_factor && !has_key(r, PECERT_ROPE_HAS_FACTOR)) {
        return cfg_fail(c, "rope_scaling.factor", "required for rope type '%s'",
                        pecert_rope_type_name(t));
    }
    /* Every _validate_* that reads factor warns below 1 (and computes). */
    if (reads_factor && has_key(r, PECERT_ROPE_HAS_FACTOR) && r->factor < 1.0) {
        rope_warn(c, "rope_scaling.factor", "%.17g < 1: transformers warns and computes", r->factor);
    }
    if ((t == PECERT_ROPE_YARN || (t == PECERT_ROPE_LONGROPE && !has_key(r, PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS))) &&
        has_key(r, PECERT_ROPE_HAS_ATTENTION_FACTOR) && r->attention_factor < 0) {
        rope_warn(c, "rope_scaling.attention_factor", "%.17g < 0: transformers warns and computes", r->attention_factor);
    }
    if (t == PECERT_ROPE_LLAMA3) {
        return check_llama3_rules(c, r);
    }
    if (t == PECERT_ROPE_YARN) {
        return check_yarn_rules(c, r);
    }
    if (t == PECERT_ROPE_LONGROPE) {
        check_longrope_rules(c, r);
    }
    return 0;
}

static int read_mrope_section(map_ctx *c, const cJSON *rs)
{
    const cJSON *v = cfg_get(rs, "mrope_section");
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    int sum = 0;
    if (n < 1 || n > PECERT_MROPE_MAX_AXES) {
        return cfg_fail(c, "rope_scaling.mrope_section", "expected a list of 1..%d integers", PECERT_MROPE_MAX_AXES);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(v, i);
        /* Bounded before the cast (found by tests/fuzz/fuzz_config.c: a
         * 4e33 element was an undefined conversion to int32_t). */
        if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble != floor(e->valuedouble) ||
            e->valuedouble > c->m->rope.rotary_dim / 2) {
            return cfg_fail(c, "rope_scaling.mrope_section",
                            "element %d is not an integer in [0, rotary_dim/2 = %d]", i,
                            c->m->rope.rotary_dim / 2);
        }
        c->m->mrope_section[i] = (int32_t)e->valuedouble;
        sum += c->m->mrope_section[i];
    }
    if (sum != c->m->rope.rotary_dim / 2) {
        return cfg_fail(c, "rope_scaling.mrope_section", "sums to %d, expected rotary_dim/2 = %d", sum,
                        c->m->rope.rotary_dim / 2);
    }
    c->m->n_sections = n;
    c->m->kind = PECERT_PE_MROPE;
    return 0;
}

/* rope_scaling (null or absent = default rope). */
int cfg_map_scaling_object(map_ctx *c, const cJSON *rs)
{
    const rope_type_rule *rule = NULL;
    if (rs == NULL) {
        return 0;
    }
    if (!cJSON_IsObject(rs)) {
        return cfg_fail(c, "rope_scaling", "expected an object or null");
    }
    if (scaling_type(c, rs, &rule) != 0 || check_scaling_keys(c, rs, rule) != 0) {
        return -1;
    }
    c->m->rope.rope_type = rule->type;
    if (read_scaling_numbers(c, rs) != 0) {
        return -1;
    }
    if (rule->type == PECERT_ROPE_LONGROPE) {
        if (read_factor_list(c, rs, "short_factor", c->m->short_factor) != 0 ||
            read_factor_list(c, rs, "long_factor", c->m->long_factor) != 0) {
            return -1;
        }
        c->m->rope.num_factors = c->m->rope.rotary_dim / 2;
        c->m->rope.short_factor = c->m->short_factor;
        c->m->rope.long_factor = c->m->long_factor;
    }
    if (cfg_get(rs, "mrope_section") != NULL && read_mrope_section(c, rs) != 0) {
        return -1;
    }
    return check_scaling_rules(c);
}

int cfg_map_rope_scaling(map_ctx *c)
{
    return cfg_map_scaling_object(c, cfg_get(c->root, "rope_scaling"));
}
