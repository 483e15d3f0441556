/* results.c - the results model: construction, ownership, counting. */
#include "results.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[PECERT_VERDICT_COUNT] = {
    [PECERT_VERDICT_PASS] = "pass",
    [PECERT_VERDICT_UNSUPPORTED] = "unsupported",
    [PECERT_VERDICT_FAIL] = "fail",
    [PECERT_VERDICT_CRASH] = "crash",
    [PECERT_VERDICT_TIMEOUT] = "timeout",
};

const char *pecert_verdict_name(pecert_verdict verdict)
{
    if ((unsigned)verdict >= PECERT_VERDICT_COUNT) {
        return "invalid";
    }
    return verdict_names[verdict];
}

void pecert_check_result_init(pecert_check_result *r, const char *check_id)
{
    memset(r, 0, sizeof(*r));
    strncpy(r->check_id, check_id, sizeof(r->check_id) - 1);
    r->worst_vector.tc_id = -1;
    r->open_vector.tc_id = -1;
}

void pecert_check_result_enter_vector(pecert_check_result *r, const char *file, int64_t tc_id)
{
    snprintf(r->open_vector.file, sizeof(r->open_vector.file), "%s", file);
    r->open_vector.tc_id = tc_id;
}

void pecert_check_result_leave_vector(pecert_check_result *r)
{
    r->open_vector = (pecert_vector_id){"", -1};
}

/* The first failure record that says a case failed (not an oracle
 * refusal, not a note), or NULL. */
static const pecert_failure *first_case_failure(const pecert_check_result *r)
{
    for (size_t i = 0; i < r->n_failures; i++) {
        if (r->failures[i].kind == PECERT_FAILURE_VALUE || r->failures[i].kind == PECERT_FAILURE_STATUS) {
            return &r->failures[i];
        }
    }
    return NULL;
}

const char *pecert_verdict_unfounded(const pecert_check_result *r, char *why, size_t why_len)
{
    const pecert_failure *f = first_case_failure(r);
    int64_t answered = r->n_cases - r->n_unsupported - r->n_oracle_refused;
    if (r->verdict != PECERT_VERDICT_PASS && r->verdict != PECERT_VERDICT_UNSUPPORTED) {
        return NULL;
    }
    if (r->n_failed > 0) {
        snprintf(why, why_len, "failed %lld of %lld cases", (long long)r->n_failed, (long long)r->n_cases);
    } else if (f != NULL) {
        snprintf(why, why_len, "a failure record of kind %s (%.160s)", pecert_failure_kind_name(f->kind), f->line);
    } else if (r->verdict == PECERT_VERDICT_UNSUPPORTED) {
        return NULL;
    } else if (answered <= 0) {
        snprintf(why, why_len, "no case was answered (%lld cases, %lld declined, %lld refused by the oracle)",
                 (long long)r->n_cases, (long long)r->n_unsupported, (long long)r->n_oracle_refused);
    } else if (isnan(r->worst_ratio)) {
        snprintf(why, why_len, "worst error/bound ratio missing or NaN");
    } else if (r->worst_ratio > 1.0) {
        snprintf(why, why_len, "worst error/bound ratio %g, beyond 1", r->worst_ratio);
    } else {
        return NULL;
    }
    return why;
}

int pecert_run_certified_nothing(const pecert_run_results *run)
{
    if (run->info.shard_count > 1) {
        return 0;
    }
    for (size_t i = 0; i < run->n_checks; i++) {
        if (run->checks[i].verdict == PECERT_VERDICT_PASS) {
            return 0;
        }
    }
    return 1;
}

const pecert_check_result *pecert_run_results_find(const pecert_run_results *run, const char *id)
{
    for (size_t i = 0; i < run->n_checks; i++) {
        if (strcmp(run->checks[i].check_id, id) == 0) {
            return &run->checks[i];
        }
    }
    return NULL;
}

int pecert_precision_noted(const pecert_check_result *r)
{
    return r->verdict == PECERT_VERDICT_PASS && r->precision.graded && r->precision.ratio > PECERT_PRECISION_NOTE_RATIO;
}

void pecert_precision_line(char *out, size_t len, const pecert_precision *p)
{
    if (!p->graded) {
        snprintf(out, len, "%s", "");
        return;
    }
    snprintf(out, len, "%s %.3g u at %s, %.3gx the official float32 code's %.3g u", p->measure, p->error_u,
             p->where, p->ratio, p->official_u);
}

static const char *const failure_kind_names[PECERT_FAILURE_KIND_COUNT] = {
    [PECERT_FAILURE_VALUE] = "value",
    [PECERT_FAILURE_STATUS] = "status",
    [PECERT_FAILURE_ORACLE] = "oracle_refused",
    [PECERT_FAILURE_NOTE] = "note",
};

