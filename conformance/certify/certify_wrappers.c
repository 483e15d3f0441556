/*
 * certify_wrappers.c - checkpoints that wrap a language model pecert maps:
 * the vision-language and speech-language models whose text model is
 * AutoModel.from_config(config.text_config) (or AutoModelForCausalLM's),
 * so that its positions are the text model's own, read from text_config
 * by that model type's rule.
 *
 * Source of every row: transformers v4.57.6 (753d6110), the wrapper's
 * configuration_*.py (text_config.get("model_type", DEFAULT): the model
 * type an absent key means; the tower's config key and default) and its
 * modeling_*.py (the language model built from text_config, and what the
 * wrapper does to position_ids before it hands them over: nothing, but
 * for PaliGemma). A config.json without text_config is refused: the
 * wrapper then builds a text config of its own overrides, which pecert
 * does not hold.
 */
#include "certify_reads.h"

#include <stdio.h>
#include <string.h>

enum { TEXT_FREE = 0, TEXT_FORCED = 1, TEXT_FORCED_NAMED = 2 };

typedef struct wrapper_rule {
    const char *model_type;
    const char *config_class;
    const char *text_default; /* the text model type an absent key means */
    /* TEXT_FORCED: the config class builds text_default's class from
     * text_config whatever its model_type says (Ovis2Config:
     * Qwen2Config(**text_config)); TEXT_FORCED_NAMED: only when it names a
     * model_type, any (AriaConfig), and leaves a dict without one as it is. */
    int text_forced;
    const char *tower_key;     /* the other tower's config key; NULL: none */
    const char *tower_default; /* its model_type when the key is absent, or
                                * its fixed config class                  */
    int tower_fixed;           /* the class is fixed, whatever is stated  */
    /* Defaults the config class puts under the given text_config fields
     * (VoxtralConfig: {**_default_text_config_kwargs, **text_config}), as
     * JSON; NULL: the text model's own class defaults apply. */
    const char *text_defaults;
    /* What the wrapper does to the text model's positions, when it does
     * something: said as a warning (pecert certifies the rotation at the
     * positions it is given, not the ids the wrapper computes). */
    const char *positions;
} wrapper_rule;

