/*
 * relpos2d_checks.c - the decomposed relative positions of MViTv2 and
 * SAM's image encoder (segment-anything's add_decomposed_rel_pos,
 * transformers' SamVisionAttention and its copies): the golden vectors,
 * and the engine against the oracle at the shapes the released models
 * compute (relpos2d.shapes):
 *   SAM ViT-B's windows   14 x 14 tokens, tables of 2 * 14 - 1 = 27 rows,
 *                         64 channels;
 *   a resized table       SAM's global layers' 127-row tables on the
 *                         16 x 16 grid of a 256-pixel image (31 rows: the
 *                         linear resize down), and a 9-row table grown to
 *                         a 10 x 10 grid's 19 (up);
 *   pooled keys           MViTv2's 8 x 8 queries on 4 x 4 keys and the
 *                         reverse (the shorter axis scaled by the ratio);
 *   non-square, 1 x 1     a 6 x 10 grid on 4 x 15 keys, one token.
 *
 * Error model (TOLERANCES.md): an element is two dot products of C
 * channels over the resized rows; each engine's f32 accumulation is within
 * gamma_C of the exact sum, a resized row within 3 u of its value at the
 * exact source coordinate, which float32 computes within 2 (src + 1) u
 * (the value moves by |b - a| per unit), the final sum one rounding:
 * |err| <= u sum_c |q_c| ((C + 8) |R'_c| + 4 (src + 1) |b_c - a_c|) over
 * both axes per engine, computed here in double; the comparison allows
 * both sides' (twice that).
 *
 * A failed case is replayed on this file's double model with the table's
 * resize misread as released ports misread it (corners aligned; no
 * half-pixel offset): the misreading that reproduces the plugin's output
 * is the symptom diagnose.c names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"
#include "isolate.h"

/* One relpos2d_bias call: sizes and packed inputs. */
typedef struct relpos2d_call {
    int64_t q_h, q_w, k_h, k_w, n, c, len_h, len_w;
    float *query;     /* [n, q_h q_w, C]                                  */
    float *rel_pos_h; /* [len_h, C]                                       */
    float *rel_pos_w; /* [len_w, C]                                       */
} relpos2d_call;

/* How a table is resized: plugin.h's half-pixel centres, or the ports'
 * misreadings (each found in a released port; impls/mutants/README.md). */
typedef enum relpos2d_resize {
    RESIZE_HALF_PIXEL = 0, /* nn.functional.interpolate(mode="linear")    */
    RESIZE_ALIGN_CORNERS,  /* src = i (L - 1) / (L' - 1)                   */
    RESIZE_ASYMMETRIC      /* src = i L / L' (no half-pixel offset)        */
} relpos2d_resize;

/* How the model reads the call (all zero: plugin.h's relpos2d_bias). */
typedef struct relpos2d_reading {
    relpos2d_resize resize;
} relpos2d_reading;

static void call_free(relpos2d_call *c)
{
    free(c->query);
    free(c->rel_pos_h);
    free(c->rel_pos_w);
}

static int64_t tokens_q(const relpos2d_call *c)
{
    return c->q_h * c->q_w;
}

static int64_t tokens_k(const relpos2d_call *c)
{
    return c->k_h * c->k_w;
}

static float *floats_of(const pecert_vtensor *t, int64_t n)
{
    float *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    for (int64_t i = 0; out != NULL && i < n; i++) {
        out[i] = (float)pecert_vtensor_get(t, i);
    }
    return out;
}

