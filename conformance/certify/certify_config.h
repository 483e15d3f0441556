/*
 * certify_config.h - a checkpoint's positional encoding, as its Hugging
 * Face config.json states it, mapped to pecert's parameters.
 *
 * The mapping follows transformers v4.57.6 field for field (the config
 * classes and modeling_rope_utils.py): which keys each model_type reads,
 * their defaults, and which pairing the model's reference code rotates
 * with. Real bugs live in this mapping (anchors.md: `type` read but
 * `rope_type` ignored, mscale_all_dim dropped, partial_rotary_factor applied
 * to the wrong dimension), so it refuses what it does not understand: an
 * unknown rope_scaling key, a positional key it has no rule for, or a value
 * out of range is an error naming the key, never silently ignored.
 */
#ifndef PECERT_CONFORMANCE_CERTIFY_CONFIG_H
#define PECERT_CONFORMANCE_CERTIFY_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "pecert/plugin.h"

/* Which positional-encoding family the checkpoint uses. */
typedef enum pecert_pe_kind {
    PECERT_PE_ROPE = 0,  /* rotary (every rope_type), one position axis   */
    PECERT_PE_MROPE,     /* rotary with mrope_section (Qwen2-VL)          */
    PECERT_PE_ALIBI,     /* linear biases (Bloom, MPT)                    */
    PECERT_PE_T5,        /* relative-position buckets (T5)                */
    PECERT_PE_LEARNED,   /* learned absolute table (BERT, GPT-2, ViT)     */
    PECERT_PE_ROPE2D,    /* a vision tower's 2-D RoPE (certify's @vision) */
    PECERT_PE_SINUSOIDAL, /* fixed sinusoidal table (Marian, M2M-100, XGLM) */
    PECERT_PE_SWIN,       /* windowed relative-position bias index (Swin)   */
    PECERT_PE_SINE2D,     /* DETR's 2-D sine embedding from a pixel mask    */
    PECERT_PE_RELPOS2D,   /* SAM's decomposed relative positions (MViTv2)  */
    PECERT_PE_SINCOS2D,   /* RT-DETR's 2-D sin-cos table per feature map   */
    PECERT_PE_DEBERTA     /* DeBERTa's disentangled relative positions     */
} pecert_pe_kind;

/* LongRoPE factor lists longer than this (rotary_dim > 1024) are refused. */
#define PECERT_CERTIFY_MAX_FACTORS 512
#define PECERT_CERTIFY_NAME_LEN 128

/*
 * pecert_certify_model: what pecert believes a checkpoint requires.
 * rope.short_factor / long_factor point into this struct: do not copy it
 * by value (pass pointers).
 */
#define PECERT_CERTIFY_MAX_WARNINGS 8

/*
 * Per-layer encodings. Some checkpoints encode positions differently from
 * layer to layer: Gemma 3's sliding-window layers rotate with
 * rope_local_base_freq and no scaling, its full-attention layers with
 * rope_theta and rope_scaling; Llama 4 and SmolLM3 rotate nothing on every
 * fourth layer (no_rope_layers); Cohere 2 and Exaone 4 rotate only their
 * sliding-window layers. Each distinct encoding is a layer type, certified
 * on its own (certify_passes.h).
 */
#define PECERT_CERTIFY_MAX_LAYER_TYPES 4
#define PECERT_CERTIFY_MAX_LAYERS 1024

typedef struct pecert_certify_layer_type {
    char name[16];                 /* "sliding", "full", "rope", "nope"     */
    pecert_rope_config rope;       /* its encoding; layer_kind NOPE: none   */
    int32_t n_layers;              /* how many layers have it               */
} pecert_certify_layer_type;

/*
 * The vision tower of a checkpoint: a multimodal one's whose attention
 * rotates by a 2-D RoPE over the patch grid, or whose learned position
 * table is resized to each image (certify_vision.c reads it from
 * vision_config, as transformers v4.57.6's vision config classes and the
 * towers' code do), or a ViT-family model's own table, resized to an
 * image of another size (interpolate_pos_encoding). It is certified as a
 * pass of its own, its checks reported as "ID@vision", at the image grids
 * below.
 */
