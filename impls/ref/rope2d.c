/*
 * rope2d.c - the 2-D RoPE of vision towers (ops rope2d_index, rope2d_apply),
 * in double, as plugin.h states them.
 *
 * rope2d_index, image after image of grid_thw (t, h, w):
 *   MERGE_WINDOWS  transformers v4.57.6 Qwen2VisionTransformerPretrainedModel
 *                  .rot_pos_emb: the (row, col) grid reshaped to
 *                  (h/m, m, w/m, m) and permuted to (h/m, w/m, m, m), so the
 *                  windows go row-major and the patches row-major inside
 *                  each; the whole repeated for each of the t frames.
 *   ROW_MAJOR      Pixtral's position_ids_in_meshgrid: (row, col), row-major.
 *   ROW_MAJOR_CLS  Llama 4: (row + 1, col + 1) row-major, then (0, 0) for
 *                  the class token the vision model appends.
 *   ATTENTION_WINDOWS  Qwen2_5_VisionTransformerPretrainedModel.forward:
 *                  rot_pos_emb's merge units regrouped by get_window_index
 *                  into windows of window_units x window_units units, the
 *                  windows row-major (ragged at the last row and column),
 *                  the units row-major inside each, every frame apart.
 * rope2d_apply: pair j of the D/2 pairs turns by p * freq, with p the first
 * axis' position and freq f_j for j < D/4, the other axis' and g_(j - D/4)
 * beyond (BLOCKS: f_i = g_i = theta^(-4i/D); ALTERNATE: f_i =
 * theta^(-4i/D), g_i = theta^(-(4i+2)/D)), sin and cos of the exact angle
 * (angle.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "ref.h"

/* Far more tokens than any image or video a tower takes, and small enough
 * that 2 * tokens positions never overflow a size. */
#define MAX_TOKENS ((int64_t)1 << 40)
/* Far wider windows than any tower's (Qwen2.5-VL: 4 units). */
#define MAX_WINDOW_UNITS (1 << 20)

/* ---- rope2d_index --------------------------------------------------------- */

static int64_t image_tokens(const pecert_rope2d_index_args *a, int64_t k)
{
    const int64_t *g = a->grid_thw + 3 * k;

    return g[0] * g[1] * g[2] + (a->scheme == PECERT_ROPE2D_ROW_MAJOR_CLS ? 1 : 0);
}

/* The schemes that group patches in merge windows (and take videos). */
static int merges(const pecert_rope2d_index_args *a)
{
    return a->scheme == PECERT_ROPE2D_MERGE_WINDOWS || a->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS;
}

static pecert_status check_grid(const pecert__ref_call *call, const pecert_rope2d_index_args *a,
                                int64_t k)
{
    const int64_t *g = a->grid_thw + 3 * k;
    int64_t m = a->spatial_merge_size;

    for (int d = 0; d < 3; d++) {
        if (g[d] < 1 || g[d] > MAX_TOKENS) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "grid_thw[%" PRId64 "][%d]=%" PRId64 " must be in 1..2^40", k,
                                    d, g[d]);
        }
    }
    if (!merges(a) && g[0] != 1) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "grid_thw[%" PRId64 "]: t=%" PRId64 ", a row-major scheme takes "
                                "single images (t=1)",
                                k, g[0]);
    }
    if (g[1] % m != 0 || g[2] % m != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "grid_thw[%" PRId64 "]: h=%" PRId64 ", w=%" PRId64
                                " must be multiples of spatial_merge_size=%" PRId64,
                                k, g[1], g[2], m);
    }
    return PECERT_OK;
}

static pecert_status count_tokens(const pecert__ref_call *call, const pecert_rope2d_index_args *a,
                                  int64_t *out_tokens)
{
    int64_t total = 0;

    for (int64_t k = 0; k < a->n_images; k++) {
        pecert_status status = check_grid(call, a, k);

        if (status != PECERT_OK) {
            return status;
        }
        /* Each extent is <= 2^40: the product is bounded by division. */
        const int64_t *g = a->grid_thw + 3 * k;
        if (g[1] > MAX_TOKENS / g[2] || g[0] > MAX_TOKENS / (g[1] * g[2]) ||
            image_tokens(a, k) > MAX_TOKENS - total) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "grid_thw: more than 2^40 tokens by image %" PRId64, k);
        }
        total += image_tokens(a, k);
    }
    *out_tokens = total;
    return PECERT_OK;
}

