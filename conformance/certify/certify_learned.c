/*
 * certify_learned.c - the text models whose positions are a learned
 * table, each read as its *Embeddings / *LearnedPositionalEmbedding class
 * builds and indexes it (transformers v4.57.6, 753d6110):
 *   row p (position_ids = arange from the cache's length): BERT and the
 *     encoders shaped like it, GPT-2 and the decoders shaped like it
 *     (GPT-Neo, GPT-BigCode, OpenAI GPT, ImageGPT), Blenderbot, BigBird-
 *     Pegasus and LED (offset 0), the dual encoders' text models;
 *     FNet, BROS's text;
 *   RoBERTa's rows (create_position_ids_from_input_ids: the k-th token
 *     that is not padding, k from 1, row pad_token_id + k; a padding token
 *     row pad_token_id): the RoBERTa family, Longformer, Data2Vec-Text,
 *     I-BERT, LiLT, MarkupLM, LUKE, AltCLIP's and BridgeTower's text;
 *     MPNet's from padding_idx 1 whatever pad_token_id is;
 *   OPT's rows (cumsum(attention_mask) * mask - 1 + 2, a table of
 *     max_position_embeddings + 2): OPT, BioGPT, a padding token row 1;
 *   BART's rows (arange + 2, padding numbered like any token): BART,
 *     mBART, PLBart, MVP, TrOCR (a table of max_position_embeddings + 2),
 *     Nyströmformer, MRA, YOSO (their buffer arange(max) + 2, the same
 *     table), ERNIE-M (arange + 2 into max_position_embeddings rows).
 * Rows 2 + p with padding row 1 is PADDING_OFFSET with padding_idx 1.
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "vectors.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

typedef struct learned_rule {
    const char *model_type;
    const char *hidden_key, *heads_key, *rows_key;
    int32_t offset_rows;   /* rows past rows_key (OPT's and BART's 2)           */
    int32_t padding_idx;   /* PADDING_OFFSET's; -1: config.pad_token_id; 0: PLAIN */
    int32_t padding_row;   /* a padding token reads row padding_idx            */
    const char *width_key; /* the table's width when not hidden_size         */
    int32_t width_default;
    /* Positional keys the model has beyond the table's (a switch to a
     * sinusoidal table certify_sinusoidal.c read first, the tables
     * pecert names in warning), NULL-ended; NULL: none. */
    const char *const *also_known;
    /* A second table of the model, the decoder's, certified in the
     * @decoder pass: its rows' key (LED's max_decoder_position_embeddings). */
    const char *decoder_rows_key;
    /* What else of the model reads positions and pecert does not certify:
     * "key: why", a warning. */
    const char *warning;
    /* A rule of the model's own beyond the table's (DeBERTa's switches). */
    int (*check)(map_ctx *c);
    /* The class's width and heads where a config leaves them out (Bark's
     * sub-model dicts); 0: required. */
    int32_t hidden_default, heads_default;
    /* Keys released config.json files carry from older releases that
     * transformers v4.57.6 neither reads nor needs (also in also_known):
     * warned as ignored. NULL: none. */
    const char *const *legacy;
} learned_rule;

static const char *const distilbert_keys[] = {"sinusoidal_pos_embds", NULL};
static const char *const dt_keys[] = {"n_positions", NULL};
static const char *const trocr_keys[] = {"use_learned_position_embeddings", NULL};
static const char *const layout_keys[] = {"max_2d_position_embeddings", NULL};
static const char *const layoutlmv3_keys[] = {"max_2d_position_embeddings", "has_relative_attention_bias", NULL};
static const char *const deberta_keys[] = {"relative_attention", "position_biased_input", "max_relative_positions",
                                           "position_buckets", NULL};
static const char *const led_keys[] = {"max_encoder_position_embeddings", "max_decoder_position_embeddings", NULL};
static const char *const mpnet_keys[] = {"relative_attention_num_buckets", NULL};
static const char *const prophetnet_keys[] = {"num_buckets", "relative_max_distance", "ngram",
                                              "encoder_max_position_embeddings", "decoder_max_position_embeddings",
                                              NULL};
/* microsoft/prophetnet-large-uncased's config.json (encoder 513, decoder
 * 514) and facebook/blenderbot-400M-distill's (0): keys of the 2020
 * releases no v4.57.6 class reads. */
