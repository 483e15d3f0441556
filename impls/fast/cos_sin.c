/*
 * cos_sin.c - the rope_cos_sin op: scaled cos/sin tables [n_positions,
 * rotary_dim / 2], f32 or f64, strided.
 *
 * The frequency half of LlamaRotaryEmbedding.forward's table
 * (models/llama/modeling_llama.py concatenates it with itself; GPT-J
 * repeats each entry). Threads take static shares of the positions; each
 * row comes from table.c's recurrence (the same rows rope_apply rotates
 * by) and is written by the emit kernel when the table is contiguous
 * f32, element by element otherwise.
 */
#include <inttypes.h>

#include "fast.h"

#define TABLE_DTYPES ((1u << PECERT_DTYPE_F32) | (1u << PECERT_DTYPE_F64))

typedef struct table_plan {
    pecert_tensor *cos;
    pecert_tensor *sin;
    const int64_t *positions;
    int64_t n_positions;
    pecert__fast_freqs freqs;
    const pecert__fast_kernels *kernels;
    double *scratch;        /* per-thread row states, 2 * half doubles     */
    size_t row_doubles;     /* doubles of scratch per thread              */
} table_plan;

static pecert_status check_table(const pecert__fast_call *call, const char *name,
                                 const pecert_tensor *table, int64_t n_positions, int32_t half)
{
    pecert_status status = pecert__fast_check_tensor(call, name, table, 2, TABLE_DTYPES, 1);

    if (status == PECERT_OK && (table->shape[0] != n_positions || table->shape[1] != half)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "%s.shape=[%" PRId64 ", %" PRId64 "] must be [n_positions=%" PRId64
                                   ", rotary_dim/2=%" PRId32 "]",
                                   name, table->shape[0], table->shape[1], n_positions, half);
    }
    return status;
}

static pecert_status check_arguments(const pecert__fast_call *call, const pecert_tensor *out_cos,
                                     const pecert_tensor *out_sin,
                                     const pecert_rope_config *config, int64_t seq_len,
                                     const int64_t *positions, int64_t n_positions,
                                     pecert__fast_positions *seen)
{
    pecert_status status = pecert__fast_check_config(call, config);

    if (status == PECERT_OK) {
        status = pecert__fast_check_seq_len(call, seq_len);
    }
    if (status == PECERT_OK && n_positions < 0) {
        status = pecert__fast_check_positions(call, positions, n_positions, seen);
    }
    if (status == PECERT_OK) {
        status = check_table(call, "out_cos", out_cos, n_positions, config->rotary_dim / 2);
    }
    if (status == PECERT_OK) {
        status = check_table(call, "out_sin", out_sin, n_positions, config->rotary_dim / 2);
    }
    /* Positions are read only once the tables agree on their count. */
    if (status == PECERT_OK) {
        status = pecert__fast_check_positions(call, positions, n_positions, seen);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_aliasing(call, "out_cos", out_cos, "out_sin", out_sin, 0);
    }
    return status;
}

static int contiguous_row(const pecert_tensor *t)
{
    return t->strides[1] == 1 || t->shape[1] == 1;
}

static void store(pecert_tensor *t, int64_t row, int32_t i, double value)
{
    int64_t offset = row * t->strides[0] + (int64_t)i * t->strides[1];

    if (t->dtype == PECERT_DTYPE_F64) {
        ((double *)t->data)[offset] = value;
    } else {
        ((float *)t->data)[offset] = (float)value;
    }
}

/* Row n of the state, scaled, stored element by element (strided or
 * f64 tables); float(c * scaling) is what emit_f32 computes too. */
static void store_row(const table_plan *plan, const pecert__fast_rows *rows, int64_t n)
{
    int32_t i;

    for (i = 0; i < plan->freqs.half; i++) {
        store(plan->cos, n, i, rows->cos[i] * plan->freqs.scaling);
        store(plan->sin, n, i, rows->sin[i] * plan->freqs.scaling);
    }
}

static void table_share(void *context, int ith, int nth)
{
    const table_plan *plan = context;
    int direct = plan->cos->dtype == PECERT_DTYPE_F32 && plan->sin->dtype == PECERT_DTYPE_F32 &&
                 contiguous_row(plan->cos) && contiguous_row(plan->sin);
    double *state = plan->scratch + (size_t)ith * plan->row_doubles;
    pecert__fast_rows rows;
    int64_t n;
    int64_t end;

    pecert__fast_rows_init(&rows, plan->kernels, &plan->freqs, plan->positions, state,
                           state + plan->freqs.half);
    pecert__fast_share(plan->n_positions, ith, nth, &n, &end);
    for (; n < end; n++) {
        pecert__fast_rows_seek(&rows, n);
        if (direct) {
            plan->kernels->emit_f32(rows.cos, rows.sin, plan->freqs.half, plan->freqs.scaling,
                                    PECERT__FAST_SPLIT,
                                    (float *)plan->cos->data + n * plan->cos->strides[0],
                                    (float *)plan->sin->data + n * plan->sin->strides[0]);
        } else {
            store_row(plan, &rows, n);
        }
    }
}

pecert_status pecert__fast_rope_cos_sin(void *instance, pecert_tensor *out_cos,
                                        pecert_tensor *out_sin,
                                        const pecert_rope_config *config, int64_t seq_len,
                                        const int64_t *positions, int64_t n_positions)
{
    pecert__fast_call call;
    pecert__fast_positions seen = {0, 0};
    table_plan plan = {out_cos, out_sin, positions, n_positions, {0}, NULL, NULL, 0};
    pecert_status status;
    int threads;

    if (pecert__fast_begin_call(&call, instance, "rope_cos_sin") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    status = check_arguments(&call, out_cos, out_sin, config, seq_len, positions, n_positions,
                             &seen);
    if (status == PECERT_OK) {
        status = pecert__fast_call_freqs(&call, config,
                                         pecert__fast_effective_seq_len(seq_len, n_positions, &seen),
                                         &seen, &plan.freqs);
    }
    if (status != PECERT_OK) {
        return status;
    }
    /* The work is trig, ~1 ns per entry: the f32 table's bytes stand in
     * for it in the threading threshold. */
    threads = pecert__fast_threads(&call, (size_t)n_positions * (size_t)plan.freqs.half *
                                              2 * sizeof(float),
                                   n_positions);
    plan.kernels = call.instance->kernels;
    plan.row_doubles = ((size_t)2 * (size_t)plan.freqs.half + 7) & ~(size_t)7;
    plan.scratch = pecert__fast_scratch(&call, (size_t)threads * plan.row_doubles * sizeof(double));
    if (plan.scratch == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert__fast_run(threads, table_share, &plan);
    return PECERT_OK;
}
