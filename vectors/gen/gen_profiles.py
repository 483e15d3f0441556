#!/usr/bin/python3
"""Generate pecert's profile vectors: each conformance profile's model, built by its own
transformers v4.57.6 classes from the profile's config.json fields.

    /usr/bin/python3 vectors/gen/gen_profiles.py --ref /path/to/transformers \\
        --profiles conformance/profiles --out vectors/profiles

For every profile whose model_type exists in transformers, the model's configuration class
is instantiated from the profile's "config" object exactly as from_pretrained would from
config.json, and the model's own position code is run on it:

  rope models   <Model>RotaryEmbedding (inv_freq, attention_scaling, cos/sin at the
                lengths that matter) and the model's apply function on q/k; GPT-J's
                create_sinusoidal_positions + GPTJAttention's gather; DeepSeek-V2's complex
                apply_rotary_emb; Llama 4's Llama4TextRotaryEmbedding (complex freqs_cis,
                built from config.json's text_config) and its complex apply_rotary_emb;
                Qwen2-VL's apply_multimodal_rotary_pos_emb.
  ALiBi         Bloom build_alibi_tensor, MPT build_mpt_alibi_tensor, Falcon (alibi true)
                build_alibi_tensor with the factor FalconModel._update_causal_mask puts on it.
  T5            T5Attention._relative_position_bucket with the profile's buckets.
  learned       the model's position_embeddings module (BERT, GPT-2 wpe, ViT) looked up by
                the position ids the model forms.

The manifest `config` of each test is what the official config class resolved (head_dim,
rotary_dim, rope_scaling as the class left it), never pecert's own mapping: `pecert
certify` compares its mapping against it (certify.mapping) and reruns the outputs at its
own parameters. Output is deterministic (vecfile.py). See vectors/gen/README.md.
"""

import argparse
import copy
import importlib
import inspect
import json
import os
import sys
import types

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import gen_learned  # noqa: E402
import gen_rope  # noqa: E402
import gen_relpos2d  # noqa: E402
import gen_sine2d  # noqa: E402
import hfref  # noqa: E402
import profile_vision  # noqa: E402
import vecfile  # noqa: E402

GENERATOR = "vectors/gen/gen_profiles.py"
FAMILY = "profile"

NOTES = {**famgen.notes_table("""
profile         BASIC          A released checkpoint's positional encoding, built by the model's own
                               transformers classes from the profile's config.json fields.
init_freqs      DEFAULT_VALUE  The rotary module's inv_freq and attention_scaling as __init__ leaves
                               them (no sequence length seen yet).
boundary        EDGE_CASE      Positions at L0-1, L0, L0+1 and max_position_embeddings-1, where
                               scaled rope types switch behaviour.
long_position   EDGE_CASE      Positions far past every trained length (2^20).
mrope_axes      FUNCTIONALITY  Three position axes (temporal, height, width) that differ, so every
                               mrope_section is exercised.
bf16_reference  EDGE_CASE      The reference rounds its ALiBi slopes and biases to bfloat16
                               (Falcon's build_alibi_tensor: slopes[..., None].bfloat16() *
                               arange_tensor); they are compared within that rounding.
layers_full     FUNCTIONALITY  The encoding of the full-attention layers: the rotary module the
                               model builds for them (Gemma3TextModel.rotary_emb).
padding         FUNCTIONALITY  A left-padded row of ids: the rows its padding tokens and the tokens
                               after them read, by the model's own position rule.
layers_sliding  FUNCTIONALITY  The encoding of the sliding-window layers: the rotary module the
                               model builds for them (Gemma3TextModel.rotary_emb_local, from a copy
                               of the config with rope_local_base_freq).
window          FUNCTIONALITY  A Swin-family model's square attention window: the
                               relative_position_index its attention class registers for it.
feature_map     FUNCTIONALITY  A DETR-family model's sine embedding of a feature map (an image padded
                               at the bottom and right where the model reads the pixel mask), or an
                               RT-DETR-family hybrid encoder's 2-D sin-cos table of one.
layer_tables    FUNCTIONALITY  The decomposed relative positions of one of the encoder's attention
                               layers, with the tables (their shapes) it builds for its grid, on
                               that grid's row and column strips.
"""), **profile_vision.NOTES}

# model_type -> (config class, rotary class, apply function), in the model's own modules.
# apply is the name of the model's own q/k rotation function.
ROPE_MODELS = {
    "llama": ("LlamaConfig", "LlamaRotaryEmbedding", "apply_rotary_pos_emb"),
    "mistral": ("MistralConfig", "MistralRotaryEmbedding", "apply_rotary_pos_emb"),
    "qwen2": ("Qwen2Config", "Qwen2RotaryEmbedding", "apply_rotary_pos_emb"),
    "phi3": ("Phi3Config", "Phi3RotaryEmbedding", "apply_rotary_pos_emb"),
    "gpt_oss": ("GptOssConfig", "GptOssRotaryEmbedding", "apply_rotary_pos_emb"),
    "gpt_neox": ("GPTNeoXConfig", "GPTNeoXRotaryEmbedding", "apply_rotary_pos_emb"),
    "deepseek_v2": ("DeepseekV2Config", "DeepseekV2RotaryEmbedding", "apply_rotary_emb"),
    "qwen2_vl": ("Qwen2VLTextConfig", "Qwen2VLRotaryEmbedding", "apply_multimodal_rotary_pos_emb"),
    "qwen2_5_vl": ("Qwen2_5_VLTextConfig", "Qwen2_5_VLRotaryEmbedding", "apply_multimodal_rotary_pos_emb"),
    # Qwen2.5-Omni's thinker (the profile's thinker_config, retrieval_vlm): its text_config's model.
    "qwen2_5_omni_thinker": ("Qwen2_5OmniTextConfig", "Qwen2_5OmniRotaryEmbedding", "apply_multimodal_rotary_pos_emb"),
    "qwen3_omni_moe_thinker": ("Qwen3OmniMoeTextConfig", "Qwen3OmniMoeThinkerTextRotaryEmbedding", "apply_rotary_pos_emb"),
    "llama4": ("Llama4TextConfig", "Llama4TextRotaryEmbedding", "apply_rotary_emb"),
    "mixtral": ("MixtralConfig", "MixtralRotaryEmbedding", "apply_rotary_pos_emb"),
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3RotaryEmbedding", "apply_rotary_pos_emb_interleave"),
    "qwen3": ("Qwen3Config", "Qwen3RotaryEmbedding", "apply_rotary_pos_emb"),
    "qwen3_moe": ("Qwen3MoeConfig", "Qwen3MoeRotaryEmbedding", "apply_rotary_pos_emb"),
    "seed_oss": ("SeedOssConfig", "SeedOssRotaryEmbedding", "apply_rotary_pos_emb"),
    "apertus": ("ApertusConfig", "ApertusRotaryEmbedding", "apply_rotary_pos_emb"),
    "arcee": ("ArceeConfig", "ArceeRotaryEmbedding", "apply_rotary_pos_emb"),
    "granite": ("GraniteConfig", "GraniteRotaryEmbedding", "apply_rotary_pos_emb"),
    "olmo2": ("Olmo2Config", "Olmo2RotaryEmbedding", "apply_rotary_pos_emb"),
    "ministral": ("MinistralConfig", "MinistralRotaryEmbedding", "apply_rotary_pos_emb"),
    "gemma2": ("Gemma2Config", "Gemma2RotaryEmbedding", "apply_rotary_pos_emb"),
    "ernie4_5": ("Ernie4_5Config", "Ernie4_5RotaryEmbedding", "apply_rotary_pos_emb"),
    "cohere": ("CohereConfig", "CohereRotaryEmbedding", "apply_rotary_pos_emb"),
    "glm4": ("Glm4Config", "Glm4RotaryEmbedding", "apply_rotary_pos_emb"),
    "helium": ("HeliumConfig", "HeliumRotaryEmbedding", "apply_rotary_pos_emb"),
    "phi": ("PhiConfig", "PhiRotaryEmbedding", "apply_rotary_pos_emb"),
    "stablelm": ("StableLmConfig", "StableLmRotaryEmbedding", "apply_rotary_pos_emb"),
    "gemma": ("GemmaConfig", "GemmaRotaryEmbedding", "apply_rotary_pos_emb"),
    "gemma3_text": ("Gemma3TextConfig", "Gemma3RotaryEmbedding", "apply_rotary_pos_emb"),
    "smollm3": ("SmolLM3Config", "SmolLM3RotaryEmbedding", "apply_rotary_pos_emb"),
    "cohere2": ("Cohere2Config", "Cohere2RotaryEmbedding", "apply_rotary_pos_emb"),
    "exaone4": ("Exaone4Config", "Exaone4RotaryEmbedding", "apply_rotary_pos_emb"),
    "qwen3_vl": ("Qwen3VLTextConfig", "Qwen3VLTextRotaryEmbedding", "apply_rotary_pos_emb"),
    "olmoe": ("OlmoeConfig", "OlmoeRotaryEmbedding", "apply_rotary_pos_emb"),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeRotaryEmbedding", "apply_rotary_pos_emb"),
    "starcoder2": ("Starcoder2Config", "Starcoder2RotaryEmbedding", "apply_rotary_pos_emb"),
    "glm4_moe": ("Glm4MoeConfig", "Glm4MoeRotaryEmbedding", "apply_rotary_pos_emb"),
    "nemotron": ("NemotronConfig", "NemotronRotaryEmbedding", "apply_rotary_pos_emb"),
    "ernie4_5_moe": ("Ernie4_5_MoeConfig", "Ernie4_5_MoeRotaryEmbedding", "apply_rotary_pos_emb"),
    "qwen3_next": ("Qwen3NextConfig", "Qwen3NextRotaryEmbedding", "apply_rotary_pos_emb"),
    "falcon": ("FalconConfig", "FalconRotaryEmbedding", "apply_rotary_pos_emb"),
    "granitemoe": ("GraniteMoeConfig", "GraniteMoeRotaryEmbedding", "apply_rotary_pos_emb"),
    "hunyuan_v1_dense": ("HunYuanDenseV1Config", "HunYuanDenseV1RotaryEmbedding", "apply_rotary_pos_emb"),
    "hunyuan_v1_moe": ("HunYuanMoEV1Config", "HunYuanMoEV1RotaryEmbedding", "apply_rotary_pos_emb"),
    "olmo": ("OlmoConfig", "OlmoRotaryEmbedding", "apply_rotary_pos_emb"),
    "EvollaModel": ("EvollaConfig", "EvollaRotaryEmbedding", "apply_rotary_pos_emb"),
    "olmo3": ("Olmo3Config", "Olmo3RotaryEmbedding", "apply_rotary_pos_emb"),
    "flex_olmo": ("FlexOlmoConfig", "FlexOlmoRotaryEmbedding", "apply_rotary_pos_emb"),
    "bitnet": ("BitNetConfig", "BitNetRotaryEmbedding", "apply_rotary_pos_emb"),
    "granitemoeshared": ("GraniteMoeSharedConfig", "GraniteMoeSharedRotaryEmbedding", "apply_rotary_pos_emb"),
    "diffllama": ("DiffLlamaConfig", "DiffLlamaRotaryEmbedding", "apply_rotary_pos_emb"),
    "dots1": ("Dots1Config", "Dots1RotaryEmbedding", "apply_rotary_pos_emb"),
    "vaultgemma": ("VaultGemmaConfig", "VaultGemmaRotaryEmbedding", "apply_rotary_pos_emb"),
    "persimmon": ("PersimmonConfig", "PersimmonRotaryEmbedding", "apply_rotary_pos_emb"),
    "glm": ("GlmConfig", "GlmRotaryEmbedding", "apply_rotary_pos_emb"),
    "doge": ("DogeConfig", "DogeRotaryEmbedding", "apply_rotary_pos_emb"),
    "lfm2": ("Lfm2Config", "Lfm2RotaryEmbedding", "apply_rotary_pos_emb"),
    "falcon_h1": ("FalconH1Config", "FalconH1RotaryEmbedding", "apply_rotary_pos_emb"),
    "aria_text": ("AriaTextConfig", "AriaTextRotaryEmbedding", "apply_rotary_pos_emb"),
    "minimax": ("MiniMaxConfig", "MiniMaxRotaryEmbedding", "apply_rotary_pos_emb"),
    "emu3_text_model": ("Emu3TextConfig", "Emu3RotaryEmbedding", "apply_rotary_pos_emb"),
    "longcat_flash": ("LongcatFlashConfig", "LongcatFlashRotaryEmbedding", "apply_rotary_pos_emb_interleave"),
    "mimi": ("MimiConfig", "MimiRotaryEmbedding", "apply_rotary_pos_emb"),
    "jetmoe": ("JetMoeConfig", "JetMoeRotaryEmbedding", "apply_rotary_pos_emb"),
    "csm": ("CsmConfig", "CsmRotaryEmbedding", "apply_rotary_pos_emb"),
    "chameleon": ("ChameleonConfig", "ChameleonRotaryEmbedding", "apply_rotary_pos_emb"),
    "gpt_neox_japanese": ("GPTNeoXJapaneseConfig", "GPTNeoXJapaneseRotaryEmbedding", "apply_rotary_pos_emb"),
    "moonshine": ("MoonshineConfig", "MoonshineRotaryEmbedding", "apply_rotary_pos_emb"),
    "phi4_multimodal": ("Phi4MultimodalConfig", "Phi4MultimodalRotaryEmbedding", "apply_rotary_pos_emb"),
    "dbrx": ("DbrxConfig", "DbrxRotaryEmbedding", "apply_rotary_pos_emb"),
    "gemma3n_text": ("Gemma3nTextConfig", "Gemma3nTextRotaryEmbedding", "apply_rotary_pos_emb"),
    "modernbert-decoder": ("ModernBertDecoderConfig", "ModernBertDecoderRotaryEmbedding", "apply_rotary_pos_emb"),
    "open-llama": ("OpenLlamaConfig", "OpenLlamaRotaryEmbedding", "apply_rotary_pos_emb"),
    "phimoe": ("PhimoeConfig", "PhimoeRotaryEmbedding", "apply_rotary_pos_emb"),
    "idefics": ("IdeficsConfig", "IdeficsEmbedding", "apply_rotary_pos_emb"),
    "recurrent_gemma": ("RecurrentGemmaConfig", "RecurrentGemmaRotaryEmbedding", "apply_rotary_pos_emb"),
    "bamba": ("BambaConfig", "BambaRotaryEmbedding", "apply_rotary_pos_emb"),
    "modernbert": ("ModernBertConfig", "ModernBertRotaryEmbedding", "apply_rotary_pos_emb"),
    "mllama": ("MllamaTextConfig", "MllamaRotaryEmbedding", "apply_rotary_pos_emb"),
    "granitemoehybrid": ("GraniteMoeHybridConfig", "GraniteMoeHybridRotaryEmbedding", "apply_rotary_pos_emb"),
    "glm4v": ("Glm4vTextConfig", "Glm4vTextRotaryEmbedding", "apply_multimodal_rotary_pos_emb"),
    "glm4v_moe": ("Glm4vMoeTextConfig", "Glm4vMoeTextRotaryEmbedding", "apply_multimodal_rotary_pos_emb"),
    # Encoder-decoders: the decoder stack's config (STACKS), which the encoder's must equal.
    "t5gemma": ("T5GemmaModuleConfig", "T5GemmaRotaryEmbedding", "apply_rotary_pos_emb"),
    "dia": ("DiaDecoderConfig", "DiaRotaryEmbedding", "apply_rotary_pos_emb"),
    "moshi": ("MoshiConfig", "MoshiRotaryEmbedding", "apply_rotary_pos_emb"),
    "kyutai_speech_to_text": ("KyutaiSpeechToTextConfig", "KyutaiSpeechToTextRotaryEmbedding",
                              "apply_rotary_pos_emb"),
    # The Qwen-VL text models as model types of their own, and Qwen3-VL's MoE sibling.
    "qwen2_vl_text": ("Qwen2VLTextConfig", "Qwen2VLRotaryEmbedding", "apply_multimodal_rotary_pos_emb"),
    "qwen2_5_vl_text": ("Qwen2_5_VLTextConfig", "Qwen2_5_VLRotaryEmbedding", "apply_multimodal_rotary_pos_emb"),
    "qwen3_vl_text": ("Qwen3VLTextConfig", "Qwen3VLTextRotaryEmbedding", "apply_rotary_pos_emb"),
    "qwen3_vl_moe": ("Qwen3VLMoeTextConfig", "Qwen3VLMoeTextRotaryEmbedding", "apply_rotary_pos_emb"),
}
# A text model's own type reads its wrapper's classes (Glm4vConfig's text_config is a
# Glm4vTextConfig, the same one the text type builds).
ROPE_MODELS.update({text: ROPE_MODELS[wrapper] for text, wrapper in (
    ("glm4v_text", "glm4v"), ("glm4v_moe_text", "glm4v_moe"), ("qwen3_vl_moe_text", "qwen3_vl_moe"))})
