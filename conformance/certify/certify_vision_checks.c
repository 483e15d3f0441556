/*
 * certify_vision_checks.c - certify.rope2d.reference: a checkpoint's vision
 * tower (certify_config.h: pecert_certify_vision) on the plugin against
 * `ref`, at exactly the tower's parameters and the image grids certified.
 *
 * The patch positions must be ref's bit for bit, in the tower's order,
 * for every image of one call (the offsets between images are part of
 * the answer). The rotation is then judged on ref's positions, so that a
 * wrong order and a wrong rotation are told apart: its bound is the RoPE
 * error model at each pair's angle (TOLERANCES.md, "2-D RoPE"), and a
 * failure is replayed on ref with one convention changed, as the golden
 * check does (rope2d_checks.c), to name the convention.
 *
 * certify.posinterp.reference: a tower that adds a learned position table
 * resized to each image (Qwen3-VL, the ViT family) has that resize judged
 * the same way: a random table of the tower's shape, each image's grid,
 * the plugin's pos_interpolate against ref's under the per-element bound
 * of posinterp_checks.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certify_checks.h"
#include "family.h"
#include "isolate.h"
#include "rope_checks.h"

/* Heads per rotation call: two catch a head-stride bug; the rotation is
 * the same in every head. */
#define VISION_HEADS 2

/* Tokens the tower's index gives for its grids: t x h x w per image, and
 * Llama 4's class token after each. */
static int64_t vision_tokens(const pecert_certify_vision *v)
{
    int64_t n = 0;
    for (int i = 0; i < v->n_images; i++) {
        n += v->grid_thw[i][0] * v->grid_thw[i][1] * v->grid_thw[i][2] +
             (v->scheme == PECERT_ROPE2D_ROW_MAJOR_CLS ? 1 : 0);
    }
    return n;
}

static void grids_label(char *out, size_t len, const pecert_certify_vision *v)
{
    size_t used = (size_t)snprintf(out, len, "%s grids", v->tower);
    for (int i = 0; i < v->n_images && used < len; i++) {
        used += (size_t)snprintf(out + used, len - used, "%s%lldx%lldx%lld", i == 0 ? " " : ", ",
                                 (long long)v->grid_thw[i][0], (long long)v->grid_thw[i][1],
                                 (long long)v->grid_thw[i][2]);
    }
}

/* The positions, plugin against ref; ref's into want_pos [2, tokens]
 * (0 when ref gave none: nothing else can be judged). */
static int index_part(const pecert_check_env *env, pecert_check_result *r, const pecert_rope2d_index_call *c,
                      int64_t *want_pos, const char *where)
{
    pecert_out_buf want;
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    if (!pecert_rope2d_run_index(env, &env->oracle, r, c, &want, where)) {
        return 0;
    }
    for (int64_t i = 0; i < 2 * c->tokens; i++) {
        want_pos[i] = (int64_t)pecert_out_get(&want, i);
    }
    pecert_out_free(&want);
    pecert_vtensor expected = {"positions", PECERT_DTYPE_I64, 2, {2, c->tokens}, 2 * c->tokens, want_pos};
    pecert_out_buf got;
    if (pecert_rope2d_run_index(env, &env->plugin, r, c, &got, where)) {
        int64_t failed_before = r->n_failed;
        pecert_rope2d_judge_index(env, r, c, &got, &expected, where);
        if (r->n_failed > failed_before) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_INDEX_WRONG);
        }
        pecert_out_free(&got);
    }
    return 1;
}

/* The rotation of random q at ref's positions, plugin against ref. */
static void apply_part(const pecert_check_env *env, pecert_check_result *r, const pecert_certify_vision *v,
                       const int64_t *pos, int64_t tokens, const char *where)
{
    pecert_rope2d_apply_call c = {v->pairing, v->frequencies, v->columns_first, v->head_dim, v->theta,
                                  pos, tokens, VISION_HEADS};
    float *x = pecert_random_floats(r, (size_t)(tokens * VISION_HEADS * v->head_dim), 0x766973696f6eull, where);
    if (x == NULL) {
        return;
    }
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    float *want = pecert_rope2d_run_apply(&env->oracle, r, &c, x, where);
    float *got = want != NULL ? pecert_rope2d_run_apply(&env->plugin, r, &c, x, where) : NULL;
    if (got != NULL) {
        int64_t failed_before = r->n_failed;
        pecert_rope2d_judge_apply(env, r, &c, x, got, want, where);
        if (r->n_failed > failed_before) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ROPE2D_ROTATION_WRONG);
        }
    }
    free(got);
    free(want);
    free(x);
}

