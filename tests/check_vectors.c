/*
 * check_vectors.c - unit tests of the golden-vector loader (harness/vectors.h).
 *
 * Every test builds its vector file from scratch in a mkdtemp directory:
 * a manifest as a cJSON tree (printed with sorted keys, as the generator
 * does) and a payload written and zlib-compressed by the test itself, so
 * the tests do not depend on the generator. Malformed files are the valid
 * one plus one mutation; each must fail with a message naming the field.
 *
 * TCases: core (valid files, API contract, listing, committed vectors),
 * limits (every limit at and past its edge, message truncation), errors
 * (one malformed file per row of bad_cases[], and a mutation fuzz loop).
 */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <cJSON.h>
#include <zlib.h>

#include "json_text.h"
#include "suites.h"
#include "vectors.h"

/* ---- building vector files --------------------------------------------- */

/* One vector file under construction. */
typedef struct tv {
    char dir[64];            /* mkdtemp directory                       */
    char json_path[128];     /* dir/t.json                              */
    char bin_path[128];      /* dir/t.bin.z                             */
    cJSON *root;             /* the manifest                            */
    unsigned char *raw;      /* decompressed payload                    */
    size_t raw_len;
    size_t raw_cap;
    unsigned char *z;        /* compressed payload, as written          */
    size_t z_len;
    char *text;              /* manifest text override, or NULL         */
    size_t text_len;
    int no_payload;          /* 1 = do not write the payload file       */
} tv;

static tv g_tv;

static const char commit_hex[] = "753d61104116eefc8ffc977327b441ee0c8d599f";

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");

    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    ck_assert(len == 0 || fwrite(data, 1, len, f) == len);
    ck_assert(fclose(f) == 0);
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *ent;

    if (d == NULL) {
        (void)unlink(path);
        return;
    }
    while ((ent = readdir(d)) != NULL) {
        char child[512];

        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0) {
            continue;
        }
        (void)snprintf(child, sizeof child, "%s/%s", path, ent->d_name);
        remove_tree(child);
    }
    (void)closedir(d);
    (void)rmdir(path);
}

static size_t dtype_size(const char *dtype)
{
    return (strcmp(dtype, "f64") == 0 || strcmp(dtype, "i64") == 0) ? 8 : 4;
}

/* Element k of a tensor at byte offset off: a value the tests can
 * predict (k + 0.25 for floats, 3k for integers). */
static void fill_elem(unsigned char *dst, const char *dtype, size_t k)
{
    if (strcmp(dtype, "f32") == 0) {
        float v = (float)k + 0.25f;

        memcpy(dst, &v, sizeof v);
    } else if (strcmp(dtype, "f64") == 0) {
        double v = (double)k + 0.25;

        memcpy(dst, &v, sizeof v);
    } else if (strcmp(dtype, "i64") == 0) {
        int64_t v = (int64_t)k * 3;

        memcpy(dst, &v, sizeof v);
    } else {
        int32_t v = (int32_t)k * 3;

        memcpy(dst, &v, sizeof v);
    }
}

/* Append a tensor to the payload (8-aligned) and return its tensor ref. */
static cJSON *tv_tensor(tv *v, const char *dtype, int ndim,
                        const int64_t *shape)
{
    size_t es = dtype_size(dtype);
    size_t count = 1;
    size_t off = (v->raw_len + 7) / 8 * 8;
    cJSON *t = cJSON_CreateObject();
    cJSON *s = cJSON_AddArrayToObject(t, "shape");

    for (int i = 0; i < ndim; i++) {
        count *= (size_t)shape[i];
        cJSON_AddItemToArray(s, cJSON_CreateNumber((double)shape[i]));
    }
    if (off + count * es > v->raw_cap) {
        v->raw_cap = (off + count * es) * 2 + 64;
        v->raw = realloc(v->raw, v->raw_cap);
        ck_assert(v->raw != NULL);
    }
    memset(v->raw + v->raw_len, 0, off - v->raw_len);
    for (size_t k = 0; k < count; k++) {
        fill_elem(v->raw + off + k * es, dtype, k);
    }
    v->raw_len = off + count * es;
    cJSON_AddStringToObject(t, "dtype", dtype);
    cJSON_AddNumberToObject(t, "offset", (double)off);
    cJSON_AddNumberToObject(t, "nbytes", (double)(count * es));
    cJSON_AddNumberToObject(t, "crc32",
                            (double)crc32_z(0, v->raw + off, count * es));
    return t;
}

static cJSON *make_config(const char *type, int head_dim, int rotary_dim)
{
    cJSON *c = cJSON_CreateObject();

    cJSON_AddStringToObject(c, "rope_type", type);
    cJSON_AddNumberToObject(c, "rope_theta", 10000);
    cJSON_AddNumberToObject(c, "head_dim", head_dim);
    cJSON_AddNumberToObject(c, "rotary_dim", rotary_dim);
    cJSON_AddNumberToObject(c, "max_position_embeddings", 2048);
    return c;
}

/* A test object; flags is a comma-separated list ("" = none). */
static cJSON *make_test(int tc_id, const char *op, const char *flags,
                        cJSON *config, int64_t seq_len, const char *pairing)
{
    cJSON *t = cJSON_CreateObject();
    cJSON *fl = cJSON_CreateArray();
    cJSON *src = cJSON_CreateObject();
    cJSON *params = cJSON_CreateObject();
    char buf[128];

    (void)snprintf(buf, sizeof buf, "%s", flags);
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        cJSON_AddItemToArray(fl, cJSON_CreateString(tok));
    }
    cJSON_AddNumberToObject(t, "tcId", tc_id);
    cJSON_AddStringToObject(t, "op", op);
    cJSON_AddStringToObject(t, "comment", "generated by check_vectors.c");
    cJSON_AddItemToObject(t, "flags", fl);
    cJSON_AddStringToObject(src, "file",
                            "src/transformers/modeling_rope_utils.py");
    cJSON_AddStringToObject(src, "function", "_compute_default_rope_parameters");
    cJSON_AddItemToObject(t, "source", src);
    cJSON_AddItemToObject(t, "config", config);
    cJSON_AddNumberToObject(params, "seq_len", (double)seq_len);
    if (pairing != NULL) {
        cJSON_AddStringToObject(params, "pairing", pairing);
    }
    cJSON_AddItemToObject(t, "params", params);
    cJSON_AddItemToObject(t, "inputs", cJSON_CreateObject());
    cJSON_AddItemToObject(t, "outputs", cJSON_CreateObject());
    return t;
}

static void add_tensor(tv *v, cJSON *test, const char *group,
                       const char *name, const char *dtype, int ndim,
                       const int64_t *shape)
{
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(test, group), name,
                          tv_tensor(v, dtype, ndim, shape));
}

static void add_note(cJSON *notes, const char *flag, const char *bug_type)
{
    cJSON *n = cJSON_CreateObject();

    cJSON_AddStringToObject(n, "bugType", bug_type);
    cJSON_AddStringToObject(n, "description", "why this vector exists");
    cJSON_AddItemToObject(notes, flag, n);
}

static cJSON *make_header(void)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *prov = cJSON_CreateObject();
    cJSON *pkgs = cJSON_CreateObject();
    cJSON *notes = cJSON_CreateObject();

    cJSON_AddStringToObject(root, "schema", PECERT_VECTORS_SCHEMA);
    cJSON_AddStringToObject(root, "family", "rope");
    cJSON_AddStringToObject(root, "description", "loader unit-test vectors");
    cJSON_AddStringToObject(root, "generator", "tests/check_vectors.c");
    cJSON_AddStringToObject(prov, "repo", "huggingface/transformers");
    cJSON_AddStringToObject(prov, "commit", commit_hex);
    cJSON_AddStringToObject(prov, "tag", "v4.57.6");
    cJSON_AddStringToObject(pkgs, "torch", "1.13.0a0");
    cJSON_AddStringToObject(pkgs, "python", "3.11.2");
    cJSON_AddItemToObject(prov, "packages", pkgs);
    cJSON_AddItemToObject(root, "provenance", prov);
    cJSON_AddItemToObject(root, "payload", cJSON_CreateObject());
    add_note(notes, "basic", "Functionality");
    add_note(notes, "yarn_mscale", "EdgeCase");
    add_note(notes, "longrope", "Functionality");
    add_note(notes, "edge_empty", "EdgeCase");
    add_note(notes, "unused", "Documentation");
    cJSON_AddItemToObject(root, "notes", notes);
    return root;
}

/* tests[1]: yarn with every optional scalar key. */
static cJSON *make_yarn_config(void)
{
    cJSON *c = make_config("yarn", 16, 8);

    cJSON_AddNumberToObject(c, "factor", 4);
    cJSON_AddNumberToObject(c, "original_max_position_embeddings", 4096);
    cJSON_AddNumberToObject(c, "top_original_max_position_embeddings", 4096);
    cJSON_AddNumberToObject(c, "attention_factor", 1.25);
    cJSON_AddNumberToObject(c, "beta_fast", 32);
    cJSON_AddNumberToObject(c, "beta_slow", 1);
    cJSON_AddNumberToObject(c, "mscale", 0.707);
    cJSON_AddNumberToObject(c, "mscale_all_dim", 0.5);
    cJSON_AddNumberToObject(c, "low_freq_factor", 1);
    cJSON_AddNumberToObject(c, "high_freq_factor", 4);
    cJSON_AddFalseToObject(c, "truncate");
    return c;
}

static cJSON *make_longrope_config(void)
{
    static const double s[4] = {1.0, 1.5, 2.0, 2.5};
    static const double l[4] = {4.0, 8.0, 16.0, 32.0};
    cJSON *c = make_config("longrope", 8, 8);

    cJSON_AddItemToObject(c, "short_factor", cJSON_CreateDoubleArray(s, 4));
    cJSON_AddItemToObject(c, "long_factor", cJSON_CreateDoubleArray(l, 4));
    cJSON_AddNumberToObject(c, "top_original_max_position_embeddings", 4096);
    return c;
}

static cJSON *make_llama3_config(void)
{
    cJSON *c = make_config("llama3", 16, 8);

    cJSON_AddNumberToObject(c, "factor", 8);
    cJSON_AddNumberToObject(c, "low_freq_factor", 1);
    cJSON_AddNumberToObject(c, "high_freq_factor", 4);
    cJSON_AddNumberToObject(c, "original_max_position_embeddings", 8192);
    return c;
}

static void tv_add_tests(tv *v, cJSON *tests)
{
    static const int64_t half[1] = {4};
    static const int64_t n5[1] = {5};
    static const int64_t n5x4[2] = {5, 4};
    static const int64_t t3[1] = {3};
    static const int64_t t3x2x16[3] = {3, 2, 16};
    static const int64_t t0[1] = {0};
    static const int64_t t0x2x16[3] = {0, 2, 16};
    cJSON *linear = make_config("linear", 16, 16);
    cJSON *t;

    t = make_test(1, "rope.freq", "basic", make_config("default", 16, 8), 0,
                  NULL);
    add_tensor(v, t, "outputs", "inv_freq", "f32", 1, half);
    add_tensor(v, t, "outputs", "attention_scaling", "f64", 0, NULL);
    cJSON_AddItemToArray(tests, t);
    t = make_test(2, "rope.freq", "yarn_mscale,basic", make_yarn_config(),
                  8192, NULL);
    add_tensor(v, t, "outputs", "inv_freq", "f32", 1, half);
    add_tensor(v, t, "outputs", "attention_scaling", "f64", 0, NULL);
    cJSON_AddItemToArray(tests, t);
    t = make_test(3, "rope.cos_sin", "longrope", make_longrope_config(), 0,
                  NULL);
    add_tensor(v, t, "inputs", "positions", "i64", 1, n5);
    add_tensor(v, t, "outputs", "cos", "f32", 2, n5x4);
    add_tensor(v, t, "outputs", "sin", "f32", 2, n5x4);
    cJSON_AddItemToArray(tests, t);
    t = make_test(7, "rope.apply", "", make_llama3_config(), 3,
                  "interleaved");
    add_tensor(v, t, "inputs", "positions", "i64", 1, t3);
    add_tensor(v, t, "inputs", "x", "f32", 3, t3x2x16);
    add_tensor(v, t, "outputs", "out", "f32", 3, t3x2x16);
    cJSON_AddItemToArray(tests, t);
    cJSON_AddNumberToObject(linear, "factor", 2);
    t = make_test(5, "rope.apply", "edge_empty", linear, 0, "split_half");
    add_tensor(v, t, "inputs", "positions", "i64", 1, t0);
    add_tensor(v, t, "inputs", "x", "f32", 3, t0x2x16);
    add_tensor(v, t, "outputs", "out", "f32", 3, t0x2x16);
    cJSON_AddItemToArray(tests, t);
}

/* ---- a file with one test of every op of the other families ----------- */

static cJSON *obj(const char *json)
{
    cJSON *o = cJSON_Parse(json);

    ck_assert_msg(o != NULL, "bad JSON in test: %s", json);
    return o;
}

/* A family test: config and params given as JSON text. */
static cJSON *fam_test(int tc_id, const char *op, const char *config,
                       const char *params)
{
    cJSON *t = make_test(tc_id, op, "basic", obj(config), 0, NULL);

    cJSON_ReplaceItemInObjectCaseSensitive(t, "params", obj(params));
    return t;
}

