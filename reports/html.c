/*
 * html.c - the report page: verdict first, then the summary per plugin,
 * the plugins x families x checks matrix, every failure with its evidence,
 * the error plots, the mutants, the speed figures (with --bench) and the
 * environment.
 *
 * The page is one self-contained file: inline CSS and SVG, no script, no
 * font, image or stylesheet from anywhere, so it opens from disk offline
 * and shows exactly what was written. Every string that came from a
 * plugin, a vector file or a results file goes through
 * pecert_sbuf_escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "html_internal.h"

#ifndef PECERT_VERSION
#define PECERT_VERSION "0.1.0"
#endif

/* ---- verdict ------------------------------------------------------------ */

typedef struct tally {
    size_t certified;
    size_t certified_failing;
    size_t checks;          /* of the certify-role runs ...           */
    size_t not_supported;   /* ... and those not examined (N/A)        */
    size_t allowed;
    size_t allowed_failing;
    size_t mutants;
    size_t mutants_caught;
} tally;

static tally count_runs(const pecert_report *rep)
{
    tally t = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < rep->n_runs; i++) {
        const pecert_report_run *r = &rep->runs[i];
        int failed = pecert_report_run_failed(r);
        if (r->role == PECERT_ROLE_CERTIFY) {
            size_t counts[PECERT_VERDICT_COUNT];
            pecert_run_results_count(&r->res, counts);
            t.certified++;
            t.certified_failing += (size_t)failed;
            t.checks += r->res.n_checks;
            t.not_supported += counts[PECERT_VERDICT_UNSUPPORTED];
        } else if (r->role == PECERT_ROLE_ALLOWED) {
            t.allowed++;
            t.allowed_failing += (size_t)failed;
        } else {
            t.mutants++;
            t.mutants_caught += (size_t)(r->caught && r->diagnosed);
        }
    }
    return t;
}

/* Names of the runs of role that fail (mutants: that escaped). */
static void failing_names(pecert_sbuf *b, const pecert_report *rep, pecert_report_role role)
{
    int first = 1;
    for (size_t i = 0; i < rep->n_runs; i++) {
        const pecert_report_run *r = &rep->runs[i];
        int bad = role == PECERT_ROLE_MUTANT ? !(r->caught && r->diagnosed) : pecert_report_run_failed(r);
        if (r->role == role && bad) {
            pecert_sbuf_puts(b, first ? ": " : ", ");
            pecert_sbuf_escaped(b, r->label, 0);
            first = 0;
        }
    }
}

/* 1 if every run is a certify run (one checkpoint, or --all-profiles). */
static int certify_report(const pecert_report *rep)
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (!pecert_report_is_certify_run(&rep->runs[i])) {
            return 0;
        }
    }
    return rep->n_runs > 0;
}

/* One checkpoint's line: its class, plugin, checkpoint and its derived
 * parameters, the coverage (what was certified, what was not examined
 * and why) and the lead of the diagnosis. */
static void certify_line(pecert_sbuf *b, const pecert_report_run *r)
{
    pecert_certificate c;
    char coverage[4096];
    (void)pecert_report_run_certificate(r, &c); /* a certify report holds certify runs only */
    pecert_coverage_line(coverage, sizeof(coverage), &c);
    pecert_sbuf_printf(b, "<p class=\"cert\" data-class=\"%s\"><b>%s</b> ", pecert_cert_class_name(c.cls),
                       pecert_cert_class_name(c.cls));
    pecert_sbuf_escaped(b, r->res.info.plugin_name, 0);
    pecert_sbuf_puts(b, " for ");
    pecert_sbuf_escaped(b, r->res.info.filter + 8, 0);
    pecert_sbuf_puts(b, "<br>coverage: ");
    pecert_sbuf_escaped(b, coverage, 0);
    if (c.cls == PECERT_CERT_NOT_CERTIFIED && r->res.n_findings > 0) {
        pecert_sbuf_puts(b, "<br>diagnosis: ");
        pecert_sbuf_escaped(b, r->res.findings[0].bug, 0);
    }
    pecert_sbuf_puts(b, "</p>\n");
}