static const char *const prophetnet_legacy[] = {"encoder_max_position_embeddings", "decoder_max_position_embeddings",
                                                NULL};
static const char *const blenderbot_keys[] = {"extra_pos_embeddings", NULL};
static const char *const layoutlmv2_keys[] = {"max_2d_position_embeddings", "has_relative_attention_bias",
                                              "has_spatial_attention_bias", "max_rel_pos", "rel_pos_bins",
                                              "max_rel_2d_pos", "rel_2d_pos_bins", NULL};

static int check_deberta(map_ctx *c);
static int check_mpnet(map_ctx *c);
static int check_esm(map_ctx *c);
static int check_canine(map_ctx *c);
static int check_decision_transformer(map_ctx *c);

#define RULE(mt, hidden, heads, rows) .model_type = mt, .hidden_key = hidden, .heads_key = heads, .rows_key = rows
#define BERT_SHAPED(mt) {RULE(mt, "hidden_size", "num_attention_heads", "max_position_embeddings")}
#define GPT2_SHAPED(mt) {RULE(mt, "n_embd", "n_head", "n_positions")}
#define ROBERTA_SHAPED(mt)                                                                                             \
    {RULE(mt, "hidden_size", "num_attention_heads", "max_position_embeddings"), .padding_idx = -1, .padding_row = 1}
#define BART_SHAPED(mt) {RULE(mt, "d_model", "encoder_attention_heads", "max_position_embeddings"), 2, 1, 0}
#define OFFSET_2_SHAPED(mt) {RULE(mt, "hidden_size", "num_attention_heads", "max_position_embeddings"), 2, 1, 0}