static void fv_add_tests(tv *v, cJSON *tests)
{
    static const int64_t n4[1] = {4}, n1[1] = {1}, n3[1] = {3}, n5[1] = {5};
    static const int64_t h2q1k3[3] = {2, 1, 3}, s3x8[2] = {3, 8}, t6x4[2] = {6, 4};
    static const int64_t n2[1] = {2}, s2x4[2] = {2, 4}, s7x8[2] = {7, 8};
    static const int64_t s6x6[2] = {6, 6}, s2x3[2] = {2, 3}, s5x8[2] = {5, 8};
    static const int64_t s2x3x2[3] = {2, 3, 2}, g1x3[2] = {1, 3}, g0x3[2] = {0, 3};
    static const int64_t p3x2x4[3] = {3, 2, 4}, p3x2[2] = {3, 2}, x2x1x8[3] = {2, 1, 8};
    static const int64_t g2x3[2] = {2, 3}, r2x7[2] = {2, 7}, r2x2[2] = {2, 2};
    static const int64_t t5x4[2] = {5, 4}, o13x4[2] = {13, 4};
    static const int64_t c2x4[2] = {2, 4}, c3x4[2] = {3, 4}, c4x5[2] = {4, 5}, c2x3[2] = {2, 3};
    static const int64_t p7x2[2] = {7, 2}, k2x3x3[3] = {2, 3, 3}, b2[1] = {2};
    cJSON *t;

    t = fam_test(1, "alibi.slopes", "{\"num_heads\": 4, \"max_bias\": 8}", "{}");
    add_tensor(v, t, "outputs", "slopes", "f64", 1, n4);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(2, "alibi.bias", "{\"num_heads\": 2, \"max_bias\": 8}",
                 "{\"symmetric\": false}");
    add_tensor(v, t, "inputs", "q_positions", "i64", 1, n1);
    add_tensor(v, t, "inputs", "k_positions", "i64", 1, n3);
    add_tensor(v, t, "outputs", "bias", "f32", 3, h2q1k3);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(3, "t5.bucket", "{\"bidirectional\": true, \"num_buckets\": 32, "
                                 "\"max_distance\": 128}", "{}");
    add_tensor(v, t, "inputs", "relative_position", "i64", 1, n5);
    add_tensor(v, t, "outputs", "bucket", "i64", 1, n5);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(4, "sinusoidal.embed", "{\"variant\": \"fairseq\", \"dim\": 8, "
                                        "\"base\": 10000, \"padding_idx\": 1}", "{}");
    add_tensor(v, t, "inputs", "positions", "i64", 1, n3);
    add_tensor(v, t, "outputs", "embedding", "f32", 2, s3x8);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(5, "learned.lookup", "{\"convention\": \"padding_offset\", "
                                      "\"padding_idx\": 1}", "{}");
    add_tensor(v, t, "inputs", "table", "f32", 2, t6x4);
    add_tensor(v, t, "inputs", "positions", "i64", 1, n2);
    add_tensor(v, t, "outputs", "embedding", "f32", 2, s2x4);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(6, "sincos2d.embed", "{\"embed_dim\": 8, \"grid_h\": 2, \"grid_w\": 3, "
                                      "\"cls_token\": true, \"base\": 10000}", "{}");
    add_tensor(v, t, "outputs", "embedding", "f64", 2, s7x8);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(7, "swin.index", "{\"window_h\": 2, \"window_w\": 3}", "{}");
    add_tensor(v, t, "outputs", "index", "i64", 2, s6x6);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(8, "shaw.index", "{\"max_relative_position\": 2}", "{}");
    add_tensor(v, t, "inputs", "q_positions", "i64", 1, n2);
    add_tensor(v, t, "inputs", "k_positions", "i64", 1, n3);
    add_tensor(v, t, "outputs", "index", "i64", 2, s2x3);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(9, "txl.pos_emb", "{\"d_model\": 8, \"clamp_len\": -1}",
                 "{\"klen\": 5}");
    add_tensor(v, t, "outputs", "pos_emb", "f32", 2, s5x8);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(10, "txl.rel_shift", "{}", "{\"zero_triu\": false}");
    add_tensor(v, t, "inputs", "x", "f32", 3, s2x3x2);
    add_tensor(v, t, "outputs", "out", "f32", 3, s2x3x2);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(11, "mrope.index", "{\"spatial_merge_size\": 2, \"image_token_id\": 5, "
                                    "\"video_token_id\": 6, \"vision_start_token_id\": 4}",
                 "{}");
    add_tensor(v, t, "inputs", "input_ids", "i64", 2, s2x4);
    add_tensor(v, t, "inputs", "attention_mask", "i64", 2, s2x4);
    add_tensor(v, t, "inputs", "image_grid_thw", "i64", 2, g1x3);
    add_tensor(v, t, "inputs", "video_grid_thw", "i64", 2, g0x3);
    add_tensor(v, t, "outputs", "position_ids", "i64", 3, p3x2x4);
    add_tensor(v, t, "outputs", "deltas", "i64", 1, n2);
    cJSON_AddItemToArray(tests, t);
    t = make_test(12, "mrope.apply", "basic", make_config("default", 8, 8), 0, "split_half");
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(t, "config"), "mrope_section",
                          obj("[1, 2, 1]"));
    add_tensor(v, t, "inputs", "positions", "i64", 2, p3x2);
    add_tensor(v, t, "inputs", "x", "f32", 3, x2x1x8);
    add_tensor(v, t, "outputs", "out", "f32", 3, x2x1x8);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(13, "rope2d.index", "{\"scheme\": \"row_major_cls\", \"spatial_merge_size\": 1}", "{}");
    add_tensor(v, t, "inputs", "grid_thw", "i64", 2, g2x3);
    add_tensor(v, t, "outputs", "positions", "i64", 2, r2x7);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(14, "rope2d.apply", "{\"frequencies\": \"alternate\", \"columns_first\": false, "
                                    "\"head_dim\": 8, \"theta\": 10000}",
                 "{\"pairing\": \"interleaved\"}");
    add_tensor(v, t, "inputs", "positions", "i64", 2, r2x2);
    add_tensor(v, t, "inputs", "x", "f32", 3, x2x1x8);
    add_tensor(v, t, "outputs", "out", "f32", 3, x2x1x8);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(15, "posinterp.resize", "{\"mode\": \"bicubic\", \"align_corners\": false, \"antialias\": false, "
                                        "\"prefix_tokens\": 1, \"merge_size\": 1, \"grid_h\": 2, \"grid_w\": 2, "
                                        "\"out_h\": 3, \"out_w\": 4, \"scale_h\": 0, \"scale_w\": 0}",
                 "{}");
    add_tensor(v, t, "inputs", "table", "f32", 2, t5x4);
    add_tensor(v, t, "outputs", "out", "f32", 2, o13x4);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(16, "cope.logits", "{\"npos\": 5, \"nodiv\": false, \"masked\": true, \"gates\": \"keys\"}", "{}");
    add_tensor(v, t, "inputs", "q", "f32", 2, c2x4);
    add_tensor(v, t, "inputs", "k", "f32", 2, c3x4);
    add_tensor(v, t, "inputs", "gate_k", "f32", 2, c3x4);
    add_tensor(v, t, "inputs", "pos_emb", "f32", 2, c4x5);
    add_tensor(v, t, "inputs", "mask", "f32", 2, c2x3);
    add_tensor(v, t, "outputs", "positions", "f64", 2, c2x3);
    add_tensor(v, t, "outputs", "logits", "f64", 2, c2x3);
    cJSON_AddItemToArray(tests, t);
    t = fam_test(17, "peg.apply", "{\"prefix_tokens\": 1, \"grid_h\": 2, \"grid_w\": 3, \"kernel\": 3}", "{}");
    add_tensor(v, t, "inputs", "x", "f32", 2, p7x2);
    add_tensor(v, t, "inputs", "weight", "f32", 3, k2x3x3);
    add_tensor(v, t, "inputs", "bias", "f32", 1, b2);
    add_tensor(v, t, "outputs", "out", "f64", 2, p7x2);
    cJSON_AddItemToArray(tests, t);
}

/* Set the payload's three numbers from raw and z. */
static void tv_set_payload_decl(tv *v)
{
    cJSON *p = cJSON_GetObjectItemCaseSensitive(v->root, "payload");

    cJSON_DeleteItemFromObjectCaseSensitive(p, "file");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "raw_bytes");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "compressed_bytes");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "crc32");
    cJSON_AddStringToObject(p, "file", "t.bin.z");
    cJSON_AddNumberToObject(p, "raw_bytes", (double)v->raw_len);
    cJSON_AddNumberToObject(p, "compressed_bytes", (double)v->z_len);
    cJSON_AddNumberToObject(p, "crc32",
                            (double)crc32_z(0, v->raw, v->raw_len));
}

/* Compress src into v->z (level 9, as the generator does). */
static void tv_compress(tv *v, const unsigned char *src, size_t len)
{
    uLongf z_len = compressBound((uLong)len);

    free(v->z);
    v->z = malloc(z_len);
    ck_assert(v->z != NULL);
    ck_assert(compress2(v->z, &z_len, src, (uLong)len, 9) == Z_OK);
    v->z_len = z_len;
}

/* Recompress raw and update the declaration: after changing payload
 * bytes on purpose, only the tensor CRCs disagree. */
static void tv_seal(tv *v)
{
    tv_compress(v, v->raw, v->raw_len);
    tv_set_payload_decl(v);
}

static void tv_build_with(tv *v, void (*add)(tv *, cJSON *))
{
    cJSON *tests = cJSON_CreateArray();

    v->root = make_header();
    add(v, tests);
    cJSON_AddNumberToObject(v->root, "numberOfTests",
                            cJSON_GetArraySize(tests));
    cJSON_AddItemToObject(v->root, "tests", tests);
    tv_seal(v);
}


static int cmp_item_key(const void *a, const void *b)
{
    const cJSON *x = *(cJSON *const *)a;
    const cJSON *y = *(cJSON *const *)b;

    return strcmp(x->string, y->string);
}

/* Sort object keys recursively (the generator writes sorted keys). */
static void sort_keys(cJSON *item)
{
    cJSON *a[64];
    size_t n = 0;

    for (cJSON *c = item->child; c != NULL; c = c->next) {
        sort_keys(c);
        n++;
    }
    if (!cJSON_IsObject(item) || n < 2 || n > 64) {
        return;
    }
    n = 0;
    for (cJSON *c = item->child; c != NULL; c = c->next) {
        a[n++] = c;
    }
    qsort(a, n, sizeof a[0], cmp_item_key);
    for (size_t i = 0; i < n; i++) {
        a[i]->next = i + 1 < n ? a[i + 1] : NULL;
        a[i]->prev = i > 0 ? a[i - 1] : a[n - 1];
    }
    item->child = a[0];
}

static void tv_write(tv *v)
{
    if (v->text != NULL) {
        write_file(v->json_path, v->text, v->text_len);
    } else {
        char *text;

        sort_keys(v->root);
        text = cJSON_Print(v->root);
        ck_assert(text != NULL);
        write_file(v->json_path, text, strlen(text));
        free(text);
    }
    if (v->no_payload) {
        (void)unlink(v->bin_path);
    } else {
        write_file(v->bin_path, v->z, v->z_len);
    }
}

/* Replace the manifest by raw text (for what a tree cannot express). */
static void tv_set_text(tv *v, const char *text, size_t len)
{
    free(v->text);
    v->text = malloc(len + 1);
    ck_assert(v->text != NULL);
    memcpy(v->text, text, len);
    v->text[len] = '\0';
    v->text_len = len;
}

static void tv_setup_with(void (*add)(tv *, cJSON *))
{
    memset(&g_tv, 0, sizeof g_tv);
    (void)snprintf(g_tv.dir, sizeof g_tv.dir, "/tmp/pecert-vec-XXXXXX");
    ck_assert(mkdtemp(g_tv.dir) != NULL);
    (void)snprintf(g_tv.json_path, sizeof g_tv.json_path, "%s/t.json",
                   g_tv.dir);
    (void)snprintf(g_tv.bin_path, sizeof g_tv.bin_path, "%s/t.bin.z",
                   g_tv.dir);
    tv_build_with(&g_tv, add);
}

static void tv_setup(void)
{
    tv_setup_with(tv_add_tests);
}

static void fv_setup(void)
{
    tv_setup_with(fv_add_tests);
}

static void tv_teardown(void)
{
    cJSON_Delete(g_tv.root);
    free(g_tv.raw);
    free(g_tv.z);
    free(g_tv.text);
    if (g_tv.dir[0] != '\0') {
        remove_tree(g_tv.dir);
    }
    memset(&g_tv, 0, sizeof g_tv);
}

/* ---- addressing the manifest: "tests[3].outputs.inv_freq.shape[0]" ---- */

static cJSON *tv_node(cJSON *root, const char *path)
{
    cJSON *cur = root;
    const char *p = path;

    while (cur != NULL && *p != '\0') {
        char key[64];
        size_t n = strcspn(p, ".[");

        ck_assert(n < sizeof key);
        memcpy(key, p, n);
        key[n] = '\0';
        p += n;
        if (n > 0) {
            cur = cJSON_GetObjectItemCaseSensitive(cur, key);
        }
        while (cur != NULL && *p == '[') {
            cur = cJSON_GetArrayItem(cur, atoi(p + 1));
            p = strchr(p, ']') + 1;
        }
        if (*p == '.') {
            p++;
        }
    }
    return cur;
}

/* Split "a.b[2].c" into parent "a.b[2]" and last part "c" (or "[i]"). */
static cJSON *tv_parent(tv *v, const char *path, const char **last)
{
    char parent[256];
    const char *dot = strrchr(path, '.');
    const char *bra = strrchr(path, '[');
    const char *cut = dot > bra ? dot : bra;
    cJSON *node;

    if (cut == NULL) {
        *last = path;
        return v->root;
    }
    ck_assert((size_t)(cut - path) < sizeof parent);
    memcpy(parent, path, (size_t)(cut - path));
    parent[cut - path] = '\0';
    *last = *cut == '.' ? cut + 1 : cut;
    node = tv_node(v->root, parent);
    ck_assert_msg(node != NULL, "no node %s", parent);
    return node;
}

