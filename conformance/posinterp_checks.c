/*
 * posinterp_checks.c - the resizing of a learned position-embedding grid
 * (ViT, DeiT, CLIP, DINOv2, SigLIP 2, Qwen3-VL): the golden vectors under
 * the interpolation error model, and three properties every such resize
 * has whatever its checkpoint: the native grid comes back bit for bit, a
 * constant table stays constant (the weights sum to one, at the borders
 * too), and mirroring the table mirrors the result (the size form is
 * symmetric about the grid's centre).
 *
 * The error model (TOLERANCES.md, "Position-embedding interpolation")
 * needs each output's taps: their weights come from the oracle itself,
 * asked to resize one-hot tables one axis at a time (a resize is linear,
 * so row i of that answer is output i's weights).
 *
 * A failed golden vector is replayed on the oracle with one convention
 * changed (the output's height and width exchanged, align_corners,
 * antialias, the other mode, the other coordinate form, the row-major
 * order), and once with Keys' cubic (A = -0.5) where PyTorch's bicubic
 * uses A = -0.75; it is also compared with the table itself, for a
 * shortcut on the patch count. The change that reproduces the plugin's
 * output is the symptom diagnose.c names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "isolate.h"
#include "tolerance.h"

typedef pecert_posinterp_call pi_call;

static pi_call call_of(const pecert_vtest *t)
{
    const pecert_vtensor *table = pecert_vtest_input(t, "table");
    pi_call c;
    memset(&c, 0, sizeof(c));
    c.a.struct_size = sizeof(c.a);
    c.a.mode = (pecert_posinterp_mode)pecert_vtest_int(t, "mode", 0);
    c.a.align_corners = (int32_t)pecert_vtest_int(t, "align_corners", 0);
    c.a.antialias = (int32_t)pecert_vtest_int(t, "antialias", 0);
    c.a.prefix_tokens = (int32_t)pecert_vtest_int(t, "prefix_tokens", 0);
    c.a.merge_size = (int32_t)pecert_vtest_int(t, "merge_size", 1);
    c.a.grid_h = pecert_vtest_int(t, "grid_h", 1);
    c.a.grid_w = pecert_vtest_int(t, "grid_w", 1);
    c.a.out_h = pecert_vtest_int(t, "out_h", 1);
    c.a.out_w = pecert_vtest_int(t, "out_w", 1);
    c.a.scale_h = pecert_vtest_number(t, "scale_h", 0.0);
    c.a.scale_w = pecert_vtest_number(t, "scale_w", 0.0);
    c.table = table->data;
    c.dim = table->shape[1];
    return c;
}

static int64_t out_rows(const pi_call *c)
{
    return c->a.prefix_tokens + c->a.out_h * c->a.out_w;
}

/* The output row of cell (y, x) (plugin.h: row-major or merge windows). */
static int64_t cell_row(const pi_call *c, int64_t y, int64_t x)
{
    int64_t m = c->a.merge_size;
    return c->a.prefix_tokens + ((y / m) * (c->a.out_w / m) + x / m) * m * m + (y % m) * m + x % m;
}

/* Runs c on subject s into a fresh buffer; 0 (recorded in r) if it did not. */
int pecert_posinterp_run(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r, const pi_call *c,
                         pecert_out_buf *out, const char *where)
{
    int64_t shape[2] = {out_rows(c), c->dim};
    int64_t table_shape[2] = {c->a.prefix_tokens + c->a.grid_h * c->a.grid_w, c->dim};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_F32, 2, shape, where)) {
        return 0;
    }
    pecert_tensor table = pecert_tensor_2d((void *)(uintptr_t)c->table, PECERT_DTYPE_F32, table_shape[0],
                                           table_shape[1]);
    pecert_posinterp_args a = c->a;
    a.table = &table;
    a.out = &out->view;
    pecert_status st = s->desc->pos_interpolate(s->instance, &a);
    return pecert_out_kept(r, s, st, out, where, "pos_interpolate");
}

/* ---- the error model --------------------------------------------------------- */

