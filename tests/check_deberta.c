/*
 * check_deberta.c - DeBERTa's disentangled relative positions (ABI 1.13,
 * deberta_bias) in `ref`, `fast` and an honest float32 variant: buckets
 * and biases worked out on paper (the golden vectors check transformers'
 * code), and the refusals of bad arguments.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "certify_config.h"
#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

#define MAX_L 520

static float out_buf[MAX_L * MAX_L];

/* The row each (i, j) reads, read through the op: d = 2, the term's vector
 * (1, 0) at every token, the other 0, table row m = (2m, 0), so that the
 * bias is (1 * 2m) / sqrt(2 * 2) = m exactly. */
static void rows_of(const fast_handle *h, uint32_t term, int64_t len, int64_t buckets, int64_t max_position)
{
    static float x[MAX_L * 2], zero[MAX_L * 2], table[2 * 1024 * 2];
    int64_t span = buckets > 0 ? buckets : max_position;
    memset(x, 0, sizeof(x));
    memset(zero, 0, sizeof(zero));
    memset(table, 0, sizeof(table));
    for (int64_t i = 0; i < len; i++) {
        x[2 * i] = 1.0f;
    }
    for (int64_t m = 0; m < 2 * span; m++) {
        table[2 * m] = (float)(2 * m);
    }
    pecert_tensor tx = pecert_tensor_3d(x, 1, len, 2, len * 2, 2, 1);
    pecert_tensor tz = pecert_tensor_3d(zero, 1, len, 2, len * 2, 2, 1);
    pecert_tensor tt = pecert_tensor_3d(table, 1, 2 * span, 2, 4 * span, 2, 1);
    pecert_tensor to = pecert_tensor_3d(out_buf, 1, len, len, len * len, len, 1);
    pecert_deberta_args a = {.struct_size = sizeof(a), .terms = term, .bucket_size = buckets,
                             .max_position = max_position, .out = &to};
    a.q = term == PECERT_DEBERTA_C2P ? &tx : &tz;
    a.k = term == PECERT_DEBERTA_C2P ? &tz : &tx;
    a.pos_key = term == PECERT_DEBERTA_C2P ? &tt : NULL;
    a.pos_query = term == PECERT_DEBERTA_P2C ? &tt : NULL;
    ck_assert_int_eq(h->plugin.desc->deberta_bias(h->instance, &a), PECERT_OK);
}

/* The row at query i, key j, against want. */
static void expect_row(const char *engine, const char *term, int64_t len, int64_t i, int64_t j, double want)
{
    double got = out_buf[i * len + j];
    ck_assert_msg(got == want, "%s %s: L %lld, i - j = %lld: row %.9g, want %.9g", engine, term, (long long)len,
                  (long long)(i - j), got, want);
}

/* ---- on paper ------------------------------------------------------------------ */

/*
 * DeBERTa-v3's buckets, 256 over 512 positions (mid 128, span 256):
 * b(r) = r for |r| <= 128, so r = 100 reads row 356 and r = -100 row 156;
 * b(129): 127 ln(129/128) / ln(511/128) = 127 * 0.0077821 / 1.3843369 =
 * 0.714, ceiled to 1: 129, row 385; b(511) = 128 + 127 exactly (the two
 * logarithms are of one value): 255, row 511; b(-512): 127 ln 4 /
 * ln 3.9921875 = 127.18, ceiled to 128: -256, row 0 (clamped: row -0 + 0),
 * and b(-511) = -255, row 1. Both terms read the same row. Without
 * buckets (v1, span 512): r = -5 reads row 507.
 */
START_TEST(test_on_paper)
{
    static const struct {
        int64_t i, j;
        double row;
    } v3[] = {{100, 0, 356}, {0, 100, 156}, {129, 0, 385}, {511, 0, 511}, {0, 511, 1}, {0, 512, 0}};
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        const char *e = abi_engines[p];
        for (int term = 1; term <= 2; term++) {
            const char *name = term == 1 ? "c2p" : "p2c";
            rows_of(&h, (uint32_t)term, 513, 256, 512);
            for (size_t k = 0; k < ARRAY_LEN(v3); k++) {
                expect_row(e, name, 513, v3[k].i, v3[k].j, v3[k].row);
            }
            rows_of(&h, (uint32_t)term, 8, -1, 512);
            expect_row(e, name, 8, 0, 5, 507);
            expect_row(e, name, 8, 7, 0, 519);
        }
        builtin_close(&h);
    }
}
END_TEST

/*
 * Both terms: d = 1, one head, q = [1, 2], k = [3, 5], tables of 4 rows
 * (no buckets, max_position 2: span 2) pk = [1, 10, 100, 1000], pq =
 * [2, 20, 200, 2000]; s = sqrt(1 * 3). Pair (i, j) reads row i - j + 2:
 * (0, 0) row 2: (1 * 100 + 3 * 200) / s = 700 / s; (0, 1) row 1: (1 * 10 +
 * 5 * 20) / s = 110 / s; (1, 0) row 3: (2 * 1000 + 3 * 2000) / s = 8000 / s;
 * (1, 1) row 2: (2 * 100 + 5 * 200) / s = 1200 / s. A second head-batch
 * row (n = 2, H = 1) reads the same table.
 */
