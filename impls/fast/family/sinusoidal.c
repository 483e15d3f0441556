/*
 * sinusoidal.c - absolute sinusoidal embeddings (op sinusoidal) and the
 * 2-D sin-cos of ViT/MAE (op sincos_2d).
 *
 * Variants (plugin.h; d = dim, B = base, h = floor(d / 2)):
 *   INTERLEAVED  2i: sin(p f_i), 2i+1: cos(p f_i), f_i = B^(-2i/d)
 *   CONCAT       sin for i < ceil(d/2), then cos for i < h, f_i = B^(-2i/d)
 *   T2T          sin | cos for i < h, f_i = exp(-i ln B / max(h - 1, 1)),
 *                a zero last channel for odd d
 *   FAIRSEQ      the T2T table at row padding_idx + 1 + p; p = -1 is the
 *                zero row padding_idx
 * Each call computes the channel plan (the distinct frequencies, and per
 * channel its frequency and sin/cos/zero) once; then each row's sin/cos
 * per frequency come from table.c's rows, as rope_cos_sin's do: computed
 * directly every 32 rows and wherever positions jump, otherwise advanced
 * one position by the angle-addition step (< 2e-14 after 31 steps, far
 * below the bound of TOLERANCES.md, 16u). Rows are split over threads; a
 * row's bits do not depend on the split.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../family.h"

enum { KIND_SIN = 0, KIND_COS = 1, KIND_ZERO = 2 };

/* Frequency and kind of channel j. */
static int channel(const pecert_sinusoidal_args *a, int32_t j, double *freq)
{
    int32_t d = a->dim;
    int32_t h = d / 2;
    double ln_base = log(a->base);

    *freq = 0.0;
    switch (a->variant) {
    case PECERT_SINUSOIDAL_INTERLEAVED:
        *freq = exp(-ln_base * (double)(2 * (j / 2)) / (double)d);
        return j % 2 == 0 ? KIND_SIN : KIND_COS;
    case PECERT_SINUSOIDAL_CONCAT: {
        int32_t n_sin = d - h;
        int32_t i = j < n_sin ? j : j - n_sin;

        *freq = exp(-ln_base * (double)(2 * i) / (double)d);
        return j < n_sin ? KIND_SIN : KIND_COS;
    }
    default: {
        double divisor = h - 1 > 1 ? (double)(h - 1) : 1.0;

        if (j >= 2 * h) {
            return KIND_ZERO;
        }
        *freq = exp(-(double)(j % h) * ln_base / divisor);
        return j < h ? KIND_SIN : KIND_COS;
    }
    }
}

static pecert_status check_variant(const pecert__fast_call *call, const pecert_sinusoidal_args *a)
{
    if (a->variant < PECERT_SINUSOIDAL_INTERLEAVED || a->variant > PECERT_SINUSOIDAL_FAIRSEQ) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "variant=%" PRId32 " must be 0..3",
                                 a->variant);
    }
    if (a->dim < 2) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "dim=%" PRId32 " must be >= 2", a->dim);
    }
    if (!isfinite(a->base) || a->base <= 1.0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "base=%.17g must be finite and > 1",
                                 a->base);
    }
    if (a->variant != PECERT_SINUSOIDAL_FAIRSEQ) {
        return a->padding_idx == -1
                   ? PECERT_OK
                   : pecert__fast_fail(call, PECERT_E_INVAL,
                                       "padding_idx=%" PRId32 " must be -1 outside FAIRSEQ",
                                       a->padding_idx);
    }
    if (a->padding_idx < 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "padding_idx=%" PRId32 " must be >= 0 for FAIRSEQ",
                                 a->padding_idx);
    }
    if (a->dim / 2 - 1 < 1) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "dim=%" PRId32 " must be >= 4 for FAIRSEQ (it divides by dim/2 - 1)",
                                 a->dim);
    }
    for (int64_t i = 0; i < a->n; i++) {
        if (a->positions[i] < -1) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "positions[%" PRId64 "]=%" PRId64
                                     " must be -1 (padding) or >= 0 for FAIRSEQ",
                                     i, a->positions[i]);
        }
    }
    return PECERT_OK;
}

/* A call's channels: m distinct frequencies, and per channel the index of
 * its frequency and its kind. */
typedef struct sinusoidal_plan {
    int32_t m;
    pecert__fast_freqs freqs;  /* the m frequencies and their steps       */
    const int64_t *rows;       /* [n] each row's position                 */
    int32_t *index;            /* [dim]                                   */
    int32_t *kind;             /* [dim] KIND_*                            */
} sinusoidal_plan;

