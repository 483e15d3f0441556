/*
 * rope_threads.c - two checks for engines rather than formulas:
 *
 * rope.thread_determinism - a plugin that takes a thread count
 *   (set_num_threads, ABI 1.1) must give bit-identical results for 1, 2
 *   and 3 threads (plugin.h: "results must not depend on how many"), on
 *   tensors large enough to engage its threads, out of place
 *   and in place, for both pairings (in certify the checkpoint's) and
 *   every rope type of the vectors, and for rope_cos_sin tables; every
 *   call writes at least 2 MiB.
 *
 * rope.half_precision - rope_apply on f16 and bf16 tensors (x and out of
 *   one dtype) against the oracle's f32 result on the same inputs widened
 *   to f32; the bound is the f32 rotated bound plus one ulp of the half
 *   type at the output (TOLERANCES.md, "Half precision"). Plugins that
 *   decline these dtypes (E_UNSUPPORTED, as `ref` does) are reported as
 *   not supporting the check.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certify_config.h"
#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The thread counts compared; the first is the reference. */
static const int32_t thread_counts[] = {1, 2, 3};

static const pecert_rope_pairing pairings[] = {PECERT_PAIRING_SPLIT_HALF,
                                               PECERT_PAIRING_INTERLEAVED};

/* Determinism shapes: every call writes at least DET_MIN_BYTES, sized in
 * bytes rather than tokens so that a wide head (Gemma's 256) moves no
 * more data than a narrow one to ask the same question. 2 MiB is twice
 * fast's threshold for threads (1 MiB, fast.h) and 16 times PyTorch's
 * parallel grain (32768 elements): an engine that splits work at all
 * splits these. Token, head and row counts are odd, so that no thread
 * split lands on a round boundary. */
#define DET_MIN_BYTES ((size_t)2 << 20)
#define DET_HEADS 9

/* The smallest odd count of rows of row_bytes each that fills
 * DET_MIN_BYTES (at least 7: det_positions places three far positions). */
static int64_t det_rows(size_t row_bytes)
{
    size_t n = row_bytes > 0 ? (DET_MIN_BYTES + row_bytes - 1) / row_bytes : 7;
    n = n < 7 ? 7 : n;
    return (int64_t)(n | 1);
}

/* One config per rope type present in the vectors: the thread split does
 * not depend on the type, the frequency code does. */
static size_t configs_by_type(const pecert_check_env *env, const pecert_rope_config **out,
                              size_t cap)
{
    const pecert_rope_config **all = NULL;
    size_t n_all = pecert_rope_configs(env, &all);
    size_t n = 0;

    for (size_t i = 0; i < n_all && n < cap; i++) {
        size_t k = 0;
        while (k < n && out[k]->rope_type != all[i]->rope_type) {
            k++;
        }
        if (k == n) {
            out[n++] = all[i];
        }
    }
    return n;
}

/* Positions 0.. with a few far ones (past 2^24, and 2^40 for engines
 * that switch to another angle reduction there). */
static void det_positions(int64_t *pos, int64_t n)
{
    for (int64_t t = 0; t < n; t++) {
        pos[t] = t;
    }
    pos[n / 3] = (int64_t)1 << 24;
    pos[n / 2] = ((int64_t)1 << 31) + 7;
    pos[n - 1] = (int64_t)1 << 40;
}

/* The same within int32, where most C/C++ and GPU engines keep positions:
 * a case they decline at 2^31 + 7 and 2^40 is run again on these, so that
 * determinism in their real range still gets a verdict. */
#define INT32_LAST (((int64_t)1 << 31) - 1)
static void det_positions_int32(int64_t *pos, int64_t n)
{
    det_positions(pos, n);
    pos[n / 2] = INT32_LAST - 7;
    pos[n - 1] = INT32_LAST;
}

static pecert_status set_threads(const pecert_subject *s, int32_t n)
{
    return s->desc->set_num_threads(s->instance, n);
}

