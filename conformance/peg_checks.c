/*
 * peg_checks.c - conditional position encoding (CPVT's PEG, PosCNN as
 * released with Twins): the golden vectors under the convolution's float32
 * error model, and three properties every PEG has whatever its weights:
 *   zero_kernel          with weight and bias 0 the output is the input,
 *                        bit for bit (the residual: x + 0 is exact);
 *   translation          shifting the grid's contents shifts the outputs of
 *                        every cell whose neighbourhood stays inside the
 *                        grid (one kernel for every position);
 *   zero_padding         the grid inside a ring of zero patches gives the
 *                        same outputs on its own cells (what the border
 *                        taps read is zeros, not a replicated or mirrored
 *                        edge).
 *
 * A failed golden vector is replayed on this file's double model with the
 * token layout read another way (the tokens' [C, N] transpose read as the
 * channels-last grid; the grid taken as W x H; a square grid of sqrt(N)
 * per side): the layout that reproduces the plugin's output is the symptom
 * diagnose.c names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "isolate.h"
#include "tolerance.h"

/* plugin.h's largest grid side (the ring of zero_padding must fit). */
#define PEG_MAX_GRID 4096

/* One call, its inputs packed row-major. */
typedef struct peg_call {
    int64_t prefix, h, w, k, channels;
    const float *x;      /* [prefix + h * w, channels] */
    const float *weight; /* [channels, k, k]           */
    const float *bias;   /* [channels]                 */
} peg_call;

static peg_call call_of(const pecert_vtest *t)
{
    const pecert_vtensor *x = pecert_vtest_input(t, "x");
    peg_call c = {
        .prefix = pecert_vtest_int(t, "prefix_tokens", 0),
        .h = pecert_vtest_int(t, "grid_h", 1),
        .w = pecert_vtest_int(t, "grid_w", 1),
        .k = pecert_vtest_int(t, "kernel", 3),
        .channels = x->shape[1],
        .x = x->data,
        .weight = pecert_vtest_input(t, "weight")->data,
        .bias = pecert_vtest_input(t, "bias")->data,
    };
    return c;
}

static int64_t rows_of(const peg_call *c)
{
    return c->prefix + c->h * c->w;
}

/* A copy of n floats spread 2 apart (n + 1 more: the strides stay inside). */
static float *spread_copy(const float *src, int64_t n)
{
    float *s = calloc((size_t)(2 * n + 2), sizeof(float));
    for (int64_t i = 0; s != NULL && i < n; i++) {
        s[2 * i] = src[i];
    }
    return s;
}

/* Runs c on the plugin into a fresh buffer; 0 (recorded in r) if it did
 * not. In the golden check's strided pass (env->strided_outputs) the
 * inputs are strided too: every element two floats apart. */
static int run_peg(const pecert_check_env *env, pecert_check_result *r, const peg_call *c, pecert_out_buf *out,
                   const char *where)
{
    const pecert_subject *s = &env->plugin;
    int64_t shape[2] = {rows_of(c), c->channels};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_F32, 2, shape, where)) {
        return 0;
    }
    int strided = env->strided_outputs;
    float *sx = strided ? spread_copy(c->x, shape[0] * shape[1]) : NULL;
    float *sw = strided ? spread_copy(c->weight, c->channels * c->k * c->k) : NULL;
    float *sb = strided ? spread_copy(c->bias, c->channels) : NULL;
    if (strided && (sx == NULL || sw == NULL || sb == NULL)) {
        free(sx);
        free(sw);
        free(sb);
        pecert_out_free(out);
        pecert_case_fail(r, where, "out of memory");
        return 0;
    }
    int64_t m = strided ? 2 : 1;
    pecert_tensor x = pecert_tensor_2d(strided ? sx : (void *)(uintptr_t)c->x, PECERT_DTYPE_F32, shape[0], shape[1]);
    x.strides[0] = m * shape[1];
    x.strides[1] = m;
    pecert_tensor weight = pecert_tensor_3d(strided ? sw : (float *)(uintptr_t)c->weight, c->channels, c->k, c->k,
                                            m * c->k * c->k, m * c->k, m);
    pecert_tensor bias = pecert_tensor_2d(strided ? sb : (void *)(uintptr_t)c->bias, PECERT_DTYPE_F32, c->channels, 1);
    bias.ndim = 1;
    bias.strides[0] = m;
    pecert_peg_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.prefix_tokens = (int32_t)c->prefix;
    a.grid_h = c->h;
    a.grid_w = c->w;
    a.kernel = c->k;
    a.x = &x;
    a.weight = &weight;
    a.bias = &bias;
    a.out = &out->view;
    pecert_status st = s->desc->peg_apply(s->instance, &a);
    free(sx);
    free(sw);
    free(sb);
    return pecert_out_kept(r, s, st, out, where, "peg_apply");
}

