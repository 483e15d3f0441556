/*
 * rope_props.c - RoPE properties that need no golden data: norm
 * preservation, identity at position 0, inverse, relative-shift
 * invariance. Each sweeps every distinct config of the vector set, both
 * pairings, and the positions where bugs live (0, L0-1, L0, L0+1, 4*L0,
 * far positions up to 2^24).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

#define N_HEADS 3
#define MAX_POSITIONS 12

static const pecert_rope_pairing pairings[] = {PECERT_PAIRING_SPLIT_HALF,
                                               PECERT_PAIRING_INTERLEAVED};

/* Positions a property is checked at, given the config's L0. */
static int64_t grid_positions(int64_t *pos, const pecert_rope_config *c)
{
    int64_t l0 = pecert_rope_l0(c);
    const int64_t grid[] = {0, 1, 7, l0 - 1, l0, l0 + 1, 4 * l0, 1 << 16, 1 << 20, 1 << 24};
    int64_t n = 0;
    for (size_t i = 0; i < sizeof(grid) / sizeof(grid[0]) && n < MAX_POSITIONS; i++) {
        pos[n++] = grid[i] > 0 ? grid[i] : 0;
    }
    return n;
}

typedef void (*property_fn)(const pecert_check_env *env, pecert_check_result *r,
                            const pecert_rope_call *call, const float *x, const char *where);

/* Runs fn for every config x pairing on the grid of positions, then
 * concludes, the cases named what. */
static void sweep(const pecert_check_env *env, pecert_check_result *r, property_fn fn,
                  uint64_t seed, const char *what)
{
    const pecert_rope_config **configs = NULL;
    size_t n = pecert_rope_configs(env, &configs);
    for (size_t c = 0; c < n; c++) {
        for (size_t p = 0; p < sizeof(pairings) / sizeof(pairings[0]); p++) {
            int64_t pos[MAX_POSITIONS];
            pecert_rope_call call = {
                .config = configs[c],
                .pairing = pairings[p],
                .positions = pos,
                .tokens = pecert_scope_trim(env, r, pos, grid_positions(pos, configs[c])),
                .heads = N_HEADS,
                .head_dim = configs[c]->head_dim,
            };
            char where[PECERT_RESULT_LINE_MAX];
            pecert_rope_case_begin(env, where, sizeof(where), configs[c], pairings[p], "");
            float *x = pecert_random_floats(r, pecert_rope_call_size(&call), seed + c * 2 + p, where);
            if (x == NULL) {
                continue;
            }
            fn(env, r, &call, x, where);
            free(x);
        }
    }
    pecert_check_conclude(r, what);
}

static double oracle_scaling(const pecert_check_env *env, const pecert_rope_call *call)
{
    double *inv = malloc((size_t)call->config->rotary_dim * sizeof(double));
    double s = NAN;
    int64_t seq = pecert_effective_seq_len(call->seq_len, call->positions, call->tokens);
    if (inv != NULL && pecert_oracle_inv_freq(env, inv, &s, call->config, seq) != PECERT_OK) {
        s = NAN;
    }
    free(inv);
    return s;
}

/* x with its rotated channels times factor and the rest as they are: what
 * a rotation by angle 0 (or by p, then -p) gives, its scaling applied;
 * malloc'ed, NULL without memory. */
static float *scaled_rotary(const pecert_rope_call *call, const float *x, double factor)
{
    size_t n = pecert_rope_call_size(call);
    float *out = malloc(n * sizeof(float));
    for (size_t i = 0; out != NULL && i < n; i++) {
        int rotated = (int64_t)(i % (size_t)call->head_dim) < call->config->rotary_dim;
        out[i] = rotated ? (float)(factor * x[i]) : x[i];
    }
    return out;
}

/* ---- rope.norm_preservation -------------------------------------------- */

static void norm_case(const pecert_check_env *env, pecert_check_result *r,
                      const pecert_rope_call *call, const float *x, const char *where)
{
    float *y = pecert_rope_run_packed(env, r, call, x, where);
    if (y == NULL) {
        return;
    }
    double s = oracle_scaling(env, call);
    int64_t rot = call->config->rotary_dim;
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t row = 0; row < call->tokens * call->heads; row++) {
        const float *xr = x + row * call->head_dim;
        const float *yr = y + row * call->head_dim;
        for (int64_t i = 0; i < rot / 2; i++) {
            int64_t a;
            int64_t b;
            pecert_rope_pair(call->pairing, rot, i, &a, &b);
            double want = fabs(s) * hypot(xr[a], xr[b]);
            double got = hypot(yr[a], yr[b]);
            pecert_case_worst_add(&w, row * call->head_dim + a, got, want,
                                  pecert_tol_norm(hypot(xr[a], xr[b]), s));
        }
    }
    char elem[128];
    int64_t t = w.index < 0 ? 0 : w.index / (call->heads * call->head_dim);
    snprintf(elem, sizeof(elem), "pair norm at channel %lld pos=%lld",
             (long long)(w.index < 0 ? 0 : w.index % call->head_dim), (long long)call->positions[t]);
    pecert_case_finish_at(r, &w, where, elem, call->positions[t]);
    free(y);
}

