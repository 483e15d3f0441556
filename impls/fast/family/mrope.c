/*
 * mrope.c - M-RoPE (Qwen2-VL): position ids (op mrope_index, transformers
 * Qwen2VLModel.get_rope_index) and the sectioned rotation (op mrope_apply,
 * apply_multimodal_rotary_pos_emb).
 *
 * mrope_index, per batch row over its unmasked tokens: each vision_start
 * followed by an image (video) token announces one image (video); for each,
 * the first image or video token from the cursor (whichever comes first)
 * takes the next grid (t, h, w) of its kind (grids are consumed in order
 * across the batch). Text before it counts up from (max so far) + 1 on all
 * three axes; its t x h/m x w/m merged patches get that start + text length
 * + (ti, hi, wi). Trailing text counts up likewise; padding gets 1; deltas
 * = max + 1 - S. Without any grid, the text-only branch: cumsum(mask) - 1,
 * padding 1, deltas = max + 1 - S (0 without a mask). Inputs on which
 * get_rope_index would raise are PECERT_E_INVAL.
 *
 * mrope_apply: rope_apply's engine (apply.c: SIMD kernels, threads,
 * streaming stores) with one table walker per axis, each over its
 * section of the frequencies: frequency i turns by the position of the
 * axis whose section holds it. With identical axes it gives rope_apply's
 * bits. Interleaved (Qwen3-VL's apply_interleaved_mrope): every axis walks
 * the whole table and each frequency is taken from its axis' row.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../family.h"

/* ---- mrope_index ---------------------------------------------------------- */

typedef struct row_state {
    const pecert_mrope_index_args *a;
    const int64_t *tokens; /* the row's unmasked tokens                     */
    int64_t n;             /* their count                                   */
    int64_t *pos;          /* [3][n]                                        */
    int64_t filled;
    int64_t next;          /* (max of the last segment) + 1                 */
} row_state;

static int64_t find_from(const row_state *r, int64_t token, int64_t from)
{
    for (int64_t k = from < 0 ? 0 : from; k < r->n; k++) {
        if (r->tokens[k] == token) {
            return k;
        }
    }
    return -1;
}

static int add_text(row_state *r, int64_t len)
{
    if (len < 0 || r->filled + len > r->n) {
        return 0;
    }
    for (int64_t k = 0; k < len; k++, r->filled++) {
        r->pos[r->filled] = r->pos[r->n + r->filled] = r->pos[2 * r->n + r->filled] = r->next + k;
    }
    r->next += len;
    return 1;
}

static int add_grid(row_state *r, const int64_t *thw)
{
    int64_t m = r->a->spatial_merge_size;
    int64_t gt = thw[0];
    int64_t gh = thw[1] / m;
    int64_t gw = thw[2] / m;
    int64_t largest;

    if (gt < 1 || gh < 1 || gw < 1 || gt > r->n || gh > r->n || gw > r->n ||
        gt * gh > r->n || gt * gh * gw > r->n - r->filled) {
        return 0;
    }
    for (int64_t ti = 0; ti < gt; ti++) {
        for (int64_t hi = 0; hi < gh; hi++) {
            for (int64_t wi = 0; wi < gw; wi++, r->filled++) {
                r->pos[r->filled] = r->next + ti;
                r->pos[r->n + r->filled] = r->next + hi;
                r->pos[2 * r->n + r->filled] = r->next + wi;
            }
        }
    }
    largest = gt > gh ? gt : gh;
    largest = largest > gw ? largest : gw;
    r->next += largest;
    return 1;
}

