/*
 * check_reports.c - the reports: escaping of what plugins and vector files
 * say, JUnit that CI can parse, shards that cover the checks exactly once
 * and merge back into an unsharded run byte for byte, `pecert report`
 * refusing bad input with one line, exit status 2 and no file written,
 * and the Speed section of bench files (--bench).
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "certify_checks.h"
#include "checks.h"
#include "report.h"
#include "report_bench.h"
#include "results_json.h"
#include "runner.h"
#include "sbuf.h"
#include "suites.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

/* What a hostile plugin or vector file could put in any string. */
#define HOSTILE "<script>alert(\"x\" & 'y')</script><img src=x onerror=alert(1)>\x7f\r\xc2\x9b" "2J"

/* ---- helpers ------------------------------------------------------------ */

/* Runs build/pecert with printf-style args; returns its exit status, with
 * stdout and stderr in out. */

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void assert_same_file(const char *a, const char *b)
{
    char *x = test_read_file(a);
    char *y = test_read_file(b);
    size_t i = 0;
    while (x[i] != '\0' && x[i] == y[i]) {
        i++;
    }
    ck_assert_msg(x[i] == y[i], "%s and %s differ at byte %zu: ...%.60s... vs ...%.60s...", a, b, i,
                  x + (i > 20 ? i - 20 : 0), y + (i > 20 ? i - 20 : 0));
    free(x);
    free(y);
}

/* The JSON, HTML and JUnit outputs dir/A.* and dir/B.* are byte for byte
 * the same. */
static void assert_same_outputs(const char *dir, const char *a, const char *b)
{
    const char *ext[3] = {"json", "html", "xml"};
    for (int i = 0; i < 3; i++) {
        char pa[256];
        char pb[256];
        snprintf(pa, sizeof(pa), "%s/%s.%s", dir, a, ext[i]);
        snprintf(pb, sizeof(pb), "%s/%s.%s", dir, b, ext[i]);
        assert_same_file(pa, pb);
    }
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

/* A check result with the given verdict and text, appended to res. */
static void add_check(pecert_run_results *res, const char *id, pecert_verdict v, const char *text)
{
    pecert_check_result r;
    pecert_check_result_init(&r, id);
    r.verdict = v;
    r.index = (int32_t)res->n_checks;
    r.n_cases = 3;
    r.n_failed = v >= PECERT_VERDICT_FAIL ? 1 : 0;
    r.worst_ratio = v >= PECERT_VERDICT_FAIL ? 12.5 : 0.25;
    snprintf(r.diagnosis, sizeof(r.diagnosis), "%s", text);
    snprintf(r.worst_case, sizeof(r.worst_case), "%s", text);
    if (v >= PECERT_VERDICT_FAIL) {
        pecert_failure f = pecert_failure_blank(PECERT_FAILURE_VALUE);
        snprintf(f.where, sizeof(f.where), "%s", text);
        snprintf(f.line, sizeof(f.line), "%s err 0.5 > tol 0.04", text);
        f.error = 0.5;
        f.bound = 0.04;
        ck_assert_int_eq(pecert_check_result_add_failure(&r, &f), 0);
        ck_assert_int_eq(pecert_check_result_add_point(&r, PECERT_AXIS_POSITION, 0, 0.0, 1e-7), 0);
        ck_assert_int_eq(pecert_check_result_add_point(&r, PECERT_AXIS_POSITION, 4096, 0.5, 0.04), 0);
    }
    ck_assert_int_eq(pecert_run_results_append(res, &r), 0);
}

/* A run of plugin name with every verdict once (text in every field). */
static void make_run(pecert_run_results *res, const char *name, const char *text)
{
    memset(res, 0, sizeof(*res));
    snprintf(res->info.plugin_name, sizeof(res->info.plugin_name), "%s", name);
    snprintf(res->info.plugin_id, sizeof(res->info.plugin_id), "%s", text);
    snprintf(res->info.plugin_describe, sizeof(res->info.plugin_describe), "%s", text);
    snprintf(res->info.plugin_path, sizeof(res->info.plugin_path), "%s", text);
    res->info.shard_index = 1;
    res->info.shard_count = 1;
    add_check(res, "rope.apply.golden", PECERT_VERDICT_FAIL, text);
    add_check(res, "rope.freq.golden", PECERT_VERDICT_PASS, text);
    add_check(res, "rope.half_precision", PECERT_VERDICT_UNSUPPORTED, text);
    add_check(res, "decode.prefill_equivalence", PECERT_VERDICT_CRASH, text);
    add_check(res, "alibi.slopes.golden", PECERT_VERDICT_TIMEOUT, text);
    res->info.n_selected = (int)res->n_checks;
    res->n_findings = 1;
    snprintf(res->findings[0].id, sizeof(res->findings[0].id), "pairing");
    snprintf(res->findings[0].bug, sizeof(res->findings[0].bug), "%s", text);
    snprintf(res->findings[0].evidence, sizeof(res->findings[0].evidence), "%s", text);
    pecert_check_result *apply = &res->checks[0];
    apply->n_vrefs = 1;
    snprintf(apply->vrefs[0].file, sizeof(apply->vrefs[0].file), "%s", text);
    snprintf(apply->vrefs[0].comment, sizeof(apply->vrefs[0].comment), "%s", text);
    snprintf(apply->vrefs[0].flags, sizeof(apply->vrefs[0].flags), "%s", text);
    ck_assert_int_eq(pecert_heatmap_alloc(&apply->heatmap, 2, 3), 0);
    apply->heatmap.ratio[4] = INFINITY;
    snprintf(apply->heatmap.label, sizeof(apply->heatmap.label), "%s", text);
}

/*
 * A minimal XML well-formedness check: an optional declaration, then one
 * root element with properly nested children; attribute values quoted;
 * '<' never in text or values; '&' only as a reference. Returns NULL, or
 * what is wrong and where.
 */
static const char *xml_problem(const char *s, char *why, size_t why_len);

static const char *skip_ref(const char *p)
{
    if (*p != '&') {
        return p + 1;
    }
    const char *q = p + 1 + (p[1] == '#');
    while (isalnum((unsigned char)*q)) {
        q++;
    }
    return *q == ';' && q > p + 1 ? q + 1 : NULL;
}

/* Text or an attribute value up to stop; NULL if it holds '<' or a bare '&'. */
static const char *xml_chars(const char *p, char stop)
{
    while (*p != '\0' && *p != stop) {
        if (*p == '<' || (p = skip_ref(p)) == NULL) {
            return NULL;
        }
    }
    return p;
}

static const char *xml_name(const char *p, char *name, size_t len)
{
    size_t n = 0;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == ':' || *p == '.') {
        if (n + 1 < len) {
            name[n++] = *p;
        }
        p++;
    }
    name[n] = '\0';
    return n > 0 ? p : NULL;
}

static const char *xml_problem(const char *s, char *why, size_t why_len)
{
    char stack[32][64];
    int depth = 0;
    int roots = 0;
    const char *p = strncmp(s, "<?xml", 5) == 0 ? strstr(s, "?>") + 2 : s;
    while (*p != '\0') {
        if (*p != '<') {
            const char *end = xml_chars(p, '<');
            if (end == NULL || (depth == 0 && strspn(p, " \n") < (size_t)(end - p))) {
                snprintf(why, why_len, "bad text at ...%.40s", p);
                return why;
            }
            p = end;
            continue;
        }
        char name[64];
        if (p[1] == '/') {
            p = xml_name(p + 2, name, sizeof(name));
            if (p == NULL || *p != '>' || depth == 0 || strcmp(stack[--depth], name) != 0) {
                snprintf(why, why_len, "unmatched end tag </%s>", name);
                return why;
            }
            p++;
            continue;
        }
        p = xml_name(p + 1, name, sizeof(name));
        if (p == NULL || depth == 32) {
            snprintf(why, why_len, "bad start tag");
            return why;
        }
        for (;;) {
            p += strspn(p, " \n");
            if (*p == '>' || (p[0] == '/' && p[1] == '>')) {
                break;
            }
            char attr[64];
            p = xml_name(p, attr, sizeof(attr));
            if (p == NULL || p[0] != '=' || (p[1] != '"' && p[1] != '\'') ||
                (p = xml_chars(p + 2, p[1])) == NULL || *p == '\0') {
                snprintf(why, why_len, "bad attribute in <%s>", name);
                return why;
            }
            p++;
        }
        roots += depth == 0;
        if (*p == '>') {
            snprintf(stack[depth++], sizeof(stack[0]), "%s", name);
            p++;
        } else {
            p += 2;
        }
    }
    if (depth != 0 || roots != 1) {
        snprintf(why, why_len, "%d unclosed elements, %d roots", depth, roots);
        return why;
    }
    return NULL;
}

/* ---- escaping ----------------------------------------------------------- */

START_TEST(escape_replaces_markup_quotes_and_bad_bytes)
{
    pecert_sbuf b = {0};
    pecert_sbuf_escaped(&b, "a<b>&\"'\x01\t\xff\xc3\xa9\xed\xa0\x80\x7f\r\xc2\x9b" "z", 0);
    char *text = pecert_sbuf_take(&b);
    ck_assert_ptr_nonnull(text);
    /* markup, quotes and a return become references; a C0 control, a
     * stray byte, a UTF-16 surrogate, DEL and a C1 control (CSI) become
     * U+FFFD; tab and real UTF-8 (é) stay. */
    ck_assert_str_eq(text, "a&lt;b&gt;&amp;&quot;&#39;\xEF\xBF\xBD\t\xEF\xBF\xBD\xc3\xa9"
                           "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD&#13;\xEF\xBF\xBDz");
    free(text);
    pecert_sbuf_escaped(&b, "0123456789", 4);
    text = pecert_sbuf_take(&b);
    ck_assert_str_eq(text, "0123...");
    free(text);
}
END_TEST

