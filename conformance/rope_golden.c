/*
 * rope_golden.c - compare a plugin with the golden RoPE vectors recorded
 * from the official code: frequencies, cos/sin tables, apply.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "family.h"
#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

/* Points kept per check for error-vs-position plots. */
#define MAX_POINTS 20000

/* ---- rope.freq.golden -------------------------------------------------- */

/* Wrong frequencies: which rope type, and the flags of the vector. */
static void freq_symptoms(pecert_check_result *r, const pecert_vtest *t)
{
    pecert_check_symptom(r, "%s%s", PECERT_SYMPTOM_FREQ_OFF, pecert_rope_type_name(t->rope.rope_type));
    for (size_t i = 0; i < t->n_flags; i++) {
        pecert_check_symptom(r, "freq_flag:%s", t->flags[i]);
    }
}

void pecert_rope_scaling_symptom(pecert_check_result *r, double got, double want)
{
    double tol = pecert_tol_scaling(want);
    if (!pecert_exceeds(fabs(got - want), tol)) {
        return;
    }
    if (!pecert_exceeds(fabs(got - 1.0), tol)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_SCALING_MISSING);
    } else if (!pecert_exceeds(fabs(got - want * want), tol * fabs(want))) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_SCALING_SQUARED);
    } else {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_SCALING_WRONG);
    }
}

static void freq_case(const pecert_check_env *env, pecert_check_result *r,
                      const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *want = pecert_vtest_output(t, "inv_freq");
    const pecert_vtensor *want_scaling = pecert_vtest_output(t, "attention_scaling");
    int64_t n = want->num_elements;
    double *got = malloc((size_t)n * sizeof(*got));
    double got_scaling = NAN;
    if (got == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        got[i] = NAN;
    }
    pecert_status st = env->plugin.desc->rope_freqs(env->plugin.instance, got, &got_scaling,
                                                    &t->rope, t->seq_len);
    if (pecert_case_status(r, &env->plugin, st, where, "rope_freqs")) {
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int64_t i = 0; i < n; i++) {
            double v = pecert_vtensor_get(want, i);
            pecert_case_worst_add(&w, i, got[i], v, pecert_tol_freq(v, i));
        }
        if (w.n_bad > 0) {
            freq_symptoms(r, t);
        }
        double s = pecert_vtensor_get(want_scaling, 0);
        pecert_case_worst_add(&w, n, got_scaling, s, pecert_tol_scaling(s));
        pecert_rope_scaling_symptom(r, got_scaling, s);
        char elem[64];
        if (w.index == n) {
            snprintf(elem, sizeof(elem), "attention_scaling");
        } else {
            snprintf(elem, sizeof(elem), "inv_freq[%lld]", (long long)w.index);
        }
        pecert_case_finish(r, &w, where, elem);
        pecert_grade_freqs(env, r, &t->rope, t->seq_len, got, want, where);
    }
    free(got);
}

static void run_freq_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_vectors(env, r, "rope.freq", freq_case);
}

/* ---- rope.cos_sin.golden ----------------------------------------------- */

static void compare_table(pecert_case_worst *w, const float *got, const pecert_vtensor *want,
                          const double *inv_freq, const int64_t *pos, double scaling,
                          int64_t base_index)
{
    int64_t n = want->shape[0];
    int64_t half = want->shape[1];
    for (int64_t p = 0; p < n; p++) {
        for (int64_t i = 0; i < half; i++) {
            double angle = fabs((double)pos[p] * inv_freq[i]);
            double v = pecert_vtensor_get(want, p * half + i);
            pecert_case_worst_add(w, base_index + p * half + i, got[p * half + i], v,
                                  pecert_tol_trig(angle, inv_freq[i], i, scaling));
        }
    }
}