/* One row of the multimodal branch; the grid cursors are the batch's. */
static int place_row(row_state *r, int64_t *image_index, int64_t *video_index)
{
    const pecert_mrope_index_args *a = r->a;
    int64_t images = 0;
    int64_t videos = 0;
    int64_t st = 0;
    int has_image;
    int has_video;

    for (int64_t k = 0; k < r->n; k++) {
        if (r->tokens[k] == a->vision_start_token_id) {
            if (k + 1 >= r->n) {
                return 0; /* get_rope_index indexes past the row */
            }
            images += r->tokens[k + 1] == a->image_token_id;
            videos += r->tokens[k + 1] == a->video_token_id;
        }
    }
    has_image = find_from(r, a->image_token_id, 0) >= 0;
    has_video = find_from(r, a->video_token_id, 0) >= 0;
    for (int64_t total = images + videos; total > 0; total--) {
        int64_t ed_image = has_image && images > 0 ? find_from(r, a->image_token_id, st) : r->n + 1;
        int64_t ed_video = has_video && videos > 0 ? find_from(r, a->video_token_id, st) : r->n + 1;
        int is_image = ed_image < ed_video;
        int64_t ed = is_image ? ed_image : ed_video;
        const int64_t *thw;

        if (ed < 0 || ed > r->n || (is_image ? *image_index >= a->n_images
                                            : *video_index >= a->n_videos)) {
            return 0; /* list.index or the grid lookup raises */
        }
        thw = is_image ? a->image_grid_thw + 3 * (*image_index)++
                       : a->video_grid_thw + 3 * (*video_index)++;
        images -= is_image;
        videos -= !is_image;
        if (!add_text(r, ed - st) || !add_grid(r, thw)) {
            return 0;
        }
        st = ed + thw[0] * (thw[1] / a->spatial_merge_size) * (thw[2] / a->spatial_merge_size);
    }
    if (st < r->n && !add_text(r, r->n - st)) {
        return 0;
    }
    return r->filled == r->n && r->n > 0;
}

static void store3(const pecert_tensor *t, int64_t axis, int64_t b, int64_t s, int64_t v)
{
    int64_t idx[3] = {axis, b, s};

    pecert__fast_fam_store_int(t, idx, v);
}

static void text_branch(const pecert_mrope_index_args *a)
{
    for (int64_t b = 0; b < a->batch; b++) {
        int64_t largest = 0;
        int64_t sum = 0;

        for (int64_t s = 0; s < a->seq_len; s++) {
            int64_t p = s;

            if (a->attention_mask != NULL) {
                int64_t m = a->attention_mask[b * a->seq_len + s];

                sum += m;
                p = m == 0 ? 1 : sum - 1;
            }
            largest = (s == 0 || p > largest) ? p : largest;
            for (int axis = 0; axis < 3; axis++) {
                store3(a->out_position_ids, axis, b, s, p);
            }
        }
        pecert__fast_fam_store_int(a->out_deltas, &b,
                                   a->attention_mask != NULL && a->seq_len > 0
                                       ? largest + 1 - a->seq_len
                                       : 0);
    }
}

