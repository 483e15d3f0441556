/*
 * sine2d_checks.c - DETR's 2-D sine embedding from a pixel mask
 * (transformers' DetrSinePositionEmbedding and its copies): the golden
 * vectors under the sinusoidal error model, and the property the pixel
 * mask exists for:
 *   padding   an image padded at the bottom and the right (DETR's batch
 *             collation) keeps, on its own pixels, the embedding of the
 *             unpadded image: each line is normalised by its own valid
 *             extent, never by the padded map's.
 *
 * A failed golden vector is replayed on this file's double model with one
 * step misread (the mask ignored; the other offset, 0 or Deformable DETR's
 * -0.5; sin and cos in halves; the columns' channels first): the misreading
 * that reproduces the plugin's output is the symptom diagnose.c names.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"
#include "isolate.h"

typedef pecert_sine2d_call sine2d_call;

/* How the model reads the call (all zero: plugin.h's sine2d). */
typedef struct sine2d_reading {
    int mask_ignored;
    int offset_swapped;
    int halves;
    int axes_swapped;
} sine2d_reading;

static int call_of(const pecert_vtest *t, sine2d_call *c)
{
    const pecert_vtensor *m = pecert_vtest_input(t, "mask");
    c->h = pecert_vtest_int(t, "h", 1);
    c->w = pecert_vtest_int(t, "w", 1);
    c->f = pecert_vtest_int(t, "num_pos_feats", 2);
    c->normalize = (int)pecert_vtest_int(t, "normalize", 1);
    c->temperature_y = pecert_vtest_number(t, "temperature_y", 10000.0);
    c->temperature_x = pecert_vtest_number(t, "temperature_x", 10000.0);
    c->scale = pecert_vtest_number(t, "scale", 2.0 * M_PI);
    c->offset = pecert_vtest_number(t, "offset", 0.0);
    c->eps = pecert_vtest_number(t, "eps", 1e-6);
    c->mask = malloc((size_t)(c->h * c->w) * sizeof(int64_t));
    for (int64_t i = 0; c->mask != NULL && i < c->h * c->w; i++) {
        c->mask[i] = (int64_t)pecert_vtensor_get(m, i);
    }
    return c->mask != NULL;
}

/* Runs c on subject s into a fresh buffer; 0 (recorded in r) if it did
 * not. In the golden check's strided pass the mask is strided too. */
static int run_on(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r, const sine2d_call *c,
                  pecert_out_buf *out, const char *where)
{
    int64_t shape[2] = {c->h * c->w, 2 * c->f};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_F32, 2, shape, where)) {
        return 0;
    }
    int64_t m = env->strided_outputs ? 2 : 1;
    int64_t *mask = calloc((size_t)(m * c->h * c->w + 1), sizeof(int64_t));
    if (mask == NULL) {
        pecert_out_free(out);
        pecert_case_fail(r, where, "out of memory");
        return 0;
    }
    for (int64_t i = 0; i < c->h * c->w; i++) {
        mask[m * i] = c->mask[i];
    }
    pecert_tensor tm = pecert_tensor_2d(mask, PECERT_DTYPE_I64, c->h, c->w);
    tm.strides[0] = m * c->w;
    tm.strides[1] = m;
    pecert_sine2d_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.num_pos_feats = (int32_t)c->f;
    a.normalize = c->normalize;
    a.temperature_y = c->temperature_y;
    a.temperature_x = c->temperature_x;
    a.scale = c->scale;
    a.offset = c->offset;
    a.eps = c->eps;
    a.mask = &tm;
    a.out = &out->view;
    pecert_status st = s->desc->sine2d(s->instance, &a);
    free(mask);
    return pecert_out_kept(r, s, st, out, where, "sine2d");
}

/* ---- the model and its bound ---------------------------------------------------------- */

static double coordinate(const sine2d_call *c, const sine2d_reading *v, int64_t count, int64_t total)
{
    if (!c->normalize) {
        return (double)count;
    }
    double offset = v->offset_swapped ? (c->offset == 0.0 ? -0.5 : 0.0) : c->offset;
    return ((double)count + offset) / ((double)total + c->eps) * c->scale;
}

/* An axis' F channels at coordinate v from channel c0 of out (and their
 * bounds into tol): channel i of a pair shares d = T^(2 floor(i/2) / F).
 * The bound is the sinusoidal families' for the angle v / d and frequency
 * 1 / d (family_tol.h), plus 4 u |angle| for the normalisation's four
 * float32 roundings (the two sums, the quotient, the product by scale) in
 * the engine and in the official float32 code. */