/* Set path to the JSON value json (replacing or adding); NULL deletes. */
static void tv_set(tv *v, const char *path, const char *json)
{
    const char *last;
    cJSON *parent = tv_parent(v, path, &last);
    cJSON *val = json != NULL ? cJSON_Parse(json) : NULL;

    ck_assert_msg(json == NULL || val != NULL, "bad JSON in test: %s", json);
    if (*last == '[') {
        int i = atoi(last + 1);

        if (val == NULL) {
            cJSON_DeleteItemFromArray(parent, i);
        } else {
            ck_assert(cJSON_ReplaceItemInArray(parent, i, val));
        }
    } else if (val == NULL) {
        ck_assert_msg(cJSON_GetObjectItemCaseSensitive(parent, last) != NULL,
                      "no key %s", path);
        cJSON_DeleteItemFromObjectCaseSensitive(parent, last);
    } else if (cJSON_GetObjectItemCaseSensitive(parent, last) != NULL) {
        ck_assert(cJSON_ReplaceItemInObjectCaseSensitive(parent, last, val));
    } else {
        cJSON_AddItemToObject(parent, last, val);
    }
}

/* ---- loading ----------------------------------------------------------- */

static int tv_load(tv *v, pecert_vfile *f, char *err, size_t err_len)
{
    tv_write(v);
    return pecert_vfile_load(f, v->json_path, err, err_len);
}

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++) {
        if (b[i] != 0) {
            return 0;
        }
    }
    return 1;
}

/* Load must fail with one line "json_path: ...expect..." and leave the
 * file zeroed. */
static void expect_fail(tv *v, const char *expect)
{
    pecert_vfile f;
    char err[1024];
    size_t plen = strlen(v->json_path);

    memset(&f, 0xAB, sizeof f);
    ck_assert_int_eq(tv_load(v, &f, err, sizeof err), -1);
    ck_assert_msg(all_zero(&f, sizeof f), "file not zeroed after failure");
    ck_assert_msg(strncmp(err, v->json_path, plen) == 0 &&
                      strncmp(err + plen, ": ", 2) == 0,
                  "message does not start with the path: %s", err);
    ck_assert_msg(strchr(err, '\n') == NULL, "multi-line message: %s", err);
    ck_assert_msg(strstr(err, expect) != NULL, "expected \"%s\" in: %s",
                  expect, err);
    pecert_vfile_free(&f);
}

static void expect_ok(tv *v, pecert_vfile *f)
{
    char err[1024];

    ck_assert_msg(tv_load(v, f, err, sizeof err) == 0, "load failed: %s", err);
    ck_assert_str_eq(err, "");
}

static const pecert_vtest *test_by_id(const pecert_vfile *f, int64_t id)
{
    for (size_t i = 0; i < f->n_tests; i++) {
        if (f->tests[i].tc_id == id) {
            return &f->tests[i];
        }
    }
    ck_abort_msg("no tcId %lld", (long long)id);
    return NULL;
}

/* ---- core -------------------------------------------------------------- */

START_TEST(core_load_valid)
{
    pecert_vfile f;

    expect_ok(&g_tv, &f);
    ck_assert_str_eq(f.path, g_tv.json_path);
    ck_assert_str_eq(f.family, "rope");
    ck_assert_str_eq(f.description, "loader unit-test vectors");
    ck_assert_str_eq(f.generator, "tests/check_vectors.c");
    ck_assert_str_eq(f.prov_repo, "huggingface/transformers");
    ck_assert_str_eq(f.prov_commit, commit_hex);
    ck_assert_str_eq(f.prov_tag, "v4.57.6");
    ck_assert_uint_eq(f.n_notes, 5);
    ck_assert_uint_eq(f.n_tests, 5);
    ck_assert_ptr_nonnull(f.internal);
    for (size_t i = 0; i < f.n_notes; i++) {
        ck_assert_str_eq(f.notes[i].description, "why this vector exists");
        if (strcmp(f.notes[i].flag, "yarn_mscale") == 0) {
            ck_assert_str_eq(f.notes[i].bug_type, "EdgeCase");
        }
    }
    /* File order is kept, not tcId order. */
    ck_assert_int_eq(f.tests[3].tc_id, 7);
    ck_assert_int_eq(f.tests[4].tc_id, 5);
    ck_assert_str_eq(f.tests[0].op, "rope.freq");
    ck_assert_str_eq(f.tests[0].comment, "generated by check_vectors.c");
    ck_assert_str_eq(f.tests[0].source_file,
                     "src/transformers/modeling_rope_utils.py");
    ck_assert_str_eq(f.tests[0].source_function,
                     "_compute_default_rope_parameters");
    ck_assert_uint_eq(f.tests[1].n_flags, 2);
    ck_assert_str_eq(f.tests[1].flags[0], "yarn_mscale");
    ck_assert_str_eq(f.tests[1].flags[1], "basic");
    ck_assert_uint_eq(f.tests[3].n_flags, 0);
    pecert_vfile_free(&f);
    ck_assert(all_zero(&f, sizeof f));
}
END_TEST

START_TEST(core_tensors)
{
    pecert_vfile f;
    const pecert_vtest *t;
    const pecert_vtensor *x;
    const float *xf;
    const int64_t *pos;

    expect_ok(&g_tv, &f);
    t = test_by_id(&f, 1);
    ck_assert_uint_eq(t->n_inputs, 0);
    ck_assert_uint_eq(t->n_outputs, 2);
    x = pecert_vtest_output(t, "inv_freq");
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(x->dtype, PECERT_DTYPE_F32);
    ck_assert_uint_eq(x->ndim, 1);
    ck_assert_int_eq(x->shape[0], 4);
    ck_assert_int_eq(x->num_elements, 4);
    xf = x->data;
    ck_assert_float_eq(xf[2], 2.25f);
    x = pecert_vtest_output(t, "attention_scaling");
    ck_assert_int_eq(x->dtype, PECERT_DTYPE_F64);
    ck_assert_uint_eq(x->ndim, 0);
    ck_assert_int_eq(x->num_elements, 1);
    ck_assert_double_eq(*(const double *)x->data, 0.25);
    t = test_by_id(&f, 7);
    pos = pecert_vtest_input(t, "positions")->data;
    ck_assert_int_eq(pos[2], 6);
    x = pecert_vtest_input(t, "x");
    ck_assert_int_eq(x->shape[0], 3);
    ck_assert_int_eq(x->shape[1], 2);
    ck_assert_int_eq(x->shape[2], 16);
    ck_assert_int_eq(x->num_elements, 96);
    ck_assert_float_eq(((const float *)x->data)[95], 95.25f);
    /* T = 0: empty tensors load, with a valid (unread) data pointer. */
    t = test_by_id(&f, 5);
    ck_assert_int_eq(pecert_vtest_output(t, "out")->num_elements, 0);
    ck_assert_ptr_nonnull(pecert_vtest_output(t, "out")->data);
    for (size_t i = 0; i < f.n_tests; i++) {
        for (size_t k = 0; k < f.tests[i].n_outputs; k++) {
            ck_assert_uint_eq((uintptr_t)f.tests[i].outputs[k].data % 8, 0);
        }
        for (size_t k = 0; k < f.tests[i].n_inputs; k++) {
            ck_assert_uint_eq((uintptr_t)f.tests[i].inputs[k].data % 8, 0);
        }
    }
    pecert_vfile_free(&f);
}
END_TEST

static void tv_set_num(tv *v, const char *path, double value);

/* The zlib stream's own Adler-32 is not computed (vec_io.c): the
 * manifest's crc32 of the decompressed bytes is the check, and a wrong
 * trailer over intact bytes loads; a stream cut inside its trailer is
 * still truncated. */
START_TEST(core_adler_trailer_not_checked)
{
    pecert_vfile f;

    g_tv.z[g_tv.z_len - 1] ^= 0xFF;
    expect_ok(&g_tv, &f);
    pecert_vfile_free(&f);
    g_tv.z_len -= 2;
    tv_set_num(&g_tv, "payload.compressed_bytes", (double)g_tv.z_len);
    expect_fail(&g_tv, ": payload: truncated zlib stream");
}
END_TEST

static int no_op_wanted(const char *op, void *ctx)
{
    (void)op;
    (void)ctx;
    return 0;
}

static int rope_apply_wanted(const char *op, void *ctx)
{
    (void)ctx;
    return strcmp(op, "rope.apply") == 0;
}

/* A run that reads none of a file's ops (pecert_vfile_load_for) reads its
 * manifest whole and not its payload: no payload file needed, every test
 * there; one op of the file wanted loads all of it. */
START_TEST(core_payload_only_when_wanted)
{
    pecert_vfile f;
    char err[512];

    g_tv.no_payload = 1;
    tv_write(&g_tv);
    ck_assert_int_eq(pecert_vfile_load_for(&f, g_tv.json_path, no_op_wanted, NULL, err, sizeof err), 0);
    ck_assert_int_eq(f.payload_loaded, 0);
    ck_assert_uint_eq(f.n_tests, 5);
    ck_assert_str_eq(f.tests[0].op, "rope.freq");
    pecert_vfile_free(&f);
    ck_assert_int_eq(pecert_vfile_load_for(&f, g_tv.json_path, rope_apply_wanted, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "t.bin.z"));
    g_tv.no_payload = 0;
    tv_write(&g_tv);
    ck_assert_int_eq(pecert_vfile_load_for(&f, g_tv.json_path, rope_apply_wanted, NULL, err, sizeof err), 0);
    ck_assert_int_eq(f.payload_loaded, 1);
    ck_assert_ptr_nonnull(pecert_vtest_output(&f.tests[0], "inv_freq")->data);
    pecert_vfile_free(&f);
}
END_TEST

/* A tensor of a payload the run did not load is never handed out: the
 * check's process ends (SIGABRT), naming the op. */
START_TEST(core_skipped_payload_read_aborts)
{
    pecert_vfile f;
    char err[512];

    tv_write(&g_tv);
    ck_assert_int_eq(pecert_vfile_load_for(&f, g_tv.json_path, no_op_wanted, NULL, err, sizeof err), 0);
    (void)pecert_vtest_output(&f.tests[0], "inv_freq");
}
END_TEST

/* The first payload byte no tensor of the manifest covers, or raw_len. */
static size_t first_uncovered_byte(const tv *v)
{
    unsigned char *covered = calloc(v->raw_len + 1, 1);
    const cJSON *t;
    size_t i = 0;

    ck_assert(covered != NULL);
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(v->root, "tests")) {
        const char *const groups[2] = {"inputs", "outputs"};
        for (int g = 0; g < 2; g++) {
            const cJSON *x;
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t, groups[g])) {
                size_t off = (size_t)cJSON_GetObjectItemCaseSensitive(x, "offset")->valuedouble;
                size_t n = (size_t)cJSON_GetObjectItemCaseSensitive(x, "nbytes")->valuedouble;
                memset(covered + off, 1, n);
            }
        }
    }
    while (i < v->raw_len && covered[i]) {
        i++;
    }
    free(covered);
    return i;
}

/* The loader reads each payload byte once: the whole payload's CRC is
 * built from the tensors' slices and the gaps between them (vectors.c,
 * slice_crcs). Slices that share bytes, or straddle another's end, still
 * load and point where they say; a changed byte in a gap (the padding
 * before an 8-aligned tensor) still fails the payload's CRC. */
START_TEST(core_overlapping_slices)
{
    pecert_vfile f;
    char text[64];
    const cJSON *x = tv_node(g_tv.root, "tests[3].inputs.x");
    size_t x_off = (size_t)cJSON_GetObjectItemCaseSensitive(x, "offset")->valuedouble;
    size_t x_len = (size_t)cJSON_GetObjectItemCaseSensitive(x, "nbytes")->valuedouble;
    const size_t at[2] = {x_off + 8, x_off + x_len - 8}; /* inside x; across its end */
    const char *tensors[2] = {"tests[0].outputs.inv_freq", "tests[1].outputs.inv_freq"};

    for (int i = 0; i < 2; i++) {
        char key[96];
        ck_assert(at[i] + 16 <= g_tv.raw_len);
        (void)snprintf(key, sizeof key, "%s.offset", tensors[i]);
        (void)snprintf(text, sizeof text, "%zu", at[i]);
        tv_set(&g_tv, key, text);
        (void)snprintf(key, sizeof key, "%s.crc32", tensors[i]);
        (void)snprintf(text, sizeof text, "%lu", crc32_z(0, g_tv.raw + at[i], 16));
        tv_set(&g_tv, key, text);
    }
    expect_ok(&g_tv, &f);
    for (int i = 0; i < 2; i++) {
        const pecert_vtensor *t = pecert_vtest_output(&f.tests[i], "inv_freq");
        ck_assert_int_eq(memcmp(t->data, g_tv.raw + at[i], 16), 0);
    }
    pecert_vfile_free(&f);

    /* A byte in no tensor (the zero padding before an 8-aligned one). */
    size_t gap = first_uncovered_byte(&g_tv);
    ck_assert_uint_lt(gap, g_tv.raw_len);
    g_tv.raw[gap] ^= 1;
    tv_compress(&g_tv, g_tv.raw, g_tv.raw_len);
    (void)snprintf(text, sizeof text, "%lu", (unsigned long)g_tv.z_len);
    tv_set(&g_tv, "payload.compressed_bytes", text);
    expect_fail(&g_tv, ": payload.crc32: crc32 0x");
}
END_TEST

