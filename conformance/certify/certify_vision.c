/*
 * certify_vision.c - a multimodal checkpoint's vision tower, as its
 * vision_config states it, mapped to pecert's 2-D RoPE parameters
 * (certify_config.h: pecert_certify_vision).
 *
 * Source of every rule: transformers v4.57.6 (753d6110), the towers'
 * vision config classes (which keys they read, their defaults) and the
 * rotary code of their vision models (which width the rotation spans, its
 * theta, the patch order, the pairing):
 *   qwen2_vl    Qwen2VLVisionConfig; Qwen2VisionTransformerPretrainedModel
 *               builds VisionRotaryEmbedding(embed_dim / num_heads / 2),
 *               theta 10000 fixed, rot_pos_emb in merge windows, rows first,
 *               rotate_half. Its hidden_size is the merger's output, not the
 *               attention's width: reading it for head_dim is a real bug.
 *   qwen2_5_vl  Qwen2_5_VLVisionConfig: hidden_size / num_heads (its class
 *               default hidden_size is 3584, the released towers' 1280);
 *               the patches and their rotary rows are then reordered into
 *               attention windows of window_size // spatial_merge_size //
 *               patch_size merge units a side (get_window_index, in
 *               forward): ATTENTION_WINDOWS.
 *   qwen3_vl    Qwen3VLVisionConfig: hidden_size / num_heads (default 1152),
 *               patch 16, the Qwen2-VL rotation, and a learned table of
 *               num_position_embeddings rows (a square grid: num_grid_per_side
 *               = int(sqrt)) that fast_pos_embed_interpolate resizes to each
 *               image, bilinear corners to corners, in merge-window order.
 *   llava       LlavaConfig with a pixtral vision_config (Pixtral-12B):
 *               PixtralVisionConfig, head_dim = hidden_size /
 *               num_attention_heads (a head_dim key is overwritten), the
 *               table image_size / patch_size patches a side, row-major,
 *               frequencies alternating between the axes, rotate_half.
 *   mlcd_vision_model  MLCDVisionConfig (the checkpoint is the tower):
 *               MLCDRotaryEmbedding(hidden_size / num_attention_heads / 2),
 *               Qwen2-VL's frequencies (theta 10000 fixed), the patches'
 *               (row, col) row-major as Pixtral orders them, rotate_half;
 *               the class token first, turned by learned angles
 *               (class_pos_emb: a weight, warned). image_size sizes
 *               nothing: the grid is the image's.
 *   llama4      Llama4VisionConfig (hidden_size default 768, image_size 448):
 *               Llama4VisionRotaryEmbedding, one image_size tile, positions
 *               (row + 1, column + 1) and the class token at 0, columns
 *               first, complex multiply (interleaved pairs).
 * and the ViT family, whose checkpoint is the tower (its own config's
 * fields) and whose only position code is a learned table of
 * (image_size / patch_size)^2 rows after its class row, resized by
 * interpolate_pos_encoding to an image of another size: nn.functional.
 * interpolate to (height // patch, width // patch), bicubic,
 * align_corners False, the size form; the table returned as it is when
 * the image has as many patches and is square:
 *   vit         ViTConfig, ViTEmbeddings (only with interpolate_pos_encoding
 *               True: without it ViTPatchEmbeddings refuses another size);
 *   deit        DeiTConfig, DeiTEmbeddings: class and distillation rows;
 *   dinov2      Dinov2Config (patch 14), Dinov2Embeddings: always, in
 *               float32;
 *   dinov2_with_registers  Dinov2WithRegistersConfig (patch 16),
 *               Dinov2WithRegistersEmbeddings: antialias True (the register
 *               tokens come after and take no position);
 *   internvl_vision  InternVLVisionConfig (448 / 14, given as [h, w]
 *               pairs), InternVLVisionEmbeddings: on every image, whatever
 *               the caller asks (its forward has no flag).
 */
#include "certify_reads.h"
#include "vectors.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One tower: where its config class reads each concept, and its defaults. */
typedef struct vision_rule {
    const char *model_type;       /* the checkpoint's (top-level) model_type */
    const char *tower;            /* vision_config's model_type               */
    const char *config_class;     /* for the description and the errors       */
    const char *hidden_key;       /* the attention's width                    */
    int32_t hidden_default;
    const char *heads_key;
    int32_t heads_default;
    int32_t patch_default;
    int32_t merge_default;        /* spatial_merge_size; 0: the tower has none */
    int32_t temporal_default;     /* temporal_patch_size; 0: none             */
    int32_t image_default;        /* image_size; 0: the tower has none        */
    int32_t fixed_image;          /* every image is one image_size tile       */
    int32_t reads_theta;          /* rope_theta in vision_config              */
    pecert_rope2d_scheme scheme;
    pecert_rope2d_frequencies frequencies;
    int32_t columns_first;
    pecert_rope_pairing pairing;
    /* The ViT family: no rotation, the checkpoint's own fields, a table of
     * (image / patch)^2 rows after table_prefix rows, resized bicubic with
     * half-pixel centres, antialiased when table_antialias. */
    int32_t table_only;
    int32_t table_prefix;
    int32_t table_antialias;
    int32_t table_bilinear;       /* DPT's resize: bilinear, half-pixel      */
    /* SigLIP 2 (NaFlex): no image_size; the table is sqrt(num_patches) a
     * side (default 256: 16 x 16), resized to every image's patch grid. */
    int32_t table_from_patches;
    /* A table-only tower in a composite's vision_config (CLIPConfig's
     * CLIPVisionConfig), beside a text model certify_wrappers.c reads; 0:
     * the checkpoint is the tower (ViTConfig). */
    int32_t in_vision_config;
    /* A 2-D RoPE tower that is the checkpoint itself (model_type pixtral:
     * PixtralVisionConfig's fields at the top), certified as the model. */
    int32_t own_config;
    const char *const *positional; /* positional keys it knows               */
    /* A wrapper whose vision_config may name another tower (LLaVA's CLIP,
     * Mistral 3's other): that one is noted as not certified, not refused;
     * absent_tower is what a config without vision_config.model_type gets
     * (NULL: tower), and a null one is the config class's KeyError. */
    int32_t other_towers;
    const char *absent_tower;
    const char *reads;            /* what is read, in words (--list-model-types) */
    const char *warn_key;         /* what the tower computes and pecert does */
    const char *warning;          /* not certify, named; NULL: nothing       */
} vision_rule;

static const char *const no_positional[] = {NULL};
static const char *const theta_only[] = {"rope_theta", NULL};
static const char *const qwen3_positional[] = {"num_position_embeddings", NULL};
static const char *const internvl_positional[] = {"use_absolute_position_embeddings", NULL};
static const char *const dpt_positional[] = {"is_hybrid", NULL};

