/*
 * html_runs.c - the report's sections per run: every failure with its
 * diagnosis, evidence, cited vectors and plots; the error plots of the
 * passing checks; the mutants; the environment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_internal.h"

void pecert__html_anchor(pecert_sbuf *b, size_t run_index, const pecert_check_result *r)
{
    pecert_sbuf_printf(b, "f-%zu-", run_index);
    pecert_sbuf_escaped(b, r->check_id, 0);
}

/* "3.2e+05" or "inf": an error/bound ratio for people. */
static void put_ratio(pecert_sbuf *b, double ratio)
{
    if (isnan(ratio) || isinf(ratio)) {
        pecert_sbuf_puts(b, isnan(ratio) ? "NaN" : "&#8734;");
    } else {
        pecert_sbuf_printf(b, "%.3g", ratio);
    }
}

/* Lines of evidence a compact block keeps (the JSON keeps them all). */
#define COMPACT_LINES 3

/* "... and N more (in the JSON results)" after a cut list. */
static void more_lines(pecert_sbuf *b, int shown, int total)
{
    if (shown < total) {
        pecert_sbuf_printf(b, "<p class=\"muted\">&#8230; and %d more in the JSON results.</p>\n", total - shown);
    }
}

static void evidence_head(pecert_sbuf *b)
{
    pecert_sbuf_puts(b, "<table class=\"evidence\"><colgroup><col class=\"n\">"
                        "<col><col class=\"v\"><col class=\"v\"></colgroup><thead><tr><th>#</th>"
                        "<th>case: want / got</th><th class=\"num\">error</th><th class=\"num\">bound</th></tr></thead><tbody>\n");
}

/* One failure record: its line, and its error and bound as numbers (a
 * value failure) or dashes (a status, a refusal, a note). */
static void evidence_row(pecert_sbuf *b, size_t i, const pecert_failure *f)
{
    pecert_sbuf_printf(b, "<tr><td class=\"num\">%zu</td><td><code>", i + 1);
    pecert_sbuf_escaped(b, f->line, 0);
    if (f->kind == PECERT_FAILURE_VALUE) {
        pecert_sbuf_printf(b, "</code></td><td class=\"num %s\">%.3g</td><td class=\"num\">%.3g</td></tr>\n",
                           f->error > f->bound || isnan(f->error) ? "err-bad" : "err-ok", f->error, f->bound);
    } else {
        pecert_sbuf_puts(b, "</code></td><td class=\"num\">&#8212;</td><td class=\"num\">&#8212;</td></tr>\n");
    }
}

/* The first max_lines records in view; every record the run kept in a
 * collapsible list under them, so a large run's failing vectors can all
 * be read off the page. */
