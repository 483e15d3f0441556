/*
 * sincos2d_checks.c - 2-D sin-cos (ViT/MAE) embeddings against the golden
 * vectors of facebookresearch/mae util/pos_embed.py, square and
 * non-square grids, with and without the cls row. Bound per channel: the
 * angle bound of tolerance.h at that channel's frequency.
 */
#include <math.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"

typedef struct grid_ctx {
    int64_t dim;
    int64_t grid_w;
    int64_t cls;
    double base;
} grid_ctx;

/* The angle of element i: channel j encodes the column (j < D/2) or the
 * row, at frequency base^(-(j mod D/4) / (D/4)). */
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
    int64_t patch = row - c->cls;
    double coord = (double)(j < 2 * q ? patch % c->grid_w : patch / c->grid_w);
    double f = exp(-log(c->base) * (double)(j % q) / (double)q);
    return pecert_tol_trig(coord * f, f, PECERT_TOL_PER_CHANNEL, 1.0);
}

static void golden_case(const pecert_check_env *env, pecert_check_result *r,
                        const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *want = pecert_vtest_output(t, "embedding");
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
    a.base = pecert_vtest_number(t, "base", 1e4);
    a.out = &out.view;
    grid_ctx c = {a.embed_dim, a.grid_w, a.cls_token, a.base};
    pecert_status st = env->plugin.desc->sincos_2d(env->plugin.instance, &a);
    pecert_judge_bounded(r, &env->plugin, st, &out, want, grid_bound, &c, where, "sincos_2d");
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "sincos2d.embed", golden_case);
}

const pecert_check pecert_check_sincos2d_golden = {
    PECERT_ID_SINCOS2D_GOLDEN, "2-D sin-cos tables equal MAE's get_2d_sincos_pos_embed (non-square too)",
    PECERT_NEED_SINCOS_2D, run_golden};
