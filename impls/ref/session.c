/*
 * session.c - the decode session of `ref`: attention over a KV cache,
 * straightforwardly, in double (plugin.h, "Decode session").
 *
 * Keys are rotated at their own position when appended and cached rotated;
 * a query is rotated at its position and attends to itself and the valid
 * earlier tokens of its sequence. No shortcut is taken: this is the oracle
 * the decode checks compare engines with.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

typedef struct ref_sequence {
    int64_t count;   /* tokens appended                                 */
    double *keys;    /* [max_tokens, n_kv_heads, head_dim], rotated     */
    double *values;  /* [max_tokens, n_kv_heads, head_dim]              */
    uint8_t *valid;  /* [max_tokens]                                    */
    int64_t *positions; /* [max_tokens], for ALiBi's distances          */
} ref_sequence;

typedef struct ref_session {
    pecert_rope_pairing pairing;
    int32_t n_seqs;
    int32_t max_tokens;
    int32_t n_heads;
    int32_t n_kv_heads;
    int32_t head_dim;
    int32_t rotary_dim;
    double softmax_scale;
    double scaling;      /* attention scaling of the rope config          */
    int has_rope;        /* 0: an ALiBi-only model, no rotation           */
    double *slopes;      /* [n_heads] ALiBi slopes, NULL without ALiBi    */
    double *inv_freq;    /* [rotary_dim / 2] at the session's seq_len     */
    double *scratch;     /* [2 head_dim + max_tokens] query row, output
                            sums, scores                                  */
    double *sin_pos;     /* [rotary_dim / 2] sin and cos at the position  */
    double *cos_pos;     /*   of the token being appended                 */
    ref_sequence *seqs;  /* [n_seqs]                                      */
} ref_session;

static void session_free(ref_session *s)
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
    free(s->slopes);
    free(s->inv_freq);
    free(s->scratch);
    free(s->sin_pos);
    free(s->cos_pos);
    free(s);
}

static pecert_status alloc_sequences(ref_session *s)
{
    size_t row = (size_t)s->n_kv_heads * (size_t)s->head_dim;
    s->seqs = calloc((size_t)s->n_seqs, sizeof(*s->seqs));
    s->scratch = malloc((2 * (size_t)s->head_dim + (size_t)s->max_tokens) * sizeof(double));
    s->inv_freq = malloc((size_t)(s->rotary_dim / 2 + 1) * sizeof(double));
    s->sin_pos = malloc((size_t)(s->rotary_dim / 2 + 1) * sizeof(double));
    s->cos_pos = malloc((size_t)(s->rotary_dim / 2 + 1) * sizeof(double));
    if (s->seqs == NULL || s->scratch == NULL || s->inv_freq == NULL || s->sin_pos == NULL || s->cos_pos == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int32_t i = 0; i < s->n_seqs; i++) {
        s->seqs[i].keys = malloc((size_t)s->max_tokens * row * sizeof(double));
        s->seqs[i].values = malloc((size_t)s->max_tokens * row * sizeof(double));
        s->seqs[i].valid = malloc((size_t)s->max_tokens);
        s->seqs[i].positions = malloc((size_t)s->max_tokens * sizeof(int64_t));
        if (s->seqs[i].keys == NULL || s->seqs[i].values == NULL || s->seqs[i].valid == NULL ||
            s->seqs[i].positions == NULL) {
            return PECERT_E_NOMEM;
        }
    }
    return PECERT_OK;
}

/* The ALiBi slopes of the session's heads times the bias scale (Falcon's
 * 1/sqrt(head_dim); 0 = 1), NULL without ALiBi. */
static pecert_status init_alibi(ref_session *s, const pecert_session_config *config)
{
    if (config->alibi == 0) {
        return PECERT_OK;
    }
    s->slopes = malloc((size_t)s->n_heads * sizeof(double));
    if (s->slopes == NULL) {
        return PECERT_E_NOMEM;
    }
    double scale = config->alibi_bias_scale > 0 ? config->alibi_bias_scale : 1.0;
    for (int32_t h = 0; h < s->n_heads; h++) {
        s->slopes[h] = scale * pecert__ref_alibi_slope(s->n_heads, config->alibi_max_bias, h);
    }
    return PECERT_OK;
}

