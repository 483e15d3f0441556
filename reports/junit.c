/*
 * junit.c - the report as JUnit XML, the dialect Jenkins, GitLab, GitHub
 * test reporters and Azure read: one <testsuite> per run, one <testcase>
 * per check (classname = the run's label, name = the check id). A failed
 * check is a <failure> whose message is the run's diagnosis (the bugs it
 * names) and then the check's own line; a crash or timeout
 * is an <error>; "not supported" is <skipped>. Mutants form one suite of
 * their own, one testcase per mutant that fails only if it escaped: their
 * failing checks are the expected outcome, not the suite failing.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "sbuf.h"

/* Longest message attribute; the element text carries the rest. */
#define MESSAGE_MAX 400

static void attr(pecert_sbuf *b, const char *name, const char *value)
{
    pecert_sbuf_printf(b, " %s=\"", name);
    pecert_sbuf_escaped(b, value, MESSAGE_MAX);
    pecert_sbuf_puts(b, "\"");
}

static void property(pecert_sbuf *b, const char *name, const char *value)
{
    pecert_sbuf_puts(b, "      <property");
    attr(b, "name", name);
    attr(b, "value", value);
    pecert_sbuf_puts(b, "/>\n");
}

/* Suite counters, from the verdicts and the role. */
typedef struct suite_counts {
    size_t tests;
    size_t failures;
    size_t errors;
    size_t skipped;
    double time_s;
} suite_counts;

static suite_counts count_run(const pecert_report_run *run)
{
    suite_counts c = {run->res.n_checks, 0, 0, 0, 0.0};
    for (size_t i = 0; i < run->res.n_checks; i++) {
        pecert_verdict v = run->res.checks[i].verdict;
        c.time_s += run->res.checks[i].elapsed_s;
        if (v == PECERT_VERDICT_UNSUPPORTED || (v >= PECERT_VERDICT_FAIL && run->role == PECERT_ROLE_ALLOWED)) {
            c.skipped++;
        } else if (v == PECERT_VERDICT_FAIL) {
            c.failures++;
        } else if (v > PECERT_VERDICT_FAIL) {
            c.errors++;
        }
    }
    return c;
}

/* A failure's message: what the run's diagnosis names (the bug a CI
 * reader must see first, as the terminal and HTML show it), then what
 * the check measured. A run without a finding gives the check's line. */
static void failure_message(char *out, size_t len, const pecert_report_run *run, const pecert_check_result *r)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < run->res.n_findings && used < len; i++) {
        used += (size_t)snprintf(out + used, len - used, "%s%s", i == 0 ? "diagnosis: " : "; ",
                                 run->res.findings[i].bug);
    }
    if (used < len) {
        snprintf(out + used, len - used, "%s%s", used > 0 ? " | " : "", r->diagnosis);
    }
}

/* The body of a <failure>/<error>: the diagnosis with its evidence,
 * measured against bound, then every failing case and vector. */
static void failure_text(pecert_sbuf *b, const pecert_report_run *run, const pecert_check_result *r)
{
    char line[2 * PECERT_RESULT_LINE_MAX + 64];
    for (int i = 0; i < run->res.n_findings; i++) {
        snprintf(line, sizeof(line), "diagnosis: %s (%s)\n", run->res.findings[i].bug, run->res.findings[i].evidence);
        pecert_sbuf_escaped(b, line, 0);
    }
    snprintf(line, sizeof(line), "%s\n", r->diagnosis);
    pecert_sbuf_escaped(b, line, 0);
    snprintf(line, sizeof(line), "worst error/bound %.4g at %s\n", r->worst_ratio, r->worst_case);
    pecert_sbuf_escaped(b, line, 0);
    for (size_t i = 0; i < r->n_failures; i++) { /* every failing case */
        pecert_sbuf_escaped(b, r->failures[i].line, 0);
        pecert_sbuf_puts(b, "\n");
    }
    if (r->n_failures_dropped > 0) {
        snprintf(line, sizeof(line), "... and %lld more failing cases not kept\n", (long long)r->n_failures_dropped);
        pecert_sbuf_escaped(b, line, 0);
    }
    if (r->n_failures_summarized > 0) {
        snprintf(line, sizeof(line), "... and %lld more failing cases in the run's own results file\n",
                 (long long)r->n_failures_summarized);
        pecert_sbuf_escaped(b, line, 0);
    }
    for (int i = 0; i < r->n_vrefs; i++) {
        snprintf(line, sizeof(line), "vector %s:tcId=%lld [%s] %s (%s)\n", r->vrefs[i].file,
                 (long long)r->vrefs[i].tc_id, r->vrefs[i].flags, r->vrefs[i].comment, r->vrefs[i].source);
        pecert_sbuf_escaped(b, line, 0);
    }
}

