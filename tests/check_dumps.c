/*
 * check_dumps.c - `pecert diagnose` on dumps the tests write: q before and
 * after a plugin's rope_apply (ref, fast, an honest float32 engine, and
 * the mutants that change positions, pairing, rotary_dim, theta or the
 * attention factor), read back through .npy files. Each planted bug must
 * be named by its finding; a correct engine's dump must give none and its
 * exact positions, up to 2^20 with rope_theta 1e6 and to 2^24 - 1. Bad files must get one
 * line naming the file and exit 2.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cJSON.h"
#include "cache_diagnosis.h"
#include "certify_config.h"
#include "checks.h"
#include "dump_diagnosis.h"
#include "npy.h"
#include "plugin_load.h"
#include "suites.h"

#define TOKENS 40

static char err[1024];

typedef struct dump {
    int64_t tokens;
    int32_t heads;
    int32_t dim;
    double *x;
    double *y;
    int64_t positions[TOKENS];
} dump;

static void load_profile(pecert_certify_model *m, const char *name)
{
    ck_assert_msg(pecert_certify_load_profile(m, PECERT_SOURCE_DIR "/conformance/profiles", name, err, sizeof(err)) == 0,
                  "%s", err);
}

static void open_plugin(pecert_loaded_plugin *p, const char *name)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/impls/%s.so", test_build_dir(), name);
    ck_assert_msg(pecert_plugin_open(p, path, err, sizeof(err)) == 0, "%s", err);
}

/* q of m's kv heads at positions first..first+TOKENS-1, rotated by plugin
 * `impl` (its own rope_apply, float32 in and out, as an engine's dump). */
static void make_dump(dump *d, const pecert_certify_model *m, const char *impl, int64_t first)
{
    pecert_loaded_plugin p;
    void *inst = NULL;
    open_plugin(&p, impl);
    ck_assert_int_eq(p.desc->create(&inst), PECERT_OK);
    d->tokens = TOKENS;
    d->heads = m->num_kv_heads;
    d->dim = m->rope.head_dim;
    size_t n = (size_t)d->tokens * (size_t)d->heads * (size_t)d->dim;
    float *x = malloc(n * sizeof(float));
    float *y = calloc(n, sizeof(float)); /* an engine that skips channels leaves zeros, not garbage */
    d->x = malloc(n * sizeof(double));
    d->y = malloc(n * sizeof(double));
    ck_assert(x != NULL && y != NULL && d->x != NULL && d->y != NULL);
    pecert_rng rng = {12345};
    for (size_t i = 0; i < n; i++) {
        x[i] = pecert_rng_float(&rng);
    }
    for (int64_t t = 0; t < TOKENS; t++) {
        d->positions[t] = first + t;
    }
    pecert_tensor tx = pecert_tensor_3d(x, d->tokens, d->heads, d->dim, (int64_t)d->heads * d->dim, d->dim, 1);
    pecert_tensor ty = pecert_tensor_3d(y, d->tokens, d->heads, d->dim, (int64_t)d->heads * d->dim, d->dim, 1);
    pecert_rope_apply_args a = {.struct_size = sizeof(a), .pairing = m->pairing, .config = &m->rope,
                                .positions = d->positions, .x = &tx, .out = &ty};
    ck_assert_msg(p.desc->rope_apply(inst, &a) == PECERT_OK, "%s: %s", impl, p.desc->last_error(inst));
    for (size_t i = 0; i < n; i++) {
        d->x[i] = x[i];
        d->y[i] = y[i];
    }
    free(x);
    free(y);
    p.desc->destroy(inst);
    pecert_plugin_close(&p);
}

static void free_dump(dump *d)
{
    free(d->x);
    free(d->y);
}

/* The report of dump d against m (positions given or not). */
static void diagnose(pecert_dump_report *r, const pecert_certify_model *m, const dump *d, int give_positions)
{
    pecert_loaded_plugin ref;
    open_plugin(&ref, "ref");
    pecert_dump_view v = {d->tokens, d->heads, d->dim, d->x, d->y, ldexp(1.0, -24)};
    ck_assert_msg(pecert_dump_diagnose(r, m, &ref, &v, give_positions ? d->positions : NULL, err, sizeof(err)) == 0,
                  "%s", err);
    pecert_plugin_close(&ref);
}

static const pecert_dump_finding *find(const pecert_dump_report *r, const char *id)
{
    for (int32_t i = 0; i < r->n_findings; i++) {
        if (strcmp(r->findings[i].id, id) == 0) {
            return &r->findings[i];
        }
    }
    return NULL;
}

static void assert_exact(const pecert_dump_report *r, const dump *d, const char *what)
{
    ck_assert_msg(r->n_findings == 0, "%s: finding '%s': %s", what, r->n_findings > 0 ? r->findings[0].id : "",
                  r->n_findings > 0 ? r->findings[0].text : "");
    ck_assert_int_eq(r->best, 0);
    for (int64_t t = 0; t < d->tokens; t++) {
        ck_assert_msg(r->tokens[t].integer && r->tokens[t].nearest == d->positions[t],
                      "%s: token %lld recovered %lld (residual %g), expected %lld", what, (long long)t,
                      (long long)r->tokens[t].nearest, r->tokens[t].residual, (long long)d->positions[t]);
    }
}

/* ref, fast and an honest float32 engine (ggml's frequency recurrence):
 * the config's RoPE, positions exact, with and without them given, near
 * 0 and at 2^20 (Llama 3.1's llama3 scaling; Qwen2's rope_theta 1e6). */
