/*
 * relpos.c - relative-position indices and Transformer-XL (ops
 * swin_index, shaw_index, txl_pos_emb, txl_rel_shift; "pecert.relpos/1").
 *
 *   swin_index   (ha - hb + wh - 1) (2 ww - 1) + (wa - wb + ww - 1) for
 *                tokens a, b of a wh x ww window (row-major).
 *   shaw_index   clip(k_j - q_i, -K, K) + K.
 *   txl_pos_emb  row r: sin | cos of p = min(klen - 1 - r, clamp_len)
 *                (clamp only when > 0), f_i = 10000^(-2i/d).
 *   txl_rel_shift  the official pad-and-reshape: out[i][j] is element
 *                f = i klen + j + qlen of the zero-padded [qlen, klen + 1]
 *                buffer (row f / (klen + 1), column f % (klen + 1) - 1, 0
 *                for the pad column); zero_triu zeroes j > i + klen - qlen.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../family.h"

#define SWIN_MAX_WINDOW 4096

static void store_index(const pecert_tensor *out, int64_t i, int64_t j, int64_t value)
{
    int64_t idx[2] = {i, j};

    pecert__fast_fam_store_int(out, idx, value);
}

/* The reserved words of swin_index and shaw_index: reserved[4] and
 * reserved0. */
static pecert_status check_reserved(const pecert__fast_call *call, const uint64_t *reserved,
                                    int32_t reserved0)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", reserved, 4);

    if (status == PECERT_OK && reserved0 != 0) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "reserved0=%" PRId32 " must be 0",
                                   reserved0);
    }
    return status;
}

/* Row a of the window index: base(a) - col[b], col[b] the key's part. */
static void swin_row(const pecert__fast_row_job *job, int64_t a, void *scratch)
{
    const pecert_swin_index_args *args = job->op;
    const pecert_tensor *out = args->out;
    const int64_t *col = job->plan;
    int64_t wh = args->window_h;
    int64_t ww = args->window_w;
    int64_t n = wh * ww;
    int64_t base = (a / ww + wh - 1) * (2 * ww - 1) + a % ww + ww - 1;

    (void)scratch;
    if (out->strides[1] == 1) {
        job->kernels->swin_row((char *)out->data + a * out->strides[0] * (int64_t)pecert__fast_dtype_size(out->dtype),
                               out->dtype == PECERT_DTYPE_I64, base, col, n);
        return;
    }
    for (int64_t b = 0; b < n; b++) {
        store_index(out, a, b, base - col[b]);
    }
}

pecert_status pecert__fast_swin_index(void *instance, const pecert_swin_index_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    pecert__fast_row_job job;
    int64_t *col;
    int64_t n;
    int64_t wh;
    int64_t ww;

    status = pecert__fast_fam_enter(&call, instance, "swin_index", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_reserved(&call, args->reserved, args->reserved0);
    }
    if (status == PECERT_OK && (args->window_h < 1 || args->window_h > SWIN_MAX_WINDOW ||
                                args->window_w < 1 || args->window_w > SWIN_MAX_WINDOW)) {
        status = pecert__fast_fail(&call, PECERT_E_INVAL,
                                   "window_h=%" PRId32 ", window_w=%" PRId32
                                   " must each be in 1..%d",
                                   args->window_h, args->window_w, SWIN_MAX_WINDOW);
    }
    if (status != PECERT_OK) {
        return status;
    }
    wh = args->window_h;
    ww = args->window_w;
    n = wh * ww;
    {
        int64_t shape[2] = {n, n};

        status = pecert__fast_fam_check_view(&call, "out", args->out, 2, shape, PECERT__FAM_INT, 1);
    }
    if (status != PECERT_OK) {
        return status;
    }
    job = (pecert__fast_row_job){.row = swin_row, .op = args, .kernels = call.instance->kernels, .rows = n};
    col = pecert__fast_fam_row_memory(&call, args->out, (size_t)n * sizeof(int64_t), 0,
                                      &job);
    if (col == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int64_t b = 0; b < n; b++) {
        col[b] = (b / ww) * (2 * ww - 1) + b % ww;
    }
    job.plan = col;
    pecert__fast_fam_run_rows(&job);
    return PECERT_OK;
}

/* Row i: clip(k_j - q_i, -K, K) + K (|positions| < 2^53: the difference
 * is exact). */
static void shaw_row(const pecert__fast_row_job *job, int64_t i, void *scratch)
{
    const pecert_shaw_index_args *args = job->op;
    const pecert_tensor *out = args->out;
    int64_t k = args->max_relative_position;
    int64_t q = args->q_positions[i];

    (void)scratch;
    if (out->strides[1] == 1) {
        job->kernels->shaw_row((char *)out->data + i * out->strides[0] * (int64_t)pecert__fast_dtype_size(out->dtype),
                               out->dtype == PECERT_DTYPE_I64, args->k_positions, args->n_k, q, k);
        return;
    }
    for (int64_t j = 0; j < args->n_k; j++) {
        int64_t d = args->k_positions[j] - q;

        store_index(out, i, j, (d < -k ? -k : (d > k ? k : d)) + k);
    }
}

