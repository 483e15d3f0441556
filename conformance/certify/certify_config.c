/*
 * certify_config.c - config.json -> pecert_certify_model.
 *
 * Source of every rule: transformers v4.57.6 (753d6110), the model's
 * configuration_*.py (which keys it reads, defaults, legacy spellings) and
 * modeling_rope_utils.py (_validate_* key sets per rope_type, the
 * _compute_* functions that consume them).
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "did_you_mean.h"
#include "input_file.h"
#include "json_text.h"
#include "vectors.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
 * nests the text model under text_config when saved by v4.57. */
static int is_qwen_vl(const char *model_type)
{
    return strcmp(model_type, "qwen2_vl") == 0 || strcmp(model_type, "qwen2_5_vl") == 0 ||
           strcmp(model_type, "qwen3_vl") == 0;
}

/* Qwen3-VL (Qwen3VLTextRotaryEmbedding, transformers v4.57.6): M-RoPE
 * whose sections are interleaved (apply_interleaved_mrope), always. */
static int is_qwen3_vl(const char *model_type)
{
    return strcmp(model_type, "qwen3_vl") == 0;
}

/* The rotary classes read rope_scaling.get("rope_type", rope_scaling.get(
 * "type")); a config class that copies "type" over "rope_type" first
 * (type_overrides_rope_type) makes the legacy key win when both exist. */