static void evidence(pecert_sbuf *b, const pecert_check_result *r, int max_lines)
{
    size_t n = max_lines > 0 && r->n_failures > (size_t)max_lines ? (size_t)max_lines : r->n_failures;
    if (r->n_failures == 0) {
        return;
    }
    pecert_sbuf_puts(b, "<h5>Evidence (first failing cases)</h5>\n");
    evidence_head(b);
    for (size_t i = 0; i < n; i++) {
        evidence_row(b, i, &r->failures[i]);
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
    if (n < r->n_failures) {
        pecert_sbuf_printf(b, "<details class=\"all-failures\"><summary>All %zu failing cases and notes</summary>\n",
                           r->n_failures);
        evidence_head(b);
        for (size_t i = 0; i < r->n_failures; i++) {
            evidence_row(b, i, &r->failures[i]);
        }
        pecert_sbuf_puts(b, "</tbody></table></details>\n");
    }
    if (r->n_failures_dropped > 0) {
        pecert_sbuf_printf(b, "<p class=\"muted\">&#8230; and %lld more failing cases, counted but not kept "
                              "(a run keeps %d per check).</p>\n",
                           (long long)r->n_failures_dropped, PECERT_RESULT_MAX_FAILURES);
    }
    if (r->n_failures_summarized > 0) {
        pecert_sbuf_printf(b, "<p class=\"muted\">&#8230; and %lld more failing cases in the run's own results "
                              "file (this report keeps the first cases of each check of a mutant run).</p>\n",
                           (long long)r->n_failures_summarized);
    }
}

static const pecert_vector_source *find_source(const pecert_run_results *res, const char *path)
{
    for (size_t i = 0; i < res->n_sources; i++) {
        if (strcmp(res->sources[i].path, path) == 0) {
            return &res->sources[i];
        }
    }
    return NULL;
}

static void provenance(pecert_sbuf *b, const pecert_vector_source *s)
{
    if (s == NULL) {
        pecert_sbuf_puts(b, "&#8212;");
        return;
    }
    pecert_sbuf_escaped(b, s->repo, 0);
    pecert_sbuf_puts(b, " @ <code>");
    pecert_sbuf_escaped(b, s->commit, 12);
    pecert_sbuf_puts(b, "</code> (");
    pecert_sbuf_escaped(b, s->tag, 0);
    pecert_sbuf_puts(b, ")");
}

static void cited_vectors(pecert_sbuf *b, const pecert_run_results *res, const pecert_check_result *r,
                          int max_lines)
{
    int n = max_lines > 0 && r->n_vrefs > max_lines ? max_lines : r->n_vrefs;
    if (r->n_vrefs == 0) {
        return;
    }
    pecert_sbuf_puts(b, "<h5>Vectors cited</h5>\n<table class=\"vectors\"><colgroup><col style=\"width:21%\">"
                        "<col style=\"width:15%\"><col style=\"width:22%\"><col style=\"width:24%\">"
                        "<col style=\"width:18%\"></colgroup><thead><tr><th>vector</th><th>flags</th>"
                        "<th>what it checks</th><th>recorded from</th><th>provenance</th></tr></thead><tbody>\n");
    for (int i = 0; i < n; i++) {
        const pecert_vector_ref *v = &r->vrefs[i];
        pecert_sbuf_puts(b, "<tr><td><code>");
        pecert_sbuf_escaped(b, v->file, 0);
        pecert_sbuf_printf(b, ":tcId=%lld</code></td><td>", (long long)v->tc_id);
        pecert_sbuf_escaped(b, v->flags, 0);
        pecert_sbuf_puts(b, "</td><td>");
        pecert_sbuf_escaped(b, v->comment, 0);
        pecert_sbuf_puts(b, "</td><td><code>");
        pecert_sbuf_escaped(b, v->source, 0);
        pecert_sbuf_puts(b, "</code></td><td>");
        provenance(b, find_source(res, v->file));
        pecert_sbuf_puts(b, "</td></tr>\n");
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
    more_lines(b, n, r->n_vrefs);
}

/* The largest error among the samples, with its bound and position. */
static const pecert_error_point *largest_error(const pecert_check_result *r)
{
    const pecert_error_point *best = NULL;
    for (size_t i = 0; i < r->n_points; i++) {
        const pecert_error_point *p = &r->points[i];
        if (best == NULL || p->error > best->error || (isnan(p->error) && !isnan(best->error))) {
            best = p;
        }
    }
    return best;
}

/* Samples keyed by token index (prefill, then decode steps), not angle. */
static int token_axis(const pecert_check_result *r)
{
    return r->points_axis == PECERT_AXIS_TOKEN;
}

/* A figure's title line: which check (or, in the section of one check,
 * which plugins: who, already HTML), and how close to its bound. */
static void figure_title(pecert_sbuf *b, const pecert_check_result *r, const char *who)
{
    pecert_sbuf_puts(b, "<div class=\"ft\">");
    if (who != NULL) {
        pecert_sbuf_puts(b, who);
    } else {
        pecert_sbuf_puts(b, "<code>");
        pecert_sbuf_escaped(b, r->check_id, 0);
        pecert_sbuf_puts(b, "</code>");
    }
    pecert_sbuf_puts(b, " &#183; worst error/bound ");
    put_ratio(b, r->worst_ratio);
    pecert_sbuf_puts(b, "</div>");
}

/* A case label as a reader wants it: "rope/apply_scaled.json:tcId=11",
 * not the absolute path of the vectors directory the run read. */
static const char *case_label(const char *label, const char *vectors_dir)
{
    size_t n = strlen(vectors_dir);
    while (n > 1 && vectors_dir[n - 1] == '/') {
        n--; /* "vectors/" names the same directory as "vectors" */
    }
    if (n > 0 && strncmp(label, vectors_dir, n) == 0 && label[n] == '/') {
        return label + n + 1;
    }
    return label;
}

static void error_figure(pecert_sbuf *b, const pecert_check_result *r, const char *who)
{
    const pecert_error_point *p = largest_error(r);
    const char *key = pecert_point_axis_name(r->points_axis);
    pecert_sbuf_puts(b, "<figure>");
    figure_title(b, r, who);
    pecert__svg_error_plot(b, r);
    pecert_sbuf_printf(b, "<figcaption>%s, worst per %s (%zu samples): ",
                       token_axis(r) ? "Attention-output error against token (prefill, then decode steps)"
                                     : "Error against position",
                       key, r->n_points);
    if (p->error == 0) {
        pecert_sbuf_puts(b, "every sample exact.</figcaption></figure>");
    } else {
        pecert_sbuf_printf(b, "largest |error| %.3g at %s %lld, bound there %.3g.</figcaption></figure>", p->error,
                           key, (long long)p->position, p->bound);
    }
}

static void heatmap_figure(pecert_sbuf *b, const pecert_check_result *r, const char *who, const char *vectors_dir)
{
    const pecert_heatmap *h = &r->heatmap;
    pecert_sbuf_puts(b, "<figure>");
    figure_title(b, r, who);
    pecert__svg_heatmap(b, h);
    pecert_sbuf_puts(b, "<figcaption>Worst error/bound per ");
    pecert_sbuf_escaped(b, h->row_axis, 0);
    pecert_sbuf_puts(b, " &#215; ");
    pecert_sbuf_escaped(b, h->col_axis, 0);
    pecert_sbuf_puts(b, " over the tokens of the worst vector, ");
    pecert_sbuf_escaped(b, case_label(h->label, vectors_dir), 0);
    pecert_sbuf_puts(b, " (max ");
    put_ratio(b, pecert_heatmap_max(h));
    pecert_sbuf_puts(b, ")</figcaption></figure>");
}

/* The figures of a check: its error samples and its heatmap, if any. */
static void check_figures(pecert_sbuf *b, const pecert_check_result *r, const char *who, const char *vectors_dir)
{
    if (r->n_points > 0) {
        error_figure(b, r, who);
    }
    if (r->heatmap.rows > 0) {
        heatmap_figure(b, r, who, vectors_dir);
    }
}

static void check_plots(pecert_sbuf *b, const pecert_check_result *r, const char *vectors_dir)
{
    if (r->n_points > 0 || r->heatmap.rows > 0) {
        pecert_sbuf_puts(b, "<div class=\"plots\">");
        check_figures(b, r, NULL, vectors_dir);
        pecert_sbuf_puts(b, "</div>\n");
    }
}

static void check_header(pecert_sbuf *b, const pecert_check_result *r, int timings)
{
    const char *v = pecert_verdict_name(r->verdict);
    pecert_sbuf_printf(b, "<h4><span class=\"badge b-%s\">%s</span> <code>", v, v);
    pecert_sbuf_escaped(b, r->check_id, 0);
    pecert_sbuf_printf(b, "</code> <span class=\"muted\">%lld of %lld cases outside the bound", (long long)r->n_failed,
                       (long long)r->n_cases);
    if (r->n_unsupported > 0) {
        pecert_sbuf_printf(b, ", %lld not supported", (long long)r->n_unsupported);
    }
    if (timings) {
        pecert_sbuf_printf(b, " &#183; %.2f s", r->elapsed_s);
    }
    pecert_sbuf_puts(b, "</span></h4>\n<p class=\"diag\">");
    pecert_sbuf_escaped(b, r->diagnosis, 0);
    pecert_sbuf_puts(b, "</p>\n");
}

/* The measured error next to its bound: the worst ratio and its case. */
static void measured(pecert_sbuf *b, const pecert_check_result *r)
{
    pecert_sbuf_puts(b, "<table class=\"measure\"><tr><th>worst error / bound</th><td class=\"num err-bad\">");
    put_ratio(b, r->worst_ratio);
    pecert_sbuf_puts(b, "</td><th>at</th><td><code>");
    pecert_sbuf_escaped(b, r->worst_case[0] != '\0' ? r->worst_case : "-", 0);
    pecert_sbuf_puts(b, "</code></td></tr></table>\n");
}

void pecert__html_check_block(pecert_sbuf *b, const pecert_report_run *run, size_t run_index,
                              const pecert_check_result *r, int timings, int compact)
{
    int max_lines = compact ? COMPACT_LINES : 0;
    pecert_sbuf_printf(b, "<article class=\"check k-%s\" id=\"", pecert_verdict_name(r->verdict));
    pecert__html_anchor(b, run_index, r);
    pecert_sbuf_puts(b, "\">\n");
    check_header(b, r, timings);
    measured(b, r);
    evidence(b, r, compact ? COMPACT_LINES : PECERT_DEFAULT_MAX_DETAILS);
    cited_vectors(b, &run->res, r, max_lines);
    check_plots(b, r, run->res.info.vectors_dir);
    pecert_sbuf_puts(b, "</article>\n");
}

/* ---- failures ----------------------------------------------------------- */

void pecert__html_findings(pecert_sbuf *b, const pecert_run_results *res)
{
    if (res->n_findings == 0) {
        return;
    }
    pecert_sbuf_puts(b, "<div class=\"findings\"><b>Diagnosis</b><ul>");
    for (int i = 0; i < res->n_findings; i++) {
        pecert_sbuf_puts(b, "<li>");
        pecert_sbuf_escaped(b, res->findings[i].bug, 0);
        pecert_sbuf_puts(b, "<br><span class=\"ev\">evidence: ");
        pecert_sbuf_escaped(b, res->findings[i].evidence, 0);
        pecert_sbuf_puts(b, "</span></li>");
    }
    pecert_sbuf_puts(b, "</ul></div>\n");
}

/* Every failing check of run i, after its findings. */
static void run_failures(pecert_sbuf *b, const pecert_report *rep, size_t i)
{
    const pecert_report_run *run = &rep->runs[i];
    pecert__html_findings(b, &run->res);
    for (size_t c = 0; c < run->res.n_checks; c++) {
        if (run->res.checks[c].verdict >= PECERT_VERDICT_FAIL) {
            pecert__html_check_block(b, run, i, &run->res.checks[c], !rep->no_timings, 0);
        }
    }
}

void pecert__html_failures(pecert_sbuf *b, const pecert_report *rep)
{
    int any = 0;
    pecert_sbuf_puts(b, "<section id=\"failures\"><h2>Failures</h2>\n");
    for (size_t i = 0; i < rep->n_runs; i++) {
        const pecert_report_run *run = &rep->runs[i];
        if (run->role == PECERT_ROLE_MUTANT || !pecert_report_run_failed(run)) {
            continue;
        }
        pecert_sbuf_printf(b, "<h3 id=\"run-%zu\">", i);
        pecert_sbuf_escaped(b, run->label, 0);
        pecert_sbuf_puts(b, run->role == PECERT_ROLE_ALLOWED ? " <span class=\"badge b-allowed\">allowed to fail</span>"
                                                              : " <span class=\"badge b-fail\">FAIL</span>");
        pecert_sbuf_puts(b, "</h3>\n");
        run_failures(b, rep, i);
        any = 1;
    }
    if (!any) {
        pecert_sbuf_puts(b, "<p>No check of a certified plugin failed.</p>\n");
    }
    pecert_sbuf_puts(b, "</section>\n");
}

/* ---- error plots of passing checks -------------------------------------- */

static int has_plot(const pecert_check_result *r)
{
    return r->verdict < PECERT_VERDICT_FAIL && (r->n_points > 0 || r->heatmap.rows > 0);
}

/* 1 if run is shown in this section: a plugin (not a mutant) with a plot. */
static int run_has_plots(const pecert_report_run *run)
{
    for (size_t c = 0; run->role != PECERT_ROLE_MUTANT && c < run->res.n_checks; c++) {
        if (has_plot(&run->res.checks[c])) {
            return 1;
        }
    }
    return 0;
}

int pecert__html_has_plots(const pecert_report *rep)
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (run_has_plots(&rep->runs[i])) {
            return 1;
        }
    }
    return 0;
}

