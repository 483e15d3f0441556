/*
 * rope2d_checks.c - the 2-D RoPE of vision towers (Qwen2-VL, Qwen2.5-VL,
 * Pixtral, Llama 4): per-patch positions exactly against the towers' own
 * position code, the rotation against their apply functions under the RoPE
 * error model, and two properties every 2-D rotation has whatever its
 * checkpoint: it keeps each pair's norm, and a patch in row 0 (column 0)
 * leaves the row (column) axis' channels untouched.
 *
 * A failed golden vector is replayed on the oracle with one convention
 * changed (the axes swapped, the other frequency split, the other pairing,
 * both halves on the first axis, the merge windows flattened); the change
 * that reproduces the plugin's output is the symptom diagnose.c names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

/* ---- rope2d.index.golden --------------------------------------------------- */

typedef pecert_rope2d_index_call index_call;

int pecert_rope2d_run_index(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r,
                            const index_call *c, pecert_out_buf *pos, const char *where)
{
    if (c->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS && !s->is_oracle && !pecert_plugin_speaks(s->desc, 10)) {
        pecert_case_needs_abi(r, s, where, "Qwen2.5-VL's attention-window order", 10);
        return 0;
    }
    int64_t shape[2] = {2, c->tokens};
    if (!pecert_out_open(pos, env, r, PECERT_DTYPE_I64, 2, shape, where)) {
        return 0;
    }
    pecert_rope2d_index_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.scheme = c->scheme;
    a.spatial_merge_size = c->merge;
    a.window_units = c->window_units;
    a.grid_thw = c->grid;
    a.n_images = c->n_images;
    a.out_positions = &pos->view;
    pecert_status st = s->desc->rope2d_index(s->instance, &a);
    return pecert_out_kept(r, s, st, pos, where, "rope2d_index");
}

/* 1 if got holds, for every token, (row, col) of want with the axes as
 * swap says (0: as they are, 1: exchanged). */
static int same_positions(const pecert_out_buf *got, const pecert_vtensor *want, int swap)
{
    int64_t n = want->shape[1];
    for (int64_t i = 0; i < 2 * n; i++) {
        int64_t from = swap ? (i + n) % (2 * n) : i;
        if (pecert_out_get(got, i) != pecert_vtensor_get(want, from)) {
            return 0;
        }
    }
    return 1;
}

/* 1 if got equals the oracle's positions for c with another scheme
 * (merge windows flattened when merge is 1). */
static int oracle_order_matches(const pecert_check_env *env, pecert_check_result *r, const index_call *c,
                                const pecert_out_buf *got, const char *where)
{
    pecert_check_result scratch;
    pecert_check_result_init(&scratch, r->check_id);
    pecert_out_buf other;
    int same = 0;
    if (pecert_rope2d_run_index(env, &env->oracle, &scratch, c, &other, where)) {
        same = 1;
        for (int64_t i = 0; i < 2 * c->tokens && same; i++) {
            same = pecert_out_get(&other, i) == pecert_out_get(got, i);
        }
        pecert_out_free(&other);
    }
    pecert_check_result_release(&scratch);
    return same;
}

/* The merge-window position of token s of one frame of an h x w grid
 * (rot_pos_emb's order, units of m x m patches). */
static void merge_order_position(int64_t s, int64_t m, int64_t w, int64_t *row, int64_t *col)
{
    int64_t unit = s / (m * m);
    int64_t j = s % (m * m);
    *row = unit / (w / m) * m + j / m;
    *col = unit % (w / m) * m + j % m;
}

/*
 * 1 if got is want with every video's frames interleaved: rot_pos_emb's
 * table for t frames built by repeating each row t times in place instead
 * of tiling the frame t times (mlx-vlm before ab838c57: mx.repeat for
 * torch's .repeat(t, 1)), then put in the scheme's order. Token k of a
 * frame sits at merge-order index q = frame * h * w + its unit's index * m^2
 * + its place in the unit; the interleaved table gives it row q / t of
 * one frame. Needs a video (t > 1); the row-major schemes take none.
 */
