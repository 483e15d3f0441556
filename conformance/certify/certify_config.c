/*
 * certify_config.c - config.json -> pecert_certify_model: the table of
 * model_types and the readers it picks (certify_llama.c: the Llama-like
 * decoders; certify_families.c: every other family), and the walk of the
 * document (text_config, vision_config). rope_scaling is
 * certify_scaling.c's, layer types certify_layers.c's, the description
 * certify_describe.c's and the files certify_profiles.c's.
 *
 * Source of every rule: transformers v4.57.6 (753d6110), the model's
 * configuration_*.py (which keys it reads, defaults, legacy spellings) and
 * modeling_rope_utils.py (_validate_* key sets per rope_type, the
 * _compute_* functions that consume them).
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "json_text.h"
#include "vectors.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- the model_type table --------------------------------------------- */

typedef struct model_rule {
    const char *model_type;
    int (*map)(map_ctx *c);
    pecert_rope_pairing pairing;  /* of the model's apply code           */
    int type_overrides_rope_type; /* map_ctx: the config class's BC copy  */
    int runs_validation;          /* map_ctx: rope_config_validation      */
} model_rule;

/* Flags per config class in transformers v4.57.6: LlamaConfig, Qwen2Config,
 * Qwen2VLTextConfig, PhiConfig, GptOssConfig, DeepseekV2/V3Config and
 * GPTNeoXConfig copy "type" over "rope_type" and run
 * rope_config_validation; MistralConfig, MixtralConfig, GemmaConfig and
 * Llama4TextConfig do neither; Phi3Config (and Phi4MultimodalConfig, its
 * copy) runs its own, stricter _rope_scaling_validation
 * (check_phi3_scaling), Olmo2Config its own
 * (check_olmo2_scaling).
 * Pairing per model's reference code in transformers v4.57.6: rotate_half
 * (split half) in modeling_llama & co; GPT-J rotate_every_two and
 * DeepSeek-V2's complex multiply (view_as_complex of adjacent pairs),
 * DeepSeek-V3's apply_rotary_pos_emb_interleave (rope_interleave) are
 * interleaved.
 * The model types added from the inventory (conformance/profiles/
 * INVENTORY.md), each read in transformers v4.57.6: Qwen3Config,
 * Qwen3MoeConfig, SeedOssConfig, ApertusConfig, ArceeConfig,
 * StableLmConfig and Ernie4_5Config copy "type" and validate;
 * GraniteConfig and CohereConfig validate without copying (rope_type wins,
 * as their rotary modules read it first); Olmo2Config, MinistralConfig,
 * Gemma2Config, Glm4Config and HeliumConfig do neither. Every one builds
 * inv_freq through ROPE_INIT_FUNCTIONS (head_dim, partial_rotary_factor).
 * Pairing: their rotate_half splits the halves (x[..., : d // 2]) except
 * Cohere's, ERNIE 4.5's, GLM-4's and Helium's, which take x[..., 0::2] and
 * x[..., 1::2] against cos/sin repeated by repeat_interleave(2): adjacent
 * pairs, GLM-4's on the first rotary_dim channels only. Qwen2_5_VLTextConfig
 * copies "type" (mrope read as default) and validates like Qwen2-VL's, and
 * its apply_multimodal_rotary_pos_emb is Qwen2-VL's. Second round:
 * OlmoeConfig, Qwen2MoeConfig, Starcoder2Config, Ernie4_5_MoeConfig,
 * Glm4MoeConfig and SmolLM3Config copy "type" and validate;
 * Gemma3TextConfig, Cohere2Config, NemotronConfig, Qwen3VLTextConfig and
 * Qwen3NextConfig validate without copying; Exaone4Config does neither. Split halves for
 * all but Cohere 2's and ERNIE 4.5 MoE's adjacent pairs; GLM-4.5
 * (glm4_moe), Nemotron and Qwen3-Next slice the rotary channels off in
 * their apply,
 * like Phi-3 (check_model_quirks and map_layers hold what else differs).
 * Third round: GraniteMoeConfig validates without copying (GraniteMoe's
 * heads are hidden_size / heads, like OLMoE's); FalconConfig and
 * HunYuanDenseV1Config do neither, and have their own mappers
 * (cfg_map_falcon: key/value heads, ALiBi with the bias before the score
 * scale; cfg_map_hunyuan: the dynamic-alpha fixed base). All split halves.
 * Fourth round (issue 47): FlexOlmoConfig, DiffLlamaConfig, PersimmonConfig
 * and DogeConfig copy "type" and validate; Olmo3Config and
 * GraniteMoeSharedConfig validate without copying (GraniteMoeShared is
 * GraniteMoE's attention and position_embedding_type rule); OlmoConfig,
 * BitNetConfig, Dots1Config, VaultGemmaConfig and GlmConfig do neither.
 * Split halves but GLM's adjacent pairs on its first rotary_dim channels
 * (GLM-4's apply); Persimmon's attention splits its partial head as Phi's
 * does. Olmo3's, Dots1's and VaultGemma's layer_types differ in their
 * attention window only: every layer rotates alike. Lfm2Config neither
 * copies nor validates; its "conv" layers have no attention, its
 * attention layers all rotate alike (the rotary module reads a
 * rope_scaling config.json sets, rope_type first). FalconH1Config and
 * MiniMaxConfig neither copy nor validate, AriaTextConfig does both;
 * Falcon-H1's layers all attend (beside their Mamba mixer) and its
 * key_multiplier scales k before the rotation, not the rotation;
 * MiniMax's linear-attention layers have no positions (warned).
 * Emu3TextConfig (emu3_text_model, reached through Emu3Config's
 * text_config) validates without copying. LongcatFlashConfig copies and
 * validates; its MLA rotates the qk_rope_head_dim slice with DeepSeek-V3's
 * apply_rotary_pos_emb_interleave (adjacent pairs) and scales the softmax
 * by mscale^2 as DeepSeek-V3 does (warned). MimiConfig (the audio codec's
 * transformers, every layer rotated) neither copies nor validates, nor does
 * JetMoeConfig (head_dim its kv_channels). MoonshineConfig validates
 * without copying; its encoder and decoder rotate GLM's way (adjacent
 * pairs, part of the head). CsmConfig (the backbone's
 * fields at the top) copies and validates; its depth decoder is named as
 * not certified. ChameleonConfig runs Olmo2's strict validation (linear or
 * dynamic with a factor > 1, nothing else); its rotary classes are its
 * own (linear divides the positions by the factor, the same angles), and
 * its dynamic one is stateful (refused). Fifth round: BambaConfig neither
 * copies nor validates; its Mamba layers have no positions, its attention
 * layers (attn_layer_indices) all rotate alike, the first half of each
 * head (its apply slices q[..., :rotary_dim], GLM's modular copy).
 * Each is held to the model's own outputs by a profile's vectors or
 * vectors/mappings/ (tests/inventory/check_inventory.py). */
