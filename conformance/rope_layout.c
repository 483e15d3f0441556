/*
 * rope_layout.c - where the rotation lands: channels past rotary_dim stay
 * untouched, and strided / in-place calls equal the packed out-of-place
 * result without writing one byte outside their view.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate.h"
#include "rope_checks.h"

#define TOKENS 5
#define HEADS 3
/* Extra channels past rotary_dim: not a multiple of 8, so vector tails run. */
#define EXTRA_CHANNELS 13
/* Padding after every head row of a strided view. */
#define ROW_PAD 5
/* A NaN payload no computation produces: marks bytes nobody may write. */
#define SENTINEL_BITS 0x7fc0deadu

static const pecert_rope_pairing pairings[] = {PECERT_PAIRING_SPLIT_HALF,
                                               PECERT_PAIRING_INTERLEAVED};

static void grid_positions(int64_t *pos, const pecert_rope_config *c)
{
    int64_t l0 = pecert_rope_l0(c);
    const int64_t grid[TOKENS] = {0, 3, l0 - 1, l0 + 1, 1 << 20};
    memcpy(pos, grid, sizeof(grid));
}

typedef void (*layout_fn)(const pecert_check_env *env, pecert_check_result *r,
                          const pecert_rope_call *call, const char *where);

/* Runs fn for every config x pairing on the grid, then concludes, the
 * cases named what. */
static void sweep(const pecert_check_env *env, pecert_check_result *r, layout_fn fn, const char *what)
{
    const pecert_rope_config **configs = NULL;
    size_t n = pecert_rope_configs(env, &configs);
    for (size_t c = 0; c < n; c++) {
        for (size_t p = 0; p < 2; p++) {
            int64_t pos[TOKENS];
            grid_positions(pos, configs[c]);
            pecert_rope_call call = {configs[c], pairings[p], 0, pos, TOKENS, HEADS,
                                     configs[c]->head_dim};
            char where[PECERT_RESULT_LINE_MAX];
            pecert_rope_case_begin(env, where, sizeof(where), configs[c], pairings[p], "");
            fn(env, r, &call, where);
        }
    }
    pecert_check_conclude(r, what);
}

/* ---- rope.partial_passthrough ------------------------------------------ */

/* The config with EXTRA_CHANNELS more channels per head than it rotates:
 * frequencies depend on rotary_dim only, so the rotation must not change. */
static void passthrough_case(const pecert_check_env *env, pecert_check_result *r,
                             const pecert_rope_call *base, const char *where)
{
    pecert_rope_config wide = *base->config;
    wide.head_dim = wide.rotary_dim + EXTRA_CHANNELS;
    pecert_rope_call call = *base;
    call.config = &wide;
    call.head_dim = wide.head_dim;
    size_t size = pecert_rope_call_size(&call);
    float *x = pecert_random_floats(r, size, 505, where);
    if (x == NULL) {
        return;
    }
    float *got;
    float *want;
    if (pecert_rope_run_both(env, r, &call, x, where, &got, &want)) {
        /* compare: rotated channels against the oracle, the rest exactly. */
        pecert_rope_compare(env, r, &call, x, got, want, where, 0, 1.0);
        int64_t bad = 0;
        for (size_t i = 0; i < size; i++) {
            if ((int64_t)(i % (size_t)call.head_dim) >= wide.rotary_dim &&
                memcmp(&got[i], &x[i], sizeof(float)) != 0) {
                bad++;
            }
        }
        if (bad > 0) {
            pecert_check_symptom(r, "%s", PECERT_SYMPTOM_PASSTHROUGH_CHANGED);
            pecert_case_fail(r, where, "%lld passthrough channels (>= rotary_dim %d of head_dim %d) changed",
                             (long long)bad, wide.rotary_dim, wide.head_dim);
        }
    }
    free(want);
    free(got);
    free(x);
}

static void run_passthrough(const pecert_check_env *env, pecert_check_result *r)
{
    sweep(env, r, passthrough_case, "config/pairing sweeps");
}

/* ---- rope.inplace_and_strides ------------------------------------------ */

/* A fused-QKV-like buffer: per token three blocks (q, k, v) of HEADS rows
 * of head_dim + ROW_PAD floats. Views address q or k inside it. */
typedef struct fused_buffer {
    float *data;
    size_t size;
    int64_t row;   /* head stride   */
    int64_t token; /* token stride  */
} fused_buffer;

static int fused_alloc(fused_buffer *b, const pecert_rope_call *c)
{
    b->row = c->head_dim + ROW_PAD;
    b->token = 3 * c->heads * b->row;
    b->size = (size_t)(c->tokens * b->token);
    b->data = malloc(b->size * sizeof(float));
    if (b->data == NULL) {
        return -1;
    }
    uint32_t bits = SENTINEL_BITS;
    for (size_t i = 0; i < b->size; i++) {
        memcpy(&b->data[i], &bits, sizeof(bits));
    }
    return 0;
}