static const wrapper_rule wrappers[] = {
    {"llava", "LlavaConfig", "llama", 0, "vision_config", "clip_vision_model", 0, NULL, NULL},
    {"llava_next", "LlavaNextConfig", "llama", 0, "vision_config", "clip_vision_model", 0, NULL, NULL},
    {"llava_next_video", "LlavaNextVideoConfig", "llama", 0, "vision_config", "clip_vision_model", 0, NULL, NULL},
    {"llava_onevision", "LlavaOnevisionConfig", "qwen2", 0, "vision_config", "siglip_vision_model", 0, NULL, NULL},
    {"vipllava", "VipLlavaConfig", "llama", 0, "vision_config", "clip_vision_model", 0, NULL, NULL},
    {"video_llava", "VideoLlavaConfig", "llama", 0, "vision_config", "clip_vision_model", 0, NULL, NULL},
    {"aya_vision", "AyaVisionConfig", "cohere2", 0, "vision_config", "siglip_vision_model", 0, NULL, NULL},
    {"cohere2_vision", "Cohere2VisionConfig", "cohere2", 0, "vision_config", "siglip_vision_model", 0, NULL, NULL},
    {"mistral3", "Mistral3Config", "mistral", 0, "vision_config", "pixtral", 0, NULL, NULL},
    {"internvl", "InternVLConfig", "qwen2", 0, "vision_config", "InternVLVisionConfig", 1, NULL, NULL},
    {"got_ocr2", "GotOcr2Config", "qwen2", 0, "vision_config", "GotOcr2VisionConfig", 1, NULL, NULL},
    {"ovis2", "Ovis2Config", "qwen2", TEXT_FORCED, "vision_config", "Ovis2VisionConfig", 1, NULL, NULL},
    {"perception_lm", "PerceptionLMConfig", "llama", 0, "vision_config", "TimmWrapperConfig", 1, NULL, NULL},
    {"idefics2", "Idefics2Config", "mistral", 0, "vision_config", "Idefics2VisionConfig", 1, NULL, NULL},
    {"idefics3", "Idefics3Config", "llama", 0, "vision_config", "Idefics3VisionConfig", 1, NULL, NULL},
    {"smolvlm", "SmolVLMConfig", "llama", 0, "vision_config", "SmolVLMVisionConfig", 1, NULL, NULL},
    {"deepseek_vl", "DeepseekVLConfig", "llama", 0, "vision_config", "siglip_vision_model", 0, NULL, NULL},
    {"deepseek_vl_hybrid", "DeepseekVLHybridConfig", "llama", 0, "vision_config", "siglip_vision_model", 0, NULL, NULL},
    {"janus", "JanusConfig", "llama", 0, "vision_config", "JanusVisionConfig", 1, NULL, NULL},
    {"qwen2_audio", "Qwen2AudioConfig", "qwen2", 0, "audio_config", "qwen2_audio_encoder", 0, NULL, NULL},
    /* VoxtralConfig._default_text_config_kwargs, under text_config's own. */
    {"voxtral", "VoxtralConfig", "llama", 0, "audio_config", "voxtral_encoder", 0,
     "{\"vocab_size\": 131072, \"hidden_size\": 3072, \"intermediate_size\": 8192, \"num_hidden_layers\": 30, "
     "\"num_key_value_heads\": 8, \"max_position_embeddings\": 131072, \"rms_norm_eps\": 1e-05, "
     "\"use_cache\": true, \"rope_theta\": 100000000.0, \"head_dim\": 128}",
     NULL},
    /* FuyuModel: image patches enter the text model through a linear
     * projection (vision_embed_tokens), with no tower and no position of
     * their own: the text model's positions are all there is. */
    {"fuyu", "FuyuConfig", "persimmon", 0, NULL, NULL, 0, NULL, NULL},
    /* AriaConfig builds AriaTextConfig from text_config only when it names
     * its model_type (a dict without one stays a dict the model cannot
     * use): refused then, as enter_text_config requires. */
    {"aria", "AriaConfig", "aria_text", TEXT_FORCED_NAMED, "vision_config", "Idefics3VisionConfig", 1, NULL, NULL},
    /* Emu3Config: Emu3TextConfig(**text_config) always, the language model
     * Emu3TextModel; images enter as VQ-VAE tokens of the text sequence,
     * with no tower and no positions of their own. */
    {"emu3", "Emu3Config", "emu3_text_model", TEXT_FORCED, NULL, NULL, 0, NULL, NULL},
    {"lfm2-vl", "Lfm2VlConfig", "lfm2", 0, "vision_config", "siglip2_vision_model", 0, NULL, NULL},
    /* BLIP-2 and InstructBLIP: the language model
     * AutoModelForCausalLM.from_config(text_config) (OPT when it names
     * none; a T5 is refused, as every T5 text model is), fed the Q-Former's
     * query outputs and the text as one sequence with its attention mask,
     * numbered by the language model's own rule. BLIP-2's Q-Former reads
     * learned queries only; InstructBLIP's also reads the instruction's
     * tokens, at rows of a learned table of its own: named. */
    {"blip-2", "Blip2Config", "opt", 0, "vision_config", "Blip2VisionConfig", 1, NULL, NULL},
    {"instructblip", "InstructBlipConfig", "opt", 0, "vision_config", "InstructBlipVisionConfig", 1, NULL,
     "InstructBLIP's Q-Former numbers the instruction's tokens in a learned table of its own "
     "(qformer_config.max_position_embeddings rows, row p): not certified"},
    {"instructblipvideo", "InstructBlipVideoConfig", "opt", 0, "vision_config", "InstructBlipVideoVisionConfig", 1,
     NULL,
     "InstructBLIP-Video's Q-Former numbers the instruction's tokens in a learned table of its own "
     "(qformer_config.max_position_embeddings rows, row p): not certified"},
    /* Florence2Model: the language model AutoModel.from_config(text_config)
     * (BART when text_config names none), fed the image features and the
     * text embeddings as one sequence, which BART numbers as it numbers
     * any; the DaViT tower (learned 2-D and cosine 1-D positions) named. */
    {"florence2", "Florence2Config", "bart", 0, "vision_config", "Florence2VisionConfig", 1, NULL, NULL},
    /* ShieldGemma2ForImageClassification: AutoModelForImageTextToText
     * builds Gemma3ForConditionalGeneration from the whole config, its
     * language model Gemma 3's text model from text_config (gemma3_text
     * when it names none), whose positions Gemma3Model passes as given
     * (cache_position when none). */
    {"shieldgemma2", "ShieldGemma2Config", "gemma3_text", 0, "vision_config", "siglip_vision_model", 0, NULL, NULL},
    {"granite_speech", "GraniteSpeechConfig", "granite", 0, "encoder_config", "GraniteSpeechEncoderConfig", 1, NULL,
     NULL},
    /* Dual encoders and their kin: the config class builds a fixed text
     * class from text_config (CLIPConfig: CLIPTextConfig(**text_config)),
     * whose learned table (or Kosmos-2's fairseq sinusoid) is the text
     * model's positions; the vision tower's table is certified where it is
     * ViT's (certify_vision.c), else named. */
    {"clip", "CLIPConfig", "clip_text_model", TEXT_FORCED, "vision_config", "CLIPVisionConfig", 1, NULL, NULL},
    {"siglip", "SiglipConfig", "siglip_text_model", TEXT_FORCED, "vision_config", "SiglipVisionConfig", 1, NULL, NULL},
    {"siglip2", "Siglip2Config", "siglip2_text_model", TEXT_FORCED, "vision_config", "Siglip2VisionConfig", 1, NULL,
     NULL},
    /* AIMv2 (Aimv2Config): CLIP's text rows; its tower's fixed table is
     * aimv2_vision_model's own rule (certify_fixed_tables.c), named here. */
    {"aimv2", "Aimv2Config", "aimv2_text_model", TEXT_FORCED, "vision_config", "Aimv2VisionConfig", 1, NULL, NULL},
    /* CLAP (ClapConfig): ClapTextConfig(**text_config), RoBERTa's rows from
     * pad_token_id (ClapTextEmbeddings); the audio encoder (HTSAT, Swin's
     * windows and relative bias index over a spectrogram) named. */
    {"clap", "ClapConfig", "clap_text_model", TEXT_FORCED, "audio_config", "ClapAudioConfig", 1, NULL, NULL},
    {"chinese_clip", "ChineseCLIPConfig", "chinese_clip_text_model", TEXT_FORCED, "vision_config",
     "ChineseCLIPVisionConfig", 1, NULL, NULL},
    {"metaclip_2", "MetaClip2Config", "metaclip_2_text_model", TEXT_FORCED, "vision_config", "MetaClip2VisionConfig", 1,
     NULL, NULL},
    {"altclip", "AltCLIPConfig", "altclip_text_model", TEXT_FORCED, "vision_config", "AltCLIPVisionConfig", 1, NULL,
     NULL},
    {"owlvit", "OwlViTConfig", "owlvit_text_model", TEXT_FORCED, "vision_config", "OwlViTVisionConfig", 1, NULL, NULL},
    {"owlv2", "Owlv2Config", "owlv2_text_model", TEXT_FORCED, "vision_config", "Owlv2VisionConfig", 1, NULL, NULL},
    {"kosmos-2", "Kosmos2Config", "kosmos_2_text_model", TEXT_FORCED, "vision_config", "Kosmos2VisionConfig", 1, NULL,
     NULL},
    /* Kosmos-2.5: Kosmos2_5Config builds Kosmos2_5TextConfig(**text_config),
     * whose sinusoid is Kosmos-2's (Kosmos2_5TextSinusoidalPositionalEmbedding,
     * a copy); its vision encoder is Pix2Struct's (learned row and column
     * tables per patch), named. */
    {"kosmos-2.5", "Kosmos2_5Config", "kosmos_2_5_text_model", TEXT_FORCED, "vision_config", "Kosmos2_5VisionConfig",
     1, NULL, NULL},
    /* Towers of their own kind, named: GroupViT's never resizes its table
     * (the flag is not passed), BLIP's slices it, X-CLIP's is per frame of
     * a video, BridgeTower's sizes its heads by hidden_size // 64. */
    {"groupvit", "GroupViTConfig", "groupvit_text_model", TEXT_FORCED, "vision_config", "GroupViTVisionConfig", 1, NULL,
     NULL},
    {"blip", "BlipConfig", "blip_text_model", TEXT_FORCED, "vision_config", "BlipVisionConfig", 1, NULL, NULL},
    {"xclip", "XCLIPConfig", "xclip_text_model", TEXT_FORCED, "vision_config", "XCLIPVisionConfig", 1, NULL, NULL},
    {"bridgetower", "BridgeTowerConfig", "bridgetower_text_model", TEXT_FORCED, "vision_config",
     "BridgeTowerVisionConfig", 1, NULL, NULL},
    {"clipseg", "CLIPSegConfig", "clipseg_text_model", TEXT_FORCED, "vision_config", "CLIPSegVisionConfig", 1, NULL,
     NULL},
    {"align", "AlignConfig", "align_text_model", TEXT_FORCED, "vision_config", "AlignVisionConfig", 1, NULL, NULL},
    {"flava", "FlavaConfig", "flava_text_model", TEXT_FORCED, "image_config", "FlavaImageConfig", 1, NULL, NULL},
    /* PaliGemmaModel.forward: position_ids = cache_position.unsqueeze(0)
     * + 1 when none are given ("Paligemma positions are 1-indexed"). */
    {"paligemma", "PaliGemmaConfig", "gemma", 0, "vision_config", "siglip_vision_model", 0, NULL,
     "PaliGemmaModel hands the text model positions from 1 (cache_position + 1): pecert certifies the rotation at "
     "the positions given, not that offset"},
};
#define N_WRAPPERS (sizeof(wrappers) / sizeof(wrappers[0]))