static void run_norm(const pecert_check_env *env, pecert_check_result *r)
{
    sweep(env, r, norm_case, 101, "config/pairing sweeps");
}

/* ---- rope.identity_at_zero --------------------------------------------- */

static void identity_case(const pecert_check_env *env, pecert_check_result *r,
                          const pecert_rope_call *grid_call, const float *x, const char *where)
{
    int64_t zeros[MAX_POSITIONS] = {0};
    pecert_rope_call call = *grid_call;
    call.positions = zeros;
    /* An explicit length at L0 keeps dynamic/longrope on their base
     * frequencies; at position 0 the angle is 0 whatever they are. */
    call.seq_len = pecert_rope_l0(call.config);
    float *y = pecert_rope_run_packed(env, r, &call, x, where);
    if (y == NULL) {
        return;
    }
    float *want = scaled_rotary(&call, x, oracle_scaling(env, &call));
    if (want != NULL) {
        int64_t failed_before = r->n_failed;
        pecert_rope_compare(env, r, &call, x, y, want, where, 0, 1.0);
        if (r->n_failed > failed_before && !pecert_values_nonfinite(y, pecert_rope_call_size(&call))) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_MOVES_AT_ZERO);
        }
    }
    free(want);
    free(y);
}

static void run_identity(const pecert_check_env *env, pecert_check_result *r)
{
    sweep(env, r, identity_case, 202, "config/pairing sweeps");
}

/* ---- rope.inverse ------------------------------------------------------ */

static void inverse_case(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_rope_call *grid_call, const float *x, const char *where)
{
    pecert_rope_call fwd = *grid_call;
    fwd.seq_len = pecert_effective_seq_len(0, fwd.positions, fwd.tokens);
    int64_t neg[MAX_POSITIONS];
    for (int64_t t = 0; t < fwd.tokens; t++) {
        neg[t] = -fwd.positions[t];
    }
    pecert_rope_call back = fwd;
    back.positions = neg;
    float *y = pecert_rope_run_packed(env, r, &fwd, x, where);
    float *z = y != NULL ? pecert_rope_run_packed(env, r, &back, y, where) : NULL;
    double s = oracle_scaling(env, &fwd);
    float *want = z != NULL ? scaled_rotary(&fwd, x, s * s) : NULL;
    if (want != NULL) {
        /* Two rotations: the bound of one, twice, at the scaled norm. */
        pecert_rope_compare(env, r, &fwd, x, z, want, where, 0, 2.0 * fabs(s));
    }
    free(want);
    free(z);
    free(y);
}

static void run_inverse(const pecert_check_env *env, pecert_check_result *r)
{
    sweep(env, r, inverse_case, 303, "config/pairing sweeps");
}

/* ---- rope.shift_invariance --------------------------------------------- */

/* q.k per head of tokens tq and tk of y. */
static double dot_heads(const float *y, const pecert_rope_call *c, int64_t tq, int64_t tk,
                        int64_t h, double *abs_sum)
{
    const float *q = y + (tq * c->heads + h) * c->head_dim;
    const float *k = y + (tk * c->heads + h) * c->head_dim;
    double dot = 0.0;
    for (int64_t d = 0; d < c->head_dim; d++) {
        dot += (double)q[d] * k[d];
        *abs_sum += fabs((double)q[d] * k[d]);
    }
    return dot;
}

/* Bound on |q.k(m,n) - q.k(m+s,n+s)|: each of the four angles may be off
 * by one implementation's angle error; every rotated pair contributes
 * |q pair| |k pair| times that, plus value rounding of the dot products. */
