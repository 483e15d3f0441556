/*
 * deberta_checks.c - DeBERTa's disentangled relative positions
 * (transformers' DisentangledSelfAttention, v1 and v2/v3):
 *
 * deberta.bias.golden   the c2p + p2c bias equals the official outputs
 *                       (packed and strided), at every DeBERTa-v2/v3
 *                       checkpoint's buckets (256 over 512 positions) up
 *                       to 600 tokens, each term alone, without buckets,
 *                       a batch over the heads' tables, and v1;
 * deberta.index.golden  the table row each (query, key) pair reads equals
 *                       the one build_relative_position's buckets give,
 *                       for |i - j| up to 1099 (past max_position, where
 *                       transformers does not clamp): read through the
 *                       op itself with inputs that make the bias the row
 *                       number exactly (d = 2, one term, s = sqrt(2 * 2)
 *                       = 2, a query (1, 0) against table row m = (2m, 0)),
 *                       once per term.
 *
 * Error model (TOLERANCES.md): each term is a dot product of d products,
 * within gamma_d of its exact value in any summation order, divided by
 * s = sqrt(d sf) (the division and s each one rounding), v1's query and
 * position queries divided by s before the product (one more), and the
 * terms summed (one more): |err| <= u ((d + 4) (sum_c |q_c pk_c| +
 * sum_c |k_c pq_c|) / s + |bias|) per engine, computed here in double;
 * the comparison allows both sides' (twice that). The index check is
 * exact: its arithmetic has no rounding.
 *
 * A failed case is replayed on this file's double model with the buckets
 * or the p2c row misread as released ports misread them (the p2c row at
 * -b(i - j): nntrainer; the sequence length as max_position: TensorRT's
 * plugin; (max_position - 1) / mid in integers, the c2p row without
 * + span, the scale without its root: rust-bert): the
 * misreading that reproduces the plugin's output is the symptom
 * diagnose.c names; so are two of rust-bert's (the c2p row without
 * + span, the terms divided by d sf without its square root).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"
#include "isolate.h"

/* One deberta_bias call: sizes and packed inputs. */
typedef struct deberta_call {
    int64_t n, len, d, heads, bucket_size, max_position;
    uint32_t terms;
    float *q;         /* [n, L, d]                                            */
    float *k;         /* [n, L, d]                                            */
    float *pos_key;   /* [heads, 2 span, d]                                   */
    float *pos_query; /* [heads, 2 span, d]                                   */
} deberta_call;

/* How the model reads the call (all zero: plugin.h's deberta_bias); each
 * misreading is a released port's (impls/mutants/README.md). */
typedef struct deberta_reading {
    int p2c_sign;      /* p2c reads row clamp(-b(i - j) + span)               */
    int length_as_max; /* the buckets spread over L, not max_position        */
    int integer_ratio; /* ln((max_position - 1) / mid) in integer division   */
    int c2p_no_span;   /* c2p reads row clamp(b(i - j)): no + span            */
    int scale_no_sqrt; /* the terms divided by d sf, not its square root      */
} deberta_reading;

static void call_free(deberta_call *c)
{
    free(c->q);
    free(c->k);
    free(c->pos_key);
    free(c->pos_query);
}

static int64_t span_of(const deberta_call *c)
{
    return c->bucket_size > 0 ? c->bucket_size : c->max_position;
}

static float *floats_of(const pecert_vtensor *t, int64_t n)
{
    float *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    for (int64_t i = 0; out != NULL && i < n; i++) {
        out[i] = (float)pecert_vtensor_get(t, i);
    }
    return out;
}

static uint32_t terms_of(const pecert_vtest *t)
{
    static const uint32_t by_enum[] = {PECERT_DEBERTA_C2P, PECERT_DEBERTA_P2C,
                                       PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C};
    int64_t e = pecert_vtest_int(t, "terms", 2);
    return by_enum[e >= 0 && e < 3 ? e : 2];
}

static int call_of(const pecert_vtest *t, deberta_call *c)
{
    const pecert_vtensor *q = pecert_vtest_input(t, "q");
    const pecert_vtensor *pk = pecert_vtest_input(t, "pos_key");
    memset(c, 0, sizeof(*c));
    c->bucket_size = pecert_vtest_int(t, "bucket_size", -1);
    c->max_position = pecert_vtest_int(t, "max_position", 2);
    c->terms = terms_of(t);
    c->n = q->shape[0];
    c->len = q->shape[1];
    c->d = q->shape[2];
    c->heads = pk->shape[0];
    int64_t table = c->heads * 2 * span_of(c) * c->d;
    c->q = floats_of(q, c->n * c->len * c->d);
    c->k = floats_of(pecert_vtest_input(t, "k"), c->n * c->len * c->d);
    c->pos_key = floats_of(pk, table);
    c->pos_query = floats_of(pecert_vtest_input(t, "pos_query"), table);
    return c->q != NULL && c->k != NULL && c->pos_key != NULL && c->pos_query != NULL;
}

