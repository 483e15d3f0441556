/*
 * relpos2d.c - relpos2d_bias, the decomposed relative positions of MViTv2
 * and SAM's image encoder (plugin.h, pecert_relpos2d_args).
 *
 * The bias of query i and key (j_h, j_w) is the sum of two dot products
 * that depend on j_h alone and on j_w alone: per query, k_h + k_w dots of C
 * channels, then k_h * k_w sums written out. The resized tables are built
 * once (ref's arithmetic: linear weights in double, one rounding to f32),
 * the rows each query coordinate reads are gathered once per axis (get_rel_pos'
 * float32 index, ref's function), and the queries go over threads by
 * (head, query) rows. The dots are the ISA's dot_rows (the decode
 * session's kernel: 16 lanes of fma summed in a fixed tree, the same bits
 * in every ISA), up to four queries of one grid row at a time against the
 * h-axis rows they share; the output rows, the store-bound part, are
 * streamed past PECERT__FAST_STREAM_MIN_BYTES (built in L1 a chunk at a
 * time, then copied out), their lines never read for ownership.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../family.h"

#define MAX_SIDE 4096
#define MAX_CHANNELS 65536
#define MAX_TABLE_ROWS 65536
#define MAX_OUT ((int64_t)1 << 28)
/* A streamed output row is built this many floats (16 KiB: half the L1)
 * at a time, then copied out: one kernel call per chunk, not per run. */
#define CHUNK_FLOATS 4096

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_table(const pecert__fast_call *call, const char *name, const pecert_tensor *t,
                                 int64_t channels)
{
    pecert_status status = pecert__fast_fam_check_view(call, name, t, 2, NULL, PECERT__FAM_F32, 0);
    if (status == PECERT_OK && (t->shape[0] < 1 || t->shape[0] > MAX_TABLE_ROWS || t->shape[1] != channels)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "%s.shape=[%" PRId64 ", %" PRId64 "]: rows must be in 1..%d, channels the query's %" PRId64,
                                   name, t->shape[0], t->shape[1], MAX_TABLE_ROWS, channels);
    }
    return status;
}

static pecert_status check_query(const pecert__fast_call *call, const pecert_relpos2d_args *a)
{
    const int64_t sides[4] = {a->q_h, a->q_w, a->k_h, a->k_w};
    for (int i = 0; i < 4; i++) {
        if (sides[i] < 1 || sides[i] > MAX_SIDE) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "q_h=%" PRId64 ", q_w=%" PRId64 ", k_h=%" PRId64 ", k_w=%" PRId64
                                     ": each must be in 1..%d",
                                     a->q_h, a->q_w, a->k_h, a->k_w, MAX_SIDE);
        }
    }
    pecert_status status = pecert__fast_fam_check_view(call, "query", a->query, 3, NULL, PECERT__FAM_F32, 0);
    if (status != PECERT_OK) {
        return status;
    }
    int64_t n = a->query->shape[0];
    int64_t channels = a->query->shape[2];
    int64_t tokens_q = a->q_h * a->q_w;
    if (a->query->shape[1] != tokens_q || channels < 1 || channels > MAX_CHANNELS || n < 1 ||
        n * tokens_q > MAX_OUT / (a->k_h * a->k_w)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "query.shape=[%" PRId64 ", %" PRId64 ", %" PRId64 "]: expected [n >= 1, q_h * q_w = %" PRId64
                                 ", C in 1..%d] and n * q * k <= %" PRId64,
                                 n, a->query->shape[1], channels, tokens_q, MAX_CHANNELS, MAX_OUT);
    }
    return PECERT_OK;
}

