/*
 * certify_fixed_tables.c - models whose only position code is a learned
 * table added to a fixed token grid, never resized: every input has the
 * grid the config fixes, and token k (class rows first, then patches in
 * row-major order) reads row k (transformers v4.57.6):
 *   audio-spectrogram-transformer  ASTEmbeddings: a spectrogram of
 *       num_mel_bins x max_length cut in patch_size squares every
 *       frequency_stride / time_stride: f x t patches after the class and
 *       distillation rows (f = (mel - patch) // fstride + 1, t likewise).
 *   eomt           EomtEmbeddings: (image_size / patch_size)^2 rows for the
 *       patches alone (the class, register and query tokens take none).
 *   mgp-str        MgpstrEmbeddings: (h / patch) x (w / patch) patches of
 *       the [h, w] image after the class row; distilled builds one row
 *       more than forward adds (the model cannot run).
 *   aimv2_vision_model  Aimv2VisionEmbeddings: (image_size / patch_size)^2
 *       rows, no class row; is_native builds a 2-D sincos table per image
 *       instead (not this rule).
 *   vivit          VivitEmbeddings: (num_frames / t) x (image_size / h) x
 *       (image_size / w) tubelets of tubelet_size [t, h, w] after the class
 *       row (interpolate_pos_encoding, a caller's flag, resizes it: named).
 *   vit-hybrid     ViTHybridEmbeddings: the BiT backbone's feature map as
 *       backbone_featmap_shape [1, C, h, w] states it (not the image), cut
 *       in patch_size squares, after the class row (ViTHybridConfig's
 *       model_type is "vit-hybrid"; its registry key vit_hybrid).
 *   hiera          HieraEmbeddings: image_size / patch_stride tokens a side
 *       (patch_size is the convolution's kernel, 7, not its stride, 4), no
 *       class row, width embed_dim; the tokens are unrolled into mask units
 *       after the table is added, so the table's order is row-major.
 *   yolos          YolosEmbeddings: the class row, (h / patch) x (w / patch)
 *       patches of the [512, 864] image_size, then num_detection_tokens rows
 *       for the detection tokens appended after the patches; token k row k.
 *       Every image's patch rows are resized to its grid first (the
 *       identity at image_size) and use_mid_position_embeddings adds a
 *       table per layer: both named.
 *   idefics3_vision, smolvlm_vision  Idefics3VisionEmbeddings and its
 *       SmolVLM copy: (image_size / patch_size)^2 rows, no class row. A
 *       full image (a tile of image_size, as the processors cut) reads row p for
 *       patch p, as the checkpoints were trained (transformers 4.54 and
 *       5.x: fractional coordinates h / n bucketized into n buckets); an
 *       image padded in a batch reads bucketized rows (named). Transformers
 *       4.55 to 4.57 (the pinned v4.57.6 among them) scale the coordinates
 *       by (1 - 1e-6) and bucketize them one row low, [0, 0, 1, ..., s -
 *       2] per axis for a full image in float32 (and for some sides in
 *       bfloat16): huggingface/transformers #41190, fixed by #41371. That
 *       regression is not what the checkpoints compute, so no vector is
 *       recorded from it; the table's size is the mapping.
 *   timesformer    TimesformerEmbeddings: ViT's spatial table (class row,
 *       (image_size / patch_size)^2 patches), the same for every frame;
 *       its time table (num_frames rows) named, not certified.
 *   pvt            PvtPatchEmbeddings of stage 1: (image_size //
 *       patch_sizes[0])^2 rows of hidden_sizes[0], no class row; its
 *       interpolate_pos_encoding resizes the table bilinear to the same
 *       grid (the identity: PVT runs at image_size only); the other
 *       stages' tables (the last with a class row first) named.
 *   vitpose_backbone  VitPoseBackboneEmbeddings: (h / patch) x (w / patch)
 *       patches, no class token, yet a table of one row more: patch k adds
 *       row k + 1 and row 0 (named: certify checks the table's rows); the
 *       projection pads by 2, so a patch_size of 4 or less makes more
 *       patches than the table has rows and the model cannot run.
 * The table's size is what a port gets wrong (a class row too many or too
 * few, the grid's sides swapped): held to each class's own table by
 * vectors/mappings (gen_profiles.py FIXED_TABLES).
 */