/* Records the comparison of n floats run with `threads` threads against
 * the 1-thread result: equal bits, or a failure naming the first
 * difference. */
static void record_identity(pecert_check_result *r, const float *want, const float *got,
                            size_t n, int32_t threads, const char *where)
{
    size_t first = n;
    size_t differ = 0;
    /* Equal buffers (the common case) in one pass; element by element
     * only to name the first difference. */
    for (size_t i = memcmp(want, got, n * sizeof(float)) == 0 ? n : 0; i < n; i++) {
        if (memcmp(&want[i], &got[i], sizeof(float)) != 0) {
            first = first < n ? first : i;
            differ++;
        }
    }
    if (differ == 0) {
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        pecert_case_finish(r, &w, where, "");
        return;
    }
    char a[64];
    char b[64];
    pecert_format_f32(a, sizeof(a), want[first]);
    pecert_format_f32(b, sizeof(b), got[first]);
    pecert_case_fail(r, where, "%zu of %zu values differ between 1 and %d threads; first [%zu]: %s vs %s",
                     differ, n, (int)threads, first, a, b);
}

/* One apply case: 1 thread, then every other count, out of place or in
 * place (out starts as a copy of x). */
static void det_apply_case(const pecert_check_env *env, pecert_check_result *r,
                           const pecert_rope_call *c, const float *x, int in_place,
                           const char *where)
{
    size_t n = pecert_rope_call_size(c);
    float *want = malloc(n * sizeof(float));
    float *got = malloc(n * sizeof(float));
    if (want == NULL || got == NULL) {
        pecert_case_fail(r, where, "out of memory");
        goto out_free;
    }
    for (size_t k = 0; k < ARRAY_LEN(thread_counts); k++) {
        float *dst = k == 0 ? want : got;
        pecert_status st = set_threads(&env->plugin, thread_counts[k]);
        if (st == PECERT_OK) {
            if (in_place) {
                memcpy(dst, x, n * sizeof(float));
            }
            st = pecert_rope_apply_packed(&env->plugin, c, in_place ? dst : x, dst);
        }
        if (!pecert_case_status(r, &env->plugin, st, where, k == 0 ? "rope_apply" : "set_num_threads/rope_apply")) {
            goto out_free;
        }
        if (k > 0) {
            record_identity(r, want, got, n, thread_counts[k], where);
        }
    }
out_free:
    free(want);
    free(got);
}

/* det_apply_case; 0 when the case was not run (declined by the plugin,
 * or beyond its declared scope: scope_guard.c). */
static int det_apply_scoped(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *c,
                            const float *x, int in_place, const char *where)
{
    int64_t declined = r->n_unsupported;
    det_apply_case(env, r, c, x, in_place, where);
    return r->n_unsupported == declined;
}

/* 2n positions for n-token calls: det_positions, then the same within
 * int32, each held to a declared scope (certified within it); NULL (a
 * failed case) when out of memory. */
static int64_t *det_position_sets(const pecert_check_env *env, pecert_check_result *r, int64_t n)
{
    int64_t *pos = malloc(2 * (size_t)n * sizeof(int64_t));
    if (pos == NULL) {
        pecert_case_fail(r, "positions", "out of memory");
        return NULL;
    }
    det_positions(pos, n);
    det_positions_int32(pos + n, n);
    (void)pecert_scope_fold(env, r, pos, 2 * n);
    return pos;
}

/* The pairings a determinism sweep runs: both in `pecert run`; in certify
 * the checkpoint's own (as the session checks, decode_checks.c): the
 * thread split does not depend on it, and every certify of every profile
 * pays for the other. */
static int pairing_swept(const pecert_check_env *env, pecert_rope_pairing pairing)
{
    return env->certify_model == NULL || env->certify_model->pairing == pairing;
}

/* Each pairing swept, out of place and in place, of one config (seed: its
 * input's), again within int32 where the far positions are declined. */
