/*
 * check_certify_vision.c - the vision towers of multimodal checkpoints in
 * `pecert certify`: vision_config mapped as transformers v4.57.6's vision
 * config classes and towers read it, the @vision pass, --image grids.
 *
 * mapping: each tower's width key and defaults (Qwen2-VL's embed_dim, not
 *          its merger's hidden_size; Qwen2.5-VL's class default 3584;
 *          Pixtral's head_dim key overwritten; Llama 4's defaults 768 and
 *          448), its conventions, and the refusals naming the key.
 * images:  --image grids as the towers' processors produce them, refused
 *          with the rule they break.
 * run:     the @vision pass certifies ref and fast, names the real bugs the
 *          rope2d and posinterp mutants carry, and certify.mapping catches a
 *          tower read with the wrong width.
 * ViT:     the ViT family (vit, deit, dinov2, dinov2_with_registers) is its
 *          own tower: a learned table resized to each image, no rotation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "certificate.h"
#include "certify_config.h"
#include "certify_passes.h"
#include "runner.h"
#include "suites.h"

static pecert_certify_model model;
static char err[1024];

#define parse_ok(json) test_certify_parse_ok(&model, json, err, sizeof(err))
#define parse_fails_naming(json, key) test_certify_parse_fails_naming(&model, json, key, err, sizeof(err))
#define warned_about(key) test_certify_warned_about(&model, key)

/* Qwen2-VL as released: text fields at the top, vision_config beside. */
#define QWEN2_VL(vision)                                                                               \
    "{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, \"num_attention_heads\": 28,"               \
    " \"num_key_value_heads\": 4, \"max_position_embeddings\": 32768, \"rope_theta\": 1000000.0,"       \
    " \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, 24]}" vision "}"
#define QWEN2_5_VL(vision)                                                                             \
    "{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 3584, \"num_attention_heads\": 28,"             \
    " \"num_key_value_heads\": 4, \"max_position_embeddings\": 128000, \"rope_theta\": 1000000.0,"      \
    " \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, 24]}" vision "}"
#define PIXTRAL(vision)                                                                                \
    "{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"mistral\", \"hidden_size\": 5120,"  \
    " \"head_dim\": 128, \"num_attention_heads\": 32, \"num_key_value_heads\": 8,"                      \
    " \"max_position_embeddings\": 1024000, \"rope_theta\": 1000000000.0}" vision "}"
#define LLAMA4(vision)                                                                                 \
    "{\"model_type\": \"llama4\", \"text_config\": {\"model_type\": \"llama4_text\","                  \
    " \"hidden_size\": 5120, \"num_attention_heads\": 40, \"num_key_value_heads\": 8, \"head_dim\": 128," \
    " \"num_hidden_layers\": 4, \"max_position_embeddings\": 1048576, \"rope_theta\": 500000.0}"       \
    vision "}"

#define QWEN3_VL(vision)                                                                               \
    "{\"model_type\": \"qwen3_vl\", \"text_config\": {\"model_type\": \"qwen3_vl_text\", \"hidden_size\": 2560," \
    " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"max_position_embeddings\": 262144,"         \
    " \"rope_scaling\": {\"rope_type\": \"default\"}}" vision "}"
/* The ViT family's widths (pecert requires them; ViT-Base's). */
#define HEADS ", \"hidden_size\": 768, \"num_attention_heads\": 12"
#define LLAMA_TEXT                                                                                     \
    "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"                   \
    " \"max_position_embeddings\": 4096}"

/* ---- mapping ------------------------------------------------------------- */

START_TEST(qwen_towers_read_their_own_width)
{
    /* Qwen2VisionTransformerPretrainedModel: embed_dim / num_heads; the
     * vision hidden_size (3584) is the patch merger's output. */
    parse_ok(QWEN2_VL(", \"vision_config\": {\"embed_dim\": 1280, \"hidden_size\": 3584, \"num_heads\": 16,"
                      " \"patch_size\": 14, \"spatial_merge_size\": 2, \"temporal_patch_size\": 2}"));
    ck_assert_str_eq(model.vision.tower, "qwen2_vl");
    ck_assert_int_eq(model.vision.head_dim, 80);
    ck_assert_int_eq(model.vision.scheme, PECERT_ROPE2D_MERGE_WINDOWS);
    ck_assert_int_eq(model.vision.spatial_merge_size, 2);
    ck_assert_int_eq(model.vision.frequencies, PECERT_ROPE2D_BLOCKS);
    ck_assert_int_eq(model.vision.columns_first, 0);
    ck_assert_int_eq(model.vision.pairing, PECERT_PAIRING_SPLIT_HALF);
    ck_assert_double_eq(model.vision.theta, 10000.0);
    /* Absent vision_config: Qwen2VLConfig builds the default tower. */
    parse_ok(QWEN2_VL(""));
    ck_assert_int_eq(model.vision.head_dim, 80);
    /* Qwen2.5-VL: hidden_size / num_heads, its class default 3584. */
    parse_ok(QWEN2_5_VL(", \"vision_config\": {\"hidden_size\": 1280, \"num_heads\": 16, \"window_size\": 112}"));
    ck_assert_int_eq(model.vision.head_dim, 80);
    /* Its attention windows: get_window_index's window_size //
     * spatial_merge_size // patch_size merge units a side, floored. */
    ck_assert_int_eq(model.vision.scheme, PECERT_ROPE2D_ATTENTION_WINDOWS);
    ck_assert_int_eq(model.vision.window_units, 4);
    ck_assert_int_eq(model.n_warnings, 0);
    parse_ok(QWEN2_5_VL(", \"vision_config\": {\"window_size\": 111}"));
    ck_assert_int_eq(model.vision.window_units, 3); /* 111 // 2 // 14 */
    parse_ok(QWEN2_5_VL(""));
    ck_assert_int_eq(model.vision.head_dim, 224);
    /* Qwen3-VL: hidden_size (default 1152) / num_heads, patch 16, and a
     * learned table of num_position_embeddings rows. */
    parse_ok(QWEN3_VL(", \"vision_config\": {\"model_type\": \"qwen3_vl\", \"hidden_size\": 1024, \"num_heads\": 16,"
                      " \"num_position_embeddings\": 2304}"));
    ck_assert_int_eq(model.vision.head_dim, 64);
    ck_assert_int_eq(model.vision.patch_size, 16);
    ck_assert_int_eq(model.vision.table_side, 48); /* num_grid_per_side = int(2304 ** 0.5) */
    ck_assert_int_eq(model.n_warnings, 0);
    parse_ok(QWEN3_VL(", \"vision_config\": {\"num_position_embeddings\": 2400}"));
    ck_assert_int_eq(model.vision.table_side, 48); /* int(sqrt(2400)): 96 rows never read */
    ck_assert(warned_about("vision_config.num_position_embeddings"));
    parse_ok(QWEN2_VL(""));
    ck_assert_int_eq(model.vision.table_side, 0); /* Qwen2-VL has no learned table */
}
END_TEST