pecert_status pecert__fast_shaw_index(void *instance, const pecert_shaw_index_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    pecert__fast_row_job job;

    status = pecert__fast_fam_enter(&call, instance, "shaw_index", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_reserved(&call, args->reserved, args->reserved0);
    }
    if (status == PECERT_OK && (args->max_relative_position < 0 ||
                                args->max_relative_position >= PECERT__FAST_POSITION_LIMIT)) {
        status = pecert__fast_fail(&call, PECERT_E_INVAL,
                                   "max_relative_position=%" PRId64 " must be in [0, 2^53)",
                                   args->max_relative_position);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(&call, "q_positions", args->q_positions, args->n_q);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(&call, "k_positions", args->k_positions, args->n_k);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {args->n_q, args->n_k};

        status = pecert__fast_fam_check_view(&call, "out", args->out, 2, shape, PECERT__FAM_INT, 1);
    }
    if (status != PECERT_OK) {
        return status;
    }
    job = (pecert__fast_row_job){.row = shaw_row, .op = args, .kernels = call.instance->kernels, .rows = args->n_q};
    if (pecert__fast_fam_row_memory(&call, args->out, 0, 0, &job) == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert__fast_fam_run_rows(&job);
    return PECERT_OK;
}

/* A Transformer-XL table: its frequencies, and each row's position in
 * the order its rows are computed (t = klen - 1 - r, so that positions
 * rise by one and table.c's rows step instead of recomputing). */
typedef struct txl_plan {
    int32_t half;
    pecert__fast_freqs freqs;    /* 10000^(-2i/d) and their steps          */
    int64_t *positions;          /* [klen] min(t, clamp_len)               */
} txl_plan;

static void txl_begin(const pecert__fast_row_job *job, void *scratch)
{
    const txl_plan *plan = job->plan;

    (void)pecert__fast_fam_rows_start(scratch, job->kernels, &plan->freqs, plan->positions);
}

/* Table row t of the computation: output row klen - 1 - t, sin | cos. */
static void txl_row(const pecert__fast_row_job *job, int64_t t, void *scratch)
{
    const pecert_txl_pos_emb_args *a = job->op;
    const txl_plan *plan = job->plan;
    pecert__fast_rows *rows = scratch;
    double *values = (double *)((unsigned char *)scratch + pecert__fast_fam_rows_bytes(plan->half));

    if (a->out->dtype == PECERT_DTYPE_F32 && a->out->strides[1] == 1 && job->streaming) {
        float *o = (float *)a->out->data + (a->klen - 1 - t) * a->out->strides[0];

        if (pecert__fast_rows_step_out(rows, t, o, o + plan->half)) {
            return; /* stepped and streamed out in one pass */
        }
    }
    pecert__fast_rows_seek(rows, t);
    if (a->out->dtype == PECERT_DTYPE_F32 && a->out->strides[1] == 1) {
        float *o = (float *)a->out->data + (a->klen - 1 - t) * a->out->strides[0];

        pecert__fast_fam_narrow(job, o, rows->sin, plan->half);
        pecert__fast_fam_narrow(job, o + plan->half, rows->cos, plan->half);
        return;
    }
    memcpy(values, rows->sin, (size_t)plan->half * sizeof(double));
    memcpy(values + plan->half, rows->cos, (size_t)plan->half * sizeof(double));
    pecert__fast_fam_store_row(job, a->out, a->klen - 1 - t, values, 2 * (int64_t)plan->half);
}

pecert_status pecert__fast_txl_pos_emb(void *instance, const pecert_txl_pos_emb_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    pecert__fast_row_job job;
    txl_plan plan;
    double *freq;

    status = pecert__fast_fam_enter(&call, instance, "txl_pos_emb", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_reserved(&call, "args", args->reserved, 4);
    }
    if (status == PECERT_OK && (args->d_model < 2 || args->d_model % 2 != 0)) {
        status = pecert__fast_fail(&call, PECERT_E_INVAL, "d_model=%" PRId32 " must be even and >= 2",
                                   args->d_model);
    }
    if (status == PECERT_OK && (args->klen < 0 || args->klen >= PECERT__FAST_POSITION_LIMIT)) {
        status = pecert__fast_fail(&call, PECERT_E_INVAL, "klen=%" PRId64 " must be in [0, 2^53)",
                                   args->klen);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {args->klen, args->d_model};

        status = pecert__fast_fam_check_view(&call, "out", args->out, 2, shape, PECERT__FAM_FLOAT,
                                             1);
    }
    if (status != PECERT_OK || pecert__fast_is_empty(args->out)) {
        return status;
    }
    plan.half = args->d_model / 2;
    job = (pecert__fast_row_job){.row = txl_row, .begin = txl_begin, .op = args, .plan = &plan,
                                 .kernels = call.instance->kernels, .rows = args->klen};
    freq = pecert__fast_fam_row_memory(&call, args->out,
                                       3 * (size_t)plan.half * sizeof(double) + (size_t)args->klen * sizeof(int64_t),
                                       pecert__fast_fam_rows_bytes(plan.half) + 2 * (size_t)plan.half * sizeof(double),
                                       &job);
    if (freq == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int32_t i = 0; i < plan.half; i++) {
        freq[i] = exp(-log(10000.0) * (double)(2 * i) / (double)args->d_model);
    }
    pecert__fast_fam_table_freqs(&plan.freqs, freq, plan.half, freq + plan.half);
    plan.positions = (int64_t *)(freq + 3 * (size_t)plan.half);
    for (int64_t t = 0; t < args->klen; t++) {
        plan.positions[t] = args->clamp_len > 0 && t > args->clamp_len ? args->clamp_len : t;
    }
    pecert__fast_fam_run_rows(&job);
    return PECERT_OK;
}

/* Output element (i, j) of the shift: the source row and column of its
 * scores (in the padded buffer), and whether it is zero. */
static int shift_source(const pecert_txl_rel_shift_args *args, int64_t i, int64_t j, int64_t *row, int64_t *col)
{
    int64_t qlen = args->x->shape[0];
    int64_t klen = args->x->shape[1];
    int64_t f = i * klen + j + qlen;

    *row = f / (klen + 1);
    *col = f % (klen + 1) - 1;
    return *col < 0 || (args->zero_triu && j > i + klen - qlen);
}

/* Output row i of the shift (every j, every channel). Where channels are
 * contiguous in both views, a run of j whose sources are adjacent in one
 * source row (at most two runs and a zero between them per row) is one
 * copy. */
static void rel_shift_row(const pecert__fast_row_job *job, int64_t i, void *scratch)
{
    const pecert_txl_rel_shift_args *args = job->op;
    const pecert_tensor *x = args->x;
    const pecert_tensor *o = args->out;
    int64_t klen = x->shape[1];
    int64_t n = x->shape[2];
    int dense = x->strides[2] == 1 && o->strides[2] == 1 && x->strides[1] == n && o->strides[1] == n;

    (void)scratch;
    for (int64_t j = 0; j < klen;) {
        int64_t row, col;
        int zero = shift_source(args, i, j, &row, &col);
        const float *src = (const float *)x->data + row * x->strides[0] + col * x->strides[1];
        float *dst = (float *)o->data + i * o->strides[0] + j * o->strides[1];
        int64_t run = 1;

        if (zero) {
            for (int64_t c = 0; c < n; c++) {
                dst[c * o->strides[2]] = 0.0f;
            }
        } else if (dense) {
            /* Adjacent sources while the column stays in the row and the
             * triangle (zero_triu) does not start. */
            int64_t limit = args->zero_triu ? i + klen - x->shape[0] + 1 : klen;

            run = klen - col;
            run = run < limit - j ? run : limit - j;
            run = run < klen - j ? run : klen - j;
            pecert__fast_fam_copy(job, dst, src, run * n);
        } else {
            for (int64_t c = 0; c < n; c++) {
                memcpy(dst + c * o->strides[2], src + c * x->strides[2], sizeof(float));
            }
        }
        j += run;
    }
}

pecert_status pecert__fast_txl_rel_shift(void *instance, const pecert_txl_rel_shift_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    pecert__fast_row_job job;

    status = pecert__fast_fam_enter(&call, instance, "txl_rel_shift", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_reserved(&call, "args", args->reserved, 4);
    }
    if (status == PECERT_OK && args->zero_triu != 0 && args->zero_triu != 1) {
        status = pecert__fast_fail(&call, PECERT_E_INVAL, "zero_triu=%" PRId32 " must be 0 or 1",
                                   args->zero_triu);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(&call, "x", args->x, 3, NULL, PECERT__FAM_F32, 0);
    }
    if (status == PECERT_OK && args->x->shape[0] > args->x->shape[1]) {
        status = pecert__fast_fail(&call, PECERT_E_INVAL,
                                   "x.shape[0]=%" PRId64 " (qlen) exceeds x.shape[1]=%" PRId64
                                   " (klen)",
                                   args->x->shape[0], args->x->shape[1]);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(&call, "out", args->out, 3, args->x->shape,
                                             PECERT__FAM_F32, 1);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_aliasing(&call, "x", args->x, "out", args->out, 0);
    }
    if (status != PECERT_OK || pecert__fast_is_empty(args->out)) {
        return status;
    }
    job = (pecert__fast_row_job){.row = rel_shift_row, .op = args, .kernels = call.instance->kernels,
                                 .rows = args->x->shape[0]};
    if (pecert__fast_fam_row_memory(&call, args->out, 0, 0, &job) == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert__fast_fam_run_rows(&job);
    return PECERT_OK;
}
