/*
 * certify_sinusoidal.c - the checkpoints whose positions are a fixed
 * sinusoidal table, each read as its model's own class builds and indexes
 * it (transformers v4.57.6, 753d6110):
 *
 *   marian, pegasus   MarianSinusoidalPositionalEmbedding (Pegasus's is a
 *                     copy): max_position_embeddings rows of d_model, sin |
 *                     cos halves at 10000^(-2i/d) (CONCAT), computed in
 *                     float64 by numpy; row p = arange from the cache's
 *                     length.
 *   ctrl              positional_encoding(n_positions, n_embd): the same
 *                     CONCAT table, in float32 torch; row p.
 *   m2m_100, nllb-moe M2M100SinusoidalPositionalEmbedding(max_position_
 *                     embeddings, d_model, pad_token_id): tensor2tensor's
 *                     frequencies (FAIRSEQ), row pad_token_id + 1 + p from
 *                     create_position_ids_from_input_ids, a padding token
 *                     the zeroed row pad_token_id; the table grows past
 *                     max_position_embeddings on demand.
 *   fsmt              fairseq's SinusoidalPositionalEmbedding, the same rows
 *                     (make_positions), max_position_embeddings +
 *                     padding_idx + 1 of them.
 *   speech_to_text    Speech2TextSinusoidalPositionalEmbedding (M2M-100's) in
 *                     the encoder (max_source_positions) and the decoder
 *                     (max_target_positions); the encoder numbers its frames
 *                     from a padding mask of 0s and 1s, through
 *                     create_position_ids_from_input_ids with pad_token_id
 *                     as the padding value: right only when pad_token_id
 *                     is 1 (the config class's default), refused otherwise.
 *   xglm              XGLMSinusoidalPositionalEmbedding: the FAIRSEQ table,
 *                     row 2 + p from arange (the forward adds offset 2 to
 *                     position_ids), padding taking positions like any
 *                     token; row 2 + p is FAIRSEQ's padding_idx + 1 + p only
 *                     for pad_token_id 1 (the default): refused otherwise.
 *   pegasus_x         PegasusXSinusoidalPositionalEmbedding: computed per
 *                     call, tensor2tensor's frequencies (log(10000) /
 *                     (d/2 - 1)), sin | cos halves (T2T), row p; an odd
 *                     d_model cannot run (the halves do not fill it).
 *   xlm, flaubert     sinusoidal_embeddings true: create_sinusoidal_
 *                     embeddings (INTERLEAVED) into the position table of
 *                     max_position_embeddings rows of emb_dim; false (the
 *                     default): a learned table (certify_families.c).
 *   distilbert        sinusoidal_pos_embds true: the same INTERLEAVED table
 *                     of dim; false (the default): learned.
 *   trocr             use_learned_position_embeddings false: TrOCR's
 *                     fairseq table (max_position_embeddings + pad_token_id
 *                     + 1 rows, make_positions); true (the default): BART's
 *                     learned table, offset 2 (certify_families.c).
 *   videomae          get_sinusoid_encoding_table(num_patches, hidden_size):
 *                     the INTERLEAVED sinusoid (numpy, float64, then
 *                     float32), one row per patch of the video, row p for
 *                     patch p (VideoMAEEmbeddings adds the whole table;
 *                     masking only drops rows); num_patches = (num_frames //
 *                     tubelet_size) * (image_size // patch_size)^2.
 */
#include "certify_config.h"
#include "certify_reads.h"

#include <cjson/cJSON.h>
#include <string.h>

/* How padding tokens are numbered. */
enum {
    PAD_NONE = 0,       /* no padding rule: row p                          */
    PAD_ZERO_ROW,       /* make_positions: a padding token reads row pad   */
    PAD_TAKES_POSITION, /* arange + 2: padding is numbered like any token  */
};