START_TEST(correct_engines_recover_exact_positions)
{
    static const struct {
        const char *profile;
        int64_t first;
        int recurrence_needs_positions;
    } cases[] = {{"llama-3.1-8b", 0, 0}, {"llama-3.1-8b", (1 << 20) - TOKENS + 1, 0},
                 {"qwen2-7b", (1 << 20) - TOKENS + 1, 0},
                 /* The search's last period (to 2^24 - 1; llama3's lowest frequency has a period past 2^24).
                  * There a float32 engine whose frequencies are a recurrence errs by up to (3 + i) u p omega_i
                  * on pair i (TOLERANCES.md): positions 2 apart both fit its angles, so without the positions
                  * given its tokens are only within 2; given, they are checked exactly. */
                 {"llama-3.1-8b", (1 << 24) - TOKENS, 1},
                 /* position 0 under an attention factor: its angles a rounding either side of 0 */
                 {"gpt-oss-20b", 0, 0},
                 /* LongRoPE past original_max_position_embeddings: the long factors, at the recovered length */
                 {"phi-3.5-mini", 5000, 0}};
    static const char *const engines[] = {"ref", "fast", "honest/ggml_recurrence"};
    pecert_certify_model m;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        load_profile(&m, cases[c].profile);
        for (size_t e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
            dump d;
            char what[128];
            snprintf(what, sizeof(what), "%s on %s from %lld", engines[e], cases[c].profile, (long long)cases[c].first);
            make_dump(&d, &m, engines[e], cases[c].first);
            int recurrence = strstr(engines[e], "recurrence") != NULL;
            for (int given = recurrence && cases[c].recurrence_needs_positions; given < 2; given++) {
                pecert_dump_report r;
                diagnose(&r, &m, &d, given);
                assert_exact(&r, &d, what);
                ck_assert_int_eq(r.pairing_found, 1);
                ck_assert_int_eq(r.pairing, m.pairing);
                pecert_dump_report_free(&r);
            }
            free_dump(&d);
        }
    }
}
END_TEST

/* A dynamic NTK Llama (factor 2 over 4096) and a YaRN Qwen2 with its own
 * betas: the scaling bugs no bundled profile shows. */
#define DYNAMIC_LLAMA                                                                                   \
    "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"                  \
    " \"num_key_value_heads\": 8, \"max_position_embeddings\": 4096, \"rope_theta\": 10000.0,"        \
    " \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2.0}}"
#define YARN_BETAS                                                                                      \
    "{\"model_type\": \"qwen2\", \"hidden_size\": 3584, \"num_attention_heads\": 28,"                  \
    " \"num_key_value_heads\": 4, \"max_position_embeddings\": 131072, \"rope_theta\": 1000000.0,"    \
    " \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 32768," \
    " \"beta_fast\": 64, \"beta_slow\": 2}}"

/* m from a bundled profile, or from config.json text ('{...'); layer
 * (NULL: the config's own) picks a layer type. */
static void load_model(pecert_certify_model *m, const char *what, const char *layer)
{
    if (what[0] == '{') {
        ck_assert_msg(pecert_certify_parse(m, what, "test", err, sizeof(err)) == 0, "%s", err);
    } else {
        load_profile(m, what);
    }
    for (int32_t t = 0; layer != NULL && t < m->n_layer_types; t++) {
        if (strcmp(m->layer_types[t].name, layer) == 0) {
            m->rope = m->layer_types[t].rope;
        }
    }
}

/* Each mutant that changes what rope_apply computes (positions, pairing,
 * rotated channels, theta, scaling, attention factor, a NoPE layer) is
 * named by the finding of what it changed, on ref and on the float32
 * base, at the positions where the bug shows. */
START_TEST(planted_bugs_are_named)
{
    static const struct {
        const char *mutant;
        const char *model;  /* profile, or config.json text */
        const char *layer;
        int64_t first;
        const char *finding;
        const char *says;
    } planted[] = {
        {"decode_off_by_one", "llama-3.1-8b", NULL, 0, "position", "token 0 was rotated for position 1 (expected 0)"},
        {"physical_index", "llama-3.1-8b", NULL, 100, "position", "40 tokens shifted by -100"},
        {"position_clamped", "llama-3.1-8b", NULL, 131060, "position", "positions clamped at 131071"},
        {"fp16_positions", "llama-3.1-8b", NULL, 5000, "position", "positions held in float16"},
        {"bf16_positions", "llama-3.1-8b", NULL, 5000, "position", "positions held in bfloat16"},
        {"sign_flipped", "llama-3.1-8b", NULL, 0, "rotation_reversed", "rotated by minus its angle"},
        {"pairing_swapped", "llama-3.1-8b", NULL, 0, "pairing", "interleaved; the config's model uses split-half"},
        {"rotary_dim_from_head_dim", "stablelm-3b-4e1t", NULL, 0, "rotary_dim",
         "channels 0..79 were rotated; rotary_dim is 20"},
        {"wrong_slice", "stablelm-3b-4e1t", NULL, 0, "rotary_dim", "channels 60..79 were rotated; rotary_dim is 20"},
        {"passthrough_not_copied", "stablelm-3b-4e1t", NULL, 0, "passthrough", "channels 20..79 past rotary_dim 20"},
        {"scaling_on_passthrough", "phi-4-mini", NULL, 0, "passthrough", "channels 96..127 past rotary_dim 96 are scaled by 1.19"},
        {"theta_default", "llama-3.1-8b", NULL, 0, "frequencies", "angles match llama3 theta=10000"},
        {"llama3_ignored", "llama-3.1-8b", NULL, 0, "frequencies", "angles match default theta=500000 (rope_scaling left out)"},
        {"linear_inverted", "gemma-3-27b", "full", 0, "frequencies", "the config's 8 applied inverted"},
        {"dynamic_static", DYNAMIC_LLAMA, NULL, 5000, "frequencies", "dynamic at length 8192"},
        {"dynamic_wrong_length", DYNAMIC_LLAMA, NULL, 5000, "frequencies", "dynamic at length 40"},
        {"longrope_always_short", "phi-3.5-mini", NULL, 5000, "frequencies", "longrope short factors"},
        {"longrope_allocated", "phi-3.5-mini", NULL, 0, "frequencies", "longrope long factors"},
        {"longrope_at_l0", "phi-3.5-mini", NULL, 4096 - TOKENS, "frequencies", "longrope long factors"},
        {"yarn_betas_ignored", YARN_BETAS, NULL, 100000, "frequencies", "the config's betas not read"},
        {"yarn_truncate_ignored", "gpt-oss-20b", NULL, 100000, "frequencies", "the config's truncate: false not read"},
        {"yarn_mscale_missing", "gpt-oss-20b", NULL, 0, "attention_factor", "the config's attention factor is 1.34657"},
        {"yarn_mscale_twice", "gpt-oss-20b", NULL, 0, "attention_factor", "scaled by 1.81326"},
        {"yarn_mscale_all_dim_dropped", "deepseek-v3", NULL, 0, "attention_factor", "the config's attention factor is 1 "},
        {"nope_rotated", "smollm3-3b", "nope", 0, "nope_rotated", "of a NoPE layer changed"},
        {"fp16_angle", "llama-3.1-8b", NULL, 0, "precision", "only to float16 precision"},
        {"fp16_angle", "qwen2-7b", NULL, 1800, "precision", "only to float16 precision"},
    };
    for (int base = 0; base < 2; base++) {
        for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
            pecert_certify_model m;
            char name[128];
            snprintf(name, sizeof(name), "%s/%s", base ? "mutants-f32" : "mutants", planted[i].mutant);
            load_model(&m, planted[i].model, planted[i].layer);
            dump d;
            make_dump(&d, &m, name, planted[i].first);
            pecert_dump_report r;
            diagnose(&r, &m, &d, 1);
            const pecert_dump_finding *f = find(&r, planted[i].finding);
            ck_assert_msg(f != NULL, "%s: no '%s' finding (%d findings, first '%s': %s)", name, planted[i].finding,
                          (int)r.n_findings, r.n_findings > 0 ? r.findings[0].id : "",
                          r.n_findings > 0 ? r.findings[0].text : "");
            ck_assert_msg(strstr(f->text, planted[i].says) != NULL, "%s: '%s' does not say '%s'", name, f->text,
                          planted[i].says);
            pecert_dump_report_free(&r);
            free_dump(&d);
        }
    }
}
END_TEST

