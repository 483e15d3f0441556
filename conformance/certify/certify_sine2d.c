/*
 * certify_sine2d.c - the DETR family's 2-D sine embedding from a pixel mask
 * (plugin.h, pecert_sine2d_args): every encoder layer adds it to the
 * feature map's queries and keys. Each model type's rule says which config
 * key gives the embedding's width (F = width / 2 per axis), its
 * temperatures, its offset and scale, and whether its forward reads the
 * pixel mask (DETR's family) or passes none, every pixel valid
 * (MaskFormer's family, even on a padded batch).
 *
 * Source of every rule: transformers v4.57.6 (753d6110):
 * build_position_encoding(config) of modeling_detr.py and its copies in
 * conditional_detr, table_transformer, deformable_detr (offset -0.5),
 * deprecated/deta (offset -0.5), grounding_dino and mm_grounding_dino
 * (temperature config.positional_embedding_temperature, always
 * normalised); DabDetrSinePositionEmbedding(config) (hidden_size / 2,
 * temperature_height, temperature_width, sine_position_embedding_scale);
 * MaskFormerTransformerModule (decoder_config.hidden_size // 2),
 * Mask2FormerPixelDecoder (feature_size // 2) and
 * Mask2FormerTransformerModule (hidden_dim // 2), OneFormer's (conv_dim //
 * 2, hidden_dim // 2). Scale 2 pi, eps 1e-6, normalised, everywhere.
 */
#include "certify_reads.h"

#include <math.h>
#include <string.h>

#define SINE2D_MAX_WIDTH 16384

typedef struct sine2d_rule {
    const char *model_type;
    const char *width_key;       /* the embedding's width: F = width / 2   */
    const char *second_width_key; /* a second module's width, which must agree */
    double offset;
    double temperature;          /* the default (10000 fixed in DETR's code) */
    const char *temperature_key; /* NULL: fixed                             */
    int dab;                     /* DAB-DETR's per-axis temperatures, scale */
    int reads_mask;
    int learned_option;          /* position_embedding_type sine | learned */
    int bert_text;               /* a BERT text backbone in text_config    */
    const char *note_key;        /* what else the model computes, unread   */
    const char *note;
} sine2d_rule;

static const sine2d_rule rules[] = {
    {"detr", "d_model", NULL, 0.0, 10000, NULL, 0, 1, 1, 0, NULL, NULL},
    {"table-transformer", "d_model", NULL, 0.0, 10000, NULL, 0, 1, 1, 0, NULL, NULL},
    {"conditional_detr", "d_model", NULL, 0.0, 10000, NULL, 0, 1, 1, 0, "num_queries",
     "the decoder's query positions (sine of its reference points, gen_sine_position_embeddings) are not "
     "certified"},
    {"deformable_detr", "d_model", NULL, -0.5, 10000, NULL, 0, 1, 1, 0, "num_feature_levels",
     "each feature level adds its learned level_embed to the sine embedding: not certified"},
    {"deta", "d_model", NULL, -0.5, 10000, NULL, 0, 1, 1, 0, "num_feature_levels",
     "each feature level adds its learned level_embed to the sine embedding: not certified"},
    {"grounding-dino", "d_model", NULL, 0.0, 20, "positional_embedding_temperature", 0, 1, 1, 1, "text_config",
     "the text backbone's learned positions and the text tokens' sine positions are not certified; nor the "
     "feature levels' level_embed"},
    {"mm-grounding-dino", "d_model", NULL, 0.0, 20, "positional_embedding_temperature", 0, 1, 1, 1, "text_config",
     "the text backbone's learned positions and the text tokens' sine positions are not certified; nor the "
     "feature levels' level_embed"},
    {"dab-detr", "hidden_size", NULL, 0.0, 20, NULL, 1, 1, 0, 0, "num_queries",
     "the decoder's query positions (sine of its anchor boxes) are not certified"},
    {"maskformer", NULL, NULL, 0.0, 10000, NULL, 0, 0, 0, 0, "backbone_config",
     "the model passes no mask: every pixel valid, even on a padded batch; the backbone's own positions "
     "are its model type's"},
    {"mask2former", "hidden_dim", "feature_size", 0.0, 10000, NULL, 0, 0, 0, 0, "backbone_config",
     "the model passes no mask: every pixel valid, even on a padded batch; level_embed and the backbone's "
     "positions are not certified"},
    {"oneformer", "hidden_dim", "conv_dim", 0.0, 10000, NULL, 0, 0, 0, 0, "backbone_config",
     "the model passes no mask: every pixel valid, even on a padded batch; level_embed, the text encoder's "
     "learned positions and the backbone's are not certified"},
};

static const sine2d_rule *rule_of(const char *model_type)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (strcmp(rules[i].model_type, model_type) == 0) {
            return &rules[i];
        }
    }
    return NULL;
}

int cfg_is_sine2d_type(const char *model_type)
{
    return rule_of(model_type) != NULL;
}

/* The embedding's width from obj[key] (its class default 256), even per
 * axis: F = width / 2 must be even (sin, cos pairs). */
