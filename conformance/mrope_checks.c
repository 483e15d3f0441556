/*
 * mrope_checks.c - M-RoPE (Qwen2-VL, Qwen3-VL's interleaved sections):
 * position ids exactly against
 * transformers' Qwen2VLModel.get_rope_index (text, images, videos, several
 * images, left padding), the sectioned rotation against
 * apply_multimodal_rotary_pos_emb under the RoPE error model, and the
 * property that text-only input reduces to plain RoPE: get_rope_index
 * gives the three axes the plain positions, and a rotation with three
 * equal axes is rope_apply's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

/* ---- mrope.index.golden ------------------------------------------------- */

typedef struct index_call {
    const int64_t *ids;
    const int64_t *mask;
    int64_t batch;
    int64_t seq;
    const int64_t *images;
    int64_t n_images;
    const int64_t *videos;
    int64_t n_videos;
    int32_t merge;
    int64_t image_id;
    int64_t video_id;
    int64_t start_id;
} index_call;

static int run_index(const pecert_check_env *env, pecert_check_result *r, const index_call *c,
                     pecert_out_buf *pos, pecert_out_buf *deltas, const char *where)
{
    const pecert_subject *s = &env->plugin;
    int64_t shape[3] = {3, c->batch, c->seq};
    if (!pecert_out_open(pos, env, r, PECERT_DTYPE_I64, 3, shape, where)) {
        return 0;
    }
    if (!pecert_out_open(deltas, env, r, PECERT_DTYPE_I64, 1, shape + 1, where)) {
        pecert_out_free(pos);
        return 0;
    }
    pecert_mrope_index_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.spatial_merge_size = c->merge;
    a.image_token_id = c->image_id;
    a.video_token_id = c->video_id;
    a.vision_start_token_id = c->start_id;
    a.batch = c->batch;
    a.seq_len = c->seq;
    a.input_ids = c->ids;
    a.attention_mask = c->mask;
    a.image_grid_thw = c->images;
    a.n_images = c->n_images;
    a.video_grid_thw = c->videos;
    a.n_videos = c->n_videos;
    a.out_position_ids = &pos->view;
    a.out_deltas = &deltas->view;
    pecert_status st = s->desc->mrope_index(s->instance, &a);
    if (!pecert_out_status(r, s, st, pos, where, "mrope_index") ||
        !pecert_out_guards_ok(deltas)) {
        if (st == PECERT_OK) {
            pecert_case_fail(r, where, "mrope_index wrote outside out_deltas");
        }
        pecert_out_free(pos);
        pecert_out_free(deltas);
        return 0;
    }
    return 1;
}

static void index_case(const pecert_check_env *env, pecert_check_result *r,
                       const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *ids = pecert_vtest_input(t, "input_ids");
    const pecert_vtensor *img = pecert_vtest_input(t, "image_grid_thw");
    const pecert_vtensor *vid = pecert_vtest_input(t, "video_grid_thw");
    index_call c = {ids->data, pecert_vtest_input(t, "attention_mask")->data, ids->shape[0],
                    ids->shape[1], img->data, img->shape[0], vid->data, vid->shape[0],
                    (int32_t)pecert_vtest_int(t, "spatial_merge_size", 2),
                    pecert_vtest_int(t, "image_token_id", 0), pecert_vtest_int(t, "video_token_id", 0),
                    pecert_vtest_int(t, "vision_start_token_id", 0)};
    pecert_out_buf pos;
    pecert_out_buf deltas;
    if (!run_index(env, r, &c, &pos, &deltas, where)) {
        return;
    }
    pecert_compare_exact(r, &pos, pecert_vtest_output(t, "position_ids"), where);
    char at[PECERT_RESULT_LINE_MAX];
    snprintf(at, sizeof(at), "%s deltas", where);
    pecert_compare_exact(r, &deltas, pecert_vtest_output(t, "deltas"), at);
    r->n_cases--; /* one vector, two comparisons */
    pecert_out_free(&pos);
    pecert_out_free(&deltas);
}

static void run_index_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "mrope.index", index_case);
}

/* ---- mrope.apply.golden ------------------------------------------------- */