# Rotary classes with a fixed-base "dynamic" rope_scaling: Hunyuan's alpha path builds
# inv_freq from rope_theta * alpha^(d/(d-2)) at __init__ and leaves the other keys unread;
# only past max_position_embeddings does dynamic_rope_update recompute (dynamic NTK from
# rope_theta, without alpha), which no test here reaches (positions stop at max - 1).
ALPHA_BASE = ("HunYuanDenseV1RotaryEmbedding", "HunYuanMoEV1RotaryEmbedding")
# M-RoPE rotary classes: forward takes [3, B, S] position ids. Qwen2-VL's returns cos/sin per
# axis ([3, B, S, D], merged by apply_multimodal_rotary_pos_emb's sections); Qwen3-VL's
# interleaves the axes itself (apply_interleaved_mrope) and returns [B, S, D] for the plain
# apply_rotary_pos_emb.
MROPE_PER_AXIS = ("Qwen2VLRotaryEmbedding", "Qwen2_5_VLRotaryEmbedding", "Qwen2_5OmniRotaryEmbedding", "Glm4vTextRotaryEmbedding",
                  "Glm4vMoeTextRotaryEmbedding")
MROPE_INTERLEAVED = ("Qwen3VLTextRotaryEmbedding", "Qwen3VLMoeTextRotaryEmbedding",
                     "Qwen3OmniMoeThinkerTextRotaryEmbedding")
# The module a model_type's classes live in, where it is not the model_type.
MODULE_OF = {"gemma3_text": "gemma3", "aria_text": "aria", "emu3_text_model": "emu3", "gemma3n_text": "gemma3n",
             "qwen2_vl_text": "qwen2_vl", "qwen2_5_vl_text": "qwen2_5_vl", "qwen3_vl_text": "qwen3_vl",
             "qwen3_vl_moe_text": "qwen3_vl_moe", "glm4v_text": "glm4v", "glm4v_moe_text": "glm4v_moe",
             "EvollaModel": "evolla", "qwen2_5_omni_thinker": "qwen2_5_omni", "qwen3_omni_moe_thinker": "qwen3_omni_moe", "wav2vec2-conformer": "wav2vec2_conformer",
             **{mt: mod for mt, (_, mod, _) in profile_vision.TABLE_TOWERS.items()}}
# Models whose layers rotate with one of several rotary modules the model builds:
# model_type -> (model class, [(layer type, attribute of the model holding its module)]).
# The model is built once (with a few layers and tiny widths; head_dim and every
# position field as the profile says) and each module's config is the one recorded.
LAYERED_MODULES = {
    "gemma3_text": ("Gemma3TextModel", [("full", "rotary_emb"), ("sliding", "rotary_emb_local")]),
    "gemma3n_text": ("Gemma3nTextModel", [("full", "rotary_emb"), ("sliding", "rotary_emb_local")]),
}
# Models whose attention class builds its layer's rotary module from its layer_id:
# model_type -> (attention class, [(layer type, layer_id)]). ModernBERT: layer 0 global,
# layer 1 local when global_attn_every_n_layers > 1 (the class is built alone: the model's
# LayerNorm(bias=...) needs a newer torch than the generator's).
LAYER_ATTENTIONS = {
    "modernbert": ("ModernBertAttention", [("full", 0), ("sliding", 1)]),
}
# Models whose attention, not their apply function, splits a partial rotary head:
# PhiAttention.forward and StableLmAttention.forward take query_states[..., :rotary_ndims]
# to apply_rotary_pos_emb and concatenate query_states[..., rotary_ndims:] back after it
# (modeling_phi.py, modeling_stablelm.py; PersimmonAttention.forward likewise,
# modeling_persimmon.py; GPTNeoXJapaneseAttention.forward,
# modeling_gpt_neox_japanese.py; RecurrentGemmaSdpaAttention.forward's torch.chunk into two
# halves at factor 0.5, the only one it runs at); rotate() makes the same split.
ATTENTION_SPLITS = ("phi", "stablelm", "persimmon", "gpt_neox_japanese", "recurrent_gemma")
# Models whose apply pairs adjacent channels (x[..., 0::2] with x[..., 1::2], cos/sin
# repeat_interleave'd) though their cos/sin are real: pairing "interleaved".
ADJACENT_PAIRS = ("ernie4_5", "ernie4_5_moe", "cohere", "cohere2", "glm4", "helium", "deepseek_v3", "glm",
                  "longcat_flash", "moonshine", "glm4v", "glm4v_text")
# Models whose apply returns q in another channel order than it was given:
# DeepSeek-V3's apply_rotary_pos_emb_interleave de-interleaves q and k (view(..., d // 2,
# 2).transpose(4, 3)) and rotates them split-half, leaving both in that order for the
# attention's dot product, which the order does not change. rotate() puts its output
# back in the input's order (the inverse view/transpose, numbers untouched): then it is
# the in-place rotation of adjacent pairs an engine loading the checkpoint's weights does.
PERMUTED_APPLY = ("apply_rotary_pos_emb_interleave",)
# Rotary classes whose forward returns cos/sin already repeat_interleave'd (f0, f0, f1, f1,
# ...) instead of cat((freqs, freqs)): CohereRotaryEmbedding.
INTERLEAVED_TABLE = ("CohereRotaryEmbedding", "Cohere2RotaryEmbedding")
# Rotary classes whose forward returns complex freqs_cis (cos + i sin, times the attention
# scaling) for a complex multiply of adjacent pairs, instead of a (cos, sin) pair.
COMPLEX_ROPE = ("deepseek_v2", "llama4")
FAR = 1 << 20
HEADS = 2


# Model types whose classes live under transformers.models.deprecated.
DEPRECATED = {"open-llama": "open_llama", "deta": "deta", "mega": "mega"}
# Model types whose files are not named after them: (package, file stem).
FILES_OF = {"donut-swin": ("donut", "donut_swin"), "maskformer-swin": ("maskformer", "maskformer_swin"),
            "modernbert-decoder": ("modernbert_decoder", "modernbert_decoder"),
            "data2vec-vision": ("data2vec", "data2vec_vision")}
# Rotary classes whose forward takes seq_len and returns the table of positions 0 ..
# seq_len - 1, which apply_rotary_pos_emb then indexes with position_ids (OpenLlama's
# attention passes kv_seq_len, PhimoeModel cache_position[-1] + 1: max(pos) + 1 here).
TABLE_FORWARD = ("OpenLlamaRotaryEmbedding", "PhimoeRotaryEmbedding", "IdeficsEmbedding")
# Rotary classes whose model's apply_rotary_pos_emb takes one tensor (Gemma 3n's
# apply_rotary_pos_emb(x, cos, sin, unsqueeze_dim=1)): q alone, with the [B, H, S, D]
# layout the default unsqueeze_dim expects.
SINGLE_APPLY = ("Gemma3nTextRotaryEmbedding",)


def modules(model_type):
    if model_type in DEPRECATED:
        name = DEPRECATED[model_type]
        package = f"transformers.models.deprecated.{name}"
    elif model_type in FILES_OF:
        folder, name = FILES_OF[model_type]
        package = f"transformers.models.{folder}"
    else:
        name = MODULE_OF.get(model_type, model_type)
        package = f"transformers.models.{name}"
    cfg_mod = importlib.import_module(f"{package}.configuration_{name}")
    mdl_mod = importlib.import_module(f"{package}.modeling_{name}")
    return cfg_mod, mdl_mod


def source_of(ref, obj, function):
    rel = os.path.relpath(os.path.abspath(sys.modules[obj.__module__].__file__), ref.src_root)
    return famgen.source("src/" + rel.replace(os.sep, "/"), function)


# Encoder-decoders whose stacks are nested configs: model_type -> (decoder key, encoder
# key); T5GemmaConfig's decoder is its encoder when absent, DiaConfig's the class default.
STACKS = {"t5gemma": ("decoder", "encoder"), "dia": ("decoder_config", None)}


def text_fields(config):
    """The fields the text model's config class reads: Llama 4's config.json nests them
    under text_config (Llama4Config hands them to Llama4TextConfig)."""
    if config["model_type"] in ("glm4v", "glm4v_moe"):  # text_config, else the top level (as Qwen2-VL's)
        return config.get("text_config") or config
    if config["model_type"] == "bark":  # BarkConfig: the semantic model's fields
        return config.get("semantic_config") or {}
    if config["model_type"] in STACKS:
        decoder, fallback = STACKS[config["model_type"]]
        return config.get(decoder) or (config.get(fallback) if fallback else None) or {}
    if config["model_type"] in ("llama4", "gemma3", "gemma3n", "qwen3_vl", "qwen3_vl_moe", "llava", "mistral3",
                                "paligemma", "mllama", "qwen2_5_omni_thinker", "qwen3_omni_moe_thinker"):
        return config["text_config"]
    return config


def make_config(cls, config):
    """The config class from config.json's fields, as from_pretrained passes them."""
    kwargs = copy.deepcopy({k: v for k, v in text_fields(config).items() if k != "model_type"})
    layers = kwargs.get("num_hidden_layers")
    kwargs["num_hidden_layers"] = 1
    # The classes check one entry per layer (layer_type_validation; Gemma 3n's per-layer
    # intermediate_size): a per-layer list keeps the first layer's.
    for key, value in kwargs.items():
        if key == "layer_types" or (isinstance(value, list) and layers is not None and len(value) == layers > 1):
            kwargs[key] = value[:1]
    # Gemma 3n shares the last num_kv_shared_layers layers' key/value caches: with one
    # layer, none (the rotary modules the model builds do not read it).
    if "num_kv_shared_layers" in kwargs:
        kwargs["num_kv_shared_layers"] = 0
    # A backbone's outputs name its stages (ViTPose's "stage12"), which one layer does
    # not have; the class derives them when they are left out.
    for key in ("out_features", "out_indices", "stage_names"):
        kwargs.pop(key, None)
    return cls(**kwargs)


def has_alpha_base(cls_name, cfg):
    scaling = getattr(cfg, "rope_scaling", None) or {}
    return (cls_name in ALPHA_BASE and scaling.get("rope_type", scaling.get("type")) == "dynamic"
            and bool(scaling.get("alpha")))


def alpha_base_config(cfg):
    """The FORMAT.md config of Hunyuan's alpha path: default RoPE over the whole head at the
    base its __init__ computes (the same expression, on the same config attributes)."""
    return {"rope_type": "default",
            "rope_theta": cfg.rope_theta * cfg.rope_scaling.get("alpha") ** (cfg.head_dim / (cfg.head_dim - 2)),
            "head_dim": cfg.head_dim, "rotary_dim": cfg.head_dim,
            "max_position_embeddings": cfg.max_position_embeddings}


def manifest_config(gen, cfg):
    """gen_rope's FORMAT.md config of the resolved class, mrope_section aside."""
    scaling = getattr(cfg, "rope_scaling", None)
    section = None
    if scaling and "mrope_section" in scaling:
        section = list(scaling["mrope_section"])
        cfg = copy.copy(cfg)
        # The sections' layout keys (Qwen3-Omni's released config says "interleaved" too,
        # which its rotary class does not read): the section is recorded apart.
        cfg.rope_scaling = {k: v for k, v in scaling.items()
                            if k not in ("mrope_section", "mrope_interleaved", "interleaved")}
    return gen.manifest_config(cfg), section


def lengths(config):
    """The positions that matter: 0, 1, L0-1, L0, L0+1, max-1, far (as `pecert certify`)."""
    rs = config
    l0 = config["max_position_embeddings"]
    if config["rope_type"] in ("yarn", "llama3") and "original_max_position_embeddings" in rs:
        l0 = rs["original_max_position_embeddings"]
    if config["rope_type"] == "longrope" and "top_original_max_position_embeddings" in rs:
        l0 = rs["top_original_max_position_embeddings"]
    mp = config["max_position_embeddings"]
    return l0, sorted({0, 1, l0 - 1, l0, l0 + 1, mp - 1})