typedef struct sinusoidal_rule {
    const char *model_type;
    const char *width_key, *heads_key;
    const char *positions_key;  /* the rows, or the trained length         */
    const char *positions_key2; /* a second table's (Speech2Text's decoder) */
    pecert_sinusoidal_variant variant;
    int32_t padding;
    int32_t pad_must_be_one; /* the rule above holds only for pad 1      */
    /* The config switch between a learned and a sinusoidal table (NULL:
     * always sinusoidal), and whether true means sinusoidal. */
    const char *switch_key;
    int32_t switch_means_sinusoidal;
    const char *reads;           /* in words, for --list-model-types         */
    /* The decoder's learned table's rows (Whisper's max_target_positions),
     * certified in the @decoder pass; NULL: none. */
    const char *decoder_rows_key;
    /* The rows when no key states them (VideoMAE's patches): sets
     * m->max_position_embeddings; NULL: positions_key's. */
    int (*derive_positions)(map_ctx *c);
    /* Positional keys of the model's other parts, read and named in a
     * warning by derive_positions (SeamlessM4T's speech encoder); NULL: none. */
    const char *const *also_known;
} sinusoidal_rule;

static int videomae_patches(map_ctx *c);
static int seamless_text_positions(map_ctx *c);

/* SeamlessM4T's positional keys beside its text model's: the speech
 * encoder's (a conformer's relative or rotary positions) and the
 * text-to-unit model's (t2u_*). */
static const char *const seamless_keys[] = {"max_source_positions", "position_embeddings_type",
                                            "rotary_embedding_base", "t2u_max_position_embeddings",
                                            "left_max_position_embeddings", "right_max_position_embeddings",
                                            "t2u_max_new_tokens", "t2u_pad_token_id", "num_conv_pos_embeddings",
                                            "num_conv_pos_embedding_groups", NULL};

#define CONCAT_WORDS "sinusoidal: sin | cos halves at 10000^(-2i/d), row p"
#define FAIRSEQ_WORDS                                                                                                  \
    "sinusoidal: fairseq's table (tensor2tensor's frequencies), row pad_token_id + 1 + p, padding "                    \
    "the zero row pad_token_id"
#define XLM_WORDS                                                                                                      \
    "learned: max_position_embeddings rows of emb_dim; with sinusoidal_embeddings true, the interleaved "              \
    "sinusoid (create_sinusoidal_embeddings)"

