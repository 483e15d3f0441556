/*
 * rope_nope.c - rope.nope_layer: a layer without position encoding
 * (plugin.h, PECERT_LAYER_NOPE, ABI 1.4) is left as it came in.
 *
 * Llama 4 (no_rope_layers, a NoPE layer every 4th), SmolLM3 (every 4th),
 * Cohere 2 and Exaone 4 (rope on the sliding-window layers only) skip the
 * rotation on some layers: their attention guards the apply call
 * (`if self.use_rope:`, `if self.sliding_window is not None:`). An engine
 * that rotates every layer still runs and still talks, only worse; so for
 * every config of the vector set, both pairings and the positions where
 * bugs live, with the config's layer_kind set to NOPE:
 *   - rope_apply out of place and in place must return x bit for bit: no
 *     arithmetic happens, so no tolerance applies;
 *   - a decode session must attend with unrotated keys and queries: its
 *     outputs are compared with the oracle's NoPE session under the
 *     attention error model with no angle term (TOLERANCES.md).
 * When the output differs, the check also asks the oracle for the rotary
 * layer's output: if that is what the plugin returned, the symptom
 * nope_rotated names the bug (the layer kind ignored).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "isolate.h"
#include "rope_checks.h"

#define N_HEADS 3
#define MAX_POSITIONS 10
#define SESSION_TOKENS 9

static const pecert_rope_pairing pairings[] = {PECERT_PAIRING_SPLIT_HALF, PECERT_PAIRING_INTERLEAVED};

/* ABI 1.4 brought layer_kind: a 1.3 plugin would read it as a reserved
 * word. */
static int speaks_layer_kind(const pecert_plugin *desc)
{
    return pecert_plugin_speaks(desc, 4);
}

static int64_t nope_positions(int64_t *pos, const pecert_rope_config *c)
{
    int64_t l0 = pecert_rope_l0(c);
    const int64_t grid[] = {0, 1, 7, l0 - 1, l0, l0 + 1, 4 * l0, 1 << 20, 1 << 24};
    int64_t n = 0;
    for (size_t i = 0; i < sizeof(grid) / sizeof(grid[0]) && n < MAX_POSITIONS; i++) {
        pos[n++] = grid[i] > 0 ? grid[i] : 0;
    }
    return n;
}

/* The first element of got that is not x's bits, or -1. */
static int64_t first_changed(const float *x, const float *got, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (memcmp(&x[i], &got[i], sizeof(float)) != 0) {
            return (int64_t)i;
        }
    }
    return -1;
}

/* 1 if got is the rotary layer's output (the oracle's, within its bound). */
static int is_rotary_output(const pecert_check_env *env, const pecert_rope_call *nope, const float *x,
                            const float *got)
{
    pecert_rope_config rotary = *nope->config;
    rotary.layer_kind = PECERT_LAYER_ROPE;
    pecert_rope_call call = *nope;
    call.config = &rotary;
    pecert_check_result scratch;
    pecert_check_result_init(&scratch, PECERT_ID_ROPE_NOPE_LAYER);
    float *want = pecert_rope_run_with(&env->oracle, &scratch, &call, x, "");
    pecert_case_worst w;
    int rotated = want != NULL && pecert_rope_worst(&w, env, &call, x, got, want, 1.0) == 0 && w.ratio <= 1.0;
    free(want);
    pecert_check_result_release(&scratch);
    return rotated;
}

static void judge_copy(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                       const float *x, const float *got, const char *where)
{
    size_t n = pecert_rope_call_size(call);
    int64_t bad = first_changed(x, got, n);
    if (bad < 0) {
        pecert_case_passed(r, where, "x returned bit for bit");
        return;
    }
    int64_t hd = call->head_dim;
    int64_t token = bad / (call->heads * hd);
    int rotated = is_rotary_output(env, call, x, got);
    pecert_case_fail(r, where, "token %lld (position %lld) head %lld channel %lld: got %.9g, want %.9g (x unchanged)%s",
                     (long long)token, (long long)call->positions[token], (long long)(bad / hd % call->heads),
                     (long long)(bad % hd), (double)got[bad], (double)x[bad],
                     rotated ? ": it is the rotary layer's output, the layer kind was ignored" : "");
    pecert_check_symptom(r, rotated ? PECERT_SYMPTOM_NOPE_ROTATED : PECERT_SYMPTOM_NOPE_CHANGED);
}

/* rope_apply in place on a copy of x. */
static float *run_in_place(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                           const float *x, const char *where)
{
    size_t n = pecert_rope_call_size(call);
    float *buf = malloc((n > 0 ? n : 1) * sizeof(float));
    if (buf == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return NULL;
    }
    memcpy(buf, x, n * sizeof(float));
    pecert_tensor t = pecert_tensor_rows(buf, call->tokens, call->heads, call->head_dim);
    pecert_status st = pecert_rope_apply_views(&env->plugin, call, &t, &t);
    return pecert_floats_kept(r, &env->plugin, st, buf, where, "rope_apply");
}

