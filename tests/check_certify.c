/*
 * check_certify.c - the config.json mapping and `pecert certify`.
 *
 * core:   each model family's keys land in the right fields (legacy `type`,
 *         rope_type over type, rotary_pct, rotary_dim, partial factor on
 *         head_dim, qk_rope_head_dim, mrope_section, MPT attn_config); every
 *         bundled profile maps; certify passes ref and fails planted bugs;
 *         ref through the mapping reproduces every profile's official
 *         vectors, and a broken mapping fails them; per-layer encodings
 *         (Gemma 3, SmolLM3, Cohere 2, Exaone 4, Llama 4) map to layer
 *         types certified one by one, Qwen3-VL to interleaved M-RoPE, and
 *         each model's own quirks are its own.
 * limits: keys that name no positional concept are ignored, null is absent.
 * errors: an unknown key or an out-of-range value is one error naming the
 *         key (and exit 2 from the command), never silently ignored.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <math.h>

#include "certify_checks.h"
#include "certify_config.h"
#include "plugin_load.h"
#include "certify_passes.h"
#include "runner.h"
#include "suites.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

static pecert_certify_model model;
static char err[1024];

#define parse_ok(json) test_certify_parse_ok(&model, json, err, sizeof(err))
/* The mapping must refuse json with one line naming key. */
#define parse_fails_naming(json, key) test_certify_parse_fails_naming(&model, json, key, err, sizeof(err))
#define warned_about(key) test_certify_warned_about(&model, key)

/* ---- core --------------------------------------------------------------- */

#define DEEPSEEK_YARN(type_key)                                                                        \
    "{\"model_type\": \"deepseek_v2\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"            \
    " \"qk_rope_head_dim\": 64, \"max_position_embeddings\": 163840, \"rope_theta\": 10000,"            \
    " \"vocab_size\": 102400, \"rope_scaling\": {\"" type_key "\": \"yarn\", \"factor\": 40,"           \
    " \"beta_fast\": 32, \"beta_slow\": 1, \"mscale\": 0.707, \"mscale_all_dim\": 0.707,"              \
    " \"original_max_position_embeddings\": 4096}}"

START_TEST(legacy_type_is_read_like_rope_type)
{
    parse_ok(DEEPSEEK_YARN("type"));
    pecert_rope_config legacy = model.rope;
    ck_assert_str_eq(model.rope_type_key, "type");
    parse_ok(DEEPSEEK_YARN("rope_type"));
    ck_assert_str_eq(model.rope_type_key, "rope_type");
    ck_assert_int_eq(memcmp(&legacy, &model.rope, sizeof(legacy)), 0);
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_YARN);
    ck_assert_int_eq(model.rope.rotary_dim, 64); /* qk_rope_head_dim, not 2048/16 */
    ck_assert_int_eq(model.rope.head_dim, 64);
    ck_assert_uint_ne(model.rope.present & PECERT_ROPE_HAS_MSCALE_ALL_DIM, 0);
    ck_assert_double_eq(model.rope.mscale_all_dim, 0.707);
    ck_assert_double_eq(model.rope.factor, 40);
    ck_assert_int_eq(model.rope.original_max_position_embeddings, 4096);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
}
END_TEST

/* The rotary classes read rope_scaling.get("rope_type", get("type")), but
 * LlamaConfig.__init__ first copies "type" over "rope_type"; MistralConfig
 * does not. Checked against transformers v4.57.6: LlamaConfig(rope_scaling=
 * {"rope_type": "linear", "type": "dynamic", "factor": 2.0}) resolves to
 * dynamic, MistralConfig with the same dict to linear. */
START_TEST(rope_type_precedence_is_the_config_class_s)
{
    parse_ok("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"type\": \"dynamic\","
             " \"rope_type\": \"linear\", \"factor\": 2.0}}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_DYNAMIC);
    ck_assert_str_eq(model.rope_type_key, "type");
    parse_ok("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"type\": \"dynamic\","
             " \"rope_type\": \"linear\", \"factor\": 2.0}}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_LINEAR);
    ck_assert_str_eq(model.rope_type_key, "rope_type");
}
END_TEST

START_TEST(llama3_fields)
{
    parse_ok("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"num_key_value_heads\": 8, \"max_position_embeddings\": 131072, \"rope_theta\": 500000.0,"
             " \"rope_scaling\": {\"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0,"
             " \"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"}}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_LLAMA3);
    ck_assert_double_eq(model.rope.rope_theta, 500000.0);
    ck_assert_int_eq(model.rope.rotary_dim, 128);
    ck_assert_int_eq(model.num_kv_heads, 8);
    ck_assert_double_eq(model.rope.low_freq_factor, 1.0);
    ck_assert_double_eq(model.rope.high_freq_factor, 4.0);
    ck_assert_int_eq(pecert_certify_l0(&model), 8192);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_SPLIT_HALF);
}
END_TEST

/* Llama 4 Scout's released text rope parameters (its config.json
 * text_config), in a llama config: llama3 with low_freq_factor ==
 * high_freq_factor == 1, which transformers v4.57.6 only warns about. */
#define SCOUT_ROPE_JSON                                                                                   \
    "{\"model_type\": \"llama\", \"hidden_size\": 5120, \"num_attention_heads\": 40,"                     \
    " \"num_key_value_heads\": 8, \"head_dim\": 128, \"max_position_embeddings\": 10485760,"                \
    " \"rope_theta\": 500000.0, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 16.0,"             \
    " \"low_freq_factor\": 1.0, \"high_freq_factor\": 1.0, \"original_max_position_embeddings\": 8192}}"

/* Accepted with a warning (the official rule), and computed as the
 * official code does. Derived on paper: with low == high the smoothing
 * band !(w < L/high) && !(w > L/low) is only w == L exactly, so
 * inv_freq_i = f_i / 16 where w_i = 2 pi / f_i > 8192, else f_i, with
 * f_i = 500000^(-2i/128). ref and fast must give exactly that (to double
 * rounding). */
START_TEST(llama3_low_equal_high_is_a_warning_and_computes)
{
    parse_ok(SCOUT_ROPE_JSON);
    ck_assert_int_eq(model.n_warnings, 1);
    ck_assert_ptr_nonnull(strstr(model.warnings[0], "rope_scaling.high_freq_factor"));
    const char *const plugins[] = {"ref", "fast"};
    for (int k = 0; k < 2; k++) {
        char path[1024];
        char perr[1024];
        pecert_loaded_plugin pl;
        snprintf(path, sizeof(path), "%s/impls/%s.so", test_build_dir(), plugins[k]);
        ck_assert_msg(pecert_plugin_open(&pl, path, perr, sizeof(perr)) == 0, "%s", perr);
        void *inst = NULL;
        ck_assert_int_eq(pl.desc->create(&inst), PECERT_OK);
        double inv[64];
        double scaling = 0.0;
        pecert_status st = pl.desc->rope_freqs(inst, inv, &scaling, &model.rope, 0);
        ck_assert_msg(st == PECERT_OK, "%s: %d %s", plugins[k], (int)st, pl.desc->last_error(inst));
        int divided = 0;
        for (int i = 0; i < 64; i++) {
            double f = pow(500000.0, -(2.0 * i) / 128.0);
            double want = 2.0 * M_PI / f > 8192.0 ? f / 16.0 : f;
            divided += 2.0 * M_PI / f > 8192.0;
            ck_assert_msg(fabs(inv[i] - want) <= 4e-16 * want, "%s inv_freq[%d] = %.17g, want %.17g", plugins[k], i,
                          inv[i], want);
        }
        ck_assert_int_gt(divided, 0); /* both sides of the boundary are exercised */
        ck_assert_int_lt(divided, 64);
        ck_assert_double_eq(scaling, 1.0);
        pl.desc->destroy(inst);
        pecert_plugin_close(&pl);
    }
}
END_TEST

/* certify --config with it: the warning printed, CERTIFIED for ref and fast. */
START_TEST(llama3_low_equal_high_certifies)
{
    char dir[] = "/tmp/pecert-scout-XXXXXX";
    char path[256];
    static char out[1 << 16];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/config.json", dir);
    test_write_text(path, SCOUT_ROPE_JSON);
    const char *const plugins[] = {"ref", "fast"};
    for (int k = 0; k < 2; k++) {
        int status = test_pecert(out, sizeof(out), "certify --config %s --impl %s --quiet", path, plugins[k]);
        ck_assert_msg(status == 0, "%s: exit %d: %s", plugins[k], status, out);
        ck_assert_msg(strstr(out, "warning: ") != NULL && strstr(out, "high_freq_factor") != NULL, "%s", out);
        ck_assert_msg(strstr(out, " CERTIFIED for") != NULL && strstr(out, "NOT CERTIFIED") == NULL, "%s", out);
    }
    unlink(path);
    rmdir(dir);
}
END_TEST

static const char *profiles_dir(void)
{
    return PECERT_SOURCE_DIR "/conformance/profiles";
}

/* --all-profiles: a line per profile, one report for all of them, exit 0
 * only when every applicable profile certifies. Three profiles (a RoPE, a
 * learned table, an ALiBi one) in a directory of their own: every bundled
 * profile certifying ref and fast is `make profiles`' gate. */
START_TEST(all_profiles_matrix)
{
    static char out[1 << 16];
    char json[] = "/tmp/pecert-all-XXXXXX";
    char dir[] = "/tmp/pecert-profiles-XXXXXX";
    char cmd[2048];
    test_make_temp_file(json);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "cd %s && cp llama-3.1-8b.json bert-base.json bloom.json %s/", profiles_dir(), dir);
    ck_assert_int_eq(system(cmd), 0);
    int status = test_pecert(out, sizeof(out), "certify --all-profiles --profiles %s --impl fast --json %s", dir, json);
    ck_assert_msg(status == 0, "exit %d: %s", status, out);
    ck_assert_msg(strstr(out, "  llama-3.1-8b           CERTIFIED\n") != NULL, "%s", out);
    ck_assert_msg(strstr(out, " 0 not certified, 0 not applicable") != NULL, "%s", out);
    FILE *f = fopen(json, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    fclose(f);
    ck_assert_ptr_nonnull(strstr(out, "pecert-report/1"));
    /* The matrix reads back: one run per profile, not shards of one run. */
    status = test_pecert(out, sizeof(out), "report %s -o /dev/null", json);
    ck_assert_msg(status == 0 && strstr(out, "report: PASS") != NULL, "exit %d: %s", status, out);
    unlink(json);
    status = test_pecert(out, sizeof(out),
                         "certify --all-profiles --profiles %s --impl %s/impls/testing/learned_unchecked.so", dir,
                         test_build_dir());
    ck_assert_msg(status == 1, "exit %d: %s", status, out);
    ck_assert_msg(strstr(out, "  bert-base              NOT CERTIFIED: learned lookup does not check") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "  bloom                  NOT APPLICABLE") != NULL, "%s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --all-profiles --profile bloom --impl fast"), 2);
    test_remove_dir(dir);
    /* certify's crash line is run's: the signal with its name, and the case. */
    status = test_pecert(out, sizeof(out), "certify --profile bert-base --impl %s/impls/testing/learned_unchecked.so",
                         test_build_dir());
    ck_assert_msg(status == 1 && strstr(out, "CRASH   learned.out_of_range         killed by signal 11 (") != NULL,
                  "exit %d: %s", status, out);
}
END_TEST

