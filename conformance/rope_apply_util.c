/* rope_apply_util.c - one apply call, its error-model comparison, and
 * the grid of configs the property checks sweep. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

pecert_status pecert_rope_apply_views(const pecert_subject *s, const pecert_rope_call *call, const pecert_tensor *x,
                                      pecert_tensor *out)
{
    pecert_rope_apply_args args;
    memset(&args, 0, sizeof(args));
    args.struct_size = sizeof(args);
    args.pairing = call->pairing;
    args.config = call->config;
    args.seq_len = call->seq_len;
    args.positions = call->positions;
    args.x = x;
    args.out = out;
    return s->desc->rope_apply(s->instance, &args);
}

pecert_status pecert_rope_apply_packed(const pecert_subject *s, const pecert_rope_call *call, const float *x,
                                       float *out)
{
    pecert_tensor tx = pecert_tensor_rows(x, call->tokens, call->heads, call->head_dim);
    pecert_tensor tout = pecert_tensor_rows(out, call->tokens, call->heads, call->head_dim);
    return pecert_rope_apply_views(s, call, &tx, &tout);
}

float *pecert_rope_run_with(const pecert_subject *s, pecert_check_result *r,
                            const pecert_rope_call *call, const float *x, const char *where)
{
    pecert_rows_call io;
    if (!pecert_rows_open(&io, r, x, call->tokens, call->heads, call->head_dim, where)) {
        return NULL;
    }
    pecert_status st = pecert_rope_apply_views(s, call, &io.x, &io.out);
    return pecert_floats_kept(r, s, st, io.data, where, "rope_apply");
}

float *pecert_rope_run_packed(const pecert_check_env *env, pecert_check_result *r,
                              const pecert_rope_call *call, const float *x, const char *where)
{
    return pecert_rope_run_with(&env->plugin, r, call, x, where);
}

int pecert_rope_run_both(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                         const float *x, const char *where, float **got, float **want)
{
    *got = pecert_rope_run_packed(env, r, call, x, where);
    *want = *got != NULL ? pecert_rope_run_with(&env->oracle, r, call, x, where) : NULL;
    return *want != NULL;
}

void pecert_rope_describe_elem(char *out, size_t len, const pecert_rope_call *call, int64_t index)
{
    int64_t hd = call->head_dim;
    int64_t t = index / (call->heads * hd);
    int64_t h = (index / hd) % call->heads;
    int64_t d = index % hd;
    snprintf(out, len, "[t=%lld,h=%lld,d=%lld] pos=%lld", (long long)t, (long long)h,
             (long long)d, (long long)call->positions[t]);
}

void pecert_rope_worst_passthrough(pecert_case_worst *w, int64_t base, int64_t rotary_dim, int64_t head_dim,
                                   const float *got, const float *want)
{
    for (int64_t d = rotary_dim; d < head_dim; d++) {
        pecert_case_worst_add(w, base + d, got[base + d], want[base + d], 0.0);
    }
}

/* Compares one token's channels; returns its worst (err, bound). */
static void compare_token(pecert_case_worst *w, const pecert_rope_call *call,
                          const double *inv_freq, double scaling, int64_t t, const float *x,
                          const float *got, const float *want, pecert_case_worst *token_w)
{
    int64_t hd = call->head_dim;
    int64_t rot = call->config->rotary_dim;
    double p = fabs((double)call->positions[t]);
    for (int64_t h = 0; h < call->heads; h++) {
        int64_t base = (t * call->heads + h) * hd;
        for (int64_t i = 0; i < rot / 2; i++) {
            int64_t a;
            int64_t b;
            pecert_rope_pair(call->pairing, rot, i, &a, &b);
            double norm = hypot(x[base + a], x[base + b]);
            double bound = pecert_tol_rotated(norm, p * inv_freq[i], inv_freq[i], i, scaling);
            pecert_case_worst_add_pair(w, base, a, b, got, want, bound);
            pecert_case_worst_add_pair(token_w, base, a, b, got, want, bound);
        }
        pecert_rope_worst_passthrough(w, base, rot, hd, got, want);
        pecert_rope_worst_passthrough(token_w, base, rot, hd, got, want);
    }
}