static const sinusoidal_rule rules[] = {
    {"marian", "d_model", "encoder_attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_CONCAT,
     PAD_NONE, 0, NULL, 0, CONCAT_WORDS " (max_position_embeddings rows)", NULL, NULL, NULL},
    {"pegasus", "d_model", "encoder_attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_CONCAT,
     PAD_NONE, 0, NULL, 0, CONCAT_WORDS " (max_position_embeddings rows)", NULL, NULL, NULL},
    {"ctrl", "n_embd", "n_head", "n_positions", NULL, PECERT_SINUSOIDAL_CONCAT, PAD_NONE, 0, NULL, 0,
     CONCAT_WORDS " (n_positions rows of n_embd)", NULL, NULL, NULL},
    {"m2m_100", "d_model", "encoder_attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_FAIRSEQ,
     PAD_ZERO_ROW, 0, NULL, 0, FAIRSEQ_WORDS, NULL, NULL, NULL},
    {"nllb-moe", "d_model", "encoder_attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_FAIRSEQ,
     PAD_ZERO_ROW, 0, NULL, 0, FAIRSEQ_WORDS, NULL, NULL, NULL},
    {"fsmt", "d_model", "encoder_attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_FAIRSEQ,
     PAD_ZERO_ROW, 0, NULL, 0, FAIRSEQ_WORDS, NULL, NULL, NULL},
    {"speech_to_text", "d_model", "encoder_attention_heads", "max_source_positions", "max_target_positions",
     PECERT_SINUSOIDAL_FAIRSEQ, PAD_ZERO_ROW, 1, NULL, 0,
     FAIRSEQ_WORDS " (max_source_positions, max_target_positions; pad_token_id 1)", NULL, NULL, NULL},
    {"xglm", "d_model", "attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_FAIRSEQ,
     PAD_TAKES_POSITION, 1, NULL, 0,
     "sinusoidal: fairseq's table, row 2 + p from arange, padding numbered like any token (pad_token_id 1)", NULL,
     NULL, NULL},
    {"pegasus_x", "d_model", "encoder_attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_T2T,
     PAD_NONE, 0, NULL, 0, "sinusoidal: tensor2tensor's frequencies, sin | cos halves, computed per call, row p", NULL,
     NULL, NULL},
    /* Whisper: the encoder's sinusoids(max_source_positions, d_model), set
     * by WhisperPreTrainedModel._init_weights (log(10000) / (d/2 - 1), sin
     * | cos halves: T2T), read at arange(max_source_positions) whatever the
     * audio; the decoder's WhisperPositionalEmbedding, learned, row p
     * (weight[past : past + seq], or position_ids). An odd d_model cannot
     * run (sinusoids raises). */
    {"whisper", "d_model", "encoder_attention_heads", "max_source_positions", NULL, PECERT_SINUSOIDAL_T2T, PAD_NONE,
     0, NULL, 0,
     "sinusoidal: the encoder's tensor2tensor table of max_source_positions rows (sin | cos halves), row p; the "
     "decoder's learned table of max_target_positions rows in the @decoder pass",
     "max_target_positions", NULL, NULL},
    /* SeamlessM4T (v1, v2): the text encoder's and decoder's
     * SeamlessM4TSinusoidalPositionalEmbedding(max_position_embeddings,
     * hidden_size, pad_token_id), M2M-100's (rows pad + 1 + p, padding the
     * zero row pad); the speech encoder and the text-to-unit model named. */
    {"seamless_m4t", "hidden_size", "encoder_attention_heads", "max_position_embeddings", NULL,
     PECERT_SINUSOIDAL_FAIRSEQ, PAD_ZERO_ROW, 0, NULL, 0, FAIRSEQ_WORDS " (the text encoder's and decoder's)", NULL,
     seamless_text_positions, seamless_keys},
    {"seamless_m4t_v2", "hidden_size", "encoder_attention_heads", "max_position_embeddings", NULL,
     PECERT_SINUSOIDAL_FAIRSEQ, PAD_ZERO_ROW, 0, NULL, 0, FAIRSEQ_WORDS " (the text encoder's and decoder's)", NULL,
     seamless_text_positions, seamless_keys},
    {"kosmos_2_text_model", "embed_dim", "attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_FAIRSEQ,
     PAD_ZERO_ROW, 0, NULL, 0, FAIRSEQ_WORDS " (Kosmos2TextSinusoidalPositionalEmbedding, M2M-100's copy)", NULL, NULL, NULL},
    {"kosmos_2_5_text_model", "embed_dim", "attention_heads", "max_position_embeddings", NULL,
     PECERT_SINUSOIDAL_FAIRSEQ, PAD_ZERO_ROW, 0, NULL, 0,
     FAIRSEQ_WORDS " (Kosmos2_5TextSinusoidalPositionalEmbedding, Kosmos-2's copy)", NULL, NULL, NULL},
    {"xlm", "emb_dim", "n_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_INTERLEAVED, PAD_NONE, 0,
     "sinusoidal_embeddings", 1, XLM_WORDS, NULL, NULL, NULL},
    {"flaubert", "emb_dim", "n_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_INTERLEAVED, PAD_NONE, 0,
     "sinusoidal_embeddings", 1, XLM_WORDS, NULL, NULL, NULL},
    {"distilbert", "dim", "n_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_INTERLEAVED, PAD_NONE, 0,
     "sinusoidal_pos_embds", 1,
     "learned: max_position_embeddings rows of dim; with sinusoidal_pos_embds true, the interleaved sinusoid", NULL,
     NULL, NULL},
    {"trocr", "d_model", "decoder_attention_heads", "max_position_embeddings", NULL, PECERT_SINUSOIDAL_FAIRSEQ,
     PAD_ZERO_ROW, 0, "use_learned_position_embeddings", 0,
     "learned: BART's table, row 2 + p; with use_learned_position_embeddings false, fairseq's sinusoid "
     "(row pad_token_id + 1 + p)", NULL, NULL, NULL},
    {"videomae", "hidden_size", "num_attention_heads", NULL, NULL, PECERT_SINUSOIDAL_INTERLEAVED, PAD_NONE, 0, NULL,
     0, "sinusoidal: the interleaved sinusoid (get_sinusoid_encoding_table), one row per patch of the video: "
        "(num_frames // tubelet_size) * (image_size // patch_size)^2 rows of hidden_size, row p",
     NULL, videomae_patches, NULL},
};

/* VideoMAEPatchEmbeddings: (num_frames // tubelet_size) * (image_size //
 * patch_size)^2 patches (VideoMAEConfig: 16, 2, 224, 16: 1568), each
 * reading its row of the table. VideoMAEForPreTraining's decoder adds the
 * same sinusoid decoder_hidden_size wide to its tokens: warned. */
