/*
 * session.c - the decode session of `fast`: attention over a KV cache
 * (plugin.h, "Decode session").
 *
 * Keys are rotated once, when appended, and cached rotated in float32
 * (values likewise unrotated); a query is rotated at its position and
 * attends to itself and to the valid tokens of its sequence appended before
 * it. Rotation: cos/sin rows in double by fast's trig (the kernels' row
 * function, far_angle.c past 2^36 rad), the pair rotated in double and
 * rounded once. Frequencies are those of config.seq_len, fixed at create,
 * so the outputs do not depend on how the tokens are split into calls.
 *
 * An append runs in two phases. First every token is cached, in call
 * order, and learns how many tokens it sees; then every (token, kv head)
 * item attends, on the instance's threads: items are split in ranges of
 * equal work (a prefill's later tokens see more), each thread with its
 * own scratch, the query heads of one kv head in turn while its cached
 * rows are warm. Per query head (scalar/attend.c has the kernels'
 * arithmetic and errors; conformance/TOLERANCES.md the bound):
 *   scores  q . k in float32 by the ISA's dot_rows, then in double the
 *           softmax scale, ALiBi's term and the maximum;
 *   weights exp(score - max) in double, rounded to float32, their sum in
 *           double (softmax_weights);
 *   output  sum_j w_j v_j in float32 over blocks of at most 64 rows
 *           (weighted_rows), the blocks added in double, divided by the
 *           sum and rounded once.
 * Neither the thread that computes an item nor the ISA changes its bits,
 * and blocks start at multiples of 64 cached tokens, so a prefill and the
 * same tokens appended one by one give the same outputs, bit for bit.
 *
 * Caches grow on demand (doubling, up to max_tokens), and every check
 * and allocation of an append happens before the first token moves: a
 * failed append leaves the session as it was.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

#define SESSION_MAX_SEQS 4096
#define SESSION_MAX_TOKENS (1 << 20)
#define SESSION_MAX_HEAD_DIM 65536

typedef struct fast_sequence {
    int64_t count;      /* tokens appended                                */
    int64_t cap;        /* tokens the arrays hold                         */
    /* Head-major, so that one kv head's rows are one contiguous stream
     * (token-major rows 4 KiB apart at Llama's shape fall in a few cache
     * sets: the L2 then held a quarter of a head's keys). */
    float *keys;        /* [n_kv_heads, cap, head_dim], rotated           */
    float *values;      /* [n_kv_heads, cap, head_dim]                    */
    uint8_t *valid;     /* [cap]                                          */
    int64_t *positions; /* [cap], ALiBi's distances                       */
} fast_sequence;

typedef struct fast_session {
    pecert_rope_pairing pairing;
    int32_t n_seqs;
    int32_t max_tokens;
    int32_t n_heads;
    int32_t n_kv_heads;
    int32_t head_dim;
    int32_t half;          /* rotary_dim / 2 (0 without RoPE)             */
    double softmax_scale;
    double scaling;        /* attention scaling of the rope config        */
    double max_inv_freq;
    double *inv_freq;      /* [half]                                       */
    double *slopes;        /* [n_heads], NULL without ALiBi                */
    fast_sequence *seqs;   /* [n_seqs]                                     */
} fast_session;

static void session_free(fast_session *s)
{
    if (s == NULL) {
        return;
    }
    for (int32_t i = 0; s->seqs != NULL && i < s->n_seqs; i++) {
        free(s->seqs[i].keys);
        free(s->seqs[i].values);
        free(s->seqs[i].valid);
        free(s->seqs[i].positions);
    }
    free(s->seqs);
    free(s->inv_freq);
    free(s->slopes);
    free(s);
}