/* One axis' weights, dense: w[i * n_in + j] of source j for output i,
 * and the span [lo[i], hi[i]] of output i's non-zero weights (found once:
 * the bound and the replays visit only the span). */
typedef struct pi_axis {
    int64_t n_in;
    int64_t n_out;
    float *w;
    int64_t *lo;
    int64_t *hi;
} pi_axis;

static void axis_free(pi_axis *axis)
{
    free(axis->w);
    free(axis->lo);
    free(axis->hi);
}

/* Fills axis->lo/hi from axis->w (an output with no weight: [0, 0]); 0 if
 * out of memory. */
static int axis_spans(pi_axis *axis)
{
    axis->lo = malloc((size_t)axis->n_out * sizeof(int64_t));
    axis->hi = malloc((size_t)axis->n_out * sizeof(int64_t));
    if (axis->lo == NULL || axis->hi == NULL) {
        return 0;
    }
    for (int64_t i = 0; i < axis->n_out; i++) {
        int64_t lo = axis->n_in;
        int64_t hi = -1;
        for (int64_t j = 0; j < axis->n_in; j++) {
            if (axis->w[i * axis->n_in + j] != 0.0f) {
                lo = j < lo ? j : lo;
                hi = j;
            }
        }
        axis->lo[i] = hi < 0 ? 0 : lo;
        axis->hi[i] = hi < 0 ? 0 : hi;
    }
    return 1;
}

/* The oracle's weights of one axis of c: a one-hot [n_in, 1] grid with
 * n_in channels resized to [n_out, 1] (the other axis 1 -> 1, the size
 * form, which is the identity). */
static int oracle_axis(const pecert_check_env *env, pecert_check_result *r, const pi_call *c, int rows,
                       pi_axis *axis, const char *where)
{
    int64_t n_in = rows ? c->a.grid_h : c->a.grid_w;
    float *onehot = calloc((size_t)(n_in * n_in), sizeof(float));
    if (onehot == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return 0;
    }
    for (int64_t j = 0; j < n_in; j++) {
        onehot[j * n_in + j] = 1.0f;
    }
    pi_call probe = *c;
    probe.a.prefix_tokens = 0;
    probe.a.merge_size = 1;
    probe.a.grid_h = n_in;
    probe.a.grid_w = 1;
    probe.a.out_h = rows ? c->a.out_h : c->a.out_w;
    probe.a.out_w = 1;
    probe.a.scale_h = rows ? c->a.scale_h : c->a.scale_w;
    probe.a.scale_w = 0.0;
    probe.table = onehot;
    probe.dim = n_in;
    pecert_check_result scratch;
    pecert_check_result_init(&scratch, r->check_id);
    pecert_out_buf out;
    int ok = pecert_posinterp_run(env, &env->oracle, &scratch, &probe, &out, where);
    if (!ok) {
        pecert_case_fail(r, where, "the oracle's pos_interpolate refused the axis probe");
    } else {
        axis->n_in = n_in;
        axis->n_out = probe.a.out_h;
        axis->w = malloc((size_t)(axis->n_out * n_in) * sizeof(float));
        ok = axis->w != NULL;
        for (int64_t i = 0; ok && i < axis->n_out * n_in; i++) {
            axis->w[i] = (float)pecert_out_get(&out, i);
        }
        ok = ok && axis_spans(axis);
        if (!ok) {
            pecert_case_fail(r, where, "out of memory");
        }
        pecert_out_free(&out);
    }
    pecert_check_result_release(&scratch);
    free(onehot);
    return ok;
}