/* The factor applies to head_dim, never to hidden_size. */
START_TEST(partial_rotary_factor_on_head_dim)
{
    parse_ok("{\"model_type\": \"phi\", \"hidden_size\": 2560, \"num_attention_heads\": 32,"
             " \"partial_rotary_factor\": 0.4, \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.rope.head_dim, 80);
    ck_assert_int_eq(model.rope.rotary_dim, 32);
    parse_ok("{\"model_type\": \"gpt_neox\", \"hidden_size\": 6144, \"num_attention_heads\": 64,"
             " \"rotary_pct\": 0.25, \"rotary_emb_base\": 10000, \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.rope.rotary_dim, 24);
    ck_assert_int_eq(model.rope.head_dim, 96);
    /* GPTNeoXConfig's default rotary_pct is 0.25 and rotary_emb_base 10000. */
    parse_ok("{\"model_type\": \"gpt_neox\", \"hidden_size\": 512, \"num_attention_heads\": 8,"
             " \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.rope.rotary_dim, 16);
    ck_assert_double_eq(model.rope.rope_theta, 10000.0);
}
END_TEST

START_TEST(gptj_rotary_dim_and_pairing)
{
    parse_ok("{\"model_type\": \"gptj\", \"n_embd\": 4096, \"n_head\": 16, \"rotary_dim\": 64,"
             " \"n_positions\": 2048}");
    ck_assert_int_eq(model.rope.head_dim, 256);
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    ck_assert_int_eq(model.max_position_embeddings, 2048);
}
END_TEST

/* RoPE models with keys of their own (transformers v4.57.6): DBRX's base
 * and key/value heads in attn_config (dbrx-instruct's config.json);
 * Moonshine's heads under encoder_/decoder_ names, GLM's adjacent pairs
 * on 90% of the head (moonshine-tiny: hidden 288, 8 heads of 36, 32
 * rotated); Phi-4-multimodal's Phi-3 rules and its towers named;
 * PhiMoE's and OpenLlama's scalings refused where pecert cannot state
 * them; IDEFICS's fixed base and cache length (idefics-80b: 64 heads of
 * 128), a base key it never reads refused; Gemma 3n's layers (read in
 * each model's rotary class). */
START_TEST(rope_models_read_their_own_keys)
{
    parse_ok("{\"model_type\": \"dbrx\", \"d_model\": 6144, \"n_heads\": 48, \"max_seq_len\": 32768,"
             " \"attn_config\": {\"kv_n_heads\": 8, \"rope_theta\": 500000, \"clip_qkv\": 8}}");
    ck_assert_int_eq(model.rope.head_dim, 128);
    ck_assert_int_eq(model.num_kv_heads, 8);
    ck_assert_double_eq(model.rope.rope_theta, 500000.0);
    ck_assert_int_eq(model.max_position_embeddings, 32768);
    parse_fails_naming("{\"model_type\": \"dbrx\", \"attn_config\": [1, 2]}", "attn_config");
    parse_fails_naming("{\"model_type\": \"dbrx\", \"d_model\": 64, \"n_heads\": 4,"
                       " \"attn_config\": {\"kv_n_heads\": 3}}", "attn_config.kv_n_heads");
    parse_fails_naming("{\"model_type\": \"dbrx\", \"attn_config\": {\"rope_scaling\": {\"factor\": 2}}}",
                       "attn_config.rope_scaling");
    parse_ok("{\"model_type\": \"moonshine\", \"hidden_size\": 288, \"encoder_num_attention_heads\": 8,"
             " \"decoder_num_attention_heads\": 8, \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.rope.head_dim, 36);
    ck_assert_int_eq(model.rope.rotary_dim, 32);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    parse_fails_naming("{\"model_type\": \"moonshine\", \"hidden_size\": 288, \"encoder_num_attention_heads\": 8,"
                       " \"decoder_num_attention_heads\": 6}",
                       "decoder_num_attention_heads");
    parse_ok("{\"model_type\": \"phi4_multimodal\", \"hidden_size\": 3072, \"num_attention_heads\": 24,"
             " \"num_key_value_heads\": 8, \"partial_rotary_factor\": 0.75, \"max_position_embeddings\": 131072}");
    ck_assert_int_eq(model.rope.rotary_dim, 96);
    ck_assert_int_eq(model.rope.original_max_position_embeddings, 4096); /* Phi3Config's default */
    ck_assert_ptr_nonnull(strstr(model.vision_note, "audio encoder's relative attention bias"));
    parse_fails_naming("{\"model_type\": \"phimoe\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 131072, \"rope_scaling\": {\"type\": \"longrope\","
                       " \"short_mscale\": 1.0, \"long_mscale\": 1.24}}",
                       "rope_scaling");
    parse_fails_naming("{\"model_type\": \"phimoe\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"head_dim\": 64}",
                       "head_dim");
#define OPEN_LLAMA "{\"model_type\": \"open-llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32," \
                   " \"max_position_embeddings\": 2048, "
    parse_ok(OPEN_LLAMA "\"rope_scaling\": {\"type\": \"linear\", \"factor\": 2.0}}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_LINEAR);
    parse_fails_naming(OPEN_LLAMA "\"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2.0}}", "rope_scaling.type");
    ck_assert_ptr_nonnull(strstr(err, "OpenLlamaConfig's dynamic NTK class"));
    parse_fails_naming(OPEN_LLAMA "\"head_dim\": 64}", "head_dim");
#undef OPEN_LLAMA
    parse_ok("{\"model_type\": \"idefics\", \"hidden_size\": 8192, \"num_attention_heads\": 64}");
    ck_assert_int_eq(model.rope.rotary_dim, 128);
    ck_assert_double_eq(model.rope.rope_theta, 10000.0);
    ck_assert_int_eq(model.max_position_embeddings, 2048);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "CLIP's learned table"));
    parse_fails_naming("{\"model_type\": \"idefics\", \"hidden_size\": 8192, \"num_attention_heads\": 64,"
                       " \"rope_theta\": 500000}",
                       "rope_theta");
    /* Gemma 3n: Gemma 3's two rotary modules, a full layer every fifth
     * without layer_types; the audio encoder named. */
    parse_ok("{\"model_type\": \"gemma3n\", \"text_config\": {\"model_type\": \"gemma3n_text\", \"hidden_size\": 2048,"
             " \"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"num_hidden_layers\": 10,"
             " \"max_position_embeddings\": 32768}}");
    ck_assert_int_eq(model.n_layer_types, 2);
    ck_assert_int_eq(model.layer_types[model.layer_type_of[4]].rope.rope_theta == 1e6, 1);
    ck_assert_int_eq(model.layer_types[model.layer_type_of[3]].rope.rope_theta == 10000.0, 1);
    ck_assert_int_eq(model.audio_tower, 1);
    /* ModernBERT's decoder: its base is global_rope_theta (rope_theta, its
     * alias, wins when given); local_rope_theta is read by nothing. */
    parse_ok("{\"model_type\": \"modernbert-decoder\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 8192, \"global_rope_theta\": 80000, \"local_rope_theta\": 10000}");
    ck_assert_double_eq(model.rope.rope_theta, 80000.0);
    ck_assert(warned_about("local_rope_theta"));
    parse_ok("{\"model_type\": \"modernbert-decoder\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 8192, \"global_rope_theta\": 80000, \"rope_theta\": 40000,"
             " \"local_rope_theta\": 40000}");
    ck_assert_double_eq(model.rope.rope_theta, 40000.0);
    ck_assert(warned_about("layer_types"));
    /* RecurrentGemma: half the head (torch.chunk, its only runnable
     * factor), the attention window the length, the recurrent blocks
     * warned; a max_position_embeddings it never reads refused. */
    parse_ok("{\"model_type\": \"recurrent_gemma\", \"hidden_size\": 2560, \"num_attention_heads\": 10,"
             " \"num_key_value_heads\": 1, \"head_dim\": 256, \"partial_rotary_factor\": 0.5,"
             " \"attention_window_size\": 2048, \"num_hidden_layers\": 26}");
    ck_assert_int_eq(model.rope.rotary_dim, 128);
    ck_assert_int_eq(model.max_position_embeddings, 2048);
    ck_assert(warned_about("block_types"));
    ck_assert_ptr_nonnull(strstr(model.warnings[0], "18 of 26 layers are recurrent"));
    parse_fails_naming("{\"model_type\": \"recurrent_gemma\", \"hidden_size\": 2560, \"num_attention_heads\": 10,"
                       " \"partial_rotary_factor\": 0.25}",
                       "partial_rotary_factor");
    parse_fails_naming("{\"model_type\": \"recurrent_gemma\", \"hidden_size\": 2560, \"num_attention_heads\": 10,"
                       " \"max_position_embeddings\": 8192}",
                       "max_position_embeddings");
}
END_TEST

static int certify_model(const char *plugin, const char *vectors);

/* The Swin family: the window every attention layer indexes its bias
 * table by (Swin-B 384's 12; Swin2SR's default 8), certified against ref;
 * an absolute table and V2's continuous bias warned, a window given as a
 * list (the classes square an int) or past pecert's 48 refused. */
START_TEST(swin_family_reads_the_window)
{
    parse_ok("{\"model_type\": \"swin\", \"window_size\": 12, \"embed_dim\": 128, \"num_heads\": [4, 8, 16, 32]}");
    ck_assert_int_eq(model.kind, PECERT_PE_SWIN);
    ck_assert_int_eq(model.swin_window, 12);
    ck_assert_int_eq(model.n_warnings, 0);
    parse_ok("{\"model_type\": \"swin2sr\"}");
    ck_assert_int_eq(model.swin_window, 8);
    ck_assert(warned_about("window_size"));
    parse_ok("{\"model_type\": \"donut-swin\", \"window_size\": 10, \"use_absolute_embeddings\": true}");
    ck_assert(warned_about("use_absolute_embeddings"));
    parse_fails_naming("{\"model_type\": \"swinv2\", \"window_size\": [8, 16]}", "window_size");
    parse_fails_naming("{\"model_type\": \"maskformer-swin\", \"window_size\": 64}", "window_size");
    parse_ok("{\"model_type\": \"swin\", \"window_size\": 12}");
    ck_assert_int_eq(certify_model("ref", NULL), PECERT_EXIT_PASS);
    /* BEiT and Data2Vec-vision: the whole patch grid is the window (224 /
     * 16 = 14; 384 / 16 = 24), with either relative switch; the class
     * token's entries warned; neither switch (the classes' defaults) has
     * no relative positions. */
    parse_ok("{\"model_type\": \"beit\", \"use_relative_position_bias\": true}");
    ck_assert_int_eq(model.kind, PECERT_PE_SWIN);
    ck_assert_int_eq(model.swin_window, 14);
    ck_assert(warned_about("use_relative_position_bias"));
    parse_ok("{\"model_type\": \"data2vec-vision\", \"use_shared_relative_position_bias\": true, \"image_size\": 384,"
             " \"use_absolute_position_embeddings\": true}");
    ck_assert_int_eq(model.swin_window, 24);
    ck_assert(warned_about("use_shared_relative_position_bias"));
    ck_assert(warned_about("use_absolute_position_embeddings"));
    parse_fails_naming("{\"model_type\": \"beit\"}", "use_relative_position_bias");
    parse_fails_naming("{\"model_type\": \"beit\", \"use_relative_position_bias\": true, \"image_size\": [224, 160]}",
                       "image_size");
}
END_TEST

START_TEST(qwen2_vl_mrope_section)
{
    parse_ok("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
             " \"max_position_embeddings\": 32768, \"rope_theta\": 1000000.0,"
             " \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, 24]}}");
    ck_assert_int_eq(model.kind, PECERT_PE_MROPE);
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_DEFAULT);
    ck_assert_int_eq(model.n_sections, 3);
    ck_assert_int_eq(model.mrope_section[1], 24);
    /* Qwen2.5-Omni: the thinker's language model from
     * thinker_config.text_config, whose class defaults rope_scaling to
     * M-RoPE [16, 24, 24] at theta 1e6; the talker, token2wav and audio
     * named; the vision encoder noted as not certified here. */
    parse_ok("{\"model_type\": \"qwen2_5_omni\", \"thinker_config\": {\"model_type\": \"qwen2_5_omni_thinker\","
             " \"text_config\": {\"hidden_size\": 3584, \"num_attention_heads\": 28, \"num_key_value_heads\": 4}}}");
    ck_assert_str_eq(model.model_type, "qwen2_5_omni");
    ck_assert_int_eq(model.kind, PECERT_PE_MROPE);
    ck_assert_int_eq(model.n_sections, 3);
    ck_assert_int_eq(model.mrope_section[0], 16);
    ck_assert_double_eq(model.rope.rope_theta, 1000000.0);
    ck_assert(warned_about("talker_config"));
    ck_assert_ptr_nonnull(strstr(model.vision_note, "Qwen2_5OmniVisionEncoder"));
    parse_ok("{\"model_type\": \"qwen2_5_omni\"}");
    ck_assert_int_eq(model.head_dim, 128);
    parse_fails_naming("{\"model_type\": \"qwen2_5_omni\", \"thinker_config\": {\"model_type\": \"qwen2_vl\"}}",
                       "thinker_config.model_type");
    parse_fails_naming("{\"model_type\": \"qwen2_5_omni\", \"thinker_config\": {\"text_config\": "
                       "{\"rope_theta\": -1}}}",
                       "thinker_config.text_config.rope_theta");
    /* Qwen3-Omni: the thinker's interleaved M-RoPE (Qwen3-VL's), a legacy
     * "type" copied and "interleaved" read by nothing (warned); its text
     * config's rope_scaling is required (the rotary class reads .get on it). */
    parse_ok("{\"model_type\": \"qwen3_omni_moe\", \"thinker_config\": {\"text_config\": {\"hidden_size\": 2048,"
             " \"num_attention_heads\": 32, \"num_key_value_heads\": 4, \"head_dim\": 128,"
             " \"max_position_embeddings\": 65536, \"rope_scaling\": {\"interleaved\": true,"
             " \"mrope_interleaved\": true, \"mrope_section\": [24, 20, 20], \"rope_type\": \"default\","
             " \"type\": \"default\"}}}}");
    ck_assert_str_eq(model.model_type, "qwen3_omni_moe");
    ck_assert_int_eq(model.mrope_interleaved, 1);
    ck_assert_int_eq(model.mrope_section[0], 24);
    ck_assert(warned_about("thinker_config.text_config.rope_scaling.interleaved"));
    parse_fails_naming("{\"model_type\": \"qwen3_omni_moe\", \"thinker_config\": {\"text_config\": {\"hidden_size\": 2048,"
                       " \"num_attention_heads\": 16, \"max_position_embeddings\": 65536}}}",
                       "thinker_config.text_config.rope_scaling");
}
END_TEST

/* What the inventory (tests/inventory/) found pecert refusing or
 * misreading, from configs as transformers v4.57.6 saves them:
 * - Qwen2VLConfig nests the text model under text_config (to_dict());
 *   the fields are read there, the top level's ignored as the class does.
 * - GPTNeoXConfig writes partial_rotary_factor and rope_theta beside
 *   rotary_pct and rotary_emb_base, and on load sets them from those two
 *   whatever they say: read from rotary_pct (0.25 of 96 = 24 channels).
 * - DeepseekV3Config keeps a head_dim given (PretrainedConfig sets leftover
 *   kwargs after its own head_dim = qk_rope_head_dim): head_dim 128 beside
 *   qk_rope_head_dim 64 gives cos/sin that do not fit the rotated slice, a
 *   config transformers cannot run, refused naming head_dim. */
START_TEST(configs_as_transformers_saves_them)
{
    parse_ok("{\"model_type\": \"qwen2_vl\", \"text_config\": {\"model_type\": \"qwen2_vl_text\","
             " \"hidden_size\": 3584, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
             " \"max_position_embeddings\": 32768, \"rope_theta\": 1000000.0,"
             " \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, 24]}}}");
    ck_assert_int_eq(model.kind, PECERT_PE_MROPE);
    ck_assert_int_eq(model.rope.head_dim, 128);
    ck_assert_int_eq(model.n_sections, 3);
    ck_assert_double_eq(model.rope.rope_theta, 1000000.0);
    parse_fails_naming("{\"model_type\": \"qwen2_vl\", \"text_config\": {\"model_type\": \"llama\"}}",
                       "text_config.model_type");
    parse_ok("{\"model_type\": \"gpt_neox\", \"hidden_size\": 6144, \"num_attention_heads\": 64,"
             " \"rotary_pct\": 0.25, \"partial_rotary_factor\": 0.25, \"rotary_emb_base\": 10000,"
             " \"rope_theta\": 10000, \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.rope.rotary_dim, 24);
    ck_assert_int_eq(model.rope.head_dim, 96);
    parse_ok("{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168, \"num_attention_heads\": 128,"
             " \"qk_rope_head_dim\": 64, \"head_dim\": 64, \"max_position_embeddings\": 4096}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    parse_fails_naming("{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168, \"num_attention_heads\": 128,"
                       " \"qk_rope_head_dim\": 64, \"head_dim\": 128, \"max_position_embeddings\": 4096}",
                       "head_dim");
}
END_TEST

/* What the config classes assume for a key config.json leaves out, and
 * what they refuse (transformers v4.57.6, each class's __init__):
 * GemmaConfig head_dim 256 (not 3072/16 = 192), PhiConfig
 * partial_rotary_factor 0.5 (64 * 0.5 = 32 channels), MixtralConfig
 * rope_theta 1e6, GptOssConfig a yarn rope_scaling (factor 32). Llama's
 * apply rotates the whole head, so a partial factor is a config
 * transformers cannot run; Olmo2Config takes only linear/dynamic scaling;
 * Qwen2-VL's attention needs mrope_section. */
START_TEST(absent_keys_take_the_config_class_defaults)
{
    parse_ok("{\"model_type\": \"gemma\", \"hidden_size\": 3072, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 8192}");
    ck_assert_int_eq(model.rope.head_dim, 256);
    parse_ok("{\"model_type\": \"phi\", \"hidden_size\": 2048, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.rope.rotary_dim, 32);
    parse_ok("{\"model_type\": \"mixtral\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 32768}");
    ck_assert_double_eq(model.rope.rope_theta, 1e6);
    parse_ok("{\"model_type\": \"gpt_oss\", \"hidden_size\": 2880, \"num_attention_heads\": 64,"
             " \"max_position_embeddings\": 131072}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_YARN);
    ck_assert_double_eq(model.rope.factor, 32.0);
    ck_assert_int_eq(model.rope.head_dim, 64);
    parse_fails_naming("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 4096, \"partial_rotary_factor\": 0.5}",
                       "partial_rotary_factor");
    parse_fails_naming("{\"model_type\": \"olmo2\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"rope_type\": \"yarn\","
                       " \"factor\": 4.0}}",
                       "rope_scaling");
    parse_ok("{\"model_type\": \"olmo2\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"type\": \"linear\", \"factor\": 2.0}}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_LINEAR);
    parse_fails_naming("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
                       " \"max_position_embeddings\": 32768}",
                       "mrope_section");
}
END_TEST

START_TEST(alibi_and_learned_families)
{
    parse_ok("{\"model_type\": \"mpt\", \"d_model\": 4096, \"n_heads\": 32, \"max_seq_len\": 2048,"
             " \"attn_config\": {\"alibi\": true, \"alibi_bias_max\": 16, \"attn_impl\": \"torch\"}}");
    ck_assert_int_eq(model.kind, PECERT_PE_ALIBI);
    ck_assert_double_eq(model.alibi_max_bias, 16.0);
    ck_assert_int_eq(model.num_heads, 32);
    parse_ok("{\"model_type\": \"vit\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"image_size\": 224, \"patch_size\": 16}");
    ck_assert_int_eq(model.learned_rows, 197);
    parse_ok("{\"model_type\": \"t5\", \"num_heads\": 12, \"d_kv\": 64}");
    ck_assert_int_eq(model.t5_num_buckets, 32); /* T5Config defaults */
    ck_assert_int_eq(model.t5_max_distance, 128);
}
END_TEST

/* Every bundled profile maps, with a source note and a matching name. */
START_TEST(every_profile_maps)
{
    DIR *d = opendir(profiles_dir());
    struct dirent *e;
    int n = 0;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        char name[256];
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0) {
            continue;
        }
        snprintf(name, sizeof(name), "%.*s", (int)(len - 5), e->d_name);
        ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), name, err, sizeof(err)) == 0, "%s", err);
        ck_assert_str_eq(model.name, name);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 15);
}
END_TEST

/* Runs certify on the already mapped model into *res (free it); vectors
 * may be NULL. Returns the exit status. */
static int certify_results(pecert_run_results *res, const char *plugin, const char *vectors)
{
    return test_certify_run(res, &model, plugin, vectors, err, sizeof(err));
}

static int certify_model(const char *plugin, const char *vectors)
{
    pecert_run_results res;
    int status = certify_results(&res, plugin, vectors);
    pecert_run_results_free(&res);
    return status;
}

/* The lead finding of certify on the mapped model, and of pecert run on
 * the bundled vectors, for one plugin. */
static void leads(const char *plugin, char *certify_lead, char *run_lead, size_t len)
{
    char plugin_path[1024];
    char oracle_path[1024];
    pecert_run_results res;
    ck_assert_int_eq(certify_results(&res, plugin, NULL), PECERT_EXIT_FAIL);
    snprintf(certify_lead, len, "%s", res.n_findings > 0 ? res.findings[0].id : "(none)");
    pecert_run_results_free(&res);
    test_impl_path(plugin_path, sizeof(plugin_path), plugin);
    test_impl_path(oracle_path, sizeof(oracle_path), "ref");
    pecert_run_options ropt = {plugin_path, oracle_path, test_family_vectors(), NULL, test_check_timeout(60.0), NULL,
                               NULL};
    ck_assert_int_eq(pecert_run(&res, &ropt, err, sizeof(err)), PECERT_EXIT_FAIL);
    snprintf(run_lead, len, "%s", res.n_findings > 0 ? res.findings[0].id : "(none)");
    pecert_run_results_free(&res);
}

/* A Qwen2.5 checkpoint with YaRN (factor 4 over 32768, its model card's
 * long-context config) and Llama 3.1 8B's config.json as released. */
#define QWEN25_YARN                                                                                    \
    "{\"model_type\": \"qwen2\", \"hidden_size\": 5120, \"num_attention_heads\": 40,"               \
    " \"num_key_value_heads\": 8, \"max_position_embeddings\": 131072, \"rope_theta\": 1000000.0,"   \
    " \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 32768}}"
#define LLAMA31                                                                                        \
    "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"               \
    " \"num_key_value_heads\": 8, \"max_position_embeddings\": 131072, \"rope_theta\": 500000.0,"    \
    " \"rope_scaling\": {\"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0,"      \
    " \"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"}}"

