/*
 * sine2d.c - DETR's 2-D sine embedding from a pixel mask (op sine2d), in
 * double, as plugin.h states it: transformers' DetrSinePositionEmbedding
 * and its copies (Deformable DETR's -0.5 offset, Grounding DINO's and
 * DAB-DETR's temperatures, MaskFormer's all-valid mask).
 *
 * The cumulative sums are integer counts; each axis' coordinate is
 * normalised by its own column's or row's count of valid pixels, and
 * channel i of an axis is sin (even i) or cos (odd i) of the coordinate
 * over temperature^(2 floor(i/2) / F), everything in double, rounded once
 * to f32 on the store.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "ref.h"

#define MAX_SIDE 16384
#define MAX_PIXELS ((int64_t)1 << 24)
#define MAX_FEATS 8192

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_numbers(const pecert__ref_call *call, const pecert_sine2d_args *a)
{
    if (a->num_pos_feats < 2 || a->num_pos_feats > MAX_FEATS || a->num_pos_feats % 2 != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "num_pos_feats=%" PRId32 " must be even and in 2..%d",
                                a->num_pos_feats, MAX_FEATS);
    }
    if (a->normalize != 0 && a->normalize != 1) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "normalize=%" PRId32 " must be 0 or 1", a->normalize);
    }
    if (!(isfinite(a->temperature_y) && a->temperature_y > 0) || !(isfinite(a->temperature_x) && a->temperature_x > 0)) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "temperature_y=%.17g, temperature_x=%.17g must be finite and > 0",
                                a->temperature_y, a->temperature_x);
    }
    if (!isfinite(a->scale) || !isfinite(a->offset) || !(isfinite(a->eps) && a->eps > 0)) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "scale=%.17g, offset=%.17g must be finite, eps=%.17g finite and > 0",
                                a->scale, a->offset, a->eps);
    }
    return PECERT_OK;
}

/* mask [h, w] i64 (i32 too) of 0 and 1, h and w in 1..MAX_SIDE. */
static pecert_status check_mask(const pecert__ref_call *call, const pecert_tensor *mask)
{
    pecert_status status = pecert__ref_check_view(call, "mask", mask, 2, NULL, PECERT__REF_INT, 0);
    if (status != PECERT_OK) {
        return status;
    }
    int64_t h = mask->shape[0];
    int64_t w = mask->shape[1];
    if (h < 1 || h > MAX_SIDE || w < 1 || w > MAX_SIDE || h * w > MAX_PIXELS) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "mask.shape=[%" PRId64 ", %" PRId64 "]: each side must be in 1..%d, h * w <= %" PRId64, h,
                                w, MAX_SIDE, MAX_PIXELS);
    }
    for (int64_t r = 0; r < h; r++) {
        for (int64_t c = 0; c < w; c++) {
            int64_t v = pecert__ref_sine2d_mask_at(mask, r, c);
            if (v != 0 && v != 1) {
                return pecert__ref_fail(call, PECERT_E_INVAL, "mask[%" PRId64 "][%" PRId64 "]=%" PRId64 " must be 0 or 1",
                                        r, c, v);
            }
        }
    }
    return PECERT_OK;
}

int64_t pecert__ref_sine2d_mask_at(const pecert_tensor *mask, int64_t r, int64_t c)
{
    int64_t at = r * mask->strides[0] + c * mask->strides[1];
    return mask->dtype == PECERT_DTYPE_I32 ? ((const int32_t *)mask->data)[at] : ((const int64_t *)mask->data)[at];
}

pecert_status pecert__ref_check_sine2d(const pecert__ref_call *call, const void *args)
{
    const pecert_sine2d_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);
    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    status = status == PECERT_OK ? check_numbers(call, a) : status;
    status = status == PECERT_OK ? check_mask(call, a->mask) : status;
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->mask->shape[0] * a->mask->shape[1], 2 * (int64_t)a->num_pos_feats};
        status = pecert__ref_check_view(call, "out", a->out, 2, shape, PECERT__REF_F32_ONLY, 1);
    }
    return status;
}

/* ---- the op -------------------------------------------------------------------- */

/* The cumulative counts: y down each column, x along each row, [h * w]. */
void pecert__ref_sine2d_counts(const pecert_tensor *mask, int64_t *y, int64_t *x)
{
    int64_t h = mask->shape[0];
    int64_t w = mask->shape[1];
    for (int64_t r = 0; r < h; r++) {
        int64_t along = 0;
        for (int64_t c = 0; c < w; c++) {
            int64_t m = pecert__ref_sine2d_mask_at(mask, r, c);
            along += m;
            x[r * w + c] = along;
            y[r * w + c] = (r > 0 ? y[(r - 1) * w + c] : 0) + m;
        }
    }
}

/* An axis' coordinate: the count, or normalised by the axis' last count. */
static double coordinate(const pecert_sine2d_args *a, int64_t count, int64_t last)
{
    if (!a->normalize) {
        return (double)count;
    }
    return ((double)count + a->offset) / ((double)last + a->eps) * a->scale;
}

/* F channels of one axis from channel c0 of row `row`. */
static void write_axis(const pecert_sine2d_args *a, int64_t row, int64_t c0, double v, double temperature)
{
    int64_t f = a->num_pos_feats;
    int64_t idx[2] = {row, 0};
    for (int64_t i = 0; i < f; i++) {
        double dim_t = pow(temperature, (double)(2 * (i / 2)) / (double)f);
        double angle = v / dim_t;
        idx[1] = c0 + i;
        pecert__ref_store_float(a->out, idx, i % 2 == 0 ? sin(angle) : cos(angle));
    }
}

static pecert_status sine2d(const pecert__ref_call *call, const void *op_args)
{
    const pecert_sine2d_args *a = op_args;
    int64_t h = a->mask->shape[0];
    int64_t w = a->mask->shape[1];
    int64_t *y = malloc((size_t)(h * w) * sizeof(int64_t));
    int64_t *x = malloc((size_t)(h * w) * sizeof(int64_t));
    if (y == NULL || x == NULL) {
        free(y);
        free(x);
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    pecert__ref_sine2d_counts(a->mask, y, x);
    for (int64_t r = 0; r < h; r++) {
        for (int64_t c = 0; c < w; c++) {
            int64_t row = r * w + c;
            write_axis(a, row, 0, coordinate(a, y[row], y[(h - 1) * w + c]), a->temperature_y);
            write_axis(a, row, a->num_pos_feats, coordinate(a, x[row], x[r * w + w - 1]), a->temperature_x);
        }
    }
    free(y);
    free(x);
    return PECERT_OK;
}

pecert_status pecert__ref_sine2d(void *instance, const pecert_sine2d_args *args)
{
    return pecert__ref_run(instance, "sine2d", args, sizeof(*args), pecert__ref_check_sine2d, sine2d);
}