/*
 * The bound of one output element, two float32 computations apart:
 *   value     (n_y + n_x + 6) u S a side, S = sum |w_y| |w_x| |e| over the
 *             taps: the weights' own rounding (antialias: their
 *             normalisation), one product and one sum per tap of each pass
 *             (n_y, n_x: the taps per axis; taps clamped onto one border
 *             index arrive merged, their weight the sum, which the
 *             position term's 1.5 G covers);
 *   position  a source coordinate (i + 0.5) s - 0.5 (or torch.linspace's)
 *             computed in float32 is off by up to 4 (n_in + 1) u a side; an
 *             output's weights move by at most PI_TOL_SLOPE in sum per unit
 *             of coordinate (sum |w'| of the four cubic taps peaks at 3.0,
 *             A = -0.75 or -0.5; the triangle's is 2), the other axis'
 *             weights sum to at most PI_TOL_MASS in magnitude (the cubic's
 *             sum |w| peaks at 1.375), and the values they weigh are at most
 *             G = max |e| over the taps' span widened by one.
 */
#define PI_TOL_SLOPE 3.0
#define PI_TOL_MASS 1.5

/* The taps an engine sums for output i of an axis: four (bicubic) or two
 * (bilinear), or the antialias window (its non-zero span). */
static double axis_taps(const pi_call *c, const pi_axis *axis, int64_t i)
{
    if (c->a.antialias) {
        return (double)(axis->hi[i] - axis->lo[i] + 1);
    }
    return c->a.mode == PECERT_POSINTERP_BICUBIC ? 4.0 : 2.0;
}

/* The bounds of cell (y, x)'s dim elements into b: per channel d, the
 * weighted mass s_d of its taps and the largest |value| g_d around them,
 * summed and maxed in the same order per channel as one element at a time
 * would (the weights of a tap computed once for every channel: a cell of
 * an antialiased downscale has tens of taps). s and g: dim doubles each. */
static void cell_bounds(const pi_call *c, const pi_axis *ay, const pi_axis *ax, int64_t y, int64_t x, double *b,
                        double *s, double *g)
{
    int64_t y0 = ay->lo[y], y1 = ay->hi[y], x0 = ax->lo[x], x1 = ax->hi[x], dim = c->dim;
    for (int64_t d = 0; d < dim; d++) {
        s[d] = 0.0;
        g[d] = 0.0;
    }
    for (int64_t p = y0; p <= y1; p++) {
        for (int64_t q = x0; q <= x1; q++) {
            double w = fabs((double)ay->w[y * ay->n_in + p]) * fabs((double)ax->w[x * ax->n_in + q]);
            const float *v = c->table + (c->a.prefix_tokens + p * c->a.grid_w + q) * dim;
            for (int64_t d = 0; d < dim; d++) {
                s[d] += w * fabs((double)v[d]);
            }
        }
    }
    for (int64_t p = (y0 > 0 ? y0 - 1 : 0); p <= (y1 + 1 < ay->n_in ? y1 + 1 : y1); p++) {
        for (int64_t q = (x0 > 0 ? x0 - 1 : 0); q <= (x1 + 1 < ax->n_in ? x1 + 1 : x1); q++) {
            const float *v = c->table + (c->a.prefix_tokens + p * c->a.grid_w + q) * dim;
            for (int64_t d = 0; d < dim; d++) {
                double a = fabs((double)v[d]);
                g[d] = a > g[d] ? a : g[d]; /* fmax's: a NaN never wins */
            }
        }
    }
    double taps = axis_taps(c, ay, y) + axis_taps(c, ax, x);
    double value = 2.0 * (taps + 6.0) * PECERT_U32;
    double position = 2.0 * 4.0 * PECERT_U32 * ((double)ay->n_in + (double)ax->n_in + 2.0) * PI_TOL_SLOPE *
                      PI_TOL_MASS;
    for (int64_t d = 0; d < dim; d++) {
        b[d] = value * s[d] + position * g[d];
    }
}

/* The bound of every output element of c (prefix rows: 0, a copy), in
 * output order; NULL (recorded in r) if the oracle could not give it. */