/* ---- the model and its bound ---------------------------------------------------------- */

/* How the model reads the tokens (all zero: plugin.h's PEG). */
typedef struct peg_layout {
    int transposed;     /* the [C, N] transpose read as the grid [H, W, C]  */
    int axes_swapped;   /* the grid read as W rows of H (view(B, C, W, H))  */
    int square;         /* a sqrt(N) x sqrt(N) grid whatever h and w        */
} peg_layout;

/* Token t, channel c of the grid as the layout reads the input (the
 * official path: element t * C + c of x; transposed: element t * C + c of
 * x's [C, N] transpose, which is x[f % N][f / N]). */
static double grid_in(const peg_call *c, const peg_layout *v, int64_t t, int64_t ch)
{
    int64_t n = c->h * c->w, f = t * c->channels + ch;
    int64_t flat = v->transposed ? (f % n) * c->channels + f / n : f;
    return c->x[c->prefix * c->channels + flat];
}

/*
 * Every output of c as layout v reads it, with its bound: (T + 3) u S,
 * T the taps inside the grid, S = |x| + |b| + sum |w x| over them (a
 * float32 sum of T + 2 terms in any order, and its storage); prefix rows
 * copied, bound 0. out and tol hold rows_of(c) * channels doubles in the
 * output's order: a layout changes what is read, and the result is
 * written back as tokens [N, C] (PosCNN's flatten(2).transpose(1, 2)
 * follows the misread view). 0 if the layout does not apply (no square
 * grid of N tokens).
 */
static int model(const peg_call *c, const peg_layout *v, double *out, double *tol)
{
    int64_t h = c->h, w = c->w, n = c->h * c->w;
    if (v->square) {
        h = (int64_t)llround(sqrt((double)n));
        w = h;
        if (h * w != n) {
            return 0;
        }
    }
    if (v->axes_swapped) {
        int64_t t = h;
        h = w;
        w = t;
    }
    int64_t r = c->k / 2;
    for (int64_t i = 0; i < c->prefix * c->channels; i++) {
        out[i] = c->x[i];
        tol[i] = 0.0;
    }
    for (int64_t y = 0; y < h; y++) {
        for (int64_t x = 0; x < w; x++) {
            for (int64_t ch = 0; ch < c->channels; ch++) {
                double centre = grid_in(c, v, y * w + x, ch), b = c->bias[ch];
                double sum = 0.0, abs_sum = fabs(centre) + fabs(b);
                int taps = 0;
                for (int64_t i = 0; i < c->k; i++) {
                    for (int64_t j = 0; j < c->k; j++) {
                        int64_t sy = y + i - r, sx = x + j - r;
                        if (sy >= 0 && sy < h && sx >= 0 && sx < w) {
                            double tap = c->weight[(ch * c->k + i) * c->k + j];
                            double term = tap * grid_in(c, v, sy * w + sx, ch);
                            sum += term;
                            abs_sum += fabs(term);
                            taps++;
                        }
                    }
                }
                int64_t e = (c->prefix + y * w + x) * c->channels + ch;
                out[e] = centre + (sum + b);
                tol[e] = (double)(taps + 3) * PECERT_U32 * abs_sum;
            }
        }
    }
    return 1;
}

/* The element's place: a prefix row, or the patch (y, x) and channel. */
static void finish_case(pecert_check_result *r, const pecert_case_worst *w, const peg_call *c, const char *where)
{
    int64_t e = w->index < 0 ? 0 : w->index;
    int64_t ch = c->channels > 0 ? c->channels : 1;
    int64_t row = e / ch;
    char elem[128];
    if (row < c->prefix) {
        snprintf(elem, sizeof(elem), "[prefix row %lld, c=%lld]", (long long)row, (long long)(e % ch));
    } else {
        int64_t t = row - c->prefix;
        snprintf(elem, sizeof(elem), "[patch (%lld, %lld) of the %lldx%lld grid, c=%lld]", (long long)(t / c->w),
                 (long long)(t % c->w), (long long)c->h, (long long)c->w, (long long)(e % ch));
    }
    pecert_case_finish(r, w, where, elem);
}

