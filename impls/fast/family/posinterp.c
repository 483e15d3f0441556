/*
 * posinterp.c - pos_interpolate, the resizing of a learned position grid
 * (plugin.h, pecert_posinterp_args).
 *
 * Each axis' taps are planned once per call: for every output index a
 * fixed number of (source index, float weight) pairs, the weights
 * computed in double from plugin.h's coordinate and kernels and rounded
 * once. An output cell is then a weighted sum of whole table rows, an
 * output column at a time: every source row is first resized across at
 * the column (its column taps summed in float, once per output column,
 * not once per output cell) into the thread's column buffer, and each cell
 * of the column adds the buffer's rows of its row taps with their
 * weights, both by the ISA's sum_rows (scalar/taps.c: up to four taps per
 * pass over the D channels). Neighbours of an upsampling share their
 * source rows and columns: up to four output columns that resize across
 * from the same source columns are resized together (sum_rows_shared),
 * and up to four cells of a column on the same rows of it are summed
 * together into their streamed rows (sum_rows_stream), each source value
 * loaded once for them all: 64 x 64 x 1024 bicubic from 16 x 16, one
 * thread, 1.04-1.06 -> 0.83-0.85 ms with the kernels' tap counts made
 * constants (a harness alternating the builds, min of 40, caches cleared
 * between calls). The operations of a cell and their order are those of
 * summing its taps directly. Output columns are split over
 * threads; each value's arithmetic is the same whatever the split.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../family.h"

#define MAX_GRID 4096
#define MAX_PREFIX 64

typedef struct taps {
    int64_t width;  /* taps per output index */
    int64_t *index; /* [n_out * width]       */
    float *weight;  /* [n_out * width]       */
} taps;

typedef struct plan {
    const pecert_posinterp_args *a;
    taps ty;
    taps tx;
    float *rows; /* per thread: an accumulator of D floats, then a column */
    size_t row_floats;
    const pecert__fast_kernels *kernels;
    int stream;    /* contiguous output rows past the streaming threshold */
    int32_t group; /* output columns resized across at once (1 .. COLUMN_GROUP) */
} plan;

/* Output columns resized across together, while their buffers (grid_h
 * rows of D floats each) stay within COLUMN_GROUP_BYTES. */
#define COLUMN_GROUP 4
#define COLUMN_GROUP_BYTES ((size_t)1 << 20)

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_scale(const pecert__fast_call *call, const pecert_posinterp_args *a, const char *name,
                                 double scale, int64_t n_in, int64_t n_out)
{
    if (!(isfinite(scale) && scale >= 0.0)) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s=%g must be finite and >= 0", name, scale);
    }
    if (scale > 0.0 && (a->mode != PECERT_POSINTERP_BICUBIC || a->align_corners)) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "%s=%g: the scale_factor form is bicubic without align_corners",
                                 name, scale);
    }
    if (scale > 0.0 && floor((double)n_in * scale) != (double)n_out) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "%s=%.17g: floor(%" PRId64 " * scale) is not the output extent %" PRId64, name, scale,
                                 n_in, n_out);
    }
    return PECERT_OK;
}

static pecert_status check_shape_args(const pecert__fast_call *call, const pecert_posinterp_args *a)
{
    const int64_t ext[4] = {a->grid_h, a->grid_w, a->out_h, a->out_w};
    static const char *const names[4] = {"grid_h", "grid_w", "out_h", "out_w"};

    for (int k = 0; k < 4; k++) {
        if (ext[k] < 1 || ext[k] > MAX_GRID) {
            return pecert__fast_fail(call, PECERT_E_INVAL, "%s=%" PRId64 " must be in 1..%d", names[k], ext[k],
                                     MAX_GRID);
        }
    }
    if (a->merge_size < 1 || a->merge_size > MAX_GRID || a->out_h % a->merge_size != 0 ||
        a->out_w % a->merge_size != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "merge_size=%" PRId32 " must be >= 1 and divide out_h=%" PRId64 " and out_w=%" PRId64,
                                 a->merge_size, a->out_h, a->out_w);
    }
    pecert_status status = check_scale(call, a, "scale_h", a->scale_h, a->grid_h, a->out_h);
    return status == PECERT_OK ? check_scale(call, a, "scale_w", a->scale_w, a->grid_w, a->out_w) : status;
}