void pecert_rope_compare(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_rope_call *call, const float *x, const float *got,
                         const float *want, const char *where, size_t max_points,
                         double bound_factor)
{
    int64_t half = call->config->rotary_dim / 2;
    double *inv_freq = malloc((size_t)half * sizeof(double));
    double scaling = 1.0;
    int64_t seq_len = pecert_effective_seq_len(call->seq_len, call->positions, call->tokens);
    if (!pecert_oracle_freqs(env, r, where, inv_freq, &scaling, call->config, seq_len)) {
        free(inv_freq);
        return;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t t = 0; t < call->tokens; t++) {
        pecert_case_worst tw;
        pecert_case_worst_init(&tw);
        compare_token(&w, call, inv_freq, scaling * bound_factor, t, x, got, want, &tw);
        if (r->n_points < max_points && tw.index >= 0) {
            (void)pecert_check_result_add_point(r, PECERT_AXIS_POSITION, call->positions[t], tw.err, tw.bound);
        }
    }
    char elem[128];
    int64_t worst = w.index < 0 ? 0 : w.index;
    pecert_rope_describe_elem(elem, sizeof(elem), call, worst);
    pecert_case_finish_at(r, &w, where, elem, call->positions[worst / (call->heads * call->head_dim)]);
    free(inv_freq);
}

int pecert_rope_worst(pecert_case_worst *w, const pecert_check_env *env, const pecert_rope_call *call,
                      const float *x, const float *got, const float *want, double bound_factor)
{
    int64_t half = call->config->rotary_dim / 2;
    double *inv_freq = malloc((size_t)(half + 1) * sizeof(double));
    double scaling = 1.0;
    int64_t seq_len = pecert_effective_seq_len(call->seq_len, call->positions, call->tokens);
    pecert_case_worst_init(w);
    if (inv_freq == NULL ||
        pecert_oracle_inv_freq(env, inv_freq, &scaling, call->config, seq_len) != PECERT_OK) {
        free(inv_freq);
        return -1;
    }
    for (int64_t t = 0; t < call->tokens; t++) {
        pecert_case_worst tw;
        pecert_case_worst_init(&tw);
        compare_token(w, call, inv_freq, scaling * bound_factor, t, x, got, want, &tw);
    }
    free(inv_freq);
    return 0;
}

void pecert_rope_versus_oracle(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                               uint64_t seed, size_t max_points, const char *where)
{
    float *x = pecert_random_floats(r, pecert_rope_call_size(call), seed, where);
    if (x == NULL) {
        return;
    }
    float *got;
    float *want;
    if (pecert_rope_run_both(env, r, call, x, where, &got, &want)) {
        pecert_rope_compare(env, r, call, x, got, want, where, max_points, 1.0);
    }
    free(want);
    free(got);
    free(x);
}

/* The worst error/bound ratio of pair i of head h over every token. */
static double pair_ratio(const pecert_rope_call *call, const double *inv_freq, double scaling,
                         int64_t h, int64_t i, const float *x, const float *got, const float *want)
{
    int64_t a;
    int64_t b;
    double worst = 0.0;
    pecert_rope_pair(call->pairing, call->config->rotary_dim, i, &a, &b);
    for (int64_t t = 0; t < call->tokens; t++) {
        int64_t base = (t * call->heads + h) * call->head_dim;
        double angle = fabs((double)call->positions[t]) * inv_freq[i];
        double bound = pecert_tol_rotated(hypot(x[base + a], x[base + b]), angle, inv_freq[i], i, scaling);
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        pecert_case_worst_add_pair(&w, base, a, b, got, want, bound);
        worst = w.ratio > worst ? w.ratio : worst;
    }
    return worst;
}

void pecert_rope_heatmap(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_rope_call *call, const float *x, const float *got,
                         const float *want, const char *where)
{
    int64_t half = call->config->rotary_dim / 2;
    double *inv_freq = malloc((size_t)(half + 1) * sizeof(double));
    double scaling = 1.0;
    int64_t seq_len = pecert_effective_seq_len(call->seq_len, call->positions, call->tokens);
    pecert_heatmap h;
    memset(&h, 0, sizeof(h));
    if (inv_freq == NULL || half <= 0 || call->heads > INT32_MAX ||
        pecert_oracle_inv_freq(env, inv_freq, &scaling, call->config, seq_len) != PECERT_OK ||
        pecert_heatmap_alloc(&h, (int32_t)call->heads, (int32_t)half) != 0) {
        free(inv_freq); /* no grid; the comparison has recorded any problem */
        return;
    }
    snprintf(h.label, sizeof(h.label), "%s", where);
    snprintf(h.row_axis, sizeof(h.row_axis), "head");
    snprintf(h.col_axis, sizeof(h.col_axis), "channel pair");
    for (int64_t head = 0; head < call->heads; head++) {
        for (int64_t i = 0; i < half; i++) {
            h.ratio[head * half + i] = pair_ratio(call, inv_freq, scaling, head, i, x, got, want);
        }
    }
    pecert_check_result_keep_heatmap(r, &h);
    free(inv_freq);
}

