/*
 * sine2d.c - sine2d, DETR's 2-D sine embedding from a pixel mask
 * (plugin.h, pecert_sine2d_args).
 *
 * A pixel's F row channels depend only on its column's count of valid
 * pixels above it (and itself) and on the column's total; its F column
 * channels on the same counts along its row. The totals take few values
 * (a batch-padded mask has two: the image's extent, and 0 in the
 * padding), so the channels are tables: for each distinct total T, one
 * F-wide row per count 0..T (a line's counts never pass its total: a
 * padded line of total 0 needs one row, not the far angles of every
 * count over eps),
 * computed once in double (pow, sin, cos) and rounded once to f32, as ref
 * does it. The output is then two table rows copied per pixel, over
 * threads by pixel rows: bound by the bytes it writes. An axis whose
 * tables would hold more than half as many rows as the map has pixels
 * (a mask of many distinct totals), or more than TABLE_FLOATS, is
 * computed pixel by pixel with the same arithmetic.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../family.h"

#define MAX_SIDE 16384
#define MAX_PIXELS ((int64_t)1 << 24)
#define MAX_FEATS 8192
/* 64 MiB of f32 tables at most; past that, pixel by pixel. */
#define TABLE_FLOATS ((int64_t)1 << 24)

/* ---- argument checks -------------------------------------------------------- */

static int64_t mask_at(const pecert_tensor *mask, int64_t r, int64_t c)
{
    int64_t at = r * mask->strides[0] + c * mask->strides[1];
    return mask->dtype == PECERT_DTYPE_I32 ? ((const int32_t *)mask->data)[at] : ((const int64_t *)mask->data)[at];
}

static pecert_status check_numbers(const pecert__fast_call *call, const pecert_sine2d_args *a)
{
    if (a->reserved0 != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    if (a->num_pos_feats < 2 || a->num_pos_feats > MAX_FEATS || a->num_pos_feats % 2 != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "num_pos_feats=%" PRId32 " must be even and in 2..%d",
                                 a->num_pos_feats, MAX_FEATS);
    }
    if (a->normalize != 0 && a->normalize != 1) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "normalize=%" PRId32 " must be 0 or 1", a->normalize);
    }
    if (!(isfinite(a->temperature_y) && a->temperature_y > 0) || !(isfinite(a->temperature_x) && a->temperature_x > 0)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "temperature_y=%.17g, temperature_x=%.17g must be finite and > 0", a->temperature_y,
                                 a->temperature_x);
    }
    if (!isfinite(a->scale) || !isfinite(a->offset) || !(isfinite(a->eps) && a->eps > 0)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "scale=%.17g, offset=%.17g must be finite, eps=%.17g finite and > 0", a->scale,
                                 a->offset, a->eps);
    }
    return PECERT_OK;
}

static pecert_status check_mask(const pecert__fast_call *call, const pecert_tensor *mask)
{
    pecert_status status = pecert__fast_fam_check_view(call, "mask", mask, 2, NULL, PECERT__FAM_INT, 0);
    if (status != PECERT_OK) {
        return status;
    }
    int64_t h = mask->shape[0], w = mask->shape[1];
    if (h < 1 || h > MAX_SIDE || w < 1 || w > MAX_SIDE || h * w > MAX_PIXELS) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "mask.shape=[%" PRId64 ", %" PRId64 "]: each side must be in 1..%d, h * w <= %" PRId64,
                                 h, w, MAX_SIDE, MAX_PIXELS);
    }
    for (int64_t r = 0; r < h; r++) {
        for (int64_t c = 0; c < w; c++) {
            int64_t v = mask_at(mask, r, c);
            if (v != 0 && v != 1) {
                return pecert__fast_fail(call, PECERT_E_INVAL,
                                         "mask[%" PRId64 "][%" PRId64 "]=%" PRId64 " must be 0 or 1", r, c, v);
            }
        }
    }
    return PECERT_OK;
}

static pecert_status check_args(const pecert__fast_call *call, const pecert_sine2d_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);
    status = status == PECERT_OK ? check_numbers(call, a) : status;
    status = status == PECERT_OK ? check_mask(call, a->mask) : status;
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->mask->shape[0] * a->mask->shape[1], 2 * (int64_t)a->num_pos_feats};
        status = pecert__fast_fam_check_view(call, "out", a->out, 2, shape, PECERT__FAM_F32, 1);
    }
    return status;
}

/* ---- the plan ------------------------------------------------------------------ */

/* One axis: each pixel's count and its line's table, and the tables. */
typedef struct axis_plan {
    int64_t *count;     /* [h * w]: the cumulative count at the pixel     */
    int32_t *line;      /* per column (rows' axis) or row (columns' axis): */
                        /* its total's table                              */
    float *tables;      /* [rows][F]: table k from row table_start[k], its */
                        /* counts 0..table_total[k]; NULL: pixel by pixel */
    int64_t *table_total; /* each table's total                           */
    int64_t *table_start; /* each table's first row                        */
    int64_t n_tables;
    int64_t n_rows;     /* the tables' rows, sum of (total + 1)           */
    double *row_v;      /* each row's coordinate, while they are filled   */
    int64_t counts;     /* the largest count: h or w                      */
    double *dim_t;      /* [F]: temperature^(2 floor(i/2) / F), ref's pow  */
} axis_plan;

