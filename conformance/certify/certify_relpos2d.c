/*
 * certify_relpos2d.c - the image encoders whose attention adds MViTv2's
 * decomposed relative positions (plugin.h, pecert_relpos2d_args): every
 * attention layer of the tower has two tables, rel_pos_h and rel_pos_w, of
 * 2 side - 1 rows for the grid it attends over, which is a window's side
 * or the whole image's patch grid; at the checkpoint's own image size
 * queries and keys share that grid and no table is resized.
 *
 * Source of every rule: transformers v4.57.6 (753d6110):
 *   sam, sam_hq        SamVisionConfig / SamHQVisionConfig in vision_config
 *                      (sam_vision_model, sam_hq_vision_model: the tower
 *                      itself): SamVisionAttention(config, window_size),
 *                      window_size for every layer not in
 *                      global_attn_indexes and 0 (the image_size /
 *                      patch_size grid) for those; use_rel_pos.
 *   vitdet             VitDetConfig: VitDetLayer's window_size is the
 *                      config's for the layers of window_block_indices and
 *                      0 (the whole grid) for the others;
 *                      use_relative_position_embeddings (default false:
 *                      then no relative positions, and the absolute table
 *                      a fixed one at the pretraining grid, patch k its
 *                      row k + 1).
 *   seggpt             SegGptConfig: every layer over the image_size /
 *                      patch_size grid ([896, 448] / 16: 56 x 28, the
 *                      prompt and the input stacked), rows and columns
 *                      apart; use_relative_position_embeddings.
 * What else these towers compute from positions is named in a warning:
 * SAM's absolute 64 x 64 table added as it is, its prompt encoder's random
 * Fourier features; ViTDet's and SegGPT's absolute tables resized from the
 * pretraining grid.
 */
#include "certify_reads.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/* The sides pecert certifies: a global grid of 128 x 128 patches (a
 * 2048-pixel SAM) is 2^28 bias elements a head. */
#define RELPOS2D_MAX_SIDE 128

typedef enum layer_rule {
    WINDOWED_UNLESS_LISTED, /* SAM: global_attn_indexes are the global ones */
    WINDOWED_IF_LISTED,     /* ViTDet: window_block_indices are windowed   */
    ALL_GLOBAL              /* SegGPT                                      */
} layer_rule;

typedef struct relpos2d_rule {
    const char *model_type;
    const char *config_class;
    int nested;              /* the tower's fields in vision_config         */
    const char *rel_key;     /* the switch of the relative tables           */
    int rel_default;
    int32_t hidden, heads, layers, image_h, image_w, patch, window;
    layer_rule layer_rule;
    const char *list_key;    /* global_attn_indexes / window_block_indices  */
    const char *note_key;
    const char *note;        /* what else the tower computes, unread        */
    const int32_t *list_default; /* list_key's value when absent (the class's) */
    size_t list_default_len;
} relpos2d_rule;

/* SamVisionConfig's and SamHQVisionConfig's global_attn_indexes. */
static const int32_t sam_global[] = {2, 5, 8, 11};
#define SAM_GLOBAL sam_global, sizeof(sam_global) / sizeof(sam_global[0])

#define SAM_NOTE                                                                                                      \
    "SAM's absolute position table (64 x 64 patches, added as it is when use_abs_pos), its prompt encoder's random "  \
    "Fourier features and its mask decoder's image positions are not certified, only the relative positions"

static const relpos2d_rule rules[] = {
    {"sam", "SamVisionConfig", 1, "use_rel_pos", 1, 768, 12, 12, 1024, 1024, 16, 14, WINDOWED_UNLESS_LISTED,
     "global_attn_indexes", "use_abs_pos", SAM_NOTE, SAM_GLOBAL},
    {"sam_vision_model", "SamVisionConfig", 0, "use_rel_pos", 1, 768, 12, 12, 1024, 1024, 16, 14,
     WINDOWED_UNLESS_LISTED, "global_attn_indexes", "use_abs_pos", SAM_NOTE, SAM_GLOBAL},
    {"sam_hq", "SamHQVisionConfig", 1, "use_rel_pos", 1, 768, 12, 12, 1024, 1024, 16, 14, WINDOWED_UNLESS_LISTED,
     "global_attn_indexes", "use_abs_pos", SAM_NOTE, SAM_GLOBAL},
    {"sam_hq_vision_model", "SamHQVisionConfig", 0, "use_rel_pos", 1, 768, 12, 12, 1024, 1024, 16, 14,
     WINDOWED_UNLESS_LISTED, "global_attn_indexes", "use_abs_pos", SAM_NOTE, SAM_GLOBAL},
    {"vitdet", "VitDetConfig", 0, "use_relative_position_embeddings", 0, 768, 12, 12, 224, 224, 16, 0,
     WINDOWED_IF_LISTED, "window_block_indices", "use_absolute_position_embeddings",
     "ViTDet's absolute table (pretrain_image_size / patch_size a side, resized bicubic to the image's grid) is "
     "not certified, only the relative positions", NULL, 0},
    {"seggpt", "SegGptConfig", 0, "use_relative_position_embeddings", 1, 1024, 16, 24, 896, 448, 16, 0, ALL_GLOBAL,
     NULL, "pretrain_image_size",
     "SegGPT's absolute table (pretrain_image_size / patch_size a side, its class row dropped, resized bicubic to "
     "the stacked prompt and input's grid) is not certified, only the relative positions", NULL, 0},
};

