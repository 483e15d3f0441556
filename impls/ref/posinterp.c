/*
 * posinterp.c - the resizing of a learned position-embedding grid (op
 * pos_interpolate), in double, as plugin.h states it: PyTorch's CPU
 * nn.functional.interpolate (torch 1.13, UpSampleKernel.cpp), one axis
 * after the other, each output element the weighted sum of its taps.
 *
 * Per axis and output index i the taps are (source index, weight) pairs:
 *   bicubic    four, at floor(x) - 1 .. floor(x) + 2 clamped to the grid,
 *              weights of the cubic convolution kernel (A = -0.75) at the
 *              distances from x, the source coordinate of plugin.h;
 *   bilinear   two, floor(x) and the next index (the same one at the last
 *              row), x clamped at 0 first;
 *   antialias  every index j with |j + 0.5 - c| inside the support around
 *              c = (i + 0.5) * s, the kernel (A = -0.5, or the triangle)
 *              stretched by s when s > 1, the weights divided by their sum.
 * Clamped bicubic taps that land on the same index simply add up.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "ref.h"

/* Far beyond any position grid (a 4096 x 4096 grid is 16.7 M patches),
 * small enough that every product below fits an int64. */
#define MAX_GRID 4096
#define MAX_PREFIX 64

/* The taps of one axis: for output index i, taps[i * width + k]. */
typedef struct axis_taps {
    int64_t width;   /* taps per output index */
    int64_t *index;  /* [n_out * width]       */
    double *weight;  /* [n_out * width]       */
} axis_taps;

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_extent(const pecert__ref_call *call, const char *name, int64_t v)
{
    if (v < 1 || v > MAX_GRID) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "%s=%" PRId64 " must be in 1..%d", name, v,
                                MAX_GRID);
    }
    return PECERT_OK;
}

/* A scale_factor axis: bicubic, no align_corners, and n_out the floor of
 * n_in * scale, which is how PyTorch sizes its output. */
static pecert_status check_scale(const pecert__ref_call *call, const pecert_posinterp_args *a,
                                 const char *name, double scale, int64_t n_in, int64_t n_out)
{
    if (!(isfinite(scale) && scale >= 0.0)) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "%s=%g must be finite and >= 0", name, scale);
    }
    if (scale == 0.0) {
        return PECERT_OK;
    }
    if (a->mode != PECERT_POSINTERP_BICUBIC || a->align_corners) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "%s=%g: the scale_factor form is bicubic without align_corners", name,
                                scale);
    }
    if (floor((double)n_in * scale) != (double)n_out) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "%s=%.17g: floor(%" PRId64 " * scale) is not the output extent %" PRId64,
                                name, scale, n_in, n_out);
    }
    return PECERT_OK;
}

static pecert_status check_flags(const pecert__ref_call *call, const pecert_posinterp_args *a)
{
    if (a->mode != PECERT_POSINTERP_BICUBIC && a->mode != PECERT_POSINTERP_BILINEAR) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "mode=%" PRId32 " is not 0 or 1", a->mode);
    }
    if ((a->align_corners != 0 && a->align_corners != 1) || (a->antialias != 0 && a->antialias != 1)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "align_corners=%" PRId32 ", antialias=%" PRId32 " must be 0 or 1",
                                a->align_corners, a->antialias);
    }
    if (a->align_corners && a->antialias) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "align_corners and antialias together are not defined");
    }
    if (a->prefix_tokens < 0 || a->prefix_tokens > MAX_PREFIX) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "prefix_tokens=%" PRId32 " must be in 0..%d",
                                a->prefix_tokens, MAX_PREFIX);
    }
    return PECERT_OK;
}

static pecert_status check_grids(const pecert__ref_call *call, const pecert_posinterp_args *a)
{
    pecert_status status = check_extent(call, "grid_h", a->grid_h);

    if (status == PECERT_OK) {
        status = check_extent(call, "grid_w", a->grid_w);
    }
    if (status == PECERT_OK) {
        status = check_extent(call, "out_h", a->out_h);
    }
    if (status == PECERT_OK) {
        status = check_extent(call, "out_w", a->out_w);
    }
    if (status == PECERT_OK && (a->merge_size < 1 || a->merge_size > MAX_GRID ||
                                a->out_h % a->merge_size != 0 || a->out_w % a->merge_size != 0)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "merge_size=%" PRId32 " must be >= 1 and divide out_h=%" PRId64
                                  " and out_w=%" PRId64,
                                  a->merge_size, a->out_h, a->out_w);
    }
    if (status == PECERT_OK) {
        status = check_scale(call, a, "scale_h", a->scale_h, a->grid_h, a->out_h);
    }
    if (status == PECERT_OK) {
        status = check_scale(call, a, "scale_w", a->scale_w, a->grid_w, a->out_w);
    }
    return status;
}