const char *pecert_failure_kind_name(pecert_failure_kind kind)
{
    if ((unsigned)kind >= PECERT_FAILURE_KIND_COUNT) {
        return "invalid";
    }
    return failure_kind_names[kind];
}

pecert_failure pecert_failure_blank(pecert_failure_kind kind)
{
    pecert_failure f;
    memset(&f, 0, sizeof(f));
    f.kind = kind;
    f.tc_id = -1;
    f.position = -1;
    f.want = f.got = f.error = f.bound = NAN;
    return f;
}

/* Room for element n of an array of n elements of size bytes at *items,
 * whose capacity is n rounded up to 2^k (as points): doubles it when n
 * reaches it. 0, or -1 (nomem, *items unchanged). */
static int grow_for(void **items, size_t n, size_t size)
{
    if ((n & (n - 1)) != 0) {
        return 0;
    }
    size_t cap = n == 0 ? 1 : n * 2;
    void *grown = realloc(*items, cap * size);
    if (grown == NULL) {
        return -1;
    }
    *items = grown;
    return 0;
}

int pecert_check_result_add_failure(pecert_check_result *r, const pecert_failure *f)
{
    size_t n = r->n_failures;
    if (n >= PECERT_RESULT_MAX_FAILURES) {
        r->n_failures_dropped++;
        return 0;
    }
    void *items = r->failures;
    if (grow_for(&items, n, sizeof(*r->failures)) != 0) {
        return -1;
    }
    r->failures = items;
    r->failures[n] = *f;
    /* A note says what the check makes of its cases, not which one. */
    if (f->kind != PECERT_FAILURE_NOTE && f->file[0] == '\0' && f->tc_id < 0) {
        snprintf(r->failures[n].file, sizeof(r->failures[n].file), "%s", r->open_vector.file);
        r->failures[n].tc_id = r->open_vector.tc_id;
    }
    r->n_failures = n + 1;
    return 0;
}

const char *pecert_case_outcome_name(pecert_case_outcome outcome)
{
    static const char *const names[PECERT_CASE_OUTCOME_COUNT] = {"within", "declined", "beyond_scope"};
    return outcome >= 0 && outcome < PECERT_CASE_OUTCOME_COUNT ? names[outcome] : "?";
}

int pecert_check_result_add_case(pecert_check_result *r, pecert_case_outcome outcome, double ratio,
                                 const char *line)
{
    size_t n = r->n_case_records;
    if (!r->keep_cases) {
        return 0;
    }
    if (n >= PECERT_RESULT_MAX_FAILURES) {
        r->n_case_records_dropped++;
        return 0;
    }
    void *items = r->cases;
    if (grow_for(&items, n, sizeof(*r->cases)) != 0) {
        return -1;
    }
    r->cases = items;
    r->cases[n].outcome = outcome;
    r->cases[n].ratio = ratio;
    snprintf(r->cases[n].line, sizeof(r->cases[n].line), "%s", line);
    r->n_case_records = n + 1;
    return 0;
}

int pecert_check_result_add_line(pecert_check_result *r, pecert_failure_kind kind, const char *line)
{
    pecert_failure f = pecert_failure_blank(kind);
    snprintf(f.line, sizeof(f.line), "%s", line);
    return pecert_check_result_add_failure(r, &f);
}

const char *pecert_check_result_first_line(const pecert_check_result *r)
{
    return r->n_failures > 0 ? r->failures[0].line : "?";
}

void pecert_check_result_release(pecert_check_result *r)
{
    free(r->points);
    r->points = NULL;
    r->n_points = 0;
    free(r->failures);
    r->failures = NULL;
    r->n_failures = 0;
    free(r->cases);
    r->cases = NULL;
    r->n_case_records = 0;
    pecert_heatmap_release(&r->heatmap);
}

const char *pecert_point_axis_name(pecert_point_axis axis)
{
    static const char *const names[PECERT_AXIS_COUNT] = {"position", "token"};
    return axis >= 0 && axis < PECERT_AXIS_COUNT ? names[axis] : "?";
}

int pecert_check_result_add_point(pecert_check_result *r, pecert_point_axis axis, int64_t position, double error,
                                  double bound)
{
    r->points_axis = axis;
    /* Grow geometrically; n_points is also the capacity rounded to 2^k. */
    size_t n = r->n_points;
    if ((n & (n - 1)) == 0) {
        size_t cap = n == 0 ? 16 : n * 2;
        pecert_error_point *grown = realloc(r->points, cap * sizeof(*grown));
        if (grown == NULL) {
            return -1;
        }
        r->points = grown;
    }
    r->points[n] = (pecert_error_point){position, error, bound};
    r->n_points = n + 1;
    return 0;
}

