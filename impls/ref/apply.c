/*
 * apply.c - the rope_apply op: rotate x [tokens, heads, head_dim] (f32,
 * strided) by each token's position into out, which may be x itself.
 *
 * Pairings:
 *   split-half  - models/llama/modeling_llama.py, rotate_half and
 *                 apply_rotary_pos_emb: channel i pairs with i + dim/2,
 *                 out = x * cos + rotate_half(x) * sin.
 *   interleaved - models/gptj/modeling_gptj.py, rotate_every_two and
 *                 apply_rotary_pos_emb: channel 2i pairs with 2i + 1.
 * In both, for a pair (a, b) with frequency i:
 *   out_a = a * cos_i - b * sin_i,  out_b = b * cos_i + a * sin_i,
 * cos/sin already carrying the attention scaling (LlamaRotaryEmbedding).
 * Channels from rotary_dim on pass through (GPT-J's k_pass / q_pass).
 * Each pair is read before it is written, so out == x is safe.
 * A NoPE layer (config.layer_kind, ABI 1.4) copies x to out unchanged: the
 * official models guard their apply call (Llama4TextAttention, SmolLM3's
 * `if self.use_rope:`), so those layers see q and k as projected.
 */
#include <inttypes.h>
#include <stddef.h>

#include "ref.h"

/* A strided f32 row (one head of one token) and its channel stride. */
typedef struct channel_row {
    const float *in;    /* x row start                                  */
    float *out;         /* out row start                                */
    ptrdiff_t in_step;  /* x channel stride, elements                   */
    ptrdiff_t out_step; /* out channel stride, elements                 */
} channel_row;

static void rotate_pair(const channel_row *row, int32_t a, int32_t b,
                        double cos_value, double sin_value)
{
    double x_a = (double)row->in[a * row->in_step];
    double x_b = (double)row->in[b * row->in_step];

    row->out[a * row->out_step] = (float)(x_a * cos_value - x_b * sin_value);
    row->out[b * row->out_step] = (float)(x_b * cos_value + x_a * sin_value);
}

static void rotate_row(const channel_row *row, const pecert__ref_rotation *rotation,
                       pecert_rope_pairing pairing, int32_t head_dim)
{
    int32_t half = rotation->half;
    int32_t i;

    for (i = 0; i < half; i++) {
        if (pairing == PECERT_PAIRING_SPLIT_HALF) {
            rotate_pair(row, i, i + half, rotation->row_cos[i], rotation->row_sin[i]);
        } else {
            rotate_pair(row, 2 * i, 2 * i + 1, rotation->row_cos[i],
                        rotation->row_sin[i]);
        }
    }
    for (i = 2 * half; i < head_dim; i++) {
        row->out[i * row->out_step] = row->in[i * row->in_step];
    }
}

static pecert_status check_args_header(const pecert__ref_call *call,
                                       const pecert_rope_apply_args *args)
{
    if (args == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "args is NULL");
    }
    if (args->struct_size < sizeof(pecert_rope_apply_args)) {
        return pecert__ref_fail(call, PECERT_E_ABI,
                                "args.struct_size=%" PRIu32 " is smaller than "
                                "sizeof(pecert_rope_apply_args)=%zu",
                                args->struct_size, sizeof(pecert_rope_apply_args));
    }
    if (args->pairing != PECERT_PAIRING_SPLIT_HALF &&
        args->pairing != PECERT_PAIRING_INTERLEAVED) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "args.pairing=%" PRId32 " must be 0 (split-half) or "
                                "1 (interleaved)", args->pairing);
    }
    /* Reserved for M-RoPE: a non-zero word asks for something ABI 1.0
     * cannot express, so it is refused rather than ignored. */
    return pecert__ref_check_reserved_of(call, "args", args->reserved,
                                         sizeof(args->reserved) / sizeof(args->reserved[0]), "1.0");
}

static pecert_status check_shapes(const pecert__ref_call *call,
                                  const pecert_tensor *x, const pecert_tensor *out,
                                  int32_t head_dim)
{
    uint32_t k;

    for (k = 0; k < 3; k++) {
        if (out->shape[k] != x->shape[k]) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "out.shape[%" PRIu32 "]=%" PRId64 " differs from "
                                    "x.shape[%" PRIu32 "]=%" PRId64,
                                    k, out->shape[k], k, x->shape[k]);
        }
    }
    if (x->shape[2] != head_dim) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "x.shape[2]=%" PRId64 " must equal config.head_dim=%" PRId32,
                                x->shape[2], head_dim);
    }
    return PECERT_OK;
}

static pecert_status check_arguments(const pecert__ref_call *call,
                                     const pecert_rope_apply_args *args)
{
    pecert_status status = check_args_header(call, args);

    if (status == PECERT_OK) {
        status = pecert__ref_check_layer_config(call, args->config);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_seq_len(call, args->seq_len);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_tensor(call, "x", args->x, 3, 0, 0);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_tensor(call, "out", args->out, 3, 0, 1);
    }
    if (status == PECERT_OK) {
        status = check_shapes(call, args->x, args->out, args->config->head_dim);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_positions(call, args->positions, args->x->shape[0]);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_in_place(call, args->x, args->out, sizeof(float));
    }
    return status;
}

static void rotate_token(const pecert_rope_apply_args *args,
                         const pecert__ref_rotation *rotation, int64_t token)
{
    const pecert_tensor *x = args->x;
    const pecert_tensor *out = args->out;
    channel_row row;
    int64_t head;

    row.in_step = (ptrdiff_t)x->strides[2];
    row.out_step = (ptrdiff_t)out->strides[2];
    for (head = 0; head < x->shape[1]; head++) {
        row.in = (const float *)x->data + token * x->strides[0] + head * x->strides[1];
        row.out = (float *)out->data + token * out->strides[0] + head * out->strides[1];
        rotate_row(&row, rotation, args->pairing, args->config->head_dim);
    }
}

/* A NoPE layer: every channel of every head as it came in. */
static void copy_token(const pecert_rope_apply_args *args, int64_t token)
{
    const pecert_tensor *x = args->x;
    const pecert_tensor *out = args->out;

    for (int64_t head = 0; head < x->shape[1]; head++) {
        const float *in = (const float *)x->data + token * x->strides[0] + head * x->strides[1];
        float *o = (float *)out->data + token * out->strides[0] + head * out->strides[1];
        for (int64_t d = 0; d < x->shape[2]; d++) {
            o[d * out->strides[2]] = in[d * x->strides[2]];
        }
    }
}

pecert_status pecert__ref_rope_apply(void *instance,
                                     const pecert_rope_apply_args *args)
{
    pecert__ref_call call;
    pecert__ref_rotation rotation;
    pecert_status status;
    int64_t token;

    pecert__ref_begin_call(&call, instance, "rope_apply");
    status = check_arguments(&call, args);
    if (status == PECERT_OK && args->config->layer_kind == PECERT_LAYER_NOPE) {
        for (token = 0; token < args->x->shape[0]; token++) {
            copy_token(args, token);
        }
        return PECERT_OK;
    }
    if (status == PECERT_OK) {
        status = pecert__ref_rotation_init(&call, &rotation, args->config, args->seq_len,
                                           args->positions, args->x->shape[0]);
    }
    if (status != PECERT_OK) {
        return status;
    }
    for (token = 0; token < args->x->shape[0]; token++) {
        if (args->x->shape[1] == 0) {
            break;
        }
        pecert__ref_rotation_row(&rotation, args->positions[token]);
        rotate_token(args, &rotation, token);
    }
    pecert__ref_rotation_free(&rotation);
    return PECERT_OK;
}
