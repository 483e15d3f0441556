/*
 * deberta.c - DeBERTa's disentangled relative positions (op deberta_bias),
 * in double, as plugin.h states it: transformers' build_relative_position,
 * make_log_bucket_position and DisentangledSelfAttention's
 * disentangled_attention_bias (v2/v3), and v1's disentangled_att_bias.
 *
 * The log bucket is evaluated in double in torch's order (ln(|r| / mid)
 * divided by ln((max_position - 1) / mid), times mid - 1, ceiled): for
 * every checkpoint's (bucket_size, max_position) the official float32
 * buckets equal these (gen_deberta.py checks each vector), and at |r| =
 * max_position - 1, where the exact value is the integer mid - 1, the two
 * logarithms are of one value and their ratio is 1 exactly. Each term is a
 * dot product in double, divided by sqrt(d sf), the sum rounded once to
 * f32 on the store.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "ref.h"

#define MAX_LENGTH 65536
#define MAX_HEAD_DIM 65536
#define MAX_BUCKETS 65536
#define MAX_OUT ((int64_t)1 << 28)

/* ---- the row each query and key pair reads ---------------------------------- */

int64_t pecert__ref_deberta_bucket(int64_t r, int64_t bucket_size, int64_t max_position)
{
    int64_t mid = bucket_size / 2;
    int64_t distance = r < 0 ? -r : r;
    if (bucket_size <= 0 || distance <= mid) {
        return r;
    }
    double x = log((double)distance / (double)mid) / log((double)(max_position - 1) / (double)mid) *
               (double)(mid - 1);
    int64_t b = mid + (int64_t)ceil(x);
    return r < 0 ? -b : b;
}

int64_t pecert__ref_deberta_span(int64_t bucket_size, int64_t max_position)
{
    return bucket_size > 0 ? bucket_size : max_position;
}

int64_t pecert__ref_deberta_row(int64_t r, int64_t bucket_size, int64_t max_position)
{
    int64_t span = pecert__ref_deberta_span(bucket_size, max_position);
    int64_t row = pecert__ref_deberta_bucket(r, bucket_size, max_position) + span;
    return row < 0 ? 0 : row > 2 * span - 1 ? 2 * span - 1 : row;
}

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_config(const pecert__ref_call *call, const pecert_deberta_args *a)
{
    if (a->terms == 0 || (a->terms & ~(PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C)) != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "terms=%u: C2P (1), P2C (2) or both", a->terms);
    }
    if (a->bucket_size > 0 && (a->bucket_size % 2 != 0 || a->bucket_size > MAX_BUCKETS)) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "bucket_size=%" PRId64 ": <= 0 (none), or even in 2..%d",
                                a->bucket_size, MAX_BUCKETS);
    }
    if (a->max_position < 2 || a->max_position > MAX_LENGTH ||
        (a->bucket_size > 0 && a->max_position - 1 <= a->bucket_size / 2)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "max_position=%" PRId64 ": must be in 2..%d, and above bucket_size / 2 + 1 with "
                                "buckets (bucket_size=%" PRId64 ")",
                                a->max_position, MAX_LENGTH, a->bucket_size);
    }
    return PECERT_OK;
}

/* A table [H, 2 span, d], present exactly when its term is asked for. */
static pecert_status check_table(const pecert__ref_call *call, const char *name, const pecert_tensor *t, int wanted,
                                 int64_t heads_of_n, int64_t rows, int64_t head_dim)
{
    if (!wanted) {
        return t == NULL ? PECERT_OK : pecert__ref_fail(call, PECERT_E_INVAL, "%s given for a term not asked for", name);
    }
    pecert_status status = pecert__ref_check_view(call, name, t, 3, NULL, PECERT__REF_F32_ONLY, 0);
    if (status == PECERT_OK && (t->shape[0] < 1 || heads_of_n % t->shape[0] != 0 || t->shape[1] != rows ||
                                t->shape[2] != head_dim)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "%s.shape=[%" PRId64 ", %" PRId64 ", %" PRId64 "]: expected [H dividing n = %" PRId64
                                  ", 2 span = %" PRId64 ", d = %" PRId64 "]",
                                  name, t->shape[0], t->shape[1], t->shape[2], heads_of_n, rows, head_dim);
    }
    return status;
}

