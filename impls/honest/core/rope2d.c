/*
 * rope2d.c - the 2-D vision RoPE (plugin.h, rope2d_apply) in the variant's
 * float32 arithmetic.
 *
 * Every frequency a vision tower uses is one of default RoPE's over the
 * full head, theta^(-2k/D) for k < D/2: the first half's pair i takes
 * k = 2i, the second half's k = 2i (blocks: Qwen2-VL's
 * VisionRotaryEmbedding(D/2), Llama 4) or 2i + 1 (Pixtral's odd
 * frequencies). So the variant's own frequency set for a default config of
 * that head (the torch exponent, ggml's recurrence or pow-index) gives
 * each axis' float32 angles, and its trig and rotation do the rest: the
 * same formulations its 1-D RoPE is certified with.
 */
#include <stdlib.h>
#include <string.h>

#include "honest.h"

static pecert_rope_config head_config(const pecert_rope2d_apply_args *a)
{
    pecert_rope_config c;
    memset(&c, 0, sizeof(c));
    c.struct_size = sizeof(c);
    c.rope_type = PECERT_ROPE_DEFAULT;
    c.head_dim = a->head_dim;
    c.rotary_dim = a->head_dim;
    c.rope_theta = a->theta;
    c.max_position_embeddings = 1 << 20; /* read by no default-RoPE formula */
    return c;
}

/* Pair j's frequency index k in theta^(-2k/D). */
static int32_t freq_index(const pecert_rope2d_apply_args *a, int32_t j)
{
    int32_t q = a->head_dim / 4;
    return 2 * (j % q) + (j >= q && a->frequencies == PECERT_ROPE2D_ALTERNATE ? 1 : 0);
}

static float *elem(const pecert_tensor *t, int64_t i0, int64_t i1, int64_t i2)
{
    return (float *)t->data + i0 * t->strides[0] + i1 * t->strides[1] + i2 * t->strides[2];
}

/* cos/sin of the token's D/2 pairs from the two axes' angle rows. */
static void token_trig(const pecert_rope2d_apply_args *a, const honest_freqs *f, int64_t t, float *angles,
                       float *c, float *s)
{
    int32_t half = a->head_dim / 2;
    int64_t tokens = a->x->shape[0];
    int64_t row = a->positions[t];
    int64_t col = a->positions[tokens + t];
    honest_angles(f, a->columns_first ? col : row, angles);
    honest_angles(f, a->columns_first ? row : col, angles + half);
    for (int32_t j = 0; j < half; j++) {
        honest_sincos(angles[(j < half / 2 ? 0 : half) + freq_index(a, j)], &s[j], &c[j]);
    }
}

static void rotate_token(const pecert_rope2d_apply_args *a, int64_t t, const float *c, const float *s)
{
    int32_t half = a->head_dim / 2;
    for (int64_t h = 0; h < a->x->shape[1]; h++) {
        for (int32_t j = 0; j < half; j++) {
            int64_t ia = a->pairing == PECERT_PAIRING_SPLIT_HALF ? j : 2 * j;
            int64_t ib = a->pairing == PECERT_PAIRING_SPLIT_HALF ? j + half : 2 * j + 1;
            float ra;
            float rb;
            honest_rotate_pair(PECERT_DTYPE_F32, *elem(a->x, t, h, ia), *elem(a->x, t, h, ib), c[j], s[j], &ra, &rb);
            *elem(a->out, t, h, ia) = ra;
            *elem(a->out, t, h, ib) = rb;
        }
    }
}

static pecert_status rope2d_apply(const pecert__ref_call *call, const void *op_args)
{
    const pecert_rope2d_apply_args *args = op_args;
    pecert_status st = PECERT_OK;
    pecert_rope_config config = head_config(args);
    honest_freqs f;
    st = honest_freqs_init(call, &f, &config, 1, NULL, 0);
    if (st != PECERT_OK) {
        return st;
    }
    int32_t half = args->head_dim / 2;
    float *buf = malloc(4 * (size_t)half * sizeof(float));
    if (buf == NULL) {
        honest_freqs_free(&f);
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t t = 0; t < args->x->shape[0]; t++) {
        token_trig(args, &f, t, buf, buf + 2 * half, buf + 3 * half);
        rotate_token(args, t, buf + 2 * half, buf + 3 * half);
    }
    free(buf);
    honest_freqs_free(&f);
    return PECERT_OK;
}

pecert_status honest_rope2d_apply(void *instance, const pecert_rope2d_apply_args *args)
{
    return pecert__ref_run(instance, "rope2d_apply", args, sizeof(*args),
                           pecert__ref_check_rope2d_apply, rope2d_apply);
}