/* Falcon-RW's ALiBi (falcon-rw-1b's profile config). */
#define FALCON_RW                                                                                      \
    "{\"model_type\": \"falcon\", \"hidden_size\": 2048, \"num_attention_heads\": 32,"               \
    " \"multi_query\": false, \"alibi\": true}"

/* The docs/certify.md walkthrough's planted bugs, and Falcon's ALiBi order:
 * `certify --config` (the checkpoint's parameters only, no profile
 * vectors) names each exactly as `pecert run` does on the golden vectors,
 * as its first and only lead. */
START_TEST(certify_names_planted_bugs_as_run_does)
{
    static const struct {
        const char *config;
        const char *mutant;
        const char *finding; /* impls/mutants/catalogue.json */
    } planted[] = {
        {QWEN25_YARN, "mutants/yarn_mscale_missing", "scaling_missing"},
        {QWEN25_YARN, "mutants/pairing_swapped", "pairing"},
        {QWEN25_YARN, "mutants/decode_off_by_one", "position_shift"},
        {LLAMA31, "mutants/llama3_ignored", "scaling_ignored"},
        {FALCON_RW, "mutants/alibi_bias_unscaled", "alibi_bias_scale"},
    };
    for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
        char certify_lead[32];
        char run_lead[32];
        parse_ok(planted[i].config);
        leads(planted[i].mutant, certify_lead, run_lead, sizeof(certify_lead));
        ck_assert_msg(strcmp(certify_lead, planted[i].finding) == 0 && strcmp(run_lead, planted[i].finding) == 0,
                      "%s: certify names '%s', run '%s', the catalogue '%s'", planted[i].mutant, certify_lead,
                      run_lead, planted[i].finding);
    }
}
END_TEST

/* One bug, one lead: the pairing bug on llama-2-7b's profile (its golden
 * vectors and the property checks all fail) is named once; no second lead
 * ("precision lost at positions >= 2047") for failures it explains. */
START_TEST(one_bug_one_lead)
{
    char vectors[1024];
    pecert_run_results res;
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), "llama-2-7b", err, sizeof(err)) == 0, "%s", err);
    ck_assert_ptr_nonnull(pecert_certify_profile_vectors(vectors, sizeof(vectors), PECERT_SOURCE_DIR "/vectors",
                                                         "llama-2-7b"));
    ck_assert_int_eq(certify_results(&res, "mutants/pairing_swapped", vectors), PECERT_EXIT_FAIL);
    ck_assert_msg(res.n_findings == 1 && strcmp(res.findings[0].id, "pairing") == 0, "%d findings, first '%s', last '%s'",
                  res.n_findings, res.n_findings > 0 ? res.findings[0].id : "",
                  res.n_findings > 0 ? res.findings[res.n_findings - 1].bug : "");
    pecert_run_results_free(&res);
}
END_TEST

/* A plugin that declines the checkpoint's encoding is NOT CERTIFIED with
 * the reason in its own words (impls/example: default RoPE only). */
START_TEST(declined_encoding_is_the_reason)
{
    static char out[1 << 16];
    char path[] = "/tmp/pecert-declined-XXXXXX";
    test_make_temp_file(path);
    test_write_text(path, LLAMA31);
    int status = test_pecert(out, sizeof(out), "certify --config %s --impl %s/impls/example.so --quiet", path,
                             test_build_dir());
    unlink(path);
    ck_assert_msg(status == PECERT_EXIT_FAIL && strstr(out, "diagnosis: the plugin") != NULL &&
                      strstr(out, "rope_type llama3") != NULL && strstr(out, "config.rope_type:") != NULL,
                  "exit %d: %s", status, out);
}
END_TEST

static int certify_with(const char *profile, const char *plugin)
{
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), profile, err, sizeof(err)) == 0, "%s", err);
    return certify_model(plugin, NULL);
}

static const char *vectors_root(void)
{
    const char *dir = getenv("PECERT_VECTORS");
    return dir != NULL && dir[0] != '\0' ? dir : PECERT_SOURCE_DIR "/vectors";
}

/* One runner: the checks certify plans on a profile's recorded vectors
 * give, through `pecert run` over a folder holding only that profile's
 * file, the same verdict, cases, failures and worst ratio (bugs included),
 * and both runs carry the plugin's describe() line. */
START_TEST(run_and_certify_agree)
{
    static const struct {
        const char *profile, *plugin;
        int fails;
    } cases[] = {
        {"t5-base", "ref", 0},
        {"t5-base", "mutants/t5_no_clamp", 1},
        {"bloom", "fast", 0},
        {"bloom", "mutants-f32/alibi_geometric", 1},
        {"bert-base", "ref", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char dir[] = "/tmp/pecert-one-runner-XXXXXX";
        char file[1024], link[1024], ids[1024] = "";
        ck_assert_ptr_nonnull(mkdtemp(dir));
        for (int bin = 0; bin < 2; bin++) {
            const char *ext = bin ? ".bin.z" : ".json";
            snprintf(file, sizeof(file), "%s/profiles/%s%s", vectors_root(), cases[i].profile, ext);
            snprintf(link, sizeof(link), "%s/%s%s", dir, cases[i].profile, ext);
            ck_assert_int_eq(symlink(file, link), 0);
        }
        snprintf(file, sizeof(file), "%s/profiles/%s.json", vectors_root(), cases[i].profile);
        ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), cases[i].profile, err, sizeof(err)) == 0,
                      "%s", err);
        pecert_run_results cert, run;
        ck_assert_int_eq(certify_results(&cert, cases[i].plugin, file), cases[i].fails ? PECERT_EXIT_FAIL
                                                                                      : PECERT_EXIT_PASS);
        for (size_t k = 0; k < cert.n_checks; k++) {
            const char *id = cert.checks[k].check_id;
            if (strncmp(id, "certify.", 8) != 0) {
                snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%s", ids[0] != '\0' ? "," : "", id);
            }
        }
        ck_assert_msg(ids[0] != '\0', "%s: certify ran no check of the registry", cases[i].profile);
        char plugin_path[1024], oracle_path[1024];
        test_impl_path(plugin_path, sizeof(plugin_path), cases[i].plugin);
        test_impl_path(oracle_path, sizeof(oracle_path), "ref");
        pecert_run_options ropt = {plugin_path, oracle_path, dir, ids, test_check_timeout(60.0), NULL, NULL};
        int want = cases[i].fails ? PECERT_EXIT_FAIL : PECERT_EXIT_PASS;
        ck_assert_int_eq(pecert_run(&run, &ropt, err, sizeof(err)), want);
        for (size_t k = 0; k < cert.n_checks; k++) {
            const pecert_check_result *c = &cert.checks[k];
            if (strncmp(c->check_id, "certify.", 8) == 0) {
                continue;
            }
            const pecert_check_result *r = pecert_run_results_find(&run, c->check_id);
            ck_assert_msg(r != NULL, "%s: %s not run by pecert run", cases[i].profile, c->check_id);
            ck_assert_msg(r->verdict == c->verdict && r->n_cases == c->n_cases && r->n_failed == c->n_failed &&
                              (r->worst_ratio == c->worst_ratio ||
                               (isnan(r->worst_ratio) && isnan(c->worst_ratio))),
                          "%s %s on %s: run %d, %lld cases, %lld failed, worst %g; certify %d, %lld, %lld, %g",
                          cases[i].plugin, c->check_id, cases[i].profile, r->verdict, (long long)r->n_cases,
                          (long long)r->n_failed, r->worst_ratio, c->verdict, (long long)c->n_cases,
                          (long long)c->n_failed, c->worst_ratio);
        }
        ck_assert_str_eq(run.info.plugin_describe, cert.info.plugin_describe);
        pecert_run_results_free(&cert);
        pecert_run_results_free(&run);
        for (int bin = 0; bin < 2; bin++) {
            snprintf(link, sizeof(link), "%s/%s%s", dir, cases[i].profile, bin ? ".bin.z" : ".json");
            unlink(link);
        }
        rmdir(dir);
    }
}
END_TEST

/* A mapping that drops mscale_all_dim (anchors.md) or reads partial
 * rotary off the wrong dimension is caught against the official vectors,
 * even with a correct plugin. */
START_TEST(mapping_bugs_caught_by_profile_vectors)
{
    char vectors[1024];
    snprintf(vectors, sizeof(vectors), "%s/profiles/deepseek-v2-lite.json", vectors_root());
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), "deepseek-v2-lite", err, sizeof(err)) == 0, "%s",
                  err);
    model.rope.present &= ~(uint32_t)PECERT_ROPE_HAS_MSCALE_ALL_DIM;
    model.rope.mscale_all_dim = 0;
    ck_assert_int_eq(certify_model("ref", vectors), PECERT_EXIT_FAIL);
    snprintf(vectors, sizeof(vectors), "%s/profiles/gpt-neox-20b.json", vectors_root());
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), "gpt-neox-20b", err, sizeof(err)) == 0, "%s", err);
    model.rope.rotary_dim = model.rope.head_dim;
    ck_assert_int_eq(certify_model("ref", vectors), PECERT_EXIT_FAIL);
    /* Gemma 3's sliding layers given the full layers' theta (rope_local_base_freq
     * dropped): the sliding layers' official vectors fail, the full ones pass. */
    snprintf(vectors, sizeof(vectors), "%s/profiles/gemma-3-1b.json", vectors_root());
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), "gemma-3-1b", err, sizeof(err)) == 0, "%s", err);
    ck_assert_str_eq(model.layer_types[0].name, "sliding");
    model.layer_types[0].rope.rope_theta = model.rope.rope_theta;
    pecert_run_results res;
    ck_assert_int_eq(certify_results(&res, "ref", vectors), PECERT_EXIT_FAIL);
    const pecert_check_result *sliding = pecert_run_results_find(&res, "certify.mapping@sliding");
    const pecert_check_result *full = pecert_run_results_find(&res, "certify.mapping@full");
    ck_assert_msg(sliding != NULL && sliding->verdict == PECERT_VERDICT_FAIL && full != NULL &&
                      full->verdict == PECERT_VERDICT_PASS, "certify.mapping per layer type");
    pecert_run_results_free(&res);
    /* Qwen3-VL mapped as blocks (Qwen2-VL's layout): certify.mapping fails. */
    snprintf(vectors, sizeof(vectors), "%s/profiles/qwen3-vl-4b.json", vectors_root());
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), "qwen3-vl-4b", err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(model.mrope_interleaved, 1);
    ck_assert_int_eq(certify_model("ref", vectors), PECERT_EXIT_PASS);
    model.mrope_interleaved = 0;
    ck_assert_int_eq(certify_model("ref", vectors), PECERT_EXIT_FAIL);
}
END_TEST

START_TEST(certify_passes_ref_and_fails_planted_bugs)
{
    ck_assert_int_eq(certify_with("llama-3.1-8b", "ref"), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_with("deepseek-v2-lite", "ref"), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_with("t5-base", "ref"), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_with("mpt-7b", "ref"), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_with("bert-base", "ref"), PECERT_EXIT_PASS);
    /* The anchors' mapping bugs, as plugins: each must lose certification. */
    ck_assert_int_eq(certify_with("llama-3.1-8b", "mutants/llama3_ignored"), PECERT_EXIT_FAIL);
    ck_assert_int_eq(certify_with("deepseek-v2-lite", "mutants/yarn_mscale_all_dim_dropped"), PECERT_EXIT_FAIL);
    ck_assert_int_eq(certify_with("gpt-neox-20b", "mutants/rotary_dim_from_head_dim"), PECERT_EXIT_FAIL);
    ck_assert_int_eq(certify_with("gpt-j-6b", "mutants/pairing_swapped"), PECERT_EXIT_FAIL);
    ck_assert_int_eq(certify_with("phi-3.5-mini", "mutants/longrope_at_l0"), PECERT_EXIT_FAIL);
    ck_assert_int_eq(certify_with("t5-base", "mutants/t5_no_clamp"), PECERT_EXIT_FAIL);
    ck_assert_int_eq(certify_with("bloom", "mutants/alibi_geometric"), PECERT_EXIT_FAIL);
    /* Right inside the table, no bounds check: learned.out_of_range, now
     * in certify's plan, takes certification away. */
    char bert[1024];
    snprintf(bert, sizeof(bert), "%s/profiles/bert-base.json", vectors_root());
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), "bert-base", err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(certify_model("testing/learned_unchecked", bert), PECERT_EXIT_FAIL);
    ck_assert_int_eq(certify_model("ref", bert), PECERT_EXIT_PASS);
    /* An engine whose context (2^16) is shorter than the checkpoint's
     * (2^17, and 2^20 probed): the reference cases past it are declined,
     * and the checkpoint is not certified for it. */
    static char out[1 << 16];
    int status = test_pecert(out, sizeof(out), "certify --profile llama-3.1-8b --impl %s/impls/testing/scoped_64k.so",
                             test_build_dir());
    ck_assert_msg(status == PECERT_EXIT_FAIL && strstr(out, "FAIL    certify.rope.reference       the plugin declined ") != NULL &&
                      strstr(out, "past the declared max_position 65536") != NULL,
                  "exit %d: %s", status, out);
}
END_TEST