static const relpos2d_rule *find_rule(const char *model_type)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (strcmp(rules[i].model_type, model_type) == 0) {
            return &rules[i];
        }
    }
    return NULL;
}

int cfg_is_relpos2d_type(const char *model_type)
{
    return find_rule(model_type) != NULL;
}

/* Whether layer i is in the config's list (global_attn_indexes,
 * window_block_indices), or in the class's default when absent: 1, 0, or
 * -1 after cfg_fail. */
static int in_list(map_ctx *c, const relpos2d_rule *rule, int32_t layer)
{
    const cJSON *list = cfg_get(c->root, rule->list_key);
    if (list == NULL) {
        for (size_t k = 0; k < rule->list_default_len; k++) {
            if (rule->list_default[k] == layer) {
                return 1;
            }
        }
        return 0;
    }
    if (!cJSON_IsArray(list)) {
        return cfg_fail(c, rule->list_key, "expected a list of layer indices");
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, list)
    {
        if (!cJSON_IsNumber(e) || e->valuedouble != (int64_t)e->valuedouble) {
            return cfg_fail(c, rule->list_key, "expected a list of layer indices (integers)");
        }
        if ((int64_t)e->valuedouble == layer) {
            return 1;
        }
    }
    return 0;
}

/* Which grids the layers attend over: *windowed and *global set when some
 * layer does; 0, or -1 after cfg_fail. */
static int layer_kinds(map_ctx *c, const relpos2d_rule *rule, int32_t layers, int32_t window, int *windowed,
                       int *global)
{
    *windowed = *global = 0;
    for (int32_t i = 0; i < layers; i++) {
        int listed = rule->layer_rule == ALL_GLOBAL ? 0 : in_list(c, rule, i);
        if (listed < 0) {
            return -1;
        }
        int windows = rule->layer_rule == WINDOWED_UNLESS_LISTED ? !listed
                      : rule->layer_rule == WINDOWED_IF_LISTED   ? listed
                                                                 : 0;
        if (windows && window > 0) {
            *windowed = 1;
        } else {
            *global = 1;
        }
    }
    return 0;
}

/* The tower's fields: width, heads, the patch grid and the window. */
static int read_tower(map_ctx *c, const relpos2d_rule *rule, int32_t *layers, int32_t *grid_h, int32_t *grid_w,
                      int32_t *window)
{
    pecert_certify_model *m = c->m;
    int32_t image_h = rule->image_h, image_w = rule->image_w, patch = rule->patch;
    const cJSON *image = cfg_get(c->root, "image_size");
    *layers = rule->layers;
    *window = rule->window;
    if (cfg_read_heads_or(c, "hidden_size", "num_attention_heads", NULL, rule->hidden, rule->heads) != 0 ||
        cfg_read_int32(c, c->root, "num_hidden_layers", 1, 1 << 12, layers) < 0 ||
        cfg_read_int32(c, c->root, "patch_size", 1, 1 << 12, &patch) < 0 ||
        cfg_read_int32(c, c->root, "window_size", 0, RELPOS2D_MAX_SIDE, window) < 0) {
        return -1;
    }
    if (image != NULL && cJSON_IsArray(image) && cJSON_GetArraySize(image) == 2) {
        const cJSON *h = cJSON_GetArrayItem(image, 0), *w = cJSON_GetArrayItem(image, 1);
        if (!cJSON_IsNumber(h) || !cJSON_IsNumber(w) || h->valuedouble < 1 || w->valuedouble < 1 ||
            h->valuedouble > (1 << 16) || w->valuedouble > (1 << 16)) {
            return cfg_fail(c, "image_size", "expected a positive integer or [height, width]");
        }
        image_h = (int32_t)h->valuedouble;
        image_w = (int32_t)w->valuedouble;
    } else if (image != NULL) {
        if (cfg_read_int32(c, c->root, "image_size", 1, 1 << 16, &image_h) < 0) {
            return -1;
        }
        image_w = image_h;
    }
    m->relpos2d_patch = patch;
    *grid_h = image_h / patch;
    *grid_w = image_w / patch;
    if (*grid_h < 1 || *grid_w < 1 || *grid_h > RELPOS2D_MAX_SIDE || *grid_w > RELPOS2D_MAX_SIDE) {
        return cfg_fail(c, "image_size", "a %d x %d-patch grid: pecert certifies 1 to %d patches a side", *grid_h,
                        *grid_w, RELPOS2D_MAX_SIDE);
    }
    m->relpos2d_head_dim = m->head_dim;
    return 0;
}

