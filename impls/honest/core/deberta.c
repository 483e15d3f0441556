/*
 * deberta.c - deberta_bias (plugin.h, pecert_deberta_args) in float32 as
 * transformers' DisentangledSelfAttention computes it on the CPU: the log
 * bucket in float32 (|r| / mid, both logarithms, the quotient, the
 * product by mid - 1, the ceiling: make_log_bucket_position's tensor
 * steps), each term's bmm accumulated in float32 channel by channel,
 * gathered, divided by the float32 sqrt(d sf), and the terms added to a
 * zero score in order (c2p, then p2c). Single-threaded; one engine for
 * all the variants (they differ in their RoPE arithmetic).
 */
#include <math.h>
#include <stdlib.h>

#include "honest.h"

/* make_log_bucket_position in float32 steps. */
static int64_t bucket_f32(int64_t r, int64_t bucket_size, int64_t max_position)
{
    int64_t mid = bucket_size / 2;
    int64_t distance = r < 0 ? -r : r;
    if (bucket_size <= 0 || distance <= mid) {
        return r;
    }
    float ratio = (float)((double)(max_position - 1) / (double)mid); /* torch.tensor(a python float) */
    float x = logf((float)distance / (float)mid) / logf(ratio) * (float)(mid - 1);
    int64_t b = mid + (int64_t)ceilf(x);
    return r < 0 ? -b : b;
}

static float dot_f32(const pecert_tensor *x, int64_t n, int64_t t, const pecert_tensor *table, int64_t h,
                     int64_t row)
{
    const float *xd = (const float *)x->data + n * x->strides[0] + t * x->strides[1];
    const float *td = (const float *)table->data + h * table->strides[0] + row * table->strides[1];
    float sum = 0.0f;
    for (int64_t c = 0; c < x->shape[2]; c++) {
        sum += xd[c * x->strides[2]] * td[c * table->strides[2]];
    }
    return sum;
}

static pecert_status deberta(const pecert__ref_call *call, const void *op_args)
{
    const pecert_deberta_args *a = op_args;
    int64_t n = a->q->shape[0], len = a->q->shape[1];
    int c2p = (a->terms & PECERT_DEBERTA_C2P) != 0, p2c = (a->terms & PECERT_DEBERTA_P2C) != 0;
    int64_t heads = (c2p ? a->pos_key : a->pos_query)->shape[0];
    int64_t span = a->bucket_size > 0 ? a->bucket_size : a->max_position;
    float s = sqrtf((float)a->q->shape[2] * (float)(1 + c2p + p2c));
    float *out = a->out->data;
    /* relative_pos is a function of i - j: its row per distance, once. */
    int64_t *rows = malloc((size_t)(2 * len - 1) * sizeof(int64_t));
    if (rows == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t r = -(len - 1); r <= len - 1; r++) {
        int64_t row = bucket_f32(r, a->bucket_size, a->max_position) + span;
        rows[r + len - 1] = row < 0 ? 0 : row > 2 * span - 1 ? 2 * span - 1 : row;
    }
    for (int64_t b = 0; b < n; b++) {
        for (int64_t i = 0; i < len; i++) {
            for (int64_t j = 0; j < len; j++) {
                int64_t row = rows[i - j + len - 1];
                float score = 0.0f;
                if (c2p) {
                    score += dot_f32(a->q, b, i, a->pos_key, b % heads, row) / s;
                }
                if (p2c) {
                    score += dot_f32(a->k, b, j, a->pos_query, b % heads, row) / s;
                }
                out[b * a->out->strides[0] + i * a->out->strides[1] + j * a->out->strides[2]] = score;
            }
        }
    }
    free(rows);
    return PECERT_OK;
}

pecert_status honest_deberta_bias(void *instance, const pecert_deberta_args *args)
{
    return pecert__ref_run(instance, "deberta_bias", args, sizeof(*args), pecert__ref_check_deberta, deberta);
}