static pecert_status check_args(const pecert__fast_call *call, const pecert_posinterp_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);

    if (status != PECERT_OK) {
        return status;
    }
    if (a->mode != PECERT_POSINTERP_BICUBIC && a->mode != PECERT_POSINTERP_BILINEAR) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "mode=%" PRId32 " is not 0 or 1", a->mode);
    }
    if ((a->align_corners != 0 && a->align_corners != 1) || (a->antialias != 0 && a->antialias != 1) ||
        (a->align_corners && a->antialias)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "align_corners=%" PRId32 ", antialias=%" PRId32 ": each 0 or 1, not both 1",
                                 a->align_corners, a->antialias);
    }
    if (a->prefix_tokens < 0 || a->prefix_tokens > MAX_PREFIX) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "prefix_tokens=%" PRId32 " must be in 0..%d", a->prefix_tokens,
                                 MAX_PREFIX);
    }
    status = check_shape_args(call, a);
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(call, "table", a->table, 2, NULL, PECERT__FAM_F32, 0);
    }
    if (status == PECERT_OK && (a->table->shape[0] != a->prefix_tokens + a->grid_h * a->grid_w ||
                                a->table->shape[1] < 1)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "table.shape=[%" PRId64 ", %" PRId64 "] must be [prefix_tokens + grid_h * grid_w = %"
                                 PRId64 ", D >= 1]",
                                 a->table->shape[0], a->table->shape[1], a->prefix_tokens + a->grid_h * a->grid_w);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->prefix_tokens + a->out_h * a->out_w, a->table->shape[1]};
        status = pecert__fast_fam_check_view(call, "out", a->out, 2, shape, PECERT__FAM_F32, 1);
    }
    if (status == PECERT_OK && pecert__fast_views_overlap(a->table, a->out)) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "out overlaps table");
    }
    return status;
}

/* ---- the taps ----------------------------------------------------------------- */

static double cubic(double x, double A)
{
    x = fabs(x);
    return x < 1.0 ? ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0
                   : (x < 2.0 ? ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A : 0.0);
}

static double kernel(const pecert_posinterp_args *a, double x)
{
    return a->mode == PECERT_POSINTERP_BICUBIC ? cubic(x, -0.5) : (fabs(x) < 1.0 ? 1.0 - fabs(x) : 0.0);
}

/* Output i's taps without antialias: four clamped cubic ones, or two
 * linear ones from the coordinate clamped at 0. */
static void plain_taps(const pecert_posinterp_args *a, double step, int64_t n_in, int64_t i, int64_t *index,
                       float *weight)
{
    double x = a->align_corners ? step * (double)i : step * ((double)i + 0.5) - 0.5;

    if (a->mode == PECERT_POSINTERP_BICUBIC) {
        double f = floor(x);
        for (int k = 0; k < 4; k++) {
            int64_t j = (int64_t)f - 1 + k;
            index[k] = j < 0 ? 0 : (j >= n_in ? n_in - 1 : j);
            weight[k] = (float)cubic(x - (f - 1.0 + k), -0.75);
        }
        return;
    }
    x = x < 0.0 ? 0.0 : x;
    int64_t i0 = (int64_t)x;
    double l1 = x - (double)i0;
    index[0] = i0;
    index[1] = i0 < n_in - 1 ? i0 + 1 : i0;
    weight[0] = (float)(1.0 - l1);
    weight[1] = (float)l1;
}

/* Antialias: the window around (i + 0.5) * step, normalised in double. */
static void antialias_taps(const pecert_posinterp_args *a, double step, double support, int64_t n_in, int64_t i,
                           int64_t width, int64_t *index, float *weight)
{
    double center = step * ((double)i + 0.5);
    double inv = step >= 1.0 ? 1.0 / step : 1.0;
    int64_t lo = (int64_t)(center - support + 0.5);
    int64_t hi = (int64_t)(center + support + 0.5);
    double total = 0.0;

    lo = lo < 0 ? 0 : lo;
    hi = hi > n_in ? n_in : hi;
    /* Two passes (the sum, then each weight over it), both in double. */
    for (int64_t j = lo; j < hi; j++) {
        total += kernel(a, ((double)j - center + 0.5) * inv);
    }
    for (int64_t k = 0; k < width; k++) {
        double w = lo + k < hi ? kernel(a, ((double)(lo + k) - center + 0.5) * inv) : 0.0;
        index[k] = lo + k < hi ? lo + k : lo;
        weight[k] = (float)(total != 0.0 ? w / total : w);
    }
}