START_TEST(html_and_junit_escape_every_plugin_and_vector_string)
{
    pecert_report rep = {0};
    pecert_run_results res;
    make_run(&res, HOSTILE, HOSTILE);
    ck_assert_int_eq(pecert_report_add_run(&rep, &res, PECERT_ROLE_CERTIFY, HOSTILE), 0);
    pecert_report_finish(&rep);
    char *html = pecert_report_html(&rep);
    char *junit = pecert_report_junit(&rep);
    ck_assert_ptr_nonnull(html);
    ck_assert_ptr_nonnull(junit);
    const char *texts[2] = {html, junit};
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(strstr(texts[i], "<script") == NULL, "raw <script> in %s", i ? "JUnit" : "HTML");
        ck_assert_msg(strstr(texts[i], "<img") == NULL, "raw <img> in %s", i ? "JUnit" : "HTML");
        ck_assert_ptr_nonnull(strstr(texts[i], "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)"));
        /* DEL, a return and a C1 control (CSI) never reach a page raw. */
        ck_assert_msg(strchr(texts[i], 0x7f) == NULL && strchr(texts[i], '\r') == NULL &&
                          strstr(texts[i], "\xc2\x9b") == NULL,
                      "raw DEL, CR or CSI in %s", i ? "JUnit" : "HTML");
    }
    char why[256];
    const char *problem = xml_problem(junit, why, sizeof(why));
    ck_assert_msg(problem == NULL, "JUnit not well-formed: %s", problem);
    free(html);
    free(junit);
    pecert_report_free(&rep);
}
END_TEST

/* A run of one passing rope.boundary_lengths whose samples have the
 * given largest error, with the vector labels under vectors_dir. */
static void plotted_run(pecert_run_results *res, const char *name, double error)
{
    memset(res, 0, sizeof(*res));
    snprintf(res->info.plugin_name, sizeof(res->info.plugin_name), "%s", name);
    snprintf(res->info.vectors_dir, sizeof(res->info.vectors_dir), "/abs/vectors");
    res->info.shard_index = 1;
    res->info.shard_count = 1;
    pecert_check_result r;
    pecert_check_result_init(&r, "rope.boundary_lengths");
    r.n_cases = 2;
    ck_assert_int_eq(pecert_check_result_add_point(&r, PECERT_AXIS_POSITION, 4095, 0.0, 1e-6), 0);
    ck_assert_int_eq(pecert_check_result_add_point(&r, PECERT_AXIS_POSITION, 4096, error, 1e-6), 0);
    ck_assert_int_eq(pecert_heatmap_alloc(&r.heatmap, 1, 2), 0);
    r.heatmap.ratio[1] = error / 1e-6;
    snprintf(r.heatmap.label, sizeof(r.heatmap.label), "/abs/vectors/rope/apply_llama.json:tcId=3");
    r.worst_ratio = error / 1e-6;
    ck_assert_int_eq(pecert_run_results_append(res, &r), 0);
    res->info.n_selected = 1;
}

/* The error plots do not repeat themselves: plugins whose figures are
 * identical share one (its title names them all), plugins exact at every
 * sample are one line, not a figure, and captions name vectors relative
 * to the vectors directory. */
START_TEST(identical_plots_are_drawn_once_and_exact_ones_are_a_line)
{
    static const struct { const char *name; double error; } runs[] = {
        {"ref", 0.0}, {"fast-a", 1e-7}, {"fast-b", 1e-7}, {"fast-c", 2e-7}, {"fast-d", 0.0}};
    pecert_report rep = {0};
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        pecert_run_results res;
        plotted_run(&res, runs[i].name, runs[i].error);
        ck_assert_int_eq(pecert_report_add_run(&rep, &res, PECERT_ROLE_CERTIFY, runs[i].name), 0);
    }
    pecert_report_finish(&rep);
    char *html = pecert_report_html(&rep);
    ck_assert_ptr_nonnull(html);
    const char *section = strstr(html, "<section id=\"precision\">");
    ck_assert_ptr_nonnull(section);
    ck_assert_msg(strstr(section, "<li><code>rope.boundary_lengths</code>: ref, fast-d</li>") != NULL, "%s", section);
    ck_assert_msg(strstr(section, "<div class=\"ft\">fast-a, fast-b &#183;") != NULL, "%s", section);
    ck_assert_msg(strstr(section, "<div class=\"ft\">fast-c &#183;") != NULL, "%s", section);
    /* two groups, each an error plot and a heatmap */
    ck_assert_uint_eq(count(section, "<figure>"), 4);
    ck_assert_ptr_nonnull(strstr(section, "worst vector, rope/apply_llama.json:tcId=3 (max"));
    ck_assert_ptr_null(strstr(section, "/abs/vectors/rope"));
    free(html);
    pecert_report_free(&rep);
}
END_TEST

/* The moves of the <path class="cls"> in svg with the most of them (the
 * data's, not the legend's one-move sample): their count, and the y of the
 * last (the rightmost column's) in *last_y. */
static int data_moves(const char *svg, const char *cls, double *last_y)
{
    char key[64];
    int best = -1;
    snprintf(key, sizeof(key), "<path class=\"%s\" d=\"", cls);
    for (const char *at = strstr(svg, key); at != NULL; at = strstr(at + 1, key)) {
        const char *d = at + strlen(key);
        const char *end = strchr(d, '"');
        int moves = 0;
        double y = 0;
        for (const char *m = strchr(d, 'M'); m != NULL && m < end; m = strchr(m + 1, 'M')) {
            double x = 0;
            moves += sscanf(m, "M%lf %lf", &x, &y) == 2;
        }
        if (moves > best) {
            best = moves;
            *last_y = y;
        }
    }
    return best;
}

/* A bin's dot and dash are one sample's error and bound: two passing
 * samples in one pixel column (an error of 1e-3 under a bound of 1e-2,
 * one of 1e-9 under 1e-8) once drew the largest error over the smallest
 * bound, five decades above the dash, while both were within theirs. */
START_TEST(the_plotted_bound_is_the_plotted_error_s_own)
{
    pecert_run_results res;
    memset(&res, 0, sizeof(res));
    snprintf(res.info.plugin_name, sizeof(res.info.plugin_name), "p");
    res.info.shard_index = 1;
    res.info.shard_count = 1;
    pecert_check_result r;
    pecert_check_result_init(&r, "rope.boundary_lengths");
    r.n_cases = 2;
    ck_assert_int_eq(pecert_check_result_add_point(&r, PECERT_AXIS_POSITION, 1, 0.0, 1e-6), 0);
    ck_assert_int_eq(pecert_check_result_add_point(&r, PECERT_AXIS_POSITION, 1000000, 1e-3, 1e-2), 0);
    ck_assert_int_eq(pecert_check_result_add_point(&r, PECERT_AXIS_POSITION, 1000001, 1e-9, 1e-8), 0);
    r.worst_ratio = 0.1;
    ck_assert_int_eq(pecert_run_results_append(&res, &r), 0);
    res.info.n_selected = 1;
    pecert_report rep = {0};
    ck_assert_int_eq(pecert_report_add_run(&rep, &res, PECERT_ROLE_CERTIFY, "p"), 0);
    pecert_report_finish(&rep);
    char *html = pecert_report_html(&rep);
    ck_assert_ptr_nonnull(html);
    const char *svg = strstr(html, "<svg class=\"plot\"");
    ck_assert_ptr_nonnull(svg);
    /* Both in bound: no dot drawn as over it; the far column's dot sits
     * below its dash (SVG y grows downwards). */
    double bad_y = 0;
    double dash_y = 0;
    double dot_y = 0;
    ck_assert_int_eq(data_moves(svg, "bad", &bad_y), 1); /* the legend's sample only */
    ck_assert_int_eq(data_moves(svg, "bound", &dash_y), 2);
    ck_assert_int_eq(data_moves(svg, "ok", &dot_y), 2);
    ck_assert_msg(dot_y > dash_y, "dot y %.1f is not below its dash y %.1f", dot_y, dash_y);
    free(html);
    pecert_report_free(&rep);
}
END_TEST

/* The case log (--verbose) survives the JSON round trip, and a log that
 * claims more cases than the check counted (a forged results file) is
 * refused like any other inconsistent count. */
/* A plot's axis is what its samples say they count, never guessed from
 * the check's name: a token-indexed property check (rope.nope_layer
 * compares attention outputs per token) is drawn against token, a
 * "decode." check whose samples were positions against position. */
START_TEST(plot_axis_comes_from_the_samples_not_the_check_id)
{
    pecert_run_results res;
    memset(&res, 0, sizeof(res));
    snprintf(res.info.plugin_name, sizeof(res.info.plugin_name), "fast");
    res.info.shard_index = 1;
    res.info.shard_count = 1;
    static const struct { const char *id; pecert_point_axis axis; } checks[] = {
        {"rope.nope_layer", PECERT_AXIS_TOKEN}, {"decode.prefill_equivalence", PECERT_AXIS_POSITION}};
    for (size_t i = 0; i < 2; i++) {
        pecert_check_result r;
        pecert_check_result_init(&r, checks[i].id);
        r.n_cases = 1;
        r.worst_ratio = 0.5;
        ck_assert_int_eq(pecert_check_result_add_point(&r, checks[i].axis, 3, 1e-7, 2e-7), 0);
        ck_assert_int_eq(pecert_run_results_append(&res, &r), 0);
    }
    res.info.n_selected = 2;
    pecert_report rep = {0};
    ck_assert_int_eq(pecert_report_add_run(&rep, &res, PECERT_ROLE_CERTIFY, "fast"), 0);
    pecert_report_finish(&rep);
    char *html = pecert_report_html(&rep);
    ck_assert_ptr_nonnull(html);
    const char *nope = strstr(html, "<summary><code>rope.nope_layer</code></summary>");
    const char *decode = strstr(html, "<summary><code>decode.prefill_equivalence</code></summary>");
    ck_assert_ptr_nonnull(nope);
    ck_assert_ptr_nonnull(decode);
    const char *nope_caption = strstr(nope, "<figcaption>");
    const char *decode_caption = strstr(decode, "<figcaption>");
    ck_assert_msg(strncmp(nope_caption, "<figcaption>Attention-output error against token", 48) == 0, "%.120s",
                  nope_caption);
    ck_assert_msg(strncmp(decode_caption, "<figcaption>Error against position, worst per position", 54) == 0,
                  "%.120s", decode_caption);
    free(html);
    pecert_report_free(&rep);
}
END_TEST

