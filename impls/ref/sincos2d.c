/*
 * sincos2d.c - 2-D sin-cos position embeddings (op sincos_2d).
 *
 * facebookresearch/mae util/pos_embed.py get_2d_sincos_pos_embed and
 * get_2d_sincos_pos_embed_from_grid: the grid is np.meshgrid(grid_w,
 * grid_h) ("here w goes first"), so for the patch in row r, column c
 * (row-major index r * grid_w + c), with D = embed_dim and q = D / 4,
 *     channel i          sin(c w_i)     i < q
 *     channel q + i      cos(c w_i)
 *     channel 2q + i     sin(r w_i)
 *     channel 3q + i     cos(r w_i),    w_i = base^(-i / q)
 * (get_1d_sincos_pos_embed_from_grid: omega = 1 / 10000^(arange(q) / q)).
 * RT-DETR's layout (build_2d_sincos_position_embedding) writes the same
 * two halves of row k from a = k / grid_h and b = k mod grid_h: its
 * meshgrid of (w, h) with "ij" indexing, flattened.
 * cls_token prepends a zero row.
 */
#include <inttypes.h>
#include <math.h>

#include "ref.h"

pecert_status pecert__ref_check_sincos2d(const pecert__ref_call *call, const void *args)
{
    const pecert_sincos2d_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);
    int64_t shape[2];

    if (status == PECERT_OK && a->layout != PECERT_SINCOS2D_MAE && a->layout != PECERT_SINCOS2D_RT_DETR) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "layout=%" PRId32 " is not a PECERT_SINCOS2D_*", a->layout);
    }
    if (status == PECERT_OK && (a->embed_dim < 4 || a->embed_dim % 4 != 0)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "embed_dim=%" PRId32 " must be a positive multiple of 4",
                                  a->embed_dim);
    }
    if (status == PECERT_OK && (a->grid_h < 1 || a->grid_w < 1)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "grid %" PRId32 " x %" PRId32 " is empty",
                                  a->grid_h, a->grid_w);
    }
    if (status == PECERT_OK && a->cls_token != 0 && a->cls_token != 1) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "cls_token=%" PRId32 " must be 0 or 1",
                                  a->cls_token);
    }
    if (status == PECERT_OK && (!isfinite(a->base) || a->base <= 1.0)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "base=%.17g must be finite and > 1",
                                  a->base);
    }
    shape[0] = (int64_t)a->cls_token + (int64_t)a->grid_h * a->grid_w;
    shape[1] = a->embed_dim;
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "out", a->out, 2, shape, PECERT__REF_FLOAT, 1);
    }
    return status;
}

/* One 1-D half: sin | cos of coordinate v, q frequencies, from channel c0. */
static void write_half(const pecert_sincos2d_args *a, int64_t row, int64_t c0, int64_t v)
{
    int64_t q = a->embed_dim / 4;
    int64_t idx[2];

    idx[0] = row;
    for (int64_t i = 0; i < q; i++) {
        double w = exp(-log(a->base) * (double)i / (double)q);
        double s;
        double c;

        pecert__ref_sin_cos((double)v, w, &s, &c);
        idx[1] = c0 + i;
        pecert__ref_store_float(a->out, idx, s);
        idx[1] = c0 + q + i;
        pecert__ref_store_float(a->out, idx, c);
    }
}

static pecert_status sincos_2d(const pecert__ref_call *call, const void *op_args)
{
    const pecert_sincos2d_args *args = op_args;
    int64_t idx[2];

    (void)call;
    if (args->cls_token) {
        idx[0] = 0;
        for (idx[1] = 0; idx[1] < args->embed_dim; idx[1]++) {
            pecert__ref_store_float(args->out, idx, 0.0);
        }
    }
    for (int64_t k = 0; k < (int64_t)args->grid_h * args->grid_w; k++) {
        int64_t row = args->cls_token + k;
        int mae = args->layout == PECERT_SINCOS2D_MAE;

        write_half(args, row, 0, mae ? k % args->grid_w : k / args->grid_h);
        write_half(args, row, args->embed_dim / 2, mae ? k / args->grid_w : k % args->grid_h);
    }
    return PECERT_OK;
}

pecert_status pecert__ref_sincos_2d(void *instance, const pecert_sincos2d_args *args)
{
    return pecert__ref_run(instance, "sincos_2d", args, sizeof(*args),
                           pecert__ref_check_sincos2d, sincos_2d);
}