static float *fused_elem(const fused_buffer *b, int block, int64_t t, int64_t h, int64_t d)
{
    return b->data + t * b->token + block * (b->token / 3) + h * b->row + d;
}

static pecert_tensor fused_view(const fused_buffer *b, const pecert_rope_call *c, int block)
{
    return pecert_tensor_3d(fused_elem(b, block, 0, 0, 0), c->tokens, c->heads, c->head_dim,
                            b->token, b->row, 1);
}

/* Packs a view of block of b into out (for comparison). */
static void fused_gather(float *out, const fused_buffer *b, const pecert_rope_call *c, int block)
{
    for (int64_t t = 0; t < c->tokens; t++) {
        for (int64_t h = 0; h < c->heads; h++) {
            memcpy(out + (t * c->heads + h) * c->head_dim, fused_elem(b, block, t, h, 0),
                   (size_t)c->head_dim * sizeof(float));
        }
    }
}

/* Counts elements of b outside the views of blocks [first, last] that no
 * longer hold the sentinel. */
static int64_t fused_damage(const fused_buffer *b, const pecert_rope_call *c, int first, int last)
{
    int64_t damage = 0;
    for (size_t i = 0; i < b->size; i++) {
        int64_t in_token = (int64_t)i % b->token;
        int block = (int)(in_token / (b->token / 3));
        int64_t d = (in_token % (b->token / 3)) % b->row;
        int inside = block >= first && block <= last && d < c->head_dim;
        uint32_t bits;
        memcpy(&bits, &b->data[i], sizeof(bits));
        damage += !inside && bits != SENTINEL_BITS;
    }
    return damage;
}

/* Runs one strided layout; in_place: k rotated in its own storage, else
 * q read from block 0 and written to block 1. */
static void strided_layout(const pecert_check_env *env, pecert_check_result *r,
                           const pecert_rope_call *c, const float *x, const float *packed,
                           int in_place, const char *where)
{
    fused_buffer b;
    float *got = malloc(pecert_rope_call_size(c) * sizeof(float));
    if (got == NULL || fused_alloc(&b, c) != 0) {
        free(got);
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    int src = in_place ? 1 : 0;
    for (int64_t t = 0; t < c->tokens; t++) {
        for (int64_t h = 0; h < c->heads; h++) {
            memcpy(fused_elem(&b, src, t, h, 0), x + (t * c->heads + h) * c->head_dim,
                   (size_t)c->head_dim * sizeof(float));
        }
    }
    pecert_tensor vin = fused_view(&b, c, src);
    pecert_tensor vout = fused_view(&b, c, 1);
    char at[PECERT_RESULT_LINE_MAX];
    snprintf(at, sizeof(at), "%s %s", where, in_place ? "in place (k of fused qkv)" : "strided q->k");
    int64_t failed_before = r->n_failed;
    pecert_status st = pecert_rope_apply_views(&env->plugin, c, &vin, &vout);
    if (pecert_case_status(r, &env->plugin, st, at, "rope_apply")) {
        fused_gather(got, &b, c, 1);
        pecert_rope_compare(env, r, c, x, got, packed, at, 0, 1.0);
        if (r->n_failed > failed_before) {
            pecert_check_symptom(r, in_place ? PECERT_SYMPTOM_IN_PLACE_DIFFERS : PECERT_SYMPTOM_STRIDED_DIFFERS);
        }
        int64_t damage = fused_damage(&b, c, src, 1);
        if (damage > 0) {
            pecert_case_fail(r, at, "%lld floats outside the output view were written", (long long)damage);
        }
    }
    free(b.data);
    free(got);
}

static void strides_case(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_rope_call *c, const char *where)
{
    float *x = pecert_random_floats(r, pecert_rope_call_size(c), 606, where);
    if (x == NULL) {
        return;
    }
    float *packed = pecert_rope_run_packed(env, r, c, x, where);
    if (packed != NULL) {
        strided_layout(env, r, c, x, packed, 0, where);
        strided_layout(env, r, c, x, packed, 1, where);
    }
    free(packed);
    free(x);
}

static void run_strides(const pecert_check_env *env, pecert_check_result *r)
{
    sweep(env, r, strides_case, "layouts");
}

const pecert_check pecert_check_rope_partial_passthrough = {
    PECERT_ID_ROPE_PARTIAL_PASSTHROUGH,
    "channels past rotary_dim are copied bit for bit, the rest rotate as with no extra channels",
    PECERT_NEED_ROPE_APPLY, run_passthrough};
const pecert_check pecert_check_rope_inplace_and_strides = {
    PECERT_ID_ROPE_INPLACE_AND_STRIDES,
    "strided and in-place calls equal the packed result and write nothing outside their view",
    PECERT_NEED_ROPE_APPLY, run_strides};
