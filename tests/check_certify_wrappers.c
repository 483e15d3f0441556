/*
 * check_certify_wrappers.c - checkpoints that wrap a language model
 * (certify_wrappers.c): the text model read from text_config by its own
 * rule, the wrapper's defaults where transformers applies them, the other
 * tower named as not certified, and the refusals.
 *
 * Every expected value is transformers v4.57.6's, read in the wrapper's
 * configuration_*.py and modeling_*.py (conformance/profiles/README.md,
 * "Wrappers of a language model"); the inventory (make inventory) holds
 * every wrapper's default config to the class's own answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "certify_config.h"
#include "suites.h"

static pecert_certify_model model;
static char err[1024];
#define parse_ok(json) test_certify_parse_ok(&model, json, err, sizeof(err))
#define parse_fails_naming(json, key) test_certify_parse_fails_naming(&model, json, key, err, sizeof(err))
#define warned_about(key) test_certify_warned_about(&model, key)

/* What a released text_config states (where one leaves out the width or
 * the heads, the text class's defaults apply, as for LLaVA-1.5). */
#define TEXT_FIELDS "\"hidden_size\": 4096, \"num_attention_heads\": 32, \"max_position_embeddings\": 8192"

/* LLaVA-NeXT with a Mistral text model (llava-v1.6-mistral-7b's shape):
 * Mistral's own rule reads it, its rope_theta and heads. */
START_TEST(the_text_model_is_read_by_its_own_rule)
{
    parse_ok("{\"model_type\": \"llava_next\", \"text_config\": {\"model_type\": \"mistral\", \"hidden_size\": 4096,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"rope_theta\": 1000000.0,"
             " \"max_position_embeddings\": 32768}}");
    ck_assert_str_eq(model.model_type, "llava_next");
    ck_assert_int_eq(model.kind, PECERT_PE_ROPE);
    ck_assert_int_eq(model.num_kv_heads, 8);
    ck_assert_int_eq(model.rope.head_dim, 128);
    ck_assert(model.rope.rope_theta == 1000000.0);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_SPLIT_HALF);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "clip_vision_model"));
    ck_assert_int_eq(model.n_warnings, 0);
    /* LLaVA-1.5's text_config states model_type and max_position_embeddings
     * only: LlamaConfig's width 4096 and 32 heads apply (a head of 128). */
    parse_ok("{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"llama\","
             " \"max_position_embeddings\": 4096}}");
    ck_assert_int_eq(model.num_heads, 32);
    ck_assert_int_eq(model.rope.head_dim, 128);
    /* Aya Vision's default text model is Cohere 2: adjacent pairs. */
    parse_ok("{\"model_type\": \"aya_vision\", \"text_config\": {" TEXT_FIELDS "}}");
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "siglip_vision_model"));
    /* Emu3's text class is fixed (Emu3TextConfig, rope_theta 1e6); its
     * images are VQ tokens of the text sequence: no tower to name. */
    parse_ok("{\"model_type\": \"emu3\", \"text_config\": {" TEXT_FIELDS "}}");
    ck_assert_str_eq(model.model_type, "emu3");
    ck_assert(model.rope.rope_theta == 1000000.0);
    ck_assert_str_eq(model.vision_note, "");
    /* Fuyu's Persimmon: half the head rotated; no tower to name. */
    parse_ok("{\"model_type\": \"fuyu\", \"text_config\": {" TEXT_FIELDS "}}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert(model.rope.rope_theta == 25000.0);
    ck_assert_str_eq(model.vision_note, "");
    /* ShieldGemma 2's text model is Gemma 3's, its sliding and full layers
     * told apart as Gemma 3's own rule does (a full layer every sixth). */
    parse_ok("{\"model_type\": \"shieldgemma2\", \"text_config\": {\"hidden_size\": 2560, "
             "\"num_attention_heads\": 8, \"num_key_value_heads\": 4, \"num_hidden_layers\": 12, "
             "\"max_position_embeddings\": 131072}}");
    ck_assert_int_eq(model.n_layer_types, 2);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "siglip_vision_model"));
}
END_TEST

/* VoxtralConfig puts _default_text_config_kwargs under the given fields:
 * head_dim 128 and rope_theta 1e8 when text_config does not say, though
 * LlamaConfig alone would give 3072 / 32 = 96 and 10000. */