static int call_of(const pecert_vtest *t, relpos2d_call *c)
{
    const pecert_vtensor *q = pecert_vtest_input(t, "query");
    const pecert_vtensor *th = pecert_vtest_input(t, "rel_pos_h");
    const pecert_vtensor *tw = pecert_vtest_input(t, "rel_pos_w");
    memset(c, 0, sizeof(*c));
    c->q_h = pecert_vtest_int(t, "q_h", 1);
    c->q_w = pecert_vtest_int(t, "q_w", 1);
    c->k_h = pecert_vtest_int(t, "k_h", 1);
    c->k_w = pecert_vtest_int(t, "k_w", 1);
    c->n = q->shape[0];
    c->c = q->shape[2];
    c->len_h = th->shape[0];
    c->len_w = tw->shape[0];
    c->query = floats_of(q, c->n * tokens_q(c) * c->c);
    c->rel_pos_h = floats_of(th, c->len_h * c->c);
    c->rel_pos_w = floats_of(tw, c->len_w * c->c);
    return c->query != NULL && c->rel_pos_h != NULL && c->rel_pos_w != NULL;
}

/* A seeded call of the given sizes (inputs uniform in [-1, 1)). */
static int call_seeded(relpos2d_call *c, const int64_t sizes[8], uint64_t seed)
{
    memset(c, 0, sizeof(*c));
    c->q_h = sizes[0], c->q_w = sizes[1], c->k_h = sizes[2], c->k_w = sizes[3];
    c->n = sizes[4], c->c = sizes[5], c->len_h = sizes[6], c->len_w = sizes[7];
    c->query = malloc((size_t)(c->n * tokens_q(c) * c->c) * sizeof(float));
    c->rel_pos_h = malloc((size_t)(c->len_h * c->c) * sizeof(float));
    c->rel_pos_w = malloc((size_t)(c->len_w * c->c) * sizeof(float));
    if (c->query == NULL || c->rel_pos_h == NULL || c->rel_pos_w == NULL) {
        return 0;
    }
    pecert_rng rng = {seed};
    for (int64_t i = 0; i < c->n * tokens_q(c) * c->c; i++) {
        c->query[i] = pecert_rng_float(&rng);
    }
    for (int64_t i = 0; i < c->len_h * c->c; i++) {
        c->rel_pos_h[i] = pecert_rng_float(&rng);
    }
    for (int64_t i = 0; i < c->len_w * c->c; i++) {
        c->rel_pos_w[i] = pecert_rng_float(&rng);
    }
    return 1;
}

/* Runs c on subject s into a fresh [n, q, k] buffer; 0 (recorded in r) if
 * it did not. In the strided pass the query is strided too. */
static int run_on(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r,
                  const relpos2d_call *c, pecert_out_buf *out, const char *where)
{
    int64_t shape[3] = {c->n, tokens_q(c), tokens_k(c)};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_F32, 3, shape, where)) {
        return 0;
    }
    int64_t m = env->strided_outputs ? 2 : 1;
    int64_t nq = c->n * tokens_q(c) * c->c;
    float *query = malloc((size_t)(m * nq) * sizeof(float));
    if (query == NULL) {
        pecert_out_free(out);
        pecert_case_fail(r, where, "out of memory");
        return 0;
    }
    for (int64_t i = 0; i < nq; i++) {
        query[m * i] = c->query[i];
    }
    pecert_tensor tq = pecert_tensor_3d(query, c->n, tokens_q(c), c->c, m * tokens_q(c) * c->c, m * c->c, m);
    pecert_tensor th = pecert_tensor_2d(c->rel_pos_h, PECERT_DTYPE_F32, c->len_h, c->c);
    pecert_tensor tw = pecert_tensor_2d(c->rel_pos_w, PECERT_DTYPE_F32, c->len_w, c->c);
    pecert_relpos2d_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.q_h = c->q_h;
    a.q_w = c->q_w;
    a.k_h = c->k_h;
    a.k_w = c->k_w;
    a.query = &tq;
    a.rel_pos_h = &th;
    a.rel_pos_w = &tw;
    a.out = &out->view;
    pecert_status st = s->desc->relpos2d_bias(s->instance, &a);
    free(query);
    return pecert_out_kept(r, s, st, out, where, "relpos2d_bias");
}

/* ---- the model and its bound ---------------------------------------------------------- */

