/*
 * alibi_checks.c - ALiBi: slopes and biases against the golden vectors of
 * the ALiBi authors' get_slopes, Bloom, MPT and llm-foundry, and the
 * property that a bias depends on the distance only:
 * bias(q + s, k + s) = bias(q, k).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"
#include "isolate.h"

/* Slopes of a config from the oracle (for the per-head bound). */
/* ---- alibi.slopes.golden ------------------------------------------------ */

/* The vectors of a reference that rounds its slopes and biases to
 * bfloat16 (Falcon) carry the flag bf16_reference. */
#define BF16_REFERENCE "bf16_reference"

typedef struct slope_ctx {
    int64_t num_heads;
    int bf16;               /* the reference rounds to bfloat16       */
} slope_ctx;

static double slope_bound(const void *ctx, int64_t i, double want)
{
    const slope_ctx *c = ctx;
    (void)i;
    return pecert_tol_alibi_slope(want, c->num_heads) + (c->bf16 ? pecert_tol_bf16_reference(want, 1) : 0.0);
}

static void slopes_case(const pecert_check_env *env, pecert_check_result *r,
                        const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *want = pecert_vtest_output(t, "slopes");
    int64_t n = pecert_vtest_int(t, "num_heads", 0);
    pecert_out_buf out;
    if (!pecert_out_open(&out, env, r, PECERT_DTYPE_F32, 1, want->shape, where)) {
        return;
    }
    pecert_alibi_slopes_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.num_heads = (int32_t)n;
    a.max_bias = pecert_vtest_number(t, "max_bias", 8.0);
    a.out = &out.view;
    slope_ctx c = {n, pecert_vtest_has_flag(t, BF16_REFERENCE)};
    pecert_status st = env->plugin.desc->alibi_slopes(env->plugin.instance, &a);
    pecert_judge_bounded(r, &env->plugin, st, &out, want, slope_bound, &c, where, "alibi_slopes");
}

static void run_slopes(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "alibi.slopes", slopes_case);
}

/* ---- alibi.bias.golden -------------------------------------------------- */

typedef struct bias_ctx {
    const double *slopes;   /* oracle slopes, [num_heads]             */
    int64_t num_heads;
    int64_t per_head;       /* n_q * n_k                              */
    int bf16;               /* the reference rounds to bfloat16       */
} bias_ctx;

static double bias_bound(const void *ctx, int64_t i, double want)
{
    const bias_ctx *c = ctx;
    double m = c->slopes[i / c->per_head];
    return pecert_tol_alibi_bias(want, pecert_tol_alibi_slope(m, c->num_heads) / m) +
           (c->bf16 ? pecert_tol_bf16_reference(want, 2) : 0.0);
}

/* One alibi_bias call of the plugin into a guarded f32 buffer. */
static int run_bias(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                    const int64_t *q, int64_t n_q, const int64_t *k, int64_t n_k,
                    pecert_out_buf *out, const char *where)
{
    int64_t n = pecert_vtest_int(t, "num_heads", 0);
    int64_t shape[3] = {n, n_q, n_k};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_F32, 3, shape, where)) {
        return 0;
    }
    pecert_alibi_bias_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.num_heads = (int32_t)n;
    a.max_bias = pecert_vtest_number(t, "max_bias", 8.0);
    a.symmetric = (int32_t)pecert_vtest_int(t, "symmetric", 0);
    a.q_positions = q;
    a.n_q = n_q;
    a.k_positions = k;
    a.n_k = n_k;
    a.out = &out->view;
    const pecert_subject *s = &env->plugin;
    pecert_status st = s->desc->alibi_bias(s->instance, &a);
    return pecert_out_kept(r, s, st, out, where, "alibi_bias");
}

/* The oracle's slopes of vector t's n heads (malloc'ed), or NULL after
 * recording why (out of memory; the oracle's refusal, its own outcome). */
static double *vector_slopes(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, int64_t n,
                             const char *where)
{
    double *slopes = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (slopes == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return NULL;
    }
    pecert_status st = pecert_oracle_alibi_slopes(env, (int32_t)n, pecert_vtest_number(t, "max_bias", 8), slopes);
    if (!pecert_case_status(r, &env->oracle, st, where, "alibi_slopes")) {
        free(slopes);
        return NULL;
    }
    return slopes;
}