START_TEST(a_wrappers_own_text_defaults_apply)
{
    parse_ok(
        "{\"model_type\": \"voxtral\", \"text_config\": {\"model_type\": \"llama\", \"num_attention_heads\": 32}}");
    ck_assert_int_eq(model.rope.head_dim, 128);
    ck_assert(model.rope.rope_theta == 100000000.0);
    ck_assert_int_eq(model.num_kv_heads, 8);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "audio_config.model_type 'voxtral_encoder'"));
    parse_ok("{\"model_type\": \"voxtral\", \"text_config\": {\"num_attention_heads\": 32, \"rope_theta\": 500000.0,"
             " \"head_dim\": 64}}");
    ck_assert_int_eq(model.rope.head_dim, 64);
    ck_assert(model.rope.rope_theta == 500000.0);
}
END_TEST

/* Mistral 3's default tower is Pixtral's: certified as LLaVA's is. */
START_TEST(mistral3s_pixtral_tower_is_certified)
{
    parse_ok("{\"model_type\": \"mistral3\", \"text_config\": {\"model_type\": \"mistral\", " TEXT_FIELDS "},"
             " \"vision_config\": {\"hidden_size\": 1024, \"num_attention_heads\": 16, \"image_size\": 1540}}");
    ck_assert_str_eq(model.vision.tower, "pixtral");
    ck_assert_int_eq(model.vision.head_dim, 64);
    ck_assert_int_eq(model.vision.image_size, 1540);
    ck_assert_str_eq(model.vision_note, "");
    parse_ok("{\"model_type\": \"mistral3\", \"text_config\": {\"model_type\": \"mistral\", " TEXT_FIELDS "},"
             " \"vision_config\": {\"model_type\": \"siglip_vision_model\"}}");
    ck_assert_str_eq(model.vision.tower, "");
    ck_assert_ptr_nonnull(strstr(model.vision_note, "siglip_vision_model"));
}
END_TEST

START_TEST(paligemmas_one_based_positions_are_warned)
{
    parse_ok("{\"model_type\": \"paligemma\", \"text_config\": {\"model_type\": \"gemma\", \"hidden_size\": 2048,"
             " \"num_attention_heads\": 8, \"num_key_value_heads\": 1, \"head_dim\": 256,"
             " \"max_position_embeddings\": 8192}}");
    ck_assert_int_eq(model.rope.head_dim, 256);
    ck_assert(warned_about("position_ids"));
    parse_ok("{\"model_type\": \"llava_onevision\", \"text_config\": {\"model_type\": \"qwen2\", " TEXT_FIELDS "}}");
    ck_assert(!warned_about("position_ids"));
}
END_TEST

/* CLAP: ClapTextConfig's RoBERTa rows (pad_token_id 1: row 2 + p, a
 * padding token row 1), its audio tower named. */
START_TEST(claps_text_rows_and_its_audio_tower)
{
    parse_ok("{\"model_type\": \"clap\", \"text_config\": {\"hidden_size\": 768, \"num_attention_heads\": 12}}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    ck_assert_int_eq(model.learned_rows, 514);
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PADDING_OFFSET);
    ck_assert_int_eq(model.learned_padding_idx, 1);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "ClapAudioConfig"));
    parse_fails_naming("{\"model_type\": \"clap\", \"text_config\": {\"model_type\": \"roberta\"}}",
                       "text_config.model_type");
}
END_TEST

/* ColPali (ColPaliForRetrieval: AutoModelForImageTextToText.from_config(
 * vlm_config)): the vision-language model vlm_config names is what is
 * mapped, its keys named under vlm_config; a length the sparse Gemma
 * text_config leaves out is GemmaConfig's 8192. */
START_TEST(a_retrieval_model_is_its_vlm_config)
{
    parse_ok("{\"model_type\": \"colpali\", \"vlm_config\": {\"model_type\": \"paligemma\", \"text_config\": "
             "{\"hidden_size\": 2048, \"num_attention_heads\": 8, \"num_key_value_heads\": 1}}}");
    ck_assert_str_eq(model.model_type, "colpali");
    ck_assert_int_eq(model.rope.head_dim, 256);
    ck_assert_int_eq(model.max_position_embeddings, 8192);
    ck_assert(warned_about("vlm_config.position_ids"));
    parse_fails_naming("{\"model_type\": \"colpali\", \"vlm_config\": {\"text_config\": {}}}",
                       "vlm_config.model_type");
    parse_fails_naming("{\"model_type\": \"colpali\", \"vlm_config\": {\"model_type\": \"paligemma\", "
                       "\"text_config\": {\"rope_theta\": -1}}}", "vlm_config.text_config.rope_theta");
    parse_fails_naming("{\"model_type\": \"colpali\", \"vlm_config\": {\"model_type\": \"colpali\"}}",
                       "vlm_config.model_type");
}
END_TEST