static int frames_interleaved(const pecert_out_buf *got, const pecert_vtensor *want, const index_call *c)
{
    int64_t n = want->shape[1];
    int64_t first = 0;
    int video = 0;
    if (c->scheme != PECERT_ROPE2D_MERGE_WINDOWS && c->scheme != PECERT_ROPE2D_ATTENTION_WINDOWS) {
        return 0;
    }
    for (int64_t img = 0; img < c->n_images; img++) {
        const int64_t *g = c->grid + 3 * img;
        int64_t m = c->merge;
        int64_t frame_tokens = g[1] * g[2];
        video |= g[0] > 1;
        for (int64_t k = 0; k < g[0] * frame_tokens; k++) {
            int64_t r = pecert_vtensor_get(want, first + k);
            int64_t col = pecert_vtensor_get(want, n + first + k);
            int64_t q = k / frame_tokens * frame_tokens + (r / m * (g[2] / m) + col / m) * m * m + r % m * m + col % m;
            int64_t bad_r, bad_c;
            merge_order_position(q / g[0], m, g[2], &bad_r, &bad_c);
            if (pecert_out_get(got, first + k) != bad_r || pecert_out_get(got, n + first + k) != bad_c) {
                return 0;
            }
        }
        first += g[0] * frame_tokens;
    }
    return video;
}

/* A failed index replayed: rows and columns exchanged, a video's frames
 * interleaved, the attention windows left out (Qwen2.5-VL's tokens
 * reordered and its rotary table not), or the grid flattened row by row
 * (the oracle with windows of one patch). */
static void explain_index(const pecert_check_env *env, pecert_check_result *r, const index_call *c,
                          const pecert_out_buf *got, const pecert_vtensor *want, const char *where)
{
    if (same_positions(got, want, 1)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_INDEX_AXES_SWAPPED);
        return;
    }
    if (frames_interleaved(got, want, c)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_FRAMES_INTERLEAVED);
        return;
    }
    index_call other = *c;
    if (c->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS) {
        other.scheme = PECERT_ROPE2D_MERGE_WINDOWS;
        other.window_units = 0;
        if (oracle_order_matches(env, r, &other, got, where)) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_ORDER_MERGE_WINDOWS);
            return;
        }
    }
    if ((c->scheme == PECERT_ROPE2D_MERGE_WINDOWS || c->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS) &&
        c->merge > 1) {
        other.scheme = PECERT_ROPE2D_MERGE_WINDOWS;
        other.merge = 1;
        other.window_units = 0;
        if (oracle_order_matches(env, r, &other, got, where)) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_ORDER_ROW_MAJOR);
        }
    }
}

void pecert_rope2d_judge_index(const pecert_check_env *env, pecert_check_result *r, const index_call *c,
                               const pecert_out_buf *got, const pecert_vtensor *want, const char *where)
{
    int64_t failed_before = r->n_failed;
    pecert_compare_exact(r, got, want, where);
    if (r->n_failed > failed_before) {
        explain_index(env, r, c, got, want, where);
    }
}

static void index_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                       const char *where)
{
    const pecert_vtensor *grid = pecert_vtest_input(t, "grid_thw");
    const pecert_vtensor *want = pecert_vtest_output(t, "positions");
    index_call c = {(int32_t)pecert_vtest_int(t, "scheme", 0),
                    (int32_t)pecert_vtest_int(t, "spatial_merge_size", 1), grid->data, grid->shape[0],
                    want->shape[1], (int32_t)pecert_vtest_int(t, "window_units", 0)};
    pecert_out_buf pos;
    if (!pecert_rope2d_run_index(env, &env->plugin, r, &c, &pos, where)) {
        return;
    }
    pecert_rope2d_judge_index(env, r, &c, &pos, want, where);
    pecert_out_free(&pos);
}

static void run_index_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "rope2d.index", index_case);
}

/* ---- the rotation ------------------------------------------------------------ */

typedef pecert_rope2d_apply_call apply_call;

static apply_call call_of(const pecert_vtest *t)
{
    const pecert_vtensor *x = pecert_vtest_input(t, "x");
    apply_call c = {(pecert_rope_pairing)pecert_vtest_int(t, "pairing", 0),
                    (int32_t)pecert_vtest_int(t, "frequencies", 0),
                    (int32_t)pecert_vtest_int(t, "columns_first", 0),
                    (int32_t)pecert_vtest_int(t, "head_dim", 4),
                    pecert_vtest_number(t, "theta", 10000.0),
                    pecert_vtest_input(t, "positions")->data,
                    x->shape[0],
                    x->shape[1]};
    return c;
}