START_TEST(case_log_round_trips_and_forged_logs_are_refused)
{
    pecert_check_result r;
    pecert_check_result_init(&r, "rope.freq.golden");
    r.keep_cases = 1;
    r.n_cases = 2;
    r.n_unsupported = 1;
    ck_assert_int_eq(pecert_check_result_add_case(&r, PECERT_CASE_WITHIN, 0.25, "a: worst 0.25 of tol"), 0);
    ck_assert_int_eq(pecert_check_result_add_case(&r, PECERT_CASE_DECLINED, NAN, "b: rope_freqs declined: x"), 0);
    cJSON *json = pecert_check_result_to_json(&r);
    pecert_check_result back;
    char err[256];
    ck_assert_int_eq(pecert_check_result_from_json(&back, json, err, sizeof(err)), 0);
    ck_assert_uint_eq(back.n_case_records, 2);
    ck_assert_int_eq(back.cases[0].outcome, PECERT_CASE_WITHIN);
    ck_assert_double_eq(back.cases[0].ratio, 0.25);
    ck_assert_str_eq(back.cases[1].line, "b: rope_freqs declined: x");
    ck_assert(isnan(back.cases[1].ratio));
    pecert_check_result_release(&back);
    cJSON_Delete(json);
    /* a second declined record for one declined case */
    ck_assert_int_eq(pecert_check_result_add_case(&r, PECERT_CASE_DECLINED, NAN, "c: declined"), 0);
    json = pecert_check_result_to_json(&r);
    ck_assert_int_eq(pecert_check_result_from_json(&back, json, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "case_log") != NULL, "%s", err);
    cJSON_Delete(json);
    /* without keep_cases nothing is logged, and no case_log is written */
    pecert_check_result plain;
    pecert_check_result_init(&plain, "rope.freq.golden");
    ck_assert_int_eq(pecert_check_result_add_case(&plain, PECERT_CASE_WITHIN, 0.1, "x"), 0);
    ck_assert_uint_eq(plain.n_case_records, 0);
    json = pecert_check_result_to_json(&plain);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(json, "case_log"));
    cJSON_Delete(json);
    pecert_check_result_release(&r);
}
END_TEST

/* ---- JUnit -------------------------------------------------------------- */

START_TEST(junit_is_well_formed_with_one_testcase_per_check_per_plugin)
{
    pecert_report rep = {0};
    pecert_run_results a;
    pecert_run_results b;
    make_run(&a, "alpha", "diagnosis of alpha");
    make_run(&b, "beta", "diagnosis of beta");
    ck_assert_int_eq(pecert_report_add_run(&rep, &a, PECERT_ROLE_CERTIFY, "a.json"), 0);
    ck_assert_int_eq(pecert_report_add_run(&rep, &b, PECERT_ROLE_CERTIFY, "b.json"), 0);
    pecert_report_finish(&rep);
    char *junit = pecert_report_junit(&rep);
    ck_assert_ptr_nonnull(junit);
    char why[256];
    const char *problem = xml_problem(junit, why, sizeof(why));
    ck_assert_msg(problem == NULL, "not well-formed: %s\n%s", problem, junit);
    ck_assert(strncmp(junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 50) == 0);
    ck_assert_uint_eq(count(junit, "<testsuite "), 2);
    ck_assert_uint_eq(count(junit, "<testcase "), 10);
    ck_assert_ptr_nonnull(strstr(junit, "tests=\"10\" failures=\"2\" errors=\"4\" skipped=\"2\""));
    ck_assert_ptr_nonnull(strstr(junit, "<testcase classname=\"beta\" name=\"rope.apply.golden\""));
    /* failure message = the run's diagnosis, then the check's line;
     * unsupported is skipped, not passed */
    ck_assert_ptr_nonnull(
        strstr(junit, "<failure message=\"diagnosis: diagnosis of alpha | diagnosis of alpha\" type=\"fail\">"));
    ck_assert_ptr_nonnull(
        strstr(junit, "<error message=\"diagnosis: diagnosis of beta | diagnosis of beta\" type=\"timeout\">"));
    ck_assert_uint_eq(count(junit, "<skipped "), 2);
    free(junit);
    pecert_report_free(&rep);
}
END_TEST

START_TEST(mutants_pass_when_caught_and_fail_when_escaped)
{
    char catalogue[] = "/tmp/pecert-reports-catalogue-XXXXXX";
    test_make_temp_file(catalogue);
    test_write_text(catalogue, "{\"mutants\": [{\"name\": \"caught_one\", \"must_fail\": [\"rope.apply.golden\"], "
                          "\"finding\": \"pairing\"}, {\"name\": \"never_run\", \"must_fail\": [\"rope.freq.golden\"]}]}");
    pecert_report rep = {0};
    pecert_run_results m;
    make_run(&m, "caught_one", "planted");
    ck_assert_int_eq(pecert_report_add_run(&rep, &m, PECERT_ROLE_CERTIFY, "m.json"), 0);
    char err[512];
    ck_assert_int_eq(pecert_report_apply_catalogue(&rep, catalogue, err, sizeof(err)), 0);
    pecert_report_finish(&rep);
    ck_assert_uint_eq(rep.n_runs, 2);
    ck_assert(rep.runs[0].caught && rep.runs[0].diagnosed);
    ck_assert(rep.runs[1].not_run && !rep.runs[1].caught);
    ck_assert_int_eq(pecert_report_passed(&rep), 0); /* never_run escaped */
    char *junit = pecert_report_junit(&rep);
    ck_assert_ptr_nonnull(strstr(junit, "<testsuite name=\"mutants\" tests=\"2\" failures=\"1\""));
    free(junit);
    pecert_report_free(&rep);
    unlink(catalogue);
}
END_TEST

/* ---- separation ----------------------------------------------------------- */

/* A run of plugin name (id) whose only check, id check, has the given
 * verdict and worst ratio. */
static void one_check_run(pecert_run_results *res, const char *name, const char *id, const char *check,
                          pecert_verdict v, double ratio)
{
    memset(res, 0, sizeof(*res));
    snprintf(res->info.plugin_name, sizeof(res->info.plugin_name), "%s", name);
    snprintf(res->info.plugin_id, sizeof(res->info.plugin_id), "%s", id);
    res->info.shard_index = 1;
    res->info.shard_count = 1;
    add_check(res, check, v, "x");
    res->checks[0].worst_ratio = ratio;
    res->info.n_selected = 1;
}

/* Honest worst = the largest ratio of the honest runs (not of other
 * certified plugins), mutant least = the smallest of the mutants on either
 * base (NAME and NAME.f32), a crash counts as inf; goals 0.5 and 10. */
START_TEST(separation_takes_honest_worst_and_mutant_least_per_check)
{
    char catalogue[] = "/tmp/pecert-reports-catalogue-XXXXXX";
    test_make_temp_file(catalogue);
    test_write_text(catalogue, "{\"mutants\": [{\"name\": \"bug\", \"must_fail\": [\"rope.apply.golden\"]}]}");
    pecert_report rep = {0};
    pecert_run_results r;
    one_check_run(&r, "honest-a", "org.pecert.honest.a", "rope.apply.golden", PECERT_VERDICT_PASS, 0.3);
    ck_assert_int_eq(pecert_report_add_run(&rep, &r, PECERT_ROLE_CERTIFY, "a.json"), 0);
    one_check_run(&r, "honest-b", "org.pecert.honest.b", "rope.apply.golden", PECERT_VERDICT_PASS, 0.45);
    ck_assert_int_eq(pecert_report_add_run(&rep, &r, PECERT_ROLE_CERTIFY, "b.json"), 0);
    one_check_run(&r, "fast", "org.pecert.fast", "rope.apply.golden", PECERT_VERDICT_PASS, 0.9);
    ck_assert_int_eq(pecert_report_add_run(&rep, &r, PECERT_ROLE_CERTIFY, "f.json"), 0);
    one_check_run(&r, "bug", "org.pecert.mutant.bug", "rope.apply.golden", PECERT_VERDICT_FAIL, 40.0);
    ck_assert_int_eq(pecert_report_add_run(&rep, &r, PECERT_ROLE_CERTIFY, "m.json"), 0);
    one_check_run(&r, "bug.f32", "org.pecert.mutant.bug", "rope.apply.golden", PECERT_VERDICT_FAIL, 12.0);
    ck_assert_int_eq(pecert_report_add_run(&rep, &r, PECERT_ROLE_CERTIFY, "m32.json"), 0);
    char err[512];
    ck_assert_int_eq(pecert_report_apply_catalogue(&rep, catalogue, err, sizeof(err)), 0);
    pecert_report_finish(&rep);
    pecert_separation sep;
    ck_assert_int_eq(pecert_report_separation(&rep, &sep), 0);
    ck_assert_int_eq(sep.n_honest_runs, 2);
    ck_assert_int_eq(sep.n_mutant_runs, 2);
    ck_assert_uint_eq(sep.n_rows, 1);
    ck_assert_double_eq(sep.rows[0].honest_worst, 0.45);
    ck_assert_str_eq(sep.rows[0].honest_who, "honest-b");
    ck_assert_double_eq(sep.rows[0].mutant_least, 12.0);
    ck_assert_str_eq(sep.rows[0].mutant_who, "bug.f32");
    ck_assert(pecert_separation_row_meets_goal(&sep.rows[0]));
    sep.rows[0].honest_worst = 0.51;
    ck_assert(!pecert_separation_row_meets_goal(&sep.rows[0]));
    sep.rows[0].honest_worst = 0.45;
    sep.rows[0].mutant_least = 9.9;
    ck_assert(!pecert_separation_row_meets_goal(&sep.rows[0]));
    char *md = pecert_separation_markdown(&sep);
    ck_assert_ptr_nonnull(strstr(md, "| `rope.apply.golden` | 0.45 (`honest-b`) | 9.9 (`bug.f32`) | **missed** |"));
    free(md);
    pecert_separation_free(&sep);
    char *html = pecert_report_html(&rep);
    ck_assert_ptr_nonnull(strstr(html, "id=\"separation\""));
    free(html);
    pecert_report_free(&rep);
    unlink(catalogue);
}
END_TEST