/* The same dumps from ref are the config's RoPE: no mutant's finding is
 * the suite's own false alarm at those positions and configs. */
START_TEST(ref_dumps_of_the_planted_cases_are_clean)
{
    static const struct {
        const char *model;
        const char *layer;
        int64_t first;
    } cases[] = {{"llama-3.1-8b", NULL, 131060}, {"llama-3.1-8b", NULL, 5000}, {"stablelm-3b-4e1t", NULL, 0},
                 {"phi-4-mini", NULL, 0},        {"gemma-3-27b", "full", 0}, {DYNAMIC_LLAMA, NULL, 5000},
                 {"phi-3.5-mini", NULL, 5000},   {"phi-3.5-mini", NULL, 4096 - TOKENS},
                 {YARN_BETAS, NULL, 100000},     {"gpt-oss-20b", NULL, 100000},
                 {"deepseek-v3", NULL, 0},       {"smollm3-3b", "nope", 0}};
    for (int base = 0; base < 2; base++) {
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            pecert_certify_model m;
            load_model(&m, cases[i].model, cases[i].layer);
            dump d;
            make_dump(&d, &m, base ? "honest/official_f32" : "ref", cases[i].first);
            pecert_dump_report r;
            diagnose(&r, &m, &d, 1);
            ck_assert_msg(r.n_findings == 0, "%s on case %zu: '%s': %s", base ? "honest/official_f32" : "ref", i,
                          r.n_findings > 0 ? r.findings[0].id : "", r.n_findings > 0 ? r.findings[0].text : "");
            pecert_dump_report_free(&r);
            free_dump(&d);
        }
    }
}
END_TEST

/* ---- through the command and .npy files ------------------------------- */

/* x and y as dir/<pre>.npy and dir/<post>.npy ([rows, heads, dim]
 * float32) and positions as dir/<pos>.npy (int64). */
static void write_npy_set(const char *dir, const char *const names[3], const double *x, const double *y,
                          const int64_t shape[3], const int64_t *positions)
{
    char path[1024];
    double *pos = malloc(((size_t)shape[0] + 1) * sizeof(double));
    ck_assert_ptr_nonnull(pos);
    for (int64_t t = 0; t < shape[0]; t++) {
        pos[t] = (double)positions[t];
    }
    snprintf(path, sizeof(path), "%s/%s.npy", dir, names[0]);
    ck_assert_msg(pecert_npy_write(path, x, 3, shape, 0, err, sizeof(err)) == 0, "%s", err);
    snprintf(path, sizeof(path), "%s/%s.npy", dir, names[1]);
    ck_assert_msg(pecert_npy_write(path, y, 3, shape, 0, err, sizeof(err)) == 0, "%s", err);
    snprintf(path, sizeof(path), "%s/%s.npy", dir, names[2]);
    ck_assert_msg(pecert_npy_write(path, pos, 1, &shape[0], 1, err, sizeof(err)) == 0, "%s", err);
    free(pos);
}

static void write_dump_files(const dump *d, const char *dir)
{
    static const char *const names[3] = {"pre", "post", "pos"};
    int64_t shape[3] = {d->tokens, d->heads, d->dim};
    write_npy_set(dir, names, d->x, d->y, shape, d->positions);
}

START_TEST(command_reads_npy_and_names_the_bug)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-dumps-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    pecert_certify_model m;
    load_profile(&m, "llama-3.1-8b");
    dump d;
    make_dump(&d, &m, "mutants/decode_off_by_one", 0);
    write_dump_files(&d, dir);
    int rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s/pre.npy --after %s/post.npy "
                         "--positions %s/pos.npy", dir, dir, dir);
    ck_assert_msg(rc == 1 && strstr(out, "position: token 0 was rotated for position 1 (expected 0)") != NULL,
                  "rc %d:\n%s", rc, out);
    free_dump(&d);
    make_dump(&d, &m, "ref", 0);
    write_dump_files(&d, dir);
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s/pre.npy --after %s/post.npy "
                     "--positions %s/pos.npy", dir, dir, dir);
    ck_assert_msg(rc == 0 && strstr(out, "verdict: the config's RoPE at the given positions") != NULL, "rc %d:\n%s",
                  rc, out);
    free_dump(&d);
    /* Gemma 3's sliding layers (rope_local_base_freq 10000) dumped: read as
     * those they are the config's RoPE; as the full layers' (1e6, linear 8)
     * the frequencies are named. --json holds the same verdict. */
    load_profile(&m, "gemma-3-27b");
    int sliding = strcmp(m.layer_types[0].name, "sliding") == 0 ? 0 : 1;
    ck_assert_str_eq(m.layer_types[sliding].name, "sliding");
    m.rope = m.layer_types[sliding].rope;
    make_dump(&d, &m, "ref", 100);
    write_dump_files(&d, dir);
    rc = test_pecert(out, sizeof(out), "diagnose --profile gemma-3-27b --layer sliding --before %s/pre.npy --after "
                     "%s/post.npy --positions %s/pos.npy --json %s/r.json", dir, dir, dir, dir);
    ck_assert_msg(rc == 0, "rc %d:\n%s", rc, out);
    char *json = test_read_in(dir, "r.json");
    cJSON *doc = cJSON_Parse(json);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(cJSON_GetObjectItem(doc, "schema")->valuestring, "pecert-diagnose/1");
    ck_assert_str_eq(cJSON_GetObjectItem(doc, "verdict")->valuestring, "pass");
    const cJSON *tokens = cJSON_GetObjectItem(doc, "tokens");
    ck_assert_int_eq(cJSON_GetArraySize(tokens), TOKENS);
    ck_assert_double_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(tokens, 7), "position")->valuedouble, 107.0);
    cJSON_Delete(doc);
    free(json);
    rc = test_pecert(out, sizeof(out), "diagnose --profile gemma-3-27b --layer full --before %s/pre.npy --after "
                     "%s/post.npy --positions %s/pos.npy", dir, dir, dir);
    ck_assert_msg(rc == 1 && strstr(out, "frequencies: angles match default theta=10000") != NULL, "rc %d:\n%s", rc,
                  out);
    rc = test_pecert(out, sizeof(out), "diagnose --profile gemma-3-27b --layer global --before %s/pre.npy --after "
                     "%s/post.npy", dir, dir);
    ck_assert_msg(rc == 2 && strstr(out, "the model's layer types are sliding, full") != NULL, "rc %d:\n%s", rc, out);
    free_dump(&d);
    test_remove_dir(dir);
}
END_TEST