/* get_rel_pos' row in float32 (plugin.h): trunc(a s_q - b s_k + (k - 1) s_k). */
static int64_t rel_row(int64_t q, int64_t k, int64_t a, int64_t b)
{
    double ratio_q = (double)k / (double)q > 1.0 ? (double)k / (double)q : 1.0;
    double ratio_k = (double)q / (double)k > 1.0 ? (double)q / (double)k : 1.0;
    float rel = ((float)a * (float)ratio_q - (float)b * (float)ratio_k) + (float)((double)(k - 1) * ratio_k);
    return (int64_t)rel;
}

/* The source coordinate of row `row` of out_rows resized from len. */
static double source_row(relpos2d_resize resize, int64_t len, int64_t out_rows, int64_t row)
{
    double src = resize == RESIZE_ALIGN_CORNERS ? (out_rows > 1 ? (double)row * (double)(len - 1) / (double)(out_rows - 1)
                                                                : 0.0)
                 : resize == RESIZE_ASYMMETRIC ? (double)row * (double)len / (double)out_rows
                                               : ((double)row + 0.5) * (double)len / (double)out_rows - 0.5;
    return src > 0.0 ? src : 0.0;
}

/* Row `row` of a table of len rows resized to out_rows, channel ch, as
 * `resize` reads it (as stored when it has out_rows rows). A resized
 * value also moves by |b - a| per unit of its source coordinate, which
 * float32 computes within 2 (src + 1) u: *spread = (src + 1) |b - a|. */
static double table_at(const float *t, int64_t len, int64_t ch_n, int64_t out_rows, int64_t row, int64_t ch,
                       relpos2d_resize resize, double *spread)
{
    *spread = 0.0;
    if (len == out_rows) {
        return t[row * ch_n + ch];
    }
    double src = source_row(resize, len, out_rows, row);
    int64_t lo = (int64_t)src;
    int64_t hi = lo < len - 1 ? lo + 1 : lo;
    double w = src - (double)lo;
    double a = t[lo * ch_n + ch], b = t[hi * ch_n + ch];
    *spread = (src + 1.0) * fabs(b - a);
    return (1.0 - w) * a + w * b;
}

/* One axis' dot of query row x at coordinate a against key coordinate b,
 * and its error weight into *weight: sum_c |x_c| ((C + 8) |r_c| + 4
 * spread_c), in units of u (the dot's accumulation and the row's three
 * roundings, and the resize's source coordinate). */
static double axis_dot(const relpos2d_call *c, const relpos2d_reading *v, int vertical, const float *x, int64_t a,
                       int64_t b, double *weight)
{
    int64_t q = vertical ? c->q_h : c->q_w;
    int64_t k = vertical ? c->k_h : c->k_w;
    const float *t = vertical ? c->rel_pos_h : c->rel_pos_w;
    int64_t len = vertical ? c->len_h : c->len_w;
    int64_t rows = 2 * (q > k ? q : k) - 1;
    int64_t row = rel_row(q, k, a, b);
    double dot = 0.0;
    for (int64_t ch = 0; ch < c->c; ch++) {
        double spread;
        double r = table_at(t, len, c->c, rows, row, ch, v->resize, &spread);
        dot += (double)x[ch] * r;
        *weight += fabs((double)x[ch]) * (((double)c->c + 8.0) * fabs(r) + 4.0 * spread);
    }
    return dot;
}

/* Every output of c as reading v computes it, with its bound, into out and
 * tol ([n, q, k] doubles each). */
