/*
 * session.c - the decode session of `fast`: attention over a KV cache
 * (plugin.h, "Decode session").
 *
 * Keys are rotated once, when appended, and cached rotated in float32
 * (values likewise unrotated); a query is rotated at its position and
 * attends to itself and to the valid tokens of its sequence appended before
 * it. Rotation: cos/sin rows in double by fast's trig (the kernels' row
 * function, far_angle.c past 2^36 rad), the pair rotated in double and
 * rounded once. Scores: float products summed in double; softmax in
 * double with the maximum subtracted; the output accumulates p_j v_j in
 * double over contiguous rows (a loop the compiler vectorizes) and rounds
 * once. Frequencies are those of config.seq_len, fixed at create, so the
 * outputs do not depend on how the tokens are split into calls.
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
    float *keys;        /* [cap, n_kv_heads, head_dim], rotated           */
    float *values;      /* [cap, n_kv_heads, head_dim]                    */
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
    double *cos;           /* [half] the current token's row               */
    double *sin;           /* [half]                                       */
    float *q;              /* [head_dim] rotated query                     */
    double *acc;           /* [head_dim] output accumulator                */
    double *scores;        /* [scores_cap]                                 */
    int64_t scores_cap;
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
    free(s->cos);
    free(s->q);
    free(s->acc);
    free(s->scores);
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
    s->cos = malloc(((size_t)s->half * 2 + 1) * sizeof(double));
    s->sin = s->cos != NULL ? s->cos + s->half : NULL;
    s->q = malloc((size_t)s->head_dim * sizeof(float));
    s->acc = malloc((size_t)s->head_dim * sizeof(double));
    if (config->alibi) {
        s->slopes = malloc((size_t)s->n_heads * sizeof(double));
    }
    if (s->seqs == NULL || s->cos == NULL || s->q == NULL || s->acc == NULL ||
        (config->alibi && s->slopes == NULL)) {
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

/* Grows a sequence's arrays to hold `need` tokens (need <= max_tokens). */
static int grow_sequence(const fast_session *s, fast_sequence *seq, int64_t need)
{
    size_t row = (size_t)s->n_kv_heads * (size_t)s->head_dim;
    int64_t cap = seq->cap > 0 ? seq->cap : 16;
    void *p;

    if (need <= seq->cap) {
        return 1;
    }
    while (cap < need) {
        cap *= 2;
    }
    cap = cap > s->max_tokens ? s->max_tokens : cap;
    if ((p = realloc(seq->keys, (size_t)cap * row * sizeof(float))) == NULL) {
        return 0;
    }
    seq->keys = p;
    if ((p = realloc(seq->values, (size_t)cap * row * sizeof(float))) == NULL) {
        return 0;
    }
    seq->values = p;
    if ((p = realloc(seq->valid, (size_t)cap)) == NULL) {
        return 0;
    }
    seq->valid = p;
    if ((p = realloc(seq->positions, (size_t)cap * sizeof(int64_t))) == NULL) {
        return 0;
    }
    seq->positions = p;
    seq->cap = cap;
    return 1;
}

/* Sequence ids in range, room in every cache, memory for every token and
 * score: all before anything moves. */
static pecert_status reserve(const pecert__fast_call *call, fast_session *s,
                             const pecert_session_append_args *a)
{
    int64_t *adding = calloc((size_t)s->n_seqs, sizeof(int64_t));
    int64_t longest = 0;
    pecert_status status = PECERT_OK;

    if (adding == NULL) {
        return pecert__fast_fail(call, PECERT_E_NOMEM, "no memory for %" PRId32 " counters",
                                 s->n_seqs);
    }
    for (int64_t t = 0; t < a->n_tokens; t++) {
        if (a->seq_ids[t] < 0 || a->seq_ids[t] >= s->n_seqs) {
            status = pecert__fast_fail(call, PECERT_E_INVAL,
                                       "seq_ids[%" PRId64 "]=%" PRId32 " is outside 0..%" PRId32, t,
                                       a->seq_ids[t], s->n_seqs - 1);
            break;
        }
        adding[a->seq_ids[t]]++;
    }
    for (int32_t i = 0; status == PECERT_OK && i < s->n_seqs; i++) {
        int64_t need = s->seqs[i].count + adding[i];

        if (need > s->max_tokens) {
            status = pecert__fast_fail(call, PECERT_E_INVAL,
                                       "sequence %" PRId32 ": %" PRId64 " + %" PRId64
                                       " tokens exceed max_tokens=%" PRId32,
                                       i, s->seqs[i].count, adding[i], s->max_tokens);
        } else if (!grow_sequence(s, &s->seqs[i], need)) {
            status = pecert__fast_fail(call, PECERT_E_NOMEM,
                                       "no memory for %" PRId64 " cached tokens", need);
        }
        longest = need > longest ? need : longest;
    }
    free(adding);
    if (status == PECERT_OK && longest > s->scores_cap) {
        double *p = realloc(s->scores, (size_t)longest * sizeof(double));

        if (p == NULL) {
            return pecert__fast_fail(call, PECERT_E_NOMEM, "no memory for %" PRId64 " scores",
                                     longest);
        }
        s->scores = p;
        s->scores_cap = longest;
    }
    return status;
}

/* s->cos / s->sin for position p (unscaled). */
static void token_row(const pecert__fast_call *call, fast_session *s, int64_t p)
{
    if (s->half == 0) {
        return;
    }
    if (fabs((double)p) * s->max_inv_freq < PECERT__FAST_NEAR_LIMIT) {
        call->instance->kernels->sincos_row(s->inv_freq, s->half, (double)p, s->cos, s->sin);
    } else {
        pecert__fast_far_row(s->inv_freq, s->half, (double)p, s->cos, s->sin);
    }
}

/* One head row of x (channel stride `stride`) into out, rotated by the
 * current row when the session has RoPE. */
static void rotate_into(const fast_session *s, const float *x, int64_t stride, float *out)
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

        out[ia] = (float)((xa * s->cos[i] - xb * s->sin[i]) * s->scaling);
        out[ib] = (float)((xb * s->cos[i] + xa * s->sin[i]) * s->scaling);
    }
}