START_TEST(test_both_terms_on_paper)
{
    float q[4] = {1, 2, 1, 2}, k[4] = {3, 5, 3, 5}, pk[4] = {1, 10, 100, 1000}, pq[4] = {2, 20, 200, 2000};
    const double s = sqrt(3.0), want[4] = {700 / s, 110 / s, 8000 / s, 1200 / s};
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        float out[8];
        pecert_tensor tq = pecert_tensor_3d(q, 2, 2, 1, 2, 1, 1);
        pecert_tensor tk = pecert_tensor_3d(k, 2, 2, 1, 2, 1, 1);
        pecert_tensor tpk = pecert_tensor_3d(pk, 1, 4, 1, 4, 1, 1);
        pecert_tensor tpq = pecert_tensor_3d(pq, 1, 4, 1, 4, 1, 1);
        pecert_tensor to = pecert_tensor_3d(out, 2, 2, 2, 4, 2, 1);
        pecert_deberta_args a = {.struct_size = sizeof(a), .terms = PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C,
                                 .bucket_size = -1, .max_position = 2, .q = &tq, .k = &tk, .pos_key = &tpk,
                                 .pos_query = &tpq, .out = &to};
        ck_assert_int_eq(h.plugin.desc->deberta_bias(h.instance, &a), PECERT_OK);
        for (int e = 0; e < 8; e++) {
            ck_assert_msg(fabs(out[e] - want[e % 4]) <= 1e-6 * fabs(want[e % 4]), "%s: out[%d] = %.9g, want %.9g",
                          abi_engines[p], e, (double)out[e], want[e % 4]);
        }
        builtin_close(&h);
    }
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

static void expect_refusal(const fast_handle *h, const char *name, pecert_deberta_args a, const float *out,
                           size_t n, pecert_status want, const char *field)
{
    expect_refused(h, name, h->plugin.desc->deberta_bias(h->instance, &a), want, field);
    expect_unwritten(out, n, -7.0f, name, field);
}

START_TEST(test_refusals)
{
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        float q[2 * 3 * 2] = {0}, k[2 * 3 * 2] = {0}, pk[8 * 2] = {0}, pq[8 * 2] = {0}, out[2 * 3 * 3];
        fill_f32(out, ARRAY_LEN(out), -7.0f);
        pecert_tensor tq = pecert_tensor_3d(q, 2, 3, 2, 6, 2, 1);
        pecert_tensor tk = pecert_tensor_3d(k, 2, 3, 2, 6, 2, 1);
        pecert_tensor tpk = pecert_tensor_3d(pk, 1, 8, 2, 16, 2, 1);
        pecert_tensor tpq = pecert_tensor_3d(pq, 1, 8, 2, 16, 2, 1);
        pecert_tensor to = pecert_tensor_3d(out, 2, 3, 3, 9, 3, 1);
        const pecert_deberta_args good = {.struct_size = sizeof(good),
                                          .terms = PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C, .bucket_size = 4,
                                          .max_position = 8, .q = &tq, .k = &tk, .pos_key = &tpk,
                                          .pos_query = &tpq, .out = &to};
        size_t n = ARRAY_LEN(out);
        const char *e = abi_engines[p];
        pecert_deberta_args a = good;
        a.terms = 0;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "terms");
        a = good;
        a.bucket_size = 3;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "bucket_size");
        a = good;
        a.max_position = 3; /* max_position - 1 = mid: no range for the logarithms */
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "max_position");
        a = good;
        a.pos_query = NULL;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "pos_query");
        a = good;
        a.terms = PECERT_DEBERTA_C2P;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "pos_query");
        pecert_tensor three_heads = pecert_tensor_3d(pk, 3, 4, 1, 4, 1, 1);
        a = good;
        a.pos_key = &three_heads;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "pos_key");
        pecert_tensor short_table = pecert_tensor_3d(pk, 1, 6, 2, 12, 2, 1);
        a = good;
        a.pos_key = &short_table;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "pos_key");
        pecert_tensor short_out = pecert_tensor_3d(out, 2, 3, 2, 6, 2, 1);
        a = good;
        a.out = &short_out;
        expect_refusal(&h, e, a, out, n, PECERT_E_INVAL, "out");
        a = good;
        a.reserved[3] = 1;
        expect_refusal(&h, e, a, out, n, PECERT_E_UNSUPPORTED, "reserved");
        a = good;
        a.struct_size = 8;
        expect_refusal(&h, e, a, out, n, PECERT_E_ABI, "struct_size");
        ck_assert_int_eq(h.plugin.desc->deberta_bias(h.instance, &good), PECERT_OK);
        builtin_close(&h);
    }
}
END_TEST

/* ---- certify: a checkpoint's pos_att_type, buckets and span ------------------------------- */

