/* rope2d_frames_interleaved - a video's rotary positions with its frames
 * interleaved: rot_pos_emb (Qwen2-VL, Qwen2.5-VL) builds one frame's
 * (row, column) table and tiles it for the t frames (torch's
 * .repeat(t, 1)); Blaizzy/mlx-vlm translated that as mx.repeat(ids, t,
 * axis=0), which repeats each row t times in place, so the merge-order
 * table of a video reads row q / t of one frame at token q ("frame order
 * seems to be garbled", mlx-vlm #280; fixed by mx.tile in ab838c57, PR
 * #300). The tokens then go into the scheme's order as the model puts
 * them (Qwen2.5-VL: its attention windows). Images (t = 1) and the
 * row-major schemes are untouched. */
#include "core/mutant.h"

static pecert_status (*base_index)(void *instance, const pecert_rope2d_index_args *args);

static int64_t load(const pecert_tensor *t, int64_t axis, int64_t token)
{
    int64_t off = axis * t->strides[0] + token * t->strides[1];
    return t->dtype == PECERT_DTYPE_I64 ? ((const int64_t *)t->data)[off] : ((const int32_t *)t->data)[off];
}

/* One video of t frames of h x w patches from `first`, the base's right
 * positions rewritten in place: token k sits at merge-order index q (its
 * frame's, its unit's in the frame, its place in the unit) and takes the
 * position of merge-order token q / t of one frame. */
static void interleave(const pecert_tensor *out, const int64_t *g, int64_t m, int64_t first)
{
    int64_t frame = g[1] * g[2];
    int64_t units_w = g[2] / m;
    for (int64_t k = 0; k < g[0] * frame; k++) {
        int64_t r = load(out, 0, first + k);
        int64_t c = load(out, 1, first + k);
        int64_t q = k / frame * frame + (r / m * units_w + c / m) * m * m + r % m * m + c % m;
        int64_t s = q / g[0];
        int64_t unit = s / (m * m);
        mutant_store_2d_int(out, 0, first + k, unit / units_w * m + s % (m * m) / m);
        mutant_store_2d_int(out, 1, first + k, unit % units_w * m + s % m);
    }
}

/* The base answers first (it validates the call and writes the right
 * positions); each video's are then interleaved. */
static pecert_status interleaved(void *instance, const pecert_rope2d_index_args *a)
{
    pecert_status st = base_index(instance, a);
    if (st != PECERT_OK || a->scheme == PECERT_ROPE2D_ROW_MAJOR || a->scheme == PECERT_ROPE2D_ROW_MAJOR_CLS) {
        return st;
    }
    int64_t first = 0;
    for (int64_t k = 0; k < a->n_images; k++) {
        const int64_t *g = a->grid_thw + 3 * k;
        if (g[0] > 1) {
            interleave(a->out_positions, g, a->spatial_merge_size, first);
        }
        first += g[0] * g[1] * g[2];
    }
    return PECERT_OK;
}

static void patch(pecert_plugin *desc)
{
    base_index = desc->rope2d_index;
    desc->rope2d_index = interleaved;
}

const mutant_def mutant = {.name = "rope2d_frames_interleaved", .patch = patch};