/* Runs c on subject s into a fresh [n, L, L] buffer; 0 (recorded in r) if
 * it did not. In the strided pass q is strided too. A term not asked for
 * gets no table (plugin.h). */
static int run_on(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r,
                  const deberta_call *c, pecert_out_buf *out, const char *where)
{
    int64_t shape[3] = {c->n, c->len, c->len};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_F32, 3, shape, where)) {
        return 0;
    }
    int64_t m = env->strided_outputs ? 2 : 1;
    int64_t nq = c->n * c->len * c->d;
    float *q = malloc((size_t)(m * nq) * sizeof(float));
    if (q == NULL) {
        pecert_out_free(out);
        pecert_case_fail(r, where, "out of memory");
        return 0;
    }
    for (int64_t i = 0; i < nq; i++) {
        q[m * i] = c->q[i];
    }
    int64_t rows = 2 * span_of(c);
    pecert_tensor tq = pecert_tensor_3d(q, c->n, c->len, c->d, m * c->len * c->d, m * c->d, m);
    pecert_tensor tk = pecert_tensor_3d(c->k, c->n, c->len, c->d, c->len * c->d, c->d, 1);
    pecert_tensor tpk = pecert_tensor_3d(c->pos_key, c->heads, rows, c->d, rows * c->d, c->d, 1);
    pecert_tensor tpq = pecert_tensor_3d(c->pos_query, c->heads, rows, c->d, rows * c->d, c->d, 1);
    pecert_deberta_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.terms = c->terms;
    a.bucket_size = c->bucket_size;
    a.max_position = c->max_position;
    a.q = &tq;
    a.k = &tk;
    a.pos_key = (c->terms & PECERT_DEBERTA_C2P) ? &tpk : NULL;
    a.pos_query = (c->terms & PECERT_DEBERTA_P2C) ? &tpq : NULL;
    a.out = &out->view;
    pecert_status st = s->desc->deberta_bias(s->instance, &a);
    free(q);
    return pecert_out_kept(r, s, st, out, where, "deberta_bias");
}

/* ---- the model and its bound ---------------------------------------------------------- */

/* b(r) as reading v computes it (plugin.h): r within mid as it is, else
 * mid + ceil((mid - 1) ln(|r| / mid) / ln(ratio)), signed; a ratio of 1 or
 * less (a misreading's) puts every far r past the last row. */
static int64_t bucket_of(const deberta_call *c, const deberta_reading *v, int64_t r)
{
    int64_t mid = c->bucket_size / 2;
    int64_t distance = r < 0 ? -r : r;
    if (c->bucket_size <= 0 || distance <= mid) {
        return r;
    }
    int64_t max_position = v->length_as_max ? c->len : c->max_position;
    double ratio = v->integer_ratio ? (double)((max_position - 1) / mid) : (double)(max_position - 1) / (double)mid;
    double x = ratio > 1.0 ? log((double)distance / (double)mid) / log(ratio) * (double)(mid - 1) : 1e9;
    int64_t b = mid + (int64_t)ceil(x < 1e9 ? x : 1e9);
    return r < 0 ? -b : b;
}

/* The table row the term reads for query i and key j. */
static int64_t row_of(const deberta_call *c, const deberta_reading *v, uint32_t term, int64_t i, int64_t j)
{
    int64_t span = span_of(c);
    int64_t b = bucket_of(c, v, i - j);
    int64_t row = (term == PECERT_DEBERTA_P2C && v->p2c_sign ? -b : b) +
                  (term == PECERT_DEBERTA_C2P && v->c2p_no_span ? 0 : span);
    return row < 0 ? 0 : row > 2 * span - 1 ? 2 * span - 1 : row;
}

/* The divisor of both terms as reading v has it: sqrt(d sf), sf = 1 + the
 * terms asked for. */
static double scale_of(const deberta_call *c, const deberta_reading *v)
{
    int n_terms = ((c->terms & PECERT_DEBERTA_C2P) != 0) + ((c->terms & PECERT_DEBERTA_P2C) != 0);
    double d_sf = (double)c->d * (double)(1 + n_terms);
    return v->scale_no_sqrt ? d_sf : sqrt(d_sf);
}

