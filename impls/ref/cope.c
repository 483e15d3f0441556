/*
 * cope.c - contextual position encoding (op cope_logits), in double, as
 * plugin.h states it: facebookresearch/RAM's ContextPosSelfAttn.forward
 * (projects/cope/src/cope/context_position.py) for one head, up to the
 * logits it hands to the softmax.
 *
 * Per query row i: the gates of every key (sigmoid of the scaled gate
 * logit, times the mask), their sums from each key to the last one (the
 * official flip / cumsum / flip), clamped at npos - 1; each position's
 * embedding logit interpolated between the dot products of the query with
 * the two integer position embeddings around it; then the attention logit.
 * Every sum is taken in double in index order; the oracle's own error is
 * far below the float32 bounds it is used with (TOLERANCES.md, "CoPE").
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "ref.h"

/* Far beyond any attention row an engine keeps for one head, small enough
 * that n_q * n_k and d * npos fit an int64 many times over. */
#define MAX_TOKENS (INT64_C(1) << 20)
#define MAX_HEAD_DIM 4096
#define MAX_NPOS (INT64_C(1) << 20)

/* ---- argument checks -------------------------------------------------------- */

/* An input [rows, d]: rows in min_rows..MAX_TOKENS (queries may be none,
 * keys not: a row of no keys has no positions), d in 1..MAX_HEAD_DIM. */
static pecert_status check_input(const pecert__ref_call *call, const char *name, const pecert_tensor *t,
                                 int64_t min_rows)
{
    pecert_status status = pecert__ref_check_view(call, name, t, 2, NULL, PECERT__REF_F32_ONLY, 0);
    if (status == PECERT_OK && (t->shape[0] < min_rows || t->shape[0] > MAX_TOKENS || t->shape[1] < 1 ||
                                t->shape[1] > MAX_HEAD_DIM)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "%s.shape=[%" PRId64 ", %" PRId64 "] must be [%" PRId64 "..%" PRId64 ", 1..%d]", name,
                                  t->shape[0], t->shape[1], min_rows, MAX_TOKENS, MAX_HEAD_DIM);
    }
    return status;
}

static double at(const pecert_tensor *t, int64_t i, int64_t j)
{
    return ((const float *)t->data)[i * t->strides[0] + j * t->strides[1]];
}

/* Every mask element 0 or 1: the official code takes its log. */
static pecert_status check_mask_values(const pecert__ref_call *call, const pecert_tensor *mask)
{
    for (int64_t i = 0; i < mask->shape[0]; i++) {
        for (int64_t j = 0; j < mask->shape[1]; j++) {
            double m = at(mask, i, j);
            if (m != 0.0 && m != 1.0) {
                return pecert__ref_fail(call, PECERT_E_INVAL, "mask[%" PRId64 ", %" PRId64 "]=%g must be 0 or 1", i,
                                        j, m);
            }
        }
    }
    return PECERT_OK;
}

static pecert_status check_inputs(const pecert__ref_call *call, const pecert_cope_args *a)
{
    pecert_status status = check_input(call, "q", a->q, 0);
    if (status == PECERT_OK) {
        status = check_input(call, "k", a->k, 1);
    }
    if (status == PECERT_OK) {
        status = check_input(call, "gate_k", a->gate_k, 1);
    }
    if (status == PECERT_OK && (a->npos < 1 || a->npos > MAX_NPOS)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "npos=%" PRId64 " must be in 1..%" PRId64, a->npos, MAX_NPOS);
    }
    int64_t d = status == PECERT_OK ? a->q->shape[1] : 0;
    int64_t n_k = status == PECERT_OK ? a->k->shape[0] : 0;
    if (status == PECERT_OK && (a->k->shape[1] != d || a->gate_k->shape[0] != n_k || a->gate_k->shape[1] != d)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "k.shape=[%" PRId64 ", %" PRId64 "] and gate_k.shape=[%" PRId64 ", %" PRId64
                                  "] must both be [n_k, q.shape[1] = %" PRId64 "]",
                                  a->k->shape[0], a->k->shape[1], a->gate_k->shape[0], a->gate_k->shape[1], d);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {d, a->npos};
        status = pecert__ref_check_view(call, "pos_emb", a->pos_emb, 2, shape, PECERT__REF_F32_ONLY, 0);
    }
    if (status == PECERT_OK && a->mask != NULL) {
        int64_t shape[2] = {a->q->shape[0], n_k};
        status = pecert__ref_check_view(call, "mask", a->mask, 2, shape, PECERT__REF_F32_ONLY, 0);
        if (status == PECERT_OK) {
            status = check_mask_values(call, a->mask);
        }
    }
    return status;
}