static pecert_status check_tensors(const pecert__ref_call *call, const pecert_posinterp_args *a)
{
    pecert_status status = pecert__ref_check_view(call, "table", a->table, 2, NULL, PECERT__REF_F32_ONLY, 0);
    int64_t rows = a->prefix_tokens + a->grid_h * a->grid_w;

    if (status == PECERT_OK && (a->table->shape[0] != rows || a->table->shape[1] < 1)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "table.shape=[%" PRId64 ", %" PRId64 "] must be [prefix_tokens + "
                                  "grid_h * grid_w = %" PRId64 ", D >= 1]",
                                  a->table->shape[0], a->table->shape[1], rows);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->prefix_tokens + a->out_h * a->out_w, a->table->shape[1]};
        status = pecert__ref_check_view(call, "out", a->out, 2, shape, PECERT__REF_F32_ONLY, 1);
    }
    if (status == PECERT_OK && pecert__ref_views_overlap(a->table, a->out, sizeof(float))) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "out overlaps table");
    }
    return status;
}

pecert_status pecert__ref_check_posinterp(const pecert__ref_call *call, const void *args)
{
    const pecert_posinterp_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK) {
        status = check_flags(call, a);
    }
    if (status == PECERT_OK) {
        status = check_grids(call, a);
    }
    if (status == PECERT_OK) {
        status = check_tensors(call, a);
    }
    return status;
}

/* ---- the taps ----------------------------------------------------------------- */

/* The cubic convolution kernel at distance x (Keys; PyTorch's A). */
static double cubic_kernel(double x, double A)
{
    x = fabs(x);
    if (x < 1.0) {
        return ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0;
    }
    if (x < 2.0) {
        return ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A;
    }
    return 0.0;
}

