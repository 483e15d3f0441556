/*
 * certify_reads.h - the typed reads of certify's config.json mapping
 * (certify_config.c for the text model, certify_vision.c for the vision
 * tower): each refuses a value of the wrong type or out of range with one
 * line naming the key, and leaves its output (the default) when the key is
 * absent or null.
 */
#ifndef PECERT_CONFORMANCE_CERTIFY_READS_H
#define PECERT_CONFORMANCE_CERTIFY_READS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "certify_config.h"

/* Parsing state: the document, the model being filled, the error sink. */
typedef struct map_ctx {
    const cJSON *root;
    pecert_certify_model *m;
    char *err;
    size_t err_len;
    /* The whole document: the vision tower reads vision_config from it
     * while root is the text model's text_config. */
    const cJSON *doc;
    const char *key_prefix; /* "text_config." when root is a nested text config */
    /* The model's config class (transformers v4.57.6): whether its __init__
     * copies a legacy rope_scaling "type" over "rope_type" (LlamaConfig and
     * most others: `if "type" in rope_scaling: rope_scaling["rope_type"] =
     * rope_scaling["type"]`), and whether it runs rope_config_validation,
     * the only place transformers warns about rope values. */
    int type_overrides_rope_type;
    int runs_validation;
    /* A text config the mapping built (a wrapper's defaults under the
     * given fields, certify_wrappers.c), freed with the context. */
    cJSON *owned;
    /* Where the mapped document sits in the file ("vlm_config." for a
     * retrieval model's language model), before key_prefix; NULL: the top. */
    const char *doc_prefix;
} map_ctx;