/* A tower whose only position code is a learned table resized as ViT's. */
#define TABLE_TOWER(mt, tower_type, cls, image, patch, hidden, heads, prefix, nested, words)                      \
    {.model_type = mt, .tower = tower_type, .config_class = cls, .hidden_key = "hidden_size",                   \
     .hidden_default = hidden, .heads_key = "num_attention_heads", .heads_default = heads, .patch_default = patch, \
     .image_default = image, .table_only = 1, .table_prefix = prefix, .in_vision_config = nested,               \
     .positional = no_positional, .reads = words}

static const vision_rule vision_rules[] = {
    {.model_type = "qwen2_vl", .tower = "qwen2_vl", .config_class = "Qwen2VLVisionConfig",
     .hidden_key = "embed_dim", .hidden_default = 1280, .heads_key = "num_heads", .heads_default = 16,
     .patch_default = 14, .merge_default = 2, .temporal_default = 2, .scheme = PECERT_ROPE2D_MERGE_WINDOWS,
     .frequencies = PECERT_ROPE2D_BLOCKS, .pairing = PECERT_PAIRING_SPLIT_HALF, .positional = no_positional,
     .reads = "embed_dim / num_heads (not hidden_size: the merger's), patch_size, spatial_merge_size; merge "
              "windows, rows first, blocks, split_half, theta 10000"},
    {.model_type = "qwen2_5_vl", .tower = "qwen2_5_vl", .config_class = "Qwen2_5_VLVisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 3584, .heads_key = "num_heads", .heads_default = 16,
     .patch_default = 14, .merge_default = 2, .temporal_default = 2, .scheme = PECERT_ROPE2D_MERGE_WINDOWS,
     .frequencies = PECERT_ROPE2D_BLOCKS, .pairing = PECERT_PAIRING_SPLIT_HALF, .positional = no_positional,
     .reads = "hidden_size / num_heads (default 3584), patch_size, spatial_merge_size, window_size (112); as "
              "qwen2_vl, then in attention windows (get_window_index)"},
    {.model_type = "qwen3_vl", .tower = "qwen3_vl", .config_class = "Qwen3VLVisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 1152, .heads_key = "num_heads", .heads_default = 16,
     .patch_default = 16, .merge_default = 2, .temporal_default = 2, .scheme = PECERT_ROPE2D_MERGE_WINDOWS,
     .frequencies = PECERT_ROPE2D_BLOCKS, .pairing = PECERT_PAIRING_SPLIT_HALF, .positional = qwen3_positional,
     .reads = "hidden_size / num_heads (default 1152), patch_size (16), spatial_merge_size; as qwen2_vl; the "
              "learned table of num_position_embeddings (2304 = 48 x 48) resized bilinear, corners to corners"},
    /* Qwen3VLMoeVisionConfig and Qwen3VLMoeVisionModel: Qwen3-VL's, field
     * for field (the modular file copies them). */
    {.model_type = "qwen3_vl_moe", .tower = "qwen3_vl_moe", .config_class = "Qwen3VLMoeVisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 1152, .heads_key = "num_heads", .heads_default = 16,
     .patch_default = 16, .merge_default = 2, .temporal_default = 2, .scheme = PECERT_ROPE2D_MERGE_WINDOWS,
     .frequencies = PECERT_ROPE2D_BLOCKS, .pairing = PECERT_PAIRING_SPLIT_HALF, .positional = qwen3_positional,
     .reads = "as qwen3_vl (Qwen3VLMoeVisionConfig is Qwen3VLVisionConfig's copy)"},
    {.model_type = "llava", .tower = "pixtral", .config_class = "PixtralVisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 1024, .heads_key = "num_attention_heads", .heads_default = 16,
     .patch_default = 16, .image_default = 1024, .reads_theta = 1, .scheme = PECERT_ROPE2D_ROW_MAJOR,
     .frequencies = PECERT_ROPE2D_ALTERNATE, .pairing = PECERT_PAIRING_SPLIT_HALF, .positional = theta_only,
     .other_towers = 1, .absent_tower = "clip_vision_model",
     .reads = "vision_config of model_type pixtral: hidden_size / num_attention_heads, image_size, patch_size, "
              "rope_theta; row-major, alternating, split_half"},
    /* PixtralVisionModel as a checkpoint of its own (Pixtral-12B's tower,
     * AutoModel.from_config of a PixtralVisionConfig). */
    {.model_type = "pixtral", .tower = "pixtral", .config_class = "PixtralVisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 1024, .heads_key = "num_attention_heads", .heads_default = 16,
     .patch_default = 16, .image_default = 1024, .reads_theta = 1, .scheme = PECERT_ROPE2D_ROW_MAJOR,
     .frequencies = PECERT_ROPE2D_ALTERNATE, .pairing = PECERT_PAIRING_SPLIT_HALF, .positional = theta_only,
     .own_config = 1,
     .reads = "the model itself: hidden_size / num_attention_heads, image_size, patch_size, rope_theta; as "
              "llava's pixtral tower"},
    /* Mistral3Config: vision_config.get("model_type", "pixtral"), the tower
     * AutoModel.from_config(config.vision_config): Pixtral's, as above. */
    {.model_type = "mistral3", .tower = "pixtral", .config_class = "PixtralVisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 1024, .heads_key = "num_attention_heads", .heads_default = 16,
     .patch_default = 16, .image_default = 1024, .reads_theta = 1, .scheme = PECERT_ROPE2D_ROW_MAJOR,
     .frequencies = PECERT_ROPE2D_ALTERNATE, .pairing = PECERT_PAIRING_SPLIT_HALF, .positional = theta_only,
     .other_towers = 1, .reads = "as llava's (vision_config of model_type pixtral, the default here)"},
    {.model_type = "mlcd_vision_model", .tower = "mlcd_vision_model", .config_class = "MLCDVisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 1664, .heads_key = "num_attention_heads", .heads_default = 16,
     .patch_default = 14, .image_default = 336, .scheme = PECERT_ROPE2D_ROW_MAJOR,
     .frequencies = PECERT_ROPE2D_BLOCKS, .pairing = PECERT_PAIRING_SPLIT_HALF, .positional = no_positional,
     .own_config = 1,
     .reads = "the model itself: hidden_size / num_attention_heads, patch_size (images of image_size); "
              "row-major, blocks, split_half, theta 10000",
     .warn_key = "hidden_size",
     .warning = "MLCD's class token turns by learned angles (class_pos_emb, a weight of the checkpoint): "
                "certify checks the patches' rotation"},
    {.model_type = "llama4", .tower = "llama4_vision_model", .config_class = "Llama4VisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 768, .heads_key = "num_attention_heads", .heads_default = 16,
     .patch_default = 14, .image_default = 448, .fixed_image = 1, .reads_theta = 1,
     .scheme = PECERT_ROPE2D_ROW_MAJOR_CLS, .frequencies = PECERT_ROPE2D_BLOCKS, .columns_first = 1,
     .pairing = PECERT_PAIRING_INTERLEAVED, .positional = theta_only,
     .reads = "hidden_size / num_attention_heads (default 768), image_size (448) tiles, patch_size, "
              "rope_theta; class token, columns first, interleaved"},
    {.model_type = "vit", .tower = "vit", .config_class = "ViTConfig", .hidden_key = "hidden_size",
     .hidden_default = 768, .heads_key = "num_attention_heads", .heads_default = 12, .patch_default = 16,
     .image_default = 224, .table_only = 1, .table_prefix = 1, .positional = no_positional,
     .reads = "the model itself: image_size / patch_size, hidden_size; ViTEmbeddings.interpolate_pos_encoding "
              "(interpolate_pos_encoding=True): bicubic, half-pixel centres, class row kept"},
    {.model_type = "deit", .tower = "deit", .config_class = "DeiTConfig", .hidden_key = "hidden_size",
     .hidden_default = 768, .heads_key = "num_attention_heads", .heads_default = 12, .patch_default = 16,
     .image_default = 224, .table_only = 1, .table_prefix = 2, .positional = no_positional,
     .reads = "the model itself: as vit, class and distillation rows kept (DeiTEmbeddings)"},
    {.model_type = "dinov2", .tower = "dinov2", .config_class = "Dinov2Config", .hidden_key = "hidden_size",
     .hidden_default = 768, .heads_key = "num_attention_heads", .heads_default = 12, .patch_default = 14,
     .image_default = 224, .table_only = 1, .table_prefix = 1, .positional = no_positional,
     .reads = "the model itself: as vit, patch 14, every image (Dinov2Embeddings)"},
    {.model_type = "dinov2_with_registers", .tower = "dinov2_with_registers",
     .config_class = "Dinov2WithRegistersConfig", .hidden_key = "hidden_size", .hidden_default = 768,
     .heads_key = "num_attention_heads", .heads_default = 12, .patch_default = 16, .image_default = 224,
     .table_only = 1, .table_prefix = 1, .table_antialias = 1, .positional = no_positional,
     .reads = "the model itself: as dinov2, patch 16, antialias (Dinov2WithRegistersEmbeddings)"},
    /* Towers of the CLIP and SigLIP families, each its own checkpoint or a
     * composite's vision_config (certify_wrappers.c reads the text model):
     * CLIPVisionEmbeddings keeps its table as nn.Embedding with a class
     * embedding, SiglipVisionEmbeddings (and IJepaEmbeddings) without a
     * class row; the resize is ViT's (interpolate_pos_encoding=True: the
     * same bicubic, half-pixel size form and the same early return). */
    TABLE_TOWER("clip_vision_model", "clip_vision_model", "CLIPVisionConfig", 224, 32, 768, 12, 1, 0,
                "the model itself: image_size / patch_size (224 / 32), hidden_size; CLIPVisionEmbeddings."
                "interpolate_pos_encoding: as vit, class row kept"),
    TABLE_TOWER("chinese_clip_vision_model", "chinese_clip_vision_model", "ChineseCLIPVisionConfig", 224, 32, 768,
                12, 1, 0, "the model itself: as clip_vision_model (ChineseCLIPVisionEmbeddings, a copy)"),
    TABLE_TOWER("siglip_vision_model", "siglip_vision_model", "SiglipVisionConfig", 224, 16, 768, 12, 0, 0,
                "the model itself: image_size / patch_size (224 / 16), hidden_size; SiglipVisionEmbeddings."
                "interpolate_pos_encoding: as vit, no class row"),
    /* Siglip2VisionEmbeddings: position_embedding_size = int(num_patches
     * ** 0.5), resize_positional_embeddings on every image to its
     * spatial_shapes: bilinear, half-pixel centres, antialias, no class
     * row (the rows past h * w, padding, repeat row 0: masked out). */
    {.model_type = "siglip2_vision_model", .tower = "siglip2_vision_model", .config_class = "Siglip2VisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 768, .heads_key = "num_attention_heads", .heads_default = 12,
     .patch_default = 16, .table_only = 1, .table_bilinear = 1, .table_antialias = 1, .table_from_patches = 1,
     .positional = no_positional,
     .reads = "the model itself: num_patches (a sqrt(num_patches)-sided table), patch_size, hidden_size; "
              "resize_positional_embeddings on every image: bilinear, antialias, no class row"},
    TABLE_TOWER("vit_msn", "vit_msn", "ViTMSNConfig", 224, 16, 768, 12, 1, 0,
                "the model itself: as vit (ViTMSNEmbeddings, a copy)"),
    /* ViTMAEEmbeddings: the 2-D sincos table is a frozen parameter of the
     * checkpoint (initialize_weights fills it; a port loads it), read and
     * resized as ViT's (interpolate_pos_encoding, a copy), the patches'
     * rows added before random_masking drops mask_ratio of them (warned). */
    TABLE_TOWER("vit_mae", "vit_mae", "ViTMAEConfig", 224, 16, 768, 12, 1, 0,
                "the model itself: as vit (ViTMAEEmbeddings: its frozen sincos table, rows added before the "
                "random masking)"),
    TABLE_TOWER("ijepa", "ijepa", "IJepaConfig", 224, 16, 768, 12, 0, 0,
                "the model itself: as vit, no class row (IJepaEmbeddings)"),
    /* DPT (DPTViTEmbeddings._resize_pos_embed): ViT's table, resized on
     * every image bilinear with half-pixel centres (align_corners None),
     * the class row kept; the hybrid and backbone variants refused
     * (cfg_map_vit). */
    {.model_type = "dpt", .tower = "dpt", .config_class = "DPTConfig", .hidden_key = "hidden_size",
     .hidden_default = 768, .heads_key = "num_attention_heads", .heads_default = 12, .patch_default = 16,
     .image_default = 384, .table_only = 1, .table_prefix = 1, .table_bilinear = 1, .positional = dpt_positional,
     .reads = "the model itself: image_size / patch_size (384 / 16), hidden_size; DPTViTEmbeddings."
              "_resize_pos_embed on every image: bilinear, half-pixel centres, class row kept"},
    /* InternVLVisionEmbeddings: ViT's interpolate_pos_encoding, called on
     * every image (no flag); image_size and patch_size [h, w] pairs. */
    {.model_type = "internvl_vision", .tower = "internvl_vision", .config_class = "InternVLVisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 1024, .heads_key = "num_attention_heads", .heads_default = 16,
     .patch_default = 14, .image_default = 448, .table_only = 1, .table_prefix = 1, .positional = internvl_positional,
     .reads = "the model itself: image_size / patch_size (448 / 14, square pairs), hidden_size; "
              "InternVLVisionEmbeddings.interpolate_pos_encoding on every image: as vit, class row kept"},
    TABLE_TOWER("clip", "clip_vision_model", "CLIPVisionConfig", 224, 32, 768, 12, 1, 1,
                "vision_config (CLIPVisionConfig, fixed by CLIPConfig): as clip_vision_model"),
    TABLE_TOWER("metaclip_2", "metaclip_2_vision_model", "MetaClip2VisionConfig", 224, 32, 768, 12, 1, 1,
                "vision_config (MetaClip2VisionConfig): as clip_vision_model (MetaClip2VisionEmbeddings, a copy)"),
    TABLE_TOWER("chinese_clip", "chinese_clip_vision_model", "ChineseCLIPVisionConfig", 224, 32, 768, 12, 1, 1,
                "vision_config (ChineseCLIPVisionConfig): as clip_vision_model"),
    TABLE_TOWER("altclip", "altclip_vision_model", "AltCLIPVisionConfig", 224, 32, 768, 12, 1, 1,
                "vision_config (AltCLIPVisionConfig): as clip_vision_model (AltCLIPVisionEmbeddings, a copy)"),
    TABLE_TOWER("owlvit", "owlvit_vision_model", "OwlViTVisionConfig", 768, 32, 768, 12, 1, 1,
                "vision_config (OwlViTVisionConfig, 768 / 32): as clip_vision_model (OwlViTVisionEmbeddings)"),
    TABLE_TOWER("owlv2", "owlv2_vision_model", "Owlv2VisionConfig", 768, 16, 768, 12, 1, 1,
                "vision_config (Owlv2VisionConfig, 768 / 16): as clip_vision_model (Owlv2VisionEmbeddings)"),
    TABLE_TOWER("siglip", "siglip_vision_model", "SiglipVisionConfig", 224, 16, 768, 12, 0, 1,
                "vision_config (SiglipVisionConfig, fixed by SiglipConfig): as siglip_vision_model"),
    {.model_type = "siglip2", .tower = "siglip2_vision_model", .config_class = "Siglip2VisionConfig",
     .hidden_key = "hidden_size", .hidden_default = 768, .heads_key = "num_attention_heads", .heads_default = 12,
     .patch_default = 16, .table_only = 1, .table_bilinear = 1, .table_antialias = 1, .table_from_patches = 1,
     .in_vision_config = 1, .positional = no_positional,
     .reads = "vision_config (Siglip2VisionConfig, fixed by Siglip2Config): as siglip2_vision_model"},
    TABLE_TOWER("git", "git_vision_model", "GitVisionConfig", 224, 16, 768, 12, 1, 1,
                "vision_config (GitVisionConfig): as clip_vision_model (GitVisionEmbeddings, a copy; GitModel passes "
                "interpolate_pos_encoding on)"),
    TABLE_TOWER("kosmos-2", "kosmos_2_vision_model", "Kosmos2VisionConfig", 224, 14, 1024, 16, 1, 1,
                "vision_config (Kosmos2VisionConfig, 224 / 14): as clip_vision_model (Kosmos2VisionEmbeddings)"),
};
#define N_VISION_RULES (sizeof(vision_rules) / sizeof(vision_rules[0]))

