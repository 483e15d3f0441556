/*
 * cope_checks.c - contextual position encoding (CoPE, facebookresearch/RAM):
 * the golden vectors under CoPE's float32 error model, and three
 * properties every CoPE has whatever its weights:
 *   saturated_gates  when every gate is 1 the positions are the ordinary
 *                    relative ones, the count of visible keys from j on
 *                    (i - j + 1 under a causal mask), and the logits use
 *                    the integer embeddings;
 *   gate_monotone    saturating one key's gate raises the positions of that
 *                    key and every earlier one by the gate's missing part,
 *                    and leaves the later keys' positions as they were;
 *   linear_embedding with embeddings affine in the position (e[t] = a + t b)
 *                    interpolation is exact, so each logit is a known affine
 *                    function of the plugin's own position.
 *
 * The error model (TOLERANCES.md, "CoPE") is computed here from the inputs,
 * in double, row by row: the dot products' rounding (head_dim terms each),
 * the sigmoid's, the gates' sum in any order, and a position error carried
 * into the embedding logit by the slope of the interpolation around it.
 *
 * A failed golden vector is replayed on this file's own double model with
 * one convention changed (the gate scale, the direction of the cumulative
 * sum, the mask on the gates, where the position logits are scaled, the
 * clamp taken on prefix sums): the change that reproduces the plugin's output is the
 * symptom diagnose.c names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "isolate.h"
#include "tolerance.h"

/* One call as the ABI takes it, with its inputs (row-major, packed). */
typedef struct cope_call {
    int64_t n_q, n_k, d, npos;
    int nodiv;
    int masked;     /* 0: the call passes mask NULL (the stored mask is ones) */
    int gates_keys; /* the gates read the keys: gate_k is passed as k's view  */
    const float *q, *k, *gate_k, *pos_emb, *mask;
} cope_call;

static cope_call call_of(const pecert_vtest *t)
{
    const pecert_vtensor *q = pecert_vtest_input(t, "q");
    const pecert_vtensor *k = pecert_vtest_input(t, "k");
    cope_call c = {
        .n_q = q->shape[0],
        .n_k = k->shape[0],
        .d = q->shape[1],
        .npos = pecert_vtest_int(t, "npos", 1),
        .nodiv = (int)pecert_vtest_int(t, "nodiv", 0),
        .masked = (int)pecert_vtest_int(t, "masked", 1),
        .gates_keys = pecert_vtest_value(t, "gates") != NULL && pecert_vtest_value(t, "gates")->i == 0,
        .q = q->data,
        .k = k->data,
        .gate_k = pecert_vtest_input(t, "gate_k")->data,
        .pos_emb = pecert_vtest_input(t, "pos_emb")->data,
        .mask = pecert_vtest_input(t, "mask")->data,
    };
    return c;
}

static double mask_at(const cope_call *c, int64_t i, int64_t j)
{
    return c->mask[i * c->n_k + j];
}

/* The plugin's two outputs. */
typedef struct cope_out {
    pecert_out_buf positions;
    pecert_out_buf logits;
} cope_out;

static void out_free(cope_out *o)
{
    pecert_out_free(&o->positions);
    pecert_out_free(&o->logits);
}

/* An input view of src [rows, cols]: src itself, packed, or (strided) a
 * copy with every stride wider than packed (channels 2 apart, rows one
 * more), so that a plugin reading a strided input as packed fails; *owned
 * is the copy to free (NULL: none, or out of memory when strided). */
static pecert_tensor input_view(const float *src, int64_t rows, int64_t cols, int strided, float **owned)
{
    *owned = NULL;
    if (!strided) {
        return pecert_tensor_2d((void *)(uintptr_t)src, PECERT_DTYPE_F32, rows, cols);
    }
    int64_t row_stride = 2 * cols + 1;
    *owned = calloc((size_t)(rows * row_stride + 1), sizeof(float));
    pecert_tensor t = pecert_tensor_2d(*owned, PECERT_DTYPE_F32, rows, cols);
    t.strides[0] = row_stride;
    t.strides[1] = 2;
    for (int64_t i = 0; *owned != NULL && i < rows; i++) {
        for (int64_t j = 0; j < cols; j++) {
            (*owned)[i * row_stride + 2 * j] = src[i * cols + j];
        }
    }
    return t;
}