static int read_width(map_ctx *c, const cJSON *obj, const char *key, const char *shown, int32_t *f)
{
    double width = 256;
    if (cfg_read_num(c, obj, key, shown, 4, SINE2D_MAX_WIDTH, &width) < 0) {
        return -1;
    }
    if (width != floor(width) || (int64_t)width % 4 != 0) {
        return cfg_fail(c, key, "%g: the sine embedding splits it in two axes of sin, cos pairs (a multiple of 4)",
                        width);
    }
    *f = (int32_t)(width / 2);
    return 0;
}

/* MaskFormer's width: decoder_config.hidden_size (DetrConfig's d_model). */
static int read_maskformer_width(map_ctx *c, int32_t *f)
{
    const cJSON *decoder = cfg_get(c->root, "decoder_config");
    if (decoder != NULL && !cJSON_IsObject(decoder)) {
        return cfg_fail(c, "decoder_config", "expected an object (a DetrConfig)");
    }
    return read_width(c, decoder, "d_model", "decoder_config.d_model", f);
}

static int read_widths(map_ctx *c, const sine2d_rule *rule, pecert_certify_model *m)
{
    if (rule->width_key == NULL) {
        return read_maskformer_width(c, &m->sine2d_feats);
    }
    if (read_width(c, c->root, rule->width_key, rule->width_key, &m->sine2d_feats) < 0) {
        return -1;
    }
    int32_t other = m->sine2d_feats;
    if (rule->second_width_key != NULL &&
        read_width(c, c->root, rule->second_width_key, rule->second_width_key, &other) < 0) {
        return -1;
    }
    if (other != m->sine2d_feats) {
        return cfg_fail(c, rule->second_width_key,
                        "%d: the pixel decoder's sine embedding would be %d channels per axis, the transformer's "
                        "%d (%s): pecert certifies one width per checkpoint",
                        (int)(2 * other), (int)other, (int)m->sine2d_feats, rule->width_key);
    }
    return 0;
}

/* position_embedding_type: "sine"; "learned" (row and column tables of 50)
 * is another family. Grounding DINO's text backbone: BERT's "absolute". */
static int read_types(map_ctx *c, const sine2d_rule *rule)
{
    const cJSON *type = cfg_get(c->root, "position_embedding_type");
    if (rule->learned_option && type != NULL &&
        !(cJSON_IsString(type) && strcmp(type->valuestring, "sine") == 0)) {
        return cfg_fail(c, "position_embedding_type",
                        "only \"sine\" is certified (\"learned\": row and column tables of 50, another family)");
    }
    const cJSON *text = rule->bert_text ? cfg_get(c->root, "text_config") : NULL;
    const cJSON *text_type = text != NULL ? cfg_get(text, "position_embedding_type") : NULL;
    if (text_type != NULL && !(cJSON_IsString(text_type) && strcmp(text_type->valuestring, "absolute") == 0)) {
        return cfg_fail(c, "text_config.position_embedding_type",
                        "only BERT's \"absolute\" text positions are known to pecert's reading of this model");
    }
    return 0;
}

static int read_temperatures(map_ctx *c, const sine2d_rule *rule, pecert_certify_model *m)
{
    m->sine2d_temperature_y = rule->temperature;
    m->sine2d_scale = 2 * M_PI;
    if (rule->temperature_key != NULL &&
        cfg_read_num(c, c->root, rule->temperature_key, rule->temperature_key, 1e-6, 1e12,
                     &m->sine2d_temperature_y) < 0) {
        return -1;
    }
    m->sine2d_temperature_x = m->sine2d_temperature_y;
    if (rule->dab && (cfg_read_num(c, c->root, "temperature_height", "temperature_height", 1e-6, 1e12,
                                   &m->sine2d_temperature_y) < 0 ||
                      cfg_read_num(c, c->root, "temperature_width", "temperature_width", 1e-6, 1e12,
                                   &m->sine2d_temperature_x) < 0 ||
                      cfg_read_num(c, c->root, "sine_position_embedding_scale", "sine_position_embedding_scale",
                                   -1e6, 1e6, &m->sine2d_scale) < 0)) {
        return -1;
    }
    return 0;
}

int cfg_map_sine2d(map_ctx *c)
{
    static const char *const known[] = {"position_embedding_type", "positional_embedding_temperature",
                                        "sine_position_embedding_scale", "max_position_embeddings", NULL};
    const sine2d_rule *rule = rule_of(c->m->model_type);
    pecert_certify_model *m = c->m;
    if (rule == NULL) {
        return cfg_fail(c, "model_type", "no sine embedding rule (internal)");
    }
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 || read_types(c, rule) < 0 ||
        read_widths(c, rule, m) < 0 || read_temperatures(c, rule, m) < 0) {
        return -1;
    }
    m->sine2d_offset = rule->offset;
    m->sine2d_reads_mask = rule->reads_mask;
    if (rule->note != NULL) {
        cfg_warn(c, rule->note_key, "%s", rule->note);
    }
    m->kind = PECERT_PE_SINE2D;
    return 0;
}
