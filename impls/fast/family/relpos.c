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

pecert_status pecert__fast_swin_index(void *instance, const pecert_swin_index_args *args)
{
    pecert__fast_call call;
    pecert_status status;
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
    for (int64_t a = 0; a < n; a++) {
        int64_t ha = a / ww;
        int64_t wa = a % ww;
        int64_t base = (ha + wh - 1) * (2 * ww - 1) + wa + ww - 1;

        if (args->out->dtype == PECERT_DTYPE_I64 && args->out->strides[1] == 1) {
            int64_t *row = (int64_t *)args->out->data + a * args->out->strides[0];

            for (int64_t b = 0; b < n; b++) {
                row[b] = base - (b / ww) * (2 * ww - 1) - b % ww;
            }
        } else {
            for (int64_t b = 0; b < n; b++) {
                store_index(args->out, a, b, base - (b / ww) * (2 * ww - 1) - b % ww);
            }
        }
    }
    return PECERT_OK;
}

pecert_status pecert__fast_shaw_index(void *instance, const pecert_shaw_index_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    int64_t k;

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
    k = args->max_relative_position;
    for (int64_t i = 0; i < args->n_q; i++) {
        int64_t q = args->q_positions[i];

        for (int64_t j = 0; j < args->n_k; j++) {
            /* |positions| < 2^53: the difference is exact. */
            int64_t d = args->k_positions[j] - q;

            d = d < -k ? -k : (d > k ? k : d);
            store_index(args->out, i, j, d + k);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__fast_txl_pos_emb(void *instance, const pecert_txl_pos_emb_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    int64_t half;
    double *f;

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
    half = args->d_model / 2;
    f = pecert__fast_scratch(&call, (size_t)half * sizeof(double));
    if (f == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int64_t i = 0; i < half; i++) {
        f[i] = exp(-log(10000.0) * (double)(2 * i) / (double)args->d_model);
    }
    for (int64_t idx[2] = {0, 0}; idx[0] < args->klen; idx[0]++) {
        int64_t p = args->klen - 1 - idx[0];

        if (args->clamp_len > 0 && p > args->clamp_len) {
            p = args->clamp_len;
        }
        for (int64_t i = 0; i < half; i++) {
            double s;
            double c;

            pecert__fast_fam_sincos((double)p, f[i], &s, &c);
            idx[1] = i;
            pecert__fast_fam_store_float(args->out, idx, s);
            idx[1] = half + i;
            pecert__fast_fam_store_float(args->out, idx, c);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__fast_txl_rel_shift(void *instance, const pecert_txl_rel_shift_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    const pecert_tensor *x;
    const pecert_tensor *o;
    int64_t qlen;
    int64_t klen;
    int64_t n;

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
    x = args->x;
    o = args->out;
    qlen = x->shape[0];
    klen = x->shape[1];
    n = x->shape[2];
    for (int64_t i = 0; i < qlen; i++) {
        for (int64_t j = 0; j < klen; j++) {
            int64_t f = i * klen + j + qlen;
            int64_t col = f % (klen + 1);
            int zero = col == 0 || (args->zero_triu && j > i + klen - qlen);
            const float *src =
                (const float *)x->data + (f / (klen + 1)) * x->strides[0] + (col - 1) * x->strides[1];
            float *dst = (float *)o->data + i * o->strides[0] + j * o->strides[1];

            if (zero) {
                for (int64_t c = 0; c < n; c++) {
                    dst[c * o->strides[2]] = 0.0f;
                }
            } else if (x->strides[2] == 1 && o->strides[2] == 1) {
                memcpy(dst, src, (size_t)n * sizeof(float));
            } else {
                for (int64_t c = 0; c < n; c++) {
                    memcpy(dst + c * o->strides[2], src + c * x->strides[2], sizeof(float));
                }
            }
        }
    }
    return PECERT_OK;
}