typedef struct sine2d_plan {
    const pecert_sine2d_args *a;
    int64_t h, w, f;
    axis_plan y, x;
    const axis_plan *filling; /* the axis fill_share writes               */
} sine2d_plan;

static double coordinate(const pecert_sine2d_args *a, int64_t count, int64_t total)
{
    if (!a->normalize) {
        return (double)count;
    }
    return ((double)count + a->offset) / ((double)total + a->eps) * a->scale;
}

/* An axis' F channels at coordinate v (ref's arithmetic: the same pow,
 * quotient, sin and cos in double, rounded once). */
static void channels(const axis_plan *ax, int64_t f, double v, float *out, int64_t stride)
{
    for (int64_t i = 0; i < f; i++) {
        double angle = v / ax->dim_t[i];
        out[i * stride] = (float)(i % 2 == 0 ? sin(angle) : cos(angle));
    }
}

/* The distinct totals of an axis' lines (totals[line] in 0..counts), each
 * line given its table; 0 when tables would not pay (above). */
static int64_t assign_tables(axis_plan *ax, const int64_t *totals, int64_t lines, int64_t pixels, int64_t f)
{
    int64_t *table_total = ax->table_total;
    int64_t n = 0;
    int64_t *index_of = malloc((size_t)(ax->counts + 1) * sizeof(int64_t));
    if (index_of == NULL) {
        return 0;
    }
    for (int64_t t = 0; t <= ax->counts; t++) {
        index_of[t] = -1;
    }
    int64_t rows = 0;
    for (int64_t l = 0; l < lines; l++) {
        if (index_of[totals[l]] < 0) {
            table_total[n] = totals[l];
            ax->table_start[n] = rows;
            rows += totals[l] + 1;
            index_of[totals[l]] = n++;
        }
        ax->line[l] = (int32_t)index_of[totals[l]];
    }
    free(index_of);
    ax->n_rows = rows;
    return 2 * rows <= pixels && rows * f <= TABLE_FLOATS ? n : 0;
}

/* Table rows [begin, end) of the axis being filled: share ith of nth. */
static void fill_share(void *context, int ith, int nth)
{
    const sine2d_plan *pl = context;
    const axis_plan *ax = pl->filling;
    int64_t begin, end;
    pecert__fast_share(ax->n_rows, ith, nth, &begin, &end);
    for (int64_t row = begin; row < end; row++) {
        channels(ax, pl->f, ax->row_v[row], ax->tables + row * pl->f, 1);
    }
}

/* The tables of an axis, over threads by rows. A channel (a quotient, a
 * sin or cos in double, a rounding) takes ~8 ns (Zen 4, perf of the
 * bench's case: 274 rows of 128 in ~0.3 ms): about 800 bytes written at
 * the pace PECERT__FAST_PARALLEL_MIN_BYTES assumes (1 MiB in ~10 us).
 * Weighed at 40 bytes, the bench's 120-row tables stayed on one thread. */
#define TABLE_BYTES_PER_CHANNEL 800
static int fill_tables(const pecert__fast_call *call, sine2d_plan *pl, axis_plan *ax)
{
    ax->row_v = malloc((size_t)ax->n_rows * sizeof(double));
    if (ax->row_v == NULL) {
        return 0;
    }
    for (int64_t k = 0; k < ax->n_tables; k++) {
        for (int64_t count = 0; count <= ax->table_total[k]; count++) {
            ax->row_v[ax->table_start[k] + count] = coordinate(pl->a, count, ax->table_total[k]);
        }
    }
    pl->filling = ax;
    size_t weight = (size_t)(ax->n_rows * pl->f) * TABLE_BYTES_PER_CHANNEL;
    pecert__fast_run(pecert__fast_threads(call, weight, ax->n_rows), fill_share, pl);
    free(ax->row_v);
    ax->row_v = NULL;
    return 1;
}

/* An axis' arrays: counts [h * w], lines, totals and dim_t; 0 if out of
 * memory. */
static int axis_memory(axis_plan *ax, int64_t pixels, int64_t lines, int64_t f, double temperature)
{
    ax->count = malloc((size_t)pixels * sizeof(int64_t));
    ax->line = malloc((size_t)lines * sizeof(int32_t));
    ax->table_total = malloc((size_t)(ax->counts + 1) * sizeof(int64_t));
    ax->table_start = malloc((size_t)(ax->counts + 1) * sizeof(int64_t));
    ax->dim_t = malloc((size_t)f * sizeof(double));
    if (ax->count == NULL || ax->line == NULL || ax->table_total == NULL || ax->table_start == NULL ||
        ax->dim_t == NULL) {
        return 0;
    }
    for (int64_t i = 0; i < f; i++) {
        ax->dim_t[i] = pow(temperature, (double)(2 * (i / 2)) / (double)f);
    }
    return 1;
}

