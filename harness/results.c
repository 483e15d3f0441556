/* results.c - the results model: construction, ownership, counting. */
#include "results.h"

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
}

void pecert_check_result_release(pecert_check_result *r)
{
    free(r->points);
    r->points = NULL;
    r->n_points = 0;
}

int pecert_check_result_add_point(pecert_check_result *r, int64_t position,
                                  double error, double bound)
{
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