/* x . table[h][row] in double, and sum_c |x_c table_c| into *weight. */
static double dot(const float *x, const float *table, int64_t d, double *weight)
{
    double sum = 0.0;
    for (int64_t ch = 0; ch < d; ch++) {
        double p = (double)x[ch] * (double)table[ch];
        sum += p;
        *weight += fabs(p);
    }
    return sum;
}

/* Every output of c as reading v computes it, with its bound, into out and
 * tol ([n, L, L] doubles each). */
static void model(const deberta_call *c, const deberta_reading *v, double *out, double *tol)
{
    int64_t rows = 2 * span_of(c);
    double s = scale_of(c, v);
    /* Each term's row per distance i - j, once: [term][i - j + L - 1]. */
    int64_t *by_distance = malloc((size_t)(2 * (2 * c->len - 1)) * sizeof(int64_t));
    if (by_distance == NULL) {
        for (int64_t e = 0; e < c->n * c->len * c->len; e++) {
            out[e] = NAN; /* no memory: nothing explained, every element off */
            tol[e] = 0.0;
        }
        return;
    }
    int64_t *c2p_rows = by_distance + c->len - 1, *p2c_rows = c2p_rows + 2 * c->len - 1;
    for (int64_t r = -(c->len - 1); r <= c->len - 1; r++) {
        c2p_rows[r] = row_of(c, v, PECERT_DEBERTA_C2P, r, 0);
        p2c_rows[r] = row_of(c, v, PECERT_DEBERTA_P2C, r, 0);
    }
    for (int64_t b = 0; b < c->n; b++) {
        int64_t h = b % c->heads;
        for (int64_t i = 0; i < c->len; i++) {
            for (int64_t j = 0; j < c->len; j++) {
                double value = 0.0;
                double weight = 0.0;
                if (c->terms & PECERT_DEBERTA_C2P) {
                    int64_t row = c2p_rows[i - j];
                    value += dot(c->q + (b * c->len + i) * c->d, c->pos_key + (h * rows + row) * c->d, c->d, &weight) / s;
                }
                if (c->terms & PECERT_DEBERTA_P2C) {
                    int64_t row = p2c_rows[i - j];
                    value += dot(c->k + (b * c->len + j) * c->d, c->pos_query + (h * rows + row) * c->d, c->d, &weight) /
                             s;
                }
                int64_t e = (b * c->len + i) * c->len + j;
                out[e] = value;
                tol[e] = 2.0 * PECERT_U32 * (((double)c->d + 4.0) * weight / s + fabs(value));
            }
        }
    }
    free(by_distance);
}

static double *model_buffers(pecert_check_result *r, const deberta_call *c, const char *where)
{
    double *b = malloc((size_t)(2 * c->n * c->len * c->len) * sizeof(double));
    if (b == NULL) {
        pecert_case_fail(r, where, "out of memory");
    }
    return b;
}

/* The element's place: head row, query, key and their distance. */
static void finish_case(pecert_check_result *r, const pecert_case_worst *w, const deberta_call *c,
                        const char *where)
{
    int64_t e = w->index < 0 ? 0 : w->index;
    int64_t b = e / (c->len * c->len), i = e / c->len % c->len, j = e % c->len;
    char elem[160];
    snprintf(elem, sizeof(elem), "[n %lld, query %lld, key %lld] (i - j = %lld, L = %lld)", (long long)b,
             (long long)i, (long long)j, (long long)(i - j), (long long)c->len);
    pecert_case_finish(r, w, where, elem);
}

/* ---- the replays ------------------------------------------------------------------------- */

static const struct {
    deberta_reading v;
    const char *symptom;
} replays[] = {
    {{.p2c_sign = 1}, PECERT_SYMPTOM_DEBERTA_P2C_SIGN},
    {{.length_as_max = 1}, PECERT_SYMPTOM_DEBERTA_LENGTH_AS_MAX},
    {{.integer_ratio = 1}, PECERT_SYMPTOM_DEBERTA_INTEGER_RATIO},
    {{.c2p_no_span = 1}, PECERT_SYMPTOM_DEBERTA_C2P_NO_SPAN},
    {{.scale_no_sqrt = 1}, PECERT_SYMPTOM_DEBERTA_SCALE_NO_SQRT},
};
#define N_REPLAYS (sizeof(replays) / sizeof(replays[0]))

/* The one misreading that explains_k says reproduces the output, named;
 * a case several reproduce (none differs there) names none. */
static void name_the_explaining(pecert_check_result *r, const int explains[N_REPLAYS])
{
    const char *named = NULL;
    int explaining = 0;
    for (size_t k = 0; k < N_REPLAYS; k++) {
        if (explains[k]) {
            named = replays[k].symptom;
            explaining++;
        }
    }
    if (explaining == 1) {
        pecert_check_symptom(r, "%s", named);
    }
}