/* Model buffers for one call (NULL, recorded in r, if out of memory). */
static double *model_buffers(pecert_check_result *r, const peg_call *c, const char *where)
{
    double *b = malloc((size_t)(2 * rows_of(c) * c->channels) * sizeof(double));
    if (b == NULL) {
        pecert_case_fail(r, where, "out of memory");
    }
    return b;
}

/* ---- the replays ------------------------------------------------------------------------- */

static int layout_explains(const peg_call *c, const peg_layout *v, const pecert_out_buf *got, double *want,
                           double *tol)
{
    if (!model(c, v, want, tol)) {
        return 0;
    }
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < got->n; i++) {
        pecert_case_worst_add(&w, i, pecert_out_get(got, i), want[i], tol[i]);
    }
    return pecert_case_worst_holds(&w);
}

static void explain(pecert_check_result *r, const peg_call *c, const pecert_out_buf *got, double *want, double *tol)
{
    static const struct {
        peg_layout v;
        const char *symptom;
    } replays[] = {
        {{.transposed = 1}, PECERT_SYMPTOM_PEG_TRANSPOSED},
        {{.axes_swapped = 1}, PECERT_SYMPTOM_PEG_AXES_SWAPPED},
        {{.square = 1}, PECERT_SYMPTOM_PEG_SQUARE},
    };
    for (size_t k = 0; k < sizeof(replays) / sizeof(replays[0]); k++) {
        if (layout_explains(c, &replays[k].v, got, want, tol)) {
            pecert_check_symptom(r, "%s", replays[k].symptom);
            return;
        }
    }
}

/* ---- peg.golden ----------------------------------------------------------------------------- */

static void golden_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    peg_call c = call_of(t);
    pecert_out_buf got;
    if (!run_peg(env, r, &c, &got, where)) {
        return;
    }
    double *buf = model_buffers(r, &c, where);
    if (buf != NULL) {
        int64_t n = rows_of(&c) * c.channels;
        static const peg_layout right = {0};
        model(&c, &right, buf, buf + n); /* the bounds; the official outputs are the reference */
        const pecert_vtensor *want = pecert_vtest_output(t, "out");
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        for (int64_t i = 0; i < n; i++) {
            pecert_case_worst_add(&w, i, pecert_out_get(&got, i), pecert_vtensor_get(want, i), buf[n + i]);
        }
        finish_case(r, &w, &c, where);
        if (w.n_bad > 0) {
            explain(r, &c, &got, buf, buf + n);
        }
        free(buf);
    }
    pecert_out_free(&got);
}

/* A PEG is depthwise: channel ch of the output reads channel ch of the
 * input, weight and bias only, so the official outputs' first n channels
 * are the answer for the inputs' first n. Prefixes of 61, 117 and 250
 * channels leave a vector engine tails it never meets at the checkpoints'
 * multiples of 64 (16 lanes: 13, 5, 10; 64-channel blocks: 61, 53, 58),
 * where an AVX-512 kernel once computed 16 of the last 49-63. */
static const int64_t channel_prefixes[] = {61, 117, 250};

static void prefix_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, int64_t n,
                        const char *where)
{
    peg_call full = call_of(t);
    peg_call c = full;
    int64_t rows = rows_of(&full), kk = full.k * full.k;
    float *x = malloc((size_t)(rows * n + n * kk + n) * sizeof(float));
    char at[160];
    pecert_out_buf got;

    snprintf(at, sizeof(at), "%s, its first %lld channels", where, (long long)n);
    if (x == NULL) {
        pecert_case_fail(r, at, "out of memory");
        return;
    }
    for (int64_t i = 0; i < rows; i++) {
        memcpy(x + i * n, full.x + i * full.channels, (size_t)n * sizeof(float));
    }
    memcpy(x + rows * n, full.weight, (size_t)(n * kk) * sizeof(float)); /* [channels, k, k]: a prefix */
    memcpy(x + rows * n + n * kk, full.bias, (size_t)n * sizeof(float));
    c.channels = n;
    c.x = x;
    c.weight = x + rows * n;
    c.bias = x + rows * n + n * kk;
    if (run_peg(env, r, &c, &got, at)) {
        double *buf = model_buffers(r, &c, at);
        const pecert_vtensor *want = pecert_vtest_output(t, "out");
        static const peg_layout right = {0};

        if (buf != NULL) {
            pecert_case_worst w;

            model(&c, &right, buf, buf + rows * n);
            pecert_case_worst_init(&w);
            for (int64_t i = 0; i < rows * n; i++) {
                pecert_case_worst_add(&w, i, pecert_out_get(&got, i),
                                      pecert_vtensor_get(want, (i / n) * full.channels + i % n), buf[rows * n + i]);
            }
            finish_case(r, &w, &c, at);
            free(buf);
        }
        pecert_out_free(&got);
    }
    free(x);
}