static pecert_status check_args(const pecert__fast_call *call, const pecert_relpos2d_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);
    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    status = status == PECERT_OK ? check_query(call, a) : status;
    if (status != PECERT_OK) {
        return status;
    }
    int64_t channels = a->query->shape[2];
    status = check_table(call, "rel_pos_h", a->rel_pos_h, channels);
    status = status == PECERT_OK ? check_table(call, "rel_pos_w", a->rel_pos_w, channels) : status;
    if (status == PECERT_OK) {
        int64_t shape[3] = {a->query->shape[0], a->q_h * a->q_w, a->k_h * a->k_w};
        status = pecert__fast_fam_check_view(call, "out", a->out, 3, shape, PECERT__FAM_F32, 1);
    }
    if (status == PECERT_OK && (pecert__fast_views_overlap(a->query, a->out) ||
                                pecert__fast_views_overlap(a->rel_pos_h, a->out) ||
                                pecert__fast_views_overlap(a->rel_pos_w, a->out))) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "out overlaps an input");
    }
    return status;
}

/* ---- the plan ------------------------------------------------------------------ */

/* One axis: for each query coordinate a, the k rows of the resized table
 * its keys read, contiguous ([q][k][C] f32). */
typedef struct axis_rows {
    float *rows;
    int64_t q, k;
} axis_rows;

typedef struct relpos2d_plan {
    const pecert_relpos2d_args *a;
    axis_rows h, w;
    int64_t channels, tokens_q, tokens_k;
    float *query;   /* [n * tokens_q][C], the query made contiguous      */
    float *scratch; /* per thread: 4 k_h + k_w dots, a chunk of sums     */
    size_t scratch_floats;
    int64_t chunk_runs; /* k_w runs of a row built and streamed at once  */
    const pecert__fast_kernels *kernels;
    int stream;     /* output rows by copy_row_stream                     */
    int sum_stream; /* ... or, where a row starts a line, outer_sum_stream */
} relpos2d_plan;

/* get_rel_pos' index in float32, as torch computes torch.arange(q)[:, None]
 * * max(k / q, 1.0) and the rest, truncated as .long() does (ref's rule). */
int64_t pecert__fast_relpos2d_row(int64_t q, int64_t k, int64_t a, int64_t b)
{
    double ratio_q = (double)k / (double)q > 1.0 ? (double)k / (double)q : 1.0;
    double ratio_k = (double)q / (double)k > 1.0 ? (double)q / (double)k : 1.0;
    float rel = ((float)a * (float)ratio_q - (float)b * (float)ratio_k) + (float)((double)(k - 1) * ratio_k);
    return (int64_t)rel;
}

/* Row `row` of the table resized to out_rows rows (ref's interpolation:
 * half-pixel centres, the coordinate clamped at 0, the last row repeated),
 * every channel, rounded once to f32. */
static void resized_row(const pecert_tensor *t, int64_t out_rows, int64_t row, float *out)
{
    int64_t rows = t->shape[0];
    int64_t channels = t->shape[1];
    const float *data = t->data;
    int64_t lo = row;
    int64_t hi = row;
    double w = 0.0;
    if (rows != out_rows) {
        double src = ((double)row + 0.5) * (double)rows / (double)out_rows - 0.5;
        src = src > 0.0 ? src : 0.0;
        lo = (int64_t)src;
        hi = lo < rows - 1 ? lo + 1 : lo;
        w = src - (double)lo;
    }
    for (int64_t c = 0; c < channels; c++) {
        double a = data[lo * t->strides[0] + c * t->strides[1]];
        double b = data[hi * t->strides[0] + c * t->strides[1]];
        out[c] = (float)((1.0 - w) * a + w * b);
    }
}

/* The rows each query coordinate of an axis reads; 0 if out of memory. */
static int gather_axis(axis_rows *ax, const pecert_tensor *table, int64_t q, int64_t k)
{
    int64_t channels = table->shape[1];
    int64_t out_rows = 2 * (q > k ? q : k) - 1;
    float *resized = malloc((size_t)(out_rows * channels) * sizeof(float));
    ax->rows = malloc((size_t)(q * k * channels) * sizeof(float));
    ax->q = q;
    ax->k = k;
    if (resized == NULL || ax->rows == NULL) {
        free(resized);
        return 0;
    }
    for (int64_t r = 0; r < out_rows; r++) {
        resized_row(table, out_rows, r, resized + r * channels);
    }
    for (int64_t a = 0; a < q; a++) {
        for (int64_t b = 0; b < k; b++) {
            memcpy(ax->rows + (a * k + b) * channels, resized + pecert__fast_relpos2d_row(q, k, a, b) * channels,
                   (size_t)channels * sizeof(float));
        }
    }
    free(resized);
    return 1;
}

