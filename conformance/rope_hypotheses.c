/*
 * rope_hypotheses.c - when an apply result is wrong, say how: replay the
 * call on the oracle under each hypothesis of a known bug and keep the
 * first that reproduces the plugin's output within the error bound. The
 * evidence is then "outputs match positions + 1", not a guess.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rope_checks.h"

/* A hypothesis rewrites the call (copies provided) or the oracle output.
 * The one table of them: its replay rule, the failure line's words, and
 * the finding diagnose.c makes of it (id, the bug in words). */
typedef struct hypothesis {
    const char *tag;   /* symptom: "hypothesis:<tag>"        */
    const char *text;  /* what matching it means             */
    const char *finding; /* diagnose.c's finding id          */
    const char *bug;     /* the finding in words             */
    int64_t shift;     /* added to every position            */
    int physical;      /* token index used as position       */
    int swap_pairing;  /* the other pairing convention       */
    int whole_head;    /* rotary_dim = head_dim              */
    int unscaled;      /* rope_type default (scaling ignored) */
    int scale_power;   /* output rotated channels * s^power  */
} hypothesis;

static const hypothesis hypotheses[] = {
    {"positions+1", "every position one too far (decode off-by-one)", "position_shift",
     "positions shifted by +1: outputs match the reference at p + 1 (decode off-by-one)", 1, 0, 0, 0, 0, 0},
    {"positions-1", "every position one short", "position_shift",
     "positions shifted by -1: outputs match the reference at p - 1", -1, 0, 0, 0, 0, 0},
    {"positions+2", "every position two too far", "position_shift",
     "positions shifted by +2: outputs match the reference at p + 2", 2, 0, 0, 0, 0, 0},
    {"positions-2", "every position two short", "position_shift",
     "positions shifted by -2: outputs match the reference at p - 2", -2, 0, 0, 0, 0, 0},
    {"physical_index", "the token's index used as its position (physical, not logical, positions)", "physical_index",
     "the token's index is used as its position: physical, not logical, positions (padding?)", 0, 1, 0, 0, 0, 0},
    {"pairing_swapped", "the other pairing convention (interleaved vs split-half)", "pairing",
     "pairing convention swapped: outputs match the other convention (interleaved vs split-half)", 0, 0, 1, 0, 0, 0},
    {"rotary_dim_head_dim", "rotary_dim taken as head_dim", "rotary_dim",
     "rotary_dim taken as head_dim: outputs match a full-head rotation", 0, 0, 0, 1, 0, 0},
    {"rope_scaling_ignored", "the rope scaling ignored (plain default RoPE)", "scaling_ignored",
     "rope scaling ignored: outputs match plain (default) RoPE", 0, 0, 0, 0, 1, 0},
    {"scaling_missing", "the attention scaling not applied", "scaling_missing",
     "attention scaling not applied: outputs match the reference divided by it", 0, 0, 0, 0, 0, -1},
    {"scaling_twice", "the attention scaling applied twice", "scaling_twice",
     "attention scaling applied twice: outputs match the reference times it", 0, 0, 0, 0, 0, 1},
};

const char *pecert_rope_hypothesis(size_t i, const char **finding, const char **bug)
{
    if (i >= sizeof(hypotheses) / sizeof(hypotheses[0])) {
        return NULL;
    }
    *finding = hypotheses[i].finding;
    *bug = hypotheses[i].bug;
    return hypotheses[i].tag;
}

/* The call hypothesis h describes, written into *hc with the rewritten
 * config and positions in *cfg and pos: the same model as the plugin's
 * error is judged under, never the requested call's. */
static void hypothesis_call(pecert_rope_call *hc, const pecert_rope_call *call, const hypothesis *h,
                            pecert_rope_config *cfg, int64_t *pos)
{
    *hc = *call;
    *cfg = *call->config;
    hc->config = cfg;
    hc->positions = pos;
    for (int64_t t = 0; t < call->tokens; t++) {
        pos[t] = h->physical ? t : call->positions[t] + h->shift;
    }
    if (h->swap_pairing) {
        hc->pairing = call->pairing == PECERT_PAIRING_INTERLEAVED ? PECERT_PAIRING_SPLIT_HALF
                                                                  : PECERT_PAIRING_INTERLEAVED;
    }
    if (h->whole_head) {
        cfg->rotary_dim = cfg->head_dim;
    }
    if (h->unscaled) {
        cfg->rope_type = PECERT_ROPE_DEFAULT;
    }
}

