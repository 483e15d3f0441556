/*
 * certify_sinusoidal_checks.c - certify.sinusoidal.reference: the
 * checkpoint's sinusoidal table (its variant, width and padding rule,
 * certify_sinusoidal.c) at the positions it reads, against ref, under the
 * per-channel bound of sinusoidal.golden (family_tol.h).
 */
#include "certify_checks.h"

#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "family_tol.h"
#include "isolate.h"

/* Positions certified at each end of the trained length. */
#define SINUSOIDAL_END_POSITIONS 256

/* The positions: 0 .. 255 and the last 256 before the trained length
 * (where float32 angles lose the most), then the padding token (-1) where
 * it reads the zero row. Returns the count written to pos. */
static int64_t sinusoidal_positions(const pecert_certify_model *m, int64_t *pos)
{
    int64_t n = 0;
    int64_t total = m->sinusoidal_positions;
    int64_t head = total < SINUSOIDAL_END_POSITIONS ? total : SINUSOIDAL_END_POSITIONS;
    int64_t tail_from = total - SINUSOIDAL_END_POSITIONS > head ? total - SINUSOIDAL_END_POSITIONS : head;
    for (int64_t p = 0; p < head; p++) {
        pos[n++] = p;
    }
    for (int64_t p = tail_from; p < total; p++) {
        pos[n++] = p;
    }
    if (m->sinusoidal_padding_idx >= 0 && m->sinusoidal_padding_row) {
        pos[n++] = -1;
    }
    return n;
}

static pecert_status call_table(const pecert_subject *s, pecert_sinusoidal_args *a, pecert_out_buf *out)
{
    a->out = &out->view;
    return s->desc->sinusoidal(s->instance, a);
}

static void sinusoidal_case(const pecert_check_env *env, pecert_check_result *r, pecert_sinusoidal_args *a,
                            double *vals)
{
    const char *where = "sinusoidal every position the checkpoint reads";
    int64_t shape[2] = {a->n, a->dim};
    pecert_out_buf want;
    pecert_out_buf got;
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    if (!pecert_out_open(&want, env, r, PECERT_DTYPE_F32, 2, shape, where)) {
        return;
    }
    if (pecert_out_init(&got, env, PECERT_DTYPE_F32, 2, shape) == 0) {
        if (pecert_out_status(r, &env->oracle, call_table(&env->oracle, a, &want), &want, where, "sinusoidal")) {
            pecert_vtensor w = pecert_certify_oracle_tensor(&want, vals, 2, shape);
            if (pecert_out_status(r, &env->plugin, call_table(&env->plugin, a, &got), &got, where, "sinusoidal")) {
                int64_t failed = r->n_failed;
                pecert_compare_bounded(r, &got, &w, pecert_sinusoidal_elem_bound, a, where);
                if (r->n_failed > failed) {
                    pecert_sinusoidal_suspect(env, r, a, &got);
                }
            }
        }
        pecert_out_free(&got);
    }
    pecert_out_free(&want);
}

static void run_sinusoidal_reference(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_model *m = env->certify_model;
    size_t max_n = 2 * SINUSOIDAL_END_POSITIONS + 1;
    int64_t *pos = malloc(max_n * sizeof(int64_t));
    double *vals = malloc(max_n * (size_t)m->sinusoidal_dim * sizeof(double));
    if (pos == NULL || vals == NULL) {
        pecert_case_fail(r, "sinusoidal", "out of memory");
    } else {
        pecert_sinusoidal_args a;
        memset(&a, 0, sizeof(a));
        a.struct_size = sizeof(a);
        a.variant = m->sinusoidal_variant;
        a.dim = m->sinusoidal_dim;
        a.padding_idx = m->sinusoidal_padding_idx;
        a.base = m->sinusoidal_base;
        a.positions = pos;
        a.n = sinusoidal_positions(m, pos);
        sinusoidal_case(env, r, &a, vals);
    }
    free(pos);
    free(vals);
    pecert_check_conclude(r, "table cases");
}

const pecert_check pecert_check_certify_sinusoidal_reference = {
    PECERT_ID_CERTIFY_SINUSOIDAL_REFERENCE,
    "the checkpoint's sinusoidal table (variant, width, padding rows) at the positions it reads equals ref",
    PECERT_NEED_SINUSOIDAL, run_sinusoidal_reference};