const char *pecert_certify_vision_tower(size_t i, const char **config_class, const char **reads)
{
    if (i >= N_VISION_RULES) {
        return NULL;
    }
    *config_class = vision_rules[i].config_class;
    *reads = vision_rules[i].reads;
    return vision_rules[i].model_type;
}

static const vision_rule *find_rule(const char *model_type)
{
    for (size_t i = 0; i < N_VISION_RULES; i++) {
        if (strcmp(vision_rules[i].model_type, model_type) == 0) {
            return &vision_rules[i];
        }
    }
    return NULL;
}

int cfg_vit_defaults(const char *model_type, int32_t *image, int32_t *patch, int32_t *prefix,
                     const char *const **positional)
{
    const vision_rule *rule = find_rule(model_type);
    if (rule == NULL || !rule->table_only || rule->in_vision_config) {
        return -1;
    }
    *image = rule->table_from_patches ? -1 : rule->image_default; /* -1: from num_patches, no image_size */
    *patch = rule->patch_default;
    *prefix = rule->table_prefix;
    *positional = rule->positional;
    return 0;
}

static const char *rule_tower_of(const pecert_certify_vision *v)
{
    for (size_t i = 0; i < N_VISION_RULES; i++) {
        if (strcmp(vision_rules[i].tower, v->tower) == 0) {
            return vision_rules[i].config_class;
        }
    }
    return "?";
}