static double *bounds_of(const pecert_check_env *env, pecert_check_result *r, const pi_call *c, const char *where)
{
    pi_axis ay = {0, 0, NULL, NULL, NULL};
    pi_axis ax = {0, 0, NULL, NULL, NULL};
    double *b = NULL;
    double *sums = NULL;
    if (oracle_axis(env, r, c, 1, &ay, where) && oracle_axis(env, r, c, 0, &ax, where)) {
        b = calloc((size_t)(out_rows(c) * c->dim), sizeof(double));
        sums = malloc(2 * (size_t)c->dim * sizeof(double));
        if (b == NULL || sums == NULL) {
            pecert_case_fail(r, where, "out of memory");
            free(b);
            b = NULL;
        }
        for (int64_t y = 0; b != NULL && y < c->a.out_h; y++) {
            for (int64_t x = 0; x < c->a.out_w; x++) {
                cell_bounds(c, &ay, &ax, y, x, b + cell_row(c, y, x) * c->dim, sums, sums + c->dim);
            }
        }
    }
    free(sums);
    axis_free(&ay);
    axis_free(&ax);
    return b;
}

/* Every element of got against want[i] under bounds[i], into *w. */
static void compare_all(pecert_case_worst *w, const pecert_out_buf *got, const pecert_out_buf *want,
                        const double *bounds)
{
    pecert_case_worst_init(w);
    for (int64_t i = 0; i < got->n; i++) {
        pecert_case_worst_add(w, i, pecert_out_get(got, i), pecert_out_get(want, i), bounds[i]);
    }
}

/* The element's place: a prefix row, or the cell (y, x) of the output
 * grid that its row holds (cell_row inverted: merge windows too). */
static void finish_case(pecert_check_result *r, const pecert_case_worst *w, const pi_call *c, const char *where)
{
    int64_t e = w->index < 0 ? 0 : w->index;
    int64_t dim = c->dim > 0 ? c->dim : 1;
    int64_t row = e / dim;
    char elem[160];
    if (row < c->a.prefix_tokens) {
        snprintf(elem, sizeof(elem), "[prefix row %lld, d=%lld]", (long long)row, (long long)(e % dim));
    } else {
        int64_t m = c->a.merge_size > 0 ? c->a.merge_size : 1;
        int64_t k = row - c->a.prefix_tokens;
        int64_t window = k / (m * m), inner = k % (m * m), across = c->a.out_w / m > 0 ? c->a.out_w / m : 1;
        snprintf(elem, sizeof(elem), "[cell (%lld, %lld) of the %lldx%lld grid, d=%lld]",
                 (long long)(window / across * m + inner / m), (long long)(window % across * m + inner % m),
                 (long long)c->a.out_h, (long long)c->a.out_w, (long long)(e % dim));
    }
    pecert_case_finish(r, w, where, elem);
}

/* ---- the replays ----------------------------------------------------------------- */

/* 1 if the oracle, asked `other`, reproduces got under other's bounds. */
static int oracle_explains(const pecert_check_env *env, const pecert_check_result *r, const pi_call *other,
                           const pecert_out_buf *got, const char *where)
{
    pecert_check_result scratch;
    pecert_check_result_init(&scratch, r->check_id);
    pecert_out_buf want;
    int explains = 0;
    if (pecert_posinterp_run(env, &env->oracle, &scratch, other, &want, where)) {
        double *bounds = bounds_of(env, &scratch, other, where);
        if (bounds != NULL) {
            pecert_case_worst w;
            compare_all(&w, got, &want, bounds);
            explains = pecert_case_worst_holds(&w);
        }
        free(bounds);
        pecert_out_free(&want);
    }
    pecert_check_result_release(&scratch);
    return explains;
}

/* Keys' cubic convolution kernel with a = -0.5 (the PIL/OpenCV-free
 * textbook choice) at distance t. */
static double keys_kernel(double t)
{
    t = fabs(t);
    return t < 1.0 ? (1.5 * t - 2.5) * t * t + 1.0 : (t < 2.0 ? ((-0.5 * t + 2.5) * t - 4.0) * t + 2.0 : 0.0);
}

/* One axis' weights of a bicubic resize with a = -0.5 in place of A =
 * -0.75, taps clamped at the borders as plugin.h states, with their spans;
 * 0 if out of memory. */