typedef struct apply_call {
    const pecert_rope_config *config;
    pecert_rope_pairing pairing;
    int64_t seq_len;
    int32_t num_axes;
    int32_t section[PECERT_MROPE_MAX_AXES];
    int32_t interleaved;      /* Qwen3-VL's assignment (ABI 1.4) */
    const int64_t *positions; /* [num_axes, tokens] */
    int64_t tokens;
    int64_t heads;
} apply_call;

static float *run_apply(const pecert_subject *s, pecert_check_result *r, const apply_call *c,
                        const float *x, const char *where)
{
    if (c->interleaved && !s->is_oracle && !pecert_plugin_speaks(s->desc, 4)) {
        pecert_case_needs_abi(r, s, where, "interleaved M-RoPE (mrope_apply_args.interleaved)", 4);
        return NULL;
    }
    pecert_rows_call io;
    if (!pecert_rows_open(&io, r, x, c->tokens, c->heads, c->config->head_dim, where)) {
        return NULL;
    }
    pecert_mrope_apply_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.pairing = c->pairing;
    a.config = c->config;
    a.seq_len = c->seq_len;
    a.num_axes = c->num_axes;
    a.interleaved = c->interleaved;
    memcpy(a.section, c->section, sizeof(a.section));
    a.positions = c->positions;
    a.x = &io.x;
    a.out = &io.out;
    pecert_status st = s->desc->mrope_apply(s->instance, &a);
    return pecert_floats_kept(r, s, st, io.data, where, "mrope_apply");
}

/* The axis whose section holds frequency i: in blocks (Qwen2-VL), or
 * interleaved (Qwen3-VL: t h w t h w ..., axis k > 0 on i = k mod 3 below
 * 3 * section[k]; vectors/FORMAT.md). */
static int axis_of(const apply_call *c, int64_t i)
{
    if (c->interleaved) {
        int k = (int)(i % 3);
        return k > 0 && i < 3 * (int64_t)c->section[k] ? k : 0;
    }
    int64_t first = 0;
    for (int k = 0; k < c->num_axes; k++) {
        first += c->section[k];
        if (i < first) {
            return k;
        }
    }
    return c->num_axes - 1;
}

/* Rotated channels under pecert_tol_rotated at the angle of their axis'
 * position (oracle frequencies), the rest bit-exact. */
static void compare_apply(const pecert_check_env *env, pecert_check_result *r, const apply_call *c,
                          const float *x, const float *got, const float *want, const char *where)
{
    int64_t rot = c->config->rotary_dim;
    int64_t hd = c->config->head_dim;
    double *inv = malloc((size_t)(rot / 2 > 0 ? rot / 2 : 1) * sizeof(double));
    double scaling = 1.0;
    int64_t seq = pecert_effective_seq_len(c->seq_len, c->positions, c->num_axes * c->tokens);
    if (!pecert_oracle_freqs(env, r, where, inv, &scaling, c->config, seq)) {
        free(inv);
        return;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t t = 0; t < c->tokens; t++) {
        for (int64_t h = 0; h < c->heads; h++) {
            int64_t base = (t * c->heads + h) * hd;
            for (int64_t i = 0; i < rot / 2; i++) {
                int64_t a;
                int64_t b;
                pecert_rope_pair(c->pairing, rot, i, &a, &b);
                double p = fabs((double)c->positions[axis_of(c, i) * c->tokens + t]);
                double bound = pecert_tol_rotated(hypot(x[base + a], x[base + b]), p * inv[i], inv[i], i, scaling);
                pecert_case_worst_add_pair(&w, base, a, b, got, want, bound);
            }
            pecert_rope_worst_passthrough(&w, base, rot, hd, got, want);
        }
    }
    int64_t e = w.index < 0 ? 0 : w.index;
    int64_t tok = e / (c->heads * hd);
    char elem[160];
    snprintf(elem, sizeof(elem), "[t=%lld,h=%lld,d=%lld] pos=(%lld,%lld,%lld)", (long long)tok,
             (long long)((e / hd) % c->heads), (long long)(e % hd), (long long)c->positions[tok],
             (long long)c->positions[(c->num_axes > 1 ? 1 : 0) * c->tokens + tok],
             (long long)c->positions[(c->num_axes > 2 ? 2 : 0) * c->tokens + tok]);
    pecert_case_finish(r, &w, where, elem);
    free(inv);
}