#include "certify_config.h"
#include "certify_reads.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

typedef enum fixed_grid { GRID_SQUARE, GRID_PAIR, GRID_SPECTROGRAM, GRID_VIDEO, GRID_FEATMAP } fixed_grid;

typedef struct fixed_table_rule {
    const char *model_type;
    const char *width_key;    /* heads_per_stage: the width (embed_dim)     */
    int32_t heads_per_stage;  /* heads_key a list per stage: its first     */
    const char *heads_key;    /* heads_per_stage: the heads' list          */
    int32_t width_per_stage;  /* width_key (and patch_key) lists too: PVT  */
    int32_t hidden_default, heads_default;
    fixed_grid grid;
    int32_t image_h, image_w; /* image_size's default (h = w for a square)  */
    const char *patch_key;    /* the patches' stride: patch_size when NULL  */
    int32_t patch_default;
    int32_t prefix;           /* class rows before the patches'            */
    const char *suffix_key;   /* rows after them (YOLOS' detection tokens) */
    int32_t suffix_default;
    const char *const *positional;
    const char *warn_key;     /* what the rule does not certify, named in a */
    const char *warning;      /* warning on warn_key; NULL: nothing        */
} fixed_table_rule;

static const char *const ast_keys[] = {"max_length", "num_mel_bins", "frequency_stride", "time_stride", NULL};
static const char *const no_keys[] = {NULL};
static const char *const mgp_keys[] = {"distilled", NULL};
static const char *const aimv2_keys[] = {"is_native", NULL};
static const char *const vivit_keys[] = {"num_frames", "tubelet_size", NULL};
static const char *const hybrid_keys[] = {"backbone_featmap_shape", NULL};
static const char *const hiera_keys[] = {"patch_stride", NULL};
static const char *const timesformer_keys[] = {"num_frames", "attention_type", NULL};
static const char *const yolos_keys[] = {"num_detection_tokens", "use_mid_position_embeddings", NULL};

/* Idefics3's and SmolVLM's patch rows (what a full image reads) and what
 * is not certified: a smaller image's bucketized rows, and the regression
 * of transformers 4.55 to 4.57 (the pinned reference among them). */
#define NAVIT_ROWS                                                                                                   \
    "a partial image's rows are bucketized from fractional coordinates (not certified); transformers 4.55-4.57 "     \
    "read a full image at rows [0, 0, 1, .., s-2] per axis (#41190): certify checks row p"

/* PVT's stages after the first: each adds a table of its own, certified
 * by the same rule at its own size (not checked). */
#define PVT_STAGES                                                                                                   \
    "stages 2 to num_encoder_blocks add tables of their own (image_size / 2^(i+1) / patch_sizes[i] a side, the "   \
    "last a class row first): certify checks stage 1's"