/* d as one .safetensors file holding q_pre and q_post (F32) and, for the
 * error cases, the header text replaced by `header` when not NULL. */
static void write_safetensors(const dump *d, const char *path, const char *header)
{
    size_t n = (size_t)d->tokens * (size_t)d->heads * (size_t)d->dim;
    char h[512];
    int len = header != NULL ? snprintf(h, sizeof(h), "%s", header)
                             : snprintf(h, sizeof(h),
                                        "{\"q_pre\": {\"dtype\": \"F32\", \"shape\": [%lld, %d, %d], \"data_offsets\": "
                                        "[0, %zu]}, \"q_post\": {\"dtype\": \"F32\", \"shape\": [%lld, %d, %d], "
                                        "\"data_offsets\": [%zu, %zu]}, \"__metadata__\": {\"format\": \"pt\"}}",
                                        (long long)d->tokens, (int)d->heads, (int)d->dim, n * 4, (long long)d->tokens,
                                        (int)d->heads, (int)d->dim, n * 4, n * 8);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    unsigned char size[8];
    for (int i = 0; i < 8; i++) {
        size[i] = (unsigned char)(((uint64_t)len >> (8 * i)) & 0xff);
    }
    fwrite(size, 1, 8, fp);
    fwrite(h, 1, (size_t)len, fp);
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < n; i++) {
            float v = (float)(k == 0 ? d->x[i] : d->y[i]);
            fwrite(&v, 4, 1, fp);
        }
    }
    fclose(fp);
}

/* Both tensors from one safetensors file (FILE:NAME), and its errors:
 * a missing tensor, a file of two tensors named by neither, offsets past
 * the data. */
START_TEST(safetensors_dumps)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-st-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    pecert_certify_model m;
    load_profile(&m, "llama-3.1-8b");
    dump d;
    make_dump(&d, &m, "mutants/pairing_swapped", 0);
    char path[1100];
    snprintf(path, sizeof(path), "%s/q.safetensors", dir);
    write_safetensors(&d, path, NULL);
    int rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s:q_pre --after %s:q_post", path,
                         path);
    ck_assert_msg(rc == 1 && strstr(out, "pairing: pairs (2i, 2i+1) rotate together") != NULL, "rc %d:\n%s", rc, out);
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s:q --after %s:q_post", path, path);
    ck_assert_msg(rc == 2 && strstr(out, ":q: no such tensor; the file holds 2 tensors (q_pre, q_post)") != NULL,
                  "rc %d:\n%s", rc, out);
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s --after %s:q_post", path, path);
    ck_assert_msg(rc == 2 && strstr(out, "name the tensor") != NULL, "rc %d:\n%s", rc, out);
    snprintf(path, sizeof(path), "%s/bad.safetensors", dir);
    write_safetensors(&d, path, "{\"q\": {\"dtype\": \"F32\", \"shape\": [40, 8, 128], \"data_offsets\": [0, 999999999]}}");
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s --after %s", path, path);
    ck_assert_msg(rc == 2 && strstr(out, "bad.safetensors:q: data_offsets [0, 999999999]") != NULL &&
                  strchr(out, '\n') == out + strlen(out) - 1, "rc %d:\n%s", rc, out);
    /* A 0 dimension before a huge one (found by the fuzzer: the product
     * stayed 0 and the huge size reached an integer cast). */
    write_safetensors(&d, path, "{\"q\": {\"dtype\": \"F32\", \"shape\": [0, 2, 6666666666666666666666666666], "
                      "\"data_offsets\": [0, 0]}}");
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s --after %s", path, path);
    ck_assert_msg(rc == 2 && strstr(out, "bad.safetensors:q: shape: dimension 2 is not an integer in 0..") != NULL,
                  "rc %d:\n%s", rc, out);
    free_dump(&d);
    test_remove_dir(dir);
}
END_TEST

/* Bytes of a small valid float32 .npy [2, 8, 128] (llama-3.1-8b's kv heads
 * and head_dim), to damage. */
static size_t valid_npy(unsigned char *buf, size_t cap, const char *dir)
{
    char path[1024];
    int64_t shape[3] = {2, 8, 128};
    static double zeros[2 * 8 * 128];
    snprintf(path, sizeof(path), "%s/ok.npy", dir);
    ck_assert(pecert_npy_write(path, zeros, 3, shape, 0, err, sizeof(err)) == 0);
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    size_t n = fread(buf, 1, cap, fp);
    fclose(fp);
    return n;
}

static void write_bytes(const char *path, const unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
    fclose(fp);
}