static void testcase(pecert_sbuf *b, const pecert_report_run *run, const pecert_check_result *r)
{
    static const char *const element[PECERT_VERDICT_COUNT] = {NULL, "skipped", "failure", "error", "error"};
    const char *el = element[r->verdict];
    pecert_sbuf_puts(b, "    <testcase");
    attr(b, "classname", run->label);
    attr(b, "name", r->check_id);
    pecert_sbuf_printf(b, " time=\"%.3f\"", r->elapsed_s);
    if (el == NULL) {
        pecert_sbuf_puts(b, "/>\n");
        return;
    }
    pecert_sbuf_puts(b, ">\n      ");
    if (r->verdict == PECERT_VERDICT_UNSUPPORTED || run->role == PECERT_ROLE_ALLOWED) {
        /* An allowed failure must not turn CI red: skipped, saying what it was. */
        int allowed = r->verdict != PECERT_VERDICT_UNSUPPORTED;
        char msg[PECERT_RESULT_LINE_MAX + 64];
        snprintf(msg, sizeof(msg), "%s%s: %s", allowed ? "allowed to fail, " : "", pecert_verdict_name(r->verdict),
                 r->diagnosis);
        pecert_sbuf_puts(b, "<skipped");
        attr(b, "message", msg);
        pecert_sbuf_puts(b, "/>\n    </testcase>\n");
        return;
    }
    char message[2 * PECERT_RESULT_LINE_MAX];
    failure_message(message, sizeof(message), run, r);
    pecert_sbuf_printf(b, "<%s", el);
    attr(b, "message", message);
    attr(b, "type", pecert_verdict_name(r->verdict));
    pecert_sbuf_puts(b, ">");
    failure_text(b, run, r);
    pecert_sbuf_printf(b, "</%s>\n    </testcase>\n", el);
}

static void run_suite(pecert_sbuf *b, const pecert_report_run *run)
{
    const pecert_run_info *info = &run->res.info;
    suite_counts c = count_run(run);
    pecert_sbuf_puts(b, "  <testsuite");
    attr(b, "name", run->label);
    pecert_sbuf_printf(b, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                       c.tests, c.failures, c.errors, c.skipped, c.time_s);
    pecert_sbuf_puts(b, "    <properties>\n");
    property(b, "role", pecert_report_role_name(run->role));
    property(b, "plugin.id", info->plugin_id);
    property(b, "plugin.version", info->plugin_version);
    property(b, "plugin.path", info->plugin_path);
    property(b, "plugin.describe", info->plugin_describe);
    if (info->unsandboxed) {
        property(b, "engine.sandbox", "off: " PECERT_UNSANDBOXED_WORDS);
    }
    property(b, "pecert.version", info->pecert_version);
    property(b, "vectors.hash", info->vectors_hash);
    if (info->filter[0] != '\0') {
        /* `pecert certify` records the checkpoint and its derived
         * parameters here; `pecert run` its --filter. */
        property(b, "selection", info->filter);
    }
    pecert_certificate cert;
    if (pecert_report_run_certificate(run, &cert)) { /* the class and coverage certify printed */
        char coverage[4096];
        pecert_coverage_line(coverage, sizeof(coverage), &cert);
        property(b, "certificate", pecert_cert_class_name(cert.cls));
        property(b, "coverage", coverage);
    }
    pecert_sbuf_puts(b, "    </properties>\n");
    for (size_t i = 0; i < run->res.n_checks; i++) {
        testcase(b, run, &run->res.checks[i]);
    }
    pecert_sbuf_puts(b, "  </testsuite>\n");
}