static void bias_case(const pecert_check_env *env, pecert_check_result *r,
                      const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *q = pecert_vtest_input(t, "q_positions");
    const pecert_vtensor *k = pecert_vtest_input(t, "k_positions");
    const pecert_vtensor *want = pecert_vtest_output(t, "bias");
    int64_t n = pecert_vtest_int(t, "num_heads", 0);
    double *slopes = vector_slopes(env, r, t, n, where);
    if (slopes == NULL) {
        return;
    }
    pecert_out_buf out;
    if (run_bias(env, r, t, q->data, q->num_elements, k->data, k->num_elements, &out, where)) {
        bias_ctx c = {slopes, n, q->num_elements * k->num_elements, pecert_vtest_has_flag(t, BF16_REFERENCE)};
        pecert_compare_bounded(r, &out, want, bias_bound, &c, where);
        pecert_out_free(&out);
    }
    free(slopes);
}

static void run_bias_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "alibi.bias", bias_case);
}

/* ---- alibi.shift_invariance --------------------------------------------- */

#define N_Q 3
#define N_K 10

/* For one bias config of the vectors (both modes): the bias at positions
 * shifted by s must equal the unshifted one, within the bias bound. */
static void shift_case(const pecert_check_env *env, pecert_check_result *r,
                       const pecert_vtest *t, const char *where)
{
    static const int64_t q0[N_Q] = {0, 5, 100};
    static const int64_t k0[N_K] = {0, 1, 2, 3, 4, 5, 6, 7, 99, 100};
    static const int64_t shifts[] = {1, 17, 1000, 1 << 16, 1 << 20, 1 << 24, (int64_t)1 << 30};
    int64_t n = pecert_vtest_int(t, "num_heads", 0);
    double *slopes = vector_slopes(env, r, t, n, where);
    pecert_out_buf base;
    if (slopes == NULL) {
        return;
    }
    if (!run_bias(env, r, t, q0, N_Q, k0, N_K, &base, where)) {
        free(slopes);
        return;
    }
    bias_ctx c = {slopes, n, N_Q * N_K, 0}; /* the plugin against itself */
    for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
        int64_t q[N_Q];
        int64_t k[N_K];
        for (int j = 0; j < N_Q; j++) {
            q[j] = q0[j] + shifts[i];
        }
        for (int j = 0; j < N_K; j++) {
            k[j] = k0[j] + shifts[i];
        }
        char at[PECERT_RESULT_LINE_MAX];
        snprintf(at, sizeof(at), "%s shifted by %lld", where, (long long)shifts[i]);
        pecert_out_buf moved;
        if (!run_bias(env, r, t, q, N_Q, k, N_K, &moved, at)) {
            continue;
        }
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int64_t e = 0; e < base.n; e++) {
            double want = pecert_out_get(&base, e);
            pecert_case_worst_add(&w, e, pecert_out_get(&moved, e), want, bias_bound(&c, e, want));
        }
        char elem[128];
        pecert_elem_name(elem, sizeof(elem), "bias", 3, base.view.shape, w.index < 0 ? 0 : w.index);
        pecert_case_finish(r, &w, at, elem);
        pecert_out_free(&moved);
    }
    pecert_out_free(&base);
    free(slopes);
}

static void run_shift(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_for_each_test(env, r, "alibi.bias", shift_case);
    pecert_check_conclude(r, "(config, shift) cases");
}

const pecert_check pecert_check_alibi_slopes_golden = {
    PECERT_ID_ALIBI_SLOPES_GOLDEN, "ALiBi slopes equal get_slopes / Bloom / MPT for 1..64 (and 112) heads",
    PECERT_NEED_ALIBI_SLOPES, run_slopes};
const pecert_check pecert_check_alibi_bias_golden = {
    PECERT_ID_ALIBI_BIAS_GOLDEN, "ALiBi biases (causal and symmetric) equal Bloom / MPT / llm-foundry",
    PECERT_NEED_ALIBI_BIAS, run_bias_golden};
const pecert_check pecert_check_alibi_shift_invariance = {
    PECERT_ID_ALIBI_SHIFT_INVARIANCE, "ALiBi bias(q + s, k + s) = bias(q, k) for s up to 2^30",
    PECERT_NEED_ALIBI_BIAS, run_shift};
