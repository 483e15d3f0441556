/*
 * certify_checks.c - one checkpoint's parameters, checked against `ref`
 * (the oracle) and, through the profile vectors, against the official code.
 *
 * The registry's property checks run at a checkpoint's parameters through
 * certify's plan (they sweep the configs of the files they are given); the
 * checks here add what only a checkpoint fixes: its pairing, its head
 * count, its lengths (L0-1, L0, L0+1, max_position_embeddings-1, far), and
 * the agreement of pecert's config.json mapping with the configuration the
 * official model class built from the same file.
 */
#include "certify_checks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "family.h"
#include "family_tol.h"
#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

/* A far position: past every trained length, where float32 angles lose
 * digits (2^20, as the property checks use). */
#define FAR_POSITION ((int64_t)1 << 20)
/* Heads per rope apply case: two are enough to catch a head-stride bug. */
#define APPLY_HEADS 2

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

size_t pecert_certify_lengths(const pecert_certify_model *m, int64_t out[6])
{
    int64_t l0 = pecert_certify_l0(m);
    int64_t mp = m->max_position_embeddings;
    int64_t cand[6] = {l0 - 1, l0, l0 + 1, mp - 1, mp > FAR_POSITION / 4 ? 4 * mp : FAR_POSITION, 0};
    size_t n = 0;
    qsort(cand, 5, sizeof(cand[0]), cmp_i64);
    for (size_t i = 0; i < 5; i++) {
        if (cand[i] >= 1 && (n == 0 || out[n - 1] != cand[i])) {
            out[n++] = cand[i];
        }
    }
    return n;
}

/* ---- certify.mapping ---------------------------------------------------- */

/* One field of the derived config against the official code's. */
static void compare_field(pecert_check_result *r, const char *where, const char *field, double mine,
                          double official)
{
    if (mine != official && !(isnan(mine) && isnan(official))) {
        pecert_case_fail(r, where, "%s: pecert derived %.17g, the official config class %.17g", field,
                         mine, official);
    } else {
        char what[160];
        snprintf(what, sizeof(what), "%s equals the official config class's (%.17g)", field, official);
        pecert_case_passed(r, where, what);
    }
}

static void compare_factors(pecert_check_result *r, const char *where, const char *field,
                            const double *mine, const double *official, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        if (mine[i] != official[i]) {
            char name[64];
            snprintf(name, sizeof(name), "%s[%d]", field, i);
            compare_field(r, where, name, mine[i], official[i]);
            return;
        }
    }
}

/* Every field pecert_rope_config carries, by name. */
static void compare_rope(pecert_check_result *r, const char *where, const pecert_rope_config *a,
                         const pecert_rope_config *b)
{
    compare_field(r, where, "rope_type", a->rope_type, b->rope_type);
    compare_field(r, where, "present", a->present, b->present);
    compare_field(r, where, "head_dim", a->head_dim, b->head_dim);
    compare_field(r, where, "rotary_dim", a->rotary_dim, b->rotary_dim);
    compare_field(r, where, "truncate", a->truncate, b->truncate);
    compare_field(r, where, "rope_theta", a->rope_theta, b->rope_theta);
    compare_field(r, where, "factor", a->factor, b->factor);
    compare_field(r, where, "max_position_embeddings", (double)a->max_position_embeddings,
                  (double)b->max_position_embeddings);
    compare_field(r, where, "original_max_position_embeddings", (double)a->original_max_position_embeddings,
                  (double)b->original_max_position_embeddings);
    compare_field(r, where, "attention_factor", a->attention_factor, b->attention_factor);
    compare_field(r, where, "beta_fast", a->beta_fast, b->beta_fast);
    compare_field(r, where, "beta_slow", a->beta_slow, b->beta_slow);
    compare_field(r, where, "mscale", a->mscale, b->mscale);
    compare_field(r, where, "mscale_all_dim", a->mscale_all_dim, b->mscale_all_dim);
    compare_field(r, where, "low_freq_factor", a->low_freq_factor, b->low_freq_factor);
    compare_field(r, where, "high_freq_factor", a->high_freq_factor, b->high_freq_factor);
    compare_field(r, where, "num_factors", a->num_factors, b->num_factors);
    if (a->num_factors == b->num_factors && a->num_factors > 0 && b->short_factor != NULL &&
        b->long_factor != NULL) {
        compare_factors(r, where, "short_factor", a->short_factor, b->short_factor, a->num_factors);
        compare_factors(r, where, "long_factor", a->long_factor, b->long_factor, a->num_factors);
    }
}

/* A relpos2d test recorded from one of the model's attention layers: its
 * tables' rows are 2 side - 1 of a grid pecert maps (each axis' rows, the
 * query grid that grid or a one-patch strip of it: gen_profiles records a
 * global grid as strips), and its channels the heads' width. */
static void compare_relpos2d(pecert_check_result *r, const char *where, const pecert_vtest *t,
                             const pecert_certify_model *m)
{
    const pecert_vtensor *th = pecert_vtest_input(t, "rel_pos_h");
    const pecert_vtensor *tw = pecert_vtest_input(t, "rel_pos_w");
    int64_t q_h = pecert_vtest_int(t, "q_h", 0), q_w = pecert_vtest_int(t, "q_w", 0);
    for (int k = 0; th != NULL && tw != NULL && k < m->relpos2d_n_grids; k++) {
        int64_t h = m->relpos2d_grid[k][0], w = m->relpos2d_grid[k][1];
        if (th->shape[0] == 2 * h - 1 && tw->shape[0] == 2 * w - 1 && (q_h == h || q_h == 1) &&
            (q_w == w || q_w == 1)) {
            char field[96];
            snprintf(field, sizeof(field), "%s attention's head width", m->relpos2d_grid_name[k]);
            compare_field(r, where, field, m->relpos2d_head_dim, (double)th->shape[1]);
            return;
        }
    }
    pecert_case_fail(r, where, "a layer's tables of %lld and %lld rows on a %lld x %lld query grid: no attention "
                     "grid pecert derived has them (window or global)",
                     th != NULL ? (long long)th->shape[0] : -1LL, tw != NULL ? (long long)tw->shape[0] : -1LL,
                     (long long)q_h, (long long)q_w);
}