static int keys_axis(const pi_call *c, int rows, pi_axis *axis)
{
    int64_t n_in = rows ? c->a.grid_h : c->a.grid_w;
    int64_t n_out = rows ? c->a.out_h : c->a.out_w;
    double scale = rows ? c->a.scale_h : c->a.scale_w;
    float *w = calloc((size_t)(n_in * n_out), sizeof(float));
    double step = c->a.align_corners ? (n_out > 1 ? (double)(n_in - 1) / (double)(n_out - 1) : 0.0)
                                     : (scale > 0.0 ? 1.0 / scale : (double)n_in / (double)n_out);
    for (int64_t i = 0; w != NULL && i < n_out; i++) {
        double x = c->a.align_corners ? step * (double)i : step * ((double)i + 0.5) - 0.5;
        double f = floor(x);
        for (int k = -1; k <= 2; k++) {
            int64_t j = (int64_t)f + k;
            j = j < 0 ? 0 : (j >= n_in ? n_in - 1 : j);
            w[i * n_in + j] += (float)keys_kernel(x - (f + k));
        }
    }
    *axis = (pi_axis){n_in, n_out, w, NULL, NULL};
    return w != NULL && axis_spans(axis);
}

/* mlx-vlm #1241's bug: the bicubic kernel with a = -0.5. Computed here in
 * double; 1 if it reproduces got under the A = -0.75 resize's bounds (the
 * golden case's, passed in). */
static int keys_explains(const pi_call *c, const pecert_out_buf *got, const double *bounds)
{
    if (c->a.mode != PECERT_POSINTERP_BICUBIC || c->a.antialias) {
        return 0;
    }
    pi_axis ay = {0, 0, NULL, NULL, NULL};
    pi_axis ax = {0, 0, NULL, NULL, NULL};
    int explains = 0;
    if (keys_axis(c, 1, &ay) && keys_axis(c, 0, &ax)) {
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        pecert_out_worst_exact(&w, got, c->table, c->a.prefix_tokens * c->dim); /* the prefix rows: as they are */
        for (int64_t y = 0; y < c->a.out_h; y++) {
            for (int64_t x = 0; x < c->a.out_w; x++) {
                int64_t row = cell_row(c, y, x);
                for (int64_t d = 0; d < c->dim; d++) {
                    double sum = 0.0;
                    for (int64_t p = ay.lo[y]; p <= ay.hi[y]; p++) {
                        double wp = ay.w[y * c->a.grid_h + p];
                        for (int64_t q = ax.lo[x]; q <= ax.hi[x]; q++) {
                            sum += wp * ax.w[x * c->a.grid_w + q] *
                                   c->table[(c->a.prefix_tokens + p * c->a.grid_w + q) * c->dim + d];
                        }
                    }
                    int64_t e = row * c->dim + d;
                    pecert_case_worst_add(&w, e, pecert_out_get(got, e), sum, bounds[e]);
                }
            }
        }
        explains = pecert_case_worst_holds(&w);
    }
    axis_free(&ay);
    axis_free(&ax);
    return explains;
}

/* The DINOv2 hub's scale_factor form for an axis: (n_out + 0.1) / n_in. */
static double offset_scale(int64_t n_in, int64_t n_out)
{
    return ((double)n_out + 0.1) / (double)n_in;
}

/* timm PR #2737's and the original DINO's shortcut: as many patches as
 * the table's grid, in another shape, and the table's grid rows come back
 * unchanged, bit for bit. */
static int shortcut_explains(const pi_call *c, const pecert_out_buf *got)
{
    int64_t cells = c->a.grid_h * c->a.grid_w;
    if (cells != c->a.out_h * c->a.out_w || c->a.grid_h == c->a.out_h) {
        return 0;
    }
    for (int64_t i = c->a.prefix_tokens * c->dim; i < got->n; i++) {
        if (pecert_out_get(got, i) != (double)c->table[i]) {
            return 0;
        }
    }
    return 1;
}

/* torchtitan PR #4244's bug: the output grid built with its height and
 * width exchanged (meshgrid "xy" and (y, x) coordinates) and written row
 * by row, which square outputs hide; defined for a square table. */