/* The RoBERTa family's positions (create_position_ids_from_input_ids):
 * rows from pad_token_id + 1, padding at pad_token_id, certified through
 * the PADDING_OFFSET lookup; BERT's are the rows themselves. The port that
 * drops the offset loses the certificate for XLM-R only, and is named. */
START_TEST(roberta_positions_start_past_pad_token_id)
{
    parse_ok("{\"model_type\": \"xlm-roberta\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 514}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PADDING_OFFSET);
    ck_assert_int_eq(model.learned_padding_idx, 1);
    ck_assert_int_eq(certify_model("ref", NULL), PECERT_EXIT_PASS);
    pecert_run_results res;
    ck_assert_int_eq(certify_results(&res, "mutants/fairseq_offset_missing", NULL), PECERT_EXIT_FAIL);
    ck_assert_msg(res.n_findings > 0 && strcmp(res.findings[0].id, "learned_offset") == 0, "%s",
                  res.n_findings > 0 ? res.findings[0].id : "(none)");
    pecert_run_results_free(&res);
    parse_ok("{\"model_type\": \"bert\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PLAIN);
    ck_assert_int_eq(certify_model("mutants/fairseq_offset_missing", NULL), PECERT_EXIT_PASS);
    parse_fails_naming("{\"model_type\": \"camembert\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"max_position_embeddings\": 514, \"pad_token_id\": 513}", "pad_token_id");
    /* OPT: max_position_embeddings + 2 rows, row 2 + p, padding row 1
     * (the mask's cumsum); BART: the same rows, padding takes positions. */
    parse_ok("{\"model_type\": \"opt\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.learned_rows, 2050);
    ck_assert_int_eq(model.learned_padding_idx, 1);
    ck_assert_int_eq(model.learned_padding_row, 1);
    ck_assert_int_eq(certify_model("mutants/fairseq_offset_missing", NULL), PECERT_EXIT_FAIL);
    parse_ok("{\"model_type\": \"bart\", \"d_model\": 1024, \"encoder_attention_heads\": 16,"
             " \"max_position_embeddings\": 1024}");
    ck_assert_int_eq(model.learned_rows, 1026);
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PADDING_OFFSET);
    ck_assert_int_eq(model.learned_padding_row, 0);
    ck_assert_int_eq(certify_model("ref", NULL), PECERT_EXIT_PASS);
    /* The factorized tables' width: ELECTRA's embedding_size (128 by
     * default), RemBERT's input_embedding_size. */
    parse_ok("{\"model_type\": \"electra\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
             " \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.learned_dim, 128);
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PLAIN);
    parse_ok("{\"model_type\": \"rembert\", \"hidden_size\": 1152, \"num_attention_heads\": 18,"
             " \"max_position_embeddings\": 512, \"input_embedding_size\": 256}");
    ck_assert_int_eq(model.learned_dim, 256);
}
END_TEST

/* The learned tables' other shapes (certify_learned.c): each model's own
 * keys, ERNIE-M's arange + 2 into max_position_embeddings rows, the
 * offset-2 buffers of Nyströmformer, LED's two tables, DeBERTa's switches,
 * and the tables pecert names in a warning. */
START_TEST(learned_rules_read_each_models_keys)
{
    /* FNet: no attention heads; the table is one hidden_size-wide head. */
    parse_ok("{\"model_type\": \"fnet\", \"hidden_size\": 768, \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.learned_rows, 512);
    ck_assert_int_eq(model.learned_dim, 768);
    ck_assert_int_eq(model.num_heads, 1);
    /* MPNet: RoBERTa's rows from padding_idx 1 whatever pad_token_id says;
     * its relative bias warned. */
    parse_ok("{\"model_type\": \"mpnet\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 514, \"pad_token_id\": 0}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PADDING_OFFSET);
    ck_assert_int_eq(model.learned_padding_idx, 1);
    ck_assert_int_eq(model.learned_padding_row, 1);
    ck_assert(warned_about("relative_attention_num_buckets"));
    /* A rows key config.json leaves out is the class's default (SigLIP
     * so400m's text_config: SiglipTextConfig's 64); null is refused (the
     * class passes None to nn.Embedding). */
    parse_ok("{\"model_type\": \"siglip_text_model\", \"hidden_size\": 1152, \"num_attention_heads\": 16}");
    ck_assert_int_eq(model.learned_rows, 64);
    parse_ok("{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_head\": 12}");
    ck_assert_int_eq(model.learned_rows, 1024);
    parse_fails_naming("{\"model_type\": \"bert\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"max_position_embeddings\": null}",
                       "max_position_embeddings");
    /* BROS: BERT's rows; its box bias warned. */
    parse_ok("{\"model_type\": \"bros\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PLAIN);
    ck_assert(warned_about("dim_bbox"));
    parse_ok("{\"model_type\": \"gpt_neo\", \"hidden_size\": 2048, \"num_heads\": 16,"
             " \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.learned_rows, 2048);
    ck_assert_int_eq(model.learned_dim, 2048);
    parse_ok("{\"model_type\": \"gpt_bigcode\", \"n_embd\": 6144, \"n_head\": 48, \"n_positions\": 8192}");
    ck_assert_int_eq(model.learned_rows, 8192);
    parse_ok("{\"model_type\": \"ernie_m\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 514}");
    ck_assert_int_eq(model.learned_rows, 514); /* position_ids += 2 into the table as it is */
    ck_assert_int_eq(model.learned_padding_idx, 1);
    ck_assert_int_eq(model.learned_padding_row, 0);
    parse_ok("{\"model_type\": \"nystromformer\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 510}");
    ck_assert_int_eq(model.learned_rows, 512);
    /* LayoutLMv3: RoBERTa's rows; its layout and relative biases warned. */
    parse_ok("{\"model_type\": \"layoutlmv3\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 514, \"has_relative_attention_bias\": true}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PADDING_OFFSET);
    ck_assert(warned_about("has_relative_attention_bias"));
    /* ViLT: BERT's rows for the text (40 by default); its image table warned. */
    parse_ok("{\"model_type\": \"vilt\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 40}");
    ck_assert_int_eq(model.learned_rows, 40);
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PLAIN);
    ck_assert(warned_about("max_position_embeddings"));
    /* Decision Transformer: the timestep table, max_ep_len 4096 rows of 128
     * (the class's defaults), row t; the backbone's row 0 warned. */
    parse_ok("{\"model_type\": \"decision_transformer\"}");
    ck_assert_int_eq(model.learned_rows, 4096);
    ck_assert_int_eq(model.learned_dim, 128);
    ck_assert(warned_about("n_positions"));
    /* Keys of older releases no v4.57.6 class reads, kept by released
     * config.json files (blenderbot-400M-distill's extra_pos_embeddings,
     * prophetnet-large-uncased's per-stack lengths): warned, ignored. */
    parse_ok("{\"model_type\": \"blenderbot\", \"d_model\": 1280, \"encoder_attention_heads\": 32,"
             " \"max_position_embeddings\": 128, \"extra_pos_embeddings\": 0}");
    ck_assert_int_eq(model.learned_rows, 128);
    ck_assert(warned_about("extra_pos_embeddings"));
    parse_ok("{\"model_type\": \"prophetnet\", \"hidden_size\": 1024, \"num_encoder_attention_heads\": 16,"
             " \"max_position_embeddings\": 512, \"encoder_max_position_embeddings\": 513,"
             " \"decoder_max_position_embeddings\": 514, \"pad_token_id\": 0}");
    ck_assert_int_eq(model.learned_rows, 512);
    ck_assert(warned_about("encoder_max_position_embeddings"));
    ck_assert(warned_about("decoder_max_position_embeddings"));
    /* Trajectory Transformer: pos_emb, block_size 249 rows of n_embd 128,
     * row p of each call; a cached call's restart at row 0 warned. */
    parse_ok("{\"model_type\": \"trajectory_transformer\"}");
    ck_assert_int_eq(model.learned_rows, 249);
    ck_assert_int_eq(model.learned_dim, 128);
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PLAIN);
    ck_assert(warned_about("block_size"));
    /* Perceiver: the text preprocessor's 2048 rows of d_model (the class's
     * defaults), row p; the other preprocessors warned. */
    parse_ok("{\"model_type\": \"perceiver\"}");
    ck_assert_int_eq(model.learned_rows, 2048);
    ck_assert_int_eq(model.learned_dim, 768);
    ck_assert(warned_about("max_position_embeddings"));
    /* Evolla (EvollaConfig's model_type "EvollaModel"): the Llama decoder's
     * rope at EvollaConfig's theta 500000 when none is given; the protein
     * encoder's rotary warned. */
    parse_ok("{\"model_type\": \"EvollaModel\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"num_key_value_heads\": 8, \"max_position_embeddings\": 8192}");
    ck_assert_double_eq(model.rope.rope_theta, 500000.0);
    ck_assert(warned_about("protein_encoder_config"));
    parse_ok("{\"model_type\": \"led\", \"d_model\": 1024, \"encoder_attention_heads\": 16,"
             " \"max_encoder_position_embeddings\": 16384, \"max_decoder_position_embeddings\": 1024}");
    ck_assert_int_eq(model.learned_rows, 16384);
    ck_assert_int_eq(model.decoder_learned_rows, 1024);
    ck_assert_int_eq(model.decoder_learned_dim, 1024);
    parse_ok("{\"model_type\": \"deberta-v2\", \"hidden_size\": 1536, \"num_attention_heads\": 24,"
             " \"max_position_embeddings\": 512, \"embedding_size\": 512}");
    ck_assert_int_eq(model.learned_dim, 512);
    parse_fails_naming("{\"model_type\": \"deberta-v2\", \"hidden_size\": 1536, \"num_attention_heads\": 24,"
                       " \"max_position_embeddings\": 512, \"relative_attention\": true, \"position_buckets\": 256}",
                       "relative_attention");
    parse_fails_naming("{\"model_type\": \"deberta\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"max_position_embeddings\": 512, \"position_biased_input\": false}",
                       "position_biased_input");
    /* LayoutLM's box tables are named, not certified; BERT does not know
     * the key. */
    parse_ok("{\"model_type\": \"layoutlm\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 512, \"max_2d_position_embeddings\": 1024}");
    ck_assert(warned_about("max_2d_position_embeddings"));
    parse_fails_naming("{\"model_type\": \"bert\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"max_position_embeddings\": 512, \"max_2d_position_embeddings\": 1024}",
                       "max_2d_position_embeddings");
    parse_ok("{\"model_type\": \"longformer\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 514}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PADDING_OFFSET);
    ck_assert_int_eq(certify_model("ref", NULL), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_model("mutants/fairseq_offset_missing", NULL), PECERT_EXIT_FAIL);
    /* CANINE: num_hash_buckets rows, read at arange from a buffer of
     * max_position_embeddings ids, which must fit in it. */
    parse_ok("{\"model_type\": \"canine\", \"hidden_size\": 768, \"num_attention_heads\": 12}");
    ck_assert_int_eq(model.learned_rows, 16384);
    parse_ok("{\"model_type\": \"canine\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"num_hash_buckets\": 8192, \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.learned_rows, 8192);
    parse_fails_naming("{\"model_type\": \"canine\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"num_hash_buckets\": 1024}", "max_position_embeddings");
    /* Bark: the semantic model's table from semantic_config (its class's
     * defaults when absent), the acoustics models' named; ProphetNet:
     * RoBERTa's rows from pad_token_id, its decoder's buckets named;
     * LayoutLMv2: the text table, its boxes and biases named. */
    parse_ok("{\"model_type\": \"bark\"}");
    ck_assert_int_eq(model.learned_rows, 1024);
    ck_assert(warned_about("semantic_config.block_size"));
    parse_ok("{\"model_type\": \"bark\", \"semantic_config\": {\"block_size\": 2048, \"hidden_size\": 1024,"
             " \"num_heads\": 16}}");
    ck_assert_int_eq(model.learned_rows, 2048);
    ck_assert_int_eq(model.learned_dim, 1024);
    parse_fails_naming("{\"model_type\": \"bark\", \"semantic_config\": 3}", "semantic_config");
    parse_ok("{\"model_type\": \"prophetnet\", \"hidden_size\": 1024, \"num_encoder_attention_heads\": 16,"
             " \"max_position_embeddings\": 512, \"pad_token_id\": 0}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PADDING_OFFSET);
    ck_assert_int_eq(model.learned_padding_idx, 0);
    ck_assert(warned_about("num_buckets"));
    parse_ok("{\"model_type\": \"layoutlmv2\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
             " \"max_position_embeddings\": 512}");
    ck_assert_int_eq(model.learned_convention, PECERT_LEARNED_PLAIN);
    ck_assert(warned_about("has_relative_attention_bias"));
}
END_TEST

/* ---- limits ------------------------------------------------------------- */

START_TEST(non_positional_keys_ignored_null_is_absent)
{
    parse_ok("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 32768, \"vocab_size\": 32000, \"sliding_window\": 4096,"
             " \"architectures\": [\"MistralForCausalLM\"], \"rope_scaling\": null, \"head_dim\": null}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_DEFAULT);
    ck_assert_int_eq(model.rope.rotary_dim, 128);
    ck_assert_double_eq(model.rope.rope_theta, 10000.0); /* the config class default */
    ck_assert_uint_eq(model.rope.present, 0);
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

#define LLAMA_WITH(scaling)                                                                            \
    "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"                  \
    " \"max_position_embeddings\": 4096, \"rope_scaling\": " scaling "}"

START_TEST(unknown_keys_are_errors)
{
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 4, \"mscale_all_dims\": 1}"),
                       "rope_scaling.mscale_all_dims");
    /* A key of another rope type is not silently dropped either. */
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 4, \"low_freq_factor\": 1}"),
                       "rope_scaling.low_freq_factor");
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"ntk\", \"factor\": 4}"), "rope_scaling.rope_type");
    parse_fails_naming(LLAMA_WITH("{\"factor\": 4}"), "rope_scaling");
    parse_fails_naming("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 4096, \"rope_interleaved\": true}",
                       "rope_interleaved");
    parse_fails_naming("{\"model_type\": \"bert\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                       " \"max_position_embeddings\": 512, \"position_embedding_type\": \"relative_key\"}",
                       "position_embedding_type");
    parse_fails_naming("{\"model_type\": \"mpt\", \"d_model\": 64, \"n_heads\": 4,"
                       " \"attn_config\": {\"alibi\": true, \"rope\": true}}",
                       "attn_config.rope");
    parse_fails_naming("{\"model_type\": \"mpt\", \"d_model\": 96, \"n_heads\": 32, \"attn_config\": [3, 1, 1]}",
                       "attn_config");
    parse_fails_naming("{\"model_type\": \"tapas\"}", "model_type"); /* positions reset per table cell */
    /* transformers' MptModel is ALiBi only: alibi false has no reference. */
    parse_fails_naming("{\"model_type\": \"mpt\", \"d_model\": 4096, \"n_heads\": 32, \"max_seq_len\": 2048,"
                       " \"attn_config\": {\"alibi\": false}}",
                       "attn_config.alibi");
}
END_TEST


/* What transformers v4.57.6 only warns about (modeling_rope_utils.py,
 * _validate_*_parameters) is parsed, with a warning naming the key, where
 * the config class runs rope_config_validation (LlamaConfig) and nowhere
 * else (MistralConfig, Phi3Config): exactly the official warnings. */
START_TEST(official_warnings_are_warnings)
{
    /* _validate_yarn_parameters: (beta_fast or 32) < (beta_slow or 1), and
     * original_max_position_embeddings unset. */
    parse_ok(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 4, \"beta_fast\": 1, \"beta_slow\": 32}"));
    ck_assert_int_eq(model.n_warnings, 2);
    ck_assert(warned_about("rope_scaling.beta_fast"));
    ck_assert(warned_about("rope_scaling.original_max_position_embeddings"));
    /* ... and factor != max_position_embeddings / original. */
    parse_ok(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 4, \"original_max_position_embeddings\": 2048}"));
    ck_assert_int_eq(model.n_warnings, 1);
    ck_assert(warned_about("rope_scaling.factor"));
    parse_ok(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 2, \"original_max_position_embeddings\": 2048}"));
    ck_assert_int_eq(model.n_warnings, 0);
    /* _validate_llama3_parameters: high <= low, original >= max. */
    parse_ok(LLAMA_WITH("{\"rope_type\": \"llama3\", \"factor\": 8, \"low_freq_factor\": 4,"
                        " \"high_freq_factor\": 1, \"original_max_position_embeddings\": 8192}"));
    ck_assert_int_eq(model.n_warnings, 2);
    ck_assert(warned_about("rope_scaling.high_freq_factor"));
    ck_assert(warned_about("rope_scaling.original_max_position_embeddings"));
    /* factor < 1 and attention_factor < 0: warned, computed. */
    parse_ok(LLAMA_WITH("{\"rope_type\": \"linear\", \"factor\": 0.5}"));
    ck_assert_int_eq(model.n_warnings, 1);
    ck_assert(warned_about("rope_scaling.factor"));
    ck_assert_double_eq(model.rope.factor, 0.5);
    parse_ok(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 2, \"attention_factor\": -1,"
                        " \"original_max_position_embeddings\": 2048}"));
    ck_assert_int_eq(model.n_warnings, 1);
    ck_assert(warned_about("rope_scaling.attention_factor"));
    /* beta 0 is `get(key) or 32`: the default, no warning. */
    parse_ok(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 2, \"beta_fast\": 0, \"beta_slow\": 0,"
                        " \"original_max_position_embeddings\": 2048}"));
    ck_assert_int_eq(model.n_warnings, 0);
    /* MistralConfig runs no rope_config_validation: no warning at all. */
    parse_ok("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 0.5,"
             " \"beta_fast\": 1, \"beta_slow\": 32}}");
    ck_assert_int_eq(model.n_warnings, 0);
}
END_TEST

