/*
 * sincos2d_checks.c - 2-D sin-cos embeddings against the golden vectors of
 * facebookresearch/mae util/pos_embed.py (square and non-square grids,
 * with and without the cls row) and of RT-DETR's
 * build_2d_sincos_position_embedding (transformers v4.57.6; layout
 * rt_detr, ABI 1.14). Bound per channel: the angle bound of tolerance.h at
 * that channel's frequency and coordinate.
 */
#include <math.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"

typedef struct grid_ctx {
    int64_t dim;
    int64_t grid_h;
    int64_t grid_w;
    int64_t cls;
    int32_t layout;
    double base;
} grid_ctx;

/* The coordinate channel j of table row k encodes (plugin.h): the first
 * half MAE's column or RT-DETR's k / grid_h, the second MAE's row or
 * RT-DETR's k mod grid_h. */
static int64_t grid_coord(const grid_ctx *c, int64_t k, int64_t j)
{
    int first = j < c->dim / 2;
    if (c->layout == PECERT_SINCOS2D_RT_DETR) {
        return first ? k / c->grid_h : k % c->grid_h;
    }
    return first ? k % c->grid_w : k / c->grid_w;
}

/* The angle of element i: channel j's coordinate at frequency
 * base^(-(j mod D/4) / (D/4)). */
static double grid_bound(const void *ctx, int64_t i, double want)
{
    const grid_ctx *c = ctx;
    int64_t row = i / c->dim;
    int64_t j = i % c->dim;
    int64_t q = c->dim / 4;
    (void)want;
    if (row < c->cls) {
        return 0.0; /* the cls row is exactly zero */
    }
    double coord = (double)grid_coord(c, row - c->cls, j);
    double f = exp(-log(c->base) * (double)(j % q) / (double)q);
    return pecert_tol_trig(coord * f, f, PECERT_TOL_PER_CHANNEL, 1.0);
}

/* The value of element i if RT-DETR's rows were the row-major patches
 * (k / grid_w | k mod grid_w): transformers after v4.57.6 (PR #41380). */
static double row_major_value(const grid_ctx *c, int64_t i)
{
    int64_t k = i / c->dim - c->cls, j = i % c->dim, q = c->dim / 4;
    if (k < 0) {
        return 0.0;
    }
    double coord = (double)(j < 2 * q ? k / c->grid_w : k % c->grid_w);
    double angle = coord * exp(-log(c->base) * (double)(j % q) / (double)q);
    return (j % (2 * q)) < q ? sin(angle) : cos(angle);
}

/* Whether got misses the official table and sits, element for element,
 * within the same bound of the row-major numbering's. */
static int row_major_explains(const grid_ctx *c, const pecert_out_buf *got, const pecert_vtensor *want)
{
    int missed = 0;
    for (int64_t i = 0; i < got->n; i++) {
        double g = pecert_out_get(got, i), bound = grid_bound(c, i, 0.0);
        if (!(fabs(g - row_major_value(c, i)) <= bound)) {
            return 0;
        }
        missed |= !(fabs(g - pecert_vtensor_get(want, i)) <= bound);
    }
    return missed;
}

static void golden_case(const pecert_check_env *env, pecert_check_result *r,
                        const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *want = pecert_vtest_output(t, "embedding");
    int32_t layout = (int32_t)pecert_vtest_int(t, "layout", PECERT_SINCOS2D_MAE);
    if (layout != PECERT_SINCOS2D_MAE && !env->plugin.is_oracle && !pecert_plugin_speaks(env->plugin.desc, 14)) {
        pecert_case_needs_abi(r, &env->plugin, where, "RT-DETR's table layout", 14);
        return;
    }
    pecert_out_buf out;
    if (!pecert_out_open(&out, env, r, PECERT_DTYPE_F32, 2, want->shape, where)) {
        return;
    }
    pecert_sincos2d_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.embed_dim = (int32_t)pecert_vtest_int(t, "embed_dim", 0);
    a.grid_h = (int32_t)pecert_vtest_int(t, "grid_h", 0);
    a.grid_w = (int32_t)pecert_vtest_int(t, "grid_w", 0);
    a.cls_token = (int32_t)pecert_vtest_int(t, "cls_token", 0);
    a.layout = layout;
    a.base = pecert_vtest_number(t, "base", 1e4);
    a.out = &out.view;
    grid_ctx c = {a.embed_dim, a.grid_h, a.grid_w, a.cls_token, a.layout, a.base};
    pecert_status st = env->plugin.desc->sincos_2d(env->plugin.instance, &a);
    if (st == PECERT_OK && layout == PECERT_SINCOS2D_RT_DETR && row_major_explains(&c, &out, want)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_SINCOS2D_RTDETR_ROW_MAJOR);
    }
    pecert_judge_bounded(r, &env->plugin, st, &out, want, grid_bound, &c, where, "sincos_2d");
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "sincos2d.embed", golden_case);
}

const pecert_check pecert_check_sincos2d_golden = {
    PECERT_ID_SINCOS2D_GOLDEN,
    "2-D sin-cos tables equal MAE's get_2d_sincos_pos_embed (non-square too) and RT-DETR's "
    "build_2d_sincos_position_embedding",
    PECERT_NEED_SINCOS_2D, run_golden};