/* ---- results model round trip ------------------------------------------- */

START_TEST(json_round_trip_keeps_points_heatmap_and_citations)
{
    pecert_run_results res;
    make_run(&res, "p", "text");
    pecert_check_result *r = &res.checks[0];
    ck_assert_int_eq(pecert_check_result_add_point(r, PECERT_AXIS_POSITION, 7, NAN, INFINITY), 0);
    cJSON *json = pecert_run_results_to_json(&res);
    char *first = cJSON_Print(json);
    pecert_run_results back;
    char err[256];
    pecert_id_rules ids = pecert_results_id_rules();
    ck_assert_int_eq(pecert_run_results_from_json(&back, json, &ids, err, sizeof(err)), 0);
    cJSON *again = pecert_run_results_to_json(&back);
    char *second = cJSON_Print(again);
    ck_assert_str_eq(first, second);
    ck_assert(isnan(back.checks[0].points[2].error));
    ck_assert(isinf(back.checks[0].heatmap.ratio[4]));
    ck_assert_str_eq(back.checks[0].vrefs[0].comment, "text");
    free(first);
    free(second);
    cJSON_Delete(json);
    cJSON_Delete(again);
    pecert_run_results_free(&res);
    pecert_run_results_free(&back);
}
END_TEST

/* ---- shards ------------------------------------------------------------- */

/* One shard of a run of a plugin that implements one op: every other check
 * is "not supported" at once, so the whole registry is cheap to walk. */
static void run_shard(pecert_run_results *res, int index, int count)
{
    char plugin[1024];
    char oracle[1024];
    char err[2048] = "";
    snprintf(plugin, sizeof(plugin), "%s/impls/testing/sin_interleaved.so", test_build_dir());
    snprintf(oracle, sizeof(oracle), "%s/impls/ref.so", test_build_dir());
    /* the split is by check index, whatever the vectors: one family's */
    pecert_run_options opt = {plugin, oracle, PECERT_SOURCE_DIR "/vectors/rope", NULL, test_check_timeout(30.0), NULL,
                              NULL};
    pecert_run_extras extras = {index, count, NULL, 0, 1, 0, NULL, PECERT_SANDBOX_ON};
    int status = pecert_run_ex(res, &opt, &extras, err, sizeof(err));
    ck_assert_msg(status == PECERT_EXIT_PASS || status == PECERT_EXIT_FAIL, "status %d: %s", status, err);
    ck_assert_int_eq(res->info.n_selected, (int)pecert_num_checks);
}

START_TEST(shards_cover_every_check_exactly_once)
{
    const int counts[] = {1, 2, 3, 7, (int)pecert_num_checks + 2};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        int n = counts[c];
        int *seen = calloc(pecert_num_checks, sizeof(*seen));
        ck_assert_ptr_nonnull(seen);
        for (int i = 1; i <= n; i++) {
            pecert_run_results res;
            run_shard(&res, i, n);
            for (size_t k = 0; k < res.n_checks; k++) {
                int32_t index = res.checks[k].index;
                ck_assert(index >= 0 && (size_t)index < pecert_num_checks);
                ck_assert_int_eq(index % n, i - 1); /* the documented split */
                ck_assert_str_eq(res.checks[k].check_id, pecert_checks[index]->id);
                seen[index]++;
            }
            pecert_run_results_free(&res);
        }
        for (size_t k = 0; k < pecert_num_checks; k++) {
            ck_assert_msg(seen[k] == 1, "%d shards: check %zu run %d times", n, k, seen[k]);
        }
        free(seen);
    }
}
END_TEST

/* The promise CI relies on: N shards merged = one unsharded run, to the
 * byte, in every format (timings zeroed: they differ between any runs). */
START_TEST(merged_shards_equal_an_unsharded_run_byte_for_byte)
{
    char dir[] = "/tmp/pecert-shards-XXXXXX";
    char out[16384];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *plugin = "impls/mutants/pairing_swapped.so"; /* failures, findings, plots */
    const char *vectors = test_family_vectors();
    ck_assert_int_eq(test_pecert(out, sizeof(out),
                                 "run --impl %s/%s --vectors %s --no-timings --quiet --json %s/one.json "
                                 "--html %s/one.html --junit %s/one.xml",
                                 test_build_dir(), plugin, vectors, dir, dir, dir),
                     1);
    for (int i = 1; i <= 3; i++) {
        int rc = test_pecert(out, sizeof(out), "run --impl %s/%s --vectors %s --no-timings --quiet --shard %d/3 "
                             "--json %s/s%d.json", test_build_dir(), plugin, vectors, i, dir, i);
        ck_assert_msg(rc == 0 || rc == 1, "shard %d: %d %s", i, rc, out);
    }
    /* shards in any order */
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/s3.json %s/s1.json %s/s2.json --no-timings -o %s/m.html "
                            "--json %s/m.json --junit %s/m.xml", dir, dir, dir, dir, dir, dir), 1);
    assert_same_outputs(dir, "one", "m");
    test_remove_dir(dir);
}
END_TEST

/* Several plugins, sharded differently, in one report; and a report's own
 * JSON renders to the same report again. */
START_TEST(report_merges_shards_per_plugin_and_round_trips)
{
    char dir[] = "/tmp/pecert-plugins-XXXXXX";
    char out[16384];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int i = 1; i <= 2; i++) {
        ck_assert_int_le(test_pecert(out, sizeof(out), "run --impl %s/impls/testing/sin_concat.so --quiet --shard %d/2 "
                                "--json %s/c%d.json", test_build_dir(), i, dir, i), 1);
    }
    ck_assert_int_le(test_pecert(out, sizeof(out), "run --impl %s/impls/testing/sin_t2t.so --quiet --json %s/t.json",
                            test_build_dir(), dir), 1);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/c2.json %s/t.json %s/c1.json -o %s/a.html --json %s/a.json "
                            "--junit %s/a.xml", dir, dir, dir, dir, dir, dir), 1);
    ck_assert_msg(strstr(out, "sin_concat") != NULL && strstr(out, "sin_t2t") != NULL, "%s", out);
    char *json = test_read_in(dir, "a.json");
    ck_assert_ptr_nonnull(strstr(json, "\"pecert-report/1\""));
    ck_assert_uint_eq(count(json, "\"certify\""), 2); /* two runs, shards merged */
    free(json);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/a.json -o %s/b.html --json %s/b.json --junit %s/b.xml",
                            dir, dir, dir, dir), 1);
    assert_same_outputs(dir, "a", "b");
    test_remove_dir(dir);
}
END_TEST

/* ---- bad input: one line naming the file, exit 2, nothing written -------- */

/* Runs `pecert report INPUTS` with all three outputs in a fresh directory;
 * asserts exit 2, a single line naming `names`, and no output file. */
