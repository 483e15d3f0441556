/*
 * alibi.c - ALiBi slopes and biases (ops alibi_slopes, alibi_bias).
 *
 * With c = 2^floor(log2 n): m_h = 2^(-max_bias (h+1) / c) for h < c, then
 * 2^(-max_bias (2(h-c) + 1) / (2c)) (plugin.h), each an exp2 of an exponent
 * formed in double. The bias -m (q - k) is m * (k - q): k - q of two exact
 * integers below 2^53 taken in double rounds exactly as the int64
 * difference converted would, so rows run on doubles (k positions
 * converted once per call).
 *
 * alibi_bias plans, then runs (as apply.c does for rope_apply): the plan
 * picks the instance's row kernels (scalar/alibi.c and its SIMD copies,
 * bit-identical), streaming stores for large contiguous outputs and the
 * thread count; each thread then writes a static share of the
 * num_heads * n_q rows. Strided rows are computed by the f64 kernel into
 * per-thread scratch and scattered.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../family.h"

double pecert__fast_alibi_slope(int64_t n, double max_bias, int64_t h)
{
    int64_t c = 1;

    while (c <= n / 2) {
        c *= 2;
    }
    if (h < c) {
        return exp2(-max_bias * (double)(h + 1) / (double)c);
    }
    return exp2(-max_bias * (double)(2 * (h - c) + 1) / (double)(2 * c));
}

static pecert_status check_heads(const pecert__fast_call *call, int32_t num_heads, double max_bias)
{
    if (num_heads < 1) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "num_heads=%" PRId32 " must be >= 1",
                                 num_heads);
    }
    if (!isfinite(max_bias) || max_bias <= 0.0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "max_bias=%.17g must be finite and > 0",
                                 max_bias);
    }
    return PECERT_OK;
}

pecert_status pecert__fast_alibi_slopes(void *instance, const pecert_alibi_slopes_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    int64_t shape[1];

    status = pecert__fast_fam_enter(&call, instance, "alibi_slopes", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_reserved(&call, "args", args->reserved, 4);
    }
    if (status == PECERT_OK) {
        status = check_heads(&call, args->num_heads, args->max_bias);
    }
    if (status == PECERT_OK) {
        shape[0] = args->num_heads;
        status = pecert__fast_fam_check_view(&call, "out", args->out, 1, shape, PECERT__FAM_FLOAT,
                                             1);
    }
    if (status != PECERT_OK) {
        return status;
    }
    for (int64_t h = 0; h < args->num_heads; h++) {
        pecert__fast_fam_store_float(args->out, &h,
                                     pecert__fast_alibi_slope(args->num_heads, args->max_bias, h));
    }
    return PECERT_OK;
}

static pecert_status check_bias_args(const pecert__fast_call *call,
                                     const pecert_alibi_bias_args *args)
{
    int64_t shape[3];
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", args->reserved, 4);

    if (status == PECERT_OK && args->reserved0 != 0) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "reserved0=%" PRId32 " must be 0",
                                   args->reserved0);
    }
    if (status == PECERT_OK && args->symmetric != 0 && args->symmetric != 1) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "symmetric=%" PRId32 " must be 0 or 1",
                                   args->symmetric);
    }
    if (status == PECERT_OK) {
        status = check_heads(call, args->num_heads, args->max_bias);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "q_positions", args->q_positions, args->n_q);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "k_positions", args->k_positions, args->n_k);
    }
    if (status == PECERT_OK) {
        shape[0] = args->num_heads;
        shape[1] = args->n_q;
        shape[2] = args->n_k;
        status = pecert__fast_fam_check_view(call, "out", args->out, 3, shape, PECERT__FAM_FLOAT,
                                             1);
    }
    return status;
}

/* ---- the bias: plan, then run ------------------------------------------- */

typedef struct bias_plan {
    const pecert_alibi_bias_args *args;
    const pecert_tensor *out;
    const pecert__fast_kernels *kernels;
    const double *k;            /* [n_k] key positions as doubles           */
    double *rows;               /* strided: one f64 row per thread, or NULL */
    size_t row_doubles;         /* doubles between two threads' rows        */
    int64_t n_rows;             /* num_heads * n_q (saturated)              */
    int contiguous;             /* keys of a row are adjacent elements      */
    int disjoint;               /* no element in two rows (rows_disjoint)   */
    int streaming;              /* the row kernels are the _stream ones     */
    pecert__fast_alibi_row_f32_fn row_f32; /* contiguous f32 rows           */
    pecert__fast_alibi_row_f64_fn row_f64; /* contiguous f64 rows           */
} bias_plan;

/* 1 if no two rows (h, i) share an element, shown by nesting: of the two
 * row axes, the one with the smaller stride steps past a whole row, the
 * other past everything the first reaches. Only then may rows go to
 * different threads; other views are written on one thread in the
 * canonical order (head, query, key), so the last write is defined. */
static int rows_disjoint(const pecert_tensor *out)
{
    int small = out->strides[0] <= out->strides[1] ? 0 : 1;
    int axes[2] = {small, 1 - small};
    int64_t reach = (out->shape[2] - 1) * out->strides[2] + 1;

    for (int a = 0; a < 2; a++) {
        int64_t extent = out->shape[axes[a]];

        if (extent > 1 && out->strides[axes[a]] < reach) {
            return 0;
        }
        reach += (extent - 1) * out->strides[axes[a]];
    }
    return 1;
}

/* Streaming stores: large outputs of contiguous, disjoint rows that each
 * start on a 64-byte line (the _stream kernels store aligned vectors from
 * a row's start; rows sharing elements keep ordinary, ordered stores). */