/* Qwen's towers: patches grouped in merge windows (then, for Qwen2.5-VL,
 * in attention windows of them); an image a whole number of windows. */
static int in_merge_windows(const pecert_certify_vision *v)
{
    return v->scheme == PECERT_ROPE2D_MERGE_WINDOWS || v->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS;
}

/* ---- the default image grids ---------------------------------------------- */

static void add_grid(pecert_certify_vision *v, int64_t t, int64_t h, int64_t w)
{
    if (v->n_images < PECERT_CERTIFY_MAX_IMAGES) {
        int64_t *g = v->grid_thw[v->n_images++];
        g[0] = t;
        g[1] = h;
        g[2] = w;
    }
}

/* A tower with a learned table (Qwen3-VL's 48 x 48, ViT-B/16's 14 x 14)
 * also gets an image of exactly as many patches in another shape
 * (36 x 64, 7 x 28): a resize skipped because the count is unchanged
 * (posinterp_same_count_shortcut) shows there alone. */
static void add_table_sized_grid(pecert_certify_vision *v)
{
    int64_t n = (int64_t)v->table_side * v->table_side;
    int64_t m = v->table_merge;
    for (int64_t h = (v->table_side / m) * m - m; h >= m; h -= m) {
        if (n % h == 0 && (n / h) % m == 0 && n / h != h) {
            add_grid(v, 1, h, n / h);
            return;
        }
    }
}

static int64_t at_least_1(int64_t n)
{
    return n > 0 ? n : 1;
}

/*
 * The ViT family's images, for a table of n x n: the native image (the
 * table as it is), the 224-pixel square its processors crop to when that
 * is another grid (DINOv2's 16 x 16 from 37 x 37), a square grown as
 * ViT-B/16 grows from 224 to 384 pixels (x 12/7), a 7:10 photo, a square
 * shrunk by 5/7 (where antialias acts) and as many patches as the table
 * in another shape.
 */