const wrapper_rule *cfg_find_wrapper(const char *model_type)
{
    for (size_t i = 0; i < N_WRAPPERS; i++) {
        if (strcmp(wrappers[i].model_type, model_type) == 0) {
            return &wrappers[i];
        }
    }
    return NULL;
}

const char *cfg_wrapper_text_type(const wrapper_rule *w, const cJSON *text, const char **stated)
{
    const cJSON *inner = cJSON_IsObject(text) ? cfg_get(text, "model_type") : NULL;
    *stated = cJSON_IsString(inner) ? inner->valuestring : NULL;
    return w->text_forced || *stated == NULL ? w->text_default : *stated;
}

int cfg_wrapper_check_text(map_ctx *c, const wrapper_rule *w, const char *stated)
{
    if (w->text_forced == TEXT_FORCED_NAMED && stated == NULL) {
        return cfg_fail(c, "text_config.model_type", "required: %s builds its text model only from a text_config that "
                        "names a model_type (a dict without one stays a dict the model cannot use)", w->config_class);
    }
    if (w->text_forced && stated != NULL && strcmp(stated, w->text_default) != 0) {
        return cfg_fail(c, "text_config.model_type",
                        "'%.40s': %s builds its text model as '%s' whatever this says; "
                        "pecert refuses the contradiction",
                        stated, w->config_class, w->text_default);
    }
    return 0;
}