static apply_call call_of(const pecert_vtest *t)
{
    const pecert_vtensor *x = pecert_vtest_input(t, "x");
    const pecert_vvalue *sec = pecert_vtest_value(t, "mrope_section");
    apply_call c;
    memset(&c, 0, sizeof(c));
    c.config = &t->rope;
    c.pairing = t->pairing;
    c.seq_len = t->seq_len;
    c.num_axes = (int32_t)sec->n_list;
    for (size_t k = 0; k < sec->n_list; k++) {
        c.section[k] = (int32_t)sec->list[k];
    }
    c.interleaved = (int32_t)pecert_vtest_int(t, "mrope_interleaved", 0);
    c.positions = pecert_vtest_input(t, "positions")->data;
    c.tokens = x->shape[0];
    c.heads = x->shape[1];
    return c;
}

/* A failed vector replayed on the oracle with the other frequency-to-axis
 * assignment: when that reproduces the plugin's output, the sections are
 * laid out wrongly (blocks where the model interleaves, the classic
 * Qwen3-VL port bug, or the reverse). */
static void replay_layout(const pecert_check_env *env, pecert_check_result *r, const apply_call *c, const float *x,
                          const float *got, const char *where)
{
    if (c->num_axes != 3) {
        return;
    }
    apply_call other = *c;
    other.interleaved = !c->interleaved;
    pecert_check_result scratch;
    pecert_check_result_init(&scratch, r->check_id);
    float *want = run_apply(&env->oracle, &scratch, &other, x, where);
    if (want != NULL) {
        compare_apply(env, &scratch, &other, x, got, want, where);
        if (scratch.n_failed == 0 && scratch.n_cases > 0) {
            pecert_check_symptom(r, "%s",
                                 c->interleaved ? PECERT_SYMPTOM_MROPE_BLOCKS : PECERT_SYMPTOM_MROPE_INTERLEAVED);
        }
    }
    free(want);
    pecert_check_result_release(&scratch);
}

static void apply_case(const pecert_check_env *env, pecert_check_result *r,
                       const pecert_vtest *t, const char *where)
{
    apply_call c = call_of(t);
    const float *x = pecert_vtest_input(t, "x")->data;
    float *got = run_apply(&env->plugin, r, &c, x, where);
    if (got != NULL) {
        int64_t failed_before = r->n_failed;
        compare_apply(env, r, &c, x, got, pecert_vtest_output(t, "out")->data, where);
        if (r->n_failed > failed_before) {
            replay_layout(env, r, &c, x, got, where);
        }
        free(got);
    }
}

static void run_apply_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_vectors(env, r, "mrope.apply", apply_case);
}

/* ---- mrope.text_only_is_rope -------------------------------------------- */

/* get_rope_index on text only: three equal axes, cumsum(mask) - 1 on the
 * real tokens (plain RoPE positions as generate() builds them). */
static void text_index_case(const pecert_check_env *env, pecert_check_result *r, const index_call *c,
                            const char *where)
{
    pecert_out_buf pos;
    pecert_out_buf deltas;
    if (!run_index(env, r, c, &pos, &deltas, where)) {
        return;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t b = 0; b < c->batch; b++) {
        int64_t count = 0;
        for (int64_t s = 0; s < c->seq; s++) {
            int real = c->mask == NULL || c->mask[b * c->seq + s] == 1;
            count += real;
            for (int axis = 0; axis < 3 && real; axis++) {
                int64_t e = (axis * c->batch + b) * c->seq + s;
                pecert_case_worst_add(&w, e, pecert_out_get(&pos, e), (double)(count - 1), 0.0);
            }
        }
    }
    char elem[96];
    pecert_elem_name(elem, sizeof(elem), "position_ids", 3, pos.view.shape, w.index < 0 ? 0 : w.index);
    pecert_case_finish(r, &w, where, elem);
    pecert_out_free(&pos);
    pecert_out_free(&deltas);
}

