/*
 * swin_checks.c - Swin relative_position_index: exact against the golden
 * vectors of microsoft/Swin-Transformer WindowAttention, and a property
 * without an oracle: the index of a token pair depends only on its
 * relative offset (dh, dw) and maps the (2Wh - 1)(2Ww - 1) offsets one to
 * one onto the table rows [0, (2Wh - 1)(2Ww - 1)) - the property a wrong
 * multiplier on a non-square window breaks (nnFormer #88).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "isolate.h"

static int run_index(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r, int32_t wh,
                     int32_t ww, pecert_out_buf *out, const char *where)
{
    int64_t n = (int64_t)wh * ww;
    int64_t shape[2] = {n, n};
    if (!pecert_out_open(out, env, r, PECERT_DTYPE_I64, 2, shape, where)) {
        return 0;
    }
    pecert_swin_index_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.window_h = wh;
    a.window_w = ww;
    a.out = &out->view;
    pecert_status st = s->desc->swin_index(s->instance, &a);
    return pecert_out_kept(r, s, st, out, where, "swin_index");
}

static void golden_case(const pecert_check_env *env, pecert_check_result *r,
                        const pecert_vtest *t, const char *where)
{
    pecert_out_buf out;
    if (run_index(env, &env->plugin, r, (int32_t)pecert_vtest_int(t, "window_h", 0),
                  (int32_t)pecert_vtest_int(t, "window_w", 0), &out, where)) {
        pecert_compare_exact(r, &out, pecert_vtest_output(t, "index"), where);
        pecert_out_free(&out);
    }
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "swin.index", golden_case);
}

/* First broken rule of the bijection, or NULL. seen[k] holds the offset
 * code (dh, dw) first seen at row k. */
const char *pecert_swin_bijection_error(const pecert_out_buf *out, int32_t wh, int32_t ww, int64_t *at)
{
    int64_t rows = (int64_t)(2 * wh - 1) * (2 * ww - 1);
    int64_t n = (int64_t)wh * ww;
    int64_t *seen = malloc((size_t)rows * sizeof(*seen));
    const char *bad = NULL;
    if (seen == NULL) {
        return "out of memory";
    }
    for (int64_t k = 0; k < rows; k++) {
        seen[k] = -1;
    }
    for (int64_t e = 0; e < n * n && bad == NULL; e++) {
        int64_t a = e / n;
        int64_t b = e % n;
        int64_t code = (a / ww - b / ww + wh - 1) * (2 * ww - 1) + (a % ww - b % ww + ww - 1);
        double v = pecert_out_get(out, e);
        *at = e;
        if (!(v >= 0 && v < (double)rows)) {
            bad = "index outside [0, (2Wh-1)(2Ww-1))";
        } else if (seen[(int64_t)v] >= 0 && seen[(int64_t)v] != code) {
            bad = "two different relative offsets share a table row";
        } else {
            seen[(int64_t)v] = code;
        }
    }
    for (int64_t e = 0; e < n * n && bad == NULL; e++) {
        /* the same offset must give the same row everywhere */
        int64_t a = e / n;
        int64_t b = e % n;
        int64_t code = (a / ww - b / ww + wh - 1) * (2 * ww - 1) + (a % ww - b % ww + ww - 1);
        if (seen[(int64_t)pecert_out_get(out, e)] != code) {
            *at = e;
            bad = "one relative offset maps to two table rows";
        }
    }
    free(seen);
    return bad;
}

static void bijective_one(const pecert_check_env *env, pecert_check_result *r, int32_t wh,
                          int32_t ww)
{
    char where[96];
    snprintf(where, sizeof(where), "window %d x %d", (int)wh, (int)ww);
    pecert_case_slot_set(env->case_slot, "%s", where);
    pecert_out_buf out;
    if (!run_index(env, &env->plugin, r, wh, ww, &out, where)) {
        return;
    }
    int64_t at = 0;
    const char *bad = pecert_swin_bijection_error(&out, wh, ww, &at);
    if (bad != NULL) {
        int64_t n = (int64_t)wh * ww;
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_SWIN_ROWS);
        pecert_case_fail(r, where, "%s (index[%lld,%lld])", bad, (long long)(at / n), (long long)(at % n));
    } else {
        pecert_case_passed(r, where, "a bijection onto the relative offsets");
    }
    pecert_out_free(&out);
}

static void run_bijective(const pecert_check_env *env, pecert_check_result *r)
{
    static const int32_t windows[][2] = {{7, 7}, {2, 3}, {3, 2}, {4, 7}, {7, 4}, {1, 5},
                                         {5, 1}, {1, 1}, {3, 8}, {12, 12}, {6, 10}};
    for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
        bijective_one(env, r, windows[i][0], windows[i][1]);
    }
    pecert_check_conclude(r, "windows");
}

const pecert_check pecert_check_swin_index_golden = {
    PECERT_ID_SWIN_INDEX_GOLDEN, "Swin relative_position_index equals WindowAttention's (non-square too)",
    PECERT_NEED_SWIN_INDEX, run_golden};
const pecert_check pecert_check_swin_index_bijective = {
    PECERT_ID_SWIN_INDEX_BIJECTIVE, "Swin index depends on the relative offset only, one table row per offset",
    PECERT_NEED_SWIN_INDEX, run_bijective};
