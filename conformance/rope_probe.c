/*
 * rope_probe.c - rope.pairing_convention: which channel does channel 0
 * rotate with? A unit vector on channel 0 at position 1 lights up exactly
 * its partner: channel 1 for interleaved pairing, rotary_dim/2 for
 * split-half. The probe head is twice as wide as the rotation, so "split
 * half over head_dim" (rotary_dim confused with head_dim) and "rotation on
 * another slice" are told apart too, and the failure names the convention
 * the plugin actually implements.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate.h"
#include "rope_checks.h"

/* The channel (other than 0) carrying the most energy, or -1. */
static int64_t brightest_partner(const float *out, int64_t head_dim)
{
    int64_t best = -1;
    double best_abs = 1e-3; /* far above rounding noise of a unit input */
    for (int64_t d = 1; d < head_dim; d++) {
        if (fabs(out[d]) > best_abs) {
            best_abs = fabs(out[d]);
            best = d;
        }
    }
    return best;
}

/* A symptom tag for the convention a partner channel reveals. */
static const char *partner_tag(int64_t partner, int64_t rot, int64_t head_dim)
{
    if (partner < 0) {
        return PECERT_SYMPTOM_PAIRING_UNROTATED;
    }
    if (partner == 1) {
        return PECERT_SYMPTOM_PAIRING_INTERLEAVED;
    }
    if (partner == rot / 2) {
        return PECERT_SYMPTOM_PAIRING_SPLIT_HALF;
    }
    return partner == head_dim / 2 ? PECERT_SYMPTOM_PAIRING_SPLIT_HALF_OVER_HEAD_DIM : PECERT_SYMPTOM_PAIRING_OTHER;
}

/* Names the convention a partner channel reveals. */
static void describe_partner(char *out, size_t len, int64_t partner, const float *got,
                             int64_t rot, int64_t head_dim)
{
    if (partner < 0) {
        snprintf(out, len, got[0] == 1.0f ? "channel 0 is not rotated (rotation applied to another slice)"
                                          : "channel 0 pairs with no channel");
    } else if (partner == 1) {
        snprintf(out, len, "channel 0 pairs with channel 1 (interleaved)");
    } else if (partner == rot / 2) {
        snprintf(out, len, "channel 0 pairs with channel %lld (split-half over rotary_dim)", (long long)partner);
    } else if (partner == head_dim / 2) {
        snprintf(out, len, "channel 0 pairs with channel %lld (split-half over head_dim: rotary_dim taken as head_dim)",
                 (long long)partner);
    } else {
        snprintf(out, len, "channel 0 pairs with channel %lld", (long long)partner);
    }
}

/* One probe on a head of head_dim channels (>= rotary_dim). */
static void probe_case(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_config *base,
                       pecert_rope_pairing pairing, int32_t head_dim, const char *where)
{
    pecert_rope_config wide = *base;
    wide.head_dim = head_dim;
    /* Two tokens, positions 0 and 1: the probe is the second, so a plugin
     * that uses the token index as position still sees position 1. */
    const int64_t positions[2] = {0, 1};
    pecert_rope_call call = {&wide, pairing, pecert_rope_l0(base), positions, 2, 1, wide.head_dim};
    float *x = calloc((size_t)(2 * wide.head_dim), sizeof(float));
    if (x == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    x[0] = 1.0f;
    x[wide.head_dim] = 1.0f;
    float *got;
    float *want;
    if (pecert_rope_run_both(env, r, &call, x, where, &got, &want)) {
        int64_t rot = wide.rotary_dim;
        const float *g = got + wide.head_dim; /* the token at position 1 */
        const float *e = want + wide.head_dim;
        int64_t expected = brightest_partner(e, wide.head_dim);
        int64_t actual = brightest_partner(g, wide.head_dim);
        char seen[160];
        describe_partner(seen, sizeof(seen), actual, g, rot, wide.head_dim);
        if (actual != expected) {
            pecert_check_symptom(r, "%s", partner_tag(actual, rot, wide.head_dim));
            pecert_case_fail(r, where, "asked for %s, %s: pairing convention wrong",
                             pecert_rope_pairing_name(pairing), seen);
        } else if (actual >= 0 && fabs((double)g[actual] + e[actual]) < 1e-3 * fabs(e[actual]) &&
                   fabs((double)g[0] - e[0]) < 1e-3) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_PAIRING_SIGN);
            pecert_case_fail(r, where, "%s but with the opposite sign: rotation by -theta", seen);
        } else {
            pecert_rope_compare(env, r, &call, x, got, want, where, 0, 1.0);
        }
    }
    free(want);
    free(got);
    free(x);
}

/* A partial head (rotary_dim of 2 rotary_dim) also tells "split half over
 * head_dim" from "over rotary_dim"; an engine that rotates whole heads only
 * declines it and is probed on a whole head, so that its pairing still
 * gets a verdict. */
static void probe_pairing(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_config *config,
                          pecert_rope_pairing pairing, const char *where)
{
    int64_t declined = r->n_unsupported;
    probe_case(env, r, config, pairing, 2 * config->rotary_dim, where);
    if (r->n_unsupported > declined) {
        char whole[PECERT_RESULT_LINE_MAX];
        snprintf(whole, sizeof(whole), "%s (whole head: the partial one declined)", where);
        probe_case(env, r, config, pairing, config->rotary_dim, whole);
    }
}

static void run_probe(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_rope_sweep_pairings(env, r, " probe", probe_pairing);
    pecert_check_conclude(r, "pairing probes");
}

const pecert_check pecert_check_rope_pairing_convention = {
    PECERT_ID_ROPE_PAIRING_CONVENTION,
    "a unit vector on channel 0 rotates into the partner channel the requested pairing names",
    PECERT_NEED_ROPE_APPLY, run_probe};