/* The family keys of a test ("values") that the model fixes. */
static void compare_values(pecert_check_result *r, const char *where, const pecert_vtest *t,
                           const pecert_certify_model *m)
{
    if (pecert_vtest_value(t, "num_heads") != NULL) {
        compare_field(r, where, "num_heads", m->num_heads, (double)pecert_vtest_int(t, "num_heads", 0));
    }
    if (pecert_vtest_value(t, "max_bias") != NULL) {
        compare_field(r, where, "alibi max_bias", m->alibi_max_bias, pecert_vtest_number(t, "max_bias", 0));
        compare_field(r, where, "alibi bias scale", m->alibi_bias_scale, pecert_vtest_number(t, "bias_scale", 1.0));
    }
    if (pecert_vtest_value(t, "window_h") != NULL) {
        compare_field(r, where, "swin window_size (rows)", m->swin_window, (double)pecert_vtest_int(t, "window_h", 0));
        compare_field(r, where, "swin window_size (columns)", m->swin_window,
                      (double)pecert_vtest_int(t, "window_w", 0));
    }
    if (strcmp(t->op, "sine2d.embed") == 0) {
        compare_field(r, where, "sine embedding channels per axis", m->sine2d_feats,
                      (double)pecert_vtest_int(t, "num_pos_feats", 0));
        compare_field(r, where, "sine temperature (rows)", m->sine2d_temperature_y,
                      pecert_vtest_number(t, "temperature_y", NAN));
        compare_field(r, where, "sine temperature (columns)", m->sine2d_temperature_x,
                      pecert_vtest_number(t, "temperature_x", NAN));
        compare_field(r, where, "sine scale", m->sine2d_scale, pecert_vtest_number(t, "scale", NAN));
        compare_field(r, where, "sine offset", m->sine2d_offset, pecert_vtest_number(t, "offset", NAN));
        compare_field(r, where, "sine normalize", 1.0, (double)pecert_vtest_int(t, "normalize", -1));
    }
    if (strcmp(t->op, "relpos2d.bias") == 0) {
        compare_relpos2d(r, where, t, m);
    }
    if (strcmp(t->op, "deberta.bias") == 0 || strcmp(t->op, "deberta.relpos") == 0) {
        compare_field(r, where, "DeBERTa position_buckets", (double)m->deberta_bucket_size,
                      (double)(pecert_vtest_int(t, "bucket_size", -1) > 0 ? pecert_vtest_int(t, "bucket_size", -1) : -1));
        compare_field(r, where, "DeBERTa max_relative_positions", (double)m->deberta_max_position,
                      (double)pecert_vtest_int(t, "max_position", 0));
    }
    if (strcmp(t->op, "deberta.bias") == 0) {
        static const uint32_t by_enum[] = {PECERT_DEBERTA_C2P, PECERT_DEBERTA_P2C, PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C};
        int64_t e = pecert_vtest_int(t, "terms", 2);
        compare_field(r, where, "DeBERTa pos_att_type terms", m->deberta_terms, by_enum[e >= 0 && e < 3 ? e : 2]);
        compare_field(r, where, "DeBERTa head size", m->head_dim, (double)pecert_vtest_input(t, "q")->shape[2]);
    }
    if (strcmp(t->op, "sincos2d.embed") == 0) {
        compare_field(r, where, "2-D sin-cos width (encoder_hidden_dim)", m->sincos2d_dim,
                      (double)pecert_vtest_int(t, "embed_dim", 0));
        compare_field(r, where, "2-D sin-cos temperature", m->sincos2d_base, pecert_vtest_number(t, "base", NAN));
        compare_field(r, where, "2-D sin-cos layout", m->sincos2d_layout,
                      (double)pecert_vtest_int(t, "layout", PECERT_SINCOS2D_MAE));
    }
    if (pecert_vtest_value(t, "num_buckets") != NULL) {
        compare_field(r, where, "relative_attention_num_buckets", m->t5_num_buckets,
                      (double)pecert_vtest_int(t, "num_buckets", 0));
        compare_field(r, where, "relative_attention_max_distance", (double)m->t5_max_distance,
                      (double)pecert_vtest_int(t, "max_distance", 0));
    }
    const pecert_vvalue *sec = pecert_vtest_value(t, "mrope_section");
    if (sec != NULL) {
        compare_field(r, where, "mrope_interleaved", m->mrope_interleaved,
                      (double)pecert_vtest_int(t, "mrope_interleaved", 0));
        compare_field(r, where, "mrope_section length", m->n_sections, (double)sec->n_list);
        for (size_t i = 0; i < sec->n_list && (int)i < m->n_sections; i++) {
            compare_field(r, where, "mrope_section[i]", m->mrope_section[i], (double)sec->list[i]);
        }
    }
}

/* A learned table's shape is the mapping's claim: rows x width (the
 * model's own table, or its decoder's beside a sinusoid: Whisper's). */