static int same_config(const pecert_rope_config *a, const pecert_rope_config *b)
{
    if (memcmp(a, b, offsetof(pecert_rope_config, short_factor)) != 0) {
        return 0;
    }
    size_t n = (size_t)(a->num_factors > 0 ? a->num_factors : 0);
    if ((a->short_factor == NULL) != (b->short_factor == NULL) ||
        (a->long_factor == NULL) != (b->long_factor == NULL)) {
        return 0;
    }
    return (a->short_factor == NULL || memcmp(a->short_factor, b->short_factor, n * sizeof(double)) == 0) &&
           (a->long_factor == NULL || memcmp(a->long_factor, b->long_factor, n * sizeof(double)) == 0);
}

#define MAX_CONFIGS 256

size_t pecert_rope_configs(const pecert_check_env *env, const pecert_rope_config ***out)
{
    static const pecert_rope_config *configs[MAX_CONFIGS];
    static size_t n_configs;
    static int built;
    if (!built) {
        for (size_t i = 0; i < env->n_files; i++) {
            for (size_t j = 0; j < env->files[i].n_tests; j++) {
                const pecert_vtest *t = &env->files[i].tests[j];
                size_t k = 0;
                while (k < n_configs && !same_config(configs[k], &t->rope)) {
                    k++;
                }
                if (strncmp(t->op, "rope.", 5) == 0 && k == n_configs && n_configs < MAX_CONFIGS) {
                    configs[n_configs++] = &t->rope;
                }
            }
        }
        built = 1;
    }
    *out = configs;
    return n_configs;
}

void pecert_rope_config_label(char *out, size_t len, const pecert_rope_config *c)
{
    snprintf(out, len, "%s rot=%d/%d theta=%g", pecert_rope_type_name(c->rope_type), c->rotary_dim,
             c->head_dim, c->rope_theta);
}

void pecert_rope_case_begin(const pecert_check_env *env, char *where, size_t len, const pecert_rope_config *c,
                            pecert_rope_pairing pairing, const char *tail)
{
    char label[128];
    pecert_rope_config_label(label, sizeof(label), c);
    snprintf(where, len, "%s %s%s", label, pecert_rope_pairing_name(pairing), tail);
    pecert_case_slot_set(env->case_slot, "%s", where);
}

void pecert_rope_sweep_pairings(const pecert_check_env *env, pecert_check_result *r, const char *tail,
                                pecert_rope_pairing_fn fn)
{
    static const pecert_rope_pairing pairings[] = {PECERT_PAIRING_SPLIT_HALF, PECERT_PAIRING_INTERLEAVED};
    const pecert_rope_config **configs = NULL;
    size_t n = pecert_rope_configs(env, &configs);
    for (size_t c = 0; c < n; c++) {
        for (size_t p = 0; p < sizeof(pairings) / sizeof(pairings[0]); p++) {
            char where[PECERT_RESULT_LINE_MAX];
            pecert_rope_case_begin(env, where, sizeof(where), configs[c], pairings[p], tail);
            fn(env, r, configs[c], pairings[p], where);
        }
    }
}

void pecert_fill_random(float *x, size_t n, uint64_t seed)
{
    pecert_rng rng = {seed};
    for (size_t i = 0; i < n; i++) {
        x[i] = pecert_rng_float(&rng);
    }
}

float *pecert_random_floats(pecert_check_result *r, size_t n, uint64_t seed, const char *where)
{
    float *x = malloc((n > 0 ? n : 1) * sizeof(float));
    if (x == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return NULL;
    }
    pecert_fill_random(x, n, seed);
    return x;
}