START_TEST(bad_files_are_one_line_and_exit_2)
{
    static unsigned char good[1 << 16];
    static unsigned char bad[1 << 16];
    static char out[1 << 14];
    char dir[] = "/tmp/pecert-baddumps-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    size_t n = valid_npy(good, sizeof(good), dir);
    size_t hdr = 10 + (size_t)(good[8] | (good[9] << 8));
    static const struct {
        const char *name;
        const char *says;
    } cases[] = {
        {"truncated", "truncated"},      {"dtype", "'<i2' is not a dump pecert reads"},
        {"shape", "the config has head_dim 128"}, {"nan", "element 5 is NaN"},
        {"magic", "not a .npy file"},    {"fortran", "fortran_order: True"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        memcpy(bad, good, n);
        size_t len = n;
        char *h = (char *)bad + 10;
        if (strcmp(cases[c].name, "truncated") == 0) {
            len = n - 100;
        } else if (strcmp(cases[c].name, "dtype") == 0) {
            memcpy(strstr(h, "<f4"), "<i2", 3);
        } else if (strcmp(cases[c].name, "shape") == 0) {
            memcpy(strstr(h, "(2, 8, 128)"), "(4, 8,  64)", 11);
        } else if (strcmp(cases[c].name, "nan") == 0) {
            static const unsigned char nan_bits[4] = {0x00, 0x00, 0xc0, 0x7f};
            memcpy(bad + hdr + 5 * 4, nan_bits, 4);
        } else if (strcmp(cases[c].name, "magic") == 0) {
            bad[1] = 'X';
        } else {
            memcpy(strstr(h, "False"), "True ", 5);
        }
        char path[1100];
        snprintf(path, sizeof(path), "%s/%s.npy", dir, cases[c].name);
        write_bytes(path, bad, len);
        int rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s --after %s/ok.npy", path,
                             dir);
        ck_assert_msg(rc == 2, "%s: exit %d\n%s", cases[c].name, rc, out);
        ck_assert_msg(strstr(out, path) != NULL && strstr(out, cases[c].says) != NULL, "%s: %s", cases[c].name, out);
        ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1, "%s: more than one line: %s", cases[c].name, out);
    }
    test_remove_dir(dir);
}
END_TEST

/* The reader itself: versions 2.0, bfloat16 bits only when asked, a
 * header that lies about its length. */
