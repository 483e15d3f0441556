/*
 * peg.c - conditional position encoding (op peg_apply), in double, as
 * plugin.h states it: CPVT's Position Encoding Generator as released with
 * Twins (gvt.py, PosCNN with s = 1), a depthwise k x k convolution over the
 * patch grid with zero padding and bias, added to its input; prefix rows
 * (a class token) are copied as they are.
 *
 * Each output element is its input plus the bias plus the kernel's taps
 * over the neighbours inside the grid, summed in double in the kernel's
 * row-major order; taps outside the grid read zeros and are skipped.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "ref.h"

#define MAX_GRID 4096
#define MAX_PREFIX 64
#define MAX_KERNEL 31
#define MAX_CHANNELS 65536

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_geometry(const pecert__ref_call *call, const pecert_peg_args *a)
{
    if (a->grid_h < 1 || a->grid_h > MAX_GRID || a->grid_w < 1 || a->grid_w > MAX_GRID) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "grid_h=%" PRId64 ", grid_w=%" PRId64 " must be in 1..%d",
                                a->grid_h, a->grid_w, MAX_GRID);
    }
    if (a->prefix_tokens < 0 || a->prefix_tokens > MAX_PREFIX) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "prefix_tokens=%" PRId32 " must be in 0..%d", a->prefix_tokens,
                                MAX_PREFIX);
    }
    if (a->kernel < 1 || a->kernel > MAX_KERNEL || a->kernel % 2 == 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "kernel=%" PRId64 " must be odd and in 1..%d", a->kernel,
                                MAX_KERNEL);
    }
    return PECERT_OK;
}

pecert_status pecert__ref_check_peg(const pecert__ref_call *call, const void *args)
{
    const pecert_peg_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);
    status = status == PECERT_OK ? check_geometry(call, a) : status;
    status = status == PECERT_OK ? pecert__ref_check_view(call, "x", a->x, 2, NULL, PECERT__REF_F32_ONLY, 0) : status;
    int64_t rows = a->prefix_tokens + a->grid_h * a->grid_w;
    if (status == PECERT_OK && (a->x->shape[0] != rows || a->x->shape[1] < 1 || a->x->shape[1] > MAX_CHANNELS)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "x.shape=[%" PRId64 ", %" PRId64 "] must be [prefix_tokens + grid_h * grid_w = %" PRId64
                                ", 1..%d]",
                                a->x->shape[0], a->x->shape[1], rows, MAX_CHANNELS);
    }
    if (status == PECERT_OK) {
        int64_t shape[3] = {a->x->shape[1], a->kernel, a->kernel};
        status = pecert__ref_check_view(call, "weight", a->weight, 3, shape, PECERT__REF_F32_ONLY, 0);
    }
    if (status == PECERT_OK) {
        int64_t shape[1] = {a->x->shape[1]};
        status = pecert__ref_check_view(call, "bias", a->bias, 1, shape, PECERT__REF_F32_ONLY, 0);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {rows, a->x->shape[1]};
        status = pecert__ref_check_view(call, "out", a->out, 2, shape, PECERT__REF_F32_ONLY, 1);
    }
    if (status == PECERT_OK && (pecert__ref_views_overlap(a->x, a->out, sizeof(float)) ||
                                pecert__ref_views_overlap(a->weight, a->out, sizeof(float)) ||
                                pecert__ref_views_overlap(a->bias, a->out, sizeof(float)))) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "out overlaps an input (x, weight or bias)");
    }
    return status;
}

/* ---- the op -------------------------------------------------------------------- */

static double x_at(const pecert_tensor *x, int64_t row, int64_t c)
{
    return ((const float *)x->data)[row * x->strides[0] + c * x->strides[1]];
}

static double weight_at(const pecert_tensor *w, int64_t c, int64_t a, int64_t b)
{
    return ((const float *)w->data)[c * w->strides[0] + a * w->strides[1] + b * w->strides[2]];
}

static void store(const pecert_tensor *t, int64_t row, int64_t c, double v)
{
    ((float *)t->data)[row * t->strides[0] + c * t->strides[1]] = (float)v;
}

/* Output cell (y, x), channel c: input + bias + the taps inside the grid. */
static double cell(const pecert_peg_args *a, int64_t y, int64_t x, int64_t c)
{
    int64_t r = a->kernel / 2;
    double sum = 0.0;
    for (int64_t i = 0; i < a->kernel; i++) {
        int64_t sy = y + i - r;
        for (int64_t j = 0; j < a->kernel; j++) {
            int64_t sx = x + j - r;
            if (sy >= 0 && sy < a->grid_h && sx >= 0 && sx < a->grid_w) {
                sum += weight_at(a->weight, c, i, j) * x_at(a->x, a->prefix_tokens + sy * a->grid_w + sx, c);
            }
        }
    }
    double bias = ((const float *)a->bias->data)[c * a->bias->strides[0]];
    return x_at(a->x, a->prefix_tokens + y * a->grid_w + x, c) + (sum + bias);
}

static pecert_status peg_apply(const pecert__ref_call *call, const void *op_args)
{
    const pecert_peg_args *args = op_args;

    (void)call;
    int64_t channels = args->x->shape[1];
    for (int64_t r = 0; r < args->prefix_tokens; r++) {
        for (int64_t c = 0; c < channels; c++) {
            store(args->out, r, c, x_at(args->x, r, c));
        }
    }
    for (int64_t y = 0; y < args->grid_h; y++) {
        for (int64_t x = 0; x < args->grid_w; x++) {
            for (int64_t c = 0; c < channels; c++) {
                store(args->out, args->prefix_tokens + y * args->grid_w + x, c, cell(args, y, x, c));
            }
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_peg_apply(void *instance, const pecert_peg_args *args)
{
    return pecert__ref_run(instance, "peg_apply", args, sizeof(*args),
                           pecert__ref_check_peg, peg_apply);
}