/* 1 if every sample of r is exact: nothing a plot would show. */
static int all_exact(const pecert_check_result *r)
{
    for (size_t i = 0; i < r->n_points; i++) {
        if (r->points[i].error != 0.0) {
            return 0;
        }
    }
    return r->heatmap.rows == 0 || pecert_heatmap_max(&r->heatmap) == 0.0;
}

/* 1 if a and b draw the same figures: the same samples, bounds, grid and
 * worst ratio, bit for bit (ref and the fast ISAs often do). */
static int same_figures(const pecert_check_result *a, const pecert_check_result *b)
{
    const pecert_heatmap *ha = &a->heatmap;
    const pecert_heatmap *hb = &b->heatmap;
    if (a->n_points != b->n_points || memcmp(&a->worst_ratio, &b->worst_ratio, sizeof(double)) != 0 ||
        ha->rows != hb->rows || ha->cols != hb->cols || strcmp(ha->label, hb->label) != 0) {
        return 0;
    }
    if (a->n_points > 0 && memcmp(a->points, b->points, a->n_points * sizeof(*a->points)) != 0) {
        return 0;
    }
    return ha->rows == 0 || memcmp(ha->ratio, hb->ratio, (size_t)ha->rows * (size_t)ha->cols * sizeof(double)) == 0;
}