pecert_status pecert__ref_session_create(void *instance, void **out_session,
                                         const pecert_session_config *config)
{
    pecert__ref_call call;
    pecert__ref_params params;
    pecert__ref_begin_call(&call, instance, "session_create");
    if (out_session == NULL) {
        return pecert__ref_fail(&call, PECERT_E_INVAL, "out_session is NULL");
    }
    *out_session = NULL;
    pecert_status st = pecert__ref_check_session_config(&call, config);
    if (st == PECERT_OK && config->rope != NULL) {
        st = pecert__ref_check_layer_config(&call, config->rope);
    }
    /* A NoPE layer's session keeps its keys as projected (plugin.h). */
    int rotates = config->rope != NULL && config->rope->layer_kind == PECERT_LAYER_ROPE;
    if (st == PECERT_OK && rotates) {
        st = pecert__ref_resolve_params(&call, config->rope, &params);
    }
    if (st != PECERT_OK) {
        return st;
    }
    ref_session *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return pecert__ref_fail(&call, PECERT_E_NOMEM, "no memory for the session");
    }
    int32_t head_dim = config->rope != NULL ? config->rope->head_dim : config->head_dim;
    *s = (ref_session){config->pairing, config->n_seqs, config->max_tokens, config->n_heads,
                       config->n_kv_heads, head_dim, rotates ? config->rope->rotary_dim : 0,
                       config->softmax_scale > 0 ? config->softmax_scale : 1.0 / sqrt((double)head_dim),
                       rotates ? params.attention_factor : 1.0, rotates, NULL,
                       NULL, NULL, NULL, NULL, NULL};
    if (alloc_sequences(s) != PECERT_OK || init_alibi(s, config) != PECERT_OK) {
        session_free(s);
        return pecert__ref_fail(&call, PECERT_E_NOMEM, "no memory for a cache of %d x %d tokens",
                                config->n_seqs, config->max_tokens);
    }
    if (s->has_rope) {
        pecert__ref_inv_freq(&params, config->seq_len, s->inv_freq);
    }
    *out_session = s;
    return PECERT_OK;
}

void pecert__ref_session_destroy(void *instance, void *session)
{
    (void)instance;
    session_free(session);
}

/* The angles of position p, once per appended token: every head of its
 * key and its query turns by the same sin and cos (the values are those
 * pecert__ref_sin_cos gives each pair; computing them per head repeated
 * the same call six times a token). */
static void angles_at(ref_session *s, int64_t p)
{
    for (int64_t i = 0; i < s->rotary_dim / 2; i++) {
        pecert__ref_sin_cos((double)p, s->inv_freq[i], &s->sin_pos[i], &s->cos_pos[i]);
    }
}

/* Rotates one head row (double in, double out) by the angles of angles_at. */
static void rotate_row(const ref_session *s, double *row)
{
    int64_t rot = s->rotary_dim;
    for (int64_t i = 0; i < rot / 2; i++) {
        double sn = s->sin_pos[i];
        double cs = s->cos_pos[i];
        int64_t a = s->pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i : i;
        int64_t b = s->pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i + 1 : i + rot / 2;
        double xa = row[a];
        double xb = row[b];
        row[a] = (xa * cs - xb * sn) * s->scaling;
        row[b] = (xb * cs + xa * sn) * s->scaling;
    }
}

static const float *elem(const pecert_tensor *t, int64_t i0, int64_t i1)
{
    return (const float *)t->data + i0 * t->strides[0] + i1 * t->strides[1];
}