static int plan_axis(const pecert_posinterp_args *a, int64_t n_in, int64_t n_out, double scale, taps *t)
{
    double step = a->align_corners ? (n_out > 1 ? (double)(n_in - 1) / (double)(n_out - 1) : 0.0)
                                   : (scale > 0.0 ? 1.0 / scale : (double)n_in / (double)n_out);
    double half = a->mode == PECERT_POSINTERP_BICUBIC ? 2.0 : 1.0;
    double support = a->antialias && step >= 1.0 ? half * step : half;

    t->width = a->antialias ? (int64_t)ceil(2.0 * support) + 1 : (int64_t)(2.0 * half);
    t->index = malloc((size_t)(n_out * t->width) * sizeof(int64_t));
    t->weight = malloc((size_t)(n_out * t->width) * sizeof(float));
    if (t->index == NULL || t->weight == NULL) {
        return 0;
    }
    for (int64_t i = 0; i < n_out; i++) {
        if (a->antialias) {
            antialias_taps(a, step, support, n_in, i, t->width, t->index + i * t->width, t->weight + i * t->width);
        } else {
            plain_taps(a, step, n_in, i, t->index + i * t->width, t->weight + i * t->width);
        }
    }
    return 1;
}

/* ---- the resize ---------------------------------------------------------------- */

static const float *table_row(const pecert_posinterp_args *a, int64_t row)
{
    return (const float *)a->table->data + row * a->table->strides[0];
}

/* Up to this many taps per sum_rows call (their pointers on the stack). */
#define TAP_CHUNK 16

/* Source row sr resized across at output column x into h (D floats): the
 * column taps q of x summed in order, w_q * table[sr, q], from zero. */
static void across_cell(const plan *pl, int64_t sr, int64_t x, float *h)
{
    const pecert_posinterp_args *a = pl->a;
    int64_t dim = a->table->shape[1];
    int64_t sd = a->table->strides[1];
    int64_t base = a->prefix_tokens + sr * a->grid_w;
    const float *src[TAP_CHUNK];

    if (sd != 1) {
        memset(h, 0, (size_t)dim * sizeof(float));
        for (int64_t q = 0; q < pl->tx.width; q++) {
            float wx = pl->tx.weight[x * pl->tx.width + q];
            const float *row = table_row(a, base + pl->tx.index[x * pl->tx.width + q]);

            for (int64_t d = 0; d < dim; d++) {
                h[d] += wx * row[d * sd];
            }
        }
        return;
    }
    for (int64_t q0 = 0; q0 < pl->tx.width || q0 == 0; q0 += TAP_CHUNK) {
        int32_t n = (int32_t)(pl->tx.width - q0 < TAP_CHUNK ? pl->tx.width - q0 : TAP_CHUNK);

        for (int32_t q = 0; q < n; q++) {
            src[q] = table_row(a, base + pl->tx.index[x * pl->tx.width + q0 + q]);
        }
        pl->kernels->sum_rows(h, src, pl->tx.weight + x * pl->tx.width + q0, n, dim, q0 == 0);
    }
}

/* Whether output columns x and x2 resize across from the same source
 * columns (their weights may differ). */
static int same_column_taps(const plan *pl, int64_t x, int64_t x2)
{
    int64_t w = pl->tx.width;

    return memcmp(pl->tx.index + x * w, pl->tx.index + x2 * w, (size_t)w * sizeof(int64_t)) == 0;
}

/* Source row sr resized across at the k output columns from x on, which
 * share their source columns, into h[j] (D floats each): across_cell's
 * sums, each source value loaded once for the k columns where the ISA's
 * sum_rows_shared can (unit channel stride, at most TAP_CHUNK taps). */
static void across_cells(const plan *pl, int64_t sr, int64_t x, int32_t k, float *const *h)
{
    const pecert_posinterp_args *a = pl->a;
    int64_t base = a->prefix_tokens + sr * a->grid_w;
    const float *src[TAP_CHUNK];

    if (k == 1 || a->table->strides[1] != 1 || pl->tx.width > TAP_CHUNK) {
        for (int32_t j = 0; j < k; j++) {
            across_cell(pl, sr, x + j, h[j]);
        }
        return;
    }
    for (int64_t q = 0; q < pl->tx.width; q++) {
        src[q] = table_row(a, base + pl->tx.index[x * pl->tx.width + q]);
    }
    pl->kernels->sum_rows_shared(h, k, src, pl->tx.weight + x * pl->tx.width, (int32_t)pl->tx.width,
                                 a->table->shape[1]);
}