START_TEST(wrapper_refusals_name_the_key)
{
    /* No text_config: the wrapper would build its own overrides. */
    parse_fails_naming("{\"model_type\": \"idefics3\"}", "text_config");
    /* Ovis2Config builds Qwen2Config whatever text_config says. */
    parse_fails_naming("{\"model_type\": \"ovis2\", \"text_config\": {\"model_type\": \"llama\"}}",
                       "text_config.model_type");
    parse_ok("{\"model_type\": \"ovis2\", \"text_config\": {\"model_type\": \"qwen2\", " TEXT_FIELDS "}}");
    ck_assert_ptr_nonnull(strstr(model.vision_note, "Ovis2VisionConfig, fixed by Ovis2Config"));
    /* AriaConfig builds AriaTextConfig only from a text_config naming a
     * model_type, any: none is refused, another is read as aria_text. */
    parse_fails_naming("{\"model_type\": \"aria\", \"text_config\": {" TEXT_FIELDS "}}", "text_config.model_type");
    parse_ok("{\"model_type\": \"aria\", \"text_config\": {\"model_type\": \"aria_text\", " TEXT_FIELDS "}}");
    ck_assert_ptr_nonnull(strstr(model.vision_note, "Idefics3VisionConfig"));
    /* A text model no rule of pecert maps (Mamba has no positions). */
    parse_fails_naming("{\"model_type\": \"internvl\", \"text_config\": {\"model_type\": \"mamba\"}}", "model_type");
    parse_fails_naming("{\"model_type\": \"internvl\", \"text_config\": {\"model_type\": \"qwen2_vl\"}}", "model_type");
    /* The text model's own refusals, named under text_config. */
    parse_fails_naming("{\"model_type\": \"smolvlm\", \"text_config\": {" TEXT_FIELDS ", \"rope_theta\": -1}}",
                       "text_config.rope_theta");
}
END_TEST

/* Dual encoders: the text model's own table, read from text_config by its
 * rule (CLIP's plain rows, AltCLIP's RoBERTa rows, Kosmos-2's fairseq
 * sinusoid), and a vision tower whose table is ViT's resized in the
 * @vision pass (CLIP's class row kept, SigLIP's none), or named. */
START_TEST(a_dual_encoder_certifies_its_text_table_and_its_tower)
{
    parse_ok("{\"model_type\": \"clip\", \"text_config\": {\"hidden_size\": 512, \"num_attention_heads\": 8,"
             " \"max_position_embeddings\": 77}, \"vision_config\": {\"image_size\": 336, \"patch_size\": 14}}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    ck_assert_int_eq(model.learned_rows, 77);
    ck_assert_str_eq(model.vision.tower, "clip_vision_model");
    ck_assert_int_eq(model.vision.table_side, 24);
    ck_assert_int_eq(model.vision.table_prefix, 1);
    ck_assert_int_eq(model.vision.hidden_size, 768); /* CLIPVisionConfig's default */
    parse_ok("{\"model_type\": \"siglip\", \"text_config\": {\"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 64}}");
    ck_assert_int_eq(model.vision.table_side, 14);
    ck_assert_int_eq(model.vision.table_prefix, 0);
    parse_ok("{\"model_type\": \"altclip\", \"text_config\": {\"hidden_size\": 1024, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 514}}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PADDING_OFFSET);
    ck_assert_int_eq(model.learned_padding_idx, 1);
    parse_ok("{\"model_type\": \"kosmos-2\", \"text_config\": {\"embed_dim\": 2048, \"attention_heads\": 32,"
             " \"max_position_embeddings\": 2048}}");
    ck_assert_int_eq(model.kind, PECERT_PE_SINUSOIDAL);
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_FAIRSEQ);
    ck_assert_int_eq(model.vision.table_side, 16); /* 224 / 14 */
    /* Kosmos-2.5: Kosmos-2's sinusoid (a copy); its Pix2Struct-like
     * vision encoder named. */
    parse_ok("{\"model_type\": \"kosmos-2.5\", \"text_config\": {\"embed_dim\": 1536, \"attention_heads\": 16,"
             " \"max_position_embeddings\": 4096}}");
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_FAIRSEQ);
    ck_assert_int_eq(model.sinusoidal_positions, 4096);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "Kosmos2_5VisionConfig"));
    /* Florence-2's language model is BART's unless text_config names
     * another: its learned rows from 2 + p; the DaViT tower named. */
    parse_ok("{\"model_type\": \"florence2\", \"text_config\": {\"d_model\": 768, \"encoder_attention_heads\": 12,"
             " \"max_position_embeddings\": 1024}}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    ck_assert_int_eq(model.learned_rows, 1026);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "Florence2VisionConfig"));
    /* BLIP-2's OPT: its rows from the attention mask, 2 + p; InstructBLIP's
     * Q-Former table named beside it. */
    parse_ok("{\"model_type\": \"blip-2\", \"text_config\": {\"hidden_size\": 2560, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 2048}}");
    ck_assert_int_eq(model.learned_rows, 2050);
    ck_assert_str_eq(model.position_note, "");
    parse_ok("{\"model_type\": \"instructblip\", \"text_config\": {\"hidden_size\": 2560,"
             " \"num_attention_heads\": 32, \"max_position_embeddings\": 2048}}");
    ck_assert_ptr_nonnull(strstr(model.position_note, "Q-Former"));
    /* GroupViT never passes interpolate_pos_encoding: its tower is named. */
    parse_ok("{\"model_type\": \"groupvit\", \"text_config\": {\"hidden_size\": 256, \"num_attention_heads\": 4,"
             " \"max_position_embeddings\": 77}}");
    ck_assert_str_eq(model.vision.tower, "");
    ck_assert_ptr_nonnull(strstr(model.vision_note, "GroupViTVisionConfig"));
    /* CLIPConfig builds CLIPVisionConfig whatever vision_config says. */
    parse_fails_naming(
        "{\"model_type\": \"clip\", \"text_config\": {\"hidden_size\": 512, \"num_attention_heads\": 8,"
        " \"max_position_embeddings\": 77}, \"vision_config\": {\"model_type\": \"siglip_vision_model\"}}",
        "vision_config.model_type");
    /* The towers as checkpoints of their own. */
    parse_ok("{\"model_type\": \"siglip_vision_model\", \"hidden_size\": 1152, \"num_attention_heads\": 16,"
             " \"image_size\": 384, \"patch_size\": 14}");
    ck_assert_int_eq(model.learned_rows, 27 * 27);
    ck_assert_int_eq(model.vision.table_prefix, 0);
}
END_TEST