static pecert_status check_session_config(const pecert__fast_call *call,
                                          const pecert_session_config *c)
{
    if (c == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config is NULL");
    }
    if (c->struct_size < sizeof(*c)) {
        return pecert__fast_fail(call, PECERT_E_ABI,
                                 "config.struct_size=%" PRIu32 " is below sizeof=%zu",
                                 c->struct_size, sizeof(*c));
    }
    for (size_t i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++) {
        if (c->reserved[i] != 0) {
            return pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                     "config.reserved[%zu]=0x%" PRIx64 " is non-zero (no meaning "
                                     "in ABI 1.2)",
                                     i, c->reserved[i]);
        }
    }
    if (c->n_seqs < 1 || c->n_seqs > SESSION_MAX_SEQS) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.n_seqs=%" PRId32 " must be in 1..%d",
                                 c->n_seqs, SESSION_MAX_SEQS);
    }
    if (c->max_tokens < 1 || c->max_tokens > SESSION_MAX_TOKENS) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.max_tokens=%" PRId32 " must be in 1..%d", c->max_tokens,
                                 SESSION_MAX_TOKENS);
    }
    if (c->n_heads < 1 || c->n_kv_heads < 1 || c->n_heads % c->n_kv_heads != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.n_heads=%" PRId32
                                 " must be a positive multiple of n_kv_heads=%" PRId32,
                                 c->n_heads, c->n_kv_heads);
    }
    if (c->pairing != PECERT_PAIRING_SPLIT_HALF && c->pairing != PECERT_PAIRING_INTERLEAVED) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.pairing=%" PRId32 " must be 0 or 1",
                                 c->pairing);
    }
    if (!isfinite(c->softmax_scale) || c->softmax_scale < 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.softmax_scale=%.17g must be finite and >= 0 (0 = 1/sqrt(d))",
                                 c->softmax_scale);
    }
    if (c->alibi != 0 && c->alibi != 1) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.alibi=%" PRId32 " must be 0 or 1",
                                 c->alibi);
    }
    if (c->alibi == 1 && (!isfinite(c->alibi_max_bias) || c->alibi_max_bias <= 0)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.alibi_max_bias=%.17g must be finite and > 0 with alibi=1",
                                 c->alibi_max_bias);
    }
    if (!isfinite(c->alibi_bias_scale) || c->alibi_bias_scale < 0 || (c->alibi == 0 && c->alibi_bias_scale != 0)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.alibi_bias_scale=%.17g must be finite and >= 0 (0 = 1), and 0 without ALiBi",
                                 c->alibi_bias_scale);
    }
    if (c->rope == NULL && c->alibi == 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.rope is NULL: only an ALiBi session (alibi=1) may omit it");
    }
    if (c->rope == NULL && (c->head_dim < 1 || c->head_dim > SESSION_MAX_HEAD_DIM)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.head_dim=%" PRId32 " must be in 1..%d when rope is NULL",
                                 c->head_dim, SESSION_MAX_HEAD_DIM);
    }
    if (c->rope != NULL && c->rope->struct_size >= sizeof(pecert_rope_config) && c->head_dim != 0 &&
        c->head_dim != c->rope->head_dim) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.head_dim=%" PRId32 " must be 0 or rope->head_dim=%" PRId32,
                                 c->head_dim, c->rope->head_dim);
    }
    return pecert__fast_check_seq_len(call, c->seq_len);
}

/* Frequencies of the session's rope config at config.seq_len. */
static pecert_status init_rope(const pecert__fast_call *call, fast_session *s,
                               const pecert_session_config *config)
{
    pecert__fast_params params;
    pecert_status status = pecert__fast_check_layer_config(call, config->rope);

    if (status == PECERT_OK && config->rope->head_dim > SESSION_MAX_HEAD_DIM) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "rope->head_dim=%" PRId32 " exceeds %d",
                                   config->rope->head_dim, SESSION_MAX_HEAD_DIM);
    }
    if (status != PECERT_OK) {
        return status;
    }
    s->head_dim = config->rope->head_dim;
    if (config->rope->layer_kind == PECERT_LAYER_NOPE) {
        return PECERT_OK; /* half 0: keys and queries stay as projected */
    }
    status = pecert__fast_resolve_params(call, config->rope, &params);
    if (status != PECERT_OK) {
        return status;
    }
    s->half = config->rope->rotary_dim / 2;
    s->scaling = params.attention_factor;
    s->inv_freq = malloc((size_t)s->half * sizeof(double));
    if (s->inv_freq == NULL) {
        return pecert__fast_fail(call, PECERT_E_NOMEM, "no memory for %" PRId32 " frequencies",
                                 s->half);
    }
    pecert__fast_inv_freq(&params, config->seq_len, s->inv_freq);
    for (int32_t i = 0; i < s->half; i++) {
        if (!isfinite(s->inv_freq[i]) || s->inv_freq[i] < 0) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "rope config gives inv_freq[%" PRId32 "]=%.17g (not finite)",
                                     i, s->inv_freq[i]);
        }
        s->max_inv_freq = s->inv_freq[i] > s->max_inv_freq ? s->inv_freq[i] : s->max_inv_freq;
    }
    if (!isfinite(s->scaling)) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "rope config gives attention scaling %.17g",
                                 s->scaling);
    }
    return PECERT_OK;
}