/* The call's five inputs as the ABI takes them, strided in the golden
 * check's second pass (the outputs' layout says which). */
typedef struct cope_inputs {
    pecert_tensor q, k, g, e, m;
    float *owned[5];
} cope_inputs;

static void inputs_free(cope_inputs *in)
{
    for (int i = 0; i < 5; i++) {
        free(in->owned[i]);
    }
}

static int inputs_make(const cope_call *c, int strided, cope_inputs *in)
{
    in->q = input_view(c->q, c->n_q, c->d, strided, &in->owned[0]);
    in->k = input_view(c->k, c->n_k, c->d, strided, &in->owned[1]);
    in->g = input_view(c->gate_k, c->n_k, c->d, strided, &in->owned[2]);
    in->e = input_view(c->pos_emb, c->d, c->npos, strided, &in->owned[3]);
    in->m = input_view(c->mask, c->n_q, c->n_k, strided, &in->owned[4]);
    for (int i = 0; strided && i < 5; i++) {
        if (in->owned[i] == NULL) {
            return 0;
        }
    }
    return 1;
}

/* Runs c on the plugin into fresh buffers; 0 (recorded in r) if it did
 * not. When the gates read the keys, gate_k is k's own view (as a
 * checkpoint's engine passes it). */
static int run_cope(const pecert_check_env *env, pecert_check_result *r, const cope_call *c, cope_out *o,
                    const char *where)
{
    const pecert_subject *s = &env->plugin;
    int64_t shape[2] = {c->n_q, c->n_k};
    memset(o, 0, sizeof(*o));
    cope_inputs in;
    memset(&in, 0, sizeof(in));
    if (pecert_out_init(&o->positions, env, PECERT_DTYPE_F32, 2, shape) != 0 ||
        pecert_out_init(&o->logits, env, PECERT_DTYPE_F32, 2, shape) != 0 ||
        !inputs_make(c, env->strided_outputs, &in)) {
        inputs_free(&in);
        out_free(o);
        pecert_case_fail(r, where, "out of memory");
        return 0;
    }
    pecert_cope_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.nodiv = c->nodiv;
    a.npos = c->npos;
    a.q = &in.q;
    a.k = &in.k;
    a.gate_k = c->gates_keys ? &in.k : &in.g;
    a.pos_emb = &in.e;
    a.mask = c->masked ? &in.m : NULL;
    a.positions = &o->positions.view;
    a.logits = &o->logits.view;
    pecert_status st = s->desc->cope_logits(s->instance, &a);
    inputs_free(&in);
    if (!pecert_out_status(r, s, st, &o->positions, where, "cope_logits")) {
        out_free(o);
        return 0;
    }
    if (!pecert_out_guards_ok(&o->logits)) {
        pecert_case_fail(r, where, "cope_logits wrote outside its logits view");
        out_free(o);
        return 0;
    }
    return 1;
}

/* ---- the model and its error bound ------------------------------------------------ */

/* The conventions a replay changes (all zero: plugin.h's CoPE). */
typedef struct cope_variant {
    int gate_unscaled;  /* sigmoid(q . g), the paper's equation, no 1/sqrt(d) */
    int forward_cumsum; /* gates summed from the first key to j             */
    int gates_unmasked; /* the mask applied to the logits only              */
    int nodiv_flipped;  /* the position logits scaled the other way         */
    int prefix_clamped; /* C(P_last) - C(P_{j-1}), C the clamp at npos - 1  */
} cope_variant;

static double dot(const float *x, const float *y, int64_t n, int64_t y_stride, double *abs_sum)
{
    double s = 0.0, a = 0.0;
    for (int64_t c = 0; c < n; c++) {
        double t = (double)x[c] * (double)y[c * y_stride];
        s += t;
        a += fabs(t);
    }
    *abs_sum = a;
    return s;
}