START_TEST(core_config)
{
    const uint32_t yarn_bits =
        PECERT_ROPE_HAS_FACTOR | PECERT_ROPE_HAS_ORIGINAL_MAX_POS |
        PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS | PECERT_ROPE_HAS_ATTENTION_FACTOR |
        PECERT_ROPE_HAS_BETA_FAST | PECERT_ROPE_HAS_BETA_SLOW |
        PECERT_ROPE_HAS_MSCALE | PECERT_ROPE_HAS_MSCALE_ALL_DIM |
        PECERT_ROPE_HAS_LOW_FREQ_FACTOR | PECERT_ROPE_HAS_HIGH_FREQ_FACTOR |
        PECERT_ROPE_HAS_TRUNCATE;
    pecert_vfile f;
    const pecert_rope_config *c;

    expect_ok(&g_tv, &f);
    c = &test_by_id(&f, 1)->rope;
    ck_assert_uint_eq(c->struct_size, sizeof(pecert_rope_config));
    ck_assert_int_eq(c->rope_type, PECERT_ROPE_DEFAULT);
    ck_assert_uint_eq(c->present, 0);
    ck_assert_int_eq(c->head_dim, 16);
    ck_assert_int_eq(c->rotary_dim, 8);
    ck_assert_double_eq(c->rope_theta, 10000.0);
    ck_assert_int_eq(c->max_position_embeddings, 2048);
    ck_assert_ptr_null(c->short_factor);
    ck_assert_int_eq(c->num_factors, 0);
    c = &test_by_id(&f, 2)->rope;
    ck_assert_int_eq(c->rope_type, PECERT_ROPE_YARN);
    ck_assert_uint_eq(c->present, yarn_bits);
    ck_assert_double_eq(c->factor, 4.0);
    ck_assert_int_eq(c->original_max_position_embeddings, 4096);
    ck_assert_double_eq(c->attention_factor, 1.25);
    ck_assert_double_eq(c->beta_fast, 32.0);
    ck_assert_double_eq(c->beta_slow, 1.0);
    ck_assert_double_eq(c->mscale, 0.707);
    ck_assert_double_eq(c->mscale_all_dim, 0.5);
    ck_assert_int_eq(c->truncate, 0);
    ck_assert_int_eq(test_by_id(&f, 2)->seq_len, 8192);
    c = &test_by_id(&f, 3)->rope;
    ck_assert_int_eq(c->rope_type, PECERT_ROPE_LONGROPE);
    ck_assert_uint_eq(c->present, PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS);
    ck_assert_int_eq(c->num_factors, 4);
    ck_assert_double_eq(c->short_factor[1], 1.5);
    ck_assert_double_eq(c->long_factor[3], 32.0);
    c = &test_by_id(&f, 7)->rope;
    ck_assert_int_eq(c->rope_type, PECERT_ROPE_LLAMA3);
    ck_assert_double_eq(c->low_freq_factor, 1.0);
    ck_assert_double_eq(c->high_freq_factor, 4.0);
    ck_assert_int_eq(test_by_id(&f, 7)->pairing, PECERT_PAIRING_INTERLEAVED);
    ck_assert_int_eq(test_by_id(&f, 5)->pairing, PECERT_PAIRING_SPLIT_HALF);
    ck_assert_int_eq(test_by_id(&f, 5)->rope.rope_type, PECERT_ROPE_LINEAR);
    pecert_vfile_free(&f);
}
END_TEST

/* rope_type "dynamic" and truncate: true, which the main file lacks. */
START_TEST(core_config_variants)
{
    pecert_vfile f;

    tv_set(&g_tv, "tests[0].config.rope_type", "\"dynamic\"");
    tv_set(&g_tv, "tests[0].config.factor", "2");
    tv_set(&g_tv, "tests[1].config.truncate", "true");
    tv_set(&g_tv, "tests[1].config.rope_theta", "1.5");
    expect_ok(&g_tv, &f);
    ck_assert_int_eq(f.tests[0].rope.rope_type, PECERT_ROPE_DYNAMIC);
    ck_assert_uint_eq(f.tests[0].rope.present, PECERT_ROPE_HAS_FACTOR);
    ck_assert_int_eq(f.tests[1].rope.truncate, 1);
    ck_assert_double_eq(f.tests[1].rope.rope_theta, 1.5);
    pecert_vfile_free(&f);
}
END_TEST

/* Key order and whitespace do not matter; a manifest may sit anywhere. */
START_TEST(core_compact_and_relative)
{
    pecert_vfile f;
    char cwd[512];
    char *text = cJSON_PrintUnformatted(g_tv.root);
    char err[512];

    ck_assert_ptr_nonnull(text);
    tv_set_text(&g_tv, text, strlen(text));
    free(text);
    tv_write(&g_tv);
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(g_tv.dir), 0);
    /* No directory part: the payload is found next to it all the same. */
    ck_assert_msg(pecert_vfile_load(&f, "t.json", err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_str_eq(f.path, "t.json");
    ck_assert_uint_eq(f.n_tests, 5);
    pecert_vfile_free(&f);
}
END_TEST

START_TEST(core_free_and_lookup)
{
    pecert_vfile f;
    pecert_vtest empty;

    memset(&f, 0, sizeof f);
    pecert_vfile_free(&f);
    pecert_vfile_free(NULL);
    expect_ok(&g_tv, &f);
    ck_assert_ptr_null(pecert_vtest_input(&f.tests[0], "positions"));
    ck_assert_ptr_null(pecert_vtest_output(&f.tests[0], "cos"));
    ck_assert_ptr_null(pecert_vtest_output(&f.tests[0], NULL));
    ck_assert_ptr_nonnull(pecert_vtest_input(&f.tests[2], "positions"));
    ck_assert_ptr_null(pecert_vtest_input(NULL, "x"));
    memset(&empty, 0, sizeof empty);
    ck_assert_ptr_null(pecert_vtest_output(&empty, "out"));
    pecert_vfile_free(&f);
    pecert_vfile_free(&f); /* zeroed by the first: a no-op */
    ck_assert(all_zero(&f, sizeof f));
}
END_TEST

START_TEST(core_bad_arguments)
{
    pecert_vfile f;
    char err[256];

    ck_assert_int_eq(pecert_vfile_load(NULL, g_tv.json_path, err, sizeof err),
                     -1);
    ck_assert_str_ne(err, "");
    memset(&f, 0xAB, sizeof f);
    ck_assert_int_eq(pecert_vfile_load(&f, NULL, err, sizeof err), -1);
    ck_assert(all_zero(&f, sizeof f));
    /* No buffer: still fails cleanly. */
    ck_assert_int_eq(pecert_vfile_load(&f, "/nonexistent/x.json", NULL, 0),
                     -1);
    ck_assert(all_zero(&f, sizeof f));
    ck_assert_int_eq(pecert_vfile_load(&f, "/nonexistent/x.json", err, 0), -1);
    tv_write(&g_tv);
    ck_assert_int_eq(pecert_vfile_load(&f, g_tv.json_path, NULL, 0), 0);
    pecert_vfile_free(&f);
}
END_TEST

static void touch(const char *dir, const char *rel)
{
    char path[512];

    (void)snprintf(path, sizeof path, "%s/%s", dir, rel);
    write_file(path, "{}", 2);
}

static void mkdir_in(const char *dir, const char *rel)
{
    char path[512];

    (void)snprintf(path, sizeof path, "%s/%s", dir, rel);
    ck_assert_int_eq(mkdir(path, 0755), 0);
}

START_TEST(core_list)
{
    static const char *const want[] = {"a.json", "b/c.json", "b/d/e.json",
                                       "z.json"};
    char **paths = NULL;
    char err[256];
    char link[512];
    int n;

    mkdir_in(g_tv.dir, "b");
    mkdir_in(g_tv.dir, "b/d");
    mkdir_in(g_tv.dir, "gen");
    mkdir_in(g_tv.dir, "schema");
    mkdir_in(g_tv.dir, ".git");
    touch(g_tv.dir, "z.json");
    touch(g_tv.dir, "a.json");
    touch(g_tv.dir, "b/d/e.json");
    touch(g_tv.dir, "b/c.json");
    touch(g_tv.dir, "b/.hidden.json");
    touch(g_tv.dir, "gen/g.json");
    touch(g_tv.dir, "schema/manifest-v1.json");
    touch(g_tv.dir, ".git/x.json");
    touch(g_tv.dir, "notes.txt");
    touch(g_tv.dir, "a.json.bak");
    mkdir_in(g_tv.dir, "dir.json"); /* a directory is not a manifest */
    (void)snprintf(link, sizeof link, "%s/b/loop", g_tv.dir);
    ck_assert_int_eq(symlink("..", link), 0); /* not followed */
    /* A dangling link that names no manifest is nothing pecert reads. */
    (void)snprintf(link, sizeof link, "%s/b/notes.txt", g_tv.dir);
    ck_assert_int_eq(symlink("/nonexistent/notes.txt", link), 0);
    /* A tree 40 deep (deeper than any real layout) is still walked. */
    char deep[1024] = "";
    for (int i = 0; i < 40; i++) {
        size_t used = strlen(deep);
        (void)snprintf(deep + used, sizeof deep - used, "%sd", i > 0 ? "/" : "");
        mkdir_in(g_tv.dir, deep);
    }
    n = pecert_vectors_list(&paths, g_tv.dir, err, sizeof err);
    ck_assert_msg(n == 4, "n = %d: %s", n, err);
    for (int i = 0; i < n; i++) {
        char exp[512];

        (void)snprintf(exp, sizeof exp, "%s/%s", g_tv.dir, want[i]);
        ck_assert_str_eq(paths[i], exp);
    }
    ck_assert_ptr_null(paths[n]);
    pecert_vectors_list_free(paths, n);
    pecert_vectors_list_free(NULL, 0);
}
END_TEST

START_TEST(core_list_errors)
{
    char *sentinel = NULL;
    char **paths = &sentinel;
    char err[256];
    char file[512];
    char empty[512];

    ck_assert_int_eq(pecert_vectors_list(&paths, "/nonexistent/vectors", err,
                                         sizeof err), -1);
    ck_assert_ptr_null(paths);
    ck_assert_msg(strstr(err, "/nonexistent/vectors: opendir: ") == err, "%s",
                  err);
    (void)snprintf(file, sizeof file, "%s/plain", g_tv.dir);
    write_file(file, "x", 1);
    ck_assert_int_eq(pecert_vectors_list(&paths, file, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "plain: opendir: "));
    ck_assert_int_eq(pecert_vectors_list(NULL, g_tv.dir, err, sizeof err), -1);
    /* A dangling link named as a manifest: the set is broken, by name. */
    char dangling[512];
    (void)snprintf(dangling, sizeof dangling, "%s/gone.json", g_tv.dir);
    ck_assert_int_eq(symlink("/nonexistent/gone.json", dangling), 0);
    ck_assert_int_eq(pecert_vectors_list(&paths, g_tv.dir, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "gone.json: stat: ") != NULL, "%s", err);
    ck_assert_int_eq(unlink(dangling), 0);
    /* An empty tree is not an error: zero manifests. */
    (void)snprintf(empty, sizeof empty, "%s/empty", g_tv.dir);
    ck_assert_int_eq(mkdir(empty, 0755), 0);
    ck_assert_int_eq(pecert_vectors_list(&paths, empty, err, sizeof err), 0);
    ck_assert_ptr_nonnull(paths);
    ck_assert_ptr_null(paths[0]);
    pecert_vectors_list_free(paths, 0);
}
END_TEST

/* The committed vectors (when the generator has produced them) must all
 * load. $PECERT_VECTORS overrides the directory, default ./vectors. */
START_TEST(core_committed_vectors)
{
    const char *dir = getenv("PECERT_VECTORS");
    char **paths = NULL;
    char err[1024];
    int n;

    if (dir == NULL || dir[0] == '\0') {
        dir = "vectors";
    }
    n = pecert_vectors_list(&paths, dir, err, sizeof err);
    if (n <= 0) {
        /* Not generated yet (or run outside the tree): nothing to check. */
        pecert_vectors_list_free(paths, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        pecert_vfile f;

        ck_assert_msg(pecert_vfile_load(&f, paths[i], err, sizeof err) == 0,
                      "%s", err);
        for (size_t t = 0; t < f.n_tests; t++) {
            for (size_t k = 0; k < f.tests[t].n_outputs; k++) {
                ck_assert_ptr_nonnull(f.tests[t].outputs[k].data);
            }
        }
        pecert_vfile_free(&f);
    }
    pecert_vectors_list_free(paths, n);
}
END_TEST

/* `pecert list` groups the committed vectors by family: every family with
 * its vector count, every file with its provenance. */
START_TEST(core_list_families)
{
    static const char *const families[] = {"alibi", "cope",       "learned",  "mrope", "peg", "posinterp", "rope",
                                           "relpos2d", "rope2d", "shaw",       "sinusoidal", "sincos2d", "sine2d", "swin", "t5", "txl"};
    char cmd[1024];
    static char out[1 << 16];
    size_t n;
    FILE *p;

    (void)snprintf(cmd, sizeof cmd, "%s/pecert list 2>/dev/null", test_build_dir());
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        char want[64];

        (void)snprintf(want, sizeof want, "\n  %s ", families[i]);
        ck_assert_msg(strstr(out, want) != NULL, "pecert list lacks family %s", families[i]);
    }
    ck_assert_ptr_nonnull(strstr(out, "vectors in "));
    ck_assert_ptr_nonnull(strstr(out, "tensorflow/tensor2tensor@"));
    ck_assert_ptr_nonnull(strstr(out, "facebookresearch/fairseq@"));
}
END_TEST

/* ---- limits ------------------------------------------------------------ */

static void tv_set_literal(tv *v, const char *path, const char *literal);

static void tv_set_num(tv *v, const char *path, double value)
{
    char buf[64];

    (void)snprintf(buf, sizeof buf, "%.17g", value);
    tv_set(v, path, buf);
}

/* The manifest text padded with spaces to exactly len bytes. */
static void tv_pad_text(tv *v, size_t len)
{
    char *text;
    size_t n;

    sort_keys(v->root);
    text = cJSON_Print(v->root);
    ck_assert_ptr_nonnull(text);
    n = strlen(text);
    ck_assert(n <= len);
    free(v->text);
    v->text = malloc(len + 1);
    ck_assert_ptr_nonnull(v->text);
    memcpy(v->text, text, n);
    memset(v->text + n, ' ', len - n);
    v->text[len] = '\0';
    v->text_len = len;
    free(text);
}

START_TEST(limits_manifest_size)
{
    pecert_vfile f;

    tv_pad_text(&g_tv, PECERT_VEC_MAX_MANIFEST_BYTES);
    expect_ok(&g_tv, &f);
    pecert_vfile_free(&f);
    tv_pad_text(&g_tv, PECERT_VEC_MAX_MANIFEST_BYTES + 1);
    expect_fail(&g_tv, ": manifest: ");
    expect_fail(&g_tv, "more than the 16 MiB a manifest may have (16777216 bytes)");
}
END_TEST

START_TEST(limits_elements)
{
    static const char *const t = "tests[0].outputs.inv_freq";
    char path[128];

    (void)snprintf(path, sizeof path, "%s.nbytes", t);
    /* 2^26 elements: within the limit, so the complaint is the extent. */
    tv_set(&g_tv, "tests[0].outputs.inv_freq.shape", "[8192, 8192]");
    tv_set_num(&g_tv, path, 4.0 * 8192 * 8192);
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.offset: ");
    tv_set(&g_tv, "tests[0].outputs.inv_freq.shape", "[8192, 8193]");
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.shape: element count "
                       "exceeds the limit of 67108864");
    tv_set(&g_tv, "tests[0].outputs.inv_freq.shape", "[67108865]");
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.shape[0]: 67108865 out of "
                       "range");
    /* A product far past 2^64 must neither wrap nor be undefined. */
    tv_set(&g_tv, "tests[0].outputs.inv_freq.shape",
           "[4194304, 4194304, 4194304, 4194304]");
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.shape: element count");
    /* A zero extent does not excuse a huge one. */
    tv_set(&g_tv, "tests[0].outputs.inv_freq.shape", "[0, 1e15]");
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.shape[1]: 1000000000000000 "
                       "out of range");
}
END_TEST