static void model(const relpos2d_call *c, const relpos2d_reading *v, double *out, double *tol)
{
    int64_t tq = tokens_q(c), tk = tokens_k(c);
    double *dh = malloc((size_t)c->k_h * sizeof(double));
    double *sh = malloc((size_t)c->k_h * sizeof(double));
    double *dw = malloc((size_t)c->k_w * sizeof(double));
    double *sw = malloc((size_t)c->k_w * sizeof(double));
    for (int64_t row = 0; dh != NULL && sh != NULL && dw != NULL && sw != NULL && row < c->n * tq; row++) {
        const float *x = c->query + row * c->c;
        int64_t i = row % tq;
        for (int64_t b = 0; b < c->k_h; b++) {
            sh[b] = 0.0;
            dh[b] = axis_dot(c, v, 1, x, i / c->q_w, b, &sh[b]);
        }
        for (int64_t b = 0; b < c->k_w; b++) {
            sw[b] = 0.0;
            dw[b] = axis_dot(c, v, 0, x, i % c->q_w, b, &sw[b]);
        }
        for (int64_t j = 0; j < tk; j++) {
            out[row * tk + j] = dh[j / c->k_w] + dw[j % c->k_w];
            tol[row * tk + j] = 2.0 * PECERT_U32 * (sh[j / c->k_w] + sw[j % c->k_w]);
        }
    }
    free(dh);
    free(sh);
    free(dw);
    free(sw);
}

/* The element's place: head, query (row, col) and key (row, col). */
static void finish_case(pecert_check_result *r, const pecert_case_worst *w, const relpos2d_call *c,
                        const char *where)
{
    int64_t e = w->index < 0 ? 0 : w->index;
    int64_t tq = tokens_q(c), tk = tokens_k(c);
    int64_t head = e / (tq * tk), i = e / tk % tq, j = e % tk;
    char elem[160];
    snprintf(elem, sizeof(elem), "[head %lld, query (%lld, %lld) of %lldx%lld, key (%lld, %lld) of %lldx%lld]",
             (long long)head, (long long)(i / c->q_w), (long long)(i % c->q_w), (long long)c->q_h,
             (long long)c->q_w, (long long)(j / c->k_w), (long long)(j % c->k_w), (long long)c->k_h,
             (long long)c->k_w);
    pecert_case_finish(r, w, where, elem);
}

static double *model_buffers(pecert_check_result *r, const relpos2d_call *c, const char *where)
{
    double *b = malloc((size_t)(2 * c->n * tokens_q(c) * tokens_k(c)) * sizeof(double));
    if (b == NULL) {
        pecert_case_fail(r, where, "out of memory");
    }
    return b;
}

/* ---- the replays ------------------------------------------------------------------------- */

static int reading_explains(const relpos2d_call *c, const relpos2d_reading *v, const pecert_out_buf *got,
                            double *want, double *tol)
{
    model(c, v, want, tol);
    return pecert_out_within(got, want, tol);
}

static void explain(pecert_check_result *r, const relpos2d_call *c, const pecert_out_buf *got, double *want,
                    double *tol)
{
    static const struct {
        relpos2d_reading v;
        const char *symptom;
    } replays[] = {
        {{.resize = RESIZE_ALIGN_CORNERS}, PECERT_SYMPTOM_RELPOS2D_ALIGN_CORNERS},
        {{.resize = RESIZE_ASYMMETRIC}, PECERT_SYMPTOM_RELPOS2D_ASYMMETRIC},
    };
    /* A case both misreadings reproduce (a table whose resizes coincide)
     * names neither: another case tells them apart. */
    const char *named = NULL;
    int explaining = 0;
    for (size_t k = 0; k < sizeof(replays) / sizeof(replays[0]); k++) {
        if (reading_explains(c, &replays[k].v, got, want, tol)) {
            named = replays[k].symptom;
            explaining++;
        }
    }
    if (explaining == 1) {
        pecert_check_symptom(r, "%s", named);
    }
}

/* got against want (the official outputs or the oracle's), under the
 * model's bounds; a failure replayed. */
static void compare(pecert_check_result *r, const relpos2d_call *c, const pecert_out_buf *got,
                    double (*want_at)(const void *, int64_t), const void *want, double *buf, const char *where)
{
    int64_t n = got->n;
    static const relpos2d_reading right = {0};
    model(c, &right, buf, buf + n);
    pecert_case_worst w;
    pecert_case_worst_init(&w);
    for (int64_t i = 0; i < n; i++) {
        pecert_case_worst_add(&w, i, pecert_out_get(got, i), want_at(want, i), buf[n + i]);
    }
    finish_case(r, &w, c, where);
    if (w.n_bad > 0) {
        explain(r, c, got, buf, buf + n);
    }
}

