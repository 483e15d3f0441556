/*
 * t5_checks.c - T5 relative-position buckets: exact against the golden
 * vectors of transformers' T5Attention._relative_position_bucket (both
 * neighbours accepted on a float32 log boundary, TOLERANCES.md), and two
 * properties without an oracle: buckets never decrease as |distance| grows
 * on either side, and they sit in the side's last bucket from max_distance
 * on (far past it too, up to 2^52).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"
#include "isolate.h"

/* A config read off a vector. */
typedef struct t5_config {
    int bidirectional;
    int64_t num_buckets;
    int64_t max_distance;
} t5_config;

static t5_config config_of(const pecert_vtest *t)
{
    t5_config c = {(int)pecert_vtest_int(t, "bidirectional", 0), pecert_vtest_int(t, "num_buckets", 0),
                   pecert_vtest_int(t, "max_distance", 0)};
    return c;
}

/* One t5_bucket call into a guarded i64 buffer; 0 after recording why. */
static int run_buckets(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r, const t5_config *c,
                       const int64_t *rel, int64_t n, pecert_out_buf *out, const char *where)
{
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_I64, 1, &n, where)) {
        return 0;
    }
    pecert_t5_bucket_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.bidirectional = c->bidirectional;
    a.num_buckets = (int32_t)c->num_buckets;
    a.max_distance = c->max_distance;
    a.relative_positions = rel;
    a.n = n;
    a.out = &out->view;
    pecert_status st = s->desc->t5_bucket(s->instance, &a);
    return pecert_out_kept(r, s, st, out, where, "t5_bucket");
}

/* ---- t5.bucket.golden --------------------------------------------------- */

static void golden_case(const pecert_check_env *env, pecert_check_result *r,
                        const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *rel = pecert_vtest_input(t, "relative_position");
    const pecert_vtensor *want = pecert_vtest_output(t, "bucket");
    const int64_t *rp = rel->data;
    t5_config c = config_of(t);
    pecert_out_buf out;
    if (!run_buckets(env, &env->plugin, r, &c, rp, rel->num_elements, &out, where)) {
        return;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < want->num_elements; i++) {
        double bound = pecert_t5_log_boundary(rp[i], c.bidirectional, c.num_buckets, c.max_distance)
                           ? 1.0
                           : 0.0;
        pecert_case_worst_add(&w, i, pecert_out_get(&out, i), pecert_vtensor_get(want, i), bound);
    }
    char elem[96];
    int64_t at = w.index < 0 ? 0 : w.index;
    snprintf(elem, sizeof(elem), "bucket[%lld] relative_position=%lld", (long long)at,
             (long long)(rel->num_elements > 0 ? rp[at] : 0));
    pecert_case_finish(r, &w, where, elem);
    pecert_out_free(&out);
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "t5.bucket", golden_case);
}

/* ---- properties --------------------------------------------------------- */

/* Runs fn once per distinct config of the vectors, then concludes: a
 * property of the bucketing holds or fails per config. */
static void check_each_config(const pecert_check_env *env, pecert_check_result *r,
                              void (*fn)(const pecert_check_env *, pecert_check_result *,
                                         const t5_config *, const char *))
{
    t5_config seen[64];
    size_t n_seen = 0;
    for (size_t i = 0; i < env->n_files; i++) {
        for (size_t j = 0; j < env->files[i].n_tests; j++) {
            const pecert_vtest *t = &env->files[i].tests[j];
            if (strcmp(t->op, "t5.bucket") != 0) {
                continue;
            }
            t5_config c = config_of(t);
            size_t k = 0;
            while (k < n_seen && memcmp(&seen[k], &c, sizeof(c)) != 0) {
                k++;
            }
            if (k < n_seen || n_seen == sizeof(seen) / sizeof(seen[0])) {
                continue;
            }
            seen[n_seen++] = c;
            char where[128];
            snprintf(where, sizeof(where), "%s num_buckets=%lld max_distance=%lld",
                     c.bidirectional ? "bidirectional" : "causal", (long long)c.num_buckets,
                     (long long)c.max_distance);
            pecert_case_slot_set(env->case_slot, "%s", where);
            fn(env, r, &c, where);
        }
    }
    pecert_check_conclude(r, "configs");
}

/* The last bucket of a side: n - 1 (causal and the negative side), or
 * num_buckets / 2 + n - 1 for the positive side of a bidirectional one. */
