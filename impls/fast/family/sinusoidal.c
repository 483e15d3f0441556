/*
 * sinusoidal.c - absolute sinusoidal embeddings (op sinusoidal) and the
 * 2-D sin-cos of ViT/MAE (op sincos_2d).
 *
 * Variants (plugin.h; d = dim, B = base, h = floor(d / 2)):
 *   INTERLEAVED  2i: sin(p f_i), 2i+1: cos(p f_i), f_i = B^(-2i/d)
 *   CONCAT       sin for i < ceil(d/2), then cos for i < h, f_i = B^(-2i/d)
 *   T2T          sin | cos for i < h, f_i = exp(-i ln B / max(h - 1, 1)),
 *                a zero last channel for odd d
 *   FAIRSEQ      the T2T table at row padding_idx + 1 + p; p = -1 is the
 *                zero row padding_idx
 * Each call computes the channel plan (frequency and sin/cos/zero per
 * channel) once, then one accurately reduced sin/cos per channel and row.
 */
#include <inttypes.h>
#include <math.h>

#include "../family.h"

enum { KIND_SIN = 0, KIND_COS = 1, KIND_ZERO = 2 };

/* Frequency and kind of channel j. */
static int channel(const pecert_sinusoidal_args *a, int32_t j, double *freq)
{
    int32_t d = a->dim;
    int32_t h = d / 2;
    double ln_base = log(a->base);

    *freq = 0.0;
    switch (a->variant) {
    case PECERT_SINUSOIDAL_INTERLEAVED:
        *freq = exp(-ln_base * (double)(2 * (j / 2)) / (double)d);
        return j % 2 == 0 ? KIND_SIN : KIND_COS;
    case PECERT_SINUSOIDAL_CONCAT: {
        int32_t n_sin = d - h;
        int32_t i = j < n_sin ? j : j - n_sin;

        *freq = exp(-ln_base * (double)(2 * i) / (double)d);
        return j < n_sin ? KIND_SIN : KIND_COS;
    }
    default: {
        double divisor = h - 1 > 1 ? (double)(h - 1) : 1.0;

        if (j >= 2 * h) {
            return KIND_ZERO;
        }
        *freq = exp(-(double)(j % h) * ln_base / divisor);
        return j < h ? KIND_SIN : KIND_COS;
    }
    }
}

static pecert_status check_variant(const pecert__fast_call *call, const pecert_sinusoidal_args *a)
{
    if (a->variant < PECERT_SINUSOIDAL_INTERLEAVED || a->variant > PECERT_SINUSOIDAL_FAIRSEQ) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "variant=%" PRId32 " must be 0..3",
                                 a->variant);
    }
    if (a->dim < 2) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "dim=%" PRId32 " must be >= 2", a->dim);
    }
    if (!isfinite(a->base) || a->base <= 1.0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "base=%.17g must be finite and > 1",
                                 a->base);
    }
    if (a->variant != PECERT_SINUSOIDAL_FAIRSEQ) {
        return a->padding_idx == -1
                   ? PECERT_OK
                   : pecert__fast_fail(call, PECERT_E_INVAL,
                                       "padding_idx=%" PRId32 " must be -1 outside FAIRSEQ",
                                       a->padding_idx);
    }
    if (a->padding_idx < 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "padding_idx=%" PRId32 " must be >= 0 for FAIRSEQ",
                                 a->padding_idx);
    }
    if (a->dim / 2 - 1 < 1) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "dim=%" PRId32 " must be >= 4 for FAIRSEQ (it divides by dim/2 - 1)",
                                 a->dim);
    }
    for (int64_t i = 0; i < a->n; i++) {
        if (a->positions[i] < -1) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "positions[%" PRId64 "]=%" PRId64
                                     " must be -1 (padding) or >= 0 for FAIRSEQ",
                                     i, a->positions[i]);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__fast_sinusoidal(void *instance, const pecert_sinusoidal_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    double *freq;
    int *kind;

    status = pecert__fast_fam_enter(&call, instance, "sinusoidal", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_reserved(&call, "args", args->reserved, 4);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(&call, "positions", args->positions, args->n);
    }
    if (status == PECERT_OK) {
        status = check_variant(&call, args);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {args->n, args->dim};

        status = pecert__fast_fam_check_view(&call, "out", args->out, 2, shape, PECERT__FAM_FLOAT,
                                             1);
    }
    if (status != PECERT_OK || pecert__fast_is_empty(args->out)) {
        return status;
    }
    freq = pecert__fast_scratch(&call, (size_t)args->dim * (sizeof(double) + sizeof(int)));
    if (freq == NULL) {
        return PECERT_E_NOMEM;
    }
    kind = (int *)(freq + args->dim);
    for (int32_t j = 0; j < args->dim; j++) {
        kind[j] = channel(args, j, &freq[j]);
    }
    for (int64_t idx[2] = {0, 0}; idx[0] < args->n; idx[0]++) {
        int64_t p = args->positions[idx[0]];
        int64_t row = args->variant == PECERT_SINUSOIDAL_FAIRSEQ
                          ? (p == -1 ? -1 : (int64_t)args->padding_idx + 1 + p)
                          : p;

        for (idx[1] = 0; idx[1] < args->dim; idx[1]++) {
            double s = 0.0;
            double c = 0.0;
            int k = row < 0 && args->variant == PECERT_SINUSOIDAL_FAIRSEQ ? KIND_ZERO
                                                                          : kind[idx[1]];

            if (k != KIND_ZERO) {
                pecert__fast_fam_sincos((double)row, freq[idx[1]], &s, &c);
            }
            pecert__fast_fam_store_float(args->out, idx,
                                         k == KIND_ZERO ? 0.0 : (k == KIND_SIN ? s : c));
        }
    }
    return PECERT_OK;
}