static const learned_rule learned_rules[] = {
    BERT_SHAPED("bert"), BERT_SHAPED("ernie"), BERT_SHAPED("megatron-bert"), BERT_SHAPED("bert-generation"),
    BERT_SHAPED("roc_bert"), BERT_SHAPED("splinter"), BERT_SHAPED("mobilebert"), BERT_SHAPED("big_bird"),
    BERT_SHAPED("realm"), BERT_SHAPED("qdqbert"), BERT_SHAPED("lxmert"), BERT_SHAPED("retribert"),
    BERT_SHAPED("git"),
    {RULE("electra", "hidden_size", "num_attention_heads", "max_position_embeddings"), .width_key = "embedding_size",
     .width_default = 128},
    {RULE("albert", "hidden_size", "num_attention_heads", "max_position_embeddings"), .width_key = "embedding_size",
     .width_default = 128},
    {RULE("convbert", "hidden_size", "num_attention_heads", "max_position_embeddings"), .width_key = "embedding_size",
     .width_default = 768},
    {RULE("rembert", "hidden_size", "num_attention_heads", "max_position_embeddings"),
     .width_key = "input_embedding_size", .width_default = 256},
    /* SqueezeBERT: a table embedding_size wide (its LayerNorm is
     * hidden_size wide: the two are equal in every checkpoint). */
    {RULE("squeezebert", "hidden_size", "num_attention_heads", "max_position_embeddings"),
     .width_key = "embedding_size", .width_default = 768},
    /* LayoutLM: the text table, and x/y/h/w tables indexed by the boxes. */
    {RULE("layoutlm", "hidden_size", "num_attention_heads", "max_position_embeddings"), .also_known = layout_keys,
     .warning = "max_2d_position_embeddings: the x, y, height and width tables LayoutLMEmbeddings adds from each "
                "token's bbox are not certified, only the text table"},
    /* VisualBERT: the visual tokens read a second table
     * (visual_position_embeddings), at row 0 or the text rows they align to. */
    {RULE("visual_bert", "hidden_size", "num_attention_heads", "max_position_embeddings"),
     .warning = "max_position_embeddings: the visual tokens' own table (visual_position_embeddings, row 0 or the "
                "aligned text rows averaged) is not certified, only the text table"},
    /* ViLT: the text table (TextEmbeddings, BERT's), beside the image
     * patches' table ViltEmbeddings.visual_embed resizes to each image
     * (bilinear, then samples up to max_image_length patches). */
    {RULE("vilt", "hidden_size", "num_attention_heads", "max_position_embeddings"),
     .warning = "max_position_embeddings: ViLT's image patches read a table of their own, resized to each image "
                "and sampled (visual_embed): not certified, only the text table"},
    /* Decision Transformer: embed_timestep, max_ep_len rows of hidden_size,
     * read at each step's timestep (the trajectory's, row t), which its
     * return, state and action tokens share; the GPT-2 backbone's own table
     * (n_positions) is read at row 0 (DecisionTransformerModel passes
     * position_ids of zeros): named. */
    {RULE("decision_transformer", "hidden_size", "n_head", "max_ep_len"), .also_known = dt_keys,
     .hidden_default = 128, .heads_default = 1, .check = check_decision_transformer},
    /* Trajectory Transformer: pos_emb, a Parameter [1, block_size, n_embd],
     * sliced [:, :sequence_length] on every call, so a call with
     * past_key_values reads rows from 0 again (named). */
    {RULE("trajectory_transformer", "n_embd", "n_head", "block_size"), .hidden_default = 128, .heads_default = 4,
     .warning = "block_size: pos_emb[:, :sequence_length] on every call: with past_key_values the new tokens read "
                "rows from 0 again (the cache's length is not added); certify checks row p of one call"},
    /* Perceiver: PerceiverModel takes its inputs as its preprocessor makes
     * them; the released language model's (PerceiverForMaskedLM) is
     * PerceiverTextPreprocessor: max_position_embeddings rows of d_model,
     * row p of arange. The other preprocessors are named. */
    {RULE("perceiver", "d_model", "num_cross_attention_heads", "max_position_embeddings"), .hidden_default = 768,
     .heads_default = 8,
     .warning = "max_position_embeddings: this is the text preprocessor's table (PerceiverTextPreprocessor, row p); "
                "the image, audio and video preprocessors' Fourier or trainable position encodings are not "
                "certified"},
    /* DeBERTa: the absolute table only with position_biased_input (the
     * config classes' default), relative attention refused (check_deberta). */
    {RULE("deberta", "hidden_size", "num_attention_heads", "max_position_embeddings"), .width_key = "embedding_size",
     .also_known = deberta_keys, .check = check_deberta},
    {RULE("deberta-v2", "hidden_size", "num_attention_heads", "max_position_embeddings"),
     .width_key = "embedding_size", .also_known = deberta_keys, .check = check_deberta},
    {RULE("gpt2", "n_embd", "n_head", "n_positions")}, GPT2_SHAPED("gpt_bigcode"), GPT2_SHAPED("openai-gpt"),
    GPT2_SHAPED("imagegpt"),
    {RULE("gpt_neo", "hidden_size", "num_heads", "max_position_embeddings")},
    {RULE("blenderbot", "d_model", "encoder_attention_heads", "max_position_embeddings"), .also_known = blenderbot_keys,
     .legacy = blenderbot_keys},
    {RULE("blenderbot-small", "d_model", "encoder_attention_heads", "max_position_embeddings")},
    {RULE("bigbird_pegasus", "d_model", "encoder_attention_heads", "max_position_embeddings")},
    /* LED: the encoder's table and the decoder's, of other sizes, arange
     * from the cache's length into each (offset 0). */
    {RULE("led", "d_model", "encoder_attention_heads", "max_encoder_position_embeddings"), .also_known = led_keys,
     .decoder_rows_key = "max_decoder_position_embeddings"},
    /* FNet: BERT's table and rows; its token mixing is a Fourier
     * transform, no attention heads: the table is one hidden_size-wide
     * "head" (heads_key NULL). */
    {RULE("fnet", "hidden_size", NULL, "max_position_embeddings")},
    /* BROS: BERT's rows for the text table (BrosTextEmbeddings); every
     * attention score also gets a bias from the pairwise differences of
     * the tokens' boxes (BrosPositionalEmbedding2D, always on). */
    {RULE("bros", "hidden_size", "num_attention_heads", "max_position_embeddings"),
     .warning = "dim_bbox: BROS's bias from the pairwise differences of the tokens' boxes (a sinusoid of each "
                "difference, projected, added to every attention score) is not certified, only the text table"},
    /* MPNet: RoBERTa's rows, but from a padding_idx fixed at 1
     * (MPNetEmbeddings.padding_idx = 1, whatever pad_token_id says), and a
     * T5-style relative bias in every layer whose buckets are computed
     * with the function's defaults (32, max distance 128), not the config's. */
    {RULE("mpnet", "hidden_size", "num_attention_heads", "max_position_embeddings"), .padding_idx = 1,
     .padding_row = 1, .also_known = mpnet_keys, .check = check_mpnet},
    /* ESM with position_embedding_type "absolute" (cfg_map_esm): RoBERTa's
     * rows from pad_token_id (EsmEmbeddings.padding_idx), which EsmConfig
     * leaves None (check_esm). */
    {RULE("esm", "hidden_size", "num_attention_heads", "max_position_embeddings"), .padding_idx = -1,
     .padding_row = 1, .check = check_esm},
    ROBERTA_SHAPED("roberta"), ROBERTA_SHAPED("xlm-roberta"), ROBERTA_SHAPED("xlm-roberta-xl"),
    ROBERTA_SHAPED("camembert"), ROBERTA_SHAPED("roberta-prelayernorm"), ROBERTA_SHAPED("xmod"),
    ROBERTA_SHAPED("longformer"), ROBERTA_SHAPED("data2vec-text"), ROBERTA_SHAPED("ibert"),
    {RULE("lilt", "hidden_size", "num_attention_heads", "max_position_embeddings"), .padding_idx = -1,
     .padding_row = 1, .also_known = layout_keys,
     .warning = "max_2d_position_embeddings: LiLT's layout tables (box_position_embeddings, read at the same rows, "
                "and the box coordinates' tables) are not certified, only the text table"},
    /* LayoutLMv3: RoBERTa's rows for the text (LayoutLMv3TextEmbeddings);
     * beside them the boxes' tables, the image patches' table and, in
     * attention, a bucketed 1-D relative bias and a 2-D one. */
    {RULE("layoutlmv3", "hidden_size", "num_attention_heads", "max_position_embeddings"), .padding_idx = -1,
     .padding_row = 1, .also_known = layoutlmv3_keys,
     .warning = "has_relative_attention_bias: LayoutLMv3's box tables, its image patches' table and its 1-D and 2-D "
                "relative attention biases are not certified, only the text table"},
    {RULE("markuplm", "hidden_size", "num_attention_heads", "max_position_embeddings"), .padding_idx = -1,
     .padding_row = 1,
     .warning = "max_depth: MarkupLM's XPath embeddings (each node's tag and subscript path) are not certified, "
                "only the text table"},
    {RULE("luke", "hidden_size", "num_attention_heads", "max_position_embeddings"), .padding_idx = -1,
     .padding_row = 1,
     .warning = "entity_position_ids: LUKE's entity positions (the caller's spans, averaged over the entity table) "
                "are not certified, only the word table"},
    {RULE("opt", "hidden_size", "num_attention_heads", "max_position_embeddings"), 2, 1, 1},
    {RULE("biogpt", "hidden_size", "num_attention_heads", "max_position_embeddings"), 2, 1, 1},
    BART_SHAPED("bart"), BART_SHAPED("mbart"), BART_SHAPED("plbart"), BART_SHAPED("mvp"),
    OFFSET_2_SHAPED("nystromformer"), OFFSET_2_SHAPED("mra"), OFFSET_2_SHAPED("yoso"),
    /* ERNIE-M: position_ids += 2 into a table of max_position_embeddings. */
    {RULE("ernie_m", "hidden_size", "num_attention_heads", "max_position_embeddings"), 0, 1, 0},
    /* The learned tables of models with a sinusoidal switch
     * (certify_sinusoidal.c): XLM's and Flaubert's position_ids buffer and
     * DistilBERT's arange read row p; TrOCR's TrOCRLearnedPositionalEmbedding
     * is BART's (arange + offset 2). */
    {RULE("xlm", "emb_dim", "n_heads", "max_position_embeddings")},
    {RULE("flaubert", "emb_dim", "n_heads", "max_position_embeddings")},
    {RULE("distilbert", "dim", "n_heads", "max_position_embeddings"), .also_known = distilbert_keys},
    {RULE("trocr", "d_model", "decoder_attention_heads", "max_position_embeddings"), 2, 1, 0,
     .also_known = trocr_keys},
    /* The text models of dual encoders (certify_wrappers.c): CLIPTextEmbeddings
     * and its copies read position_ids[:, :seq_length] (MetaCLIP 2, X-CLIP,
     * OWL-ViT, OWLv2, GroupViT, CLIPSeg), SiglipTextEmbeddings likewise;
     * ChineseCLIP's, BLIP's, ALIGN's and FLAVA's are BERT's; AltCLIP's
     * AltRobertaEmbeddings and BridgeTower's are RoBERTa's. */
    BERT_SHAPED("clip_text_model"), BERT_SHAPED("siglip_text_model"), BERT_SHAPED("siglip2_text_model"),
    BERT_SHAPED("chinese_clip_text_model"),
    BERT_SHAPED("aimv2_text_model"),
    /* CANINE: the characters' table has num_hash_buckets rows (its
     * nn.Embedding), read at arange(L) from a buffer of
     * max_position_embeddings (check_canine); the downsampled molecules
     * take no positions of their own. */
    {RULE("canine", "hidden_size", "num_attention_heads", "num_hash_buckets"), .check = check_canine},
    /* LayoutLMv2 (LayoutLMv2Model._calc_text_embeddings): the text table at
     * arange(L), beside the box tables and the relative biases, named. */
    {RULE("layoutlmv2", "hidden_size", "num_attention_heads", "max_position_embeddings"),
     .also_known = layoutlmv2_keys,
     .warning = "has_relative_attention_bias: LayoutLMv2's box tables (x, y, h, w from each token's bbox), its image "
                "patches' positions and its 1-D and 2-D relative attention biases are not certified, only the text "
                "table"},
    /* ProphetNet, XLM-ProphetNet (ProphetNetPositionalEmbeddings): RoBERTa's
     * rows, the mask's cumsum * mask + pad_token_id (a padding token row
     * pad_token_id), in a table of max_position_embeddings rows; past its
     * end positions are clamped to the last row, and the decoder's
     * relative buckets are its own: both named. */
    {RULE("prophetnet", "hidden_size", "num_encoder_attention_heads", "max_position_embeddings"), .padding_idx = -1,
     .padding_row = 1, .also_known = prophetnet_keys, .legacy = prophetnet_legacy,
     .warning = "num_buckets: ProphetNet's decoder adds relative buckets of its own (num_buckets, "
                "relative_max_distance) and clamps positions past the table: certify checks the learned table's rows"},
    {RULE("xlm-prophetnet", "hidden_size", "num_encoder_attention_heads", "max_position_embeddings"),
     .padding_idx = -1, .padding_row = 1, .also_known = prophetnet_keys, .legacy = prophetnet_legacy,
     .warning = "num_buckets: XLM-ProphetNet's decoder adds relative buckets of its own (num_buckets, "
                "relative_max_distance) and clamps positions past the table: certify checks the learned table's rows"},
    /* Bark's semantic model (BarkCausalModel, read from semantic_config):
     * GPT-2's rule, row past + p of block_size rows. */
    {RULE("bark", "hidden_size", "num_heads", "block_size"),
     .warning = "block_size: Bark's coarse and fine acoustics models (coarse_acoustics_config, "
                "fine_acoustics_config) read learned tables of their own (block_size rows, row p): certify checks "
                "the semantic model's",
     .hidden_default = 768, .heads_default = 12},
    BERT_SHAPED("metaclip_2_text_model"), BERT_SHAPED("owlvit_text_model"), BERT_SHAPED("owlv2_text_model"),
    BERT_SHAPED("groupvit_text_model"), BERT_SHAPED("blip_text_model"), BERT_SHAPED("xclip_text_model"),
    BERT_SHAPED("clipseg_text_model"), BERT_SHAPED("align_text_model"), BERT_SHAPED("flava_text_model"),
    ROBERTA_SHAPED("altclip_text_model"), ROBERTA_SHAPED("bridgetower_text_model"),
    ROBERTA_SHAPED("clap_text_model"),
};