static void det_apply_config(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_config *cfg,
                             uint64_t seed)
{
    int64_t tokens = det_rows((size_t)DET_HEADS * (size_t)cfg->head_dim * sizeof(float));
    int64_t *pos = det_position_sets(env, r, tokens);
    pecert_rope_call call = {cfg, PECERT_PAIRING_SPLIT_HALF, 0, pos, tokens, DET_HEADS, cfg->head_dim};
    pecert_rope_call call32 = call;
    call32.positions = pos + tokens;
    float *x = pos != NULL ? pecert_random_floats(r, pecert_rope_call_size(&call), seed, "input") : NULL;
    for (size_t p = 0; x != NULL && p < ARRAY_LEN(pairings); p++) {
        for (int in_place = 0; in_place < 2 && pairing_swept(env, pairings[p]); in_place++) {
            char label[128];
            char where[PECERT_RESULT_LINE_MAX];
            call.pairing = pairings[p];
            call32.pairing = pairings[p];
            pecert_rope_config_label(label, sizeof(label), cfg);
            snprintf(where, sizeof(where), "%s %s %s [%lld,%d,%d]", label, pecert_rope_pairing_name(pairings[p]),
                     in_place ? "in place" : "out of place", (long long)tokens, DET_HEADS, (int)call.head_dim);
            pecert_case_slot_set(env->case_slot, "%s", where);
            if (!det_apply_scoped(env, r, &call, x, in_place, where)) {
                strncat(where, " (positions within int32: 2^31+7 and 2^40 declined)",
                        sizeof(where) - strlen(where) - 1);
                pecert_case_slot_set(env->case_slot, "%s", where);
                (void)det_apply_scoped(env, r, &call32, x, in_place, where);
            }
        }
    }
    free(x);
    free(pos);
}

static void det_apply(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_rope_config *configs[8];
    size_t n_configs = configs_by_type(env, configs, ARRAY_LEN(configs));
    for (size_t i = 0; i < n_configs; i++) {
        det_apply_config(env, r, configs[i], 707 + i);
    }
}

static pecert_status cos_sin_table(const pecert_subject *s, const pecert_rope_config *cfg,
                                   const int64_t *pos, int64_t n, float *table)
{
    int64_t half = cfg->rotary_dim / 2;
    pecert_tensor tc = pecert_tensor_2d(table, PECERT_DTYPE_F32, n, half);
    pecert_tensor ts = pecert_tensor_2d(table + n * half, PECERT_DTYPE_F32, n, half);
    return s->desc->rope_cos_sin(s->instance, &tc, &ts, cfg, 0, pos, n);
}

/* One table case: rope_cos_sin of `rows` positions at 1 thread, then at
 * every other count. */
static void det_table_case(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_config *cfg,
                           const int64_t *pos, int64_t rows, const char *where)
{
    size_t n = 2 * (size_t)rows * (size_t)(cfg->rotary_dim / 2);
    float *want = malloc(n * sizeof(float));
    float *got = malloc(n * sizeof(float));
    pecert_case_slot_set(env->case_slot, "%s", where);
    for (size_t k = 0; want != NULL && got != NULL && k < ARRAY_LEN(thread_counts); k++) {
        pecert_status st = set_threads(&env->plugin, thread_counts[k]);
        if (st == PECERT_OK) {
            st = cos_sin_table(&env->plugin, cfg, pos, rows, k == 0 ? want : got);
        }
        if (!pecert_case_status(r, &env->plugin, st, where, "set_num_threads/rope_cos_sin")) {
            break;
        }
        if (k > 0) {
            record_identity(r, want, got, n, thread_counts[k], where);
        }
    }
    if (want == NULL || got == NULL) {
        pecert_case_fail(r, where, "out of memory");
    }
    free(want);
    free(got);
}

/* rope_cos_sin tables of DET_MIN_BYTES (cos and sin together), per config
 * (again within int32 when the plugin declines the far positions). */