/* The ViT family is its own tower: the config's own fields, a table of
 * (image_size / patch_size)^2 rows after its class row (DeiT: and its
 * distillation row), resized bicubic with half-pixel centres, antialiased
 * for DINOv2 with registers (interpolate_pos_encoding of each embeddings
 * class); Dinov2Config's patch_size default is 14, the others' 16. */
START_TEST(vit_family_is_its_own_tower)
{
    static const struct {
        const char *json;
        int32_t patch, side, prefix, antialias;
    } cases[] = {
        {"{\"model_type\": \"vit\", \"image_size\": 384" HEADS "}", 16, 24, 1, 0},
        {"{\"model_type\": \"deit\"" HEADS "}", 16, 14, 2, 0},
        {"{\"model_type\": \"dinov2\"" HEADS "}", 14, 16, 1, 0},
        {"{\"model_type\": \"dinov2\", \"image_size\": 518, \"patch_size\": 14" HEADS "}", 14, 37, 1, 0},
        {"{\"model_type\": \"dinov2_with_registers\"" HEADS "}", 16, 14, 1, 1},
        /* InternVLVisionConfig: [h, w] pairs, 448 / 14 by default. */
        {"{\"model_type\": \"internvl_vision\"" HEADS "}", 14, 32, 1, 0},
        {"{\"model_type\": \"internvl_vision\", \"image_size\": [224, 224], \"patch_size\": [16, 16]" HEADS "}",
         16, 14, 1, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        parse_ok(cases[i].json);
        const pecert_certify_vision *v = &model.vision;
        ck_assert_msg(v->table_side == cases[i].side && v->patch_size == cases[i].patch, "%s: side %d, patch %d",
                      cases[i].json, v->table_side, v->patch_size);
        ck_assert_int_eq(v->rotary, 0);
        ck_assert_int_eq(v->table_prefix, cases[i].prefix);
        ck_assert_int_eq(v->table_antialias, cases[i].antialias);
        ck_assert_int_eq(v->table_mode, PECERT_POSINTERP_BICUBIC);
        ck_assert_int_eq(v->table_align_corners, 0);
        ck_assert_int_eq(v->table_merge, 1);
        ck_assert_int_eq(model.learned_rows, (int64_t)cases[i].side * cases[i].side + cases[i].prefix);
        /* The native image first: the table as it is. */
        ck_assert(v->grid_thw[0][1] == cases[i].side && v->grid_thw[0][2] == cases[i].side);
        ck_assert_int_eq(model.n_warnings, 0);
    }
    /* The patch convolution floors (ViTPatchEmbeddings: num_patches =
     * (image_size // patch_size)^2): 225 px are 14 patches of 16. */
    parse_ok("{\"model_type\": \"vit\", \"image_size\": 225" HEADS "}");
    ck_assert_int_eq(model.vision.table_side, 14);
    ck_assert_int_eq(model.learned_rows, 14 * 14 + 1);
    parse_fails_naming("{\"model_type\": \"vit\", \"image_size\": 8" HEADS "}", "patch_size");
    parse_fails_naming("{\"model_type\": \"dinov2\", \"patch_size\": 0" HEADS "}", "patch_size");
    /* A pair must be square (the table is resized as a square grid), and
     * without its absolute table InternVL's tower has no positions. */
    parse_fails_naming("{\"model_type\": \"internvl_vision\", \"image_size\": [448, 336]" HEADS "}", "image_size");
    parse_fails_naming("{\"model_type\": \"internvl_vision\", \"patch_size\": [14]" HEADS "}", "patch_size");
    parse_fails_naming("{\"model_type\": \"internvl_vision\", \"use_absolute_position_embeddings\": false" HEADS "}",
                       "use_absolute_position_embeddings");
}
END_TEST

/* SigLIP 2 (NaFlex): no image_size; Siglip2VisionEmbeddings'
 * position_embedding_size = int(num_patches ** 0.5), the table resized to
 * every image bilinear with antialias (resize_positional_embeddings), no
 * class row; a table that is not a square fails its view. The dual
 * encoder reads its text model's 64 rows beside the same tower. */
START_TEST(siglip2_tables_come_from_num_patches)
{
    parse_ok("{\"model_type\": \"siglip2_vision_model\", \"num_patches\": 576, \"patch_size\": 16" HEADS "}");
    const pecert_certify_vision *v = &model.vision;
    ck_assert_int_eq(v->table_side, 24);
    ck_assert_int_eq(v->table_prefix, 0);
    ck_assert_int_eq(v->table_mode, PECERT_POSINTERP_BILINEAR);
    ck_assert_int_eq(v->table_antialias, 1);
    ck_assert_int_eq(v->table_align_corners, 0);
    ck_assert_int_eq(model.learned_rows, 576);
    ck_assert(v->grid_thw[0][1] == 24 && v->grid_thw[0][2] == 24);
    parse_fails_naming("{\"model_type\": \"siglip2_vision_model\", \"num_patches\": 250" HEADS "}", "num_patches");
    parse_ok("{\"model_type\": \"siglip2\", \"text_config\": {\"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 64}, \"vision_config\": {\"num_patches\": 1024}}");
    ck_assert_int_eq(model.learned_rows, 64);
    ck_assert_int_eq(model.vision.table_side, 32);
    ck_assert_int_eq(model.vision.table_antialias, 1);
}
END_TEST

START_TEST(pixtral_and_llama4_towers_map)
{
    parse_ok(PIXTRAL(", \"vision_config\": {\"model_type\": \"pixtral\", \"head_dim\": 64, \"image_size\": 1024,"
                     " \"patch_size\": 16, \"rope_theta\": 10000.0}"));
    ck_assert_int_eq(model.kind, PECERT_PE_ROPE);
    ck_assert_int_eq(model.rope.head_dim, 128);
    ck_assert_str_eq(model.vision.tower, "pixtral");
    ck_assert_int_eq(model.vision.head_dim, 64);
    ck_assert_int_eq(model.vision.scheme, PECERT_ROPE2D_ROW_MAJOR);
    ck_assert_int_eq(model.vision.frequencies, PECERT_ROPE2D_ALTERNATE);
    ck_assert_int_eq(model.vision.image_size, 1024);
    ck_assert_int_eq(model.n_warnings, 0);
    /* PixtralVisionConfig overwrites a head_dim key by hidden / heads. */
    parse_ok(PIXTRAL(", \"vision_config\": {\"model_type\": \"pixtral\", \"head_dim\": 72, \"hidden_size\": 1024}"));
    ck_assert_int_eq(model.vision.head_dim, 64);
    ck_assert(warned_about("vision_config.head_dim"));
    /* LLaVA with a CLIP tower (or LlavaConfig's default): no 2-D RoPE. */
    parse_ok(PIXTRAL(", \"vision_config\": {\"model_type\": \"clip_vision_model\"}"));
    ck_assert_str_eq(model.vision.tower, "");
    ck_assert_ptr_nonnull(strstr(model.vision_note, "clip_vision_model"));
    parse_ok(PIXTRAL(""));
    ck_assert_ptr_nonnull(strstr(model.vision_note, "LlavaConfig's default"));
    /* Llama 4: hidden 1408 / 16 = 88, tiles of 336, columns first, the
     * class token, complex-multiply pairs. */
    parse_ok(LLAMA4(", \"vision_config\": {\"model_type\": \"llama4_vision_model\", \"hidden_size\": 1408,"
                    " \"num_attention_heads\": 16, \"image_size\": 336, \"patch_size\": 14, \"rope_theta\": 10000}"));
    ck_assert_int_eq(model.vision.head_dim, 88);
    ck_assert_int_eq(model.vision.scheme, PECERT_ROPE2D_ROW_MAJOR_CLS);
    ck_assert_int_eq(model.vision.columns_first, 1);
    ck_assert_int_eq(model.vision.pairing, PECERT_PAIRING_INTERLEAVED);
    ck_assert_int_eq(model.vision.fixed_image, 1);
    ck_assert_int_eq(model.vision.n_images, 2);
    ck_assert_int_eq(model.vision.grid_thw[0][1], 24);
    parse_ok(LLAMA4(""));
    ck_assert_int_eq(model.vision.head_dim, 48); /* Llama4VisionConfig's 768 / 16 */
    ck_assert_int_eq(model.vision.image_size, 448);
    /* Pixtral's tower as the checkpoint (model_type pixtral): the model is
     * the tower, its fields at the top, a head_dim key overwritten too. */
    parse_ok("{\"model_type\": \"pixtral\", \"hidden_size\": 1024, \"num_attention_heads\": 16, \"head_dim\": 72,"
             " \"image_size\": 1024, \"patch_size\": 16, \"rope_theta\": 10000.0}");
    ck_assert_int_eq(model.kind, PECERT_PE_ROPE2D);
    ck_assert_str_eq(model.vision.tower, "pixtral");
    ck_assert_int_eq(model.vision.head_dim, 64);
    ck_assert_int_eq(model.head_dim, 64);
    ck_assert(warned_about("head_dim"));
    parse_fails_naming("{\"model_type\": \"pixtral\", \"rope_theta\": -1}", "rope_theta");
    /* MLCD's tower as the checkpoint: Qwen2-VL's frequencies (blocks) in
     * Pixtral's row-major order, 1664 / 16 = 104 a head, theta fixed (a
     * rope_theta key is another model's), the class token's learned
     * angles warned; 336 / 14 = 24 patches a side. */
    parse_ok("{\"model_type\": \"mlcd_vision_model\"}");
    ck_assert_int_eq(model.kind, PECERT_PE_ROPE2D);
    ck_assert_int_eq(model.vision.scheme, PECERT_ROPE2D_ROW_MAJOR);
    ck_assert_int_eq(model.vision.frequencies, PECERT_ROPE2D_BLOCKS);
    ck_assert_int_eq(model.vision.pairing, PECERT_PAIRING_SPLIT_HALF);
    ck_assert_int_eq(model.vision.head_dim, 104);
    ck_assert_int_eq(model.vision.grid_thw[0][1], 24);
    ck_assert(warned_about("hidden_size"));
    parse_fails_naming("{\"model_type\": \"mlcd_vision_model\", \"rope_theta\": 10000}", "rope_theta");
    /* No tower read for a text-only checkpoint. */
    parse_ok(LLAMA_TEXT);
    ck_assert_str_eq(model.vision.tower, "");
    ck_assert_str_eq(model.vision_note, "");
}
END_TEST

/* Fixed grids (certify_fixed_tables.c): the rows are the grid's patches
 * after the class rows, worked out from the classes' own formulas: AST's
 * (128 - 16) // 10 + 1 = 12 by (1024 - 16) // 10 + 1 = 101, + 2; EoMT's
 * (640 / 16)^2; MGP-STR's (32 / 4) x (128 / 4) + 1; AIMv2's (224 / 14)^2. */
START_TEST(fixed_tables_count_their_grid)
{
    parse_ok("{\"model_type\": \"audio-spectrogram-transformer\"}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    ck_assert_int_eq(model.learned_rows, 12 * 101 + 2);
    parse_ok("{\"model_type\": \"audio-spectrogram-transformer\", \"frequency_stride\": 12, \"time_stride\": 12}");
    ck_assert_int_eq(model.learned_rows, 10 * 85 + 2);
    parse_ok("{\"model_type\": \"eomt\"}");
    ck_assert_int_eq(model.learned_rows, 1600);
    ck_assert(warned_about("num_register_tokens"));
    parse_fails_naming("{\"model_type\": \"eomt\", \"image_size\": [640, 512]}", "image_size");
    parse_ok("{\"model_type\": \"mgp-str\"}");
    ck_assert_int_eq(model.learned_rows, 8 * 32 + 1);
    parse_ok("{\"model_type\": \"mgp-str\", \"image_size\": [32, 100]}");
    ck_assert_int_eq(model.learned_rows, 8 * 25 + 1);
    parse_fails_naming("{\"model_type\": \"mgp-str\", \"distilled\": true}", "distilled");
    parse_ok("{\"model_type\": \"aimv2_vision_model\"}");
    ck_assert_int_eq(model.learned_rows, 256);
    ck_assert_int_eq(model.learned_dim, 1024);
    parse_fails_naming("{\"model_type\": \"aimv2_vision_model\", \"is_native\": true}", "is_native");
    /* DPT: ViT's table, resized on every image bilinear with half-pixel
     * centres; its hybrid and backbone variants are other models. */
    parse_ok("{\"model_type\": \"dpt\", \"hidden_size\": 1024, \"num_attention_heads\": 16}");
    ck_assert_int_eq(model.learned_rows, 24 * 24 + 1);
    ck_assert_int_eq(model.vision.table_mode, PECERT_POSINTERP_BILINEAR);
    ck_assert_int_eq(model.vision.table_align_corners, 0);
    parse_fails_naming("{\"model_type\": \"dpt\", \"hidden_size\": 768, \"num_attention_heads\": 12, \"is_hybrid\": true}",
                       "is_hybrid");
    parse_fails_naming("{\"model_type\": \"dpt\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"backbone_config\": {\"model_type\": \"dinov2\"}}",
                       "backbone_config");
    /* ViT-MAE: ViT's table and resize, its random masking warned. */
    parse_ok("{\"model_type\": \"vit_mae\", \"hidden_size\": 768, \"num_attention_heads\": 12}");
    ck_assert_int_eq(model.learned_rows, 14 * 14 + 1);
    ck_assert_int_eq(model.vision.table_mode, PECERT_POSINTERP_BICUBIC);
    ck_assert(warned_about("mask_ratio"));
    /* ViViT: (32 / 2) x (224 / 16)^2 tubelets after the class row. */
    parse_ok("{\"model_type\": \"vivit\"}");
    ck_assert_int_eq(model.learned_rows, 16 * 14 * 14 + 1);
    parse_ok("{\"model_type\": \"vivit\", \"num_frames\": 16, \"tubelet_size\": [4, 16, 16]}");
    ck_assert_int_eq(model.learned_rows, 4 * 14 * 14 + 1);
    parse_fails_naming("{\"model_type\": \"vivit\", \"tubelet_size\": [2, 16]}", "tubelet_size");
    /* ViT-hybrid: the feature map's 24 x 24 (backbone_featmap_shape), not
     * the image's 224 / 1, after the class row; patch_size 2 halves each
     * side. */
    parse_ok("{\"model_type\": \"vit-hybrid\"}");
    ck_assert_int_eq(model.learned_rows, 24 * 24 + 1);
    ck_assert(warned_about("backbone_featmap_shape"));
    parse_ok("{\"model_type\": \"vit-hybrid\", \"backbone_featmap_shape\": [1, 1024, 12, 16], \"patch_size\": 2}");
    ck_assert_int_eq(model.learned_rows, 6 * 8 + 1);
    parse_fails_naming("{\"model_type\": \"vit-hybrid\", \"backbone_featmap_shape\": [1, 1024, 24]}",
                       "backbone_featmap_shape");
    /* Hiera: image_size / patch_stride, (224 / 4)^2, no class row, embed_dim
     * wide; patch_size (the kernel, 7) sizes nothing. */
    parse_ok("{\"model_type\": \"hiera\", \"patch_size\": [7, 7], \"num_heads\": [1, 2, 4, 8]}");
    ck_assert_int_eq(model.learned_rows, 56 * 56);
    ck_assert_int_eq(model.learned_dim, 96);
    parse_ok("{\"model_type\": \"hiera\", \"image_size\": [256, 256], \"patch_stride\": [8, 8], "
             "\"embed_dim\": 112, \"num_heads\": [2, 4]}");
    ck_assert_int_eq(model.learned_rows, 32 * 32);
    ck_assert_int_eq(model.learned_dim, 112);
    ck_assert_int_eq(model.num_heads, 2);
    parse_fails_naming("{\"model_type\": \"hiera\", \"num_heads\": 2}", "num_heads");
    /* PVT: stage 1's table, (224 // patch_sizes[0] 4)^2 rows of
     * hidden_sizes[0] 64, heads num_attention_heads[0]; the other stages
     * warned. */
    parse_ok("{\"model_type\": \"pvt\"}");
    ck_assert_int_eq(model.learned_rows, 56 * 56);
    ck_assert_int_eq(model.learned_dim, 64);
    ck_assert(warned_about("num_encoder_blocks"));
    parse_ok("{\"model_type\": \"pvt\", \"image_size\": 512, \"patch_sizes\": [8, 2, 2, 2], "
             "\"hidden_sizes\": [96, 192, 384, 768], \"num_attention_heads\": [2, 4, 8, 16]}");
    ck_assert_int_eq(model.learned_rows, 64 * 64);
    ck_assert_int_eq(model.learned_dim, 96);
    ck_assert_int_eq(model.num_heads, 2);
    parse_fails_naming("{\"model_type\": \"pvt\", \"hidden_sizes\": 64}", "hidden_sizes");
    parse_fails_naming("{\"model_type\": \"pvt\", \"hidden_sizes\": [64], \"num_attention_heads\": [3]}",
                       "hidden_sizes");
    /* YOLOS: the class row, (512 / 16) x (864 / 16) patches, 100 detection
     * rows after them; the resize to each image and the mid tables warned. */
    parse_ok("{\"model_type\": \"yolos\"}");
    ck_assert_int_eq(model.learned_rows, 1 + 32 * 54 + 100);
    ck_assert(warned_about("image_size"));
    parse_ok("{\"model_type\": \"yolos\", \"image_size\": [800, 1333], \"num_detection_tokens\": 50}");
    ck_assert_int_eq(model.learned_rows, 1 + 50 * 83 + 50);
    /* Idefics3's and SmolVLM's towers: (224 / 32)^2 rows, no class row, a
     * full image's patch p reading row p (Idefics3-8B's 364 / 14: 26^2);
     * the bucketized rows and the 4.55-4.57 regression warned. */
    parse_ok("{\"model_type\": \"idefics3_vision\"}");
    ck_assert_int_eq(model.learned_rows, 7 * 7);
    ck_assert(warned_about("image_size"));
    parse_ok("{\"model_type\": \"smolvlm_vision\", \"image_size\": 364, \"patch_size\": 14}");
    ck_assert_int_eq(model.learned_rows, 26 * 26);
    /* TimeSformer: ViT's spatial table, (224 / 16)^2 + 1; the time table
     * warned where attention_type has one. */
    parse_ok("{\"model_type\": \"timesformer\"}");
    ck_assert_int_eq(model.learned_rows, 14 * 14 + 1);
    ck_assert(warned_about("num_frames"));
    parse_ok("{\"model_type\": \"timesformer\", \"attention_type\": \"space_only\"}");
    ck_assert(!warned_about("num_frames"));
    /* ViTPose: (256 / 16) x (192 / 16) patches and one row more (row 0,
     * added to every patch: warned). A patch of 4 with the projection's
     * padding 2 makes (256 + 4 - 4) / 4 + 1 = 65 by 49 patches, where the
     * table has 64 x 48 rows after row 0. */
    parse_ok("{\"model_type\": \"vitpose_backbone\"}");
    ck_assert_int_eq(model.learned_rows, 16 * 12 + 1);
    ck_assert(warned_about("patch_size"));
    parse_fails_naming("{\"model_type\": \"vitpose_backbone\", \"patch_size\": 4}", "patch_size");
    /* AIMv2 as a dual encoder: CLIP's text rows, the tower named. */
    parse_ok("{\"model_type\": \"aimv2\", \"text_config\": {\"hidden_size\": 768, \"num_attention_heads\": 6}}");
    ck_assert_int_eq(model.learned_rows, 77);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "Aimv2VisionConfig"));
}
END_TEST

