/*
 * learned_checks.c - learned absolute embeddings: bit-exact rows against
 * the golden vectors of fairseq, RoBERTa and BERT, and the out-of-range
 * contract: a position whose row lies outside the table is
 * PECERT_E_INVAL, and the plugin never reads past the table. The table
 * sits between two PROT_NONE pages, so a read one row too far (or one
 * before it) is a SIGSEGV, which the runner reports as a crash of this
 * check naming the case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "family.h"
#include "isolate.h"

static pecert_status run_lookup(const pecert_subject *s, const pecert_vtest *t,
                                const pecert_tensor *table, const int64_t *positions, int64_t n,
                                pecert_tensor *out)
{
    pecert_learned_args a;
    memset(&a, 0, sizeof(a));
    a.struct_size = sizeof(a);
    a.convention = (int32_t)pecert_vtest_int(t, "convention", 0);
    a.padding_idx = (int32_t)pecert_vtest_int(t, "padding_idx", -1);
    a.table = table;
    a.positions = positions;
    a.n = n;
    a.out = out;
    return s->desc->learned_lookup(s->instance, &a);
}

/* ---- learned.golden ----------------------------------------------------- */

static void golden_case(const pecert_check_env *env, pecert_check_result *r,
                        const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *tab = pecert_vtest_input(t, "table");
    const pecert_vtensor *pos = pecert_vtest_input(t, "positions");
    const pecert_vtensor *want = pecert_vtest_output(t, "embedding");
    pecert_tensor table = pecert_tensor_2d((void *)(uintptr_t)tab->data, PECERT_DTYPE_F32,
                                           tab->shape[0], tab->shape[1]);
    pecert_out_buf out;
    if (!pecert_out_open(&out, env, r, PECERT_DTYPE_F32, 2, want->shape, where)) {
        return;
    }
    pecert_status st = run_lookup(&env->plugin, t, &table, pos->data, pos->num_elements, &out.view);
    if (pecert_out_status(r, &env->plugin, st, &out, where, "learned_lookup")) {
        pecert_compare_exact(r, &out, want, where);
    }
    pecert_out_free(&out);
}

static void run_golden(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_run_golden(env, r, "learned.lookup", golden_case);
}

/* ---- learned.out_of_range ----------------------------------------------- */

/* A table of rows x dim floats ending exactly at a PROT_NONE page, with
 * another PROT_NONE page before its first row. */
typedef struct fenced_table {
    unsigned char *map;
    size_t map_len;
    pecert_tensor view;
} fenced_table;

static int fence_table(fenced_table *f, const pecert_vtensor *src)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)src->num_elements * sizeof(float);
    size_t body = (bytes + page - 1) / page * page;
    memset(f, 0, sizeof(*f));
    f->map_len = body + 2 * page;
    void *map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        return -1;
    }
    f->map = map;
    if (mprotect(f->map, page, PROT_NONE) != 0 ||
        mprotect(f->map + page + body, page, PROT_NONE) != 0) {
        munmap(f->map, f->map_len);
        return -1;
    }
    unsigned char *data = f->map + page + body - bytes;
    memcpy(data, src->data, bytes);
    f->view = pecert_tensor_2d(data, PECERT_DTYPE_F32, src->shape[0], src->shape[1]);
    return 0;
}

/* Positions (for this convention) whose rows fall outside the table:
 * one past the end, far past it, and before row 0. */
static int bad_positions(const pecert_vtest *t, int64_t rows, int64_t *out)
{
    int offset = pecert_vtest_int(t, "convention", 0) == PECERT_LEARNED_PADDING_OFFSET;
    int64_t first = offset ? pecert_vtest_int(t, "padding_idx", 0) + 1 : 0;
    int n = 0;
    out[n++] = rows - first;                 /* row = rows        */
    out[n++] = rows - first + 1;             /* row = rows + 1    */
    out[n++] = rows - first + 4096;          /* a page further    */
    out[n++] = (int64_t)1 << 40;             /* far               */
    out[n++] = offset ? -2 - (first - 1) : -1; /* row = -1: before row 0 */
    if (offset) {
        out[n++] = -2; /* not padding (-1), not a position */
    }
    return n;
}

