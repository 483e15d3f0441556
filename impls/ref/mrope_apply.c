/*
 * mrope_apply.c - multimodal (sectioned) rotary apply (op mrope_apply).
 *
 * transformers v4.57.6 models/qwen2_vl/modeling_qwen2_vl.py:
 * Qwen2VLRotaryEmbedding.forward gives cos/sin for each of the three
 * position axes; apply_multimodal_rotary_pos_emb splits the frequencies
 * into mrope_section (e.g. [16, 24, 24] of 64) and takes section k from
 * axis k, then rotates as apply_rotary_pos_emb (rotate_half: split-half
 * pairing). So frequency i turns by the position of the axis whose section
 * holds i; everything else (frequencies, attention scaling, pairing,
 * pass-through past rotary_dim) is rope_apply's (apply.c, rotation.c).
 *
 * Interleaved (ABI 1.4, Qwen3-VL: models/qwen3_vl/modeling_qwen3_vl.py,
 * Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope): the temporal axis'
 * frequencies are overwritten at i = 1, 4, 7, ... below 3 * section[1] by
 * the height axis' and at i = 2, 5, 8, ... below 3 * section[2] by the
 * width axis', so the three axes alternate instead of taking blocks.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "ref.h"

static pecert_status check_sections(const pecert__ref_call *call, const pecert_mrope_apply_args *a)
{
    int64_t sum = 0;

    if (a->num_axes < 1 || a->num_axes > PECERT_MROPE_MAX_AXES) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "num_axes=%" PRId32 " must be 1..%d",
                                a->num_axes, PECERT_MROPE_MAX_AXES);
    }
    for (int32_t k = 0; k < PECERT_MROPE_MAX_AXES; k++) {
        if (a->section[k] < 0 || (k >= a->num_axes && a->section[k] != 0)) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "section[%" PRId32 "]=%" PRId32 " must be >= 0 (0 past num_axes)",
                                    k, a->section[k]);
        }
        sum += a->section[k];
    }
    if (sum != a->config->rotary_dim / 2) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "sections sum to %" PRId64 ", rotary_dim / 2 is %" PRId32, sum,
                                a->config->rotary_dim / 2);
    }
    return PECERT_OK;
}

static pecert_status check_mrope_args(const pecert__ref_call *call, const void *args)
{
    const pecert_mrope_apply_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->interleaved != 0 && a->interleaved != 1) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "interleaved=%" PRId32 " must be 0 or 1",
                                  a->interleaved);
    }
    if (status == PECERT_OK && a->interleaved == 1 && a->num_axes != 3) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "interleaved M-RoPE takes num_axes=3 (t, h, w), not %" PRId32,
                                  a->num_axes);
    }
    if (status == PECERT_OK && a->pairing != PECERT_PAIRING_SPLIT_HALF &&
        a->pairing != PECERT_PAIRING_INTERLEAVED) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "pairing=%" PRId32 " is not 0 or 1", a->pairing);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_config(call, a->config);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_seq_len(call, a->seq_len);
    }
    if (status == PECERT_OK) {
        status = check_sections(call, a);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_tensor(call, "x", a->x, 3, 0, 0);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "out", a->out, 3, a->x->shape, PECERT__REF_F32_ONLY, 1);
    }
    if (status == PECERT_OK && a->x->shape[2] != a->config->head_dim) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "x.shape[2]=%" PRId64 " must be head_dim=%" PRId32,
                                  a->x->shape[2], a->config->head_dim);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_positions(call, a->positions, a->num_axes * a->x->shape[0]);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_in_place(call, a->x, a->out, sizeof(float));
    }
    return status;
}

/* The axis whose position turns frequency i. */
static int32_t axis_of(const pecert_mrope_apply_args *a, int32_t i)
{
    if (a->interleaved) {
        for (int32_t k = 1; k <= 2; k++) {
            if (i % 3 == k && i < 3 * a->section[k]) {
                return k;
            }
        }
        return 0;
    }
    int32_t end = 0;
    for (int32_t k = 0; k < a->num_axes; k++) {
        end += a->section[k];
        if (i < end) {
            return k;
        }
    }
    return a->num_axes - 1; /* unreachable: the sections sum to rotary_dim / 2 */
}

/* cos/sin of one token: frequency i from its axis. */
static void token_row(pecert__ref_rotation *rot, const pecert_mrope_apply_args *a, int64_t t,
                      double *cos_out, double *sin_out)
{
    int64_t tokens = a->x->shape[0];

    for (int32_t k = 0; k < a->num_axes; k++) {
        pecert__ref_rotation_row(rot, a->positions[k * tokens + t]);
        for (int32_t i = 0; i < rot->half; i++) {
            if (axis_of(a, i) == k) {
                cos_out[i] = rot->row_cos[i];
                sin_out[i] = rot->row_sin[i];
            }
        }
    }
}

static void rotate_token(const pecert_mrope_apply_args *a, int64_t t, int32_t half,
                         const double *c, const double *s)
{
    const pecert_tensor *x = a->x;
    const pecert_tensor *o = a->out;

    for (int64_t h = 0; h < x->shape[1]; h++) {
        const float *in = (const float *)x->data + t * x->strides[0] + h * x->strides[1];
        float *out = (float *)o->data + t * o->strides[0] + h * o->strides[1];

        for (int32_t i = 0; i < half; i++) {
            int32_t ia = a->pairing == PECERT_PAIRING_SPLIT_HALF ? i : 2 * i;
            int32_t ib = a->pairing == PECERT_PAIRING_SPLIT_HALF ? i + half : 2 * i + 1;
            double xa = in[ia * x->strides[2]];
            double xb = in[ib * x->strides[2]];

            out[ia * o->strides[2]] = (float)(xa * c[i] - xb * s[i]);
            out[ib * o->strides[2]] = (float)(xb * c[i] + xa * s[i]);
        }
        for (int64_t d = 2 * (int64_t)half; d < x->shape[2]; d++) {
            out[d * o->strides[2]] = in[d * x->strides[2]];
        }
    }
}

static pecert_status mrope_apply(const pecert__ref_call *call, const void *op_args)
{
    const pecert_mrope_apply_args *args = op_args;
    pecert__ref_rotation rot;
    double *c = NULL;
    /* seq_len 0 = max over every axis' positions + 1 (all are passed). */
    pecert_status status = pecert__ref_rotation_init(call, &rot, args->config, args->seq_len,
                                                     args->positions,
                                                     args->num_axes * args->x->shape[0]);

    if (status != PECERT_OK) {
        return status;
    }
    c = malloc(2 * (size_t)(rot.half > 0 ? rot.half : 1) * sizeof(double));
    if (c == NULL) {
        pecert__ref_rotation_free(&rot);
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t t = 0; t < args->x->shape[0] && args->x->shape[1] > 0; t++) {
        token_row(&rot, args, t, c, c + rot.half);
        rotate_token(args, t, rot.half, c, c + rot.half);
    }
    free(c);
    pecert__ref_rotation_free(&rot);
    return PECERT_OK;
}

pecert_status pecert__ref_mrope_apply(void *instance, const pecert_mrope_apply_args *args)
{
    return pecert__ref_run(instance, "mrope_apply", args, sizeof(*args), check_mrope_args,
                           mrope_apply);
}