START_TEST(vision_refusals_name_the_key)
{
    parse_fails_naming(QWEN2_VL(", \"vision_config\": {\"rope_scaling\": {\"type\": \"linear\"}}"),
                       "vision_config.rope_scaling");
    parse_fails_naming(QWEN2_VL(", \"vision_config\": {\"embed_dim\": 1000}"), "vision_config.embed_dim");
    parse_fails_naming(QWEN2_VL(", \"vision_config\": {\"embed_dim\": 1248, \"num_heads\": 16}"),
                       "vision_config.embed_dim"); /* head_dim 78: not a multiple of 4 */
    parse_fails_naming(QWEN2_VL(", \"vision_config\": {\"model_type\": \"qwen2_5_vl\"}"), "vision_config.model_type");
    parse_fails_naming(QWEN2_VL(", \"vision_config\": [1]"), "vision_config");
    parse_fails_naming(QWEN2_VL(", \"vision_config\": {\"patch_size\": 0}"), "vision_config.patch_size");
    parse_fails_naming(LLAMA4(", \"vision_config\": {\"rope_theta\": \"big\"}"), "vision_config.rope_theta");
    parse_fails_naming(LLAMA4(", \"vision_config\": {\"image_size\": 10}"), "vision_config.image_size");
    parse_fails_naming(PIXTRAL(", \"vision_config\": {\"model_type\": \"pixtral\", \"position_ids\": 1}"),
                       "vision_config.position_ids");
    /* Grids past what one run certifies: a 65536-patch-a-side table, and
     * Qwen's default images at one pixel a patch. */
    parse_fails_naming(PIXTRAL(", \"vision_config\": {\"model_type\": \"pixtral\", \"image_size\": 65536,"
                               " \"patch_size\": 1}"),
                       "vision_config.image_size");
    /* A tiny patch keeps the default grids that fit in one run. */
    parse_ok(QWEN2_VL(", \"vision_config\": {\"patch_size\": 1}"));
    ck_assert_int_eq(model.vision.n_images, 2);
    parse_ok(QWEN2_VL(", \"vision_config\": {\"spatial_merge_size\": 14}"));
    ck_assert_int_lt(model.vision.n_images, 4);
    parse_fails_naming(QWEN2_VL(", \"vision_config\": {\"embed_dim\": 8192, \"num_heads\": 4}"),
                       "vision_config.embed_dim"); /* head_dim 2048: past the 1024 certified */
    parse_fails_naming(QWEN2_5_VL(", \"vision_config\": {\"window_size\": 14}"), "vision_config.window_size");
    /* An explicit null is None in transformers, not the default 112: its
     * get_window_index cannot divide it. Once read as 112. */
    parse_fails_naming(QWEN2_5_VL(", \"vision_config\": {\"window_size\": null}"),
                       "vision_config.window_size: null: transformers keeps None");
    parse_fails_naming(PIXTRAL(", \"vision_config\": {\"model_type\": null}"), "vision_config.model_type");
    parse_ok(QWEN2_VL(", \"vision_config\": {\"patch_size\": 1000}")); /* one merge window a side */
    ck_assert_int_eq(model.vision.grid_thw[0][1], 2);
}
END_TEST

