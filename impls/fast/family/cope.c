/*
 * cope.c - cope_logits, contextual position encoding (plugin.h,
 * pecert_cope_args): one head's CoPE positions and attention logits.
 *
 * Query rows are split over threads; a row is computed whole by one
 * thread, in float32, in four passes: the gate
 * logits q . gk_j (`omp simd` dot products over the head), the gates and
 * their reversed cumulative sum (one backward sweep, the clamp applied to
 * each position), the query's dot product with every integer position
 * embedding (q . e[t] for all t at once: pos_emb [d, npos] is read row by
 * row, npos-wide `omp simd` multiply-adds), then the blend and the logit
 * per key. When the gates read the attention keys themselves (the
 * checkpoint default), q . k_j is the gate logit and is not computed twice.
 * Strided q, k, gate_k and pos_emb are packed once per call (the mask is
 * read through its strides: one element per key). A row's arithmetic is
 * the same whatever the thread split.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../family.h"

#define MAX_TOKENS (INT64_C(1) << 20)
#define MAX_HEAD_DIM 4096
#define MAX_NPOS (INT64_C(1) << 20)

/* ---- argument checks -------------------------------------------------------- */

/* An input [rows, d]: rows in min_rows..MAX_TOKENS (no keys: no positions). */
static pecert_status check_input(const pecert__fast_call *call, const char *name, const pecert_tensor *t,
                                 int64_t min_rows)
{
    pecert_status status = pecert__fast_fam_check_view(call, name, t, 2, NULL, PECERT__FAM_F32, 0);
    if (status == PECERT_OK && (t->shape[0] < min_rows || t->shape[0] > MAX_TOKENS || t->shape[1] < 1 ||
                                t->shape[1] > MAX_HEAD_DIM)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "%s.shape=[%" PRId64 ", %" PRId64 "] must be [%" PRId64 "..%" PRId64 ", 1..%d]", name,
                                 t->shape[0], t->shape[1], min_rows, MAX_TOKENS, MAX_HEAD_DIM);
    }
    return status;
}

static float at(const pecert_tensor *t, int64_t i, int64_t j)
{
    return ((const float *)t->data)[i * t->strides[0] + j * t->strides[1]];
}

static pecert_status check_mask(const pecert__fast_call *call, const pecert_cope_args *a)
{
    int64_t shape[2] = {a->q->shape[0], a->k->shape[0]};
    pecert_status status = pecert__fast_fam_check_view(call, "mask", a->mask, 2, shape, PECERT__FAM_F32, 0);
    for (int64_t i = 0; status == PECERT_OK && i < shape[0]; i++) {
        for (int64_t j = 0; j < shape[1]; j++) {
            float m = at(a->mask, i, j);
            if (m != 0.0f && m != 1.0f) {
                return pecert__fast_fail(call, PECERT_E_INVAL, "mask[%" PRId64 ", %" PRId64 "]=%g must be 0 or 1", i,
                                         j, (double)m);
            }
        }
    }
    return status;
}

static pecert_status check_inputs(const pecert__fast_call *call, const pecert_cope_args *a)
{
    pecert_status status = check_input(call, "q", a->q, 0);
    status = status == PECERT_OK ? check_input(call, "k", a->k, 1) : status;
    status = status == PECERT_OK ? check_input(call, "gate_k", a->gate_k, 1) : status;
    if (status != PECERT_OK) {
        return status;
    }
    if (a->npos < 1 || a->npos > MAX_NPOS) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "npos=%" PRId64 " must be in 1..%" PRId64, a->npos, MAX_NPOS);
    }
    int64_t d = a->q->shape[1], n_k = a->k->shape[0];
    if (a->k->shape[1] != d || a->gate_k->shape[0] != n_k || a->gate_k->shape[1] != d) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "k.shape=[%" PRId64 ", %" PRId64 "] and gate_k.shape=[%" PRId64 ", %" PRId64
                                 "] must both be [n_k, q.shape[1] = %" PRId64 "]",
                                 a->k->shape[0], a->k->shape[1], a->gate_k->shape[0], a->gate_k->shape[1], d);
    }
    int64_t emb_shape[2] = {d, a->npos};
    status = pecert__fast_fam_check_view(call, "pos_emb", a->pos_emb, 2, emb_shape, PECERT__FAM_F32, 0);
    return status == PECERT_OK && a->mask != NULL ? check_mask(call, a) : status;
}