static void run_rope2d_reference(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_vision *v = &env->certify_model->vision;
    int64_t tokens = vision_tokens(v);
    int64_t *pos = malloc(2 * (size_t)(tokens > 0 ? tokens : 1) * sizeof(int64_t));
    char grids[256];
    char where[320];
    grids_label(grids, sizeof(grids), v);
    if (pos == NULL) {
        pecert_case_fail(r, grids, "out of memory");
    } else {
        pecert_rope2d_index_call ic = {v->scheme, v->spatial_merge_size, &v->grid_thw[0][0], v->n_images, tokens,
                                       v->window_units};
        snprintf(where, sizeof(where), "rope2d_index %s", grids);
        if (index_part(env, r, &ic, pos, where)) {
            snprintf(where, sizeof(where), "rope2d_apply %s, %d heads of %d", grids, VISION_HEADS, v->head_dim);
            apply_part(env, r, v, pos, tokens, where);
        }
    }
    free(pos);
    pecert_check_conclude(r, "rope2d cases");
}

/* ---- certify.posinterp.reference ----------------------------------------- */

/* One image's h x w grid from the table, resized as the tower does
 * (Qwen3VLVisionModel.fast_pos_embed_interpolate: bilinear, corners to
 * corners, merge windows, a video's frames repeating the same rows; the
 * ViT family's interpolate_pos_encoding: bicubic, half-pixel centres,
 * the size form, its class rows copied). */
static void table_case(const pecert_check_env *env, pecert_check_result *r, const pecert_certify_vision *v,
                       const float *table, const int64_t *grid)
{
    pecert_posinterp_call c;
    memset(&c, 0, sizeof(c));
    c.a.struct_size = sizeof(c.a);
    c.a.mode = v->table_mode;
    c.a.align_corners = v->table_align_corners;
    c.a.antialias = v->table_antialias;
    c.a.prefix_tokens = v->table_prefix;
    c.a.merge_size = v->table_merge;
    c.a.grid_h = c.a.grid_w = v->table_side;
    c.a.out_h = grid[1];
    c.a.out_w = grid[2];
    c.table = table;
    c.dim = v->hidden_size;
    char where[160];
    snprintf(where, sizeof(where), "pos_interpolate %s table %dx%d -> %lldx%lld, %d channels", v->tower,
             v->table_side, v->table_side, (long long)grid[1], (long long)grid[2], v->hidden_size);
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    pecert_out_buf want;
    pecert_out_buf got;
    if (!pecert_posinterp_run(env, &env->oracle, r, &c, &want, where)) {
        return;
    }
    if (pecert_posinterp_run(env, &env->plugin, r, &c, &got, where)) {
        pecert_posinterp_judge(env, r, &c, &got, &want, where);
        pecert_out_free(&got);
    }
    pecert_out_free(&want);
}

static void run_posinterp_reference(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_vision *v = &env->certify_model->vision;
    size_t n = ((size_t)v->table_prefix + (size_t)v->table_side * (size_t)v->table_side) * (size_t)v->hidden_size;
    float *table = pecert_random_floats(r, n, 0x7461626c65ull, "pos_interpolate");
    for (int i = 0; table != NULL && i < v->n_images; i++) {
        table_case(env, r, v, table, v->grid_thw[i]);
    }
    free(table);
    pecert_check_conclude(r, "resize cases");
}

const pecert_check pecert_check_certify_posinterp_reference = {
    PECERT_ID_CERTIFY_POSINTERP_REFERENCE,
    "the vision tower's learned position table resized to each image grid equals ref",
    PECERT_NEED_POS_INTERPOLATE, run_posinterp_reference};

const pecert_check pecert_check_certify_rope2d_reference = {
    PECERT_ID_CERTIFY_ROPE2D_REFERENCE,
    "the vision tower's patch positions and 2-D rotation at its parameters and image grids equal ref",
    PECERT_NEED_ROPE2D_INDEX | PECERT_NEED_ROPE2D_APPLY, run_rope2d_reference};