/* Every vision_config key a tower reads changes certify's answer (its
 * description and warnings) when it changes: none is read and dropped. */
static void answer_of(char *out, size_t len, const char *json)
{
    parse_ok(json);
    size_t used = pecert_certify_describe(out, len, &model);
    for (int i = 0; i < model.n_warnings && used + 1 < len; i++) {
        used += (size_t)snprintf(out + used, len - used, "%s\n", model.warnings[i]);
    }
}

static void probe(const char *base, const char *key, double value)
{
    cJSON *doc = cJSON_Parse(base);
    ck_assert_ptr_nonnull(doc);
    cJSON *vc = cJSON_GetObjectItemCaseSensitive(doc, "vision_config");
    ck_assert_ptr_nonnull(vc);
    cJSON_DeleteItemFromObjectCaseSensitive(vc, key);
    cJSON_AddNumberToObject(vc, key, value);
    char *changed = cJSON_PrintUnformatted(doc);
    static char before[8192];
    static char after[8192];
    answer_of(before, sizeof(before), base);
    answer_of(after, sizeof(after), changed);
    ck_assert_msg(strcmp(before, after) != 0, "vision_config.%s = %g changes nothing", key, value);
    cJSON_free(changed);
    cJSON_Delete(doc);
}

START_TEST(every_vision_key_read_changes_the_answer)
{
    static const char qwen2[] = QWEN2_VL(", \"vision_config\": {\"embed_dim\": 1280, \"num_heads\": 16}");
    static const char qwen25[] = QWEN2_5_VL(", \"vision_config\": {\"hidden_size\": 1280, \"num_heads\": 16}");
    static const char pixtral[] = PIXTRAL(", \"vision_config\": {\"model_type\": \"pixtral\"}");
    static const char llama4[] = LLAMA4(", \"vision_config\": {\"hidden_size\": 1408, \"image_size\": 336}");
    static const char qwen3[] = QWEN3_VL(", \"vision_config\": {\"hidden_size\": 1024, \"num_heads\": 16}");
    static const struct {
        const char *base, *key;
        double value;
    } probes[] = {
        {qwen2, "embed_dim", 1024},      {qwen2, "num_heads", 8},           {qwen2, "patch_size", 16},
        {qwen2, "spatial_merge_size", 4}, {qwen25, "hidden_size", 1024},
        {qwen25, "num_heads", 8},        {qwen25, "window_size", 224},      {qwen25, "patch_size", 16},
        {pixtral, "hidden_size", 512},   {pixtral, "num_attention_heads", 8}, {pixtral, "image_size", 512},
        {pixtral, "patch_size", 14},     {pixtral, "rope_theta", 100000},    {llama4, "hidden_size", 768},
        {llama4, "num_attention_heads", 8}, {llama4, "image_size", 448},   {llama4, "patch_size", 16},
        {llama4, "rope_theta", 500000},  {qwen3, "num_position_embeddings", 1024}, {qwen3, "hidden_size", 512},
        {qwen3, "spatial_merge_size", 1},
    };
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        probe(probes[i].base, probes[i].key, probes[i].value);
    }
}
END_TEST