static double shift_bound(const pecert_rope_call *c, const float *x, const double *inv,
                          double s, int64_t h, const int64_t *pos)
{
    int64_t rot = c->config->rotary_dim;
    const float *q = x + h * c->head_dim;
    const float *k = x + (c->heads + h) * c->head_dim;
    double bound = 0.0;
    for (int64_t i = 0; i < rot / 2; i++) {
        int64_t a;
        int64_t b;
        pecert_rope_pair(c->pairing, rot, i, &a, &b);
        double angles = 0.0;
        for (int j = 0; j < 4; j++) {
            angles += fabs((double)pos[j]) * inv[i];
        }
        /* pecert_tol_angle covers two computations; the four angles come
         * from one, hence the half. */
        double rq = hypot(q[a], q[b]);
        double rk = hypot(k[a], k[b]);
        bound += s * s * rq * rk * (0.5 * pecert_tol_angle(angles, inv[i], i) + 4 * PECERT_TOL_VALUE_U * PECERT_U32);
    }
    return bound;
}

static void shift_one(const pecert_check_env *env, pecert_check_result *r,
                      const pecert_rope_call *grid, const float *x, int64_t m, int64_t n,
                      int64_t shift, const char *where)
{
    /* tokens: q@m, k@n, q@m+s, k@n+s; one call, one explicit length, so
     * all four see the same frequencies. */
    int64_t pos[4] = {m, n, m + shift, n + shift};
    pecert_rope_call c = *grid;
    c.positions = pos;
    c.tokens = 4;
    c.seq_len = m + shift + n + 1;
    size_t size = pecert_rope_call_size(&c);
    float *in = malloc(size * sizeof(float));
    double *inv = malloc((size_t)c.config->rotary_dim * sizeof(double));
    double s = 1.0;
    if (!pecert_oracle_freqs(env, r, where, in != NULL ? inv : NULL, &s, c.config, c.seq_len)) {
        goto out_free;
    }
    size_t row = (size_t)(c.heads * c.head_dim);
    memcpy(in, x, 2 * row * sizeof(float));           /* q, k       */
    memcpy(in + 2 * row, x, 2 * row * sizeof(float)); /* q, k again */
    float *y = pecert_rope_run_packed(env, r, &c, in, where);
    if (y == NULL) {
        goto out_free;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t h = 0; h < c.heads; h++) {
        double abs_sum = 0.0;
        double before = dot_heads(y, &c, 0, 1, h, &abs_sum);
        double after = dot_heads(y, &c, 2, 3, h, &abs_sum);
        double bound = shift_bound(&c, x, inv, s, h, pos) + abs_sum * (double)c.head_dim * 2 * PECERT_U32;
        pecert_case_worst_add(&w, h, after, before, bound);
    }
    char elem[128];
    snprintf(elem, sizeof(elem), "q.k head %lld at (m=%lld,n=%lld) shifted by %lld", (long long)w.index,
             (long long)m, (long long)n, (long long)shift);
    pecert_case_finish(r, &w, where, elem);
    free(y);
out_free:
    free(in);
    free(inv);
}

static void shift_case(const pecert_check_env *env, pecert_check_result *r,
                       const pecert_rope_call *grid, const float *x, const char *where)
{
    int64_t l0 = pecert_rope_l0(grid->config);
    const int64_t pairs[][2] = {{5, 2}, {l0 - 1, 0}, {l0 + 1, l0 - 1}, {100, 4000}};
    const int64_t shifts[] = {1, 17, 1000, 1 << 16, 1 << 20};
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        for (size_t j = 0; j < sizeof(shifts) / sizeof(shifts[0]); j++) {
            shift_one(env, r, grid, x, pairs[i][0], pairs[i][1], shifts[j], where);
        }
    }
}

static void run_shift(const pecert_check_env *env, pecert_check_result *r)
{
    sweep(env, r, shift_case, 404, "(m, n, shift) cases");
}

const pecert_check pecert_check_rope_norm_preservation = {
    PECERT_ID_ROPE_NORM_PRESERVATION, "every rotated pair keeps its norm (times the attention scaling)",
    PECERT_NEED_ROPE_APPLY, run_norm};
const pecert_check pecert_check_rope_identity_at_zero = {
    PECERT_ID_ROPE_IDENTITY_AT_ZERO, "position 0 leaves q/k unchanged (up to the attention scaling)",
    PECERT_NEED_ROPE_APPLY, run_identity};
const pecert_check pecert_check_rope_inverse = {
    PECERT_ID_ROPE_INVERSE, "rotating by p then by -p restores the input",
    PECERT_NEED_ROPE_APPLY, run_inverse};
const pecert_check pecert_check_rope_shift_invariance = {
    PECERT_ID_ROPE_SHIFT_INVARIANCE, "q.k is unchanged when both positions shift by s (s up to 2^20)",
    PECERT_NEED_ROPE_APPLY, run_shift};