static const fixed_table_rule fixed_rules[] = {
    {.model_type = "audio-spectrogram-transformer", .hidden_default = 768, .heads_default = 12,
     .grid = GRID_SPECTROGRAM, .image_h = 128, .image_w = 1024, .patch_default = 16, .prefix = 2,
     .positional = ast_keys},
    {.model_type = "eomt", .hidden_default = 1024, .heads_default = 16, .grid = GRID_SQUARE, .image_h = 640,
     .image_w = 640, .patch_default = 16, .positional = no_keys, .warn_key = "num_register_tokens",
     .warning = "EoMT's class, register and query tokens take no position: certify checks the patches' table"},
    {.model_type = "mgp-str", .hidden_default = 768, .heads_default = 12, .grid = GRID_PAIR, .image_h = 32,
     .image_w = 128, .patch_default = 4, .prefix = 1, .positional = mgp_keys},
    {.model_type = "aimv2_vision_model", .hidden_default = 1024, .heads_default = 8, .grid = GRID_SQUARE,
     .image_h = 224, .image_w = 224, .patch_default = 14, .positional = aimv2_keys},
    {.model_type = "vivit", .hidden_default = 768, .heads_default = 12, .grid = GRID_VIDEO, .image_h = 224,
     .image_w = 224, .patch_default = 16, .prefix = 1, .positional = vivit_keys, .warn_key = "num_frames",
     .warning = "ViViT's table is fixed to num_frames x image_size (a caller's interpolate_pos_encoding resizes "
                "it: not certified)"},
    {.model_type = "vit-hybrid", .hidden_default = 768, .heads_default = 12, .grid = GRID_FEATMAP,
     .patch_default = 1, .prefix = 1, .positional = hybrid_keys, .warn_key = "backbone_featmap_shape",
     .warning = "ViT-hybrid's table is fixed to the backbone's feature map (a caller's interpolate_pos_encoding "
                "sizes it from the image's pixels over patch_size, which does not run: not certified)"},
    {.model_type = "hiera", .width_key = "embed_dim", .heads_per_stage = 1, .heads_key = "num_heads",
     .hidden_default = 96, .heads_default = 1,
     .grid = GRID_PAIR, .image_h = 224, .image_w = 224, .patch_key = "patch_stride", .patch_default = 4,
     .positional = hiera_keys, .warn_key = "patch_stride",
     .warning = "Hiera's table is fixed to image_size / patch_stride (a caller's interpolate_pos_encoding resizes "
                "it bicubic: not certified)"},
    {.model_type = "timesformer", .hidden_default = 768, .heads_default = 12, .grid = GRID_SQUARE, .image_h = 224,
     .image_w = 224, .patch_default = 16, .prefix = 1, .positional = timesformer_keys},
    {.model_type = "yolos", .hidden_default = 768, .heads_default = 12, .grid = GRID_PAIR, .image_h = 512,
     .image_w = 864, .patch_default = 16, .prefix = 1, .suffix_key = "num_detection_tokens", .suffix_default = 100,
     .positional = yolos_keys, .warn_key = "image_size",
     .warning = "YOLOS resizes the patch rows bicubic to each image's grid (InterpolateInitialPositionEmbeddings; "
                "the identity at image_size) and adds a mid table before every layer but the last: not certified"},
    {.model_type = "idefics3_vision", .hidden_default = 1152, .heads_default = 16, .grid = GRID_SQUARE,
     .image_h = 224, .image_w = 224, .patch_default = 32, .positional = no_keys, .warn_key = "image_size",
     .warning = NAVIT_ROWS},
    {.model_type = "smolvlm_vision", .hidden_default = 1152, .heads_default = 16, .grid = GRID_SQUARE,
     .image_h = 224, .image_w = 224, .patch_default = 32, .positional = no_keys, .warn_key = "image_size",
     .warning = NAVIT_ROWS},
    {.model_type = "pvt", .width_key = "hidden_sizes", .heads_per_stage = 1, .heads_key = "num_attention_heads",
     .width_per_stage = 1, .hidden_default = 64, .heads_default = 1, .grid = GRID_SQUARE, .image_h = 224,
     .image_w = 224, .patch_key = "patch_sizes", .patch_default = 4, .positional = no_keys,
     .warn_key = "num_encoder_blocks", .warning = PVT_STAGES},
    {.model_type = "vitpose_backbone", .hidden_default = 768, .heads_default = 12, .grid = GRID_PAIR,
     .image_h = 256, .image_w = 192, .patch_default = 16, .prefix = 1, .positional = no_keys,
     .warn_key = "patch_size",
     .warning = "ViTPose's patch k adds row k + 1 of the table and row 0 as well (VitPoseBackboneEmbeddings): "
                "certify checks the table's rows, not that every patch adds row 0"},
};

static const fixed_table_rule *find_fixed(const char *model_type)
{
    for (size_t i = 0; i < sizeof(fixed_rules) / sizeof(fixed_rules[0]); i++) {
        if (strcmp(fixed_rules[i].model_type, model_type) == 0) {
            return &fixed_rules[i];
        }
    }
    return NULL;
}

/* key as an int, or an [h, w] pair (to_2tuple / an Iterable, as the patch
 * embeddings read it). */