/* Phi3Config: its own _rope_scaling_validation raises unless rope_scaling
 * is exactly {type, short_factor, long_factor}, type longrope ("su" and
 * "yarn" renamed to it first); original_max_position_embeddings defaults
 * to 4096. Checked against transformers v4.57.6 (a rope_type key instead
 * of type raises ValueError; type yarn becomes longrope). */
#define PHI3_WITH(scaling)                                                                             \
    "{\"model_type\": \"phi3\", \"hidden_size\": 256, \"num_attention_heads\": 4,"                     \
    " \"max_position_embeddings\": 131072, \"rope_scaling\": " scaling "}"
#define FACTORS32 "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]"

START_TEST(phi3_validation_is_phi3_s)
{
    parse_ok(PHI3_WITH("{\"type\": \"yarn\", \"short_factor\": " FACTORS32 ", \"long_factor\": " FACTORS32 "}"));
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_LONGROPE);
    ck_assert_uint_ne(model.rope.present & PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS, 0);
    ck_assert_int_eq(model.rope.original_max_position_embeddings, 4096);
    ck_assert_int_eq(model.n_warnings, 0);
    parse_fails_naming(PHI3_WITH("{\"rope_type\": \"longrope\", \"short_factor\": " FACTORS32
                                 ", \"long_factor\": " FACTORS32 "}"),
                       "rope_scaling");
    parse_fails_naming(PHI3_WITH("{\"type\": \"linear\", \"factor\": 2}"), "rope_scaling");
    parse_fails_naming(PHI3_WITH("{\"type\": \"linear\", \"short_factor\": " FACTORS32 ", \"long_factor\": " FACTORS32
                                 "}"),
                       "rope_scaling.type");
}
END_TEST

/* Llama 4's config.json as released: the text model under text_config,
 * llama3 whenever rope_scaling is set, complex (interleaved) pairs, head_dim
 * 128 by default, and the NoPE layers named in a warning. */
#define LLAMA4_TEXT(fields)                                                                            \
    "{\"model_type\": \"llama4\", \"vision_config\": {\"rope_theta\": 10000},"                          \
    " \"text_config\": {\"model_type\": \"llama4_text\", \"hidden_size\": 5120,"                        \
    " \"num_attention_heads\": 40, \"num_key_value_heads\": 8, \"max_position_embeddings\": 1048576"     \
    fields "}}"

START_TEST(llama4_text_config_maps)
{
    parse_ok(LLAMA4_TEXT(""));
    ck_assert_str_eq(model.model_type, "llama4");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_DEFAULT);
    ck_assert_int_eq(model.rope.rotary_dim, 128);
    ck_assert_double_eq(model.rope.rope_theta, 500000.0); /* Llama4TextConfig's default */
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    /* Llama4TextConfig: a NoPE layer every no_rope_layer_interval = 4 of 48. */
    ck_assert_int_eq(model.n_layer_types, 2);
    ck_assert_str_eq(model.layer_types[1].name, "nope");
    ck_assert_int_eq(model.layer_types[1].n_layers, 12);
    ck_assert_int_eq(model.layer_types[1].rope.layer_kind, PECERT_LAYER_NOPE);
    ck_assert_int_eq(model.layer_type_of[3], 1);
    ck_assert_int_eq(model.layer_type_of[4], 0);
    ck_assert_int_eq(model.n_warnings, 1);
    ck_assert(warned_about("text_config.no_rope_layers"));
    ck_assert_ptr_nonnull(strstr(model.warnings[0], "attn_temperature_tuning"));
    parse_ok(LLAMA4_TEXT(", \"num_hidden_layers\": 4, \"no_rope_layers\": [1, 1, 1, 1]"));
    ck_assert_int_eq(model.n_warnings, 0);
    ck_assert_int_eq(model.n_layer_types, 0);
    parse_ok(LLAMA4_TEXT(", \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 16.0,"
                         " \"low_freq_factor\": 1.0, \"high_freq_factor\": 1.0, \"original_max_position_embeddings\": 8192}"));
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_LLAMA3);
    ck_assert(!warned_about("text_config.rope_scaling.high_freq_factor")); /* no validation upstream */
    parse_fails_naming(LLAMA4_TEXT(", \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2.0}"),
                       "text_config.rope_scaling.rope_type");
    parse_fails_naming(LLAMA4_TEXT(", \"num_hidden_layers\": 4, \"no_rope_layers\": [1, 0]"),
                       "text_config.no_rope_layers");
    parse_fails_naming(LLAMA4_TEXT(", \"rotary_pct\": 0.5"), "text_config.rotary_pct");
    parse_fails_naming("{\"model_type\": \"llama4\"}", "text_config");
}
END_TEST

/* The Llama 4 profiles, against their official vectors: the planted
 * pairing and llama3 bugs lose certification, named by the diagnosis. */
START_TEST(llama4_profiles_catch_planted_bugs)
{
    static char out[1 << 16];
    ck_assert_int_eq(certify_with("llama-4-scout", "ref"), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_with("llama-4-maverick", "fast"), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_with("llama-4-scout", "mutants/llama3_ignored"), PECERT_EXIT_FAIL);
    int status = test_pecert(out, sizeof(out), "certify --profile llama-4-maverick --impl %s/impls/mutants/pairing_swapped.so",
                             test_build_dir());
    ck_assert_msg(status == 1 && strstr(out, "diagnosis: rope layers: pairing convention swapped") != NULL, "exit %d: %.400s", status,
                  out);
}
END_TEST

/* Per-layer encodings, as each model's own classes choose them
 * (transformers v4.57.6): which layers rotate, and with what. */
#define GEMMA3_TEXT(fields)                                                                            \
    "{\"model_type\": \"gemma3_text\", \"hidden_size\": 1152, \"num_attention_heads\": 4,"             \
    " \"num_key_value_heads\": 1, \"max_position_embeddings\": 32768" fields "}"

START_TEST(per_layer_encodings_map)
{
    /* Gemma3TextConfig: 26 layers, a full one every sliding_window_pattern =
     * 6; full layers rope_theta 1e6 + rope_scaling, sliding ones
     * rope_local_base_freq 10000, default (Gemma3TextModel.__init__). */
    parse_ok(GEMMA3_TEXT(", \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 8.0}"));
    ck_assert_int_eq(model.n_layers, 26);
    ck_assert_int_eq(model.n_layer_types, 2);
    ck_assert_str_eq(model.layer_types[0].name, "sliding");
    ck_assert_int_eq(model.layer_types[0].n_layers, 22);
    ck_assert_double_eq(model.layer_types[0].rope.rope_theta, 10000.0);
    ck_assert_int_eq(model.layer_types[0].rope.rope_type, PECERT_ROPE_DEFAULT);
    ck_assert_str_eq(model.layer_types[1].name, "full");
    ck_assert_double_eq(model.layer_types[1].rope.rope_theta, 1e6);
    ck_assert_int_eq(model.layer_types[1].rope.rope_type, PECERT_ROPE_LINEAR);
    ck_assert_int_eq(model.layer_types[1].rope.head_dim, 256);
    ck_assert_int_eq(model.layer_type_of[5], 1);
    ck_assert_int_eq(model.layer_type_of[6], 0);
    char ranges[256];
    pecert_certify_layer_ranges(ranges, sizeof(ranges), &model, 1);
    ck_assert_str_eq(ranges, "5, 11, 17, 23");
    /* layer_types wins over the pattern; the nested form reads text_config. */
    parse_ok("{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"gemma3_text\", \"hidden_size\": 64,"
             " \"num_attention_heads\": 4, \"max_position_embeddings\": 8192, \"num_hidden_layers\": 3,"
             " \"rope_local_base_freq\": 20000, \"layer_types\": [\"full_attention\", \"sliding_attention\","
             " \"full_attention\"]}}");
    ck_assert_int_eq(model.layer_types[0].n_layers, 2);
    ck_assert_str_eq(model.layer_types[0].name, "full");
    ck_assert_double_eq(model.layer_types[1].rope.rope_theta, 20000.0);
    parse_fails_naming(GEMMA3_TEXT(", \"num_hidden_layers\": 2, \"layer_types\": [\"full_attention\"]"), "layer_types");
    parse_fails_naming(GEMMA3_TEXT(", \"num_hidden_layers\": 1, \"layer_types\": [\"chunked\"]"), "layer_types");
    /* rope_local_base_freq equal to rope_theta, no scaling: one encoding. */
    parse_ok(GEMMA3_TEXT(", \"rope_theta\": 10000"));
    ck_assert_int_eq(model.n_layer_types, 0);

    /* SmolLM3Config: no_rope_layers from no_rope_layer_interval = 4 of 36. */
    parse_ok("{\"model_type\": \"smollm3\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 65536}");
    ck_assert_int_eq(model.n_layer_types, 2);
    ck_assert_str_eq(model.layer_types[1].name, "nope");
    ck_assert_int_eq(model.layer_types[1].n_layers, 9);
    ck_assert_double_eq(model.rope.rope_theta, 2e6);

    /* Cohere2Attention rotates only when sliding_window is set on the layer:
     * the full layers (every 4th of 40) are NoPE; with sliding_window null,
     * every layer is. */
    parse_ok("{\"model_type\": \"cohere2\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 8192, \"rope_theta\": 50000}");
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    ck_assert_int_eq(model.n_layers, 40);
    ck_assert_str_eq(model.layer_types[0].name, "sliding");
    ck_assert_int_eq(model.layer_types[0].n_layers, 30);
    ck_assert_int_eq(model.layer_types[1].rope.layer_kind, PECERT_LAYER_NOPE);
    parse_ok("{\"model_type\": \"cohere2\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 8192, \"sliding_window\": null}");
    ck_assert_int_eq(model.n_layer_types, 1);
    ck_assert_int_eq(model.layer_types[0].rope.layer_kind, PECERT_LAYER_NOPE);

    /* Exaone4Attention rotates when sliding_window is None or the layer
     * slides: with a window, the full layers are NoPE; without one, every
     * layer rotates, and layer_types must be given. */
    parse_ok("{\"model_type\": \"exaone4\", \"hidden_size\": 5120, \"num_attention_heads\": 40,"
             " \"num_key_value_heads\": 8, \"head_dim\": 128, \"max_position_embeddings\": 131072,"
             " \"num_hidden_layers\": 64, \"sliding_window\": 4096}");
    ck_assert_int_eq(model.layer_types[0].n_layers, 48);
    ck_assert_int_eq(model.layer_types[1].n_layers, 16);
    ck_assert_int_eq(model.layer_types[1].rope.layer_kind, PECERT_LAYER_NOPE);
    parse_ok("{\"model_type\": \"exaone4\", \"hidden_size\": 512, \"num_attention_heads\": 4, \"num_key_value_heads\": 4,"
             " \"max_position_embeddings\": 2048, \"num_hidden_layers\": 2, \"sliding_window\": null,"
             " \"layer_types\": [\"full_attention\", \"full_attention\"]}");
    ck_assert_int_eq(model.n_layer_types, 0);
    parse_fails_naming("{\"model_type\": \"exaone4\", \"hidden_size\": 512, \"num_attention_heads\": 4, \"num_key_value_heads\": 4,"
                       " \"max_position_embeddings\": 2048, \"sliding_window\": null}", "sliding_window");
}
END_TEST

/* certify reports every layer type on its own ("ID@type"), and a plugin
 * that rotates the NoPE layers is not certified, the diagnosis naming the
 * layer type and the bug. */