static void certify_banner(pecert_sbuf *b, const pecert_report *rep, int pass)
{
    size_t counts[PECERT_CERT_CLASS_COUNT] = {0};
    for (size_t i = 0; i < rep->n_runs; i++) {
        pecert_certificate c;
        (void)pecert_report_run_certificate(&rep->runs[i], &c);
        counts[c.cls]++;
    }
    pecert_sbuf_printf(b, "<header class=\"banner %s\" id=\"verdict\" data-verdict=\"%s\">\n<h1>pecert certify</h1>\n",
                       pass ? "pass" : "fail", pass ? "pass" : "fail");
    if (rep->n_runs == 1) {
        pecert_certificate c;
        (void)pecert_report_run_certificate(&rep->runs[0], &c);
        pecert_sbuf_printf(b, "<p class=\"big\">%s: %s</p>\n", pass ? "PASS" : "FAIL", pecert_cert_class_name(c.cls));
    } else {
        pecert_sbuf_printf(b, "<p class=\"big\">%s: %zu of %zu CERTIFIED, %zu NOT CERTIFIED, %zu NOT APPLICABLE</p>\n",
                           pass ? "PASS" : "FAIL", counts[PECERT_CERT_CERTIFIED], rep->n_runs,
                           counts[PECERT_CERT_NOT_CERTIFIED], counts[PECERT_CERT_NOT_APPLICABLE]);
    }
    for (size_t i = 0; i < rep->n_runs; i++) {
        certify_line(b, &rep->runs[i]);
    }
    const pecert_run_info *info = &rep->runs[0].res.info;
    pecert_sbuf_printf(b, "<p class=\"meta\">pecert %s &#183; oracle ref &#183; ", PECERT_VERSION);
    if (rep->n_runs == 1 && info->n_vector_files == 0) {
        pecert_sbuf_puts(b, "the checkpoint&#39;s parameters (no profile vectors)");
    } else if (rep->n_runs == 1) {
        pecert_sbuf_printf(b, "profile vectors: %d recorded from the official model class, set ", info->n_vectors);
        pecert_sbuf_escaped(b, info->vectors_hash, 0);
    } else {
        pecert_sbuf_puts(b, "each profile with its vectors");
    }
    pecert_sbuf_puts(b, "</p>\n");
}

/* A run whose engine host ran without its sandbox says so in the banner,
 * by name: its results were computed beside code that could reach them. */
static void unsandboxed_line(pecert_sbuf *b, const pecert_report *rep)
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (rep->runs[i].res.info.unsandboxed) {
            pecert_sbuf_puts(b, "<p class=\"meta\">");
            pecert_sbuf_escaped(b, rep->runs[i].label, 0);
            pecert_sbuf_puts(b, ": " PECERT_UNSANDBOXED_WORDS "</p>\n");
        }
    }
}

static void toc(pecert_sbuf *b, const pecert_report *rep)
{
    unsandboxed_line(b, rep);
    pecert_sbuf_puts(b, "<nav class=\"toc\"><a href=\"#summary\">Summary</a><a href=\"#matrix\">Matrix</a>"
                        "<a href=\"#failures\">Failures</a>");
    pecert_sbuf_puts(b, pecert__html_has_grades(rep) ? "<a href=\"#grades\">Precision grades</a>" : "");
    pecert_sbuf_puts(b, pecert__html_has_plots(rep) ? "<a href=\"#precision\">Error plots</a>" : "");
    pecert_sbuf_puts(b, pecert__html_has_mutants(rep) ? "<a href=\"#mutants\">Mutants</a>" : "");
    pecert_sbuf_puts(b, rep->bench != NULL ? "<a href=\"#speed\">Speed</a>" : "");
    pecert_sbuf_puts(b, "<a href=\"#environment\">Environment</a></nav>\n</header>\n");
}