/* The passing, plotted result of check id in a plugin's run, or NULL. */
static const pecert_check_result *plotted(const pecert_report_run *run, const char *id)
{
    if (run->role == PECERT_ROLE_MUTANT) {
        return NULL;
    }
    const pecert_check_result *r = pecert_run_results_find(&run->res, id);
    return r != NULL && has_plot(r) ? r : NULL;
}

/* 1 if check id was already shown: it has a plot in a run before run i. */
static int shown_before(const pecert_report *rep, size_t i, const char *id)
{
    for (size_t k = 0; k < i; k++) {
        if (plotted(&rep->runs[k], id) != NULL) {
            return 1;
        }
    }
    return 0;
}

/* The labels of the runs from first on whose figures of check id are
 * exact (want_exact) or equal first's, ", "-separated; marks them used. */
static void group_labels(pecert_sbuf *b, const pecert_report *rep, size_t first, const char *id, int want_exact,
                         char *used)
{
    const pecert_check_result *lead = plotted(&rep->runs[first], id);
    int n = 0;
    for (size_t k = first; k < rep->n_runs; k++) {
        const pecert_check_result *r = plotted(&rep->runs[k], id);
        if (r == NULL || used[k] || all_exact(r) != want_exact || (!want_exact && !same_figures(lead, r))) {
            continue;
        }
        used[k] = 1;
        pecert_sbuf_puts(b, n++ > 0 ? ", " : "");
        pecert_sbuf_escaped(b, rep->runs[k].label, 0);
    }
}