/* Each rule's config class's default for its rows key (conformance/
 * inventory.json: transformers v4.57.6's defaults; a text model of a dual
 * encoder its own text config class's): released config.json files leave
 * it out (SigLIP so400m's text_config has no max_position_embeddings, the
 * class's 64 applies). tests/inventory/ checks each against the class. */
static const struct {
    const char *model_type;
    int64_t rows;
} rows_defaults[] = {
    {"bert", 512}, {"ernie", 512}, {"megatron-bert", 512}, {"bert-generation", 512}, {"roc_bert", 512},
    {"splinter", 512}, {"mobilebert", 512}, {"big_bird", 4096}, {"realm", 512}, {"qdqbert", 512}, {"lxmert", 512},
    {"retribert", 512}, {"git", 1024}, {"electra", 512}, {"albert", 512}, {"convbert", 512}, {"rembert", 512},
    {"squeezebert", 512}, {"layoutlm", 512}, {"visual_bert", 512}, {"vilt", 40}, {"perceiver", 2048}, {"decision_transformer", 4096}, {"deberta", 512},
    {"deberta-v2", 512}, {"gpt2", 1024}, {"gpt_bigcode", 1024}, {"openai-gpt", 512}, {"imagegpt", 1024},
    {"gpt_neo", 2048}, {"blenderbot", 128}, {"blenderbot-small", 512}, {"bigbird_pegasus", 4096}, {"led", 16384},
    {"fnet", 512}, {"bros", 512}, {"mpnet", 512}, {"esm", 1026}, {"roberta", 512}, {"xlm-roberta", 512},
    {"xlm-roberta-xl", 514},
    {"camembert", 512}, {"roberta-prelayernorm", 512}, {"xmod", 512}, {"longformer", 512}, {"data2vec-text", 512},
    {"ibert", 512}, {"lilt", 512}, {"layoutlmv3", 512}, {"markuplm", 512}, {"luke", 512}, {"opt", 2048},
    {"biogpt", 1024}, {"bart", 1024}, {"mbart", 1024}, {"plbart", 1024}, {"mvp", 1024}, {"nystromformer", 510},
    {"mra", 512}, {"yoso", 4096}, {"ernie_m", 514}, {"xlm", 512}, {"flaubert", 512}, {"distilbert", 512},
    {"trocr", 512}, {"clip_text_model", 77}, {"siglip_text_model", 64}, {"chinese_clip_text_model", 512},
    {"metaclip_2_text_model", 77}, {"owlvit_text_model", 16}, {"owlv2_text_model", 16},
    {"groupvit_text_model", 77}, {"blip_text_model", 512}, {"xclip_text_model", 77}, {"clipseg_text_model", 77},
    {"align_text_model", 512}, {"flava_text_model", 512}, {"altclip_text_model", 514},
    {"bridgetower_text_model", 514}, {"aimv2_text_model", 77}, {"clap_text_model", 514}, {"canine", 16384}, {"bark", 1024}, {"prophetnet", 512}, {"xlm-prophetnet", 512}, {"layoutlmv2", 512},
    {"trajectory_transformer", 249},
};