static void explain(pecert_check_result *r, const deberta_call *c, const pecert_out_buf *got, double *want,
                    double *tol)
{
    int explains[N_REPLAYS];
    for (size_t k = 0; k < N_REPLAYS; k++) {
        model(c, &replays[k].v, want, tol);
        explains[k] = pecert_out_within(got, want, tol);
    }
    name_the_explaining(r, explains);
}

/* The expected bias, element by element: the official vectors' or ref's. */
typedef double (*want_at_fn)(const void *want, int64_t e);

static double vtensor_at(const void *want, int64_t e)
{
    return pecert_vtensor_get(want, e);
}

static double out_at(const void *want, int64_t e)
{
    return pecert_out_get(want, e);
}

/* got against want under the model's bound (buf: the model's 2 n values),
 * a failure replayed. */
static void judge(pecert_check_result *r, const deberta_call *c, const pecert_out_buf *got, want_at_fn want_at,
                  const void *want, double *buf, const char *where)
{
    int64_t n = got->n;
    static const deberta_reading right = {0};
    model(c, &right, buf, buf + n);
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t e = 0; e < n; e++) {
        pecert_case_worst_add(&w, e, pecert_out_get(got, e), want_at(want, e), buf[n + e]);
    }
    finish_case(r, &w, c, where);
    if (w.n_bad > 0) {
        explain(r, c, got, buf, buf + n);
    }
}

/* ---- deberta.bias.golden ------------------------------------------------------------------ */

static void golden_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    deberta_call c;
    if (!call_of(t, &c)) {
        pecert_case_fail(r, where, "out of memory");
        call_free(&c);
        return;
    }
    pecert_out_buf got;
    double *buf = run_on(env, &env->plugin, r, &c, &got, where) ? model_buffers(r, &c, where) : NULL;
    if (buf != NULL) {
        judge(r, &c, &got, vtensor_at, pecert_vtest_output(t, "bias"), buf, where);
        free(buf);
        pecert_out_free(&got);
    }
    call_free(&c);
}

static void run_bias_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "deberta.bias", golden_case);
}

const pecert_check pecert_check_deberta_bias_golden = {
    PECERT_ID_DEBERTA_BIAS_GOLDEN,
    "DeBERTa's disentangled c2p + p2c bias (v1, v2/v3 log buckets) equals transformers' outputs",
    PECERT_NEED_DEBERTA, run_bias_golden};

/* ---- against the oracle (certify) --------------------------------------------------------- */

/* A call of sizes {n, L, d, heads} at the buckets, span and terms given,
 * its inputs uniform in [-1, 1) from seed. */
static int call_seeded(deberta_call *c, const int64_t sizes[4], int64_t bucket_size, int64_t max_position,
                       uint32_t terms, uint64_t seed)
{
    memset(c, 0, sizeof(*c));
    c->n = sizes[0], c->len = sizes[1], c->d = sizes[2], c->heads = sizes[3];
    c->bucket_size = bucket_size, c->max_position = max_position, c->terms = terms;
    int64_t nq = c->n * c->len * c->d, table = c->heads * 2 * span_of(c) * c->d;
    float **parts[4] = {&c->q, &c->k, &c->pos_key, &c->pos_query};
    int64_t lens[4] = {nq, nq, table, table};
    pecert_rng rng = {seed};
    for (int k = 0; k < 4; k++) {
        *parts[k] = malloc((size_t)lens[k] * sizeof(float));
        for (int64_t i = 0; *parts[k] != NULL && i < lens[k]; i++) {
            (*parts[k])[i] = pecert_rng_float(&rng);
        }
        if (*parts[k] == NULL) {
            return 0;
        }
    }
    return 1;
}

void pecert_deberta_against_oracle(const pecert_check_env *env, pecert_check_result *r, const int64_t sizes[4],
                                   int64_t bucket_size, int64_t max_position, uint32_t terms, uint64_t seed,
                                   const char *where)
{
    deberta_call c;
    pecert_out_buf want, got;
    if (!call_seeded(&c, sizes, bucket_size, max_position, terms, seed)) {
        pecert_case_fail(r, where, "out of memory");
    } else if (run_on(env, &env->oracle, r, &c, &want, where)) {
        double *buf = model_buffers(r, &c, where);
        if (buf != NULL && run_on(env, &env->plugin, r, &c, &got, where)) {
            judge(r, &c, &got, out_at, &want, buf, where);
            pecert_out_free(&got);
        }
        free(buf);
        pecert_out_free(&want);
    }
    call_free(&c);
}