float *pecert_rope2d_run_apply(const pecert_subject *s, pecert_check_result *r, const apply_call *c,
                               const float *x, const char *where)
{
    pecert_rows_call io;
    if (!pecert_rows_open(&io, r, x, c->tokens, c->heads, c->head_dim, where)) {
        return NULL;
    }
    pecert_rope2d_apply_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.pairing = c->pairing;
    a.frequencies = c->frequencies;
    a.columns_first = c->columns_first;
    a.head_dim = c->head_dim;
    a.theta = c->theta;
    a.positions = c->positions;
    a.x = &io.x;
    a.out = &io.out;
    pecert_status st = s->desc->rope2d_apply(s->instance, &a);
    return pecert_floats_kept(r, s, st, io.data, where, "rope2d_apply");
}

/* Pair j's frequency as plugin.h states it: theta^(-2k/D) with k = 2i in
 * the first half (i = j) and k = 2i (BLOCKS) or 2i + 1 (ALTERNATE) in the
 * second (i = j - D/4). k is the index an engine's recurrence over
 * theta^(-2/D) reaches it at, which the error model charges. */
static double pair_freq(const apply_call *c, int64_t j, int64_t *out_k)
{
    int64_t q = c->head_dim / 4;
    int64_t k = 2 * (j % q) + (j >= q && c->frequencies == PECERT_ROPE2D_ALTERNATE ? 1 : 0);
    *out_k = k;
    return pow(c->theta, -2.0 * (double)k / (double)c->head_dim);
}

/* The position pair j of token t turns by. */
static int64_t pair_position(const apply_call *c, int64_t j, int64_t t)
{
    int first_half = j < c->head_dim / 4;
    int column = first_half == (c->columns_first != 0);
    return c->positions[(column ? c->tokens : 0) + t];
}

static void pair_channels(const apply_call *c, int64_t j, int64_t *a, int64_t *b)
{
    pecert_rope_pair(c->pairing, c->head_dim, j, a, b);
}

/* Every channel under pecert_tol_rotated at its pair's angle, into *w. */
static void apply_worst(pecert_case_worst *w, const apply_call *c, const float *x, const float *got,
                        const float *want)
{
    int64_t hd = c->head_dim;
    pecert_case_worst_init(w);
    for (int64_t j = 0; j < hd / 2; j++) {
        int64_t k;
        double f = pair_freq(c, j, &k);
        int64_t ia;
        int64_t ib;
        pair_channels(c, j, &ia, &ib);
        for (int64_t t = 0; t < c->tokens; t++) {
            double angle = fabs((double)pair_position(c, j, t)) * f;
            for (int64_t h = 0; h < c->heads; h++) {
                int64_t base = (t * c->heads + h) * hd;
                double bound = pecert_tol_rotated(hypot(x[base + ia], x[base + ib]), angle, f, k, 1.0);
                pecert_case_worst_add_pair(w, base, ia, ib, got, want, bound);
            }
        }
    }
}

static void finish_apply(pecert_check_result *r, const pecert_case_worst *w, const apply_call *c,
                         const char *where)
{
    int64_t e = w->index < 0 ? 0 : w->index;
    int64_t tok = e / (c->heads * c->head_dim);
    char elem[160];
    snprintf(elem, sizeof(elem), "[t=%lld,h=%lld,d=%lld] (row,col)=(%lld,%lld)", (long long)tok,
             (long long)((e / c->head_dim) % c->heads), (long long)(e % c->head_dim),
             (long long)c->positions[tok], (long long)c->positions[c->tokens + tok]);
    pecert_case_finish(r, w, where, elem);
}

/* 1 if the oracle, asked `other`, reproduces got under other's bounds. */
static int oracle_explains(const pecert_check_env *env, const pecert_check_result *r, const apply_call *other,
                           const float *x, const float *got, const char *where)
{
    pecert_check_result scratch;
    pecert_check_result_init(&scratch, r->check_id);
    float *want = pecert_rope2d_run_apply(&env->oracle, &scratch, other, x, where);
    int explains = 0;
    if (want != NULL) {
        pecert_case_worst w;
        apply_worst(&w, other, x, got, want);
        explains = pecert_case_worst_holds(&w);
    }
    free(want);
    pecert_check_result_release(&scratch);
    return explains;
}

/* mlx-vlm PR #62's bug: cos/sin laid out for interleaved pairs (each
 * entry repeated) while rotate_half pairs channel d with d + D/2, so
 * channel d turns with pair d/2's angle. Computed here in double from
 * plugin.h's frequencies; 1 if it reproduces got. */