pecert_status pecert__fast_session_create(void *instance, void **out_session,
                                          const pecert_session_config *config)
{
    pecert__fast_call call;
    pecert_status status;
    fast_session *s;

    if (pecert__fast_begin_call(&call, instance, "session_create") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    if (out_session == NULL) {
        return pecert__fast_fail(&call, PECERT_E_INVAL, "out_session is NULL");
    }
    *out_session = NULL;
    status = check_session_config(&call, config);
    if (status != PECERT_OK) {
        return status;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return pecert__fast_fail(&call, PECERT_E_NOMEM, "no memory for the session");
    }
    s->pairing = config->pairing;
    s->n_seqs = config->n_seqs;
    s->max_tokens = config->max_tokens;
    s->n_heads = config->n_heads;
    s->n_kv_heads = config->n_kv_heads;
    s->head_dim = config->head_dim;
    s->scaling = 1.0;
    if (config->rope != NULL) {
        status = init_rope(&call, s, config);
        if (status != PECERT_OK) {
            session_free(s);
            return status;
        }
    }
    s->softmax_scale =
        config->softmax_scale > 0 ? config->softmax_scale : 1.0 / sqrt((double)s->head_dim);
    s->seqs = calloc((size_t)s->n_seqs, sizeof(*s->seqs));
    if (config->alibi) {
        s->slopes = malloc((size_t)s->n_heads * sizeof(double));
    }
    if (s->seqs == NULL || (config->alibi && s->slopes == NULL)) {
        session_free(s);
        return pecert__fast_fail(&call, PECERT_E_NOMEM, "no memory for the session");
    }
    /* Falcon's bias scale folded into the slopes (0 = 1, Bloom and MPT). */
    double bias_scale = config->alibi_bias_scale > 0 ? config->alibi_bias_scale : 1.0;
    for (int32_t h = 0; config->alibi && h < s->n_heads; h++) {
        s->slopes[h] = bias_scale * pecert__fast_alibi_slope(s->n_heads, config->alibi_max_bias, h);
    }
    *out_session = s;
    return PECERT_OK;
}

void pecert__fast_session_destroy(void *instance, void *session)
{
    (void)instance;
    session_free(session);
}

static pecert_status check_append_args(const pecert__fast_call *call, const fast_session *s,
                                       const pecert_session_append_args *a)
{
    static const char *const names[4] = {"q", "k", "v", "out"};
    const pecert_tensor *views[4];
    int64_t heads[4];
    pecert__fast_positions seen;
    pecert_status status = pecert__fast_fam_check_args(call, a, sizeof(*a));

    if (status != PECERT_OK) {
        return status;
    }
    if (a->reserved0 != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "args.reserved0=%" PRIu32 " must be 0",
                                 a->reserved0);
    }
    status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 8);
    if (status != PECERT_OK) {
        return status;
    }
    if (a->n_tokens < 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "n_tokens=%" PRId64 " must be >= 0",
                                 a->n_tokens);
    }
    if (a->n_tokens > 0 && a->seq_ids == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "seq_ids is NULL for %" PRId64 " tokens",
                                 a->n_tokens);
    }
    views[0] = a->q;
    views[1] = a->k;
    views[2] = a->v;
    views[3] = a->out;
    heads[0] = heads[3] = s->n_heads;
    heads[1] = heads[2] = s->n_kv_heads;
    for (int i = 0; i < 4; i++) {
        int64_t shape[3] = {a->n_tokens, heads[i], s->head_dim};

        status = pecert__fast_fam_check_view(call, names[i], views[i], 3, shape, PECERT__FAM_F32,
                                             i == 3);
        if (status != PECERT_OK) {
            return status;
        }
    }
    for (int i = 0; i < 3; i++) {
        status = pecert__fast_check_aliasing(call, names[i], views[i], "out", a->out, 0);
        if (status != PECERT_OK) {
            return status;
        }
    }
    status = pecert__fast_check_positions(call, a->positions, a->n_tokens, &seen);
    if (status == PECERT_OK && s->half > 0 &&
        (double)seen.max_magnitude * s->max_inv_freq >= PECERT__FAST_ANGLE_LIMIT) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "position %" PRId64 " turns by %.17g rad, past 2^64",
                                   seen.max_magnitude,
                                   (double)seen.max_magnitude * s->max_inv_freq);
    }
    return status;
}