#define PECERT_CERTIFY_MAX_IMAGES 8
/* Patches in one certify call over every grid: 2^17 (a 5068 x 5068-pixel
 * image at 14-pixel patches). */
#define PECERT_CERTIFY_MAX_PATCHES ((int64_t)1 << 17)
/* The widest vision head certified (the released towers': 64 to 88). */
#define PECERT_CERTIFY_MAX_VISION_HEAD_DIM 1024

typedef struct pecert_certify_vision {
    char tower[32];                  /* vision_config's model_type; "" = none */
    pecert_rope2d_scheme scheme;     /* patch order and positions             */
    int32_t spatial_merge_size;      /* MERGE_WINDOWS' window side; else 1    */
    /* ATTENTION_WINDOWS (Qwen2.5-VL): the attention window's side in merge
     * units, window_size // spatial_merge_size // patch_size; else 0. */
    int32_t window_units;
    int32_t window_size;             /* the same in pixels, as the config says */
    pecert_rope2d_frequencies frequencies;
    int32_t columns_first;           /* 1: the first half turns by column     */
    pecert_rope_pairing pairing;     /* the tower's apply code's              */
    int32_t num_heads;
    int32_t head_dim;                /* hidden / heads: every channel turns   */
    int32_t hidden_size;             /* the attention's width it divides      */
    double theta;
    int32_t patch_size;              /* pixels per patch side                 */
    int32_t temporal_patch_size;     /* frames per temporal patch (Qwen); 1   */
    /* Pixels per image side: the largest (Pixtral: its rotary table's
     * side), the one tile size (Llama 4, fixed_image 1), or 0 for any
     * (Qwen's dynamic resolution). */
    int32_t image_size;
    int32_t fixed_image;
    /* The learned position table the tower interpolates to each image,
     * its side (0 = none), its width hidden_size: Qwen3-VL's
     * num_position_embeddings = side^2, bilinear corners to corners, in
     * merge-window order; the ViT family's (image_size / patch_size)^2
     * after its class (and distillation) rows, bicubic with half-pixel
     * centres, row-major. How it is resized is the ABI's: */
    int32_t table_side;
    int32_t table_prefix;            /* rows before the grid, kept as they are */
    pecert_posinterp_mode table_mode;
    int32_t table_align_corners;
    int32_t table_antialias;
    int32_t table_merge;             /* 1 = row-major; m = m x m windows      */
    /* 1 when the tower's attention turns by a 2-D RoPE (the rope2d checks
     * run); 0 for the ViT family, whose only position code is its table
     * and whose checkpoint is the tower itself (the config's own fields). */
    int32_t rotary;
    int32_t n_images;                /* the grids certified                   */
    int64_t grid_thw[PECERT_CERTIFY_MAX_IMAGES][3]; /* frames, rows, columns  */
    char images_from[48];            /* "the tower's defaults" or "--image"   */
} pecert_certify_vision;