static const model_rule model_rules[] = {
    {"llama", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"mistral", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mixtral", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"qwen2", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen2_vl", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen2_5_vl", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    /* Qwen2.5-Omni's thinker (reached through qwen2_5_omni's thinker_config,
     * map_omni): Qwen2_5OmniTextConfig from its text_config copies and
     * validates, then defaults rope_scaling to M-RoPE [16, 24, 24]. */
    {"qwen2_5_omni_thinker", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    /* Qwen3-Omni's thinker: Qwen3OmniMoeTextConfig copies a legacy type and
     * validates; its rotary class interleaves the sections (Qwen3-VL's). */
    {"qwen3_omni_moe_thinker", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen3_vl", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"qwen3_vl_moe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"qwen2_vl_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen2_5_vl_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen3_vl_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"qwen3_vl_moe_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"glm4v", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"glm4v_text", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"glm4v_moe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"glm4v_moe_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"phi3", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"phi4_multimodal", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"phi", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"gemma", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"gpt_oss", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen3", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen3_moe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"seed_oss", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"apertus", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"arcee", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"stablelm", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"granite", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"granitemoe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"olmo2", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ministral", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"gemma2", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ernie4_5", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"cohere", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 1},
    {"glm4", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"helium", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"moonshine", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 1},
    {"open-llama", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"phimoe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"modernbert-decoder", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"modernbert", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mllama_text_model", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"granitemoehybrid", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"t5gemma", cfg_map_stacks, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dia", cfg_map_stacks, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"moshi", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"kyutai_speech_to_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"recurrent_gemma", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"olmoe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"qwen2_moe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"starcoder2", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"ernie4_5_moe", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"glm4_moe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"nemotron", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"qwen3_next", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"gemma3_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"gemma3n_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"smollm3", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"cohere2", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 1},
    {"exaone4", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"deepseek_v2", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"deepseek_v3", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"olmo", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"EvollaModel", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"olmo3", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"flex_olmo", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"bitnet", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"granitemoeshared", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"diffllama", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"dots1", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vaultgemma", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"persimmon", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"glm", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"doge", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"lfm2", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"falcon_h1", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"aria_text", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"minimax", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"emu3_text_model", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 1},
    {"longcat_flash", cfg_map_llama_like, PECERT_PAIRING_INTERLEAVED, 1, 1},
    {"mimi", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"jetmoe", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"csm", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"chameleon", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bamba", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"esm", cfg_map_esm, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"llama4_text", cfg_map_llama4_text, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"gpt_neox", cfg_map_gpt_neox, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"gpt_neox_japanese", cfg_map_gpt_neox, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"gptj", cfg_map_gptj, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"codegen", cfg_map_gptj, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"falcon", cfg_map_falcon, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"hunyuan_v1_dense", cfg_map_hunyuan, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"hunyuan_v1_moe", cfg_map_hunyuan, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bloom", cfg_map_bloom, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mpt", cfg_map_mpt, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dbrx", cfg_map_dbrx, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"idefics", cfg_map_idefics, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"roformer", cfg_map_roformer, PECERT_PAIRING_INTERLEAVED, 0, 0},
    {"mega", cfg_map_mega, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"wav2vec2-conformer", cfg_map_conformer_rotary, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"t5", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"wavlm", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mt5", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"umt5", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"switch_transformers", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"pop2piano", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"longt5", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"pix2struct", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"cpmant", cfg_map_t5, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"swin", cfg_map_swin, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"beit", cfg_map_beit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"data2vec-vision", cfg_map_beit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"donut-swin", cfg_map_swin, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"maskformer-swin", cfg_map_swin, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"swinv2", cfg_map_swin, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"swin2sr", cfg_map_swin, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"detr", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"table-transformer", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"conditional_detr", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"deformable_detr", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"deta", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"grounding-dino", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mm-grounding-dino", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dab-detr", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"maskformer", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mask2former", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"oneformer", cfg_map_sine2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"rt_detr", cfg_map_sincos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"rt_detr_v2", cfg_map_sincos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"d_fine", cfg_map_sincos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"omdet-turbo", cfg_map_sincos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"sam", cfg_map_relpos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"sam_vision_model", cfg_map_relpos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"sam_hq", cfg_map_relpos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"sam_hq_vision_model", cfg_map_relpos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vitdet", cfg_map_relpos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"seggpt", cfg_map_relpos2d, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"roberta", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"xlm-roberta", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"xlm-roberta-xl", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"camembert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"roberta-prelayernorm", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"xmod", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"electra", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ernie", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"megatron-bert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bert-generation", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"roc_bert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"albert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"convbert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"rembert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"splinter", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mobilebert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"blenderbot", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"blenderbot-small", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"opt", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"biogpt", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bart", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mbart", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"plbart", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mvp", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"gpt2", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"marian", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"pegasus", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ctrl", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"seamless_m4t", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"seamless_m4t_v2", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"m2m_100", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"nllb-moe", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"fsmt", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"speech_to_text", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"xglm", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"pegasus_x", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"xlm", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"flaubert", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"distilbert", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"trocr", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"videomae", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"clip_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"siglip_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"siglip2_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"aimv2_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"clap_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"canine", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bark", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"prophetnet", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"layoutlmv2", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"xlm-prophetnet", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"chinese_clip_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"metaclip_2_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"altclip_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"owlvit_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"owlv2_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"groupvit_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"blip_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"xclip_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bridgetower_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"kosmos_2_text_model", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"kosmos_2_5_text_model", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"clip_vision_model", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"chinese_clip_vision_model", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"siglip_vision_model", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"siglip2_vision_model", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vit_msn", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ijepa", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"internvl_vision", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"whisper", cfg_map_sinusoidal, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"big_bird", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"realm", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"qdqbert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"lxmert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"retribert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"git", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"squeezebert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"layoutlm", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"visual_bert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"deberta", cfg_map_deberta, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"deberta-v2", cfg_map_deberta, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"gpt_bigcode", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"openai-gpt", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"imagegpt", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"gpt_neo", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bigbird_pegasus", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"led", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"longformer", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"data2vec-text", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ibert", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"lilt", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"markuplm", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"layoutlmv3", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vilt", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"perceiver", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"decision_transformer", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"trajectory_transformer", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"fnet", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"bros", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mpnet", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"luke", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"nystromformer", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mra", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"yoso", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"ernie_m", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"clipseg_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"align_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"flava_text_model", cfg_map_learned_text, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"pixtral", cfg_map_rope2d_tower, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mlcd_vision_model", cfg_map_rope2d_tower, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"audio-spectrogram-transformer", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"eomt", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"mgp-str", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"aimv2_vision_model", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"pvt", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vivit", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vit-hybrid", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"hiera", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"timesformer", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"yolos", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"idefics3_vision", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"smolvlm_vision", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vitpose_backbone", cfg_map_fixed_table, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vit", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"deit", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dinov2", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dinov2_with_registers", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dpt", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"vit_mae", cfg_map_vit, PECERT_PAIRING_SPLIT_HALF, 0, 0},
};

/* The text model type a Qwen-VL wrapper builds from text_config, or NULL
 * for a text model's own type. Qwen3-VL's config classes read text_config
 * only; Qwen2-VL's take the released top-level fields when there is none. */
static const char *qwen_vl_text_type(const char *model_type)
{
    static const char *const pairs[][2] = {{"qwen2_vl", "qwen2_vl_text"},
                                           {"qwen2_5_vl", "qwen2_5_vl_text"},
                                           {"qwen2_5_omni_thinker", "qwen2_5_omni_text"},
                                           {"qwen3_omni_moe_thinker", "qwen3_omni_moe_text"},
                                           {"qwen3_vl", "qwen3_vl_text"},
                                           {"qwen3_vl_moe", "qwen3_vl_moe_text"},
                                           {"glm4v", "glm4v_text"},
                                           {"glm4v_moe", "glm4v_moe_text"}};
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        if (strcmp(pairs[i][0], model_type) == 0) {
            return pairs[i][1];
        }
    }
    return NULL;
}

/* The stacks of an encoder-decoder that have no model type of their own
 * in a config.json (certify_stacks.c maps them, each by its class's
 * Llama-shaped rule): T5GemmaModuleConfig copies no legacy "type" and runs
 * no validation; DiaEncoderConfig and DiaDecoderConfig do both. */
static const model_rule nested_rules[] = {
    {"t5_gemma_module", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 0, 0},
    {"dia_encoder", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
    {"dia_decoder", cfg_map_llama_like, PECERT_PAIRING_SPLIT_HALF, 1, 1},
};

int cfg_map_nested(map_ctx *c, const cJSON *obj, const char *prefix, const char *rule_type)
{
    const model_rule *rule = NULL;
    for (size_t i = 0; i < sizeof(nested_rules) / sizeof(nested_rules[0]); i++) {
        if (strcmp(nested_rules[i].model_type, rule_type) == 0) {
            rule = &nested_rules[i];
        }
    }
    if (rule == NULL) {
        return cfg_fail(c, "model_type", "no nested rule '%s' (a bug in pecert)", rule_type);
    }
    c->root = obj;
    c->key_prefix = prefix;
    snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", rule_type);
    c->m->pairing = rule->pairing;
    c->type_overrides_rope_type = rule->type_overrides_rope_type;
    c->runs_validation = rule->runs_validation;
    c->m->rope.struct_size = sizeof(c->m->rope);
    return rule->map(c);
}

/* What a model_type's mapping reads, in words, by its mapper. */
static const char *mapping_words(const char *model_type, int (*map)(map_ctx *c))
{
    if (map == cfg_map_llama_like && strcmp(model_type, "gemma3_text") == 0) {
        return "RoPE per layer: full layers rope_theta + rope_scaling, sliding layers rope_local_base_freq "
               "(layer_types or sliding_window_pattern; text_config of gemma3)";
    }
    if (map == cfg_map_llama_like && strcmp(model_type, "gemma3n_text") == 0) {
        return "RoPE per layer: full layers rope_theta + rope_scaling, sliding layers rope_local_base_freq "
               "(layer_types, else a full layer every fifth; text_config of gemma3n)";
    }
    if (map == cfg_map_llama_like && strcmp(model_type, "mllama_text_model") == 0) {
        return "RoPE per layer: rope_theta, rope_scaling (required, with rope_type); NoPE on the "
               "cross_attention_layers (text_config of mllama)";
    }
    if (map == cfg_map_llama_like && strcmp(model_type, "modernbert") == 0) {
        return "RoPE per layer: global layers global_rope_theta, local ones local_rope_theta "
               "(global_attn_every_n_layers)";
    }
    if (map == cfg_map_llama_like && strcmp(model_type, "smollm3") == 0) {
        return "RoPE per layer: rope_theta, rope_scaling; NoPE where no_rope_layers is 0";
    }
    if (map == cfg_map_llama_like && (strcmp(model_type, "cohere2") == 0 || strcmp(model_type, "exaone4") == 0)) {
        return "RoPE per layer: rope_theta, rope_scaling on the sliding-window layers; NoPE on the others "
               "(layer_types or sliding_window_pattern)";
    }
    if (map == cfg_map_llama_like && cfg_is_qwen3_vl(model_type)) {
        return qwen_vl_text_type(model_type) != NULL
                   ? "interleaved M-RoPE: text_config's rope_theta, rope_scaling (required) with mrope_section "
                     "(default [24, 20, 20]), head_dim"
                   : "interleaved M-RoPE: rope_theta, rope_scaling (required) with mrope_section (default "
                     "[24, 20, 20]), head_dim";
    }
    if (map == cfg_map_llama_like && cfg_is_qwen_vl(model_type)) {
        return qwen_vl_text_type(model_type) != NULL
                   ? "M-RoPE: rope_theta, rope_scaling with mrope_section, head_dim (text_config when nested)"
                   : "M-RoPE: rope_theta, rope_scaling with mrope_section, head_dim";
    }
    if (map == cfg_map_sinusoidal) {
        return cfg_sinusoidal_words(model_type);
    }
    if (map == cfg_map_t5 && strcmp(model_type, "cpmant") == 0) {
        return "T5 buckets (bidirectional): position_bias_num_buckets, position_bias_max_distance";
    }
    if (map == cfg_map_t5 && strcmp(model_type, "pix2struct") == 0) {
        return "T5 buckets: text_config's relative_attention_num_buckets, max_distance";
    }
    return map == cfg_map_llama_like ? "RoPE: rope_theta, rope_scaling, head_dim, partial_rotary_factor"
           : map == cfg_map_llama4_text
               ? "RoPE: text_config (llama3 when rope_scaling is set); NoPE where no_rope_layers is 0"
           : map == cfg_map_gpt_neox ? "RoPE: rotary_pct, rotary_emb_base, rope_scaling"
           : map == cfg_map_gptj     ? "RoPE: rotary_dim"
           : map == cfg_map_esm      ? "RoPE with position_embedding_type rotary: hidden_size / num_attention_heads "
                                       "at base 10000; else learned: RoBERTa's rows from pad_token_id"
           : map == cfg_map_hunyuan  ? "RoPE: rope_theta, head_dim (required), rope_scaling; dynamic with alpha is a "
                                       "fixed base rope_theta * alpha^(d/(d-2))"
           : map == cfg_map_falcon   ? "RoPE: rope_theta, rope_scaling, num_kv_heads / multi_query; ALiBi scaled "
                                       "by 1/sqrt(head_dim) when alibi is true"
           : map == cfg_map_bloom    ? "ALiBi: n_head"
           : map == cfg_map_mpt      ? "ALiBi: attn_config.alibi, alibi_bias_max"
           : map == cfg_map_dbrx     ? "RoPE: d_model / n_heads, attn_config.rope_theta, kv_n_heads, max_seq_len"
           : map == cfg_map_idefics  ? "RoPE: hidden_size / num_attention_heads at base 10000 (no positional key); "
                                       "the vision tower named"
           : map == cfg_map_t5       ? "T5 buckets: relative_attention_num_buckets, max_distance"
           : map == cfg_map_swin     ? "Swin window bias index: window_size (square); an absolute table or a "
                                       "continuous bias named"
           : map == cfg_map_beit     ? "Swin's bias index over the whole patch grid (image_size / patch_size) "
                                       "with use_relative_position_bias or its shared form; the class token's "
                                       "entries named"
           : map == cfg_map_sine2d   ? "DETR sine embedding from the pixel mask: the width's half per axis "
                                       "(d_model, hidden_size, hidden_dim), temperatures, Deformable DETR's offset"
           : map == cfg_map_deberta  ? "learned: max_position_embeddings rows; with relative_attention, the "
                                       "disentangled bias: pos_att_type, position_buckets, max_relative_positions"
           : map == cfg_map_sincos2d ? "RT-DETR's 2-D sin-cos table per feature map: encoder_hidden_dim, "
                                       "positional_encoding_temperature; eval_size must be null"
           : map == cfg_map_relpos2d ? "decomposed relative positions: each attention grid (window_size, "
                                       "image_size / patch_size) with tables of 2 side - 1 rows, hidden_size / "
                                       "num_attention_heads"
           : map == cfg_map_rope2d_tower ? "2-D RoPE: the tower itself (its rule below)"
           : map == cfg_map_fixed_table ? "learned: a table for the fixed grid, class rows first, never resized "
                                          "(image_size / patch_size, or AST's spectrogram strides)"
           : map == cfg_map_conformer_rotary ? "RoPE (position_embeddings_type rotary): hidden_size / "
                                                "num_attention_heads at rotary_embedding_base, split_half, on the "
                                                "hidden states before the projections; relative refused"
           : map == cfg_map_mega     ? "RoPE of two learned vectors: shared_representation_size at base 10000, "
                                       "max_positions (chunk_size with use_chunking); relative_positional_bias rotary"
           : map == cfg_map_roformer ? "RoPE: hidden_size / num_attention_heads at base 10000, adjacent pairs, "
                                       "max_position_embeddings rows; rotary_value warned"
           : map == cfg_map_stacks   ? "RoPE of the encoder and the decoder, which must rotate alike: each stack's "
                                       "rope_theta, rope_scaling, head_dim"
           : map == cfg_map_vit      ? "learned: the patch grid's table after its class rows, if any (the towers "
                                       "below say which); resized to other images in the @vision pass"
                                     : "learned: max_position_embeddings / n_positions";
}

const char *pecert_certify_model_type(size_t i, pecert_rope_pairing *pairing, const char **reads)
{
    if (i >= sizeof(model_rules) / sizeof(model_rules[0])) {
        return NULL;
    }
    *pairing = model_rules[i].pairing;
    *reads = mapping_words(model_rules[i].model_type, model_rules[i].map);
    return model_rules[i].model_type;
}

const char *pecert_certify_document(size_t i, const char **key, const char **reads)
{
    static const char *const documents[][3] = {
        {"colpali", "vlm_config", "the vision-language model it names (paligemma when absent), mapped as its own"},
        {"colqwen2", "vlm_config", "the vision-language model it names (qwen2_vl when absent), mapped as its own"},
        {"qwen2_5_omni", "thinker_config",
         "the thinker (qwen2_5_omni_thinker): its text_config's M-RoPE; the talker, token2wav, the audio encoder and "
         "the vision encoder named"},
        {"qwen3_omni_moe", "thinker_config",
         "the thinker (qwen3_omni_moe_thinker): its text_config's interleaved M-RoPE (rope_scaling required); the "
         "talker, code2wav, the audio encoder and the vision encoder named"},
    };
    if (i >= sizeof(documents) / sizeof(documents[0])) {
        return NULL;
    }
    *key = documents[i][1];
    *reads = documents[i][2];
    return documents[i][0];
}

static const model_rule *find_model(const char *model_type)
{
    for (size_t i = 0; i < sizeof(model_rules) / sizeof(model_rules[0]); i++) {
        if (strcmp(model_rules[i].model_type, model_type) == 0) {
            return &model_rules[i];
        }
    }
    return NULL;
}

/* 1 if a and b are one name written with other case or separators ("Qwen2-MoE",
 * "qwen2_moe"): model types are lower case with '_'. */
static int same_name_but_spelling(const char *a, const char *b)
{
    for (;;) {
        while (*a == '_' || *a == '-' || *a == ' ' || *a == '.') {
            a++;
        }
        while (*b == '_' || *b == '-' || *b == ' ' || *b == '.') {
            b++;
        }
        if (*a == '\0' || *b == '\0' || tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
            return *a == '\0' && *b == '\0';
        }
        a++;
        b++;
    }
}

/* The mapped model type a model_type pecert does not know is a spelling
 * of, or NULL. Only spelling: a real model type a letter away from a
 * mapped one (deta, deit) is another model, never a typo of it. */
static const char *same_but_spelling(const char *model_type)
{
    for (size_t i = 0; i < sizeof(model_rules) / sizeof(model_rules[0]); i++) {
        if (same_name_but_spelling(model_type, model_rules[i].model_type)) {
            return model_rules[i].model_type;
        }
    }
    return NULL;
}

/* Llama 4's config.json (model_type llama4, Llama4Config) holds the text
 * model's fields under text_config, which Llama4Config hands to
 * Llama4TextConfig; the vision tower's fields are not positional for the
 * language model. Qwen2VLConfig does the same when text_config is there
 * (a config.json transformers v4.57 saves) and builds the text config from
 * the top-level fields otherwise (the released checkpoints). Reads from
 * text_config, whose model_type must be inner when given. Returns 0, or -1
 * after cfg_fail(). */
static int enter_text_config(map_ctx *c, const char *inner_type)
{
    const cJSON *text = cfg_get(c->root, "text_config");
    if (!cJSON_IsObject(text)) {
        return cfg_fail(c, "text_config", "required for model_type '%s' (an object: the text model's fields)",
                        c->m->model_type);
    }
    const cJSON *inner = cfg_get(text, "model_type");
    /* Glm4vMoeTextConfig.model_type is "Glm4vMoe_text", which its
     * to_dict writes; the registry's key is glm4v_moe_text. */
    int glm4v_moe_spelling = cJSON_IsString(inner) && strcmp(inner_type, "glm4v_moe_text") == 0 &&
                             strcmp(inner->valuestring, "Glm4vMoe_text") == 0;
    if (inner != NULL && !glm4v_moe_spelling &&
        (!cJSON_IsString(inner) || strcmp(inner->valuestring, inner_type) != 0)) {
        return cfg_fail(c, "text_config.model_type", "expected '%s'", inner_type);
    }
    c->root = text;
    c->key_prefix = "text_config.";
    return 0;
}

static int map_document(map_ctx *c);

/* Bark (BarkConfig): three transformers of their own, each a
 * BarkSubModelConfig dict (absent: the class's defaults) whose
 * position_embeds_layer is a learned table of block_size rows: the
 * semantic model's is certified (its own rule, "bark"), the coarse and
 * fine acoustics models' named in its warning. */
static int enter_bark_semantic(map_ctx *c)
{
    const cJSON *semantic = cfg_get(c->root, "semantic_config");
    if (semantic != NULL && !cJSON_IsObject(semantic)) {
        return cfg_fail(c, "semantic_config", "expected an object (BarkSemanticConfig's fields)");
    }
    if (semantic == NULL) {
        c->owned = cJSON_CreateObject();
        if (c->owned == NULL) {
            return cfg_fail(c, "semantic_config", "out of memory");
        }
        semantic = c->owned;
    }
    c->root = semantic;
    c->key_prefix = "semantic_config.";
    return 0;
}

/* The retrieval models ColPali and ColQwen2 (ColPaliForRetrieval:
 * self.vlm = AutoModelForImageTextToText.from_config(config.vlm_config))
 * embed with the vision-language model vlm_config names, whose language
 * model and tower are that model's own: mapped as that document, its keys
 * shown under vlm_config. ColPaliConfig defaults vlm_config to
 * PaliGemmaConfig(), ColQwen2Config to Qwen2VLConfig(); a dict must name
 * its model_type (KeyError otherwise). ColPali's top-level text_config is
 * read by nothing that computes (the model is built from vlm_config). */
static int map_retrieval_vlm(map_ctx *c, const char *outer, const char *default_vlm)
{
    const cJSON *vlm = cfg_get(c->root, "vlm_config");
    if (vlm != NULL && !cJSON_IsObject(vlm)) {
        return cfg_fail(c, "vlm_config", "expected an object (the vision-language model's config)");
    }
    if (vlm != NULL && !cJSON_IsString(cfg_get(vlm, "model_type"))) {
        return cfg_fail(c, "vlm_config.model_type", "required (%s raises KeyError without it)",
                        strcmp(outer, "colpali") == 0 ? "ColPaliConfig" : "ColQwen2Config");
    }
    if (cfg_get(c->root, "text_config") != NULL) {
        cfg_warn(c, "text_config", "read by nothing that computes: the model is built from vlm_config, whose own "
                 "text_config is the one certified");
    }
    cJSON *made = NULL;
    if (vlm == NULL) {
        made = cJSON_CreateObject();
        if (made == NULL || cJSON_AddStringToObject(made, "model_type", default_vlm) == NULL) {
            cJSON_Delete(made);
            return cfg_fail(c, "vlm_config", "out of memory");
        }
        vlm = made;
    }
    const char *inner = cfg_get(vlm, "model_type")->valuestring;
    if (strcmp(inner, "colpali") == 0 || strcmp(inner, "colqwen2") == 0) {
        cJSON_Delete(made);
        return cfg_fail(c, "vlm_config.model_type", "'%s': a retrieval model is no vision-language model", inner);
    }
    c->root = vlm;
    c->doc = vlm;
    c->doc_prefix = "vlm_config.";
    int rc = map_document(c);
    cJSON_Delete(made);
    if (rc == 0) {
        snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", outer);
    }
    return rc;
}

/* The omni models (Qwen2_5OmniConfig, Qwen3OmniMoeConfig): the thinker
 * (built from thinker_config: a Qwen-VL-shaped language model under its
 * text_config, Qwen2.5-VL's M-RoPE for 2.5, Qwen3-VL's interleaved one for
 * 3) is mapped as that document, its keys shown under thinker_config; the
 * talker, the speech synthesiser, the audio encoder, the vision encoder and
 * the thinker's audio-and-video position ids are named as not certified. */
typedef struct omni_rule {
    const char *model_type, *config_class, *thinker_type, *vision_note;
} omni_rule;

static const omni_rule omni_rules[] = {
    {"qwen2_5_omni", "Qwen2_5OmniConfig", "qwen2_5_omni_thinker",
     "Qwen2.5-Omni's vision encoder (Qwen2.5-VL's 2-D RoPE in attention windows, its own "
     "Qwen2_5OmniVisionEncoder) is not certified here"},
    {"qwen3_omni_moe", "Qwen3OmniMoeConfig", "qwen3_omni_moe_thinker",
     "Qwen3-Omni's vision encoder (Qwen3-VL's 2-D RoPE and resized table, Qwen3OmniMoeVisionEncoder) is not "
     "certified here"},
};

static const omni_rule *find_omni(const char *model_type)
{
    for (size_t i = 0; i < sizeof(omni_rules) / sizeof(omni_rules[0]); i++) {
        if (strcmp(omni_rules[i].model_type, model_type) == 0) {
            return &omni_rules[i];
        }
    }
    return NULL;
}

static int map_omni(map_ctx *c, const omni_rule *rule)
{
    const cJSON *thinker = cfg_get(c->root, "thinker_config");
    if (thinker != NULL && !cJSON_IsObject(thinker)) {
        return cfg_fail(c, "thinker_config", "expected an object (the thinker's config)");
    }
    const cJSON *inner = thinker != NULL ? cfg_get(thinker, "model_type") : NULL;
    if (inner != NULL && (!cJSON_IsString(inner) || strcmp(inner->valuestring, rule->thinker_type) != 0)) {
        return cfg_fail(c, "thinker_config.model_type", "expected '%s' (%s builds its thinker from thinker_config)",
                        rule->thinker_type, rule->config_class);
    }
    cfg_warn(c, "talker_config", "the talker's layers (their own M-RoPE), the speech synthesiser's layers, the audio "
             "encoder (a sinusoid per chunk) and the thinker's audio/video position ids: not certified");
    cJSON *made = thinker != NULL ? cJSON_Duplicate(thinker, 1) : cJSON_CreateObject();
    if (made == NULL || (inner == NULL && cJSON_AddStringToObject(made, "model_type", rule->thinker_type) == NULL)) {
        cJSON_Delete(made);
        return cfg_fail(c, "thinker_config", "out of memory");
    }
    c->root = made;
    c->doc = made;
    c->doc_prefix = "thinker_config.";
    int rc = map_document(c);
    cJSON_Delete(made);
    if (rc == 0) {
        snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", rule->model_type);
        snprintf(c->m->vision_note, sizeof(c->m->vision_note), "%s", rule->vision_note);
    }
    return rc;
}

static int map_document(map_ctx *c)
{
    const cJSON *mt = cfg_get(c->root, "model_type");
    if (!cJSON_IsObject(c->root)) {
        return cfg_fail(c, "(document)", "expected a JSON object");
    }
    if (!cJSON_IsString(mt)) {
        return cfg_fail(c, "model_type", "required (a string)");
    }
    if (c->doc_prefix == NULL && find_omni(mt->valuestring) != NULL) {
        return map_omni(c, find_omni(mt->valuestring));
    }
    if (c->doc_prefix == NULL && strcmp(mt->valuestring, "colpali") == 0) {
        return map_retrieval_vlm(c, "colpali", "paligemma");
    }
    if (c->doc_prefix == NULL && strcmp(mt->valuestring, "colqwen2") == 0) {
        return map_retrieval_vlm(c, "colqwen2", "qwen2_vl");
    }
    /* Glm4vMoeTextConfig.model_type is "Glm4vMoe_text" (what its to_dict
     * writes), the registry's key glm4v_moe_text: one model type. */
    const char *rule_type = strcmp(mt->valuestring, "Glm4vMoe_text") == 0 ? "glm4v_moe_text" : mt->valuestring;
    snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", rule_type);
    const wrapper_rule *wrapper = cfg_find_wrapper(rule_type);
    if (strcmp(rule_type, "llama4") == 0) {
        if (enter_text_config(c, "llama4_text") != 0) {
            return -1;
        }
        rule_type = "llama4_text";
    } else if (strcmp(rule_type, "mllama") == 0) {
        /* MllamaConfig: MllamaTextConfig(**text_config); the tower named. */
        if (enter_text_config(c, "mllama_text_model") != 0) {
            return -1;
        }
        rule_type = "mllama_text_model";
        /* The text class's defaults and rules are read under its own type
         * (map_document restores the checkpoint's at the end). */
        snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", rule_type);
        snprintf(c->m->vision_note, sizeof(c->m->vision_note), "%s",
                 "Mllama's vision tower (a gated learned table per tile and aspect-ratio embeddings, "
                 "MllamaVisionModel) is not certified");
    } else if (strcmp(rule_type, "bark") == 0) {
        if (enter_bark_semantic(c) != 0) {
            return -1;
        }
    } else if (strcmp(rule_type, "pix2struct") == 0) {
        /* Pix2StructConfig: the decoder's buckets are text_config's. */
        if (enter_text_config(c, "pix2struct_text_model") != 0) {
            return -1;
        }
    } else if (strcmp(rule_type, "gemma3") == 0) {
        if (enter_text_config(c, "gemma3_text") != 0) {
            return -1;
        }
        rule_type = "gemma3_text";
    } else if (strcmp(rule_type, "gemma3n") == 0) {
        /* Gemma3nConfig: the language model Gemma3nTextModel from
         * text_config; the audio encoder's relative positions named. */
        if (enter_text_config(c, "gemma3n_text") != 0) {
            return -1;
        }
        rule_type = "gemma3n_text";
        snprintf(c->m->vision_note, sizeof(c->m->vision_note), "%s",
                 "Gemma 3n's audio encoder (its conformer's relative position embeddings) is not certified; its "
                 "vision tower (MobileNet-V5) has no position encoding");
        c->m->audio_tower = 1;
    } else if (cfg_is_qwen3_vl(rule_type) && qwen_vl_text_type(rule_type) != NULL) {
        /* Qwen3VLConfig builds its text model from text_config only. */
        if (enter_text_config(c, qwen_vl_text_type(rule_type)) != 0) {
            return -1;
        }
    } else if (wrapper != NULL) {
        /* The text model is its own model type to the mapper (defaults,
         * known keys, quirks); the checkpoint's stays the wrapper's. */
        const char *stated = NULL;
        rule_type = cfg_wrapper_text_type(wrapper, cfg_get(c->root, "text_config"), &stated);
        const model_rule *inner_rule = find_model(rule_type);
        if (cfg_wrapper_check_text(c, wrapper, stated) != 0 || enter_text_config(c, rule_type) != 0 ||
            cfg_wrapper_fill_text(c, wrapper) != 0) {
            return -1;
        }
        if (inner_rule == NULL || cfg_is_qwen_vl(rule_type) ||
            (inner_rule->map != cfg_map_llama_like && inner_rule->map != cfg_map_learned_text &&
             inner_rule->map != cfg_map_sinusoidal)) {
            return cfg_fail(c, "model_type",
                            "'%s' under %s has no mapping in pecert (its text models: the "
                            "llama-like, learned and sinusoidal ones of --list-model-types)",
                            rule_type, mt->valuestring);
        }
        snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", rule_type);
    } else if (qwen_vl_text_type(rule_type) != NULL && cfg_get(c->root, "text_config") != NULL &&
               enter_text_config(c, qwen_vl_text_type(rule_type)) != 0) {
        return -1;
    }
    const model_rule *rule = find_model(rule_type);
    if (rule == NULL) {
        const char *near = same_but_spelling(mt->valuestring);
        return cfg_fail(c, "model_type", "'%s' has no mapping in pecert%s%s%s (see conformance/profiles/README.md)",
                        mt->valuestring, near != NULL ? " (did you mean '" : "", near != NULL ? near : "",
                        near != NULL ? "'?)" : "");
    }
    c->m->pairing = rule->pairing;
    c->type_overrides_rope_type = rule->type_overrides_rope_type;
    c->runs_validation = rule->runs_validation;
    c->m->rope.struct_size = sizeof(c->m->rope);
    if (rule->map(c) != 0) {
        return -1;
    }
    if (strcmp(c->m->model_type, "deepseek_v3") == 0) {
        int interleave = 1;
        if (cfg_read_bool(c, c->root, "rope_interleave", "rope_interleave", &interleave) < 0) {
            return -1;
        }
        c->m->pairing = interleave ? PECERT_PAIRING_INTERLEAVED : PECERT_PAIRING_SPLIT_HALF;
    }
    snprintf(c->m->model_type, sizeof(c->m->model_type), "%s", mt->valuestring);
    /* A 2-D RoPE tower that is the checkpoint mapped its tower already. */
    if (c->m->kind != PECERT_PE_ROPE2D && cfg_map_vision(c, c->m->model_type) != 0) {
        return -1;
    }
    if (wrapper != NULL) {
        cfg_wrapper_note_tower(c, wrapper);
        cfg_wrapper_warn_positions(c, wrapper);
    }
    return 0;
}

int cfg_map_object(pecert_certify_model *out, const cJSON *root, const char *name, char *err, size_t err_len)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", name);
    err[0] = '\0';
    map_ctx c = {root, out, err, err_len, root, "", 0, 0, NULL, NULL};
    int rc = root == NULL ? cfg_fail(&c, "(document)", "not valid JSON") : map_document(&c);
    cJSON_Delete(c.owned);
    return rc;
}

/* What Python's json and cJSON would read differently is refused before
 * the mapping sees it (json_text.h): duplicate keys (Python's json, which
 * transformers reads config.json with, keeps the last; cJSON's lookups
 * the first), NUL bytes and \u0000, bad UTF-8, text after the value. */
#define DUPLICATE_KEY_NOTE                                                                                           \
    " (Python's json, which transformers reads config.json with, would keep the last value; pecert refuses the "    \
    "ambiguity)"

int pecert_certify_parse(pecert_certify_model *out, const char *json_text, const char *name,
                         char *err, size_t err_len)
{
    cJSON *root = pecert_json_parse_strict(json_text, strlen(json_text), name, DUPLICATE_KEY_NOTE, err, err_len);
    int rc = -1;
    if (root != NULL) {
        rc = cfg_map_object(out, root, name, err, err_len);
    } else {
        memset(out, 0, sizeof(*out));
    }
    cJSON_Delete(root);
    return rc;
}

const char *pecert_pe_kind_name(pecert_pe_kind kind)
{
    static const char *const names[] = {"rope",   "mrope",      "alibi", "t5",     "learned",  "rope2d",
                                        "sinusoidal", "swin", "sine2d", "relpos2d", "sincos2d", "deberta"};
    return kind >= PECERT_PE_ROPE && kind <= PECERT_PE_DEBERTA ? names[kind] : "?";
}