static void assert_report_refuses(const char *inputs, const char *names, const char *says)
{
    char dir[] = "/tmp/pecert-refuse-XXXXXX";
    char out[16384];
    char path[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    int rc = test_pecert(out, sizeof(out), "report %s -o %s/r.html --junit %s/r.xml --json %s/r.json", inputs, dir,
                    dir, dir);
    ck_assert_msg(rc == 2, "exit %d: %s", rc, out);
    ck_assert_msg(strncmp(out, "pecert: ", 8) == 0 && strchr(out, '\n') == out + strlen(out) - 1,
                  "not one line: %s", out);
    ck_assert_msg(strstr(out, names) != NULL && strstr(out, says) != NULL, "want '%s' and '%s' in: %s", names,
                  says, out);
    const char *ext[3] = {"html", "xml", "json"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/r.%s", dir, ext[i]);
        ck_assert_msg(!exists(path), "%s written despite bad input", path);
    }
    test_remove_dir(dir);
}

/* A results file (one shard of sin_interleaved) for the error tests. */
static void good_results(char *path, size_t len, const char *name, int index, int count)
{
    char out[16384];
    snprintf(path, len, "/tmp/pecert-good-%d-%s-%d-%d.json", (int)getpid(), name, index, count);
    ck_assert_int_le(test_pecert(out, sizeof(out), "run --impl %s/impls/testing/sin_interleaved.so --quiet --shard %d/%d "
                            "--json %s", test_build_dir(), index, count, path), 1);
}

START_TEST(report_refuses_a_missing_file)
{
    char good[256];
    good_results(good, sizeof(good), "m", 1, 1);
    char inputs[600];
    snprintf(inputs, sizeof(inputs), "%s /nonexistent/results.json", good);
    assert_report_refuses(inputs, "/nonexistent/results.json", "cannot open: No such file or directory");
    unlink(good);
}
END_TEST

START_TEST(report_refuses_a_wrong_schema_or_bad_json)
{
    char bad[] = "/tmp/pecert-bad-XXXXXX";
    test_make_temp_file(bad);
    test_write_text(bad, "{\"schema\": \"pecert-vectors/1\", \"checks\": []}");
    assert_report_refuses(bad, bad, "schema");
    test_write_text(bad, "{\"schema\": \"pecert-results/1\", \"plugin\": {\"name\": \"x\"}, \"checks\": [{\"check\": 3}]}");
    assert_report_refuses(bad, bad, "checks[0]");
    test_write_text(bad, "{\"schema\": \"pecert-results/1\", \"plugin\": ");
    assert_report_refuses(bad, bad, "not valid JSON");
    /* A second key was added by hand: which one a reader sees is a guess. */
    test_write_text(bad, "{\"schema\": \"pecert-results/1\", \"checks\": [{\"check\": \"a\", \"verdict\": \"fail\","
                    " \"verdict\": \"pass\"}]}");
    assert_report_refuses(bad, bad, "checks[0].verdict: duplicate key");
    unlink(bad);
}
END_TEST

/* A results file edited by hand is held to what pecert writes: every check
 * of its selection exactly once (a deleted failing check, "checks": []),
 * pecert's own check ids once each, counts that are integers and add up, a
 * heatmap within its cell bound, no more checks than pecert has (the
 * memory a file can cost). */
#define RESULTS_WITH(selected, checks)                                                                  \
    "{\"schema\": \"pecert-results/1\", \"plugin\": {\"name\": \"x\"}, \"selection\": {\"filter\": \"\","          \
    " \"shard_index\": 1, \"shard_count\": 1, \"selected\": " selected "}, \"checks\": [" checks "]}"
#define PASSING(id, index)                                                                                          \
    "{\"check\": \"" id "\", \"verdict\": \"pass\", \"cases\": 3, \"worst_ratio\": 0.5, \"index\": " index "}"

START_TEST(report_refuses_an_edited_results_file)
{
    char bad[] = "/tmp/pecert-edited-XXXXXX";
    test_make_temp_file(bad);
    test_write_text(bad, RESULTS_WITH("2", PASSING("rope.inverse", "0")));
    assert_report_refuses(bad, bad, "the file holds 1 checks, the selection has 2 (a check was removed from it)");
    test_write_text(bad, RESULTS_WITH("35", ""));
    assert_report_refuses(bad, bad, "the file holds 0 checks, the selection has 35");
    test_write_text(bad, RESULTS_WITH("2", PASSING("rope.inverse", "0") "," PASSING("rope.inverse", "1")));
    assert_report_refuses(bad, bad, "checks[1].check: 'rope.inverse' appears twice");
    test_write_text(bad, RESULTS_WITH("1", PASSING("rope.forged", "0")));
    assert_report_refuses(bad, bad, "checks[0].check: 'rope.forged' is not a pecert check");
    test_write_text(bad, RESULTS_WITH("1", "{\"check\": \"rope.inverse\", \"verdict\": \"pass\", \"cases\": 1e300}"));
    assert_report_refuses(bad, bad, "is not an integer in [0, 2^53]");
    test_write_text(bad, RESULTS_WITH("1", "{\"check\": \"rope.inverse\", \"verdict\": \"pass\", \"cases\": \"nan\"}"));
    assert_report_refuses(bad, bad, "is not an integer in [0, 2^53]");
    test_write_text(bad, RESULTS_WITH("1", "{\"check\": \"rope.inverse\", \"verdict\": \"fail\", \"cases\": 1, \"failed\": 2}"));
    assert_report_refuses(bad, bad, "counts do not add up");
    test_write_text(bad, RESULTS_WITH("1", "{\"check\": \"rope.apply.golden\", \"verdict\": \"pass\", \"cases\": 1, "
                                      "\"worst_ratio\": 0.5, \"heatmap\": "
                                      "{\"rows\": 4294967296, \"cols\": 4294967296, \"ratio\": []}}"));
    assert_report_refuses(bad, bad, "malformed 'heatmap'");
    /* 50,000 checks in 1.5 MB took 747 MB: now refused before any is read. */
    size_t cap = 50000 * 64 + 4096;
    char *big = malloc(cap);
    ck_assert_ptr_nonnull(big);
    size_t n = (size_t)snprintf(big, cap, "{\"schema\": \"pecert-results/1\", \"plugin\": {\"name\": \"x\"}, \"checks\": [");
    for (int i = 0; i < 50000; i++) {
        n += (size_t)snprintf(big + n, cap - n, "%s{\"check\": \"rope.inverse\", \"verdict\": \"pass\"}", i ? "," : "");
    }
    snprintf(big + n, cap - n, "]}");
    test_write_text(bad, big);
    free(big);
    assert_report_refuses(bad, bad, "checks: more than");
    /* More checks than a run can hold (each check once per layer type):
     * refused before any is read. */
    size_t too_many = pecert_known_check_count() + 1;
    size_t more_cap = too_many * 32 + 256;
    char *more = malloc(more_cap);
    ck_assert_ptr_nonnull(more);
    size_t m = (size_t)snprintf(more, more_cap, "{\"schema\": \"pecert-results/1\", \"plugin\": {\"name\": \"x\"}, \"checks\": [");
    for (size_t i = 0; i < too_many; i++) {
        m += (size_t)snprintf(more + m, more_cap - m, "%s{\"check\": \"rope.inverse\"}", i ? "," : "");
    }
    snprintf(more + m, more_cap - m, "]}");
    test_write_text(bad, more);
    free(more);
    char says[96];
    snprintf(says, sizeof(says), "checks: more than %zu checks, the most a pecert run holds", too_many - 1);
    assert_report_refuses(bad, bad, says);
    /* ... and a report file of 20,000 one-check runs (3 MB, 680 MiB once
     * loaded): more runs than a report holds, refused before the parse. */
    cap = 20000 * 200 + 4096;
    big = malloc(cap);
    ck_assert_ptr_nonnull(big);
    n = (size_t)snprintf(big, cap, "{\"schema\": \"pecert-report/1\", \"runs\": [");
    for (int i = 0; i < 20000; i++) {
        n += (size_t)snprintf(big + n, cap - n,
                              "%s{\"role\": \"certify\", \"results\": {\"schema\": \"pecert-results/1\", \"plugin\": "
                              "{\"name\": \"x%d\"}, \"checks\": [{\"check\": \"rope.inverse\", \"verdict\": \"pass\"}]}}",
                              i ? "," : "", i);
    }
    snprintf(big + n, cap - n, "]}");
    test_write_text(bad, big);
    free(big);
    assert_report_refuses(bad, bad, "more than 4096 runs, the most a report holds: not a file pecert wrote");
    unlink(bad);
}
END_TEST

/* A check's verdict is what its own counts and records allow: a "pass"
 * beside a failed case, a value failure record, an infinite or NaN worst
 * ratio or no answered case is refused, naming the check (the verdict
 * flipped by hand in one --json file once read PASS, exit 0). A stored
 * verdict worse than its record (a crash after passing cases) stands. */
START_TEST(report_refuses_a_verdict_its_record_contradicts)
{
    char bad[] = "/tmp/pecert-verdict-XXXXXX";
    test_make_temp_file(bad);
    /* The check, after "rope.inverse", and what is refused. */
#define CHECK_WITH(fields) RESULTS_WITH("1", "{\"check\": \"rope.inverse\", \"index\": 0, " fields "}")
    static const struct {
        const char *results;
        const char *says;
    } forged[] = {
        {CHECK_WITH("\"verdict\": \"pass\", \"cases\": 3, \"failed\": 1"),
         "checks[0]: rope.inverse: verdict \"pass\" contradicts its own record: failed 1 of 3"},
        {CHECK_WITH("\"verdict\": \"pass\", \"cases\": 3, \"worst_ratio\": \"inf\""),
         "rope.inverse: verdict \"pass\" contradicts its own record: worst error/bound ratio inf"},
        {CHECK_WITH("\"verdict\": \"pass\", \"cases\": 3, \"worst_ratio\": \"nan\""),
         "worst error/bound ratio missing or NaN"},
        {CHECK_WITH("\"verdict\": \"pass\", \"cases\": 3, \"failures\": [{\"kind\": \"value\", \"line\": "
                    "\"x: NaN\", \"error\": \"nan\"}]"),
         "rope.inverse: verdict \"pass\" contradicts its own record: a failure record of kind value (x: NaN)"},
        {CHECK_WITH("\"verdict\": \"pass\", \"cases\": 3, \"unsupported\": 3"), "no case was answered"},
        {CHECK_WITH("\"verdict\": \"unsupported\", \"cases\": 3, \"failed\": 2"),
         "verdict \"unsupported\" contradicts its own record: failed 2 of 3"},
    };
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
        test_write_text(bad, forged[i].results);
        assert_report_refuses(bad, bad, forged[i].says);
    }
    /* Worse than the record: a crash after three passing cases is read. */
    test_write_text(bad, CHECK_WITH("\"verdict\": \"crash\", \"cases\": 3"));
#undef CHECK_WITH
    char out[16384];
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s", bad), 1);
    unlink(bad);
}
END_TEST

/* Reads path as JSON (the test fails when it is not). */
static cJSON *read_json(const char *path)
{
    char *text = test_read_file(path);
    cJSON *root = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(root);
    return root;
}

static void write_json(const char *path, const cJSON *root)
{
    char *text = cJSON_Print(root);
    test_write_text(path, text);
    free(text);
}

/* The merge holds shards to how `pecert run --shard` deals checks: a check
 * moved to another shard's file, a check renamed to an id another shard
 * holds, a shard count of 0 or 2^40 (which once read as one whole run),
 * "\u0000" in a check id and text after the JSON value are refused. */
START_TEST(report_refuses_shards_edited_by_hand)
{
    char s1[256];
    char s2[256];
    char inputs[600];
    good_results(s1, sizeof(s1), "e", 1, 2);
    good_results(s2, sizeof(s2), "e", 2, 2);
    snprintf(inputs, sizeof(inputs), "%s %s", s1, s2);
    char *one = test_read_file(s1);
    char *two = test_read_file(s2);
    /* Moved: shard 2's first check into shard 1's file. */
    cJSON *a = read_json(s1);
    cJSON *b = read_json(s2);
    cJSON *moved = cJSON_DetachItemFromArray(cJSON_GetObjectItem(b, "checks"), 0);
    cJSON_AddItemToArray(cJSON_GetObjectItem(a, "checks"), moved);
    write_json(s1, a);
    write_json(s2, b);
    assert_report_refuses(inputs, s1, "is not one shard 1/2 holds");
    cJSON_Delete(a);
    cJSON_Delete(b);
    /* Renamed: shard 2's first check takes the id of shard 1's first. */
    test_write_text(s1, one);
    test_write_text(s2, two);
    a = read_json(s1);
    b = read_json(s2);
    const char *id = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(a, "checks"), 0), "check")->valuestring;
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(b, "checks"), 0), "check", cJSON_CreateString(id));
    write_json(s2, b);
    assert_report_refuses(inputs, "appears twice in the shards", id);
    cJSON_Delete(b);
    test_write_text(s2, two);
    /* A shard count of 0, or of 2^40 (an int of 0 once cast). */
    const char *counts[] = {"0", "1099511627776", "4097", "-1", "1.5"};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(a, "selection"), "shard_count",
                                  cJSON_Parse(counts[i]));
        write_json(s1, a);
        assert_report_refuses(s1, s1, "selection.shard_count: not an integer in 1..4096");
    }
    cJSON_Delete(a);
    /* "\u0000" in a check id; text after the JSON value. */
    char *cut = malloc(strlen(one) + 64);
    ck_assert_ptr_nonnull(cut);
    char *at = strstr(one, "\"check\":");
    ck_assert_ptr_nonnull(at);
    at = strchr(at + strlen("\"check\":"), '"');
    ck_assert_ptr_nonnull(at);
    at++;
    snprintf(cut, strlen(one) + 64, "%.*s\\u0000%s", (int)(at - one), one, at);
    test_write_text(s1, cut);
    assert_report_refuses(s1, s1, "\\u0000 in a string at offset");
    snprintf(cut, strlen(one) + 64, "%s{\"checks\": []}", one);
    test_write_text(s1, cut);
    assert_report_refuses(s1, s1, "text after the JSON value");
    free(cut);
    free(one);
    free(two);
    unlink(s1);
    unlink(s2);
}
END_TEST