static size_t align64(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}

/* A head-major cache of `count` tokens moved from capacity old_cap to cap
 * (NULL: no memory, the old one kept). */
static float *regrow_cache(const fast_session *s, float *old, int64_t old_cap, int64_t count,
                           int64_t cap)
{
    size_t hd = (size_t)s->head_dim;
    float *p;

    /* n_kv_heads * max_tokens * head_dim may pass size_t: no memory. */
    if ((double)s->n_kv_heads * (double)cap * (double)hd * sizeof(float) > 0x1p62) {
        return NULL;
    }
    p = aligned_alloc(64, align64((size_t)s->n_kv_heads * (size_t)cap * hd * sizeof(float)));
    if (p == NULL) {
        return NULL;
    }
    for (int32_t h = 0; h < s->n_kv_heads && count > 0; h++) {
        memcpy(p + (size_t)h * (size_t)cap * hd, old + (size_t)h * (size_t)old_cap * hd,
               (size_t)count * hd * sizeof(float));
    }
    return p;
}

/* Grows a sequence's arrays to hold `need` tokens (need <= max_tokens). */
static int grow_sequence(const fast_session *s, fast_sequence *seq, int64_t need)
{
    int64_t cap = seq->cap > 0 ? seq->cap : 16;
    float *keys, *values;
    void *p;

    if (need <= seq->cap) {
        return 1;
    }
    while (cap < need) {
        cap *= 2;
    }
    cap = cap > s->max_tokens ? s->max_tokens : cap;
    if ((p = realloc(seq->valid, (size_t)cap)) == NULL) {
        return 0;
    }
    seq->valid = p;
    if ((p = realloc(seq->positions, (size_t)cap * sizeof(int64_t))) == NULL) {
        return 0;
    }
    seq->positions = p;
    keys = regrow_cache(s, seq->keys, seq->cap, seq->count, cap);
    values = keys != NULL ? regrow_cache(s, seq->values, seq->cap, seq->count, cap) : NULL;
    if (values == NULL) {
        free(keys);
        return 0;
    }
    free(seq->keys);
    free(seq->values);
    seq->keys = keys;
    seq->values = values;
    seq->cap = cap;
    return 1;
}

/* One append's attention: what the threads share (read-only). */
typedef struct attend_job {
    const fast_session *s;
    const pecert_session_append_args *args;
    const pecert__fast_kernels *kernels;
    const int64_t *visible;   /* [T] tokens each token attends over      */
    const int64_t *cost;      /* [items + 1] work before each item       */
    const double *rows;       /* [T][2 half] cos then sin of each token  */
    unsigned char *scratch;   /* thread i's at i * per_thread            */
    size_t per_thread;        /* bytes, a multiple of 64                 */
    int64_t longest;          /* most tokens a query attends over        */
    int64_t tokens;           /* T                                       */
    int64_t items;            /* T * n_kv_heads, kv head-major: one kv
                               * head's rows stay cached over its tokens */
} attend_job;

/* One thread's scratch, carved from attend_job.scratch: G = the query
 * heads of one kv head, L = longest. */
typedef struct attend_scratch {
    float *q;                 /* [G, head_dim] the rotated queries       */
    float *part;              /* [G, head_dim] one block's float sums    */
    double *acc;              /* [G, head_dim] the blocks' sums          */
    float *dots;              /* [G, L]                                  */
    float *weights;           /* [G, L]                                  */
    double *scores;           /* [L] one head's at a time                */
    double *totals;           /* [G] the weights' sums                   */
} attend_scratch;

/* Bytes of one thread's scratch for queries that see up to `longest`. */
static size_t scratch_bytes(const fast_session *s, int64_t longest)
{
    size_t g = (size_t)(s->n_heads / s->n_kv_heads);
    size_t hd = (size_t)s->head_dim;
    size_t n = (size_t)longest;

    return 2 * align64(g * hd * sizeof(float)) + align64(g * hd * sizeof(double)) +
           2 * align64(g * n * sizeof(float)) + align64(n * sizeof(double)) +
           align64(g * sizeof(double));
}