static void expect_inval(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_vtest *t, const pecert_tensor *table,
                         const int64_t *positions, int64_t n, const char *where)
{
    int64_t shape[2] = {n, table->shape[1]};
    pecert_out_buf out;
    if (!pecert_out_open(&out, env, r, PECERT_DTYPE_F32, 2, shape, where)) {
        return;
    }
    pecert_case_slot_set(env->case_slot, "%s (a read past the table would crash here)", where);
    pecert_status st = run_lookup(&env->plugin, t, table, positions, n, &out.view);
    /* The ABI reads a position outside the table as invalid input
     * (PECERT_E_INVAL); PECERT_E_UNSUPPORTED says a valid case is one the
     * plugin does not run. Refused with it, the row was not read: a wrong
     * status, said as such, not a missing bounds check. */
    if (st == PECERT_E_UNSUPPORTED) {
        pecert_case_fail(r, where, "refused with PECERT_E_UNSUPPORTED (%d), where the ABI asks PECERT_E_INVAL (%d): "
                         "a position outside the table is invalid input, not a case to decline",
                         (int)st, (int)PECERT_E_INVAL);
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_LEARNED_WRONG_STATUS);
    } else if (st != PECERT_E_INVAL) {
        pecert_case_fail(r, where, "learned_lookup returned %d, not PECERT_E_INVAL (%d)", (int)st,
                         (int)PECERT_E_INVAL);
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_LEARNED_NOT_REFUSED);
    } else if (!pecert_out_guards_ok(&out)) {
        pecert_case_fail(r, where, "learned_lookup wrote outside its output view");
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_LEARNED_NOT_REFUSED);
    } else {
        pecert_case_passed(r, where, "refused with PECERT_E_INVAL, as it must be");
    }
    pecert_out_free(&out);
}

static void range_case(const pecert_check_env *env, pecert_check_result *r,
                       const pecert_vtest *t, const char *where)
{
    const pecert_vtensor *tab = pecert_vtest_input(t, "table");
    fenced_table fence;
    if (fence_table(&fence, tab) != 0) {
        pecert_case_fail(r, where, "mmap/mprotect failed");
        return;
    }
    int64_t rows = tab->shape[0];
    int64_t bad[8];
    int n_bad = bad_positions(t, rows, bad);
    for (int i = 0; i < n_bad; i++) {
        /* Alone, and after valid positions (a plugin must check them all). */
        int64_t mixed[3] = {0, 1, bad[i]};
        char at[PECERT_RESULT_LINE_MAX];
        snprintf(at, sizeof(at), "%s position %lld", where, (long long)bad[i]);
        expect_inval(env, r, t, &fence.view, &bad[i], 1, at);
        expect_inval(env, r, t, &fence.view, mixed, 3, at);
    }
    /* The last row itself is valid and must be read exactly. */
    int offset = pecert_vtest_int(t, "convention", 0) == PECERT_LEARNED_PADDING_OFFSET;
    int64_t last = rows - 1 - (offset ? pecert_vtest_int(t, "padding_idx", 0) + 1 : 0);
    int64_t shape[2] = {1, tab->shape[1]};
    pecert_out_buf out;
    if (last >= 0 && pecert_out_init(&out, env, PECERT_DTYPE_F32, 2, shape) == 0) {
        char at[PECERT_RESULT_LINE_MAX];
        snprintf(at, sizeof(at), "%s last row (position %lld)", where, (long long)last);
        pecert_case_slot_set(env->case_slot, "%s", at);
        pecert_status st = run_lookup(&env->plugin, t, &fence.view, &last, 1, &out.view);
        if (pecert_out_status(r, &env->plugin, st, &out, at, "learned_lookup")) {
            pecert_vtensor want = *tab;
            want.name = "embedding";
            want.ndim = 2;
            want.shape[0] = 1;
            want.num_elements = tab->shape[1];
            want.data = (const float *)tab->data + (rows - 1) * tab->shape[1];
            pecert_compare_exact(r, &out, &want, at);
        }
        pecert_out_free(&out);
    }
    munmap(fence.map, fence.map_len);
}

static void run_range(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_for_each_test(env, r, "learned.lookup", range_case);
    pecert_check_conclude(r, "out-of-range cases");
}

const pecert_check pecert_check_learned_golden = {
    PECERT_ID_LEARNED_GOLDEN, "learned position rows equal fairseq / RoBERTa (padding_idx+1 offset) / BERT",
    PECERT_NEED_LEARNED, run_golden};
const pecert_check pecert_check_learned_out_of_range = {
    PECERT_ID_LEARNED_OUT_OF_RANGE,
    "a position past the table is PECERT_E_INVAL, never a read out of bounds (guard pages)",
    PECERT_NEED_LEARNED, run_range};
