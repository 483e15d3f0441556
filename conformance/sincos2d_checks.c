/*
 * sincos2d_checks.c - 2-D sin-cos embeddings against the golden vectors of
 * facebookresearch/mae util/pos_embed.py (square and non-square grids,
 * with and without the cls row) and of RT-DETR's
 * build_2d_sincos_position_embedding (transformers v4.57.6; layout
 * rt_detr, ABI 1.14). Bound per channel: the angle bound of tolerance.h at
 * that channel's frequency and coordinate.
 */
#include <math.h>
#include <stdio.h>
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

/* The expected table, element by element: the official vectors' or ref's. */
typedef double (*want_at_fn)(const void *want, int64_t i);

static double vtensor_at(const void *want, int64_t i)
{
    return pecert_vtensor_get(want, i);
}

static double out_at(const void *want, int64_t i)
{
    return pecert_out_get(want, i);
}

/* Whether got misses the expected table and sits, element for element,
 * within the same bound of the row-major numbering's. */
static int row_major_explains(const grid_ctx *c, const pecert_out_buf *got, want_at_fn want_at, const void *want)
{
    int missed = 0;
    for (int64_t i = 0; i < got->n; i++) {
        double g = pecert_out_get(got, i), bound = grid_bound(c, i, 0.0);
        if (!(fabs(g - row_major_value(c, i)) <= bound)) {
            return 0;
        }
        missed |= !(fabs(g - want_at(want, i)) <= bound);
    }
    return missed;
}

static grid_ctx grid_of(const pecert_sincos2d_args *a)
{
    return (grid_ctx){a->embed_dim, a->grid_h, a->grid_w, a->cls_token, a->layout, a->base};
}

/* One call of sincos_2d on s into a fresh output (pecert_out_open), its
 * layout gated on the ABI that has it; 0 when the case ended there. */
static int run_on(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r,
                  const pecert_sincos2d_args *shape, pecert_out_buf *out, const char *where)
{
    if (shape->layout != PECERT_SINCOS2D_MAE && !s->is_oracle && !pecert_plugin_speaks(s->desc, 14)) {
        pecert_case_needs_abi(r, s, where, "RT-DETR's table layout", 14);
        return 0;
    }
    int64_t dims[2] = {(int64_t)shape->cls_token + (int64_t)shape->grid_h * shape->grid_w, shape->embed_dim};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_F32, 2, dims, where)) {
        return 0;
    }
    pecert_sincos2d_args a = *shape;
    a.struct_size = sizeof(a);
    a.out = &out->view;
    return pecert_out_kept(r, s, s->desc->sincos_2d(s->instance, &a), out, where, "sincos_2d");
}

static void golden_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                        const char *where)
{
    const pecert_vtensor *want = pecert_vtest_output(t, "embedding");
    pecert_sincos2d_args a;
    memset(&a, 0, sizeof(a));
    a.embed_dim = (int32_t)pecert_vtest_int(t, "embed_dim", 0);
    a.grid_h = (int32_t)pecert_vtest_int(t, "grid_h", 0);
    a.grid_w = (int32_t)pecert_vtest_int(t, "grid_w", 0);
    a.cls_token = (int32_t)pecert_vtest_int(t, "cls_token", 0);
    a.layout = (int32_t)pecert_vtest_int(t, "layout", PECERT_SINCOS2D_MAE);
    a.base = pecert_vtest_number(t, "base", 1e4);
    pecert_out_buf out;
    if (!run_on(env, &env->plugin, r, &a, &out, where)) {
        return;
    }
    grid_ctx c = grid_of(&a);
    if (a.layout == PECERT_SINCOS2D_RT_DETR && row_major_explains(&c, &out, vtensor_at, want)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_SINCOS2D_RTDETR_ROW_MAJOR);
    }
    pecert_compare_bounded(r, &out, want, grid_bound, &c, where);
    pecert_out_free(&out);
}

void pecert_sincos2d_against_oracle(const pecert_check_env *env, pecert_check_result *r,
                                    const pecert_sincos2d_args *shape, const char *where)
{
    pecert_out_buf want, got;
    if (!run_on(env, &env->oracle, r, shape, &want, where)) {
        return;
    }
    if (run_on(env, &env->plugin, r, shape, &got, where)) {
        grid_ctx c = grid_of(shape);
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int64_t i = 0; i < got.n; i++) {
            pecert_case_worst_add(&w, i, pecert_out_get(&got, i), pecert_out_get(&want, i), grid_bound(&c, i, 0.0));
        }
        char elem[96];
        int64_t e = w.index < 0 ? 0 : w.index;
        snprintf(elem, sizeof(elem), "[row %lld, channel %lld]", (long long)(e / shape->embed_dim),
                 (long long)(e % shape->embed_dim));
        pecert_case_finish(r, &w, where, elem);
        if (w.n_bad > 0 && shape->layout == PECERT_SINCOS2D_RT_DETR && row_major_explains(&c, &got, out_at, &want)) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_SINCOS2D_RTDETR_ROW_MAJOR);
        }
        pecert_out_free(&got);
    }
    pecert_out_free(&want);
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