static double triangle_kernel(double x)
{
    x = fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

/* PyTorch's area_pixel_compute_scale: source step per output step. */
static double axis_step(const pecert_posinterp_args *a, int64_t n_in, int64_t n_out, double scale)
{
    if (a->align_corners) {
        return n_out > 1 ? (double)(n_in - 1) / (double)(n_out - 1) : 0.0;
    }
    return scale > 0.0 ? 1.0 / scale : (double)n_in / (double)n_out;
}

static int64_t clamp_index(int64_t j, int64_t n)
{
    return j < 0 ? 0 : (j >= n ? n - 1 : j);
}

static void plain_taps(const pecert_posinterp_args *a, double step, int64_t n_in, int64_t i,
                       int64_t *index, double *weight)
{
    double x = a->align_corners ? step * (double)i : step * ((double)i + 0.5) - 0.5;

    if (a->mode == PECERT_POSINTERP_BICUBIC) {
        double f = floor(x);
        for (int k = 0; k < 4; k++) {
            index[k] = clamp_index((int64_t)f - 1 + k, n_in);
            weight[k] = cubic_kernel(x - (f - 1.0 + k), -0.75);
        }
        return;
    }
    if (x < 0.0) {
        x = 0.0;
    }
    int64_t i0 = (int64_t)x;
    index[0] = i0;
    index[1] = i0 < n_in - 1 ? i0 + 1 : i0;
    weight[1] = x - (double)i0;
    weight[0] = 1.0 - weight[1];
}

/* The antialiased taps (PyTorch's _compute_indices_min_size_weights_aa):
 * unused slots get weight 0 at index 0. */
static void antialias_taps(const pecert_posinterp_args *a, double step, double support, int64_t n_in,
                           int64_t i, int64_t width, int64_t *index, double *weight)
{
    double center = step * ((double)i + 0.5);
    double inv = step >= 1.0 ? 1.0 / step : 1.0;
    int64_t lo = (int64_t)(center - support + 0.5);
    int64_t hi = (int64_t)(center + support + 0.5);
    double total = 0.0;

    lo = lo < 0 ? 0 : lo;
    hi = hi > n_in ? n_in : hi;
    for (int64_t k = 0; k < width; k++) {
        int64_t j = lo + k;
        double u = ((double)j - center + 0.5) * inv;
        index[k] = j < hi ? j : 0;
        weight[k] = j >= hi ? 0.0
                            : (a->mode == PECERT_POSINTERP_BICUBIC ? cubic_kernel(u, -0.5) : triangle_kernel(u));
        total += weight[k];
    }
    for (int64_t k = 0; total != 0.0 && k < width; k++) {
        weight[k] /= total;
    }
}

static void free_taps(axis_taps *t)
{
    free(t->index);
    free(t->weight);
    t->index = NULL;
    t->weight = NULL;
}

static int make_taps(const pecert_posinterp_args *a, int64_t n_in, int64_t n_out, double scale, axis_taps *t)
{
    double step = axis_step(a, n_in, n_out, scale);
    double half_width = a->mode == PECERT_POSINTERP_BICUBIC ? 2.0 : 1.0;
    double support = a->antialias && step >= 1.0 ? half_width * step : half_width;

    /* An antialias window spans at most 2 * support + 1 indices. */
    t->width = a->antialias ? (int64_t)ceil(2.0 * support) + 1 : (int64_t)(2.0 * half_width);
    t->index = malloc((size_t)(n_out * t->width) * sizeof(int64_t));
    t->weight = malloc((size_t)(n_out * t->width) * sizeof(double));
    if (t->index == NULL || t->weight == NULL) {
        free_taps(t);
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

/* ---- the op -------------------------------------------------------------------- */

/* The output row of grid cell (y, x): row-major, or Qwen3-VL's m x m
 * windows (row-major windows, row-major inside). */
static int64_t output_row(const pecert_posinterp_args *a, int64_t y, int64_t x)
{
    int64_t m = a->merge_size;
    int64_t window = (y / m) * (a->out_w / m) + x / m;

    return a->prefix_tokens + window * m * m + (y % m) * m + x % m;
}

static double table_at(const pecert_tensor *t, int64_t row, int64_t d)
{
    return ((const float *)t->data)[row * t->strides[0] + d * t->strides[1]];
}

static void store(const pecert_tensor *t, int64_t row, int64_t d, double v)
{
    ((float *)t->data)[row * t->strides[0] + d * t->strides[1]] = (float)v;
}

static void interpolate_cell(const pecert_posinterp_args *a, const axis_taps *ty, const axis_taps *tx,
                             int64_t y, int64_t x)
{
    int64_t out_row = output_row(a, y, x);

    for (int64_t d = 0; d < a->table->shape[1]; d++) {
        double sum = 0.0;
        for (int64_t p = 0; p < ty->width; p++) {
            int64_t src_y = ty->index[y * ty->width + p];
            double across = 0.0;
            for (int64_t q = 0; q < tx->width; q++) {
                int64_t src = a->prefix_tokens + src_y * a->grid_w + tx->index[x * tx->width + q];
                across += tx->weight[x * tx->width + q] * table_at(a->table, src, d);
            }
            sum += ty->weight[y * ty->width + p] * across;
        }
        store(a->out, out_row, d, sum);
    }
}

/* The horizontal pass of every source row, once: rows[(sy * out_w + x) * D
 * + d] is cell (sy, x)'s sum over its column taps, the very value
 * interpolate_cell computes as `across` (the same terms in the same order),
 * shared by every output row that reads source row sy. NULL when it does
 * not fit in memory (interpolate_cell then computes each on its own). */
static double *horizontal_pass(const pecert_posinterp_args *a, const axis_taps *tx)
{
    int64_t dim = a->table->shape[1];
    size_t n = (size_t)a->grid_h * (size_t)a->out_w * (size_t)dim;
    double *rows = malloc(n * sizeof(double));
    if (rows == NULL) {
        return NULL;
    }
    for (int64_t sy = 0; sy < a->grid_h; sy++) {
        for (int64_t x = 0; x < a->out_w; x++) {
            double *cell = rows + (sy * a->out_w + x) * dim;
            for (int64_t d = 0; d < dim; d++) {
                double across = 0.0;
                for (int64_t q = 0; q < tx->width; q++) {
                    int64_t src = a->prefix_tokens + sy * a->grid_w + tx->index[x * tx->width + q];
                    across += tx->weight[x * tx->width + q] * table_at(a->table, src, d);
                }
                cell[d] = across;
            }
        }
    }
    return rows;
}

/* interpolate_cell from the horizontal pass: the same sum over the row taps. */
static void vertical_cell(const pecert_posinterp_args *a, const axis_taps *ty, const double *rows, int64_t y,
                          int64_t x)
{
    int64_t dim = a->table->shape[1];
    int64_t out_row = output_row(a, y, x);

    for (int64_t d = 0; d < dim; d++) {
        double sum = 0.0;
        for (int64_t p = 0; p < ty->width; p++) {
            int64_t src_y = ty->index[y * ty->width + p];
            sum += ty->weight[y * ty->width + p] * rows[(src_y * a->out_w + x) * dim + d];
        }
        store(a->out, out_row, d, sum);
    }
}

pecert_status pecert__ref_pos_interpolate(void *instance, const pecert_posinterp_args *args)
{
    pecert__ref_call call;
    pecert_status status;
    axis_taps ty = {0, NULL, NULL};
    axis_taps tx = {0, NULL, NULL};

    status = pecert__ref_enter(&call, instance, "pos_interpolate", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = pecert__ref_check_posinterp(&call, args);
    }
    if (status != PECERT_OK) {
        return status;
    }
    if (!make_taps(args, args->grid_h, args->out_h, args->scale_h, &ty) ||
        !make_taps(args, args->grid_w, args->out_w, args->scale_w, &tx)) {
        free_taps(&ty);
        return pecert__ref_fail(&call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t r = 0; r < args->prefix_tokens; r++) {
        for (int64_t d = 0; d < args->table->shape[1]; d++) {
            store(args->out, r, d, table_at(args->table, r, d));
        }
    }
    double *rows = horizontal_pass(args, &tx);
    for (int64_t y = 0; y < args->out_h; y++) {
        for (int64_t x = 0; x < args->out_w; x++) {
            if (rows != NULL) {
                vertical_cell(args, &ty, rows, y, x);
            } else {
                interpolate_cell(args, &ty, &tx, y, x);
            }
        }
    }
    free(rows);
    free_taps(&ty);
    free_taps(&tx);
    return PECERT_OK;
}