/* The oracle's output for the hypothesis's call, or NULL if it cannot be
 * made (the oracle refuses it, e.g. factor lists of another length). */
static float *oracle_under(const pecert_check_env *env, const pecert_rope_call *hc, const float *x)
{
    pecert_check_result scratch; /* the oracle's refusals are not the plugin's failures */
    pecert_check_result_init(&scratch, "hypothesis");
    float *want = pecert_rope_run_with(&env->oracle, &scratch, hc, x, "hypothesis");
    pecert_check_result_release(&scratch);
    return want;
}

/* Multiplies the rotated channels of want by scaling^power. */
static void rescale(float *want, const pecert_rope_call *call, double scaling, int power)
{
    double k = pow(scaling, power);
    for (size_t i = 0; i < pecert_rope_call_size(call); i++) {
        if ((int64_t)(i % (size_t)call->head_dim) < call->config->rotary_dim) {
            want[i] = (float)(want[i] * k);
        }
    }
}

/* A hypothesis that changes nothing for this call cannot explain it. */
static int applies(const hypothesis *h, const pecert_rope_call *call, double scaling)
{
    return !(h->whole_head && call->config->rotary_dim == call->config->head_dim) &&
           !(h->unscaled && call->config->rope_type == PECERT_ROPE_DEFAULT) &&
           !(h->scale_power != 0 && fabs(scaling - 1.0) < 1e-6);
}

/*
 * The plugin matches hypothesis H when its output is within the error
 * model of H's own call: the bounds an honest float32 engine that had
 * made exactly that mistake would meet (pairs of H's pairing, H's
 * rotary_dim, H's frequencies and positions, H's attention scaling).
 * Judging H with the requested call's bounds instead failed float32
 * engines: pairs of the wrong partners, a passthrough bound of 0 where H
 * rotates.
 */
static int explains(const pecert_check_env *env, const pecert_rope_call *call, const float *x,
                    const float *got, const hypothesis *h, double scaling)
{
    pecert_rope_config cfg;
    pecert_rope_call hc;
    int64_t *pos = malloc((size_t)(call->tokens > 0 ? call->tokens : 1) * sizeof(int64_t));
    if (pos == NULL || !applies(h, call, scaling)) {
        free(pos);
        return 0;
    }
    hypothesis_call(&hc, call, h, &cfg, pos);
    float *want = oracle_under(env, &hc, x);
    int match = 0;
    if (want != NULL) {
        if (h->scale_power != 0) {
            rescale(want, &hc, scaling, h->scale_power);
        }
        pecert_case_worst w;
        double bound_factor = pow(fabs(scaling), h->scale_power);
        match = pecert_rope_worst(&w, env, &hc, x, got, want, bound_factor) == 0 && w.index >= 0 &&
                w.ratio <= 1.0;
    }
    free(want);
    free(pos);
    return match;
}

void pecert_rope_explain(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                         const float *x, const float *got, const char *where)
{
    int64_t half = call->config->rotary_dim / 2;
    double *inv = malloc((size_t)(half + 1) * sizeof(double));
    double scaling = 1.0;
    int64_t seq_len = pecert_effective_seq_len(call->seq_len, call->positions, call->tokens);
    if (inv == NULL || pecert_oracle_inv_freq(env, inv, &scaling, call->config, seq_len) != PECERT_OK) {
        free(inv);
        return;
    }
    free(inv);
    for (size_t i = 0; i < sizeof(hypotheses) / sizeof(hypotheses[0]); i++) {
        if (explains(env, call, x, got, &hypotheses[i], scaling)) {
            pecert_check_symptom(r, "%s%s", PECERT_SYMPTOM_HYPOTHESIS, hypotheses[i].tag);
            char line[PECERT_RESULT_LINE_MAX];
            snprintf(line, sizeof(line), "%s: outputs match the reference with %s", where, hypotheses[i].text);
            (void)pecert_check_result_add_line(r, PECERT_FAILURE_NOTE, line);
            return;
        }
    }
    /* No whole-call hypothesis: what each token was rotated with, as
     * `pecert diagnose` recovers it from a dump. */
    pecert_rope_recover_explain(env, r, call, x, got, where);
}