static pecert_status check_index_args(const pecert__ref_call *call, const void *args)
{
    const pecert_rope2d_index_args *a = args;
    int64_t tokens = 0;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && (a->scheme < PECERT_ROPE2D_MERGE_WINDOWS ||
                                a->scheme > PECERT_ROPE2D_ATTENTION_WINDOWS)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "scheme=%" PRId32 " must be 0, 1, 2 or 3",
                                  a->scheme);
    }
    if (status == PECERT_OK && a->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS &&
        (a->window_units < 1 || a->window_units > MAX_WINDOW_UNITS)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "window_units=%" PRId32 " must be in 1..2^20 for ATTENTION_WINDOWS",
                                  a->window_units);
    }
    if (status == PECERT_OK && a->scheme != PECERT_ROPE2D_ATTENTION_WINDOWS && a->window_units != 0) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "window_units=%" PRId32 " must be 0 outside ATTENTION_WINDOWS",
                                  a->window_units);
    }
    if (status == PECERT_OK &&
        (a->spatial_merge_size < 1 || (!merges(a) && a->spatial_merge_size != 1))) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "spatial_merge_size=%" PRId32 " must be >= 1 (1 for a "
                                  "row-major scheme)",
                                  a->spatial_merge_size);
    }
    if (status == PECERT_OK && (a->n_images < 0 || a->n_images > MAX_TOKENS)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "n_images=%" PRId64 " must be in 0..2^40",
                                  a->n_images);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "grid_thw", a->grid_thw, 3 * a->n_images);
    }
    if (status == PECERT_OK) {
        status = count_tokens(call, a, &tokens);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {2, tokens};
        status = pecert__ref_check_view(call, "out_positions", a->out_positions, 2, shape,
                                        PECERT__REF_INT, 1);
    }
    return status;
}

static void put(const pecert_tensor *out, int64_t token, int64_t row, int64_t col)
{
    int64_t idx[2] = {0, token};

    pecert__ref_store_int(out, idx, row);
    idx[0] = 1;
    pecert__ref_store_int(out, idx, col);
}

/* The m x m patches of merge unit (ur, uc) from `next`, row-major;
 * returns the next free token. */
static int64_t place_unit(const pecert_tensor *out, int64_t m, int64_t ur, int64_t uc, int64_t lift,
                          int64_t next)
{
    for (int64_t r = 0; r < m; r++) {
        for (int64_t c = 0; c < m; c++) {
            put(out, next++, ur * m + r + lift, uc * m + c + lift);
        }
    }
    return next;
}

/* One frame's units: in attention windows of `side` x `side` units
 * (ATTENTION_WINDOWS), or in one window of the whole frame (the others:
 * the units row-major). */
static int64_t place_frame(const pecert_rope2d_index_args *a, const int64_t *g, int64_t lift, int64_t next)
{
    int64_t m = a->spatial_merge_size;
    int64_t units_h = g[1] / m;
    int64_t units_w = g[2] / m;
    int64_t side_h = a->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS ? a->window_units : units_h;
    int64_t side_w = a->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS ? a->window_units : units_w;

    for (int64_t wr = 0; wr < units_h; wr += side_h) {
        for (int64_t wc = 0; wc < units_w; wc += side_w) {
            for (int64_t ur = wr; ur < units_h && ur < wr + side_h; ur++) {
                for (int64_t uc = wc; uc < units_w && uc < wc + side_w; uc++) {
                    next = place_unit(a->out_positions, m, ur, uc, lift, next);
                }
            }
        }
    }
    return next;
}

/* One image's tokens from `first`; returns the next free token. The
 * row-major schemes are merge windows of one patch. */
static int64_t place_image(const pecert_rope2d_index_args *a, const int64_t *g, int64_t first)
{
    int64_t next = first;
    int64_t lift = a->scheme == PECERT_ROPE2D_ROW_MAJOR_CLS ? 1 : 0;

    for (int64_t frame = 0; frame < g[0]; frame++) {
        next = place_frame(a, g, lift, next);
    }
    if (a->scheme == PECERT_ROPE2D_ROW_MAJOR_CLS) {
        put(a->out_positions, next++, 0, 0);
    }
    return next;
}

static pecert_status rope2d_index(const pecert__ref_call *call, const void *op_args)
{
    const pecert_rope2d_index_args *args = op_args;
    int64_t next = 0;

    (void)call;
    for (int64_t k = 0; k < args->n_images; k++) {
        next = place_image(args, args->grid_thw + 3 * k, next);
    }
    return PECERT_OK;
}

pecert_status pecert__ref_rope2d_index(void *instance, const pecert_rope2d_index_args *args)
{
    return pecert__ref_run(instance, "rope2d_index", args, sizeof(*args), check_index_args,
                           rope2d_index);
}

/* ---- rope2d_apply --------------------------------------------------------- */