static double vector_at(const void *t, int64_t i)
{
    return pecert_vtensor_get(t, i);
}

static double oracle_at(const void *b, int64_t i)
{
    return pecert_out_get(b, i);
}

/* ---- relpos2d.golden ----------------------------------------------------------------------------- */

static void golden_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    relpos2d_call c;
    if (!call_of(t, &c)) {
        pecert_case_fail(r, where, "out of memory");
    } else {
        pecert_out_buf got;
        double *buf = run_on(env, &env->plugin, r, &c, &got, where) ? model_buffers(r, &c, where) : NULL;
        if (buf != NULL) {
            compare(r, &c, &got, vector_at, pecert_vtest_output(t, "bias"), buf, where);
            free(buf);
            pecert_out_free(&got);
        }
    }
    call_free(&c);
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "relpos2d.bias", golden_case);
}

const pecert_check pecert_check_relpos2d_golden = {
    PECERT_ID_RELPOS2D_GOLDEN,
    "the decomposed relative-position bias (SAM, SAM-HQ, ViTDet, SegGPT, segment-anything) equals the official "
    "outputs",
    PECERT_NEED_RELPOS2D, run_golden};

/* ---- relpos2d.shapes ------------------------------------------------------------------------------ */

/* q_h, q_w, k_h, k_w, n, C, L_h, L_w, and what the case stands for. */
static const struct {
    int64_t sizes[8];
    const char *what;
} shapes[] = {
    {{14, 14, 14, 14, 1, 64, 27, 27}, "SAM ViT-B window, 27-row tables"},
    {{16, 16, 16, 16, 1, 32, 127, 127}, "SAM's 127-row global tables on a 256-pixel image (resized down to 31)"},
    {{10, 10, 10, 10, 1, 16, 9, 9}, "a 9-row table grown to 19 rows"},
    {{8, 8, 4, 4, 2, 16, 15, 15}, "MViTv2's pooled keys: 8x8 queries, 4x4 keys"},
    {{4, 4, 8, 8, 1, 16, 15, 15}, "4x4 queries on 8x8 keys"},
    {{6, 10, 4, 15, 1, 8, 11, 29}, "a 6x10 grid on 4x15 keys (ratios 1.5)"},
    {{1, 1, 1, 1, 3, 8, 1, 1}, "one token"},
};

void pecert_relpos2d_against_oracle(const pecert_check_env *env, pecert_check_result *r, const int64_t sizes[8],
                                    uint64_t seed, const char *where)
{
    relpos2d_call c;
    pecert_out_buf want, got;
    if (!call_seeded(&c, sizes, seed)) {
        pecert_case_fail(r, where, "out of memory");
    } else if (run_on(env, &env->oracle, r, &c, &want, where)) {
        double *buf = model_buffers(r, &c, where);
        if (buf != NULL && run_on(env, &env->plugin, r, &c, &got, where)) {
            compare(r, &c, &got, oracle_at, &want, buf, where);
            pecert_out_free(&got);
        }
        free(buf);
        pecert_out_free(&want);
    }
    call_free(&c);
}

static void run_shapes(const pecert_check_env *env, pecert_check_result *r)
{
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        char where[PECERT_RESULT_LINE_MAX];
        snprintf(where, sizeof(where), "relpos2d %s", shapes[k].what);
        pecert_case_slot_set(env->case_slot, "%s", where);
        pecert_relpos2d_against_oracle(env, r, shapes[k].sizes, 0x52e1b05ull + k, where);
    }
    pecert_check_conclude(r, "shapes");
}

const pecert_check pecert_check_relpos2d_shapes = {
    PECERT_ID_RELPOS2D_SHAPES,
    "the decomposed relative-position bias equals ref at the released models' shapes: SAM's windows, a resized "
    "table, pooled keys, non-square grids",
    PECERT_NEED_RELPOS2D, run_shapes};
