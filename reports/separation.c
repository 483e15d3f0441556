/*
 * separation.c - how far the honest engines sit below each check's bound
 * and how far the planted bugs sit above it (TOLERANCES.md, "Separation").
 *
 * A bound is right when it admits every correct engine and rejects every
 * real bug. Both sides are measured, per check, from the runs of one
 * report: the worst error/bound ratio of the honest variants (a correct
 * float32 engine of impls/honest/, known by its plugin id) over the checks
 * they ran, and the smallest worst ratio of the mutants (both bases) over
 * the checks their catalogue entries say must fail them. A mutant whose
 * failure is not a value (a status, a structure) has ratio +inf.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sbuf.h"

/* Honest variants' plugin ids (impls/honest/core/plugin.c). */
#define HONEST_ID_PREFIX "org.pecert.honest."

int pecert_report_run_is_honest(const pecert_report_run *run)
{
    return !run->not_run && run->role != PECERT_ROLE_MUTANT &&
           strncmp(run->res.info.plugin_id, HONEST_ID_PREFIX, strlen(HONEST_ID_PREFIX)) == 0;
}

/* The row of check id, appended in first-seen order; NULL on nomem. */
static pecert_separation_row *row_of(pecert_separation *s, const char *id)
{
    for (size_t i = 0; i < s->n_rows; i++) {
        if (strcmp(s->rows[i].check_id, id) == 0) {
            return &s->rows[i];
        }
    }
    if (s->n_rows == s->cap_rows) {
        size_t cap = s->cap_rows > 0 ? 2 * s->cap_rows : 64;
        pecert_separation_row *rows = realloc(s->rows, cap * sizeof(*rows));
        if (rows == NULL) {
            return NULL;
        }
        s->rows = rows;
        s->cap_rows = cap;
    }
    pecert_separation_row *r = &s->rows[s->n_rows++];
    memset(r, 0, sizeof(*r));
    snprintf(r->check_id, sizeof(r->check_id), "%s", id);
    r->honest_worst = -1.0;
    r->mutant_least = INFINITY;
    return r;
}

/* A check that measured something: it ran cases the plugin did not decline. */
static int measured(const pecert_check_result *c)
{
    return c->verdict != PECERT_VERDICT_UNSUPPORTED && c->n_cases > c->n_unsupported;
}

static double ratio_of(const pecert_check_result *c)
{
    return isnan(c->worst_ratio) || c->verdict >= PECERT_VERDICT_CRASH ? INFINITY : c->worst_ratio;
}

static int add_honest(pecert_separation *s, const pecert_report_run *run)
{
    for (size_t i = 0; i < run->res.n_checks; i++) {
        const pecert_check_result *c = &run->res.checks[i];
        pecert_separation_row *r = measured(c) ? row_of(s, c->check_id) : NULL;
        if (measured(c) && r == NULL) {
            return -1;
        }
        if (r != NULL) {
            r->n_honest++;
            if (ratio_of(c) > r->honest_worst) {
                r->honest_worst = ratio_of(c);
                snprintf(r->honest_who, sizeof(r->honest_who), "%s", run->res.info.plugin_name);
            }
        }
    }
    return 0;
}

static int add_mutant(pecert_separation *s, const pecert_report_run *run)
{
    for (int k = 0; k < run->expect.n_must_fail; k++) {
        const pecert_check_result *c = pecert_run_results_find(&run->res, run->expect.must_fail[k]);
        if (c == NULL || !measured(c)) {
            continue; /* not run, or declined: pecert mutation reports it missed */
        }
        pecert_separation_row *r = row_of(s, c->check_id);
        if (r == NULL) {
            return -1;
        }
        r->n_mutants++;
        double ratio = ratio_of(c);
        if (ratio < r->mutant_least || r->mutant_who[0] == '\0') {
            r->mutant_least = ratio;
            snprintf(r->mutant_who, sizeof(r->mutant_who), "%s", run->res.info.plugin_name);
        }
    }
    return 0;
}

int pecert_report_separation(const pecert_report *rep, pecert_separation *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < rep->n_runs; i++) {
        const pecert_report_run *run = &rep->runs[i];
        int rc = 0;
        if (pecert_report_run_is_honest(run)) {
            rc = add_honest(out, run);
            out->n_honest_runs++;
        } else if (run->role == PECERT_ROLE_MUTANT && !run->not_run) {
            rc = add_mutant(out, run);
            out->n_mutant_runs++;
        }
        if (rc != 0) {
            pecert_separation_free(out);
            return -1;
        }
    }
    return 0;
}

void pecert_separation_free(pecert_separation *s)
{
    free(s->rows);
    memset(s, 0, sizeof(*s));
}

int pecert_separation_row_meets_goal(const pecert_separation_row *r)
{
    return (r->n_honest == 0 || r->honest_worst <= PECERT_SEPARATION_HONEST_GOAL) &&
           (r->n_mutants == 0 || r->mutant_least >= PECERT_SEPARATION_MUTANT_GOAL);
}

void pecert_separation_format_ratio(char *out, size_t len, double ratio)
{
    if (isinf(ratio)) {
        snprintf(out, len, "inf");
    } else if (ratio == 0.0) {
        snprintf(out, len, "0");
    } else if (ratio < 0.01 || ratio >= 1e4) {
        snprintf(out, len, "%.2g", ratio);
    } else {
        snprintf(out, len, "%.3g", ratio);
    }
}

/* One side of a markdown row: "0.42 (who)", or "-" when nothing measured it. */
static void md_side(pecert_sbuf *b, int n, double ratio, const char *who)
{
    char r[32];
    if (n == 0) {
        pecert_sbuf_puts(b, " - |");
        return;
    }
    pecert_separation_format_ratio(r, sizeof(r), ratio);
    pecert_sbuf_printf(b, " %s (`%s`) |", r, who);
}

char *pecert_separation_markdown(const pecert_separation *s)
{
    pecert_sbuf b = {0};
    pecert_sbuf_printf(&b, "%d honest runs, %d mutant runs. Goal: worst honest <= %.2g, smallest mutant >= %.3g.\n\n",
                       s->n_honest_runs, s->n_mutant_runs, PECERT_SEPARATION_HONEST_GOAL,
                       PECERT_SEPARATION_MUTANT_GOAL);
    pecert_sbuf_puts(&b, "| check | worst honest (variant) | smallest mutant (mutant) | goal |\n|---|---|---|---|\n");
    for (size_t i = 0; i < s->n_rows; i++) {
        const pecert_separation_row *r = &s->rows[i];
        pecert_sbuf_printf(&b, "| `%s` |", r->check_id);
        md_side(&b, r->n_honest, r->honest_worst, r->honest_who);
        md_side(&b, r->n_mutants, r->mutant_least, r->mutant_who);
        pecert_sbuf_puts(&b, pecert_separation_row_meets_goal(r) ? " met |\n" : " **missed** |\n");
    }
    return pecert_sbuf_take(&b);
}