/* ---- images -------------------------------------------------------------- */

static int set_images(const char *a, const char *b)
{
    const char *specs[2] = {a, b};
    return pecert_certify_set_images(&model, specs, b != NULL ? 2 : 1, err, sizeof(err));
}

START_TEST(images_are_what_the_processors_hand_over)
{
    parse_ok(QWEN2_VL(""));
    ck_assert_int_eq(set_images("448x448", "28x5600"), 0);
    ck_assert_int_eq(model.vision.n_images, 2);
    ck_assert_int_eq(model.vision.grid_thw[1][1], 2);
    ck_assert_int_eq(model.vision.grid_thw[1][2], 400);
    ck_assert_int_eq(set_images("448x434", NULL), -1); /* 434 = 31 x 14, not a multiple of 28 */
    ck_assert_ptr_nonnull(strstr(err, "multiple of 28"));
    ck_assert_int_eq(set_images("448", NULL), -1);
    ck_assert_int_eq(set_images("448x448x2", NULL), -1);
    ck_assert_int_eq(set_images("28672x28672", NULL), -1); /* 2^22 patches */
    ck_assert_ptr_nonnull(strstr(err, "patches"));
    ck_assert_int_eq(set_images("5068x5068", NULL), 0);     /* 362^2 = 131044 <= 2^17 */
    ck_assert_int_eq(set_images("5096x5096", NULL), -1);    /* 364^2 = 132496 > 2^17 */
    ck_assert_ptr_nonnull(strstr(err, "patches"));
    const char *nine[9] = {"28x28", "28x28", "28x28", "28x28", "28x28", "28x28", "28x28", "28x28", "28x28"};
    ck_assert_int_eq(pecert_certify_set_images(&model, nine, 9, err, sizeof(err)), -1);
    parse_ok(PIXTRAL(", \"vision_config\": {\"model_type\": \"pixtral\"}"));
    ck_assert_int_eq(set_images("1024x512", NULL), 0);
    ck_assert_int_eq(model.vision.grid_thw[0][1], 64);
    ck_assert_int_eq(set_images("1040x512", NULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "at most 1024"));
    parse_ok(LLAMA4(", \"vision_config\": {\"image_size\": 340}"));
    ck_assert_int_eq(set_images("340x340", NULL), 0); /* the tile, floored to 24 x 24 patches as the model does */
    ck_assert_int_eq(model.vision.grid_thw[0][1], 24);
    ck_assert_int_eq(pecert_certify_set_images(&model, NULL, 0, err, sizeof(err)), -1);
    parse_ok(LLAMA4(", \"vision_config\": {\"image_size\": 336}"));
    ck_assert_int_eq(set_images("336x336", NULL), 0);
    ck_assert_int_eq(set_images("672x336", NULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "tiles"));
    /* ViT: the patch convolution floors each side (height // patch_size). */
    parse_ok("{\"model_type\": \"vit\"" HEADS "}");
    ck_assert_int_eq(set_images("384x200", "16x16"), 0);
    ck_assert(model.vision.grid_thw[0][1] == 24 && model.vision.grid_thw[0][2] == 12);
    ck_assert(model.vision.grid_thw[1][1] == 1 && model.vision.grid_thw[1][2] == 1);
    ck_assert_int_eq(set_images("384x15", NULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "at least patch_size 16"));
    parse_ok(LLAMA_TEXT);
    ck_assert_int_eq(set_images("448x448", NULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "no vision tower"));
}
END_TEST