static void compare_table(pecert_check_result *r, const char *where, const pecert_vtest *t,
                          const pecert_certify_model *m)
{
    const pecert_vtensor *tab = pecert_vtest_input(t, "table");
    int own = m->kind == PECERT_PE_LEARNED;
    if (strcmp(t->op, "learned.lookup") == 0 && tab != NULL && tab->ndim == 2) {
        compare_field(r, where, own ? "learned table rows" : "decoder table rows",
                      (double)(own ? m->learned_rows : m->decoder_learned_rows), (double)tab->shape[0]);
        compare_field(r, where, own ? "learned table width" : "decoder table width",
                      own ? m->learned_dim : m->decoder_learned_dim, (double)tab->shape[1]);
        /* Which rows the positions read, as the model's own forward read
         * them (a decoder's table reads row p). */
        int32_t convention = own ? m->learned_convention : PECERT_LEARNED_PLAIN;
        compare_field(r, where, "learned positions (0 row p, 1 from padding_idx + 1)", convention,
                      (double)pecert_vtest_int(t, "convention", -1));
        if (convention == PECERT_LEARNED_PADDING_OFFSET) {
            compare_field(r, where, "learned padding_idx", m->learned_padding_idx,
                          (double)pecert_vtest_int(t, "padding_idx", -1));
        }
        /* A padding token recorded at -1 read the padding row (RoBERTa's
         * rule): pecert must say so. (A test without one cannot tell BART's
         * numbered padding from no padding.) */
        const pecert_vtensor *pos = pecert_vtest_input(t, "positions");
        const int64_t *p = pos != NULL ? pos->data : NULL;
        int padded = 0;
        for (int64_t i = 0; p != NULL && i < pos->num_elements; i++) {
            padded |= p[i] == -1;
        }
        if (padded) {
            compare_field(r, where, "learned padding reads its row", own && m->learned_padding_row, 1.0);
        }
    }
}

/* A sinusoidal table's formula, width and padding row are the mapping's
 * claim, as the model's own class built them. */
static void compare_sinusoidal(pecert_check_result *r, const char *where, const pecert_vtest *t,
                               const pecert_certify_model *m)
{
    if (strcmp(t->op, "sinusoidal.embed") != 0) {
        return;
    }
    compare_field(r, where, "sinusoidal variant", m->sinusoidal_variant, (double)pecert_vtest_int(t, "variant", -1));
    compare_field(r, where, "sinusoidal width", m->sinusoidal_dim, (double)pecert_vtest_int(t, "dim", -1));
    compare_field(r, where, "sinusoidal padding_idx", m->sinusoidal_padding_idx,
                  (double)pecert_vtest_int(t, "padding_idx", -1));
    compare_field(r, where, "sinusoidal base", m->sinusoidal_base, pecert_vtest_number(t, "base", NAN));
}

/* The vision tower's parameters (certify_vision.c) against what its own
 * classes resolved: the patch order on rope2d.index tests, the rotation's
 * width, theta and conventions on rope2d.apply tests. */
static void compare_vision(pecert_check_result *r, const char *where, const pecert_vtest *t,
                           const pecert_certify_model *m)
{
    const pecert_certify_vision *v = &m->vision;
    if (strcmp(t->op, "rope2d.index") == 0) {
        compare_field(r, where, "vision patch order (scheme)", v->scheme, (double)pecert_vtest_int(t, "scheme", -1));
        compare_field(r, where, "vision spatial_merge_size", v->spatial_merge_size,
                      (double)pecert_vtest_int(t, "spatial_merge_size", -1));
        compare_field(r, where, "vision attention window (window_units)", v->window_units,
                      (double)pecert_vtest_int(t, "window_units", 0));
    } else if (strcmp(t->op, "rope2d.apply") == 0) {
        compare_field(r, where, "vision head_dim", v->head_dim, (double)pecert_vtest_int(t, "head_dim", -1));
        compare_field(r, where, "vision theta", v->theta, pecert_vtest_number(t, "theta", NAN));
        compare_field(r, where, "vision frequencies", v->frequencies, (double)pecert_vtest_int(t, "frequencies", -1));
        compare_field(r, where, "vision columns_first", v->columns_first,
                      (double)pecert_vtest_int(t, "columns_first", -1));
        compare_field(r, where, "vision pairing", v->pairing, (double)pecert_vtest_int(t, "pairing", -1));
    } else if (strcmp(t->op, "posinterp.resize") == 0) {
        /* The tower's learned table and how it is resized: each config
         * key of the test against pecert's reading. */
        const struct {
            const char *field, *key;
            int32_t mine;
        } table[] = {
            {"vision position table side (grid_h)", "grid_h", v->table_side},
            {"vision position table side (grid_w)", "grid_w", v->table_side},
            {"vision table resize mode (0 bicubic, 1 bilinear)", "mode", v->table_mode},
            {"vision table align_corners", "align_corners", v->table_align_corners},
            {"vision table antialias", "antialias", v->table_antialias},
            {"vision table prefix rows", "prefix_tokens", v->table_prefix},
            {"vision table merge_size", "merge_size", v->table_merge},
        };
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
            compare_field(r, where, table[i].field, table[i].mine, (double)pecert_vtest_int(t, table[i].key, -1));
        }
        /* The size form: a scale_factor the model never passes is a claim too. */
        compare_field(r, where, "vision table scale_h (0: size form)", 0, pecert_vtest_number(t, "scale_h", 0.0));
        compare_field(r, where, "vision table scale_w (0: size form)", 0, pecert_vtest_number(t, "scale_w", 0.0));
        const pecert_vtensor *tab = pecert_vtest_input(t, "table");
        compare_field(r, where, "vision table rows", (double)v->table_prefix + (double)v->table_side * v->table_side,
                      tab != NULL ? (double)tab->shape[0] : -1.0);
    }
}