static int repeated_layout_explains(const apply_call *c, const float *x, const float *got)
{
    if (c->pairing != PECERT_PAIRING_SPLIT_HALF) {
        return 0;
    }
    int64_t hd = c->head_dim;
    int64_t half = hd / 2;
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t t = 0; t < c->tokens; t++) {
        for (int64_t h = 0; h < c->heads; h++) {
            const float *in = x + (t * c->heads + h) * hd;
            for (int64_t d = 0; d < hd; d++) {
                int64_t k;
                double f = pair_freq(c, d / 2, &k);
                double angle = (double)pair_position(c, d / 2, t) * f;
                double partner = d < half ? -in[d + half] : in[d - half];
                double want = in[d] * cos(angle) + partner * sin(angle);
                double bound = pecert_tol_rotated(hypot(in[d], partner), fabs(angle), f, k, 1.0);
                pecert_case_worst_add(&w, d, got[(t * c->heads + h) * hd + d], want, bound);
            }
        }
    }
    return pecert_case_worst_holds(&w);
}

/* Both halves turned by the first axis' position (ncnn #6833: the second
 * half rotated with the first half's cos/sin). */
static int one_axis_explains(const pecert_check_env *env, const pecert_check_result *r, const apply_call *c,
                             const float *x, const float *got, const char *where)
{
    int64_t *pos = malloc(2 * (size_t)(c->tokens > 0 ? c->tokens : 1) * sizeof(int64_t));
    if (pos == NULL) {
        return 0;
    }
    const int64_t *first = c->positions + (c->columns_first ? c->tokens : 0);
    memcpy(pos, first, (size_t)c->tokens * sizeof(int64_t));
    memcpy(pos + c->tokens, first, (size_t)c->tokens * sizeof(int64_t));
    apply_call other = *c;
    other.positions = pos;
    int explains = oracle_explains(env, r, &other, x, got, where);
    free(pos);
    return explains;
}

/* A failed vector: the first convention change that reproduces got. */
static void explain_apply(const pecert_check_env *env, pecert_check_result *r, const apply_call *c, const float *x,
                          const float *got, const char *where)
{
    apply_call other = *c;
    other.columns_first = !c->columns_first;
    if (oracle_explains(env, r, &other, x, got, where)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_AXES_SWAPPED);
        return;
    }
    other = *c;
    other.frequencies = c->frequencies == PECERT_ROPE2D_BLOCKS ? PECERT_ROPE2D_ALTERNATE : PECERT_ROPE2D_BLOCKS;
    if (oracle_explains(env, r, &other, x, got, where)) {
        pecert_check_symptom(r, "%s",
                             other.frequencies == PECERT_ROPE2D_BLOCKS ? PECERT_SYMPTOM_ROPE2D_FREQUENCIES_BLOCKS
                                                                       : PECERT_SYMPTOM_ROPE2D_FREQUENCIES_ALTERNATE);
        return;
    }
    other = *c;
    other.pairing = c->pairing == PECERT_PAIRING_SPLIT_HALF ? PECERT_PAIRING_INTERLEAVED : PECERT_PAIRING_SPLIT_HALF;
    if (oracle_explains(env, r, &other, x, got, where)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_PAIRING);
        return;
    }
    if (one_axis_explains(env, r, c, x, got, where)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_ONE_AXIS);
        return;
    }
    if (repeated_layout_explains(c, x, got)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_COS_LAYOUT);
    }
}

void pecert_rope2d_judge_apply(const pecert_check_env *env, pecert_check_result *r, const apply_call *c,
                               const float *x, const float *got, const float *want, const char *where)
{
    pecert_case_worst w;
    apply_worst(&w, c, x, got, want);
    finish_apply(r, &w, c, where);
    if (w.n_bad > 0) {
        explain_apply(env, r, c, x, got, where);
    }
}

/* ---- rope2d.apply.golden ----------------------------------------------------- */

static void apply_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                       const char *where)
{
    apply_call c = call_of(t);
    const float *x = pecert_vtest_input(t, "x")->data;
    float *got = pecert_rope2d_run_apply(&env->plugin, r, &c, x, where);
    if (got == NULL) {
        return;
    }
    pecert_rope2d_judge_apply(env, r, &c, x, got, pecert_vtest_output(t, "out")->data, where);
    free(got);
}

static void run_apply_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_vectors(env, r, "rope2d.apply", apply_case);
}

/* ---- rope2d.norm_preservation ---------------------------------------------- */

/* |out pair| = |x pair| within value rounding (pecert_tol_norm): a 2-D
 * RoPE is a rotation of every pair, whatever its angles. */
