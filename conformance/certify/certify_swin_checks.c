/*
 * certify_swin_checks.c - certify.swin.reference: the relative_position_index
 * of the checkpoint's window (certify_swin.c), which every attention layer
 * of a Swin-family model builds, against ref's, exactly (an index is an
 * integer: any difference reads another row of the bias table).
 */
#include "certify_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "isolate.h"

static pecert_status call_index(const pecert_subject *s, pecert_swin_index_args *a, pecert_out_buf *out)
{
    a->out = &out->view;
    return s->desc->swin_index(s->instance, a);
}

static void swin_case(const pecert_check_env *env, pecert_check_result *r, pecert_swin_index_args *a, double *vals)
{
    char where[96];
    int64_t n = (int64_t)a->window_h * a->window_w;
    int64_t shape[2] = {n, n};
    pecert_out_buf want;
    pecert_out_buf got;
    snprintf(where, sizeof(where), "swin index of the checkpoint's %d x %d window", (int)a->window_h,
             (int)a->window_w);
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    if (!pecert_out_open(&want, env, r, PECERT_DTYPE_I64, 2, shape, where)) {
        return;
    }
    if (pecert_out_init(&got, env, PECERT_DTYPE_I64, 2, shape) == 0) {
        if (pecert_out_status(r, &env->oracle, call_index(&env->oracle, a, &want), &want, where, "swin_index")) {
            pecert_vtensor w = pecert_certify_oracle_tensor(&want, vals, 2, shape);
            if (pecert_out_status(r, &env->plugin, call_index(&env->plugin, a, &got), &got, where, "swin_index")) {
                int64_t failed = r->n_failed;
                int64_t at = 0;
                pecert_compare_exact(r, &got, &w, where);
                if (r->n_failed > failed && pecert_swin_bijection_error(&got, a->window_h, a->window_w, &at) != NULL) {
                    pecert_check_symptom(r, "%s", PECERT_SYMPTOM_SWIN_ROWS);
                }
            }
        }
        pecert_out_free(&got);
    }
    pecert_out_free(&want);
}

static void run_swin_reference(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_model *m = env->certify_model;
    int64_t n = (int64_t)m->swin_window * m->swin_window;
    double *vals = malloc((size_t)(n * n) * sizeof(double));
    if (vals == NULL) {
        pecert_case_fail(r, "swin", "out of memory");
    } else {
        pecert_swin_index_args a;
        memset(&a, 0, sizeof(a));
        a.struct_size = sizeof(a);
        a.window_h = m->swin_window;
        a.window_w = m->swin_window;
        swin_case(env, r, &a, vals);
    }
    free(vals);
    pecert_check_conclude(r, "index cases");
}

const pecert_check pecert_check_certify_swin_reference = {
    PECERT_ID_CERTIFY_SWIN_REFERENCE,
    "the relative_position_index of the checkpoint's window equals ref's, every entry",
    PECERT_NEED_SWIN_INDEX, run_swin_reference};