static void axis(const sine2d_call *c, const sine2d_reading *v, double coord, const double *dim_t, double *out,
                 double *tol, int64_t c0)
{
    for (int64_t i = 0; i < c->f; i++) {
        double d = dim_t[i];
        double angle = coord / d;
        int64_t at = c0 + (v->halves ? (i % 2 == 0 ? i / 2 : c->f / 2 + i / 2) : i);
        if (out != NULL) {
            out[at] = i % 2 == 0 ? sin(angle) : cos(angle);
        }
        tol[at] = pecert_tol_sinusoidal(fabs(angle), 1.0 / d) +
                  (c->normalize ? 4.0 * PECERT_U32 * fabs(angle) : 0.0);
    }
}

/* Every output of c as reading v computes it, with its bound, into out and
 * tol ([h * w, 2F] doubles each); out NULL: the bounds alone. */
static void model(const sine2d_call *c, const sine2d_reading *v, double *out, double *tol)
{
    int64_t h = c->h, w = c->w, f = c->f;
    int64_t *y = malloc((size_t)(h * w) * sizeof(int64_t));
    int64_t *x = malloc((size_t)(h * w) * sizeof(int64_t));
    double *dim_t = malloc(2 * (size_t)f * sizeof(double)); /* each axis' channels, once per call */
    if (y == NULL || x == NULL || dim_t == NULL) {
        for (int64_t i = 0; i < h * w * 2 * f; i++) {
            if (out != NULL) {
                out[i] = NAN;
            }
            tol[i] = 0.0;
        }
        free(y);
        free(x);
        free(dim_t);
        return;
    }
    for (int64_t i = 0; i < f; i++) {
        dim_t[i] = pow(c->temperature_y, (double)(2 * (i / 2)) / (double)f);
        dim_t[f + i] = pow(c->temperature_x, (double)(2 * (i / 2)) / (double)f);
    }
    for (int64_t r = 0; r < h; r++) {
        int64_t along = 0;
        for (int64_t col = 0; col < w; col++) {
            int64_t m = v->mask_ignored ? 1 : c->mask[r * w + col];
            along += m;
            x[r * w + col] = along;
            y[r * w + col] = (r > 0 ? y[(r - 1) * w + col] : 0) + m;
        }
    }
    int64_t y_at = v->axes_swapped ? f : 0;
    for (int64_t p = 0; p < h * w; p++) {
        int64_t r = p / w, col = p % w;
        double *row = out != NULL ? out + p * 2 * f : NULL, *trow = tol + p * 2 * f;
        axis(c, v, coordinate(c, v, y[p], y[(h - 1) * w + col]), dim_t, row, trow, y_at);
        axis(c, v, coordinate(c, v, x[p], x[r * w + w - 1]), dim_t + f, row, trow, f - y_at);
    }
    free(y);
    free(x);
    free(dim_t);
}

/* The element's place: pixel (r, c) of the map, axis and channel. */
static void finish_case(pecert_check_result *r, const pecert_case_worst *w, const sine2d_call *c, const char *where)
{
    int64_t e = w->index < 0 ? 0 : w->index;
    int64_t p = e / (2 * c->f), ch = e % (2 * c->f);
    char elem[128];
    snprintf(elem, sizeof(elem), "[pixel (%lld, %lld) of %lldx%lld, %s channel %lld]", (long long)(p / c->w),
             (long long)(p % c->w), (long long)c->h, (long long)c->w, ch < c->f ? "y" : "x",
             (long long)(ch % c->f));
    pecert_case_finish(r, w, where, elem);
}

static double *model_buffers(pecert_check_result *r, const sine2d_call *c, const char *where)
{
    double *b = malloc((size_t)(2 * c->h * c->w * 2 * c->f) * sizeof(double));
    if (b == NULL) {
        pecert_case_fail(r, where, "out of memory");
    }
    return b;
}

/* ---- the replays ------------------------------------------------------------------------- */

static int reading_explains(const sine2d_call *c, const sine2d_reading *v, const pecert_out_buf *got, double *want,
                            double *tol)
{
    model(c, v, want, tol);
    return pecert_out_within(got, want, tol);
}

static void explain(pecert_check_result *r, const sine2d_call *c, const pecert_out_buf *got, double *want,
                    double *tol)
{
    static const struct {
        sine2d_reading v;
        const char *symptom;
    } replays[] = {
        {{.mask_ignored = 1}, PECERT_SYMPTOM_SINE2D_MASK_IGNORED},
        {{.offset_swapped = 1}, PECERT_SYMPTOM_SINE2D_OFFSET},
        {{.halves = 1}, PECERT_SYMPTOM_SINE2D_HALVES},
        {{.axes_swapped = 1}, PECERT_SYMPTOM_SINE2D_AXES_SWAPPED},
    };
    for (size_t k = 0; k < sizeof(replays) / sizeof(replays[0]); k++) {
        if (reading_explains(c, &replays[k].v, got, want, tol)) {
            pecert_check_symptom(r, "%s", replays[k].symptom);
            return;
        }
    }
}

/* ---- sine2d.golden ----------------------------------------------------------------------------- */

