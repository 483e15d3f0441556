/*
 * html_env.c - the report's mutant section (planted bugs, caught or not)
 * and its environment section (host, plugins, vector set).
 */
#include <stdio.h>
#include <string.h>

#include "html_internal.h"

/* ---- mutants ------------------------------------------------------------ */

/* The checks the catalogue names, each marked caught or passed. */
static void must_fail_list(pecert_sbuf *b, const pecert_report_run *run)
{
    for (int i = 0; i < run->expect.n_must_fail; i++) {
        const pecert_check_result *r = pecert_run_results_find(&run->res, run->expect.must_fail[i]);
        int failed = r != NULL && r->verdict >= PECERT_VERDICT_FAIL;
        pecert_sbuf_printf(b, "%s<span class=\"%s\">%s&#160;<code>", i > 0 ? "<br>" : "",
                           failed ? "v-caught" : "v-escaped", failed ? "&#10007;" : "passes");
        pecert_sbuf_escaped(b, run->expect.must_fail[i], 0);
        pecert_sbuf_puts(b, "</code></span>");
    }
}

/* The finding the catalogue expects, as the run's diagnosis put it. */
static void found_diagnosis(pecert_sbuf *b, const pecert_report_run *run)
{
    for (int i = 0; i < run->res.n_findings; i++) {
        if (strcmp(run->res.findings[i].id, run->expect.finding) == 0) {
            pecert_sbuf_escaped(b, run->res.findings[i].bug, 0);
            return;
        }
    }
    if (run->expect.finding[0] == '\0') {
        pecert_sbuf_puts(b, "(none expected)");
    } else {
        pecert_sbuf_puts(b, "<b>not named</b>: expected finding <code>");
        pecert_sbuf_escaped(b, run->expect.finding, 0);
        pecert_sbuf_puts(b, "</code>");
    }
}

static void mutant_row(pecert_sbuf *b, const pecert_report_run *run, size_t i)
{
    int ok = run->caught && run->diagnosed;
    pecert_sbuf_printf(b, "<tr id=\"m-%zu\"><th class=\"row\"><a href=\"#md-%zu\"><code>", i, i);
    pecert_sbuf_escaped(b, run->label, 0);
    pecert_sbuf_puts(b, "</code></a></th><td>");
    pecert_sbuf_escaped(b, run->expect.bug_class, 0);
    pecert_sbuf_puts(b, "</td><td>");
    pecert_sbuf_escaped(b, run->expect.diagnosis, 0);
    pecert_sbuf_puts(b, "</td><td>");
    must_fail_list(b, run);
    pecert_sbuf_puts(b, "</td><td>");
    if (run->not_run) {
        pecert_sbuf_puts(b, "<b>no results</b>");
    } else {
        found_diagnosis(b, run);
    }
    pecert_sbuf_printf(b, "</td><td><span class=\"badge %s\">%s</span></td></tr>\n", ok ? "b-caught" : "b-escaped",
                       ok ? "caught" : run->caught ? "not diagnosed" : "ESCAPED");
}

