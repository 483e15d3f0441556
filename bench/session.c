/*
 * session.c - the decode session's attention, timed: one layer of a
 * Llama-3-8B-shaped model (32 query heads, 8 kv heads, head_dim 128, RoPE
 * at theta 500000, split-half), a prompt of SESSION_PREFILL tokens in one
 * append, then SESSION_DECODE decode steps of one token each; the whole
 * life (create, the appends, destroy) is one sample. The plugin and the
 * baseline are measured as one group (samples in turn), so their ratio
 * holds while the shared host drifts.
 *
 * The work is attention's arithmetic: every query head reads each key it
 * sees (a dot product, head_dim multiply-adds) and its value (head_dim
 * more), 4 * head_dim flops per (query head, visible token). A session is
 * compute-bound (its cache of 1088 tokens is 8.5 MiB of keys and values,
 * read by every query), so GFLOP/s, not bytes, is its figure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define SESSION_HEADS 32
#define SESSION_KV_HEADS 8
#define SESSION_HEAD_DIM 128
#define SESSION_PREFILL 1024
#define SESSION_DECODE 64
#define SESSION_TOKENS (SESSION_PREFILL + SESSION_DECODE)
/* Samples per figure at most: a scalar baseline takes seconds each. */
#define SESSION_REPS 3

typedef struct session_call {
    bench_subject *subject;
    pecert_rope_config rope;
    pecert_session_config config;
    float *q, *k, *v, *out;    /* [SESSION_TOKENS, heads, head_dim]       */
    int64_t *positions;        /* 0 .. SESSION_TOKENS - 1                 */
    int32_t *seq_ids;          /* all 0                                   */
    pecert_status status;
    char error[256];
} session_call;

static pecert_tensor view(float *data, int64_t tokens, int64_t heads)
{
    return (pecert_tensor){sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, data,
                           {tokens, heads, SESSION_HEAD_DIM},
                           {heads * SESSION_HEAD_DIM, SESSION_HEAD_DIM, 1}};
}

/* Tokens [first, first + n) appended in one call. */
static pecert_status append(session_call *c, void *session, int64_t first, int64_t n)
{
    const pecert_plugin *d = c->subject->plugin.desc;
    size_t qrow = (size_t)SESSION_HEADS * SESSION_HEAD_DIM;
    size_t krow = (size_t)SESSION_KV_HEADS * SESSION_HEAD_DIM;
    pecert_tensor q = view(c->q + (size_t)first * qrow, n, SESSION_HEADS);
    pecert_tensor k = view(c->k + (size_t)first * krow, n, SESSION_KV_HEADS);
    pecert_tensor v = view(c->v + (size_t)first * krow, n, SESSION_KV_HEADS);
    pecert_tensor out = view(c->out + (size_t)first * qrow, n, SESSION_HEADS);
    pecert_session_append_args a = {.struct_size = sizeof(a), .n_tokens = n,
                                    .positions = c->positions + first, .seq_ids = c->seq_ids + first,
                                    .q = &q, .k = &k, .v = &v, .out = &out};

    return d->session_append(c->subject->instance, session, &a);
}

static int session_once(void *context)
{
    session_call *c = context;
    const pecert_plugin *d = c->subject->plugin.desc;
    void *session = NULL;

    c->status = d->session_create(c->subject->instance, &session, &c->config);
    if (c->status == PECERT_OK) {
        c->status = append(c, session, 0, SESSION_PREFILL);
    }
    for (int64_t t = SESSION_PREFILL; t < SESSION_TOKENS && c->status == PECERT_OK; t++) {
        c->status = append(c, session, t, 1);
    }
    if (c->status != PECERT_OK && d->last_error != NULL) {
        snprintf(c->error, sizeof(c->error), "%s", d->last_error(c->subject->instance));
    }
    if (session != NULL) {
        d->session_destroy(c->subject->instance, session);
    }
    return c->status == PECERT_OK ? 0 : -1;
}

static int call_init(session_call *c, bench_subject *s)
{
    size_t qn = (size_t)SESSION_TOKENS * SESSION_HEADS * SESSION_HEAD_DIM;
    size_t kn = (size_t)SESSION_TOKENS * SESSION_KV_HEADS * SESSION_HEAD_DIM;

    memset(c, 0, sizeof(*c));
    c->subject = s;
    c->rope = (pecert_rope_config){.struct_size = sizeof(pecert_rope_config),
                                   .head_dim = SESSION_HEAD_DIM, .rotary_dim = SESSION_HEAD_DIM,
                                   .rope_theta = 500000.0, .max_position_embeddings = 8192,
                                   .factor = 1.0};
    c->config = (pecert_session_config){.struct_size = sizeof(pecert_session_config),
                                        .pairing = PECERT_PAIRING_SPLIT_HALF, .rope = &c->rope,
                                        .n_seqs = 1, .max_tokens = SESSION_TOKENS,
                                        .n_heads = SESSION_HEADS, .n_kv_heads = SESSION_KV_HEADS};
    c->q = malloc(qn * sizeof(float));
    c->out = malloc(qn * sizeof(float));
    c->k = malloc(kn * sizeof(float));
    c->v = malloc(kn * sizeof(float));
    c->positions = malloc(SESSION_TOKENS * sizeof(int64_t));
    c->seq_ids = calloc(SESSION_TOKENS, sizeof(int32_t));
    if (c->q == NULL || c->out == NULL || c->k == NULL || c->v == NULL || c->positions == NULL ||
        c->seq_ids == NULL) {
        return -1;
    }
    bench_fill_f32(c->q, qn, 1);
    bench_fill_f32(c->k, kn, 2);
    bench_fill_f32(c->v, kn, 3);
    memset(c->out, 0, qn * sizeof(float));
    for (int64_t t = 0; t < SESSION_TOKENS; t++) {
        c->positions[t] = t;
    }
    return 0;
}

