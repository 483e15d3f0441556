/*
 * deberta.c - deberta_bias, DeBERTa's disentangled relative positions
 * (plugin.h, pecert_deberta_args).
 *
 * The row a pair reads depends on i - j alone: the rows of the 2 L - 1
 * distances are computed once per call (ref's log bucket, in double). For
 * query i the rows its keys read are one contiguous run of the table (the
 * row is monotone in i - j), so the c2p dots of that run are taken once
 * and the output row is a gather of them; the p2c dots of key j likewise,
 * per key, in a first pass. Both passes go over threads by rows. The
 * dots are the ISA's dot_rows (the decode session's kernel: 16 lanes of
 * fma summed in a fixed tree, the same bits in every ISA and for any
 * grouping), for up to four consecutive queries (keys) at once against
 * the union of their runs, which differ by a row or so: each table row is
 * loaded once for the four. Strided tables are packed once per call and
 * strided query (key) rows as they are read, so every view gives the same
 * bits. Each dot is divided by the f32 sqrt(d sf).
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
    const pecert__fast_kernels *kernels;
    int64_t n, len, d, heads, rows;
    float s;          /* sqrt(d sf) in f32, divided by                      */
    int32_t *row_of;  /* [2 L - 1]: the row of distance r = i - j at r + L - 1 */
    int p2c_in_out;   /* the p2c pass has written each p2c term into out    */
    const float *pos_key, *pos_query; /* [heads][rows][d], packed if strided */
    float *scratch;   /* per thread: GROUP x rows dots, GROUP x d packed x  */
    size_t scratch_floats;
} deberta_plan;

/* Queries (keys) whose dots are taken together. */
#define GROUP PECERT__FAST_MAX_GROUP

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

/* The row distance r = i - j reads. */
static int64_t row_at(const deberta_plan *pl, int64_t r)
{
    return pl->row_of[r + pl->len - 1];
}

/* A table as [heads][rows][d] contiguous floats: the view itself when it
 * is, else *copy (the caller frees it; NULL when out of memory). */
static const float *contiguous_table(const pecert_tensor *t, float **copy)
{
    int64_t h = t->shape[0], rows = t->shape[1], d = t->shape[2];
    if (t->strides[2] == 1 && t->strides[1] == d && (h == 1 || t->strides[0] == rows * d)) {
        return t->data;
    }
    float *packed = malloc((size_t)(h * rows * d) * sizeof(float));
    const float *src = t->data;
    for (int64_t i = 0; packed != NULL && i < h * rows; i++) {
        for (int64_t c = 0; c < d; c++) {
            packed[i * d + c] = src[(i / rows) * t->strides[0] + (i % rows) * t->strides[1] + c * t->strides[2]];
        }
    }
    *copy = packed;
    return packed;
}

/* dots[m * rows + r - lo] = x[b][t0 + m] . table[b mod H][r] / s for the g
 * tokens m and the rows r of [lo, hi]; xbuf: g x d floats of scratch for
 * token rows whose channels are strided. */
static void group_dots(const deberta_plan *pl, const pecert_tensor *x, const float *table, int64_t b, int64_t t0,
                       int64_t g, int64_t lo, int64_t hi, float *dots, float *xbuf)
{
    const float *first = (const float *)x->data + b * x->strides[0] + t0 * x->strides[1];
    size_t x_stride = (size_t)x->strides[1];
    if (x->strides[2] != 1) {
        for (int64_t m = 0; m < g; m++) {
            for (int64_t c = 0; c < pl->d; c++) {
                xbuf[m * pl->d + c] = first[m * x->strides[1] + c * x->strides[2]];
            }
        }
        first = xbuf;
        x_stride = (size_t)pl->d;
    }
    const float *rows = table + ((b % pl->heads) * pl->rows + lo) * pl->d;
    pl->kernels->dot_rows(first, x_stride, (int32_t)g, rows, (size_t)pl->d, hi - lo + 1, (int32_t)pl->d, dots,
                          (size_t)pl->rows);
    /* Each dot divided by s once here, in vector lanes, not once per
     * output element that reads it: the same quotients. */
    for (int64_t m = 0; m < g; m++) {
        float *own = dots + m * pl->rows;
#pragma omp simd
        for (int64_t r = 0; r <= hi - lo; r++) {
            own[r] = own[r] / pl->s;
        }
    }
}

/* The next group of items from item up to end (same b, at most GROUP). */
static int64_t group_of(const deberta_plan *pl, int64_t item, int64_t end)
{
    int64_t t = item % pl->len, g = end - item < pl->len - t ? end - item : pl->len - t;
    return g < GROUP ? g : GROUP;
}