static pecert_certify_model model;
static char err[1024];

/* DebertaV2Config / DebertaConfig read as DisentangledSelfAttention reads
 * them (certify_deberta.c): max_relative_positions -1 is
 * max_position_embeddings, position_buckets -1 none, pos_att_type a list or
 * a "|" string in any case; relative_attention false is the absolute
 * table. */
START_TEST(test_certify_mapping)
{
    test_certify_parse_ok(&model, "{\"model_type\": \"deberta-v2\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                          " \"relative_attention\": true, \"position_buckets\": 256, \"pos_att_type\": [\"p2c\", \"c2p\"],"
                          " \"position_biased_input\": false}", err, sizeof(err));
    ck_assert_int_eq(model.kind, PECERT_PE_DEBERTA);
    ck_assert_int_eq(model.deberta_bucket_size, 256);
    ck_assert_int_eq(model.deberta_max_position, 512);
    ck_assert_int_eq(model.deberta_terms, PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C);
    ck_assert_int_eq(model.head_dim, 64);
    test_certify_parse_ok(&model, "{\"model_type\": \"deberta\", \"relative_attention\": true, \"pos_att_type\": \"C2P\","
                          " \"max_relative_positions\": 128, \"position_buckets\": 64}", err, sizeof(err));
    ck_assert_int_eq(model.deberta_bucket_size, -1); /* v1 reads no buckets */
    ck_assert_int_eq(model.deberta_max_position, 128);
    ck_assert_int_eq(model.deberta_terms, PECERT_DEBERTA_C2P);
    ck_assert(test_certify_warned_about(&model, "position_buckets"));
    ck_assert(test_certify_warned_about(&model, "position_biased_input"));
    test_certify_parse_ok(&model, "{\"model_type\": \"deberta-v2\", \"hidden_size\": 1536, \"num_attention_heads\": 24,"
                          " \"attention_head_size\": 128, \"relative_attention\": true, \"pos_att_type\": \"p2c\"}",
                          err, sizeof(err));
    ck_assert_int_eq(model.head_dim, 128);
    ck_assert_int_eq(model.deberta_terms, PECERT_DEBERTA_P2C);
    test_certify_parse_ok(&model, "{\"model_type\": \"deberta-v2\", \"hidden_size\": 768, \"num_attention_heads\": 12}",
                          err, sizeof(err));
    ck_assert_int_eq(model.kind, PECERT_PE_LEARNED);
    static const char *const refused[][2] = {
        {"{\"model_type\": \"deberta-v2\", \"relative_attention\": true}", "pos_att_type"},
        {"{\"model_type\": \"deberta-v2\", \"relative_attention\": true, \"pos_att_type\": \"c2p|p2p\"}", "pos_att_type"},
        {"{\"model_type\": \"deberta-v2\", \"relative_attention\": true, \"pos_att_type\": \"c2p\","
         " \"position_buckets\": 255}", "position_buckets"},
        {"{\"model_type\": \"deberta-v2\", \"relative_attention\": true, \"pos_att_type\": \"c2p\","
         " \"position_buckets\": 1024}", "position_buckets"},
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        test_certify_parse_fails_naming(&model, refused[i][0], refused[i][1], err, sizeof(err));
    }
}
END_TEST

/* ref, fast and an honest float32 engine certify DeBERTa-v3's and v1's
 * settings; every released port's bug is caught and named by certify. */
START_TEST(test_certify_runs)
{
    static const char v3[] = "{\"model_type\": \"deberta-v2\", \"hidden_size\": 768, \"num_attention_heads\": 12,"
                             " \"relative_attention\": true, \"position_buckets\": 256, \"pos_att_type\": \"p2c|c2p\","
                             " \"position_biased_input\": false}";
    static const char v1[] = "{\"model_type\": \"deberta\", \"relative_attention\": true, \"pos_att_type\": \"c2p|p2c\","
                             " \"position_biased_input\": false}";
    static const test_certify_case cases[] = {
        {v3, "ref", ""},
        {v3, "fast", ""},
        {v1, "fast", ""},
        {v3, "honest/official_f32", ""},
        {v3, "mutants/deberta_p2c_sign_flipped", "deberta_p2c_sign"},
        {v3, "mutants/deberta_length_as_max_position", "deberta_length_as_max_position"},
        {v3, "mutants-f32/deberta_integer_ratio", "deberta_integer_ratio"},
        {v1, "mutants/deberta_c2p_no_span", "deberta_c2p_no_span"},
        {v1, "mutants-f32/deberta_scale_no_sqrt", "deberta_scale_no_sqrt"},
    };
    test_certify_expect_leads(&model, cases, sizeof(cases) / sizeof(cases[0]));
}
END_TEST

Suite *make_deberta_suite(void)
{
    return test_suite_of("deberta",
                         TEST_TCASE("deberta", 60, test_on_paper, test_both_terms_on_paper, test_refusals),
                         TEST_TCASE("certify", 300, test_certify_mapping, test_certify_runs), NULL);
}