static void apply_cases(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                        const float *x, const char *label)
{
    char why[PECERT_RESULT_LINE_MAX];
    if (pecert_scope_excludes(&env->plugin, call->config, call->positions, call->tokens, 0, why, sizeof(why))) {
        pecert_case_beyond_scope(r, why);
        return;
    }
    char where[PECERT_RESULT_LINE_MAX];
    snprintf(where, sizeof(where), "%s rope_apply", label);
    pecert_case_slot_set(env->case_slot, "%s", where);
    float *y = pecert_rope_run_packed(env, r, call, x, where);
    if (y != NULL) {
        judge_copy(env, r, call, x, y, where);
    }
    free(y);
    snprintf(where, sizeof(where), "%s rope_apply in place", label);
    pecert_case_slot_set(env->case_slot, "%s", where);
    y = run_in_place(env, r, call, x, where);
    if (y != NULL) {
        judge_copy(env, r, call, x, y, where);
    }
    free(y);
}

/* One prefill of SESSION_TOKENS tokens from a far start, on the plugin's
 * and the oracle's NoPE sessions. */
static void session_case(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_config *nope,
                         pecert_rope_pairing pairing, const char *label)
{
    if (!pecert_plugin_meets(env->plugin.desc, PECERT_NEED_SESSION)) {
        return;
    }
    pecert_feed_entry entries[SESSION_TOKENS];
    for (int64_t i = 0; i < SESSION_TOKENS; i++) {
        entries[i] = (pecert_feed_entry){0, i, 0};
    }
    const pecert_feed_entry *calls[1] = {entries};
    const int64_t n_entries[1] = {SESSION_TOKENS};
    const pecert_feed feed = {"one prefill", 1, calls, n_entries};
    int64_t len = SESSION_TOKENS;
    int64_t start = pecert_rope_l0(nope) - 3;
    char where[PECERT_RESULT_LINE_MAX];
    snprintf(where, sizeof(where), "%s decode session from position %lld", label, (long long)start);
    pecert_case_slot_set(env->case_slot, "%s", where);
    pecert_logical_batch b;
    if (pecert_logical_batch_init(&b, nope, pairing, 1, &len, &start, 4242) != 0) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    pecert_logical_out want;
    pecert_logical_out got;
    pecert_decode_bounds bounds;
    memset(&got, 0, sizeof(got));
    if (pecert_feed_run(&want, &env->oracle, r, &b, &feed, where) == 0 &&
        pecert_feed_run(&got, &env->plugin, r, &b, &feed, where) == 0 &&
        pecert_decode_bounds_init(&bounds, env, r, &b, where) == 0) {
        int64_t failed_before = r->n_failed;
        pecert_decode_compare(r, &b, &bounds, &got, &want, 1.0, where);
        if (r->n_failed > failed_before) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_NOPE_SESSION_ROTATED);
        }
        pecert_decode_bounds_free(&bounds);
    }
    pecert_logical_out_free(&got, b.n_seqs);
    pecert_logical_out_free(&want, b.n_seqs);
    pecert_logical_batch_free(&b);
}

static void run_nope(const pecert_check_env *env, pecert_check_result *r)
{
    if (!speaks_layer_kind(env->plugin.desc)) {
        r->verdict = PECERT_VERDICT_UNSUPPORTED;
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_NO_OPERATION);
        snprintf(r->diagnosis, sizeof(r->diagnosis),
                 "the plugin speaks ABI %u.%u: NoPE layers (config.layer_kind) are ABI 1.4",
                 (unsigned)PECERT_ABI_MAJOR_OF(env->plugin.desc->abi_version),
                 (unsigned)(env->plugin.desc->abi_version & 0xffffu));
        return;
    }
    const pecert_rope_config **configs = NULL;
    size_t n = pecert_rope_configs(env, &configs);
    for (size_t c = 0; c < n; c++) {
        pecert_rope_config nope = *configs[c];
        nope.layer_kind = PECERT_LAYER_NOPE;
        for (size_t p = 0; p < sizeof(pairings) / sizeof(pairings[0]); p++) {
            int64_t pos[MAX_POSITIONS];
            pecert_rope_call call = {.config = &nope, .pairing = pairings[p], .positions = pos,
                                     .tokens = pecert_scope_trim(env, r, pos, nope_positions(pos, &nope)),
                                     .heads = N_HEADS,
                                     .head_dim = nope.head_dim};
            char cfg[128];
            char label[PECERT_RESULT_LINE_MAX];
            pecert_rope_config_label(cfg, sizeof(cfg), configs[c]);
            snprintf(label, sizeof(label), "NoPE layer of %s %s", cfg,
                     pecert_rope_pairing_name(pairings[p]));
            float *x = pecert_random_floats(r, pecert_rope_call_size(&call), 303 + c * 2 + p, label);
            if (x == NULL) {
                continue;
            }
            apply_cases(env, r, &call, x, label);
            free(x);
            session_case(env, r, &nope, pairings[p], label);
        }
    }
    pecert_check_conclude(r, "NoPE cases");
}

const pecert_check pecert_check_rope_nope_layer = {
    PECERT_ID_ROPE_NOPE_LAYER,
    "a NoPE layer (layer_kind nope) is left unrotated: rope_apply returns x bit for bit, " "a decode session attends with unrotated keys",
    PECERT_NEED_ROPE_APPLY, run_nope};