/* q_i . e[t] and its sum of |terms|. */
static double embedding_dot(const cope_call *c, int64_t i, int64_t t, double *abs_sum)
{
    return dot(c->q + i * c->d, c->pos_emb + t, c->d, c->npos, abs_sum);
}

/* One row's model: positions, logits, and the bound of each. */
typedef struct cope_row {
    double *p, *logit;   /* [n_k] */
    double *p_tol, *logit_tol;
    double *gate;        /* [n_k]: the gates, masked               */
    double p_err;        /* the row's position error (any j)       */
} cope_row;

static int row_alloc(cope_row *row, int64_t n_k)
{
    size_t n = (size_t)(n_k > 0 ? n_k : 1);
    row->p = malloc(n * sizeof(double));
    row->logit = malloc(n * sizeof(double));
    row->p_tol = malloc(n * sizeof(double));
    row->logit_tol = malloc(n * sizeof(double));
    row->gate = malloc(n * sizeof(double));
    return row->p != NULL && row->logit != NULL && row->p_tol != NULL && row->logit_tol != NULL && row->gate != NULL;
}

static void row_free(cope_row *row)
{
    free(row->p);
    free(row->logit);
    free(row->p_tol);
    free(row->logit_tol);
    free(row->gate);
}

/*
 * The gates of row i, and the row's position error: a float32 engine's gate
 * logit is off by ((d + 2) S + 2 |s|) u / sqrt(d) (S = sum |q g| over the
 * head: the dot product in any order, the scale), which the sigmoid
 * shrinks by its slope g (1 - g) (taken twice, for where the slope is read);
 * the sigmoid's own evaluation adds 4 u g relative and 2 u absolute (the
 * tanh form 0.5 + 0.5 tanh(x / 2) is good to an absolute u / 2 only, fast
 * exponentials to a few ulps); and the gates' sums add 2 (n_k + 2) u times
 * the row's total: a reversed cumulative sum, or a total and a prefix
 * summed apart and subtracted, each in any order. The sum is the row's,
 * whatever j: the bound of any position of the row.
 */
static void row_gates(const cope_call *c, const cope_variant *v, int64_t i, cope_row *row)
{
    double scale = v->gate_unscaled ? 1.0 : 1.0 / sqrt((double)c->d);
    double total = 0.0, err = 0.0;
    for (int64_t j = 0; j < c->n_k; j++) {
        double m = c->masked && !v->gates_unmasked ? mask_at(c, i, j) : 1.0;
        double abs_sum;
        double s = dot(c->q + i * c->d, c->gate_k + j * c->d, c->d, 1, &abs_sum);
        double g = 1.0 / (1.0 + exp(-s * scale));
        double ds = ((double)(c->d + 2) * abs_sum + 2.0 * fabs(s)) * PECERT_U32 * scale;
        row->gate[j] = m * g;
        total += m * g;
        err += m * (2.0 * g * (1.0 - g) * ds + 4.0 * PECERT_U32 * g + 2.0 * PECERT_U32);
    }
    row->p_err = err + 2.0 * (double)(c->n_k + 2) * PECERT_U32 * total;
}

/* The interpolation's largest slope |f(t + 1) - f(t)| over the segments
 * within p_err of p (0 when npos is 1). */
static double slope_near(const cope_call *c, int64_t i, double p, double p_err)
{
    double lo = floor(p - p_err), hi = ceil(p + p_err);
    double slope = 0.0, unused;
    for (int64_t t = lo < 0 ? 0 : (int64_t)lo; t < (int64_t)hi && t + 1 < c->npos; t++) {
        slope = fmax(slope, fabs(embedding_dot(c, i, t + 1, &unused) - embedding_dot(c, i, t, &unused)));
    }
    return slope;
}