/* The output row of cell (x, y): row-major, or in merge_size windows. */
static int64_t cell_row(const plan *pl, int64_t x, int64_t y)
{
    const pecert_posinterp_args *a = pl->a;
    int64_t m = a->merge_size;

    return a->prefix_tokens + ((y / m) * (a->out_w / m) + x / m) * m * m + (y % m) * m + x % m;
}

static float *cell_out(const plan *pl, int64_t x, int64_t y)
{
    return (float *)pl->a->out->data + cell_row(pl, x, y) * pl->a->out->strides[0];
}

/* Row y's taps of nonzero weight from tap *p on, at most max of them:
 * their rows of the column buffer and their weights; *p moves past them. */
static int32_t row_taps(const plan *pl, int64_t y, const float *column, int64_t *p, const float **src, float *w,
                        int32_t max)
{
    int32_t n = 0;

    for (; *p < pl->ty.width && n < max; ++*p) {
        float wy = pl->ty.weight[y * pl->ty.width + *p];

        if (wy != 0.0f) {
            src[n] = column + pl->ty.index[y * pl->ty.width + *p] * pl->a->table->shape[1];
            w[n++] = wy;
        }
    }
    return n;
}

/* Cells y, y + 1, ... of a column (at most four) straight into their
 * 64-byte aligned output rows with streaming stores, where their taps of
 * nonzero weight are the same one to four rows of the column (an
 * upsampling's neighbours: each row's value loaded once for them all) and
 * the ISA has the kernel; how many were taken (0: none). */
static int32_t cells_streamed(const plan *pl, int64_t x, int64_t y, const float *column)
{
    const float *src[5], *next[5];
    float w[4 * 5];
    float *dst[4];
    int64_t p = 0;
    int32_t n, k = 0;

    if (pl->kernels->sum_rows_stream == NULL) {
        return 0;
    }
    n = row_taps(pl, y, column, &p, src, w, 5);
    if (n == 0 || n > 4) {
        return 0;
    }
    for (; k < 4 && y + k < pl->a->out_h; k++) {
        int64_t q = 0;

        dst[k] = cell_out(pl, x, y + k);
        if ((uintptr_t)dst[k] % 64 != 0 ||
            (k > 0 && (row_taps(pl, y + k, column, &q, next, w + k * n, 5) != n ||
                       memcmp(next, src, (size_t)n * sizeof(*src)) != 0))) {
            break;
        }
    }
    if (k > 0) {
        pl->kernels->sum_rows_stream(dst, k, src, w, n, pl->a->table->shape[1]);
    }
    return k;
}

/* One output cell: sum over row taps p of w_p * (the source row resized
 * across at x), in float, from zero, into acc (D floats); taps of weight
 * zero are skipped. The same operations in the same order as a cell
 * computed alone: the separable form only stops recomputing a row's
 * horizontal pass for every y. */
static void cell(const plan *pl, int64_t y, const float *column, float *acc)
{
    const float *src[TAP_CHUNK];
    float w[TAP_CHUNK];
    int64_t p = 0;
    int zero = 1;

    do {
        int32_t n = row_taps(pl, y, column, &p, src, w, TAP_CHUNK);

        pl->kernels->sum_rows(acc, src, w, n, pl->a->table->shape[1], zero);
        zero = 0;
    } while (p < pl->ty.width);
}

static void store_row(const pecert_posinterp_args *a, int64_t row, const float *v)
{
    float *dst = (float *)a->out->data + row * a->out->strides[0];
    int64_t sd = a->out->strides[1];

    for (int64_t d = 0; d < a->table->shape[1]; d++) {
        dst[d * sd] = v[d];
    }
}

/* Output column x's cells from its source rows resized across (column:
 * grid_h rows of D). Past PECERT__FAST_STREAM_MIN_BYTES the cells go
 * straight to their rows with streaming stores where cells_streamed takes
 * them, else each is summed in the thread's accumulator (L1) and streamed
 * out: summed in place, every line of the output was read for ownership
 * first (one thread, 64 x 64 x 1024: 1.9 -> 1.6 ms). */