static void cache_token(fast_session *s, fast_sequence *seq, const pecert_session_append_args *a,
                        int64_t t)
{
    int64_t slot = seq->count++;
    const pecert_tensor *k = a->k;
    const pecert_tensor *v = a->v;

    for (int64_t h = 0; h < s->n_kv_heads; h++) {
        size_t at = ((size_t)slot * (size_t)s->n_kv_heads + (size_t)h) * (size_t)s->head_dim;
        const float *kx = (const float *)k->data + t * k->strides[0] + h * k->strides[1];
        const float *vx = (const float *)v->data + t * v->strides[0] + h * v->strides[1];

        rotate_into(s, kx, k->strides[2], seq->keys + at);
        for (int32_t d = 0; d < s->head_dim; d++) {
            seq->values[at + (size_t)d] = vx[d * v->strides[2]];
        }
    }
    seq->valid[slot] = a->valid == NULL || a->valid[t] != 0;
    seq->positions[slot] = a->positions[t];
}

/* q . k in double (float products are exact in double), four partial sums. */
static double dot(const float *restrict q, const float *restrict k, int32_t n)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int32_t d = 0;

    for (; d + 4 <= n; d += 4) {
        s0 += (double)q[d] * (double)k[d];
        s1 += (double)q[d + 1] * (double)k[d + 1];
        s2 += (double)q[d + 2] * (double)k[d + 2];
        s3 += (double)q[d + 3] * (double)k[d + 3];
    }
    for (; d < n; d++) {
        s0 += (double)q[d] * (double)k[d];
    }
    return (s0 + s1) + (s2 + s3);
}