pecert_status pecert__ref_check_deberta(const pecert__ref_call *call, const void *args)
{
    const pecert_deberta_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);
    status = status == PECERT_OK ? check_config(call, a) : status;
    status = status == PECERT_OK ? pecert__ref_check_view(call, "q", a->q, 3, NULL, PECERT__REF_F32_ONLY, 0) : status;
    if (status != PECERT_OK) {
        return status;
    }
    int64_t n = a->q->shape[0];
    int64_t len = a->q->shape[1];
    int64_t head_dim = a->q->shape[2];
    if (n < 1 || len < 1 || len > MAX_LENGTH || head_dim < 1 || head_dim > MAX_HEAD_DIM ||
        n * len > MAX_OUT / len) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "q.shape=[%" PRId64 ", %" PRId64 ", %" PRId64 "]: expected [n >= 1, L in 1..%d, d in "
                                "1..%d] and n * L * L <= %" PRId64,
                                n, len, head_dim, MAX_LENGTH, MAX_HEAD_DIM, MAX_OUT);
    }
    int64_t shape[3] = {n, len, head_dim};
    status = pecert__ref_check_view(call, "k", a->k, 3, shape, PECERT__REF_F32_ONLY, 0);
    int64_t rows = 2 * pecert__ref_deberta_span(a->bucket_size, a->max_position);
    status = status == PECERT_OK ? check_table(call, "pos_key", a->pos_key, (a->terms & PECERT_DEBERTA_C2P) != 0, n,
                                               rows, head_dim)
                                 : status;
    status = status == PECERT_OK ? check_table(call, "pos_query", a->pos_query,
                                               (a->terms & PECERT_DEBERTA_P2C) != 0, n, rows, head_dim)
                                 : status;
    if (status == PECERT_OK && a->pos_key != NULL && a->pos_query != NULL &&
        a->pos_key->shape[0] != a->pos_query->shape[0]) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "pos_key has %" PRId64 " heads, pos_query %" PRId64,
                                  a->pos_key->shape[0], a->pos_query->shape[0]);
    }
    if (status == PECERT_OK) {
        int64_t out_shape[3] = {n, len, len};
        status = pecert__ref_check_view(call, "out", a->out, 3, out_shape, PECERT__REF_F32_ONLY, 1);
    }
    const pecert_tensor *inputs[4] = {a->q, a->k, a->pos_key, a->pos_query};
    for (int i = 0; status == PECERT_OK && i < 4; i++) {
        if (inputs[i] != NULL && pecert__ref_views_overlap(inputs[i], a->out, sizeof(float))) {
            status = pecert__ref_fail(call, PECERT_E_INVAL, "out overlaps an input");
        }
    }
    return status;
}

/* ---- the bias ----------------------------------------------------------------- */

/* x[n][t] . table[h][row], in double (views checked: f32, strides in
 * elements). */
static double dot(const pecert_tensor *x, int64_t n, int64_t t, const pecert_tensor *table, int64_t h, int64_t row)
{
    const float *xv = (const float *)x->data + n * x->strides[0] + t * x->strides[1];
    const float *tv = (const float *)table->data + h * table->strides[0] + row * table->strides[1];
    double sum = 0.0;
    for (int64_t c = 0; c < x->shape[2]; c++) {
        sum += (double)xv[c * x->strides[2]] * (double)tv[c * table->strides[2]];
    }
    return sum;
}

static pecert_status deberta(const pecert__ref_call *call, const void *op_args)
{
    const pecert_deberta_args *a = op_args;
    int64_t n = a->q->shape[0];
    int64_t len = a->q->shape[1];
    int64_t heads = (a->pos_key != NULL ? a->pos_key : a->pos_query)->shape[0];
    int terms = (a->terms & PECERT_DEBERTA_C2P ? 1 : 0) + (a->terms & PECERT_DEBERTA_P2C ? 1 : 0);
    double scale = sqrt((double)a->q->shape[2] * (double)(1 + terms));
    /* The row of each distance i - j, once (rows[i - j + len - 1]). */
    int64_t *rows = malloc((size_t)(2 * len - 1) * sizeof(int64_t));
    if (rows == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t r = -(len - 1); r <= len - 1; r++) {
        rows[r + len - 1] = pecert__ref_deberta_row(r, a->bucket_size, a->max_position);
    }
    for (int64_t b = 0; b < n; b++) {
        for (int64_t i = 0; i < len; i++) {
            for (int64_t j = 0; j < len; j++) {
                int64_t row = rows[i - j + len - 1];
                double bias = 0.0;
                if (a->terms & PECERT_DEBERTA_C2P) {
                    bias += dot(a->q, b, i, a->pos_key, b % heads, row) / scale;
                }
                if (a->terms & PECERT_DEBERTA_P2C) {
                    bias += dot(a->k, b, j, a->pos_query, b % heads, row) / scale;
                }
                int64_t idx[3] = {b, i, j};
                pecert__ref_store_float(a->out, idx, bias);
            }
        }
    }
    free(rows);
    return PECERT_OK;
}

pecert_status pecert__ref_deberta_bias(void *instance, const pecert_deberta_args *args)
{
    return pecert__ref_run(instance, "deberta_bias", args, sizeof(*args), pecert__ref_check_deberta, deberta);
}