typedef struct pecert_certify_model {
    char name[PECERT_CERTIFY_NAME_LEN];       /* checkpoint or profile name   */
    char model_type[64];                      /* config.json model_type       */
    pecert_pe_kind kind;                      /* family                       */
    char rope_type_key[16];                   /* "rope_type", "type" or ""    */
    pecert_rope_config rope;                  /* ROPE, MROPE                  */
    pecert_rope_pairing pairing;              /* the reference code's pairing */
    int32_t mrope_section[PECERT_MROPE_MAX_AXES]; /* MROPE, 0 past n_sections */
    int32_t n_sections;                       /* MROPE: 3 for Qwen2-VL        */
    int32_t mrope_interleaved;                /* MROPE: Qwen3-VL's layout     */
    int32_t num_heads;                        /* query heads                  */
    int32_t num_kv_heads;                     /* key/value heads              */
    int32_t head_dim;                         /* channels per head            */
    int64_t max_position_embeddings;          /* 0 = the model has no limit   */
    double alibi_max_bias;                    /* ALIBI: 8 = paper, Bloom      */
    /* ALIBI: the factor on the bias in the attention scores: 1 when it is
     * added to the scaled scores (Bloom, MPT), 1/sqrt(head_dim) when to
     * q . k before the scale (Falcon). */
    double alibi_bias_scale;
    /* ALIBI: 1 when the model's code rounds slopes and bias to bfloat16
     * (Falcon's build_alibi_tensor), which certify's bounds then admit. */
    int32_t alibi_bf16_reference;
    int32_t t5_num_buckets;                   /* T5                           */
    int64_t t5_max_distance;                  /* T5                           */
    /* Swin: the square window whose relative_position_index every
     * attention layer builds (window_size x window_size tokens). */
    int32_t swin_window;
    /* SINE2D: DETR's sine embedding (plugin.h, pecert_sine2d_args): F per
     * axis, the temperatures, scale and offset of the model's class (the
     * models always normalise, eps 1e-6), and whether its forward reads
     * the pixel mask (DETR's family) or passes none, every pixel valid
     * (MaskFormer's family). */
    int32_t sine2d_feats;
    double sine2d_temperature_y;
    double sine2d_temperature_x;
    double sine2d_scale;
    double sine2d_offset;
    int32_t sine2d_reads_mask;
    /* SINCOS2D: RT-DETR's table (plugin.h, pecert_sincos2d_args): its
     * width (encoder_hidden_dim), temperature and layout. */
    int32_t sincos2d_dim;
    double sincos2d_base;
    pecert_sincos2d_layout sincos2d_layout;
    /* DEBERTA: the disentangled attention bias (plugin.h,
     * pecert_deberta_args): the log buckets (bucket_size, -1 for none),
     * the distance they spread over (max_position), and the terms
     * (PECERT_DEBERTA_C2P | P2C) the checkpoint's pos_att_type asks. */
    int64_t deberta_bucket_size;
    int64_t deberta_max_position;
    uint32_t deberta_terms;
    /* RELPOS2D: the decomposed relative positions of SAM's image encoder
     * and its family (plugin.h, pecert_relpos2d_args): the grids its
     * layers attend over ("window": a window's side, "global": the
     * image's patch grid), each with tables of 2 side - 1 rows as trained,
     * and the heads' width; the patch size the grid came from. */
    int32_t relpos2d_n_grids;
    int32_t relpos2d_grid[2][2];
    char relpos2d_grid_name[2][8];
    int32_t relpos2d_head_dim;
    int32_t relpos2d_patch;
    int64_t learned_rows;                     /* LEARNED: table rows          */
    int32_t learned_dim;                      /* LEARNED: embedding width     */
    /* LEARNED: how token positions become rows: PECERT_LEARNED_PLAIN (row
     * p), or PECERT_LEARNED_PADDING_OFFSET (RoBERTa's
     * create_position_ids_from_input_ids: row padding_idx + 1 + p, padding
     * row padding_idx) with learned_padding_idx = config.pad_token_id. */
    int32_t learned_convention;
    int32_t learned_padding_idx;
    /* PADDING_OFFSET: 1 when a padding token reads row padding_idx
     * (RoBERTa, OPT), 0 when positions ignore padding (BART's arange). */
    int32_t learned_padding_row;
    /* SINUSOIDAL: the table's formula and layout (PECERT_SINUSOIDAL_*,
     * plugin.h), base and width, and the positions the checkpoint reads:
     * 0 .. sinusoidal_positions - 1 (its table's rows, or the trained
     * length where the model grows its table on demand). FAIRSEQ reads row
     * padding_idx + 1 + p (sinusoidal_padding_idx = pad_token_id); with
     * sinusoidal_padding_row a padding token reads the zero row
     * padding_idx (M2M-100's create_position_ids_from_input_ids), without
     * it padding takes positions like any token (XGLM's arange). */
    int32_t sinusoidal_variant;
    int32_t sinusoidal_dim;
    double sinusoidal_base;
    int64_t sinusoidal_positions;
    int32_t sinusoidal_padding_idx; /* FAIRSEQ's; else -1 */
    int32_t sinusoidal_padding_row;
    /* A second table the model reads elsewhere: Whisper's decoder, a
     * learned table of max_target_positions rows (row p) beside its
     * encoder's sinusoid; certified as a pass of its own ("ID@decoder").
     * 0 rows: none. */
    int64_t decoder_learned_rows;
    int32_t decoder_learned_dim;
    double short_factor[PECERT_CERTIFY_MAX_FACTORS]; /* LongRoPE storage      */
    double long_factor[PECERT_CERTIFY_MAX_FACTORS];
    /* What transformers v4.57.6 warns about and still computes (its
     * rope_config_validation logs, never raises, there): "key: why". */
    char warnings[PECERT_CERTIFY_MAX_WARNINGS][256];
    int n_warnings;
    /* Per-layer encodings: n_layer_types 0 when every layer rotates with
     * rope; else the types (rope is then the first rotary one's config,
     * the one the config's rope fields describe) and each layer's type. */
    int32_t n_layer_types;
    pecert_certify_layer_type layer_types[PECERT_CERTIFY_MAX_LAYER_TYPES];
    int32_t n_layers;                          /* num_hidden_layers    */
    uint8_t layer_type_of[PECERT_CERTIFY_MAX_LAYERS]; /* index, per layer */
    /* The vision tower (vision.tower "" when the checkpoint has none that
     * pecert reads) and, when it has one pecert does not certify, why. */
    pecert_certify_vision vision;
    char vision_note[160];
    /* 1 when vision_note names a speech wrapper's audio tower (its
     * audio_config or encoder_config), not a vision tower. */
    int32_t audio_tower;
    /* What a wrapper does to the text model's positions that pecert does
     * not certify (PaliGemma's 1-based ids), or "". */
    char position_note[256];
} pecert_certify_model;