/*
 * Row i under variant v: each position (the gate sums, clamped), the
 * embedding logit z between the integer embeddings, and the logit, with
 * their bounds: a position p_err (row_gates) plus its float32 storage; z
 * off by p_err times the slope near p, (d + 2) u F for each of its two dot
 * products (F = sum |q e|) and 3 u (|f_lo| + |f_hi|) for the blend; the
 * logit by (d + 2) u A for q . k (A = sum |q k|), z's error, and 4 u of each
 * term's magnitude for the scale, the sum and the storage. Masked keys:
 * -inf, bound 0.
 */
static void model_row(const cope_call *c, const cope_variant *v, int64_t i, cope_row *row)
{
    double inv_sqrt_d = 1.0 / sqrt((double)c->d);
    int scaled_after = c->nodiv != v->nodiv_flipped;
    row_gates(c, v, i, row);
    double sum = 0.0, top = (double)(c->npos - 1);
    for (int64_t step = 0; step < c->n_k; step++) {
        int64_t j = v->forward_cumsum || v->prefix_clamped ? step : c->n_k - 1 - step;
        double before = sum;
        sum += row->gate[j];
        row->p[j] = v->prefix_clamped ? -fmin(before, top) : fmin(sum, top);
    }
    for (int64_t j = 0; v->prefix_clamped && j < c->n_k; j++) {
        row->p[j] += fmin(sum, top);
    }
    for (int64_t j = 0; j < c->n_k; j++) {
        double p = row->p[j];
        row->p_tol[j] = row->p_err + 2.0 * PECERT_U32 * p;
        if (c->masked && mask_at(c, i, j) == 0.0) {
            row->logit[j] = -INFINITY;
            row->logit_tol[j] = 0.0;
            continue;
        }
        double lo = floor(p), w = p - lo;
        double f_abs_lo, f_abs_hi, a_abs;
        double f_lo = embedding_dot(c, i, (int64_t)lo, &f_abs_lo);
        double f_hi = embedding_dot(c, i, (int64_t)ceil(p), &f_abs_hi);
        double z = (1.0 - w) * f_lo + w * f_hi;
        double dz = row->p_err * slope_near(c, i, p, row->p_err) +
                    (double)(c->d + 2) * PECERT_U32 * fmax(f_abs_lo, f_abs_hi) +
                    3.0 * PECERT_U32 * (fabs(f_lo) + fabs(f_hi));
        double qk = dot(c->q + i * c->d, c->k + j * c->d, c->d, 1, &a_abs);
        double dqk = (double)(c->d + 2) * PECERT_U32 * a_abs;
        if (scaled_after) {
            row->logit[j] = qk * inv_sqrt_d + z;
            row->logit_tol[j] = dqk * inv_sqrt_d + dz + 4.0 * PECERT_U32 * (fabs(qk) * inv_sqrt_d + fabs(z));
        } else {
            row->logit[j] = (qk + z) * inv_sqrt_d;
            row->logit_tol[j] = (dqk + dz) * inv_sqrt_d + 4.0 * PECERT_U32 * (fabs(qk) + fabs(z)) * inv_sqrt_d;
        }
    }
}

/* Compares got row by row under variant v's bounds with the golden
 * outputs when given (want_p and want_l), else with the model's own
 * values, into two worsts; 0 if out of memory. */
static int compare_rows(const cope_call *c, const cope_variant *v, const cope_out *got, const pecert_vtensor *want_p,
                        const pecert_vtensor *want_l, pecert_case_worst *wp, pecert_case_worst *wl)
{
    cope_row row;
    if (!row_alloc(&row, c->n_k)) {
        row_free(&row);
        return 0;
    }
    pecert_case_worst_init(wp);
    pecert_case_worst_init(wl);
    for (int64_t i = 0; i < c->n_q; i++) {
        model_row(c, v, i, &row);
        for (int64_t j = 0; j < c->n_k; j++) {
            int64_t e = i * c->n_k + j;
            double p = want_p != NULL ? pecert_vtensor_get(want_p, e) : row.p[j];
            double l = want_l != NULL ? pecert_vtensor_get(want_l, e) : row.logit[j];
            pecert_case_worst_add(wp, e, pecert_out_get(&got->positions, e), p, row.p_tol[j]);
            pecert_case_worst_add(wl, e, pecert_out_get(&got->logits, e), l, row.logit_tol[j]);
        }
    }
    row_free(&row);
    return 1;
}