static int named_check(const pecert_report_run *run, const char *id)
{
    for (int i = 0; i < run->expect.n_must_fail; i++) {
        if (strcmp(run->expect.must_fail[i], id) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The failing checks the catalogue does not name: one line each (the
 * named ones are the evidence; these show how far the bug reaches). */
static void also_fails(pecert_sbuf *b, const pecert_report_run *run, size_t i)
{
    int any = 0;
    for (size_t c = 0; c < run->res.n_checks; c++) {
        const pecert_check_result *r = &run->res.checks[c];
        if (r->verdict < PECERT_VERDICT_FAIL || named_check(run, r->check_id)) {
            continue;
        }
        pecert_sbuf_puts(b, any ? "" : "<h5>Also fails</h5>\n<ul class=\"also\">");
        pecert_sbuf_puts(b, "<li id=\"");
        pecert__html_anchor(b, i, r);
        pecert_sbuf_puts(b, "\"><code>");
        pecert_sbuf_escaped(b, r->check_id, 0);
        pecert_sbuf_puts(b, "</code>: ");
        pecert_sbuf_escaped(b, r->diagnosis, 0);
        pecert_sbuf_puts(b, "</li>");
        any = 1;
    }
    pecert_sbuf_puts(b, any ? "</ul>\n" : "");
}

/* A mutant's named checks in full, folded away: the evidence it was caught. */
static void mutant_details(pecert_sbuf *b, const pecert_report *rep, size_t i)
{
    const pecert_report_run *run = &rep->runs[i];
    size_t failing = 0;
    for (size_t c = 0; c < run->res.n_checks; c++) {
        failing += run->res.checks[c].verdict >= PECERT_VERDICT_FAIL;
    }
    pecert_sbuf_printf(b, "<details id=\"md-%zu\"><summary><code>", i);
    pecert_sbuf_escaped(b, run->label, 0);
    pecert_sbuf_printf(b, "</code> <span class=\"muted\">%zu of %zu checks fail</span></summary>\n", failing,
                       run->res.n_checks);
    pecert__html_findings(b, &run->res);
    for (size_t c = 0; c < run->res.n_checks; c++) {
        const pecert_check_result *r = &run->res.checks[c];
        if (r->verdict >= PECERT_VERDICT_FAIL && named_check(run, r->check_id)) {
            pecert__html_check_block(b, run, i, r, !rep->no_timings, 1);
        }
    }
    also_fails(b, run, i);
    pecert_sbuf_puts(b, "</details>\n");
}

int pecert__html_has_mutants(const pecert_report *rep)
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (rep->runs[i].role == PECERT_ROLE_MUTANT) {
            return 1;
        }
    }
    return 0;
}

void pecert__html_mutants(pecert_sbuf *b, const pecert_report *rep)
{
    if (!pecert__html_has_mutants(rep)) {
        return; /* no heading over nothing */
    }
    pecert_sbuf_puts(b, "<section id=\"mutants\"><h2>Mutants: planted bugs, caught</h2>\n<p>Each mutant is a "
                        "correct engine (the reference plugin, or the float32 honest variant for the mutants named "
                        "<code>NAME.f32</code>) with one bug a real engine shipped. It is <b>caught</b> when every check "
                        "its catalogue entry names fails and the run&#39;s diagnosis names its bug. Its failures "
                        "are the suite working, not the suite failing.</p>\n");
    int any = 0;
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (rep->runs[i].role != PECERT_ROLE_MUTANT) {
            continue;
        }
        if (!any) {
            pecert_sbuf_puts(b, "<table class=\"mutants\"><thead><tr><th>Mutant</th><th>Bug class</th>"
                                "<th>Planted bug</th><th>Must fail</th><th>Diagnosis found</th><th>Outcome</th>"
                                "</tr></thead><tbody>\n");
            any = 1;
        }
        mutant_row(b, &rep->runs[i], i);
    }
    if (!any) {
        pecert_sbuf_puts(b, "<p>No mutant in this report.</p></section>\n");
        return;
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
    pecert__html_separation(b, rep);
    pecert_sbuf_puts(b, "<h3>Evidence per mutant</h3>\n");
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (rep->runs[i].role == PECERT_ROLE_MUTANT && !rep->runs[i].not_run) {
            mutant_details(b, rep, i);
        }
    }
    pecert_sbuf_puts(b, "</section>\n");
}

/* ---- environment -------------------------------------------------------- */

static void kv_row(pecert_sbuf *b, const char *key, const char *value)
{
    pecert_sbuf_printf(b, "<tr><th>%s</th><td>", key);
    pecert_sbuf_escaped(b, value[0] != '\0' ? value : "-", 0);
    pecert_sbuf_puts(b, "</td></tr>\n");
}

static void host_table(pecert_sbuf *b, const pecert_run_info *info)
{
    char cpus[32];
    snprintf(cpus, sizeof(cpus), "%d", info->cpus_online);
    pecert_sbuf_puts(b, "<h3>Host</h3>\n<table class=\"kv\">\n");
    kv_row(b, "CPU", info->cpu_model);
    kv_row(b, "CPUs online (threads available)", cpus);
    kv_row(b, "Operating system", info->os);
    kv_row(b, "Compiler (built pecert)", info->compiler);
    kv_row(b, "pecert version", info->pecert_version);
    pecert_sbuf_puts(b, "</table>\n");
}