START_TEST(npy_reader_limits)
{
    pecert_npy a;
    static const char v2[] = "\x93NUMPY\x02\x00\x3e\x00\x00\x00{'descr': '<u2', 'fortran_order': False, "
                             "'shape': (2,), }    \n\x80\x3f\x00\xc0";
    size_t len = sizeof(v2) - 1;
    ck_assert_int_eq(pecert_npy_parse(&a, (const unsigned char *)v2, len, "v2", 0, 0, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "--bf16"));
    ck_assert_msg(pecert_npy_parse(&a, (const unsigned char *)v2, len, "v2", 1, 0, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(a.dtype, PECERT_NPY_BF16);
    ck_assert_double_eq(a.data[0], 1.0); /* 0x3f80 */
    ck_assert_double_eq(a.data[1], -2.0); /* 0xc000 */
    pecert_npy_free(&a);
    static const char lying[] = "\x93NUMPY\x01\x00\xff\x7f{'descr': '<f4'}\n";
    ck_assert_int_eq(pecert_npy_parse(&a, (const unsigned char *)lying, sizeof(lying) - 1, "lying", 0, 0, err,
                                      sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
}
END_TEST

/* An engine with a rope_theta outside the common list (a typo, a
 * sibling's value, a hand-edited config): no listed set explains its
 * angles, so theta is fitted to them and named, to 3 or 6 significant
 * digits, with and without the positions given. */
START_TEST(theta_outside_the_common_list_is_fitted)
{
    static const struct {
        const char *profile;
        double theta;
        const char *label;
    } cases[] = {{"qwen2-7b", 75000.0, "default theta=75000 (fitted to the angles)"},
                 {"qwen2-7b", 2500000.0, "default theta=2500000 (fitted to the angles)"},
                 {"qwen2-7b", 123457.0, "default theta=123457 (fitted to the angles)"},
                 {"llama-3.1-8b", 250000.0, "default theta=250000 (fitted to the angles)"}};
    pecert_certify_model m;
    pecert_certify_model engine;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        load_profile(&m, cases[c].profile);
        engine = m;
        engine.rope.rope_type = PECERT_ROPE_DEFAULT;
        engine.rope.present = 0;
        engine.rope.rope_theta = cases[c].theta;
        dump d;
        make_dump(&d, &engine, "ref", 7);
        for (int given = 0; given <= 1; given++) {
            pecert_dump_report r;
            diagnose(&r, &m, &d, given);
            const pecert_dump_finding *f = find(&r, "frequencies");
            ck_assert_msg(f != NULL && strstr(f->text, cases[c].label) != NULL, "%s at theta %g (positions %s): %s",
                          cases[c].profile, cases[c].theta, given ? "given" : "not given",
                          f != NULL ? f->text : "no frequencies finding");
            ck_assert_msg(r.hypotheses[r.best].explained == TOKENS, "%lld of %d explained",
                          (long long)r.hypotheses[r.best].explained, TOKENS);
            for (int64_t t = 0; t < TOKENS; t++) {
                ck_assert_int_eq(r.tokens[t].nearest, d.positions[t]);
            }
            pecert_dump_report_free(&r);
        }
        free_dump(&d);
    }
}
END_TEST

/* ---- KV caches and decode traces ------------------------------------------ */

#define SLOTS 64
#define SLOT_BASE 1000 /* positions 1000 + slot: a slot never rotated does not read as position 0 */

/* rows[n] of m's kv heads rotated by an open plugin at positions pos. */
static void rotate_rows(const pecert_loaded_plugin *p, void *inst, const pecert_certify_model *m, float *x,
                        float *y, int64_t n, const int64_t *pos)
{
    int32_t h = m->num_kv_heads;
    int32_t d = m->rope.head_dim;
    pecert_tensor tx = pecert_tensor_3d(x, n, h, d, (int64_t)h * d, d, 1);
    pecert_tensor ty = pecert_tensor_3d(y, n, h, d, (int64_t)h * d, d, 1);
    pecert_rope_apply_args a = {.struct_size = sizeof(a), .pairing = m->pairing, .config = &m->rope,
                                .positions = pos, .x = &tx, .out = &ty};
    ck_assert_msg(p->desc->rope_apply(inst, &a) == PECERT_OK, "%s", p->desc->last_error(inst));
}

typedef struct cache_dump {
    int64_t slots[SLOTS];   /* the position each slot holds, -1 empty */
    double *x;              /* keys as written */
    double *y;              /* as cached */
    size_t row;
} cache_dump;

/* The planted slot bugs (each a real cache bug) and the runs they must
 * give, by slot. */
enum { NEVER_LO = 10, NEVER_HI = 13, TWICE_LO = 20, TWICE_HI = 23, NEIGH_LO = 30, NEIGH_HI = 33, STALE_LO = 40,
       STALE_HI = 55, STALE_BY = 16, OVERWRITTEN = 60, EMPTY_LO = 62, SHIFTED_HI = 11, SHIFT_BY = 4 };

/* A cache of SLOTS keys of m rotated by engine impl, slots 62..63 empty
 * (garbage), and with plant = 1 the bugs above planted. plant = 2 is a
 * context shift from position 0 whose K-shift was not applied: slots
 * 0..SHIFTED_HI hold positions 0.. but their keys were rotated for
 * position + SHIFT_BY (slot 4's shifted position is twice its own). */
static void make_cache(cache_dump *c, const pecert_certify_model *m, const char *impl, int plant)
{
    pecert_loaded_plugin p;
    void *inst = NULL;
    open_plugin(&p, impl);
    ck_assert_int_eq(p.desc->create(&inst), PECERT_OK);
    c->row = (size_t)m->num_kv_heads * (size_t)m->rope.head_dim;
    size_t n = SLOTS * c->row;
    float *x = malloc(n * sizeof(float));
    float *y = malloc(n * sizeof(float));
    float *tmp = malloc(c->row * sizeof(float));
    c->x = malloc(n * sizeof(double));
    c->y = malloc(n * sizeof(double));
    ck_assert(x != NULL && y != NULL && tmp != NULL && c->x != NULL && c->y != NULL);
    int planted = plant == 1; /* the five bugs above */
    pecert_rng rng = {777};
    for (size_t i = 0; i < n; i++) {
        x[i] = pecert_rng_float(&rng);
    }
    for (int64_t s = 0; s < SLOTS; s++) {
        c->slots[s] = s >= EMPTY_LO ? -1 : (plant == 2 ? 0 : SLOT_BASE) + s;
        int64_t at = plant == 2 && s <= SHIFTED_HI ? s + SHIFT_BY : c->slots[s];
        float *key = x + (size_t)s * c->row;
        float *out = y + (size_t)s * c->row;
        if (s >= EMPTY_LO) {
            for (size_t i = 0; i < c->row; i++) {
                out[i] = pecert_rng_float(&rng); /* an empty slot holds whatever was there */
            }
            continue;
        }
        if (planted && s >= NEVER_LO && s <= NEVER_HI) {
            memcpy(out, key, c->row * sizeof(float));
            continue;
        }
        if (planted && s >= NEIGH_LO && s <= NEIGH_HI) {
            at = SLOT_BASE + s + 1;
        } else if (planted && s >= STALE_LO && s <= STALE_HI) {
            at = SLOT_BASE + s + STALE_BY; /* positions moved back by a context shift, keys not re-rotated */
        } else if (planted && s == OVERWRITTEN) {
            key = x; /* slot 0's key rotated for slot 60's position */
        }
        rotate_rows(&p, inst, m, key, out, 1, &at);
        if (planted && s >= TWICE_LO && s <= TWICE_HI) {
            memcpy(tmp, out, c->row * sizeof(float));
            rotate_rows(&p, inst, m, tmp, out, 1, &at);
        }
    }
    for (size_t i = 0; i < n; i++) {
        c->x[i] = x[i];
        c->y[i] = y[i];
    }
    free(x);
    free(y);
    free(tmp);
    p.desc->destroy(inst);
    pecert_plugin_close(&p);
}

static void free_cache(cache_dump *c)
{
    free(c->x);
    free(c->y);
}

static void diagnose_cache(pecert_cache_report *r, const pecert_certify_model *m, const cache_dump *c)
{
    pecert_loaded_plugin ref;
    open_plugin(&ref, "ref");
    pecert_dump_view v = {SLOTS, m->num_kv_heads, m->rope.head_dim, c->x, c->y, ldexp(1.0, -24)};
    ck_assert_msg(pecert_cache_diagnose(r, m, &ref, &v, c->slots, err, sizeof(err)) == 0, "%s", err);
    pecert_plugin_close(&ref);
}

/* Every planted slot bug is one run of exactly its slots, named by what
 * it is; the slots around them read as their own positions; ref's and
 * fast's caches of the same keys are clean (Llama 3.1: llama3 scaling,
 * split-half; Phi-3.5-mini: LongRoPE, partial factors; GPT-J: interleaved,
 * rotary_dim 64 of head_dim 256). */
START_TEST(cache_slot_bugs_are_found_by_slot)
{
    static const struct {
        int64_t first, last;
        pecert_slot_state state;
        int64_t delta;
    } want[] = {{NEVER_LO, NEVER_HI, PECERT_SLOT_NEVER_ROTATED, 0},
                {TWICE_LO, TWICE_HI, PECERT_SLOT_ROTATED_TWICE, 0},
                {NEIGH_LO, NEIGH_HI, PECERT_SLOT_NEIGHBOUR, 1},
                {STALE_LO, STALE_HI, PECERT_SLOT_SHIFTED, STALE_BY},
                {OVERWRITTEN, OVERWRITTEN, PECERT_SLOT_NOT_ROTATION, 0}};
    static const char *const models[] = {"llama-3.1-8b", "phi-3.5-mini", "gpt-j-6b"};
    static const char *const engines[] = {"ref", "fast"};
    pecert_certify_model m;
    for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
        load_profile(&m, models[k]);
        for (size_t e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
            cache_dump c;
            pecert_cache_report r;
            make_cache(&c, &m, engines[e], 1);
            diagnose_cache(&r, &m, &c);
            ck_assert_msg(r.occupied == EMPTY_LO, "%s/%s: %lld occupied", models[k], engines[e], (long long)r.occupied);
            ck_assert_msg(r.n_runs == (int32_t)(sizeof(want) / sizeof(want[0])), "%s/%s: %d runs (first: %s at %lld)",
                          models[k], engines[e], (int)r.n_runs, r.n_runs > 0 ? pecert_slot_state_tag(r.runs[0].state)
                                                                              : "", r.n_runs > 0 ? (long long)r.runs[0].first : -1LL);
            for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                const pecert_slot_run *run = &r.runs[i];
                ck_assert_msg(run->first == want[i].first && run->last == want[i].last &&
                                  run->state == want[i].state && run->delta == want[i].delta,
                              "%s/%s: run %zu is %s %lld..%lld (delta %lld), want %s %lld..%lld", models[k],
                              engines[e], i, pecert_slot_state_tag(run->state), (long long)run->first,
                              (long long)run->last, (long long)run->delta, pecert_slot_state_tag(want[i].state),
                              (long long)want[i].first, (long long)want[i].last);
            }
            ck_assert_msg(r.rope.n_findings == 0 || strcmp(r.rope.findings[0].id, "position") == 0,
                          "%s/%s: %s: %s", models[k], engines[e], r.rope.findings[0].id, r.rope.findings[0].text);
            pecert_cache_report_free(&r);
            free_cache(&c);
            make_cache(&c, &m, engines[e], 2);
            diagnose_cache(&r, &m, &c);
            ck_assert_msg(r.n_runs == 1 && r.runs[0].first == 0 && r.runs[0].last == SHIFTED_HI &&
                              r.runs[0].state == PECERT_SLOT_SHIFTED && r.runs[0].delta == SHIFT_BY,
                          "%s/%s context shift: %d runs, first %s %lld..%lld", models[k], engines[e], (int)r.n_runs,
                          r.n_runs > 0 ? pecert_slot_state_tag(r.runs[0].state) : "",
                          r.n_runs > 0 ? (long long)r.runs[0].first : -1LL,
                          r.n_runs > 0 ? (long long)r.runs[0].last : -1LL);
            pecert_cache_report_free(&r);
            free_cache(&c);
            make_cache(&c, &m, engines[e], 0);
            diagnose_cache(&r, &m, &c);
            ck_assert_msg(r.n_runs == 0 && r.rope.n_findings == 0, "%s/%s clean: %d runs, %d findings (%s)",
                          models[k], engines[e], (int)r.n_runs, (int)r.rope.n_findings,
                          r.rope.n_findings > 0 ? r.rope.findings[0].text : "");
            pecert_cache_report_free(&r);
            free_cache(&c);
        }
    }
}
END_TEST

static void write_cache_files(const cache_dump *c, const pecert_certify_model *m, const char *dir)
{
    static const char *const names[3] = {"k_pre", "k_cache", "slots"};
    int64_t shape[3] = {SLOTS, m->num_kv_heads, m->rope.head_dim};
    write_npy_set(dir, names, c->x, c->y, shape, c->slots);
}

START_TEST(cache_command_reports_slot_ranges)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-cache-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    pecert_certify_model m;
    load_profile(&m, "llama-3.1-8b");
    cache_dump c;
    make_cache(&c, &m, "ref", 1);
    write_cache_files(&c, &m, dir);
    int rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s/k_pre.npy --cache "
                         "%s/k_cache.npy --slots %s/slots.npy --json %s/c.json --html %s/c.html", dir, dir, dir, dir, dir);
    ck_assert_msg(rc == 1 && strstr(out, "slots 40..55 (16 occupied, positions 1040..1055): rotated for their "
                                         "positions +16") != NULL &&
                      strstr(out, "never_rotated: slots 10..13") != NULL &&
                      strstr(out, "rotated_twice: slots 20..23") != NULL &&
                      strstr(out, "neighbour_position: slots 30..33") != NULL &&
                      strstr(out, "not_a_rotation: slot 60 (position 1060)") != NULL,
                  "rc %d:\n%s", rc, out);
    char *json = test_read_in(dir, "c.json");
    cJSON *doc = cJSON_Parse(json);
    ck_assert_ptr_nonnull(doc);
    const cJSON *slots = cJSON_GetObjectItem(doc, "slots");
    ck_assert_int_eq(cJSON_GetArraySize(slots), SLOTS);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(slots, 45), "state")->valuestring, "stale_position");
    ck_assert_double_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(slots, 45), "recovered")->valuedouble,
                        SLOT_BASE + 45 + STALE_BY);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(slots, 63), "state")->valuestring, "empty");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "findings")), 5);
    cJSON_Delete(doc);
    free(json);
    char *html = test_read_in(dir, "c.html");
    ck_assert_msg(strstr(html, "data-verdict=\"findings\"") != NULL && strstr(html, "<svg class=\"plot\"") != NULL &&
                      strstr(html, "<code>stale_position</code> slots 40..55") != NULL &&
                      strstr(html, "recovered minus expected position per slot") != NULL &&
                      strstr(html, "<script") == NULL,
                  "%s", html);
    free(html);
    free_cache(&c);
    make_cache(&c, &m, "fast", 0);
    write_cache_files(&c, &m, dir);
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s/k_pre.npy --cache %s/k_cache.npy "
                     "--slots %s/slots.npy", dir, dir, dir);
    ck_assert_msg(rc == 0 && strstr(out, "verdict: every occupied slot holds its key rotated for its own position"),
                  "rc %d:\n%s", rc, out);
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s/k_pre.npy --cache %s/k_cache.npy",
                     dir, dir);
    ck_assert_msg(rc == 2 && strstr(out, "a cache needs --cache, --slots and --before"), "rc %d:\n%s", rc, out);
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --before %s/k_pre.npy --cache %s/k_cache.npy "
                     "--slots %s/k_pre.npy", dir, dir, dir);
    ck_assert_msg(rc == 2 && strstr(out, "k_pre.npy: float32: positions must be int64 or int32"), "rc %d:\n%s", rc,
                  out);
    free_cache(&c);
    test_remove_dir(dir);
}
END_TEST