/* Channel j's frequency index: channels that share a frequency share it. */
static int32_t freq_index(const pecert_sinusoidal_args *a, int32_t j)
{
    int32_t h = a->dim / 2;

    switch (a->variant) {
    case PECERT_SINUSOIDAL_INTERLEAVED: return j / 2;
    case PECERT_SINUSOIDAL_CONCAT: return j < a->dim - h ? j : j - (a->dim - h);
    default: return j < 2 * h ? j % h : 0;
    }
}

static void sinusoidal_begin(const pecert__fast_row_job *job, void *scratch)
{
    const sinusoidal_plan *plan = job->plan;

    (void)pecert__fast_fam_rows_start(scratch, job->kernels, &plan->freqs, plan->rows);
}

/* A contiguous f32 row placed from its sin and cos per frequency, by
 * layout (the channel plan's placement, in whole runs); 0 if the view is
 * not one. */
static int place_f32(const pecert__fast_row_job *job, int64_t r, const double *sin, const double *cos)
{
    const pecert_sinusoidal_args *a = job->op;
    const sinusoidal_plan *plan = job->plan;
    int32_t d = a->dim;
    int32_t h = d / 2;
    float *o;

    if (a->out->dtype != PECERT_DTYPE_F32 || a->out->strides[1] != 1) {
        return 0;
    }
    o = (float *)a->out->data + r * a->out->strides[0];
    switch (a->variant) {
    case PECERT_SINUSOIDAL_INTERLEAVED:
        pecert__fast_fam_interleave(job, o, sin, cos, h);
        if (d % 2 != 0) {
            o[d - 1] = (float)sin[plan->m - 1];
        }
        break;
    case PECERT_SINUSOIDAL_CONCAT:
        pecert__fast_fam_narrow(job, o, sin, plan->m);
        pecert__fast_fam_narrow(job, o + plan->m, cos, h);
        break;
    default:
        pecert__fast_fam_narrow(job, o, sin, h);
        pecert__fast_fam_narrow(job, o + h, cos, h);
        if (d % 2 != 0) {
            o[d - 1] = 0.0f;
        }
        break;
    }
    return 1;
}

/* A streamed row one step from the row held, in a layout whose channels
 * are the m frequencies' sines and cosines once each (interleaved; sin |
 * cos halves with m = d/2): stepped and streamed out in one pass
 * (table.c, pecert__fast_rows_step_out); 0 if not taken. */
static int step_out(const pecert__fast_row_job *job, pecert__fast_rows *rows, int64_t r)
{
    const pecert_sinusoidal_args *a = job->op;
    const sinusoidal_plan *plan = job->plan;
    float *o = (float *)a->out->data + r * a->out->strides[0];

    if (!job->streaming || a->out->dtype != PECERT_DTYPE_F32 || a->out->strides[1] != 1 || a->dim % 2 != 0 ||
        plan->m != a->dim / 2) {
        return 0;
    }
    if (a->variant == PECERT_SINUSOIDAL_INTERLEAVED) {
        return pecert__fast_rows_step_out(rows, r, o, NULL);
    }
    return pecert__fast_rows_step_out(rows, r, o, o + plan->m);
}

/* Row r: the sin/cos of its position's m angles (table.c's rows), placed
 * per channel. */
static void sinusoidal_row(const pecert__fast_row_job *job, int64_t r, void *scratch)
{
    const pecert_sinusoidal_args *a = job->op;
    const sinusoidal_plan *plan = job->plan;
    pecert__fast_rows *rows = scratch;
    double *values = (double *)((unsigned char *)scratch + pecert__fast_fam_rows_bytes(plan->m));

    if (a->variant == PECERT_SINUSOIDAL_FAIRSEQ && a->positions[r] == -1) {
        memset(values, 0, (size_t)a->dim * sizeof(double)); /* the padding row */
    } else {
        if (step_out(job, rows, r)) {
            return;
        }
        pecert__fast_rows_seek(rows, r);
        if (place_f32(job, r, rows->sin, rows->cos)) {
            return;
        }
        for (int32_t j = 0; j < a->dim; j++) {
            double v = plan->kind[j] == KIND_SIN ? rows->sin[plan->index[j]] : rows->cos[plan->index[j]];

            values[j] = plan->kind[j] == KIND_ZERO ? 0.0 : v;
        }
    }
    pecert__fast_fam_store_row(job, a->out, r, values, a->dim);
}