static void call_free(session_call *c)
{
    free(c->q);
    free(c->out);
    free(c->k);
    free(c->v);
    free(c->positions);
    free(c->seq_ids);
}

/* Flops of one sample: 4 * head_dim per (query head, visible token). */
static double session_flops(void)
{
    double seen = 0.0;

    for (int64_t t = 0; t < SESSION_TOKENS; t++) {
        seen += (double)(t + 1);
    }
    return seen * SESSION_HEADS * 4.0 * SESSION_HEAD_DIM;
}

static int has_session(const bench_subject *s)
{
    const pecert_plugin *d = s->plugin.desc;

    return PECERT_HAS_FIELD(d, pecert_plugin, session_read_keys) && d->session_create != NULL &&
           d->session_append != NULL && d->session_destroy != NULL;
}

static void session_row(cJSON *rows, const bench_subject *s, int threads, const bench_stats *st,
                        double baseline_median)
{
    double gflops = session_flops() / st->median * 1e-9;
    cJSON *o = cJSON_CreateObject();

    printf("  session %-5s thr=%d  min %9.2f ms  median %9.2f ms  max %9.2f ms  %7.2f GFLOP/s",
           s->name, threads, st->min * 1e3, st->median * 1e3, st->max * 1e3, gflops);
    if (baseline_median > 0.0) {
        printf("  %7.1fx ref", baseline_median / st->median);
    }
    printf("\n");
    cJSON_AddStringToObject(o, "impl", s->name);
    cJSON_AddNumberToObject(o, "heads", SESSION_HEADS);
    cJSON_AddNumberToObject(o, "kv_heads", SESSION_KV_HEADS);
    cJSON_AddNumberToObject(o, "head_dim", SESSION_HEAD_DIM);
    cJSON_AddNumberToObject(o, "prefill", SESSION_PREFILL);
    cJSON_AddNumberToObject(o, "decode", SESSION_DECODE);
    cJSON_AddNumberToObject(o, "threads", threads);
    cJSON_AddNumberToObject(o, "flops", session_flops());
    cJSON_AddItemToObject(o, "time", bench_stats_json(st));
    cJSON_AddNumberToObject(o, "gflops", gflops);
    if (baseline_median > 0.0) {
        cJSON_AddNumberToObject(o, "speedup_vs_ref", baseline_median / st->median);
    }
    cJSON_AddItemToArray(rows, o);
}

int bench_session(cJSON *root, bench_subject *subject, bench_subject *baseline,
                  const int *threads, int n_threads, int reps)
{
    session_call calls[2];
    bench_member members[2];
    bench_subject *sides[2] = {subject, baseline};
    int n = baseline != NULL && has_session(baseline) ? 2 : 1;
    cJSON *rows = cJSON_AddArrayToObject(root, "session");
    double baseline_median = 0.0;
    int rc = 0;

    printf("\ndecode session: Llama-3-8B layer (32 heads, 8 kv heads, head_dim 128), prefill %d "
           "tokens + %d decode steps (%.2f GFLOP)\n",
           SESSION_PREFILL, SESSION_DECODE, session_flops() * 1e-9);
    if (!has_session(subject)) {
        printf("  %s has no decode session\n", subject->name);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (call_init(&calls[i], sides[i]) != 0) {
            printf("  no memory for the session's tensors\n");
            rc = -1;
        }
    }
    for (int t = 0; t < n_threads && rc == 0; t++) {
        /* The baseline runs once, on one thread, beside the first thread
         * count: its median is every row's reference. */
        int group = t == 0 ? n : 1;

        if (bench_subject_threads(subject, threads[t]) != 0 ||
            (group == 2 && bench_subject_threads(baseline, 1) != 0)) {
            continue;
        }
        memset(members, 0, sizeof(members));
        for (int i = 0; i < group; i++) {
            members[i].fn = session_once;
            members[i].context = &calls[i];
        }
        if (bench_measure_group(members, group, reps < SESSION_REPS ? reps : SESSION_REPS,
                                BENCH_MIN_SAMPLE_S) != 0) {
            for (int i = 0; i < group; i++) {
                if (calls[i].status != PECERT_OK) {
                    printf("  %s session failed: %s\n", sides[i]->name, calls[i].error);
                }
            }
            rc = -1;
            break;
        }
        if (group == 2) {
            baseline_median = members[1].stats.median;
            session_row(rows, baseline, 1, &members[1].stats, 0.0);
        }
        session_row(rows, subject, threads[t], &members[0].stats, baseline_median);
    }
    for (int i = 0; i < n; i++) {
        call_free(&calls[i]);
    }
    return rc;
}