def rotary(cls, cfg):
    """The rotary module as the model builds it: ChameleonAttention._init_rope passes
    (head_dim, max_position_embeddings, rope_theta) to ChameleonRotaryEmbedding, and
    DbrxAttention the same to DbrxRotaryEmbedding (cfg then dbrx_view's), OpenLlamaAttention
    to OpenLlamaRotaryEmbedding when rope_scaling is null; every other
    class takes the config."""
    if cls.__name__ == "IdeficsEmbedding":  # IdeficsAttention: IdeficsEmbedding(self.head_dim)
        return cls(cfg.hidden_size // cfg.num_attention_heads)
    if cls.__name__ == "RecurrentGemmaRotaryEmbedding":  # RecurrentGemmaSdpaAttention.__init__
        return cls(int(cfg.partial_rotary_factor * cfg.head_dim), base=cfg.rope_theta)
    if cls.__name__ in ("ChameleonRotaryEmbedding", "DbrxRotaryEmbedding", "OpenLlamaRotaryEmbedding"):
        return cls(cfg.hidden_size // cfg.num_attention_heads, max_position_embeddings=cfg.max_position_embeddings,
                   base=cfg.rope_theta)
    return cls(config=cfg)


def add_rope_freq(ref, vf, module, config, cls):
    # PhimoeRotaryEmbedding keeps no inv_freq: its forward calls rope_init_fn each time.
    inv_freq = module.inv_freq if hasattr(module, "inv_freq") else module.rope_init_fn(module.config, None)[0]
    vf.add_test("rope.freq", "rotary module inv_freq and attention_scaling at init",
                ["profile", "init_freqs"], source_of(ref, cls, cls.__name__ + ".__init__"),
                config, {"seq_len": 0}, {},
                {"inv_freq": vf.tensor(inv_freq.numpy(), "f32"),
                 # ChameleonRotaryEmbedding has no attention_scaling: its forward returns
                 # emb.cos() and emb.sin() unscaled, which is a scaling of 1.
                 "attention_scaling": vf.tensor(np.float64(getattr(module, "attention_scaling", 1.0)), "f64")})


def half_table(t, rot, cls_name=""):
    """One copy of cos/sin: modules return cat((freqs, freqs)) (checked to agree), except
    gpt-oss's, which returns the rot/2 frequencies once, and Cohere's, which returns each
    frequency twice in a row (checked to agree)."""
    if cls_name in INTERLEAVED_TABLE:
        if not bool((t[..., 0::2] == t[..., 1::2]).all()):
            raise AssertionError("the adjacent copies of the reference cos/sin differ")
        return t[..., 0::2]
    return t if t.shape[-1] == rot // 2 else gen_rope.first_half(t, rot)


def add_rope_cos_sin(ref, torch, vf, cls, cfg, config, pos, comment, flags):
    """cos/sin of a fresh module (longrope picks its factors from max(pos)+1)."""
    module = rotary(cls, cfg)
    position_ids = torch.tensor([pos], dtype=torch.int64)
    mrope = cls.__name__ in MROPE_PER_AXIS
    if mrope or cls.__name__ in MROPE_INTERLEAVED:  # three equal axes: text-only ids, as get_rope_index forms them
        position_ids = position_ids.view(1, 1, -1).expand(3, 1, -1)
    with torch.no_grad():
        if cls.__name__ == "Llama4TextRotaryEmbedding":  # freqs_cis: rot/2 complex values
            freqs_cis = module(torch.zeros(1, dtype=torch.float32), position_ids)
            cos, sin = freqs_cis.real, freqs_cis.imag
        elif cls.__name__ in TABLE_FORWARD:
            cos, sin = module(torch.zeros(1, dtype=torch.float32), seq_len=max(pos) + 1)
            cos, sin = cos[position_ids], sin[position_ids]
        else:
            cos, sin = module(torch.zeros(1, dtype=torch.float32), position_ids)
    if mrope:
        cos, sin = cos[0], sin[0]
    rot = config["rotary_dim"]
    vf.add_test("rope.cos_sin", comment, flags, source_of(ref, cls, cls.__name__ + ".forward"),
                config, {"seq_len": 0}, {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64")},
                {"cos": vf.tensor(half_table(cos, rot, cls.__name__)[0].numpy(), "f32"),
                 "sin": vf.tensor(half_table(sin, rot, cls.__name__)[0].numpy(), "f32")})


def rotate(torch, mdl, names, cfg, config, pos, x):
    """q [1, H, S, D] rotated by the model's own code; returns [S, H, D]."""
    _, cls_name, apply_name = names
    if cls_name in {ROPE_MODELS[m][1] for m in ATTENTION_SPLITS} and config["rotary_dim"] < x.shape[-1]:
        rot = config["rotary_dim"]
        head, _ = rotate(torch, mdl, names, cfg, config, pos, np.ascontiguousarray(x[..., :rot]))
        return np.concatenate([head, x[..., rot:]], axis=-1), getattr(mdl, apply_name)
    cls = getattr(mdl, cls_name)
    apply = getattr(mdl, apply_name)
    seq, heads, dim = x.shape
    q = torch.from_numpy(x.copy()).view(1, seq, heads, dim).transpose(1, 2)
    position_ids = torch.tensor([pos], dtype=torch.int64)
    with torch.no_grad():
        if cls_name == "Llama4TextRotaryEmbedding":  # q as Llama4TextAttention holds it: [1, S, H, D]
            q = q.transpose(1, 2)
            out, _ = apply(q, q.clone(), rotary(cls, cfg)(q, position_ids))
            return out.reshape(seq, heads, dim).numpy(), apply
        if apply_name == "apply_rotary_emb":  # DeepSeek-V2: complex freqs_cis
            out, _ = apply(q, q.clone(), rotary(cls, cfg)(q, position_ids))
        elif cls_name in TABLE_FORWARD:  # the table, indexed by the model's own apply
            cos, sin = rotary(cls, cfg)(q, seq_len=max(pos) + 1)
            out, _ = apply(q, q.clone(), cos, sin, position_ids)
        elif cls_name in SINGLE_APPLY:  # apply_rotary_pos_emb(x, cos, sin, unsqueeze_dim): one tensor
            cos, sin = rotary(cls, cfg)(q, position_ids)
            out = apply(q, cos, sin)
        else:
            cos, sin = rotary(cls, cfg)(q, position_ids)
            out, _ = apply(q, q.clone(), cos, sin)
            if apply_name in PERMUTED_APPLY:
                b, h, s, d = out.shape
                out = out.view(b, h, s, 2, d // 2).transpose(4, 3).reshape(b, h, s, d)
    return out.transpose(1, 2).reshape(seq, heads, dim).numpy(), apply


def add_rope_apply(ref, torch, vf, mdl, names, cfg, config, pairing, pos, comment, flags):
    x = famgen.seeded_normal(f"{vf.name}/{comment}", (len(pos), HEADS, config["head_dim"]))
    out, apply = rotate(torch, mdl, names, cfg, config, pos, x)
    vf.add_test("rope.apply", comment, flags,
                source_of(ref, apply, names[1] + ".forward + " + apply.__name__),
                config, {"seq_len": 0, "pairing": pairing},
                {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64"), "x": vf.tensor(x, "f32")},
                {"out": vf.tensor(out, "f32")})


def add_mrope_apply(ref, torch, vf, mdl, names, cfg, config, section, pos3, comment, flags, pairing):
    """The model's rotary class on 3-axis ids + its apply: Qwen2VLRotaryEmbedding and
    Qwen2_5_VLRotaryEmbedding with apply_multimodal_rotary_pos_emb (sections in blocks),
    Qwen3VLTextRotaryEmbedding (sections interleaved) with apply_rotary_pos_emb; GLM-4.1V's
    apply pairs adjacent channels (pairing)."""
    seq = len(pos3[0])
    dim = config["head_dim"]
    x = famgen.seeded_normal(f"{vf.name}/{comment}", (seq, HEADS, dim))
    q = torch.from_numpy(x.copy()).view(1, seq, HEADS, dim).transpose(1, 2)
    position_ids = torch.tensor(pos3, dtype=torch.int64).view(3, 1, seq)
    interleaved = names[1] in MROPE_INTERLEAVED
    apply = mdl.apply_rotary_pos_emb if interleaved else mdl.apply_multimodal_rotary_pos_emb
    with torch.no_grad():
        cos, sin = getattr(mdl, names[1])(config=cfg)(q, position_ids)
        if interleaved:
            out, _ = apply(q, q.clone(), cos, sin)
        else:
            out, _ = apply(q, q.clone(), cos, sin, list(section))
    out = out.transpose(1, 2).reshape(seq, HEADS, dim).numpy()
    mconfig = dict(config, mrope_section=list(section))
    if interleaved:
        mconfig["mrope_interleaved"] = True
    vf.add_test("mrope.apply", comment, flags,
                source_of(ref, apply, names[1] + ".forward + " + apply.__name__),
                mconfig, {"seq_len": 0, "pairing": pairing},
                {"positions": vf.tensor(np.asarray(pos3, dtype=np.int64), "i64"), "x": vf.tensor(x, "f32")},
                {"out": vf.tensor(out, "f32")})


def retrieval_vlm(profile):
    """A retrieval model's profile as its vision-language model's: ColPaliForRetrieval
    builds AutoModelForImageTextToText.from_config(config.vlm_config) (ColQwen2's alike)."""
    if profile["config"]["model_type"] in ("colpali", "colqwen2"):
        return dict(profile, config=profile["config"]["vlm_config"])
    omni = {"qwen2_5_omni": "qwen2_5_omni_thinker", "qwen3_omni_moe": "qwen3_omni_moe_thinker"}
    if profile["config"]["model_type"] in omni:  # the omni config's thinker, its language model
        thinker = profile["config"].get("thinker_config") or {}
        return dict(profile, config=dict(thinker, model_type=omni[profile["config"]["model_type"]]))
    return profile


def text_model_type(profile):
    """The model_type of the text model's classes (gemma3 nests gemma3_text)."""
    mt = profile["config"]["model_type"]
    if mt == "paligemma":  # PaliGemmaConfig: text_config's model_type, "gemma" when left out
        return profile["config"]["text_config"].get("model_type", "gemma")
    if mt == "llava":  # LlavaConfig: text_config's model_type, "llama" when left out
        return profile["config"]["text_config"].get("model_type", "llama")
    if mt == "mistral3":  # Mistral3Config: text_config's model_type, "mistral" when left out
        return profile["config"]["text_config"].get("model_type", "mistral")
    return {"gemma3": "gemma3_text", "gemma3n": "gemma3n_text"}.get(mt, mt)


def layer_configs(mdl, mt, cfg):
    """[(layer type, the config of its rotary module)] as the model itself builds them:
    the model class instantiated on cfg made tiny (hidden 8, vocab 16, intermediate 8,
    Gemma 3n's per-layer tables 8 wide; head_dim and every position field untouched), each
    module's .config read back."""
    if mt in LAYER_ATTENTIONS:
        attention_cls, layers = LAYER_ATTENTIONS[mt]
        return [(layer, getattr(mdl, attention_cls)(cfg, layer_id=i).rotary_emb.config) for layer, i in layers]
    if mt not in LAYERED_MODULES:
        return [(None, cfg)]
    model_cls, attrs = LAYERED_MODULES[mt]
    tiny = copy.deepcopy(cfg)
    tiny.hidden_size, tiny.vocab_size = 8, 16
    # Gemma 3n: a width per layer, and a per-layer embedding table (vocab_size_per_layer_input
    # rows) beside the token embeddings.
    tiny.intermediate_size = [8] * len(cfg.intermediate_size) if isinstance(cfg.intermediate_size, list) else 8
    for attr in ("vocab_size_per_layer_input", "hidden_size_per_layer_input"):
        if hasattr(tiny, attr):
            setattr(tiny, attr, 8)
    model = getattr(mdl, model_cls)(tiny)
    return [(layer, getattr(model, attr).config) for layer, attr in attrs]


def dbrx_view(cfg):
    """DbrxConfig as DbrxAttention reads it for its rotary module: heads d_model // n_heads,
    max_seq_len rows, attn_config.rope_theta; no rope_scaling (the class has none)."""
    return types.SimpleNamespace(hidden_size=cfg.d_model, num_attention_heads=cfg.n_heads,
                                 max_position_embeddings=cfg.max_seq_len, rope_theta=cfg.attn_config.rope_theta,
                                 rope_scaling=None)


def idefics_view(cfg):
    """IdeficsConfig as its rotary module sees it: no positional field, IdeficsEmbedding's
    defaults (base 10000, a cache of 2048 rows, the length certified)."""
    return types.SimpleNamespace(hidden_size=cfg.hidden_size, num_attention_heads=cfg.num_attention_heads,
                                 max_position_embeddings=2048, rope_theta=10000.0, rope_scaling=None)


def recurrent_gemma_view(cfg):
    """RecurrentGemmaConfig as its attention reads it: head_dim, partial_rotary_factor,
    rope_theta; no max_position_embeddings (its local attention's attention_window_size is the
    length certified) and no rope_scaling."""
    return types.SimpleNamespace(hidden_size=cfg.hidden_size, num_attention_heads=cfg.num_attention_heads,
                                 head_dim=cfg.head_dim, partial_rotary_factor=cfg.partial_rotary_factor,
                                 max_position_embeddings=cfg.attention_window_size, rope_theta=cfg.rope_theta,
                                 rope_scaling=None)


def build_rope(ref, gen, vf, profile):
    mt = text_model_type(profile)
    names = ROPE_MODELS[mt]
    cfg_mod, mdl = modules(mt)
    cfg = make_config(getattr(cfg_mod, names[0]), profile["config"])
    if mt == "dbrx":
        cfg = dbrx_view(cfg)
    if mt == "idefics":
        cfg = idefics_view(cfg)
    if mt == "recurrent_gemma":
        cfg = recurrent_gemma_view(cfg)
    for layer, layer_cfg in layer_configs(mdl, mt, cfg):
        build_rope_module(ref, gen, vf, mt, mdl, names, layer_cfg, [] if layer is None else ["layers_" + layer],
                          "" if layer is None else layer + " layers: ")


class LayerTests:
    """A vector file whose tests are one layer type's: each gets its flag (layers_<type>)
    and its comment a prefix naming the type; everything else is the file's."""

    def __init__(self, vf, flags, prefix):
        self.vf, self.flags, self.prefix = vf, flags, prefix

    def add_test(self, op, comment, flags, *rest):
        self.vf.add_test(op, self.prefix + comment, list(flags) + self.flags, *rest)

    def __getattr__(self, name):
        return getattr(self.vf, name)


def build_rope_module(ref, gen, vf, mt, mdl, names, cfg, layer_flags, prefix):
    """The vectors of one rotary module (one layer type's, when the model has several),
    each test flagged with its layer type and its comment prefixed with it."""
    torch = ref.torch
    vf = LayerTests(vf, layer_flags, prefix) if layer_flags else vf
    alpha = has_alpha_base(names[1], cfg)
    config, section = (alpha_base_config(cfg), None) if alpha else manifest_config(gen, cfg)
    cls = getattr(mdl, names[1])
    pairing = "interleaved" if mt in COMPLEX_ROPE or mt in ADJACENT_PAIRS else "split_half"
    if mt != "deepseek_v2":  # its module holds freqs_cis-producing inv_freq too
        add_rope_freq(ref, vf, rotary(cls, cfg), config, cls)
        l0, pos = lengths(config)
        if alpha:  # L0 + 1 is past max_position_embeddings: the alpha path ends there
            pos = [p for p in pos if p < config["max_position_embeddings"]]
        short = [p for p in pos if p < l0]
        add_rope_cos_sin(ref, torch, vf, cls, cfg, config, short, "cos/sin up to L0-1",
                         ["profile", "boundary"])
        add_rope_cos_sin(ref, torch, vf, cls, cfg, config, pos, "cos/sin up to max_position_embeddings-1",
                         ["profile", "boundary"])
    else:
        add_rope_freq(ref, vf, rotary(cls, cfg), config, cls)
        l0, pos = lengths(config)
    if section is None:
        add_rope_apply(ref, torch, vf, mdl, names, cfg, config, pairing, pos,
                       "apply at 0, 1, L0-1, L0, L0+1, max-1", ["profile", "boundary"])
        if not alpha:
            add_rope_apply(ref, torch, vf, mdl, names, cfg, config, pairing, [0, 1, FAR - 1, FAR],
                           "apply at far positions", ["profile", "long_position"])
    else:
        same = [pos, pos, pos]
        add_mrope_apply(ref, torch, vf, mdl, names, cfg, config, section, same,
                        "text-only positions (three equal axes) 0 .. max-1", ["profile", "boundary"], pairing)
        axes = [[0, 5, 5, 5, 9], [0, 5, 5, 6, 9], [0, 5, 6, 5, 9]]
        add_mrope_apply(ref, torch, vf, mdl, names, cfg, config, section, axes,
                        "an image's distinct (t, h, w) ids", ["profile", "mrope_axes"], pairing)


def build_gptj(ref, gen, vf, profile):
    """GPT-J: gen_rope's builders, on a preset made from the profile's fields."""
    c = {k: v for k, v in profile["config"].items() if k != "model_type"}
    preset = ("gptj", c)
    mp = c["n_positions"]
    gen_rope.add_gptj_cos_sin(gen, vf, preset, [0, 1, mp - 2, mp - 1],
                              "create_sinusoidal_positions rows 0, 1, n-2, n-1", ["profile", "boundary"])
    small = ("gptj", dict(c, n_embd=c["n_embd"] // c["n_head"] * HEADS, n_head=HEADS))
    gen_rope.add_apply_gptj(gen, vf, small, ref.torch.tensor([[0, 1, mp - 2, mp - 1]]),
                            "apply at 0, 1, n-2, n-1 (2 heads)", ["profile", "boundary"])


def build_codegen(ref, gen, vf, profile):
    """CodeGen: GPT-J's scheme in modeling_codegen.py's own code. CodeGenAttention.__init__
    builds create_sinusoidal_positions(n_positions, rotary_dim) (sin | cos halves), forward
    gathers rows by position id (embed_positions[position_ids]), rotates
    query[..., :rotary_dim] with apply_rotary_pos_emb (rotate_every_two: adjacent pairs)
    and concatenates the rest back; each step below is that code's, with the module's own
    functions."""
    torch = ref.torch
    _, mdl = modules("codegen")
    c = {k: v for k, v in profile["config"].items() if k != "model_type"}
    n_pos, rot = c["n_positions"], c["rotary_dim"]
    head_dim = c["n_embd"] // c["n_head"]
    config = {"rope_type": "default", "rope_theta": 10000, "head_dim": head_dim, "rotary_dim": rot,
              "max_position_embeddings": n_pos}
    table = mdl.create_sinusoidal_positions(n_pos, rot)
    pos = [0, 1, n_pos - 2, n_pos - 1]
    rows = table[pos]
    half = rot // 2
    vf.add_test("rope.cos_sin", "create_sinusoidal_positions rows 0, 1, n-2, n-1", ["profile", "boundary"],
                source_of(ref, mdl.create_sinusoidal_positions, "create_sinusoidal_positions"), config,
                {"seq_len": 0}, {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64")},
                {"cos": vf.tensor(rows[:, half:].numpy(), "f32"), "sin": vf.tensor(rows[:, :half].numpy(), "f32")})
    comment = "apply at 0, 1, n-2, n-1 (2 heads)"
    x = famgen.seeded_normal(f"{vf.name}/{comment}", (len(pos), HEADS, head_dim))
    query = torch.from_numpy(x.copy()).view(1, len(pos), HEADS, head_dim)
    with torch.no_grad():
        sincos = table[torch.tensor([pos])]
        sin, cos = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
        q_rot = mdl.apply_rotary_pos_emb(query[:, :, :, :rot], sin, cos)
        out = torch.cat([q_rot, query[:, :, :, rot:]], dim=-1)
    vf.add_test("rope.apply", comment, ["profile", "boundary"],
                source_of(ref, mdl.CodeGenAttention, "create_sinusoidal_positions + CodeGenAttention.forward "
                          "(rotary_dim slice) + apply_rotary_pos_emb"),
                config, {"seq_len": 0, "pairing": "interleaved"},
                {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64"), "x": vf.tensor(x, "f32")},
                {"out": vf.tensor(out.reshape(len(pos), HEADS, head_dim).numpy(), "f32")})


def build_esm(ref, vf, profile):
    """ESM: position_embedding_type "absolute" is RoBERTa's rows (EsmEmbeddings, through
    build_learned_embeddings); "rotary" is modeling_esm.py's RotaryEmbedding(head_dim),
    which tables cos/sin for arange(seq_len) and rotates with rotate_half: its cos/sin
    rows 0, 1, n-2, n-1 of a sequence of the model's whole length, and q rotated there
    by its own apply_rotary_pos_emb."""
    c = profile["config"]
    if c.get("position_embedding_type", "absolute") == "absolute":
        build_learned_embeddings(ref, vf, profile)
        return
    torch = ref.torch
    _, mdl = modules("esm")
    n_pos, head_dim = c["max_position_embeddings"], c["hidden_size"] // c["num_attention_heads"]
    config = {"rope_type": "default", "rope_theta": 10000, "head_dim": head_dim, "rotary_dim": head_dim,
              "max_position_embeddings": n_pos}
    pos = [0, 1, n_pos - 2, n_pos - 1]
    rotary = mdl.RotaryEmbedding(head_dim)
    comment = "apply at 0, 1, n-2, n-1 (2 heads)"
    x = famgen.seeded_normal(f"{vf.name}/{comment}", (n_pos, HEADS, head_dim))
    with torch.no_grad():
        q = torch.from_numpy(x.copy()).transpose(0, 1)[None]  # [1, heads, seq, head_dim]
        cos, sin = rotary._update_cos_sin_tables(q, seq_dimension=-2)
        out = mdl.apply_rotary_pos_emb(q, cos, sin)[0].transpose(0, 1)[pos]
    half = head_dim // 2
    source = source_of(ref, mdl.RotaryEmbedding, "RotaryEmbedding._update_cos_sin_tables")
    vf.add_test("rope.cos_sin", "RotaryEmbedding's cos/sin rows 0, 1, n-2, n-1", ["profile", "boundary"], source,
                config, {"seq_len": 0}, {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64")},
                {"cos": vf.tensor(cos[0, 0, pos, :half].numpy(), "f32"),
                 "sin": vf.tensor(sin[0, 0, pos, :half].numpy(), "f32")})
    vf.add_test("rope.apply", comment, ["profile", "boundary"],
                source_of(ref, mdl.RotaryEmbedding, "RotaryEmbedding.forward + apply_rotary_pos_emb"),
                config, {"seq_len": 0, "pairing": "split_half"},
                {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64"), "x": vf.tensor(x[pos], "f32")},
                {"out": vf.tensor(out.numpy(), "f32")})


def build_roformer(ref, vf, profile):
    """RoFormer: RoFormerSinusoidalPositionalEmbedding's table (its _init_weight, which the
    model's _init_weights calls) read at rows 0, 1, n-2, n-1 of its max_position_embeddings,
    and q rotated there by RoFormerSelfAttention.apply_rotary_position_embeddings (sin
    and cos halves of a row, adjacent pairs)."""
    torch = ref.torch
    cfg_mod, mdl = modules("roformer")
    cfg = make_config(cfg_mod.RoFormerConfig, profile["config"])
    n_pos, head_dim = cfg.max_position_embeddings, cfg.hidden_size // cfg.num_attention_heads
    config = {"rope_type": "default", "rope_theta": 10000, "head_dim": head_dim, "rotary_dim": head_dim,
              "max_position_embeddings": n_pos}
    pos = [0, 1, n_pos - 2, n_pos - 1]
    table = mdl.RoFormerSinusoidalPositionalEmbedding(n_pos, head_dim)
    table._init_weight()
    comment = "apply at 0, 1, n-2, n-1 (2 heads)"
    x = famgen.seeded_normal(f"{vf.name}/{comment}", (len(pos), HEADS, head_dim))
    with torch.no_grad():
        rows = table(None, position_ids=torch.tensor(pos, dtype=torch.int64))  # [len(pos), head_dim]
        q = torch.from_numpy(x.copy()).transpose(0, 1)[None]  # [1, heads, seq, head_dim]
        out = mdl.RoFormerSelfAttention.apply_rotary_position_embeddings(rows[None, None], q, q.clone())[0]
        out = out[0].transpose(0, 1)
    half = head_dim // 2
    vf.add_test("rope.cos_sin", "the sinusoid table's rows 0, 1, n-2, n-1 (sin half, cos half)",
                ["profile", "boundary"],
                source_of(ref, mdl.RoFormerSinusoidalPositionalEmbedding,
                          "RoFormerSinusoidalPositionalEmbedding._init_weight"),
                config, {"seq_len": 0}, {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64")},
                {"cos": vf.tensor(rows[:, half:].numpy(), "f32"), "sin": vf.tensor(rows[:, :half].numpy(), "f32")})
    vf.add_test("rope.apply", comment, ["profile", "boundary"],
                source_of(ref, mdl.RoFormerSelfAttention, "RoFormerSelfAttention.apply_rotary_position_embeddings"),
                config, {"seq_len": 0, "pairing": "interleaved"},
                {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64"), "x": vf.tensor(x, "f32")},
                {"out": vf.tensor(out.numpy(), "f32")})


def build_mega(ref, vf, profile):
    """MEGA: MegaRotaryRelativePositionalBias's sin and cos tables (max_positions rows of
    shared_representation_size / 2, built in __init__) at rows 0, 1, n-2, n-1, and its
    rotary() turning rows of a sequence of n at those positions (one head: the vectors it
    turns are alpha and b_param, each one row per token)."""
    torch = ref.torch
    cfg_mod, mdl = modules("mega")
    cfg = make_config(cfg_mod.MegaConfig, profile["config"])
    bias = mdl.MegaRotaryRelativePositionalBias(cfg)
    n_pos, d = bias.sine.shape[0], cfg.shared_representation_size
    config = {"rope_type": "default", "rope_theta": 10000, "head_dim": d, "rotary_dim": d,
              "max_position_embeddings": n_pos}
    pos = [0, 1, n_pos - 2, n_pos - 1]
    vf.add_test("rope.cos_sin", "the sine and cosine tables' rows 0, 1, n-2, n-1 (n = max_positions)",
                ["profile", "boundary"],
                source_of(ref, mdl.MegaRotaryRelativePositionalBias,
                          "MegaRotaryRelativePositionalBias.get_sinusoid_embeddings"),
                config, {"seq_len": 0}, {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64")},
                {"cos": vf.tensor(bias.cosine[pos].numpy(), "f32"), "sin": vf.tensor(bias.sine[pos].numpy(), "f32")})
    comment = "rotary() of a sequence of max_positions rows, at 0, 1, n-2, n-1"
    x = famgen.seeded_normal(f"{vf.name}/{comment}", (len(pos), 1, d))
    rows = torch.zeros(n_pos, d)
    rows[pos] = torch.from_numpy(x[:, 0].copy())
    with torch.no_grad():
        out = bias.rotary(rows)[pos]
    vf.add_test("rope.apply", comment, ["profile", "boundary"],
                source_of(ref, mdl.MegaRotaryRelativePositionalBias, "MegaRotaryRelativePositionalBias.rotary"),
                config, {"seq_len": 0, "pairing": "split_half"},
                {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64"), "x": vf.tensor(x, "f32")},
                {"out": vf.tensor(out.numpy()[:, None, :], "f32")})


def build_deberta(ref, vf, profile):
    """DeBERTa with relative_attention: the relative positions its encoder builds (one query
    against 600 keys: every distance up to 599, past max_relative_positions) and layer 0's
    disentangled bias of 140 tokens (past the 128 exact distances of 256 buckets), by
    gen_deberta.py's runners: the model's own DisentangledSelfAttention (v2/v3) or
    disentangled_att_bias (v1), built at the profile's head size, buckets, span, terms and
    share_att_key with two heads, every parameter seeded."""
    import gen_deberta
    s = gen_deberta.Sources(ref)
    cfg = profile["config"]
    v2 = cfg["model_type"] == "deberta-v2"
    d = cfg.get("attention_head_size") or cfg["hidden_size"] // cfg["num_attention_heads"]
    kinds = cfg.get("pos_att_type") or []
    kinds = [x.strip() for x in kinds.lower().split("|")] if isinstance(kinds, str) else [x.lower() for x in kinds]
    terms = "|".join(t for t in ("c2p", "p2c") if t in kinds)
    label = f"{vf.name}/bias"
    if v2:
        out = gen_deberta.run_v2(s, label, 2, 2, 140, d, cfg.get("position_buckets", -1),
                                 cfg.get("max_relative_positions", -1), terms, bool(cfg.get("share_att_key")), kinds)
    else:
        if terms != "c2p|p2c" or cfg.get("max_relative_positions", -1) >= 1:
            raise SystemExit(f"{profile['name']}: gen_deberta's v1 runner builds c2p|p2c at span 512 only")
        out = gen_deberta.run_v1(s, label, 2, 1, 140, d)
    config, q, k, pos_key, pos_query, bias, _ = out
    vf.add_test("deberta.bias", "layer 0's disentangled bias of 140 tokens (2 heads)", ["profile", "boundary"],
                gen_deberta.SRC_V2 if v2 else gen_deberta.SRC_V1, config, {},
                {"q": vf.tensor(q, "f32"), "k": vf.tensor(k, "f32"), "pos_key": vf.tensor(pos_key, "f32"),
                 "pos_query": vf.tensor(pos_query, "f32")}, {"bias": vf.tensor(bias, "f32")})
    bucket_size, max_position = config["bucket_size"], config["max_position"]
    torch = ref.torch
    rel = s.m2.build_relative_position(torch.zeros((1, 1, 1)), torch.zeros((1, 600, 1)), bucket_size, max_position)
    got = rel[0].numpy().copy()
    gen_deberta.check_buckets(profile["name"], got, 1, 600, bucket_size, max_position)
    vf.add_test("deberta.relpos", "one query against 600 keys: r = 0 .. -599", ["profile", "boundary"],
                gen_deberta.SRC_RELPOS, {"bucket_size": bucket_size, "max_position": max_position, "q_len": 1,
                                         "k_len": 600}, {}, {}, {"relative_pos": vf.tensor(got, "i64")})


def build_conformer_rotary(ref, vf, profile):
    """Wav2Vec2-Conformer's rotary (position_embeddings_type rotary): the cos and sin
    Wav2Vec2ConformerRotaryPositionalEmbedding computes for a sequence of
    max_source_positions frames, at its first two and last two, and the attention's own
    _apply_rotary_embedding turning the first frames' hidden states with them."""
    torch = ref.torch
    cfg_mod, mdl = modules("wav2vec2-conformer")
    cfg = make_config(cfg_mod.Wav2Vec2ConformerConfig, profile["config"])
    heads = cfg.num_attention_heads
    head_dim = cfg.hidden_size // heads
    n_pos = cfg.max_source_positions
    config = {"rope_type": "default", "rope_theta": float(cfg.rotary_embedding_base), "head_dim": head_dim,
              "rotary_dim": head_dim, "max_position_embeddings": n_pos}
    rotary = mdl.Wav2Vec2ConformerRotaryPositionalEmbedding(cfg)
    with torch.no_grad():
        table = rotary(torch.zeros(1, n_pos, cfg.hidden_size))  # [2, T, 1, 1, head_dim]
    pos = [0, 1, n_pos - 2, n_pos - 1]
    half = head_dim // 2
    cos = table[0, pos, 0, 0, :half].numpy()
    sin = table[1, pos, 0, 0, :half].numpy()
    vf.add_test("rope.cos_sin", "cos and sin of frames 0, 1, n-2, n-1 (n = max_source_positions)",
                ["profile", "boundary"],
                source_of(ref, mdl.Wav2Vec2ConformerRotaryPositionalEmbedding,
                          "Wav2Vec2ConformerRotaryPositionalEmbedding.forward"),
                config, {"seq_len": 0}, {"positions": vf.tensor(np.asarray(pos, dtype=np.int64), "i64")},
                {"cos": vf.tensor(cos, "f32"), "sin": vf.tensor(sin, "f32")})
    frames = 6
    comment = f"the first {frames} frames' hidden states turned ({HEADS} of its heads)"
    x = famgen.seeded_normal(f"{vf.name}/{comment}", (frames, heads, head_dim))
    attention = mdl.Wav2Vec2ConformerSelfAttention(cfg).eval()
    with torch.no_grad():
        out = attention._apply_rotary_embedding(torch.from_numpy(x.reshape(1, frames, heads * head_dim)), table)
    out = out.reshape(frames, heads, head_dim)[:, :HEADS].numpy()
    vf.add_test("rope.apply", comment, ["profile"],
                source_of(ref, mdl.Wav2Vec2ConformerSelfAttention, "Wav2Vec2ConformerSelfAttention._apply_rotary_embedding"),
                config, {"seq_len": 0, "pairing": "split_half"},
                {"positions": vf.tensor(np.arange(frames, dtype=np.int64), "i64"), "x": vf.tensor(x[:, :HEADS], "f32")},
                {"out": vf.tensor(out, "f32")})


def falcon_bias_scale(torch, mdl, c, mask, alibi):
    """The factor Falcon puts on its ALiBi bias in the attention scores, read off the
    additive mask FalconModel._update_causal_mask builds from build_alibi_tensor's output
    (alibi / sqrt(head_dim); the eager path multiplies q.k + alibi by the same
    inv_norm_factor). The model is built on the profile's config with one layer and a
    16-token vocabulary; heads and hidden_size stay as the profile says."""
    cfg_mod, _ = modules("falcon")
    cfg = make_config(cfg_mod.FalconConfig, c)
    cfg.vocab_size = 16
    model = mdl.FalconModel(cfg).eval()
    n, seq = alibi.shape
    with torch.no_grad():
        causal = model._update_causal_mask(mask, torch.zeros(1, seq, cfg.hidden_size), torch.arange(seq), None,
                                           False, None, alibi.view(n, 1, seq))
    got = causal[0, :, seq - 1, seq - 1].double()  # the last query row: every key attended
    want = alibi[:, seq - 1].double()
    ratio = got / want  # float32 quotients: equal across heads up to their rounding
    if not bool(((ratio - ratio[0]).abs() <= 4 * 2.0 ** -24 * ratio[0]).all()):
        raise AssertionError("Falcon's mask scales the heads' biases differently")
    return float(ratio[0])


def build_alibi(ref, vf, profile):
    torch = ref.torch
    c = profile["config"]
    mt = c["model_type"]
    _, mdl = modules(mt)
    extra = {}
    if mt == "falcon":
        n, bias_max = c["num_attention_heads"], 8.0
        seq = 16
        mask = torch.ones(1, seq, dtype=torch.int64)
        alibi = mdl.build_alibi_tensor(mask, n, torch.float32).view(n, seq)  # Bloom's: slope_h * k
        fn, where = mdl.build_alibi_tensor, "build_alibi_tensor"
        slopes = alibi[:, 1].numpy().astype(np.float32)
        bias = alibi.view(n, 1, seq).numpy()
        q = np.zeros(1, dtype=np.int64)
        extra["bias_scale"] = falcon_bias_scale(torch, mdl, c, mask, alibi)
    elif mt == "bloom":
        n, bias_max = c["n_head"], 8.0
        seq = 16
        mask = torch.ones(1, seq, dtype=torch.int64)
        alibi = mdl.build_alibi_tensor(mask, n, torch.float32).view(n, seq)  # slope_h * k
        fn, where = mdl.build_alibi_tensor, "build_alibi_tensor"
        slopes = alibi[:, 1].numpy().astype(np.float32)
        bias = alibi.view(n, 1, seq).numpy()
        q = np.zeros(1, dtype=np.int64)  # Bloom's form is the linear form at q = 0
    else:
        n, bias_max = c["n_heads"], float(c["attn_config"]["alibi_bias_max"])
        seq = 16
        alibi = mdl.build_mpt_alibi_tensor(n, seq, bias_max)  # [n, 1, seq]: slope * (k - (seq-1))
        fn, where = mdl.build_mpt_alibi_tensor, "build_mpt_alibi_tensor"
        slopes = (-alibi[:, 0, seq - 2]).numpy().astype(np.float32)  # key seq-2: -1 * slope
        bias = alibi.numpy()
        q = np.full(1, seq - 1, dtype=np.int64)  # MPT's form: the last query q = seq-1
    src = source_of(ref, fn, where)
    cfgv = dict({"num_heads": n, "max_bias": bias_max}, **extra)
    scaled = " and bias_scale read off FalconModel._update_causal_mask" if extra else ""
    flags = ["profile", "bf16_reference"] if mt == "falcon" else ["profile"]
    vf.add_test("alibi.slopes", f"slopes of {n} heads (read off {where}){scaled}", flags, src, cfgv, {}, {},
                {"slopes": vf.tensor(slopes, "f32")})
    vf.add_test("alibi.bias", f"bias of {n} heads over keys 0..{seq - 1}", flags, src, cfgv,
                {"symmetric": False},
                {"q_positions": vf.tensor(q, "i64"), "k_positions": vf.tensor(np.arange(seq, dtype=np.int64), "i64")},
                {"bias": vf.tensor(bias, "f32")})


# The bucket function each T5-bucket model calls, and the config keys of its two fields:
# model_type -> (class, function, num_buckets key, max_distance key, the directions it has).
# Pix2Struct's keys are its text_config's; CPM-Ant's _position_bucket is an instance method
# that reads nothing of its instance and is always bidirectional.
T5_BUCKETS = {
    "t5": ("T5Attention", "_relative_position_bucket", "relative_attention_num_buckets",
           "relative_attention_max_distance", (True, False)),
    "longt5": ("LongT5Attention", "_relative_position_bucket", "relative_attention_num_buckets",
               "relative_attention_max_distance", (True, False)),
    "mt5": ("MT5Attention", "_relative_position_bucket", "relative_attention_num_buckets",
            "relative_attention_max_distance", (True, False)),
    "switch_transformers": ("SwitchTransformersAttention", "_relative_position_bucket",
                            "relative_attention_num_buckets", "relative_attention_max_distance", (True, False)),
    "pix2struct": ("Pix2StructTextAttention", "_relative_position_bucket", "relative_attention_num_buckets",
                   "relative_attention_max_distance", (True, False)),
    "cpmant": ("CpmAntSegmentPositionEmbedding", "_position_bucket", "position_bias_num_buckets",
               "position_bias_max_distance", (True,)),
    # WavLMAttention's method reads its own num_buckets and max_distance (the config's
    # num_buckets and max_bucket_distance, as WavLMEncoderLayer passes them).
    "wavlm": ("WavLMAttention", "_relative_positions_bucket", "num_buckets", "max_bucket_distance", (True,)),
}


# The config classes whose defaults fill a bucket key config.json leaves out (mT5-base's
# file has no relative_attention_max_distance: MT5Config's 128 applies).
T5_CONFIGS = {"t5": "T5Config", "mt5": "MT5Config", "longt5": "LongT5Config",
              "switch_transformers": "SwitchTransformersConfig"}


def build_t5(ref, vf, profile):
    torch = ref.torch
    mt = profile["config"]["model_type"]
    c = profile["config"]["text_config"] if mt == "pix2struct" else profile["config"]
    cls_name, fn_name, nb_key, md_key, directions = T5_BUCKETS[mt]
    cfg_mod, mdl = modules(mt)
    cls = getattr(mdl, cls_name)
    if mt in T5_CONFIGS:
        cfg = getattr(cfg_mod, T5_CONFIGS[mt])(**{k: v for k, v in c.items() if k != "model_type"})
        nb, md = getattr(cfg, nb_key), getattr(cfg, md_key)
    else:
        nb, md = c[nb_key], c[md_key]
    rel = np.concatenate([np.arange(-2 * md, 2 * md + 1), [-FAR, FAR]]).astype(np.int64)
    for bidirectional in directions:
        if mt == "cpmant":
            out = getattr(cls, fn_name)(None, torch.from_numpy(rel), num_buckets=nb, max_distance=md)
        elif mt == "wavlm":
            attention = cls(embed_dim=16, num_heads=2, num_buckets=nb, max_distance=md)
            out = getattr(attention, fn_name)(torch.from_numpy(rel))
        else:
            out = getattr(cls, fn_name)(torch.from_numpy(rel), bidirectional=bidirectional, num_buckets=nb,
                                        max_distance=md)
        vf.add_test("t5.bucket", ("encoder" if bidirectional else "decoder") + " buckets, -2max..2max and far",
                    ["profile", "long_position"],
                    source_of(ref, cls, f"{cls_name}.{fn_name}"),
                    {"bidirectional": bidirectional, "num_buckets": nb, "max_distance": md}, {},
                    {"relative_position": vf.tensor(rel, "i64")},
                    {"bucket": vf.tensor(out.numpy().astype(np.int64), "i64")})


# The Swin family: model_type -> (config class, the self-attention class whose __init__
# registers relative_position_index for config.window_size). The v2 classes take a
# pretrained_window_size too, which shapes only their continuous bias table.
SWIN_MODELS = {
    "swin": ("SwinConfig", "SwinSelfAttention"),
    "donut-swin": ("DonutSwinConfig", "DonutSwinSelfAttention"),
    "maskformer-swin": ("MaskFormerSwinConfig", "MaskFormerSwinSelfAttention"),
    "swinv2": ("Swinv2Config", "Swinv2SelfAttention"),
    "swin2sr": ("Swin2SRConfig", "Swin2SRSelfAttention"),
}


def build_swin(ref, vf, profile):
    """The index the model's first attention layer registers, as it builds it: the class on
    the config, the first stage's width and heads (the index depends on the window alone)."""
    mt = profile["config"]["model_type"]
    cfg_name, cls_name = SWIN_MODELS[mt]
    cfg_mod, mdl = modules(mt)
    cfg = make_config(getattr(cfg_mod, cfg_name), profile["config"])
    cls = getattr(mdl, cls_name)
    heads = cfg.num_heads[0] if isinstance(cfg.num_heads, (list, tuple)) else cfg.num_heads
    attention = cls(cfg, cfg.embed_dim, heads, cfg.window_size)
    index = attention.relative_position_index.numpy().astype(np.int64)
    w = cfg.window_size
    vf.add_test("swin.index", f"relative_position_index of the {w} x {w} window", ["profile", "window"],
                source_of(ref, cls, cls_name + ".__init__"), {"window_h": w, "window_w": w}, {}, {},
                {"index": vf.tensor(index, "i64")})


# BEiT and Data2Vec-vision: model_type -> (config class, bias class). The index over the
# patches is Swin's for the whole grid; the class token's row and column are past it.
BEIT_MODELS = {"beit": ("BeitConfig", "BeitRelativePositionBias"),
               "data2vec-vision": ("Data2VecVisionConfig", "Data2VecVisionRelativePositionBias")}


def build_beit(ref, vf, profile):
    """The patches' part of the relative_position_index the model's bias class registers
    for its window, the embeddings' patch grid (the class token's row and column dropped)."""
    mt = profile["config"]["model_type"]
    cfg_name, cls_name = BEIT_MODELS[mt]
    cfg_mod, mdl = modules(mt)
    cfg = make_config(getattr(cfg_mod, cfg_name), profile["config"])
    embeddings = getattr(mdl, cls_name.replace("RelativePositionBias", "Embeddings"))(cfg)
    grid = tuple(embeddings.patch_embeddings.patch_shape)
    cls = getattr(mdl, cls_name)
    # forward builds the index for the grid it is called with (generate_relative_position_index).
    index = cls(cfg, window_size=grid).generate_relative_position_index(grid).numpy().astype(np.int64)[1:, 1:]
    vf.add_test("swin.index", f"relative_position_index of the {grid[0]} x {grid[1]} patch grid, the class token's "
                f"row and column dropped", ["profile", "window"],
                source_of(ref, cls, cls_name + ".generate_relative_position_index"),
                {"window_h": grid[0], "window_w": grid[1]}, {}, {}, {"index": vf.tensor(index, "i64")})


# The DETR family's sine embedding: model_type -> (config class, how its model builds the
# module: "build" = the modeling file's build_position_encoding(config); "dab" =
# DabDetrSinePositionEmbedding(config); else the transformer module whose __init__ builds
# it, called with the width it is given by the model).
SINE2D_MODELS = {
    "detr": ("DetrConfig", "build"), "table-transformer": ("TableTransformerConfig", "build"),
    "conditional_detr": ("ConditionalDetrConfig", "build"), "deformable_detr": ("DeformableDetrConfig", "build"),
    "deta": ("DetaConfig", "build"), "grounding-dino": ("GroundingDinoConfig", "build"),
    "mm-grounding-dino": ("MMGroundingDinoConfig", "build"), "dab-detr": ("DabDetrConfig", "dab"),
    "maskformer": ("MaskFormerConfig", "MaskFormerTransformerModule"),
    "mask2former": ("Mask2FormerConfig", "Mask2FormerTransformerModule"),
    "oneformer": ("OneFormerConfig", "OneFormerTransformerModule"),
}
# The feature maps recorded: a 7 x 9 map (a 224 x 288 image at stride 32), and, for the
# models that read the pixel mask, a 160 x 192 image padded to it (5 x 6 valid). Small:
# they pin the mapping (width, temperatures, offset, mask), which holds at every size,
# while certify.sine2d.reference takes ref to the maps of 800 x 1066 images.
SINE2D_MAPS = ((7, 9, 7, 9), (7, 9, 5, 6))


def sine2d_module(mdl, cfg, how):
    """The sine embedding module as the model builds it from its config."""
    if how == "build":
        return mdl.build_position_encoding(cfg)
    if how == "dab":
        return mdl.DabDetrSinePositionEmbedding(cfg)
    width = {"MaskFormerTransformerModule": lambda: cfg.decoder_config.hidden_size,
             "Mask2FormerTransformerModule": lambda: cfg.feature_size,
             "OneFormerTransformerModule": lambda: cfg.conv_dim}[how]()
    return getattr(mdl, how)(width, cfg).position_embedder


def build_sine2d(ref, vf, profile):
    """The model's sine embedding module on its feature maps, called as its forward calls it
    (DETR's family with the pixel mask, MaskFormer's with none: every pixel valid)."""
    mt = profile["config"]["model_type"]
    cfg_name, how = SINE2D_MODELS[mt]
    cfg_mod, mdl = modules(mt)
    cfg = make_config(getattr(cfg_mod, cfg_name), profile["config"])
    module = sine2d_module(mdl, cfg, how)
    name = type(module).__name__
    file, _, call, _ = gen_sine2d.CLASSES[name]
    params = gen_sine2d.parameters(module)
    for h, w, ih, iw in SINE2D_MAPS:
        if call != "pixel_mask" and (ih, iw) != (h, w):
            continue
        mask = np.zeros((h, w), dtype=np.int32)
        mask[:ih, :iw] = 1
        what = f"{name} of a {h} x {w} map, the image {ih} x {iw}"
        emb = gen_sine2d.embed(ref.torch, f"{mt}: {what}", module, mask, params)
        config = dict(params, h=h, w=w, module=name)
        vf.add_test("sine2d.embed", what, ["profile", "feature_map"],
                    famgen.source("src/transformers/models/" + file, name + ".forward"), config, {},
                    {"mask": vf.tensor(mask, "i32")}, {"embedding": vf.tensor(emb, "f32")})


# RT-DETR's family (certify_sincos2d.c): model_type -> (config class, hybrid encoder class).
# The encoder is built from the config as the model builds it, and its own static
# build_2d_sincos_position_embedding called as its forward calls it, with its own
# encoder_hidden_dim and positional_encoding_temperature, on small maps: a 3 x 4 and a 4 x 3
# (non-square: where the layout's numbering shows), while certify.sincos2d.reference takes
# ref to the maps of 640 x 480 images.
SINCOS2D_MODELS = {
    "rt_detr": ("RTDetrConfig", "RTDetrHybridEncoder"), "rt_detr_v2": ("RTDetrV2Config", "RTDetrV2HybridEncoder"),
    "d_fine": ("DFineConfig", "DFineHybridEncoder"), "omdet-turbo": ("OmDetTurboConfig", "OmDetTurboHybridEncoder"),
}
SINCOS2D_MAPS = ((3, 4), (4, 3))


def build_sincos2d(ref, vf, profile):
    """The hybrid encoder's 2-D sin-cos table of small feature maps (eval_size None: the
    encoder builds it per call; certify refuses a config that sets it)."""
    mt = profile["config"]["model_type"]
    cfg_name, enc_name = SINCOS2D_MODELS[mt]
    cfg_mod, mdl = modules(mt)
    cfg = make_config(getattr(cfg_mod, cfg_name), profile["config"])
    encoder = getattr(mdl, enc_name)(cfg)
    if encoder.eval_size is not None:
        raise SystemExit(f"{profile['name']}: eval_size {encoder.eval_size}: the encoder adds no table in eval mode")
    dim, temperature = encoder.encoder_hidden_dim, encoder.positional_encoding_temperature
    for h, w in SINCOS2D_MAPS:
        table = encoder.build_2d_sincos_position_embedding(w, h, dim, temperature, device="cpu",
                                                           dtype=ref.torch.float32)[0].numpy()
        if table.dtype != np.float32 or table.shape != (h * w, dim):
            raise AssertionError(f"{mt}: {table.dtype} {table.shape}")
        vf.add_test("sincos2d.embed", f"{enc_name} table of a {h} x {w} feature map", ["profile", "feature_map"],
                    source_of(ref, type(encoder), enc_name + ".build_2d_sincos_position_embedding"),
                    {"embed_dim": dim, "grid_h": h, "grid_w": w, "cls_token": False, "base": temperature,
                     "layout": "rt_detr"}, {}, {}, {"embedding": vf.tensor(table, "f32")})


# The image encoders with decomposed relative positions (certify_relpos2d.c): model_type ->
# (config class, the tower's key in it or None, module, encoder class, each layer's attention
# attribute, how the attention adds the bias). The encoder is built from the config as the
# model builds it (every layer: which are windowed is its own rule), and each distinct table
# shape its layers hold is recorded with those tables' shapes (values seeded) on its grid's
# row and column strips (q_h x 1, 1 x q_w), whose rows still read the layer's full tables:
# the side and the rows pecert must derive, in kilobytes (SAM's whole 64 x 64 grid is a 67 MB
# bias; certify.relpos2d.reference takes ref to the whole grids).
RELPOS2D_MODELS = {
    "sam": ("SamConfig", "vision_config", "sam", "SamVisionEncoder", "attn", "decomposed"),
    "sam_vision_model": ("SamVisionConfig", None, "sam", "SamVisionEncoder", "attn", "decomposed"),
    "sam_hq": ("SamHQConfig", "vision_config", "sam_hq", "SamHQVisionEncoder", "attn", "decomposed"),
    "sam_hq_vision_model": ("SamHQVisionConfig", None, "sam_hq", "SamHQVisionEncoder", "attn", "decomposed"),
    "vitdet": ("VitDetConfig", None, "vitdet", "VitDetEncoder", "attention", "vitdet"),
    "seggpt": ("SegGptConfig", None, "seggpt", "SegGptEncoder", "attention", "seggpt"),
}
RELPOS2D_QUERY_HEADS = 1


def half_steps(label, shape):
    """Seeded normals rounded to halves: every row still differs from the others, each
    product and sum of a bias is exact in float32, and the few distinct values compress (the
    vectors pin which rows a layer reads, not its rounding)."""
    return (np.round(famgen.seeded_normal(label, shape) * 2) / 2).astype(np.float32)


def relpos2d_bias(torch, mdl, attn, how, query, qs, ks):
    """The bias the layer's attention adds to its scores, [n, Q, K] (zero scores where the
    class adds to them), with the layer's own tables."""
    n, q_tokens, k_tokens = query.shape[0], qs[0] * qs[1], ks[0] * ks[1]
    zeros = torch.zeros((n, q_tokens, k_tokens), dtype=torch.float32)
    with torch.no_grad():
        if how == "decomposed":
            got = attn.get_decomposed_rel_pos(query, attn.rel_pos_h, attn.rel_pos_w, qs, ks).reshape_as(zeros)
        elif how == "vitdet":
            got = mdl.add_decomposed_relative_positions(zeros, query, attn.rel_pos_h, attn.rel_pos_w, qs, ks)
        else:
            got = attn.add_decomposed_rel_pos(zeros, query, attn.rel_pos_h, attn.rel_pos_w, qs, ks)
    return got.numpy().copy()


def build_relpos2d(ref, vf, profile):
    """Each distinct pair of tables the encoder's layers hold, at the grid they are for."""
    torch = ref.torch
    c = profile["config"]
    mt = c["model_type"]
    cls_name, tower_key, module_name, encoder_name, attr, how = RELPOS2D_MODELS[mt]
    cfg_mod = importlib.import_module(f"transformers.models.{module_name}.configuration_{module_name}")
    mdl = importlib.import_module(f"transformers.models.{module_name}.modeling_{module_name}")
    cfg = getattr(cfg_mod, cls_name)(**copy.deepcopy({k: v for k, v in c.items() if k != "model_type"}))
    tower = getattr(cfg, tower_key) if tower_key else cfg
    encoder = getattr(mdl, encoder_name)(tower)
    seen = []
    for i, layer in enumerate(encoder.layers if hasattr(encoder, "layers") else encoder.layer):
        attn = getattr(layer, attr)
        shapes = (tuple(attn.rel_pos_h.shape), tuple(attn.rel_pos_w.shape))
        if shapes in seen:
            continue
        seen.append(shapes)
        (lh, ch), (lw, _) = shapes
        gh, gw = (lh + 1) // 2, (lw + 1) // 2
        label = f"{vf.name}/layer {i}"
        with torch.no_grad():
            attn.rel_pos_h.copy_(torch.from_numpy(half_steps(label + "/rel_pos_h", (lh, ch))))
            attn.rel_pos_w.copy_(torch.from_numpy(half_steps(label + "/rel_pos_w", (lw, ch))))
        for qs in ((gh, 1), (1, gw)):
            query = half_steps(f"{label}/query {qs}", (RELPOS2D_QUERY_HEADS, qs[0] * qs[1], ch))
            bias = relpos2d_bias(torch, mdl, attn, how, torch.from_numpy(query), qs, qs)
            vf.add_test("relpos2d.bias", f"layer {i}'s tables ({lh} and {lw} rows of {ch}) on a {qs[0]} x {qs[1]} "
                                         f"strip of its {gh} x {gw} grid",
                        ["profile", "layer_tables"],
                        famgen.source(f"src/transformers/models/{module_name}/modeling_{module_name}.py",
                                      f"{type(attn).__name__} (layer {i} of {encoder_name})"),
                        {"q_h": qs[0], "q_w": qs[1], "k_h": qs[0], "k_w": qs[1],
                         "module": next(k.__name__ for k in type(attn).__mro__ if k.__name__ in gen_relpos2d.MODULES)},
                        {}, {"query": vf.tensor(query, "f32"), "rel_pos_h": vf.tensor(attn.rel_pos_h.detach().numpy(), "f32"),
                             "rel_pos_w": vf.tensor(attn.rel_pos_w.detach().numpy(), "f32")},
                        {"bias": vf.tensor(bias, "f32")})


def periodic_table(label, shape):
    """A [rows, dim] table of seeded normals repeating with a prime period.

    Every row still differs from every other (the period, 4099, is prime,
    so row r and row r' coincide only if (r - r') * dim is a multiple of it,
    which no r - r' below 4099 is for these dims; a longer table is made of
    4099-row blocks of their own patterns), so a lookup one or two
    rows off fails as loudly as with an i.i.d. table; but zlib stores the
    table and the looked-up rows in kilobytes instead of megabytes.
    """
    period = 4099
    rows, dim = shape
    if rows > period:
        # Past the period rows would repeat (r and r + 4099 coincide): blocks of 4099 rows,
        # each its own seeded pattern, so every row stays distinct and each block still
        # compresses (CANINE's 16384 rows).
        blocks = [periodic_table(f"{label}/block {b}", (min(period, rows - b * period), dim))
                  for b in range((rows + period - 1) // period)]
        return np.concatenate(blocks)
    pattern = famgen.seeded_normal(label, (period,))
    flat = np.resize(pattern, rows * dim)
    return flat.reshape(rows, dim).astype(np.float32)


# The ViT family: model_type -> (config class, embeddings class holding the table).
VIT_EMBEDDINGS = {model_type: (cls, emb) for model_type, (cls, _, emb) in profile_vision.TABLE_TOWERS.items()}


# The decoders whose forward reads a learned table at position_ids = cache_position
# (arange from the cache's length): model_type -> (config class, rows key, width key,
# model class). GPT-2, GPT-BigCode (StarCoder 1) and GPT-Neo (its wpe).
BIG_TABLE_BYTES = 8 << 20  # a table past it: its lookups (read by every `pecert run` over vectors/) kept short
GPT2_LIKE = {
    "gpt2": ("GPT2Config", "n_positions", "n_embd", "GPT2Model"),
    "gpt_bigcode": ("GPTBigCodeConfig", "n_positions", "n_embd", "GPTBigCodeModel"),
    "gpt_neo": ("GPTNeoConfig", "max_position_embeddings", "hidden_size", "GPTNeoModel"),
    # Bark's semantic model (BarkCausalModel.position_embeds_layer), from semantic_config.
    "bark": ("BarkSemanticConfig", "block_size", "hidden_size", "BarkCausalModel"),
}


def build_learned(ref, vf, profile):
    """The model's position-embedding module, fed the ids the model forms (0..rows-1)."""
    torch = ref.torch
    c = profile["config"]
    mt = c["model_type"]
    cfg_mod, mdl = modules(mt)
    cls_name = {"bert": "BertConfig", **{k: v[0] for k, v in GPT2_LIKE.items()},
                **{k: v[0] for k, v in VIT_EMBEDDINGS.items()}}[mt]
    cfg = make_config(getattr(cfg_mod, cls_name), c)
    with torch.no_grad():
        if mt == "bert":
            module = mdl.BertEmbeddings(cfg)
            weight, where = module.position_embeddings.weight, "BertEmbeddings.position_embeddings"
            ids = module.position_ids[0]
        elif mt in GPT2_LIKE:
            _, rows_key, width_key, model_cls = GPT2_LIKE[mt]
            rows, width = getattr(cfg, rows_key), getattr(cfg, width_key)
            weight = torch.nn.Embedding(rows, width).weight
            where = model_cls + (".position_embeds_layer" if mt == "bark" else ".wpe")
            ids = torch.arange(rows)
            if rows * width * 4 > BIG_TABLE_BYTES:  # the lookups kept to the table's two ends
                ids = torch.cat([ids[:64], ids[-64:]])
        else:
            module = getattr(mdl, VIT_EMBEDDINGS[mt][1])(cfg)
            weight = profile_vision.table_of(module)
            where = VIT_EMBEDDINGS[mt][1] + (".position_embeddings" if hasattr(module, "position_embeddings")
                                             else ".position_embedding")
            ids = torch.arange(weight.shape[0])
        table = periodic_table(f"{vf.name}/table", tuple(weight.shape))
        weight = torch.from_numpy(table)
        out = torch.nn.functional.embedding(ids, weight)
    ctx = (mdl.BertEmbeddings if mt == "bert" else getattr(mdl, GPT2_LIKE[mt][3]) if mt in GPT2_LIKE
           else getattr(mdl, VIT_EMBEDDINGS[mt][1]))
    which = "every row" if len(ids) == weight.shape[0] else "the first and last 64 rows"
    vf.add_test("learned.lookup", f"{which} of the {tuple(weight.shape)} table in the model's id order",
                ["profile", "boundary"], source_of(ref, ctx, where), {"convention": "plain"}, {},
                {"table": vf.tensor(table, "f32"), "positions": vf.tensor(ids.numpy().astype(np.int64), "i64")},
                {"embedding": vf.tensor(out.numpy(), "f32")})


# Tables for a fixed token grid, never resized (certify_fixed_tables.c): model_type ->
# (config class, module, embeddings class); the table is the class's position_embeddings
# (a [1, rows, width] parameter or an nn.Embedding) or MGP-STR's pos_embed.
FIXED_TABLES = {
    "audio-spectrogram-transformer": ("ASTConfig", "audio_spectrogram_transformer", "ASTEmbeddings"),
    "eomt": ("EomtConfig", "eomt", "EomtEmbeddings"),
    "mgp-str": ("MgpstrConfig", "mgp_str", "MgpstrEmbeddings"),
    "aimv2_vision_model": ("Aimv2VisionConfig", "aimv2", "Aimv2VisionEmbeddings"),
    "vivit": ("VivitConfig", "vivit", "VivitEmbeddings"),
    "vit-hybrid": ("ViTHybridConfig", "deprecated.vit_hybrid", "ViTHybridEmbeddings"),
    "hiera": ("HieraConfig", "hiera", "HieraEmbeddings"),
    "timesformer": ("TimesformerConfig", "timesformer", "TimesformerEmbeddings"),
    "yolos": ("YolosConfig", "yolos", "YolosEmbeddings"),
    # The timestep table of the model itself (no embeddings class of its own).
    "decision_transformer": ("DecisionTransformerConfig", "decision_transformer", "DecisionTransformerModel"),
    "vitpose_backbone": ("VitPoseBackboneConfig", "vitpose_backbone", "VitPoseBackboneEmbeddings"),
    "vitdet": ("VitDetConfig", "vitdet", "VitDetEmbeddings"),
    # The first stage's table, as the encoder builds its patch embeddings from the config.
    "pvt": ("PvtConfig", "pvt", "PvtEncoder"),
}
# Tables held by a part of the module the config builds: model_type -> (the part, its class).
FIXED_TABLE_PARTS = {"pvt": (lambda encoder: encoder.patch_embeddings[0], "PvtPatchEmbeddings")}


def build_fixed_table(ref, vf, profile):
    """Every row of the class's table in token order (its rows as the class builds them)."""
    torch = ref.torch
    mt = profile["config"]["model_type"]
    cls_name, module_name, emb_name = FIXED_TABLES[mt]
    stem = module_name.rsplit(".", 1)[-1]  # deprecated.vit_hybrid's files are *_vit_hybrid.py
    cfg_mod = importlib.import_module(f"transformers.models.{module_name}.configuration_{stem}")
    mdl = importlib.import_module(f"transformers.models.{module_name}.modeling_{stem}")
    cfg = make_config(getattr(cfg_mod, cls_name), profile["config"])
    module = getattr(mdl, emb_name)(cfg)
    if mt in FIXED_TABLE_PARTS:
        part, emb_name = FIXED_TABLE_PARTS[mt]
        module = part(module)
    attr = next(a for a in ("pos_embed", "position_embeddings", "position_embedding", "embed_timestep")
                if hasattr(module, a))
    held = getattr(module, attr)
    weight = held.weight if isinstance(held, torch.nn.Embedding) else held[0]
    shape, where = tuple(weight.shape), emb_name + "." + attr
    table = periodic_table(f"{vf.name}/table", shape)
    with torch.no_grad():
        ids = torch.arange(shape[0])
        out = torch.nn.functional.embedding(ids, torch.from_numpy(table))
    vf.add_test("learned.lookup", f"every row of the {shape} table in token order", ["profile", "boundary"],
                source_of(ref, getattr(mdl, emb_name), where), {"convention": "plain"}, {},
                {"table": vf.tensor(table, "f32"), "positions": vf.tensor(ids.numpy().astype(np.int64), "i64")},
                {"embedding": vf.tensor(out.numpy(), "f32")})


# The position modules that number their tokens themselves: model_type -> (config
# class, module class, rows key, width key, what forward takes). BART's and mBART's
# add 2 to arange from the cache's length (padding numbered like any token); OPT's
# number the attention mask's ones from 2, its zeros row 1.
POSITION_MODULES = {
    "bart": ("BartConfig", "BartLearnedPositionalEmbedding", "max_position_embeddings", "d_model", "input_ids"),
    "mbart": ("MBartConfig", "MBartLearnedPositionalEmbedding", "max_position_embeddings", "d_model", "input_ids"),
    "opt": ("OPTConfig", "OPTLearnedPositionalEmbedding", "max_position_embeddings", "hidden_size",
            "attention_mask"),
    "biogpt": ("BioGptConfig", "BioGptLearnedPositionalEmbedding", "max_position_embeddings", "hidden_size",
               "attention_mask"),
    "trocr": ("TrOCRConfig", "TrOCRLearnedPositionalEmbedding", "max_position_embeddings", "d_model", "input_ids"),
}


def build_position_module(ref, vf, profile):
    """The rows a model's own positional-embedding module reads, found by value in a
    periodic table of the profile's shape: for a plain row of tokens and a left-padded one."""
    torch = ref.torch
    c = profile["config"]
    mt = c["model_type"]
    cfg_mod, mdl = modules(mt)
    cls_name, module_name, rows_key, width_key, takes = POSITION_MODULES[mt]
    cfg = make_config(getattr(cfg_mod, cls_name), c)
    module = getattr(mdl, module_name)(getattr(cfg, rows_key), getattr(cfg, width_key)).eval()
    pad = cfg.pad_token_id
    token = pad + 1
    weight = periodic_table(f"{vf.name}/table", tuple(module.weight.shape))
    cases = [("every position of a sequence", [token] * 64), ("a left-padded sequence", [pad, pad] + [token] * 6)]
    reads = []
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(weight))
        for _, ids in cases:
            ids_t = torch.tensor([ids])
            arg = (ids_t != pad).long() if takes == "attention_mask" else ids_t
            out = module(arg)[0].numpy()
            reads.append((ids, gen_learned.rows_of(out, weight), out))
    add_rows_test(vf, cases, reads, pad, weight, "the rows the model's position module reads",
                  source_of(ref, getattr(mdl, module_name), module_name + ".forward"))


# The sinusoidal tables (conformance/certify/certify_sinusoidal.c): model_type -> (the
# pecert variant, the trained length's config keys, the pad_token_id rule). Each table is
# built by the model's own class as its encoder or decoder builds it, and read the way
# its forward reads it (sinusoidal_rows).
SINUSOIDAL_MODELS = {
    "marian": ("concat", ("max_position_embeddings",), None),
    "pegasus": ("concat", ("max_position_embeddings",), None),
    "ctrl": ("concat", ("n_positions",), None),
    "m2m_100": ("fairseq", ("max_position_embeddings",), "zero_row"),
    "nllb-moe": ("fairseq", ("max_position_embeddings",), "zero_row"),
    "fsmt": ("fairseq", ("max_position_embeddings",), "zero_row"),
    "speech_to_text": ("fairseq", ("max_source_positions", "max_target_positions"), "zero_row"),
    "xglm": ("fairseq", ("max_position_embeddings",), "takes_position"),
    "pegasus_x": ("t2t", ("max_position_embeddings",), None),
    "kosmos_2_text_model": ("fairseq", ("max_position_embeddings",), "zero_row"),
    "kosmos_2_5_text_model": ("fairseq", ("max_position_embeddings",), "zero_row"),
    "whisper": ("t2t", ("max_source_positions",), None),
    "videomae": ("interleaved", (), None),  # one row per patch: VideoMAEEmbeddings.num_patches
    "seamless_m4t": ("fairseq", ("max_position_embeddings",), "zero_row"),
    "seamless_m4t_v2": ("fairseq", ("max_position_embeddings",), "zero_row"),
}
MODULE_OF.update({"table-transformer": "table_transformer", "grounding-dino": "grounding_dino", "omdet-turbo": "omdet_turbo",
                  "mm-grounding-dino": "mm_grounding_dino", "dab-detr": "dab_detr"})
MODULE_OF.update({"nllb-moe": "nllb_moe", "kosmos_2_text_model": "kosmos2", "kosmos_2_5_text_model": "kosmos2_5"})
# Rows recorded at each end of the trained length (the model's whole table would be
# megabytes: pegasus_x's is 16384 x 1024).
SINUSOIDAL_END_ROWS = 16


def sinusoidal_width(cfg):
    """The table's width: d_model, CTRL's n_embd, Kosmos-2's embed_dim, VideoMAE's hidden_size."""
    for key in ("d_model", "n_embd", "embed_dim", "hidden_size"):
        if hasattr(cfg, key):
            return getattr(cfg, key)
    raise KeyError("no width key in %s" % type(cfg).__name__)


def sinusoidal_module(torch, mdl, mt, cfg, pad):
    """The position module as the model's encoder (decoder for XGLM) builds it, and its
    call on ids: (reader(ids) -> [len, dim] embedding, the class or function, where)."""
    d = sinusoidal_width(cfg)
    if mt in ("marian", "pegasus"):
        cls = getattr(mdl, ("Marian" if mt == "marian" else "Pegasus") + "SinusoidalPositionalEmbedding")
        module = cls(cfg.max_position_embeddings, d, pad)
        module._init_weight()  # what the model's _init_weights calls
        return lambda ids: module(ids.shape, 0, None), cls, cls.__name__ + "._init_weight"
    if mt == "ctrl":
        table = mdl.positional_encoding(cfg.n_positions, d, torch.float)  # CTRLModel.__init__
        return lambda ids: table[torch.arange(ids.shape[1])], mdl.positional_encoding, "positional_encoding"
    if mt in ("m2m_100", "nllb-moe", "speech_to_text", "kosmos_2_text_model", "kosmos_2_5_text_model",
              "seamless_m4t", "seamless_m4t_v2"):
        name = {"m2m_100": "M2M100", "nllb-moe": "NllbMoe", "speech_to_text": "Speech2Text",
                "kosmos_2_text_model": "Kosmos2Text", "kosmos_2_5_text_model": "Kosmos2_5Text",
                "seamless_m4t": "SeamlessM4T", "seamless_m4t_v2": "SeamlessM4Tv2"}[mt]
        cls = getattr(mdl, name + "SinusoidalPositionalEmbedding")
        rows = cfg.max_source_positions if mt == "speech_to_text" else cfg.max_position_embeddings
        module = cls(rows, d, pad)
        return lambda ids: module(ids)[0], cls, cls.__name__ + ".forward"
    if mt == "fsmt":
        module = mdl.SinusoidalPositionalEmbedding(cfg.max_position_embeddings + pad + 1, d, pad)
        # An nn.Embedding until PretrainedFSMTModel._init_weights sets get_embedding of its
        # shape, as make_weight does.
        module.make_weight(cfg.max_position_embeddings + pad + 1, d, pad)
        return lambda ids: module(ids)[0], type(module), "SinusoidalPositionalEmbedding.forward"
    if mt == "whisper":
        # WhisperPreTrainedModel._init_weights copies sinusoids(*weight.shape) into the
        # encoder's embed_positions; WhisperEncoder.forward reads every row in order.
        table = mdl.sinusoids(cfg.max_source_positions, d)
        return lambda ids: table[torch.arange(ids.shape[1])], mdl.sinusoids, "sinusoids"
    if mt == "videomae":
        # VideoMAEEmbeddings.__init__: get_sinusoid_encoding_table(num_patches, hidden_size),
        # added whole to the patch embeddings (row p for patch p).
        table = mdl.VideoMAEEmbeddings(cfg).position_embeddings[0]
        return lambda ids: table[torch.arange(ids.shape[1])], mdl.get_sinusoid_encoding_table, \
            "get_sinusoid_encoding_table"
    if mt == "xglm":
        module = mdl.XGLMSinusoidalPositionalEmbedding(cfg.max_position_embeddings, d, pad)
        # XGLMModel.forward: position_ids = arange(past, past + seq), whatever the ids.
        return lambda ids: module(torch.arange(ids.shape[1])[None], 0)[0], type(module), \
            "XGLMSinusoidalPositionalEmbedding.forward"
    module = mdl.PegasusXSinusoidalPositionalEmbedding(d)
    return lambda ids: module(torch.zeros(1, ids.shape[1], d))[0], type(module), \
        "PegasusXSinusoidalPositionalEmbedding.forward"


def whisper_decoder_table(ref, vf, mdl, cfg):
    """Whisper's decoder table, WhisperPositionalEmbedding, read as the decoder reads it
    (weight[past : past + seq]) over all its rows: a learned.lookup of row p."""
    torch = ref.torch
    rows, width = cfg.max_target_positions, cfg.d_model
    table = periodic_table(f"{vf.name}/decoder table", (rows, width))
    module = mdl.WhisperPositionalEmbedding(rows, width)
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(table))
        out = module(torch.zeros(1, rows, dtype=torch.long), 0).numpy()
    vf.add_test("learned.lookup", f"the decoder's {rows} x {width} table, every row in the order it reads them",
                ["profile", "boundary"], source_of(ref, mdl.WhisperPositionalEmbedding,
                                                   "WhisperPositionalEmbedding.forward"),
                {"convention": "plain"}, {},
                {"table": vf.tensor(table, "f32"), "positions": vf.tensor(np.arange(rows, dtype=np.int64), "i64")},
                {"embedding": vf.tensor(out, "f32")})


def build_sinusoidal(ref, vf, profile):
    """The table's first and last SINUSOIDAL_END_ROWS positions of the trained length, read
    by the model's own module from a sequence of that length; and where padding has a rule,
    a left-padded row of ids, its padding tokens recorded as position -1 (the zero row) or
    numbered like any token."""
    torch = ref.torch
    c = profile["config"]
    mt = c["model_type"]
    variant, keys, padding = SINUSOIDAL_MODELS[mt]
    cfg_mod, mdl = modules(mt)
    cls_name = {"m2m_100": "M2M100Config", "nllb-moe": "NllbMoeConfig", "speech_to_text": "Speech2TextConfig",
                "fsmt": "FSMTConfig", "xglm": "XGLMConfig", "pegasus_x": "PegasusXConfig", "ctrl": "CTRLConfig",
                "marian": "MarianConfig", "pegasus": "PegasusConfig", "kosmos_2_text_model": "Kosmos2TextConfig",
                "whisper": "WhisperConfig", "videomae": "VideoMAEConfig",
                "kosmos_2_5_text_model": "Kosmos2_5TextConfig", "seamless_m4t": "SeamlessM4TConfig",
                "seamless_m4t_v2": "SeamlessM4Tv2Config"}[mt]
    cfg = make_config(getattr(cfg_mod, cls_name), c)
    pad = getattr(cfg, "pad_token_id", None)
    trained = max(getattr(cfg, k) for k in keys) if keys else mdl.VideoMAEPatchEmbeddings(cfg).num_patches
    read, owner, where = sinusoidal_module(torch, mdl, mt, cfg, pad)
    config = {"variant": variant, "dim": sinusoidal_width(cfg), "base": 10000}
    if variant == "fairseq":
        config["padding_idx"] = pad
    token = pad + 1 if pad is not None else 1  # any id that is not padding
    with torch.no_grad():
        table = read(torch.full((1, trained), token, dtype=torch.long)).float().numpy()
    src = source_of(ref, owner, where)
    ends = sorted(set(range(min(SINUSOIDAL_END_ROWS, trained))) | set(range(max(trained - SINUSOIDAL_END_ROWS, 0), trained)))
    vf.add_test("sinusoidal.embed", f"positions 0..{SINUSOIDAL_END_ROWS - 1} and the last {SINUSOIDAL_END_ROWS} "
                f"below {trained}, read by the model's module from {trained} tokens", ["profile", "boundary"], src,
                config, {}, {"positions": vf.tensor(np.asarray(ends, dtype=np.int64), "i64")},
                {"embedding": vf.tensor(table[ends], "f32")})
    if mt == "whisper":
        whisper_decoder_table(ref, vf, mdl, cfg)
    if padding is None:
        return
    ids = torch.tensor([[pad, pad, pad] + [token] * 5])
    with torch.no_grad():
        out = read(ids).float().numpy()
    positions = [-1, -1, -1, 0, 1, 2, 3, 4] if padding == "zero_row" else list(range(8))
    vf.add_test("sinusoidal.embed", "a left-padded row of ids: " + (
                "padding reads the zero row, the first real token position 0" if padding == "zero_row" else
                "padding numbered like any token (arange)"), ["profile", "padding"], src, config, {},
                {"positions": vf.tensor(np.asarray(positions, dtype=np.int64), "i64")},
                {"embedding": vf.tensor(out, "f32")})


# The text models whose learned table lives in an *Embeddings class of their own:
# model_type -> (module, config class, embeddings class). Each is built from the default
# config and read by its own forward (certify_learned.c's rules: row p, RoBERTa's rows,
# arange + 2), the other tables and projections zeroed or left out (embedding_rows).
LEARNED_EMBEDDINGS = {
    "ernie": ("ernie", "ErnieConfig", "ErnieEmbeddings"),
    "splinter": ("splinter", "SplinterConfig", "SplinterEmbeddings"),
    "electra": ("electra", "ElectraConfig", "ElectraEmbeddings"),
    "albert": ("albert", "AlbertConfig", "AlbertEmbeddings"),
    "convbert": ("convbert", "ConvBertConfig", "ConvBertEmbeddings"),
    "rembert": ("rembert", "RemBertConfig", "RemBertEmbeddings"),
    "big_bird": ("big_bird", "BigBirdConfig", "BigBirdEmbeddings"),
    "git": ("git", "GitConfig", "GitEmbeddings"),
    "squeezebert": ("squeezebert", "SqueezeBertConfig", "SqueezeBertEmbeddings"),
    "layoutlm": ("layoutlm", "LayoutLMConfig", "LayoutLMEmbeddings"),
    "visual_bert": ("visual_bert", "VisualBertConfig", "VisualBertEmbeddings"),
    "perceiver": ("perceiver", "PerceiverConfig", "PerceiverTextPreprocessor"),
    "deberta": ("deberta", "DebertaConfig", "DebertaEmbeddings"),
    "deberta-v2": ("deberta_v2", "DebertaV2Config", "DebertaV2Embeddings"),
    "roberta": ("roberta", "RobertaConfig", "RobertaEmbeddings"),
    "xlm-roberta": ("xlm_roberta", "XLMRobertaConfig", "XLMRobertaEmbeddings"),
    "xlm-roberta-xl": ("xlm_roberta_xl", "XLMRobertaXLConfig", "XLMRobertaXLEmbeddings"),
    "camembert": ("camembert", "CamembertConfig", "CamembertEmbeddings"),
    "roberta-prelayernorm": ("roberta_prelayernorm", "RobertaPreLayerNormConfig", "RobertaPreLayerNormEmbeddings"),
    "xmod": ("xmod", "XmodConfig", "XmodEmbeddings"),
    "longformer": ("longformer", "LongformerConfig", "LongformerEmbeddings"),
    "data2vec-text": ("data2vec", "Data2VecTextConfig", "Data2VecTextForTextEmbeddings"),
    "lilt": ("lilt", "LiltConfig", "LiltTextEmbeddings"),
    "layoutlmv3": ("layoutlmv3", "LayoutLMv3Config", "LayoutLMv3TextEmbeddings"),
    "vilt": ("vilt", "ViltConfig", "TextEmbeddings"),
    "fnet": ("fnet", "FNetConfig", "FNetEmbeddings"),
    "bros": ("bros", "BrosConfig", "BrosTextEmbeddings"),
    "mpnet": ("mpnet", "MPNetConfig", "MPNetEmbeddings"),
    "nystromformer": ("nystromformer", "NystromformerConfig", "NystromformerEmbeddings"),
    "mra": ("mra", "MraConfig", "MraEmbeddings"),
    "yoso": ("yoso", "YosoConfig", "YosoEmbeddings"),
    "clip_text_model": ("clip", "CLIPTextConfig", "CLIPTextEmbeddings"),
    "siglip_text_model": ("siglip", "SiglipTextConfig", "SiglipTextEmbeddings"),
    "siglip2_text_model": ("siglip2", "Siglip2TextConfig", "Siglip2TextEmbeddings"),
    "aimv2_text_model": ("aimv2", "Aimv2TextConfig", "Aimv2TextEmbeddings"),
    "clap_text_model": ("clap", "ClapTextConfig", "ClapTextEmbeddings"),
    "canine": ("canine", "CanineConfig", "CanineEmbeddings"),
    "distilbert": ("distilbert", "DistilBertConfig", "Embeddings"),
    "esm": ("esm", "EsmConfig", "EsmEmbeddings"),
    "chinese_clip_text_model": ("chinese_clip", "ChineseCLIPTextConfig", "ChineseCLIPTextEmbeddings"),
    "blip_text_model": ("blip", "BlipTextConfig", "BlipTextEmbeddings"),
}
# Where a class keeps its modeling code in another file than modeling_<module>.py.
EMBEDDINGS_FILE = {"data2vec-text": ("configuration_data2vec_text", "modeling_data2vec_text"),
                   "blip_text_model": ("configuration_blip", "modeling_blip_text")}
POSITION_TABLES = ("position_embeddings", "position_embedding", "char_position_embeddings")
# Layers after the table's sum that are not position code, made identities too:
# FNetEmbeddings projects its normed sum by a Linear (hidden -> hidden).
EMBEDDINGS_AFTER = {"fnet": ("projection",)}


def embedding_rows(torch, module):
    """The module with every nn.Embedding but its position table zeroed and its norms made
    identities, so that its output is the position rows it reads; the table."""
    table = next(getattr(module, a) for a in POSITION_TABLES if isinstance(getattr(module, a, None), torch.nn.Embedding))
    for sub in module.modules():
        if isinstance(sub, torch.nn.Embedding) and sub is not table:
            sub.weight.data.zero_()
    for name, sub in list(module.named_children()):
        if isinstance(sub, torch.nn.LayerNorm) or type(sub).__name__.endswith("LayerNorm"):
            setattr(module, name, torch.nn.Identity())
    return table


def build_learned_embeddings(ref, vf, profile):
    """The position rows a text model's own *Embeddings.forward reads, found by value in
    a periodic table of its shape: for a plain row of every position, and a left-padded
    row (RoBERTa's rule gives padding its own row)."""
    torch = ref.torch
    c = profile["config"]
    mt = c["model_type"]
    mod, cls_name, emb_name = LEARNED_EMBEDDINGS[mt]
    cfg_file, mdl_file = EMBEDDINGS_FILE.get(mt, ("configuration_" + mod, "modeling_" + mod))
    cfg_mod = importlib.import_module(f"transformers.models.{mod}.{cfg_file}")
    mdl = importlib.import_module(f"transformers.models.{mod}.{mdl_file}")
    cfg = make_config(getattr(cfg_mod, cls_name), c)
    module = getattr(mdl, emb_name)(cfg).eval()
    table = embedding_rows(torch, module)
    for name in EMBEDDINGS_AFTER.get(mt, ()):
        setattr(module, name, torch.nn.Identity())
    weight = periodic_table(f"{vf.name}/table", tuple(table.weight.shape))
    pad = getattr(cfg, "pad_token_id", None)
    token = (pad if pad is not None else 0) + 1  # any id that is not padding
    n = min(64, table.weight.shape[0] // 2)
    cases = [("every position of a sequence", [token] * n)]
    if pad is not None:
        cases.append(("a left-padded sequence", [pad, pad] + [token] * 6))
    reads = []
    with torch.no_grad():
        table.weight.copy_(torch.from_numpy(weight))
        for _, ids in cases:
            # PerceiverTextPreprocessor.forward(inputs): the ids under another name.
            ids_arg = "inputs" if "inputs" in inspect.signature(module.forward).parameters else "input_ids"
            kwargs = {ids_arg: torch.tensor([ids])}
            if "bbox" in inspect.signature(module.forward).parameters:
                kwargs["bbox"] = torch.zeros(1, len(ids), 4, dtype=torch.long)
            out = module(**kwargs)
            out = (out[0] if isinstance(out, tuple) else out)[0].numpy()
            reads.append((ids, gen_learned.rows_of(out, weight), out))
    add_rows_test(vf, cases, reads, pad, weight, "the rows the model's embeddings read",
                  source_of(ref, getattr(mdl, emb_name), emb_name + ".forward"))


def build_layoutlmv2(ref, vf, profile):
    """LayoutLMv2's text rows: LayoutLMv2Model._calc_text_embeddings (the model itself needs
    detectron2 for its visual backbone) run on its own LayoutLMv2Embeddings, every other
    table zeroed and the norm an identity, for a plain and a left-padded sequence."""
    torch = ref.torch
    cfg_mod, mdl = modules("layoutlmv2")
    cfg = make_config(cfg_mod.LayoutLMv2Config, profile["config"])
    module = mdl.LayoutLMv2Embeddings(cfg).eval()
    table = embedding_rows(torch, module)
    weight = periodic_table(f"{vf.name}/table", tuple(table.weight.shape))
    pad = cfg.pad_token_id
    token = pad + 1
    cases = [("every position of a sequence", [token] * 64), ("a left-padded sequence", [pad, pad] + [token] * 6)]
    holder = types.SimpleNamespace(embeddings=module)
    reads = []
    with torch.no_grad():
        table.weight.copy_(torch.from_numpy(weight))
        for _, ids in cases:
            input_ids = torch.tensor([ids])
            out = mdl.LayoutLMv2Model._calc_text_embeddings(holder, input_ids, torch.zeros(1, len(ids), 4,
                                                                                          dtype=torch.long), None, None)
            out = out[0].numpy()
            reads.append((ids, gen_learned.rows_of(out, weight), out))
    add_rows_test(vf, cases, reads, pad, weight, "the rows the model's text embeddings read",
                  source_of(ref, mdl.LayoutLMv2Model, "LayoutLMv2Model._calc_text_embeddings"))


# ProphetNetPositionalEmbeddings: model_type -> (module, config class, its module class).
PROPHETNET = {"prophetnet": ("prophetnet", "ProphetNetConfig", "ProphetNetPositionalEmbeddings"),
              "xlm-prophetnet": ("deprecated.xlm_prophetnet", "XLMProphetNetConfig",
                                 "XLMProphetNetPositionalEmbeddings")}


def build_prophetnet(ref, vf, profile):
    """The rows ProphetNetPositionalEmbeddings reads from the attention mask (cumsum * mask +
    pad_token_id): a plain sequence and a left-padded one, found by value."""
    torch = ref.torch
    mt = profile["config"]["model_type"]
    mod, cls_name, emb_name = PROPHETNET[mt]
    name = mod.split(".")[-1]
    cfg_mod = importlib.import_module(f"transformers.models.{mod}.configuration_{name}")
    mdl = importlib.import_module(f"transformers.models.{mod}.modeling_{name}")
    # Not make_config: ProphetNetConfig refuses num_hidden_layers (its layers are per stack).
    cfg = getattr(cfg_mod, cls_name)(**{k: v for k, v in profile["config"].items() if k != "model_type"})
    module = getattr(mdl, emb_name)(cfg)
    weight = periodic_table(f"{vf.name}/table", tuple(module.weight.shape))
    pad = cfg.pad_token_id
    token = pad + 1
    n = min(64, module.weight.shape[0] // 2)
    cases = [("every position of a sequence", [token] * n), ("a left-padded sequence", [pad, pad] + [token] * 6)]
    reads = []
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(weight))
        for _, ids in cases:
            mask = (torch.tensor([ids]) != pad).long()
            out, _ = module((1, len(ids)), torch.device("cpu"), attention_mask=mask)
            out = out[0].numpy()
            reads.append((ids, gen_learned.rows_of(out, weight), out))
    add_rows_test(vf, cases, reads, pad, weight, "the rows the model's positional embeddings read",
                  source_of(ref, getattr(mdl, emb_name), emb_name + ".forward"))


def add_rows_test(vf, cases, reads, pad, weight, what, source):
    """One learned.lookup test (one copy of the table) for the cases' sequences, one
    after the other: the rows each read, in pecert's terms (pecert_positions)."""
    config, positions = pecert_positions(reads, pad)
    vf.add_test("learned.lookup", " then ".join(c for c, _ in cases) + ": " + what, ["profile", "boundary"], source,
                config, {}, {"table": vf.tensor(weight, "f32"),
                             "positions": vf.tensor(np.asarray(positions, dtype=np.int64), "i64")},
                {"embedding": vf.tensor(np.concatenate([out for _, _, out in reads]), "f32")})


def pecert_positions(reads, pad):
    """The rows read, in pecert's terms: the rows themselves when the first token of the
    unpadded sequence read row 0 (plain); else padding_offset, that row padding_idx + 1,
    padding tokens -1 where they read the padding row (RoBERTa's rule) and numbered like
    any token where they do not."""
    first = reads[0][1][0]
    if first == 0:
        return {"convention": "plain"}, [r for _, rows, _ in reads for r in rows]
    padding_idx = int(first - 1)
    positions = []
    for ids, rows, _ in reads:
        positions += [-1 if t == pad and r == padding_idx else r - padding_idx - 1 for r, t in zip(rows, ids)]
    return {"convention": "padding_offset", "padding_idx": padding_idx}, positions


# Dual encoders: model_type -> (text model type, vision tower type), each read from the
# profile's text_config and vision_config by its own builder.
DUAL_ENCODERS = {"clip": ("clip_text_model", "clip_vision_model"),
                 "siglip": ("siglip_text_model", "siglip_vision_model"),
                 "siglip2": ("siglip2_text_model", "siglip2_vision_model")}


def build_dual_encoder(ref, vf, profile):
    """The text model's learned rows and the vision tower's resized table."""
    text_type, tower_type = DUAL_ENCODERS[profile["config"]["model_type"]]
    text = dict(profile["config"].get("text_config") or {}, model_type=text_type)
    vision = dict(profile["config"].get("vision_config") or {}, model_type=tower_type)
    build_learned_embeddings(ref, vf, dict(profile, config=text))
    profile_vision.build_table_tower(ref, vf, dict(profile, config=vision))


def build(ref, gen, vf, profile):
    profile = retrieval_vlm(profile)
    mt = text_model_type(profile)
    if mt in DUAL_ENCODERS:
        build_dual_encoder(ref, vf, profile)
        return True
    if mt in profile_vision.OWN_TOWERS:  # the checkpoint is its tower: no text model
        profile_vision.build_vision(ref, vf, profile)
        return True
    if mt == "esm":
        build_esm(ref, vf, profile)
        return True
    if mt == "wav2vec2-conformer":
        build_conformer_rotary(ref, vf, profile)
        return True
    if mt == "roformer":
        build_roformer(ref, vf, profile)
        return True
    if mt == "mega":
        build_mega(ref, vf, profile)
        return True
    if mt in ("deberta", "deberta-v2") and profile["config"].get("relative_attention"):
        build_deberta(ref, vf, profile)
        return True
    if mt in RELPOS2D_MODELS and (mt != "vitdet" or profile["config"].get("use_relative_position_embeddings")):
        build_relpos2d(ref, vf, profile)
        return True
    if mt in FIXED_TABLES:
        build_fixed_table(ref, vf, profile)
        return True
    if mt in PROPHETNET:
        build_prophetnet(ref, vf, profile)
        return True
    if mt == "layoutlmv2":
        build_layoutlmv2(ref, vf, profile)
        return True
    if mt in ROPE_MODELS and not (mt == "falcon" and profile["config"].get("alibi")):
        build_rope(ref, gen, vf, profile)
    elif mt == "gptj":
        build_gptj(ref, gen, vf, profile)
    elif mt == "codegen":
        build_codegen(ref, gen, vf, profile)
    elif mt in ("bloom", "mpt") or (mt == "falcon" and profile["config"].get("alibi")):
        build_alibi(ref, vf, profile)
    elif mt in T5_BUCKETS:
        build_t5(ref, vf, profile)
    elif mt in SWIN_MODELS:
        build_swin(ref, vf, profile)
    elif mt in BEIT_MODELS:
        build_beit(ref, vf, profile)
    elif mt in SINE2D_MODELS:
        build_sine2d(ref, vf, profile)
    elif mt in SINCOS2D_MODELS:
        build_sincos2d(ref, vf, profile)
    elif mt in LEARNED_EMBEDDINGS and not profile["config"].get("sinusoidal_pos_embds"):
        build_learned_embeddings(ref, vf, profile)  # DistilBERT's sinusoidal switch: not a learned table
    elif mt in POSITION_MODULES:
        build_position_module(ref, vf, profile)
    elif mt in SINUSOIDAL_MODELS:
        build_sinusoidal(ref, vf, profile)
    elif mt in ("bert",) or mt in GPT2_LIKE or mt in VIT_EMBEDDINGS:
        build_learned(ref, vf, profile)
    else:
        return False
    if profile_vision.has_tower(profile):
        profile_vision.build_vision(ref, vf, profile)
    return True


def inventory_profiles(path, model_types):
    """Pseudo-profiles of model types no bundled profile has: each the default config of
    its config class as conformance/inventory.json records it (gen_inventory.py), so
    that every mapping pecert has is held to the model's own outputs."""
    with open(path, encoding="ascii") as f:
        rows = {r["model_type"]: r for r in json.load(f)["model_types"]}
    out = []
    # A config class whose model_type is not its registry key (MLCDVisionConfig's
    # mlcd_vision_model, registered as mlcd): its row, by the config's model_type.
    for r in list(rows.values()):
        rows.setdefault((r.get("config") or {}).get("model_type"), r)
    for mt in model_types:
        if mt in rows:
            r = rows[mt]
            out.append((mt, {"name": mt, "model": "the default %s" % r["config_class"],
                             "source": "%s() of transformers v4.57.6, as conformance/inventory.json records it"
                                       % r["config_class"],
                             "config": r["config"]}))
            continue
        # A text model type that is no model type of its own (Emu3TextConfig's
        # emu3_text_model is not in CONFIG_MAPPING): its wrapper's default text_config.
        r = next(r for r in rows.values() if r.get("text_config")
                 and r["config"][r["text_config"]].get("model_type") == mt)
        out.append((mt, {"name": mt, "model": "the default %s's %s" % (r["config_class"], r["text_config"]),
                         "source": "%s().%s of transformers v4.57.6, as conformance/inventory.json records it"
                                   % (r["config_class"], r["text_config"]),
                         "config": r["config"][r["text_config"]]}))
    return out


def compile_stand_in(torch):
    """Debian's torch 1.13 has no torch.compile, which ModernBERT's modules use as a
    decorator at import (@torch.compile(dynamic=True) on their MLP helpers, never on a
    position computation): a stand-in that returns the function unchanged, so the modules
    import and run eagerly. Nothing when torch has its own."""
    if hasattr(torch, "compile"):
        return

    def compile(fn=None, **_):
        return fn if fn is not None else (lambda f: f)

    torch.compile = compile


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default=os.environ.get("PECERT_TRANSFORMERS_REF"))
    parser.add_argument("--profiles", help="conformance/profiles")
    parser.add_argument("--inventory", help="conformance/inventory.json: build --model-types' default configs")
    parser.add_argument("--model-types", default="", help="comma-separated, with --inventory")
    parser.add_argument("--out", required=True, help="vectors/profiles (vectors/mappings with --inventory)")
    args = parser.parse_args(argv)
    if not args.ref:
        parser.error("--ref (or PECERT_TRANSFORMERS_REF) is required")
    if (args.profiles is None) == (args.inventory is None):
        parser.error("give --profiles or --inventory (with --model-types)")
    ref = hfref.Reference(args.ref)
    compile_stand_in(ref.torch)
    gen = gen_rope.Generator(ref)
    prov = gen_rope.provenance(ref)
    if args.inventory:
        named = inventory_profiles(args.inventory, [m for m in args.model_types.split(",") if m])
    else:
        named = []
        for name in sorted(f[:-5] for f in os.listdir(args.profiles) if f.endswith(".json")):
            with open(os.path.join(args.profiles, name + ".json")) as f:
                named.append((name, json.load(f)))
    files = []
    for name, profile in named:
        vf = vecfile.VectorFile(name, FAMILY, f"profile {name}: {profile['model']} built by its own "
                                              "transformers classes from the profile's config.json",
                                GENERATOR, prov, famgen.notes_catalog(NOTES))
        if not build(ref, gen, vf, profile):
            print(f"{name}: model_type {profile['config']['model_type']} not in transformers; skipped",
                  file=sys.stderr)
            continue
        files.append(vf)
    return famgen.finish(args.out, files)


if __name__ == "__main__":
    sys.exit(main())