static void mapping_test(pecert_check_result *r, const pecert_vfile *f, const pecert_vtest *t,
                         const pecert_certify_model *m)
{
    char where[PECERT_RESULT_LINE_MAX];
    int64_t before = r->n_failed;
    snprintf(where, sizeof(where), "%s:tcId=%lld", f->path, (long long)t->tc_id);
    pecert_check_result_enter_vector(r, f->path, t->tc_id);
    if (strncmp(t->op, "rope.", 5) == 0 || strcmp(t->op, "mrope.apply") == 0) {
        compare_rope(r, where, &m->rope, &t->rope);
    }
    compare_values(r, where, t, m);
    compare_table(r, where, t, m);
    compare_sinusoidal(r, where, t, m);
    compare_vision(r, where, t, m);
    if (strcmp(t->op, "rope.apply") == 0 || strcmp(t->op, "mrope.apply") == 0) {
        compare_field(r, where, "pairing", m->pairing, t->pairing);
    }
    pecert_check_result_leave_vector(r);
    if (r->n_failed > before) {
        pecert_check_symptom(r, "mapping:%s", m->model_type);
    }
}

/* The profile vectors hold the configuration the official model class
 * built from the same config.json; every field must agree. env->files
 * are the profile's vector files (certify_vectors.c). */
static void run_mapping(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_model *m = env->certify_model;
    for (size_t i = 0; i < env->n_files; i++) {
        for (size_t j = 0; j < env->files[i].n_tests; j++) {
            mapping_test(r, &env->files[i], &env->files[i].tests[j], m);
        }
    }
    pecert_check_conclude(r, "config fields");
    if (r->verdict == PECERT_VERDICT_PASS) {
        /* The check judges pecert, not the plugin: a PASS here beside a
         * plugin that declined everything must not read as the plugin's. */
        snprintf(r->diagnosis, sizeof(r->diagnosis),
                 "pecert reads the config as the official config class does: %lld fields equal (the plugin "
                 "is not asked)",
                 (long long)r->n_cases);
    }
}

/* ---- certify.rope.reference --------------------------------------------- */

/* Frequencies and scaling at seq_len against the oracle. */
static void rope_freq_case(const pecert_check_env *env, pecert_check_result *r, int64_t seq_len)
{
    const pecert_rope_config *c = &env->certify_model->rope;
    int32_t half = c->rotary_dim / 2;
    double *buf = malloc(2 * (size_t)half * sizeof(double));
    double got_s = NAN;
    double want_s = NAN;
    char where[96];
    snprintf(where, sizeof(where), "rope_freqs seq_len=%lld", (long long)seq_len);
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    if (!pecert_oracle_freqs(env, r, where, buf != NULL ? buf + half : NULL, &want_s, c, seq_len)) {
        free(buf);
        return;
    }
    for (int32_t i = 0; i < half; i++) {
        buf[i] = NAN;
    }
    pecert_status st = env->plugin.desc->rope_freqs(env->plugin.instance, buf, &got_s, c, seq_len);
    if (pecert_case_status(r, &env->plugin, st, where, "rope_freqs")) {
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int32_t i = 0; i < half; i++) {
            pecert_case_worst_add(&w, i, buf[i], buf[half + i], pecert_tol_freq(buf[half + i], i));
        }
        if (w.n_bad > 0) { /* the symptoms rope.freq.golden leaves: one diagnosis reads both */
            pecert_check_symptom(r, "%s%s", PECERT_SYMPTOM_FREQ_OFF, pecert_rope_type_name(c->rope_type));
        }
        pecert_rope_scaling_symptom(r, got_s, want_s);
        pecert_case_worst_add(&w, half, got_s, want_s, pecert_tol_scaling(want_s));
        pecert_case_finish(r, &w, where, w.index == half ? "attention_scaling" : "inv_freq");
    }
    free(buf);
}

/* Apply at positions {0, 1, len/2, len-1} (so seq_len = len), with the
 * checkpoint's pairing and head_dim, against the oracle. */
static void rope_apply_case(const pecert_check_env *env, pecert_check_result *r, int64_t len)
{
    const pecert_certify_model *m = env->certify_model;
    const int64_t pos[4] = {0, len > 2 ? 1 : 0, len / 2, len - 1};
    pecert_rope_call call = {&m->rope, m->pairing, 0, pos, 4, APPLY_HEADS, m->rope.head_dim};
    char where[128];
    snprintf(where, sizeof(where), "rope_apply %s positions 0,1,%lld,%lld", pecert_rope_pairing_name(m->pairing),
             (long long)(len / 2), (long long)(len - 1));
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    float *x = pecert_random_floats(r, pecert_rope_call_size(&call), 0x5eedu + (uint64_t)len, where);
    if (x == NULL) {
        return;
    }
    float *want = pecert_rope_run_with(&env->oracle, r, &call, x, where);
    float *got = want != NULL ? pecert_rope_run_packed(env, r, &call, x, where) : NULL;
    if (got != NULL) {
        int64_t failed_before = r->n_failed;
        pecert_rope_compare(env, r, &call, x, got, want, where, 64, 1.0);
        if (r->n_failed > failed_before) { /* as rope.apply.golden: name the bug by replay */
            pecert_check_symptom(r, "%s%s", PECERT_SYMPTOM_APPLY_OFF, pecert_rope_type_name(m->rope.rope_type));
            pecert_rope_explain(env, r, &call, x, got, where);
        }
    }
    free(got);
    free(want);
    free(x);
}

/* The rotation is what a checkpoint needs; rope_freqs is optional (an
 * engine's frequencies are often internal): when the plugin has it, the
 * frequencies and attention scaling are compared too, which names a
 * frequency bug more precisely than the rotations alone. */
