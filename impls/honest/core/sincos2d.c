/*
 * sincos2d.c - 2-D sin-cos tables (plugin.h, pecert_sincos2d_args) in
 * float32, as torch computes RT-DETR's build_2d_sincos_position_embedding
 * (transformers v4.57.6) with dtype float32: omega = arange(q) / q, then
 * 1 / temperature^omega, each step a float32 operation; the angle the
 * float32 product of the coordinate and omega; sin and cos by the
 * variant's trig. MAE's layout takes the same steps (its numpy float64
 * table rounded to float32 is what a float32 engine would be held to).
 * The argument checks are ref's.
 */
#include <math.h>
#include <stdlib.h>

#include "honest.h"

/* One half: sin | cos of coordinate v at the q float32 frequencies. */
static void write_half(const pecert_sincos2d_args *a, const float *omega, int64_t row, int64_t c0, int64_t v)
{
    int64_t q = a->embed_dim / 4;
    for (int64_t i = 0; i < q; i++) {
        float s, c;
        honest_sincos((float)v * omega[i], &s, &c);
        int64_t at_sin[2] = {row, c0 + i}, at_cos[2] = {row, c0 + q + i};
        pecert__ref_store_float(a->out, at_sin, s);
        pecert__ref_store_float(a->out, at_cos, c);
    }
}

static pecert_status sincos_2d(const pecert__ref_call *call, const void *op_args)
{
    const pecert_sincos2d_args *a = op_args;
    int64_t q = a->embed_dim / 4;
    float *omega = malloc((size_t)q * sizeof(float));
    (void)call;
    if (omega == NULL) {
        return PECERT_E_NOMEM;
    }
    for (int64_t i = 0; i < q; i++) {
        omega[i] = 1.0f / powf((float)a->base, (float)i / (float)q);
    }
    for (int64_t j = 0; a->cls_token && j < a->embed_dim; j++) {
        int64_t at[2] = {0, j};
        pecert__ref_store_float(a->out, at, 0.0);
    }
    for (int64_t k = 0; k < (int64_t)a->grid_h * a->grid_w; k++) {
        int rt_detr = a->layout == PECERT_SINCOS2D_RT_DETR;
        write_half(a, omega, a->cls_token + k, 0, rt_detr ? k / a->grid_h : k % a->grid_w);
        write_half(a, omega, a->cls_token + k, 2 * q, rt_detr ? k % a->grid_h : k / a->grid_w);
    }
    free(omega);
    return PECERT_OK;
}

pecert_status honest_sincos_2d(void *instance, const pecert_sincos2d_args *args)
{
    return pecert__ref_run(instance, "sincos_2d", args, sizeof(*args), pecert__ref_check_sincos2d, sincos_2d);
}
