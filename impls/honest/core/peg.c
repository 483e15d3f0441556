/*
 * peg.c - peg_apply (plugin.h, pecert_peg_args) in float32 as a port of
 * PyTorch's depthwise Conv2d computes it on the CPU, then the residual:
 * each output starts from the bias, the in-grid taps are added in the
 * kernel's row-major order, and the input is added last (PosCNN's
 * proj(cnn_feat) + cnn_feat), every step in float. Single-threaded; one
 * engine for all the variants (they differ in their RoPE arithmetic).
 */
#include "honest.h"

static float x_at(const pecert_tensor *x, int64_t row, int64_t c)
{
    return ((const float *)x->data)[row * x->strides[0] + c * x->strides[1]];
}

static float conv(const pecert_peg_args *a, int64_t y, int64_t x, int64_t c)
{
    const float *w = a->weight->data;
    int64_t r = a->kernel / 2;
    float acc = ((const float *)a->bias->data)[c * a->bias->strides[0]];
    for (int64_t i = 0; i < a->kernel; i++) {
        for (int64_t j = 0; j < a->kernel; j++) {
            int64_t sy = y + i - r, sx = x + j - r;
            if (sy >= 0 && sy < a->grid_h && sx >= 0 && sx < a->grid_w) {
                acc += w[c * a->weight->strides[0] + i * a->weight->strides[1] + j * a->weight->strides[2]] *
                       x_at(a->x, a->prefix_tokens + sy * a->grid_w + sx, c);
            }
        }
    }
    return acc;
}

static pecert_status peg_apply(const pecert__ref_call *call, const void *op_args)
{
    const pecert_peg_args *args = op_args;

    (void)call;
    int64_t channels = args->x->shape[1];
    float *out = args->out->data;
    for (int64_t row = 0; row < args->x->shape[0]; row++) {
        for (int64_t c = 0; c < channels; c++) {
            float v = x_at(args->x, row, c);
            if (row >= args->prefix_tokens) {
                int64_t t = row - args->prefix_tokens;
                v = conv(args, t / args->grid_w, t % args->grid_w, c) + v;
            }
            out[row * args->out->strides[0] + c * args->out->strides[1]] = v;
        }
    }
    return PECERT_OK;
}

pecert_status honest_peg_apply(void *instance, const pecert_peg_args *args)
{
    return pecert__ref_run(instance, "peg_apply", args, sizeof(*args),
                           pecert__ref_check_peg, peg_apply);
}
