/*
 * session.c - the decode session of an honest variant: attention over a
 * KV cache in float32 end to end, as a plain C/C++ engine computes it
 * (llama.cpp's non-flash CPU path: ggml_mul_mat for q.k, ggml_soft_max_ext
 * with the scale and the ALiBi slope, ggml_mul_mat for the values).
 *
 * Keys are rotated by the variant's own RoPE arithmetic (its frequencies,
 * trig, rotation and position cache) when appended and cached rotated in
 * float32; a query is rotated the same way at its position. Scores are
 * float32 dot products summed in float32, the softmax is float32 (maximum
 * subtracted, expf, a float32 sum), the output a float32 sum of p_j v_j.
 * ALiBi slopes are ggml's float32 powers (m0 = 2^(-max_bias/n'), m1 =
 * 2^(-max_bias/2/n'), n' the largest power of two <= n_heads), times
 * Falcon's bias scale in float32 when one is given. The
 * frequencies are those of config.seq_len, fixed at create, as in ref.
 * Argument checks are ref's (session_args.c); caches grow on demand.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "honest.h"

typedef struct honest_sequence {
    int64_t count;      /* tokens appended                                */
    int64_t cap;        /* tokens the arrays hold                         */
    float *keys;        /* [cap, n_kv_heads, head_dim], rotated           */
    float *values;      /* [cap, n_kv_heads, head_dim]                    */
    uint8_t *valid;     /* [cap]                                          */
    int64_t *positions; /* [cap], ALiBi's distances                       */
} honest_sequence;

typedef struct honest_session {
    pecert_rope_pairing pairing;
    int32_t n_seqs;
    int32_t max_tokens;
    int32_t n_heads;
    int32_t n_kv_heads;
    int32_t head_dim;
    int has_rope;             /* 0: an ALiBi-only model, no rotation       */
    pecert_rope_config rope;  /* copy of config->rope when has_rope        */
    float softmax_scale;
    float *slopes;            /* [n_heads] or NULL without ALiBi           */
    honest_freqs freqs;       /* at config.seq_len                         */
    honest_sequence *seqs;    /* [n_seqs]                                  */
} honest_session;

static void session_free(honest_session *s)
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
    if (s->has_rope) {
        honest_freqs_free(&s->freqs);
    }
    free(s);
}

/* ggml's ALiBi slopes in float32 (ggml-cpu soft_max: m0, m1, n_head_log2). */
static float *alibi_slopes_f32(int32_t n_heads, double max_bias)
{
    float *slopes = malloc((size_t)n_heads * sizeof(float));
    if (slopes == NULL) {
        return NULL;
    }
    int32_t log2_heads = 1;
    while (log2_heads * 2 <= n_heads) {
        log2_heads *= 2;
    }
    float m0 = powf(2.0f, -(float)max_bias / (float)log2_heads);
    float m1 = powf(2.0f, -((float)max_bias / 2.0f) / (float)log2_heads);
    for (int32_t h = 0; h < n_heads; h++) {
        slopes[h] = h < log2_heads ? powf(m0, (float)(h + 1)) : powf(m1, (float)(2 * (h - log2_heads) + 1));
    }
    return slopes;
}