pecert_status pecert__fast_sinusoidal(void *instance, const pecert_sinusoidal_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    pecert__fast_row_job job;
    sinusoidal_plan plan;
    unsigned char *p;

    status = pecert__fast_fam_enter(&call, instance, "sinusoidal", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_reserved(&call, "args", args->reserved, 4);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(&call, "positions", args->positions, args->n);
    }
    if (status == PECERT_OK) {
        status = check_variant(&call, args);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {args->n, args->dim};

        status = pecert__fast_fam_check_view(&call, "out", args->out, 2, shape, PECERT__FAM_FLOAT,
                                             1);
    }
    if (status != PECERT_OK || pecert__fast_is_empty(args->out)) {
        return status;
    }
    plan.m = args->variant == PECERT_SINUSOIDAL_INTERLEAVED || args->variant == PECERT_SINUSOIDAL_CONCAT
                 ? args->dim - args->dim / 2
                 : args->dim / 2;
    job = (pecert__fast_row_job){.row = sinusoidal_row, .begin = sinusoidal_begin, .op = args, .plan = &plan,
                                 .kernels = call.instance->kernels, .rows = args->n};
    p = pecert__fast_fam_row_memory(&call, args->out,
                                    3 * (size_t)plan.m * sizeof(double) + 2 * (size_t)args->dim * sizeof(int32_t) +
                                        (size_t)args->n * sizeof(int64_t),
                                    pecert__fast_fam_rows_bytes(plan.m) + (size_t)args->dim * sizeof(double), &job);
    if (p == NULL) {
        return PECERT_E_NOMEM;
    }
    {
        double *inv = (double *)p;
        int64_t *shifted = (int64_t *)(inv + 3 * (size_t)plan.m);

        plan.index = (int32_t *)(shifted + args->n);
        plan.kind = plan.index + args->dim;
        for (int32_t j = 0; j < args->dim; j++) {
            double freq;

            plan.kind[j] = channel(args, j, &freq);
            plan.index[j] = freq_index(args, j);
            if (plan.kind[j] != KIND_ZERO) {
                inv[plan.index[j]] = freq;
            }
        }
        pecert__fast_fam_table_freqs(&plan.freqs, inv, plan.m, inv + plan.m);
        /* FAIRSEQ reads row padding_idx + 1 + p (padding rows are zeros and
         * never seek: their entry only breaks the run of steps). */
        plan.rows = args->positions;
        if (args->variant == PECERT_SINUSOIDAL_FAIRSEQ) {
            for (int64_t i = 0; i < args->n; i++) {
                shifted[i] = args->positions[i] == -1 ? -1 : (int64_t)args->padding_idx + 1 + args->positions[i];
            }
            plan.rows = shifted;
        }
    }
    pecert__fast_fam_run_rows(&job);
    return PECERT_OK;
}

static pecert_status check_sincos2d_args(const pecert__fast_call *call,
                                         const pecert_sincos2d_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->layout != PECERT_SINCOS2D_MAE && a->layout != PECERT_SINCOS2D_RT_DETR) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "layout=%" PRId32 " is not a PECERT_SINCOS2D_*",
                                   a->layout);
    }
    if (status == PECERT_OK && (a->embed_dim < 4 || a->embed_dim % 4 != 0)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "embed_dim=%" PRId32 " must be a positive multiple of 4",
                                   a->embed_dim);
    }
    if (status == PECERT_OK && (a->grid_h < 1 || a->grid_w < 1)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "grid_h=%" PRId32 ", grid_w=%" PRId32 " must both be >= 1",
                                   a->grid_h, a->grid_w);
    }
    if (status == PECERT_OK && a->cls_token != 0 && a->cls_token != 1) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "cls_token=%" PRId32 " must be 0 or 1",
                                   a->cls_token);
    }
    if (status == PECERT_OK && (!isfinite(a->base) || a->base <= 1.0)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "base=%.17g must be finite and > 1",
                                   a->base);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {(int64_t)a->cls_token + (int64_t)a->grid_h * a->grid_w, a->embed_dim};

        status = pecert__fast_fam_check_view(call, "out", a->out, 2, shape, PECERT__FAM_FLOAT, 1);
    }
    return status;
}

/* The 1-D halves of a 2-D table: q frequencies, and the sin and cos of
 * every first coordinate (< grid_w) and every second (< grid_h), computed
 * once, and once more rounded to f32 (a row of an f32 table is then two
 * copies). */
typedef struct sincos2d_plan {
    int64_t q;
    double *freq;        /* [q]                                           */
    double *col;         /* [grid_w][2q] sin then cos of the column       */
    double *grid_row;    /* [grid_h][2q] sin then cos of the grid row     */
    float *col_f32;      /* col and grid_row rounded to float             */
    float *grid_row_f32;
} sincos2d_plan;

