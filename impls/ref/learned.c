/*
 * learned.c - learned absolute embeddings (op learned_lookup): a row of a
 * host-given table per token.
 *
 *   PLAIN           row p: transformers models/bert/modeling_bert.py
 *                   BertEmbeddings (position_ids = arange + past length).
 *   PADDING_OFFSET  row padding_idx + 1 + p, padding (p = -1) row padding_idx:
 *                   fairseq modules/learned_positional_embedding.py with
 *                   utils.make_positions; transformers RoBERTa
 *                   create_position_ids_from_input_ids.
 *
 * Every row index is checked against the table before anything is read or
 * written: a position past the table is PECERT_E_INVAL, never a read out
 * of bounds (check learned.out_of_range).
 */
#include <inttypes.h>
#include <string.h>

#include "ref.h"

/* The row of position p, or -1 when p selects none (invalid). */
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

static pecert_status check_rows(const pecert__ref_call *call, const pecert_learned_args *a)
{
    int64_t rows = a->table->shape[0];

    for (int64_t i = 0; i < a->n; i++) {
        int64_t row = row_of(a, a->positions[i]);

        if (row < 0 || row >= rows) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "positions[%" PRId64 "]=%" PRId64 " selects row %" PRId64
                                    ", outside the table's %" PRId64 " rows",
                                    i, a->positions[i], row, rows);
        }
    }
    return PECERT_OK;
}

static pecert_status check_convention(const pecert__ref_call *call, const pecert_learned_args *a)
{
    if (a->reserved0 != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    if (a->convention == PECERT_LEARNED_PLAIN) {
        return a->padding_idx == -1
                   ? PECERT_OK
                   : pecert__ref_fail(call, PECERT_E_INVAL,
                                      "padding_idx=%" PRId32 " must be -1 for PLAIN", a->padding_idx);
    }
    if (a->convention != PECERT_LEARNED_PADDING_OFFSET) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "convention=%" PRId32 " is not 0 or 1",
                                a->convention);
    }
    if (a->padding_idx < 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "PADDING_OFFSET needs padding_idx >= 0");
    }
    return PECERT_OK;
}

static pecert_status check_learned_args(const pecert__ref_call *call, const void *args)
{
    const pecert_learned_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK) {
        status = check_convention(call, a);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "table", a->table, 2, NULL, PECERT__REF_F32_ONLY, 0);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "positions", a->positions, a->n);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->n, a->table->shape[1]};

        status = pecert__ref_check_view(call, "out", a->out, 2, shape, PECERT__REF_F32_ONLY, 1);
    }
    if (status == PECERT_OK) {
        status = check_rows(call, a);
    }
    return status;
}

static pecert_status learned_lookup(const pecert__ref_call *call, const void *op_args)
{
    const pecert_learned_args *args = op_args;
    int64_t dst[2];
    int64_t src[2];

    (void)call;
    for (dst[0] = 0; dst[0] < args->n; dst[0]++) {
        src[0] = row_of(args, args->positions[dst[0]]);
        for (dst[1] = 0; dst[1] < args->table->shape[1]; dst[1]++) {
            src[1] = dst[1];
            memcpy(pecert__ref_elem(args->out, dst), pecert__ref_elem(args->table, src),
                   sizeof(float));
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_learned_lookup(void *instance, const pecert_learned_args *args)
{
    return pecert__ref_run(instance, "learned_lookup", args, sizeof(*args),
                           check_learned_args, learned_lookup);
}