/* got against variant v's model, values and bounds. */
static int compare_model(const cope_call *c, const cope_variant *v, const cope_out *got, pecert_case_worst *wp,
                         pecert_case_worst *wl)
{
    return compare_rows(c, v, got, NULL, NULL, wp, wl);
}

static void finish_case(pecert_check_result *r, const pecert_case_worst *w, const cope_call *c, const char *what,
                        const char *where)
{
    int64_t e = w->index < 0 ? 0 : w->index;
    int64_t n_k = c->n_k > 0 ? c->n_k : 1;
    char elem[96];
    snprintf(elem, sizeof(elem), "%s[query %lld, key %lld]", what, (long long)(e / n_k), (long long)(e % n_k));
    pecert_case_finish(r, w, where, elem);
}

/* ---- the replays ---------------------------------------------------------------------- */

/* 1 if variant v's model reproduces both outputs under its bounds. */
static int variant_explains(const cope_call *c, const cope_variant *v, const cope_out *got)
{
    pecert_case_worst wp, wl;
    return compare_model(c, v, got, &wp, &wl) && wp.n_bad == 0 && wl.n_bad == 0 && wl.n_checked > 0;
}

static void explain(pecert_check_result *r, const cope_call *c, const cope_out *got)
{
    static const struct {
        cope_variant v;
        const char *symptom;
    } replays[] = {
        {{.gate_unscaled = 1}, PECERT_SYMPTOM_COPE_GATE_UNSCALED},
        {{.forward_cumsum = 1}, PECERT_SYMPTOM_COPE_CUMSUM_FORWARD},
        {{.gates_unmasked = 1}, PECERT_SYMPTOM_COPE_GATES_UNMASKED},
        {{.nodiv_flipped = 1}, PECERT_SYMPTOM_COPE_POSITION_SCALE_FLIPPED},
        {{.prefix_clamped = 1}, PECERT_SYMPTOM_COPE_CLAMP_PREFIX},
    };
    for (size_t k = 0; k < sizeof(replays) / sizeof(replays[0]); k++) {
        if (replays[k].v.gates_unmasked && !c->masked) {
            continue;
        }
        if (variant_explains(c, &replays[k].v, got)) {
            pecert_check_symptom(r, "%s", replays[k].symptom);
            return;
        }
    }
}

/* ---- cope.golden ------------------------------------------------------------------------- */

static void golden_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    cope_call c = call_of(t);
    cope_out got;
    if (!run_cope(env, r, &c, &got, where)) {
        return;
    }
    /* The official outputs under the model's bounds. */
    static const cope_variant right = {0};
    pecert_case_worst wp, wl;
    if (!compare_rows(&c, &right, &got, pecert_vtest_output(t, "positions"), pecert_vtest_output(t, "logits"), &wp,
                      &wl)) {
        pecert_case_fail(r, where, "out of memory");
    } else {
        const pecert_case_worst *worse = wp.n_bad > 0 || wp.ratio > wl.ratio ? &wp : &wl;
        finish_case(r, worse, &c, worse == &wp ? "positions" : "logits", where);
        if (wp.n_bad > 0 || wl.n_bad > 0) {
            explain(r, &c, &got);
        }
    }
    out_free(&got);
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "cope.logits", golden_case);
}

/* ---- shared by the properties ------------------------------------------------------------- */

/* New gate keys for c; when the gates read the keys they are the keys. */
static void set_gate_keys(cope_call *c, const float *g)
{
    c->gate_k = g;
    if (c->gates_keys) {
        c->k = g;
    }
}

/* A private copy of n floats (NULL, recorded in r, if out of memory). */
static float *copy_floats(pecert_check_result *r, const float *x, int64_t n, const char *where)
{
    float *y = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    if (y == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return NULL;
    }
    memcpy(y, x, (size_t)n * sizeof(float));
    return y;
}