static int swapped_axes_explain(const pecert_check_env *env, const pecert_check_result *r, const pi_call *c,
                                const pecert_out_buf *got, const char *where)
{
    if (c->a.out_h == c->a.out_w || c->a.grid_h != c->a.grid_w) {
        return 0;
    }
    pi_call other = *c;
    other.a.out_h = c->a.out_w;
    other.a.out_w = c->a.out_h;
    other.a.scale_h = c->a.scale_w;
    other.a.scale_w = c->a.scale_h;
    return oracle_explains(env, r, &other, got, where);
}

/* A failed vector (bounds: its own): the first convention change that
 * reproduces got. */
static void explain(const pecert_check_env *env, pecert_check_result *r, const pi_call *c, const pecert_out_buf *got,
                    const double *bounds, const char *where)
{
    if (shortcut_explains(c, got)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_POSINTERP_SHORTCUT);
        return;
    }
    if (swapped_axes_explain(env, r, c, got, where)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_POSINTERP_AXES_SWAPPED);
        return;
    }
    pi_call other = *c;
    int scaled = c->a.scale_h > 0.0 || c->a.scale_w > 0.0;
    if (!c->a.antialias && !scaled) {
        other.a.align_corners = !c->a.align_corners;
        if (oracle_explains(env, r, &other, got, where)) {
            pecert_check_symptom(r, "%s",
                                 c->a.align_corners ? PECERT_SYMPTOM_POSINTERP_ALIGN_CORNERS_FALSE
                                                    : PECERT_SYMPTOM_POSINTERP_ALIGN_CORNERS_TRUE);
            return;
        }
    }
    other = *c;
    if (!c->a.align_corners) {
        other.a.antialias = !c->a.antialias;
        if (oracle_explains(env, r, &other, got, where)) {
            pecert_check_symptom(r, "%s",
                                 c->a.antialias ? PECERT_SYMPTOM_POSINTERP_ANTIALIAS_DROPPED
                                                : PECERT_SYMPTOM_POSINTERP_ANTIALIAS_ADDED);
            return;
        }
    }
    other = *c;
    if (!scaled) {
        other.a.mode = c->a.mode == PECERT_POSINTERP_BICUBIC ? PECERT_POSINTERP_BILINEAR : PECERT_POSINTERP_BICUBIC;
        if (oracle_explains(env, r, &other, got, where)) {
            pecert_check_symptom(r, "%s",
                                 other.a.mode == PECERT_POSINTERP_BICUBIC ? PECERT_SYMPTOM_POSINTERP_MODE_BICUBIC
                                                                          : PECERT_SYMPTOM_POSINTERP_MODE_BILINEAR);
            return;
        }
    }
    other = *c;
    if (scaled) {
        other.a.scale_h = other.a.scale_w = 0.0;
    } else if (c->a.mode == PECERT_POSINTERP_BICUBIC && !c->a.align_corners) {
        other.a.scale_h = offset_scale(c->a.grid_h, c->a.out_h);
        other.a.scale_w = offset_scale(c->a.grid_w, c->a.out_w);
    }
    if ((scaled || other.a.scale_h > 0.0) && oracle_explains(env, r, &other, got, where)) {
        pecert_check_symptom(
            r, "%s", scaled ? PECERT_SYMPTOM_POSINTERP_SCALE_FORM_SIZE : PECERT_SYMPTOM_POSINTERP_SCALE_FORM_OFFSET);
        return;
    }
    if (keys_explains(c, got, bounds)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_POSINTERP_CUBIC_COEFFICIENT);
        return;
    }
    other = *c;
    other.a.merge_size = 1;
    if (c->a.merge_size > 1 && oracle_explains(env, r, &other, got, where)) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_POSINTERP_ORDER_ROW_MAJOR);
    }
}

void pecert_posinterp_judge(const pecert_check_env *env, pecert_check_result *r, const pi_call *c,
                            const pecert_out_buf *got, const pecert_out_buf *want, const char *where)
{
    double *bounds = bounds_of(env, r, c, where);
    if (bounds != NULL) {
        pecert_case_worst w;
        compare_all(&w, got, want, bounds);
        finish_case(r, &w, c, where);
        if (w.n_bad > 0) {
            explain(env, r, c, got, bounds, where);
        }
    }
    free(bounds);
}