START_TEST(per_layer_certify_reports_each_type)
{
    pecert_run_results res;
    parse_ok(GEMMA3_TEXT(", \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 8.0}"));
    ck_assert_int_eq(certify_results(&res, "fast", NULL), PECERT_EXIT_PASS);
    ck_assert_ptr_nonnull(pecert_run_results_find(&res, "certify.rope.reference@full"));
    ck_assert_ptr_nonnull(pecert_run_results_find(&res, "certify.rope.reference@sliding"));
    ck_assert_ptr_null(pecert_run_results_find(&res, "certify.rope.reference"));
    pecert_run_results_free(&res);

    parse_ok("{\"model_type\": \"smollm3\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 65536}");
    ck_assert_int_eq(certify_results(&res, "ref", NULL), PECERT_EXIT_PASS);
    const pecert_check_result *nope = pecert_run_results_find(&res, "rope.nope_layer@nope");
    ck_assert_msg(nope != NULL && nope->verdict == PECERT_VERDICT_PASS, "rope.nope_layer@nope missing or not passed");
    pecert_run_results_free(&res);
    ck_assert_int_eq(certify_results(&res, "mutants/nope_rotated", NULL), PECERT_EXIT_FAIL);
    ck_assert_msg(res.n_findings >= 1 && strcmp(res.findings[0].id, "nope_rotated") == 0 &&
                      strncmp(res.findings[0].bug, "nope layers: ", 13) == 0,
                  "%d findings, first '%s': %s", res.n_findings, res.n_findings > 0 ? res.findings[0].id : "",
                  res.n_findings > 0 ? res.findings[0].bug : "");
    pecert_run_results_free(&res);

    ck_assert_ptr_nonnull(pecert_known_check("rope.apply.golden@sliding"));
    ck_assert_ptr_null(pecert_known_check("rope.apply.golden@Sliding!"));
    ck_assert_ptr_null(pecert_known_check("rope.no_such_check@full"));
}
END_TEST

/* Qwen3VLTextRotaryEmbedding (transformers v4.57.6): rope_scaling required,
 * rope_type only, mrope_section default [24, 20, 20], the sections always
 * interleaved. */
#define QWEN3_VL(scaling)                                                                              \
    "{\"model_type\": \"qwen3_vl\", \"text_config\": {\"model_type\": \"qwen3_vl_text\","              \
    " \"hidden_size\": 2560, \"num_attention_heads\": 32, \"num_key_value_heads\": 8,"                 \
    " \"max_position_embeddings\": 262144, \"rope_scaling\": " scaling "}}"

START_TEST(qwen3_vl_interleaved_mrope_maps)
{
    parse_ok(QWEN3_VL("{\"rope_type\": \"default\", \"mrope_section\": [24, 20, 20], \"mrope_interleaved\": true}"));
    ck_assert_int_eq(model.kind, PECERT_PE_MROPE);
    ck_assert_int_eq(model.mrope_interleaved, 1);
    ck_assert_int_eq(model.rope.head_dim, 128);              /* Qwen3VLTextConfig's default */
    ck_assert_double_eq(model.rope.rope_theta, 5000000.0);  /* its default */
    ck_assert_int_eq(model.n_warnings, 0);
    parse_ok(QWEN3_VL("{\"rope_type\": \"default\"}"));
    ck_assert_int_eq(model.n_sections, 3);
    ck_assert_int_eq(model.mrope_section[0], 24);
    parse_ok(QWEN3_VL("{\"rope_type\": \"default\", \"mrope_section\": [24, 20, 20], \"mrope_interleaved\": false}"));
    ck_assert_int_eq(model.mrope_interleaved, 1);
    ck_assert(warned_about("text_config.rope_scaling.mrope_interleaved"));
    parse_fails_naming(QWEN3_VL("null"), "text_config.rope_scaling");
    parse_fails_naming(QWEN3_VL("{\"type\": \"default\"}"), "text_config.rope_scaling.type");
    parse_fails_naming(QWEN3_VL("{\"mrope_section\": [32, 32]}"), "text_config.rope_scaling.mrope_section");
    parse_fails_naming("{\"model_type\": \"qwen3_vl\", \"hidden_size\": 2560}", "text_config");
}
END_TEST

/* The Qwen-VL text models as model types of their own, and Qwen3-VL-MoE
 * (Qwen3VLMoeTextConfig: head_dim or hidden/heads; its text_config). */
START_TEST(qwen_vl_text_types_map)
{
    parse_ok("{\"model_type\": \"qwen3_vl_moe_text\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 262144, \"rope_scaling\": {\"rope_type\": \"default\"}}");
    ck_assert_int_eq(model.kind, PECERT_PE_MROPE);
    ck_assert_int_eq(model.mrope_interleaved, 1);
    ck_assert_int_eq(model.rope.head_dim, 128);
    ck_assert_int_eq(model.num_kv_heads, 16); /* Qwen3VLMoeTextConfig's default */
    parse_fails_naming("{\"model_type\": \"qwen3_vl_moe\", \"text_config\": {\"model_type\": \"qwen3_vl_text\"}}",
                       "text_config.model_type");
    parse_ok("{\"model_type\": \"qwen2_vl_text\", \"hidden_size\": 3584, \"num_attention_heads\": 28,"
             " \"num_key_value_heads\": 4, \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, 24]}}");
    ck_assert_int_eq(model.kind, PECERT_PE_MROPE);
    ck_assert_int_eq(model.mrope_interleaved, 0);
    ck_assert_int_eq(model.max_position_embeddings, 32768); /* Qwen2VLTextConfig's default */
    parse_fails_naming("{\"model_type\": \"qwen2_5_vl_text\", \"hidden_size\": 3584, \"num_attention_heads\": 28,"
                       " \"num_key_value_heads\": 4}", "rope_scaling.mrope_section");
    /* GLM-4.1V: sectioned M-RoPE over part of the head, adjacent pairs;
     * GLM-4.5V: halves, partial 0.5 by default, its class's own spelling
     * of the text model_type accepted. */
    parse_ok("{\"model_type\": \"glm4v\", \"text_config\": {\"model_type\": \"glm4v_text\", \"partial_rotary_factor\":"
             " 0.5, \"rope_scaling\": {\"rope_type\": \"default\", \"mrope_section\": [8, 12, 12]}}}");
    ck_assert_int_eq(model.kind, PECERT_PE_MROPE);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_int_eq(model.num_kv_heads, 2);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "Glm4vVisionModel"));
    parse_fails_naming("{\"model_type\": \"glm4v_text\", \"head_dim\": 64}", "head_dim");
    parse_ok("{\"model_type\": \"glm4v_moe\", \"text_config\": {\"model_type\": \"Glm4vMoe_text\", \"head_dim\": 128,"
             " \"rope_scaling\": {\"rope_type\": \"default\", \"mrope_section\": [8, 12, 12]}}}");
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_SPLIT_HALF);
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    parse_fails_naming("{\"model_type\": \"glm4v_moe_text\"}", "partial_rotary_factor"); /* 4096 / 96 = 42: 21 */
}
END_TEST

/* Encoder-decoders whose stacks are nested configs (certify_stacks.c):
 * T5Gemma's decoder is its encoder when absent; Dia's stacks take their
 * classes' defaults (the decoder's 3072 positions, 4 kv heads); stacks
 * that rotate otherwise are refused, each key named under its stack. */
START_TEST(encoder_decoder_stacks_map)
{
    parse_ok("{\"model_type\": \"t5gemma\", \"encoder\": {\"hidden_size\": 2304, \"num_attention_heads\": 8,"
             " \"rope_theta\": 20000}}");
    ck_assert_double_eq(model.rope.rope_theta, 20000.0);
    ck_assert_int_eq(model.rope.head_dim, 256);
    ck_assert_int_eq(model.num_kv_heads, 4); /* T5GemmaModuleConfig's default */
    ck_assert_str_eq(model.model_type, "t5gemma");
    parse_fails_naming("{\"model_type\": \"t5gemma\", \"encoder\": {\"rope_theta\": 20000}, \"decoder\": {}}",
                       "encoder");
    parse_ok("{\"model_type\": \"dia\"}");
    ck_assert_int_eq(model.max_position_embeddings, 3072);
    ck_assert_int_eq(model.rope.head_dim, 128);
    ck_assert_int_eq(model.num_kv_heads, 4);
    parse_ok("{\"model_type\": \"dia\", \"encoder_config\": {\"max_position_embeddings\": 4096}}");
    ck_assert_int_eq(model.max_position_embeddings, 4096); /* the longer stack's */
    parse_fails_naming("{\"model_type\": \"dia\", \"encoder_config\": {\"rope_theta\": -1}}",
                       "encoder_config.rope_theta");
    parse_fails_naming("{\"model_type\": \"dia\", \"decoder_config\": [1]}", "decoder_config");
}
END_TEST

/* Mllama: its cross-attention layers rotate nothing (NoPE layers, the
 * class's default list [3, 8, ..., 38]); MllamaRotaryEmbedding requires
 * rope_scaling with a rope_type. */
START_TEST(mllama_cross_attention_layers_are_nope)
{
    parse_ok("{\"model_type\": \"mllama\", \"text_config\": {\"rope_scaling\": {\"rope_type\": \"default\"}}}");
    ck_assert_int_eq(model.n_layers, 40);
    ck_assert_int_eq(model.n_layer_types, 2);
    ck_assert_int_eq(model.layer_types[1].n_layers, 8);
    ck_assert_int_eq(model.layer_types[1].rope.layer_kind, PECERT_LAYER_NOPE);
    ck_assert_int_eq(model.num_kv_heads, 8);
    ck_assert_double_eq(model.rope.rope_theta, 500000.0);
    ck_assert_str_eq(model.model_type, "mllama");
    parse_ok("{\"model_type\": \"mllama\", \"text_config\": {\"num_hidden_layers\": 4, \"cross_attention_layers\":"
             " [1], \"rope_scaling\": {\"rope_type\": \"default\"}}}");
    ck_assert_int_eq(model.layer_types[1].n_layers, 1);
    parse_fails_naming("{\"model_type\": \"mllama\", \"text_config\": {}}", "text_config.rope_scaling");
    parse_fails_naming("{\"model_type\": \"mllama\", \"text_config\": {\"rope_scaling\": {\"type\": \"default\"}}}",
                       "text_config.rope_scaling");
    parse_fails_naming("{\"model_type\": \"mllama\", \"text_config\": {\"cross_attention_layers\": 3,"
                       " \"rope_scaling\": {\"rope_type\": \"default\"}}}", "text_config.cross_attention_layers");
}
END_TEST

/* Granite 4.0 (granitemoehybrid): rotated only with position_embedding_type
 * "rope", its Mamba layers named; layer_types required (the model indexes
 * it), a model of Mamba layers alone refused. */
START_TEST(granite_hybrid_rotates_its_attention_layers)
{
    parse_ok("{\"model_type\": \"granitemoehybrid\", \"position_embedding_type\": \"rope\", \"num_hidden_layers\": 4,"
             " \"layer_types\": [\"mamba\", \"attention\", \"mamba\", \"mamba\"], \"rope_theta\": 10000000}");
    ck_assert_double_eq(model.rope.rope_theta, 1e7);
    ck_assert_int_eq(model.max_position_embeddings, 2048);
    ck_assert(warned_about("layer_types"));
    parse_fails_naming("{\"model_type\": \"granitemoehybrid\", \"num_hidden_layers\": 1, \"layer_types\": [\"attention\"]}",
                       "position_embedding_type");
    parse_fails_naming("{\"model_type\": \"granitemoehybrid\", \"position_embedding_type\": \"nope\"}",
                       "position_embedding_type");
    parse_fails_naming("{\"model_type\": \"granitemoehybrid\", \"position_embedding_type\": \"rope\"}", "layer_types");
    parse_fails_naming("{\"model_type\": \"granitemoehybrid\", \"position_embedding_type\": \"rope\", \"num_hidden_layers\": 1,"
                       " \"layer_types\": [\"mamba\"]}", "layer_types");
}
END_TEST

/* A Llama-shaped config without num_key_value_heads takes its class's
 * default: MistralConfig's 8, LlamaConfig's None (the query heads); null
 * is None; Qwen2Config's 32 cannot group 16 query heads. */
START_TEST(absent_kv_heads_take_the_class_default)
{
    parse_ok("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 8192}");
    ck_assert_int_eq(model.num_kv_heads, 8);
    parse_ok("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"num_key_value_heads\": null, \"max_position_embeddings\": 8192}");
    ck_assert_int_eq(model.num_kv_heads, 32);
    parse_ok("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 8192}");
    ck_assert_int_eq(model.num_kv_heads, 32);
    parse_fails_naming("{\"model_type\": \"qwen2\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"
                       " \"max_position_embeddings\": 8192}", "num_key_value_heads");
}
END_TEST

/* What one model's code does differently (transformers v4.57.6):
 * OlmoeAttention's heads are hidden_size / num_attention_heads whatever
 * head_dim says; NemotronRotaryEmbedding ignores rope_scaling; GLM-4.5 and
 * Nemotron rotate the first half of each head (their apply slices
 * q[..., :rotary_dim]); ERNIE 4.5 MoE pairs adjacent channels. */