#define TEXT_B 3
#define TEXT_S 6

static void run_text_index(const pecert_check_env *env, pecert_check_result *r)
{
    static const int64_t ids[TEXT_B * TEXT_S] = {5, 6, 7, 8, 9, 10, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0, 0, 5};
    static const int64_t mask[TEXT_B * TEXT_S] = {1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1};
    index_call c = {ids, mask, TEXT_B, TEXT_S, NULL, 0, NULL, 0, 2, 151655, 151656, 151652};
    pecert_case_slot_set(env->case_slot, "text-only get_rope_index");
    text_index_case(env, r, &c, "text only, left-padded batch");
    c.mask = NULL;
    text_index_case(env, r, &c, "text only, no attention mask");
}

/* mrope_apply with three equal axes = the plugin's own rope_apply. */
static void text_apply_case(const pecert_check_env *env, pecert_check_result *r,
                            const pecert_vtest *t, const char *where)
{
    static const int64_t grid[] = {0, 1, 2, 7, 100, 4095, 4096, 32767, 65536, 1 << 20};
    enum { N = sizeof(grid) / sizeof(grid[0]), HEADS = 2 };
    apply_call c = call_of(t);
    int64_t pos3[PECERT_MROPE_MAX_AXES * N];
    for (int k = 0; k < c.num_axes; k++) {
        memcpy(pos3 + k * N, grid, sizeof(grid));
    }
    c.positions = pos3;
    c.tokens = N;
    c.heads = HEADS;
    c.seq_len = 0;
    const pecert_rope_pairing pairings[2] = {PECERT_PAIRING_SPLIT_HALF, PECERT_PAIRING_INTERLEAVED};
    float *x = pecert_random_floats(r, (size_t)(N * HEADS * c.config->head_dim), 0x6d726f7065ull + (uint64_t)t->tc_id,
                                    where);
    if (x == NULL) {
        return;
    }
    for (int p = 0; p < 2; p++) {
        char at[PECERT_RESULT_LINE_MAX];
        snprintf(at, sizeof(at), "%s %s, three equal axes", where, pecert_rope_pairing_name(pairings[p]));
        c.pairing = pairings[p];
        pecert_rope_call rc = {c.config, c.pairing, 0, grid, N, HEADS, c.config->head_dim};
        float *want = pecert_rope_run_packed(env, r, &rc, x, at);
        float *got = want != NULL ? run_apply(&env->plugin, r, &c, x, at) : NULL;
        if (got != NULL) {
            pecert_rope_compare(env, r, &rc, x, got, want, at, 0, 1.0);
        }
        free(got);
        free(want);
    }
    free(x);
}

/* The index half needs mrope_index; an engine that only rotates (its
 * position ids come from elsewhere) still gets the rotation half. */
static void run_text_only(const pecert_check_env *env, pecert_check_result *r)
{
    if (pecert_plugin_meets(env->plugin.desc, PECERT_NEED_MROPE_INDEX)) {
        run_text_index(env, r);
    }
    pecert_for_each_test(env, r, "mrope.apply", text_apply_case);
    pecert_check_conclude(r, "text-only cases");
}

const pecert_check pecert_check_mrope_index_golden = {
    PECERT_ID_MROPE_INDEX_GOLDEN, "M-RoPE position ids equal Qwen2-VL get_rope_index (images, videos, padding)",
    PECERT_NEED_MROPE_INDEX, run_index_golden};
const pecert_check pecert_check_mrope_apply_golden = {
    PECERT_ID_MROPE_APPLY_GOLDEN, "M-RoPE rotation equals apply_multimodal_rotary_pos_emb with mrope_section",
    PECERT_NEED_MROPE_APPLY, run_apply_golden};
const pecert_check pecert_check_mrope_text_only_is_rope = {
    PECERT_ID_MROPE_TEXT_ONLY_IS_ROPE, "text-only M-RoPE reduces to plain RoPE (index, when implemented, and rotation)",
    PECERT_NEED_MROPE_APPLY | PECERT_NEED_ROPE_APPLY, run_text_only};
