/*
 * sinusoidal_checks.c - sinusoidal absolute embeddings against the golden
 * vectors of each variant's official code (transformers' DistilBERT and
 * Marian tables, tensor2tensor's get_timing_signal_1d, fairseq's
 * SinusoidalPositionalEmbedding). The bound is per channel (the RoPE angle
 * bound at that channel's frequency), tight enough that every variant fails
 * every other variant's vectors (tests/check_sinusoidal.c proves it).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"

typedef struct sin_ctx {
    const pecert_vtest *t;
    const int64_t *positions;
    int64_t dim;
} sin_ctx;

static double sin_bound(const void *ctx, int64_t i, double want)
{
    const sin_ctx *c = ctx;
    int32_t variant = (int32_t)pecert_vtest_int(c->t, "variant", 0);
    int64_t p = c->positions[i / c->dim];
    double f;
    (void)want;
    if (variant == PECERT_SINUSOIDAL_FAIRSEQ && p == -1) {
        return 0.0; /* the zeroed padding row */
    }
    int64_t row = variant == PECERT_SINUSOIDAL_FAIRSEQ ? pecert_vtest_int(c->t, "padding_idx", 0) + 1 + p : p;
    double angle = pecert_sinusoidal_angle(variant, c->dim, pecert_vtest_number(c->t, "base", 1e4),
                                           i % c->dim, row, &f);
    return pecert_tol_sinusoidal(angle, f);
}

static void golden_case(const pecert_check_env *env, pecert_check_result *r,
                        const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *pos = pecert_vtest_input(t, "positions");
    const pecert_vtensor *want = pecert_vtest_output(t, "embedding");
    pecert_out_buf out;
    if (!pecert_out_open(&out, env, r, PECERT_DTYPE_F32, 2, want->shape, where)) {
        return;
    }
    pecert_sinusoidal_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.variant = (int32_t)pecert_vtest_int(t, "variant", 0);
    a.dim = (int32_t)pecert_vtest_int(t, "dim", 0);
    a.padding_idx = (int32_t)pecert_vtest_int(t, "padding_idx", -1);
    a.base = pecert_vtest_number(t, "base", 1e4);
    a.positions = pos->data;
    a.n = pos->num_elements;
    a.out = &out.view;
    sin_ctx c = {t, pos->data, a.dim};
    pecert_status st = env->plugin.desc->sinusoidal(env->plugin.instance, &a);
    pecert_judge_bounded(r, &env->plugin, st, &out, want, sin_bound, &c, where, "sinusoidal");
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "sinusoidal.embed", golden_case);
}

const pecert_check pecert_check_sinusoidal_golden = {
    PECERT_ID_SINUSOIDAL_GOLDEN,
    "sinusoidal tables equal the official code of each variant (interleaved, concat, t2t, fairseq)",
    PECERT_NEED_SINUSOIDAL, run_golden};