static void det_tables(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_rope_config *configs[8];
    size_t n_configs = configs_by_type(env, configs, ARRAY_LEN(configs));
    for (size_t i = 0; env->plugin.desc->rope_cos_sin != NULL && i < n_configs; i++) {
        int64_t rows = det_rows(2 * (size_t)(configs[i]->rotary_dim / 2) * sizeof(float));
        int64_t *pos = det_position_sets(env, r, rows);
        char label[128];
        char where[PECERT_RESULT_LINE_MAX];
        pecert_rope_config_label(label, sizeof(label), configs[i]);
        snprintf(where, sizeof(where), "%s rope_cos_sin [%lld positions]", label, (long long)rows);
        int64_t declined = r->n_unsupported;
        if (pos != NULL) {
            det_table_case(env, r, configs[i], pos, rows, where);
        }
        if (pos != NULL && r->n_unsupported > declined) {
            strncat(where, " (positions within int32)", sizeof(where) - strlen(where) - 1);
            det_table_case(env, r, configs[i], pos + rows, rows, where);
        }
        free(pos);
    }
}

static void run_thread_determinism(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_plugin *d = env->plugin.desc;
    if (!PECERT_HAS_FIELD(d, pecert_plugin, set_num_threads) || d->set_num_threads == NULL) {
        r->verdict = PECERT_VERDICT_UNSUPPORTED;
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_NO_OPERATION);
        snprintf(r->diagnosis, sizeof(r->diagnosis),
                 "plugin has no set_num_threads (ABI 1.0, or single-threaded): nothing to compare");
        return;
    }
    det_apply(env, r);
    det_tables(env, r);
    pecert_check_conclude(r, "thread-count comparisons");
}

/* ---- rope.half_precision ------------------------------------------------ */

/* A half type: its dtype code, name, and the bits of its f32 encoding. */
typedef struct half_type {
    pecert_dtype dtype;
    const char *name;
    int mantissa_bits;   /* 10 (f16) or 7 (bf16)                         */
    int min_exponent;    /* of the smallest normal: -14 or -126          */
} half_type;

static const half_type half_types[] = {
    {PECERT_DTYPE_F16, "f16", 10, -14},
    {PECERT_DTYPE_BF16, "bf16", 7, -126},
};

static uint32_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof(b));
    return b;
}

static float f32_from(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof(f));
    return f;
}

/* Round-to-nearest-even of a finite float to the half type, returned as
 * the widened f32 value (exact in f32) and as the 16-bit encoding. Inputs
 * here lie in [-1, 1), so no overflow or NaN arises. */
static float round_to_half(float v, const half_type *h, uint16_t *out_bits)
{
    if (h->dtype == PECERT_DTYPE_BF16) {
        uint32_t b = f32_bits(v);
        b = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u;
        *out_bits = (uint16_t)(b >> 16);
        return f32_from(b);
    }
    /* f16: scale to an integer multiple of the half ulp, round, rebuild. */
    int e;
    (void)frexpf(fabsf(v), &e);
    int exponent = e - 1 < h->min_exponent ? h->min_exponent : e - 1;
    float ulp = ldexpf(1.0f, exponent - h->mantissa_bits);
    float rounded = nearbyintf(v / ulp) * ulp;
    uint32_t b = f32_bits(rounded);
    uint32_t sign = (b >> 16) & 0x8000u;
    uint32_t mag = b & 0x7fffffffu;
    if (mag == 0) {
        *out_bits = (uint16_t)sign;
    } else if (mag < 0x38800000u) { /* subnormal half: units of 2^-24 */
        *out_bits = (uint16_t)(sign | (uint32_t)(fabsf(rounded) * 0x1p24f));
    } else {
        *out_bits = (uint16_t)(sign | (((mag >> 23) - 112u) << 10) | ((mag >> 13) & 0x3ffu));
    }
    return rounded;
}

static float widen_half(uint16_t bits, const half_type *h)
{
    if (h->dtype == PECERT_DTYPE_BF16) {
        return f32_from((uint32_t)bits << 16);
    }
    uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
    uint32_t exp = (bits >> 10) & 0x1fu;
    uint32_t man = bits & 0x3ffu;
    if (exp == 0x1f) {
        return f32_from(sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0));
    }
    if (exp == 0) {
        return f32_from(sign | f32_bits((float)man * 0x1p-24f));
    }
    return f32_from(sign | ((exp + 112u) << 23) | (man << 13));
}

