/*
 * mrope_index.c - M-RoPE position ids (op mrope_index), step for step the
 * algorithm of transformers v4.57.6 models/qwen2_vl/modeling_qwen2_vl.py,
 * Qwen2VLModel.get_rope_index:
 *
 *   no grid at all (text-only branch): position = cumsum(mask) - 1 on all
 *     three axes, padding 1 (arange without a mask); deltas = max over the
 *     row, padding's 1 included, + 1 - S (0 without a mask).
 *   otherwise, per row, over its unmasked tokens: every vision_start whose
 *     next token is the image (video) token counts one image (video); for
 *     each, the next image or video token from the cursor st - whichever
 *     comes first - takes the next grid (t, h, w) of its kind, in order
 *     across the whole batch. The text before it counts up from st_idx =
 *     (max of the last segment) + 1 on all axes; its t x h/m x w/m merged
 *     patches get st_idx + text_len + (ti, hi, wi); st moves past them.
 *     Trailing text counts up the same way. Padding keeps position 1;
 *     deltas = max + 1 - S.
 * Inputs the reference would raise on (a vision_start as the last token, a
 * missing token or grid, an empty grid, a token count that does not match
 * the grids) are PECERT_E_INVAL.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

/* One row being placed. */
typedef struct row_state {
    const pecert_mrope_index_args *a;
    const int64_t *tokens;   /* the row's unmasked tokens               */
    int64_t n;               /* their count                             */
    int64_t *pos;            /* [3][n] positions of those tokens        */
    int64_t filled;          /* positions written so far                */
    int64_t last_max;        /* max of the last segment (-1: none)      */
} row_state;

static int64_t find_from(const row_state *r, int64_t token, int64_t from)
{
    for (int64_t k = from; k < r->n; k++) {
        if (r->tokens[k] == token) {
            return k;
        }
    }
    return -1;
}

static int contains(const row_state *r, int64_t token)
{
    return find_from(r, token, 0) >= 0;
}

static pecert_status append_text(row_state *r, int64_t len, int64_t start)
{
    if (r->filled + len > r->n) {
        return PECERT_E_INVAL;
    }
    for (int64_t k = 0; k < len; k++) {
        for (int axis = 0; axis < 3; axis++) {
            r->pos[axis * r->n + r->filled] = start + k;
        }
        r->filled++;
    }
    if (len > 0) {
        r->last_max = start + len - 1;
    }
    return PECERT_OK;
}

static pecert_status append_grid(row_state *r, const int64_t *thw, int64_t base)
{
    int64_t gt = thw[0];
    int64_t gh = thw[1] / r->a->spatial_merge_size;
    int64_t gw = thw[2] / r->a->spatial_merge_size;
    int64_t max = 0;

    if (gt < 1 || gh < 1 || gw < 1 || r->filled + gt * gh * gw > r->n) {
        return PECERT_E_INVAL;
    }
    for (int64_t ti = 0; ti < gt; ti++) {
        for (int64_t hi = 0; hi < gh; hi++) {
            for (int64_t wi = 0; wi < gw; wi++) {
                r->pos[0 * r->n + r->filled] = base + ti;
                r->pos[1 * r->n + r->filled] = base + hi;
                r->pos[2 * r->n + r->filled] = base + wi;
                r->filled++;
            }
        }
    }
    max = gt > gh ? gt : gh;
    max = max > gw ? max : gw;
    r->last_max = base + max - 1;
    return PECERT_OK;
}

/* Counts the images and videos announced by vision_start tokens. */
static pecert_status count_vision(const row_state *r, int64_t *images, int64_t *videos)
{
    *images = 0;
    *videos = 0;
    for (int64_t k = 0; k < r->n; k++) {
        if (r->tokens[k] != r->a->vision_start_token_id) {
            continue;
        }
        if (k + 1 >= r->n) {
            return PECERT_E_INVAL; /* the reference indexes past the row */
        }
        *images += r->tokens[k + 1] == r->a->image_token_id;
        *videos += r->tokens[k + 1] == r->a->video_token_id;
    }
    return PECERT_OK;
}

/* The multimodal branch for one row; cursors into the grids are shared by
 * the batch. */
static pecert_status place_row(row_state *r, int64_t *image_index, int64_t *video_index)
{
    const pecert_mrope_index_args *a = r->a;
    int64_t images;
    int64_t videos;
    int64_t st = 0;
    pecert_status status = count_vision(r, &images, &videos);
    int64_t total = images + videos; /* images, videos count down: the remain_* */

    for (int64_t v = 0; status == PECERT_OK && v < total; v++) {
        int64_t ed_image = contains(r, a->image_token_id) && images > 0
                               ? find_from(r, a->image_token_id, st) : r->n + 1;
        int64_t ed_video = contains(r, a->video_token_id) && videos > 0
                               ? find_from(r, a->video_token_id, st) : r->n + 1;
        int is_image = ed_image < ed_video;
        int64_t ed = is_image ? ed_image : ed_video;
        const int64_t *thw;

        if (ed < 0 || (is_image ? *image_index >= a->n_images : *video_index >= a->n_videos)) {
            return PECERT_E_INVAL; /* list.index or grid lookup raises */
        }
        thw = is_image ? a->image_grid_thw + 3 * (*image_index)++
                       : a->video_grid_thw + 3 * (*video_index)++;
        images -= is_image;
        videos -= !is_image;
        int64_t st_idx = r->last_max + 1;
        status = append_text(r, ed - st, st_idx);
        if (status == PECERT_OK) {
            status = append_grid(r, thw, st_idx + (ed - st));
        }
        st = ed + thw[0] * (thw[1] / a->spatial_merge_size) * (thw[2] / a->spatial_merge_size);
    }
    if (status == PECERT_OK && st < r->n) {
        status = append_text(r, r->n - st, r->last_max + 1);
    }
    return status == PECERT_OK && r->filled == r->n ? PECERT_OK : PECERT_E_INVAL;
}