/* The query as [n * tokens_q][C] contiguous rows: the view itself when it
 * is, else a copy (owned). */
static float *contiguous_query(const pecert_tensor *x, int *owned)
{
    int64_t n = x->shape[0], t = x->shape[1], c = x->shape[2];
    *owned = !(x->strides[2] == 1 && x->strides[1] == c && (n == 1 || x->strides[0] == t * c));
    if (!*owned) {
        return x->data;
    }
    float *copy = malloc((size_t)(n * t * c) * sizeof(float));
    if (copy != NULL) {
        const float *src = x->data;
        for (int64_t h = 0; h < n; h++) {
            for (int64_t i = 0; i < t; i++) {
                for (int64_t ch = 0; ch < c; ch++) {
                    copy[(h * t + i) * c + ch] = src[h * x->strides[0] + i * x->strides[1] + ch * x->strides[2]];
                }
            }
        }
    }
    return copy;
}

/* ---- the op -------------------------------------------------------------------- */

/* Output row (head, query i) from its two axes' dots. A streamed row of
 * k_w a multiple of 16 on a 64-byte boundary (SAM's global layers: 64)
 * is summed in registers and streamed by the ISA's outer_sum_stream;
 * another is built a chunk of whole k_w runs at a time in the thread's
 * scratch (pl->chunk_runs of them, ~16 KiB: L1) and copied out by one
 * copy_row_stream call per chunk. Zen 4, the bench's SAM-B global layer
 * on one thread: the L1 chunk and its copy were 48% of the time. */
static void write_row(const relpos2d_plan *pl, int64_t row, const float *rh, const float *rw, float *chunk)
{
    const pecert_tensor *out = pl->a->out;
    int64_t head = row / pl->tokens_q, i = row % pl->tokens_q;
    float *dst = (float *)out->data + head * out->strides[0] + i * out->strides[1];
    int64_t k_w = pl->w.k;
    if (out->strides[2] != 1) {
        for (int64_t j = 0; j < pl->tokens_k; j++) {
            dst[j * out->strides[2]] = rh[j / k_w] + rw[j % k_w];
        }
        return;
    }
    if (pl->sum_stream && (uintptr_t)dst % 64 == 0) {
        pl->kernels->outer_sum_stream(dst, rh, pl->h.k, rw, k_w);
        return;
    }
    for (int64_t jh0 = 0; jh0 < pl->h.k; jh0 += pl->chunk_runs) {
        int64_t runs = pl->h.k - jh0 < pl->chunk_runs ? pl->h.k - jh0 : pl->chunk_runs;
        float *base_out = pl->stream ? chunk : dst + jh0 * k_w;
        for (int64_t jh = 0; jh < runs; jh++) {
            float base = rh[jh0 + jh];
            float *d = base_out + jh * k_w;
#pragma omp simd
            for (int64_t jw = 0; jw < k_w; jw++) {
                d[jw] = base + rw[jw];
            }
        }
        if (pl->stream) {
            pl->kernels->copy_row_stream(dst + jh0 * k_w, chunk, runs * k_w);
        }
    }
}

/* The rows [begin, end): up to PECERT__FAST_MAX_GROUP queries of one grid
 * row (one h coordinate) at a time take their h-axis dots together, each
 * row read once for all of them; the w-axis rows differ per query. */
