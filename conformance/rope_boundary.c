/*
 * rope_boundary.c - rope.boundary_lengths: frequencies and rotations at
 * the lengths where scaled RoPE switches behaviour — L0-1, L0, L0+1, 4*L0
 * and the largest the config allows — against the oracle; and continuity
 * across L0 wherever the reference is continuous there (dynamic NTK is;
 * the LongRoPE switch is not). Off-by-one switches (`>=` for `>`), a
 * switch keyed on the wrong length, and a jump where there should be none
 * all land here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

#define N_LENGTHS 5
#define HEADS 2

static int lengths_of(int64_t *len, const pecert_rope_config *c)
{
    int64_t l0 = pecert_rope_l0(c);
    int64_t far = c->max_position_embeddings > 4 * l0 ? c->max_position_embeddings : 4 * l0 + 1;
    const int64_t all[N_LENGTHS] = {l0 - 1, l0, l0 + 1, 4 * l0, far};
    memcpy(len, all, sizeof(all));
    return N_LENGTHS;
}

/* Frequencies and scaling of one subject at one length; 0 on success. */
static int freqs_at(const pecert_subject *s, pecert_check_result *r, double *inv, double *scaling,
                    const pecert_rope_config *c, int64_t len, const char *where)
{
    pecert_status st = s->desc->rope_freqs(s->instance, inv, scaling, c, len);
    return pecert_case_status(r, s, st, where, "rope_freqs") ? 0 : -1;
}

static void compare_freqs(pecert_check_result *r, const double *got, double got_s, const double *want,
                          double want_s, int64_t half, const char *where)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < half; i++) {
        pecert_case_worst_add(&w, i, got[i], want[i], pecert_tol_freq(want[i], i));
    }
    pecert_case_worst_add(&w, half, got_s, want_s, pecert_tol_scaling(want_s));
    char elem[64];
    snprintf(elem, sizeof(elem), w.index == half ? "attention_scaling" : "inv_freq[%lld]", (long long)w.index);
    pecert_case_finish(r, &w, where, elem);
}

/* Across a boundary the plugin may move no more than the oracle does. */
static void compare_step(pecert_check_result *r, const double *p0, const double *p1, const double *o0,
                         const double *o1, int64_t half, const char *where)
{
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < half; i++) {
        double bound = 2.0 * pecert_tol_freq(o0[i], i);
        pecert_case_worst_add(&w, i, p1[i] - p0[i], o1[i] - o0[i], bound);
    }
    char elem[64];
    snprintf(elem, sizeof(elem), "step of inv_freq[%lld]", (long long)w.index);
    pecert_case_finish(r, &w, where, elem);
}

static void freq_boundaries(const pecert_check_env *env, pecert_check_result *r,
                            const pecert_rope_config *c, const char *label)
{
    int64_t len[N_LENGTHS];
    int64_t half = c->rotary_dim / 2;
    double *buf = malloc((size_t)(4 * N_LENGTHS * half) * sizeof(double));
    double s_plugin[N_LENGTHS];
    double s_oracle[N_LENGTHS];
    if (buf == NULL) {
        pecert_case_fail(r, label, "out of memory");
        return;
    }
    double *plugin = buf;
    double *oracle = buf + N_LENGTHS * half;
    int ok = 1;
    lengths_of(len, c);
    for (int k = 0; k < N_LENGTHS; k++) {
        char where[PECERT_RESULT_LINE_MAX];
        snprintf(where, sizeof(where), "%s seq_len=%lld", label, (long long)len[k]);
        if (freqs_at(&env->plugin, r, plugin + k * half, &s_plugin[k], c, len[k], where) != 0 ||
            freqs_at(&env->oracle, r, oracle + k * half, &s_oracle[k], c, len[k], where) != 0) {
            ok = 0;
            continue;
        }
        compare_freqs(r, plugin + k * half, s_plugin[k], oracle + k * half, s_oracle[k], half, where);
    }
    for (int k = 0; ok && k < 2; k++) { /* (L0-1, L0) and (L0, L0+1) */
        char where[PECERT_RESULT_LINE_MAX];
        snprintf(where, sizeof(where), "%s continuity seq_len %lld -> %lld", label, (long long)len[k],
                 (long long)len[k + 1]);
        compare_step(r, plugin + k * half, plugin + (k + 1) * half, oracle + k * half,
                     oracle + (k + 1) * half, half, where);
    }
    free(buf);
}

/* One token at each boundary position, seq_len derived (p + 1), as a
 * decode step there would be. */
static void apply_boundaries(const pecert_check_env *env, pecert_check_result *r,
                             const pecert_rope_config *c, const char *label)
{
    int64_t len[N_LENGTHS];
    lengths_of(len, c);
    for (int k = 0; k < N_LENGTHS; k++) {
        for (int p = 0; p < 2; p++) {
            int64_t position = len[k] - 1;
            pecert_rope_call call = {c, p ? PECERT_PAIRING_INTERLEAVED : PECERT_PAIRING_SPLIT_HALF, 0,
                                     &position, 1, HEADS, c->head_dim};
            char where[PECERT_RESULT_LINE_MAX];
            snprintf(where, sizeof(where), "%s %s decode at position %lld", label,
                     pecert_rope_pairing_name(call.pairing), (long long)position);
            pecert_case_slot_set(env->case_slot, "%s", where);
            pecert_rope_versus_oracle(env, r, &call, 808 + (uint64_t)k, 64, where);
        }
    }
}

static void run_boundary(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_rope_config **configs = NULL;
    size_t n = pecert_rope_configs(env, &configs);
    for (size_t c = 0; c < n; c++) {
        char label[128];
        pecert_rope_config_label(label, sizeof(label), configs[c]);
        pecert_case_slot_set(env->case_slot, "%s frequencies at L0 boundaries", label);
        freq_boundaries(env, r, configs[c], label);
        apply_boundaries(env, r, configs[c], label);
    }
    pecert_check_conclude(r, "boundary cases");
}

const pecert_check pecert_check_rope_boundary_lengths = {
    PECERT_ID_ROPE_BOUNDARY_LENGTHS,
    "frequencies and rotations at L0-1, L0, L0+1, 4*L0 and the largest length equal the oracle; no jump where the " "reference is continuous",
    PECERT_NEED_ROPE_FREQS | PECERT_NEED_ROPE_APPLY, run_boundary};