static void run_rope_reference(const pecert_check_env *env, pecert_check_result *r)
{
    int64_t lens[6];
    size_t n = pecert_certify_lengths(env->certify_model, lens);
    int freqs = env->plugin.desc->rope_freqs != NULL;
    if (freqs) {
        rope_freq_case(env, r, 0);
    }
    for (size_t i = 0; i < n; i++) {
        /* The far length lies past the checkpoint's own context: an engine
         * whose declared scope stops short of it has not declined the
         * checkpoint, and is certified up to its scope (said). The lengths
         * up to max_position_embeddings stay required. */
        int64_t last = lens[i] - 1;
        if (lens[i] > env->certify_model->max_position_embeddings && pecert_scope_trim(env, r, &last, 1) == 0) {
            continue;
        }
        if (freqs) {
            rope_freq_case(env, r, lens[i]);
        }
        rope_apply_case(env, r, lens[i]);
    }
    pecert_check_conclude(r, "frequency and apply cases");
}

/* ---- oracle-vs-plugin helpers for the other families -------------------- */

/* The oracle's output of a finished call, as a packed f64 "golden" tensor
 * the family comparisons take. values must hold b->n doubles. */
pecert_vtensor pecert_certify_oracle_tensor(const pecert_out_buf *b, double *values, uint32_t ndim,
                                            const int64_t *shape)
{
    pecert_vtensor t;
    memset(&t, 0, sizeof(t));
    t.name = "oracle";
    t.dtype = PECERT_DTYPE_F64;
    t.ndim = ndim;
    t.num_elements = b->n;
    for (uint32_t i = 0; i < ndim; i++) {
        t.shape[i] = shape[i];
    }
    for (int64_t i = 0; i < b->n; i++) {
        values[i] = pecert_out_get(b, i);
    }
    t.data = values;
    return t;
}

/* ---- certify.alibi.reference -------------------------------------------- */

typedef struct alibi_bound_ctx {
    const double *slopes;  /* oracle slopes, per head                  */
    int64_t per_head;      /* n_q * n_k                                */
    int64_t num_heads;
    int bf16_reference;    /* the model rounds slopes and bias to bf16 */
} alibi_bound_ctx;

/* A model whose code rounds its slopes and bias to bfloat16 (Falcon) is
 * matched by a plugin that rounds as it does or computes exactly. */
static double slope_bound(const void *ctx, int64_t i, double want)
{
    const alibi_bound_ctx *c = ctx;
    (void)i;
    return pecert_tol_alibi_slope(want, c->num_heads) +
           (c->bf16_reference ? pecert_tol_bf16_reference(want, 1) : 0.0);
}

static double bias_bound(const void *ctx, int64_t i, double want)
{
    const alibi_bound_ctx *c = ctx;
    double m = c->slopes[i / c->per_head];
    return pecert_tol_alibi_bias(want, pecert_tol_alibi_slope(m, c->num_heads) / m) +
           (c->bf16_reference ? pecert_tol_bf16_reference(want, 2) : 0.0);
}

static pecert_status call_slopes(const pecert_subject *s, const pecert_certify_model *m, pecert_out_buf *out)
{
    pecert_alibi_slopes_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.num_heads = m->num_heads;
    a.max_bias = m->alibi_max_bias;
    a.out = &out->view;
    return s->desc->alibi_slopes(s->instance, &a);
}

static pecert_status call_bias(const pecert_subject *s, const pecert_certify_model *m, pecert_out_buf *out,
                               const int64_t *q, int64_t n_q, const int64_t *k, int64_t n_k)
{
    pecert_alibi_bias_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.num_heads = m->num_heads;
    a.max_bias = m->alibi_max_bias;
    a.q_positions = q;
    a.n_q = n_q;
    a.k_positions = k;
    a.n_k = n_k;
    a.out = &out->view;
    return s->desc->alibi_bias(s->instance, &a);
}

/* Slopes for the checkpoint's head count (a non-power of two takes the
 * interleaved second series), into want_slopes. 0 if the oracle ran. */
static int alibi_slopes_case(const pecert_check_env *env, pecert_check_result *r, double *want_slopes)
{
    int64_t h = env->certify_model->num_heads;
    pecert_out_buf want;
    pecert_out_buf got;
    int rc = -1;
    if (!pecert_out_open(&want, env, r, PECERT_DTYPE_F64, 1, &h, "alibi_slopes")) {
        return -1;
    }
    if (pecert_out_init(&got, env, PECERT_DTYPE_F32, 1, &h) == 0) {
        if (pecert_out_status(r, &env->oracle, call_slopes(&env->oracle, env->certify_model, &want), &want, "alibi_slopes (oracle)",
                              "alibi_slopes")) {
            pecert_vtensor w = pecert_certify_oracle_tensor(&want, want_slopes, 1, &h);
            rc = 0;
            if (pecert_out_status(r, &env->plugin, call_slopes(&env->plugin, env->certify_model, &got), &got, "alibi_slopes",
                                  "alibi_slopes")) {
                alibi_bound_ctx ctx = {NULL, 1, h, env->certify_model->alibi_bf16_reference};
                pecert_compare_bounded(r, &got, &w, slope_bound, &ctx, "alibi_slopes");
            }
        }
        pecert_out_free(&got);
    }
    pecert_out_free(&want);
    return rc;
}

