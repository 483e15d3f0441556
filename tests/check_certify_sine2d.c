/*
 * check_certify_sine2d.c - checkpoints of the DETR family, whose feature
 * maps take a 2-D sine embedding (certify_sine2d.c), and of RT-DETR's, whose
 * hybrid encoder adds a 2-D sin-cos table (certify_sincos2d.c): each model
 * type's width, temperatures, offset and mask, the refusals, and the
 * verdict: ref and fast certified, each porting bug's mutant not certified
 * and named, where the checkpoint is one it breaks.
 *
 * Every expected value is transformers v4.57.6's, read in the model's
 * modeling_*.py and configuration_*.py (the two mapping files' headers); the
 * inventory (make inventory) holds every default config to vectors the
 * model's own module recorded (vectors/mappings).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "certify_config.h"
#include "certify_passes.h"
#include "runner.h"
#include "suites.h"

static pecert_certify_model model;
static char err[1024];
#define parse_ok(json)                test_certify_parse_ok(&model, json, err, sizeof(err))
#define parse_fails_naming(json, key) test_certify_parse_fails_naming(&model, json, key, err, sizeof(err))

static void expect_sine(int32_t f, double ty, double tx, double offset, int reads_mask)
{
    ck_assert_int_eq(model.kind, PECERT_PE_SINE2D);
    ck_assert_msg(model.sine2d_feats == f && model.sine2d_temperature_y == ty && model.sine2d_temperature_x == tx &&
                      model.sine2d_offset == offset && model.sine2d_reads_mask == reads_mask &&
                      fabs(model.sine2d_scale - 2 * M_PI) < 1e-15,
                  "%s: F %d, temperatures %g/%g, offset %g, mask %d, scale %g", model.model_type,
                  (int)model.sine2d_feats, model.sine2d_temperature_y, model.sine2d_temperature_x, model.sine2d_offset,
                  (int)model.sine2d_reads_mask, model.sine2d_scale);
}

START_TEST(each_model_type_reads_its_own_embedding)
{
    /* build_position_encoding: n_steps = d_model // 2, temperature 10000. */
    parse_ok("{\"model_type\": \"detr\", \"d_model\": 256}");
    expect_sine(128, 10000, 10000, 0.0, 1);
    parse_ok("{\"model_type\": \"table-transformer\", \"d_model\": 512}");
    expect_sine(256, 10000, 10000, 0.0, 1);
    /* Deformable DETR and DETA: (cumsum - 0.5) / (last + eps) * scale. */
    parse_ok("{\"model_type\": \"deformable_detr\", \"d_model\": 256, \"max_position_embeddings\": 1024}");
    expect_sine(128, 10000, 10000, -0.5, 1);
    parse_ok("{\"model_type\": \"deta\", \"d_model\": 256}");
    expect_sine(128, 10000, 10000, -0.5, 1);
    /* Grounding DINO: config.positional_embedding_temperature (20). */
    parse_ok("{\"model_type\": \"grounding-dino\", \"d_model\": 256}");
    expect_sine(128, 20, 20, 0.0, 1);
    parse_ok("{\"model_type\": \"mm-grounding-dino\", \"d_model\": 256, \"positional_embedding_temperature\": 100}");
    expect_sine(128, 100, 100, 0.0, 1);
    /* DAB-DETR: hidden_size / 2, rows by temperature_height. */
    parse_ok("{\"model_type\": \"dab-detr\", \"hidden_size\": 256, \"temperature_height\": 30,"
             " \"temperature_width\": 40}");
    expect_sine(128, 30, 40, 0.0, 1);
    /* MaskFormer's family passes no mask. */
    parse_ok("{\"model_type\": \"maskformer\", \"decoder_config\": {\"d_model\": 512}}");
    expect_sine(256, 10000, 10000, 0.0, 0);
    parse_ok("{\"model_type\": \"mask2former\", \"hidden_dim\": 256, \"feature_size\": 256}");
    expect_sine(128, 10000, 10000, 0.0, 0);
    parse_ok("{\"model_type\": \"oneformer\"}");
    expect_sine(128, 10000, 10000, 0.0, 0);
}
END_TEST

START_TEST(refusals_name_the_key)
{
    parse_fails_naming("{\"model_type\": \"detr\", \"d_model\": 256, \"position_embedding_type\": \"learned\"}",
                       "position_embedding_type");
    /* n_steps = d_model // 2 must pair sin and cos. */
    parse_fails_naming("{\"model_type\": \"detr\", \"d_model\": 258}", "d_model");
    /* The pixel decoder's width and the transformer's differ: two embeddings. */
    parse_fails_naming("{\"model_type\": \"mask2former\", \"hidden_dim\": 256, \"feature_size\": 512}",
                       "feature_size");
    parse_fails_naming("{\"model_type\": \"grounding-dino\", \"d_model\": 256,"
                       " \"text_config\": {\"position_embedding_type\": \"relative_key\"}}",
                       "text_config.position_embedding_type");
    parse_fails_naming("{\"model_type\": \"maskformer\", \"decoder_config\": 5}", "decoder_config");
    parse_fails_naming("{\"model_type\": \"dab-detr\", \"hidden_size\": 256, \"temperature_height\": -1}",
                       "temperature_height");
}
END_TEST

static void expect_sincos(int32_t dim, double temperature)
{
    ck_assert_int_eq(model.kind, PECERT_PE_SINCOS2D);
    ck_assert_msg(model.sincos2d_dim == dim && model.sincos2d_base == temperature &&
                      model.sincos2d_layout == PECERT_SINCOS2D_RT_DETR,
                  "%s: width %d, temperature %g, layout %d", model.model_type, (int)model.sincos2d_dim,
                  model.sincos2d_base, (int)model.sincos2d_layout);
}