static void table_grids(pecert_certify_vision *v)
{
    int64_t n = v->table_side;
    int64_t crop = 224 / v->patch_size;
    add_grid(v, 1, n, n);
    if (crop != n && crop > 0) {
        add_grid(v, 1, crop, crop);
    }
    add_grid(v, 1, n * 12 / 7, n * 12 / 7);
    add_grid(v, 1, n, at_least_1(n * 10 / 7));
    if (n * 5 / 7 != crop) {
        add_grid(v, 1, at_least_1(n * 5 / 7), at_least_1(n * 5 / 7));
    }
    add_table_sized_grid(v);
}

/*
 * What each tower is given in use. Qwen (merge windows of m x m patches of
 * p pixels): a 224-pixel square image, a photo-shaped one, a two-temporal-
 * patch video, and a strip at the 200:1 aspect ratio smart_resize accepts
 * (one merge window high, 200 wide: 2 x 400 patches). Pixtral: its largest
 * image (the rotary table's side), a 5:8 one, a single patch. Llama 4: two
 * tiles (an image its processor cut in two). A config of tiny patches
 * keeps the first grids that fit in one run (PECERT_CERTIFY_MAX_PATCHES).
 */
static void default_grids(pecert_certify_vision *v)
{
    v->n_images = 0;
    if (!v->rotary) {
        table_grids(v);
    } else if (in_merge_windows(v)) {
        int64_t m = v->spatial_merge_size;
        int64_t windows = 224 / ((int64_t)v->patch_size * m);
        int64_t square = (windows > 0 ? windows : 1) * m;
        add_grid(v, 1, square, square);
        add_grid(v, 1, 18 * m, 26 * m);
        add_grid(v, 2, square, square);
        add_grid(v, 1, m, 200 * m);
        add_table_sized_grid(v);
    } else if (v->fixed_image) {
        int64_t side = v->image_size / v->patch_size;
        add_grid(v, 1, side, side);
        add_grid(v, 1, side, side);
    } else {
        int64_t side = v->image_size / v->patch_size;
        add_grid(v, 1, side, side);
        add_grid(v, 1, side * 5 / 8 > 0 ? side * 5 / 8 : 1, side);
        add_grid(v, 1, 1, 1);
    }
    snprintf(v->images_from, sizeof(v->images_from), "the tower's defaults");
}

static int64_t grid_patches(const pecert_certify_vision *v)
{
    int64_t n = 0;
    for (int i = 0; i < v->n_images; i++) {
        n += v->grid_thw[i][0] * v->grid_thw[i][1] * v->grid_thw[i][2];
    }
    return n;
}

/* The default grids cut to what one run certifies; 0, or -1 after
 * cfg_fail when not even the first fits (a table of that many patches). */
static int fit_default_grids(map_ctx *c, pecert_certify_vision *v)
{
    while (v->n_images > 1 && grid_patches(v) > PECERT_CERTIFY_MAX_PATCHES) {
        v->n_images--;
    }
    if (grid_patches(v) <= PECERT_CERTIFY_MAX_PATCHES) {
        return 0;
    }
    return cfg_fail(c, v->image_size > 0 ? "image_size" : "patch_size",
                    "a %lld x %lld-patch image is past the %lld patches pecert certifies in one run",
                    (long long)v->grid_thw[0][1], (long long)v->grid_thw[0][2],
                    (long long)PECERT_CERTIFY_MAX_PATCHES);
}

/* ---- the mapping ---------------------------------------------------------- */

/* vision_config's model_type, when given, must be the tower's (pecert
 * refuses a config that names another tower, which the Qwen and Llama 4
 * classes would build regardless). A wrapper that builds whatever tower
 * its vision_config names (LlavaConfig, Mistral3Config: CONFIG_MAPPING of
 * it, a KeyError for a null one) gets another one noted: a learned table,
 * no 2-D RoPE (*is_tower 0, a note). */
static int check_tower_type(map_ctx *c, const cJSON *vc, const vision_rule *rule, int *is_tower)
{
    const cJSON *raw = cJSON_GetObjectItemCaseSensitive(vc, "model_type");
    const cJSON *mt = cfg_get(vc, "model_type");
    *is_tower = rule->table_only && !rule->in_vision_config; /* the checkpoint is the tower */
    if (*is_tower) {
        return 0;
    }
    if (rule->other_towers && cJSON_IsNull(raw)) {
        return cfg_fail(c, "model_type", "null: %s looks it up in CONFIG_MAPPING (KeyError)",
                        strcmp(rule->model_type, "llava") == 0 ? "LlavaConfig" : "the config class");
    }
    if (mt != NULL && !cJSON_IsString(mt)) {
        return cfg_fail(c, "model_type", "expected a string");
    }
    const char *absent = rule->absent_tower != NULL ? rule->absent_tower : rule->tower;
    const char *given = mt != NULL ? mt->valuestring : absent;
    *is_tower = strcmp(given, rule->tower) == 0;
    if (*is_tower) {
        return 0;
    }
    if (!rule->other_towers) {
        return cfg_fail(c, "model_type", "'%.40s': expected '%s' (%s)", given, rule->tower, rule->config_class);
    }
    snprintf(c->m->vision_note, sizeof(c->m->vision_note),
             "vision_config.model_type '%.40s'%s: a tower without 2-D RoPE, not certified by pecert", given,
             mt != NULL ? "" : " (LlavaConfig's default)");
    return 0;
}

static int read_width(map_ctx *c, const cJSON *vc, const vision_rule *rule, pecert_certify_vision *v)
{
    v->hidden_size = rule->hidden_default;
    v->num_heads = rule->heads_default;
    if (cfg_read_int32(c, vc, rule->hidden_key, 1, 1 << 20, &v->hidden_size) < 0 ||
        cfg_read_int32(c, vc, rule->heads_key, 1, 1 << 12, &v->num_heads) < 0) {
        return -1;
    }
    if (v->hidden_size % v->num_heads != 0) {
        return cfg_fail(c, rule->hidden_key, "%d is not a multiple of %s %d (the attention splits it in heads)",
                        v->hidden_size, rule->heads_key, v->num_heads);
    }
    v->head_dim = v->hidden_size / v->num_heads;
    if (v->head_dim > PECERT_CERTIFY_MAX_VISION_HEAD_DIM) {
        return cfg_fail(c, rule->hidden_key, "%d / %s %d = head_dim %d: pecert certifies up to %d", v->hidden_size,
                        rule->heads_key, v->num_heads, v->head_dim, PECERT_CERTIFY_MAX_VISION_HEAD_DIM);
    }
    if (!rule->table_only && v->head_dim % 4 != 0) {
        return cfg_fail(c, rule->hidden_key, "%d / %s %d = head_dim %d: the 2-D rotation needs a multiple of 4",
                        v->hidden_size, rule->heads_key, v->num_heads, v->head_dim);
    }
    int32_t stated = v->head_dim;
    if (cfg_read_int32(c, vc, "head_dim", 1, 1 << 16, &stated) < 0) {
        return -1;
    }
    if (stated != v->head_dim) {
        cfg_warn(c, "head_dim", "%d is not read: %s's attention uses %s / %s = %d", stated, rule->config_class,
                 rule->hidden_key, rule->heads_key, v->head_dim);
    }
    return 0;
}