static pecert_status session_init(const pecert__ref_call *call, honest_session *s,
                                  const pecert_session_config *config)
{
    s->pairing = config->pairing;
    s->n_seqs = config->n_seqs;
    s->max_tokens = config->max_tokens;
    s->n_heads = config->n_heads;
    s->n_kv_heads = config->n_kv_heads;
    s->head_dim = config->rope != NULL ? config->rope->head_dim : config->head_dim;
    s->softmax_scale = config->softmax_scale > 0 ? (float)config->softmax_scale
                                                 : 1.0f / sqrtf((float)s->head_dim);
    s->seqs = calloc((size_t)s->n_seqs, sizeof(*s->seqs));
    if (s->seqs == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "no memory for %d sequences", s->n_seqs);
    }
    if (config->alibi != 0 && (s->slopes = alibi_slopes_f32(s->n_heads, config->alibi_max_bias)) == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "no memory for the ALiBi slopes");
    }
    /* Falcon's bias scale (1/sqrt(head_dim)) as a float32 factor on each
     * slope, as a float32 engine folds it in. */
    for (int32_t h = 0; s->slopes != NULL && config->alibi_bias_scale > 0 && h < s->n_heads; h++) {
        s->slopes[h] *= (float)config->alibi_bias_scale;
    }
    /* No rope (ALiBi) or a NoPE layer: keys and queries as projected. */
    if (config->rope == NULL || config->rope->layer_kind == PECERT_LAYER_NOPE) {
        return PECERT_OK;
    }
    s->rope = *config->rope;
    pecert_status st = honest_freqs_init(call, &s->freqs, config->rope, config->seq_len, NULL, 0);
    s->has_rope = st == PECERT_OK;
    return st;
}

pecert_status honest_session_create(void *instance, void **out_session, const pecert_session_config *config)
{
    pecert__ref_call call;
    pecert__ref_begin_call(&call, instance, "session_create");
    if (out_session == NULL) {
        return pecert__ref_fail(&call, PECERT_E_INVAL, "out_session is NULL");
    }
    *out_session = NULL;
    pecert_status st = pecert__ref_check_session_config(&call, config);
    if (st == PECERT_OK && config->rope != NULL) {
        st = pecert__ref_check_layer_config(&call, config->rope);
    }
    if (st != PECERT_OK) {
        return st;
    }
    honest_session *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return pecert__ref_fail(&call, PECERT_E_NOMEM, "no memory for the session");
    }
    st = session_init(&call, s, config);
    if (st != PECERT_OK) {
        session_free(s);
        return st;
    }
    *out_session = s;
    return PECERT_OK;
}

void honest_session_destroy(void *instance, void *session)
{
    (void)instance;
    session_free(session);
}

/* Room for `need` tokens in seq (doubling, up to max_tokens). */
static int reserve(const honest_session *s, honest_sequence *seq, int64_t need)
{
    if (need <= seq->cap) {
        return 0;
    }
    int64_t cap = seq->cap > 0 ? seq->cap : 16;
    while (cap < need) {
        cap *= 2;
    }
    cap = cap < s->max_tokens ? cap : s->max_tokens;
    size_t row = (size_t)s->n_kv_heads * (size_t)s->head_dim;
    float *keys = realloc(seq->keys, (size_t)cap * row * sizeof(float));
    seq->keys = keys != NULL ? keys : seq->keys;
    float *values = realloc(seq->values, (size_t)cap * row * sizeof(float));
    seq->values = values != NULL ? values : seq->values;
    uint8_t *valid = realloc(seq->valid, (size_t)cap);
    seq->valid = valid != NULL ? valid : seq->valid;
    int64_t *positions = realloc(seq->positions, (size_t)cap * sizeof(int64_t));
    seq->positions = positions != NULL ? positions : seq->positions;
    if (keys == NULL || values == NULL || valid == NULL || positions == NULL) {
        return -1;
    }
    seq->cap = cap;
    return 0;
}