static int read_pair(map_ctx *c, const char *key, int32_t *h, int32_t *w)
{
    const cJSON *v = cfg_get(c->root, key);
    if (v == NULL) {
        return 0;
    }
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) &&
        cJSON_IsNumber(cJSON_GetArrayItem(v, 1))) {
        double a = cJSON_GetArrayItem(v, 0)->valuedouble;
        double b = cJSON_GetArrayItem(v, 1)->valuedouble;
        if (a >= 1 && b >= 1 && a <= (1 << 16) && b <= (1 << 16) && a == (int32_t)a && b == (int32_t)b) {
            *h = (int32_t)a;
            *w = (int32_t)b;
            return 0;
        }
    }
    if (cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= (1 << 16) &&
        v->valuedouble == (int32_t)v->valuedouble) {
        *h = *w = (int32_t)v->valuedouble;
        return 0;
    }
    return cfg_fail(c, key, "expected a positive integer or an [h, w] pair of them");
}

/* The first entry of a list per stage at key (a positive integer), or
 * dflt when the key is absent. */
static int read_first_of_stages(map_ctx *c, const char *key, int32_t dflt, int32_t *out)
{
    const cJSON *v = cfg_get(c->root, key);
    *out = dflt;
    if (v == NULL) {
        return 0;
    }
    const cJSON *first = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, 0) : NULL;
    if (first == NULL || !cJSON_IsNumber(first) || first->valuedouble < 1 || first->valuedouble > (1 << 20) ||
        first->valuedouble != (int32_t)first->valuedouble) {
        return cfg_fail(c, key, "expected a list of positive integers, one per stage");
    }
    *out = (int32_t)first->valuedouble;
    return 0;
}

/* ViViT's tubelets: tubelet_size [t, h, w] (the class's [2, 16, 16]) over
 * num_frames square image_size frames, or -1 after cfg_fail(). */
static int64_t video_tubelets(map_ctx *c, const fixed_table_rule *rule)
{
    int32_t frames = 32;
    int32_t image = rule->image_h;
    int32_t tubelet[3] = {2, 16, 16};
    const cJSON *tv = cfg_get(c->root, "tubelet_size");
    if (cfg_read_int32(c, c->root, "num_frames", 1, 1 << 20, &frames) < 0 ||
        cfg_read_int32(c, c->root, "image_size", 1, 1 << 16, &image) < 0) {
        return -1;
    }
    if (tv != NULL) {
        if (!cJSON_IsArray(tv) || cJSON_GetArraySize(tv) != 3) {
            return cfg_fail(c, "tubelet_size", "expected [t, h, w] (three positive integers)");
        }
        for (int i = 0; i < 3; i++) {
            const cJSON *e = cJSON_GetArrayItem(tv, i);
            if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > (1 << 16) ||
                e->valuedouble != (int32_t)e->valuedouble) {
                return cfg_fail(c, "tubelet_size", "expected [t, h, w] (three positive integers)");
            }
            tubelet[i] = (int32_t)e->valuedouble;
        }
    }
    if (frames < tubelet[0] || image < tubelet[1] || image < tubelet[2]) {
        return cfg_fail(c, "tubelet_size", "larger than the video (num_frames %d, image_size %d): no tubelet fits",
                        frames, image);
    }
    return (int64_t)(frames / tubelet[0]) * (image / tubelet[1]) * (image / tubelet[2]);
}

/* ViT-hybrid's grid: backbone_featmap_shape [1, C, h, w] (the class's
 * [1, 1024, 24, 24]) in patch_size squares, or -1 after cfg_fail(). */