int cfg_wrapper_fill_text(map_ctx *c, const wrapper_rule *w)
{
    if (w->text_defaults == NULL) {
        return 0;
    }
    cJSON *merged = cJSON_Parse(w->text_defaults);
    if (merged == NULL) {
        return cfg_fail(c, "text_config", "out of memory");
    }
    const cJSON *item = NULL;
    cJSON_ArrayForEach(item, c->root)
    {
        cJSON_DeleteItemFromObjectCaseSensitive(merged, item->string);
        cJSON *copy = cJSON_Duplicate(item, 1);
        if (copy == NULL || !cJSON_AddItemToObject(merged, item->string, copy)) {
            cJSON_Delete(copy);
            cJSON_Delete(merged);
            return cfg_fail(c, "text_config", "out of memory");
        }
    }
    cJSON_Delete(c->owned);
    c->owned = merged;
    c->root = merged;
    return 0;
}

/* The wrapper's other tower, which pecert does not certify (a learned
 * table, a relative bias, an audio encoder): named in the description,
 * never silently passed over. A tower pecert does certify (Pixtral's 2-D
 * RoPE) is certify_vision.c's. */
/* A vision tower pecert does not certify in this wrapper: not a 2-D RoPE,
 * and no table the wrapper resizes as ViT's. */