static int scaling_type(map_ctx *c, const cJSON *rs, const rope_type_rule **out)
{
    const char *first = c->type_overrides_rope_type ? "type" : "rope_type";
    const char *second = c->type_overrides_rope_type ? "rope_type" : "type";
    const char *key = cfg_get(rs, first) != NULL ? first : cfg_get(rs, second) != NULL ? second : NULL;
    if (key == NULL && is_qwen3_vl(c->m->model_type)) { /* rope_scaling.get("rope_type", "default") */
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
    const char *name = strcmp(c->m->model_type, "phi3") == 0 && strcmp(v->valuestring, "yarn") == 0
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
                 (strcmp(k, "mrope_section") == 0 && is_qwen_vl(c->m->model_type)) ||
                 (strcmp(k, "mrope_interleaved") == 0 && is_qwen3_vl(c->m->model_type));
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
static int map_scaling_object(map_ctx *c, const cJSON *rs)
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

static int map_rope_scaling(map_ctx *c)
{
    return map_scaling_object(c, cfg_get(c->root, "rope_scaling"));
}

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
    int rc = rs != NULL ? map_scaling_object(c, rs) : cfg_fail(c, "rope_scaling", "internal: bad default");
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
    if (is_qwen_vl(c->m->model_type) && c->m->kind != PECERT_PE_MROPE) {
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

static int map_layers(map_ctx *c);

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
    int rc = defaulted ? map_default_scaling(c, d->rope_scaling) : map_rope_scaling(c);
    if (rc == 0 && is_qwen3_vl(m->model_type)) {
        rc = map_qwen3_vl_scaling(c);
    }
    if (rc == 0 && strcmp(m->model_type, "deepseek_v3") == 0) {
        warn_deepseek_v3_softmax_scale(c);
    }
    return rc != 0 || require_mrope(c) != 0 ? -1 : map_layers(c);
}

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
static int map_no_rope_layers(map_ctx *c, int32_t default_layers)
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
static int map_gemma3_layers(map_ctx *c)
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
        read_layer_count(c, 26) != 0 || read_sliding_layers(c, 6, kind) != 0) {
        return -1;
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

/* Qwen3-Next: layer_types, or a full-attention layer every
 * full_attention_interval (default 4) layers, the others linear attention
 * (Qwen3NextGatedDeltaNet), which has no positions to encode. The
 * full-attention layers rotate with the config's rope; the others are no
 * attention layer a plugin's rope or session computes, so certify says it
 * leaves them out. */
static int map_linear_attention_layers(map_ctx *c)
{
    int32_t interval = 4;
    int linear = 0;
    if (read_layer_count(c, 48) != 0 ||
        cfg_read_int32(c, c->root, "full_attention_interval", 1, 1 << 16, &interval) < 0) {
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
        linear += list != NULL ? is_linear : (i + 1) % interval != 0;
    }
    if (linear > 0) {
        cfg_warn(c, list != NULL ? "layer_types" : "full_attention_interval",
                 "%d of %d layers are linear attention (Gated DeltaNet, no position encoding): certify checks the "
                 "rotation of the %d full-attention layers", linear, (int)c->m->n_layers, (int)c->m->n_layers - linear);
    }
    return 0;
}

/* The per-layer rule of a Llama-shaped model_type, after its rope is
 * mapped: which layers rotate, and with what. */
static int map_layers(map_ctx *c)
{
    const char *mt = c->m->model_type;
    if (strcmp(mt, "gemma3_text") == 0 || strcmp(mt, "gemma3") == 0) {
        return map_gemma3_layers(c);
    }
    if (strcmp(mt, "smollm3") == 0) {
        return map_no_rope_layers(c, 36);
    }
    if (strcmp(mt, "cohere2") == 0) {
        return map_sliding_rope_layers(c, 40);
    }
    if (strcmp(mt, "exaone4") == 0) {
        return map_sliding_rope_layers(c, 32);
    }
    if (strcmp(mt, "qwen3_next") == 0) {
        return map_linear_attention_layers(c);
    }
    return 0;
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
    return map_rope_scaling(c) != 0 ? -1 : map_no_rope_layers(c, 48);
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
    return map_rope_scaling(c);
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
               : map_rope_scaling(c);
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
    return alpha_path ? map_hunyuan_alpha(c, rs) : map_rope_scaling(c);
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
    if (map == map_llama_like && is_qwen3_vl(model_type)) {
        return "interleaved M-RoPE: text_config's rope_theta, rope_scaling (required) with mrope_section "
               "(default [24, 20, 20]), head_dim";
    }
    if (map == map_llama_like && is_qwen_vl(model_type)) {
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
    } else if (is_qwen3_vl(rule_type)) {
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
    } else if (is_qwen_vl(rule_type) && cfg_get(c->root, "text_config") != NULL &&
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

/* Maps an already parsed document (a profile's "config" object is mapped
 * in place: printing and re-parsing it could round LongRoPE factors). */
static int parse_object(pecert_certify_model *out, const cJSON *root, const char *name, char *err,
                        size_t err_len)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", name);
    err[0] = '\0';
    map_ctx c = {root, out, err, err_len, root, "", 0, 0};
    return root == NULL ? cfg_fail(&c, "(document)", "not valid JSON") : map_document(&c);
}

/* What Python's json and cJSON would read differently is refused before
 * the mapping sees it (json_text.h): duplicate keys (Python keeps the
 * last, cJSON's lookups the first), NUL bytes and \u0000, bad UTF-8. */
/* Python's json, which transformers reads config.json with, keeps the
 * last of two equal keys; cJSON's lookups see the first. */
#define DUPLICATE_KEY_NOTE                                                                                           \
    " (Python's json, which transformers reads config.json with, would keep the last value; pecert refuses the "    \
    "ambiguity)"

int pecert_certify_parse(pecert_certify_model *out, const char *json_text, const char *name,
                         char *err, size_t err_len)
{
    cJSON *root = pecert_json_parse_strict(json_text, strlen(json_text), name, DUPLICATE_KEY_NOTE, err, err_len);
    int rc = -1;
    if (root != NULL) {
        rc = parse_object(out, root, name, err, err_len);
    } else {
        memset(out, 0, sizeof(*out));
    }
    cJSON_Delete(root);
    return rc;
}

/* A config.json or profile: a checkpoint's config is a few KiB. */
#define MAX_CONFIG_BYTES ((size_t)16 << 20)
#define MAX_CONFIG_WORDS "the 16 MiB a config file may have"

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int pecert_certify_profile_names(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 && (names[n] = strdup(e->d_name)) != NULL) {
            names[n++][len - 5] = '\0';
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(names[0]), cmp_name);
    return n;
}

/* " (did you mean 'NAME'?)" for the bundled profile nearest to a mistyped
 * name, or "". */
static void nearest_profile(char *out, size_t len, const char *dir, const char *name)
{
    char *names[512];
    int n = pecert_certify_profile_names(dir, names, 512);
    pecert_did_you_mean(out, len, name, (const char *const *)names, n > 0 ? (size_t)n : 0);
    for (int i = 0; i < n; i++) {
        free(names[i]);
    }
}

const char *pecert_certify_profile_vectors(char *buf, size_t len, const char *vectors_dir, const char *name)
{
    struct stat st;
    snprintf(buf, len, "%s/profiles/%s.json", vectors_dir, name);
    return stat(buf, &st) == 0 ? buf : NULL;
}

int pecert_certify_load(pecert_certify_model *out, const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char *text = pecert_input_read(path, MAX_CONFIG_BYTES, MAX_CONFIG_WORDS, &len, err, err_len);
    if (text == NULL) {
        memset(out, 0, sizeof(*out));
        return -1;
    }
    if (strlen(text) != len) { /* the parse would stop there, unseen */
        memset(out, 0, sizeof(*out));
        snprintf(err, err_len, "%s: NUL byte at offset %zu", path, strlen(text));
        free(text);
        return -1;
    }
    int rc = pecert_certify_parse(out, text, path, err, err_len);
    free(text);
    return rc;
}

const char *pecert_pe_kind_name(pecert_pe_kind kind)
{
    static const char *const names[] = {"rope", "mrope", "alibi", "t5", "learned", "rope2d"};
    return kind >= PECERT_PE_ROPE && kind <= PECERT_PE_ROPE2D ? names[kind] : "?";
}

/* ---- the derived parameters, as `pecert certify` prints them ---------- */

typedef struct text_buf {
    char *out;
    size_t len;
    size_t used;
} text_buf;

static void put(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text_buf *b, const char *fmt, ...)
{
    if (b->used + 1 >= b->len) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->out + b->used, b->len - b->used, fmt, ap);
    va_end(ap);
    if (n > 0) {
        b->used += (size_t)n < b->len - b->used ? (size_t)n : b->len - b->used - 1;
    }
}

/* What _compute_yarn_parameters (transformers v4.57.6) reads for the
 * keys a YaRN config leaves out, or sets to a falsy value: beta_fast and
 * beta_slow are read as `get(...) or 32` and `or 1` (so 0 is the default
 * too), truncate as `get("truncate", True)`. A porter must see the values
 * the checkpoint runs with, not only those its config spells out. */
static void describe_yarn_defaults(text_buf *b, const pecert_rope_config *r)
{
    if (r->rope_type != PECERT_ROPE_YARN) {
        return;
    }
    if (!(r->present & PECERT_ROPE_HAS_BETA_FAST)) {
        put(b, "  %-34s 32 (default)\n", "beta_fast");
    } else if (r->beta_fast == 0.0) {
        put(b, "  %-34s 32 (0 in the config reads as the default: `or 32`)\n", "beta_fast");
    }
    if (!(r->present & PECERT_ROPE_HAS_BETA_SLOW)) {
        put(b, "  %-34s 1 (default)\n", "beta_slow");
    } else if (r->beta_slow == 0.0) {
        put(b, "  %-34s 1 (0 in the config reads as the default: `or 1`)\n", "beta_slow");
    }
    if (!(r->present & PECERT_ROPE_HAS_TRUNCATE)) {
        put(b, "  %-34s true (default)\n", "truncate");
    }
}

/* The rope_scaling values that are present, "-" otherwise. */
static void describe_scaling(text_buf *b, const pecert_rope_config *r)
{
    static const struct { uint32_t bit; const char *name; size_t off; } fields[] = {
        {PECERT_ROPE_HAS_FACTOR, "factor", offsetof(pecert_rope_config, factor)},
        {PECERT_ROPE_HAS_ATTENTION_FACTOR, "attention_factor", offsetof(pecert_rope_config, attention_factor)},
        {PECERT_ROPE_HAS_BETA_FAST, "beta_fast", offsetof(pecert_rope_config, beta_fast)},
        {PECERT_ROPE_HAS_BETA_SLOW, "beta_slow", offsetof(pecert_rope_config, beta_slow)},
        {PECERT_ROPE_HAS_MSCALE, "mscale", offsetof(pecert_rope_config, mscale)},
        {PECERT_ROPE_HAS_MSCALE_ALL_DIM, "mscale_all_dim", offsetof(pecert_rope_config, mscale_all_dim)},
        {PECERT_ROPE_HAS_LOW_FREQ_FACTOR, "low_freq_factor", offsetof(pecert_rope_config, low_freq_factor)},
        {PECERT_ROPE_HAS_HIGH_FREQ_FACTOR, "high_freq_factor", offsetof(pecert_rope_config, high_freq_factor)},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (r->present & fields[i].bit) {
            double v;
            memcpy(&v, (const char *)r + fields[i].off, sizeof(v));
            put(b, "  %-34s %.17g\n", fields[i].name, v);
        }
    }
    if (r->present & PECERT_ROPE_HAS_TRUNCATE) {
        put(b, "  %-34s %s\n", "truncate", r->truncate ? "true" : "false");
    }
    describe_yarn_defaults(b, r);
    if (r->present & PECERT_ROPE_HAS_ORIGINAL_MAX_POS) {
        put(b, "  %-34s %lld (rope_scaling)\n", "original_max_position_embeddings",
            (long long)r->original_max_position_embeddings);
    }
    if (r->present & PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS) {
        put(b, "  %-34s %lld (top level)\n", "original_max_position_embeddings",
            (long long)r->original_max_position_embeddings);
    }
    if (r->num_factors > 0) {
        put(b, "  %-34s %d each (short %.6g .. %.6g, long %.6g .. %.6g)\n", "short_factor/long_factor",
            r->num_factors, r->short_factor[0], r->short_factor[r->num_factors - 1], r->long_factor[0],
            r->long_factor[r->num_factors - 1]);
    }
}

static void describe_rope(text_buf *b, const pecert_certify_model *m)
{
    const pecert_rope_config *r = &m->rope;
    put(b, "  %-34s %s%s%s%s\n", "rope_type", pecert_rope_type_name(r->rope_type),
        m->rope_type_key[0] != '\0' ? " (from rope_scaling." : "", m->rope_type_key,
        m->rope_type_key[0] != '\0' ? ")" : "");
    put(b, "  %-34s %.17g\n", "rope_theta", r->rope_theta);
    put(b, "  %-34s %d of head_dim %d\n", "rotary_dim", r->rotary_dim, r->head_dim);
    put(b, "  %-34s %s\n", "pairing",
        m->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved (2i, 2i+1)" : "split_half (i, i + rotary_dim/2)");
    put(b, "  %-34s %lld\n", "max_position_embeddings", (long long)m->max_position_embeddings);
    describe_scaling(b, r);
    for (int i = 0; i < m->n_sections; i++) {
        put(b, "%s%d%s", i == 0 ? "  mrope_section                      [" : ", ", m->mrope_section[i],
            i + 1 == m->n_sections ? "]\n" : "");
    }
    if (m->kind == PECERT_PE_MROPE) {
        put(b, "  %-34s %s\n", "mrope layout",
            m->mrope_interleaved ? "interleaved (t h w t h w ..., Qwen3-VL)" : "blocks (t..t h..h w..w, Qwen2-VL)");
    }
}

void pecert_certify_layer_ranges(char *out, size_t len, const pecert_certify_model *m, int t)
{
    text_buf b = {out, len, 0};
    if (len > 0) {
        out[0] = '\0';
    }
    for (int32_t i = 0; i < m->n_layers; i++) {
        if (m->layer_type_of[i] != t || (i > 0 && m->layer_type_of[i - 1] == t)) {
            continue;
        }
        int32_t last = i;
        while (last + 1 < m->n_layers && m->layer_type_of[last + 1] == t) {
            last++;
        }
        put(&b, last > i ? "%s%d-%d" : "%s%d", b.used > 0 ? ", " : "", (int)i, (int)last);
    }
}

/* A layer type's encoding in a few words: "NoPE (no rotation)",
 * "rope_theta 10000, default", "rope_theta 1e+06, linear factor 8". */
static void layer_encoding(char *out, size_t len, const pecert_rope_config *r)
{
    if (r->layer_kind == PECERT_LAYER_NOPE) {
        snprintf(out, len, "NoPE (no rotation)");
        return;
    }
    char factor[48] = "";
    if (r->present & PECERT_ROPE_HAS_FACTOR) {
        snprintf(factor, sizeof(factor), " factor %g", r->factor);
    }
    snprintf(out, len, "rope_theta %.17g, %s%s", r->rope_theta, pecert_rope_type_name(r->rope_type), factor);
}

/* The layer types, their layers and encodings. */
static void describe_layers(text_buf *b, const pecert_certify_model *m)
{
    if (m->n_layer_types == 0) {
        return;
    }
    put(b, "  %-34s %d:", "layers", (int)m->n_layers);
    for (int t = 0; t < m->n_layer_types; t++) {
        put(b, "%s %s %d", t == 0 ? "" : ",", m->layer_types[t].name, (int)m->layer_types[t].n_layers);
    }
    put(b, "\n");
    for (int t = 0; t < m->n_layer_types; t++) {
        char title[64], ranges[1024], encoding[128];
        snprintf(title, sizeof(title), "layer type %s", m->layer_types[t].name);
        pecert_certify_layer_ranges(ranges, sizeof(ranges), m, t);
        layer_encoding(encoding, sizeof(encoding), &m->layer_types[t].rope);
        put(b, "  %-34s %s; layers %s\n", title, encoding, ranges);
    }
}

size_t pecert_certify_describe(char *out, size_t len, const pecert_certify_model *m)
{
    text_buf b = {out, len, 0};
    if (len > 0) {
        out[0] = '\0';
    }
    put(&b, "  %-34s %s\n", "model_type", m->model_type);
    put(&b, "  %-34s %s\n", "positional encoding", pecert_pe_kind_name(m->kind));
    put(&b, "  %-34s %d query, %d key/value, head_dim %d\n", "heads", m->num_heads, m->num_kv_heads,
        m->head_dim);
    switch (m->kind) {
    case PECERT_PE_ROPE:
    case PECERT_PE_MROPE:
        describe_rope(&b, m);
        describe_layers(&b, m);
        break;
    case PECERT_PE_ALIBI:
        put(&b, "  %-34s %g\n", "alibi max_bias", m->alibi_max_bias);
        if (m->alibi_bias_scale != 1.0) {
            put(&b, "  %-34s %.9g (1/sqrt(head_dim): the bias is added to q.k before the score scale)\n",
                "alibi bias scale", m->alibi_bias_scale);
        }
        if (m->alibi_bf16_reference) {
            put(&b, "  %-34s %s\n", "alibi reference precision",
                "bfloat16 slopes and bias (the model's code rounds them; exact ones pass too)");
        }
        break;
    case PECERT_PE_T5:
        put(&b, "  %-34s %d buckets, max_distance %lld\n", "relative_attention", m->t5_num_buckets,
            (long long)m->t5_max_distance);
        break;
    case PECERT_PE_LEARNED:
        put(&b, "  %-34s %lld rows x %d\n", "learned table", (long long)m->learned_rows, m->learned_dim);
        break;
    case PECERT_PE_ROPE2D:
        break;
    }
    b.used = cfg_describe_vision(out, len, b.used, m);
    return b.used;
}

void pecert_certify_point_factors(pecert_certify_model *m)
{
    m->rope.short_factor = m->rope.num_factors > 0 ? m->short_factor : NULL;
    m->rope.long_factor = m->rope.num_factors > 0 ? m->long_factor : NULL;
}

int64_t pecert_certify_l0(const pecert_certify_model *m)
{
    int64_t original = m->kind <= PECERT_PE_MROPE ? pecert_rope_original_length(&m->rope) : 0;
    return original > 0 ? original : m->max_position_embeddings;
}

/* ---- profiles ----------------------------------------------------------- */

static int profile_keys_ok(const cJSON *root, const char *path, char *err, size_t err_len)
{
    static const char *const keys[] = {"name", "model", "source", "config", NULL};
    const cJSON *item = NULL;
    if (!cJSON_IsObject(root)) {
        snprintf(err, err_len, "%s: expected a JSON object", path);
        return -1;
    }
    cJSON_ArrayForEach(item, root) {
        if (!cfg_in_list(item->string, keys)) {
            snprintf(err, err_len, "%s: %s: unknown profile key (name, model, source, config)", path, item->string);
            return -1;
        }
    }
    for (size_t i = 0; keys[i] != NULL; i++) {
        const cJSON *v = cfg_get(root, keys[i]);
        if (v == NULL || (i < 3 ? !cJSON_IsString(v) : !cJSON_IsObject(v))) {
            snprintf(err, err_len, "%s: %s: required (%s)", path, keys[i], i < 3 ? "a string" : "an object");
            return -1;
        }
    }
    return 0;
}

/* A profile name is a file name: letters, digits, '.', '-', '_'. */
static int valid_profile_name(const char *name)
{
    if (name[0] == '\0' || name[0] == '.' || strlen(name) >= PECERT_CERTIFY_NAME_LEN) {
        return 0;
    }
    for (const char *p = name; *p != '\0'; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '-' || *p == '_')) {
            return 0;
        }
    }
    return 1;
}

