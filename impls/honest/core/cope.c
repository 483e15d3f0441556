/*
 * cope.c - cope_logits (plugin.h, pecert_cope_args) in float32 as a port
 * of the official PyTorch module computes it on its float32 path, with
 * the two freedoms ports take and pecert's bound must admit:
 *
 *   positions  the gates summed with a forward cumulative sum, each
 *              position the row's total minus the prefix before its key
 *              (what an engine without a reversed scan does; in exact
 *              arithmetic the reversed cumulative sum, in float32 an error
 *              that grows with the row's total, not with the suffix);
 *   blend      f_lo + w (f_hi - f_lo), one multiply where the official
 *              (1 - w) f_lo + w f_hi has two.
 *
 * Everything else in float: the scale 1/sqrt(d) as a float, the dot
 * products summed in index order, the sigmoid as 1 / (1 + expf(-x)),
 * torch.matmul(query, pos_emb) for every integer position. Single-threaded;
 * one engine for all the variants (they differ in their RoPE arithmetic).
 */
#include <math.h>
#include <stdlib.h>

#include "honest.h"

static float at(const pecert_tensor *t, int64_t i, int64_t j)
{
    return ((const float *)t->data)[i * t->strides[0] + j * t->strides[1]];
}

static void store(const pecert_tensor *t, int64_t i, int64_t j, float v)
{
    ((float *)t->data)[i * t->strides[0] + j * t->strides[1]] = v;
}

static float dot(const pecert_tensor *q, int64_t i, const pecert_tensor *x, int64_t j)
{
    float s = 0.0f;
    for (int64_t c = 0; c < q->shape[1]; c++) {
        s += at(q, i, c) * at(x, j, c);
    }
    return s;
}

/* Row i's positions: prefix[j] = gates 0..j-1 summed forward, position =
 * min(npos - 1, total - prefix[j]). */
static void row_positions(const pecert_cope_args *a, int64_t i, float scale, float *prefix, float *p)
{
    int64_t n_k = a->k->shape[0];
    float sum = 0.0f;
    for (int64_t j = 0; j < n_k; j++) {
        prefix[j] = sum;
        float m = a->mask != NULL ? at(a->mask, i, j) : 1.0f;
        sum += m / (1.0f + expf(-(dot(a->q, i, a->gate_k, j) * scale)));
    }
    float top = (float)(a->npos - 1);
    for (int64_t j = 0; j < n_k; j++) {
        float v = sum - prefix[j];
        p[j] = v < top || isnan(v) ? v : top;
    }
}

static void row_logits(const pecert_cope_args *a, int64_t i, float scale, const float *p, float *f)
{
    for (int64_t t = 0; t < a->npos; t++) {
        float s = 0.0f;
        for (int64_t c = 0; c < a->q->shape[1]; c++) {
            s += at(a->q, i, c) * at(a->pos_emb, c, t);
        }
        f[t] = s;
    }
    for (int64_t j = 0; j < a->k->shape[0]; j++) {
        store(a->positions, i, j, p[j]);
        if (a->mask != NULL && at(a->mask, i, j) == 0.0f) {
            store(a->logits, i, j, -INFINITY);
            continue;
        }
        if (isnan(p[j])) {
            store(a->logits, i, j, NAN);
            continue;
        }
        float lo = floorf(p[j]);
        float f_lo = f[(int64_t)lo];
        float z = f_lo + (p[j] - lo) * (f[(int64_t)ceilf(p[j])] - f_lo);
        float qk = dot(a->q, i, a->k, j);
        store(a->logits, i, j, a->nodiv ? qk * scale + z : (qk + z) * scale);
    }
}

static pecert_status cope_logits(const pecert__ref_call *call, const void *op_args)
{
    const pecert_cope_args *args = op_args;
    int64_t n_k = args->k->shape[0];
    size_t n = (size_t)(2 * n_k + args->npos);
    float *scratch = malloc(n * sizeof(float));
    if (scratch == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    float scale = 1.0f / sqrtf((float)args->q->shape[1]);
    for (int64_t i = 0; i < args->q->shape[0]; i++) {
        row_positions(args, i, scale, scratch, scratch + n_k);
        row_logits(args, i, scale, scratch + n_k, scratch + 2 * n_k);
    }
    free(scratch);
    return PECERT_OK;
}

pecert_status honest_cope_logits(void *instance, const pecert_cope_args *args)
{
    return pecert__ref_run(instance, "cope_logits", args, sizeof(*args),
                           pecert__ref_check_cope, cope_logits);
}