static void banner(pecert_sbuf *b, const pecert_report *rep)
{
    int pass = pecert_report_passed(rep);
    tally t = count_runs(rep);
    if (certify_report(rep)) {
        certify_banner(b, rep, pass);
        toc(b, rep);
        return;
    }
    pecert_sbuf_printf(b, "<header class=\"banner %s\" id=\"verdict\" data-verdict=\"%s\">\n<h1>pecert conformance report</h1>\n",
                       pass ? "pass" : "fail", pass ? "pass" : "fail");
    pecert_sbuf_printf(b, "<p class=\"big\">%s</p>\n<p>", pass ? "PASS" : "FAIL");
    if (t.certified_failing == 0) {
        /* "every check", with how many were not examined: a plugin that
         * implements 10 of 52 checks passes those 10, not 52. */
        pecert_sbuf_printf(b, "%zu plugin%s every check %s", t.certified, t.certified == 1 ? " passes" : "s pass",
                           t.certified == 1 ? "it was examined by" : "they were examined by");
        if (t.not_supported > 0) {
            pecert_sbuf_printf(b, " (%zu of %zu checks not supported: not examined)", t.not_supported, t.checks);
        }
    } else {
        pecert_sbuf_printf(b, "%zu of %zu certified plugins fail", t.certified_failing, t.certified);
        failing_names(b, rep, PECERT_ROLE_CERTIFY);
    }
    if (t.allowed > 0) {
        pecert_sbuf_printf(b, " &#183; %zu allowed to fail, %zu failing", t.allowed, t.allowed_failing);
        failing_names(b, rep, PECERT_ROLE_ALLOWED);
    }
    if (t.mutants > 0) {
        pecert_sbuf_printf(b, " &#183; mutants: %zu of %zu caught and diagnosed", t.mutants_caught, t.mutants);
        failing_names(b, rep, PECERT_ROLE_MUTANT);
    }
    pecert_sbuf_puts(b, "</p>\n");
    const pecert_run_info *info = rep->n_runs > 0 ? &rep->runs[0].res.info : NULL;
    if (info != NULL) {
        pecert_sbuf_printf(b, "<p class=\"meta\">pecert %s &#183; %d vector files, %d vectors &#183; vector set ",
                           PECERT_VERSION, info->n_vector_files, info->n_vectors);
        pecert_sbuf_escaped(b, info->vectors_hash, 0);
        pecert_sbuf_puts(b, "</p>\n");
    }
    toc(b, rep);
}

/* ---- summary ------------------------------------------------------------ */

static const char *run_badge(const pecert_report_run *r, const char **text)
{
    if (r->role == PECERT_ROLE_MUTANT) {
        *text = r->caught && r->diagnosed ? "caught" : "escaped";
        return r->caught && r->diagnosed ? "b-caught" : "b-escaped";
    }
    if (!pecert_report_run_failed(r)) {
        *text = "pass";
        return "b-pass";
    }
    *text = r->role == PECERT_ROLE_ALLOWED ? "fail (allowed)" : "FAIL";
    return r->role == PECERT_ROLE_ALLOWED ? "b-allowed" : "b-fail";
}

static const char *role_text(pecert_report_role role)
{
    return role == PECERT_ROLE_ALLOWED ? "allowed to fail" : role == PECERT_ROLE_MUTANT ? "mutant" : "certified";
}