/* out[b][i][j] = k[b][j] . pos_query[h][row(i - j)] / s: per key j, the
 * dots of its run of rows, gathered down its column of the output (the
 * row pass adds c2p to it). */
static void p2c_share(void *context, int ith, int nth)
{
    const deberta_plan *pl = context;
    const pecert_deberta_args *a = pl->a;
    float *dots = pl->scratch + (size_t)ith * pl->scratch_floats, *xbuf = dots + GROUP * pl->rows;
    int64_t begin, end;
    pecert__fast_share(pl->n * pl->len, ith, nth, &begin, &end);
    for (int64_t item = begin; item < end;) {
        int64_t b = item / pl->len, j0 = item % pl->len, g = group_of(pl, item, end);
        /* key j reads the rows of i - j for i = 0 .. L - 1 */
        int64_t lo = row_at(pl, -(j0 + g - 1)), hi = row_at(pl, pl->len - 1 - j0);
        group_dots(pl, a->k, pl->pos_query, b, j0, g, lo, hi, dots, xbuf);
        for (int64_t m = 0; m < g; m++) {
            int64_t j = j0 + m;
            const float *own = dots + m * pl->rows - lo;
            float *col = (float *)a->out->data + b * a->out->strides[0] + j * a->out->strides[2];
            for (int64_t i = 0; i < pl->len; i++) {
                col[i * a->out->strides[1]] = own[row_at(pl, i - j)];
            }
        }
        item += g;
    }
}

/* Output row (b, i): its c2p run's dots gathered, plus the p2c term the
 * first pass left there (0 + c2p / s + p2c / s, the official order up to
 * the commuted sum). */
static void row_share(void *context, int ith, int nth)
{
    const deberta_plan *pl = context;
    const pecert_deberta_args *a = pl->a;
    float *dots = pl->scratch + (size_t)ith * pl->scratch_floats, *xbuf = dots + GROUP * pl->rows;
    int64_t begin, end;
    pecert__fast_share(pl->n * pl->len, ith, nth, &begin, &end);
    for (int64_t item = begin; item < end;) {
        int64_t b = item / pl->len, i0 = item % pl->len, g = group_of(pl, item, end);
        /* query i reads the rows of i - j for j = L - 1 .. 0 */
        int64_t lo = row_at(pl, i0 - (pl->len - 1)), hi = row_at(pl, i0 + g - 1);
        group_dots(pl, a->q, pl->pos_key, b, i0, g, lo, hi, dots, xbuf);
        for (int64_t m = 0; m < g; m++) {
            int64_t i = i0 + m;
            const float *own = dots + m * pl->rows - lo;
            float *dst = (float *)a->out->data + b * a->out->strides[0] + i * a->out->strides[1];
            for (int64_t j = 0; j < pl->len; j++) {
                float score = own[row_at(pl, i - j)];
                dst[j * a->out->strides[2]] = pl->p2c_in_out ? score + dst[j * a->out->strides[2]] : score;
            }
        }
        item += g;
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
    pl.kernels = call.instance->kernels;
    pl.rows = 2 * span_of(args);
    int64_t items = pl.n * pl.len;
    /* Each row is at most L dots of d and L stores. */
    size_t work = (size_t)items * (size_t)pl.len * (size_t)(pl.d + 1) * sizeof(float);
    int threads = pecert__fast_threads(&call, work, items);
    pl.scratch_floats = ((size_t)(GROUP * (pl.rows + pl.d)) + 15) / 16 * 16;
    pl.scratch = pecert__fast_scratch(&call, (size_t)threads * pl.scratch_floats * sizeof(float));
    pl.row_of = pl.scratch != NULL ? rows_of_distances(args, pl.len) : NULL;
    float *key_copy = NULL, *query_copy = NULL;
    pl.pos_key = pl.row_of != NULL && c2p ? contiguous_table(args->pos_key, &key_copy) : NULL;
    pl.pos_query = pl.row_of != NULL && p2c ? contiguous_table(args->pos_query, &query_copy) : NULL;
    int ready = pl.row_of != NULL && (!c2p || pl.pos_key != NULL) && (!p2c || pl.pos_query != NULL);
    if (ready && p2c) {
        pecert__fast_run(threads, p2c_share, &pl);
        pl.p2c_in_out = 1;
    }
    if (ready && c2p) {
        pecert__fast_run(threads, row_share, &pl);
    }
    free(pl.row_of);
    free(key_copy);
    free(query_copy);
    return ready ? PECERT_OK : pecert__fast_fail(&call, PECERT_E_NOMEM, "out of memory");
}
