/*
 * decode_checks.c - cache and batching, certified by their outputs:
 *
 * decode.prefill_equivalence  one prefill = prefill + decode steps = uneven
 *                             chunks, and all equal the oracle;
 * batch.padding_independence  a left- or right-padded, batched run (with a
 *                             batched decode step after it) gives every
 *                             valid token the output of its unpadded run.
 *
 * These catch the bugs around the formula: decode positions off by one, a
 * position shared across the batch, padding attended to, chunks that
 * restart positions, keys rotated for one position and read at another.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certify_config.h"
#include "decode.h"
#include "isolate.h"
#include "rope_checks.h"

#define PREFILL_LEN PECERT_DECODE_PREFILL_LEN
#define DECODE_STEPS 5
#define MAX_CALLS 32
#define MAX_ENTRIES 64

/* A feed under construction. */
typedef struct feed_builder {
    pecert_feed_entry entries[MAX_CALLS][MAX_ENTRIES];
    const pecert_feed_entry *calls[MAX_CALLS];
    int64_t n_entries[MAX_CALLS];
    int n_calls;
} feed_builder;

static void begin_call(feed_builder *f)
{
    f->calls[f->n_calls] = f->entries[f->n_calls];
    f->n_entries[f->n_calls] = 0;
    f->n_calls++;
}

static void add_entry(feed_builder *f, int32_t seq, int64_t index, int64_t pad_position)
{
    int c = f->n_calls - 1;
    f->entries[c][f->n_entries[c]++] = (pecert_feed_entry){seq, index, pad_position};
}

static void add_tokens(feed_builder *f, int32_t seq, int64_t first, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        add_entry(f, seq, first + i, 0);
    }
}

static pecert_feed as_feed(const feed_builder *f, const char *name)
{
    return (pecert_feed){name, f->n_calls, f->calls, f->n_entries};
}

/* A failed ALiBi run replayed on the oracle with the other bias scale
 * (Falcon's 1/sqrt(head_dim) where the model adds the bias unscaled, 1
 * where it scales): when that reproduces the plugin's output, the plugin
 * puts the ALiBi term on the wrong side of the score scale. */
static void replay_alibi_scale(const pecert_check_env *env, pecert_check_result *r, const pecert_logical_batch *b,
                               const pecert_logical_out *got, const pecert_feed *feed, const char *label)
{
    pecert_logical_batch other = *b;
    other.alibi_bias_scale = b->alibi_bias_scale != 0 ? 0.0 : 1.0 / sqrt((double)b->head_dim);
    pecert_check_result scratch;
    pecert_check_result_init(&scratch, r->check_id);
    pecert_logical_out want;
    pecert_decode_bounds bounds;
    if (pecert_feed_run(&want, &env->oracle, &scratch, &other, feed, label) == 0 &&
        pecert_decode_bounds_init(&bounds, env, &scratch, &other, label) == 0) {
        pecert_decode_compare(&scratch, &other, &bounds, got, &want, 1.0, label);
        if (scratch.n_failed == 0 && scratch.n_cases > 0) {
            pecert_check_symptom(r, "%s",
                                 b->alibi_bias_scale != 0 ? PECERT_SYMPTOM_ALIBI_SCALE_IGNORED
                                                          : PECERT_SYMPTOM_ALIBI_SCALE_APPLIED);
        }
        pecert_decode_bounds_free(&bounds);
    }
    pecert_logical_out_free(&want, other.n_seqs);
    pecert_check_result_release(&scratch);
}

/* Runs feeds[0..2] on the plugin and feeds[0] on the oracle: every plugin
 * run must equal the oracle, and feeds 1 and 2 must equal the plugin's own
 * feeds[0] run (twice the bound: both are the plugin's). The five
 * comparisons share the batch's bounds. */