static int64_t rows_default_of(const char *model_type)
{
    for (size_t i = 0; i < sizeof(rows_defaults) / sizeof(rows_defaults[0]); i++) {
        if (strcmp(rows_defaults[i].model_type, model_type) == 0) {
            return rows_defaults[i].rows;
        }
    }
    return 0;
}

static const learned_rule *find_learned_rule(const char *model_type)
{
    for (size_t i = 0; i < sizeof(learned_rules) / sizeof(learned_rules[0]); i++) {
        if (strcmp(learned_rules[i].model_type, model_type) == 0) {
            return &learned_rules[i];
        }
    }
    return NULL;
}

/* DeBERTa (DebertaConfig, DebertaV2Config: relative_attention false,
 * position_biased_input true by default): the absolute table is added only
 * with position_biased_input; relative_attention adds disentangled
 * relative positions (c2p/p2c over max_relative_positions or
 * position_buckets), a family pecert does not have: refused, as is a
 * config with neither (no positions at all). */
static int check_deberta(map_ctx *c)
{
    int relative = 0;
    int biased = 1;
    if (cfg_read_bool(c, c->root, "relative_attention", "relative_attention", &relative) < 0 ||
        cfg_read_bool(c, c->root, "position_biased_input", "position_biased_input", &biased) < 0) {
        return -1;
    }
    if (relative) { /* certify_deberta.c maps it before this rule is reached */
        return cfg_fail(c, "relative_attention", "true: the disentangled bias, not the absolute table");
    }
    if (!biased) {
        return cfg_fail(c, "position_biased_input", "false with relative_attention false: the model has no "
                        "positions at all, nothing to certify");
    }
    return 0;
}