static void store(const pecert_tensor *t, int64_t i0, int64_t i1, int64_t i2, int64_t v)
{
    int64_t idx[3] = {i0, i1, i2};

    pecert__ref_store_int(t, t->ndim == 3 ? idx : idx + 2, v);
}

static pecert_status text_branch(const pecert_mrope_index_args *a)
{
    for (int64_t b = 0; b < a->batch; b++) {
        int64_t max = 0;
        int64_t sum = 0;

        for (int64_t s = 0; s < a->seq_len; s++) {
            int64_t m = a->attention_mask != NULL ? a->attention_mask[b * a->seq_len + s] : 1;
            int64_t p = a->attention_mask != NULL ? (sum += m, m == 0 ? 1 : sum - 1) : s;

            max = (s == 0 || p > max) ? p : max;
            for (int axis = 0; axis < 3; axis++) {
                store(a->out_position_ids, axis, b, s, p);
            }
        }
        /* Without a mask the reference returns zeros. */
        store(a->out_deltas, 0, 0, b,
              a->attention_mask != NULL && a->seq_len > 0 ? max + 1 - a->seq_len : 0);
    }
    return PECERT_OK;
}

static pecert_status multimodal_branch(const pecert__ref_call *call, const pecert_mrope_index_args *a)
{
    int64_t image_index = 0;
    int64_t video_index = 0;
    int64_t *tokens = malloc((size_t)(a->seq_len > 0 ? a->seq_len : 1) * 4 * sizeof(int64_t));
    pecert_status status = PECERT_OK;

    if (tokens == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t b = 0; status == PECERT_OK && b < a->batch; b++) {
        row_state r = {a, tokens, 0, tokens + a->seq_len, 0, -1};
        const int64_t *mask = a->attention_mask != NULL ? a->attention_mask + b * a->seq_len : NULL;

        for (int64_t s = 0; s < a->seq_len; s++) {
            if (mask == NULL || mask[s] == 1) {
                tokens[r.n++] = a->input_ids[b * a->seq_len + s];
            }
        }
        status = place_row(&r, &image_index, &video_index);
        if (status != PECERT_OK || r.n == 0) {
            status = pecert__ref_fail(call, PECERT_E_INVAL,
                                      "row %" PRId64 ": the vision tokens do not match the grids "
                                      "(get_rope_index would raise)", b);
            break;
        }
        int64_t k = 0;
        int64_t max = r.pos[0];
        for (int64_t i = 1; i < 3 * r.n; i++) {
            max = r.pos[i] > max ? r.pos[i] : max;
        }
        for (int64_t s = 0; s < a->seq_len; s++) {
            int real = mask == NULL || mask[s] == 1;

            for (int axis = 0; axis < 3; axis++) {
                store(a->out_position_ids, axis, b, s, real ? r.pos[axis * r.n + k] : 1);
            }
            k += real;
        }
        /* llm_positions.max() + 1 - len(total_input_ids[i]): the padded length. */
        store(a->out_deltas, 0, 0, b, max + 1 - a->seq_len);
    }
    free(tokens);
    return status;
}

static pecert_status check_index_args(const pecert__ref_call *call, const void *args)
{
    const pecert_mrope_index_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);
    int64_t shape[3] = {3, a->batch, a->seq_len};

    if (status == PECERT_OK && (a->batch < 0 || a->seq_len < 0 || a->spatial_merge_size < 1)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "batch, seq_len must be >= 0 and spatial_merge_size >= 1");
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "input_ids", a->input_ids, a->batch * a->seq_len);
    }
    if (status == PECERT_OK && a->attention_mask != NULL) {
        status = pecert__ref_check_ints(call, "attention_mask", a->attention_mask,
                                        a->batch * a->seq_len);
        for (int64_t i = 0; status == PECERT_OK && i < a->batch * a->seq_len; i++) {
            if (a->attention_mask[i] != 0 && a->attention_mask[i] != 1) {
                status = pecert__ref_fail(call, PECERT_E_INVAL,
                                          "attention_mask[%" PRId64 "] must be 0 or 1", i);
            }
        }
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "image_grid_thw", a->image_grid_thw, 3 * a->n_images);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "video_grid_thw", a->video_grid_thw, 3 * a->n_videos);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "out_position_ids", a->out_position_ids, 3, shape,
                                        PECERT__REF_INT, 1);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_view(call, "out_deltas", a->out_deltas, 1, shape + 1,
                                        PECERT__REF_INT, 1);
    }
    return status;
}

static pecert_status mrope_index(const pecert__ref_call *call, const void *op_args)
{
    const pecert_mrope_index_args *args = op_args;

    if (args->n_images == 0 && args->n_videos == 0) {
        return text_branch(args);
    }
    return multimodal_branch(call, args);
}

pecert_status pecert__ref_mrope_index(void *instance, const pecert_mrope_index_args *args)
{
    return pecert__ref_run(instance, "mrope_index", args, sizeof(*args),
                           check_index_args, mrope_index);
}
