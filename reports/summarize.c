/*
 * summarize.c - a merged report that fits on a page: every mutant run
 * keeps its verdicts, worst ratios, diagnosis and the first few failing
 * cases of each check, and the error samples of the checks its catalogue
 * entry names (the plots that show its bug); the rest of its evidence is
 * counted and left in the run's own results file (`make run`: 120 mutant
 * runs were 64 MB of a 76 MB results.json and most of a 13.6 MB page).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int named_by_entry(const pecert_mutant_expect *e, const char *check_id)
{
    for (int k = 0; k < e->n_must_fail; k++) {
        if (strcmp(e->must_fail[k], check_id) == 0) {
            return 1;
        }
    }
    return 0;
}

static void summarize_check(pecert_check_result *c, const pecert_mutant_expect *e, size_t keep)
{
    if (c->n_failures > keep) {
        c->n_failures_summarized += (int64_t)(c->n_failures - keep);
        c->n_failures = keep; /* the records past keep stay allocated, freed with the result */
    }
    if (c->n_points > 0 && !named_by_entry(e, c->check_id)) {
        c->n_points_summarized += (int64_t)c->n_points;
        free(c->points);
        c->points = NULL;
        c->n_points = 0;
    }
}

void pecert_report_summarize_mutants(pecert_report *rep, int keep)
{
    rep->mutant_failures = keep;
    rep->mutants_summarized = 1;
    for (size_t i = 0; i < rep->n_runs; i++) {
        pecert_report_run *run = &rep->runs[i];
        if (run->role != PECERT_ROLE_MUTANT || run->not_run) {
            continue;
        }
        for (size_t c = 0; c < run->res.n_checks; c++) {
            summarize_check(&run->res.checks[c], &run->expect, (size_t)keep);
        }
    }
}
