/*
 * check_certify_sinusoidal.c - checkpoints whose positions are a fixed
 * sinusoidal table (certify_sinusoidal.c): each model type's variant,
 * width, trained length and padding rule, the switches between a learned
 * and a sinusoidal table, the refusals, and the verdict: ref and fast
 * certified, each porting bug's mutant not certified and named.
 *
 * Every expected value is transformers v4.57.6's, read in the model's
 * modeling_*.py (certify_sinusoidal.c's header); the inventory (make
 * inventory) holds every default config to vectors the model's own class
 * recorded (vectors/mappings).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "certify_config.h"
#include "certify_passes.h"
#include "runner.h"
#include "suites.h"

static pecert_certify_model model;
static char err[1024];
#define parse_ok(json)                test_certify_parse_ok(&model, json, err, sizeof(err))
#define parse_fails_naming(json, key) test_certify_parse_fails_naming(&model, json, key, err, sizeof(err))

#define SEQ2SEQ(mt, extra)                                                                                             \
    "{\"model_type\": \"" mt "\", \"d_model\": 512, \"encoder_attention_heads\": 8,"                                   \
    " \"max_position_embeddings\": 512" extra "}"

/* whisper-tiny's shape. */
#define WHISPER                                                                                         \
    "{\"model_type\": \"whisper\", \"d_model\": 384, \"encoder_attention_heads\": 6,"                 \
    " \"max_source_positions\": 1500, \"max_target_positions\": 448}"

START_TEST(each_model_type_reads_its_own_table)
{
    /* Marian: sin | cos halves at 10000^(-2i/d), row p. */
    parse_ok(SEQ2SEQ("marian", ", \"pad_token_id\": 58100"));
    ck_assert_int_eq(model.kind, PECERT_PE_SINUSOIDAL);
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_CONCAT);
    ck_assert_int_eq(model.sinusoidal_dim, 512);
    ck_assert_int_eq(model.sinusoidal_positions, 512);
    ck_assert_int_eq(model.sinusoidal_padding_idx, -1); /* pad_token_id is no row here */
    /* M2M-100: fairseq's rows from pad_token_id, padding the zero row. */
    parse_ok(SEQ2SEQ("m2m_100", ", \"pad_token_id\": 0"));
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_FAIRSEQ);
    ck_assert_int_eq(model.sinusoidal_padding_idx, 0);
    ck_assert_int_eq(model.sinusoidal_padding_row, 1);
    /* XGLM: row 2 + p from arange, padding numbered like any token. */
    parse_ok("{\"model_type\": \"xglm\", \"d_model\": 1024, \"attention_heads\": 16,"
             " \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.sinusoidal_padding_idx, 1);
    ck_assert_int_eq(model.sinusoidal_padding_row, 0);
    /* Speech2Text: both tables' trained lengths, the longer certified. */
    parse_ok("{\"model_type\": \"speech_to_text\", \"d_model\": 256, \"encoder_attention_heads\": 4,"
             " \"max_source_positions\": 6000, \"max_target_positions\": 1024}");
    ck_assert_int_eq(model.sinusoidal_positions, 6000);
    /* CTRL's keys; Pegasus-X's tensor2tensor frequencies. */
    parse_ok("{\"model_type\": \"ctrl\", \"n_embd\": 1280, \"n_head\": 16, \"n_positions\": 256}");
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_CONCAT);
    ck_assert_int_eq(model.sinusoidal_dim, 1280);
    parse_ok(SEQ2SEQ("pegasus_x", ""));
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_T2T);
    /* Whisper: the encoder's tensor2tensor sinusoids, all 1500 rows, and
     * the decoder's learned table (the @decoder pass). */
    parse_ok(WHISPER);
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_T2T);
    ck_assert_int_eq(model.sinusoidal_positions, 1500);
    ck_assert_int_eq(model.decoder_learned_rows, 448);
    ck_assert_int_eq(model.decoder_learned_dim, 384);
    /* VideoMAE: the interleaved sinusoid, a row per patch of the video
     * (videomae-base with 32 frames: 16 tubelets of 14 x 14 = 3136); the
     * pretraining decoder's table warned; no patch fits: refused. */
    parse_ok("{\"model_type\": \"videomae\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"num_frames\": 32, \"tubelet_size\": 2, \"image_size\": 224, \"patch_size\": 16}");
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_INTERLEAVED);
    ck_assert_int_eq(model.sinusoidal_positions, 3136);
    ck_assert_int_eq(model.sinusoidal_dim, 768);
    ck_assert(test_certify_warned_about(&model, "decoder_hidden_size"));
    parse_fails_naming("{\"model_type\": \"videomae\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"image_size\": 8, \"patch_size\": 16}",
                       "patch_size");
    /* SeamlessM4T: M2M-100's rows from pad_token_id for its text model
     * (the classes' lengths 1024 and 4096), its speech encoder named. */
    parse_ok("{\"model_type\": \"seamless_m4t\", \"hidden_size\": 1024, \"encoder_attention_heads\": 16,"
             " \"pad_token_id\": 0, \"position_embeddings_type\": \"relative\"}");
    ck_assert_int_eq(model.max_position_embeddings, 1024);
    ck_assert(test_certify_warned_about(&model, "position_embeddings_type"));
    parse_ok("{\"model_type\": \"seamless_m4t_v2\", \"hidden_size\": 1024, \"encoder_attention_heads\": 16,"
             " \"pad_token_id\": 0}");
    ck_assert_int_eq(model.max_position_embeddings, 4096);
}
END_TEST