static pecert_status check_outputs(const pecert__fast_call *call, const pecert_cope_args *a)
{
    int64_t shape[2] = {a->q->shape[0], a->k->shape[0]};
    pecert_status status = pecert__fast_fam_check_view(call, "positions", a->positions, 2, shape, PECERT__FAM_F32, 1);
    status = status == PECERT_OK ? pecert__fast_fam_check_view(call, "logits", a->logits, 2, shape, PECERT__FAM_F32, 1)
                                 : status;
    const pecert_tensor *inputs[] = {a->q, a->k, a->gate_k, a->pos_emb, a->mask};
    static const char *const names[] = {"q", "k", "gate_k", "pos_emb", "mask"};
    for (size_t i = 0; status == PECERT_OK && i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        if (inputs[i] != NULL && (pecert__fast_views_overlap(inputs[i], a->positions) ||
                                  pecert__fast_views_overlap(inputs[i], a->logits))) {
            return pecert__fast_fail(call, PECERT_E_INVAL, "an output overlaps %s", names[i]);
        }
    }
    if (status == PECERT_OK && pecert__fast_views_overlap(a->positions, a->logits)) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "positions overlaps logits");
    }
    return status;
}

static pecert_status check_args(const pecert__fast_call *call, const pecert_cope_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);
    if (status == PECERT_OK && a->nodiv != 0 && a->nodiv != 1) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "nodiv=%" PRId32 " must be 0 or 1", a->nodiv);
    }
    status = status == PECERT_OK ? check_inputs(call, a) : status;
    return status == PECERT_OK ? check_outputs(call, a) : status;
}

/* ---- packed inputs ------------------------------------------------------------ */

/* A [rows, cols] input as packed row-major floats: the view itself when it
 * is packed, else a copy (owned, freed by pack_free). */
typedef struct packed {
    const float *data;
    float *owned;
} packed;

static int pack(const pecert_tensor *t, packed *p)
{
    int64_t rows = t->shape[0], cols = t->shape[1];
    p->owned = NULL;
    if (t->strides[1] == 1 && (t->strides[0] == cols || rows <= 1)) {
        p->data = t->data;
        return 1;
    }
    p->owned = malloc((size_t)(rows * cols > 0 ? rows * cols : 1) * sizeof(float));
    if (p->owned == NULL) {
        return 0;
    }
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = 0; j < cols; j++) {
            p->owned[i * cols + j] = at(t, i, j);
        }
    }
    p->data = p->owned;
    return 1;
}

/* One call, its inputs packed. */
typedef struct cope_plan {
    const pecert_cope_args *a;
    int64_t n_k, d, npos;
    float inv_sqrt_d;
    int gates_are_keys; /* gate_k is k: the gate logits are the attention dots */
    packed q, k, g, e;
    float *scratch;     /* per thread: s, p [n_k], f [npos], kq [n_k] */
    size_t row_floats;
    const pecert__fast_kernels *kernels;
} cope_plan;

static void plan_free(cope_plan *pl)
{
    free(pl->q.owned);
    free(pl->k.owned);
    free(pl->g.owned);
    free(pl->e.owned);
}

/* ---- one query row ------------------------------------------------------------- */

/* f[t] = q . e[t] for every t: e is [d, npos], read a row at a time. */
static void embedding_dots(const cope_plan *pl, const float *q, float *f)
{
    memset(f, 0, (size_t)pl->npos * sizeof(float));
    for (int64_t x = 0; x < pl->d; x++) {
        const float *row = pl->e.data + x * pl->npos;
        float qx = q[x];
#pragma omp simd
        for (int64_t t = 0; t < pl->npos; t++) {
            f[t] += qx * row[t];
        }
    }
}

static void store(const pecert_tensor *t, int64_t i, int64_t j, float v)
{
    ((float *)t->data)[i * t->strides[0] + j * t->strides[1]] = v;
}

/* The dot products q . rows[j] of every key row, float32, by the ISA's
 * dot_rows (the decode session's: 16 lanes of products summed in a fixed
 * tree, the same bits in every ISA; TOLERANCES.md's CoPE bound is any
 * order's). */
static void row_dots(const cope_plan *pl, const float *q, const float *rows, float *out)
{
    pl->kernels->dot_rows(q, 0, 1, rows, (size_t)pl->d, pl->n_k, (int32_t)pl->d, out, 0);
}