#define TOWER_NOT_CERTIFIED "a tower without 2-D RoPE, not certified by pecert"

void cfg_wrapper_note_tower(map_ctx *c, const wrapper_rule *w)
{
    pecert_certify_model *m = c->m;
    if (w->tower_key == NULL || m->vision.tower[0] != '\0' || m->vision_note[0] != '\0') {
        return;
    }
    const cJSON *tower = cfg_get(c->doc, w->tower_key);
    const cJSON *mt = cJSON_IsObject(tower) ? cfg_get(tower, "model_type") : NULL;
    const int audio = strcmp(w->tower_key, "vision_config") != 0 && strcmp(w->tower_key, "image_config") != 0;
    m->audio_tower = audio;
    if (w->tower_fixed) {
        snprintf(m->vision_note, sizeof(m->vision_note), "%s (%s, fixed by %s): %s", w->tower_key, w->tower_default,
                 w->config_class, audio ? "an audio tower, not certified by pecert" : TOWER_NOT_CERTIFIED);
        return;
    }
    snprintf(m->vision_note, sizeof(m->vision_note), "%s.model_type '%.40s'%s%s%s: %s", w->tower_key,
             cJSON_IsString(mt) ? mt->valuestring : w->tower_default, cJSON_IsString(mt) ? "" : " (",
             cJSON_IsString(mt) ? "" : w->config_class, cJSON_IsString(mt) ? "" : "'s default)",
             audio ? "an audio tower, not certified by pecert" : TOWER_NOT_CERTIFIED);
}

void cfg_wrapper_warn_positions(map_ctx *c, const wrapper_rule *w)
{
    if (w->positions != NULL) {
        snprintf(c->m->position_note, sizeof(c->m->position_note), "%s", w->positions);
        const char *prefix = c->key_prefix;
        c->key_prefix = ""; /* the wrapper's, not text_config's */
        cfg_warn(c, "position_ids", "%s", w->positions);
        c->key_prefix = prefix;
    }
}

const char *pecert_certify_wrapper(size_t i, const char **config_class, const char **text_default, const char **how)
{
    if (i >= N_WRAPPERS) {
        return NULL;
    }
    static const char *const hows[] = {" unless it names another model_type", ", always (naming another is refused)",
                                       ", which must name a model_type (any)"};
    *config_class = wrappers[i].config_class;
    *text_default = wrappers[i].text_default;
    *how = hows[wrappers[i].text_forced];
    return wrappers[i].model_type;
}