/* A decode trace as an engine writes one: a prefill of 8 tokens, then one
 * token per step; from step 6 on the engine rotates for position + 1 (the
 * decode off-by-one: the cache length read after the append). */
static void write_trace(const char *dir, const pecert_certify_model *m, int bug_from_step, int with_positions)
{
    dump d;
    make_dump(&d, m, "ref", 0);
    dump late;
    make_dump(&late, m, "mutants/decode_off_by_one", 0); /* every token rotated for position + 1 */
    size_t row = (size_t)d.heads * (size_t)d.dim;
    int64_t first = 0;
    for (int step = 0; step < 12; step++) {
        int64_t n = step == 0 ? 8 : 1;
        char path[1200];
        snprintf(path, sizeof(path), "%s/step_%04d", dir, step);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        const dump *src = step >= bug_from_step ? &late : &d;
        int64_t shape[3] = {n, d.heads, d.dim};
        snprintf(path, sizeof(path), "%s/step_%04d/q_pre.npy", dir, step);
        ck_assert_msg(pecert_npy_write(path, src->x + (size_t)first * row, 3, shape, 0, err, sizeof(err)) == 0, "%s",
                      err);
        snprintf(path, sizeof(path), "%s/step_%04d/q_post.npy", dir, step);
        ck_assert_msg(pecert_npy_write(path, src->y + (size_t)first * row, 3, shape, 0, err, sizeof(err)) == 0, "%s",
                      err);
        if (with_positions) {
            double pos[8];
            for (int64_t t = 0; t < n; t++) {
                pos[t] = (double)(first + t);
            }
            snprintf(path, sizeof(path), "%s/step_%04d/positions.npy", dir, step);
            ck_assert_msg(pecert_npy_write(path, pos, 1, shape, 1, err, sizeof(err)) == 0, "%s", err);
        }
        first += n;
    }
    free_dump(&d);
    free_dump(&late);
}

