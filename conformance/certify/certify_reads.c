/*
 * certify_reads.c - typed reads of a config.json for certify's mapping
 * (certify_reads.h).
 */
#include "certify_reads.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


int cfg_fail(map_ctx *c, const char *key, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(c->err, c->err_len, "%s: %s%s%s: %s", c->m->name, c->doc_prefix != NULL ? c->doc_prefix : "",
             c->key_prefix != NULL ? c->key_prefix : "", key, what);
    return -1;
}

/* ---- typed reads: absent keys keep *out (the default) ------------------ */

const cJSON *cfg_get(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return v != NULL && !cJSON_IsNull(v) ? v : NULL;
}

/* A finite number in [lo, hi]. */
int cfg_read_num(map_ctx *c, const cJSON *obj, const char *key, const char *shown, double lo, double hi,
                 double *out)
{
    const cJSON *v = cfg_get(obj, key);
    if (v == NULL) {
        return 0;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        return cfg_fail(c, shown, "expected a number");
    }
    if (v->valuedouble < lo && lo == DBL_TRUE_MIN) {
        return cfg_fail(c, shown, "%.17g must be > 0", v->valuedouble);
    }
    if (v->valuedouble < lo && hi == DBL_MAX) {
        return cfg_fail(c, shown, "%.17g must be >= %g", v->valuedouble, lo);
    }
    if (v->valuedouble < lo || v->valuedouble > hi) {
        return cfg_fail(c, shown, "%g is out of range [%g, %g]", v->valuedouble, lo, hi);
    }
    *out = v->valuedouble;
    return 1;
}

/* An integer in [lo, hi] (JSON numbers like 4096.0 are accepted). */
int cfg_read_int(map_ctx *c, const cJSON *obj, const char *key, const char *shown, int64_t lo, int64_t hi,
                 int64_t *out)
{
    double d = 0;
    int rc = cfg_read_num(c, obj, key, shown, (double)lo, (double)hi, &d);
    if (rc == 1 && d != floor(d)) {
        return cfg_fail(c, shown, "%g is not an integer", d);
    }
    if (rc == 1) {
        *out = (int64_t)d;
    }
    return rc;
}

int cfg_read_int32(map_ctx *c, const cJSON *obj, const char *key, int64_t lo, int64_t hi, int32_t *out)
{
    int64_t v = *out;
    int rc = cfg_read_int(c, obj, key, key, lo, hi, &v);
    *out = (int32_t)v;
    return rc;
}

/* An image's or a patch's side: an integer, or [height, width] (the
 * vision configs that take a pair, InternVLVisionConfig's image_size and
 * patch_size) with the two equal: the towers resize a square table. */
int cfg_read_side(map_ctx *c, const cJSON *obj, const char *key, int64_t lo, int64_t hi, int32_t *out)
{
    const cJSON *v = cfg_get(obj, key);
    if (v == NULL || !cJSON_IsArray(v)) {
        return cfg_read_int32(c, obj, key, lo, hi, out);
    }
    const cJSON *h = cJSON_GetArrayItem(v, 0), *w = cJSON_GetArrayItem(v, 1);
    if (cJSON_GetArraySize(v) != 2 || !cJSON_IsNumber(h) || !cJSON_IsNumber(w)) {
        return cfg_fail(c, key, "expected an integer or [height, width]");
    }
    if (h->valuedouble != w->valuedouble) {
        return cfg_fail(c, key, "[%g, %g]: pecert certifies square sides only (the tower's table is a square "
                        "grid, resized as one)", h->valuedouble, w->valuedouble);
    }
    if (h->valuedouble != floor(h->valuedouble) || h->valuedouble < (double)lo || h->valuedouble > (double)hi) {
        return cfg_fail(c, key, "[%g, %g]: each side must be an integer in [%lld, %lld]", h->valuedouble,
                        w->valuedouble, (long long)lo, (long long)hi);
    }
    *out = (int32_t)h->valuedouble;
    return 1;
}

/* static_position_embeddings: a key of BartConfig and its kin in
 * transformers 3 (true: a sinusoidal table, false: a learned one) that
 * released config.json files of mBART, Marian and Pegasus still carry and
 * that no class of v4.57.6 reads: each builds its one kind of table.
 * Accepted where it says what the class does; refused where it does not
 * (a port that follows the key builds the other table). */