/* The outputs are written all or none: when the JSON cannot be created
 * (its directory is /proc), the HTML written before it is not put in place
 * and no temporary file is left; a good write leaves only the targets,
 * with the mode fopen would give them. */
START_TEST(report_outputs_are_all_or_none)
{
    char dir[] = "/tmp/pecert-allnone-XXXXXX";
    char path[512];
    char cmd[2048];
    static char out[1 << 16];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/a.html", dir);
    test_write_text(path, "old");
    ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --filter rope.inverse --json %s/good.json", dir), 0);
    int rc = test_pecert(out, sizeof(out), "report %s/good.json -o %s/a.html --json /proc/pecert-x.json", dir, dir);
    ck_assert_msg(rc == 2 && strstr(out, "/proc/pecert-x.json: cannot create") != NULL, "exit %d: %s", rc, out);
    char *html = test_read_file(path);
    ck_assert_str_eq(html, "old");
    free(html);
    snprintf(cmd, sizeof(cmd), "ls -A %s | grep -c pecert-tmp", dir);
    ck_assert_int_ne(system(cmd), 0); /* grep found none */
    /* What a SIGKILLed pecert left (pid 2^22 + 1 runs nowhere: above
     * pid_max's ceiling) goes at the next write; a live one's stays. */
    snprintf(path, sizeof(path), "%s/.a.html.pecert-tmp-4194305-AbCdEf", dir);
    test_write_text(path, "stale");
    snprintf(path, sizeof(path), "%s/.a.html.pecert-tmp-1-AbCdEf", dir); /* init: alive */
    test_write_text(path, "live");
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/good.json -o %s/a.html --junit %s/j.xml", dir, dir, dir), 0);
    unlink(path);
    snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s | tr '\\n' ' ')\" = 'a.html good.json j.xml ' && "
                               "test \"$(stat -c %%a %s/a.html)\" = \"$(umask -S >/dev/null; printf '%%o' $((0666 & ~$(umask))))\"",
             dir, dir);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
    test_remove_dir(dir);
}
END_TEST

START_TEST(report_refuses_incomplete_or_repeated_shards)
{
    char s1[256];
    char s3[256];
    good_results(s1, sizeof(s1), "s", 1, 3);
    good_results(s3, sizeof(s3), "s", 3, 3);
    char inputs[600];
    snprintf(inputs, sizeof(inputs), "%s %s", s1, s3);
    assert_report_refuses(inputs, "sin_interleaved", "shard 2/3 missing");
    snprintf(inputs, sizeof(inputs), "%s %s", s1, s1);
    assert_report_refuses(inputs, s1, "shard 1/3 given twice");
    unlink(s1);
    unlink(s3);
}
END_TEST

START_TEST(run_refuses_a_bad_shard)
{
    char out[16384];
    const char *bad[] = {"0/3", "4/3", "x", "2/", "1/0"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(test_pecert(out, sizeof(out), "run --impl ref --shard %s", bad[i]), 2);
        ck_assert_ptr_nonnull(strstr(out, "--shard"));
    }
}
END_TEST

/* ---- the Speed section (--bench) ------------------------------------------ */

#define BENCH_FIXTURE PECERT_SOURCE_DIR "/tests/data/bench-small.json"
#define PEERS_FIXTURE PECERT_SOURCE_DIR "/tests/data/bench-peers-small.json"

#define NUM(text) "<td class=\"num\">" text "</td>"
#define DASH NUM("&#8211;")
#define US "&#160;&#181;s"
#define MS "&#160;ms"
#define TIMES "&#215;"

/*
 * What the Speed section must show for the two hand-written fixtures,
 * every figure worked out on paper from the numbers in the files. q[T, 32,
 * 128] in f32 is T * 16384 bytes (T=4096: 67108864); the files' GB/s count
 * bytes read and written (2 * bytes / median / 1e9); % of the limit is
 * 100 * GB/s / limit GB/s; x ref is the file's speedup_vs_ref (ref's
 * median / this median).
 */
static const char *const speed_figures[] = {
    /* T=1, 1 thread, out of place, split-half: 0.4 us; 2 * 16384 / 0.4e-6
     * = 81.92 GB/s over the copy limit 163.84 = 50.0%; ref 8 us / 0.4 us =
     * 20.0x. The other placements and pairings have no T=1 case. */
    "<tr>" NUM("1") NUM("1") NUM("0.40" US) NUM("50.0%") NUM("20.0" TIMES) DASH DASH DASH DASH DASH DASH DASH DASH
        DASH "</tr>",
    /* T=4096, 1 thread, ref's medians all 50 ms:
     * out of place split-half 2 ms: 67.108864 / 83.88608 = 80.0%, 25.0x;
     * out of place interleaved 2.5 ms: 53.6870912 / 83.88608 = 64.0%, 20.0x;
     * in place split-half 2.5 ms: 53.6870912 / 67.108864 (rmw) = 80.0%, 20.0x;
     * in place interleaved 4 ms: 33.554432 / 67.108864 = 50.0%, 12.5x. */
    "<tr>" NUM("4096") NUM("1") NUM("2.000" MS) NUM("80.0%") NUM("25.0" TIMES) NUM("2.500" MS) NUM("64.0%")
        NUM("20.0" TIMES) NUM("2.500" MS) NUM("80.0%") NUM("20.0" TIMES) NUM("4.000" MS) NUM("50.0%")
            NUM("12.5" TIMES) "</tr>",
    /* T=4096, 2 threads: out of place split-half 1 ms: 134.217728 /
     * 214.7483648 = 62.5%, 50.0x; interleaved 1.25 ms: 107.3741824 /
     * 214.7483648 = 50.0%, 40.0x; in place split-half 2 ms: 67.108864 /
     * 83.88608 = 80.0%, 25.0x; in place interleaved: no case. */
    "<tr>" NUM("4096") NUM("2") NUM("1.000" MS) NUM("62.5%") NUM("50.0" TIMES) NUM("1.250" MS) NUM("50.0%")
        NUM("40.0" TIMES) NUM("2.000" MS) NUM("80.0%") NUM("25.0" TIMES) DASH DASH DASH "</tr>",
    /* The other table: f32 rotary 64, in place, interleaved, 2 threads,
     * 3.2 ms: 134.217728 / 3.2e6 = 41.94304 GB/s over 52.4288 = 80.0%; f16
     * (T * 8192 bytes: 33554432) in 1.6 ms: 41.94304 / 83.88608 = 50.0%. */
    "<th class=\"row\">f32, rotary 64, in place, interleaved</th>" NUM("2")
        "<td class=\"num\">3.200" MS " <span class=\"muted\">80.0%</span></td></tr>",
    "<th class=\"row\">f16, rotary 128, out of place, split-half</th>" NUM("1")
        "<td class=\"num\">1.600" MS " <span class=\"muted\">50.0%</span></td></tr>",
    /* M-RoPE, 4 ms: 33.554432 / 83.88608 = 40.0%, 12.5x. */
    "<td>16/24/24</td>" NUM("1") "<td>out of place, split-half</td><td>f32</td>" NUM("4.000" MS) NUM("40.0%")
        "<td>copy</td>" NUM("12.5" TIMES),
    /* 2-D vision RoPE, 4 ms: 33.554432 / 41.94304 = 80.0%, 80x. */
    "<td>blocks, 64 wide</td>" NUM("2") "<td>in place, split-half</td><td>f32</td>" NUM("4.000" MS) NUM("80.0%")
        "<td>copy_nt</td>" NUM("80.0" TIMES),
    /* cos/sin table: 0.2 ms against ref's 20 ms = 100.0x; ref's own: a dash. */
    "<td>fast</td>" NUM("4096") NUM("64") NUM("1") NUM("200.00" US) NUM("100.0" TIMES),
    "<td>ref</td>" NUM("4096") NUM("64") NUM("1") NUM("20.000" MS) DASH,
    /* accuracy: positions 0 .. 0 + 4096 - 1 */
    NUM("0") NUM("4095") NUM("2.98e-08"),
    /* ALiBi, 524288 bytes written: ref 0.5 ms = 1.048576 GB/s over the
     * fill limit 65.536 = 1.6%; fast 0.1 ms = 5.24288 GB/s = 8.0%, 5.0x. */
    "<td>ref</td><td>[32, 1, 4096]</td>" NUM("1") NUM("500.00" US) NUM("1.05") NUM("1.6%") DASH,
    "<td>fast</td><td>[32, 1, 4096]</td>" NUM("1") NUM("100.00" US) NUM("5.24") NUM("8.0%") NUM("5.0" TIMES),
    /* the decode session: figures as measured (ref 20 ms, fast 2 ms and the
     * 10x it wrote); the prefill, steps and work in the heading */
    "a prefill of 1024 tokens in one append, then 64 one-token decode steps (0.1 GFLOP",
    "<td>ref</td><td>32 heads, 8 kv heads, head_dim 128</td>" NUM("1") NUM("20.000" MS) NUM("5.00") DASH,
    "<td>fast</td><td>32 heads, 8 kv heads, head_dim 128</td>" NUM("2") NUM("2.000" MS) NUM("50.00") NUM("10.0" TIMES),
    /* other families: the figures as written; ref's row has no limit (a
     * dash), cope_logits is marked as bound by arithmetic */
    "<td>t5_bucket</td><td>[2048 x 2048] i64 -&gt; i32</td><td>ref</td>" NUM("1") NUM("10.000" MS) NUM("1.00")
        "<td class=\"num\">&#8212;</td><td></td>" DASH,
    "<td>t5_bucket</td><td>[2048 x 2048] i64 -&gt; i32</td><td>fast</td>" NUM("2") NUM("1.000" MS) NUM("10.00")
        NUM("25.0%") "<td>copy_nt</td>" NUM("10.0" TIMES),
    "<td>cope_logits &#8224;</td>",
    /* machine_load: 25% > 5% at T=4096 is a disturbed run; 1% at T=1 is not */
    "<li>T=4096: other processes used 25% of the CPUs</li></ul>",
    /* targets: worst out-of-place case 50% (of 80, 64, 62.5, 50) */
    "% of the copy limit</th>" NUM("50%") NUM("&#8805; 90%") NUM("0 of 4")
        "<td><span class=\"badge b-fail\">missed</span></td>",
    "split-half / interleaved time, T &#8805; 512</th>" NUM("0.8&#160;x") NUM("&#8804; 1.05&#160;x") NUM("3 of 3")
        "<td><span class=\"badge b-pass\">met</span></td>",
    /* peers: 2 ms / 4 ms = 0.50 (fast faster), 1.25 ms / 1 ms = 1.25 */
    "<td>meta</td>" NUM("4.000" MS) NUM("2.000" MS) "<td class=\"num err-ok\">0.50</td>",
    "<td>hf</td>" NUM("1.000" MS) NUM("1.250" MS) "<td class=\"num err-bad\">1.25</td>",
    /* the machine, escaped */
    "<td>Test CPU &lt;model&gt; &amp; co</td>",
    /*
     * The plot, out of place, split-half, 1 thread: (T=1, 50%) to (T=4096,
     * 80%). The frame spans x 62..626 (564 px) and y 24..210 (186 px for
     * 0..100%); x is log10 T padded by 4% of the range on each side, so
     * T=1 sits 0.04 / 1.08 = 1/27 of the way across: 62 + 564 / 27 = 82.9,
     * and T=4096 at 26/27: 62 + 543.1 = 605.1; y(50%) = 210 - 93 = 117.0,
     * y(80%) = 210 - 148.8 = 61.2.
     */
    "<path class=\"line s0\" d=\"M82.9 117.0L605.1 61.2\"/>",
    /* targets dotted: 90% at 210 - 0.9 * 186 = 42.6 (out of place, blue);
     * 85% at 210 - 0.85 * 186 = 51.9 (in place, colour 2 after 2 thread counts) */
    "<path class=\"level s0\" d=\"M62 42.6H626\"/>",
    "<path class=\"level s2\" d=\"M62 51.9H626\"/>",
    "90% target, out of place</text>",
    "85% target, in place</text>",
};