/* One ulp of the half type at magnitude v. */
static double half_ulp(double v, const half_type *h)
{
    int e;
    (void)frexp(v, &e);
    int exponent = e - 1 < h->min_exponent ? h->min_exponent : e - 1;
    return ldexp(1.0, exponent - h->mantissa_bits);
}

typedef struct half_case {
    const pecert_rope_call *call;
    const half_type *type;
    const uint16_t *x_bits;   /* the half input                            */
    const float *x_wide;      /* the same, widened to f32                  */
    const uint16_t *got_bits; /* the plugin's half output                  */
    const float *want;        /* the oracle's f32 result on x_wide         */
    const double *inv_freq;   /* the oracle's frequencies                  */
    double scaling;
} half_case;

static void half_compare(pecert_check_result *r, const half_case *hc, const char *where)
{
    const pecert_rope_call *c = hc->call;
    int64_t hd = c->head_dim;
    int64_t rot = c->config->rotary_dim;
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t row = 0; row < c->tokens * c->heads; row++) {
        int64_t base = row * hd;
        double p = fabs((double)c->positions[row / c->heads]);
        for (int64_t i = 0; i < rot / 2; i++) {
            int64_t a;
            int64_t b;
            pecert_rope_pair(c->pairing, rot, i, &a, &b);
            double norm = hypot(hc->x_wide[base + a], hc->x_wide[base + b]);
            double f32_bound = pecert_tol_rotated(norm, p * hc->inv_freq[i], hc->inv_freq[i], i, hc->scaling);
            /* Rotating in the half type itself, as transformers does on a
             * half-precision model (cos.to(x.dtype), products in the
             * dtype), rounds cos/sin and both products: 2 u_h of
             * |a c| + |b s| <= |s| r, at most two ulps of |s| r. */
            double in_dtype = 2.0 * half_ulp(fabs(hc->scaling) * norm, hc->type);
            for (int k = 0; k < 2; k++) {
                int64_t e = base + (k == 0 ? a : b);
                double want = hc->want[e];
                double bound = f32_bound + in_dtype + half_ulp(fabs(want) + f32_bound, hc->type);
                pecert_case_worst_add(&w, e, widen_half(hc->got_bits[e], hc->type), want, bound);
            }
        }
        for (int64_t d = rot; d < hd; d++) { /* passthrough: the same bits */
            int64_t e = base + d;
            double same = hc->got_bits[e] == hc->x_bits[e] ? hc->x_wide[e] : INFINITY;
            pecert_case_worst_add(&w, e, same, hc->x_wide[e], 0.0);
        }
    }
    char elem[128];
    int64_t idx = w.index < 0 ? 0 : w.index;
    snprintf(elem, sizeof(elem), "%s [t=%lld,h=%lld,d=%lld] pos=%lld", hc->type->name,
             (long long)(idx / (c->heads * hd)), (long long)((idx / hd) % c->heads),
             (long long)(idx % hd), (long long)c->positions[idx / (c->heads * hd)]);
    pecert_case_finish_at(r, &w, where, elem, c->positions[idx / (c->heads * hd)]);
}

/* Runs the plugin on half data; out of place or in place. */
static pecert_status half_apply(const pecert_subject *s, const pecert_rope_call *c,
                                const half_type *h, const uint16_t *x, uint16_t *out, int in_place)
{
    int64_t hd = c->head_dim;
    size_t n = pecert_rope_call_size(c);
    if (in_place) {
        memcpy(out, x, n * sizeof(uint16_t));
    }
    /* Half data in the f32 rows view, its dtype changed (same shape and
     * strides in elements). */
    pecert_tensor tx = pecert_tensor_rows((const float *)(const void *)(in_place ? out : x), c->tokens, c->heads, hd);
    pecert_tensor tout = pecert_tensor_rows((const float *)(void *)out, c->tokens, c->heads, hd);
    tx.dtype = h->dtype;
    tout.dtype = h->dtype;
    return pecert_rope_apply_views(s, c, &tx, in_place ? &tx : &tout);
}