static void add_grid(pecert_certify_model *m, const char *name, int32_t h, int32_t w)
{
    int k = m->relpos2d_n_grids++;
    snprintf(m->relpos2d_grid_name[k], sizeof(m->relpos2d_grid_name[k]), "%s", name);
    m->relpos2d_grid[k][0] = h;
    m->relpos2d_grid[k][1] = w;
}

/* ViTDet without relative positions (its config class's default): the
 * absolute table of VitDetEmbeddings, (pretrain_image_size / patch_size)^2
 * rows after a class row get_absolute_positions drops, added as it is when
 * the image's grid is the pretraining one: patch k reads row k + 1. On
 * another grid the table is resized bicubic first (refused: that is
 * another mapping). */
static int map_vitdet_absolute(map_ctx *c, int32_t grid_h, int32_t grid_w)
{
    pecert_certify_model *m = c->m;
    int32_t pretrain = 224;
    int absolute = 1;
    if (cfg_read_int32(c, c->root, "pretrain_image_size", 1, 1 << 16, &pretrain) < 0 ||
        cfg_read_bool(c, c->root, "use_absolute_position_embeddings", "use_absolute_position_embeddings",
                      &absolute) < 0) {
        return -1;
    }
    int32_t side = pretrain / m->relpos2d_patch;
    if (!absolute) {
        return cfg_fail(c, "use_relative_position_embeddings", "false, and use_absolute_position_embeddings false: "
                        "ViTDet then has no position encoding");
    }
    if (side != grid_h || side != grid_w) {
        return cfg_fail(c, "pretrain_image_size", "%d: the table's %d x %d grid is resized bicubic to the image's "
                        "%d x %d (get_absolute_positions), which pecert does not map", pretrain, side, side, grid_h,
                        grid_w);
    }
    cfg_warn(c, "use_absolute_position_embeddings", "ViTDet's patches read rows 1 .. %d of its table (row 0, a class "
             "row, is never read): certify checks the table's rows", side * side);
    m->kind = PECERT_PE_LEARNED;
    m->learned_rows = (int64_t)side * side + 1;
    m->learned_dim = m->head_dim * m->num_heads;
    m->max_position_embeddings = m->learned_rows;
    return 0;
}

/* The tower as the rule reads it, from c->root. */
static int map_tower(map_ctx *c, const relpos2d_rule *rule)
{
    pecert_certify_model *m = c->m;
    int32_t layers = 0, grid_h = 0, grid_w = 0, window = 0;
    int rel = rule->rel_default, windowed, global;
    if (cfg_read_bool(c, c->root, rule->rel_key, rule->rel_key, &rel) < 0 ||
        read_tower(c, rule, &layers, &grid_h, &grid_w, &window) != 0 ||
        layer_kinds(c, rule, layers, window, &windowed, &global) != 0) {
        return -1;
    }
    if (!rel && strcmp(rule->model_type, "vitdet") == 0) {
        return map_vitdet_absolute(c, grid_h, grid_w);
    }
    if (!rel) {
        return cfg_fail(c, rule->rel_key, "false: %s then adds no relative positions, and pecert certifies the "
                        "relative ones (the absolute table alone is not mapped)", rule->config_class);
    }
    m->relpos2d_n_grids = 0;
    if (windowed) {
        add_grid(m, "window", window, window);
    }
    if (global) {
        add_grid(m, "global", grid_h, grid_w);
    }
    cfg_warn(c, rule->note_key, "%s", rule->note);
    m->kind = PECERT_PE_RELPOS2D;
    m->max_position_embeddings = (int64_t)grid_h * grid_w;
    return 0;
}

int cfg_map_relpos2d(map_ctx *c)
{
    const relpos2d_rule *rule = find_rule(c->m->model_type);
    if (rule == NULL) {
        return cfg_fail(c, "model_type", "'%s' has no relative-position rule (a bug in pecert)", c->m->model_type);
    }
    if (!rule->nested) {
        return map_tower(c, rule);
    }
    const cJSON *vc = cfg_get(c->root, "vision_config");
    if (vc != NULL && !cJSON_IsObject(vc)) {
        return cfg_fail(c, "vision_config", "expected an object (the image encoder's fields)");
    }
    cJSON empty;
    memset(&empty, 0, sizeof(empty));
    empty.type = cJSON_Object; /* the config class's defaults: no key */
    const cJSON *saved_root = c->root;
    const char *saved_prefix = c->key_prefix;
    c->root = vc != NULL ? vc : &empty;
    c->key_prefix = "vision_config.";
    int rc = map_tower(c, rule);
    c->root = saved_root;
    c->key_prefix = saved_prefix;
    return rc;
}