START_TEST(model_quirks_are_the_model_s)
{
    parse_ok("{\"model_type\": \"olmoe\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 4096}");
    ck_assert_int_eq(model.rope.head_dim, 128);
    parse_fails_naming("{\"model_type\": \"olmoe\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"
                       " \"head_dim\": 64, \"max_position_embeddings\": 4096}", "head_dim");
    parse_fails_naming("{\"model_type\": \"granitemoe\", \"hidden_size\": 1024, \"num_attention_heads\": 16,"
                       " \"head_dim\": 128, \"max_position_embeddings\": 4096}", "head_dim");
    parse_ok("{\"model_type\": \"nemotron\", \"hidden_size\": 3072, \"num_attention_heads\": 24,"
             " \"max_position_embeddings\": 4096}");
    ck_assert_int_eq(model.rope.rotary_dim, 64); /* NemotronConfig: partial_rotary_factor 0.5 */
    parse_fails_naming("{\"model_type\": \"nemotron\", \"hidden_size\": 3072, \"num_attention_heads\": 24,"
                       " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"rope_type\": \"linear\","
                       " \"factor\": 2}}", "rope_scaling");
    parse_ok("{\"model_type\": \"glm4_moe\", \"hidden_size\": 4096, \"num_attention_heads\": 96, \"head_dim\": 128,"
             " \"max_position_embeddings\": 131072}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_SPLIT_HALF);
    parse_ok("{\"model_type\": \"ernie4_5_moe\", \"hidden_size\": 2560, \"num_attention_heads\": 20,"
             " \"head_dim\": 128, \"max_position_embeddings\": 131072}");
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    ck_assert_double_eq(model.rope.rope_theta, 500000.0);
    /* Qwen3-Next: partial 0.25 of head_dim 256; three of every four layers
     * linear attention (full_attention_interval 4), said in a warning. */
    parse_ok("{\"model_type\": \"qwen3_next\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 262144, \"rope_theta\": 10000000}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_int_eq(model.n_layer_types, 0);
    ck_assert(warned_about("full_attention_interval"));
    ck_assert_ptr_nonnull(strstr(model.warnings[0], "36 of 48 layers are linear attention"));
    parse_fails_naming("{\"model_type\": \"qwen3_next\", \"hidden_size\": 2048, \"num_attention_heads\": 16,"
                       " \"max_position_embeddings\": 4096, \"num_hidden_layers\": 2, \"layer_types\": [\"x\", \"y\"]}",
                       "layer_types");
    /* Lfm2Config: kwargs.get("theta", rope_theta), the original key wins. */
    parse_ok("{\"model_type\": \"lfm2\", \"hidden_size\": 1024, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 128000, \"rope_theta\": 5000.0, \"theta\": 1000000.0}");
    ck_assert_double_eq(model.rope.rope_theta, 1000000.0);
    parse_ok("{\"model_type\": \"lfm2\", \"hidden_size\": 1024, \"num_attention_heads\": 16,"
             " \"max_position_embeddings\": 128000}");
    ck_assert_double_eq(model.rope.rope_theta, 1000000.0);
    /* GraniteMoeShared is GraniteMoE's attention: hidden / heads only. */
    parse_fails_naming("{\"model_type\": \"granitemoeshared\", \"hidden_size\": 1024, \"num_attention_heads\": 16,"
                       " \"head_dim\": 128, \"max_position_embeddings\": 4096}", "head_dim");
    /* MiniMax: lightning-attention layers (the odd ones by default) have
     * no positions, said in a warning. */
    parse_ok("{\"model_type\": \"minimax\", \"hidden_size\": 6144, \"num_attention_heads\": 64,"
             " \"max_position_embeddings\": 131072, \"num_hidden_layers\": 4}");
    ck_assert(warned_about("layer_types"));
    ck_assert_ptr_nonnull(strstr(model.warnings[0], "2 of 4 layers are linear attention (lightning attention"));
    /* LongCat-Flash: MLA's 64-channel slice, adjacent pairs; head_dim
     * (the rotary module's) must be that slice. */
    parse_ok("{\"model_type\": \"longcat_flash\", \"hidden_size\": 6144, \"num_attention_heads\": 64,"
             " \"max_position_embeddings\": 131072}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    ck_assert_double_eq(model.rope.rope_theta, 10000000.0);
    parse_fails_naming("{\"model_type\": \"longcat_flash\", \"hidden_size\": 6144, \"num_attention_heads\": 64,"
                       " \"max_position_embeddings\": 131072, \"qk_rope_head_dim\": 32}", "qk_rope_head_dim");
    /* The T5 family's buckets: MT5 as T5; UMT5's bias in every layer
     * warned (the buckets are certified, not the tables). */
    parse_ok("{\"model_type\": \"mt5\", \"num_heads\": 6, \"d_kv\": 64}");
    ck_assert_int_eq(model.kind, PECERT_PE_T5);
    ck_assert_int_eq(model.n_warnings, 0);
    parse_ok("{\"model_type\": \"umt5\", \"num_heads\": 6, \"d_kv\": 64, \"relative_attention_num_buckets\": 64}");
    ck_assert_int_eq(model.t5_num_buckets, 64);
    ck_assert(warned_about("relative_attention_num_buckets"));
    /* LongT5's local windows warned; Pix2Struct's buckets are its
     * text_config's, its vision encoder named; CPM-Ant's under its own
     * keys (512 buckets over 2048 by default), its segment buckets warned. */
    parse_ok("{\"model_type\": \"longt5\", \"num_heads\": 12, \"d_kv\": 64, \"encoder_attention_type\": "
             "\"transient-global\"}");
    ck_assert(warned_about("encoder_attention_type"));
    /* n_positions (T5Config's length in transformers 2-3, in t5-base's and
     * LongT5's files) is read by nothing now: said, not refused. */
    parse_ok("{\"model_type\": \"t5\", \"num_heads\": 12, \"d_kv\": 64, \"n_positions\": 512}");
    ck_assert_int_eq(model.kind, PECERT_PE_T5);
    ck_assert(warned_about("n_positions"));
    parse_ok("{\"model_type\": \"pix2struct\", \"text_config\": {\"model_type\": \"pix2struct_text_model\","
             " \"num_heads\": 12, \"d_kv\": 64, \"relative_attention_num_buckets\": 32,"
             " \"relative_attention_max_distance\": 128}}");
    ck_assert_int_eq(model.t5_num_buckets, 32);
    ck_assert_ptr_nonnull(strstr(model.vision_note, "row and column embeddings"));
    parse_fails_naming("{\"model_type\": \"pix2struct\", \"text_config\": {\"relative_attention_max_distance\": 8}}",
                       "text_config.relative_attention_max_distance");
    parse_ok("{\"model_type\": \"cpmant\", \"num_attention_heads\": 32, \"dim_head\": 128}");
    ck_assert_int_eq(model.t5_num_buckets, 512);
    ck_assert_int_eq(model.t5_max_distance, 2048);
    ck_assert(warned_about("segment_types"));
    parse_fails_naming("{\"model_type\": \"cpmant\", \"position_bias_num_buckets\": 512,"
                       " \"position_bias_max_distance\": 200}",
                       "position_bias_max_distance");
    /* WavLM: T5's bidirectional buckets under its own keys (320, 800 by
     * default); the gate and the convolutional positions warned. */
    parse_ok("{\"model_type\": \"wavlm\", \"num_conv_pos_embeddings\": 128}");
    ck_assert_int_eq(model.kind, PECERT_PE_T5);
    ck_assert_int_eq(model.t5_num_buckets, 320);
    ck_assert_int_eq(model.t5_max_distance, 800);
    ck_assert(warned_about("num_buckets"));
    parse_ok("{\"model_type\": \"wavlm\", \"num_buckets\": 64, \"max_bucket_distance\": 256}");
    ck_assert_int_eq(model.t5_max_distance, 256);
    /* JetMoE: the head is kv_channels wide (head_dim's alias), not
     * hidden_size / num_attention_heads. */
    parse_ok("{\"model_type\": \"jetmoe\", \"hidden_size\": 2048, \"num_attention_heads\": 32,"
             " \"num_key_value_heads\": 16, \"kv_channels\": 96, \"max_position_embeddings\": 4096}");
    ck_assert_int_eq(model.rope.head_dim, 96);
    ck_assert_int_eq(model.rope.rotary_dim, 96);
    /* Chameleon: Olmo2's strict scaling rule; its stateful dynamic class
     * refused, its linear one the linear angles. */
    parse_ok("{\"model_type\": \"chameleon\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"type\": \"linear\", \"factor\": 2.0}}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_LINEAR);
    parse_fails_naming("{\"model_type\": \"chameleon\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2.0}}",
                       "rope_scaling.type");
    parse_fails_naming("{\"model_type\": \"chameleon\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2.0}}",
                       "rope_scaling");
    /* CSM: the backbone's rope; its depth decoder named as not certified. */
    parse_ok("{\"model_type\": \"csm\", \"hidden_size\": 2048, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 2048}");
    ck_assert_double_eq(model.rope.rope_theta, 500000.0);
    ck_assert_ptr_nonnull(strstr(model.position_note, "depth decoder"));
    /* CodeGen is GPT-J's scheme; a null rotary_dim builds the table n_embd
     * wide, which only a single head can use. */
    parse_ok("{\"model_type\": \"codegen\", \"n_embd\": 4096, \"n_head\": 16, \"n_positions\": 2048}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    parse_fails_naming("{\"model_type\": \"codegen\", \"n_embd\": 4096, \"n_head\": 16, \"n_positions\": 2048,"
                       " \"rotary_dim\": null}", "rotary_dim");
    parse_ok("{\"model_type\": \"gptj\", \"n_embd\": 64, \"n_head\": 1, \"n_positions\": 2048, \"rotary_dim\": null}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    /* GPTNeoXJapaneseConfig: GPT-NeoX's keys, the whole head by default. */
    parse_ok("{\"model_type\": \"gpt_neox_japanese\", \"hidden_size\": 2560, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 2048}");
    ck_assert_int_eq(model.rope.rotary_dim, 80);
    parse_ok("{\"model_type\": \"gpt_neox_japanese\", \"hidden_size\": 2560, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 2048, \"rotary_pct\": 0.5, \"rotary_emb_base\": 20000}");
    ck_assert_int_eq(model.rope.rotary_dim, 40);
    ck_assert_double_eq(model.rope.rope_theta, 20000.0);
    /* Persimmon's attention and GLM's apply rotate half the head. */
    parse_ok("{\"model_type\": \"persimmon\", \"hidden_size\": 4096, \"num_attention_heads\": 64,"
             " \"max_position_embeddings\": 16384}");
    ck_assert_int_eq(model.rope.rotary_dim, 32);
    ck_assert_double_eq(model.rope.rope_theta, 25000.0);
    parse_ok("{\"model_type\": \"glm\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 131072}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_INTERLEAVED);
    /* ESM: position_embedding_type rotary rotates the whole head at base
     * 10000 (RotaryEmbedding(head_dim)); absolute (the default) is
     * RoBERTa's rows from pad_token_id, which EsmConfig leaves None;
     * relative_key is no family pecert has. */
    parse_ok("{\"model_type\": \"esm\", \"hidden_size\": 1280, \"num_attention_heads\": 20,"
             " \"position_embedding_type\": \"rotary\", \"pad_token_id\": 1}");
    ck_assert_int_eq(model.kind, PECERT_PE_ROPE);
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_double_eq(model.rope.rope_theta, 10000.0);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_SPLIT_HALF);
    parse_ok("{\"model_type\": \"esm\", \"hidden_size\": 1280, \"num_attention_heads\": 20,"
             " \"pad_token_id\": 1}");
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    ck_assert_int_eq(model.learned_rows, 1026);
    ck_assert_int_eq(model.learned_padding_idx, 1);
    parse_fails_naming("{\"model_type\": \"esm\", \"hidden_size\": 1280, \"num_attention_heads\": 20}",
                       "pad_token_id");
    parse_fails_naming("{\"model_type\": \"esm\", \"hidden_size\": 1280, \"num_attention_heads\": 20,"
                       " \"position_embedding_type\": \"relative_key\", \"pad_token_id\": 1}",
                       "position_embedding_type");
    /* Bamba: half the head at theta 10000 unless config.json says otherwise
     * (BambaConfig's body values are overwritten by its kwargs). */
    parse_ok("{\"model_type\": \"bamba\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"num_key_value_heads\": 8, \"max_position_embeddings\": 262144}");
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_double_eq(model.rope.rope_theta, 10000.0);
    parse_ok("{\"model_type\": \"bamba\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"max_position_embeddings\": 262144, \"partial_rotary_factor\": 1.0, \"rope_theta\": 500000}");
    ck_assert_int_eq(model.rope.rotary_dim, 128);
    ck_assert_double_eq(model.rope.rope_theta, 500000.0);
}
END_TEST

/* Falcon (FalconConfig, FalconAttention): one key/value head under
 * multi_query (whatever num_kv_heads says) unless new_decoder_architecture;
 * head_dim a read-only property; alibi true is Bloom's slopes, the bias
 * added before the 1/sqrt(head_dim) scale and rounded to bfloat16. */
START_TEST(falcon_is_falcon_attention_s)
{
    parse_ok("{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"num_attention_heads\": 71, \"num_kv_heads\": 71,"
             " \"multi_query\": true, \"new_decoder_architecture\": false, \"alibi\": false}");
    ck_assert_int_eq(model.kind, PECERT_PE_ROPE);
    ck_assert_int_eq(model.num_kv_heads, 1);
    ck_assert_int_eq(model.head_dim, 64);
    ck_assert_int_eq(model.max_position_embeddings, 2048); /* FalconConfig's default */
    ck_assert_double_eq(model.rope.rope_theta, 10000.0);
    parse_ok("{\"model_type\": \"falcon\", \"hidden_size\": 8192, \"num_attention_heads\": 128, \"num_kv_heads\": 8,"
             " \"multi_query\": true, \"new_decoder_architecture\": true}");
    ck_assert_int_eq(model.num_kv_heads, 8);
    parse_ok("{\"model_type\": \"falcon\", \"hidden_size\": 2048, \"num_attention_heads\": 32, \"multi_query\": false,"
             " \"alibi\": true, \"rope_theta\": 10000.0}");
    ck_assert_int_eq(model.kind, PECERT_PE_ALIBI);
    ck_assert_int_eq(model.num_kv_heads, 32);
    ck_assert_double_eq(model.alibi_max_bias, 8.0);
    ck_assert_double_eq(model.alibi_bias_scale, 0.125); /* 1/sqrt(64) */
    ck_assert_int_eq(model.alibi_bf16_reference, 1);
    parse_ok("{\"model_type\": \"bloom\", \"hidden_size\": 1024, \"n_head\": 16}");
    ck_assert_double_eq(model.alibi_bias_scale, 1.0);
    ck_assert_int_eq(model.alibi_bf16_reference, 0);
    parse_fails_naming("{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"num_attention_heads\": 71,"
                       " \"head_dim\": 64}", "head_dim");
    parse_fails_naming("{\"model_type\": \"falcon\", \"hidden_size\": 2048, \"num_attention_heads\": 32,"
                       " \"alibi\": true, \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2}}",
                       "rope_scaling");
}
END_TEST

/* Hunyuan's dynamic rope_scaling with alpha is a fixed base rope_theta *
 * alpha^(d/(d-2)) (HunYuanDenseV1RotaryEmbedding.__init__): for theta
 * 10000, alpha 1000, d 128 that is 10^4 * 10^(3 * 128/126) = 10^(7 +
 * 1/21) = 11158839.92..., the freq_base_train llama.cpp prints for the same
 * dict (PR #14425: 11158840). Its other keys are not read (a warning);
 * head_dim is required (the config class leaves it None). */
START_TEST(hunyuan_alpha_is_a_fixed_base)
{
    parse_ok("{\"model_type\": \"hunyuan_v1_dense\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"num_key_value_heads\": 8, \"head_dim\": 128, \"max_position_embeddings\": 262144,"
             " \"rope_theta\": 10000.0, \"rope_scaling\": {\"alpha\": 1000.0, \"beta_fast\": 32, \"beta_slow\": 1,"
             " \"factor\": 1.0, \"mscale\": 1.0, \"mscale_all_dim\": 1.0, \"type\": \"dynamic\"}}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_DEFAULT);
    ck_assert_double_eq_tol(model.rope.rope_theta, pow(10.0, 7.0 + 1.0 / 21.0), 1e-6);
    ck_assert_int_eq((int)lround(model.rope.rope_theta), 11158840);
    ck_assert_int_eq(model.rope.rotary_dim, 128);
    ck_assert(warned_about("rope_scaling.alpha"));
    ck_assert(warned_about("rope_scaling"));
    /* Without alpha it is the library's dynamic NTK. */
    parse_ok("{\"model_type\": \"hunyuan_v1_dense\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
             " \"head_dim\": 128, \"max_position_embeddings\": 32768,"
             " \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2.0}}");
    ck_assert_int_eq(model.rope.rope_type, PECERT_ROPE_DYNAMIC);
    parse_fails_naming("{\"model_type\": \"hunyuan_v1_dense\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 262144}", "head_dim");
    parse_fails_naming("{\"model_type\": \"hunyuan_v1_dense\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"head_dim\": 128, \"rope_scaling\": {\"type\": \"dynamic\", \"alpha\": 1000.0,"
                       " \"low_freq_factor\": 1}}", "rope_scaling.low_freq_factor");
    parse_fails_naming("{\"model_type\": \"hunyuan_v1_dense\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"head_dim\": 128, \"rope_scaling\": {\"type\": \"dynamic\", \"alpha\": -2}}",
                       "rope_scaling.alpha");
}
END_TEST

/* MEGA's rotary bias: shared_representation_size (64) turned whole at base
 * 10000 in halves, max_positions rows (2048), one vector per token; with
 * use_chunking the positions restart per chunk_size; "simple" refused. */
START_TEST(mega_rotary_bias_maps)
{
    parse_ok("{\"model_type\": \"mega\"}");
    ck_assert_int_eq(model.kind, PECERT_PE_ROPE);
    ck_assert_int_eq(model.rope.rotary_dim, 64);
    ck_assert_int_eq(model.rope.head_dim, 64);
    ck_assert_double_eq(model.rope.rope_theta, 10000.0);
    ck_assert_int_eq(model.max_position_embeddings, 2048);
    ck_assert_int_eq(model.pairing, PECERT_PAIRING_SPLIT_HALF);
    ck_assert(warned_about("relative_positional_bias"));
    parse_ok("{\"model_type\": \"mega\", \"shared_representation_size\": 128, \"use_chunking\": true,"
             " \"chunk_size\": 512}");
    ck_assert_int_eq(model.rope.rotary_dim, 128);
    ck_assert_int_eq(model.max_position_embeddings, 512);
    ck_assert(warned_about("use_chunking"));
    parse_fails_naming("{\"model_type\": \"mega\", \"relative_positional_bias\": \"simple\"}",
                       "relative_positional_bias");
    parse_fails_naming("{\"model_type\": \"mega\", \"use_chunking\": true}", "chunk_size");
    parse_fails_naming("{\"model_type\": \"mega\", \"shared_representation_size\": 63}",
                       "shared_representation_size");
}
END_TEST

/* Falcon's ALiBi attention: ref and fast certify falcon-rw-1b; the port
 * that adds the bias after the score scale (Bloom's order) is caught by
 * certify.alibi.attention and named; a plugin built for ABI 1.4 is never
 * sent the scale and is not certified for Falcon, but still for Bloom. */
START_TEST(falcon_alibi_attention_certifies)
{
    char vectors[1024];
    pecert_run_results res;
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), "falcon-rw-1b", err, sizeof(err)) == 0, "%s",
                  err);
    ck_assert_ptr_nonnull(pecert_certify_profile_vectors(vectors, sizeof(vectors), PECERT_SOURCE_DIR "/vectors",
                                                         "falcon-rw-1b"));
    ck_assert_int_eq(certify_model("ref", vectors), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_model("fast", vectors), PECERT_EXIT_PASS);
    ck_assert_int_eq(certify_results(&res, "mutants/alibi_bias_unscaled", vectors), PECERT_EXIT_FAIL);
    ck_assert_msg(res.n_findings >= 1 && strcmp(res.findings[0].id, "alibi_bias_scale") == 0, "first finding '%s'",
                  res.n_findings > 0 ? res.findings[0].id : "(none)");
    pecert_run_results_free(&res);
    ck_assert_int_eq(certify_results(&res, "testing/abi_v14", vectors), PECERT_EXIT_FAIL);
    const pecert_check_result *att = pecert_run_results_find(&res, "certify.alibi.attention");
    ck_assert_ptr_nonnull(att);
    ck_assert_int_eq(att->verdict, PECERT_VERDICT_UNSUPPORTED);
    ck_assert_msg(strstr(att->diagnosis, "is ABI 1.5, the plugin speaks 1.4") != NULL, "%s", att->diagnosis);
    pecert_run_results_free(&res);
    ck_assert_msg(pecert_certify_load_profile(&model, profiles_dir(), "bloom", err, sizeof(err)) == 0, "%s", err);
    ck_assert_ptr_nonnull(pecert_certify_profile_vectors(vectors, sizeof(vectors), PECERT_SOURCE_DIR "/vectors",
                                                         "bloom"));
    ck_assert_int_eq(certify_model("testing/abi_v14", vectors), PECERT_EXIT_PASS);
}
END_TEST

START_TEST(out_of_range_values_are_errors)
{
    /* Where the official code raises or computes no finite frequency. */
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"linear\", \"factor\": 0}"), "rope_scaling.factor");
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 4, \"beta_fast\": -1}"),
                       "rope_scaling.beta_fast"); /* math.log raises ValueError */
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"llama3\", \"factor\": 8, \"low_freq_factor\": 0,"
                                  " \"high_freq_factor\": 4, \"original_max_position_embeddings\": 2048}"),
                       "rope_scaling.low_freq_factor"); /* ZeroDivisionError */
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"yarn\", \"factor\": 4, \"truncate\": 0}"),
                       "rope_scaling.truncate");
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"longrope\", \"short_factor\": [1, 2], \"long_factor\": [1, 2]}"),
                       "rope_scaling.short_factor");
    parse_fails_naming("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 4096, \"partial_rotary_factor\": 1.5}",
                       "partial_rotary_factor");
    parse_fails_naming("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 4096, \"rope_theta\": -1}",
                       "rope_theta");
    parse_fails_naming("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 0}",
                       "max_position_embeddings");
    parse_fails_naming("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
                       " \"max_position_embeddings\": 32768, \"rope_scaling\": {\"type\": \"mrope\","
                       " \"mrope_section\": [16, 24, 16]}}",
                       "rope_scaling.mrope_section");
    /* Found by the fuzzer: an element past int32_t was cast unchecked. */
    parse_fails_naming("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
                       " \"max_position_embeddings\": 32768, \"rope_scaling\": {\"type\": \"mrope\","
                       " \"mrope_section\": [8, 4444444444444444444444444444444244]}}",
                       "rope_scaling.mrope_section");
    parse_fails_naming("{\"model_type\": \"t5\", \"num_heads\": 12, \"relative_attention_num_buckets\": 32,"
                       " \"relative_attention_max_distance\": 8}",
                       "relative_attention_max_distance");
    /* Fewer channels than heads: head_dim would be 0. Once read
     * "hidden_size: required", of a key that was there. */
    parse_fails_naming("{\"model_type\": \"llama\", \"hidden_size\": 16, \"num_attention_heads\": 32}",
                       "hidden_size: 16 is smaller than num_attention_heads = 32: head_dim = hidden_size // "
                       "num_attention_heads would be 0 (give head_dim)");
    parse_fails_naming("[1, 2]", "(document)");
    parse_fails_naming("{\"model_type\": ", "not valid JSON (near byte 15)");
}
END_TEST