/* |x| + 8 for every element: every gate logit q . g / sqrt(d) is then at
 * least 64 sqrt(d) >= 64, and sigmoid(64) is 1 in float32 and in double
 * (e^-64 is 1.6e-28, far below half an ulp of 1). */
static void saturate(float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        x[i] = fabsf(x[i]) + 8.0f;
    }
}

/* ---- cope.saturated_gates --------------------------------------------------------------------- */

/* Every gate 1: position p_ij = min(npos - 1, the number of visible keys
 * from j to the last), an integer, so the plugin's must be exactly it (a
 * sum of ones is exact in float32 below 2^24); the logits then read the
 * integer embedding e[p], within the model's bound. */
static void saturated_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                           const char *where)
{
    cope_call c = call_of(t);
    float *q = copy_floats(r, c.q, c.n_q * c.d, where);
    float *g = q != NULL ? copy_floats(r, c.gate_k, c.n_k * c.d, where) : NULL;
    if (g == NULL) {
        free(q);
        return;
    }
    saturate(q, c.n_q * c.d);
    saturate(g, c.n_k * c.d);
    c.q = q;
    set_gate_keys(&c, g);
    cope_out got;
    if (run_cope(env, r, &c, &got, where)) {
        static const cope_variant right = {0};
        pecert_case_worst wp, wl;
        pecert_case_worst_init(&wp);
        for (int64_t i = 0; i < c.n_q; i++) {
            double visible = 0.0;
            for (int64_t j = c.n_k - 1; j >= 0; j--) {
                visible += c.masked ? mask_at(&c, i, j) : 1.0;
                int64_t e = i * c.n_k + j;
                pecert_case_worst_add(&wp, e, pecert_out_get(&got.positions, e), fmin(visible, (double)(c.npos - 1)),
                                      0.0);
            }
        }
        pecert_case_worst model_p; /* unused: the positions are held exact above */
        if (!compare_model(&c, &right, &got, &model_p, &wl)) {
            pecert_case_fail(r, where, "out of memory");
        } else {
            const pecert_case_worst *worse = wp.n_bad > 0 ? &wp : &wl;
            finish_case(r, worse, &c, worse == &wp ? "positions" : "logits", where);
            if (wp.n_bad > 0) {
                pecert_check_symptom(r, "cope_saturated_not_relative");
            }
        }
        out_free(&got);
    }
    free(q);
    free(g);
}

static void run_saturated(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "cope.logits", saturated_case);
}

/* ---- cope.gate_monotone ----------------------------------------------------------------------- */

/* Rows of the model under c and under the changed call, and the plugin's
 * position change compared with the gate's, into w. */
static void compare_change(const cope_call *c, const cope_call *changed, int64_t j0, const cope_out *before,
                           const cope_out *after, cope_row *row, cope_row *changed_row, pecert_case_worst *w)
{
    static const cope_variant right = {0};
    pecert_case_worst_init(w);
    for (int64_t i = 0; i < c->n_q; i++) {
        model_row(c, &right, i, row);
        model_row(changed, &right, i, changed_row);
        double top = 0.0;
        for (int64_t j = 0; j < c->n_k; j++) {
            top = fmax(top, fmax(row->p[j] + row->p_tol[j], changed_row->p[j] + changed_row->p_tol[j]));
        }
        if (top >= (double)(c->npos - 1)) {
            continue; /* the clamp could bite: the change is not the gate's */
        }
        double rise = changed_row->gate[j0] - row->gate[j0];
        for (int64_t j = 0; j < c->n_k; j++) {
            int64_t e = i * c->n_k + j;
            double moved = pecert_out_get(&after->positions, e) - pecert_out_get(&before->positions, e);
            pecert_case_worst_add(w, e, moved, j <= j0 ? rise : 0.0, row->p_tol[j] + changed_row->p_tol[j]);
        }
    }
}