static pecert_status check_sincos2d_args(const pecert__fast_call *call,
                                         const pecert_sincos2d_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "reserved0=%" PRId32 " must be 0",
                                   a->reserved0);
    }
    if (status == PECERT_OK && (a->embed_dim < 4 || a->embed_dim % 4 != 0)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "embed_dim=%" PRId32 " must be a positive multiple of 4",
                                   a->embed_dim);
    }
    if (status == PECERT_OK && (a->grid_h < 1 || a->grid_w < 1)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "grid_h=%" PRId32 ", grid_w=%" PRId32 " must both be >= 1",
                                   a->grid_h, a->grid_w);
    }
    if (status == PECERT_OK && a->cls_token != 0 && a->cls_token != 1) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "cls_token=%" PRId32 " must be 0 or 1",
                                   a->cls_token);
    }
    if (status == PECERT_OK && (!isfinite(a->base) || a->base <= 1.0)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "base=%.17g must be finite and > 1",
                                   a->base);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {(int64_t)a->cls_token + (int64_t)a->grid_h * a->grid_w, a->embed_dim};

        status = pecert__fast_fam_check_view(call, "out", a->out, 2, shape, PECERT__FAM_FLOAT, 1);
    }
    return status;
}

/* One 1-D half (sin then cos, q channels each) from channel c0 on. */
static void write_half(const pecert_tensor *out, int64_t row, int64_t c0, int64_t q,
                       const double *sn, const double *cs)
{
    int64_t idx[2] = {row, 0};

    for (int64_t i = 0; i < q; i++) {
        idx[1] = c0 + i;
        pecert__fast_fam_store_float(out, idx, sn[i]);
        idx[1] = c0 + q + i;
        pecert__fast_fam_store_float(out, idx, cs[i]);
    }
}

pecert_status pecert__fast_sincos_2d(void *instance, const pecert_sincos2d_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    int64_t q;
    int64_t rows;
    double *w;
    double *col_sin;
    double *col_cos;
    double *row_sin;
    double *row_cos;

    status = pecert__fast_fam_enter(&call, instance, "sincos_2d", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_sincos2d_args(&call, args);
    }
    if (status != PECERT_OK) {
        return status;
    }
    q = args->embed_dim / 4;
    /* Frequencies, then the grid_w column rows (sin, cos) computed once and
     * reused by every grid row, then one row's pair. */
    w = pecert__fast_scratch(&call, (size_t)q * (3 + 2 * (size_t)args->grid_w) * sizeof(double));
    if (w == NULL) {
        return PECERT_E_NOMEM;
    }
    col_sin = w + q;
    col_cos = col_sin + (size_t)q * (size_t)args->grid_w;
    row_sin = col_cos + (size_t)q * (size_t)args->grid_w;
    row_cos = row_sin + q;
    for (int64_t i = 0; i < q; i++) {
        w[i] = exp(-log(args->base) * (double)i / (double)q);
    }
    for (int64_t c = 0; c < args->grid_w; c++) {
        for (int64_t i = 0; i < q; i++) {
            pecert__fast_fam_sincos((double)c, w[i], &col_sin[c * q + i], &col_cos[c * q + i]);
        }
    }
    if (args->cls_token) {
        for (int64_t idx[2] = {0, 0}; idx[1] < args->embed_dim; idx[1]++) {
            pecert__fast_fam_store_float(args->out, idx, 0.0);
        }
    }
    rows = args->grid_h;
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t i = 0; i < q; i++) {
            pecert__fast_fam_sincos((double)r, w[i], &row_sin[i], &row_cos[i]);
        }
        for (int64_t c = 0; c < args->grid_w; c++) {
            int64_t row = args->cls_token + r * args->grid_w + c;

            write_half(args->out, row, 0, q, col_sin + c * q, col_cos + c * q);
            write_half(args->out, row, 2 * q, q, row_sin, row_cos);
        }
    }
    return PECERT_OK;
}
