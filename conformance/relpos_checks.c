/*
 * relpos_checks.c - Shaw and Transformer-XL relative positions: Shaw's
 * clipped indices exactly against tensor2tensor, and their shift
 * invariance; Transformer-XL's reversed relative sinusoid (angle bound per
 * channel) and its _rel_shift (bit-exact data movement on the causal
 * part j <= i + mlen, the only part attention reads; with zero_triu the
 * rest must be zero) against kimiyoung/transformer-xl.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"
#include "isolate.h"

/* ---- shaw.index.golden / shaw.shift_invariance -------------------------- */

static int run_shaw(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r, int64_t k,
                    const int64_t *q, int64_t n_q, const int64_t *kp, int64_t n_k,
                    pecert_out_buf *out, const char *where)
{
    int64_t shape[2] = {n_q, n_k};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_I64, 2, shape, where)) {
        return 0;
    }
    pecert_shaw_index_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.max_relative_position = k;
    a.q_positions = q;
    a.n_q = n_q;
    a.k_positions = kp;
    a.n_k = n_k;
    a.out = &out->view;
    pecert_status st = s->desc->shaw_index(s->instance, &a);
    return pecert_out_kept(r, s, st, out, where, "shaw_index");
}

static void shaw_golden_case(const pecert_check_env *env, pecert_check_result *r,
                             const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *q = pecert_vtest_input(t, "q_positions");
    const pecert_vtensor *k = pecert_vtest_input(t, "k_positions");
    pecert_out_buf out;
    if (run_shaw(env, &env->plugin, r, pecert_vtest_int(t, "max_relative_position", 0), q->data,
                 q->num_elements, k->data, k->num_elements, &out, where)) {
        pecert_compare_exact(r, &out, pecert_vtest_output(t, "index"), where);
        pecert_out_free(&out);
    }
}

static void run_shaw_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "shaw.index", shaw_golden_case);
}

/* index(q + s, k + s) = index(q, k), exactly, for s up to 2^40. */
static void shaw_shift_case(const pecert_check_env *env, pecert_check_result *r,
                            const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *qv = pecert_vtest_input(t, "q_positions");
    const pecert_vtensor *kv = pecert_vtest_input(t, "k_positions");
    const int64_t shifts[] = {1, 1000, (int64_t)1 << 20, (int64_t)1 << 31, (int64_t)1 << 40};
    int64_t kmax = pecert_vtest_int(t, "max_relative_position", 0);
    pecert_out_buf base;
    if (!run_shaw(env, &env->plugin, r, kmax, qv->data, qv->num_elements, kv->data, kv->num_elements,
                  &base, where)) {
        return;
    }
    int64_t *q = malloc((size_t)(qv->num_elements + kv->num_elements + 1) * sizeof(int64_t));
    if (q == NULL) {
        pecert_case_fail(r, where, "out of memory");
        pecert_out_free(&base);
        return;
    }
    int64_t *k = q + qv->num_elements;
    for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
        for (int64_t j = 0; j < qv->num_elements; j++) {
            q[j] = ((const int64_t *)qv->data)[j] + shifts[i];
        }
        for (int64_t j = 0; j < kv->num_elements; j++) {
            k[j] = ((const int64_t *)kv->data)[j] + shifts[i];
        }
        char at[PECERT_RESULT_LINE_MAX];
        snprintf(at, sizeof(at), "%s shifted by %lld", where, (long long)shifts[i]);
        pecert_out_buf moved;
        if (!run_shaw(env, &env->plugin, r, kmax, q, qv->num_elements, k, kv->num_elements, &moved, at)) {
            continue;
        }
        pecert_vtensor want = {"index", PECERT_DTYPE_I64, 2, {0}, base.n, NULL};
        want.shape[0] = qv->num_elements;
        want.shape[1] = kv->num_elements;
        want.data = base.view.data;
        want.dtype = base.view.dtype;
        pecert_compare_exact(r, &moved, &want, at);
        pecert_out_free(&moved);
    }
    free(q);
    pecert_out_free(&base);
}

static void run_shaw_shift(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_for_each_test(env, r, "shaw.index", shaw_shift_case);
    pecert_check_conclude(r, "(vector, shift) cases");
}

/* ---- txl.pos_emb.golden ------------------------------------------------- */

typedef struct txl_ctx {
    int64_t d;
    int64_t klen;
    int64_t clamp;
} txl_ctx;