/* ---- the @vision pass ------------------------------------------------------ */

static int certify_profile(pecert_run_results *res, const char *profile, const char *plugin)
{
    char plugin_path[1024];
    char oracle_path[1024];
    char vectors[1024];
    test_impl_path(plugin_path, sizeof(plugin_path), plugin);
    test_impl_path(oracle_path, sizeof(oracle_path), "ref");
    ck_assert_ptr_nonnull(pecert_certify_profile_vectors(vectors, sizeof(vectors), PECERT_SOURCE_DIR "/vectors",
                                                         profile));
    pecert_certify_options opt = {plugin_path, oracle_path, vectors, test_check_timeout(60.0), NULL,
                                  NULL,        NULL,        0,       PECERT_SANDBOX_ON};
    int status = pecert_certify_run(res, &model, &opt, err, sizeof(err));
    ck_assert_msg(status <= PECERT_EXIT_FAIL, "%s", err);
    return status;
}

static void load_profile(const char *name)
{
    ck_assert_msg(pecert_certify_load_profile(&model, PECERT_SOURCE_DIR "/conformance/profiles", name, err,
                                              sizeof(err)) == 0, "%s", err);
}

static const pecert_check_result *find(const pecert_run_results *res, const char *id)
{
    return pecert_run_results_find(res, id);
}

/* profile certified for plugin, each of ids passed with cases; res is
 * left for the caller's own assertions (and to free). */
static void expect_certified(pecert_run_results *res, const char *profile, const char *plugin,
                             const char *const *ids, size_t n_ids)
{
    load_profile(profile);
    ck_assert_msg(certify_profile(res, profile, plugin) == PECERT_EXIT_PASS, "%s on %s", plugin, profile);
    for (size_t i = 0; i < n_ids; i++) {
        const pecert_check_result *r = find(res, ids[i]);
        ck_assert_msg(r != NULL && r->verdict == PECERT_VERDICT_PASS && r->n_cases > 0, "%s %s: %s", profile, ids[i],
                      r != NULL ? r->diagnosis : "not run");
    }
}

START_TEST(vision_pass_certifies_the_oracle_and_fast)
{
    static const char *const profiles[] = {"qwen2-vl-7b", "qwen2.5-vl-7b", "qwen3-vl-4b", "pixtral-12b",
                                           "llama-4-scout", "llama-4-maverick"};
    static const char *const ids[] = {"certify.mapping@vision", "certify.rope2d.reference@vision",
                                      "rope2d.index.golden@vision", "rope2d.apply.golden@vision"};
    for (size_t p = 0; p < sizeof(profiles) / sizeof(profiles[0]); p++) {
        for (int fast = 0; fast < 2; fast++) {
            pecert_run_results res;
            expect_certified(&res, profiles[p], fast ? "fast" : "ref", ids, sizeof(ids) / sizeof(ids[0]));
            /* The learned table: Qwen3-VL's alone. */
            int qwen3 = strcmp(profiles[p], "qwen3-vl-4b") == 0;
            const pecert_check_result *t = find(&res, "certify.posinterp.reference@vision");
            const pecert_check_result *g = find(&res, "posinterp.golden@vision");
            ck_assert_msg(qwen3 ? t != NULL && t->verdict == PECERT_VERDICT_PASS && t->n_cases == 5 : t == NULL,
                          "%s: %s", profiles[p], t != NULL ? t->diagnosis : "not run");
            ck_assert_msg(qwen3 ? g != NULL && g->verdict == PECERT_VERDICT_PASS : g == NULL, "%s: %s", profiles[p],
                          g != NULL ? g->diagnosis : "not run");
            pecert_run_results_free(&res);
        }
    }
}
END_TEST

/* The ViT family's @vision pass: the resize against ref and against the
 * tables recorded from the models' own interpolate_pos_encoding, and no
 * rope2d check (nothing turns). */
START_TEST(vit_family_pass_certifies_the_oracle_and_fast)
{
    static const char *const profiles[] = {"vit-b-16", "vit-b-16-384", "dinov2-base", "dinov2-with-registers-base"};
    static const char *const ids[] = {"certify.mapping@vision", "certify.posinterp.reference@vision",
                                      "posinterp.golden@vision", "posinterp.native_identity@vision",
                                      "learned.golden"};
    for (size_t p = 0; p < sizeof(profiles) / sizeof(profiles[0]); p++) {
        for (int fast = 0; fast < 2; fast++) {
            pecert_run_results res;
            expect_certified(&res, profiles[p], fast ? "fast" : "ref", ids, sizeof(ids) / sizeof(ids[0]));
            ck_assert_ptr_null(find(&res, "certify.rope2d.reference@vision"));
            pecert_run_results_free(&res);
        }
    }
}
END_TEST

/* Each rope2d mutant's bug named on the tower it breaks, as the vision
 * tower's finding; a tower its bug cannot touch stays certified. */
