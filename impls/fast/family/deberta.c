/*
 * deberta.c - deberta_bias, DeBERTa's disentangled relative positions
 * (plugin.h, pecert_deberta_args).
 *
 * The row a pair reads depends on i - j alone: the rows of the 2 L - 1
 * distances are computed once per call (ref's log bucket, in double). For
 * query i the rows its keys read are one contiguous run of the table (the
 * row is monotone in i - j), so the c2p dots of that run are taken once
 * and the output row is a gather of them; the p2c dots of key j likewise,
 * per key, in a first pass. Both passes go over threads by rows; the dots
 * accumulate in f32 vector lanes and divide by the f32 sqrt(d sf).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../family.h"

#define MAX_LENGTH 65536
#define MAX_HEAD_DIM 65536
#define MAX_BUCKETS 65536
#define MAX_OUT ((int64_t)1 << 28)

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_config(const pecert__fast_call *call, const pecert_deberta_args *a)
{
    if (a->terms == 0 || (a->terms & ~(PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C)) != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "terms=%u: C2P (1), P2C (2) or both", a->terms);
    }
    if (a->bucket_size > 0 && (a->bucket_size % 2 != 0 || a->bucket_size > MAX_BUCKETS)) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "bucket_size=%" PRId64 ": <= 0 (none), or even in 2..%d",
                                 a->bucket_size, MAX_BUCKETS);
    }
    if (a->max_position < 2 || a->max_position > MAX_LENGTH ||
        (a->bucket_size > 0 && a->max_position - 1 <= a->bucket_size / 2)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "max_position=%" PRId64 ": must be in 2..%d, and above bucket_size / 2 + 1 with "
                                 "buckets (bucket_size=%" PRId64 ")",
                                 a->max_position, MAX_LENGTH, a->bucket_size);
    }
    return PECERT_OK;
}

static int64_t span_of(const pecert_deberta_args *a)
{
    return a->bucket_size > 0 ? a->bucket_size : a->max_position;
}

static pecert_status check_table(const pecert__fast_call *call, const char *name, const pecert_tensor *t, int wanted,
                                 int64_t n, int64_t rows, int64_t head_dim)
{
    if (!wanted) {
        return t == NULL ? PECERT_OK : pecert__fast_fail(call, PECERT_E_INVAL, "%s given for a term not asked for", name);
    }
    pecert_status status = pecert__fast_fam_check_view(call, name, t, 3, NULL, PECERT__FAM_F32, 0);
    if (status == PECERT_OK &&
        (t->shape[0] < 1 || n % t->shape[0] != 0 || t->shape[1] != rows || t->shape[2] != head_dim)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "%s.shape=[%" PRId64 ", %" PRId64 ", %" PRId64 "]: expected [H dividing n = %" PRId64
                                   ", 2 span = %" PRId64 ", d = %" PRId64 "]",
                                   name, t->shape[0], t->shape[1], t->shape[2], n, rows, head_dim);
    }
    return status;
}

static pecert_status check_args(const pecert__fast_call *call, const pecert_deberta_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);
    status = status == PECERT_OK ? check_config(call, a) : status;
    status = status == PECERT_OK ? pecert__fast_fam_check_view(call, "q", a->q, 3, NULL, PECERT__FAM_F32, 0) : status;
    if (status != PECERT_OK) {
        return status;
    }
    int64_t n = a->q->shape[0], len = a->q->shape[1], d = a->q->shape[2];
    if (n < 1 || len < 1 || len > MAX_LENGTH || d < 1 || d > MAX_HEAD_DIM || n * len > MAX_OUT / len) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "q.shape=[%" PRId64 ", %" PRId64 ", %" PRId64 "]: expected [n >= 1, L in 1..%d, d in "
                                 "1..%d] and n * L * L <= %" PRId64,
                                 n, len, d, MAX_LENGTH, MAX_HEAD_DIM, MAX_OUT);
    }
    int64_t shape[3] = {n, len, d};
    status = pecert__fast_fam_check_view(call, "k", a->k, 3, shape, PECERT__FAM_F32, 0);
    int64_t rows = 2 * span_of(a);
    status = status == PECERT_OK ? check_table(call, "pos_key", a->pos_key, (a->terms & PECERT_DEBERTA_C2P) != 0, n,
                                               rows, d)
                                 : status;
    status = status == PECERT_OK ? check_table(call, "pos_query", a->pos_query,
                                               (a->terms & PECERT_DEBERTA_P2C) != 0, n, rows, d)
                                 : status;
    if (status == PECERT_OK && a->pos_key != NULL && a->pos_query != NULL &&
        a->pos_key->shape[0] != a->pos_query->shape[0]) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "pos_key has %" PRId64 " heads, pos_query %" PRId64,
                                   a->pos_key->shape[0], a->pos_query->shape[0]);
    }
    if (status == PECERT_OK) {
        int64_t out_shape[3] = {n, len, len};
        status = pecert__fast_fam_check_view(call, "out", a->out, 3, out_shape, PECERT__FAM_F32, 1);
    }
    const pecert_tensor *inputs[4] = {a->q, a->k, a->pos_key, a->pos_query};
    for (int i = 0; status == PECERT_OK && i < 4; i++) {
        if (inputs[i] != NULL && pecert__fast_views_overlap(inputs[i], a->out)) {
            status = pecert__fast_fail(call, PECERT_E_INVAL, "out overlaps an input");
        }
    }
    return status;
}

/* ---- the plan ------------------------------------------------------------------ */

