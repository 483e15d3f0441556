/*
 * txl.c - Transformer-XL relative positions (ops txl_pos_emb,
 * txl_rel_shift), kimiyoung/transformer-xl pytorch/mem_transformer.py.
 *
 * txl_pos_emb: PositionalEmbedding.forward on the pos_seq that
 * MemTransformerLM._forward builds, arange(klen - 1, -1, -1.0) clamped to
 * clamp_len (when > 0): row r is position p = min(klen - 1 - r, clamp_len),
 *     channel i        sin(p f_i)     i < d/2
 *     channel d/2 + i  cos(p f_i),    f_i = 10000^(-2i/d)
 * (inv_freq = 1 / (10000 ** (arange(0, d, 2) / d)), torch.ger, cat).
 *
 * txl_rel_shift: RelMultiHeadAttn._rel_shift pads a zero column in front,
 * reads the [qlen, klen + 1] buffer as [klen + 1, qlen] and drops the first
 * row; element (i, j) of the result is element i * klen + j + qlen of the
 * padded buffer in row-major order, i.e. row f / (klen + 1), column
 * f % (klen + 1) - 1 (0 for the pad). Below the diagonal j <= i + mlen that
 * is x[i][j + qlen - 1 - i]; above it the official values are reproduced
 * too, or zeroed with zero_triu (its tril(ones, klen - qlen) mask).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ref.h"

static pecert_status check_pos_emb_args(const pecert__ref_call *call, const void *args)
{
    const pecert_txl_pos_emb_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && (a->d_model < 2 || a->d_model % 2 != 0)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "d_model=%" PRId32 " must be even and >= 2",
                                  a->d_model);
    }
    if (status == PECERT_OK && (a->klen < 0 || a->klen >= PECERT__REF_POSITION_LIMIT)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "klen=%" PRId64 " must be in [0, 2^53)",
                                  a->klen);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->klen, a->d_model};

        status = pecert__ref_check_view(call, "out", a->out, 2, shape, PECERT__REF_FLOAT, 1);
    }
    return status;
}

static pecert_status txl_pos_emb(const pecert__ref_call *call, const void *op_args)
{
    const pecert_txl_pos_emb_args *args = op_args;
    int64_t idx[2];

    (void)call;
    int64_t half = args->d_model / 2;
    for (idx[0] = 0; idx[0] < args->klen; idx[0]++) {
        int64_t p = args->klen - 1 - idx[0];

        if (args->clamp_len > 0 && p > args->clamp_len) {
            p = args->clamp_len;
        }
        for (int64_t i = 0; i < half; i++) {
            double f = exp(-log(10000.0) * (double)(2 * i) / (double)args->d_model);
            double s;
            double c;

            pecert__ref_sin_cos((double)p, f, &s, &c);
            idx[1] = i;
            pecert__ref_store_float(args->out, idx, s);
            idx[1] = half + i;
            pecert__ref_store_float(args->out, idx, c);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_txl_pos_emb(void *instance, const pecert_txl_pos_emb_args *args)
{
    return pecert__ref_run(instance, "txl_pos_emb", args, sizeof(*args),
                           check_pos_emb_args, txl_pos_emb);
}

/* Whether the byte spans of two checked f32 views intersect. */
static int spans_meet(const pecert_tensor *a, const pecert_tensor *b)
{
    uintptr_t a0 = (uintptr_t)a->data;
    uintptr_t b0 = (uintptr_t)b->data;
    uintptr_t a1 = a0 + ((uintptr_t)pecert__ref_max_offset(a) + 1) * sizeof(float);
    uintptr_t b1 = b0 + ((uintptr_t)pecert__ref_max_offset(b) + 1) * sizeof(float);

    return a0 < b1 && b0 < a1;
}

static pecert_status check_shift_args(const pecert__ref_call *call, const void *args)
{
    const pecert_txl_rel_shift_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->zero_triu != 0 && a->zero_triu != 1) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "zero_triu=%" PRId32 " must be 0 or 1",
                                  a->zero_triu);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "x", a->x, 3, NULL, PECERT__REF_F32_ONLY, 0);
    }
    if (status == PECERT_OK && a->x->shape[0] > a->x->shape[1]) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "qlen=%" PRId64 " exceeds klen=%" PRId64,
                                  a->x->shape[0], a->x->shape[1]);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "out", a->out, 3, a->x->shape, PECERT__REF_F32_ONLY, 1);
    }
    if (status == PECERT_OK && !pecert__ref_is_empty(a->x) && spans_meet(a->x, a->out) &&
        pecert__ref_views_overlap(a->x, a->out, sizeof(float))) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "out overlaps x (not supported in place)");
    }
    return status;
}

static pecert_status txl_rel_shift(const pecert__ref_call *call, const void *op_args)
{
    const pecert_txl_rel_shift_args *args = op_args;
    int64_t dst[3];
    int64_t src[3];

    (void)call;
    int64_t qlen = args->x->shape[0];
    int64_t klen = args->x->shape[1];
    for (dst[0] = 0; dst[0] < qlen; dst[0]++) {
        for (dst[1] = 0; dst[1] < klen; dst[1]++) {
            int64_t f = dst[0] * klen + dst[1] + qlen;
            int64_t col = f % (klen + 1);
            int zero = col == 0 || (args->zero_triu && dst[1] > dst[0] + klen - qlen);

            src[0] = f / (klen + 1);
            src[1] = col - 1;
            for (dst[2] = src[2] = 0; dst[2] < args->x->shape[2]; dst[2]++, src[2]++) {
                float v = 0.0f;

                if (!zero) {
                    memcpy(&v, pecert__ref_elem(args->x, src), sizeof(v));
                }
                memcpy(pecert__ref_elem(args->out, dst), &v, sizeof(v));
            }
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_txl_rel_shift(void *instance, const pecert_txl_rel_shift_args *args)
{
    return pecert__ref_run(instance, "txl_rel_shift", args, sizeof(*args),
                           check_shift_args, txl_rel_shift);
}