static void cope_row(const cope_plan *pl, int64_t i, float *s, float *p, float *f, float *kq)
{
    const pecert_cope_args *a = pl->a;
    const float *q = pl->q.data + i * pl->d;

    row_dots(pl, q, pl->g.data, s);
    if (!pl->gates_are_keys) {
        row_dots(pl, q, pl->k.data, kq);
    }
    float sum = 0.0f, top = (float)(pl->npos - 1);
    for (int64_t j = pl->n_k - 1; j >= 0; j--) {
        float m = a->mask != NULL ? at(a->mask, i, j) : 1.0f;
        sum += m / (1.0f + expf(-s[j] * pl->inv_sqrt_d));
        p[j] = sum < top || isnan(sum) ? sum : top;
    }
    embedding_dots(pl, q, f);
    for (int64_t j = 0; j < pl->n_k; j++) {
        store(a->positions, i, j, p[j]);
        if (a->mask != NULL && at(a->mask, i, j) == 0.0f) {
            store(a->logits, i, j, -INFINITY);
            continue;
        }
        if (isnan(p[j])) {
            store(a->logits, i, j, NAN); /* plugin.h: no embedding to read */
            continue;
        }
        float lo = floorf(p[j]);
        float w = p[j] - lo;
        float z = (1.0f - w) * f[(int64_t)lo] + w * f[(int64_t)ceilf(p[j])];
        float qk = pl->gates_are_keys ? s[j] : kq[j];
        store(a->logits, i, j, a->nodiv ? qk * pl->inv_sqrt_d + z : (qk + z) * pl->inv_sqrt_d);
    }
}

static void cope_share(void *context, int ith, int nth)
{
    const cope_plan *pl = context;
    float *s = pl->scratch + (size_t)ith * pl->row_floats;
    float *p = s + pl->n_k;
    float *f = p + pl->n_k;
    float *kq = f + pl->npos;
    int64_t first, end;
    pecert__fast_share(pl->a->q->shape[0], ith, nth, &first, &end);
    for (int64_t i = first; i < end; i++) {
        cope_row(pl, i, s, p, f, kq);
    }
}

static int same_view(const pecert_tensor *x, const pecert_tensor *y)
{
    return x->data == y->data && x->strides[0] == y->strides[0] && x->strides[1] == y->strides[1];
}

pecert_status pecert__fast_cope_logits(void *instance, const pecert_cope_args *args)
{
    pecert__fast_call call;
    pecert_status status = pecert__fast_fam_enter(&call, instance, "cope_logits", args, sizeof(*args));
    status = status == PECERT_OK ? check_args(&call, args) : status;
    if (status != PECERT_OK) {
        return status;
    }
    cope_plan pl;
    memset(&pl, 0, sizeof(pl));
    pl.a = args;
    pl.n_k = args->k->shape[0];
    pl.d = args->q->shape[1];
    pl.npos = args->npos;
    pl.inv_sqrt_d = (float)(1.0 / sqrt((double)pl.d));
    pl.gates_are_keys = same_view(args->k, args->gate_k);
    int64_t n_q = args->q->shape[0];
    /* The work is n_q * n_k dot products of d (and n_q * npos more), far
     * more than the outputs' bytes: weigh the threads by it. */
    size_t work = (size_t)n_q * (size_t)(pl.n_k + pl.npos) * (size_t)pl.d * sizeof(float);
    int threads = pecert__fast_threads(&call, work, n_q);
    pl.row_floats = ((size_t)(3 * pl.n_k + pl.npos) + 15) / 16 * 16;
    pl.kernels = call.instance->kernels;
    pl.scratch = pecert__fast_scratch(&call, (size_t)threads * pl.row_floats * sizeof(float));
    if (pl.scratch == NULL || !pack(args->q, &pl.q) || !pack(args->gate_k, &pl.g) ||
        (!pl.gates_are_keys && !pack(args->k, &pl.k)) || !pack(args->pos_emb, &pl.e)) {
        plan_free(&pl);
        return pecert__fast_fail(&call, PECERT_E_NOMEM, "out of memory");
    }
    if (n_q > 0 && pl.n_k > 0) {
        pecert__fast_run(threads, cope_share, &pl);
    }
    plan_free(&pl);
    return PECERT_OK;
}
