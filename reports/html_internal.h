/*
 * html_internal.h - the parts of the HTML report shared between its
 * files: the stylesheet, the inline SVG plots, the per-run sections and
 * the Speed section.
 */
#ifndef PECERT_REPORTS_HTML_INTERNAL_H
#define PECERT_REPORTS_HTML_INTERNAL_H

#include "report.h"
#include "sbuf.h"

/* The page's only stylesheet, inlined in <head> (html_style.c). */
extern const char pecert__report_css[];

/*
 * pecert__svg_error_plot draws r's (position, error, bound) samples as an
 * inline SVG: |error| on a log axis against position (log axis, or linear
 * for token indices of a short sequence), points over their bound in red,
 * the bound as grey dashes. Samples are binned by pixel column, so the
 * size stays small however many there are. Nothing if r has no samples.
 */
void pecert__svg_error_plot(pecert_sbuf *b, const pecert_check_result *r);

/* pecert__svg_heatmap draws h (error/bound per row x column) as an inline
 * SVG grid with a colour legend. Nothing if h is empty. */
void pecert__svg_heatmap(pecert_sbuf *b, const pecert_heatmap *h);

/* A line of pecert__svg_lines: n points (x > 0) in colour class
 * "s<colour>" (0-5), solid or dashed; label NULL keeps it out of the
 * legend (say what its dashes mean in the caption). */
typedef struct pecert_svg_line {
    const char *label;
    int colour;
    int dashed;
    const double *x;
    const double *y;
    size_t n;
} pecert_svg_line;

/* A horizontal reference line (a target) at y, dotted, in the legend. */
typedef struct pecert_svg_level {
    double y;
    int colour;
    const char *label;
} pecert_svg_level;

typedef struct pecert_svg_line_plot {
    const char *title;              /* the SVG's accessible name          */
    const char *x_label;
    const char *y_label;
    const pecert_svg_line *lines;
    size_t n_lines;
    const pecert_svg_level *levels;
    size_t n_levels;
} pecert_svg_line_plot;

/*
 * pecert__svg_lines draws p as an inline SVG: y in % on a linear axis
 * from 0 (to at least 100) against x on a log axis, a tick at every x a
 * line has, and below, a legend entry per labelled line and per level.
 * Points with a non-finite y are skipped (the line breaks there). Nothing
 * if no line has a point. Labels are escaped.
 */
void pecert__svg_lines(pecert_sbuf *b, const pecert_svg_line_plot *p);

/* pecert__html_check_block: one check of run run_index: verdict,
 * diagnosis, measured error next to its bound, evidence, cited vectors
 * with provenance, plots (and its time if timings). compact keeps the
 * first few evidence lines only (mutants: the evidence they were caught). */
void pecert__html_check_block(pecert_sbuf *b, const pecert_report_run *run, size_t run_index,
                              const pecert_check_result *r, int timings, int compact);

/* pecert__html_findings: the run's diagnosis (named bugs with evidence). */
void pecert__html_findings(pecert_sbuf *b, const pecert_run_results *res);

/* pecert__html_anchor writes the id of check r of run run_index. */
void pecert__html_anchor(pecert_sbuf *b, size_t run_index, const pecert_check_result *r);

/* The sections after the matrix: failures and error plots (html_runs.c),
 * mutants and environment (html_env.c). */
void pecert__html_failures(pecert_sbuf *b, const pecert_report *rep);
void pecert__html_precision(pecert_sbuf *b, const pecert_report *rep);
void pecert__html_mutants(pecert_sbuf *b, const pecert_report *rep);
/* The Precision grades section (html_grade.c): nothing when no check of
 * a non-mutant run is graded. */
void pecert__html_grades(pecert_sbuf *b, const pecert_report *rep);
int pecert__html_has_grades(const pecert_report *rep);
/* The separation table (html_separation.c): nothing without honest runs. */
void pecert__html_separation(pecert_sbuf *b, const pecert_report *rep);
void pecert__html_environment(pecert_sbuf *b, const pecert_report *rep);

/* The Speed section (html_bench.c): the figures of rep->bench, which
 * must be set. */
void pecert__html_speed(pecert_sbuf *b, const pecert_report *rep);

/* Whether the report has a passing check with a plot / a mutant: a
 * section (and its link) appears only when it has something to show. */
int pecert__html_has_plots(const pecert_report *rep);
int pecert__html_has_mutants(const pecert_report *rep);

#endif /* PECERT_REPORTS_HTML_INTERNAL_H */
