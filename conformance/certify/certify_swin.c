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