/* MPNet (MPNetConfig, relative_attention_num_buckets 32): every layer adds
 * a T5-style bias from a table of relative_attention_num_buckets rows, but
 * MPNetEncoder.compute_position_bias buckets the distances with its own
 * defaults (32 buckets, max distance 128): the bias is not certified, said
 * with the table's size, and rows past 32 are never read. */
static int check_mpnet(map_ctx *c)
{
    int32_t buckets = 32;
    if (cfg_read_int32(c, c->root, "relative_attention_num_buckets", 1, 1 << 20, &buckets) < 0) {
        return -1;
    }
    cfg_warn(c, "relative_attention_num_buckets",
             "%d: MPNet's relative attention bias (a table of %d rows, read at T5's buckets computed with 32 buckets "
             "and max distance 128 whatever the config says%s) is not certified, only the learned table",
             (int)buckets, (int)buckets, buckets > 32 ? ": its rows past 32 are never read" : "");
    return 0;
}

/* ESM's absolute table: EsmConfig's pad_token_id defaults to None, and
 * create_position_ids_from_input_ids(input_ids, None) raises; released
 * checkpoints state it (ESM-1b: 1). */
static int check_esm(map_ctx *c)
{
    if (cfg_get(c->root, "pad_token_id") == NULL) {
        return cfg_fail(c, "pad_token_id", "required: EsmConfig's default is None, and EsmEmbeddings numbers the "
                        "positions from it (create_position_ids_from_input_ids compares each id with it)");
    }
    return 0;
}