/* The counts of both axes, then each axis' tables where they pay. */
static int plan_tables(const pecert__fast_call *call, sine2d_plan *pl)
{
    int64_t h = pl->h, w = pl->w, f = pl->f;
    int64_t *totals = malloc((size_t)(h > w ? h : w) * sizeof(int64_t));
    if (totals == NULL || !axis_memory(&pl->y, h * w, w, f, pl->a->temperature_y) ||
        !axis_memory(&pl->x, h * w, h, f, pl->a->temperature_x)) {
        free(totals);
        return 0;
    }
    for (int64_t r = 0; r < h; r++) {
        int64_t along = 0;
        for (int64_t c = 0; c < w; c++) {
            int64_t m = mask_at(pl->a->mask, r, c);
            along += m;
            pl->x.count[r * w + c] = along;
            pl->y.count[r * w + c] = (r > 0 ? pl->y.count[(r - 1) * w + c] : 0) + m;
        }
    }
    axis_plan *axes[2] = {&pl->y, &pl->x};
    for (int k = 0; k < 2; k++) {
        axis_plan *ax = axes[k];
        int64_t lines = k == 0 ? w : h;
        for (int64_t l = 0; l < lines; l++) {
            totals[l] = k == 0 ? pl->y.count[(h - 1) * w + l] : pl->x.count[l * w + w - 1];
        }
        ax->n_tables = assign_tables(ax, totals, lines, h * w, f);
        ax->tables = ax->n_tables > 0 ? malloc((size_t)(ax->n_rows * f) * sizeof(float)) : NULL;
        if (ax->tables != NULL && !fill_tables(call, pl, ax)) {
            free(ax->tables); /* pixel by pixel */
            ax->tables = NULL;
        }
    }
    free(totals);
    return 1;
}

static void free_plan(sine2d_plan *pl)
{
    free(pl->y.count);
    free(pl->x.count);
    free(pl->y.line);
    free(pl->x.line);
    free(pl->y.tables);
    free(pl->x.tables);
    free(pl->y.table_total);
    free(pl->x.table_total);
    free(pl->y.table_start);
    free(pl->x.table_start);
    free(pl->y.dim_t);
    free(pl->x.dim_t);
}

/* ---- the rows ------------------------------------------------------------------ */

/* F channels at dst (stride `stride`) from a table row, or computed. */
static void put_axis(const pecert__fast_row_job *job, const axis_plan *ax, int64_t f, float *dst, int64_t stride,
                     int64_t pixel, int64_t line, int64_t total)
{
    const sine2d_plan *pl = job->plan;
    if (ax->tables != NULL) {
        const float *src = ax->tables + (ax->table_start[ax->line[line]] + ax->count[pixel]) * f;
        if (stride == 1) {
            pecert__fast_fam_copy(job, dst, src, f);
            return;
        }
        for (int64_t i = 0; i < f; i++) {
            dst[i * stride] = src[i];
        }
        return;
    }
    channels(ax, f, coordinate(pl->a, ax->count[pixel], total), dst, stride);
}

/* Output row p: pixel (p / w, p % w). */
static void pixel_row(const pecert__fast_row_job *job, int64_t p, void *scratch)
{
    const sine2d_plan *pl = job->plan;
    const pecert_tensor *out = pl->a->out;
    int64_t r = p / pl->w, c = p % pl->w;
    float *dst = (float *)out->data + p * out->strides[0];
    (void)scratch;
    put_axis(job, &pl->y, pl->f, dst, out->strides[1], p, c, pl->y.count[(pl->h - 1) * pl->w + c]);
    put_axis(job, &pl->x, pl->f, dst + pl->f * out->strides[1], out->strides[1], p, r,
             pl->x.count[r * pl->w + pl->w - 1]);
}

pecert_status pecert__fast_sine2d(void *instance, const pecert_sine2d_args *args)
{
    pecert__fast_call call;
    pecert_status status = pecert__fast_fam_enter(&call, instance, "sine2d", args, sizeof(*args));
    status = status == PECERT_OK ? check_args(&call, args) : status;
    if (status != PECERT_OK) {
        return status;
    }
    sine2d_plan pl;
    memset(&pl, 0, sizeof(pl));
    pl.a = args;
    pl.h = args->mask->shape[0];
    pl.w = args->mask->shape[1];
    pl.f = args->num_pos_feats;
    pl.y.counts = pl.h;
    pl.x.counts = pl.w;
    if (!plan_tables(&call, &pl)) {
        free_plan(&pl);
        return pecert__fast_fail(&call, PECERT_E_NOMEM, "out of memory");
    }
    /* Rows over threads: distinct output rows (checked: no zero stride). */
    pecert__fast_row_job job = {.row = pixel_row, .op = args, .plan = &pl, .kernels = call.instance->kernels,
                                .rows = pl.h * pl.w};
    if (pecert__fast_fam_row_memory(&call, args->out, 0, 0, &job) == NULL) {
        free_plan(&pl);
        return PECERT_E_NOMEM;
    }
    pecert__fast_fam_run_rows(&job);
    free_plan(&pl);
    return PECERT_OK;
}
