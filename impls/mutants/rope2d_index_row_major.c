/* rope2d_index_row_major - Qwen2-VL's patch positions in raster order:
 * rot_pos_emb visits the grid by spatial-merge window (2 x 2 patches, the
 * windows row-major, the patches row-major inside each), because the
 * patch merger later concatenates each window's four patches; a port that
 * numbers the grid row by row gives every patch inside a window another
 * patch's (row, column). The confusion of merge-block and raster order
 * is osaurus-ai/vmlx-swift PR #225's ("The encoder runs over the raster
 * grid, not over merge blocks"), there the other way round. Pixtral and
 * Llama 4 number row by row anyway, so only the merge-window vectors see
 * it. */
#include "core/mutant.h"

static void put(const pecert_tensor *out, int64_t token, int64_t row, int64_t col)
{
    mutant_store_2d_int(out, 0, token, row);
    mutant_store_2d_int(out, 1, token, col);
}

static pecert_status raster(void *instance, const pecert_rope2d_index_args *a)
{
    (void)instance;
    if (a == NULL || a->out_positions == NULL || a->grid_thw == NULL || a->n_images < 0 ||
        a->out_positions->ndim != 2) {
        return PECERT_E_INVAL;
    }
    int64_t next = 0;
    int cls = a->scheme == PECERT_ROPE2D_ROW_MAJOR_CLS;
    for (int64_t k = 0; k < a->n_images; k++) {
        const int64_t *g = a->grid_thw + 3 * k;
        if (next + g[0] * g[1] * g[2] + cls > a->out_positions->shape[1]) {
            return PECERT_E_INVAL;
        }
        for (int64_t f = 0; f < g[0]; f++) {
            for (int64_t i = 0; i < g[1] * g[2]; i++) {
                put(a->out_positions, next++, i / g[2] + cls, i % g[2] + cls);
            }
        }
        if (cls) {
            put(a->out_positions, next++, 0, 0);
        }
    }
    return PECERT_OK;
}

static void patch(pecert_plugin *desc)
{
    desc->rope2d_index = raster;
}

const mutant_def mutant = {.name = "rope2d_index_row_major", .patch = patch};