static int videomae_patches(map_ctx *c)
{
    int32_t frames = 16, tubelet = 2, image = 224, patch = 16, decoder = 384;
    if (cfg_read_int32(c, c->root, "num_frames", 1, 1 << 16, &frames) < 0 ||
        cfg_read_int32(c, c->root, "tubelet_size", 1, 1 << 16, &tubelet) < 0 ||
        cfg_read_int32(c, c->root, "image_size", 1, 1 << 16, &image) < 0 ||
        cfg_read_int32(c, c->root, "patch_size", 1, 1 << 16, &patch) < 0 ||
        cfg_read_int32(c, c->root, "decoder_hidden_size", 1, 1 << 16, &decoder) < 0) {
        return -1;
    }
    if (frames < tubelet || image < patch) {
        return cfg_fail(c, frames < tubelet ? "tubelet_size" : "patch_size", "%d is larger than %s %d: no patch fits",
                        frames < tubelet ? tubelet : patch, frames < tubelet ? "num_frames" : "image_size",
                        frames < tubelet ? frames : image);
    }
    c->m->max_position_embeddings = (int64_t)(frames / tubelet) * (image / patch) * (image / patch);
    cfg_warn(c, "decoder_hidden_size", "VideoMAEForPreTraining's decoder adds the same sinusoid, %d wide, to its "
             "tokens: not certified (the encoder's table is)", (int)decoder);
    return 0;
}

static const sinusoidal_rule *find_rule(const char *model_type)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (strcmp(rules[i].model_type, model_type) == 0) {
            return &rules[i];
        }
    }
    return NULL;
}

/* Whether the config picks the sinusoidal table: *sinusoidal 1 or 0. */
static int read_switch(map_ctx *c, const sinusoidal_rule *rule, int *sinusoidal)
{
    int on = !rule->switch_means_sinusoidal; /* the classes' defaults: learned */
    *sinusoidal = 1;
    if (rule->switch_key == NULL) {
        return 0;
    }
    if (cfg_read_bool(c, c->root, rule->switch_key, rule->switch_key, &on) < 0) {
        return -1;
    }
    *sinusoidal = rule->switch_means_sinusoidal ? on : !on;
    return 0;
}

/* The positions certified: the table's (or both tables') trained length. */
static int read_positions(map_ctx *c, const sinusoidal_rule *rule)
{
    pecert_certify_model *m = c->m;
    int64_t second = 0;
    if (rule->derive_positions != NULL) {
        if (rule->derive_positions(c) != 0) {
            return -1;
        }
        m->sinusoidal_positions = m->max_position_embeddings;
        return 0;
    }
    if (cfg_read_int(c, c->root, rule->positions_key, rule->positions_key, 1, (int64_t)1 << 24,
                     &m->max_position_embeddings) < 0 ||
        (rule->positions_key2 != NULL &&
         cfg_read_int(c, c->root, rule->positions_key2, rule->positions_key2, 1, (int64_t)1 << 24, &second) < 0)) {
        return -1;
    }
    if (m->max_position_embeddings < 1) {
        return cfg_fail(c, rule->positions_key, "required");
    }
    if (rule->positions_key2 != NULL && second < 1) {
        return cfg_fail(c, rule->positions_key2, "required");
    }
    m->sinusoidal_positions = second > m->max_position_embeddings ? second : m->max_position_embeddings;
    return 0;
}

/* FAIRSEQ's padding row: pad_token_id, where the rule needs it 1. */
static int read_padding(map_ctx *c, const sinusoidal_rule *rule)
{
    pecert_certify_model *m = c->m;
    m->sinusoidal_padding_idx = -1;
    if (rule->variant != PECERT_SINUSOIDAL_FAIRSEQ) {
        return 0;
    }
    m->sinusoidal_padding_idx = 1;
    if (cfg_read_int32(c, c->root, "pad_token_id", 0, 1 << 30, &m->sinusoidal_padding_idx) < 0) {
        return -1;
    }
    if (rule->pad_must_be_one && m->sinusoidal_padding_idx != 1) {
        return cfg_fail(c, "pad_token_id",
                        "%d: %s numbers positions as fairseq's padding_idx + 1 + p only with "
                        "pad_token_id 1 (%s), which pecert certifies; another value is another rule",
                        m->sinusoidal_padding_idx, m->model_type,
                        rule->padding == PAD_TAKES_POSITION ? "its forward adds a fixed offset 2 to arange"
                                                            : "the encoder's padding mask holds 0s and 1s");
    }
    m->sinusoidal_padding_row = rule->padding == PAD_ZERO_ROW;
    return 0;
}