static pecert_status multimodal_branch(const pecert__fast_call *call,
                                       const pecert_mrope_index_args *a)
{
    int64_t image_index = 0;
    int64_t video_index = 0;
    int64_t *tokens = pecert__fast_scratch(call, (size_t)(a->seq_len > 0 ? a->seq_len : 1) * 4 *
                                                     sizeof(int64_t));

    if (tokens == NULL) {
        return PECERT_E_NOMEM;
    }
    /* Every row is placed (and may fail) before any output is written:
     * positions go to the output only once the whole batch is valid. The
     * first pass validates, the second writes. */
    for (int pass = 0; pass < 2; pass++) {
        image_index = 0;
        video_index = 0;
        for (int64_t b = 0; b < a->batch; b++) {
            const int64_t *mask = a->attention_mask != NULL ? a->attention_mask + b * a->seq_len
                                                            : NULL;
            row_state r = {a, tokens, 0, tokens + a->seq_len, 0, 0};
            int64_t largest;
            int64_t k = 0;

            for (int64_t s = 0; s < a->seq_len; s++) {
                if (mask == NULL || mask[s] == 1) {
                    tokens[r.n++] = a->input_ids[b * a->seq_len + s];
                }
            }
            if (!place_row(&r, &image_index, &video_index)) {
                return pecert__fast_fail(call, PECERT_E_INVAL,
                                         "batch row %" PRId64 ": the vision tokens do not match "
                                         "image_grid_thw / video_grid_thw (get_rope_index would "
                                         "raise)",
                                         b);
            }
            if (pass == 0) {
                continue;
            }
            largest = r.pos[0];
            for (int64_t i = 1; i < 3 * r.n; i++) {
                largest = r.pos[i] > largest ? r.pos[i] : largest;
            }
            if (mask == NULL && a->out_position_ids->dtype == PECERT_DTYPE_I64 &&
                a->out_position_ids->strides[2] == 1) {
                /* Every token real, a contiguous i64 row: the axes' rows copied. */
                const pecert_tensor *o = a->out_position_ids;

                for (int axis = 0; axis < 3; axis++) {
                    memcpy((int64_t *)o->data + axis * o->strides[0] + b * o->strides[1], r.pos + axis * r.n,
                           (size_t)a->seq_len * sizeof(int64_t));
                }
            } else {
                for (int64_t s = 0; s < a->seq_len; s++) {
                    int real = mask == NULL || mask[s] == 1;

                    for (int axis = 0; axis < 3; axis++) {
                        store3(a->out_position_ids, axis, b, s, real ? r.pos[axis * r.n + k] : 1);
                    }
                    k += real;
                }
            }
            pecert__fast_fam_store_int(a->out_deltas, &b, largest + 1 - a->seq_len);
        }
    }
    return PECERT_OK;
}

static pecert_status check_index_args(const pecert__fast_call *call,
                                      const pecert_mrope_index_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);
    int64_t shape[3] = {3, a->batch, a->seq_len};

    if (status == PECERT_OK && a->spatial_merge_size < 1) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "spatial_merge_size=%" PRId32 " must be >= 1",
                                   a->spatial_merge_size);
    }
    if (status == PECERT_OK && (a->batch < 0 || a->seq_len < 0 || a->batch > INT32_MAX ||
                                a->seq_len > INT32_MAX)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "batch=%" PRId64 ", seq_len=%" PRId64 " must be in 0..2^31-1",
                                   a->batch, a->seq_len);
    }
    if (status == PECERT_OK && (a->n_images < 0 || a->n_videos < 0 ||
                                a->n_images > INT32_MAX || a->n_videos > INT32_MAX)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "n_images=%" PRId64 ", n_videos=%" PRId64 " must be in 0..2^31-1",
                                   a->n_images, a->n_videos);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "input_ids", a->input_ids, a->batch * a->seq_len);
    }
    if (status == PECERT_OK && a->attention_mask != NULL) {
        status = pecert__fast_fam_check_ints(call, "attention_mask", a->attention_mask,
                                             a->batch * a->seq_len);
        for (int64_t i = 0; status == PECERT_OK && i < a->batch * a->seq_len; i++) {
            if (a->attention_mask[i] != 0 && a->attention_mask[i] != 1) {
                status = pecert__fast_fail(call, PECERT_E_INVAL,
                                           "attention_mask[%" PRId64 "]=%" PRId64
                                           " must be 0 or 1",
                                           i, a->attention_mask[i]);
            }
        }
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "image_grid_thw", a->image_grid_thw,
                                             3 * a->n_images);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "video_grid_thw", a->video_grid_thw,
                                             3 * a->n_videos);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(call, "out_position_ids", a->out_position_ids, 3,
                                             shape, PECERT__FAM_INT, 1);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(call, "out_deltas", a->out_deltas, 1, shape + 1,
                                             PECERT__FAM_INT, 1);
    }
    return status;
}

pecert_status pecert__fast_mrope_index(void *instance, const pecert_mrope_index_args *args)
{
    pecert__fast_call call;
    pecert_status status;

    status = pecert__fast_fam_enter(&call, instance, "mrope_index", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_index_args(&call, args);
    }
    if (status != PECERT_OK) {
        return status;
    }
    if (args->n_images == 0 && args->n_videos == 0) {
        text_branch(args);
        return PECERT_OK;
    }
    return multimodal_branch(&call, args);
}