/* Writes "NAME: PREFIXkey: what" to c->err; returns -1. */
int cfg_fail(map_ctx *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Records "PREFIXkey: what" as a warning (what transformers computes and
 * pecert does not certify, or logs and goes on with). */
void cfg_warn(map_ctx *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* obj[key], NULL when absent or null. */
const cJSON *cfg_get(const cJSON *obj, const char *key);

/* The reads return 1 when the key was read, 0 when absent (*out kept), -1
 * after cfg_fail. shown is the key as the error names it. A finite number
 * in [lo, hi]: */
int cfg_read_num(map_ctx *c, const cJSON *obj, const char *key, const char *shown, double lo, double hi,
                 double *out);
/* An integer in [lo, hi] (JSON numbers like 4096.0 are accepted). */
int cfg_read_int(map_ctx *c, const cJSON *obj, const char *key, const char *shown, int64_t lo, int64_t hi,
                 int64_t *out);
int cfg_read_int32(map_ctx *c, const cJSON *obj, const char *key, int64_t lo, int64_t hi, int32_t *out);
/* The legacy static_position_embeddings key: 0 where absent or saying
 * the table's kind (sinusoidal 1, learned 0), else -1 after cfg_fail. */
int cfg_check_static_positions(map_ctx *c, int sinusoidal);
/* An integer, or [height, width] with the two equal (a square side). */
int cfg_read_side(map_ctx *c, const cJSON *obj, const char *key, int64_t lo, int64_t hi, int32_t *out);
int cfg_read_bool(map_ctx *c, const cJSON *obj, const char *key, const char *shown, int *out);

/* 1 if the key's name says it configures positions ("rope", "rotary",
 * "position", ...): such a key must be understood. */
int cfg_is_positional_name(const char *key);
int cfg_in_list(const char *key, const char *const *list);

/* Every positional key of obj must be in known (NULL-ended); prefix names
 * obj in the error. 0, or -1 after cfg_fail. */
int cfg_reject_unknown_positional(map_ctx *c, const cJSON *obj, const char *const *known, const char *prefix);
/* The same, a key of either list known (a rule's own keys beside its
 * family's). */
int cfg_reject_unknown_positional_of(map_ctx *c, const cJSON *obj, const char *const *known,
                                     const char *const *also, const char *prefix);

/* Readers every family shares (certify_reads.c): the head geometry
 * (head_dim, else hidden_size / heads, by each family's key names),
 * rotary_dim from a partial rotary factor, and rope_theta with
 * max_position_embeddings. 0, or -1 with c->err. */
int cfg_read_heads(map_ctx *c, const char *hidden_key, const char *heads_key, const char *kv_key);
/* cfg_read_heads with the config class's defaults for the width and the
 * heads where config.json leaves them out (0: none, the key required);
 * absent key/value heads are the query heads, as before. */
int cfg_read_heads_or(map_ctx *c, const char *hidden_key, const char *heads_key, const char *kv_key,
                      int32_t hidden_default, int32_t heads_default);
/* A decoder's learned table beside the model's own (Whisper's, LED's):
 * rows_key's rows (required), width wide, into decoder_learned_*. */
int cfg_read_decoder_table(map_ctx *c, const char *rows_key, int32_t width);
int cfg_set_rotary_dim(map_ctx *c, double partial, const char *key);
int cfg_read_rope_common(map_ctx *c, const char *theta_key, double theta_default);

/* The model readers the table of certify_config.c picks, one per config
 * class or group: the Llama-like decoders and Llama 4's text model
 * (certify_llama.c), the learned text tables (certify_learned.c), every
 * other family (certify_families.c). */
int cfg_map_llama_like(map_ctx *c);
int cfg_map_llama4_text(map_ctx *c);
int cfg_map_gpt_neox(map_ctx *c);
int cfg_map_gptj(map_ctx *c);
int cfg_map_esm(map_ctx *c);
int cfg_map_falcon(map_ctx *c);
int cfg_map_hunyuan(map_ctx *c);
int cfg_map_bloom(map_ctx *c);
int cfg_map_mpt(map_ctx *c);
int cfg_map_dbrx(map_ctx *c);
int cfg_map_idefics(map_ctx *c);
/* The Swin family's window (certify_swin.c). */
int cfg_map_swin(map_ctx *c);
int cfg_map_beit(map_ctx *c);
/* The DETR family's sine embedding (certify_sine2d.c). */
int cfg_map_sine2d(map_ctx *c);
int cfg_is_sine2d_type(const char *model_type);
/* RT-DETR's family's 2-D sin-cos table (certify_sincos2d.c). */
int cfg_map_sincos2d(map_ctx *c);
/* DeBERTa's disentangled relative positions, else its absolute table
 * (certify_deberta.c). */
int cfg_map_deberta(map_ctx *c);
int cfg_map_relpos2d(map_ctx *c);
int cfg_is_relpos2d_type(const char *model_type);
int cfg_map_t5(map_ctx *c);
int cfg_map_learned_text(map_ctx *c);
int cfg_map_vit(map_ctx *c);
/* The sinusoidal tables (certify_sinusoidal.c), and the learned table of
 * a model whose config switches between the two; cfg_sinusoidal_words:
 * what the model type's mapping reads, in words (NULL: not one of them). */
int cfg_map_sinusoidal(map_ctx *c);
int cfg_map_conformer_rotary(map_ctx *c);
const char *cfg_sinusoidal_words(const char *model_type);

/* rope_scaling (certify_scaling.c): the object rs (NULL or null: default
 * RoPE) into c->m->rope, its keys held to those its rope_type allows and
 * its values to transformers' rules; cfg_map_rope_scaling reads c->root's.
 * 0, or -1 after cfg_fail. */
int cfg_map_scaling_object(map_ctx *c, const cJSON *rs);
int cfg_map_rope_scaling(map_ctx *c);
/* Qwen2-VL, Qwen2.5-VL and Qwen3-VL: M-RoPE text models whose config
 * takes mrope_section in rope_scaling and nests text_config; Qwen3-VL's
 * sections are interleaved, always. */
int cfg_is_qwen_vl(const char *model_type);
int cfg_is_qwen3_vl(const char *model_type);
int cfg_is_glm4v(const char *model_type);
/* Phi-3 and Phi-4-multimodal, whose config classes share Phi3Config's
 * LongRoPE rules (the renames, the defaulted original length). */
int cfg_is_phi3_like(const char *model_type);

/* Layer types (certify_layers.c): c->m's layers by the encoding each
 * rotates with, read as the model's config class reads them; 0, or -1
 * after cfg_fail. cfg_map_no_rope_layers: the NoPE-layer form alone
 * (no_rope_layers / its interval), default_layers when the config has no
 * num_hidden_layers. */
int cfg_map_layers(map_ctx *c);
int cfg_map_no_rope_layers(map_ctx *c, int32_t default_layers);

/* cfg_map_object: an already parsed document mapped into *out, named name
 * (certify_config.c; a profile's "config" object is mapped in place by
 * certify_profiles.c: printing and re-parsing it could round LongRoPE
 * factors). 0, or -1 with one line in err. */
int cfg_map_object(pecert_certify_model *out, const cJSON *root, const char *name, char *err, size_t err_len);

/* The vision tower of the checkpoint (certify_vision.c): reads c->doc's
 * vision_config for the checkpoint's model_type into c->m->vision (left
 * empty, with m->vision_note saying why, for a tower pecert does not
 * certify). 0, or -1 after cfg_fail. */
int cfg_map_vision(map_ctx *c, const char *model_type);
int cfg_map_rope2d_tower(map_ctx *c);
int cfg_map_roformer(map_ctx *c);
int cfg_map_mega(map_ctx *c);
int cfg_map_fixed_table(map_ctx *c);
/* An encoder-decoder whose stacks are nested configs (certify_stacks.c),
 * and the rule that maps one stack (certify_config.c). */
int cfg_map_stacks(map_ctx *c);
int cfg_map_nested(map_ctx *c, const cJSON *obj, const char *prefix, const char *rule_type);

/* Wrappers of a language model (certify_wrappers.c): the vision- and
 * speech-language checkpoints whose text model is built from text_config.
 * cfg_find_wrapper: model_type's rule, or NULL. cfg_wrapper_text_type: the
 * text model type the wrapper builds from text (*stated: what text says,
 * or NULL). cfg_wrapper_check_text: 0, or -1 after cfg_fail when the
 * stated type contradicts a forced one. cfg_wrapper_fill_text: c->root
 * (the entered text_config) with the wrapper's own defaults under the
 * fields it lacks, when the wrapper has such (0, or -1 after cfg_fail).
 * cfg_wrapper_note_tower: the other
 * tower named in m->vision_note when pecert certifies none.
 * cfg_wrapper_warn_positions: a warning for what the wrapper does to the
 * positions, when it does something. */
typedef struct wrapper_rule wrapper_rule;
const wrapper_rule *cfg_find_wrapper(const char *model_type);
const char *cfg_wrapper_text_type(const wrapper_rule *w, const cJSON *text, const char **stated);
int cfg_wrapper_check_text(map_ctx *c, const wrapper_rule *w, const char *stated);
int cfg_wrapper_fill_text(map_ctx *c, const wrapper_rule *w);
void cfg_wrapper_note_tower(map_ctx *c, const wrapper_rule *w);
void cfg_wrapper_warn_positions(map_ctx *c, const wrapper_rule *w);

/* A ViT-family model's table layout by its config class's defaults
 * (certify_vision.c's rules, the one place they are written): image_size
 * (-1 where the table's side comes from num_patches instead: SigLIP 2),
 * patch_size, the rows before the grid (class, DeiT's distillation) and
 * the positional keys the tower knows beyond those (NULL-ended).
 * 0, or -1 for a model_type that is not of the family. */
int cfg_vit_defaults(const char *model_type, int32_t *image, int32_t *patch, int32_t *prefix,
                     const char *const **positional);
/* int(sqrt(n)), exactly, as Python's int(n ** 0.5) gives it for n < 2^24. */
int32_t cfg_square_side(int32_t n);
/* SigLIP 2's table side from obj's num_patches (default 256), which must
 * be a square (certify_vision.c). 0, or -1 after cfg_fail. */
int cfg_read_patch_table(map_ctx *c, const cJSON *obj, int32_t *side);

/* The vision lines of pecert certify's description, appended to out
 * (of len, used so far). Returns the new used length. */
size_t cfg_describe_vision(char *out, size_t len, size_t used, const pecert_certify_model *m);

#endif /* PECERT_CONFORMANCE_CERTIFY_READS_H */
