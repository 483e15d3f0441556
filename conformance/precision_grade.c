/*
 * precision_grade.c - the precision grade of the golden RoPE checks: the
 * plugin's error against the exact answer, element by element, next to
 * the official float32 code's error at the same element (the golden
 * vectors are that code's output; the exact answer is the oracle's,
 * computed in double). TOLERANCES.md, "Precision grade".
 *
 * A bound says what no correct float32 engine exceeds; the grade says how
 * much of it an engine uses compared with the official code. ggml's
 * frequency recurrence passes every bound and lands ~36 u of relative
 * error at the last pair of theta 1e4 / d 128, where the official code
 * stays near 1 u: "less precise", never "wrong". The graded element is the
 * one where the plugin's error is the largest multiple of the official
 * code's (floored at what a correctly rounded float32 result may err, so
 * that a lucky exact official value does not make any engine look bad).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rope_checks.h"
#include "tolerance.h"

void pecert_grade_init(pecert_grade *g)
{
    memset(g, 0, sizeof(*g));
    g->index = -1;
}

void pecert_grade_add(pecert_grade *g, int64_t index, double got, double official, double exact, double scale,
                      double floor_u)
{
    if (!(scale > 0) || !isfinite(got) || !isfinite(official) || !isfinite(exact)) {
        return; /* a non-finite value is the bound's business, not the grade's */
    }
    double error_u = fabs(got - exact) / (scale * PECERT_U32);
    double official_u = fmax(fabs(official - exact) / (scale * PECERT_U32), floor_u);
    double ratio = error_u / official_u;
    if (ratio > g->ratio || g->index < 0) {
        *g = (pecert_grade){ratio, error_u, official_u, index};
    }
}

void pecert_grade_note(pecert_check_result *r, const pecert_grade *g, const char *measure, const char *where,
                       const char *elem)
{
    if (g->index < 0 || (r->precision.graded && !(g->ratio > r->precision.ratio))) {
        return;
    }
    pecert_precision *p = &r->precision;
    p->graded = 1;
    p->ratio = g->ratio;
    p->error_u = g->error_u;
    p->official_u = g->official_u;
    snprintf(p->measure, sizeof(p->measure), "%s", measure);
    snprintf(p->where, sizeof(p->where), "%s %s", elem, where);
}

/* A correctly rounded float32 frequency errs by at most u/2 relative. */
#define FREQ_FLOOR_U 0.5
/* A rotated channel: the exact answer the oracle gives is itself rounded
 * to float32 (u/2 of the value), and so is the plugin's (u/2): 1 u of r;
 * and the official code forms the angle theta = p * f in float32, which
 * alone moves the pair by up to |theta| u/2 of r. Below that floor the
 * official code's error at an element is luck, not precision: two float32
 * engines that both round theta differ there by chance. */
static double apply_floor_u(double theta)
{
    return 1.0 + 0.5 * fabs(theta);
}

void pecert_grade_freqs(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_config *config,
                        int64_t seq_len, const double *got, const pecert_vtensor *official, const char *where)
{
    int64_t n = official->num_elements;
    double *exact = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    double scaling = 1.0;
    if (exact == NULL || pecert_oracle_inv_freq(env, exact, &scaling, config, seq_len) != PECERT_OK) {
        free(exact);
        return; /* ungraded: the verdict does not depend on it */
    }
    pecert_grade g;
    pecert_grade_init(&g);
    for (int64_t i = 0; i < n; i++) {
        pecert_grade_add(&g, i, got[i], pecert_vtensor_get(official, i), exact[i], fabs(exact[i]), FREQ_FLOOR_U);
    }
    char elem[64];
    snprintf(elem, sizeof(elem), "inv_freq[%lld] of", (long long)g.index);
    pecert_grade_note(r, &g, "relative error", where, elem);
    free(exact);
}

/* Grades the rotated pairs of one token (passthrough channels are exact
 * or wrong, never graded). */
static void grade_token(pecert_grade *g, const pecert_rope_call *call, int64_t t, const double *inv_freq,
                        double scaling, const float *x, const float *got, const float *official, const float *exact)
{
    int64_t hd = call->head_dim;
    int64_t rot = call->config->rotary_dim;
    for (int64_t h = 0; h < call->heads; h++) {
        int64_t base = (t * call->heads + h) * hd;
        for (int64_t i = 0; i < rot / 2; i++) {
            int64_t a;
            int64_t b;
            pecert_rope_pair(call->pairing, rot, i, &a, &b);
            double norm = fabs(scaling) * hypot(x[base + a], x[base + b]);
            double floor_u = apply_floor_u((double)call->positions[t] * inv_freq[i]);
            pecert_grade_add(g, base + a, got[base + a], official[base + a], exact[base + a], norm, floor_u);
            pecert_grade_add(g, base + b, got[base + b], official[base + b], exact[base + b], norm, floor_u);
        }
    }
}

void pecert_grade_apply(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                        const float *x, const float *got, const float *official, const char *where)
{
    int64_t half = call->config->rotary_dim / 2;
    double *inv_freq = malloc((size_t)(half > 0 ? half : 1) * sizeof(double));
    double scaling = 1.0;
    int64_t seq_len = pecert_effective_seq_len(call->seq_len, call->positions, call->tokens);
    pecert_check_result scratch; /* the oracle's refusals are not the plugin's failures */
    pecert_check_result_init(&scratch, "grade");
    float *exact = inv_freq != NULL && pecert_oracle_inv_freq(env, inv_freq, &scaling, call->config, seq_len) == PECERT_OK
                       ? pecert_rope_run_with(&env->oracle, &scratch, call, x, where)
                       : NULL;
    pecert_check_result_release(&scratch);
    pecert_grade g;
    pecert_grade_init(&g);
    if (exact != NULL) {
        for (int64_t t = 0; t < call->tokens; t++) {
            grade_token(&g, call, t, inv_freq, scaling, x, got, official, exact);
        }
    }
    if (g.index >= 0) {
        char elem[128];
        pecert_rope_describe_elem(elem, sizeof(elem) - 4, call, g.index);
        strcat(elem, " of");
        pecert_grade_note(r, &g, "error / pair norm", where, elem);
    }
    free(exact);
    free(inv_freq);
}