/* The exact plugins of check id, as one line: "<id>: ref, fast [...]". */
static void exact_line(pecert_sbuf *b, const pecert_report *rep, const char *id, char *used)
{
    for (size_t k = 0; k < rep->n_runs; k++) {
        const pecert_check_result *r = plotted(&rep->runs[k], id);
        if (r != NULL && all_exact(r)) {
            pecert_sbuf_puts(b, "<li><code>");
            pecert_sbuf_escaped(b, id, 0);
            pecert_sbuf_puts(b, "</code>: ");
            group_labels(b, rep, k, id, 1, used);
            pecert_sbuf_puts(b, "</li>\n");
            return;
        }
    }
}

/* The figures of check id: one per group of plugins that draw the same. */
static void check_groups(pecert_sbuf *b, const pecert_report *rep, const char *id, char *used)
{
    int opened = 0;
    for (size_t k = 0; k < rep->n_runs; k++) {
        const pecert_check_result *r = plotted(&rep->runs[k], id);
        if (r == NULL || used[k] || all_exact(r)) {
            continue;
        }
        if (!opened++) {
            pecert_sbuf_puts(b, "<details open><summary><code>");
            pecert_sbuf_escaped(b, id, 0);
            pecert_sbuf_puts(b, "</code></summary>\n<div class=\"plots\">");
        }
        pecert_sbuf labels = {0};
        group_labels(&labels, rep, k, id, 0, used);
        char *who = pecert_sbuf_take(&labels);
        check_figures(b, r, who != NULL ? who : "?", rep->runs[k].res.info.vectors_dir);
        free(who);
    }
    if (opened) {
        pecert_sbuf_puts(b, "</div>\n</details>\n");
    }
}