static int64_t last_bucket(const t5_config *c, int positive)
{
    int64_t n = c->bidirectional ? c->num_buckets / 2 : c->num_buckets;
    return (c->bidirectional && positive) ? n + n - 1 : n - 1;
}

/* Buckets of d = 0, +-1, ..., +-4 max_distance: per side, never smaller
 * for a larger |d|; within [0, num_buckets); causal: every d > 0 in 0. */
static void monotone_case(const pecert_check_env *env, pecert_check_result *r,
                          const t5_config *c, const char *where)
{
    int64_t span = 4 * c->max_distance;
    if (span > 100000) {
        span = 100000;
    }
    int64_t n = 2 * span + 1;
    int64_t *rel = calloc((size_t)n, sizeof(*rel));
    pecert_out_buf out;
    if (rel == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        rel[i] = i - span;
    }
    if (run_buckets(env, &env->plugin, r, c, rel, n, &out, where)) {
        const char *bad = NULL;
        int64_t at = 0;
        for (int64_t i = 0; i < n && bad == NULL; i++) {
            int64_t b = (int64_t)pecert_out_get(&out, i);
            int64_t d = rel[i];
            at = d;
            if (b < 0 || b >= c->num_buckets) {
                bad = "bucket outside [0, num_buckets)";
            } else if (!c->bidirectional && d > 0 && b != 0) {
                bad = "causal: a key after the query is not in bucket 0";
            } else if (d > 0 && pecert_out_get(&out, i) < pecert_out_get(&out, i - 1) && (c->bidirectional || d > 1)) {
                bad = "bucket decreases as the distance grows (positive side)";
            } else if (d < 0 && pecert_out_get(&out, i) < pecert_out_get(&out, i + 1)) {
                bad = "bucket decreases as |distance| grows (negative side)";
            }
        }
        if (bad != NULL) {
            pecert_case_fail(r, where, "%s at relative_position %lld", bad, (long long)at);
        } else {
            pecert_case_passed(r, where, "buckets in range and monotone in |distance|");
        }
        pecert_out_free(&out);
    }
    free(rel);
}

static void run_monotone(const pecert_check_env *env, pecert_check_result *r)
{
    check_each_config(env, r, monotone_case);
}

/* From |d| = max_distance on, each side sits in its last bucket. */
static void saturation_case(const pecert_check_env *env, pecert_check_result *r,
                            const t5_config *c, const char *where)
{
    const int64_t md = c->max_distance;
    const int64_t mags[] = {md, md + 1, 2 * md, 10 * md + 3, (int64_t)1 << 20, (int64_t)1 << 31,
                            (int64_t)1 << 40, ((int64_t)1 << 52) + 1};
    enum { N_MAGS = sizeof(mags) / sizeof(mags[0]) };
    int64_t rel[2 * N_MAGS];
    for (int i = 0; i < N_MAGS; i++) {
        rel[2 * i] = mags[i];
        rel[2 * i + 1] = -mags[i];
    }
    pecert_out_buf out;
    if (!run_buckets(env, &env->plugin, r, c, rel, 2 * N_MAGS, &out, where)) {
        return;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < 2 * N_MAGS; i++) {
        double want = (double)(c->bidirectional || rel[i] < 0 ? last_bucket(c, rel[i] > 0) : 0);
        pecert_case_worst_add(&w, i, pecert_out_get(&out, i), want, 0.0);
    }
    char elem[96];
    snprintf(elem, sizeof(elem), "bucket at relative_position %lld",
             (long long)rel[w.index < 0 ? 0 : w.index]);
    pecert_case_finish(r, &w, where, elem);
    pecert_out_free(&out);
}

static void run_saturation(const pecert_check_env *env, pecert_check_result *r)
{
    check_each_config(env, r, saturation_case);
}

const pecert_check pecert_check_t5_bucket_golden = {
    PECERT_ID_T5_BUCKET_GOLDEN, "T5 relative buckets equal T5Attention._relative_position_bucket",
    PECERT_NEED_T5_BUCKET, run_golden};
const pecert_check pecert_check_t5_bucket_monotone = {
    PECERT_ID_T5_BUCKET_MONOTONE, "T5 buckets never decrease with |distance| (per side; causal future in 0)",
    PECERT_NEED_T5_BUCKET, run_monotone};
const pecert_check pecert_check_t5_bucket_saturation = {
    PECERT_ID_T5_BUCKET_SATURATION, "T5 buckets are the last one from max_distance on, up to 2^52",
    PECERT_NEED_T5_BUCKET, run_saturation};