static int read_grid_keys(map_ctx *c, const cJSON *vc, const vision_rule *rule, pecert_certify_vision *v)
{
    v->patch_size = rule->patch_default;
    v->spatial_merge_size = rule->merge_default > 0 ? rule->merge_default : 1;
    v->temporal_patch_size = rule->temporal_default > 0 ? rule->temporal_default : 1;
    v->image_size = rule->image_default;
    v->theta = 10000.0;
    if (cfg_read_side(c, vc, "patch_size", 1, 1 << 12, &v->patch_size) < 0 ||
        (rule->merge_default > 0 && cfg_read_int32(c, vc, "spatial_merge_size", 1, 64, &v->spatial_merge_size) < 0) ||
        (rule->temporal_default > 0 && cfg_read_int32(c, vc, "temporal_patch_size", 1, 64,
                                                      &v->temporal_patch_size) < 0) ||
        (rule->image_default > 0 && cfg_read_side(c, vc, "image_size", 1, 1 << 16, &v->image_size) < 0) ||
        (rule->reads_theta && cfg_read_num(c, vc, "rope_theta", "rope_theta", 1.0 + 1e-9, 1e300, &v->theta) < 0)) {
        return -1;
    }
    if (rule->image_default > 0 && v->image_size < v->patch_size) {
        return cfg_fail(c, "image_size", "%d is smaller than patch_size %d: no patch fits", v->image_size,
                        v->patch_size);
    }
    return 0;
}

/* Qwen2.5-VL's attention windows: get_window_index's
 * vit_merger_window_size = window_size // spatial_merge_size // patch_size
 * merge units a side (floored as Python's // does); a window smaller than
 * one merge unit divides by zero there, and is refused. 0, or -1 after
 * cfg_fail. */
static int read_attention_windows(map_ctx *c, const cJSON *vc, const vision_rule *rule, pecert_certify_vision *v)
{
    if (strcmp(rule->tower, "qwen2_5_vl") != 0) {
        return 0;
    }
    int32_t window = 112;
    /* Qwen2_5_VLVisionConfig keeps an explicit null as None (its 112 is a
     * default of the argument, not of the value), and get_window_index
     * then cannot floor-divide it: there is no window to certify. */
    if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(vc, "window_size"))) {
        return cfg_fail(c, "window_size", "null: transformers keeps None (not its default 112), and Qwen2.5-VL's "
                                          "get_window_index cannot compute window_size // spatial_merge_size // "
                                          "patch_size from it; give the window in pixels");
    }
    if (cfg_read_int32(c, vc, "window_size", (int64_t)v->spatial_merge_size * v->patch_size, 1 << 20, &window) < 0) {
        return -1;
    }
    v->scheme = PECERT_ROPE2D_ATTENTION_WINDOWS;
    v->window_size = window;
    v->window_units = window / v->spatial_merge_size / v->patch_size;
    return 0;
}

/* Qwen3-VL's learned table: Qwen3VLVisionModel.num_grid_per_side =
 * int(num_position_embeddings ** 0.5); rows past side^2 are never read. */
static int read_table(map_ctx *c, const cJSON *vc, pecert_certify_vision *v)
{
    int32_t n = 2304;
    if (cfg_read_int32(c, vc, "num_position_embeddings", 1, 1 << 24, &n) < 0) {
        return -1;
    }
    int32_t side = cfg_square_side(n);
    if ((int64_t)side * side != n) {
        cfg_warn(c, "num_position_embeddings", "%d is not a square: Qwen3VLVisionModel reads the first %d x %d = %d "
                 "rows (int(sqrt)) and never the other %d", n, side, side, side * side, n - side * side);
    }
    v->table_side = side;
    return 0;
}

/* SigLIP 2's table: position_embedding_size = int(num_patches ** 0.5) a
 * side, which resize_positional_embeddings reshapes the table to (a table
 * of another size fails there: the class cannot run). */
int cfg_read_patch_table(map_ctx *c, const cJSON *obj, int32_t *side)
{
    int32_t n = 256;
    if (cfg_read_int32(c, obj, "num_patches", 1, 1 << 24, &n) < 0) {
        return -1;
    }
    *side = cfg_square_side(n);
    if ((int64_t)*side * *side != n) {
        return cfg_fail(c, "num_patches", "%d is not a square: Siglip2VisionEmbeddings views its table as "
                        "int(sqrt(%d)) = %d rows of %d, which fails", n, n, *side, *side);
    }
    return 0;
}

/* The tower's fields into c->m->vision (vc NULL: the class defaults). */
static int map_tower(map_ctx *c, const cJSON *vc, const vision_rule *rule)
{
    pecert_certify_vision *v = &c->m->vision;
    if (cfg_reject_unknown_positional(c, vc, rule->positional, "") != 0 || read_width(c, vc, rule, v) != 0 ||
        read_grid_keys(c, vc, rule, v) != 0) {
        return -1;
    }
    snprintf(v->tower, sizeof(v->tower), "%s", rule->tower);
    v->scheme = rule->scheme;
    v->frequencies = rule->frequencies;
    v->columns_first = rule->columns_first;
    v->pairing = rule->pairing;
    v->fixed_image = rule->fixed_image;
    v->rotary = !rule->table_only;
    v->table_merge = 1;
    if (rule->positional == qwen3_positional) { /* Qwen3-VL's learned table */
        if (read_table(c, vc, v) != 0) {
            return -1;
        }
        v->table_mode = PECERT_POSINTERP_BILINEAR;
        v->table_align_corners = 1;
        v->table_merge = v->spatial_merge_size;
    } else if (rule->table_from_patches) {
        if (cfg_read_patch_table(c, vc, &v->table_side) != 0) {
            return -1;
        }
        v->table_mode = PECERT_POSINTERP_BILINEAR;
        v->table_antialias = 1;
    } else if (rule->table_only) {
        v->table_side = v->image_size / v->patch_size; /* floored, as the patch convolution and num_patches */
        v->table_prefix = rule->table_prefix;
        v->table_mode = rule->table_bilinear ? PECERT_POSINTERP_BILINEAR : PECERT_POSINTERP_BICUBIC;
        v->table_antialias = rule->table_antialias;
    }
    if (read_attention_windows(c, vc, rule, v) != 0) {
        return -1;
    }
    if (rule->warning != NULL) {
        cfg_warn(c, rule->warn_key, "%s", rule->warning);
    }
    default_grids(v);
    return fit_default_grids(c, v);
}