/* ---- deberta.index.golden ----------------------------------------------------------------- */

/* A call whose bias is the row the term reads: d = 2, one head, the term's
 * vector (q for c2p, k for p2c) (1, 0) at every token, the other zero, and
 * table row m = (2m, 0): (1 * 2m) / sqrt(2 * 2) = m, exactly. */
static int index_call(deberta_call *c, const pecert_vtest *t, uint32_t term)
{
    memset(c, 0, sizeof(*c));
    c->bucket_size = pecert_vtest_int(t, "bucket_size", -1);
    c->max_position = pecert_vtest_int(t, "max_position", 2);
    int64_t q_len = pecert_vtest_int(t, "q_len", 1);
    int64_t k_len = pecert_vtest_int(t, "k_len", 1);
    c->len = q_len > k_len ? q_len : k_len;
    c->n = 1, c->d = 2, c->heads = 1, c->terms = term;
    int64_t rows = 2 * span_of(c);
    c->q = calloc((size_t)(c->len * 2), sizeof(float));
    c->k = calloc((size_t)(c->len * 2), sizeof(float));
    c->pos_key = calloc((size_t)(rows * 2), sizeof(float));
    c->pos_query = calloc((size_t)(rows * 2), sizeof(float));
    if (c->q == NULL || c->k == NULL || c->pos_key == NULL || c->pos_query == NULL) {
        return 0;
    }
    float *x = term == PECERT_DEBERTA_C2P ? c->q : c->k;
    float *table = term == PECERT_DEBERTA_C2P ? c->pos_key : c->pos_query;
    for (int64_t i = 0; i < c->len; i++) {
        x[2 * i] = 1.0f;
    }
    for (int64_t m = 0; m < rows; m++) {
        table[2 * m] = (float)(2 * m);
    }
    return 1;
}

/* Whether reading v's rows, divided as v divides (2m / s: the row itself
 * at plugin.h's s = 2), are the output at every pair the vector covers. */
static int rows_explain(const deberta_call *c, const deberta_reading *v, uint32_t term, const pecert_out_buf *got,
                        int64_t q_len, int64_t k_len)
{
    double s = scale_of(c, v);
    for (int64_t i = 0; i < q_len; i++) {
        for (int64_t j = 0; j < k_len; j++) {
            double want = (double)(float)(2.0 * (double)row_of(c, v, term, i, j)) / s;
            if (fabs(pecert_out_get(got, i * c->len + j) - want) > 1e-6 * fabs(want)) {
                return 0;
            }
        }
    }
    return 1;
}

static void index_term(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, uint32_t term,
                       const char *where_vector)
{
    char where[PECERT_RESULT_LINE_MAX];
    snprintf(where, sizeof(where), "%s %s", where_vector, term == PECERT_DEBERTA_C2P ? "c2p" : "p2c");
    deberta_call c;
    pecert_out_buf got;
    if (!index_call(&c, t, term)) {
        pecert_case_fail(r, where, "out of memory");
    } else if (run_on(env, &env->plugin, r, &c, &got, where)) {
        const pecert_vtensor *rel = pecert_vtest_output(t, "relative_pos");
        int64_t q_len = rel->shape[0], k_len = rel->shape[1], span = span_of(&c);
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int64_t i = 0; i < q_len; i++) {
            for (int64_t j = 0; j < k_len; j++) {
                double b = pecert_vtensor_get(rel, i * k_len + j) + (double)span;
                double want = b < 0 ? 0 : b > (double)(2 * span - 1) ? (double)(2 * span - 1) : b;
                pecert_case_worst_add(&w, i * c.len + j, pecert_out_get(&got, i * c.len + j), want, 0.0);
            }
        }
        finish_case(r, &w, &c, where);
        if (w.n_bad > 0) {
            int explains[N_REPLAYS];
            for (size_t k = 0; k < N_REPLAYS; k++) {
                explains[k] = rows_explain(&c, &replays[k].v, term, &got, q_len, k_len);
            }
            name_the_explaining(r, explains);
        }
        pecert_out_free(&got);
    }
    call_free(&c);
}

static void index_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    index_term(env, r, t, PECERT_DEBERTA_C2P, where);
    index_term(env, r, t, PECERT_DEBERTA_P2C, where);
}

static void run_index_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_vectors(env, r, "deberta.relpos", index_case);
}

const pecert_check pecert_check_deberta_index_golden = {
    PECERT_ID_DEBERTA_INDEX_GOLDEN,
    "the table row each DeBERTa query-key pair reads (c2p and p2c) equals build_relative_position's log buckets",
    PECERT_NEED_DEBERTA, run_index_golden};
