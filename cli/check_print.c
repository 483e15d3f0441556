/*
 * check_print.c - how a check's result reads on a terminal, the same for
 * run, certify and report: one line per check (verdict, id, the check's
 * own summary), its failing cases under it, the diagnosis at the end.
 *
 * Lines wrap at PECERT_TERM_WIDTH columns at spaces, continuation lines
 * indented under their text: a failure line holds a case, an element, two
 * floats with their bits, an error and a bound, and must stay readable in
 * a CI log as in an 80-column terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "results.h"

#define PECERT_TERM_WIDTH 100

void pecert_print_wrapped(int indent, int hang, const char *text)
{
    int col = indent;
    printf("%*s", indent, "");
    const char *p = text;
    while (*p != '\0') {
        int spaces = (int)strspn(p, " ");
        const char *word = p + spaces;
        int len = (int)strcspn(word, " ");
        if (*word == '\0') {
            break;
        }
        if (p != text && col > indent + hang && col + spaces + len > PECERT_TERM_WIDTH) {
            printf("\n%*s", indent + hang, ""); /* the spaces become the break */
            col = indent + hang;
        } else {
            printf("%.*s", spaces, p); /* kept as written: columns stay aligned */
            col += spaces;
        }
        printf("%.*s", len, word);
        col += len;
        p = word + len;
    }
    putchar('\n');
}

/* The check's summary without its "; first: <first failure>" tail when the
 * failure lines follow (it would be printed twice). */
static void summary_of(char *out, size_t len, const pecert_check_result *r, int failures_follow)
{
    snprintf(out, len, "%s", r->diagnosis);
    const char *first = r->n_failures > 0 ? r->failures[0].line : NULL;
    char *tail = strstr(out, "; first: ");
    if (failures_follow && first != NULL && tail != NULL && strcmp(tail + strlen("; first: "), first) == 0) {
        *tail = '\0';
    }
}

void pecert_print_precision(const pecert_check_result *r, int id_width)
{
    if (pecert_precision_noted(r)) {
        char grade[2 * PECERT_RESULT_LINE_MAX];
        char line[2 * PECERT_RESULT_LINE_MAX + 16];
        pecert_precision_line(grade, sizeof(grade), &r->precision);
        snprintf(line, sizeof(line), "precision: %s", grade);
        pecert_print_wrapped(2 + 7 + 1 + id_width + 1, 2, line);
    }
}

void pecert_print_failures(const pecert_check_result *r, int max)
{
    size_t shown = max == PECERT_MAX_DETAILS_ALL || (size_t)max > r->n_failures ? r->n_failures : (size_t)max;
    for (size_t i = 0; i < shown; i++) {
        pecert_print_wrapped(10, 4, r->failures[i].line);
    }
    int64_t hidden = (int64_t)(r->n_failures - shown) + r->n_failures_dropped;
    if (hidden > 0 && r->n_failures_dropped > 0) {
        printf("          ... and %lld more (--max-details N|all prints them; --json holds the first %d)\n",
               (long long)hidden, PECERT_RESULT_MAX_FAILURES);
    } else if (hidden > 0) {
        printf("          ... and %lld more (--max-details N|all prints them; --json holds every one)\n",
               (long long)hidden);
    }
}

/* --verbose: the cases that did not fail, after the failures, one line
 * each, tagged by outcome ("ok", "declined", "scope"). */
static void print_case_log(const pecert_check_result *r)
{
    static const char *const tags[PECERT_CASE_OUTCOME_COUNT] = {"ok", "declined", "scope"};
    for (size_t i = 0; i < r->n_case_records; i++) {
        char line[PECERT_RESULT_LINE_MAX + 16];
        snprintf(line, sizeof(line), "%-8s %s", tags[r->cases[i].outcome], r->cases[i].line);
        pecert_print_wrapped(10, 9, line);
    }
    if (r->n_case_records_dropped > 0) {
        printf("          ... and %lld more cases (the first %d are kept)\n", (long long)r->n_case_records_dropped,
               PECERT_RESULT_MAX_FAILURES);
    }
}

void pecert_print_plugin_output(const pecert_check_result *r)
{
    if (r->plugin_output_bytes <= 0) {
        return;
    }
    printf("          the plugin printed %lld bytes%s:\n", (long long)r->plugin_output_bytes,
           (size_t)r->plugin_output_bytes > strlen(r->plugin_output) ? " (the first shown)" : "");
    const char *line = r->plugin_output;
    while (*line != '\0') {
        const char *nl = strchr(line, '\n');
        int len = nl != NULL ? (int)(nl - line) : (int)strlen(line);
        printf("          | %.*s\n", len, line);
        line += len + (nl != NULL);
    }
}

void pecert_print_check(const pecert_check_result *r, const pecert_print_opts *o)
{
    static const char *const tags[PECERT_VERDICT_COUNT] = {"PASS", "N/A", "FAIL", "CRASH", "TIMEOUT"};
    int failed = r->verdict >= PECERT_VERDICT_FAIL;
    if (o->quiet && !failed) {
        return;
    }
    int details = failed || o->verbose;
    int max = o->verbose ? PECERT_MAX_DETAILS_ALL : o->max_details;
    char summary[PECERT_RESULT_LINE_MAX];
    char line[PECERT_RESULT_LINE_MAX + 96];
    summary_of(summary, sizeof(summary), r, details && max != 0);
    snprintf(line, sizeof(line), "%-7s %-*s %s", tags[r->verdict], o->id_width, r->check_id, summary);
    pecert_print_wrapped(2, 8 + o->id_width + 1, line);
    pecert_print_precision(r, o->id_width);
    if (details) {
        pecert_print_failures(r, max);
    }
    if (o->verbose) {
        print_case_log(r);
        pecert_print_plugin_output(r);
        if (!o->no_timings) {
            printf("          (%.2f s)\n", r->elapsed_s);
        }
    }
}

void pecert_print_findings(const pecert_run_results *res)
{
    for (int i = 0; i < res->n_findings; i++) {
        char line[2 * PECERT_RESULT_LINE_MAX + 32];
        snprintf(line, sizeof(line), "diagnosis: %s", res->findings[i].bug);
        pecert_print_wrapped(0, 11, line);
        snprintf(line, sizeof(line), "(%s)", res->findings[i].evidence);
        pecert_print_wrapped(11, 1, line);
    }
}

static int slower_first(const void *a, const void *b)
{
    const pecert_check_result *x = *(const pecert_check_result *const *)a;
    const pecert_check_result *y = *(const pecert_check_result *const *)b;
    return (x->elapsed_s < y->elapsed_s) - (x->elapsed_s > y->elapsed_s);
}

void pecert_print_durations(const pecert_run_results *res, int n)
{
    const pecert_check_result **order = malloc((res->n_checks + 1) * sizeof(*order));
    if (order == NULL) {
        return;
    }
    double total = 0.0;
    for (size_t i = 0; i < res->n_checks; i++) {
        order[i] = &res->checks[i];
        total += res->checks[i].elapsed_s;
    }
    qsort(order, res->n_checks, sizeof(*order), slower_first);
    size_t shown = (size_t)n < res->n_checks ? (size_t)n : res->n_checks;
    printf("slowest %zu of %zu checks (%.2f s in all):\n", shown, res->n_checks, total);
    for (size_t i = 0; i < shown; i++) {
        printf("  %8.2f s  %s\n", order[i]->elapsed_s, order[i]->check_id);
    }
    free(order);
}