pecert_status pecert__ref_check_rope2d_apply(const pecert__ref_call *call, const void *args)
{
    const pecert_rope2d_apply_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__ref_fail(call, PECERT_E_UNSUPPORTED, "reserved0=%" PRId32 " must be 0",
                                  a->reserved0);
    }
    if (status == PECERT_OK && a->pairing != PECERT_PAIRING_SPLIT_HALF &&
        a->pairing != PECERT_PAIRING_INTERLEAVED) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "pairing=%" PRId32 " is not 0 or 1",
                                  a->pairing);
    }
    if (status == PECERT_OK && a->frequencies != PECERT_ROPE2D_BLOCKS &&
        a->frequencies != PECERT_ROPE2D_ALTERNATE) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "frequencies=%" PRId32 " is not 0 or 1",
                                  a->frequencies);
    }
    if (status == PECERT_OK && a->columns_first != 0 && a->columns_first != 1) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "columns_first=%" PRId32 " is not 0 or 1",
                                  a->columns_first);
    }
    if (status == PECERT_OK && (a->head_dim < 4 || a->head_dim % 4 != 0 || a->head_dim > 65536)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "head_dim=%" PRId32 " must be a multiple of 4 in 4..65536",
                                  a->head_dim);
    }
    if (status == PECERT_OK && !(isfinite(a->theta) && a->theta > 1.0)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "theta=%g must be finite and > 1",
                                  a->theta);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_tensor(call, "x", a->x, 3, 0, 0);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "out", a->out, 3, a->x->shape, PECERT__REF_F32_ONLY, 1);
    }
    if (status == PECERT_OK && a->x->shape[2] != a->head_dim) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "x.shape[2]=%" PRId64 " must be head_dim=%" PRId32,
                                  a->x->shape[2], a->head_dim);
    }
    if (status == PECERT_OK && a->x->shape[0] > MAX_TOKENS) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "x.shape[0]=%" PRId64 " exceeds 2^40 tokens",
                                  a->x->shape[0]);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_positions(call, a->positions, 2 * a->x->shape[0]);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_in_place(call, a->x, a->out, sizeof(float));
    }
    return status;
}

/* The D/2 inverse frequencies, pair by pair: the first axis' D/4, then
 * the other's. */
static void pair_freqs(const pecert_rope2d_apply_args *a, double *freq)
{
    int32_t quarter = a->head_dim / 4;

    for (int32_t i = 0; i < quarter; i++) {
        double e = 4.0 * i / a->head_dim;
        freq[i] = pow(a->theta, -e);
        freq[quarter + i] = a->frequencies == PECERT_ROPE2D_ALTERNATE
                                ? pow(a->theta, -(e + 2.0 / a->head_dim))
                                : freq[i];
    }
}

static void rotate_token(const pecert_rope2d_apply_args *a, int64_t t, const double *freq)
{
    const pecert_tensor *x = a->x;
    const pecert_tensor *o = a->out;
    int64_t tokens = x->shape[0];
    int32_t half = a->head_dim / 2;
    int64_t row = a->positions[t];
    int64_t col = a->positions[tokens + t];
    double first = (double)(a->columns_first ? col : row);
    double second = (double)(a->columns_first ? row : col);

    for (int64_t h = 0; h < x->shape[1]; h++) {
        const float *in = (const float *)x->data + t * x->strides[0] + h * x->strides[1];
        float *out = (float *)o->data + t * o->strides[0] + h * o->strides[1];

        for (int32_t j = 0; j < half; j++) {
            int32_t ia = a->pairing == PECERT_PAIRING_SPLIT_HALF ? j : 2 * j;
            int32_t ib = a->pairing == PECERT_PAIRING_SPLIT_HALF ? j + half : 2 * j + 1;
            double xa = in[ia * x->strides[2]];
            double xb = in[ib * x->strides[2]];
            double c;
            double s;

            /* The exact angle: positions below 2^53, freq <= 1. */
            pecert__ref_sin_cos(j < half / 2 ? first : second, freq[j], &s, &c);

            out[ia * o->strides[2]] = (float)(xa * c - xb * s);
            out[ib * o->strides[2]] = (float)(xb * c + xa * s);
        }
    }
}

static pecert_status rope2d_apply(const pecert__ref_call *call, const void *op_args)
{
    const pecert_rope2d_apply_args *args = op_args;
    double *freq;

    freq = malloc((size_t)(args->head_dim / 2) * sizeof(double));
    if (freq == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    pair_freqs(args, freq);
    for (int64_t t = 0; t < args->x->shape[0]; t++) {
        rotate_token(args, t, freq);
    }
    free(freq);
    return PECERT_OK;
}

pecert_status pecert__ref_rope2d_apply(void *instance, const pecert_rope2d_apply_args *args)
{
    return pecert__ref_run(instance, "rope2d_apply", args, sizeof(*args),
                           pecert__ref_check_rope2d_apply, rope2d_apply);
}