/* RTDetrHybridEncoder and its copies: encoder_hidden_dim (256) and
 * positional_encoding_temperature (10000), the class defaults; the table
 * exists only while eval_size is None. */
START_TEST(rt_detr_family_reads_its_table)
{
    parse_ok("{\"model_type\": \"rt_detr\"}");
    expect_sincos(256, 10000);
    parse_ok("{\"model_type\": \"rt_detr_v2\", \"encoder_hidden_dim\": 384, \"eval_size\": null}");
    expect_sincos(384, 10000);
    parse_ok("{\"model_type\": \"d_fine\", \"positional_encoding_temperature\": 100}");
    expect_sincos(256, 100);
    parse_ok("{\"model_type\": \"omdet-turbo\", \"encoder_hidden_dim\": 128}");
    expect_sincos(128, 10000);
    /* OmDetTurboConfig stores encoder_hidden_dim as d_model (attribute_map),
     * what its config.json holds, and d_model is set last. */
    parse_ok("{\"model_type\": \"omdet-turbo\", \"d_model\": 512}");
    expect_sincos(512, 10000);
    parse_ok("{\"model_type\": \"omdet-turbo\", \"encoder_hidden_dim\": 128, \"d_model\": 384}");
    expect_sincos(384, 10000);
    parse_ok("{\"model_type\": \"rt_detr\", \"d_model\": 512}");
    expect_sincos(256, 10000); /* RT-DETR's d_model is its decoder's */
    parse_fails_naming("{\"model_type\": \"rt_detr\", \"eval_size\": [640, 640]}", "eval_size");
    parse_fails_naming("{\"model_type\": \"d_fine\", \"encoder_hidden_dim\": 258}", "encoder_hidden_dim");
    parse_fails_naming("{\"model_type\": \"omdet-turbo\", \"positional_encoding_temperature\": 1}",
                       "positional_encoding_temperature");
}
END_TEST

/* ref, fast and an honest float32 engine certify RT-DETR; the row-major
 * numbering (transformers after v4.57.6) is caught on the non-square maps
 * and named; a plugin of ABI 1.4 has no RT-DETR layout to be asked for. */
START_TEST(rt_detr_porting_bug_is_caught_and_named)
{
    static const char rt_detr[] = "{\"model_type\": \"rt_detr\"}";
    static const char omdet[] = "{\"model_type\": \"omdet-turbo\", \"encoder_hidden_dim\": 384}";
    static const test_certify_case cases[] = {
        {rt_detr, "ref", ""},
        {rt_detr, "fast", ""},
        {omdet, "fast", ""},
        {rt_detr, "honest/ggml_recurrence", ""},
        {rt_detr, "mutants/sincos2d_rtdetr_row_major", "sincos2d_rtdetr_row_major"},
        {omdet, "mutants-f32/sincos2d_rtdetr_row_major", "sincos2d_rtdetr_row_major"},
    };
    test_certify_expect_leads(&model, cases, sizeof(cases) / sizeof(cases[0]));
    pecert_run_results res;
    test_certify_parse_ok(&model, rt_detr, err, sizeof(err));
    ck_assert_int_eq(test_certify_run(&res, &model, "testing/abi_v14", NULL, err, sizeof(err)), PECERT_EXIT_FAIL);
    const pecert_check_result *ref = pecert_run_results_find(&res, "certify.sincos2d.reference");
    ck_assert_ptr_nonnull(ref);
    ck_assert_int_eq(ref->verdict, PECERT_VERDICT_UNSUPPORTED);
    ck_assert_msg(strstr(ref->diagnosis, "is ABI 1.14, the plugin speaks 1.4") != NULL, "%s", ref->diagnosis);
    pecert_run_results_free(&res);
}
END_TEST

/* ref and fast certify each kind; each porting bug loses the certificate
 * of the checkpoints it breaks, named: a mask ignored is right for
 * Mask2Former, which passes none, and Deformable DETR's offset is wrong
 * for DETR. */
START_TEST(the_porting_bugs_are_caught_and_named)
{
    static const char detr[] = "{\"model_type\": \"detr\", \"d_model\": 256}";
    static const char deformable[] = "{\"model_type\": \"deformable_detr\", \"d_model\": 256}";
    static const char mask2former[] = "{\"model_type\": \"mask2former\"}";
    static const test_certify_case cases[] = {
        {detr, "ref", ""},
        {detr, "fast", ""},
        {deformable, "fast", ""},
        {mask2former, "fast", ""},
        {detr, "honest/official_f32", ""},
        {detr, "mutants/sine2d_mask_ignored", "sine2d_mask"},
        {mask2former, "mutants/sine2d_mask_ignored", ""},
        {detr, "mutants/sine2d_offset_swapped", "sine2d_offset"},
        {deformable, "mutants/sine2d_offset_swapped", "sine2d_offset"},
        {mask2former, "mutants/sine2d_halves", "sine2d_layout"},
        {deformable, "mutants/sine2d_axes_swapped", "sine2d_axes"},
    };
    test_certify_expect_leads(&model, cases, sizeof(cases) / sizeof(cases[0]));
}
END_TEST

Suite *make_certify_sine2d_suite(void)
{
    return test_suite_of("certify_sine2d",
                         TEST_TCASE("mapping", 0, each_model_type_reads_its_own_embedding, refusals_name_the_key,
                                    rt_detr_family_reads_its_table),
                         TEST_TCASE("run", 300, the_porting_bugs_are_caught_and_named,
                                    rt_detr_porting_bug_is_caught_and_named),
                         NULL);
}