static void attend(fast_session *s, const fast_sequence *seq, const pecert_session_append_args *a,
                   int64_t t, int32_t h)
{
    int32_t hd = s->head_dim;
    int32_t kvh = h / (s->n_heads / s->n_kv_heads);
    size_t row = (size_t)s->n_kv_heads * (size_t)hd;
    const pecert_tensor *qv = a->q;
    const pecert_tensor *o = a->out;
    double *score = s->scores;
    double *restrict acc = s->acc;
    double max = -INFINITY;
    double total = 0.0;
    int64_t p = a->positions[t];
    float *out;

    rotate_into(s, (const float *)qv->data + t * qv->strides[0] + h * qv->strides[1],
                qv->strides[2], s->q);
    for (int64_t j = 0; j < seq->count; j++) {
        double value = -INFINITY;

        if (seq->valid[j]) {
            value = dot(s->q, seq->keys + (size_t)j * row + (size_t)kvh * (size_t)hd, hd) *
                    s->softmax_scale;
            if (s->slopes != NULL) {
                value -= s->slopes[h] * (double)(p - seq->positions[j]);
            }
        }
        score[j] = value;
        max = value > max ? value : max;
    }
    for (int32_t d = 0; d < hd; d++) {
        acc[d] = 0.0;
    }
    for (int64_t j = 0; j < seq->count; j++) {
        const float *restrict v;
        double w;

        if (!seq->valid[j]) {
            continue;
        }
        w = exp(score[j] - max);
        total += w;
        v = seq->values + (size_t)j * row + (size_t)kvh * (size_t)hd;
        for (int32_t d = 0; d < hd; d++) {
            acc[d] += w * (double)v[d];
        }
    }
    out = (float *)o->data + t * o->strides[0] + h * o->strides[1];
    for (int32_t d = 0; d < hd; d++) {
        /* No valid token (a padding query first in its sequence): the
         * row is unspecified; write zeros rather than 0/0. */
        out[d * o->strides[2]] = total > 0 ? (float)(acc[d] / total) : 0.0f;
    }
}

pecert_status pecert__fast_session_append(void *instance, void *session,
                                          const pecert_session_append_args *args)
{
    pecert__fast_call call;
    fast_session *s = session;
    pecert_status status;

    if (pecert__fast_begin_call(&call, instance, "session_append") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    if (s == NULL) {
        return pecert__fast_fail(&call, PECERT_E_INVAL, "session is NULL");
    }
    status = check_append_args(&call, s, args);
    if (status == PECERT_OK) {
        status = reserve(&call, s, args);
    }
    if (status != PECERT_OK) {
        return status;
    }
    for (int64_t t = 0; t < args->n_tokens; t++) {
        fast_sequence *seq = &s->seqs[args->seq_ids[t]];

        token_row(&call, s, args->positions[t]);
        cache_token(s, seq, args, t);
        for (int32_t h = 0; h < s->n_heads; h++) {
            attend(s, seq, args, t, h);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__fast_session_read_keys(void *instance, void *session,
                                             pecert_tensor *out_keys, int32_t seq)
{
    pecert__fast_call call;
    const fast_session *s = session;
    const fast_sequence *q;
    size_t row;
    pecert_status status;

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
    row = (size_t)s->n_kv_heads * (size_t)s->head_dim;
    for (int64_t j = 0; j < q->count; j++) {
        for (int64_t h = 0; h < s->n_kv_heads; h++) {
            const float *src = q->keys + (size_t)j * row + (size_t)h * (size_t)s->head_dim;
            float *dst = (float *)out_keys->data + j * out_keys->strides[0] +
                         h * out_keys->strides[1];

            for (int64_t d = 0; d < s->head_dim; d++) {
                dst[d * out_keys->strides[2]] = src[d];
            }
        }
    }
    return PECERT_OK;
}