/* Calls fn(b, rep, id, used) once per check with a plot, in the order the
 * checks first appear; used (one flag per run) is cleared for each. */
static void for_each_plotted_check(pecert_sbuf *b, const pecert_report *rep, char *used,
                                   void (*fn)(pecert_sbuf *, const pecert_report *, const char *, char *))
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        const pecert_run_results *res = &rep->runs[i].res;
        for (size_t c = 0; rep->runs[i].role != PECERT_ROLE_MUTANT && c < res->n_checks; c++) {
            const char *id = res->checks[c].check_id;
            if (has_plot(&res->checks[c]) && !shown_before(rep, i, id)) {
                memset(used, 0, rep->n_runs);
                fn(b, rep, id, used);
            }
        }
    }
}

void pecert__html_precision(pecert_sbuf *b, const pecert_report *rep)
{
    if (!pecert__html_has_plots(rep)) {
        return; /* no empty section */
    }
    char *used = calloc(rep->n_runs, 1);
    if (used == NULL) {
        pecert_sbuf_puts(b, "<section id=\"precision\"><h2>Error against bound</h2><p>Out of memory for the "
                            "plots.</p></section>\n");
        return;
    }
    pecert_sbuf_puts(b, "<section id=\"precision\"><h2>Error against bound</h2>\n<p>Passing checks that record "
                        "their error by position (golden and precision checks), by token (decode and batch "
                        "checks) or by head and channel pair (the worst RoPE vector), one figure per group of "
                        "plugins whose figures are identical. Failing checks show theirs under <a "
                        "href=\"#failures\">Failures</a>.</p>\n");
    pecert_sbuf exact = {0};
    for_each_plotted_check(&exact, rep, used, exact_line);
    char *lines = pecert_sbuf_take(&exact);
    if (lines != NULL && lines[0] != '\0') {
        pecert_sbuf_printf(b, "<p>Exact at every sample (nothing to plot):</p>\n<ul class=\"exact\">\n%s</ul>\n", lines);
    }
    free(lines);
    for_each_plotted_check(b, rep, used, check_groups);
    pecert_sbuf_puts(b, "</section>\n");
    free(used);
}