static void column_cells(const plan *pl, int64_t x, const float *column, float *acc)
{
    const pecert_posinterp_args *a = pl->a;
    int direct = a->out->strides[1] == 1;

    for (int64_t y = 0; y < a->out_h; y++) {
        int32_t taken = pl->stream ? cells_streamed(pl, x, y, column) : 0;

        if (taken > 0) {
            y += taken - 1;
            continue;
        }
        int64_t row = cell_row(pl, x, y);
        float *dst = cell_out(pl, x, y);

        if (pl->stream) {
            cell(pl, y, column, acc);
            pl->kernels->copy_row_stream(dst, acc, a->table->shape[1]);
        } else if (direct) {
            cell(pl, y, column, dst);
        } else {
            cell(pl, y, column, acc);
            store_row(a, row, acc);
        }
    }
}

/* The thread's output columns, up to pl->group at a time where they share
 * their source columns (an upsampling's neighbours do): their source rows
 * resized across together, then each column's cells. */
static void resize_share(void *context, int ith, int nth)
{
    const plan *pl = context;
    const pecert_posinterp_args *a = pl->a;
    float *acc = pl->rows + (size_t)ith * pl->row_floats;
    float *columns = acc + (((size_t)a->table->shape[1] + 15) / 16 * 16);
    int64_t dim = a->table->shape[1], column_floats = a->grid_h * dim;
    int64_t first;
    int64_t end;

    pecert__fast_share(a->out_w, ith, nth, &first, &end);
    for (int64_t x = first; x < end;) {
        int32_t k = 1;
        float *h[COLUMN_GROUP];

        while (k < pl->group && x + k < end && same_column_taps(pl, x, x + k)) {
            k++;
        }
        for (int64_t sr = 0; sr < a->grid_h; sr++) {
            for (int32_t j = 0; j < k; j++) {
                h[j] = columns + j * column_floats + sr * dim;
            }
            across_cells(pl, sr, x, k, h);
        }
        for (int32_t j = 0; j < k; j++) {
            column_cells(pl, x + j, columns + j * column_floats, acc);
        }
        x += k;
    }
    if (pl->stream) {
        pl->kernels->store_fence(); /* before the region's barrier */
    }
}

static void free_plan(plan *pl)
{
    free(pl->ty.index);
    free(pl->ty.weight);
    free(pl->tx.index);
    free(pl->tx.weight);
}

pecert_status pecert__fast_pos_interpolate(void *instance, const pecert_posinterp_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    plan pl;

    status = pecert__fast_fam_enter(&call, instance, "pos_interpolate", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_args(&call, args);
    }
    if (status != PECERT_OK) {
        return status;
    }
    memset(&pl, 0, sizeof(pl));
    pl.a = args;
    int64_t dim = args->table->shape[1];
    size_t bytes = (size_t)(args->prefix_tokens + args->out_h * args->out_w) * (size_t)dim * sizeof(float);
    int threads = pecert__fast_threads(&call, bytes, args->out_w);
    pl.kernels = call.instance->kernels;
    pl.stream = args->out->strides[1] == 1 && bytes >= PECERT__FAST_STREAM_MIN_BYTES &&
                pl.kernels->copy_row_stream != NULL && pl.kernels->store_fence != NULL;
    /* Per thread: the accumulator, then `group` output columns' source
     * rows resized across (grid_h rows of D each: one column is no more
     * floats than the table). */
    size_t column_bytes = (size_t)args->grid_h * (size_t)dim * sizeof(float);
    pl.group = column_bytes * COLUMN_GROUP <= COLUMN_GROUP_BYTES ? COLUMN_GROUP : 1;
    pl.row_floats = ((size_t)dim + 15) / 16 * 16 + (size_t)pl.group * (size_t)args->grid_h * (size_t)dim;
    pl.rows = pecert__fast_scratch(&call, (size_t)threads * pl.row_floats * sizeof(float));
    if (pl.rows == NULL || !plan_axis(args, args->grid_h, args->out_h, args->scale_h, &pl.ty) ||
        !plan_axis(args, args->grid_w, args->out_w, args->scale_w, &pl.tx)) {
        free_plan(&pl);
        return pecert__fast_fail(&call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t r = 0; r < args->prefix_tokens; r++) {
        float *dst = (float *)args->out->data + r * args->out->strides[0];
        for (int64_t d = 0; d < dim; d++) {
            dst[d * args->out->strides[1]] = table_row(args, r)[d * args->table->strides[1]];
        }
    }
    pecert__fast_run(threads, resize_share, &pl);
    free_plan(&pl);
    return PECERT_OK;
}