/* Causal bias for queries at 0, len-1 and far, keys up to them. */
static void alibi_bias_case(const pecert_check_env *env, pecert_check_result *r, const double *slopes,
                            int64_t len)
{
    const int64_t q[3] = {0, len - 1, len};
    const int64_t k[4] = {0, 1, len - 1, len};
    int64_t shape[3] = {env->certify_model->num_heads, 3, 4};
    alibi_bound_ctx ctx = {slopes, 12, env->certify_model->num_heads, env->certify_model->alibi_bf16_reference};
    char where[96];
    pecert_out_buf want;
    pecert_out_buf got;
    double *vals = malloc((size_t)(shape[0] * 12) * sizeof(double));
    snprintf(where, sizeof(where), "alibi_bias positions 0,%lld,%lld", (long long)(len - 1), (long long)len);
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    if (vals == NULL || pecert_out_init(&want, env, PECERT_DTYPE_F64, 3, shape) != 0) {
        pecert_case_fail(r, where, "out of memory");
        free(vals);
        return;
    }
    if (pecert_out_init(&got, env, PECERT_DTYPE_F32, 3, shape) == 0) {
        if (pecert_out_status(r, &env->oracle, call_bias(&env->oracle, env->certify_model, &want, q, 3, k, 4), &want, where,
                              "alibi_bias")) {
            pecert_vtensor w = pecert_certify_oracle_tensor(&want, vals, 3, shape);
            if (pecert_out_status(r, &env->plugin, call_bias(&env->plugin, env->certify_model, &got, q, 3, k, 4), &got, where,
                                  "alibi_bias")) {
                pecert_compare_bounded(r, &got, &w, bias_bound, &ctx, where);
            }
        }
        pecert_out_free(&got);
    }
    pecert_out_free(&want);
    free(vals);
}

static void run_alibi_reference(const pecert_check_env *env, pecert_check_result *r)
{
    double *slopes = malloc((size_t)env->certify_model->num_heads * sizeof(double));
    int64_t lens[6];
    size_t n = pecert_certify_lengths(env->certify_model, lens);
    if (slopes != NULL && alibi_slopes_case(env, r, slopes) == 0) {
        for (size_t i = 0; i < n; i++) {
            alibi_bias_case(env, r, slopes, lens[i]);
        }
    } else if (slopes == NULL) {
        pecert_case_fail(r, "alibi", "out of memory");
    }
    free(slopes);
    pecert_check_conclude(r, "slope and bias cases");
}

/* ---- certify.alibi.attention -------------------------------------------- */

/* The checkpoint's attention with its ALiBi term: its heads (slopes depend
 * on the count), kv heads, head_dim and bias scale, fed as one prefill, as
 * decode steps and in chunks, from position 0 and from just below
 * max_position_embeddings, against the oracle's session. Only here does
 * the bias meet the score scale: Falcon's 1/sqrt(head_dim) on the bias is
 * invisible to alibi_slopes and alibi_bias. */
static void run_alibi_attention(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_model *m = env->certify_model;
    int64_t mp = m->max_position_embeddings;
    const int64_t starts[2] = {0, mp > 2 * PECERT_DECODE_PREFILL_LEN ? mp - PECERT_DECODE_PREFILL_LEN : 0};
    for (int s = 0; s < 2; s++) {
        pecert_logical_batch b;
        int64_t len = PECERT_DECODE_PREFILL_LEN;
        char label[PECERT_RESULT_LINE_MAX];
        snprintf(label, sizeof(label), "alibi heads=%d/%d head_dim=%d max_bias=%g bias_scale=%g from position %lld",
                 (int)m->num_heads, (int)m->num_kv_heads, (int)m->head_dim, m->alibi_max_bias,
                 m->alibi_bias_scale, (long long)starts[s]);
        if (pecert_logical_batch_init_alibi(&b, m->num_heads, m->num_kv_heads, m->head_dim, m->alibi_max_bias, 1,
                                            &len, &starts[s], 5000 + (uint64_t)s) != 0) {
            pecert_case_fail(r, label, "out of memory");
            pecert_logical_batch_free(&b);
            continue;
        }
        /* 1 is the ABI's default (0): only a real scale asks for ABI 1.5. */
        b.alibi_bias_scale = m->alibi_bias_scale != 1.0 ? m->alibi_bias_scale : 0.0;
        b.alibi_bf16_reference = m->alibi_bf16_reference;
        pecert_decode_equivalence_case(env, r, &b, label);
        pecert_logical_batch_free(&b);
        if (starts[1] == 0) {
            break;
        }
    }
    pecert_check_conclude(r, "session comparisons");
}

/* ---- certify.t5.reference ------------------------------------------------ */

/* Relative positions around every bucket edge the config creates:
 * -span..span densely (span = 2 max_distance), plus +-far. */
static int64_t *t5_positions(const pecert_certify_model *m, int64_t *n_out)
{
    int64_t span = 2 * m->t5_max_distance;
    int64_t n = 2 * span + 1 + 2;
    int64_t *rel = malloc((size_t)n * sizeof(*rel));
    if (rel != NULL) {
        for (int64_t i = 0; i <= 2 * span; i++) {
            rel[i] = i - span;
        }
        rel[n - 2] = -FAR_POSITION;
        rel[n - 1] = FAR_POSITION;
    }
    *n_out = n;
    return rel;
}

static pecert_status call_buckets(const pecert_subject *s, const pecert_certify_model *m, pecert_out_buf *out,
                                  int bidirectional, const int64_t *rel, int64_t n)
{
    pecert_t5_bucket_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.bidirectional = bidirectional;
    a.num_buckets = m->t5_num_buckets;
    a.max_distance = m->t5_max_distance;
    a.relative_positions = rel;
    a.n = n;
    a.out = &out->view;
    return s->desc->t5_bucket(s->instance, &a);
}

/* Buckets must equal the oracle's, except where the official float32
 * log itself may land on either neighbour (family_tol.h). */
static void t5_compare(pecert_check_result *r, const pecert_certify_model *m, const pecert_out_buf *got,
                       const pecert_out_buf *want, const int64_t *rel, int bidirectional, const char *where)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < got->n; i++) {
        int edge = pecert_t5_log_boundary(rel[i], bidirectional, m->t5_num_buckets, m->t5_max_distance);
        pecert_case_worst_add(&w, i, pecert_out_get(got, i), pecert_out_get(want, i), edge ? 1.0 : 0.0);
    }
    char elem[64];
    snprintf(elem, sizeof(elem), "bucket[relative=%lld]", (long long)(w.index >= 0 ? rel[w.index] : 0));
    pecert_case_finish(r, &w, where, elem);
}

