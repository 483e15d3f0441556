/* decode_util.c - feed a logical batch to a decode session in a given
 * layout, gather its outputs, compare under the attention error model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "family_tol.h"
#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

/* Allocates and fills the sequences of a batch whose shape is set. */
static int fill_sequences(pecert_logical_batch *b, const int64_t *len, const int64_t *start, uint64_t seed)
{
    for (int32_t s = 0; s < b->n_seqs; s++) {
        size_t qn = (size_t)(len[s] * b->n_heads * b->head_dim);
        size_t kn = (size_t)(len[s] * b->n_kv_heads * b->head_dim);
        b->len[s] = len[s];
        b->pos[s] = malloc((size_t)len[s] * sizeof(int64_t));
        b->q[s] = malloc(qn * sizeof(float));
        b->k[s] = malloc(kn * sizeof(float));
        b->v[s] = malloc(kn * sizeof(float));
        if (b->pos[s] == NULL || b->q[s] == NULL || b->k[s] == NULL || b->v[s] == NULL) {
            return -1;
        }
        for (int64_t i = 0; i < len[s]; i++) {
            b->pos[s][i] = start[s] + i;
        }
        pecert_fill_random(b->q[s], qn, seed + 3 * (uint64_t)s);
        pecert_fill_random(b->k[s], kn, seed + 3 * (uint64_t)s + 1);
        pecert_fill_random(b->v[s], kn, seed + 3 * (uint64_t)s + 2);
    }
    return 0;
}

int pecert_logical_batch_init(pecert_logical_batch *b, const pecert_rope_config *rope,
                              pecert_rope_pairing pairing, int32_t n_seqs, const int64_t *len,
                              const int64_t *start, uint64_t seed)
{
    memset(b, 0, sizeof(*b));
    *b = (pecert_logical_batch){.rope = rope, .pairing = pairing, .n_seqs = n_seqs, .n_heads = 4,
                                .n_kv_heads = 2, .head_dim = rope->head_dim};
    return fill_sequences(b, len, start, seed);
}

int pecert_logical_batch_init_alibi(pecert_logical_batch *b, int32_t n_heads, int32_t n_kv_heads,
                                    int32_t head_dim, double max_bias, int32_t n_seqs, const int64_t *len,
                                    const int64_t *start, uint64_t seed)
{
    memset(b, 0, sizeof(*b));
    *b = (pecert_logical_batch){.alibi = 1, .alibi_max_bias = max_bias, .n_seqs = n_seqs,
                                .n_heads = n_heads, .n_kv_heads = n_kv_heads, .head_dim = head_dim};
    return fill_sequences(b, len, start, seed);
}

void pecert_logical_batch_free(pecert_logical_batch *b)
{
    for (int32_t s = 0; s < b->n_seqs; s++) {
        free(b->pos[s]);
        free(b->q[s]);
        free(b->k[s]);
        free(b->v[s]);
    }
}

void pecert_logical_out_free(pecert_logical_out *out, int32_t n_seqs)
{
    for (int32_t s = 0; s < n_seqs; s++) {
        free(out->out[s]);
        out->out[s] = NULL;
    }
}

/* Packed buffers of one append call. */
typedef struct call_buffers {
    int64_t *positions;
    int32_t *seq_ids;
    uint8_t *valid;
    float *q;
    float *k;
    float *v;
    float *out;
} call_buffers;

static void call_buffers_free(call_buffers *c)
{
    free(c->positions);
    free(c->seq_ids);
    free(c->valid);
    free(c->q);
    free(c->k);
    free(c->v);
    free(c->out);
}