static attend_scratch carve_scratch(const attend_job *job, int ith)
{
    unsigned char *p = job->scratch + (size_t)ith * job->per_thread;
    size_t g = (size_t)(job->s->n_heads / job->s->n_kv_heads);
    size_t hd = (size_t)job->s->head_dim;
    size_t n = (size_t)job->longest;
    attend_scratch w;

    w.q = (float *)p;
    p += align64(g * hd * sizeof(float));
    w.part = (float *)p;
    p += align64(g * hd * sizeof(float));
    w.acc = (double *)p;
    p += align64(g * hd * sizeof(double));
    w.dots = (float *)p;
    p += align64(g * n * sizeof(float));
    w.weights = (float *)p;
    p += align64(g * n * sizeof(float));
    w.scores = (double *)p;
    p += align64(n * sizeof(double));
    w.totals = (double *)p;
    return w;
}

/* What an append needs, counted before anything moves. */
typedef struct append_plan {
    int64_t longest;          /* most tokens a query attends over        */
    double work;              /* key and value bytes the heads read      */
    int threads;
    size_t per_thread;        /* scratch bytes per thread                */
    size_t bytes;             /* the whole scratch                       */
    unsigned char *memory;    /* it, the instance's                      */
} append_plan;

/* Sequence ids in range, room in every cache, memory for every token and
 * every thread's scratch: all before anything moves. */
static pecert_status reserve(const pecert__fast_call *call, fast_session *s,
                             const pecert_session_append_args *a, append_plan *plan)
{
    int64_t *adding = calloc((size_t)s->n_seqs, sizeof(int64_t));
    pecert_status status = PECERT_OK;
    size_t t = (size_t)a->n_tokens;
    size_t items = t * (size_t)s->n_kv_heads;

    memset(plan, 0, sizeof(*plan));
    if (adding == NULL) {
        return pecert__fast_fail(call, PECERT_E_NOMEM, "no memory for %" PRId32 " counters",
                                 s->n_seqs);
    }
    for (int64_t i = 0; i < a->n_tokens; i++) {
        if (a->seq_ids[i] < 0 || a->seq_ids[i] >= s->n_seqs) {
            status = pecert__fast_fail(call, PECERT_E_INVAL,
                                       "seq_ids[%" PRId64 "]=%" PRId32 " is outside 0..%" PRId32, i,
                                       a->seq_ids[i], s->n_seqs - 1);
            break;
        }
        adding[a->seq_ids[i]]++;
    }
    for (int32_t i = 0; status == PECERT_OK && i < s->n_seqs; i++) {
        int64_t before = s->seqs[i].count;
        int64_t need = before + adding[i];

        if (need > s->max_tokens) {
            status = pecert__fast_fail(call, PECERT_E_INVAL,
                                       "sequence %" PRId32 ": %" PRId64 " + %" PRId64
                                       " tokens exceed max_tokens=%" PRId32,
                                       i, before, adding[i], s->max_tokens);
        } else if (!grow_sequence(s, &s->seqs[i], need)) {
            status = pecert__fast_fail(call, PECERT_E_NOMEM,
                                       "no memory for %" PRId64 " cached tokens", need);
        }
        /* The new tokens see before + 1 .. need tokens. */
        plan->work += ((double)adding[i] * (double)before +
                       (double)adding[i] * (double)(adding[i] + 1) / 2) *
                      (double)s->n_heads * (double)s->head_dim * 2 * sizeof(float);
        plan->longest = need > plan->longest ? need : plan->longest;
    }
    free(adding);
    if (status != PECERT_OK) {
        return status;
    }
    plan->threads = pecert__fast_threads(call, plan->work < 0x1p62 ? (size_t)plan->work : SIZE_MAX,
                                         (int64_t)items);
    if ((double)t * (double)(s->half + 2) * 16 + (double)items * 8 + (double)(s->n_heads / s->n_kv_heads) *
            (double)(plan->longest + s->head_dim) * 32 * plan->threads > 0x1p62) {
        return pecert__fast_fail(call, PECERT_E_NOMEM, "no memory for the scratch of %" PRId64
                                 " tokens that see up to %" PRId64, a->n_tokens, plan->longest);
    }
    plan->per_thread = scratch_bytes(s, plan->longest);
    plan->bytes = align64(t * sizeof(int64_t)) + align64((items + 1) * sizeof(int64_t)) +
                  align64(t * 2 * (size_t)s->half * sizeof(double)) +
                  (size_t)plan->threads * plan->per_thread;
    plan->memory = pecert__fast_scratch(call, plan->bytes);
    return plan->memory != NULL ? PECERT_OK : PECERT_E_NOMEM;
}