static void t5_case(const pecert_check_env *env, pecert_check_result *r, int bidirectional,
                    const int64_t *rel, int64_t n)
{
    const char *where = bidirectional ? "t5_bucket encoder (bidirectional)" : "t5_bucket decoder (causal)";
    pecert_out_buf want;
    pecert_out_buf got;
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    if (!pecert_out_open(&want, env, r, PECERT_DTYPE_I64, 1, &n, where)) {
        return;
    }
    if (pecert_out_init(&got, env, PECERT_DTYPE_I64, 1, &n) == 0) {
        if (pecert_out_status(r, &env->oracle, call_buckets(&env->oracle, env->certify_model, &want, bidirectional, rel, n), &want,
                              where, "t5_bucket")) {
            if (pecert_out_status(r, &env->plugin, call_buckets(&env->plugin, env->certify_model, &got, bidirectional, rel, n), &got,
                                  where, "t5_bucket")) {
                t5_compare(r, env->certify_model, &got, &want, rel, bidirectional, where);
            }
        }
        pecert_out_free(&got);
    }
    pecert_out_free(&want);
}

static void run_t5_reference(const pecert_check_env *env, pecert_check_result *r)
{
    int64_t n = 0;
    int64_t *rel = t5_positions(env->certify_model, &n);
    if (rel == NULL) {
        pecert_case_fail(r, "t5", "out of memory");
    } else {
        t5_case(env, r, 1, rel, n);
        t5_case(env, r, 0, rel, n);
    }
    free(rel);
    pecert_check_conclude(r, "bucket cases");
}

/* ---- certify.learned.reference ------------------------------------------ */

static pecert_status call_lookup(const pecert_subject *s, pecert_out_buf *out, const pecert_tensor *table,
                                 const int64_t *pos, int64_t n, const pecert_certify_model *m)
{
    pecert_learned_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.convention = m->learned_convention;
    a.padding_idx = m->learned_convention == PECERT_LEARNED_PADDING_OFFSET ? m->learned_padding_idx : -1;
    a.table = table;
    a.positions = pos;
    a.n = n;
    a.out = &out->view;
    return s->desc->learned_lookup(s->instance, &a);
}

static double exact_bound(const void *ctx, int64_t i, double want)
{
    (void)ctx;
    (void)i;
    (void)want;
    return 0.0;
}

/* Every position the checkpoint's convention gives a row of a random
 * table of its shape, in reverse order (the last trained position first):
 * rows-1 .. 0, or with an offset (RoBERTa's, OPT's, BART's)
 * rows-padding_idx-2 .. 0, and the padding token's -1 where it reads row
 * padding_idx (the rows below are never read). */
static void learned_case(const pecert_check_env *env, pecert_check_result *r, float *tab, int64_t *pos,
                         double *vals)
{
    const pecert_certify_model *m = env->certify_model;
    int64_t rows = m->learned_rows;
    int64_t table_shape[2] = {rows, m->learned_dim};
    int offset = m->learned_convention == PECERT_LEARNED_PADDING_OFFSET;
    int pad = offset && m->learned_padding_row; /* the padding token's -1 too */
    int64_t n = offset ? rows - m->learned_padding_idx - 1 + pad : rows;
    int64_t shape[2] = {n, m->learned_dim};
    pecert_tensor table = pecert_tensor_2d(tab, PECERT_DTYPE_F32, table_shape[0], table_shape[1]);
    const char *where = offset ? "learned_lookup every position (padding_idx + 1 offset)" : "learned_lookup all rows";
    pecert_out_buf want;
    pecert_out_buf got;
    pecert_fill_random(tab, (size_t)(rows * table_shape[1]), 0x7ab1eu);
    if (offset) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_LEARNED_PADDING_OFFSET);
    }
    for (int64_t i = 0; i < n; i++) {
        pos[i] = n - 1 - i - pad;
    }
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    if (!pecert_out_open(&want, env, r, PECERT_DTYPE_F32, 2, shape, where)) {
        return;
    }
    if (pecert_out_init(&got, env, PECERT_DTYPE_F32, 2, shape) == 0) {
        if (pecert_out_status(r, &env->oracle, call_lookup(&env->oracle, &want, &table, pos, n, m), &want, where,
                              "learned_lookup")) {
            pecert_vtensor w = pecert_certify_oracle_tensor(&want, vals, 2, shape);
            if (pecert_out_status(r, &env->plugin, call_lookup(&env->plugin, &got, &table, pos, n, m), &got,
                                  where, "learned_lookup")) {
                pecert_compare_bounded(r, &got, &w, exact_bound, NULL, where);
            }
        }
        pecert_out_free(&got);
    }
    pecert_out_free(&want);
}

static void run_learned_reference(const pecert_check_env *env, pecert_check_result *r)
{
    size_t n = (size_t)(env->certify_model->learned_rows * env->certify_model->learned_dim);
    float *tab = malloc(n * sizeof(float));
    int64_t *pos = malloc((size_t)env->certify_model->learned_rows * sizeof(int64_t));
    double *vals = malloc(n * sizeof(double));
    if (tab == NULL || pos == NULL || vals == NULL) {
        pecert_case_fail(r, "learned", "out of memory");
    } else {
        learned_case(env, r, tab, pos, vals);
    }
    free(tab);
    free(pos);
    free(vals);
    pecert_check_conclude(r, "lookup cases");
}

const pecert_check pecert_check_certify_mapping = {
    PECERT_ID_CERTIFY_MAPPING, "pecert's config.json mapping equals the official config class's, field for field",
    0, run_mapping};