/* Copies entry e's token (or deterministic padding garbage) into row t. */
static void fill_entry(call_buffers *c, const pecert_logical_batch *b, const pecert_feed_entry *e,
                       int64_t t)
{
    size_t qrow = (size_t)(b->n_heads * b->head_dim);
    size_t krow = (size_t)(b->n_kv_heads * b->head_dim);
    c->seq_ids[t] = e->seq;
    c->valid[t] = e->index >= 0;
    if (e->index >= 0) {
        c->positions[t] = b->pos[e->seq][e->index];
        memcpy(c->q + t * (int64_t)qrow, b->q[e->seq] + e->index * (int64_t)qrow, qrow * sizeof(float));
        memcpy(c->k + t * (int64_t)krow, b->k[e->seq] + e->index * (int64_t)krow, krow * sizeof(float));
        memcpy(c->v + t * (int64_t)krow, b->v[e->seq] + e->index * (int64_t)krow, krow * sizeof(float));
    } else {
        /* Padding carries large values: if it leaks into attention, it shows. */
        c->positions[t] = e->pad_position;
        pecert_fill_random(c->q + t * (int64_t)qrow, qrow, 9000 + (uint64_t)t);
        pecert_fill_random(c->k + t * (int64_t)krow, krow, 9100 + (uint64_t)t);
        pecert_fill_random(c->v + t * (int64_t)krow, krow, 9200 + (uint64_t)t);
        for (size_t d = 0; d < krow; d++) {
            c->v[t * (int64_t)krow + (int64_t)d] *= 8.0f;
        }
    }
}

static int call_buffers_alloc(call_buffers *c, const pecert_logical_batch *b, int64_t n)
{
    size_t m = (size_t)(n > 0 ? n : 1);
    memset(c, 0, sizeof(*c));
    c->positions = malloc(m * sizeof(int64_t));
    c->seq_ids = malloc(m * sizeof(int32_t));
    c->valid = malloc(m);
    c->q = malloc(m * (size_t)(b->n_heads * b->head_dim) * sizeof(float));
    c->k = malloc(m * (size_t)(b->n_kv_heads * b->head_dim) * sizeof(float));
    c->v = malloc(m * (size_t)(b->n_kv_heads * b->head_dim) * sizeof(float));
    c->out = malloc(m * (size_t)(b->n_heads * b->head_dim) * sizeof(float));
    return c->positions && c->seq_ids && c->valid && c->q && c->k && c->v && c->out ? 0 : -1;
}

static pecert_status append_call(const pecert_subject *s, void *session, const pecert_logical_batch *b,
                                 call_buffers *c, int64_t n)
{
    int64_t hd = b->head_dim;
    pecert_tensor q = pecert_tensor_rows(c->q, n, b->n_heads, hd);
    pecert_tensor k = pecert_tensor_rows(c->k, n, b->n_kv_heads, hd);
    pecert_tensor v = pecert_tensor_rows(c->v, n, b->n_kv_heads, hd);
    pecert_tensor out = pecert_tensor_rows(c->out, n, b->n_heads, hd);
    for (size_t i = 0; i < (size_t)(n * b->n_heads * hd); i++) {
        c->out[i] = NAN;
    }
    pecert_session_append_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.n_tokens = n;
    a.positions = c->positions;
    a.seq_ids = c->seq_ids;
    a.valid = c->valid;
    a.q = &q;
    a.k = &k;
    a.v = &v;
    a.out = &out;
    return s->desc->session_append(s->instance, session, &a);
}

/* Scatters the valid rows of one call's output into logical order. */
static void gather(pecert_logical_out *out, const pecert_logical_batch *b, const call_buffers *c,
                   const pecert_feed_entry *entries, int64_t n)
{
    size_t row = (size_t)(b->n_heads * b->head_dim);
    for (int64_t t = 0; t < n; t++) {
        if (entries[t].index >= 0) {
            memcpy(out->out[entries[t].seq] + entries[t].index * (int64_t)row, c->out + t * (int64_t)row,
                   row * sizeof(float));
        }
    }
}

static int run_calls(pecert_logical_out *out, const pecert_subject *s, pecert_check_result *r,
                     void *session, const pecert_logical_batch *b, const pecert_feed *feed,
                     const char *where)
{
    for (int c = 0; c < feed->n_calls; c++) {
        call_buffers buf;
        int64_t n = feed->n_entries[c];
        if (call_buffers_alloc(&buf, b, n) != 0) {
            call_buffers_free(&buf);
            pecert_case_fail(r, where, "out of memory");
            return -1;
        }
        for (int64_t t = 0; t < n; t++) {
            fill_entry(&buf, b, &feed->calls[c][t], t);
        }
        pecert_status st = append_call(s, session, b, &buf, n);
        int ok = pecert_case_status(r, s, st, where, "session_append");
        if (ok) {
            gather(out, b, &buf, feed->calls[c], n);
        }
        call_buffers_free(&buf);
        if (!ok) {
            return -1;
        }
    }
    return 0;
}