/* XLM, Flaubert and DistilBERT are learned unless the config asks for
 * the paper's interleaved table; TrOCR is BART's learned table unless
 * use_learned_position_embeddings is false. */
START_TEST(a_switch_picks_learned_or_sinusoidal)
{
    parse_ok("{\"model_type\": \"xlm\", \"emb_dim\": 2048, \"n_heads\": 16, \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    ck_assert_int_eq(model.learned_rows, 512);
    parse_ok("{\"model_type\": \"xlm\", \"emb_dim\": 2048, \"n_heads\": 16, \"max_position_embeddings\": 512,"
             " \"sinusoidal_embeddings\": true}");
    ck_assert_int_eq(model.kind, PECERT_PE_SINUSOIDAL);
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_INTERLEAVED);
    parse_ok("{\"model_type\": \"distilbert\", \"dim\": 768, \"n_heads\": 12, \"max_position_embeddings\": 512,"
             " \"sinusoidal_pos_embds\": true}");
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_INTERLEAVED);
    ck_assert_int_eq(model.sinusoidal_dim, 768);
    parse_ok("{\"model_type\": \"distilbert\", \"dim\": 768, \"n_heads\": 12, \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    parse_ok("{\"model_type\": \"trocr\", \"d_model\": 1024, \"decoder_attention_heads\": 16,"
             " \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    ck_assert_int_eq(model.learned_rows, 514);
    parse_ok("{\"model_type\": \"trocr\", \"d_model\": 1024, \"decoder_attention_heads\": 16,"
             " \"max_position_embeddings\": 512, \"use_learned_position_embeddings\": false}");
    ck_assert_int_eq(model.sinusoidal_variant, PECERT_SINUSOIDAL_FAIRSEQ);
    ck_assert_int_eq(model.sinusoidal_padding_idx, 1);
    /* The switch is DistilBERT's alone: BERT does not know the key. */
    parse_fails_naming("{\"model_type\": \"bert\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"max_position_embeddings\": 512, \"sinusoidal_pos_embds\": true}",
                       "sinusoidal_pos_embds");
}
END_TEST

START_TEST(refusals_name_the_key)
{
    /* XGLM's offset 2 and Speech2Text's 0/1 padding mask are fairseq's
     * rows only with pad_token_id 1. */
    parse_fails_naming("{\"model_type\": \"xglm\", \"d_model\": 1024, \"attention_heads\": 16,"
                       " \"max_position_embeddings\": 2048, \"pad_token_id\": 2}",
                       "pad_token_id");
    parse_fails_naming("{\"model_type\": \"speech_to_text\", \"d_model\": 256, \"encoder_attention_heads\": 4,"
                       " \"max_source_positions\": 6000, \"max_target_positions\": 1024, \"pad_token_id\": 0}",
                       "pad_token_id");
    /* Pegasus-X's halves cannot fill an odd width. */
    parse_fails_naming("{\"model_type\": \"pegasus_x\", \"d_model\": 513, \"encoder_attention_heads\": 1,"
                       " \"max_position_embeddings\": 512}",
                       "d_model");
    parse_fails_naming("{\"model_type\": \"marian\", \"d_model\": 512, \"encoder_attention_heads\": 8}",
                       "max_position_embeddings");
    /* tensor2tensor's d/2 - 1 is zero below 4 channels: the model divides by it. */
    parse_fails_naming("{\"model_type\": \"m2m_100\", \"d_model\": 2, \"encoder_attention_heads\": 1,"
                       " \"max_position_embeddings\": 512}",
                       "d_model");
    parse_fails_naming(SEQ2SEQ("marian", ", \"sinusoidal_position_base\": 20000"), "sinusoidal_position_base");
    /* transformers 3's static_position_embeddings, left in released Marian
     * and Pegasus files: read by nothing now; what it says must be the
     * table the class builds. */
    parse_ok(SEQ2SEQ("marian", ", \"static_position_embeddings\": true"));
    ck_assert_int_eq(model.kind, PECERT_PE_SINUSOIDAL);
    parse_fails_naming(SEQ2SEQ("pegasus", ", \"static_position_embeddings\": false"), "static_position_embeddings");
    parse_ok(SEQ2SEQ("mbart", ", \"static_position_embeddings\": false"));
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    parse_fails_naming(SEQ2SEQ("mbart", ", \"static_position_embeddings\": true"), "static_position_embeddings");
    /* Whisper's sinusoids() raises for an odd width; its decoder's table
     * has a size. */
    parse_fails_naming("{\"model_type\": \"whisper\", \"d_model\": 385, \"encoder_attention_heads\": 5,"
                       " \"max_source_positions\": 1500, \"max_target_positions\": 448}",
                       "d_model");
    parse_fails_naming("{\"model_type\": \"whisper\", \"d_model\": 384, \"encoder_attention_heads\": 6,"
                       " \"max_source_positions\": 1500}",
                       "max_target_positions");
}
END_TEST

/* ref and fast certify each layout; each porting bug loses the
 * certificate of the checkpoints it breaks, and only those, named. */
START_TEST(the_porting_bugs_are_caught_and_named)
{
    static const test_certify_case cases[] = {
        {SEQ2SEQ("marian", ""), "ref", ""},
        {SEQ2SEQ("marian", ""), "fast", ""},
        {SEQ2SEQ("m2m_100", ""), "ref", ""},
        {SEQ2SEQ("m2m_100", ""), "fast", ""},
        {SEQ2SEQ("pegasus_x", ""), "fast", ""},
        {SEQ2SEQ("marian", ""), "mutants/sinusoidal_interleaved_for_concat", "sinusoidal_layout"},
        {SEQ2SEQ("m2m_100", ""), "mutants/sinusoidal_interleaved_for_concat", ""},
        {SEQ2SEQ("m2m_100", ""), "mutants/sinusoidal_offset_dropped", "sinusoidal_offset"},
        {SEQ2SEQ("marian", ""), "mutants/sinusoidal_offset_dropped", ""},
        {SEQ2SEQ("m2m_100", ""), "mutants/sinusoidal_vaswani_frequencies", "sinusoidal_frequencies"},
        {SEQ2SEQ("pegasus_x", ""), "mutants/sinusoidal_vaswani_frequencies", "sinusoidal_frequencies"},
        {SEQ2SEQ("marian", ""), "mutants/sinusoidal_vaswani_frequencies", ""},
        {WHISPER, "ref", ""},
        {WHISPER, "fast", ""},
        {WHISPER, "mutants/sinusoidal_paper_table_for_t2t", "sinusoidal_paper_table"},
    };
    test_certify_expect_leads(&model, cases, sizeof(cases) / sizeof(cases[0]));
}
END_TEST

/* Whisper's decoder table is a pass of its own, named in the coverage. */
START_TEST(whispers_decoder_table_is_its_own_pass)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-whisper-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char config[64];
    snprintf(config, sizeof(config), "%s/config.json", dir);
    test_write_text(config, WHISPER);
    int status = test_pecert(out, sizeof(out), "certify --config %s --impl fast", config);
    ck_assert_msg(status == 0 && strstr(out, "PASS    certify.learned.reference@decoder") != NULL &&
                      strstr(out, "coverage: certified: the checkpoint's encoding, decoder table") != NULL,
                  "exit %d: %s", status, out);
    unlink(config);
    rmdir(dir);
}
END_TEST

Suite *make_certify_sinusoidal_suite(void)
{
    return test_suite_of("certify_sinusoidal",
                         TEST_TCASE("mapping", 0, each_model_type_reads_its_own_table,
                                    a_switch_picks_learned_or_sinusoidal, refusals_name_the_key),
                         TEST_TCASE("run", 300, the_porting_bugs_are_caught_and_named,
                                    whispers_decoder_table_is_its_own_pass),
                         NULL);
}