const pecert_check pecert_check_certify_rope_reference = {
    PECERT_ID_CERTIFY_ROPE_REFERENCE, "rope at the checkpoint's parameters, pairing and lengths equals ref",
    PECERT_NEED_ROPE_APPLY, run_rope_reference};
const pecert_check pecert_check_certify_alibi_reference = {
    PECERT_ID_CERTIFY_ALIBI_REFERENCE, "ALiBi slopes and biases for the checkpoint's heads and lengths equal ref",
    PECERT_NEED_ALIBI_SLOPES | PECERT_NEED_ALIBI_BIAS, run_alibi_reference};
const pecert_check pecert_check_certify_alibi_attention = {
    PECERT_ID_CERTIFY_ALIBI_ATTENTION,
    "attention with the checkpoint's ALiBi term (heads, head_dim, bias scale) in prefill, decode and chunks equals ref",
    PECERT_NEED_SESSION, run_alibi_attention};
const pecert_check pecert_check_certify_t5_reference = {
    PECERT_ID_CERTIFY_T5_REFERENCE, "T5 buckets of the checkpoint's config, both directions, equal ref",
    PECERT_NEED_T5_BUCKET, run_t5_reference};
const pecert_check pecert_check_certify_learned_reference = {
    PECERT_ID_CERTIFY_LEARNED_REFERENCE, "every row of a learned table of the checkpoint's shape is looked up as ref",
    PECERT_NEED_LEARNED, run_learned_reference};

/* ---- what pecert does not certify ------------------------------------------ */

/* The part's result: never run as a check (certify names it after the
 * passes), so a run of it by id says only what it is. */
static void run_unexamined(const pecert_check_env *env, pecert_check_result *r)
{
    (void)env;
    r->verdict = PECERT_VERDICT_UNSUPPORTED;
    snprintf(r->diagnosis, sizeof(r->diagnosis), "a part of the checkpoint pecert does not certify");
    pecert_check_symptom(r, "%s", PECERT_SYMPTOM_NOT_BY_PECERT);
}

const pecert_check pecert_check_certify_vision_tower = {
    PECERT_ID_CERTIFY_VISION_TOWER, "the checkpoint's vision tower, of a kind pecert does not certify, is named", 0,
    run_unexamined};
const pecert_check pecert_check_certify_audio_tower = {
    PECERT_ID_CERTIFY_AUDIO_TOWER, "the checkpoint's audio tower, which pecert does not certify, is named", 0,
    run_unexamined};
const pecert_check pecert_check_certify_position_ids = {
    PECERT_ID_CERTIFY_POSITION_IDS, "the position ids a wrapper computes, which pecert does not certify, are named", 0,
    run_unexamined};

static void unexamined(pecert_check_result *r, const pecert_check *check, const char *why)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->check_id, sizeof(r->check_id), "%s", check->id);
    run_unexamined(NULL, r);
    snprintf(r->diagnosis, sizeof(r->diagnosis), "%s", why);
}

size_t pecert_certify_unexamined(pecert_check_result out[2], const pecert_certify_model *m)
{
    size_t n = 0;
    if (m->vision.tower[0] == '\0' && m->vision_note[0] != '\0') {
        unexamined(&out[n++], m->audio_tower ? &pecert_check_certify_audio_tower : &pecert_check_certify_vision_tower,
                   m->vision_note);
    }
    if (m->position_note[0] != '\0') {
        unexamined(&out[n++], &pecert_check_certify_position_ids, m->position_note);
    }
    return n;
}

static const pecert_check *const certify_checks[] = {
    &pecert_check_certify_mapping,
    &pecert_check_certify_rope_reference,
    &pecert_check_certify_alibi_reference,
    &pecert_check_certify_alibi_attention,
    &pecert_check_certify_t5_reference,
    &pecert_check_certify_learned_reference,
    &pecert_check_certify_sinusoidal_reference,
    &pecert_check_certify_swin_reference,
    &pecert_check_certify_sine2d_reference,
    &pecert_check_certify_sincos2d_reference,
    &pecert_check_certify_deberta_reference,
    &pecert_check_certify_relpos2d_reference,
    &pecert_check_certify_rope2d_reference,
    &pecert_check_certify_posinterp_reference,
    &pecert_check_certify_vision_tower,
    &pecert_check_certify_audio_tower,
    &pecert_check_certify_position_ids,
};
#define N_CERTIFY_CHECKS (sizeof(certify_checks) / sizeof(certify_checks[0]))

/* A layer type's name as a check id suffix: "sliding", "full", ... */
static int is_layer_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof(((pecert_certify_layer_type *)0)->name)) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (!((name[i] >= 'a' && name[i] <= 'z') || name[i] == '_')) {
            return 0;
        }
    }
    return 1;
}

const pecert_check *pecert_known_check(const char *id)
{
    char base[PECERT_CHECK_ID_MAX];
    const char *at = strchr(id, '@');
    if (at != NULL) { /* "rope.apply.golden@sliding": a layer type's check */
        if ((size_t)(at - id) >= sizeof(base) || !is_layer_name(at + 1)) {
            return NULL;
        }
        memcpy(base, id, (size_t)(at - id));
        base[at - id] = '\0';
        id = base;
    }
    for (size_t i = 0; i < N_CERTIFY_CHECKS; i++) {
        if (strcmp(certify_checks[i]->id, id) == 0) {
            return certify_checks[i];
        }
    }
    return pecert_check_find(id);
}

size_t pecert_known_check_count(void)
{
    return (pecert_num_checks + N_CERTIFY_CHECKS) * (PECERT_CERTIFY_MAX_LAYER_TYPES + 2);
}

static int is_known_check(const char *id)
{
    return pecert_known_check(id) != NULL;
}

pecert_id_rules pecert_results_id_rules(void)
{
    pecert_id_rules rules = {is_known_check, pecert_known_check_count()};
    return rules;
}
