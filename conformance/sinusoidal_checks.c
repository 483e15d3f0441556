/*
 * sinusoidal_checks.c - sinusoidal absolute embeddings against the golden
 * vectors of each variant's official code (transformers' DistilBERT and
 * Marian tables, tensor2tensor's get_timing_signal_1d, fairseq's
 * SinusoidalPositionalEmbedding). The bound is per channel (the RoPE angle
 * bound at that channel's frequency), tight enough that every variant fails
 * every other variant's vectors (tests/check_sinusoidal.c proves it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"

double pecert_sinusoidal_elem_bound(const void *args, int64_t i, double want)
{
    const pecert_sinusoidal_args *a = args;
    (void)want;
    return pecert_sinusoidal_bound(a->variant, a->dim, a->base, a->padding_idx, a->positions[i / a->dim], i % a->dim);
}

/* ---- what a wrong table matches ------------------------------------------ */

/* A porting bug's table: variant at the rows the right table reads
 * (at_rows: FAIRSEQ's padding_idx + 1 + p) or at p itself. */
typedef struct sin_suspect {
    int32_t variant;
    int at_rows;
    const char *symptom;
} sin_suspect;

/* The halves variants share a layout; CONCAT and INTERLEAVED share
 * frequencies, as do T2T and FAIRSEQ. */
static int halves(int32_t v)
{
    return v != PECERT_SINUSOIDAL_INTERLEAVED;
}

static int vaswani_frequencies(int32_t v)
{
    return v == PECERT_SINUSOIDAL_INTERLEAVED || v == PECERT_SINUSOIDAL_CONCAT;
}

static int suspects_of(int32_t variant, sin_suspect *out)
{
    int n = 0;
    if (variant == PECERT_SINUSOIDAL_FAIRSEQ) {
        out[n++] = (sin_suspect){PECERT_SINUSOIDAL_T2T, 0, PECERT_SYMPTOM_SINUSOIDAL_OFFSET};
    }
    for (int32_t v = PECERT_SINUSOIDAL_INTERLEAVED; v <= PECERT_SINUSOIDAL_T2T; v++) {
        int32_t right = variant == PECERT_SINUSOIDAL_FAIRSEQ ? PECERT_SINUSOIDAL_T2T : variant;
        if (v == right) {
            continue;
        }
        int layout = halves(v) != halves(right);
        int freqs = vaswani_frequencies(v) != vaswani_frequencies(right);
        if (layout != freqs) {
            out[n++] =
                (sin_suspect){v, 1, layout ? PECERT_SYMPTOM_SINUSOIDAL_LAYOUT : PECERT_SYMPTOM_SINUSOIDAL_FREQUENCIES};
        } else if (v == PECERT_SINUSOIDAL_INTERLEAVED) { /* both differ: the paper's table for tensor2tensor's */
            out[n++] = (sin_suspect){v, 1, PECERT_SYMPTOM_SINUSOIDAL_PAPER_TABLE};
        }
    }
    return n;
}

/* 1 when got equals the oracle's table of s at every non-padding token,
 * within that table's own bound. */
static int matches(const pecert_check_env *env, const pecert_sinusoidal_args *a, const pecert_out_buf *got,
                   const sin_suspect *s, int64_t *pos)
{
    int64_t shape[2] = {a->n, a->dim};
    pecert_out_buf hyp;
    if (pecert_out_init(&hyp, env, PECERT_DTYPE_F32, 2, shape) != 0) {
        return 0;
    }
    int fairseq = a->variant == PECERT_SINUSOIDAL_FAIRSEQ;
    for (int64_t t = 0; t < a->n; t++) {
        int64_t p = a->positions[t];
        pos[t] = p < 0 ? 0 : fairseq && s->at_rows ? a->padding_idx + 1 + p : p;
    }
    pecert_sinusoidal_args b = *a;
    b.variant = s->variant;
    b.padding_idx = -1;
    b.positions = pos;
    b.out = &hyp.view;
    int ok = env->oracle.desc->sinusoidal(env->oracle.instance, &b) == PECERT_OK;
    for (int64_t i = 0; ok && i < a->n * a->dim; i++) {
        if (a->positions[i / a->dim] >= 0) {
            double bound = pecert_sinusoidal_bound(s->variant, a->dim, a->base, -1, pos[i / a->dim], i % a->dim);
            ok = fabs(pecert_out_get(got, i) - pecert_out_get(&hyp, i)) <= bound;
        }
    }
    pecert_out_free(&hyp);
    return ok;
}

void pecert_sinusoidal_suspect(const pecert_check_env *env, pecert_check_result *r, const pecert_sinusoidal_args *a,
                               const pecert_out_buf *got)
{
    sin_suspect suspects[4];
    int n = suspects_of(a->variant, suspects);
    int64_t *pos = malloc((size_t)(a->n > 0 ? a->n : 1) * sizeof(int64_t));
    if (pos == NULL || env->oracle.desc == NULL || env->oracle.desc->sinusoidal == NULL) {
        free(pos);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (matches(env, a, got, &suspects[i], pos)) {
            pecert_check_symptom(r, "%s", suspects[i].symptom);
            break;
        }
    }
    free(pos);
}

/* ---- sinusoidal.golden ------------------------------------------------------ */

static void golden_case(const pecert_check_env *env, pecert_check_result *r,
                        const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *pos = pecert_vtest_input(t, "positions");
    const pecert_vtensor *want = pecert_vtest_output(t, "embedding");
    pecert_out_buf out;
    if (!pecert_out_open(&out, env, r, PECERT_DTYPE_F32, 2, want->shape, where)) {
        return;
    }
    pecert_sinusoidal_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.variant = (int32_t)pecert_vtest_int(t, "variant", 0);
    a.dim = (int32_t)pecert_vtest_int(t, "dim", 0);
    a.padding_idx = (int32_t)pecert_vtest_int(t, "padding_idx", -1);
    a.base = pecert_vtest_number(t, "base", 1e4);
    a.positions = pos->data;
    a.n = pos->num_elements;
    a.out = &out.view;
    pecert_status st = env->plugin.desc->sinusoidal(env->plugin.instance, &a);
    if (pecert_out_status(r, &env->plugin, st, &out, where, "sinusoidal")) {
        int64_t failed = r->n_failed;
        pecert_compare_bounded(r, &out, want, pecert_sinusoidal_elem_bound, &a, where);
        if (r->n_failed > failed) {
            pecert_sinusoidal_suspect(env, r, &a, &out);
        }
    }
    pecert_out_free(&out);
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "sinusoidal.embed", golden_case);
}

const pecert_check pecert_check_sinusoidal_golden = {
    PECERT_ID_SINUSOIDAL_GOLDEN,
    "sinusoidal tables equal the official code of each variant (interleaved, concat, t2t, fairseq)",
    PECERT_NEED_SINUSOIDAL, run_golden};