/* ---- posinterp.golden ---------------------------------------------------------------- */

static void golden_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    pi_call c = call_of(t);
    pecert_out_buf got;
    if (!pecert_posinterp_run(env, &env->plugin, r, &c, &got, where)) {
        return;
    }
    double *bounds = bounds_of(env, r, &c, where);
    if (bounds != NULL) {
        const pecert_vtensor *want = pecert_vtest_output(t, "out");
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int64_t i = 0; i < want->num_elements; i++) {
            pecert_case_worst_add(&w, i, pecert_out_get(&got, i), pecert_vtensor_get(want, i), bounds[i]);
        }
        finish_case(r, &w, &c, where);
        if (w.n_bad > 0) {
            explain(env, r, &c, &got, bounds, where);
        }
    }
    free(bounds);
    pecert_out_free(&got);
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "posinterp.resize", golden_case);
}

/* ---- posinterp.native_identity --------------------------------------------------------- */

/* The vector's conventions at its own grid in the size form: every
 * source coordinate is an integer, every weight 0 or 1, so the table comes
 * back bit for bit (PyTorch returns it as is; ViTEmbeddings does not even
 * call interpolate). */
static void identity_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                          const char *where)
{
    pi_call c = call_of(t);
    c.a.out_h = c.a.grid_h;
    c.a.out_w = c.a.grid_w;
    c.a.scale_h = c.a.scale_w = 0.0;
    c.a.merge_size = 1;
    pecert_out_buf got;
    if (!pecert_posinterp_run(env, &env->plugin, r, &c, &got, where)) {
        return;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    pecert_out_worst_exact(&w, &got, c.table, got.n);
    finish_case(r, &w, &c, where);
    pecert_case_worst_symptom(r, &w, "posinterp_native_not_identity");
    pecert_out_free(&got);
}

static void run_identity(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "posinterp.resize", identity_case);
}

/* ---- posinterp.constant ----------------------------------------------------------------- */

/* Channel d constant c_d over the grid (the prefix rows random): every
 * output cell must be c_d within the value bound of the taps, whose
 * weights sum to one (plugin.h; antialias divides by their sum). */
static void constant_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                          const char *where)
{
    pi_call c = call_of(t);
    int64_t rows = c.a.prefix_tokens + c.a.grid_h * c.a.grid_w;
    float *table = malloc((size_t)(rows * c.dim) * sizeof(float));
    if (table == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    pecert_rng rng = {0x706f73696e746572ull + (uint64_t)t->tc_id};
    for (int64_t i = 0; i < rows * c.dim; i++) {
        table[i] = i < (c.a.prefix_tokens + 1) * c.dim ? pecert_rng_float(&rng) : table[i - c.dim];
    }
    c.table = table;
    pecert_out_buf got;
    if (pecert_posinterp_run(env, &env->plugin, r, &c, &got, where)) {
        double *bounds = bounds_of(env, r, &c, where);
        if (bounds != NULL) {
            pecert_case_worst w;
            pecert_case_worst_init(&w);
            for (int64_t i = 0; i < got.n; i++) {
                int64_t row = i / c.dim;
                double want = row < c.a.prefix_tokens ? table[i] : table[c.a.prefix_tokens * c.dim + i % c.dim];
                pecert_case_worst_add(&w, i, pecert_out_get(&got, i), want, bounds[i]);
            }
            finish_case(r, &w, &c, where);
            pecert_case_worst_symptom(r, &w, "posinterp_weights_not_normalised");
        }
        free(bounds);
        pecert_out_free(&got);
    }
    free(table);
}

static void run_constant(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "posinterp.resize", constant_case);
}

/* ---- posinterp.mirror_symmetry ------------------------------------------------------------ */

/* The vector's table with its grid's rows and columns reversed (the
 * prefix rows as they are). */