/* pecert_certify_layer_ranges: the layers of type t as ranges, "0-4, 6-10,
 * 12", into out. */
void pecert_certify_layer_ranges(char *out, size_t len, const pecert_certify_model *m, int t);

/*
 * pecert_certify_parse maps the text of a config.json to *out. name labels
 * the checkpoint. Returns 0, or -1 with one line in err naming the key and
 * the problem ("rope_scaling.mscale_all_dim: ..."). Keys that name no
 * positional-encoding concept (vocab_size, ...) are ignored; keys that do
 * (anything with "rope", "rotary", "position", "alibi", "relative_attention"
 * in its name) must be understood.
 */
int pecert_certify_parse(pecert_certify_model *out, const char *json_text, const char *name,
                         char *err, size_t err_len);

/* pecert_certify_profile_names: the NAMEs of dir's NAME.json profiles,
 * sorted, malloc'ed into names (at most max; free each). Returns the
 * count, or -1 if dir cannot be read. */
int pecert_certify_profile_names(const char *dir, char **names, int max);

/* pecert_certify_profile_vectors: vectors_dir/profiles/NAME.json in buf
 * when that file exists (the profile's vectors recorded from the official
 * model class), else NULL. */
const char *pecert_certify_profile_vectors(char *buf, size_t len, const char *vectors_dir, const char *name);

/* pecert_certify_load: pecert_certify_parse of the file at path. */
int pecert_certify_load(pecert_certify_model *out, const char *path, char *err, size_t err_len);

/*
 * pecert_certify_load_profile maps conformance/profiles/NAME.json: an
 * object with exactly the keys "name" (= NAME), "model" (the checkpoint's
 * hub id), "source" (where the values were read, and what could not be
 * confirmed) and "config" (config.json's positional-encoding fields,
 * verbatim). m->name becomes NAME. 0, or -1 with one line in err.
 */
