/*
 * certify_sincos2d.c - RT-DETR's family: the hybrid encoder adds a 2-D
 * sin-cos table (plugin.h, pecert_sincos2d_args, layout RT_DETR) to the
 * feature map of each level it encodes, built per call for that map's
 * height and width at the config's encoder_hidden_dim and
 * positional_encoding_temperature.
 *
 * Source of every rule: transformers v4.57.6 (753d6110):
 * RTDetrHybridEncoder (modeling_rt_detr.py), RTDetrV2HybridEncoder,
 * DFineHybridEncoder and OmDetTurboHybridEncoder (its config stores
 * encoder_hidden_dim as d_model), whose
 * build_2d_sincos_position_embedding(width, height, encoder_hidden_dim,
 * positional_encoding_temperature) are the same code (checked bit for bit
 * by vectors/gen/gen_sincos2d_rtdetr.py): an "ij" meshgrid of (arange(w),
 * arange(h)) flattened, the halves of k // h and k mod h for the token
 * flattened row-major, in float32. Only `self.training or self.eval_size
 * is None` builds it: with eval_size set, the encoder in eval mode passes
 * pos_embed None (the original RT-DETR code precomputes the table at
 * eval_size / stride instead), so such a config is refused.
 */
#include "certify_reads.h"

#include <math.h>
#include <string.h>

#define SINCOS2D_MAX_WIDTH 16384

typedef struct sincos2d_rule {
    const char *model_type;
    /* The name config.json stores encoder_hidden_dim under (OmDetTurboConfig's
     * attribute_map: d_model, which wins over an encoder_hidden_dim
     * argument, as PretrainedConfig sets it last); NULL: its own name. */
    const char *stored_width_key;
    const char *note_key; /* what else the model computes, unread */
    const char *note;
} sincos2d_rule;

static const sincos2d_rule rules[] = {
    {"rt_detr", NULL, "num_queries",
     "the decoder's query positions (an MLP of its reference points) and the backbone's are not certified"},
    {"rt_detr_v2", NULL, "num_queries",
     "the decoder's query positions (an MLP of its reference points) and the backbone's are not certified"},
    {"d_fine", NULL, "num_queries",
     "the decoder's query positions (an MLP of its reference points) and the backbone's are not certified"},
    {"omdet-turbo", "d_model", "text_config",
     "the text tower's learned positions (CLIP's), the decoder's query positions and the Swin backbone's "
     "relative position bias are not certified"},
};

static const sincos2d_rule *rule_of(const char *model_type)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (strcmp(rules[i].model_type, model_type) == 0) {
            return &rules[i];
        }
    }
    return NULL;
}

/* encoder_hidden_dim (or the name it is stored under): four quarters of
 * sin, cos of two coordinates. */
static int read_width(map_ctx *c, const sincos2d_rule *rule, pecert_certify_model *m)
{
    double width = 256; /* every config class's default */
    const char *key = "encoder_hidden_dim";
    if (cfg_read_num(c, c->root, key, key, 4, SINCOS2D_MAX_WIDTH, &width) < 0) {
        return -1;
    }
    if (rule->stored_width_key != NULL && cfg_get(c->root, rule->stored_width_key) != NULL) {
        key = rule->stored_width_key;
        if (cfg_read_num(c, c->root, key, key, 4, SINCOS2D_MAX_WIDTH, &width) < 0) {
            return -1;
        }
    }
    if (width != floor(width) || (int64_t)width % 4 != 0) {
        return cfg_fail(c, key, "%g: build_2d_sincos_position_embedding raises unless it is divisible by 4", width);
    }
    m->sincos2d_dim = (int32_t)width;
    return 0;
}

/* eval_size: set, the encoder in eval mode adds no table at all. */
static int read_eval_size(map_ctx *c)
{
    const cJSON *eval = cfg_get(c->root, "eval_size");
    if (eval != NULL && !cJSON_IsNull(eval)) {
        return cfg_fail(c, "eval_size",
                        "set: transformers v4.57.6's hybrid encoder then passes pos_embed None in eval mode (no "
                        "position embedding at all; the original code precomputes the table at eval_size / stride): "
                        "pecert cannot certify an encoding its reference drops; null (every released config) builds "
                        "the table per feature map");
    }
    return 0;
}

int cfg_map_sincos2d(map_ctx *c)
{
    static const char *const known[] = {"positional_encoding_temperature", "max_position_embeddings", NULL};
    const sincos2d_rule *rule = rule_of(c->m->model_type);
    pecert_certify_model *m = c->m;
    if (rule == NULL) {
        return cfg_fail(c, "model_type", "no 2-D sin-cos rule (internal)");
    }
    m->sincos2d_base = 10000; /* every config class's default */
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 || read_eval_size(c) < 0 || read_width(c, rule, m) < 0 ||
        cfg_read_num(c, c->root, "positional_encoding_temperature", "positional_encoding_temperature",
                     1.0 + 0x1p-20, 1e12, &m->sincos2d_base) < 0) {
        return -1;
    }
    m->sincos2d_layout = PECERT_SINCOS2D_RT_DETR;
    cfg_warn(c, rule->note_key, "%s", rule->note);
    m->kind = PECERT_PE_SINCOS2D;
    return 0;
}