START_TEST(limits_ndim)
{
    tv_set(&g_tv, "tests[0].outputs.inv_freq.shape",
           "[1, 1, 1, 1, 1, 1, 1, 4]");
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.shape: expected [4] for "
                       "rotary_dim 8, got [1, 1, 1, 1, 1, 1, 1, 4]");
    tv_set(&g_tv, "tests[0].outputs.inv_freq.shape",
           "[1, 1, 1, 1, 1, 1, 1, 1, 4]");
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.shape: ndim 9 exceeds 8");
}
END_TEST

START_TEST(limits_payload_size)
{
    char want[128];

    tv_set_num(&g_tv, "payload.raw_bytes",
               (double)PECERT_VEC_MAX_PAYLOAD_BYTES);
    (void)snprintf(want, sizeof want,
                   "payload: decompressed size %zu != raw_bytes 268435456",
                   g_tv.raw_len);
    expect_fail(&g_tv, want);
    tv_set_num(&g_tv, "payload.raw_bytes",
               (double)PECERT_VEC_MAX_PAYLOAD_BYTES + 1);
    expect_fail(&g_tv, "payload.raw_bytes: 268435457 out of range");
}
END_TEST

START_TEST(limits_tests_and_ids)
{
    pecert_vfile f;

    tv_set_num(&g_tv, "numberOfTests", PECERT_VEC_MAX_TESTS);
    expect_fail(&g_tv, "numberOfTests: 100000 != 5 entries in tests");
    tv_set_num(&g_tv, "numberOfTests", PECERT_VEC_MAX_TESTS + 1);
    expect_fail(&g_tv, "numberOfTests: 100001 out of range");
    tv_set_num(&g_tv, "numberOfTests", 5);
    /* The largest integer a JSON double holds exactly is fine ... */
    tv_set_literal(&g_tv, "tests[0].tcId", "9007199254740991");
    expect_ok(&g_tv, &f);
    ck_assert_int_eq(f.tests[0].tc_id, INT64_C(9007199254740991));
    pecert_vfile_free(&f);
    free(g_tv.text);
    g_tv.text = NULL;
    /* ... the next is not: it could be a rounded 2^53 + 1. */
    tv_set_literal(&g_tv, "tests[0].tcId", "9007199254740993");
    expect_fail(&g_tv, "tests[0].tcId: 9007199254740992 out of range");
    free(g_tv.text);
    g_tv.text = NULL;
    tv_set(&g_tv, "tests[0].tcId", "1");
    tv_set(&g_tv, "tests[0].outputs.inv_freq.crc32", "4294967295");
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.crc32: crc32 0x");
    tv_set(&g_tv, "tests[0].outputs.inv_freq.crc32", "4294967296");
    expect_fail(&g_tv, "tests[0].outputs.inv_freq.crc32: 4294967296 out of "
                       "range");
}
END_TEST

/* A few bytes of zlib that inflate to 64 MiB: stopped at raw_bytes. */
START_TEST(limits_bomb)
{
    size_t big = (size_t)64 << 20;
    unsigned char *src = calloc(1, big);
    uLongf z_len = compressBound((uLong)big);

    ck_assert_ptr_nonnull(src);
    memcpy(src, g_tv.raw, g_tv.raw_len);
    free(g_tv.z);
    g_tv.z = malloc(z_len);
    ck_assert_ptr_nonnull(g_tv.z);
    ck_assert(compress2(g_tv.z, &z_len, src, (uLong)big, 1) == Z_OK);
    free(src);
    g_tv.z_len = z_len;
    ck_assert(g_tv.z_len < (size_t)1 << 20);
    tv_set_num(&g_tv, "payload.compressed_bytes", (double)g_tv.z_len);
    expect_fail(&g_tv, "payload: decompresses to more than raw_bytes");
}
END_TEST

/* Any buffer size gives a NUL-terminated prefix, never a cut character. */
START_TEST(limits_err_truncation)
{
    pecert_vfile f;
    char full[1024];
    char small[1024];
    char why[128];
    size_t n;

    tv_set(&g_tv, "tests[0].caf\xc3\xa9\xe2\x82\xac", "1");
    tv_write(&g_tv);
    ck_assert_int_eq(pecert_vfile_load(&f, g_tv.json_path, full, sizeof full),
                     -1);
    ck_assert_ptr_nonnull(strstr(full, "caf\xc3\xa9\xe2\x82\xac: unknown key"));
    n = strlen(full);
    for (size_t len = 1; len <= n + 1; len++) {
        memset(small, 'Z', sizeof small);
        ck_assert_int_eq(pecert_vfile_load(&f, g_tv.json_path, small, len),
                         -1);
        ck_assert_msg(memchr(small, '\0', len) != NULL, "len %zu", len);
        ck_assert_uint_lt(strlen(small), len);
        ck_assert_msg(strncmp(small, full, strlen(small)) == 0, "len %zu",
                      len);
        ck_assert_msg(strlen(small) + 3 >= len - 1 || len > n,
                      "len %zu: cut too short", len);
        ck_assert_msg(pecert_json_text_check(small, strlen(small), why, sizeof why) == 0, "len %zu: cut UTF-8: %s",
                      len, why);
        ck_assert(small[len] == 'Z');
    }
    ck_assert_str_eq(small, full);
}
END_TEST

/* A newline in a key or path never makes the message two lines. */
START_TEST(limits_err_one_line)
{
    tv_set(&g_tv, "tests[1].con\nfig", "1");
    expect_fail(&g_tv, "tests[1].con?fig: unknown key");
}
END_TEST

/* ---- errors: one mutation each ------------------------------------------ */

static char *tv_print_sorted(tv *v)
{
    char *text;

    sort_keys(v->root);
    text = cJSON_PrintUnformatted(v->root);
    ck_assert_ptr_nonnull(text);
    return text;
}

static void m_bad_json(tv *v)
{
    static const char t[] = "{\"schema\": \"pecert-vectors/1\",\n\"family\":";

    tv_set_text(v, t, sizeof t - 1);
}

static void m_trailing_json(tv *v)
{
    char *text = tv_print_sorted(v);
    size_t n = strlen(text);
    char *more = malloc(n + 4);

    ck_assert_ptr_nonnull(more);
    memcpy(more, text, n);
    memcpy(more + n, " {}", 4);
    tv_set_text(v, more, n + 3);
    free(more);
    free(text);
}

static void m_root_array(tv *v)
{
    tv_set_text(v, "[]", 2);
}

static void m_empty_manifest(tv *v)
{
    tv_set_text(v, "", 0);
}

/* Replace the first occurrence of what in the printed manifest. */
static void text_replace(tv *v, const char *what, const char *with,
                         size_t with_len)
{
    char *text = tv_print_sorted(v);
    char *at = strstr(text, what);
    size_t n = strlen(text);
    size_t head;
    size_t tail;
    char *out;

    ck_assert_ptr_nonnull(at);
    head = (size_t)(at - text);
    tail = n - head - strlen(what);
    out = malloc(n + with_len + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, text, head);
    memcpy(out + head, with, with_len);
    memcpy(out + head + with_len, at + strlen(what), tail);
    tv_set_text(v, out, head + with_len + tail);
    free(out);
    free(text);
}

/* Set path to a JSON literal written verbatim into the manifest text:
 * cJSON prints doubles to 15 significant digits when that round-trips
 * within its tolerance, which would turn 9007199254740991 into
 * 9007199254740990. (Text mode: later tree edits no longer apply.) */
static void tv_set_literal(tv *v, const char *path, const char *literal)
{
    tv_set(v, path, "\"@@LITERAL@@\"");
    text_replace(v, "\"@@LITERAL@@\"", literal, strlen(literal));
}

static void m_nul_escape(tv *v)
{
    static const char with[] = "\"pecert-vectors/1\\u0000junk\"";

    text_replace(v, "\"pecert-vectors/1\"", with, sizeof with - 1);
}

static void m_raw_nul(tv *v)
{
    static const char with[] = "\"schema\":\0";

    text_replace(v, "\"schema\":", with, sizeof with - 1);
}

static void m_bad_utf8(tv *v)
{
    static const char with[] = "\"loader \xC0\xAF unit-test vectors\"";

    text_replace(v, "\"loader unit-test vectors\"", with, sizeof with - 1);
}

static void m_dup_key(tv *v)
{
    cJSON_AddNumberToObject(tv_node(v->root, "tests[0]"), "tcId", 9);
}

/* Change one payload byte inside inv_freq, keep the payload CRC right. */
static void m_tensor_bytes(tv *v)
{
    size_t off = (size_t)tv_node(v->root,
                                 "tests[0].outputs.inv_freq.offset")
                     ->valuedouble;

    v->raw[off + 1] ^= 0x40;
    tv_seal(v);
}

static void m_stream_truncated(tv *v)
{
    v->z_len -= 10;
    tv_set_num(v, "payload.compressed_bytes", (double)v->z_len);
}

static void m_file_short(tv *v)
{
    v->z_len -= 10;
}

static void m_file_long(tv *v)
{
    v->z = realloc(v->z, v->z_len + 1);
    ck_assert_ptr_nonnull(v->z);
    v->z[v->z_len++] = 0;
}

static void m_bad_block_type(tv *v)
{
    v->z[2] |= 0x07; /* BFINAL=1, BTYPE=11: reserved */
}

static void m_bad_header(tv *v)
{
    v->z[1] ^= 0x01; /* FCHECK no longer makes the header a multiple of 31 */
}


static void m_trailing_garbage(tv *v)
{
    v->z = realloc(v->z, v->z_len + 3);
    ck_assert_ptr_nonnull(v->z);
    memcpy(v->z + v->z_len, "xyz", 3);
    v->z_len += 3;
    tv_set_num(v, "payload.compressed_bytes", (double)v->z_len);
}

/* The declared payload plus 1 MiB of zeros: a small stream that inflates
 * far past raw_bytes. */
static void m_bomb(tv *v)
{
    size_t n = v->raw_len + ((size_t)1 << 20);
    unsigned char *src = calloc(1, n);

    ck_assert_ptr_nonnull(src);
    memcpy(src, v->raw, v->raw_len);
    tv_compress(v, src, n);
    free(src);
    tv_set_num(v, "payload.compressed_bytes", (double)v->z_len);
}

static void m_stream_short(tv *v)
{
    tv_compress(v, v->raw, v->raw_len - 8);
    tv_set_num(v, "payload.compressed_bytes", (double)v->z_len);
}

static void m_no_payload(tv *v)
{
    v->no_payload = 1;
}

static void m_payload_is_dir(tv *v)
{
    v->no_payload = 1;
    ck_assert_int_eq(mkdir(v->bin_path, 0755), 0);
}

static void m_manifest_over(tv *v)
{
    tv_pad_text(v, PECERT_VEC_MAX_MANIFEST_BYTES + 1);
}

static const char tensor_json[] =
    "{\"dtype\":\"i64\",\"shape\":[1],\"offset\":0,\"nbytes\":8,\"crc32\":0}";

/* The valid file plus: path := json (NULL json: delete path; a shape or
 * a dtype is set with its nbytes made to agree), then mutate; the message
 * must contain expect. */
typedef struct bad_case {
    const char *path;
    const char *json;
    void (*mutate)(tv *v);
    const char *expect;
} bad_case;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s);
    size_t m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* After a shape or dtype edit, make nbytes agree, so that the check that
 * fires is the op's dtype or shape rule, not the byte count. */
static void fix_nbytes(tv *v, const char *path)
{
    char tref[256];
    cJSON *t;
    const cJSON *e;
    double count = 1;

    (void)snprintf(tref, sizeof tref, "%.*s", (int)(strrchr(path, '.') - path), path);
    t = tv_node(v->root, tref);
    ck_assert_ptr_nonnull(t);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(t, "shape")) {
        count *= e->valuedouble;
    }
    count *= (double)dtype_size(cJSON_GetObjectItemCaseSensitive(t, "dtype")->valuestring);
    cJSON_ReplaceItemInObjectCaseSensitive(t, "nbytes", cJSON_CreateNumber(count));
}

static void expect_bad_case_fails(tv *v, const bad_case *c)
{
    if (c->path != NULL && c->json == NULL) {
        tv_set(v, c->path, NULL);
    } else if (c->path != NULL && (ends_with(c->path, ".shape") || ends_with(c->path, ".dtype"))) {
        tv_set(v, c->path, c->json);
        fix_nbytes(v, c->path);
    } else if (c->path != NULL) {
        tv_set_literal(v, c->path, c->json);
    }
    if (c->mutate != NULL) {
        c->mutate(v);
    }
    expect_fail(v, c->expect);
}