/* ---- mrope_apply ---------------------------------------------------------- */

static pecert_status check_sections(const pecert__fast_call *call,
                                    const pecert_mrope_apply_args *a)
{
    int64_t sum = 0;

    if (a->num_axes < 1 || a->num_axes > PECERT_MROPE_MAX_AXES) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "num_axes=%" PRId32 " must be in 1..%d",
                                 a->num_axes, PECERT_MROPE_MAX_AXES);
    }
    for (int32_t k = 0; k < PECERT_MROPE_MAX_AXES; k++) {
        if (a->section[k] < 0 || (k >= a->num_axes && a->section[k] != 0)) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "section[%" PRId32 "]=%" PRId32
                                     " must be >= 0, and 0 past num_axes=%" PRId32,
                                     k, a->section[k], a->num_axes);
        }
        sum += a->section[k];
    }
    if (sum != a->config->rotary_dim / 2) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "sections sum to %" PRId64 ", must be rotary_dim/2=%" PRId32, sum,
                                 a->config->rotary_dim / 2);
    }
    return PECERT_OK;
}

static pecert_status check_apply_args(const pecert__fast_call *call,
                                      const pecert_mrope_apply_args *a,
                                      pecert__fast_positions *seen)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && (a->interleaved < 0 || a->interleaved > 1 ||
                                (a->interleaved == 1 && a->num_axes != 3))) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "interleaved=%" PRId32 " must be 0, or 1 with num_axes=3 (is %" PRId32 ")",
                                   a->interleaved, a->num_axes);
    }
    if (status == PECERT_OK && a->pairing != PECERT_PAIRING_SPLIT_HALF &&
        a->pairing != PECERT_PAIRING_INTERLEAVED) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "pairing=%" PRId32 " must be 0 or 1",
                                   a->pairing);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_config(call, a->config);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_seq_len(call, a->seq_len);
    }
    if (status == PECERT_OK) {
        status = check_sections(call, a);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(call, "x", a->x, 3, NULL, PECERT__FAM_F32, 0);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(call, "out", a->out, 3, a->x->shape, PECERT__FAM_F32,
                                             1);
    }
    if (status == PECERT_OK && a->x->shape[2] != a->config->head_dim) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "x.shape[2]=%" PRId64 " must be config.head_dim=%" PRId32,
                                   a->x->shape[2], a->config->head_dim);
    }
    if (status == PECERT_OK && a->x->shape[0] > INT64_MAX / PECERT_MROPE_MAX_AXES) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "x.shape[0]=%" PRId64 " is too large",
                                   a->x->shape[0]);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_positions(call, a->positions, a->num_axes * a->x->shape[0],
                                              seen);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_aliasing(call, "x", a->x, "out", a->out, 1);
    }
    return status;
}

pecert_status pecert__fast_mrope_apply(void *instance, const pecert_mrope_apply_args *args)
{
    pecert__fast_call call;
    pecert__fast_positions seen = {0, 0};
    pecert__fast_rotation job;
    pecert_status status;

    status = pecert__fast_fam_enter(&call, instance, "mrope_apply", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_apply_args(&call, args, &seen);
    }
    if (status != PECERT_OK) {
        return status;
    }
    /* rope_apply's engine with one table walker per axis: seq_len 0 is
     * the max over every axis' positions + 1. */
    job = (pecert__fast_rotation){
        .config = args->config,
        .pairing = args->pairing,
        .seq_len = args->seq_len,
        .num_axes = args->num_axes,
        .section = args->section,
        .interleaved = args->interleaved,
        .positions = args->positions,
        .seen = &seen,
        .x = args->x,
        .out = args->out,
    };
    return pecert__fast_rotate_tensor(&call, &job);
}
