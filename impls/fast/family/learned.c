/*
 * learned.c - learned absolute embeddings (op learned_lookup): row p of a
 * host table (PLAIN), or row padding_idx + 1 + p with padding (p = -1) at
 * row padding_idx (PADDING_OFFSET, fairseq / RoBERTa). Every row index is
 * checked against the table before anything is read or written: a row
 * outside the table is PECERT_E_INVAL, never an out-of-bounds read.
 */
#include <inttypes.h>
#include <string.h>

#include "../family.h"

/* The row of position p; -1 when p selects none. */
static int64_t row_of(const pecert_learned_args *a, int64_t p)
{
    if (a->convention == PECERT_LEARNED_PLAIN) {
        return p;
    }
    if (p == -1) {
        return a->padding_idx;
    }
    return p < -1 ? -1 : (int64_t)a->padding_idx + 1 + p;
}

static pecert_status check_convention(const pecert__fast_call *call, const pecert_learned_args *a)
{
    if (a->reserved0 != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "reserved0=%" PRId32 " must be 0",
                                 a->reserved0);
    }
    if (a->convention == PECERT_LEARNED_PLAIN) {
        return a->padding_idx == -1
                   ? PECERT_OK
                   : pecert__fast_fail(call, PECERT_E_INVAL,
                                       "padding_idx=%" PRId32 " must be -1 for PLAIN",
                                       a->padding_idx);
    }
    if (a->convention != PECERT_LEARNED_PADDING_OFFSET) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "convention=%" PRId32 " must be 0 or 1",
                                 a->convention);
    }
    if (a->padding_idx < 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "padding_idx=%" PRId32 " must be >= 0 for PADDING_OFFSET",
                                 a->padding_idx);
    }
    return PECERT_OK;
}

static pecert_status check_learned_args(const pecert__fast_call *call, const pecert_learned_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK) {
        status = check_convention(call, a);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(call, "table", a->table, 2, NULL, PECERT__FAM_F32, 0);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "positions", a->positions, a->n);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->n, a->table->shape[1]};

        status = pecert__fast_fam_check_view(call, "out", a->out, 2, shape, PECERT__FAM_F32, 1);
    }
    if (status == PECERT_OK && !pecert__fast_is_empty(a->out)) {
        status = pecert__fast_check_aliasing(call, "table", a->table, "out", a->out, 0);
    }
    for (int64_t i = 0; status == PECERT_OK && i < a->n; i++) {
        int64_t row = row_of(a, a->positions[i]);

        if (row < 0 || row >= a->table->shape[0]) {
            status = pecert__fast_fail(call, PECERT_E_INVAL,
                                       "positions[%" PRId64 "]=%" PRId64 " selects row %" PRId64
                                       ", outside the table's %" PRId64 " rows",
                                       i, a->positions[i], row, a->table->shape[0]);
        }
    }
    return status;
}

/* Output row i: its position's table row. */
static void lookup_row(const pecert__fast_row_job *job, int64_t i, void *scratch)
{
    const pecert_learned_args *args = job->op;
    const float *src = (const float *)args->table->data + row_of(args, args->positions[i]) * args->table->strides[0];
    float *dst = (float *)args->out->data + i * args->out->strides[0];
    int64_t dim = args->table->shape[1];

    (void)scratch;
    if (args->table->strides[1] == 1 && args->out->strides[1] == 1) {
        pecert__fast_fam_copy(job, dst, src, dim);
        return;
    }
    for (int64_t d = 0; d < dim; d++) {
        memcpy(dst + d * args->out->strides[1], src + d * args->table->strides[1], sizeof(float));
    }
}

pecert_status pecert__fast_learned_lookup(void *instance, const pecert_learned_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    pecert__fast_row_job job;

    status = pecert__fast_fam_enter(&call, instance, "learned_lookup", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_learned_args(&call, args);
    }
    if (status != PECERT_OK || pecert__fast_is_empty(args->out)) {
        return status;
    }
    /* Rows over threads: distinct output rows (checked: no zero stride),
     * so no two threads write one element. */
    job = (pecert__fast_row_job){.row = lookup_row, .op = args, .kernels = call.instance->kernels, .rows = args->n};
    if (pecert__fast_fam_row_memory(&call, args->out, 0, 0, &job) == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert__fast_fam_run_rows(&job);
    return PECERT_OK;
}