static const bad_case bad_cases[] = {
    /* JSON text */
    {NULL, NULL, m_bad_json, "(line 2)"},
    {NULL, NULL, m_trailing_json, ": manifest: invalid JSON"},
    {NULL, NULL, m_root_array, ": manifest: expected an object, got array"},
    {NULL, NULL, m_empty_manifest, ": manifest: invalid JSON"},
    {NULL, NULL, m_nul_escape, ": manifest: \\u0000 in a string"},
    {NULL, NULL, m_raw_nul, ": manifest: NUL byte at offset"},
    {NULL, NULL, m_bad_utf8, ": manifest: invalid UTF-8 at byte"},
    {NULL, NULL, m_manifest_over, ": manifest: "},
    /* top level */
    {"schema", "\"pecert-vectors/2\"", NULL,
     ": schema: expected \"pecert-vectors/1\", got \"pecert-vectors/2\""},
    {"schema", "1", NULL, ": schema: expected a string, got number"},
    {"extra", "1", NULL, ": extra: unknown key"},
    {"generator", NULL, NULL, ": generator: missing required key"},
    {"family", "\"\"", NULL, ": family: empty string"},
    {"description", "\"\"", NULL, ": description: empty string"},
    {"description", "\"two\\nlines\"", NULL,
     ": description: control character"},
    {"notes", "[]", NULL, ": notes: expected an object, got array"},
    {"tests", "{}", NULL, ": tests: expected an array, got object"},
    {"numberOfTests", "4", NULL, ": numberOfTests: 4 != 5 entries in tests"},
    {"numberOfTests", "5.5", NULL, ": numberOfTests: expected an integer"},
    {"numberOfTests", "-5", NULL, ": numberOfTests: -5 out of range"},
    /* provenance */
    {"provenance.url", "\"x\"", NULL, ": provenance.url: unknown key"},
    {"provenance.commit", "\"HEAD\"", NULL,
     ": provenance.commit: expected 40 lowercase hex digits"},
    {"provenance.tag", NULL, NULL, ": provenance.tag: missing required key"},
    {"provenance.packages.torch", "1", NULL,
     ": provenance.packages.torch: expected a string, got number"},
    {"provenance", "\"hf\"", NULL, ": provenance: expected an object"},
    /* payload declaration and file */
    {"payload.sha256", "\"0\"", NULL, ": payload.sha256: unknown key"},
    {"payload.crc32", "1", NULL,
     ": payload.crc32: crc32 0x"},
    {"payload.crc32", "-1", NULL, ": payload.crc32: -1 out of range"},
    {"payload.compressed_bytes", "0", NULL,
     ": payload.compressed_bytes: 0 out of range"},
    {"payload.raw_bytes", "1e300", NULL,
     ": payload.raw_bytes: 1.0000000000000001e+300 out of range"},
    {"payload.file", "\"sub/t.bin.z\"", NULL,
     ": payload.file: \"sub/t.bin.z\" is not a plain file name"},
    {"payload.file", "\"../t.bin.z\"", NULL,
     ": payload.file: \"../t.bin.z\" is not a plain file name"},
    {"payload.file", "\"/etc/passwd\"", NULL, ": payload.file: "},
    {"payload.file", "\"t.bin\"", NULL,
     ": payload.file: \"t.bin\" does not pair with the manifest (expected "
     "\"t.bin.z\")"},
    {"payload.file", "\"other.bin.z\"", NULL,
     ": payload.file: \"other.bin.z\" does not pair with the manifest"},
    {"payload.file", "\"t.json\"", NULL, ": payload.file: \"t.json\" does not "
                                       "pair"},
    {NULL, NULL, m_no_payload, "t.bin.z: cannot open: No such file or directory"},
    {NULL, NULL, m_payload_is_dir, "t.bin.z: is a directory, not a regular file"},
    {NULL, NULL, m_file_short, "bytes, compressed_bytes says"},
    {NULL, NULL, m_file_long, "more than payload.compressed_bytes"},
    {NULL, NULL, m_stream_truncated, ": payload: truncated zlib stream"},
    {NULL, NULL, m_bad_block_type,
     ": payload: corrupt zlib stream: invalid block type"},
    {NULL, NULL, m_bad_header,
     ": payload: corrupt zlib stream: incorrect header check"},
    {NULL, NULL, m_trailing_garbage,
     ": payload: 3 bytes of trailing garbage after the zlib stream"},
    {NULL, NULL, m_bomb, ": payload: decompresses to more than raw_bytes"},
    {NULL, NULL, m_stream_short, ": payload: decompressed size "},
    /* notes */
    {"notes.basic.effect", "\"x\"", NULL, ": notes.basic.effect: unknown key"},
    {"notes.basic.bugType", NULL, NULL,
     ": notes.basic.bugType: missing required key"},
    {"notes.basic", "\"Functionality\"", NULL,
     ": notes.basic: expected an object, got string"},
    /* tests */
    {"tests[1].result", "\"valid\"", NULL, ": tests[1].result: unknown key"},
    {"tests[2].source", NULL, NULL, ": tests[2].source: missing required key"},
    {"tests[0].source.line", "1", NULL, ": tests[0].source.line: unknown key"},
    {"tests[0].source.function", "\"\"", NULL,
     ": tests[0].source.function: empty string"},
    {"tests[0].tcId", "\"1\"", NULL,
     ": tests[0].tcId: expected an integer, got string"},
    {"tests[0].tcId", "1.5", NULL,
     ": tests[0].tcId: expected an integer, got 1.5"},
    {"tests[0].tcId", "0", NULL, ": tests[0].tcId: 0 out of range"},
    {"tests[0].tcId", "-3", NULL, ": tests[0].tcId: -3 out of range"},
    {"tests[0].tcId", "1e300", NULL, ": tests[0].tcId: "},
    {"tests[3].tcId", "1", NULL, ": tests[3].tcId: duplicate tcId 1 (also "
                                 "tests[0])"},
    {NULL, NULL, m_dup_key, ": tests[0].tcId: duplicate key"},
    {"tests[0].op", "\"rope.frq\"", NULL,
     ": tests[0].op: unknown op \"rope.frq\""},
    {"tests[0].comment", "\"a\\nb\"", NULL,
     ": tests[0].comment: control character in string"},
    {"tests[0].flags", "\"basic\"", NULL,
     ": tests[0].flags: expected an array, got string"},
    {"tests[1].flags[0]", "\"nope\"", NULL,
     ": tests[1].flags[0]: flag \"nope\" is not defined in notes"},
    {"tests[1].flags[1]", "1", NULL,
     ": tests[1].flags[1]: expected a string, got number"},
    /* config */
    {"tests[1].config.beta_fats", "32", NULL,
     ": tests[1].config.beta_fats: unknown key"},
    {"tests[0].config.rope_theta", NULL, NULL,
     ": tests[0].config.rope_theta: missing required key"},
    {"tests[0].config.rope_type", "\"ntk\"", NULL,
     ": tests[0].config.rope_type: unknown rope_type \"ntk\""},
    {"tests[0].config.rope_theta", "1", NULL,
     ": tests[0].config.rope_theta: must be > 1, got 1"},
    {"tests[0].config.rope_theta", "\"10000\"", NULL,
     ": tests[0].config.rope_theta: expected a number, got string"},
    {"tests[0].config.head_dim", "0", NULL,
     ": tests[0].config.head_dim: 0 out of range"},
    {"tests[0].config.head_dim", "16.5", NULL,
     ": tests[0].config.head_dim: expected an integer, got 16.5"},
    {"tests[0].config.head_dim", "4294967312", NULL,
     ": tests[0].config.head_dim: 4294967312 out of range"},
    {"tests[0].config.rotary_dim", "7", NULL,
     ": tests[0].config.rotary_dim: 7 is odd"},
    {"tests[0].config.rotary_dim", "18", NULL,
     ": tests[0].config.rotary_dim: 18 exceeds head_dim 16"},
    {"tests[0].config.rotary_dim", "0", NULL,
     ": tests[0].config.rotary_dim: 0 out of range"},
    {"tests[0].config.max_position_embeddings", "0", NULL,
     ": tests[0].config.max_position_embeddings: 0 out of range"},
    {"tests[1].config.factor", "0", NULL,
     ": tests[1].config.factor: must be > 0, got 0"},
    {"tests[1].config.factor", NULL, NULL,
     ": tests[1].config.factor: required for rope_type yarn"},
    {"tests[1].config.truncate", "0", NULL,
     ": tests[1].config.truncate: expected a bool, got number"},
    {"tests[1].config.top_original_max_position_embeddings", "8192", NULL,
     ": tests[1].config.top_original_max_position_embeddings: 8192 differs"},
    {"tests[1].config.short_factor", "[1, 1, 1, 1]", NULL,
     ": tests[1].config.short_factor: only allowed for rope_type longrope"},
    {"tests[3].config.low_freq_factor", NULL, NULL,
     ": tests[3].config.low_freq_factor: required for rope_type llama3"},
    {"tests[3].config.original_max_position_embeddings", NULL, NULL,
     ": tests[3].config.original_max_position_embeddings: required for "
     "rope_type llama3"},
    {"tests[4].config.factor", NULL, NULL,
     ": tests[4].config.factor: required for rope_type linear"},
    {"tests[2].config.short_factor", "[1, 1, 1]", NULL,
     ": tests[2].config.short_factor: expected 4 values (rotary_dim 8 / 2), "
     "got 3"},
    {"tests[2].config.long_factor", "[1, 1, 1, 1, 1]", NULL,
     ": tests[2].config.long_factor: expected 4 values (rotary_dim 8 / 2), "
     "got 5"},
    {"tests[2].config.long_factor[1]", "0", NULL,
     ": tests[2].config.long_factor[1]: must be > 0, got 0"},
    {"tests[2].config.long_factor[2]", "\"2\"", NULL,
     ": tests[2].config.long_factor[2]: expected a number, got string"},
    {"tests[2].config.long_factor", NULL, NULL,
     ": tests[2].config.long_factor: required for rope_type longrope"},
    /* params */
    {"tests[0].params.pairing", "\"split_half\"", NULL,
     ": tests[0].params.pairing: unknown key"},
    {"tests[0].params.seq_len", "-1", NULL,
     ": tests[0].params.seq_len: -1 out of range"},
    {"tests[0].params.seq_len", NULL, NULL,
     ": tests[0].params.seq_len: missing required key"},
    {"tests[3].params.pairing", NULL, NULL,
     ": tests[3].params.pairing: missing required key"},
    {"tests[3].params.pairing", "\"neox\"", NULL,
     ": tests[3].params.pairing: unknown pairing \"neox\""},
    {"tests[0].params", "[]", NULL,
     ": tests[0].params: expected an object, got array"},
    /* inputs, outputs, tensor refs */
    {"tests[0].inputs.positions", tensor_json, NULL,
     ": tests[0].inputs.positions: unknown key"},
    {"tests[2].inputs.extra", tensor_json, NULL,
     ": tests[2].inputs.extra: unknown key"},
    {"tests[2].outputs.sin", NULL, NULL,
     ": tests[2].outputs.sin: missing required key"},
    {"tests[3].inputs.x", NULL, NULL,
     ": tests[3].inputs.x: missing required key"},
    {"tests[0].outputs.inv_freq.stride", "[1]", NULL,
     ": tests[0].outputs.inv_freq.stride: unknown key"},
    {"tests[0].outputs.inv_freq.crc32", NULL, NULL,
     ": tests[0].outputs.inv_freq.crc32: missing required key"},
    {"tests[0].outputs.inv_freq.dtype", "\"f8\"", NULL,
     ": tests[0].outputs.inv_freq.dtype: unknown dtype \"f8\""},
    {"tests[0].outputs.inv_freq.dtype", "\"bf16\"", NULL,
     ": tests[0].outputs.inv_freq.dtype: dtype \"bf16\" is reserved"},
    {"tests[0].outputs.inv_freq.dtype", "\"f64\"", NULL,
     ": tests[0].outputs.inv_freq.dtype: expected f32 for rope.freq, got "
     "f64"},
    {"tests[0].outputs.inv_freq.shape", "[3]", NULL,
     ": tests[0].outputs.inv_freq.shape: expected [4] for rotary_dim 8, got "
     "[3]"},
    {"tests[3].inputs.x.shape", "[2, 2, 16]", NULL,
     ": tests[3].inputs.x.shape: expected [3, H, 16] for head_dim 16, got "
     "[2, 2, 16]"},
    {"tests[3].outputs.out.shape", "[3, 1, 16]", NULL,
     ": tests[3].outputs.out.shape: expected [3, 2, 16] for head_dim 16, got "
     "[3, 1, 16]"},
    {"tests[2].outputs.sin.shape", "[4, 4]", NULL,
     ": tests[2].outputs.sin.shape: expected [5, 4] for rotary_dim 8, got "
     "[4, 4]"},
    {"tests[0].outputs.attention_scaling.shape", "[1]", NULL,
     ": tests[0].outputs.attention_scaling.shape: expected [], got [1]"},
    {"tests[0].outputs.inv_freq.shape", "[1, 1, 1, 1, 1, 1, 1, 1, 4]", NULL,
     ": tests[0].outputs.inv_freq.shape: ndim 9 exceeds 8"},
    {"tests[0].outputs.inv_freq.shape", "[4194304, 4194304, 4194304]", NULL,
     ": tests[0].outputs.inv_freq.shape: element count exceeds"},
    {"tests[0].outputs.inv_freq.shape", "[-4]", NULL,
     ": tests[0].outputs.inv_freq.shape[0]: -4 out of range"},
    {"tests[0].outputs.inv_freq.shape", "4", NULL,
     ": tests[0].outputs.inv_freq.shape: expected an array, got number"},
    {"tests[0].outputs.inv_freq.nbytes", "15", NULL,
     ": tests[0].outputs.inv_freq.nbytes: 15 != 16 (elements 4 * 4 bytes)"},
    {"tests[0].outputs.inv_freq.offset", "4", NULL,
     ": tests[0].outputs.inv_freq.offset: 4 is not a multiple of 8"},
    {"tests[0].outputs.inv_freq.offset", "1048576", NULL,
     ": tests[0].outputs.inv_freq.offset: offset 1048576 + nbytes 16 exceeds "
     "raw_bytes"},
    {"tests[0].outputs.inv_freq.offset", "9007199254740984", NULL,
     ": tests[0].outputs.inv_freq.offset: offset 9007199254740984 + nbytes "
     "16 exceeds raw_bytes"},
    {"tests[0].outputs.inv_freq.crc32", "0", NULL,
     ": tests[0].outputs.inv_freq.crc32: crc32 0x"},
    {NULL, NULL, m_tensor_bytes,
     ": tests[0].outputs.inv_freq.crc32: crc32 0x"},
};