int pecert_certify_load_profile(pecert_certify_model *out, const char *dir, const char *name, char *err,
                                size_t err_len)
{
    char path[4096];
    memset(out, 0, sizeof(*out));
    if (!valid_profile_name(name)) {
        snprintf(err, err_len, "--profile '%s': not a profile name (see `pecert certify --list-profiles`)", name);
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%s.json", dir, name);
    size_t len = 0;
    char *text = pecert_input_read(path, MAX_CONFIG_BYTES, MAX_CONFIG_WORDS, &len, err, err_len);
    cJSON *root = NULL;
    int rc = -1;
    if (text == NULL && errno == ENOENT) {
        char hint[160];
        nearest_profile(hint, sizeof(hint), dir, name);
        snprintf(err, err_len, "%s: no such profile%s (see `pecert certify --list-profiles`)", path, hint);
    } else if (text == NULL) {
        /* err says why */
    } else if (strlen(text) != len) {
        snprintf(err, err_len, "%s: NUL byte at offset %zu", path, strlen(text));
    } else if ((root = pecert_json_parse_strict(text, len, path, NULL, err, err_len)) == NULL) {
        /* err says why */
    } else if (profile_keys_ok(root, path, err, err_len) == 0) {
        if (strcmp(cfg_get(root, "name")->valuestring, name) != 0) {
            snprintf(err, err_len, "%s: name: '%s' differs from the file name", path,
                     cfg_get(root, "name")->valuestring);
        } else {
            rc = parse_object(out, cfg_get(root, "config"), name, err, err_len);
        }
    }
    cJSON_Delete(root);
    free(text);
    return rc;
}

void pecert_certify_label(char *out, size_t len, const pecert_certify_model *m)
{
    const pecert_rope_config *r = &m->rope;
    switch (m->kind) {
    case PECERT_PE_ROPE:
    case PECERT_PE_MROPE: {
        char factor[48] = "";
        if (r->present & PECERT_ROPE_HAS_FACTOR) {
            snprintf(factor, sizeof(factor), " factor=%g", r->factor);
        }
        snprintf(out, len, "%s%s theta=%g rot=%d/%d %s%s L0=%lld max_pos=%lld",
                 m->kind != PECERT_PE_MROPE ? "" : m->mrope_interleaved ? "mrope-interleaved " : "mrope ",
                 pecert_rope_type_name(r->rope_type),
                 r->rope_theta, r->rotary_dim, r->head_dim,
                 m->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved" : "split_half", factor,
                 (long long)pecert_certify_l0(m), (long long)m->max_position_embeddings);
        for (int t = 0; t < m->n_layer_types; t++) {
            char encoding[128];
            size_t used = strlen(out);
            layer_encoding(encoding, sizeof(encoding), &m->layer_types[t].rope);
            snprintf(out + used, len - used, "%s%s x%d: %s", t == 0 ? "; layers " : "; ", m->layer_types[t].name,
                     (int)m->layer_types[t].n_layers, encoding);
        }
        break;
    }
    case PECERT_PE_ALIBI:
        snprintf(out, len, "alibi heads=%d max_bias=%g%s", m->num_heads, m->alibi_max_bias,
                 m->alibi_bias_scale != 1.0 ? " bias/sqrt(head_dim)" : "");
        break;
    case PECERT_PE_T5:
        snprintf(out, len, "t5 buckets=%d max_distance=%lld", m->t5_num_buckets, (long long)m->t5_max_distance);
        break;
    case PECERT_PE_LEARNED:
        snprintf(out, len, "learned %lldx%d", (long long)m->learned_rows, m->learned_dim);
        break;
    case PECERT_PE_ROPE2D: {
        const pecert_certify_vision *v = &m->vision;
        snprintf(out, len, "rope2d %s %s %s-first %s theta=%g head_dim=%d", v->tower,
                 v->frequencies == PECERT_ROPE2D_BLOCKS ? "blocks" : "alternate", v->columns_first ? "columns" : "rows",
                 v->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved" : "split_half", v->theta, v->head_dim);
        break;
    }
    }
}