/* CANINE's positions come from a buffer of max_position_embeddings ids
 * into a table of num_hash_buckets rows: a longer buffer reads past the
 * table (IndexError), which no checkpoint can run. */
/* Decision Transformer's GPT-2 backbone builds a table of n_positions
 * rows and reads its row 0 for every token (the model passes position_ids
 * of zeros): named with its size, beside the timestep table certified. */
static int check_decision_transformer(map_ctx *c)
{
    int64_t rows = 1024;
    if (cfg_read_int(c, c->root, "n_positions", "n_positions", 1, (int64_t)1 << 32, &rows) < 0) {
        return -1;
    }
    cfg_warn(c, "n_positions", "the GPT-2 backbone's own table (%lld rows) is read at row 0 for every token "
             "(position_ids of zeros), and a timestep's return, state and action tokens share its row: certify "
             "checks the timestep table", (long long)rows);
    return 0;
}

static int check_canine(map_ctx *c)
{
    int64_t positions = 16384;
    int64_t rows = 16384;
    if (cfg_read_int(c, c->root, "max_position_embeddings", "max_position_embeddings", 1, (int64_t)1 << 32,
                     &positions) < 0 ||
        cfg_read_int(c, c->root, "num_hash_buckets", "num_hash_buckets", 1, (int64_t)1 << 32, &rows) < 0) {
        return -1;
    }
    if (positions > rows) {
        return cfg_fail(c, "max_position_embeddings", "%lld: CanineEmbeddings reads its positions in "
                        "char_position_embeddings, num_hash_buckets = %lld rows (a longer sequence raises)",
                        (long long)positions, (long long)rows);
    }
    return 0;
}

/* Which row position p reads (learned_convention, learned_padding_idx,
 * learned_padding_row), pad_token_id read where the rule takes it. */
static int read_learned_positions(map_ctx *c, const learned_rule *rule)
{
    pecert_certify_model *m = c->m;
    if (rule->padding_idx == 0) {
        return 0;
    }
    m->learned_convention = PECERT_LEARNED_PADDING_OFFSET;
    m->learned_padding_idx = rule->padding_idx > 0 ? rule->padding_idx : 1;
    m->learned_padding_row = rule->padding_row;
    if (rule->padding_idx < 0 && cfg_read_int32(c, c->root, "pad_token_id", 0, 1 << 30, &m->learned_padding_idx) < 0) {
        return -1;
    }
    if (m->learned_padding_idx >= m->learned_rows - 1) {
        return cfg_fail(c, "pad_token_id", "%d: the positions start at pad_token_id + 1, past the table's %lld rows",
                        m->learned_padding_idx, (long long)m->learned_rows);
    }
    return 0;
}