/* Caches token t's rotated key and value in its sequence. */
static void cache_token(ref_session *s, ref_sequence *seq, const pecert_session_append_args *a,
                        int64_t t)
{
    int64_t slot = seq->count++;
    for (int64_t h = 0; h < s->n_kv_heads; h++) {
        double *k = seq->keys + (slot * s->n_kv_heads + h) * s->head_dim;
        double *v = seq->values + (slot * s->n_kv_heads + h) * s->head_dim;
        for (int64_t d = 0; d < s->head_dim; d++) {
            k[d] = elem(a->k, t, h)[d * a->k->strides[2]];
            v[d] = elem(a->v, t, h)[d * a->v->strides[2]];
        }
        rotate_row(s, k);
    }
    seq->valid[slot] = a->valid == NULL || a->valid[t] != 0;
    seq->positions[slot] = a->positions[t];
}

/* q . k for the query and the cached keys j0..j0+3 of head kvh, into
 * dot[0..3]: four independent sums, each over d in order (the same value,
 * to the bit, as one key at a time; four chains keep the adder busy). */
static void dots_of_four(const ref_session *s, const ref_sequence *seq, const double *q, int64_t j0, int64_t kvh,
                         double dot[4])
{
    int64_t stride = s->n_kv_heads * s->head_dim;
    const double *k0 = seq->keys + j0 * stride + kvh * s->head_dim;
    const double *k1 = k0 + stride;
    const double *k2 = k1 + stride;
    const double *k3 = k2 + stride;
    double d0 = 0.0;
    double d1 = 0.0;
    double d2 = 0.0;
    double d3 = 0.0;
    for (int64_t d = 0; d < s->head_dim; d++) {
        d0 += q[d] * k0[d];
        d1 += q[d] * k1[d];
        d2 += q[d] * k2[d];
        d3 += q[d] * k3[d];
    }
    dot[0] = d0;
    dot[1] = d1;
    dot[2] = d2;
    dot[3] = d3;
}

static double dot_of_one(const ref_session *s, const ref_sequence *seq, const double *q, int64_t j, int64_t kvh)
{
    const double *k = seq->keys + (j * s->n_kv_heads + kvh) * s->head_dim;
    double dot = 0.0;
    for (int64_t d = 0; d < s->head_dim; d++) {
        dot += q[d] * k[d];
    }
    return dot;
}

/* The scores of token t (query head h) against its sequence's cache, into
 * score[]; returns their maximum. */
static double scores(const ref_session *s, const ref_sequence *seq, const pecert_session_append_args *a,
                     const double *q, double *score, int64_t t, int64_t h)
{
    int64_t kvh = h / (s->n_heads / s->n_kv_heads);
    double max = -INFINITY;
    for (int64_t j = 0; j < seq->count; j += 4) {
        double dot[4];
        int64_t n = seq->count - j < 4 ? seq->count - j : 4;
        if (n == 4) {
            dots_of_four(s, seq, q, j, kvh, dot);
        } else {
            for (int64_t u = 0; u < n; u++) {
                dot[u] = dot_of_one(s, seq, q, j + u, kvh);
            }
        }
        for (int64_t u = 0; u < n; u++) {
            double bias =
                s->slopes != NULL ? -s->slopes[h] * (double)(a->positions[t] - seq->positions[j + u]) : 0.0;
            score[j + u] = seq->valid[j + u] ? dot[u] * s->softmax_scale + bias : -INFINITY;
            max = score[j + u] > max ? score[j + u] : max;
        }
    }
    return max;
}

/* Attention of token t (query head h) over its sequence: softmax in
 * double with the maximum subtracted, output written as f32. Each output
 * channel sums its weighted values over j in order, all channels side by
 * side (acc[d], j outer: the same sums as one channel at a time). */