typedef struct deberta_plan {
    const pecert_deberta_args *a;
    int64_t n, len, d, heads, rows;
    float s;          /* sqrt(d sf) in f32, divided by                      */
    int32_t *row_of;  /* [2 L - 1]: the row of distance r = i - j at r + L - 1 */
    int p2c_in_out;   /* the p2c pass has written each p2c term into out    */
    float *scratch;   /* per thread: L dots                                  */
} deberta_plan;

/* b(r) (plugin.h), in double as ref evaluates it. */
static int64_t bucket(int64_t r, int64_t bucket_size, int64_t max_position)
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

static int32_t *rows_of_distances(const pecert_deberta_args *a, int64_t len)
{
    int64_t span = span_of(a);
    int32_t *rows = malloc((size_t)(2 * len - 1) * sizeof(int32_t));
    for (int64_t r = -(len - 1); rows != NULL && r <= len - 1; r++) {
        int64_t row = bucket(r, a->bucket_size, a->max_position) + span;
        rows[r + len - 1] = (int32_t)(row < 0 ? 0 : row > 2 * span - 1 ? 2 * span - 1 : row);
    }
    return rows;
}

static float dot(const float *x, int64_t xs, const float *y, int64_t ys, int64_t n)
{
    float sum = 0.0f;
    if (xs == 1 && ys == 1) {
#pragma omp simd reduction(+ : sum)
        for (int64_t c = 0; c < n; c++) {
            sum += x[c] * y[c];
        }
        return sum;
    }
    for (int64_t c = 0; c < n; c++) {
        sum += x[c * xs] * y[c * ys];
    }
    return sum;
}

/* dots[m - lo] = x . table[h][m] for the run of rows [lo, hi]. */
static void run_dots(const pecert_tensor *table, int64_t h, const float *x, int64_t xs, int64_t d, int64_t lo,
                     int64_t hi, float *dots)
{
    const float *base = (const float *)table->data + h * table->strides[0];
    for (int64_t m = lo; m <= hi; m++) {
        dots[m - lo] = dot(x, xs, base + m * table->strides[1], table->strides[2], d);
    }
}

/* The row distance r = i - j reads. */
static int64_t row_at(const deberta_plan *pl, int64_t r)
{
    return pl->row_of[r + pl->len - 1];
}

/* dots[m - lo] = x[b][t] . table[b mod H][m] for the run [lo, hi]. */
static void token_dots(const deberta_plan *pl, const pecert_tensor *x, const pecert_tensor *table, int64_t b,
                       int64_t t, int64_t lo, int64_t hi, float *dots)
{
    const float *row = (const float *)x->data + b * x->strides[0] + t * x->strides[1];
    run_dots(table, b % pl->heads, row, x->strides[2], pl->d, lo, hi, dots);
}