static int64_t featmap_patches(map_ctx *c, const fixed_table_rule *rule)
{
    int32_t side[2] = {24, 24};
    int32_t ph = rule->patch_default;
    int32_t pw = rule->patch_default;
    const cJSON *v = cfg_get(c->root, "backbone_featmap_shape");
    if (v != NULL) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 4) {
            return cfg_fail(c, "backbone_featmap_shape", "expected [batch, channels, h, w]");
        }
        for (int i = 0; i < 2; i++) {
            const cJSON *e = cJSON_GetArrayItem(v, 2 + i);
            if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > (1 << 16) ||
                e->valuedouble != (int32_t)e->valuedouble) {
                return cfg_fail(c, "backbone_featmap_shape", "its h and w must be positive integers");
            }
            side[i] = (int32_t)e->valuedouble;
        }
    }
    if (read_pair(c, "patch_size", &ph, &pw) != 0) {
        return -1;
    }
    if (side[0] < ph || side[1] < pw) {
        return cfg_fail(c, "patch_size", "larger than the feature map (backbone_featmap_shape %d x %d): no patch "
                        "fits", side[0], side[1]);
    }
    return (int64_t)(side[0] / ph) * (side[1] / pw);
}

/* VitPoseBackbonePatchEmbeddings convolves with padding 2: a side of n
 * pixels gives (n + 4 - p) / p + 1 patches, the table's n / p only when p
 * is larger than 4. */
static int check_padded_projection(map_ctx *c, int32_t h, int32_t w, int32_t ph, int32_t pw)
{
    int64_t conv = (int64_t)((h + 4 - ph) / ph + 1) * ((w + 4 - pw) / pw + 1);
    int64_t table = (int64_t)(h / ph) * (w / pw);
    if (conv != table) {
        return cfg_fail(c, "patch_size", "[%d, %d]: the projection's padding of 2 makes %lld patches of the "
                        "[%d, %d] image where the table has %lld rows after its first: the model cannot run",
                        ph, pw, (long long)conv, h, w, (long long)table);
    }
    return 0;
}

/* The patches of the grid, or -1 after cfg_fail(). */
static int64_t grid_patches(map_ctx *c, const fixed_table_rule *rule)
{
    int32_t h = rule->image_h;
    int32_t w = rule->image_w;
    int32_t ph = rule->patch_default;
    int32_t pw = rule->patch_default;
    const char *patch_key = rule->patch_key != NULL ? rule->patch_key : "patch_size";
    if (rule->grid == GRID_SPECTROGRAM) {
        int32_t fstride = 10;
        int32_t tstride = 10;
        if (cfg_read_int32(c, c->root, "num_mel_bins", 1, 1 << 20, &h) < 0 ||
            cfg_read_int32(c, c->root, "max_length", 1, 1 << 24, &w) < 0 ||
            cfg_read_int32(c, c->root, "patch_size", 1, 1 << 16, &ph) < 0 ||
            cfg_read_int32(c, c->root, "frequency_stride", 1, 1 << 16, &fstride) < 0 ||
            cfg_read_int32(c, c->root, "time_stride", 1, 1 << 16, &tstride) < 0) {
            return -1;
        }
        if (h < ph || w < ph) {
            return cfg_fail(c, "patch_size", "%d is larger than num_mel_bins %d or max_length %d: no patch fits",
                            ph, h, w);
        }
        return (int64_t)((h - ph) / fstride + 1) * ((w - ph) / tstride + 1);
    }
    if (rule->grid == GRID_VIDEO) {
        return video_tubelets(c, rule);
    }
    if (rule->grid == GRID_FEATMAP) {
        return featmap_patches(c, rule);
    }
    if (read_pair(c, "image_size", &h, &w) != 0 ||
        (rule->width_per_stage ? read_first_of_stages(c, patch_key, rule->patch_default, &ph)
                               : read_pair(c, patch_key, &ph, &pw)) != 0) {
        return -1;
    }
    if (rule->width_per_stage) {
        pw = ph;
    }
    if (rule->grid == GRID_SQUARE && h != w) {
        return cfg_fail(c, "image_size", "[%d, %d]: %s's table is (image_size / %s)^2 rows, a square",
                        h, w, rule->model_type, patch_key);
    }
    if (h < ph || w < pw) {
        return cfg_fail(c, patch_key, "larger than image_size: no patch fits");
    }
    if (strcmp(rule->model_type, "vitpose_backbone") == 0 && check_padded_projection(c, h, w, ph, pw) != 0) {
        return -1;
    }
    return (int64_t)(h / ph) * (w / pw);
}

/* TimeSformer's attention_type: "space_only" has no time table; the
 * others add one of num_frames rows per frame (named, not certified). */