int pecert_certify_load_profile(pecert_certify_model *out, const char *dir, const char *name, char *err,
                                size_t err_len);

/* pecert_certify_model_type: the i-th model_type certify reads (NULL past
 * the last), the pairing of its reference code and what of its config is
 * read, in words. */
const char *pecert_certify_model_type(size_t i, pecert_rope_pairing *pairing, const char **reads);
/* The i-th model type whose model is built from a nested config (ColPali's
 * vlm_config, Qwen2.5-Omni's thinker_config): *key that config, *reads what
 * is read from it; NULL past the last. */
const char *pecert_certify_document(size_t i, const char **key, const char **reads);

/* pecert_certify_wrapper: the i-th model_type whose language model
 * certify reads from its text_config (NULL past the last), its config
 * class, the text model type an absent text_config.model_type means, and
 * when (", always" where the class fixes it). */
const char *pecert_certify_wrapper(size_t i, const char **config_class, const char **text_default, const char **how);

/* pecert_certify_vision_tower: the i-th checkpoint model_type whose vision
 * tower certify reads (NULL past the last), the tower's config class and
 * what of its vision_config is read, in words. */
const char *pecert_certify_vision_tower(size_t i, const char **config_class, const char **reads);

/* pecert_certify_label: a one-line summary of the derived parameters,
 * "llama3 theta=500000 rot=128/128 split_half factor=8", for reports. */
void pecert_certify_label(char *out, size_t len, const pecert_certify_model *m);

/* pecert_certify_l0: the pretraining length L0 the checkpoint's rope
 * switches on (pecert_rope_original_length's rule, vectors.h), else the
 * checkpoint's max_position_embeddings; that alone for the other kinds. */
int64_t pecert_certify_l0(const pecert_certify_model *m);

/*
 * pecert_certify_set_images replaces the vision tower's image grids by
 * n images of specs[i] "HxW" pixels each, as the tower's processor would
 * hand them over: H and W multiples of patch_size (times
 * spatial_merge_size for Qwen's merge windows), at most image_size
 * (Pixtral), exactly image_size (Llama 4's tiles). 0, or -1 with one line
 * in err naming the image and the limit.
 */
int pecert_certify_set_images(pecert_certify_model *m, const char *const *specs, int n, char *err,
                              size_t err_len);

/* pecert_certify_point_factors: after copying a model by value, its
 * rope's LongRoPE factor pointers into the copy's own storage (NULL, as
 * plugin.h requires, when it has none). */
void pecert_certify_point_factors(pecert_certify_model *m);

/* pecert_certify_table_words: how the vision tower's table is resized, in
 * words ("bicubic, half-pixel centres, row-major"). */
void pecert_certify_table_words(char *out, size_t len, const pecert_certify_vision *v);

/* pecert_certify_leave_out_vision: m certified without its vision tower
 * (the description says so, naming why). */
void pecert_certify_leave_out_vision(pecert_certify_model *m, const char *why);

/* pecert_certify_vision_model: the vision tower of m as a model of its
 * own (kind ROPE2D, the tower's heads and head_dim), for certify's
 * @vision pass. */
void pecert_certify_vision_model(pecert_certify_model *out, const pecert_certify_model *m);

/* pecert_pe_kind_name: "rope", "mrope", "alibi", "t5", "learned", "rope2d",
 * "sinusoidal". */
const char *pecert_pe_kind_name(pecert_pe_kind kind);


/*
 * pecert_certify_describe writes the derived parameters, one "key: value"
 * line each (what `pecert certify` prints first), into out. Returns the
 * length written (truncated to len - 1).
 */
size_t pecert_certify_describe(char *out, size_t len, const pecert_certify_model *m);

#endif /* PECERT_CONFORMANCE_CERTIFY_CONFIG_H */