static void golden_with_prefixes(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                                 const char *where)
{
    golden_case(env, r, t, where);
    for (size_t i = 0; i < sizeof(channel_prefixes) / sizeof(channel_prefixes[0]); i++) {
        if (channel_prefixes[i] < call_of(t).channels) {
            prefix_case(env, r, t, channel_prefixes[i], where);
        }
    }
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "peg.apply", golden_with_prefixes);
}

/* ---- peg.zero_kernel ------------------------------------------------------------------------- */

/* weight 0 and bias 0: every tap adds an exact 0, so out = x bit for bit. */
static void zero_kernel_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                             const char *where)
{
    peg_call c = call_of(t);
    float *zeros = calloc((size_t)(c.channels * (c.k * c.k + 1)), sizeof(float));
    if (zeros == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    c.weight = zeros;
    c.bias = zeros + c.channels * c.k * c.k;
    pecert_out_buf got;
    if (run_peg(env, r, &c, &got, where)) {
        pecert_case_worst w;
        pecert_case_worst_init(&w);
        pecert_out_worst_exact(&w, &got, c.x, got.n);
        finish_case(r, &w, &c, where);
        pecert_case_worst_symptom(r, &w, "peg_residual");
        pecert_out_free(&got);
    }
    free(zeros);
}

static void run_zero_kernel(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "peg.apply", zero_kernel_case);
}

/* ---- peg.translation ---------------------------------------------------------------------------- */

/* The vector's grid rolled down by one row and right by one column. */
static float *rolled_input(const peg_call *c)
{
    float *x = malloc((size_t)(rows_of(c) * c->channels) * sizeof(float));
    if (x == NULL) {
        return NULL;
    }
    memcpy(x, c->x, (size_t)(c->prefix * c->channels) * sizeof(float));
    for (int64_t y = 0; y < c->h; y++) {
        for (int64_t z = 0; z < c->w; z++) {
            int64_t to = c->prefix + ((y + 1) % c->h) * c->w + (z + 1) % c->w;
            memcpy(x + to * c->channels, c->x + (c->prefix + y * c->w + z) * c->channels,
                   (size_t)c->channels * sizeof(float));
        }
    }
    return x;
}

/* Patch (y, x)'s outputs against the rolled run's at (y + 1, x + 1), for
 * every patch whose neighbourhood lies inside the grid in both runs (r <=
 * y <= h - 2 - r: no tap reads padding or crosses the roll's seam). */
static void compare_shifted(const peg_call *c, const pecert_out_buf *straight, const pecert_out_buf *moved,
                            const double *tol, pecert_case_worst *w)
{
    int64_t r = c->k / 2;
    pecert_case_worst_init(w);
    for (int64_t y = r; y + 1 + r < c->h; y++) {
        for (int64_t z = r; z + 1 + r < c->w; z++) {
            for (int64_t ch = 0; ch < c->channels; ch++) {
                int64_t from = (c->prefix + y * c->w + z) * c->channels + ch;
                int64_t to = (c->prefix + (y + 1) * c->w + z + 1) * c->channels + ch;
                pecert_case_worst_add(w, from, pecert_out_get(moved, to), pecert_out_get(straight, from),
                                      2.0 * tol[from]);
            }
        }
    }
}

static void translation_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                             const char *where)
{
    peg_call c = call_of(t);
    if (c.h < c.k + 1 || c.w < c.k + 1) {
        pecert_case_passed(r, where, "no patch whose neighbourhood stays inside the grid when shifted");
        return;
    }
    float *rolled = rolled_input(&c);
    double *buf = rolled != NULL ? model_buffers(r, &c, where) : NULL;
    if (rolled == NULL) {
        pecert_case_fail(r, where, "out of memory");
    }
    pecert_out_buf straight, moved;
    if (buf != NULL && run_peg(env, r, &c, &straight, where)) {
        peg_call shifted = c;
        shifted.x = rolled;
        if (run_peg(env, r, &shifted, &moved, where)) {
            static const peg_layout right = {0};
            int64_t n = rows_of(&c) * c.channels;
            model(&c, &right, buf, buf + n);
            pecert_case_worst w;
            compare_shifted(&c, &straight, &moved, buf + n, &w);
            finish_case(r, &w, &c, where);
            pecert_case_worst_symptom(r, &w, "peg_not_translation_equivariant");
            pecert_out_free(&moved);
        }
        pecert_out_free(&straight);
    }
    free(buf);
    free(rolled);
}

