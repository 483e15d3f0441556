/*
 * html_internal.h - the parts of the HTML report shared between its
 * files: the stylesheet, the inline SVG plots and the per-run sections.
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
void pecert__html_environment(pecert_sbuf *b, const pecert_report *rep);

#endif /* PECERT_REPORTS_HTML_INTERNAL_H */