static double txl_bound(const void *ctx, int64_t i, double want)
{
    const txl_ctx *c = ctx;
    int64_t row = i / c->d;
    int64_t ch = i % c->d;
    int64_t p = c->klen - 1 - row;
    (void)want;
    if (c->clamp > 0 && p > c->clamp) {
        p = c->clamp;
    }
    double f = exp(-log(10000.0) * (double)(2 * (ch % (c->d / 2))) / (double)c->d);
    return pecert_tol_trig((double)p * f, f, PECERT_TOL_PER_CHANNEL, 1.0);
}

static void txl_pos_case(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *want = pecert_vtest_output(t, "pos_emb");
    pecert_out_buf out;
    if (!pecert_out_open(&out, env, r, PECERT_DTYPE_F32, 2, want->shape, where)) {
        return;
    }
    pecert_txl_pos_emb_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.d_model = (int32_t)pecert_vtest_int(t, "d_model", 0);
    a.klen = pecert_vtest_int(t, "klen", 0);
    a.clamp_len = pecert_vtest_int(t, "clamp_len", -1);
    a.out = &out.view;
    txl_ctx c = {a.d_model, a.klen, a.clamp_len};
    pecert_status st = env->plugin.desc->txl_pos_emb(env->plugin.instance, &a);
    pecert_judge_bounded(r, &env->plugin, st, &out, want, txl_bound, &c, where, "txl_pos_emb");
}

static void run_txl_pos(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "txl.pos_emb", txl_pos_case);
}

/* ---- txl.rel_shift.golden ----------------------------------------------- */

static void txl_shift_case(const pecert_check_env *env, pecert_check_result *r,
                           const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *x = pecert_vtest_input(t, "x");
    const pecert_vtensor *want = pecert_vtest_output(t, "out");
    int zero_triu = (int)pecert_vtest_int(t, "zero_triu", 0);
    pecert_out_buf out;
    if (!pecert_out_open(&out, env, r, PECERT_DTYPE_F32, 3, want->shape, where)) {
        return;
    }
    pecert_tensor tx = pecert_tensor_3d((float *)(uintptr_t)x->data, x->shape[0], x->shape[1],
                                        x->shape[2], x->shape[1] * x->shape[2], x->shape[2], 1);
    pecert_txl_rel_shift_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.zero_triu = zero_triu;
    a.x = &tx;
    a.out = &out.view;
    pecert_status st = env->plugin.desc->txl_rel_shift(env->plugin.instance, &a);
    if (pecert_out_status(r, &env->plugin, st, &out, where, "txl_rel_shift")) {
        int64_t q = x->shape[0];
        int64_t k = x->shape[1];
        int64_t n = x->shape[2];
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int64_t e = 0; e < want->num_elements; e++) {
            int64_t i = e / (k * n);
            int64_t j = (e / n) % k;
            if (j > i + (k - q) && !zero_triu) {
                continue; /* masked by attention; the official values there are arbitrary */
            }
            pecert_case_worst_add(&w, e, pecert_out_get(&out, e), pecert_vtensor_get(want, e), 0.0);
        }
        char elem[128];
        pecert_elem_name(elem, sizeof(elem), "out", 3, want->shape, w.index < 0 ? 0 : w.index);
        pecert_case_finish(r, &w, where, elem);
    }
    pecert_out_free(&out);
}

static void run_txl_shift(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "txl.rel_shift", txl_shift_case);
}

const pecert_check pecert_check_shaw_index_golden = {
    PECERT_ID_SHAW_INDEX_GOLDEN, "Shaw clipped relative indices equal tensor2tensor's matrix",
    PECERT_NEED_SHAW_INDEX, run_shaw_golden};
const pecert_check pecert_check_shaw_shift_invariance = {
    PECERT_ID_SHAW_SHIFT_INVARIANCE, "Shaw index(q + s, k + s) = index(q, k) for s up to 2^40",
    PECERT_NEED_SHAW_INDEX, run_shaw_shift};
const pecert_check pecert_check_txl_pos_emb_golden = {
    PECERT_ID_TXL_POS_EMB_GOLDEN, "Transformer-XL reversed, clamped relative sinusoid equals mem_transformer's",
    PECERT_NEED_TXL_POS_EMB, run_txl_pos};
const pecert_check pecert_check_txl_rel_shift_golden = {
    PECERT_ID_TXL_REL_SHIFT_GOLDEN, "Transformer-XL _rel_shift moves the same scores (causal part; zero_triu)",
    PECERT_NEED_TXL_REL_SHIFT, run_txl_shift};