int cfg_map_vision(map_ctx *c, const char *model_type)
{
    const vision_rule *rule = find_rule(model_type);
    memset(&c->m->vision, 0, sizeof(c->m->vision));
    if (rule == NULL) {
        return 0; /* a note the text model's mapping left (a tower it names) stays */
    }
    c->m->vision_note[0] = '\0';
    c->m->audio_tower = 0;
    /* Absent: the config class's defaults (the reads see no key). The ViT
     * family's fields are the config's own. */
    const int own_fields = (rule->table_only && !rule->in_vision_config) || rule->own_config;
    const cJSON *vc = own_fields ? c->doc : cfg_get(c->doc, "vision_config");
    const cJSON *saved_root = c->root;
    const char *saved_prefix = c->key_prefix;
    c->root = c->doc;
    c->key_prefix = "";
    int is_tower = 0;
    int rc = vc != NULL && !cJSON_IsObject(vc) ? cfg_fail(c, "vision_config", "expected an object (the vision "
                                                                             "tower's fields)")
                                               : 0;
    c->key_prefix = own_fields ? "" : "vision_config.";
    rc = rc == 0 ? check_tower_type(c, vc, rule, &is_tower) : rc;
    if (rc == 0 && is_tower) {
        rc = map_tower(c, vc, rule);
    }
    c->root = saved_root;
    c->key_prefix = saved_prefix;
    return rc;
}

/* A 2-D RoPE tower that is the checkpoint (model_type pixtral): the
 * tower's mapping is the model's, certified as the vision pass is. */
int cfg_map_rope2d_tower(map_ctx *c)
{
    if (cfg_map_vision(c, c->m->model_type) != 0) {
        return -1;
    }
    pecert_certify_model *m = c->m;
    m->kind = PECERT_PE_ROPE2D;
    m->num_heads = m->vision.num_heads;
    m->num_kv_heads = m->vision.num_heads;
    m->head_dim = m->vision.head_dim;
    return 0;
}

/* ---- image grids from the command line ------------------------------------- */

static int parse_image(const char *spec, int64_t *h, int64_t *w)
{
    char *end = NULL;
    long long a = strtoll(spec, &end, 10);
    if (end == spec || (*end != 'x' && *end != 'X') || a < 1) {
        return -1;
    }
    const char *second = end + 1;
    long long b = strtoll(second, &end, 10);
    if (end == second || *end != '\0' || b < 1 || a > (1 << 20) || b > (1 << 20)) {
        return -1;
    }
    *h = a;
    *w = b;
    return 0;
}

/* The grid of one h x w pixel image, or -1 with the rule it breaks. */
static int image_grid(const pecert_certify_vision *v, int64_t h, int64_t w, int64_t grid[3], char *why, size_t len)
{
    if (!v->rotary) { /* the patch convolution floors: height // patch_size, as the resize does */
        if (h < v->patch_size || w < v->patch_size) {
            snprintf(why, len, "each side must be at least patch_size %d pixels", v->patch_size);
            return -1;
        }
        grid[0] = 1;
        grid[1] = h / v->patch_size;
        grid[2] = w / v->patch_size;
        return 0;
    }
    int64_t unit = (int64_t)v->patch_size * (in_merge_windows(v) ? v->spatial_merge_size : 1);
    int64_t side = v->image_size > 0 ? v->image_size / v->patch_size * v->patch_size : 0;
    if (v->fixed_image && (h != v->image_size || w != v->image_size)) {
        snprintf(why, len, "%s tiles every image to %d x %d (its rotary table is built for that grid alone)",
                 rule_tower_of(v), v->image_size, v->image_size);
        return -1;
    }
    if (v->fixed_image) { /* the tile: image_size // patch_size a side, as the model floors it */
        grid[0] = 1;
        grid[1] = grid[2] = v->image_size / v->patch_size;
        return 0;
    }
    if (h % unit != 0 || w % unit != 0) {
        snprintf(why, len, "each side must be a multiple of %lld pixels (patch_size %d%s)", (long long)unit,
                 v->patch_size, in_merge_windows(v) ? " x spatial_merge_size" : "");
        return -1;
    }
    if (side > 0 && (h > side || w > side)) {
        snprintf(why, len, "each side must be at most %lld pixels (image_size / patch_size patches: the rotary "
                 "table's side)", (long long)side);
        return -1;
    }
    grid[0] = 1;
    grid[1] = h / v->patch_size;
    grid[2] = w / v->patch_size;
    return 0;
}

int pecert_certify_set_images(pecert_certify_model *m, const char *const *specs, int n, char *err, size_t err_len)
{
    pecert_certify_vision *v = &m->vision;
    if (v->tower[0] == '\0') {
        snprintf(err, err_len, "--image: %s has no vision tower pecert certifies%s%s", m->name,
                 m->vision_note[0] != '\0' ? " (" : "", m->vision_note[0] != '\0' ? m->vision_note : "");
        if (m->vision_note[0] != '\0') {
            snprintf(err + strlen(err), err_len - strlen(err), ")");
        }
        return -1;
    }
    if (n < 1 || n > PECERT_CERTIFY_MAX_IMAGES) {
        snprintf(err, err_len, "--image: %d images; 1 to %d", n, PECERT_CERTIFY_MAX_IMAGES);
        return -1;
    }
    int64_t grids[PECERT_CERTIFY_MAX_IMAGES][3];
    int64_t patches = 0;
    for (int i = 0; i < n; i++) {
        int64_t h = 0;
        int64_t w = 0;
        char why[192];
        if (parse_image(specs[i], &h, &w) != 0) {
            snprintf(err, err_len, "--image '%s': expected HEIGHTxWIDTH in pixels (e.g. 448x448)", specs[i]);
            return -1;
        }
        if (image_grid(v, h, w, grids[i], why, sizeof(why)) != 0) {
            snprintf(err, err_len, "--image '%s': %s", specs[i], why);
            return -1;
        }
        patches += grids[i][1] * grids[i][2];
    }
    if (patches > PECERT_CERTIFY_MAX_PATCHES) {
        snprintf(err, err_len, "--image: %lld patches in all; at most %lld per run", (long long)patches,
                 (long long)PECERT_CERTIFY_MAX_PATCHES);
        return -1;
    }
    v->n_images = n;
    memcpy(v->grid_thw, grids, (size_t)n * sizeof(grids[0]));
    snprintf(v->images_from, sizeof(v->images_from), "--image");
    return 0;
}