static int check_time_table(map_ctx *c)
{
    const cJSON *type = cfg_get(c->root, "attention_type");
    if (type != NULL && !cJSON_IsString(type)) {
        return cfg_fail(c, "attention_type", "expected a string");
    }
    if (type == NULL || strcmp(type->valuestring, "space_only") != 0) {
        cfg_warn(c, "num_frames", "TimeSformer's time table (num_frames rows, frame f adding row f to each of its "
                 "patches, the class token none) is not certified, only the spatial table");
    }
    return 0;
}

/* The model's own switches that take the table away or break it. */
static int check_switches(map_ctx *c, const fixed_table_rule *rule)
{
    int flag = 0;
    if (strcmp(rule->model_type, "mgp-str") == 0 &&
        (cfg_read_bool(c, c->root, "distilled", "distilled", &flag) < 0 ||
         (flag && cfg_fail(c, "distilled", "true: MgpstrEmbeddings builds a table of patches + 2 rows but adds it "
                           "to the class token and the patches only (patches + 1 tokens): the model cannot run") != 0))) {
        return -1;
    }
    if (strcmp(rule->model_type, "timesformer") == 0 && check_time_table(c) != 0) {
        return -1;
    }
    if (strcmp(rule->model_type, "aimv2_vision_model") == 0 &&
        (cfg_read_bool(c, c->root, "is_native", "is_native", &flag) < 0 ||
         (flag && cfg_fail(c, "is_native", "true: Aimv2VisionEmbeddings then builds a 2-D sincos table for each "
                           "image (build_2d_sincos_position_embedding), which this mapping does not certify") != 0))) {
        return -1;
    }
    return 0;
}

/* The table's width: hidden_size (and the heads that divide it), or, for
 * the models built in stages, the first stage's (the tokens the table is
 * added to): Hiera's embed_dim with num_heads a list, PVT's hidden_sizes
 * and num_attention_heads lists. */
static int read_width(map_ctx *c, const fixed_table_rule *rule)
{
    pecert_certify_model *m = c->m;
    int32_t width = rule->hidden_default;
    if (!rule->heads_per_stage) {
        return cfg_read_heads_or(c, "hidden_size", "num_attention_heads", NULL, rule->hidden_default,
                                 rule->heads_default);
    }
    if (read_first_of_stages(c, rule->heads_key, rule->heads_default, &m->num_heads) < 0 ||
        (rule->width_per_stage ? read_first_of_stages(c, rule->width_key, rule->hidden_default, &width)
                               : cfg_read_int32(c, c->root, rule->width_key, 1, 1 << 20, &width)) < 0) {
        return -1;
    }
    if (width % m->num_heads != 0) {
        return cfg_fail(c, rule->width_key, "%d is not a multiple of the first stage's %d heads", width,
                        m->num_heads);
    }
    m->num_kv_heads = m->num_heads;
    m->head_dim = width / m->num_heads;
    return 0;
}

int cfg_map_fixed_table(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    const fixed_table_rule *rule = find_fixed(m->model_type);
    if (rule == NULL) {
        return cfg_fail(c, "model_type", "'%s' has no fixed-table rule (a bug in pecert)", m->model_type);
    }
    if (cfg_reject_unknown_positional(c, c->root, rule->positional, "") != 0 || read_width(c, rule) != 0 ||
        check_switches(c, rule) != 0) {
        return -1;
    }
    int64_t patches = grid_patches(c, rule);
    if (patches < 0) {
        return -1;
    }
    if (rule->warning != NULL) {
        cfg_warn(c, rule->warn_key, "%s", rule->warning);
    }
    int32_t suffix = rule->suffix_default;
    if (rule->suffix_key != NULL && cfg_read_int32(c, c->root, rule->suffix_key, 0, 1 << 16, &suffix) < 0) {
        return -1;
    }
    m->kind = PECERT_PE_LEARNED;
    m->learned_rows = patches + rule->prefix + (rule->suffix_key != NULL ? suffix : 0);
    m->learned_dim = m->head_dim * m->num_heads;
    m->max_position_embeddings = m->learned_rows;
    return 0;
}