/* The two coordinates of table row g (plugin.h): MAE's patch column then
 * row (its meshgrid's first axis is the column); RT-DETR's "ij" meshgrid
 * of (w, h) flattened, g / grid_h then g mod grid_h. */
static void sincos2d_coords(const pecert_sincos2d_args *a, int64_t g, int64_t *first, int64_t *second)
{
    if (a->layout == PECERT_SINCOS2D_RT_DETR) {
        *first = g / a->grid_h;
        *second = g % a->grid_h;
    } else {
        *first = g % a->grid_w;
        *second = g / a->grid_w;
    }
}

/* Row r: zeros for the class token, else the first coordinate's half then
 * the second's. */
static void sincos2d_row(const pecert__fast_row_job *job, int64_t r, void *scratch)
{
    const pecert_sincos2d_args *a = job->op;
    const sincos2d_plan *plan = job->plan;
    double *values = scratch;
    int64_t g = r - a->cls_token;
    int64_t first = 0, second = 0;

    if (g >= 0) {
        sincos2d_coords(a, g, &first, &second);
    }
    if (g >= 0 && a->out->dtype == PECERT_DTYPE_F32 && a->out->strides[1] == 1) {
        float *o = (float *)a->out->data + r * a->out->strides[0];

        pecert__fast_fam_copy(job, o, plan->col_f32 + first * 2 * plan->q, 2 * plan->q);
        pecert__fast_fam_copy(job, o + 2 * plan->q, plan->grid_row_f32 + second * 2 * plan->q, 2 * plan->q);
        return;
    }
    if (g < 0) {
        memset(values, 0, (size_t)a->embed_dim * sizeof(double));
    } else {
        memcpy(values, plan->col + first * 2 * plan->q, 2 * (size_t)plan->q * sizeof(double));
        memcpy(values + 2 * plan->q, plan->grid_row + second * 2 * plan->q, 2 * (size_t)plan->q * sizeof(double));
    }
    pecert__fast_fam_store_row(job, a->out, r, values, a->embed_dim);
}

/* sin then cos of position * freq[i], i < q, into half[0, 2q). */
static void sincos_half(const pecert__fast_kernels *k, const sincos2d_plan *plan, int64_t position, double *half)
{
    pecert__fast_fam_sincos_row(k, plan->freq, (int32_t)plan->q, plan->freq[0], (double)position, half + plan->q,
                                half);
}

pecert_status pecert__fast_sincos_2d(void *instance, const pecert_sincos2d_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    pecert__fast_row_job job;
    sincos2d_plan plan;

    status = pecert__fast_fam_enter(&call, instance, "sincos_2d", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_sincos2d_args(&call, args);
    }
    if (status != PECERT_OK) {
        return status;
    }
    plan.q = args->embed_dim / 4;
    job = (pecert__fast_row_job){.row = sincos2d_row, .op = args, .plan = &plan, .kernels = call.instance->kernels,
                                 .rows = (int64_t)args->cls_token + (int64_t)args->grid_h * args->grid_w};
    plan.freq = pecert__fast_fam_row_memory(
        &call, args->out,
        (size_t)plan.q * (1 + 2 * ((size_t)args->grid_w + (size_t)args->grid_h)) * (sizeof(double) + sizeof(float)),
        (size_t)args->embed_dim * sizeof(double), &job);
    if (plan.freq == NULL) {
        return PECERT_E_NOMEM;
    }
    plan.col = plan.freq + plan.q;
    plan.grid_row = plan.col + 2 * plan.q * args->grid_w;
    for (int64_t i = 0; i < plan.q; i++) {
        plan.freq[i] = exp(-log(args->base) * (double)i / (double)plan.q);
    }
    for (int64_t c = 0; c < args->grid_w; c++) {
        sincos_half(call.instance->kernels, &plan, c, plan.col + c * 2 * plan.q);
    }
    for (int64_t r = 0; r < args->grid_h; r++) {
        sincos_half(call.instance->kernels, &plan, r, plan.grid_row + r * 2 * plan.q);
    }
    plan.col_f32 = (float *)(plan.grid_row + 2 * plan.q * args->grid_h);
    plan.grid_row_f32 = plan.col_f32 + 2 * plan.q * args->grid_w;
    call.instance->kernels->narrow_row(plan.col_f32, plan.col, 2 * plan.q * ((int64_t)args->grid_w + args->grid_h));
    pecert__fast_fam_run_rows(&job);
    return PECERT_OK;
}