START_TEST(vision_pass_names_the_real_bugs)
{
    static const struct {
        const char *profile, *mutant, *finding;
    } cases[] = {
        {"qwen2-vl-7b", "mutants/rope2d_index_row_major", "rope2d_order"},
        {"qwen2.5-vl-7b", "mutants/rope2d_index_row_major", "rope2d_order"}, /* in attention windows */
        {"qwen2.5-vl-7b", "mutants-f32/rope2d_frames_interleaved", "rope2d_frames"},     /* the 2-frame video */
        {"pixtral-12b", "mutants/rope2d_frames_interleaved", NULL},                   /* no video */
        {"qwen2-vl-7b", "mutants/rope2d_axes_swapped", "rope2d_axes"},
        {"qwen2-vl-7b", "mutants/rope2d_cos_repeated", "rope2d_cos_layout"},
        {"qwen3-vl-4b", "mutants/rope2d_first_half_twice", "rope2d_one_axis"},
        {"pixtral-12b", "mutants/rope2d_frequencies_blocks", "rope2d_frequencies"},
        {"llama-4-scout", "mutants/rope2d_axes_swapped", "rope2d_axes"},
        {"llama-4-scout", "mutants-f32/rope2d_first_half_twice", "rope2d_one_axis"},
        {"llama-4-scout", "mutants/rope2d_index_row_major", NULL}, /* no merge windows */
        {"qwen3-vl-4b", "mutants/posinterp_half_pixel", "posinterp_align_corners"},
        {"qwen3-vl-4b", "mutants-f32/posinterp_axes_swapped", "posinterp_axes"},
        {"qwen3-vl-4b", "mutants/posinterp_bicubic_for_bilinear", "posinterp_mode"},
        {"qwen3-vl-4b", "mutants/posinterp_same_count_shortcut", "posinterp_shortcut"}, /* the 36 x 64 image */
        {"qwen3-vl-4b", "mutants/posinterp_weights_truncated", "posinterp_weights"},
        {"qwen3-vl-4b", "mutants/posinterp_keys_cubic", NULL}, /* bicubic only */
        {"vit-b-16-384", "mutants/posinterp_keys_cubic", "posinterp_cubic_coefficient"},
        {"vit-b-16", "mutants/posinterp_same_count_shortcut", "posinterp_shortcut"}, /* 7 x 28 */
        {"dinov2-with-registers-base", "mutants-f32/posinterp_no_antialias", "posinterp_antialias"},
        {"dinov2-base", "mutants/posinterp_half_pixel", NULL}, /* half-pixel centres already */
        {"vit-b-16", "mutants/rope2d_axes_swapped", NULL}, /* nothing turns */
        {"llama-4-scout", "mutants/rope2d_frequencies_blocks", NULL}, /* blocks already */
        {"qwen2-vl-7b", "mutants/rope2d_frequencies_blocks", NULL},
        {"llama-4-scout", "mutants/rope2d_cos_repeated", NULL}, /* interleaved pairs */
        {"pixtral-12b", "mutants/rope2d_index_row_major", NULL}, /* row-major already */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pecert_run_results res;
        load_profile(cases[i].profile);
        int status = certify_profile(&res, cases[i].profile, cases[i].mutant);
        const char *id = strncmp(cases[i].mutant + strcspn(cases[i].mutant, "/") + 1, "posinterp", 9) == 0
                             ? "certify.posinterp.reference@vision"
                             : "certify.rope2d.reference@vision";
        const pecert_check_result *r = find(&res, id);
        ck_assert(r != NULL || cases[i].finding == NULL); /* a ViT runs no rope2d check */
        if (cases[i].finding == NULL) {
            ck_assert_msg(status == PECERT_EXIT_PASS, "%s on %s", cases[i].mutant, cases[i].profile);
        } else {
            ck_assert_int_eq(status, PECERT_EXIT_FAIL);
            ck_assert_msg(r->verdict == PECERT_VERDICT_FAIL, "%s on %s: %s", cases[i].mutant, cases[i].profile,
                          r->diagnosis);
            int named = 0;
            for (int f = 0; f < res.n_findings; f++) {
                named |= strcmp(res.findings[f].id, cases[i].finding) == 0 &&
                         strncmp(res.findings[f].bug, "vision tower: ", 14) == 0;
            }
            ck_assert_msg(named, "%s on %s: %d findings, first %s", cases[i].mutant, cases[i].profile,
                          res.n_findings, res.n_findings > 0 ? res.findings[0].id : "(none)");
        }
        pecert_run_results_free(&res);
    }
}
END_TEST

/* A tower read with its merger's width (Qwen2-VL's vision hidden_size
 * 3584 for embed_dim 1280: head_dim 224) is caught by the mapping against
 * the official classes' outputs. A plugin without the tower's operations
 * is certified for the text model it runs, its coverage naming the vision
 * tower as not examined (it once read NOT CERTIFIED here and NOT
 * APPLICABLE in --all-profiles: one rule now, certificate.h). */
START_TEST(vision_mapping_bugs_and_missing_operations_fail)
{
    pecert_run_results res;
    load_profile("qwen2-vl-7b");
    model.vision.head_dim = 224;
    ck_assert_int_eq(certify_profile(&res, "qwen2-vl-7b", "ref"), PECERT_EXIT_FAIL);
    const pecert_check_result *r = find(&res, "certify.mapping@vision");
    ck_assert_msg(r != NULL && r->verdict == PECERT_VERDICT_FAIL, "%s", r != NULL ? r->diagnosis : "not run");
    int named = 0;
    for (size_t i = 0; i < r->n_failures; i++) {
        named |= strstr(r->failures[i].line,
                        "vision head_dim: pecert derived 224, the official config class 80") != NULL;
    }
    ck_assert_msg(named, "%zu failures, first: %s", r->n_failures, r->n_failures > 0 ? r->failures[0].line : "");
    pecert_run_results_free(&res);

    load_profile("qwen2-vl-7b");
    ck_assert_int_eq(certify_profile(&res, "qwen2-vl-7b", "example"), PECERT_EXIT_PASS);
    r = find(&res, "certify.rope2d.reference@vision");
    ck_assert_msg(r != NULL && r->verdict == PECERT_VERDICT_UNSUPPORTED &&
                      pecert_check_has_symptom(r, PECERT_SYMPTOM_NO_OPERATION),
                  "%s", r != NULL ? r->diagnosis : "not run");
    pecert_certificate cert;
    pecert_certificate_of(&cert, &res);
    char coverage[4096];
    pecert_coverage_line(coverage, sizeof(coverage), &cert);
    ck_assert_msg(cert.cls == PECERT_CERT_CERTIFIED && strstr(coverage, "no operation: ") != NULL &&
                      strstr(coverage, "vision tower") != NULL,
                  "%s: %s", pecert_cert_class_name(cert.cls), coverage);
    pecert_run_results_free(&res);

    /* A tower's warning goes with the tower. */
    parse_ok(QWEN3_VL(", \"vision_config\": {\"num_position_embeddings\": 2400}"));
    ck_assert_int_eq(model.n_warnings, 1);
    pecert_certify_leave_out_vision(&model, "--text-only");
    ck_assert_int_eq(model.n_warnings, 0);
    load_profile("qwen2-vl-7b");
    pecert_certify_leave_out_vision(&model, "--text-only");
    ck_assert_int_eq(certify_profile(&res, "qwen2-vl-7b", "fast"), PECERT_EXIT_PASS);
    ck_assert_ptr_null(find(&res, "certify.rope2d.reference@vision"));
    ck_assert_ptr_nonnull(strstr(model.vision_note, "left out by --text-only"));
    pecert_run_results_free(&res);
}
END_TEST