static int use_stream(const bias_plan *plan, size_t bytes)
{
    const pecert_tensor *out = plan->out;
    int64_t line = 64 / (int64_t)pecert__fast_dtype_size(out->dtype);
    int aligned = (uintptr_t)out->data % 64 == 0;

    for (uint32_t a = 0; a < 2; a++) {
        aligned = aligned && (out->shape[a] <= 1 || out->strides[a] % line == 0);
    }
    return plan->contiguous && plan->disjoint && aligned &&
           bytes >= PECERT__FAST_STREAM_MIN_BYTES &&
           plan->kernels->alibi_row_f32_stream != NULL &&
           plan->kernels->alibi_row_f64_stream != NULL;
}

/* One row through the f64 kernel into the thread's scratch, then to its
 * strided elements: (float) of the f64 bias is the f32 kernel's value. */
static void strided_row(const bias_plan *plan, int64_t base, double *row, double m, double q)
{
    const pecert_tensor *out = plan->out;
    int64_t n_k = out->shape[2];
    int64_t stride = out->strides[2];

    plan->kernels->alibi_row_f64(row, plan->k, n_k, m, q, plan->args->symmetric);
    for (int64_t j = 0; j < n_k; j++) {
        if (out->dtype == PECERT_DTYPE_F32) {
            ((float *)out->data)[base + j * stride] = (float)row[j];
        } else {
            ((double *)out->data)[base + j * stride] = row[j];
        }
    }
}

static void bias_row(const bias_plan *plan, int64_t h, int64_t i, double m, double *row)
{
    const pecert_tensor *out = plan->out;
    double q = (double)plan->args->q_positions[i];
    int64_t base = h * out->strides[0] + i * out->strides[1];

    if (!plan->contiguous) {
        strided_row(plan, base, row, m, q);
    } else if (out->dtype == PECERT_DTYPE_F32) {
        plan->row_f32((float *)out->data + base, plan->k, out->shape[2], m, q,
                      plan->args->symmetric);
    } else {
        plan->row_f64((double *)out->data + base, plan->k, out->shape[2], m, q,
                      plan->args->symmetric);
    }
}

/* Share ith of nth of the rows in (head, query) order. Each row's value
 * depends only on (h, i), never on the share, so the thread count
 * changes no bit; a head's slope is computed once per share. */
static void bias_share(void *context, int ith, int nth)
{
    const bias_plan *plan = context;
    const pecert_alibi_bias_args *args = plan->args;
    double *row = plan->rows != NULL ? plan->rows + (size_t)ith * plan->row_doubles : NULL;
    int64_t first;
    int64_t end;

    pecert__fast_share(plan->n_rows, ith, nth, &first, &end);
    if (first < end) {
        int64_t h = first / args->n_q;
        int64_t i = first % args->n_q;
        double m = pecert__fast_alibi_slope(args->num_heads, args->max_bias, h);

        for (int64_t r = first; r < end; r++) {
            bias_row(plan, h, i, m, row);
            if (++i == args->n_q && r + 1 < end) {
                i = 0;
                h++;
                m = pecert__fast_alibi_slope(args->num_heads, args->max_bias, h);
            }
        }
    }
    if (plan->streaming) {
        plan->kernels->store_fence(); /* before the region's barrier */
    }
}

static void choose_kernels(bias_plan *plan, size_t bytes)
{
    const pecert__fast_kernels *kernels = plan->kernels;

    plan->streaming = use_stream(plan, bytes);
    plan->row_f32 = plan->streaming ? kernels->alibi_row_f32_stream : kernels->alibi_row_f32;
    plan->row_f64 = plan->streaming ? kernels->alibi_row_f64_stream : kernels->alibi_row_f64;
}

/* Scratch: the keys as doubles, then (strided outputs) one row per
 * thread, each on its own 64-byte lines. */
static pecert_status make_plan(const pecert__fast_call *call, const pecert_alibi_bias_args *args,
                               bias_plan *plan, int *out_threads)
{
    const pecert_tensor *out = args->out;
    size_t bytes = pecert__fast_view_bytes(out);
    size_t n_k = (size_t)args->n_k;
    size_t line_doubles = 64 / sizeof(double);
    double *k;

    memset(plan, 0, sizeof(*plan));
    plan->args = args;
    plan->out = out;
    plan->kernels = call->instance->kernels;
    /* More rows could not be written in any lifetime: saturating is safe. */
    plan->n_rows = args->num_heads > INT64_MAX / args->n_q ? INT64_MAX
                                                           : args->num_heads * args->n_q;
    plan->contiguous = out->strides[2] == 1 || out->shape[2] == 1;
    plan->disjoint = rows_disjoint(out);
    choose_kernels(plan, bytes);
    *out_threads = plan->disjoint ? pecert__fast_threads(call, bytes, plan->n_rows) : 1;
    plan->row_doubles = (n_k + line_doubles - 1) / line_doubles * line_doubles;
    k = pecert__fast_scratch(call, (plan->contiguous ? 1 : 1 + (size_t)*out_threads) *
                                       plan->row_doubles * sizeof(double));
    if (k == NULL) {
        return PECERT_E_NOMEM;
    }
    plan->kernels->alibi_keys(k, args->k_positions, args->n_k);
    plan->k = k;
    plan->rows = plan->contiguous ? NULL : k + plan->row_doubles;
    return PECERT_OK;
}

pecert_status pecert__fast_alibi_bias(void *instance, const pecert_alibi_bias_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    bias_plan plan;
    int threads = 1;

    status = pecert__fast_fam_enter(&call, instance, "alibi_bias", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_bias_args(&call, args);
    }
    if (status != PECERT_OK || pecert__fast_is_empty(args->out)) {
        return status;
    }
    status = make_plan(&call, args, &plan, &threads);
    if (status == PECERT_OK) {
        pecert__fast_run(threads, bias_share, &plan);
    }
    return status;
}