static void norm_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                      const char *where)
{
    apply_call c = call_of(t);
    const float *x = pecert_vtest_input(t, "x")->data;
    float *got = pecert_rope2d_run_apply(&env->plugin, r, &c, x, where);
    if (got == NULL) {
        return;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    int64_t hd = c.head_dim;
    for (int64_t e = 0; e < c.tokens * c.heads; e++) {
        for (int64_t j = 0; j < hd / 2; j++) {
            int64_t a;
            int64_t b;
            pair_channels(&c, j, &a, &b);
            double norm = hypot(x[e * hd + a], x[e * hd + b]);
            pecert_case_worst_add(&w, e * hd + a, hypot(got[e * hd + a], got[e * hd + b]), norm,
                                  pecert_tol_norm(norm, 1.0));
        }
    }
    finish_apply(r, &w, &c, where);
    pecert_case_worst_symptom(r, &w, "rope2d_not_rotation");
    free(got);
}

static void run_norm(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "rope2d.apply", norm_case);
}

/* ---- rope2d.axis_separation -------------------------------------------------- */

/* Positions on one axis only: rows 1, 2, 7, 63 in column 0, then columns
 * 1, 2, 7, 63 in row 0. A patch in column 0 must leave the column axis'
 * channels bit for bit (angle 0: cos 1, sin 0); likewise for row 0. How
 * the other axis' channels turn is rope2d.apply.golden's to judge. */
#define SEP_N 4
#define SEP_HEADS 2

static void separation_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                            const char *where)
{
    static const int64_t steps[SEP_N] = {1, 2, 7, 63};
    int64_t pos[2 * 2 * SEP_N] = {0};
    for (int i = 0; i < SEP_N; i++) {
        pos[i] = steps[i];                      /* rows of tokens 0..3: (r, 0)       */
        pos[2 * SEP_N + SEP_N + i] = steps[i];  /* columns of tokens 4..7: (0, c)    */
    }
    apply_call c = call_of(t);
    c.positions = pos;
    c.tokens = 2 * SEP_N;
    c.heads = SEP_HEADS;
    float *x = pecert_random_floats(r, (size_t)(c.tokens * c.heads * c.head_dim), 0x726f70653264ull + (uint64_t)t->tc_id,
                                    where);
    if (x == NULL) {
        return;
    }
    float *got = pecert_rope2d_run_apply(&env->plugin, r, &c, x, where);
    if (got != NULL) {
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int64_t tok = 0; tok < c.tokens; tok++) {
            int moved_axis_is_column = tok >= SEP_N;
            for (int64_t j = 0; j < c.head_dim / 2; j++) {
                int first_half = j < c.head_dim / 4;
                int pair_is_column = first_half == (c.columns_first != 0);
                if (pair_is_column == moved_axis_is_column) {
                    continue; /* turns: the golden check's business */
                }
                int64_t a;
                int64_t b;
                pair_channels(&c, j, &a, &b);
                for (int64_t h = 0; h < c.heads; h++) {
                    int64_t base = (tok * c.heads + h) * c.head_dim;
                    pecert_case_worst_add(&w, base + a, got[base + a], x[base + a], 0.0);
                    pecert_case_worst_add(&w, base + b, got[base + b], x[base + b], 0.0);
                }
            }
        }
        finish_apply(r, &w, &c, where);
        pecert_case_worst_symptom(r, &w, "rope2d_axis_leak");
    }
    free(got);
    free(x);
}

static void run_separation(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "rope2d.apply", separation_case);
}

const pecert_check pecert_check_rope2d_index_golden = {
    PECERT_ID_ROPE2D_INDEX_GOLDEN,
    "vision-tower patch positions equal Qwen2-VL rot_pos_emb, Pixtral position_ids_in_meshgrid, Llama 4's table",
    PECERT_NEED_ROPE2D_INDEX, run_index_golden};
const pecert_check pecert_check_rope2d_apply_golden = {
    PECERT_ID_ROPE2D_APPLY_GOLDEN,
    "2-D vision RoPE equals the towers' apply functions (Qwen2-VL, Qwen2.5-VL, Pixtral, Llama 4)",
    PECERT_NEED_ROPE2D_APPLY, run_apply_golden};
const pecert_check pecert_check_rope2d_norm_preservation = {
    PECERT_ID_ROPE2D_NORM_PRESERVATION, "2-D vision RoPE keeps the norm of every channel pair",
    PECERT_NEED_ROPE2D_APPLY, run_norm};
const pecert_check pecert_check_rope2d_axis_separation = {
    PECERT_ID_ROPE2D_AXIS_SEPARATION, "a patch in row 0 (column 0) leaves the row (column) axis' channels bit for bit",
    PECERT_NEED_ROPE2D_APPLY, run_separation};