/* The command: --image and --text-only as a user types them; each bad
 * one is one line and exit 2, never a run. */
START_TEST(image_options_on_the_command_line)
{
    char out[16384];
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile qwen2-vl-7b --print --image 448x672 "
                                                   "--image 56x56"), 0);
    ck_assert_ptr_nonnull(strstr(out, "vision grids certified             1x32x48, 1x4x4 (frames x rows x columns "
                                      "of patches; --image)"));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile qwen2-vl-7b --print --image 448x450"), 2);
    ck_assert_str_eq(out, "pecert: --image '448x450': each side must be a multiple of 28 pixels (patch_size 14 x "
                          "spatial_merge_size)\n");
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile llama-4-scout --impl fast --image 448x448"), 2);
    ck_assert_ptr_nonnull(strstr(out, "tiles every image to 336 x 336"));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile llama-2-7b --print --image 448x448"), 2);
    ck_assert_ptr_nonnull(strstr(out, "llama-2-7b has no vision tower"));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile qwen2-vl-7b --print --image 448x448 "
                                                   "--text-only"), 2);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --all-profiles --impl fast --text-only"), 2);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile pixtral-12b --impl fast --quiet --image "
                                                   "1024x1024 --image 16x32"), 0);
    ck_assert_ptr_nonnull(strstr(out, "verdict: fast CERTIFIED for pixtral-12b (llava)"));
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile pixtral-12b --print --text-only"), 0);
    ck_assert_ptr_nonnull(strstr(out, "pixtral (PixtralVisionConfig): left out by --text-only, not certified"));
}
END_TEST

/* The decomposed relative positions (certify_relpos2d.c), from each
 * class's own layer rule: SAM's layers 2, 5, 8, 11 global (1024 / 16 = 64
 * patches a side, 127-row tables), the others in 14 x 14 windows (27
 * rows); ViTDet's window_block_indices windowed, the rest global; SegGPT's
 * [896, 448] / 16 = 56 x 28 grid, every layer. */
START_TEST(relative_position_grids_come_from_the_layers)
{
    parse_ok("{\"model_type\": \"sam\"}");
    ck_assert_int_eq(model.kind, PECERT_PE_RELPOS2D);
    ck_assert_int_eq(model.relpos2d_n_grids, 2);
    ck_assert_str_eq(model.relpos2d_grid_name[0], "window");
    ck_assert_int_eq(model.relpos2d_grid[0][0], 14);
    ck_assert_int_eq(model.relpos2d_grid[1][0], 64);
    ck_assert_int_eq(model.relpos2d_head_dim, 64);
    ck_assert(warned_about("vision_config.use_abs_pos"));
    /* SAM-H's 32 layers, global ones 7, 15, 23, 31; every layer global when
     * window_size is 0. */
    parse_ok("{\"model_type\": \"sam\", \"vision_config\": {\"hidden_size\": 1280, \"num_attention_heads\": 16, "
             "\"num_hidden_layers\": 32, \"global_attn_indexes\": [7, 15, 23, 31]}}");
    ck_assert_int_eq(model.relpos2d_n_grids, 2);
    ck_assert_int_eq(model.relpos2d_head_dim, 80);
    parse_ok("{\"model_type\": \"sam_vision_model\", \"window_size\": 0}");
    ck_assert_int_eq(model.relpos2d_n_grids, 1);
    ck_assert_str_eq(model.relpos2d_grid_name[0], "global");
    parse_ok("{\"model_type\": \"sam_hq_vision_model\", \"global_attn_indexes\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "
             "10, 11]}");
    ck_assert_int_eq(model.relpos2d_n_grids, 1);
    ck_assert_int_eq(model.relpos2d_grid[0][1], 64);
    parse_fails_naming("{\"model_type\": \"sam\", \"vision_config\": {\"use_rel_pos\": false}}",
                       "vision_config.use_rel_pos");
    parse_fails_naming("{\"model_type\": \"sam\", \"vision_config\": {\"global_attn_indexes\": 2}}",
                       "vision_config.global_attn_indexes");
    parse_ok("{\"model_type\": \"vitdet\", \"use_relative_position_embeddings\": true, \"window_size\": 14, "
             "\"window_block_indices\": [0, 1], \"image_size\": 1024}");
    ck_assert_int_eq(model.kind, PECERT_PE_RELPOS2D);
    ck_assert_int_eq(model.relpos2d_n_grids, 2);
    ck_assert_int_eq(model.relpos2d_grid[0][0], 14);
    ck_assert_int_eq(model.relpos2d_grid[1][0], 64);
    /* ViTDet's default: no relative positions, its absolute table at the
     * pretraining grid (224 / 16 = 14: 196 rows after the class row). */
    parse_ok("{\"model_type\": \"vitdet\"}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    ck_assert_int_eq(model.learned_rows, 14 * 14 + 1);
    parse_fails_naming("{\"model_type\": \"vitdet\", \"image_size\": 1024}", "pretrain_image_size");
    parse_ok("{\"model_type\": \"seggpt\"}");
    ck_assert_int_eq(model.relpos2d_n_grids, 1);
    ck_assert_int_eq(model.relpos2d_grid[0][0], 56);
    ck_assert_int_eq(model.relpos2d_grid[0][1], 28);
    parse_fails_naming("{\"model_type\": \"seggpt\", \"image_size\": [4096, 448]}", "image_size");
}
END_TEST

Suite *make_certify_vision_suite(void)
{
    return test_suite_of("certify_vision",
                         TEST_TCASE("mapping", 0,
                                    qwen_towers_read_their_own_width,
                                    pixtral_and_llama4_towers_map,
                                    vit_family_is_its_own_tower,
                                    vision_refusals_name_the_key,
                                    fixed_tables_count_their_grid,
                                    siglip2_tables_come_from_num_patches,
                                    every_vision_key_read_changes_the_answer,
                                    images_are_what_the_processors_hand_over,
                                    relative_position_grids_come_from_the_layers),
                         TEST_TCASE("run", 600,
                                    vision_pass_certifies_the_oracle_and_fast,
                                    vit_family_pass_certifies_the_oracle_and_fast,
                                    vision_pass_names_the_real_bugs,
                                    vision_mapping_bugs_and_missing_operations_fail,
                                    image_options_on_the_command_line),
                         NULL);
}