static void cos_sin_case(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *pos_t = pecert_vtest_input(t, "positions");
    const pecert_vtensor *want_cos = pecert_vtest_output(t, "cos");
    const pecert_vtensor *want_sin = pecert_vtest_output(t, "sin");
    int64_t n = want_cos->shape[0];
    int64_t half = want_cos->shape[1];
    const int64_t *pos = pos_t->data;
    size_t count = (size_t)(n * half);
    float *buf = malloc(2 * count * sizeof(float));
    double *inv_freq = malloc((size_t)half * sizeof(double));
    double scaling = 1.0;
    int64_t seq_len = pecert_effective_seq_len(t->seq_len, pos, n);
    if (!pecert_oracle_freqs(env, r, where, buf != NULL ? inv_freq : NULL, &scaling, &t->rope, seq_len)) {
        goto out_free;
    }
    for (size_t i = 0; i < 2 * count; i++) {
        buf[i] = NAN;
    }
    pecert_tensor out_cos = pecert_tensor_2d(buf, PECERT_DTYPE_F32, n, half);
    pecert_tensor out_sin = pecert_tensor_2d(buf + count, PECERT_DTYPE_F32, n, half);
    pecert_status st = env->plugin.desc->rope_cos_sin(env->plugin.instance, &out_cos, &out_sin,
                                                      &t->rope, t->seq_len, pos, n);
    if (pecert_case_status(r, &env->plugin, st, where, "rope_cos_sin")) {
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        compare_table(&w, buf, want_cos, inv_freq, pos, scaling, 0);
        compare_table(&w, buf + count, want_sin, inv_freq, pos, scaling, (int64_t)count);
        char elem[96];
        int64_t k = w.index % (int64_t)count;
        snprintf(elem, sizeof(elem), "%s[p=%lld,i=%lld] pos=%lld", w.index >= (int64_t)count ? "sin" : "cos",
                 (long long)(k / half), (long long)(k % half), (long long)pos[k / half]);
        pecert_case_finish_at(r, &w, where, elem, pos[k / half]);
    }
out_free:
    free(buf);
    free(inv_freq);
}

static void run_cos_sin_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_vectors(env, r, "rope.cos_sin", cos_sin_case);
}

/* ---- rope.apply.golden ------------------------------------------------- */

static void apply_case(const pecert_check_env *env, pecert_check_result *r,
                       const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *x = pecert_vtest_input(t, "x");
    const pecert_vtensor *pos = pecert_vtest_input(t, "positions");
    const pecert_vtensor *want = pecert_vtest_output(t, "out");
    pecert_rope_call call = {
        .config = &t->rope,
        .pairing = t->pairing,
        .seq_len = t->seq_len,
        .positions = pos->data,
        .tokens = x->shape[0],
        .heads = x->shape[1],
        .head_dim = x->shape[2],
    };
    float *got = pecert_rope_run_packed(env, r, &call, x->data, where);
    if (got == NULL) {
        return;
    }
    int64_t failed_before = r->n_failed;
    pecert_rope_compare(env, r, &call, x->data, got, want->data, where, MAX_POINTS, 1.0);
    pecert_rope_heatmap(env, r, &call, x->data, got, want->data, where);
    pecert_grade_apply(env, r, &call, x->data, got, want->data, where);
    /* A NaN or infinity is its own bug (PECERT_SYMPTOM_NONFINITE), not a
     * rotation that is off for this rope type: read as one, a single NaN in
     * a dynamic-NTK case was once named a wrong length selection. */
    if (r->n_failed > failed_before && !pecert_values_nonfinite(got, (size_t)(x->shape[0] * x->shape[1] * x->shape[2]))) {
        pecert_check_symptom(r, "%s%s", PECERT_SYMPTOM_APPLY_OFF, pecert_rope_type_name(t->rope.rope_type));
        pecert_rope_explain(env, r, &call, x->data, got, where);
    }
    free(got);
}

static void run_apply_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_vectors(env, r, "rope.apply", apply_case);
}

const pecert_check pecert_check_rope_freq_golden = {
    PECERT_ID_ROPE_FREQ_GOLDEN, "inverse frequencies and attention scaling equal the official code's",
    PECERT_NEED_ROPE_FREQS, run_freq_golden};
const pecert_check pecert_check_rope_cos_sin_golden = {
    PECERT_ID_ROPE_COS_SIN_GOLDEN, "cos/sin tables equal the official rotary-embedding module's",
    PECERT_NEED_ROPE_COS_SIN, run_cos_sin_golden};
const pecert_check pecert_check_rope_apply_golden = {
    PECERT_ID_ROPE_APPLY_GOLDEN, "rotated q/k equal the official apply_rotary_pos_emb output",
    PECERT_NEED_ROPE_APPLY, run_apply_golden};