static void plugin_row(pecert_sbuf *b, const pecert_report_run *run)
{
    const pecert_run_info *info = &run->res.info;
    const char *cells[] = {run->label,           pecert_report_role_name(run->role), info->plugin_id,
                           info->plugin_version, info->plugin_describe,            info->plugin_scope,
                           info->plugin_path,    info->filter};
    pecert_sbuf_puts(b, "<tr>");
    for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
        pecert_sbuf_puts(b, i == 0 ? "<th class=\"row\">" : "<td>");
        pecert_sbuf_escaped(b, cells[i][0] != '\0' ? cells[i] : "-", 0);
        pecert_sbuf_puts(b, i == 0 ? "</th>" : "</td>");
    }
    pecert_sbuf_puts(b, "<td><code>");
    pecert_sbuf_escaped(b, info->vectors_hash, 0);
    pecert_sbuf_puts(b, "</code></td></tr>\n");
}

static void plugins_table(pecert_sbuf *b, const pecert_report *rep)
{
    pecert_sbuf_puts(b, "<h3>Plugins</h3>\n<table class=\"plugins\"><thead><tr><th>Plugin</th><th>Role</th><th>id</th>"
                        "<th>Version</th><th>ISA and threads (describe())</th><th>Declared scope</th><th>Path</th><th>--filter</th>"
                        "<th>Vector set</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (!rep->runs[i].not_run) {
            plugin_row(b, &rep->runs[i]);
        }
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

static void vector_set(pecert_sbuf *b, const pecert_run_results *res)
{
    pecert_sbuf_puts(b, "<h3>Vector set <code>");
    pecert_sbuf_escaped(b, res->info.vectors_hash, 0);
    pecert_sbuf_printf(b, "</code></h3>\n<p>%d files, %d vectors, from <code>", res->info.n_vector_files,
                       res->info.n_vectors);
    pecert_sbuf_escaped(b, res->info.vectors_dir, 0);
    pecert_sbuf_puts(b, "</code>.</p>\n<table class=\"sources\"><thead><tr><th>File</th><th>Family</th>"
                        "<th class=\"num\">Vectors</th><th>Recorded from</th><th>Commit</th><th>Tag</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < res->n_sources; i++) {
        const pecert_vector_source *s = &res->sources[i];
        const char *cells[] = {s->path, s->family, NULL, s->repo, s->commit, s->tag};
        pecert_sbuf_puts(b, "<tr>");
        for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++) {
            if (cells[c] == NULL) {
                pecert_sbuf_printf(b, "<td class=\"num\">%lld</td>", (long long)s->n_vectors);
                continue;
            }
            pecert_sbuf_puts(b, c == 0 || c == 4 ? "<td><code>" : "<td>");
            pecert_sbuf_escaped(b, cells[c], 0);
            pecert_sbuf_puts(b, c == 0 || c == 4 ? "</code></td>" : "</td>");
        }
        pecert_sbuf_puts(b, "</tr>\n");
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

/* 1 if an earlier run (before i) had the same vector set. */
static int vector_set_shown(const pecert_report *rep, size_t i)
{
    for (size_t j = 0; j < i; j++) {
        if (!rep->runs[j].not_run &&
            strcmp(rep->runs[j].res.info.vectors_hash, rep->runs[i].res.info.vectors_hash) == 0) {
            return 1;
        }
    }
    return 0;
}

void pecert__html_environment(pecert_sbuf *b, const pecert_report *rep)
{
    pecert_sbuf_puts(b, "<section id=\"environment\"><h2>Environment</h2>\n");
    const pecert_report_run *first = NULL;
    for (size_t i = 0; first == NULL && i < rep->n_runs; i++) {
        first = rep->runs[i].not_run ? NULL : &rep->runs[i];
    }
    if (first != NULL) {
        host_table(b, &first->res.info);
        plugins_table(b, rep);
    }
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (!rep->runs[i].not_run && !vector_set_shown(rep, i)) {
            vector_set(b, &rep->runs[i].res);
        }
    }
    pecert_sbuf_puts(b, "</section>\n");
}