/* Sequence ids in range, and room in every cache, before anything moves. */
static pecert_status make_room(const pecert__ref_call *call, honest_session *s,
                               const pecert_session_append_args *a)
{
    int64_t *adding = calloc((size_t)s->n_seqs, sizeof(int64_t));
    if (adding == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    pecert_status st = PECERT_OK;
    for (int64_t t = 0; st == PECERT_OK && t < a->n_tokens; t++) {
        if (a->seq_ids[t] < 0 || a->seq_ids[t] >= s->n_seqs) {
            st = pecert__ref_fail(call, PECERT_E_INVAL, "seq_ids[%" PRId64 "]=%d outside 0..%d", t,
                                  a->seq_ids[t], s->n_seqs - 1);
        } else {
            adding[a->seq_ids[t]]++;
        }
    }
    for (int32_t i = 0; st == PECERT_OK && i < s->n_seqs; i++) {
        int64_t need = s->seqs[i].count + adding[i];
        if (need > s->max_tokens) {
            st = pecert__ref_fail(call, PECERT_E_INVAL, "sequence %d: %" PRId64 " + %" PRId64 " tokens exceed max_tokens=%d",
                                  i, s->seqs[i].count, adding[i], s->max_tokens);
        } else if (reserve(s, &s->seqs[i], need) != 0) {
            st = pecert__ref_fail(call, PECERT_E_NOMEM, "no memory for sequence %d's %" PRId64 " tokens", i, need);
        }
    }
    free(adding);
    return st;
}

static const float *elem(const pecert_tensor *t, int64_t i0, int64_t i1)
{
    return (const float *)t->data + i0 * t->strides[0] + i1 * t->strides[1];
}

/* Row (t, h) of view v into row[], rotated by cos/sin (cs, sn) when the
 * model has RoPE. */
static void load_rotated(const honest_session *s, const pecert_tensor *v, int64_t t, int64_t h,
                         const float *cs, const float *sn, float *row)
{
    for (int64_t d = 0; d < s->head_dim; d++) {
        row[d] = elem(v, t, h)[d * v->strides[2]];
    }
    int32_t half = s->has_rope ? s->freqs.half : 0;
    for (int32_t i = 0; i < half; i++) {
        int64_t ia = s->pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i : i;
        int64_t ib = s->pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i + 1 : i + half;
        honest_rotate_pair(PECERT_DTYPE_F32, row[ia], row[ib], cs[i], sn[i], &row[ia], &row[ib]);
    }
}

/* Query head h of token t over its sequence, in float32. */
static void attend(const honest_session *s, const honest_sequence *seq, const pecert_session_append_args *a,
                   int64_t t, int64_t h, const float *q, float *score)
{
    int64_t kvh = h / (s->n_heads / s->n_kv_heads);
    float max = -INFINITY;
    for (int64_t j = 0; j < seq->count; j++) {
        const float *k = seq->keys + (j * s->n_kv_heads + kvh) * s->head_dim;
        float dot = 0.0f;
        for (int64_t d = 0; d < s->head_dim; d++) {
            dot += q[d] * k[d];
        }
        float bias = s->slopes != NULL ? -s->slopes[h] * (float)(a->positions[t] - seq->positions[j]) : 0.0f;
        score[j] = seq->valid[j] ? dot * s->softmax_scale + bias : -INFINITY;
        max = score[j] > max ? score[j] : max;
    }
    float total = 0.0f;
    for (int64_t j = 0; j < seq->count; j++) {
        score[j] = seq->valid[j] ? expf(score[j] - max) : 0.0f;
        total += score[j];
    }
    float *out = (float *)a->out->data + t * a->out->strides[0] + h * a->out->strides[1];
    for (int64_t d = 0; d < s->head_dim; d++) {
        float acc = 0.0f;
        for (int64_t j = 0; j < seq->count; j++) {
            acc += score[j] * seq->values[(j * s->n_kv_heads + kvh) * s->head_dim + d];
        }
        out[d * a->out->strides[2]] = acc / total;
    }
}

/* Token t: its key and value cached (the key rotated), then every query
 * head attends. */
static void append_token(honest_session *s, const pecert_session_append_args *a, int64_t t,
                         const float *cs, const float *sn, float *scratch)
{
    honest_sequence *seq = &s->seqs[a->seq_ids[t]];
    int64_t slot = seq->count++;
    for (int64_t h = 0; h < s->n_kv_heads; h++) {
        float *k = seq->keys + (slot * s->n_kv_heads + h) * s->head_dim;
        float *v = seq->values + (slot * s->n_kv_heads + h) * s->head_dim;
        load_rotated(s, a->k, t, h, cs, sn, k);
        for (int64_t d = 0; d < s->head_dim; d++) {
            v[d] = elem(a->v, t, h)[d * a->v->strides[2]];
        }
    }
    seq->valid[slot] = a->valid == NULL || a->valid[t] != 0;
    seq->positions[slot] = a->positions[t];
    for (int64_t h = 0; h < s->n_heads; h++) {
        load_rotated(s, a->q, t, h, cs, sn, scratch);
        attend(s, seq, a, t, h, scratch, scratch + s->head_dim);
    }
}

/* cos/sin rows of every token ([n_tokens, half] each), before anything
 * moves: a position outside a variant's cache declines the whole call. */
static pecert_status token_rows(const pecert__ref_call *call, void *instance, const honest_session *s,
                                const pecert_session_append_args *a, float *cs, float *sn)
{
    pecert_status st = PECERT_OK;
    for (int64_t t = 0; s->has_rope && st == PECERT_OK && t < a->n_tokens; t++) {
        size_t off = (size_t)t * (size_t)s->freqs.half;
        st = honest_row(call, instance, &s->freqs, &s->rope, a->positions[t], cs + off, sn + off);
    }
    return st;
}

pecert_status honest_session_append(void *instance, void *session, const pecert_session_append_args *args)
{
    pecert__ref_call call;
    honest_session *s = session;
    pecert__ref_begin_call(&call, instance, "session_append");
    if (s == NULL) {
        return pecert__ref_fail(&call, PECERT_E_INVAL, "session is NULL");
    }
    pecert_status st = pecert__ref_check_session_append(&call, args, s->n_heads, s->n_kv_heads, s->head_dim);
    if (st != PECERT_OK || args->n_tokens == 0) {
        return st;
    }
    size_t half = (size_t)(s->has_rope && s->freqs.half > 0 ? s->freqs.half : 1);
    size_t rows = (size_t)args->n_tokens * half;
    int64_t longest = 0;
    for (int32_t i = 0; i < s->n_seqs; i++) {
        longest = s->seqs[i].count > longest ? s->seqs[i].count : longest;
    }
    float *cs = malloc(rows * sizeof(float));
    float *sn = malloc(rows * sizeof(float));
    float *scratch = malloc(((size_t)s->head_dim + (size_t)(longest + args->n_tokens)) * sizeof(float));
    if (cs == NULL || sn == NULL || scratch == NULL) {
        st = pecert__ref_fail(&call, PECERT_E_NOMEM, "out of memory for %" PRId64 " tokens", args->n_tokens);
    }
    if (st == PECERT_OK) {
        st = token_rows(&call, instance, s, args, cs, sn);
    }
    if (st == PECERT_OK) {
        st = make_room(&call, s, args);
    }
    for (int64_t t = 0; st == PECERT_OK && t < args->n_tokens; t++) {
        append_token(s, args, t, cs + (size_t)t * half, sn + (size_t)t * half, scratch);
    }
    free(cs);
    free(sn);
    free(scratch);
    return st;
}

pecert_status honest_session_read_keys(void *instance, void *session, pecert_tensor *out_keys, int32_t seq)
{
    pecert__ref_call call;
    const honest_session *s = session;
    pecert__ref_begin_call(&call, instance, "session_read_keys");
    if (s == NULL || seq < 0 || seq >= s->n_seqs) {
        return pecert__ref_fail(&call, PECERT_E_INVAL, "session NULL or seq=%d out of range", seq);
    }
    const honest_sequence *q = &s->seqs[seq];
    pecert_status st = pecert__ref_check_read_keys(&call, out_keys, q->count, s->n_kv_heads, s->head_dim);
    for (int64_t j = 0; st == PECERT_OK && j < q->count; j++) {
        for (int64_t h = 0; h < s->n_kv_heads; h++) {
            const float *k = q->keys + (j * s->n_kv_heads + h) * s->head_dim;
            for (int64_t d = 0; d < s->head_dim; d++) {
                ((float *)out_keys->data)[j * out_keys->strides[0] + h * out_keys->strides[1] +
                                          d * out_keys->strides[2]] = k[d];
            }
        }
    }
    return st;
}