static void summary_row(pecert_sbuf *b, const pecert_report *rep, size_t i)
{
    const pecert_report_run *r = &rep->runs[i];
    size_t counts[PECERT_VERDICT_COUNT];
    double time_s = 0.0;
    const char *text;
    const char *cls = run_badge(r, &text);
    pecert_run_results_count(&r->res, counts);
    for (size_t c = 0; c < r->res.n_checks; c++) {
        time_s += r->res.checks[c].elapsed_s;
    }
    /* The verdict first: on a narrow screen it is what stays in view. */
    pecert_sbuf_printf(b, "<tr id=\"sum-%zu\"><td><span class=\"badge %s\">%s</span></td><th class=\"row\">", i, cls,
                       text);
    pecert_sbuf_escaped(b, r->label, 0);
    pecert_sbuf_printf(b, "</th><td>%s</td>", role_text(r->role));
    for (int v = 0; v < PECERT_VERDICT_COUNT; v++) {
        pecert_sbuf_printf(b, "<td class=\"num\">%zu</td>", counts[v]);
    }
    if (!rep->no_timings) {
        pecert_sbuf_printf(b, "<td class=\"num\">%.2f</td>", time_s);
    }
    pecert_sbuf_puts(b, "<td>");
    for (int f = 0; f < r->res.n_findings; f++) {
        pecert_sbuf_puts(b, f > 0 ? "<br>" : "");
        pecert_sbuf_escaped(b, r->res.findings[f].bug, 0);
    }
    pecert_sbuf_puts(b, r->res.n_findings == 0 ? "&#8212;</td></tr>\n" : "</td></tr>\n");
}

static void summary(pecert_sbuf *b, const pecert_report *rep)
{
    tally t = count_runs(rep);
    pecert_sbuf_puts(b, "<section id=\"summary\"><h2>Summary</h2>\n<div class=\"scroll\"><table class=\"summary\"><thead><tr><th>Verdict</th><th>Plugin</th>"
                        "<th>Role</th><th class=\"num\">Pass</th><th class=\"num\">N/A</th>"
                        "<th class=\"num\">Fail</th><th class=\"num\">Crash</th><th class=\"num\">Timeout</th>");
    pecert_sbuf_puts(b, rep->no_timings ? "" : "<th class=\"num\">Time (s)</th>");
    pecert_sbuf_puts(b, "<th>Diagnosis</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (rep->runs[i].role != PECERT_ROLE_MUTANT) {
            summary_row(b, rep, i);
        }
    }
    pecert_sbuf_puts(b, "</tbody></table></div>\n");
    if (t.mutants > 0) {
        pecert_sbuf_printf(b, "<p>Mutants: <b>%zu of %zu</b> caught by their named checks and diagnosed "
                              "(<a href=\"#mutants\">details</a>).</p>\n",
                           t.mutants_caught, t.mutants);
    }
    pecert_sbuf_puts(b, "</section>\n");
}

/* ---- matrix ------------------------------------------------------------- */

typedef struct column {
    const char *id;
    size_t order;   /* registry position; unknown ids after, as first seen */
} column;

static size_t registry_order(const char *id, size_t seen)
{
    const pecert_check *c = pecert_check_find(id);
    for (size_t i = 0; c != NULL && i < pecert_num_checks; i++) {
        if (pecert_checks[i] == c) {
            return i;
        }
    }
    return pecert_num_checks + seen;
}