int cfg_check_static_positions(map_ctx *c, int sinusoidal)
{
    int stated = sinusoidal;
    int rc = cfg_read_bool(c, c->root, "static_position_embeddings", "static_position_embeddings", &stated);
    if (rc < 0 || stated == sinusoidal) {
        return rc < 0 ? -1 : 0;
    }
    return cfg_fail(c, "static_position_embeddings", "%s: a transformers-3 key read by nothing in v4.57.6, whose "
                    "%s builds a %s table whatever it says", stated ? "true" : "false", c->m->model_type,
                    sinusoidal ? "sinusoidal" : "learned");
}

int cfg_read_bool(map_ctx *c, const cJSON *obj, const char *key, const char *shown, int *out)
{
    const cJSON *v = cfg_get(obj, key);
    if (v == NULL) {
        return 0;
    }
    if (!cJSON_IsBool(v)) {
        return cfg_fail(c, shown, "expected true or false");
    }
    *out = cJSON_IsTrue(v);
    return 1;
}

/* ---- which keys are positional ----------------------------------------- */

/* A key whose name says it configures positions must be understood. */
int cfg_is_positional_name(const char *key)
{
    static const char *const words[] = {"rope", "rotary", "position", "alibi",
                                        "relative_attention", "pos_emb", "mrope"};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strstr(key, words[i]) != NULL) {
            return 1;
        }
    }
    return 0;
}

int cfg_in_list(const char *key, const char *const *list)
{
    for (; *list != NULL; list++) {
        if (strcmp(key, *list) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Every positional key of obj must be in known; prefix names obj. */
int cfg_reject_unknown_positional(map_ctx *c, const cJSON *obj, const char *const *known, const char *prefix)
{
    static const char *const none[] = {NULL};
    return cfg_reject_unknown_positional_of(c, obj, known, none, prefix);
}

int cfg_reject_unknown_positional_of(map_ctx *c, const cJSON *obj, const char *const *known,
                                     const char *const *also, const char *prefix)
{
    const cJSON *item = NULL;
    cJSON_ArrayForEach(item, obj) {
        if (item->string != NULL && cfg_is_positional_name(item->string) && !cfg_in_list(item->string, known) &&
            !cfg_in_list(item->string, also)) {
            char shown[160];
            snprintf(shown, sizeof(shown), "%s%s", prefix, item->string);
            return cfg_fail(c, shown, "pecert does not know this positional key for model_type '%s'",
                        c->m->model_type);
        }
    }
    return 0;
}

void cfg_warn(map_ctx *c, const char *key, const char *fmt, ...)
{
    pecert_certify_model *m = c->m;
    if (m->n_warnings == PECERT_CERTIFY_MAX_WARNINGS) {
        return;
    }
    char what[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(m->warnings[m->n_warnings++], sizeof(m->warnings[0]), "%s%s%s: %s",
             c->doc_prefix != NULL ? c->doc_prefix : "", c->key_prefix != NULL ? c->key_prefix : "", key, what);
}

/* ---- readers every model family shares ---------------------------------- */

/* Head geometry: head_dim, else hidden_size / num_attention_heads (key
 * names differ per model family). */
int cfg_read_heads(map_ctx *c, const char *hidden_key, const char *heads_key, const char *kv_key)
{
    return cfg_read_heads_or(c, hidden_key, heads_key, kv_key, 0, 0);
}

int cfg_read_heads_or(map_ctx *c, const char *hidden_key, const char *heads_key, const char *kv_key,
                      int32_t hidden_default, int32_t heads_default)
{
    pecert_certify_model *m = c->m;
    int32_t hidden = hidden_default;
    m->num_heads = heads_default;
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

int cfg_read_decoder_table(map_ctx *c, const char *rows_key, int32_t width)
{
    pecert_certify_model *m = c->m;
    if (cfg_read_int(c, c->root, rows_key, rows_key, 1, (int64_t)1 << 32, &m->decoder_learned_rows) < 0) {
        return -1;
    }
    if (m->decoder_learned_rows < 1) {
        return cfg_fail(c, rows_key, "required");
    }
    m->decoder_learned_dim = width;
    return 0;
}

/* rotary_dim = int(head_dim * partial_rotary_factor) (HF
 * _compute_default_rope_parameters), even. */
int cfg_set_rotary_dim(map_ctx *c, double partial, const char *key)
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
int cfg_read_rope_common(map_ctx *c, const char *theta_key, double theta_default)
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

int32_t cfg_square_side(int32_t n)
{
    int32_t side = 0;
    while ((int64_t)(side + 1) * (side + 1) <= n) {
        side++;
    }
    return side;
}