/* out[b][i][j] = k[b][j] . pos_query[h][row(i - j)] / s: per key j, the
 * dots of its run of rows, gathered down its column of the output (the
 * row pass adds c2p to it). */
static void p2c_share(void *context, int ith, int nth)
{
    const deberta_plan *pl = context;
    const pecert_deberta_args *a = pl->a;
    float *dots = pl->scratch + (size_t)ith * (size_t)pl->len;
    int64_t begin, end;
    pecert__fast_share(pl->n * pl->len, ith, nth, &begin, &end);
    for (int64_t item = begin; item < end; item++) {
        int64_t b = item / pl->len, j = item % pl->len;
        int64_t lo = row_at(pl, -j), hi = row_at(pl, pl->len - 1 - j); /* i = 0 .. L - 1 */
        token_dots(pl, a->k, a->pos_query, b, j, lo, hi, dots);
        float *col = (float *)a->out->data + b * a->out->strides[0] + j * a->out->strides[2];
        for (int64_t i = 0; i < pl->len; i++) {
            col[i * a->out->strides[1]] = dots[row_at(pl, i - j) - lo] / pl->s;
        }
    }
}

/* Output row (b, i): its c2p run's dots gathered, plus the p2c term the
 * first pass left there (0 + c2p / s + p2c / s, the official order up to
 * the commuted sum). */
static void row_share(void *context, int ith, int nth)
{
    const deberta_plan *pl = context;
    const pecert_deberta_args *a = pl->a;
    float *dots = pl->scratch + (size_t)ith * (size_t)pl->len;
    int64_t begin, end;
    pecert__fast_share(pl->n * pl->len, ith, nth, &begin, &end);
    for (int64_t item = begin; item < end; item++) {
        int64_t b = item / pl->len, i = item % pl->len;
        int64_t lo = row_at(pl, i - (pl->len - 1)), hi = row_at(pl, i); /* j = L - 1 .. 0 */
        token_dots(pl, a->q, a->pos_key, b, i, lo, hi, dots);
        float *dst = (float *)a->out->data + b * a->out->strides[0] + i * a->out->strides[1];
        for (int64_t j = 0; j < pl->len; j++) {
            float score = dots[row_at(pl, i - j) - lo] / pl->s;
            dst[j * a->out->strides[2]] = pl->p2c_in_out ? score + dst[j * a->out->strides[2]] : score;
        }
    }
}

pecert_status pecert__fast_deberta_bias(void *instance, const pecert_deberta_args *args)
{
    pecert__fast_call call;
    pecert_status status = pecert__fast_fam_enter(&call, instance, "deberta_bias", args, sizeof(*args));
    status = status == PECERT_OK ? check_args(&call, args) : status;
    if (status != PECERT_OK) {
        return status;
    }
    deberta_plan pl;
    memset(&pl, 0, sizeof(pl));
    pl.a = args;
    pl.n = args->q->shape[0];
    pl.len = args->q->shape[1];
    pl.d = args->q->shape[2];
    pl.heads = (args->pos_key != NULL ? args->pos_key : args->pos_query)->shape[0];
    int c2p = (args->terms & PECERT_DEBERTA_C2P) != 0, p2c = (args->terms & PECERT_DEBERTA_P2C) != 0;
    pl.s = sqrtf((float)pl.d * (float)(1 + c2p + p2c));
    int64_t items = pl.n * pl.len;
    /* Each row is at most L dots of d and L stores. */
    size_t work = (size_t)items * (size_t)pl.len * (size_t)(pl.d + 1) * sizeof(float);
    int threads = pecert__fast_threads(&call, work, items);
    pl.scratch = pecert__fast_scratch(&call, (size_t)threads * (size_t)pl.len * sizeof(float));
    pl.row_of = pl.scratch != NULL ? rows_of_distances(args, pl.len) : NULL;
    int ready = pl.row_of != NULL;
    if (ready && p2c) {
        pecert__fast_run(threads, p2c_share, &pl);
        pl.p2c_in_out = 1;
    }
    if (ready && c2p) {
        pecert__fast_run(threads, row_share, &pl);
    }
    free(pl.row_of);
    return ready ? PECERT_OK : pecert__fast_fail(&call, PECERT_E_NOMEM, "out of memory");
}