static int by_order(const void *a, const void *b)
{
    const column *x = a;
    const column *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

/* Every check id of any run, once; returns the count (cols malloc'ed). */
static size_t matrix_columns(const pecert_report *rep, column **cols)
{
    size_t cap = 0;
    for (size_t i = 0; i < rep->n_runs; i++) {
        cap += rep->runs[i].res.n_checks;
    }
    *cols = calloc(cap + 1, sizeof(**cols));
    size_t n = 0;
    for (size_t i = 0; *cols != NULL && i < rep->n_runs; i++) {
        for (size_t c = 0; c < rep->runs[i].res.n_checks; c++) {
            const char *id = rep->runs[i].res.checks[c].check_id;
            size_t k = 0;
            while (k < n && strcmp((*cols)[k].id, id) != 0) {
                k++;
            }
            if (k == n) {
                (*cols)[n] = (column){id, registry_order(id, n)};
                n++;
            }
        }
    }
    qsort(*cols, n, sizeof(**cols), by_order);
    return n;
}

/* Length of the family prefix of a check id ("rope" of "rope.apply.golden"). */
static size_t family_len(const char *id)
{
    const char *dot = strchr(id, '.');
    return dot != NULL ? (size_t)(dot - id) : strlen(id);
}

static int same_family(const char *a, const char *b)
{
    return family_len(a) == family_len(b) && strncmp(a, b, family_len(a)) == 0;
}

static void matrix_head(pecert_sbuf *b, const column *cols, size_t n)
{
    pecert_sbuf_puts(b, "<thead><tr><th rowspan=\"2\">Plugin</th>");
    for (size_t i = 0; i < n;) {
        size_t span = 1;
        while (i + span < n && same_family(cols[i].id, cols[i + span].id)) {
            span++;
        }
        char family[64];
        snprintf(family, sizeof(family), "%.*s", (int)family_len(cols[i].id), cols[i].id);
        pecert_sbuf_printf(b, "<th class=\"fam\" colspan=\"%zu\">", span);
        pecert_sbuf_escaped(b, family, 0);
        pecert_sbuf_puts(b, "</th>");
        i += span;
    }
    pecert_sbuf_puts(b, "</tr>\n<tr>");
    for (size_t i = 0; i < n; i++) {
        const char *rest = cols[i].id + family_len(cols[i].id);
        pecert_sbuf_puts(b, "<th class=\"rot\" title=\"");
        pecert_sbuf_escaped(b, cols[i].id, 0);
        pecert_sbuf_puts(b, "\"><div>");
        pecert_sbuf_escaped(b, rest[0] == '.' ? rest + 1 : rest, 0);
        pecert_sbuf_puts(b, "</div></th>");
    }
    pecert_sbuf_puts(b, "</tr></thead>\n");
}

static int must_fail(const pecert_report_run *run, const char *id)
{
    for (int i = 0; i < run->expect.n_must_fail; i++) {
        if (strcmp(run->expect.must_fail[i], id) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Cell class and symbol; for a mutant, failures are what is expected. */
static const char *cell_class(const pecert_report_run *run, const pecert_check_result *r, const char **symbol)
{
    static const char *const symbols[PECERT_VERDICT_COUNT] = {"&#10003;", "&#8211;", "&#10007;", "!", "T"};
    static const char *const classes[PECERT_VERDICT_COUNT] = {"v-pass", "v-unsupported", "v-fail", "v-crash",
                                                              "v-timeout"};
    *symbol = symbols[r->verdict];
    if (run->role != PECERT_ROLE_MUTANT) {
        return classes[r->verdict];
    }
    if (must_fail(run, r->check_id)) {
        return r->verdict >= PECERT_VERDICT_FAIL ? "v-caught" : "v-escaped";
    }
    return r->verdict >= PECERT_VERDICT_FAIL ? "v-also" : classes[r->verdict];
}

static void matrix_cell(pecert_sbuf *b, const pecert_report_run *run, size_t run_index, const char *id)
{
    const pecert_check_result *r = pecert_run_results_find(&run->res, id);
    const char *symbol;
    if (r == NULL) {
        pecert_sbuf_puts(b, "<td class=\"c v-none\"></td>");
        return;
    }
    pecert_sbuf_printf(b, "<td class=\"c %s\" title=\"", cell_class(run, r, &symbol));
    pecert_sbuf_escaped(b, r->check_id, 0);
    pecert_sbuf_printf(b, ": %s", pecert_verdict_name(r->verdict));
    if (r->verdict != PECERT_VERDICT_PASS) { /* a pass says no more than its colour */
        pecert_sbuf_puts(b, " &#8212; ");
        pecert_sbuf_escaped(b, r->diagnosis, 120);
    }
    pecert_sbuf_puts(b, "\">");
    if (r->verdict >= PECERT_VERDICT_FAIL) {
        pecert_sbuf_puts(b, "<a href=\"#");
        pecert__html_anchor(b, run_index, r);
        pecert_sbuf_printf(b, "\">%s</a></td>", symbol);
    } else {
        pecert_sbuf_printf(b, "%s</td>", symbol);
    }
}

static void matrix_row(pecert_sbuf *b, const pecert_report *rep, size_t i, const column *cols, size_t n)
{
    const pecert_report_run *run = &rep->runs[i];
    pecert_sbuf_printf(b, "<tr><th class=\"row\"><a href=\"#%s-%zu\">", run->role == PECERT_ROLE_MUTANT ? "m" : "sum", i);
    pecert_sbuf_escaped(b, run->label, 0);
    pecert_sbuf_puts(b, "</a></th>");
    for (size_t c = 0; c < n; c++) {
        matrix_cell(b, run, i, cols[c].id);
    }
    pecert_sbuf_puts(b, "</tr>\n");
}

static void matrix_legend(pecert_sbuf *b)
{
    pecert_sbuf_puts(b, "<p class=\"legend-row\"><span><i class=\"v-pass\"></i>pass</span>"
                        "<span><i class=\"v-fail\"></i>fail</span><span><i class=\"v-crash\"></i>crash (!) / timeout (T)</span>"
                        "<span><i class=\"v-unsupported\"></i>not supported</span>"
                        "<span><i class=\"v-caught\"></i>mutant caught by a named check</span>"
                        "<span><i class=\"v-also\"></i>mutant also fails</span>"
                        "<span><i class=\"v-escaped\"></i>named check the mutant passes</span></p>\n");
}

static void matrix(pecert_sbuf *b, const pecert_report *rep)
{
    column *cols = NULL;
    size_t n = matrix_columns(rep, &cols);
    pecert_sbuf_puts(b, "<section id=\"matrix\"><h2>Plugins &#215; families &#215; checks</h2>\n");
    matrix_legend(b);
    pecert_sbuf_puts(b, "<div class=\"scroll\"><table class=\"matrix\">\n");
    matrix_head(b, cols, n);
    pecert_sbuf_puts(b, "<tbody>\n");
    int mutants_started = 0;
    for (size_t i = 0; cols != NULL && i < rep->n_runs; i++) {
        if (rep->runs[i].role == PECERT_ROLE_MUTANT && !mutants_started) {
            pecert_sbuf_printf(b, "</tbody><tbody class=\"mutants\"><tr class=\"sep\"><th colspan=\"%zu\">"
                                  "Mutants: planted bugs, failures expected</th></tr>\n", n + 1);
            mutants_started = 1;
        }
        matrix_row(b, rep, i, cols, n);
    }
    pecert_sbuf_puts(b, "</tbody></table></div>\n</section>\n");
    if (cols == NULL) {
        b->failed = 1;
    }
    free(cols);
}

/* ---- page --------------------------------------------------------------- */

char *pecert_report_html(const pecert_report *rep)
{
    pecert_sbuf b = {0};
    pecert_sbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                         "<meta name=\"generator\" content=\"pecert " PECERT_VERSION "\">\n");
    pecert_sbuf_printf(&b, "<title>pecert report: %s</title>\n<style>\n", pecert_report_passed(rep) ? "PASS" : "FAIL");
    pecert_sbuf_puts(&b, pecert__report_css);
    pecert_sbuf_puts(&b, "</style>\n</head>\n<body>\n<main>\n");
    banner(&b, rep);
    summary(&b, rep);
    matrix(&b, rep);
    pecert__html_failures(&b, rep);
    pecert__html_grades(&b, rep);
    pecert__html_precision(&b, rep);
    pecert__html_mutants(&b, rep);
    if (rep->bench != NULL) {
        pecert__html_speed(&b, rep);
    }
    pecert__html_environment(&b, rep);
    pecert_sbuf_puts(&b, "<footer>Generated by pecert " PECERT_VERSION ". This page is self-contained: it loads "
                         "no script, font, image or stylesheet from anywhere.</footer>\n</main>\n</body>\n</html>");
    return pecert_sbuf_take(&b);
}