/*
 * Key j0 (the middle one) gets a zero gate row: its gate becomes
 * sigmoid(0) = 1/2 for every query that sees it, whatever the query. A
 * position is the sum of the gates from its key on, so the positions of
 * keys j <= j0 move by exactly the gate's change (1/2 - g, g computed here
 * from the inputs) and those of keys j > j0 do not move. Rows whose
 * positions could reach npos - 1 are left out (the clamp). Both runs are
 * the plugin's; the change is held to the sum of both runs' bounds.
 */
static void monotone_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                          const char *where)
{
    cope_call c = call_of(t);
    if (c.n_k < 2) {
        pecert_case_passed(r, where, "fewer than two keys: no earlier and later keys");
        return;
    }
    int64_t j0 = c.n_k / 2;
    float *g = copy_floats(r, c.gate_k, c.n_k * c.d, where);
    if (g == NULL) {
        return;
    }
    memset(g + j0 * c.d, 0, (size_t)c.d * sizeof(float));
    cope_call changed = c;
    set_gate_keys(&changed, g);
    cope_row row, changed_row;
    int ok = row_alloc(&row, c.n_k) & row_alloc(&changed_row, c.n_k);
    cope_out before, after;
    if (!ok) {
        pecert_case_fail(r, where, "out of memory");
    } else if (run_cope(env, r, &c, &before, where)) {
        if (run_cope(env, r, &changed, &after, where)) {
            pecert_case_worst w;
            compare_change(&c, &changed, j0, &before, &after, &row, &changed_row, &w);
            if (w.n_checked == 0) {
                pecert_case_passed(r, where, "every row could reach npos - 1: nothing to compare");
            } else {
                finish_case(r, &w, &c, "position change", where);
                pecert_case_worst_symptom(r, &w, "cope_positions_not_monotone");
            }
            out_free(&after);
        }
        out_free(&before);
    }
    row_free(&row);
    row_free(&changed_row);
    free(g);
}

static void run_monotone(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "cope.logits", monotone_case);
}

/* ---- cope.linear_embedding ---------------------------------------------------------------------- */

/* x rounded to a multiple of 2^-bits. */
static double quantize(double x, int bits)
{
    return ldexp(nearbyint(ldexp(x, bits)), -bits);
}

/* pos_emb column t = a + t b, a and b the vector's first two columns
 * rounded to multiples of 2^-bits, bits chosen so that every a + t b
 * (|a|, |b| < 4, t < npos) is a float32 exactly: 4 (npos + 1) 2^bits
 * < 2^24. a [d] and b [d] are kept for the check. */
static void affine_table(const cope_call *c, float *e, double *a, double *b)
{
    int bits = 0;
    while (bits < 20 && 4.0 * (double)(c->npos + 1) * ldexp(1.0, bits + 1) < ldexp(1.0, 24)) {
        bits++;
    }
    for (int64_t x = 0; x < c->d; x++) {
        a[x] = quantize(fmax(-3.9, fmin(3.9, c->pos_emb[x * c->npos])), bits);
        b[x] = c->npos > 1 ? quantize(fmax(-3.9, fmin(3.9, c->pos_emb[x * c->npos + 1])), bits) : 0.0;
        for (int64_t s = 0; s < c->npos; s++) {
            e[x * c->npos + s] = (float)(a[x] + (double)s * b[x]);
        }
    }
}

/*
 * With e[t] = a + t b exactly, the blend (1 - w) q.e[floor p] + w q.e[ceil p]
 * is q.a + p q.b for any p, so each logit is (q.k + q.a + p q.b) / sqrt(d)
 * (nodiv: q.k / sqrt(d) + q.a + p q.b) at the plugin's own position p.
 * Bound: p's float32 storage (the plugin's p is the one it used, up to
 * that) times |q.b|; (d + 2) u (QA + (p + 1) QB) for each of the two
 * embedding dot products (QA = sum |q a|, QB = sum |q b|); 3 u of each
 * blended term; and the logit's own terms as in the model.
 */