int pecert_feed_run(pecert_logical_out *out, const pecert_subject *s, pecert_check_result *r,
                    const pecert_logical_batch *b, const pecert_feed *feed, const char *where)
{
    memset(out, 0, sizeof(*out));
    int64_t max_tokens = 0;
    for (int c = 0; c < feed->n_calls; c++) {
        max_tokens += feed->n_entries[c];
    }
    pecert_session_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg = (pecert_session_config){.struct_size = sizeof(cfg), .pairing = b->pairing, .rope = b->rope,
                                  .n_seqs = b->n_seqs, .max_tokens = (int32_t)max_tokens,
                                  .n_heads = b->n_heads, .n_kv_heads = b->n_kv_heads,
                                  .alibi = b->alibi, .head_dim = b->rope == NULL ? b->head_dim : 0,
                                  .alibi_max_bias = b->alibi_max_bias, .alibi_bias_scale = b->alibi_bias_scale};
    if (b->alibi_bias_scale != 0 && !s->is_oracle && !pecert_plugin_speaks(s->desc, 5)) {
        pecert_case_needs_abi(r, s, where, "a scaled ALiBi term (session_config.alibi_bias_scale, Falcon)", 5);
        return -1;
    }
    for (int32_t q = 0; q < b->n_seqs; q++) {
        out->out[q] = calloc((size_t)(b->len[q] * b->n_heads * b->head_dim) + 1, sizeof(float));
        if (out->out[q] == NULL) {
            pecert_case_fail(r, where, "out of memory");
            return -1;
        }
    }
    void *session = NULL;
    pecert_status st = s->desc->session_create(s->instance, &session, &cfg);
    if (!pecert_case_status(r, s, st, where, "session_create")) {
        return -1;
    }
    int rc = run_calls(out, s, r, session, b, feed, where);
    s->desc->session_destroy(s->instance, session);
    return rc;
}

/* ---- the attention error model ----------------------------------------- */

/* The rotary config whose angles enter the bound; NULL without rotation
 * (an ALiBi-only model, or a NoPE layer: no frequency to ask for). */
static const pecert_rope_config *rotary_of(const pecert_logical_batch *b)
{
    return b->rope != NULL && b->rope->layer_kind == PECERT_LAYER_ROPE ? b->rope : NULL;
}

/* What the score bounds of one sequence share across its queries and keys:
 * every pair's |q| and |k| (the pair's radius, by hypot) and every
 * position's angle bound per pair. Each enters every score of the
 * sequence, so each is computed once, not once per (query, key); the sums
 * below add the same terms in the same order as a direct evaluation, so
 * the bound is the same to the last bit. */
typedef struct seq_terms {
    double *rq;    /* [len, n_heads, rot/2]    */
    double *rk;    /* [len, n_kv_heads, rot/2] */
    double *angle; /* [len, rot/2]             */
} seq_terms;

static void seq_terms_free(seq_terms *t)
{
    free(t->rq);
    free(t->rk);
    free(t->angle);
}

/* Pair radii of n_heads rows of head_dim channels at x, into out[n_heads, rot/2]. */
static void pair_radii(double *out, const float *x, int64_t n_heads, const pecert_logical_batch *b, int64_t rot)
{
    int64_t half = rot / 2;
    for (int64_t h = 0; h < n_heads; h++) {
        const float *row = x + h * b->head_dim;
        for (int64_t p = 0; p < half; p++) {
            int64_t a;
            int64_t c;
            pecert_rope_pair(b->pairing, rot, p, &a, &c);
            out[h * half + p] = hypot(row[a], row[c]);
        }
    }
}

static int seq_terms_init(seq_terms *t, const pecert_logical_batch *b, const double *inv, int32_t s)
{
    int64_t rot = rotary_of(b) != NULL ? b->rope->rotary_dim : 0;
    int64_t half = rot / 2;
    int64_t len = b->len[s];
    size_t n = (size_t)(half > 0 ? half : 1);
    t->rq = malloc((size_t)(len * b->n_heads) * n * sizeof(double));
    t->rk = malloc((size_t)(len * b->n_kv_heads) * n * sizeof(double));
    t->angle = malloc((size_t)len * n * sizeof(double));
    if (t->rq == NULL || t->rk == NULL || t->angle == NULL) {
        return -1;
    }
    for (int64_t i = 0; i < len; i++) {
        pair_radii(t->rq + i * b->n_heads * half, b->q[s] + i * b->n_heads * b->head_dim, b->n_heads, b, rot);
        pair_radii(t->rk + i * b->n_kv_heads * half, b->k[s] + i * b->n_kv_heads * b->head_dim, b->n_kv_heads, b,
                   rot);
        for (int64_t p = 0; p < half; p++) {
            t->angle[i * half + p] = pecert_tol_angle(fabs((double)b->pos[s][i]) * inv[p], inv[p], p);
        }
    }
    return 0;
}

