/*
 * certify_swin.c - the Swin family's windowed relative position bias: every
 * attention layer adds bias_table[relative_position_index] to its scores,
 * the index built from the config's square window (window_size) exactly as
 * microsoft/Swin-Transformer's WindowAttention builds it. certify holds
 * the plugin's swin_index at that window to ref's (certify.swin.reference)
 * and, through vectors/mappings, pecert's reading of the window to the
 * index the model's own attention class registered.
 *
 * Source of every rule: transformers v4.57.6 (753d6110): SwinSelfAttention
 * (modeling_swin.py), and the copies in DonutSwinSelfAttention,
 * MaskFormerSwinSelfAttention, Swinv2SelfAttention and
 * Swin2SRSelfAttention, each built with config.window_size (an int: the
 * classes make it (w, w)); the v2 classes add a continuous position bias
 * (log-spaced relative coordinates through cpb_mlp, the table the index
 * reads), which pecert does not compute.
 */
#include "certify_reads.h"

#include <string.h>

/* The largest window certified: its index has window^4 entries (5.3 M at
 * 48), held as doubles by the reference check. */
#define SWIN_MAX_WINDOW 48

/* Swin V2 and Swin2SR: the bias table itself is computed, not learned. */
static int continuous_bias(const char *model_type)
{
    return strcmp(model_type, "swinv2") == 0 || strcmp(model_type, "swin2sr") == 0;
}

int cfg_map_swin(map_ctx *c)
{
    static const char *const none[] = {NULL};
    pecert_certify_model *m = c->m;
    const cJSON *w = cfg_get(c->root, "window_size");
    int absolute = 0;
    /* SwinConfig, DonutSwinConfig, MaskFormerSwinConfig, Swinv2Config: 7;
     * Swin2SRConfig: 8. */
    m->swin_window = strcmp(m->model_type, "swin2sr") == 0 ? 8 : 7;
    if (w != NULL && !cJSON_IsNumber(w)) {
        return cfg_fail(c, "window_size", "expected an integer (the classes build a square window from it)");
    }
    if (cfg_reject_unknown_positional(c, c->root, none, "") != 0 ||
        cfg_read_int32(c, c->root, "window_size", 1, SWIN_MAX_WINDOW, &m->swin_window) < 0 ||
        cfg_read_bool(c, c->root, "use_absolute_embeddings", "use_absolute_embeddings", &absolute) < 0) {
        return -1;
    }
    if (absolute) {
        cfg_warn(c, "use_absolute_embeddings", "the learned absolute table added to the patch grid "
                 "(the embeddings' position_embeddings) is not certified; the windows' bias index is");
    }
    if (continuous_bias(m->model_type)) {
        cfg_warn(c, "window_size", "the bias table is a continuous position bias (log-spaced relative "
                 "coordinates through cpb_mlp), which pecert does not compute: certify checks the index into it");
    }
    m->kind = PECERT_PE_SWIN;
    return 0;
}

/* BEiT and Data2Vec-vision (BeitRelativePositionBias, Data2VecVision's
 * copy): with use_relative_position_bias (a table in every layer) or
 * use_shared_relative_position_bias (one for the encoder) the window is
 * the whole patch grid (BeitEncoder's window_size: the embeddings'
 * patch_shape, image_size / patch_size a side) and the index over the
 * patches is Swin's for it; the class token's row and column read three
 * entries past the grid's (2W - 1)^2 (num_relative_distance - 3, - 2, -
 * 1), which pecert's index does not cover (warned), and another
 * resolution resizes the table (interpolate_pos_encoding, warned). Neither
 * switch (the config classes' defaults): no relative positions, refused. */
int cfg_map_beit(map_ctx *c)
{
    static const char *const known[] = {"use_relative_position_bias", "use_shared_relative_position_bias",
                                        "use_absolute_position_embeddings", NULL};
    pecert_certify_model *m = c->m;
    int32_t image = 224, patch = 16;
    int relative = 0, shared = 0, absolute = 0;
    const char *config_class = strcmp(m->model_type, "beit") == 0 ? "BeitConfig" : "Data2VecVisionConfig";
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_side(c, c->root, "image_size", 1, 1 << 16, &image) < 0 ||
        cfg_read_side(c, c->root, "patch_size", 1, 1 << 12, &patch) < 0 ||
        cfg_read_bool(c, c->root, "use_relative_position_bias", "use_relative_position_bias", &relative) < 0 ||
        cfg_read_bool(c, c->root, "use_shared_relative_position_bias", "use_shared_relative_position_bias",
                      &shared) < 0 ||
        cfg_read_bool(c, c->root, "use_absolute_position_embeddings", "use_absolute_position_embeddings",
                      &absolute) < 0) {
        return -1;
    }
    if (!relative && !shared) {
        return cfg_fail(c, "use_relative_position_bias", "false, and use_shared_relative_position_bias false: %s "
                        "adds no relative position bias, which is what pecert certifies for it (the absolute "
                        "table alone is not mapped)", config_class);
    }
    if (image / patch < 1 || image / patch > SWIN_MAX_WINDOW) {
        return cfg_fail(c, "image_size", "%d / patch_size %d = a %d-patch side: pecert certifies windows of 1 to %d",
                        image, patch, image / patch, SWIN_MAX_WINDOW);
    }
    m->swin_window = image / patch;
    cfg_warn(c, shared ? "use_shared_relative_position_bias" : "use_relative_position_bias",
             "the class token's entries ((2W-1)^2 .. +2, its row, column and corner) and the table resized to "
             "another resolution are not certified; the patches' index over the %d x %d grid is",
             m->swin_window, m->swin_window);
    if (absolute) {
        cfg_warn(c, "use_absolute_position_embeddings", "the learned absolute table (ViT's, class row first) is not "
                 "certified");
    }
    m->kind = PECERT_PE_SWIN;
    return 0;
}