START_TEST(trace_names_the_first_diverging_step)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-trace-XXXXXX";
    char cmd[1200];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    pecert_certify_model m;
    load_profile(&m, "llama-3.1-8b");
    for (int with_positions = 0; with_positions <= 1; with_positions++) {
        snprintf(cmd, sizeof(cmd), "rm -rf %s/t && mkdir %s/t", dir, dir);
        ck_assert_int_eq(system(cmd), 0);
        char tdir[1100];
        snprintf(tdir, sizeof(tdir), "%s/t", dir);
        write_trace(tdir, &m, 6, with_positions);
        int rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --trace %s --json %s/r.json --html "
                             "%s/r.html", tdir, dir, dir);
        ck_assert_msg(rc == 1 && strstr(out, "trace: step 0006 is the first to diverge: its token 0") != NULL &&
                          strstr(out, "the 6 steps before it agree") != NULL,
                      "rc %d:\n%s", rc, out);
        char *json = test_read_in(dir, "r.json");
        cJSON *doc = cJSON_Parse(json);
        ck_assert_ptr_nonnull(doc);
        const cJSON *trace = cJSON_GetObjectItem(doc, "trace");
        ck_assert_double_eq(cJSON_GetObjectItem(trace, "first_diverging_step")->valuedouble, 6.0);
        ck_assert_double_eq(cJSON_GetObjectItem(trace, "first_diverging_token")->valuedouble, 13.0);
        const cJSON *tok = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "tokens"), 13);
        ck_assert_double_eq(cJSON_GetObjectItem(tok, "position")->valuedouble, 14.0);
        ck_assert_double_eq(cJSON_GetObjectItem(tok, "expected")->valuedouble, 13.0);
        cJSON_Delete(doc);
        free(json);
        char *html = test_read_in(dir, "r.html");
        ck_assert_msg(strstr(html, "<code>trace</code> step 0006 is the first to diverge") != NULL &&
                          strstr(html, "where each step of the trace begins") != NULL,
                      "%s", html);
        free(html);
        snprintf(cmd, sizeof(cmd), "rm -rf %s/t && mkdir %s/t", dir, dir);
        ck_assert_int_eq(system(cmd), 0);
        write_trace(tdir, &m, 99, with_positions);
        rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --trace %s --html %s/r.html", tdir, dir);
        ck_assert_msg(rc == 0 && strstr(out, "(12 steps)") != NULL, "rc %d:\n%s", rc, out);
        html = test_read_in(dir, "r.html");
        ck_assert_msg(strstr(html, "data-verdict=\"pass\"") != NULL && strstr(html, "id=\"findings\"") == NULL, "%s",
                      html);
        free(html);
    }
    /* One step's positions.npy removed: all or none. An empty directory. */
    snprintf(cmd, sizeof(cmd), "rm %s/t/step_0003/positions.npy", dir);
    ck_assert_int_eq(system(cmd), 0);
    int rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --trace %s/t", dir);
    ck_assert_msg(rc == 2 && strstr(out, "step_0003: has no positions.npy, but step_0000 has") != NULL, "rc %d:\n%s",
                  rc, out);
    snprintf(cmd, sizeof(cmd), "rm -rf %s/t && mkdir %s/t", dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    rc = test_pecert(out, sizeof(out), "diagnose --profile llama-3.1-8b --trace %s/t", dir);
    ck_assert_msg(rc == 2 && strstr(out, "/t: no step_NNNN directory") != NULL, "rc %d:\n%s", rc, out);
    test_remove_dir(dir);
}
END_TEST

/* `pecert dump` runs the plugin as run and certify do: a stateless plugin
 * (create NULL, as plugin.h allows, and docs/certify.md's adapter) is dumped
 * (it once segfaulted pecert, exit 139), a crash in rope_apply is one line
 * naming the signal and the call, and a call beyond the declared scope is
 * refused by the scope guard; no file is written when the plugin fails. */
START_TEST(dump_runs_the_plugin_isolated)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-dumpiso-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    int rc = test_pecert(out, sizeof(out), "dump --impl %s/impls/testing/stateless.so --profile llama-3.1-8b "
                         "--out %s --tokens 4", test_build_dir(), dir);
    ck_assert_msg(rc == 0 && strstr(out, "dump of stateless on llama-3.1-8b") != NULL, "exit %d: %s", rc, out);
    char path[1200];
    snprintf(path, sizeof(path), "rm -f %s/*.npy", dir);
    ck_assert_int_eq(system(path), 0);
    rc = test_pecert(out, sizeof(out), "dump --impl %s/impls/testing/segv.so --profile llama-3.1-8b --out %s "
                     "--tokens 4", test_build_dir(), dir);
    ck_assert_msg(rc == 1 && strstr(out, "killed by signal 11 (Segmentation fault) during rope_apply of 4 tokens") !=
                                 NULL && strchr(out, '\n') == out + strlen(out) - 1,
                  "exit %d: %s", rc, out);
    snprintf(path, sizeof(path), "%s/q_post.npy", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    rc = test_pecert(out, sizeof(out), "dump --impl %s/impls/testing/scoped_64k.so --profile llama-3.1-8b --out %s "
                     "--tokens 4 --first 70000", test_build_dir(), dir);
    ck_assert_msg(rc == 1 && strstr(out, "beyond the plugin's declared scope: position 70000 past the declared "
                                         "max_position 65536") != NULL,
                  "exit %d: %s", rc, out);
    test_remove_dir(dir);
}
END_TEST

Suite *make_dumps_suite(void)
{
    return test_suite_of("dumps",
                         TEST_TCASE("core", 120,
                                    npy_reader_limits,
                                    correct_engines_recover_exact_positions,
                                    planted_bugs_are_named,
                                    ref_dumps_of_the_planted_cases_are_clean,
                                    command_reads_npy_and_names_the_bug,
                                    bad_files_are_one_line_and_exit_2,
                                    safetensors_dumps,
                                    theta_outside_the_common_list_is_fitted,
                                    cache_slot_bugs_are_found_by_slot,
                                    cache_command_reports_slot_ranges,
                                    trace_names_the_first_diverging_step,
                                    dump_runs_the_plugin_isolated),
                         NULL);
}