/* One line on what a mutant's run showed. */
static void mutant_outcome(char *out, size_t len, const pecert_report_run *run)
{
    if (run->not_run) {
        snprintf(out, len, "escaped: no results for this mutant");
    } else if (!run->caught) {
        snprintf(out, len, "escaped: a check its catalogue entry names passes");
    } else if (!run->diagnosed) {
        snprintf(out, len, "caught, but the diagnosis does not name '%s'", run->expect.finding);
    } else {
        snprintf(out, len, "caught and diagnosed: %s", run->expect.diagnosis);
    }
}

static void mutant_case(pecert_sbuf *b, const pecert_report_run *run)
{
    char outcome[PECERT_RESULT_LINE_MAX + 64];
    double time_s = 0.0;
    for (size_t i = 0; i < run->res.n_checks; i++) {
        time_s += run->res.checks[i].elapsed_s;
    }
    mutant_outcome(outcome, sizeof(outcome), run);
    pecert_sbuf_puts(b, "    <testcase classname=\"mutants\"");
    attr(b, "name", run->label);
    pecert_sbuf_printf(b, " time=\"%.3f\">\n", time_s);
    if (!(run->caught && run->diagnosed)) {
        pecert_sbuf_puts(b, "      <failure type=\"mutant_escaped\"");
        attr(b, "message", outcome);
        pecert_sbuf_puts(b, "/>\n");
    }
    pecert_sbuf_puts(b, "      <system-out>");
    pecert_sbuf_escaped(b, outcome, 0);
    for (size_t i = 0; i < run->res.n_checks; i++) {
        const pecert_check_result *r = &run->res.checks[i];
        if (r->verdict >= PECERT_VERDICT_FAIL) {
            pecert_sbuf_printf(b, "\n%s: ", pecert_verdict_name(r->verdict));
            pecert_sbuf_escaped(b, r->check_id, 0);
            pecert_sbuf_puts(b, ": ");
            pecert_sbuf_escaped(b, r->diagnosis, 0);
        }
    }
    pecert_sbuf_puts(b, "</system-out>\n    </testcase>\n");
}

static void mutant_suite(pecert_sbuf *b, const pecert_report *rep, size_t n, size_t escaped)
{
    pecert_sbuf_printf(b, "  <testsuite name=\"mutants\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
                       n, escaped);
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (rep->runs[i].role == PECERT_ROLE_MUTANT) {
            mutant_case(b, &rep->runs[i]);
        }
    }
    pecert_sbuf_puts(b, "  </testsuite>\n");
}

char *pecert_report_junit(const pecert_report *rep)
{
    suite_counts total = {0, 0, 0, 0, 0.0};
    size_t mutants = 0;
    size_t escaped = 0;
    for (size_t i = 0; i < rep->n_runs; i++) {
        const pecert_report_run *run = &rep->runs[i];
        suite_counts c = count_run(run);
        if (run->role == PECERT_ROLE_MUTANT) {
            mutants++;
            escaped += !(run->caught && run->diagnosed);
            c = (suite_counts){1, !(run->caught && run->diagnosed), 0, 0, c.time_s};
        }
        total = (suite_counts){total.tests + c.tests, total.failures + c.failures, total.errors + c.errors,
                               total.skipped + c.skipped, total.time_s + c.time_s};
    }
    pecert_sbuf b = {0};
    pecert_sbuf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    pecert_sbuf_printf(&b, "<testsuites name=\"pecert\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                       total.tests, total.failures, total.errors, total.skipped, total.time_s);
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (rep->runs[i].role != PECERT_ROLE_MUTANT) {
            run_suite(&b, &rep->runs[i]);
        }
    }
    if (mutants > 0) {
        mutant_suite(&b, rep, mutants, escaped);
    }
    pecert_sbuf_puts(&b, "</testsuites>");
    return pecert_sbuf_take(&b);
}