#define N_BAD_CASES ((int)(sizeof bad_cases / sizeof bad_cases[0]))

START_TEST(errors_table)
{
    expect_bad_case_fails(&g_tv, &bad_cases[_i]);
}
END_TEST

/* ---- errors: mutation fuzz --------------------------------------------- */

/* Loop-test iterations (one seed each) x mutations per iteration; build
 * with -DFUZZ_ROUNDS=N for a longer run. */
#ifndef FUZZ_ROUNDS
#define FUZZ_ROUNDS 8
#endif
#define FUZZ_PER_ROUND 500
#define FUZZ_MAX_NODES 1024

static size_t rng_below(uint64_t *s, size_t n)
{
    return n > 0 ? (size_t)(test_next_random(s) % n) : 0;
}

/* Values a generator bug or a hand edit could put anywhere. */
static const char *const fuzz_values[] = {
    "0", "-1", "1", "2", "1.5", "1e300", "-1e300", "4294967296",
    "9007199254740993", "67108864", "8", "16", "\"\"", "\"f32\"", "\"i64\"",
    "\"rope.apply\"", "\"yarn\"", "\"longrope\"", "\"x\"", "[]", "{}",
    "null", "true", "false", "[1, 2, 3]", "[4]", "[0]", "{\"a\": 1}",
};

#define N_FUZZ_VALUES (sizeof fuzz_values / sizeof fuzz_values[0])

typedef struct node_list {
    cJSON *node[FUZZ_MAX_NODES];
    cJSON *parent[FUZZ_MAX_NODES];
    size_t n;
} node_list;

static void collect_nodes(cJSON *item, node_list *l)
{
    for (cJSON *c = item->child; c != NULL; c = c->next) {
        if (l->n < FUZZ_MAX_NODES) {
            l->node[l->n] = c;
            l->parent[l->n] = item;
            l->n++;
        }
        collect_nodes(c, l);
    }
}

/* Replace or delete one random node of the manifest tree. */
static void fuzz_tree_once(cJSON *root, uint64_t *rng)
{
    node_list *l = calloc(1, sizeof *l);
    size_t i;

    ck_assert_ptr_nonnull(l);
    collect_nodes(root, l);
    if (l->n > 0) {
        i = rng_below(rng, l->n);
        if (rng_below(rng, 4) == 0) {
            cJSON_Delete(cJSON_DetachItemViaPointer(l->parent[i], l->node[i]));
        } else {
            cJSON *val = cJSON_Parse(fuzz_values[rng_below(rng,
                                                           N_FUZZ_VALUES)]);

            ck_assert_ptr_nonnull(val);
            if (cJSON_IsObject(l->parent[i])) {
                ck_assert(cJSON_ReplaceItemInObjectCaseSensitive(
                    l->parent[i], l->node[i]->string, val));
            } else {
                ck_assert(cJSON_ReplaceItemViaPointer(l->parent[i], l->node[i],
                                                      val));
            }
        }
    }
    free(l);
}

static char *fuzz_tree(const char *text, uint64_t *rng)
{
    cJSON *root = cJSON_Parse(text);
    size_t rounds = 1 + rng_below(rng, 3);
    char *out;

    ck_assert_ptr_nonnull(root);
    for (size_t k = 0; k < rounds; k++) {
        fuzz_tree_once(root, rng);
    }
    out = cJSON_PrintUnformatted(root);
    ck_assert_ptr_nonnull(out);
    cJSON_Delete(root);
    return out;
}

/* Flip bits, truncate or insert bytes. buf has room for len + 8. */
static size_t fuzz_bytes(unsigned char *buf, size_t len, uint64_t *rng)
{
    switch (rng_below(rng, 4)) {
    case 0:
        return rng_below(rng, len + 1);
    case 1:
        if (len < 8) {
            return len;
        }
        memmove(buf + rng_below(rng, len - 4), buf + len - 4, 4);
        return len;
    case 2: {
        size_t at = rng_below(rng, len + 1);

        memmove(buf + at + 1, buf + at, len - at);
        buf[at] = (unsigned char)test_next_random(rng);
        return len + 1;
    }
    default:
        for (size_t k = 0, n = 1 + rng_below(rng, 4); k < n && len > 0; k++) {
            buf[rng_below(rng, len)] ^= (unsigned char)(1u << rng_below(rng, 8));
        }
        return len;
    }
}

/* A loaded file must be safe to read everywhere it says it has data. */
static void touch_loaded(const pecert_vfile *f)
{
    uLong crc = 0;

    for (size_t i = 0; i < f->n_tests; i++) {
        const pecert_vtest *t = &f->tests[i];

        for (size_t k = 0; k < t->n_inputs + t->n_outputs; k++) {
            const pecert_vtensor *x = k < t->n_inputs
                                          ? &t->inputs[k]
                                          : &t->outputs[k - t->n_inputs];
            size_t es = (x->dtype == PECERT_DTYPE_F64 ||
                         x->dtype == PECERT_DTYPE_I64) ? 8 : 4;

            crc = crc32_z(crc, x->data, (size_t)x->num_elements * es);
        }
        for (int32_t k = 0; k < t->rope.num_factors; k++) {
            crc += (uLong)(t->rope.short_factor[k] + t->rope.long_factor[k]);
        }
        for (size_t k = 0; k < t->n_flags; k++) {
            crc += strlen(t->flags[k]);
        }
    }
    (void)crc;
}

static void fuzz_check(const char *path)
{
    pecert_vfile f;
    char err[512];
    size_t plen = strlen(path);
    int rc = pecert_vfile_load(&f, path, err, sizeof err);

    /* A mutation cannot turn a manifest into a skipped "other file": it
     * keeps its tests, payload and family (claims_manifest). */
    ck_assert(rc == 0 || rc == -1);
    if (rc == 0) {
        touch_loaded(&f);
        pecert_vfile_free(&f);
        return;
    }
    ck_assert(all_zero(&f, sizeof f));
    ck_assert_msg(strncmp(err, path, plen) == 0 && err[plen] == ':', "%s",
                  err);
    ck_assert_msg(strchr(err, '\n') == NULL, "%s", err);
}

START_TEST(errors_fuzz)
{
    uint64_t rng = UINT64_C(0x5EED) + (uint64_t)_i;
    char *pristine = tv_print_sorted(&g_tv);
    size_t text_len = strlen(pristine);
    unsigned char *text = malloc(text_len + 8);
    unsigned char *z = malloc(g_tv.z_len + 8);

    ck_assert(text != NULL && z != NULL);
    for (int k = 0; k < FUZZ_PER_ROUND; k++) {
        size_t kind = rng_below(&rng, 5);
        size_t tl = text_len;
        size_t zl = g_tv.z_len;

        memcpy(text, pristine, text_len);
        memcpy(z, g_tv.z, g_tv.z_len);
        if (kind <= 1) {
            char *t = fuzz_tree(pristine, &rng);

            write_file(g_tv.json_path, t, strlen(t));
            free(t);
        } else {
            if (kind <= 3) {
                tl = fuzz_bytes(text, text_len, &rng);
            }
            write_file(g_tv.json_path, text, tl);
        }
        if (kind == 4) {
            zl = fuzz_bytes(z, g_tv.z_len, &rng);
        }
        write_file(g_tv.bin_path, z, zl);
        fuzz_check(g_tv.json_path);
    }
    free(text);
    free(z);
    free(pristine);
}
END_TEST

/* ---- the other families --------------------------------------------------- */

START_TEST(families_load)
{
    pecert_vfile f;
    const pecert_vtest *t;
    const pecert_vvalue *v;

    expect_ok(&g_tv, &f);
    ck_assert_uint_eq(f.n_tests, 17);
    t = test_by_id(&f, 1);
    ck_assert_str_eq(t->op, "alibi.slopes");
    ck_assert_int_eq(pecert_vtest_int(t, "num_heads", 0), 4);
    ck_assert_double_eq(pecert_vtest_number(t, "max_bias", 0), 8.0);
    ck_assert_int_eq(t->rope.struct_size, 0);
    ck_assert_int_eq(pecert_vtest_output(t, "slopes")->dtype, PECERT_DTYPE_F64);
    t = test_by_id(&f, 2);
    v = pecert_vtest_value(t, "symmetric");
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->kind, PECERT_VVAL_BOOL);
    ck_assert_int_eq(v->i, 0);
    ck_assert_int_eq(pecert_vtest_output(t, "bias")->shape[2], 3);
    t = test_by_id(&f, 4);
    v = pecert_vtest_value(t, "variant");
    ck_assert_int_eq(v->kind, PECERT_VVAL_ENUM);
    ck_assert_str_eq(v->s, "fairseq");
    ck_assert_int_eq(v->i, PECERT_SINUSOIDAL_FAIRSEQ);
    ck_assert_int_eq(pecert_vtest_int(t, "padding_idx", -1), 1);
    ck_assert_int_eq(pecert_vtest_int(test_by_id(&f, 5), "convention", -1),
                     PECERT_LEARNED_PADDING_OFFSET);
    ck_assert_int_eq(pecert_vtest_int(test_by_id(&f, 9), "klen", 0), 5);
    ck_assert_int_eq(pecert_vtest_int(test_by_id(&f, 9), "clamp_len", 0), -1);
    ck_assert_int_eq(pecert_vtest_input(test_by_id(&f, 11), "video_grid_thw")->shape[0], 0);
    t = test_by_id(&f, 12);
    ck_assert_int_eq(t->rope.rotary_dim, 8);
    ck_assert_int_eq(t->pairing, PECERT_PAIRING_SPLIT_HALF);
    v = pecert_vtest_value(t, "mrope_section");
    ck_assert_int_eq(v->kind, PECERT_VVAL_INT_LIST);
    ck_assert_uint_eq(v->n_list, 3);
    ck_assert_int_eq(v->list[1], 2);
    ck_assert_ptr_null(pecert_vtest_value(t, "nope"));
    ck_assert_int_eq(pecert_vtest_int(t, "nope", 7), 7);
    ck_assert_double_eq(pecert_vtest_number(NULL, "x", 2.5), 2.5);
    t = test_by_id(&f, 13);
    ck_assert_int_eq(pecert_vtest_int(t, "scheme", -1), PECERT_ROPE2D_ROW_MAJOR_CLS);
    ck_assert_int_eq(pecert_vtest_input(t, "grid_thw")->shape[0], 2);
    t = test_by_id(&f, 14);
    ck_assert_int_eq(pecert_vtest_int(t, "frequencies", -1), PECERT_ROPE2D_ALTERNATE);
    ck_assert_int_eq(pecert_vtest_int(t, "pairing", -1), PECERT_PAIRING_INTERLEAVED);
    ck_assert_int_eq(pecert_vtest_int(t, "columns_first", -1), 0);
    ck_assert_double_eq(pecert_vtest_number(t, "theta", 0), 10000.0);
    t = test_by_id(&f, 15);
    ck_assert_int_eq(pecert_vtest_int(t, "mode", -1), PECERT_POSINTERP_BICUBIC);
    ck_assert_int_eq(pecert_vtest_int(t, "prefix_tokens", -1), 1);
    ck_assert_int_eq(pecert_vtest_int(t, "out_w", -1), 4);
    ck_assert_double_eq(pecert_vtest_number(t, "scale_h", -1), 0.0);
    ck_assert_int_eq(pecert_vtest_output(t, "out")->shape[0], 13);
    pecert_vfile_free(&f);
}
END_TEST