/* cos, sin [half] for position p (unscaled). */
static void token_row(const pecert__fast_call *call, const fast_session *s, int64_t p, double *cos,
                      double *sin)
{
    if (s->half == 0) {
        return;
    }
    if (fabs((double)p) * s->max_inv_freq < PECERT__FAST_NEAR_LIMIT) {
        call->instance->kernels->sincos_row(s->inv_freq, s->half, (double)p, cos, sin);
    } else {
        pecert__fast_far_row(s->inv_freq, s->half, (double)p, cos, sin);
    }
}

/* One head row of x (channel stride `stride`) into out, rotated by the
 * token's row when the session has RoPE. */
static void rotate_into(const fast_session *s, const double *cos, const double *sin,
                        const float *x, int64_t stride, float *out)
{
    int32_t half = s->half;

    for (int32_t d = 0; d < s->head_dim; d++) {
        out[d] = x[d * stride];
    }
    for (int32_t i = 0; i < half; i++) {
        int32_t ia = s->pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i : i;
        int32_t ib = s->pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i + 1 : i + half;
        double xa = out[ia];
        double xb = out[ib];

        out[ia] = (float)((xa * cos[i] - xb * sin[i]) * s->scaling);
        out[ib] = (float)((xb * cos[i] + xa * sin[i]) * s->scaling);
    }
}

static void cache_token(const fast_session *s, fast_sequence *seq,
                        const pecert_session_append_args *a, int64_t t, const double *cos,
                        const double *sin)
{
    int64_t slot = seq->count++;
    const pecert_tensor *k = a->k;
    const pecert_tensor *v = a->v;

    for (int64_t h = 0; h < s->n_kv_heads; h++) {
        size_t at = ((size_t)h * (size_t)seq->cap + (size_t)slot) * (size_t)s->head_dim;
        const float *kx = (const float *)k->data + t * k->strides[0] + h * k->strides[1];
        const float *vx = (const float *)v->data + t * v->strides[0] + h * v->strides[1];

        rotate_into(s, cos, sin, kx, k->strides[2], seq->keys + at);
        for (int32_t d = 0; d < s->head_dim; d++) {
            seq->values[at + (size_t)d] = vx[d * v->strides[2]];
        }
    }
    seq->valid[slot] = a->valid == NULL || a->valid[t] != 0;
    seq->positions[slot] = a->positions[t];
}

/* Query head h's scores from its dot products (n of them), in
 * w->scores; returns the largest (-inf when no token is valid). */
static double head_scores(const attend_job *job, attend_scratch *w, const fast_sequence *seq,
                          int64_t t, int32_t h, const float *dots, int64_t n)
{
    const fast_session *s = job->s;
    int64_t p = job->args->positions[t];
    double max = -INFINITY;

    for (int64_t j = 0; j < n; j++) {
        double value = -INFINITY;

        if (seq->valid[j]) {
            value = (double)dots[j] * s->softmax_scale;
            if (s->slopes != NULL) {
                value -= s->slopes[h] * (double)(p - seq->positions[j]);
            }
        }
        w->scores[j] = value;
        max = value > max ? value : max;
    }
    return max;
}

/* Token t's query heads that read kv head kv: scores, weights, the
 * weighted values; every cached row is read once for all of them. */
