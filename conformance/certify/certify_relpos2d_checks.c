/*
 * certify_relpos2d_checks.c - certify.relpos2d.reference: the decomposed
 * relative positions of the checkpoint's attention layers
 * (certify_relpos2d.c) against ref's, under relpos2d.golden's bound, on
 * each grid its layers attend over (a window, the whole image's patch
 * grid), with tables of 2 side - 1 rows as trained and one head of the
 * checkpoint's width: what the model computes at its own image size.
 */
#include "certify_checks.h"

#include <stdio.h>

#include "family.h"
#include "isolate.h"

static void run_relpos2d_reference(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_model *m = env->certify_model;
    for (int k = 0; k < m->relpos2d_n_grids; k++) {
        int64_t h = m->relpos2d_grid[k][0], w = m->relpos2d_grid[k][1];
        const int64_t sizes[8] = {h, w, h, w, 1, m->relpos2d_head_dim, 2 * h - 1, 2 * w - 1};
        char where[128];
        snprintf(where, sizeof(where), "relative positions of %s attention over %lld x %lld patches",
                 m->relpos2d_grid_name[k], (long long)h, (long long)w);
        pecert_case_slot_set(env->case_slot, "certify %s", where);
        pecert_relpos2d_against_oracle(env, r, sizes, 0x5a3c0de + (uint64_t)k, where);
    }
    pecert_check_conclude(r, "attention grids");
}

const pecert_check pecert_check_certify_relpos2d_reference = {
    PECERT_ID_CERTIFY_RELPOS2D_REFERENCE,
    "the decomposed relative positions of the checkpoint's window and global attention equal ref's within their "
    "bound",
    PECERT_NEED_RELPOS2D, run_relpos2d_reference};