static void linear_row(const cope_call *c, const double *a, const double *b, int64_t i, const cope_out *got,
                       pecert_case_worst *w)
{
    double inv = 1.0 / sqrt((double)c->d);
    double qa = 0.0, qb = 0.0, qa_abs = 0.0, qb_abs = 0.0;
    for (int64_t x = 0; x < c->d; x++) {
        double qx = c->q[i * c->d + x];
        qa += qx * a[x];
        qb += qx * b[x];
        qa_abs += fabs(qx * a[x]);
        qb_abs += fabs(qx * b[x]);
    }
    for (int64_t j = 0; j < c->n_k; j++) {
        int64_t e = i * c->n_k + j;
        if (c->masked && mask_at(c, i, j) == 0.0) {
            pecert_case_worst_add(w, e, pecert_out_get(&got->logits, e), -INFINITY, 0.0);
            continue;
        }
        double p = pecert_out_get(&got->positions, e);
        double a_abs;
        double qk = dot(c->q + i * c->d, c->k + j * c->d, c->d, 1, &a_abs);
        double z = qa + p * qb;
        double dz = 2.0 * PECERT_U32 * fabs(p * qb) +
                    2.0 * (double)(c->d + 2) * PECERT_U32 * (qa_abs + (fabs(p) + 1.0) * qb_abs) +
                    6.0 * PECERT_U32 * (fabs(qa) + (fabs(p) + 1.0) * fabs(qb));
        double dqk = (double)(c->d + 2) * PECERT_U32 * a_abs;
        double want = c->nodiv ? qk * inv + z : (qk + z) * inv;
        double tol = c->nodiv ? dqk * inv + dz + 4.0 * PECERT_U32 * (fabs(qk) * inv + fabs(z))
                              : (dqk + dz) * inv + 4.0 * PECERT_U32 * (fabs(qk) + fabs(z)) * inv;
        pecert_case_worst_add(w, e, pecert_out_get(&got->logits, e), want, tol);
    }
}

static void linear_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                        const char *where)
{
    cope_call c = call_of(t);
    float *e = copy_floats(r, c.pos_emb, c.d * c.npos, where);
    double *a = malloc((size_t)c.d * sizeof(double));
    double *b = malloc((size_t)c.d * sizeof(double));
    cope_out got;
    if (e == NULL || a == NULL || b == NULL) {
        if (e != NULL) {
            pecert_case_fail(r, where, "out of memory");
        }
    } else {
        affine_table(&c, e, a, b);
        c.pos_emb = e;
        if (run_cope(env, r, &c, &got, where)) {
            pecert_case_worst w;
            pecert_case_worst_init(&w);
            for (int64_t i = 0; i < c.n_q; i++) {
                linear_row(&c, a, b, i, &got, &w);
            }
            finish_case(r, &w, &c, "logits", where);
            pecert_case_worst_symptom(r, &w, "cope_interpolation_not_linear");
            out_free(&got);
        }
    }
    free(e);
    free(a);
    free(b);
}

static void run_linear(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "cope.logits", linear_case);
}

const pecert_check pecert_check_cope_golden = {
    PECERT_ID_COPE_GOLDEN, "CoPE's positions and attention logits equal facebookresearch/RAM's ContextPosSelfAttn",
    PECERT_NEED_COPE_LOGITS, run_golden};
const pecert_check pecert_check_cope_saturated_gates = {
    PECERT_ID_COPE_SATURATED_GATES, "gates all 1 give the ordinary relative positions (visible keys counted from j on)",
    PECERT_NEED_COPE_LOGITS, run_saturated};
const pecert_check pecert_check_cope_gate_monotone = {
    PECERT_ID_COPE_GATE_MONOTONE, "changing one key's gate moves the positions of that key and the earlier ones only",
    PECERT_NEED_COPE_LOGITS, run_monotone};
const pecert_check pecert_check_cope_linear_embedding = {
    PECERT_ID_COPE_LINEAR_EMBEDDING,
    "with position embeddings affine in the position each logit is affine in the plugin's position",
    PECERT_NEED_COPE_LOGITS, run_linear};