/* A report of one run (make_run) rendered with bench; the HTML. */
static char *render_with_bench(const pecert_bench *bench)
{
    pecert_report rep = {0};
    pecert_run_results res;
    make_run(&res, "alpha", "diagnosis of alpha");
    ck_assert_int_eq(pecert_report_add_run(&rep, &res, PECERT_ROLE_CERTIFY, "a.json"), 0);
    pecert_report_finish(&rep);
    rep.bench = bench;
    char *html = pecert_report_html(&rep);
    ck_assert_ptr_nonnull(html);
    pecert_report_free(&rep);
    return html;
}

START_TEST(speed_section_shows_the_figures_of_the_bench_files)
{
    pecert_bench bench;
    char err[1024];
    memset(&bench, 0, sizeof(bench));
    ck_assert_msg(pecert_bench_load_file(&bench, PEERS_FIXTURE, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(pecert_bench_load_file(&bench, BENCH_FIXTURE, err, sizeof(err)) == 0, "%s", err);
    char *html = render_with_bench(&bench);
    const char *speed = strstr(html, "<section id=\"speed\">");
    ck_assert_ptr_nonnull(speed);
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"#speed\">Speed</a>"));
    for (size_t i = 0; i < sizeof(speed_figures) / sizeof(speed_figures[0]); i++) {
        ck_assert_msg(strstr(speed, speed_figures[i]) != NULL, "figure %zu missing: %s", i, speed_figures[i]);
    }
    ck_assert_ptr_null(strstr(speed, "<tr>" NUM("1") NUM("2"))); /* no T=1 case with 2 threads */
    ck_assert_ptr_null(strstr(speed, "T=1: other processes"));
    ck_assert_ptr_nonnull(strstr(speed, "<svg class=\"plot\""));
    ck_assert_ptr_null(strstr(speed, "<script"));
    /* f32 rows first, then f16 */
    ck_assert(strstr(speed, "f32, rotary 64") < strstr(speed, "f16, rotary 128"));
    ck_assert_uint_eq(count(speed, "b-pass\">met"), 5);
    ck_assert_uint_eq(count(speed, "b-fail\">missed"), 2);
    free(html);
    pecert_bench_free(&bench);
}
END_TEST

/* The fixture with its JSON path `path` set to json (NULL: removed). */
static void write_bench_variant(const char *out, const char *fixture, const char *path, const char *json)
{
    char *text = test_read_file(fixture);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    cJSON *node = root;
    char key[64];
    const char *p = path;
    for (;;) { /* down to the parent of the last key; "a.b[2].c" */
        size_t n = strcspn(p, ".[");
        snprintf(key, sizeof(key), "%.*s", (int)n, p);
        p += n;
        if (*p == '\0') {
            break;
        }
        node = cJSON_GetObjectItemCaseSensitive(node, key);
        if (*p == '[') {
            node = cJSON_GetArrayItem(node, atoi(p + 1));
            p = strchr(p, ']') + 1;
        }
        ck_assert_msg(node != NULL, "%s: no %s", fixture, path);
        p += *p == '.';
    }
    if (json == NULL) {
        cJSON_DeleteItemFromObjectCaseSensitive(node, key);
    } else {
        ck_assert(cJSON_ReplaceItemInObjectCaseSensitive(node, key, cJSON_Parse(json)));
    }
    char *printed = cJSON_Print(root);
    test_write_text(out, printed);
    free(printed);
    cJSON_Delete(root);
    free(text);
}

START_TEST(speed_section_without_mrope_or_peers)
{
    char path[] = "/tmp/pecert-bench-XXXXXX";
    test_make_temp_file(path);
    write_bench_variant(path, BENCH_FIXTURE, "mrope", NULL);
    char path2[] = "/tmp/pecert-bench-XXXXXX";
    test_make_temp_file(path2);
    write_bench_variant(path2, path, "rope2d", NULL);
    unlink(path);
    write_bench_variant(path, path2, "session", NULL);
    unlink(path2);
    pecert_bench bench;
    char err[1024];
    memset(&bench, 0, sizeof(bench));
    ck_assert_msg(pecert_bench_load_file(&bench, path, err, sizeof(err)) == 0, "%s", err);
    char *html = render_with_bench(&bench);
    ck_assert_ptr_nonnull(strstr(html, "id=\"speed-rope-f32\""));
    ck_assert_ptr_null(strstr(html, "M-RoPE"));
    ck_assert_ptr_null(strstr(html, "speed-rope2d"));
    ck_assert_ptr_null(strstr(html, "Next to PyTorch"));
    ck_assert_ptr_null(strstr(html, "speed-session"));
    free(html);
    pecert_bench_free(&bench);
    unlink(path);
}
END_TEST

/* What `pecert bench --only session` writes is what the Speed section
 * reads: the decode session of fast alone, one sample, one thread. */