/* An output must not share an element with any input or the other output. */
static pecert_status check_overlaps(const pecert__ref_call *call, const pecert_cope_args *a, const char *name,
                                    const pecert_tensor *out)
{
    const pecert_tensor *inputs[] = {a->q, a->k, a->gate_k, a->pos_emb, a->mask};
    const char *names[] = {"q", "k", "gate_k", "pos_emb", "mask"};
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        if (inputs[i] != NULL && pecert__ref_views_overlap(inputs[i], out, sizeof(float))) {
            return pecert__ref_fail(call, PECERT_E_INVAL, "%s overlaps %s", name, names[i]);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_check_cope(const pecert__ref_call *call, const void *args)
{
    const pecert_cope_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);
    if (status == PECERT_OK && a->nodiv != 0 && a->nodiv != 1) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "nodiv=%" PRId32 " must be 0 or 1", a->nodiv);
    }
    if (status == PECERT_OK) {
        status = check_inputs(call, a);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->q->shape[0], a->k->shape[0]};
        status = pecert__ref_check_view(call, "positions", a->positions, 2, shape, PECERT__REF_F32_ONLY, 1);
        if (status == PECERT_OK) {
            status = pecert__ref_check_view(call, "logits", a->logits, 2, shape, PECERT__REF_F32_ONLY, 1);
        }
    }
    if (status == PECERT_OK) {
        status = check_overlaps(call, a, "positions", a->positions);
    }
    if (status == PECERT_OK) {
        status = check_overlaps(call, a, "logits", a->logits);
    }
    if (status == PECERT_OK && pecert__ref_views_overlap(a->positions, a->logits, sizeof(float))) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "positions overlaps logits");
    }
    return status;
}

/* ---- the op -------------------------------------------------------------------- */

/* q_i . row j of x (x [n, d]). */
static double dot_rows(const pecert_tensor *q, int64_t i, const pecert_tensor *x, int64_t j)
{
    double s = 0.0;
    for (int64_t c = 0; c < q->shape[1]; c++) {
        s += at(q, i, c) * at(x, j, c);
    }
    return s;
}

/* q_i . e[t], e[t] column t of pos_emb [d, npos]. */
static double dot_embedding(const pecert_tensor *q, int64_t i, const pecert_tensor *pos_emb, int64_t t)
{
    double s = 0.0;
    for (int64_t c = 0; c < q->shape[1]; c++) {
        s += at(q, i, c) * at(pos_emb, c, t);
    }
    return s;
}

static void store(const pecert_tensor *t, int64_t i, int64_t j, double v)
{
    ((float *)t->data)[i * t->strides[0] + j * t->strides[1]] = (float)v;
}

/* Row i: positions[j] (the gates' reversed cumulative sum, clamped) into p. */
static void row_positions(const pecert_cope_args *a, int64_t i, double inv_sqrt_d, double *p)
{
    int64_t n_k = a->k->shape[0];
    double sum = 0.0;
    for (int64_t j = n_k - 1; j >= 0; j--) {
        double m = a->mask != NULL ? at(a->mask, i, j) : 1.0;
        sum += m / (1.0 + exp(-dot_rows(a->q, i, a->gate_k, j) * inv_sqrt_d));
        p[j] = isnan(sum) ? sum : fmin(sum, (double)(a->npos - 1)); /* fmin would drop a NaN */
    }
}

static void row_logits(const pecert_cope_args *a, int64_t i, double inv_sqrt_d, const double *p)
{
    for (int64_t j = 0; j < a->k->shape[0]; j++) {
        store(a->positions, i, j, p[j]);
        if (a->mask != NULL && at(a->mask, i, j) == 0.0) {
            store(a->logits, i, j, -INFINITY);
            continue;
        }
        if (isnan(p[j])) {
            store(a->logits, i, j, NAN); /* plugin.h: no embedding to read */
            continue;
        }
        double lo = floor(p[j]);
        double w = p[j] - lo;
        double z = (1.0 - w) * dot_embedding(a->q, i, a->pos_emb, (int64_t)lo) +
                   w * dot_embedding(a->q, i, a->pos_emb, (int64_t)ceil(p[j]));
        double qk = dot_rows(a->q, i, a->k, j);
        store(a->logits, i, j, a->nodiv ? qk * inv_sqrt_d + z : (qk + z) * inv_sqrt_d);
    }
}

static pecert_status cope_logits(const pecert__ref_call *call, const void *op_args)
{
    const pecert_cope_args *args = op_args;
    int64_t n_k = args->k->shape[0];
    double *p = malloc((size_t)(n_k > 0 ? n_k : 1) * sizeof(double));
    if (p == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    double inv_sqrt_d = 1.0 / sqrt((double)args->q->shape[1]);
    for (int64_t i = 0; i < args->q->shape[0]; i++) {
        row_positions(args, i, inv_sqrt_d, p);
        row_logits(args, i, inv_sqrt_d, p);
    }
    free(p);
    return PECERT_OK;
}

pecert_status pecert__ref_cope_logits(void *instance, const pecert_cope_args *args)
{
    return pecert__ref_run(instance, "cope_logits", args, sizeof(*args),
                           pecert__ref_check_cope, cope_logits);
}