/* Score error bound of query (s,i,h) against key j (TOLERANCES.md). */
static double score_bound(const pecert_logical_batch *b, const seq_terms *t, double scaling,
                          const double *slopes, int32_t s, int64_t i, int64_t h, int64_t j)
{
    int64_t hd = b->head_dim;
    int64_t rot = rotary_of(b) != NULL ? b->rope->rotary_dim : 0;
    int64_t half = rot / 2;
    int64_t kvh = h / (b->n_heads / b->n_kv_heads);
    const float *q = b->q[s] + (i * b->n_heads + h) * hd;
    const float *k = b->k[s] + (j * b->n_kv_heads + kvh) * hd;
    const double *rq = t->rq + (i * b->n_heads + h) * half;
    const double *rk = t->rk + (j * b->n_kv_heads + kvh) * half;
    double angle_part = 0.0;
    double norms = 0.0;
    for (int64_t p = 0; p < half; p++) {
        angle_part += rq[p] * rk[p] * 0.5 * (t->angle[i * half + p] + t->angle[j * half + p]);
        norms += rq[p] * rk[p];
    }
    for (int64_t d = rot; d < hd; d++) {
        norms += fabs((double)q[d] * k[d]);
    }
    double s2 = scaling * scaling;
    double value = s2 * norms * ((double)hd + PECERT_TOL_VALUE_U) * PECERT_U32;
    /* ALiBi: m_h (p_q - p_k) rounded in float32 on each side; a bias scale
     * (Falcon) rounds once more as a float32 factor and once in its
     * product with the slope. slopes[] are the scaled ones. */
    double alibi_u = b->alibi_bias_scale != 0 ? 6.0 : 4.0;
    double alibi = slopes != NULL ? alibi_u * PECERT_U32 * slopes[h] * fabs((double)(b->pos[s][i] - b->pos[s][j])) : 0.0;
    if (slopes != NULL && b->alibi_bf16_reference) { /* a slope and a product rounded to bfloat16 */
        alibi += pecert_tol_bf16_reference(slopes[h] * (double)(b->pos[s][i] - b->pos[s][j]), 2);
    }
    return (s2 * angle_part + value) / sqrt((double)hd) + alibi; /* softmax_scale = 1/sqrt(d) */
}

/* Bound on every output channel of query (s,i,h): a score error d moves
 * the softmax weights by at most 2d in total, each weight multiplying a
 * value of magnitude <= V; the sum itself rounds by (i + 8) u V. */
static double output_bound(const pecert_logical_batch *b, const seq_terms *t, double scaling,
                           const double *slopes, int32_t s, int64_t i, int64_t h)
{
    int64_t hd = b->head_dim;
    int64_t kvh = h / (b->n_heads / b->n_kv_heads);
    double worst_score = 0.0;
    double vmax = 0.0;
    for (int64_t j = 0; j <= i; j++) {
        double e = score_bound(b, t, scaling, slopes, s, i, h, j);
        worst_score = e > worst_score ? e : worst_score;
        const float *v = b->v[s] + (j * b->n_kv_heads + kvh) * hd;
        for (int64_t d = 0; d < hd; d++) {
            vmax = fabs(v[d]) > vmax ? fabs(v[d]) : vmax;
        }
    }
    return 2.0 * worst_score * vmax + 2.0 * ((double)i + 8.0) * PECERT_U32 * vmax;
}

/* Fills bd's table of sequence s; 0 or -1 (out of memory). */
static int bounds_of_seq(pecert_decode_bounds *bd, const pecert_logical_batch *b, const double *inv, double scaling,
                         const double *slopes, int32_t s)
{
    seq_terms t = {NULL, NULL, NULL};
    bd->at[s] = malloc((size_t)(b->len[s] * b->n_heads + 1) * sizeof(double));
    int rc = bd->at[s] != NULL ? seq_terms_init(&t, b, inv, s) : -1;
    for (int64_t i = 0; rc == 0 && i < b->len[s]; i++) {
        for (int64_t h = 0; h < b->n_heads; h++) {
            bd->at[s][i * b->n_heads + h] = output_bound(b, &t, scaling, slopes, s, i, h);
        }
    }
    seq_terms_free(&t);
    return rc;
}