/* error/bound, with the conventions of the checks: 0/0 is 0, x/0 and
 * NaN are infinitely bad. */
static double point_ratio(double error, double bound)
{
    if (isnan(error) || isnan(bound)) {
        return INFINITY;
    }
    if (bound > 0) {
        return error / bound;
    }
    return error == 0 ? 0.0 : INFINITY;
}

int pecert_check_result_max_point(pecert_check_result *r, pecert_point_axis axis, int64_t position, double error,
                                  double bound)
{
    for (size_t i = 0; i < r->n_points; i++) {
        pecert_error_point *p = &r->points[i];
        if (p->position == position) {
            if (point_ratio(error, bound) > point_ratio(p->error, p->bound)) {
                *p = (pecert_error_point){position, error, bound};
            }
            return 0;
        }
    }
    return pecert_check_result_add_point(r, axis, position, error, bound);
}

int pecert_heatmap_alloc(pecert_heatmap *h, int32_t rows, int32_t cols)
{
    pecert_heatmap_release(h);
    if (rows <= 0 || cols <= 0 || (int64_t)rows * cols > PECERT_HEATMAP_MAX_CELLS) {
        return -1;
    }
    h->ratio = calloc((size_t)rows * (size_t)cols, sizeof(double));
    if (h->ratio == NULL) {
        return -1;
    }
    h->rows = rows;
    h->cols = cols;
    return 0;
}

void pecert_heatmap_release(pecert_heatmap *h)
{
    free(h->ratio);
    h->ratio = NULL;
    h->rows = 0;
    h->cols = 0;
}

double pecert_heatmap_max(const pecert_heatmap *h)
{
    double worst = 0.0;
    for (int64_t i = 0; i < (int64_t)h->rows * h->cols; i++) {
        double v = isnan(h->ratio[i]) ? INFINITY : h->ratio[i];
        worst = v > worst ? v : worst;
    }
    return worst;
}

void pecert_check_result_keep_heatmap(pecert_check_result *r, pecert_heatmap *h)
{
    if (h->rows == 0) {
        return;
    }
    if (r->heatmap.rows == 0 || pecert_heatmap_max(h) > pecert_heatmap_max(&r->heatmap)) {
        pecert_heatmap_release(&r->heatmap);
        r->heatmap = *h;
        h->ratio = NULL;
        h->rows = 0;
        h->cols = 0;
        return;
    }
    pecert_heatmap_release(h);
}

int pecert_run_results_append(pecert_run_results *run, pecert_check_result *r)
{
    if (run->n_checks == run->cap_checks) {
        size_t cap = run->cap_checks == 0 ? 16 : run->cap_checks * 2;
        pecert_check_result *grown = realloc(run->checks, cap * sizeof(*grown));
        if (grown == NULL) {
            return -1;
        }
        run->checks = grown;
        run->cap_checks = cap;
    }
    run->checks[run->n_checks++] = *r;
    r->points = NULL;
    r->n_points = 0;
    r->failures = NULL;
    r->n_failures = 0;
    r->cases = NULL;
    r->n_case_records = 0;
    r->heatmap.ratio = NULL;
    r->heatmap.rows = 0;
    r->heatmap.cols = 0;
    return 0;
}

void pecert_run_results_free(pecert_run_results *run)
{
    for (size_t i = 0; i < run->n_checks; i++) {
        pecert_check_result_release(&run->checks[i]);
    }
    free(run->checks);
    run->checks = NULL;
    run->n_checks = 0;
    run->cap_checks = 0;
    free(run->sources);
    run->sources = NULL;
    run->n_sources = 0;
}

void pecert_run_results_count(const pecert_run_results *run,
                              size_t counts[PECERT_VERDICT_COUNT])
{
    memset(counts, 0, sizeof(size_t) * PECERT_VERDICT_COUNT);
    for (size_t i = 0; i < run->n_checks; i++) {
        pecert_verdict v = run->checks[i].verdict;
        if ((unsigned)v < PECERT_VERDICT_COUNT) {
            counts[v]++;
        }
    }
}

int pecert_check_has_symptom(const pecert_check_result *r, const char *tag)
{
    for (int i = 0; i < r->n_symptoms; i++) {
        if (strcmp(r->symptoms[i], tag) == 0) {
            return 1;
        }
    }
    return 0;
}

void pecert_check_symptom(pecert_check_result *r, const char *fmt, ...)
{
    char tag[PECERT_SYMPTOM_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tag, sizeof(tag), fmt, ap);
    va_end(ap);
    if (r->n_symptoms < PECERT_RESULT_MAX_SYMPTOMS && !pecert_check_has_symptom(r, tag)) {
        snprintf(r->symptoms[r->n_symptoms++], PECERT_SYMPTOM_LEN, "%s", tag);
    }
}