static void compare_feeds(const pecert_check_env *env, pecert_check_result *r,
                          const pecert_logical_batch *b, const char *label, const pecert_feed *feeds)
{
    pecert_logical_out oracle;
    pecert_logical_out got[3];
    pecert_decode_bounds bounds;
    memset(got, 0, sizeof(got));
    memset(&bounds, 0, sizeof(bounds));
    char where[PECERT_RESULT_LINE_MAX];
    snprintf(where, sizeof(where), "%s oracle", label);
    if (pecert_feed_run(&oracle, &env->oracle, r, b, &feeds[0], where) == 0 &&
        pecert_decode_bounds_init(&bounds, env, r, b, label) == 0) {
        for (int k = 0; k < 3; k++) {
            snprintf(where, sizeof(where), "%s %s", label, feeds[k].name);
            pecert_case_slot_set(env->case_slot, "%s", where);
            if (pecert_feed_run(&got[k], &env->plugin, r, b, &feeds[k], where) != 0) {
                continue;
            }
            int64_t failed_vs_oracle = r->n_failed;
            pecert_decode_compare(r, b, &bounds, &got[k], &oracle, 1.0, where);
            if (k == 0 && b->alibi && r->n_failed > failed_vs_oracle) {
                replay_alibi_scale(env, r, b, &got[0], &feeds[0], where);
            }
            if (k > 0 && got[0].out[0] != NULL) {
                int64_t failed_before = r->n_failed;
                snprintf(where, sizeof(where), "%s %s vs the plugin's %s", label, feeds[k].name, feeds[0].name);
                pecert_decode_compare(r, b, &bounds, &got[k], &got[0], 2.0, where);
                if (r->n_failed > failed_before) {
                    pecert_check_symptom(r, "%s%s", PECERT_SYMPTOM_DIFFERS, feeds[k].name);
                }
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        pecert_logical_out_free(&got[k], b->n_seqs);
    }
    pecert_decode_bounds_free(&bounds);
    pecert_logical_out_free(&oracle, b->n_seqs);
}

/* ---- decode.prefill_equivalence ----------------------------------------- */

static void build_single_feeds(feed_builder *one, feed_builder *steps, feed_builder *chunks)
{
    static const int64_t chunk_sizes[] = {7, 1, 9};
    memset(one, 0, sizeof(*one));
    memset(steps, 0, sizeof(*steps));
    memset(chunks, 0, sizeof(*chunks));
    begin_call(one);
    add_tokens(one, 0, 0, PREFILL_LEN);
    begin_call(steps);
    add_tokens(steps, 0, 0, PREFILL_LEN - DECODE_STEPS);
    for (int64_t i = PREFILL_LEN - DECODE_STEPS; i < PREFILL_LEN; i++) {
        begin_call(steps);
        add_entry(steps, 0, i, 0);
    }
    int64_t done = 0;
    for (size_t c = 0; c < sizeof(chunk_sizes) / sizeof(chunk_sizes[0]); c++) {
        begin_call(chunks);
        add_tokens(chunks, 0, done, chunk_sizes[c]);
        done += chunk_sizes[c];
    }
    begin_call(chunks);
    add_tokens(chunks, 0, done, PREFILL_LEN - done);
}

/* Three feeds, built by build and named by names, compared (compare_feeds). */
static void compare_built_feeds(const pecert_check_env *env, pecert_check_result *r, const pecert_logical_batch *b,
                                const char *label, void (*build)(feed_builder *, feed_builder *, feed_builder *),
                                const char *const names[3])
{
    static feed_builder fb[3]; /* large: not on the stack */
    build(&fb[0], &fb[1], &fb[2]);
    const pecert_feed feeds[3] = {as_feed(&fb[0], names[0]), as_feed(&fb[1], names[1]), as_feed(&fb[2], names[2])};
    compare_feeds(env, r, b, label, feeds);
}

/* One prefill, prefill + decode steps, uneven chunks. */
void pecert_decode_equivalence_case(const pecert_check_env *env, pecert_check_result *r,
                                    const pecert_logical_batch *b, const char *label)
{
    static const char *const names[3] = {"one prefill", "prefill + 5 decode steps", "chunks 7,1,9,7"};
    compare_built_feeds(env, r, b, label, build_single_feeds, names);
}

/* The pairings a session sweep runs (p = 1: interleaved): both in `pecert
 * run`; in certify the checkpoint's own, whose every case is then the
 * checkpoint's configuration (the session checks are essential there: a
 * decline fails the certification). */
static int pairing_swept(const pecert_check_env *env, int p)
{
    return env->certify_model == NULL ||
           (env->certify_model->pairing == PECERT_PAIRING_INTERLEAVED) == (p == 1);
}

/* Every config x pairing, at positions from 0 and straddling L0. */
static void sweep_single(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_rope_config **configs = NULL;
    size_t n = pecert_rope_configs(env, &configs);
    for (size_t c = 0; c < n; c++) {
        int64_t l0 = pecert_rope_l0(configs[c]);
        const int64_t starts[2] = {0, l0 > PREFILL_LEN / 2 ? l0 - PREFILL_LEN / 2 : 0};
        for (int p = 0; p < 2; p++) {
            if (!pairing_swept(env, p)) {
                continue;
            }
            for (int s = 0; s < 2; s++) {
                pecert_logical_batch b;
                int64_t len = PREFILL_LEN;
                char label[PECERT_RESULT_LINE_MAX];
                char cfg[128];
                pecert_rope_config_label(cfg, sizeof(cfg), configs[c]);
                snprintf(label, sizeof(label), "%s %s from position %lld", cfg, p ? "interleaved" : "split_half",
                         (long long)starts[s]);
                if (pecert_logical_batch_init(&b, configs[c], p ? PECERT_PAIRING_INTERLEAVED : PECERT_PAIRING_SPLIT_HALF,
                                              1, &len, &starts[s], 1000 + c) == 0) {
                    pecert_decode_equivalence_case(env, r, &b, label);
                } else {
                    pecert_case_fail(r, label, "out of memory");
                }
                pecert_logical_batch_free(&b);
            }
        }
    }
}

/* ALiBi-only models: 6 heads (not a power of two, so the interleaved
 * slopes are used), from position 0 and from 4000, with the bias added to
 * the scaled scores (Bloom, MPT) and to q . k before the 1/sqrt(64) scale
 * (Falcon, alibi_bias_scale 1/8). */
static void sweep_alibi_single(const pecert_check_env *env, pecert_check_result *r)
{
    const int64_t starts[2] = {0, 4000};
    const double bias_scales[2] = {0.0, 0.125};
    for (int c = 0; c < 4; c++) {
        int s = c % 2;
        pecert_logical_batch b;
        int64_t len = PREFILL_LEN;
        char label[PECERT_RESULT_LINE_MAX];
        snprintf(label, sizeof(label), "alibi heads=6 max_bias=8%s from position %lld",
                 c / 2 ? " bias_scale=1/sqrt(64) (Falcon)" : "", (long long)starts[s]);
        if (pecert_logical_batch_init_alibi(&b, 6, 3, 64, 8.0, 1, &len, &starts[s], 3000 + (uint64_t)s) == 0) {
            b.alibi_bias_scale = bias_scales[c / 2];
            pecert_decode_equivalence_case(env, r, &b, label);
        } else {
            pecert_case_fail(r, label, "out of memory");
        }
        pecert_logical_batch_free(&b);
    }
}

/* The ALiBi sessions run in `pecert run` (whose oracle has slopes), not
 * in certify: the plan gives the session checks to RoPE checkpoints only,
 * and a certificate must neither rest on nor be denied by an encoding the
 * checkpoint does not use (12 ALiBi cases once sat in llama-2-7b's). */
static int alibi_sessions_apply(const pecert_check_env *env)
{
    return env->certify_model == NULL && env->oracle.desc != NULL &&
           PECERT_HAS_FIELD(env->oracle.desc, pecert_plugin, alibi_slopes) && env->oracle.desc->alibi_slopes != NULL;
}

static void run_prefill_equivalence(const pecert_check_env *env, pecert_check_result *r)
{
    sweep_single(env, r);
    if (alibi_sessions_apply(env)) {
        sweep_alibi_single(env, r);
    }
    pecert_check_conclude(r, "session comparisons");
}

/* ---- batch.padding_independence ----------------------------------------- */

#define N_ROWS 3
static const int64_t row_len[N_ROWS] = {6, 10, 13}; /* prefill len-1, then one decode step */

static void build_padding_feeds(feed_builder *alone, feed_builder *left, feed_builder *right)
{
    int64_t lmax = row_len[N_ROWS - 1] - 1;
    memset(alone, 0, sizeof(*alone));
    memset(left, 0, sizeof(*left));
    memset(right, 0, sizeof(*right));
    for (int32_t s = 0; s < N_ROWS; s++) { /* unpadded: one call per row */
        begin_call(alone);
        add_tokens(alone, s, 0, row_len[s] - 1);
    }
    for (int32_t s = 0; s < N_ROWS; s++) {
        begin_call(alone);
        add_entry(alone, s, row_len[s] - 1, 0);
    }
    begin_call(left); /* left padding: pads at position 1, as transformers' generate */
    begin_call(right); /* right padding: pads continue the positions */
    for (int32_t s = 0; s < N_ROWS; s++) {
        int64_t pads = lmax - (row_len[s] - 1);
        for (int64_t i = 0; i < pads; i++) {
            add_entry(left, s, -1, 1);
        }
        add_tokens(left, s, 0, row_len[s] - 1);
        add_tokens(right, s, 0, row_len[s] - 1);
        for (int64_t i = 0; i < pads; i++) {
            add_entry(right, s, -1, row_len[s] - 1 + i);
        }
    }
    begin_call(left); /* one batched decode step: a token per row */
    begin_call(right);
    for (int32_t s = 0; s < N_ROWS; s++) {
        add_entry(left, s, row_len[s] - 1, 0);
        add_entry(right, s, row_len[s] - 1, 0);
    }
}

static void padding_case(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_logical_batch *b, const char *label)
{
    static const char *const names[3] = {"unpadded rows", "left-padded batch", "right-padded batch"};
    compare_built_feeds(env, r, b, label, build_padding_feeds, names);
}

static void run_padding_independence(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_rope_config **configs = NULL;
    size_t n = pecert_rope_configs(env, &configs);
    const int64_t starts[N_ROWS] = {0, 0, 0};
    for (size_t c = 0; c < n; c++) {
        for (int p = 0; p < 2; p++) {
            if (!pairing_swept(env, p)) {
                continue;
            }
            pecert_logical_batch b;
            char label[PECERT_RESULT_LINE_MAX];
            char cfg[128];
            pecert_rope_config_label(cfg, sizeof(cfg), configs[c]);
            snprintf(label, sizeof(label), "%s %s rows 6/10/13", cfg, p ? "interleaved" : "split_half");
            if (pecert_logical_batch_init(&b, configs[c], p ? PECERT_PAIRING_INTERLEAVED : PECERT_PAIRING_SPLIT_HALF,
                                          N_ROWS, row_len, starts, 2000 + c) == 0) {
                padding_case(env, r, &b, label);
            } else {
                pecert_case_fail(r, label, "out of memory");
            }
            pecert_logical_batch_free(&b);
        }
    }
    pecert_logical_batch b;
    char label[PECERT_RESULT_LINE_MAX];
    snprintf(label, sizeof(label), "alibi heads=6 max_bias=8 rows 6/10/13");
    if (alibi_sessions_apply(env)) {
        if (pecert_logical_batch_init_alibi(&b, 6, 3, 64, 8.0, N_ROWS, row_len, starts, 4000) == 0) {
            padding_case(env, r, &b, label);
        } else {
            pecert_case_fail(r, label, "out of memory");
        }
        pecert_logical_batch_free(&b);
    }
    pecert_check_conclude(r, "session comparisons");
}

const pecert_check pecert_check_decode_prefill_equivalence = {
    PECERT_ID_DECODE_PREFILL_EQUIVALENCE,
    "one prefill, prefill + decode steps and uneven chunks give the same attention outputs as the oracle",
    PECERT_NEED_SESSION, run_prefill_equivalence};
const pecert_check pecert_check_batch_padding_independence = {
    PECERT_ID_BATCH_PADDING_INDEPENDENCE, "left/right-padded batched runs give every valid token its unpadded output",
    PECERT_NEED_SESSION, run_padding_independence};