START_TEST(bench_session_rows_load_and_show)
{
    char path[] = "/tmp/pecert-bench-XXXXXX";
    char out[8192];
    char err[1024];
    pecert_bench bench;

    test_make_temp_file(path);
    ck_assert_msg(test_pecert(out, sizeof(out), "bench --only session --baseline none --threads 1 --reps 1 "
                                                "--tokens 1 --json %s", path) == 0, "%s", out);
    memset(&bench, 0, sizeof(bench));
    ck_assert_msg(pecert_bench_load_file(&bench, path, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(bench.run.n_session, 1);
    ck_assert_str_eq(bench.run.session[0].impl, "fast");
    ck_assert_int_eq(bench.run.session[0].heads, 32);
    ck_assert_int_eq(bench.run.session[0].prefill, 1024);
    ck_assert(bench.run.session[0].gflops > 0 && isnan(bench.run.session[0].speedup_vs_ref));
    ck_assert_uint_eq(bench.run.n_alibi, 0);
    char *html = render_with_bench(&bench);
    ck_assert_ptr_nonnull(strstr(html, "id=\"speed-session\""));
    free(html);
    pecert_bench_free(&bench);
    unlink(path);
}
END_TEST

/* --bench changes the HTML only: the JSON and JUnit stay byte for byte. */
START_TEST(bench_files_change_the_html_only)
{
    char dir[] = "/tmp/pecert-speed-XXXXXX";
    char out[16384];
    char good[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    good_results(good, sizeof(good), "speed", 1, 1);
    ck_assert_int_le(test_pecert(out, sizeof(out), "report %s --quiet -o %s/a.html --json %s/a.json --junit %s/a.xml", good,
                            dir, dir, dir), 1);
    ck_assert_int_le(test_pecert(out, sizeof(out), "report %s --bench %s --bench %s --quiet -o %s/b.html --json %s/b.json "
                            "--junit %s/b.xml", good, PEERS_FIXTURE, BENCH_FIXTURE, dir, dir, dir), 1);
    char a[256];
    char b[256];
    snprintf(a, sizeof(a), "%s/a.json", dir);
    snprintf(b, sizeof(b), "%s/b.json", dir);
    assert_same_file(a, b);
    snprintf(a, sizeof(a), "%s/a.xml", dir);
    snprintf(b, sizeof(b), "%s/b.xml", dir);
    assert_same_file(a, b);
    snprintf(a, sizeof(a), "%s/a.html", dir);
    snprintf(b, sizeof(b), "%s/b.html", dir);
    char *without = test_read_file(a);
    char *with = test_read_file(b);
    ck_assert_ptr_null(strstr(without, "id=\"speed\""));
    ck_assert_ptr_nonnull(strstr(with, "<section id=\"speed\">"));
    ck_assert_ptr_nonnull(strstr(with, "Next to PyTorch"));
    free(without);
    free(with);
    unlink(good);
    test_remove_dir(dir);
}
END_TEST

/* A fixture with one field changed, and what the one line must say. */
static const struct bad_bench {
    const char *fixture;
    const char *path;
    const char *json;       /* the new value; NULL: the field removed */
    const char *says;
} bad_bench[] = {
    {BENCH_FIXTURE, "schema", "\"pecert-bench/2\"",
     "schema: expected \"pecert-bench/1\" or \"pecert-bench-peers/1\", found \"pecert-bench/2\""},
    {BENCH_FIXTURE, "cases", NULL, ": cases: missing"},
    {BENCH_FIXTURE, "cases[2].time.median_s", "\"fast\"",
     ": cases[2].time.median_s: expected a finite number, found a string"},
    {BENCH_FIXTURE, "cases[1].tokens", "2.5", ": cases[1].tokens: expected a whole number, found a number (2.5)"},
    {BENCH_FIXTURE, "machine", NULL, ": machine: missing"},
    {BENCH_FIXTURE, "targets.table_ms.met", "1", ": targets.table_ms.met: expected true or false, found a number"},
    {BENCH_FIXTURE, "mrope[0].section", "[16, 24]", ": mrope[0].section: expected an array of three whole numbers"},
    {BENCH_FIXTURE, "rope2d[0].grid_width", NULL, ": rope2d[0].grid_width: missing"},
    {BENCH_FIXTURE, "alibi", "{}", ": alibi: expected an array, found an object"},
    {PEERS_FIXTURE, "summary[1].fast_over_torch", "\"1.25\"",
     ": summary[1].fast_over_torch: expected a finite number, found a string"},
    {PEERS_FIXTURE, "torch", NULL, ": torch: missing"},
};

#define N_BAD_BENCH ((int)(sizeof(bad_bench) / sizeof(bad_bench[0])))

START_TEST(report_refuses_a_malformed_bench_file)
{
    const struct bad_bench *t = &bad_bench[_i];
    char bad[] = "/tmp/pecert-bad-bench-XXXXXX";
    char good[256];
    char inputs[600];
    test_make_temp_file(bad);
    write_bench_variant(bad, t->fixture, t->path, t->json);
    good_results(good, sizeof(good), "bench", 1, 1);
    snprintf(inputs, sizeof(inputs), "%s --bench %s", good, bad);
    assert_report_refuses(inputs, bad, t->says);
    unlink(bad);
    unlink(good);
}
END_TEST

START_TEST(report_refuses_two_bench_files_of_one_schema)
{
    char good[256];
    char inputs[1024];
    good_results(good, sizeof(good), "twice", 1, 1);
    snprintf(inputs, sizeof(inputs), "%s --bench %s --bench %s", good, BENCH_FIXTURE, BENCH_FIXTURE);
    assert_report_refuses(inputs, BENCH_FIXTURE ": schema: a second pecert-bench/1 file", "(the first: ");
    snprintf(inputs, sizeof(inputs), "%s --bench %s", good, good); /* a results file is no bench file */
    assert_report_refuses(inputs, good, "schema: expected \"pecert-bench/1\"");
    unlink(good);
}
END_TEST

/* --mutant-failures N: a mutant run keeps N failing cases per check and
 * the samples of its named checks only, says what it left out and where
 * it is; the verdict (caught, diagnosed) and worst ratios do not change,
 * and the summarized report reads back. */
START_TEST(mutant_runs_are_summarized_and_point_to_their_file)
{
    char dir[] = "/tmp/pecert-summary-XXXXXX";
    char cmd[8192];
    char path[4200];
    char out[1 << 14];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "run --impl %s/impls/mutants/pairing_swapped.so --filter 'rope.*' --json %s/m.json",
             test_build_dir(), dir);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "%s", cmd), 1);
    snprintf(path, sizeof(path), "%s/catalogue.json", dir);
    test_write_text(path, "{\"schema\": \"pecert-mutants/1\", \"mutants\": [{\"name\": \"pairing_swapped\", "
                     "\"must_fail\": [\"rope.apply.golden\", \"rope.norm_preservation\", "
                     "\"rope.pairing_convention\"], \"finding\": \"pairing\"}]}");
    snprintf(cmd, sizeof(cmd), "report %s/m.json --mutants %s/catalogue.json --mutant-failures 1 "
                               "--json %s/merged.json -o %s/merged.html",
             dir, dir, dir, dir);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "%s", cmd), 0);
    char *whole_text = test_read_in(dir, "m.json");
    char *merged_text = test_read_in(dir, "merged.json");
    cJSON *whole = cJSON_Parse(whole_text);
    cJSON *merged = cJSON_Parse(merged_text);
    ck_assert_ptr_nonnull(whole);
    ck_assert_ptr_nonnull(merged);
    const cJSON *entry = cJSON_GetArrayItem(cJSON_GetObjectItem(merged, "runs"), 0);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(entry, "caught")));
    const cJSON *note = cJSON_GetObjectItem(entry, "summarized");
    ck_assert_ptr_nonnull(note);
    ck_assert_int_eq(cJSON_GetObjectItem(note, "failures_per_check")->valueint, 1);
    ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItem(note, "results_file")->valuestring, "m.json"));
    const cJSON *checks = cJSON_GetObjectItem(cJSON_GetObjectItem(entry, "results"), "checks");
    const cJSON *all = cJSON_GetObjectItem(whole, "checks");
    ck_assert_int_eq(cJSON_GetArraySize(checks), cJSON_GetArraySize(all));
    int left_out = 0;
    for (int i = 0; i < cJSON_GetArraySize(checks); i++) {
        const cJSON *c = cJSON_GetArrayItem(checks, i);
        const cJSON *w = cJSON_GetArrayItem(all, i);
        const char *id = cJSON_GetObjectItem(c, "check")->valuestring;
        int kept = cJSON_GetArraySize(cJSON_GetObjectItem(c, "failures"));
        int had = cJSON_GetArraySize(cJSON_GetObjectItem(w, "failures"));
        const cJSON *summarized = cJSON_GetObjectItem(c, "failures_summarized");
        ck_assert_int_le(kept, 1);
        ck_assert_int_eq(kept + (summarized != NULL ? summarized->valueint : 0), had);
        left_out += had - kept;
        ck_assert_str_eq(cJSON_GetObjectItem(c, "verdict")->valuestring,
                         cJSON_GetObjectItem(w, "verdict")->valuestring);
        char *kept_ratio = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "worst_ratio"));
        char *whole_ratio = cJSON_PrintUnformatted(cJSON_GetObjectItem(w, "worst_ratio"));
        ck_assert_str_eq(kept_ratio, whole_ratio);
        free(kept_ratio);
        free(whole_ratio);
        int named = strcmp(id, "rope.apply.golden") == 0 || strcmp(id, "rope.norm_preservation") == 0 ||
                    strcmp(id, "rope.pairing_convention") == 0;
        const cJSON *points = cJSON_GetObjectItem(c, "points");
        int n_points = cJSON_GetArraySize(points);
        int had_points = cJSON_GetArraySize(cJSON_GetObjectItem(w, "points"));
        ck_assert_msg(named ? n_points == had_points : n_points == 0, "%s: %d of %d samples", id, n_points,
                      had_points);
    }
    ck_assert_int_gt(left_out, 0);
    char *html = test_read_in(dir, "merged.html");
    ck_assert_ptr_nonnull(strstr(html, "more failing cases in the run's own results file"));
    /* The summarized report is still a results file pecert reads. */
    snprintf(cmd, sizeof(cmd), "report %s/merged.json --mutants %s/catalogue.json", dir, dir);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "%s", cmd), 0);
    ck_assert_int_eq(test_pecert(out, sizeof(out), "report %s/m.json --mutant-failures 2", dir), 2);
    ck_assert_ptr_nonnull(strstr(out, "--mutant-failures needs --mutants"));
    free(html);
    cJSON_Delete(whole);
    cJSON_Delete(merged);
    free(whole_text);
    free(merged_text);
    test_remove_dir(dir);
}
END_TEST

Suite *make_reports_suite(void)
{
    TCase *bench = TEST_TCASE("bench", 60,
                              speed_section_shows_the_figures_of_the_bench_files,
                              speed_section_without_mrope_or_peers, bench_session_rows_load_and_show,
                              bench_files_change_the_html_only);
    tcase_add_loop_test(bench, report_refuses_a_malformed_bench_file, 0, N_BAD_BENCH);
    tcase_add_test(bench, report_refuses_two_bench_files_of_one_schema);
    return test_suite_of("reports",
                         TEST_TCASE("core", 120,
                                    escape_replaces_markup_quotes_and_bad_bytes,
                                    separation_takes_honest_worst_and_mutant_least_per_check,
                                    html_and_junit_escape_every_plugin_and_vector_string,
                                    identical_plots_are_drawn_once_and_exact_ones_are_a_line,
                                    the_plotted_bound_is_the_plotted_error_s_own,
                                    plot_axis_comes_from_the_samples_not_the_check_id,
                                    case_log_round_trips_and_forged_logs_are_refused,
                                    junit_is_well_formed_with_one_testcase_per_check_per_plugin,
                                    mutants_pass_when_caught_and_fail_when_escaped,
                                    json_round_trip_keeps_points_heatmap_and_citations,
                                    shards_cover_every_check_exactly_once,
                                    merged_shards_equal_an_unsharded_run_byte_for_byte,
                                    report_merges_shards_per_plugin_and_round_trips,
                                    mutant_runs_are_summarized_and_point_to_their_file),
                         TEST_TCASE("errors", 60,
                                    report_refuses_a_missing_file,
                                    report_refuses_a_wrong_schema_or_bad_json,
                                    report_refuses_incomplete_or_repeated_shards,
                                    report_refuses_an_edited_results_file,
                                    report_outputs_are_all_or_none,
                                    report_refuses_a_verdict_its_record_contradicts,
                                    report_refuses_shards_edited_by_hand,
                                    run_refuses_a_bad_shard),
                         bench, NULL);
}