/* SeamlessM4T: the text model's rows are max_position_embeddings; the
 * speech encoder (position_embeddings_type: a conformer's relative
 * positions, rotary before the projections, or none) and the text-to-unit
 * model (t2u_*: its decoder M2M-100's rows from t2u_pad_token_id, its
 * encoder none) are named as not certified. */
static int seamless_text_positions(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    m->max_position_embeddings = strcmp(m->model_type, "seamless_m4t_v2") == 0 ? 4096 : 1024; /* the classes' */
    if (cfg_read_int(c, c->root, "max_position_embeddings", "max_position_embeddings", 1, (int64_t)1 << 32,
                     &m->max_position_embeddings) < 0) {
        return -1;
    }
    cfg_warn(c, "position_embeddings_type", "SeamlessM4T's speech encoder (a conformer: relative or rotary "
             "positions) and its text-to-unit model (t2u_*) are not certified, only the text model's sinusoid");
    return 0;
}

int cfg_map_sinusoidal(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    const sinusoidal_rule *rule = find_rule(m->model_type);
    int sinusoidal = 1;
    if (rule == NULL) {
        return cfg_fail(c, "model_type", "'%s' has no sinusoidal-table rule in certify_sinusoidal.c", m->model_type);
    }
    /* The rule's own keys, its switch among them (DistilBERT's
     * sinusoidal_pos_embds says "pos_emb"). */
    const char *const known[] = {rule->positions_key,
                                 rule->positions_key2 != NULL ? rule->positions_key2 : rule->positions_key,
                                 rule->decoder_rows_key != NULL ? rule->decoder_rows_key : rule->positions_key,
                                 rule->switch_key != NULL ? rule->switch_key : rule->positions_key,
                                 "static_position_embeddings", NULL};
    static const char *const none[] = {NULL};
    if (read_switch(c, rule, &sinusoidal) != 0) {
        return -1;
    }
    if (!sinusoidal) {
        return cfg_map_learned_text(c);
    }
    m->sinusoidal_dim = 0;
    if (cfg_reject_unknown_positional_of(c, c->root, known, rule->also_known != NULL ? rule->also_known : none, "") !=
            0 ||
        cfg_check_static_positions(c, 1) != 0 ||
        cfg_read_heads(c, rule->width_key, rule->heads_key, NULL) != 0 ||
        cfg_read_int32(c, c->root, rule->width_key, 1, 1 << 16, &m->sinusoidal_dim) < 0 ||
        read_positions(c, rule) != 0 || read_padding(c, rule) != 0) {
        return -1;
    }
    if (m->sinusoidal_dim < 2) {
        return cfg_fail(c, rule->width_key, "%d: a sinusoidal table needs at least 2 channels", m->sinusoidal_dim);
    }
    if (rule->variant >= PECERT_SINUSOIDAL_T2T && m->sinusoidal_dim < 4) {
        return cfg_fail(c, rule->width_key, "%d: tensor2tensor's frequencies divide by d/2 - 1, zero below 4 "
                        "channels (the model's own code divides by zero)", m->sinusoidal_dim);
    }
    if (rule->variant == PECERT_SINUSOIDAL_T2T && m->sinusoidal_dim % 2 != 0) {
        return cfg_fail(c, rule->width_key, "%d is odd: %s", m->sinusoidal_dim,
                        rule->decoder_rows_key != NULL ? "Whisper's sinusoids() raises for an odd number of channels"
                                                       : "PegasusXSinusoidalPositionalEmbedding fills sin and cos "
                                                         "halves of d_model // 2 channels each, which an odd width "
                                                         "cannot hold");
    }
    if (rule->decoder_rows_key != NULL && cfg_read_decoder_table(c, rule->decoder_rows_key, m->sinusoidal_dim) != 0) {
        return -1;
    }
    m->kind = PECERT_PE_SINUSOIDAL;
    m->sinusoidal_variant = rule->variant;
    m->sinusoidal_base = 10000.0; /* every class's literal */
    return 0;
}

/* What a sinusoidal model type's mapping reads, in words. */
const char *cfg_sinusoidal_words(const char *model_type)
{
    const sinusoidal_rule *rule = find_rule(model_type);
    return rule != NULL ? rule->reads : NULL;
}
