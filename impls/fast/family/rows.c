/*
 * rows.c - the family ops that write their output row by row (the tables:
 * sinusoidal, sincos_2d, txl_pos_emb; the indices: swin, shaw, t5; the
 * copies: learned_lookup, txl_rel_shift): their rows split over the
 * instance's threads, each thread with scratch of its own, large outputs
 * streamed; the f32 stores of a row; a table's frequencies and rows
 * (table.c's), and the sin/cos of one row's angles.
 *
 * A row's values do not depend on the thread that computes it, so the
 * thread count never changes a bit (fast.h).
 */
#include <math.h>
#include <string.h>

#include "../family.h"

static size_t align64(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}

/* 1 if no two rows (indices of axis 0) of a checked output (strides >= 0,
 * none zero on an extent > 1) share an element: a 1-D view, a row stride
 * that steps past all a row reaches, or (2-D) a column stride that steps
 * past all the rows reach. Only then may rows go to different threads;
 * other views are written on one thread in row order, so the last write
 * is defined (as `ref`'s). */
int pecert__fast_fam_rows_disjoint(const pecert_tensor *t)
{
    int64_t row_reach = 1;

    if (t->ndim < 2 || t->shape[0] <= 1) {
        return 1;
    }
    for (uint32_t k = 1; k < t->ndim; k++) {
        row_reach += (t->shape[k] - 1) * t->strides[k];
    }
    return t->strides[0] >= row_reach || row_reach == 1 ||
           (t->ndim == 2 && t->strides[1] >= (t->shape[0] - 1) * t->strides[0] + 1);
}

void *pecert__fast_fam_row_memory(const pecert__fast_call *call, const pecert_tensor *out, size_t plan_len,
                                  size_t scratch_len, pecert__fast_row_job *job)
{
    unsigned char *p;

    job->threads = pecert__fast_fam_rows_disjoint(out) ? pecert__fast_threads(call, pecert__fast_view_bytes(out), job->rows) : 1;
    /* Outputs that would not stay cached take streaming stores where the
     * ISA has them (the rows' kernels fall back to plain ones). */
    job->streaming = job->kernels->store_fence != NULL &&
                     pecert__fast_view_bytes(out) >= PECERT__FAST_STREAM_MIN_BYTES;
    job->scratch_len = align64(scratch_len);
    p = pecert__fast_scratch(call, align64(plan_len) + (size_t)job->threads * job->scratch_len);
    if (p == NULL) {
        return NULL;
    }
    job->scratch = p + align64(plan_len);
    return p;
}

static void run_share(void *context, int ith, int nth)
{
    const pecert__fast_row_job *job = context;
    unsigned char *scratch = job->scratch + (size_t)ith * job->scratch_len;
    int64_t begin;
    int64_t end;

    pecert__fast_share(job->rows, ith, nth, &begin, &end);
    if (job->begin != NULL && begin < end) {
        job->begin(job, scratch);
    }
    for (int64_t r = begin; r < end; r++) {
        job->row(job, r, scratch);
    }
    if (job->streaming) {
        job->kernels->store_fence();
    }
}

void pecert__fast_fam_run_rows(pecert__fast_row_job *job)
{
    pecert__fast_run(job->threads, run_share, job);
}

void pecert__fast_fam_narrow(const pecert__fast_row_job *job, float *out, const double *a, int64_t n)
{
    (job->streaming ? job->kernels->narrow_row_stream : job->kernels->narrow_row)(out, a, n);
}

void pecert__fast_fam_interleave(const pecert__fast_row_job *job, float *out, const double *a, const double *b,
                                 int64_t n)
{
    (job->streaming ? job->kernels->interleave_row_stream : job->kernels->interleave_row)(out, a, b, n);
}

void pecert__fast_fam_copy(const pecert__fast_row_job *job, float *out, const float *a, int64_t n)
{
    if (job->streaming) {
        job->kernels->copy_row_stream(out, a, n);
    } else {
        memcpy(out, a, (size_t)n * sizeof(float));
    }
}

void pecert__fast_fam_store_row(const pecert__fast_row_job *job, const pecert_tensor *t, int64_t r,
                                 const double *values, int64_t cols)
{
    if (t->dtype == PECERT_DTYPE_F64 && t->strides[1] == 1) {
        memcpy((double *)t->data + r * t->strides[0], values, (size_t)cols * sizeof(double));
    } else if (t->strides[1] == 1) {
        pecert__fast_fam_narrow(job, (float *)t->data + r * t->strides[0], values, cols);
    } else {
        for (int64_t idx[2] = {r, 0}; idx[1] < cols; idx[1]++) {
            pecert__fast_fam_store_float(t, idx, values[idx[1]]);
        }
    }
}

void pecert__fast_fam_table_freqs(pecert__fast_freqs *out, const double *inv_freq, int32_t n, double *step)
{
    *out = (pecert__fast_freqs){n, 1.0, 0.0, inv_freq, step, step + n};
    for (int32_t i = 0; i < n; i++) {
        out->max_inv_freq = fmax(out->max_inv_freq, fabs(inv_freq[i]));
    }
    if (out->max_inv_freq < PECERT__FAST_NEAR_LIMIT) {
        pecert__fast_sincos_row_scalar(inv_freq, n, 1.0, step, step + n);
    } else {
        pecert__fast_far_row(inv_freq, n, 1.0, step, step + n);
    }
}

size_t pecert__fast_fam_rows_bytes(int32_t n)
{
    return align64(sizeof(pecert__fast_rows)) + 2 * (size_t)n * sizeof(double);
}

pecert__fast_rows *pecert__fast_fam_rows_start(void *scratch, const pecert__fast_kernels *kernels,
                                               const pecert__fast_freqs *freqs, const int64_t *positions)
{
    pecert__fast_rows *rows = scratch;
    double *cos = (double *)((unsigned char *)scratch + align64(sizeof(pecert__fast_rows)));

    pecert__fast_rows_init(rows, kernels, freqs, positions, cos, cos + freqs->half);
    return rows;
}

void pecert__fast_fam_sincos_row(const pecert__fast_kernels *kernels, const double *inv_freq, int32_t n,
                                 double max_inv_freq, double position, double *cos, double *sin)
{
    if (fabs(position) * max_inv_freq < PECERT__FAST_NEAR_LIMIT) {
        /* Every angle near: the vector row, lane for lane the scalar sin/cos. */
        kernels->sincos_row(inv_freq, n, position, cos, sin);
        return;
    }
    for (int32_t i = 0; i < n; i++) {
        pecert__fast_fam_sincos(position, inv_freq[i], &sin[i], &cos[i]);
    }
}