static void run_translation(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "peg.apply", translation_case);
}

/* ---- peg.zero_padding ----------------------------------------------------------------------------- */

/* c's grid inside a ring of r zero patches (the prefix rows as they are). */
static float *ringed_input(const peg_call *c, int64_t r)
{
    int64_t h = c->h + 2 * r, w = c->w + 2 * r;
    float *x = calloc((size_t)((c->prefix + h * w) * c->channels), sizeof(float));
    if (x == NULL) {
        return NULL;
    }
    memcpy(x, c->x, (size_t)(c->prefix * c->channels) * sizeof(float));
    for (int64_t y = 0; y < c->h; y++) {
        memcpy(x + (c->prefix + (y + r) * w + r) * c->channels, c->x + (c->prefix + y * c->w) * c->channels,
               (size_t)(c->w * c->channels) * sizeof(float));
    }
    return x;
}

static void padding_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    peg_call c = call_of(t);
    int64_t ring = c.k / 2 > 0 ? c.k / 2 : 1;
    peg_call big = c;
    big.h = c.h + 2 * ring;
    big.w = c.w + 2 * ring;
    if (big.h > PEG_MAX_GRID || big.w > PEG_MAX_GRID) {
        pecert_case_passed(r, where, "the grid and its ring exceed the ABI's 4096 per side: not compared");
        return;
    }
    float *ringed = ringed_input(&c, ring);
    double *buf = ringed != NULL ? model_buffers(r, &c, where) : NULL;
    if (ringed == NULL) {
        pecert_case_fail(r, where, "out of memory");
    }
    big.x = ringed;
    pecert_out_buf alone, inside;
    if (buf != NULL && run_peg(env, r, &c, &alone, where)) {
        if (run_peg(env, r, &big, &inside, where)) {
            static const peg_layout right = {0};
            int64_t n = rows_of(&c) * c.channels;
            model(&c, &right, buf, buf + n);
            pecert_case_worst w;
            pecert_case_worst_init(&w);
            for (int64_t i = 0; i < c.prefix * c.channels; i++) {
                pecert_case_worst_add(&w, i, pecert_out_get(&inside, i), pecert_out_get(&alone, i), 0.0);
            }
            for (int64_t y = 0; y < c.h; y++) {
                for (int64_t z = 0; z < c.w * c.channels; z++) {
                    int64_t e = (c.prefix + y * c.w) * c.channels + z;
                    int64_t f = (c.prefix + (y + ring) * big.w + ring) * c.channels + z;
                    pecert_case_worst_add(&w, e, pecert_out_get(&inside, f), pecert_out_get(&alone, e),
                                          2.0 * buf[n + e]);
                }
            }
            finish_case(r, &w, &c, where);
            pecert_case_worst_symptom(r, &w, "peg_padding_not_zero");
            pecert_out_free(&inside);
        }
        pecert_out_free(&alone);
    }
    free(buf);
    free(ringed);
}

static void run_padding(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "peg.apply", padding_case);
}

const pecert_check pecert_check_peg_golden = {
    PECERT_ID_PEG_GOLDEN, "CPVT's PEG over a patch grid equals the authors' PosCNN (Twins gvt.py), on every channel "
                          "and on channel prefixes that leave every vector tail",
    PECERT_NEED_PEG_APPLY, run_golden};
const pecert_check pecert_check_peg_zero_kernel = {
    PECERT_ID_PEG_ZERO_KERNEL, "a PEG of zero weight and bias returns its input bit for bit (the residual)",
    PECERT_NEED_PEG_APPLY, run_zero_kernel};
const pecert_check pecert_check_peg_translation = {
    PECERT_ID_PEG_TRANSLATION, "shifting the grid shifts the PEG's outputs away from the borders",
    PECERT_NEED_PEG_APPLY, run_translation};
const pecert_check pecert_check_peg_zero_padding = {
    PECERT_ID_PEG_ZERO_PADDING, "the grid inside a ring of zero patches gives the same outputs (the padding is zeros)",
    PECERT_NEED_PEG_APPLY, run_padding};