static float *mirrored_table(const pi_call *c)
{
    int64_t rows = c->a.prefix_tokens + c->a.grid_h * c->a.grid_w;
    float *m = malloc((size_t)(rows * c->dim) * sizeof(float));
    if (m == NULL) {
        return NULL;
    }
    memcpy(m, c->table, (size_t)(c->a.prefix_tokens * c->dim) * sizeof(float));
    for (int64_t p = 0; p < c->a.grid_h; p++) {
        for (int64_t q = 0; q < c->a.grid_w; q++) {
            int64_t from = c->a.prefix_tokens + (c->a.grid_h - 1 - p) * c->a.grid_w + (c->a.grid_w - 1 - q);
            memcpy(m + (c->a.prefix_tokens + p * c->a.grid_w + q) * c->dim, c->table + from * c->dim,
                   (size_t)c->dim * sizeof(float));
        }
    }
    return m;
}

/* In the size form source coordinate x(i) and x(n_out - 1 - i) add up to
 * n_in - 1 for align_corners either way and for antialias (whose taps
 * mirror too): resizing the mirrored table gives the mirrored result,
 * within the bounds of both. DINOv2's scale_factor form is not symmetric
 * (its offset shifts the grid) and is asked in the size form here. */
static void mirror_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    pi_call c = call_of(t);
    c.a.scale_h = c.a.scale_w = 0.0;
    c.a.merge_size = 1;
    float *mirror = mirrored_table(&c);
    if (mirror == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    pi_call flipped = c;
    flipped.table = mirror;
    pecert_out_buf straight;
    pecert_out_buf turned;
    if (pecert_posinterp_run(env, &env->plugin, r, &c, &straight, where)) {
        if (pecert_posinterp_run(env, &env->plugin, r, &flipped, &turned, where)) {
            double *bounds = bounds_of(env, r, &c, where);
            if (bounds != NULL) {
                pecert_case_worst w;
                pecert_case_worst_init(&w);
                for (int64_t y = 0; y < c.a.out_h; y++) {
                    for (int64_t x = 0; x < c.a.out_w; x++) {
                        int64_t row = cell_row(&c, y, x);
                        int64_t across = cell_row(&c, c.a.out_h - 1 - y, c.a.out_w - 1 - x);
                        for (int64_t d = 0; d < c.dim; d++) {
                            int64_t i = row * c.dim + d;
                            pecert_case_worst_add(&w, i, pecert_out_get(&turned, across * c.dim + d),
                                                  pecert_out_get(&straight, i), bounds[i]);
                        }
                    }
                }
                finish_case(r, &w, &c, where);
                pecert_case_worst_symptom(r, &w, "posinterp_not_symmetric");
            }
            free(bounds);
            pecert_out_free(&turned);
        }
        pecert_out_free(&straight);
    }
    free(mirror);
}

static void run_mirror(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "posinterp.resize", mirror_case);
}

const pecert_check pecert_check_posinterp_golden = {
    PECERT_ID_POSINTERP_GOLDEN,
    "a resized position grid equals ViT/DeiT/CLIP/DINOv2/SigLIP 2/Qwen3-VL's official interpolation",
    PECERT_NEED_POS_INTERPOLATE, run_golden};
const pecert_check pecert_check_posinterp_native_identity = {
    PECERT_ID_POSINTERP_NATIVE_IDENTITY, "resizing a position grid to its own size gives it back bit for bit",
    PECERT_NEED_POS_INTERPOLATE, run_identity};
const pecert_check pecert_check_posinterp_constant = {
    PECERT_ID_POSINTERP_CONSTANT,
    "a constant position grid stays constant (the weights sum to one, at the borders too)",
    PECERT_NEED_POS_INTERPOLATE, run_constant};
const pecert_check pecert_check_posinterp_mirror_symmetry = {
    PECERT_ID_POSINTERP_MIRROR_SYMMETRY, "resizing the mirrored grid gives the mirrored result (the size form)",
    PECERT_NEED_POS_INTERPOLATE, run_mirror};
