/*
 * html_grade.c - the Precision grades section: for every engine of the
 * report (mutants aside) and every graded check, its error against the
 * exact answer next to the official float32 code's at the same element
 * (results.h, pecert_precision; TOLERANCES.md, "Precision grade"). A grade
 * never fails a run: it tells "less precise" from "wrong", and puts two
 * engines side by side.
 */
#include <stdio.h>

#include "html_internal.h"

int pecert__html_has_grades(const pecert_report *rep)
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        for (size_t c = 0; rep->runs[i].role != PECERT_ROLE_MUTANT && c < rep->runs[i].res.n_checks; c++) {
            if (rep->runs[i].res.checks[c].precision.graded) {
                return 1;
            }
        }
    }
    return 0;
}

static void grade_row(pecert_sbuf *b, const pecert_report_run *run, const pecert_check_result *r)
{
    const pecert_precision *p = &r->precision;
    int less = p->ratio > PECERT_PRECISION_NOTE_RATIO;
    pecert_sbuf_puts(b, "<tr><th class=\"row\">");
    pecert_sbuf_escaped(b, run->label, 0);
    pecert_sbuf_puts(b, "</th><td><code>");
    pecert_sbuf_escaped(b, r->check_id, 0);
    pecert_sbuf_printf(b, "</code></td><td class=\"num\"><b>%.3g&#215;</b></td><td class=\"num\">%.3g u</td>"
                          "<td class=\"num\">%.3g u</td><td>",
                       p->ratio, p->error_u, p->official_u);
    pecert_sbuf_escaped(b, p->measure, 0);
    pecert_sbuf_puts(b, " at <code>");
    pecert_sbuf_escaped(b, p->where, 0);
    pecert_sbuf_printf(b, "</code></td><td><span class=\"badge %s\">%s</span></td></tr>\n", less ? "b-warn" : "b-caught",
                       less ? "less precise" : "as precise");
}

void pecert__html_grades(pecert_sbuf *b, const pecert_report *rep)
{
    if (!pecert__html_has_grades(rep)) {
        return;
    }
    pecert_sbuf_printf(b, "<section id=\"grades\"><h2>Precision grades</h2>\n<p>Each engine&#39;s error against the "
                          "exact answer (the oracle in double), at the element where it is the largest multiple of "
                          "the official float32 code&#39;s error there (in u = 2<sup>-24</sup> of the value or of the "
                          "pair norm; the official error floored at what correct float32 rounding of the value and "
                          "of the angle allows). Above %.3g&#215; an engine is <b>less precise</b> than the official "
                          "code; it still passes: the verdict is the bound&#39;s.</p>\n",
                       PECERT_PRECISION_NOTE_RATIO);
    pecert_sbuf_puts(b, "<table class=\"grades\"><thead><tr><th>Plugin</th><th>Check</th><th>Grade</th><th>Error</th>"
                        "<th>Official</th><th>Where</th><th></th></tr></thead><tbody>\n");
    for (size_t i = 0; i < rep->n_runs; i++) {
        const pecert_report_run *run = &rep->runs[i];
        for (size_t c = 0; run->role != PECERT_ROLE_MUTANT && c < run->res.n_checks; c++) {
            if (run->res.checks[c].precision.graded) {
                grade_row(b, run, &run->res.checks[c]);
            }
        }
    }
    pecert_sbuf_puts(b, "</tbody></table></section>\n");
}
