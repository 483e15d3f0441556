/*
 * html_separation.c - the separation table of the Mutants section: per
 * check, how far below its bound the honest float32 engines stay and how
 * far above it the planted bugs land (separation.c, TOLERANCES.md).
 */
#include <stdio.h>

#include "html_internal.h"

static void side_cell(pecert_sbuf *b, int n, double ratio, const char *who)
{
    char r[32];
    if (n == 0) {
        pecert_sbuf_puts(b, "<td class=\"muted\">-</td>");
        return;
    }
    pecert_separation_format_ratio(r, sizeof(r), ratio);
    pecert_sbuf_printf(b, "<td><b>%s</b> <span class=\"muted\">", r);
    pecert_sbuf_escaped(b, who, 0);
    pecert_sbuf_puts(b, "</span></td>");
}

void pecert__html_separation(pecert_sbuf *b, const pecert_report *rep)
{
    pecert_separation sep;
    if (pecert_report_separation(rep, &sep) != 0 || sep.n_rows == 0 || sep.n_honest_runs == 0) {
        if (sep.rows != NULL) {
            pecert_separation_free(&sep);
        }
        return; /* without honest runs there is no separation to show */
    }
    pecert_sbuf_printf(b, "<h3 id=\"separation\">Separation: honest engines against real bugs</h3>\n<p>Per check, "
                          "the worst error/bound of the %d honest float32 engines (must stay &le; %.2g) and the "
                          "smallest worst error/bound of the %d mutant runs that must fail it (must be &ge; %.3g; "
                          "<code>inf</code>: a failure that is not a value). TOLERANCES.md derives each bound.</p>\n",
                       sep.n_honest_runs, PECERT_SEPARATION_HONEST_GOAL, sep.n_mutant_runs,
                       PECERT_SEPARATION_MUTANT_GOAL);
    pecert_sbuf_puts(b, "<table class=\"separation\"><thead><tr><th>Check</th><th>Worst honest"
                        "</th><th>Smallest mutant</th><th>Goal</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < sep.n_rows; i++) {
        const pecert_separation_row *r = &sep.rows[i];
        int met = pecert_separation_row_meets_goal(r);
        pecert_sbuf_puts(b, "<tr><th class=\"row\"><code>");
        pecert_sbuf_escaped(b, r->check_id, 0);
        pecert_sbuf_puts(b, "</code></th>");
        side_cell(b, r->n_honest, r->honest_worst, r->honest_who);
        side_cell(b, r->n_mutants, r->mutant_least, r->mutant_who);
        pecert_sbuf_printf(b, "<td><span class=\"badge %s\">%s</span></td></tr>\n", met ? "b-caught" : "b-escaped",
                           met ? "met" : "missed");
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
    pecert_separation_free(&sep);
}