/* The tower left out: its warnings go with it. */
void pecert_certify_leave_out_vision(pecert_certify_model *m, const char *why)
{
    if (m->vision.tower[0] == '\0') {
        return;
    }
    snprintf(m->vision_note, sizeof(m->vision_note), "%s (%s): left out by %s, not certified", m->vision.tower,
             rule_tower_of(&m->vision), why);
    m->vision.tower[0] = '\0';
    int kept = 0;
    for (int i = 0; i < m->n_warnings; i++) {
        if (strncmp(m->warnings[i], "vision_config.", 14) != 0) {
            memmove(m->warnings[kept++], m->warnings[i], sizeof(m->warnings[0]));
        }
    }
    m->n_warnings = kept;
}

void pecert_certify_vision_model(pecert_certify_model *out, const pecert_certify_model *m)
{
    *out = *m;
    out->kind = PECERT_PE_ROPE2D;
    out->num_heads = m->vision.num_heads;
    out->num_kv_heads = m->vision.num_heads;
    out->head_dim = m->vision.head_dim;
    out->n_layer_types = 0;
    pecert_certify_point_factors(out);
}

/* ---- the description ------------------------------------------------------ */

static size_t put(char *out, size_t len, size_t used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static size_t put(char *out, size_t len, size_t used, const char *fmt, ...)
{
    if (used + 1 >= len) {
        return used;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + used, len - used, fmt, ap);
    va_end(ap);
    return n > 0 ? used + ((size_t)n < len - used ? (size_t)n : len - used - 1) : used;
}

static const char *scheme_words(const pecert_certify_vision *v)
{
    return v->scheme == PECERT_ROPE2D_MERGE_WINDOWS       ? "merge windows (rot_pos_emb)"
           : v->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS ? "attention windows of merge windows (rot_pos_emb, "
                                                            "get_window_index)"
           : v->scheme == PECERT_ROPE2D_ROW_MAJOR         ? "row-major (position_ids_in_meshgrid)"
                                                          : "row-major from (1, 1), class token at (0, 0)";
}

void pecert_certify_table_words(char *out, size_t len, const pecert_certify_vision *v)
{
    snprintf(out, len, "%s, %s%s, %s", v->table_mode == PECERT_POSINTERP_BICUBIC ? "bicubic" : "bilinear",
             v->table_align_corners ? "corners to corners" : "half-pixel centres",
             v->table_antialias ? ", antialiased" : "", v->table_merge > 1 ? "in merge-window order" : "row-major");
}

/* A tower whose only position code is its table (the ViT family). */
static size_t describe_table_tower(char *out, size_t len, size_t used, const pecert_certify_vision *v)
{
    used = put(out, len, used, "  %-34s %s (%s), a learned position table resized to each image\n", "vision tower",
               v->tower, rule_tower_of(v));
    if (v->image_size == 0) { /* SigLIP 2: any grid of patches, the table a square of num_patches */
        return put(out, len, used, "  %-34s patch %d px, no native image (a table of %d x %d patches)",
                   "vision patches", v->patch_size, v->table_side, v->table_side);
    }
    return put(out, len, used, "  %-34s patch %d px, native image %d px (%d x %d patches)", "vision patches",
               v->patch_size, v->image_size, v->table_side, v->table_side);
}

/* A tower that turns by a 2-D RoPE: its heads, rotation and patch order. */
static size_t describe_rotary_tower(char *out, size_t len, size_t used, const pecert_certify_vision *v)
{
    used = put(out, len, used, "  %-34s %s (%s), 2-D RoPE\n", "vision tower", v->tower, rule_tower_of(v));
    used = put(out, len, used, "  %-34s %d heads of %d (hidden %d), theta %g\n", "vision heads", v->num_heads,
               v->head_dim, v->hidden_size, v->theta);
    used = put(out, len, used, "  %-34s %s, %s first, %s pairs\n", "vision rotation",
               v->frequencies == PECERT_ROPE2D_BLOCKS ? "frequencies in blocks" : "frequencies alternating",
               v->columns_first ? "columns" : "rows", pecert_rope_pairing_name(v->pairing));
    used = put(out, len, used, "  %-34s %s; patch %d px", "vision patch order", scheme_words(v), v->patch_size);
    if (in_merge_windows(v)) {
        used = put(out, len, used, ", windows of %d x %d, %d frames per temporal patch", v->spatial_merge_size,
                   v->spatial_merge_size, v->temporal_patch_size);
    }
    if (v->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS) {
        used = put(out, len, used, ", attention windows of %d x %d merge windows (window_size %d px)",
                   v->window_units, v->window_units, v->window_size);
    }
    if (v->image_size > 0) {
        used = put(out, len, used, ", %s %d px", v->fixed_image ? "tiles of" : "images up to", v->image_size);
    }
    return used;
}

size_t cfg_describe_vision(char *out, size_t len, size_t used, const pecert_certify_model *m)
{
    const pecert_certify_vision *v = &m->vision;
    if (v->tower[0] == '\0') {
        /* A speech model's encoder (certify_wrappers.c) is noted here too. */
        return m->vision_note[0] != '\0' ? put(out, len, used, "  %-34s %s\n",
                                               m->audio_tower ? "audio tower" : "vision tower",
                                               m->vision_note)
                                         : used;
    }
    if (!v->rotary) {
        used = describe_table_tower(out, len, used, v);
    } else {
        used = describe_rotary_tower(out, len, used, v);
    }
    if (v->table_side > 0) {
        char how[128];
        pecert_certify_table_words(how, sizeof(how), v);
        used = put(out, len, used, "\n  %-34s %d x %d rows of %d", "vision position table", v->table_side,
                   v->table_side, v->hidden_size);
        if (v->table_prefix > 0) {
            used = put(out, len, used, " after %d %s", v->table_prefix,
                       v->table_prefix == 1 ? "class row" : "class and distillation rows");
        }
        used = put(out, len, used, ", resized to each image %s", how);
    }
    used = put(out, len, used, "\n  %-34s", "vision grids certified");
    for (int i = 0; i < v->n_images; i++) {
        used = put(out, len, used, "%s%lldx%lldx%lld", i == 0 ? " " : ", ", (long long)v->grid_thw[i][0],
                   (long long)v->grid_thw[i][1], (long long)v->grid_thw[i][2]);
    }
    return put(out, len, used, " (frames x rows x columns of patches; %s)\n", v->images_from);
}