static void attend(ref_session *s, const ref_sequence *seq, const pecert_session_append_args *a,
                   int64_t t, int64_t h)
{
    double *q = s->scratch;
    double *acc = s->scratch + s->head_dim;
    double *score = s->scratch + 2 * s->head_dim;
    int64_t kvh = h / (s->n_heads / s->n_kv_heads);
    for (int64_t d = 0; d < s->head_dim; d++) {
        q[d] = elem(a->q, t, h)[d * a->q->strides[2]];
    }
    rotate_row(s, q);
    double max = scores(s, seq, a, q, score, t, h);
    double total = 0.0;
    for (int64_t j = 0; j < seq->count; j++) {
        score[j] = seq->valid[j] ? exp(score[j] - max) : 0.0;
        total += score[j];
    }
    for (int64_t d = 0; d < s->head_dim; d++) {
        acc[d] = 0.0;
    }
    for (int64_t j = 0; j < seq->count; j++) {
        const double *v = seq->values + (j * s->n_kv_heads + kvh) * s->head_dim;
        for (int64_t d = 0; d < s->head_dim; d++) {
            acc[d] += score[j] * v[d];
        }
    }
    float *out = (float *)a->out->data + t * a->out->strides[0] + h * a->out->strides[1];
    for (int64_t d = 0; d < s->head_dim; d++) {
        out[d * a->out->strides[2]] = (float)(acc[d] / total);
    }
}

/* Sequence ids in range and room in every cache, before anything moves. */
static pecert_status check_room(const pecert__ref_call *call, const ref_session *s,
                                const pecert_session_append_args *a)
{
    for (int64_t t = 0; t < a->n_tokens; t++) {
        if (a->seq_ids[t] < 0 || a->seq_ids[t] >= s->n_seqs) {
            return pecert__ref_fail(call, PECERT_E_INVAL, "seq_ids[%" PRId64 "]=%d outside 0..%d", t,
                                    a->seq_ids[t], s->n_seqs - 1);
        }
    }
    for (int32_t i = 0; i < s->n_seqs; i++) {
        int64_t adding = 0;
        for (int64_t t = 0; t < a->n_tokens; t++) {
            adding += a->seq_ids[t] == i;
        }
        if (s->seqs[i].count + adding > s->max_tokens) {
            return pecert__ref_fail(call, PECERT_E_INVAL, "sequence %d: %" PRId64 " + %" PRId64
                                    " tokens exceed max_tokens=%d", i, s->seqs[i].count, adding,
                                    s->max_tokens);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_session_append(void *instance, void *session,
                                         const pecert_session_append_args *args)
{
    pecert__ref_call call;
    ref_session *s = session;
    pecert__ref_begin_call(&call, instance, "session_append");
    if (s == NULL) {
        return pecert__ref_fail(&call, PECERT_E_INVAL, "session is NULL");
    }
    pecert_status st = pecert__ref_check_session_append(&call, args, s->n_heads, s->n_kv_heads, s->head_dim);
    if (st == PECERT_OK) {
        st = check_room(&call, s, args);
    }
    for (int64_t t = 0; st == PECERT_OK && t < args->n_tokens; t++) {
        ref_sequence *seq = &s->seqs[args->seq_ids[t]];
        angles_at(s, args->positions[t]);
        cache_token(s, seq, args, t);
        for (int64_t h = 0; h < s->n_heads; h++) {
            attend(s, seq, args, t, h);
        }
    }
    return st;
}

pecert_status pecert__ref_session_read_keys(void *instance, void *session, pecert_tensor *out_keys,
                                            int32_t seq)
{
    pecert__ref_call call;
    const ref_session *s = session;
    pecert__ref_begin_call(&call, instance, "session_read_keys");
    if (s == NULL || seq < 0 || seq >= s->n_seqs) {
        return pecert__ref_fail(&call, PECERT_E_INVAL, "session NULL or seq=%d out of range", seq);
    }
    const ref_sequence *q = &s->seqs[seq];
    pecert_status st = pecert__ref_check_read_keys(&call, out_keys, q->count, s->n_kv_heads, s->head_dim);
    for (int64_t j = 0; st == PECERT_OK && j < q->count; j++) {
        for (int64_t h = 0; h < s->n_kv_heads; h++) {
            for (int64_t d = 0; d < s->head_dim; d++) {
                float *o = (float *)out_keys->data + j * out_keys->strides[0] + h * out_keys->strides[1] +
                           d * out_keys->strides[2];
                *o = (float)q->keys[(j * s->n_kv_heads + h) * s->head_dim + d];
            }
        }
    }
    return st;
}