int pecert_decode_bounds_init(pecert_decode_bounds *bd, const pecert_check_env *env, pecert_check_result *r,
                              const pecert_logical_batch *b, const char *where)
{
    memset(bd, 0, sizeof(*bd));
    int64_t half = rotary_of(b) != NULL ? b->rope->rotary_dim / 2 : 0;
    double *inv = malloc((size_t)(half + 1) * sizeof(double));
    double scaling = 1.0;
    double *slopes = b->alibi ? malloc((size_t)b->n_heads * sizeof(double)) : NULL;
    int ready = inv != NULL && (!b->alibi || slopes != NULL);
    if (!ready) {
        pecert_case_fail(r, where, "out of memory");
    }
    if (ready && rotary_of(b) != NULL) {
        ready = pecert_oracle_freqs(env, r, where, inv, &scaling, b->rope, 0);
    }
    if (ready && b->alibi) {
        ready = pecert_case_status(r, &env->oracle,
                                   pecert_oracle_alibi_slopes(env, b->n_heads, b->alibi_max_bias, slopes), where,
                                   "alibi_slopes");
        for (int32_t h = 0; ready && b->alibi_bias_scale != 0 && h < b->n_heads; h++) {
            slopes[h] *= b->alibi_bias_scale;
        }
    }
    for (int32_t s = 0; ready && s < b->n_seqs; s++) {
        if (bounds_of_seq(bd, b, inv, scaling, slopes, s) != 0) {
            pecert_case_fail(r, where, "out of memory");
            ready = 0;
        }
    }
    free(inv);
    free(slopes);
    if (!ready) {
        pecert_decode_bounds_free(bd);
        return -1;
    }
    bd->ready = 1;
    return 0;
}

void pecert_decode_bounds_free(pecert_decode_bounds *bd)
{
    for (int32_t s = 0; s < PECERT_DECODE_MAX_SEQS; s++) {
        free(bd->at[s]);
        bd->at[s] = NULL;
    }
    bd->ready = 0;
}

void pecert_decode_compare(pecert_check_result *r, const pecert_logical_batch *b, const pecert_decode_bounds *bd,
                           const pecert_logical_out *got, const pecert_logical_out *want, double bound_factor,
                           const char *where)
{
    if (!bd->ready) {
        return; /* pecert_decode_bounds_init said why */
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    int64_t hd = b->head_dim;
    int64_t worst_at[3] = {0, 0, 0};
    for (int32_t s = 0; s < b->n_seqs; s++) {
        for (int64_t i = 0; i < b->len[s]; i++) {
            pecert_case_worst token_w; /* per token: the report's error-vs-step plot */
            pecert_case_worst_init(&token_w);
            for (int64_t h = 0; h < b->n_heads; h++) {
                double bound = bound_factor * bd->at[s][i * b->n_heads + h];
                const float *g = got->out[s] + (i * b->n_heads + h) * hd;
                const float *e = want->out[s] + (i * b->n_heads + h) * hd;
                double before = w.ratio;
                for (int64_t d = 0; d < hd; d++) {
                    pecert_case_worst_add(&w, d, g[d], e[d], bound);
                    pecert_case_worst_add(&token_w, d, g[d], e[d], bound);
                }
                if (w.ratio != before || (s == 0 && i == 0 && h == 0)) {
                    worst_at[0] = s;
                    worst_at[1] = i;
                    worst_at[2] = h;
                }
            }
            (void)pecert_check_result_max_point(r, PECERT_AXIS_TOKEN, i, token_w.err, token_w.bound);
        }
    }
    char elem[128];
    snprintf(elem, sizeof(elem), "[seq=%lld,token=%lld,head=%lld,d=%lld] pos=%lld", (long long)worst_at[0],
             (long long)worst_at[1], (long long)worst_at[2], (long long)w.index,
             (long long)b->pos[worst_at[0]][worst_at[1]]);
    pecert_case_finish_at(r, &w, where, elem, b->pos[worst_at[0]][worst_at[1]]);
}