/* A LongRoPE factor list longer than pecert's storage (rotary_dim/2 >
 * PECERT_CERTIFY_MAX_FACTORS) is refused by name, never written past the
 * arrays (it was a heap overflow: 513 entries aborted, 1024 segfaulted). */
START_TEST(longrope_lists_beyond_storage_are_errors)
{
    static char json[1 << 15];
    static char list[1 << 13];
    size_t n = 0;
    for (int i = 0; i < 1024; i++) {
        n += (size_t)snprintf(list + n, sizeof(list) - n, "%s1", i == 0 ? "[" : ",");
    }
    snprintf(list + n, sizeof(list) - n, "]");
    snprintf(json, sizeof(json),
             "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 2,"
             " \"max_position_embeddings\": 4096, \"rope_scaling\": {\"rope_type\": \"longrope\","
             " \"factor\": 2.0, \"short_factor\": %s, \"long_factor\": %s}}",
             list, list);
    parse_fails_naming(json, "rope_scaling.short_factor");
    ck_assert_ptr_nonnull(strstr(err, "at most 512"));
}
END_TEST

/* config.json as Python reads it, or refused: Python's json keeps the last
 * of two equal keys where cJSON's lookups see the first, so a duplicate is
 * an error naming it (the exploit: "rope_scaling": null, then a llama3
 * block, certified as default rope); a \u0000 or a NUL byte would cut a
 * string short unseen ("llama\u0000evil" read as "llama"). */
START_TEST(ambiguous_json_is_refused)
{
    parse_fails_naming("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
                       " \"max_position_embeddings\": 131072, \"rope_scaling\": null, \"rope_scaling\": {\"rope_type\":"
                       " \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0,"
                       " \"original_max_position_embeddings\": 8192}}",
                       "rope_scaling: duplicate key");
    parse_fails_naming(LLAMA_WITH("{\"rope_type\": \"linear\", \"factor\": 2, \"factor\": 4}"),
                       "rope_scaling.factor: duplicate key");
    parse_fails_naming("{\"model_type\": \"llama\\u0000evil\", \"hidden_size\": 4096}", "\\u0000");
    parse_fails_naming("{\"model_type\": \"ll\xff\"}", "invalid UTF-8");
    char out[2048];
    char dir[] = "/tmp/pecert-nul-XXXXXX";
    char path[256];
    char cmd[1024];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/config.json", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    static const char text[] = "{\"model_type\": \"llama\"}\0{\"rope_scaling\": 1}";
    fwrite(text, 1, sizeof(text) - 1, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "certify --config %s --print", path);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "%s", cmd), PECERT_EXIT_USAGE);
    ck_assert_msg(strstr(out, "NUL byte at offset 23") != NULL, "%s", out);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* --print states what the checkpoint runs with though its config does
 * not spell it out: YaRN's defaults as _compute_yarn_parameters reads
 * them (beta_fast 32, beta_slow 1, truncate true) and the attention
 * factor ref derives. Expected on paper: the Qwen2.5 config has factor 4
 * and no attention_factor, so 0.1 ln 4 + 1 = 1.1386294361119891 (the
 * double nearest, printed with %.17g); the gpt-oss-20b profile sets
 * beta_fast 32, beta_slow 1, truncate false and factor 32, so no default
 * line and 0.1 ln 32 + 1 = 1.3465735902799727. */
START_TEST(print_states_yarn_defaults_and_attention_factor)
{
    char out[8192];
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --config %s/tests/data/qwen2.5-yarn-config.json --print",
                                 PECERT_SOURCE_DIR),
                     0);
    ck_assert_msg(strstr(out, "beta_fast                          32 (default)\n") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "beta_slow                          1 (default)\n") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "truncate                           true (default)\n") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "attention factor (cos, sin x)      1.1386294361119891 (ref: 0.1 ln(factor) + 1") !=
                      NULL,
                  "%s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile gpt-oss-20b --print"), 0);
    ck_assert_msg(strstr(out, "(default)") == NULL, "%s", out);
    ck_assert_msg(strstr(out, "truncate                           false\n") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "attention factor (cos, sin x)      1.3465735902799727") != NULL, "%s", out);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile llama-2-7b --print"), 0);
    ck_assert_msg(strstr(out, "attention factor") == NULL, "%s", out);
}
END_TEST

/* The command: exit 2 and the key on stderr for an unknown rope_scaling
 * key; the legacy `type` key certifies like rope_type. */
static int run_certify_cmd(const char *config_json, const char *extra, char *out, size_t out_len)
{
    char dir[] = "/tmp/pecert-certify-XXXXXX";
    char path[512];
    char cmd[2048];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/config.json", dir);
    test_write_text(path, config_json);
    snprintf(cmd, sizeof(cmd), "%s/pecert certify --config %s %s 2>%s/err >/dev/null", test_build_dir(), path,
             extra, dir);
    int status = system(cmd);
    snprintf(path, sizeof(path), "%s/err", dir);
    FILE *f = fopen(path, "r");
    size_t n = f != NULL ? fread(out, 1, out_len - 1, f) : 0;
    out[n] = '\0';
    if (f != NULL) {
        fclose(f);
    }
    (void)remove(path);
    snprintf(path, sizeof(path), "%s/config.json", dir);
    (void)remove(path);
    (void)rmdir(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(command_exit_codes)
{
    char out[2048];
    char impl[512];
    snprintf(impl, sizeof(impl), "--impl %s/impls/ref.so", test_build_dir());
    ck_assert_int_eq(run_certify_cmd(LLAMA_WITH("{\"rope_type\": \"linear\", \"factor\": 2, \"scale\": 1}"), impl, out,
                                     sizeof(out)),
                     PECERT_EXIT_USAGE);
    ck_assert_msg(strstr(out, "rope_scaling.scale") != NULL, "stderr: %s", out);
    ck_assert_int_eq(run_certify_cmd(LLAMA_WITH("{\"type\": \"linear\", \"factor\": 2}"), impl, out, sizeof(out)),
                     PECERT_EXIT_PASS);
    ck_assert_int_eq(run_certify_cmd(LLAMA_WITH("{\"type\": \"linear\", \"factor\": 2}"), "", out, sizeof(out)),
                     PECERT_EXIT_USAGE);
}
END_TEST

/* certify's vector-set hash names the profile file, not where this
 * checkout keeps it: the same vectors copied elsewhere hash alike (it once
 * hashed the absolute path, so two checkouts never agreed). */
START_TEST(vector_set_hash_is_the_same_wherever_the_vectors_are)
{
    static char out[16384];
    char dir[] = "/tmp/pecert-vhash-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char hashes[2][64];
    for (int copy = 0; copy < 2; copy++) {
        char vectors[512] = "";
        if (copy == 1) {
            char cmd[1024];
            snprintf(cmd, sizeof(cmd), "mkdir -p %s/profiles && cp %s/vectors/profiles/llama-3.1-8b.json "
                     "%s/vectors/profiles/llama-3.1-8b.bin.z %s/profiles/", dir, PECERT_SOURCE_DIR, PECERT_SOURCE_DIR,
                     dir);
            ck_assert_int_eq(system(cmd), 0);
            snprintf(vectors, sizeof(vectors), "--vectors %s", dir);
        }
        ck_assert_int_eq(test_pecert(out, sizeof(out), "certify --profile llama-3.1-8b --impl ref %s --filter "
                                     "certify.mapping --no-timings --json %s/run%d.json", vectors, dir, copy), 0);
        char name[32];
        snprintf(name, sizeof(name), "run%d.json", copy);
        char *text = test_read_in(dir, name);
        const char *h = strstr(text, "\"fnv1a64:");
        ck_assert_msg(h != NULL, "%s", name);
        snprintf(hashes[copy], sizeof(hashes[copy]), "%.26s", h);
        free(text);
    }
    ck_assert_str_eq(hashes[0], hashes[1]);
    test_remove_dir(dir);
}
END_TEST

Suite *make_certify_suite(void)
{
    return test_suite_of("certify",
                         TEST_TCASE("core", 120,
                                    legacy_type_is_read_like_rope_type,
                                    rope_type_precedence_is_the_config_class_s,
                                    llama3_fields,
                                    llama3_low_equal_high_is_a_warning_and_computes,
                                    llama3_low_equal_high_certifies,
                                    official_warnings_are_warnings,
                                    phi3_validation_is_phi3_s,
                                    llama4_text_config_maps,
                                    llama4_profiles_catch_planted_bugs,
                                    per_layer_encodings_map,
                                    qwen3_vl_interleaved_mrope_maps,
                                    qwen_vl_text_types_map,
                                    encoder_decoder_stacks_map,
                                    absent_kv_heads_take_the_class_default,
                                    mllama_cross_attention_layers_are_nope,
                                    granite_hybrid_rotates_its_attention_layers,
                                    model_quirks_are_the_model_s,
                                    falcon_is_falcon_attention_s,
                                    hunyuan_alpha_is_a_fixed_base, mega_rotary_bias_maps,
                                    falcon_alibi_attention_certifies,
                                    per_layer_certify_reports_each_type,
                                    certify_names_planted_bugs_as_run_does,
                                    run_and_certify_agree,
                                    one_bug_one_lead,
                                    declined_encoding_is_the_reason,
                                    all_profiles_matrix,
                                    partial_rotary_factor_on_head_dim,
                                    gptj_rotary_dim_and_pairing,
                                    qwen2_vl_mrope_section,
                                    rope_models_read_their_own_keys,
                                    swin_family_reads_the_window,
                                    configs_as_transformers_saves_them,
                                    absent_keys_take_the_config_class_defaults,
                                    alibi_and_learned_families,
                                    every_profile_maps,
                                    certify_passes_ref_and_fails_planted_bugs, roberta_positions_start_past_pad_token_id,
                                    learned_rules_read_each_models_keys,
                                    mapping_bugs_caught_by_profile_vectors,
                                    print_states_yarn_defaults_and_attention_factor,
                                    vector_set_hash_is_the_same_wherever_the_vectors_are),
                         TEST_TCASE("limits", 0, non_positional_keys_ignored_null_is_absent),
                         TEST_TCASE("errors", 60,
                                    unknown_keys_are_errors,
                                    out_of_range_values_are_errors,
                                    longrope_lists_beyond_storage_are_errors,
                                    ambiguous_json_is_refused,
                                    command_exit_codes),
                         NULL);
}