static void relpos2d_share(void *context, int ith, int nth)
{
    const relpos2d_plan *pl = context;
    const pecert__fast_kernels *k = pl->kernels;
    int64_t q_w = pl->a->q_w, c = pl->channels, k_h = pl->h.k, k_w = pl->w.k;
    float *rh = pl->scratch + (size_t)ith * pl->scratch_floats;
    float *rw = rh + PECERT__FAST_MAX_GROUP * k_h;
    float *chunk = rw + k_w;
    int64_t begin, end;
    pecert__fast_share(pl->a->query->shape[0] * pl->tokens_q, ith, nth, &begin, &end);
    for (int64_t row = begin; row < end;) {
        int64_t i = row % pl->tokens_q, col = i % q_w;
        int64_t g = end - row < q_w - col ? end - row : q_w - col;
        g = g < PECERT__FAST_MAX_GROUP ? g : PECERT__FAST_MAX_GROUP;
        const float *x = pl->query + row * c;
        k->dot_rows(x, (size_t)c, (int32_t)g, pl->h.rows + (i / q_w) * k_h * c, (size_t)c, k_h, (int32_t)c, rh,
                    (size_t)k_h);
        for (int64_t r = 0; r < g; r++) {
            k->dot_rows(x + r * c, 0, 1, pl->w.rows + (col + r) * k_w * c, (size_t)c, k_w, (int32_t)c, rw, 0);
            write_row(pl, row + r, rh + r * k_h, rw, chunk);
        }
        row += g;
    }
    if (pl->stream) {
        k->store_fence(); /* before the region's barrier */
    }
}

pecert_status pecert__fast_relpos2d_bias(void *instance, const pecert_relpos2d_args *args)
{
    pecert__fast_call call;
    pecert_status status = pecert__fast_fam_enter(&call, instance, "relpos2d_bias", args, sizeof(*args));
    status = status == PECERT_OK ? check_args(&call, args) : status;
    if (status != PECERT_OK) {
        return status;
    }
    relpos2d_plan pl;
    memset(&pl, 0, sizeof(pl));
    pl.a = args;
    pl.channels = args->query->shape[2];
    pl.tokens_q = args->q_h * args->q_w;
    pl.tokens_k = args->k_h * args->k_w;
    int64_t rows = args->query->shape[0] * pl.tokens_q;
    /* Each output row is (k_h + k_w) C multiply-adds and k_h k_w stores:
     * weigh the threads by both. */
    size_t work = (size_t)rows * (size_t)(pl.tokens_k + (args->k_h + args->k_w) * pl.channels) * sizeof(float);
    int threads = pecert__fast_threads(&call, work, rows);
    int owned = 0;
    pl.kernels = call.instance->kernels;
    pl.stream = pl.kernels->copy_row_stream != NULL && pl.kernels->store_fence != NULL &&
                args->out->strides[2] == 1 &&
                (size_t)rows * (size_t)pl.tokens_k * sizeof(float) >= PECERT__FAST_STREAM_MIN_BYTES;
    pl.sum_stream = pl.stream && pl.kernels->outer_sum_stream != NULL && args->k_w % 16 == 0;
    pl.chunk_runs = CHUNK_FLOATS / args->k_w > 1 ? CHUNK_FLOATS / args->k_w : 1;
    pl.scratch_floats =
        ((size_t)(PECERT__FAST_MAX_GROUP * args->k_h + args->k_w + pl.chunk_runs * args->k_w) + 15) / 16 * 16;
    pl.scratch = pecert__fast_scratch(&call, (size_t)threads * pl.scratch_floats * sizeof(float));
    pl.query = pl.scratch != NULL ? contiguous_query(args->query, &owned) : NULL;
    int ready = pl.query != NULL && gather_axis(&pl.h, args->rel_pos_h, args->q_h, args->k_h) &&
                gather_axis(&pl.w, args->rel_pos_w, args->q_w, args->k_w);
    if (ready) {
        pecert__fast_run(threads, relpos2d_share, &pl);
    }
    free(pl.h.rows);
    free(pl.w.rows);
    if (owned) {
        free(pl.query);
    }
    return ready ? PECERT_OK : pecert__fast_fail(&call, PECERT_E_NOMEM, "out of memory");
}