/* Inputs rounded to the half type, the oracle on their f32 widening. */
static void half_type_case(const pecert_check_env *env, pecert_check_result *r,
                           const pecert_rope_call *c, const float *x, const half_type *h,
                           const char *where)
{
    size_t n = pecert_rope_call_size(c);
    uint16_t *x_bits = malloc(n * sizeof(uint16_t));
    uint16_t *got = malloc(n * sizeof(uint16_t));
    float *wide = malloc(n * sizeof(float));
    double *inv = malloc((size_t)c->config->rotary_dim * sizeof(double));
    float *want = NULL;
    double scaling = 1.0;
    int64_t seq = pecert_effective_seq_len(c->seq_len, c->positions, c->tokens);
    if (!pecert_oracle_freqs(env, r, where, x_bits != NULL && got != NULL && wide != NULL ? inv : NULL, &scaling,
                             c->config, seq)) {
        goto out_free;
    }
    for (size_t i = 0; i < n; i++) {
        wide[i] = round_to_half(x[i], h, &x_bits[i]);
    }
    want = pecert_rope_run_with(&env->oracle, r, c, wide, where);
    for (int in_place = 0; want != NULL && in_place < 2; in_place++) {
        char at[PECERT_RESULT_LINE_MAX];
        snprintf(at, sizeof(at), "%s %s %s", where, h->name, in_place ? "in place" : "out of place");
        pecert_status st = half_apply(&env->plugin, c, h, x_bits, got, in_place);
        if (pecert_case_status(r, &env->plugin, st, at, "rope_apply")) {
            half_case hc = {c, h, x_bits, wide, got, want, inv, scaling};
            half_compare(r, &hc, at);
        }
    }
out_free:
    free(want);
    free(inv);
    free(wide);
    free(got);
    free(x_bits);
}

#define HALF_HEADS 5
#define HALF_MAX_POSITIONS 12

static void run_half_precision(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_rope_config **configs = NULL;
    size_t n_configs = pecert_rope_configs(env, &configs);
    for (size_t i = 0; i < n_configs; i++) {
        int64_t l0 = pecert_rope_l0(configs[i]);
        int64_t pos[HALF_MAX_POSITIONS] = {0, 1, 7, l0 - 1, l0, l0 + 1, 4 * l0, 1 << 16, 1 << 20, 1 << 24};
        int64_t n_pos = pecert_scope_trim(env, r, pos, 10);
        for (size_t p = 0; p < ARRAY_LEN(pairings); p++) {
            pecert_rope_call call = {configs[i], pairings[p], 0, pos, n_pos, HALF_HEADS, configs[i]->head_dim};
            char where[PECERT_RESULT_LINE_MAX];
            pecert_rope_case_begin(env, where, sizeof(where), configs[i], pairings[p], "");
            float *x = pecert_random_floats(r, pecert_rope_call_size(&call), 808 + 2 * i + p, where);
            if (x == NULL) {
                continue;
            }
            for (size_t t = 0; t < ARRAY_LEN(half_types); t++) {
                half_type_case(env, r, &call, x, &half_types[t], where);
            }
            free(x);
        }
    }
    pecert_check_conclude(r, "half-precision cases");
}

const pecert_check pecert_check_rope_thread_determinism = {
    PECERT_ID_ROPE_THREAD_DETERMINISM, "results are bit-identical for 1, 2 and 3 threads (set_num_threads)",
    PECERT_NEED_ROPE_APPLY, run_thread_determinism};
const pecert_check pecert_check_rope_half_precision = {
    PECERT_ID_ROPE_HALF_PRECISION, "f16/bf16 rope_apply equals the f32 oracle within one half-type ulp",
    PECERT_NEED_ROPE_APPLY, run_half_precision};