static void golden_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t, const char *where)
{
    sine2d_call c;
    if (!call_of(t, &c)) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    pecert_out_buf got;
    double *buf = run_on(env, &env->plugin, r, &c, &got, where) ? model_buffers(r, &c, where) : NULL;
    if (buf != NULL) {
        int64_t n = got.n;
        static const sine2d_reading right = {0};
        model(&c, &right, NULL, buf + n); /* the bounds; the official outputs are the reference */
        const pecert_vtensor *want = pecert_vtest_output(t, "embedding");
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
        pecert_out_free(&got);
    }
    free(c.mask);
}

void pecert_sine2d_against_oracle(const pecert_check_env *env, pecert_check_result *r, const pecert_sine2d_call *c,
                                  const char *where)
{
    pecert_out_buf want, got;
    double *buf = model_buffers(r, c, where);
    if (buf != NULL && run_on(env, &env->oracle, r, c, &want, where)) {
        if (run_on(env, &env->plugin, r, c, &got, where)) {
            int64_t n = got.n;
            static const sine2d_reading right = {0};
            model(c, &right, buf, buf + n);
            pecert_case_worst w;
            pecert_case_worst_init(&w);
            for (int64_t i = 0; i < n; i++) {
                pecert_case_worst_add(&w, i, pecert_out_get(&got, i), pecert_out_get(&want, i), buf[n + i]);
            }
            finish_case(r, &w, c, where);
            if (w.n_bad > 0) {
                explain(r, c, &got, buf, buf + n);
            }
            pecert_out_free(&got);
        }
        pecert_out_free(&want);
    }
    free(buf);
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "sine2d.embed", golden_case);
}

/* ---- sine2d.padding ------------------------------------------------------------------------------ */

/* The vector's configuration on an unpadded image of ih x iw pixels, and
 * the same image padded at the bottom and the right to the vector's h x w:
 * the image's pixels must get the same embedding in both runs (2 bounds:
 * both are the plugin's). */
static void padding_case(const pecert_check_env *env, pecert_check_result *r, const pecert_vtest *t,
                         const char *where)
{
    sine2d_call padded;
    if (!call_of(t, &padded)) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    int64_t ih = padded.h > 1 ? (2 * padded.h + 2) / 3 : 1, iw = padded.w > 1 ? (3 * padded.w + 3) / 4 : 1;
    if (ih == padded.h && iw == padded.w) {
        pecert_case_passed(r, where, "a 1 x 1 map has no padding to add");
        free(padded.mask);
        return;
    }
    sine2d_call image = padded;
    image.h = ih;
    image.w = iw;
    image.mask = malloc((size_t)(ih * iw) * sizeof(int64_t));
    for (int64_t i = 0; image.mask != NULL && i < ih * iw; i++) {
        image.mask[i] = 1;
    }
    for (int64_t i = 0; i < padded.h * padded.w; i++) {
        padded.mask[i] = i / padded.w < ih && i % padded.w < iw;
    }
    char at[PECERT_RESULT_LINE_MAX];
    snprintf(at, sizeof(at), "%s, a %lldx%lld image padded to %lldx%lld", where, (long long)ih, (long long)iw,
             (long long)padded.h, (long long)padded.w);
    pecert_out_buf alone, inside;
    double *buf = image.mask != NULL ? model_buffers(r, &image, at) : NULL;
    if (buf != NULL && run_on(env, &env->plugin, r, &image, &alone, at)) {
        if (run_on(env, &env->plugin, r, &padded, &inside, at)) {
            static const sine2d_reading right = {0};
            int64_t n = alone.n, f2 = 2 * image.f;
            model(&image, &right, buf, buf + n);
            pecert_case_worst w;
            pecert_case_worst_init(&w);
            for (int64_t i = 0; i < n; i++) {
                int64_t p = i / f2, q = (p / iw) * padded.w + p % iw;
                pecert_case_worst_add(&w, i, pecert_out_get(&inside, q * f2 + i % f2), pecert_out_get(&alone, i),
                                      2.0 * buf[n + i]);
            }
            finish_case(r, &w, &image, at);
            pecert_out_free(&inside);
        }
        pecert_out_free(&alone);
    } else if (image.mask == NULL) {
        pecert_case_fail(r, at, "out of memory");
    }
    free(buf);
    free(image.mask);
    free(padded.mask);
}

static void run_padding(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_configurations(env, r, "sine2d.embed", padding_case);
}

const pecert_check pecert_check_sine2d_golden = {
    PECERT_ID_SINE2D_GOLDEN, "DETR's 2-D sine embedding from a pixel mask matches the official vectors",
    PECERT_NEED_SINE2D, run_golden};
const pecert_check pecert_check_sine2d_padding = {
    PECERT_ID_SINE2D_PADDING, "padding an image at the bottom and right keeps its pixels' embedding",
    PECERT_NEED_SINE2D, run_padding};