/* The family file plus one mutation each; the message must name it. */
static const bad_case family_bad_cases[] = {
    {"tests[0].config.num_heads", "0", NULL,
     ": tests[0].config.num_heads: 0 out of range"},
    {"tests[0].config.max_bias", "0", NULL,
     ": tests[0].config.max_bias: must be > 0, got 0"},
    {"tests[0].config.rope_theta", "10000", NULL,
     ": tests[0].config.rope_theta: unknown key"},
    {"tests[0].params.seq_len", "0", NULL, ": tests[0].params.seq_len: unknown key"},
    {"tests[0].outputs.slopes.dtype", "\"i64\"", NULL,
     ": tests[0].outputs.slopes.dtype: expected f32 or f64 for alibi.slopes, got i64"},
    {"tests[0].outputs.slopes.shape", "[5]", NULL,
     ": tests[0].outputs.slopes.shape: expected [4], got [5]"},
    {"tests[1].params.symmetric", NULL, NULL,
     ": tests[1].params.symmetric: missing required key"},
    {"tests[1].params.symmetric", "1", NULL,
     ": tests[1].params.symmetric: expected a bool, got number"},
    {"tests[1].outputs.bias.shape", "[2, 3, 1]", NULL,
     ": tests[1].outputs.bias.shape: expected [2, 1, 3], got [2, 3, 1]"},
    {"tests[2].config.max_distance", "8", NULL,
     ": tests[2].config.max_distance: must exceed max_exact 8"},
    {"tests[2].config.num_buckets", "3", NULL,
     ": tests[2].config.num_buckets: 3 leaves no exact bucket"},
    {"tests[2].outputs.bucket.dtype", "\"i32\"", NULL,
     ": tests[2].outputs.bucket.dtype: expected i64 for t5.bucket, got i32"},
    {"tests[3].config.variant", "\"paper\"", NULL,
     ": tests[3].config.variant: unknown variant \"paper\" (interleaved, concat, t2t, fairseq)"},
    {"tests[3].config.padding_idx", NULL, NULL,
     ": tests[3].config.padding_idx: required for variant fairseq"},
    {"tests[3].config.base", "1", NULL, ": tests[3].config.base: must be > 1, got 1"},
    {"tests[3].outputs.embedding.shape", "[3, 4]", NULL,
     ": tests[3].outputs.embedding.shape: expected [3, 8], got [3, 4]"},
    {"tests[4].config.convention", "\"plain\"", NULL,
     ": tests[4].config.padding_idx: not allowed for convention plain"},
    {"tests[4].outputs.embedding.shape", "[2, 6]", NULL,
     ": tests[4].outputs.embedding.shape: expected [2, 4], got [2, 6]"},
    {"tests[5].config.embed_dim", "10", NULL,
     ": tests[5].config.embed_dim: 10 is not a multiple of 4"},
    {"tests[5].config.cls_token", "false", NULL,
     ": tests[5].outputs.embedding.shape: expected [6, 8], got [7, 8]"},
    {"tests[6].config.window_w", "2", NULL,
     ": tests[6].outputs.index.shape: expected [4, 4], got [6, 6]"},
    {"tests[6].config.window_h", "4097", NULL,
     ": tests[6].config.window_h: 4097 out of range"},
    {"tests[7].config.max_relative_position", "-1", NULL,
     ": tests[7].config.max_relative_position: -1 out of range"},
    {"tests[7].inputs.q_positions.dtype", "\"f32\"", NULL,
     ": tests[7].inputs.q_positions.dtype: expected i64 for shaw.index, got f32"},
    {"tests[8].params.klen", "4", NULL,
     ": tests[8].outputs.pos_emb.shape: expected [4, 8], got [5, 8]"},
    {"tests[8].config.d_model", "7", NULL, ": tests[8].config.d_model: 7 is odd"},
    {"tests[8].params", "{}", NULL, ": tests[8].params.klen: missing required key"},
    {"tests[9].outputs.out.shape", "[2, 3, 3]", NULL,
     ": tests[9].outputs.out.shape: expected [2, 3, 2], got [2, 3, 3]"},
    {"tests[10].inputs.attention_mask.shape", "[2, 5]", NULL,
     ": tests[10].inputs.attention_mask.shape: expected [2, 4], got [2, 5]"},
    {"tests[10].inputs.image_grid_thw.shape", "[1, 2]", NULL,
     ": tests[10].inputs.image_grid_thw.shape: expected [1, 3], got [1, 2]"},
    {"tests[10].outputs.position_ids.shape", "[2, 2, 4]", NULL,
     ": tests[10].outputs.position_ids.shape: expected [3, 2, 4], got [2, 2, 4]"},
    {"tests[10].inputs.video_grid_thw", NULL, NULL,
     ": tests[10].inputs.video_grid_thw: missing required key"},
    {"tests[10].config.spatial_merge_size", "0", NULL,
     ": tests[10].config.spatial_merge_size: 0 out of range"},
    {"tests[11].config.mrope_section", "[1, 2, 2]", NULL,
     ": tests[11].config.mrope_section: sums to 5, rotary_dim / 2 is 4"},
    {"tests[11].config.mrope_section", "[]", NULL,
     ": tests[11].config.mrope_section: expected 1 to 4 integers, got 0"},
    {"tests[11].config.mrope_section", "[1, 1, 1, 1, 0]", NULL,
     ": tests[11].config.mrope_section: expected 1 to 4 integers, got 5"},
    {"tests[11].config.mrope_section", "[1, -1, 4]", NULL,
     ": tests[11].config.mrope_section[1]: -1 out of range"},
    {"tests[11].config.mrope_section", NULL, NULL,
     ": tests[11].config.mrope_section: missing required key"},
    {"tests[11].config.rope_type", "\"ntk\"", NULL,
     ": tests[11].config.rope_type: unknown rope_type \"ntk\""},
    {"tests[11].params.pairing", NULL, NULL,
     ": tests[11].params.pairing: missing required key"},
    {"tests[11].inputs.positions.shape", "[2, 2]", NULL,
     ": tests[11].inputs.positions.shape: expected [3, T], got [2, 2]"},
    {"tests[12].config.scheme", "\"raster\"", NULL,
     ": tests[12].config.scheme: unknown scheme \"raster\" (merge_windows, row_major, row_major_cls, "
     "attention_windows)"},
    {"tests[12].config.window_units", "4", NULL,
     ": tests[12].config.window_units: present with scheme row_major_cls (only attention_windows takes it)"},
    {"tests[12].config.scheme", "\"attention_windows\"", NULL,
     ": tests[12].config.window_units: missing with scheme attention_windows (only attention_windows takes it)"},
    {"tests[12].config.window_units", "0", NULL, ": tests[12].config.window_units: 0 out of range"},
    {"tests[12].config.spatial_merge_size", "2", NULL,
     ": tests[12].config.spatial_merge_size: 2: scheme row_major_cls has no merge windows (must be 1)"},
    {"tests[12].inputs.grid_thw.shape", "[2, 2]", NULL,
     ": tests[12].inputs.grid_thw.shape: expected [2, 3], got [2, 2]"},
    {"tests[12].outputs.positions.shape", "[3, 7]", NULL,
     ": tests[12].outputs.positions.shape: expected [2, T], got [3, 7]"},
    {"tests[13].config.head_dim", "6", NULL, ": tests[13].config.head_dim: 6 is not a multiple of 4"},
    {"tests[13].config.theta", "1", NULL, ": tests[13].config.theta: must be > 1, got 1"},
    {"tests[13].params.pairing", "\"neox\"", NULL,
     ": tests[13].params.pairing: unknown pairing \"neox\" (split_half, interleaved)"},
    {"tests[13].params", "{}", NULL, ": tests[13].params.pairing: missing required key"},
    {"tests[13].inputs.x.shape", "[2, 1, 4]", NULL,
     ": tests[13].inputs.x.shape: expected [2, 1, 8], got [2, 1, 4]"},
    {"tests[13].inputs.positions.shape", "[2, 3]", NULL,
     ": tests[13].inputs.x.shape: expected [3, H, 8], got [2, 1, 8]"},
    {"tests[14].config.mode", "\"nearest\"", NULL,
     ": tests[14].config.mode: unknown mode \"nearest\" (bicubic, bilinear)"},
    {"tests[14].config.merge_size", "2", NULL, ": tests[14].config.merge_size: 2 does not divide out_h and out_w"},
    {"tests[14].config",
     "{\"mode\": \"bilinear\", \"align_corners\": true, \"antialias\": true, \"prefix_tokens\": 1, "
     "\"merge_size\": 1, "
     "\"grid_h\": 2, \"grid_w\": 2, \"out_h\": 3, \"out_w\": 4, \"scale_h\": 0, \"scale_w\": 0}",
     NULL, ": tests[14].config.antialias: not defined with align_corners"},
    {"tests[14].config",
     "{\"mode\": \"bilinear\", \"align_corners\": false, \"antialias\": false, \"prefix_tokens\": 1, "
     "\"merge_size\": 1, "
     "\"grid_h\": 2, \"grid_w\": 2, \"out_h\": 3, \"out_w\": 4, \"scale_h\": 1.5, \"scale_w\": 0}",
     NULL, ": tests[14].config.scale_h: 1.5: the scale_factor form is bicubic without align_corners"},
    {"tests[14].config.scale_w", "1.5", NULL,
     ": tests[14].config.scale_w: 1.5: floor(grid_w 2 * scale) is not out_w 4"},
    {"tests[14].config.scale_h", "-1", NULL, ": tests[14].config.scale_h: -1 must be >= 0 (0: the size form)"},
    {"tests[14].config.grid_h", "5000", NULL, ": tests[14].config.grid_h: 5000 out of range [1, 4096]"},
    {"tests[14].config.prefix_tokens", "65", NULL, ": tests[14].config.prefix_tokens: 65 out of range [0, 64]"},
    {"tests[14].config.scale_w", NULL, NULL, ": tests[14].config.scale_w: missing required key"},
    {"tests[14].inputs.table.shape", "[4, 4]", NULL, ": tests[14].inputs.table.shape: expected [5, D], got [4, 4]"},
    {"tests[14].outputs.out.shape", "[12, 4]", NULL, ": tests[14].outputs.out.shape: expected [13, 4], got [12, 4]"},
    {"tests[14].inputs.table.dtype", "\"f64\"", NULL,
     ": tests[14].inputs.table.dtype: expected f32 for posinterp.resize, got f64"},
    {"tests[15].config.npos", "0", NULL, ": tests[15].config.npos: 0 out of range [1, 1048576]"},
    {"tests[15].config.gates", "\"queries\"", NULL,
     ": tests[15].config.gates: unknown gates \"queries\" (keys, sep_key, values)"},
    {"tests[15].config.masked", NULL, NULL, ": tests[15].config.masked: missing required key"},
    {"tests[15].config.npos", "6", NULL, ": tests[15].inputs.pos_emb.shape: expected [4, 6], got [4, 5]"},
    {"tests[15].inputs.gate_k.shape", "[3, 5]", NULL, ": tests[15].inputs.gate_k.shape: expected [3, 4], got [3, 5]"},
    {"tests[15].inputs.mask.shape", "[3, 2]", NULL, ": tests[15].inputs.mask.shape: expected [2, 3], got [3, 2]"},
    {"tests[15].outputs.logits.shape", "[2, 2]", NULL,
     ": tests[15].outputs.logits.shape: expected [2, 3], got [2, 2]"},
    {"tests[16].config.kernel", "4", NULL,
     ": tests[16].config.kernel: 4 is even: the zero padding (kernel - 1) / 2 is not centred"},
    {"tests[16].config.kernel", "33", NULL, ": tests[16].config.kernel: 33 out of range [1, 31]"},
    {"tests[16].config.grid_w", "4", NULL, ": tests[16].inputs.x.shape: expected [9, C], got [7, 2]"},
    {"tests[16].inputs.weight.shape", "[2, 3, 1]", NULL,
     ": tests[16].inputs.weight.shape: expected [2, 3, 3], got [2, 3, 1]"},
    {"tests[16].inputs.bias.shape", "[3]", NULL, ": tests[16].inputs.bias.shape: expected [2], got [3]"},
};

#define N_FAMILY_BAD_CASES ((int)(sizeof family_bad_cases / sizeof family_bad_cases[0]))

/* A table of no channels (D = 0) with an output to match: the shapes
 * agree, and the op still refuses it, naming the table. */
START_TEST(families_posinterp_no_channels)
{
    tv_set(&g_tv, "tests[14].inputs.table.shape", "[5, 0]");
    fix_nbytes(&g_tv, "tests[14].inputs.table.shape");
    tv_set(&g_tv, "tests[14].inputs.table.crc32", "0"); /* the crc32 of no bytes */
    tv_set(&g_tv, "tests[14].outputs.out.shape", "[13, 0]");
    fix_nbytes(&g_tv, "tests[14].outputs.out.shape");
    tv_set(&g_tv, "tests[14].outputs.out.crc32", "0");
    expect_fail(&g_tv, ": tests[14].inputs.table.shape: D = 0: at least 1");
}
END_TEST

START_TEST(families_errors_table)
{
    expect_bad_case_fails(&g_tv, &family_bad_cases[_i]);
}
END_TEST

/* ---- suite ------------------------------------------------------------- */

/* A test case of tests on the tv fixture that setup builds. */
static TCase *with_fixture(TCase *tc, void (*setup)(void))
{
    tcase_add_checked_fixture(tc, setup, tv_teardown);
    return tc;
}

Suite *make_vectors_suite(void)
{
    TCase *errors = with_fixture(tcase_create("errors"), tv_setup);
    tcase_set_timeout(errors, 120);
    tcase_add_loop_test(errors, errors_table, 0, N_BAD_CASES);
    tcase_add_loop_test(errors, errors_fuzz, 0, FUZZ_ROUNDS);

    TCase *skipped_payload = with_fixture(tcase_create("skipped_payload"), tv_setup);
    tcase_add_test_raise_signal(skipped_payload, core_skipped_payload_read_aborts, SIGABRT);

    TCase *families = with_fixture(TEST_TCASE("families", 120, families_load), fv_setup);
    tcase_add_loop_test(families, families_errors_table, 0, N_FAMILY_BAD_CASES);
    tcase_add_test(families, families_posinterp_no_channels);
    tcase_add_loop_test(families, errors_fuzz, 0, FUZZ_ROUNDS);

    return test_suite_of("vectors",
                         with_fixture(TEST_TCASE("core", 0,
                                                 core_load_valid,
                                                 core_tensors,
                                                 core_overlapping_slices,
                                                 core_adler_trailer_not_checked,
                                                 core_payload_only_when_wanted,
                                                 core_config,
                                                 core_config_variants,
                                                 core_compact_and_relative,
                                                 core_free_and_lookup,
                                                 core_bad_arguments,
                                                 core_list,
                                                 core_list_errors,
                                                 core_committed_vectors,
                                                 core_list_families),
                                      tv_setup),
                         /* A 16 MiB manifest and a 64 MiB inflate are slow under sanitizers. */
                         with_fixture(TEST_TCASE("limits", 60,
                                                 limits_manifest_size,
                                                 limits_elements,
                                                 limits_ndim,
                                                 limits_payload_size,
                                                 limits_tests_and_ids,
                                                 limits_bomb,
                                                 limits_err_truncation,
                                                 limits_err_one_line),
                                      tv_setup),
                         errors, families, skipped_payload, NULL);
}