/* What pecert does not certify is said by the verdict, in every output:
 * a CERTIFIED PaliGemma reads "not examined: position ids, vision tower",
 * from certify's line as from the report of its JSON. */
START_TEST(the_verdict_names_what_pecert_does_not_certify)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-wrappers-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char config[64];
    char json[64];
    snprintf(config, sizeof(config), "%s/config.json", dir);
    snprintf(json, sizeof(json), "%s/r.json", dir);
    test_write_text(config, "{\"model_type\": \"paligemma\", \"text_config\": {\"model_type\": \"gemma\", "
                            "\"hidden_size\": 2048, \"num_attention_heads\": 8, \"num_key_value_heads\": 1, "
                            "\"head_dim\": 256, \"max_position_embeddings\": 8192}}");
    int status = test_pecert(out, sizeof(out), "certify --config %s --impl fast --json %s", config, json);
    ck_assert_msg(status == 0, "exit %d: %s", status, out);
    ck_assert_msg(strstr(out, "CERTIFIED for") != NULL && strstr(out, "; not examined: position ids, vision tower\n"),
                  "%s", out);
    ck_assert_msg(strstr(out, "not examined: position ids (PaliGemmaModel hands the text model positions from 1"), "%s",
                  out);
    ck_assert_msg(strstr(out, "vision tower (vision_config.model_type 'siglip_vision_model'"), "%s", out);
    status = test_pecert(out, sizeof(out), "report %s -o /dev/null", json);
    ck_assert_msg(status == 0 && strstr(out, "not examined: position ids (PaliGemmaModel") != NULL, "exit %d: %s",
                  status, out);
    /* A tower pecert certifies is no such part: Mistral 3's Pixtral. */
    test_write_text(config,
                    "{\"model_type\": \"mistral3\", \"text_config\": {\"model_type\": \"mistral\", " TEXT_FIELDS "}}");
    status = test_pecert(out, sizeof(out), "certify --config %s --impl fast", config);
    ck_assert_msg(status == 0 && strstr(out, "not examined") == NULL && strstr(out, "vision tower") != NULL,
                  "exit %d: %s", status, out);
    unlink(config);
    unlink(json);
    rmdir(dir);
}
END_TEST

Suite *make_certify_wrappers_suite(void)
{
    return test_suite_of("certify_wrappers",
                         TEST_TCASE("mapping", 0, the_text_model_is_read_by_its_own_rule,
                                    a_wrappers_own_text_defaults_apply, mistral3s_pixtral_tower_is_certified,
                                    paligemmas_one_based_positions_are_warned, a_retrieval_model_is_its_vlm_config,
                                    claps_text_rows_and_its_audio_tower,
                                    wrapper_refusals_name_the_key,
                                    a_dual_encoder_certifies_its_text_table_and_its_tower),
                         TEST_TCASE("run", 300, the_verdict_names_what_pecert_does_not_certify), NULL);
}