static void attend_group(const attend_job *job, attend_scratch *w, int64_t t, int32_t kv)
{
    const fast_session *s = job->s;
    const pecert_session_append_args *a = job->args;
    const fast_sequence *seq = &s->seqs[a->seq_ids[t]];
    int32_t hd = s->head_dim;
    int32_t group = s->n_heads / s->n_kv_heads;
    size_t stride = (size_t)job->longest;
    size_t head = (size_t)kv * (size_t)seq->cap * (size_t)hd;
    int64_t n = job->visible[t];
    const double *cos = job->rows + (size_t)t * 2 * (size_t)s->half;
    const pecert_tensor *o = a->out;
    double *total = w->totals;

    for (int32_t g = 0; g < group; g++) {
        int32_t h = kv * group + g;

        rotate_into(s, cos, cos + s->half,
                    (const float *)a->q->data + t * a->q->strides[0] + h * a->q->strides[1],
                    a->q->strides[2], w->q + (size_t)g * (size_t)hd);
    }
    job->kernels->dot_rows(w->q, (size_t)hd, group, seq->keys + head, (size_t)hd, n, hd, w->dots,
                           stride);
    for (int32_t g = 0; g < group; g++) {
        float *weights = w->weights + (size_t)g * stride;
        double max = head_scores(job, w, seq, t, kv * group + g, w->dots + (size_t)g * stride, n);

        total[g] = 0.0;
        if (max > -INFINITY) {
            total[g] = job->kernels->softmax_weights(w->scores, n, max, weights);
        } else {
            memset(weights, 0, (size_t)n * sizeof(float)); /* nothing to attend to */
        }
    }
    for (size_t i = 0; i < (size_t)group * (size_t)hd; i++) {
        w->acc[i] = 0.0;
    }
    for (int64_t j0 = 0; j0 < n; j0 += PECERT__FAST_ATTEND_BLOCK) {
        int64_t m = n - j0 < PECERT__FAST_ATTEND_BLOCK ? n - j0 : PECERT__FAST_ATTEND_BLOCK;

        job->kernels->weighted_rows(w->weights + j0, stride, group,
                                    seq->values + head + (size_t)j0 * (size_t)hd, (size_t)hd, m, hd,
                                    w->part, (size_t)hd);
        /* Elementwise (each acc[i] its own sum): vectorized, the same bits. */
#pragma omp simd
        for (size_t i = 0; i < (size_t)group * (size_t)hd; i++) {
            w->acc[i] += (double)w->part[i];
        }
    }
    for (int32_t g = 0; g < group; g++) {
        float *out = (float *)o->data + t * o->strides[0] + (kv * group + g) * o->strides[1];
        const double *acc = w->acc + (size_t)g * (size_t)hd;

        /* No valid token (a padding query first in its sequence): the row
         * is unspecified; write zeros rather than 0/0. Elementwise: the
         * same bits vectorized where the channels are contiguous. */
        double sum = total[g];
        int64_t step = o->strides[2];
        if (sum > 0 && step == 1) {
#pragma omp simd
            for (int32_t d = 0; d < hd; d++) {
                out[d] = (float)(acc[d] / sum);
            }
        } else {
            for (int32_t d = 0; d < hd; d++) {
                out[d * step] = sum > 0 ? (float)(acc[d] / sum) : 0.0f;
            }
        }
    }
}