/* The heads the table is split into for pecert's checks: the rule's, or
 * one hidden_size-wide head where the model has no attention (FNet). */
static int read_learned_heads(map_ctx *c, const learned_rule *rule)
{
    if (rule->heads_key != NULL) {
        return cfg_read_heads_or(c, rule->hidden_key, rule->heads_key, NULL, rule->hidden_default,
                                 rule->heads_default);
    }
    c->m->num_heads = c->m->num_kv_heads = 1;
    if (cfg_read_int32(c, c->root, rule->hidden_key, 1, 1 << 20, &c->m->head_dim) < 0) {
        return -1;
    }
    return c->m->head_dim < 1 ? cfg_fail(c, rule->hidden_key, "required") : 0;
}

/* The text models with a learned table (learned_rules): rows_key's rows,
 * plus OPT's and BART's 2; only position_embedding_type "absolute" is
 * learned. */
int cfg_map_learned_text(map_ctx *c)
{
    static const char *const known[] = {"max_position_embeddings", "position_embedding_type", "n_positions",
                                        "static_position_embeddings", NULL};
    static const char *const none[] = {NULL};
    pecert_certify_model *m = c->m;
    const learned_rule *rule = find_learned_rule(m->model_type);
    if (rule == NULL) {
        return cfg_fail(c, "model_type", "'%s' has no learned-table rule in certify_learned.c", m->model_type);
    }
    const char *const *also = rule->also_known != NULL ? rule->also_known : none;
    const cJSON *pet = cfg_get(c->root, "position_embedding_type");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(c->root, rule->rows_key);
    int32_t width = rule->width_default;
    m->max_position_embeddings = rows_default_of(m->model_type);
    if (cJSON_IsNull(rows)) {
        return cfg_fail(c, rule->rows_key, "null: the class passes None to nn.Embedding as the table's rows "
                        "(it raises)");
    }
    if (cfg_reject_unknown_positional_of(c, c->root, known, also, "") != 0 || cfg_check_static_positions(c, 0) != 0 ||
        (rule->check != NULL && rule->check(c) != 0) || read_learned_heads(c, rule) != 0 ||
        cfg_read_int(c, c->root, rule->rows_key, rule->rows_key, 1, (int64_t)1 << 32, &m->max_position_embeddings) < 0 ||
        (rule->width_key != NULL && cfg_read_int32(c, c->root, rule->width_key, 1, 1 << 20, &width) < 0)) {
        return -1;
    }
    if (pet != NULL && (!cJSON_IsString(pet) || strcmp(pet->valuestring, "absolute") != 0)) {
        return cfg_fail(c, "position_embedding_type", "only \"absolute\" (a learned table) is certifiable");
    }
    if (m->max_position_embeddings < 1) {
        return cfg_fail(c, rule->rows_key, "required");
    }
    m->kind = PECERT_PE_LEARNED;
    m->learned_rows = m->max_position_embeddings + rule->offset_rows;
    m->learned_dim = rule->width_key != NULL && width > 0 ? width : m->head_dim * m->num_heads;
    for (const char *const *k = rule->legacy; k != NULL && *k != NULL; k++) {
        if (cfg_get(c->root, *k) != NULL) {
            cfg_warn(c, *k, "not read by transformers v4.57.6 (a key of older releases): ignored");
        }
    }
    if (rule->warning != NULL) { /* "key: why", the key the warning names first */
        const char *colon = strchr(rule->warning, ':');
        char key[64];
        snprintf(key, sizeof(key), "%.*s", (int)(colon - rule->warning), rule->warning);
        cfg_warn(c, key, "%s", colon + 2);
    }
    if (read_learned_positions(c, rule) != 0) {
        return -1;
    }
    return rule->decoder_rows_key != NULL ? cfg_read_decoder_table(c, rule->decoder_rows_key, m->learned_dim) : 0;
}