/* The first item whose work before it reaches `target`. */
static int64_t first_item_at(const attend_job *job, double target)
{
    int64_t lo = 0, hi = job->items;

    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;

        if ((double)job->cost[mid] < target) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Thread ith of nth: the items of its equal share of the work. */
static void attend_share(void *context, int ith, int nth)
{
    const attend_job *job = context;
    double total = (double)job->cost[job->items];
    int64_t begin = first_item_at(job, total * ith / nth);
    int64_t end = ith + 1 == nth ? job->items : first_item_at(job, total * (ith + 1) / nth);
    attend_scratch w = carve_scratch(job, ith);

    for (int64_t item = begin; item < end; item++) {
        attend_group(job, &w, item % job->tokens, (int32_t)(item / job->tokens));
    }
}

pecert_status pecert__fast_session_append(void *instance, void *session,
                                          const pecert_session_append_args *args)
{
    pecert__fast_call call;
    fast_session *s = session;
    pecert_status status;
    append_plan plan;
    attend_job job;
    unsigned char *p;
    int64_t *visible, *cost;
    double *rows;
    size_t t_count;

    if (pecert__fast_begin_call(&call, instance, "session_append") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    if (s == NULL) {
        return pecert__fast_fail(&call, PECERT_E_INVAL, "session is NULL");
    }
    status = check_append_args(&call, s, args);
    if (status == PECERT_OK) {
        status = reserve(&call, s, args, &plan);
    }
    if (status != PECERT_OK) {
        return status;
    }
    t_count = (size_t)args->n_tokens;
    p = plan.memory;
    visible = (int64_t *)p;
    p += align64(t_count * sizeof(int64_t));
    cost = (int64_t *)p;
    p += align64((t_count * (size_t)s->n_kv_heads + 1) * sizeof(int64_t));
    rows = (double *)p;
    p += align64(t_count * 2 * (size_t)s->half * sizeof(double));
    /* Phase 1, in call order: cache every token, count what it sees. */
    for (int64_t t = 0; t < args->n_tokens; t++) {
        fast_sequence *seq = &s->seqs[args->seq_ids[t]];
        double *cos = rows + (size_t)t * 2 * (size_t)s->half;

        token_row(&call, s, args->positions[t], cos, cos + s->half);
        cache_token(s, seq, args, t, cos, cos + s->half);
        visible[t] = seq->count;
    }
    cost[0] = 0;
    for (size_t i = 0; i < t_count * (size_t)s->n_kv_heads; i++) {
        /* A query head's work grows with the keys it reads; +1 its setup. */
        cost[i + 1] = cost[i] + visible[i % t_count] * (s->n_heads / s->n_kv_heads) + 1;
    }
    /* Phase 2: every (token, kv head) item attends. */
    job = (attend_job){.s = s, .args = args, .kernels = call.instance->kernels, .visible = visible,
                       .cost = cost, .rows = rows, .scratch = p, .per_thread = plan.per_thread,
                       .longest = plan.longest, .tokens = args->n_tokens,
                       .items = (int64_t)(t_count * (size_t)s->n_kv_heads)};
    pecert__fast_run(plan.threads, attend_share, &job);
    return PECERT_OK;
}

/* session_read_keys' copy: tokens over threads, each token's kv heads
 * gathered from their head-major rows (a row a memcpy when the output's
 * channels are contiguous; past PECERT__FAST_STREAM_MIN_BYTES, where the
 * copy would not stay cached, with streaming stores: 16 MiB on one
 * thread 2.5 -> 1.3 ms). */
typedef struct read_job {
    const fast_session *s;
    const fast_sequence *q;
    const pecert_tensor *out;
    const pecert__fast_kernels *kernels;
    int stream;
} read_job;

static void read_share(void *context, int ith, int nth)
{
    const read_job *job = context;
    const fast_session *s = job->s;
    const pecert_tensor *out = job->out;
    size_t row_bytes = (size_t)s->head_dim * sizeof(float);
    int64_t begin;
    int64_t end;

    pecert__fast_share(job->q->count, ith, nth, &begin, &end);
    for (int64_t j = begin; j < end; j++) {
        for (int64_t h = 0; h < s->n_kv_heads; h++) {
            const float *src = job->q->keys + ((size_t)h * (size_t)job->q->cap + (size_t)j) * (size_t)s->head_dim;
            float *dst = (float *)out->data + j * out->strides[0] + h * out->strides[1];

            if (job->stream) {
                job->kernels->copy_row_stream(dst, src, s->head_dim);
                continue;
            }
            if (out->strides[2] == 1) {
                memcpy(dst, src, row_bytes);
                continue;
            }
            for (int64_t d = 0; d < s->head_dim; d++) {
                dst[d * out->strides[2]] = src[d];
            }
        }
    }
    if (job->stream) {
        job->kernels->store_fence(); /* before the region's barrier */
    }
}

pecert_status pecert__fast_session_read_keys(void *instance, void *session,
                                             pecert_tensor *out_keys, int32_t seq)
{
    pecert__fast_call call;
    const fast_session *s = session;
    const fast_sequence *q;
    pecert_status status;
    read_job job;
    size_t bytes;

    if (pecert__fast_begin_call(&call, instance, "session_read_keys") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    if (s == NULL) {
        return pecert__fast_fail(&call, PECERT_E_INVAL, "session is NULL");
    }
    if (seq < 0 || seq >= s->n_seqs) {
        return pecert__fast_fail(&call, PECERT_E_INVAL, "seq=%" PRId32 " is outside 0..%" PRId32,
                                 seq, s->n_seqs - 1);
    }
    q = &s->seqs[seq];
    {
        int64_t shape[3] = {q->count, s->n_kv_heads, s->head_dim};

        status = pecert__fast_fam_check_view(&call, "out_keys", out_keys, 3, shape,
                                             PECERT__FAM_F32, 1);
    }
    if (status != PECERT_OK) {
        return status;
    }
    bytes = (size_t)q->count * (size_t)s->n_kv_heads * (size_t)s->head_dim * sizeof(float);
    job = (read_job){.s = s, .q = q, .out = out_keys, .kernels = call.instance->kernels,
                     .stream = out_keys->strides[2] == 1 && bytes >= PECERT__FAST_STREAM_MIN_BYTES &&
                               call.instance->kernels->copy_row_stream != NULL &&
                               call.instance->kernels->store_fence != NULL};
    /* Tokens that share an output element are copied on one thread, in
     * order, so that the last write is defined (as `ref`'s). */
    pecert__fast_run(pecert__fast_fam_rows_disjoint(out_keys) ? pecert__fast_threads(&call, bytes, q->count) : 1,
                     read_share, &job);
    return PECERT_OK;
}
