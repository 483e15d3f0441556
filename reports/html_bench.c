/*
 * html_bench.c - the report's Speed section: what `pecert bench` measured
 * (report_bench.h) against the machine's measured limits and the
 * reference, the targets as the bench judged them, and what
 * `make bench-peers` measured next to PyTorch.
 *
 * Nothing here is a test and no verdict depends on it. Every figure is
 * the file's, except three quotients computed here: % of the limit (the
 * case's GB/s over its limit's), the cos/sin table's speed-up over the
 * reference's table, and ALiBi's % of the fill limit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_internal.h"
#include "report_bench.h"

/* Past this share of the CPUs taken by other processes, bench/driver.c
 * calls the figures of a T disturbed. */
#define DISTURBED_SHARE 0.05
/* Distinct T values (or thread counts, or variants) a table shows. */
#define MAX_AXIS 32
/* Lines of the plot: placements x thread counts x pairings. */
#define MAX_LINES 16

static const char *const placements[2] = {"out_of_place", "in_place"};
static const char *const pairings[2] = {"split_half", "interleaved"};

/* ---- words and figures --------------------------------------------------- */

static const char *placement_text(const char *placement)
{
    return strcmp(placement, "in_place") == 0 ? "in place" : strcmp(placement, "out_of_place") == 0 ? "out of place"
                                                                                                     : placement;
}

static const char *pairing_text(const char *pairing)
{
    return strcmp(pairing, "split_half") == 0 ? "split-half" : pairing;
}

/* A cell of pre-formatted HTML, right-aligned. */
static void td_num(pecert_sbuf *b, const char *html)
{
    pecert_sbuf_printf(b, "<td class=\"num\">%s</td>", html);
}

static void td_int(pecert_sbuf *b, int64_t v)
{
    pecert_sbuf_printf(b, "<td class=\"num\">%lld</td>", (long long)v);
}

static void td_text(pecert_sbuf *b, const char *text)
{
    pecert_sbuf_puts(b, "<td>");
    pecert_sbuf_escaped(b, text, 0);
    pecert_sbuf_puts(b, "</td>");
}

/* Seconds per call as us, ms or s; a dash if not positive. */
static void fmt_time(char *out, size_t len, double s)
{
    if (!(s > 0)) {
        snprintf(out, len, "&#8211;");
    } else if (s < 1e-3) {
        snprintf(out, len, "%.2f&#160;&#181;s", s * 1e6);
    } else if (s < 1.0) {
        snprintf(out, len, "%.3f&#160;ms", s * 1e3);
    } else {
        snprintf(out, len, "%.3f&#160;s", s);
    }
}

static void td_time(pecert_sbuf *b, double s)
{
    char text[48];
    fmt_time(text, sizeof(text), s);
    td_num(b, text);
}

/* 100 gbps / limit: NAN without a limit. */
static double pct_of(double gbps, double limit)
{
    return limit > 0 ? 100.0 * gbps / limit : NAN;
}

static void fmt_pct(char *out, size_t len, double pct)
{
    if (isfinite(pct)) {
        snprintf(out, len, "%.1f%%", pct);
    } else {
        snprintf(out, len, "&#8211;");
    }
}

static void td_pct(pecert_sbuf *b, double pct)
{
    char text[32];
    fmt_pct(text, sizeof(text), pct);
    td_num(b, text);
}

/* A speed-up "12.5x"; a dash if absent (NAN) or not positive. */
static void td_times(pecert_sbuf *b, double ratio)
{
    char text[32] = "&#8211;";
    if (ratio > 0 && isfinite(ratio)) {
        snprintf(text, sizeof(text), "%.1f&#215;", ratio);
    }
    td_num(b, text);
}

#define N_COLUMNS(columns) (sizeof(columns) / sizeof(columns[0]))

/* <table class="speed" id=id> and its header row; a column name (HTML)
 * starting with '#' is numeric: right-aligned, without the '#'. */
static void table_start(pecert_sbuf *b, const char *id, const char *const *columns, size_t n)
{
    pecert_sbuf_printf(b, "<table class=\"speed\" id=\"%s\"><thead><tr>", id);
    for (size_t i = 0; i < n; i++) {
        int numeric = columns[i][0] == '#';
        pecert_sbuf_printf(b, numeric ? "<th class=\"num\">%s</th>" : "<th>%s</th>", columns[i] + numeric);
    }
    pecert_sbuf_puts(b, "</tr></thead><tbody>\n");
}

/* ---- the grid of rotary cases -------------------------------------------- */

/* Sorted distinct values (at most MAX_AXIS; more are left out). */
typedef struct axis {
    int64_t v[MAX_AXIS];
    size_t n;
} axis;

static void axis_add(axis *a, int64_t v)
{
    size_t i = 0;
    while (i < a->n && a->v[i] < v) {
        i++;
    }
    if ((i < a->n && a->v[i] == v) || a->n == MAX_AXIS) {
        return;
    }
    memmove(&a->v[i + 1], &a->v[i], (a->n - i) * sizeof(a->v[0]));
    a->v[i] = v;
    a->n++;
}

/* Which case: NULL strings and ANY numbers match every case; rotary_dim
 * -1 is the full head_dim. */
#define ANY INT64_MIN
typedef struct case_key {
    const char *impl;
    const char *dtype;
    int64_t rotary_dim;
    const char *placement;
    const char *pairing;
    int64_t tokens;
    int64_t threads;
} case_key;

/* 1 if c is the subject's f32 case rotating all of head_dim: the main table. */
static int is_main(const pecert_bench_run *run, const pecert_bench_case *c)
{
    return strcmp(c->impl, run->impl) == 0 && strcmp(c->dtype, "f32") == 0 && c->rotary_dim == c->head_dim;
}

static int text_matches(const char *value, const char *want)
{
    return want == NULL || strcmp(value, want) == 0;
}

static int number_matches(int64_t value, int64_t want)
{
    return want == ANY || value == want;
}

static int same_shape(const pecert_bench_case *c, const case_key *k)
{
    int64_t rotary_dim = k->rotary_dim == -1 ? c->head_dim : k->rotary_dim;
    return text_matches(c->impl, k->impl) && text_matches(c->dtype, k->dtype) &&
           number_matches(c->rotary_dim, rotary_dim) && text_matches(c->placement, k->placement) &&
           text_matches(c->pairing, k->pairing);
}

/* The first case the key matches, or NULL. */
static const pecert_bench_case *find_case(const pecert_bench_run *run, const case_key *k)
{
    for (size_t i = 0; i < run->n_cases; i++) {
        const pecert_bench_case *c = &run->cases[i];
        if (same_shape(c, k) && number_matches(c->tokens, k->tokens) &&
            number_matches(c->threads, k->threads)) {
            return c;
        }
    }
    return NULL;
}

static const pecert_bench_target *find_target(const pecert_bench_run *run, const char *key)
{
    for (size_t i = 0; i < run->n_targets; i++) {
        if (strcmp(run->targets[i].key, key) == 0) {
            return &run->targets[i];
        }
    }
    return NULL;
}

/* The probe whose limit the main cases of placement are measured against. */
static const char *limit_probe(const pecert_bench_run *run, const char *placement)
{
    case_key k = {run->impl, "f32", -1, placement, NULL, ANY, ANY};
    const pecert_bench_case *c = find_case(run, &k);

    return c != NULL ? c->limit_probe : "limit";
}

static void main_head(pecert_sbuf *b, const pecert_bench_run *run)
{
    pecert_sbuf_puts(b, "<thead><tr><th rowspan=\"2\" class=\"num\">T</th><th rowspan=\"2\" class=\"num\">threads</th>");
    for (int p = 0; p < 2; p++) {
        for (int q = 0; q < 2; q++) {
            pecert_sbuf_printf(b, "<th colspan=\"3\" class=\"grp\">%s, %s</th>", placement_text(placements[p]),
                               pairing_text(pairings[q]));
        }
    }
    pecert_sbuf_puts(b, "</tr>\n<tr>");
    for (int p = 0; p < 2; p++) {
        for (int q = 0; q < 2; q++) {
            pecert_sbuf_puts(b, "<th class=\"num\">median</th><th class=\"num\">% of ");
            pecert_sbuf_escaped(b, limit_probe(run, placements[p]), 0);
            pecert_sbuf_puts(b, "</th><th class=\"num\">&#215; ref</th>");
        }
    }
    pecert_sbuf_puts(b, "</tr></thead>\n");
}

static int has_main_case(const pecert_bench_run *run, int64_t tokens, int64_t threads)
{
    case_key k = {run->impl, "f32", -1, NULL, NULL, tokens, threads};

    return find_case(run, &k) != NULL;
}

static void main_row(pecert_sbuf *b, const pecert_bench_run *run, int64_t tokens, int64_t threads)
{
    pecert_sbuf_puts(b, "<tr>");
    td_int(b, tokens);
    td_int(b, threads);
    for (int p = 0; p < 2; p++) {
        for (int q = 0; q < 2; q++) {
            case_key k = {run->impl, "f32", -1, placements[p], pairings[q], tokens, threads};
            const pecert_bench_case *c = find_case(run, &k);
            td_time(b, c != NULL ? c->time.median_s : 0.0);
            td_pct(b, c != NULL ? pct_of(c->gbps, c->limit_gbps) : NAN);
            td_times(b, c != NULL ? c->speedup_vs_ref : NAN);
        }
    }
    pecert_sbuf_puts(b, "</tr>\n");
}

/* The target for placement p as a dotted level, if the file has it. */
static size_t add_level(pecert_svg_level *levels, size_t n, const pecert_bench_run *run, int p, int colour,
                        char *label, size_t label_len)
{
    static const char *const keys[2] = {"out_of_place_pct_of_copy", "in_place_pct_of_rmw"};
    const pecert_bench_target *t = find_target(run, keys[p]);
    if (t == NULL) {
        return n;
    }
    snprintf(label, label_len, "%g%% target, %s", t->target, placement_text(placements[p]));
    levels[n] = (pecert_svg_level){t->target, colour, label};
    return n + 1;
}

/* % of the limit against T: a line per placement, thread count and
 * pairing (split-half solid, interleaved dashed), targets dotted. */
static void main_plot(pecert_sbuf *b, const pecert_bench_run *run, const axis *tokens, const axis *threads)
{
    double xs[MAX_LINES][MAX_AXIS];
    double ys[MAX_LINES][MAX_AXIS];
    char names[MAX_LINES][64];
    char level_names[2][64];
    pecert_svg_line lines[MAX_LINES];
    pecert_svg_level levels[2];
    size_t n = 0;
    size_t n_levels = 0;
    for (int p = 0; p < 2; p++) {
        n_levels = add_level(levels, n_levels, run, p, p * (int)threads->n, level_names[p], sizeof(level_names[p]));
        for (size_t t = 0; t < threads->n && n + 2 <= MAX_LINES; t++) {
            for (int q = 0; q < 2; q++, n++) {
                snprintf(names[n], sizeof(names[n]), "%s, %lld thread%s", placement_text(placements[p]),
                         (long long)threads->v[t], threads->v[t] == 1 ? "" : "s");
                lines[n] = (pecert_svg_line){q == 0 ? names[n] : NULL, p * (int)threads->n + (int)t, q, xs[n], ys[n],
                                             tokens->n};
                for (size_t i = 0; i < tokens->n; i++) {
                    case_key k = {run->impl, "f32", -1, placements[p], pairings[q], tokens->v[i], threads->v[t]};
                    const pecert_bench_case *c = find_case(run, &k);
                    xs[n][i] = (double)tokens->v[i];
                    ys[n][i] = c != NULL ? pct_of(c->gbps, c->limit_gbps) : NAN;
                }
            }
        }
    }
    pecert_svg_line_plot plot = {"% of the measured limit against T", "T (tokens, log)", "% of the measured limit",
                                 lines, n, levels, n_levels};
    pecert_sbuf_puts(b, "<div class=\"plots\"><figure>");
    pecert__svg_lines(b, &plot);
    pecert_sbuf_puts(b, "<figcaption>% of the measured limit against T: solid lines split-half, dashed "
                        "interleaved; dotted, the issue's targets.</figcaption></figure></div>\n");
}

static void rope_main(pecert_sbuf *b, const pecert_bench_run *run)
{
    axis tokens = {{0}, 0};
    axis threads = {{0}, 0};
    const pecert_bench_case *first = NULL;
    for (size_t i = 0; i < run->n_cases; i++) {
        if (is_main(run, &run->cases[i])) {
            first = first != NULL ? first : &run->cases[i];
            axis_add(&tokens, run->cases[i].tokens);
            axis_add(&threads, run->cases[i].threads);
        }
    }
    pecert_sbuf_puts(b, "<h3 id=\"speed-rope\">Rotary embedding, f32");
    if (first == NULL) {
        pecert_sbuf_puts(b, "</h3>\n<p>No f32 case of the subject rotates the whole head.</p>\n");
        return;
    }
    pecert_sbuf_printf(b, " q[T, %lld, %lld], rotary %lld</h3>\n", (long long)first->heads,
                       (long long)first->head_dim, (long long)first->head_dim);
    pecert_sbuf_puts(b, "<p>Median time per call; % of the limit: GB/s (bytes read and written) over the limit "
                        "probe's at the same size and thread count; &#215; ref: the reference's median over this "
                        "one.</p>\n<table class=\"speed\" id=\"speed-rope-f32\">");
    main_head(b, run);
    pecert_sbuf_puts(b, "<tbody>\n");
    for (size_t i = 0; i < tokens.n; i++) {
        for (size_t t = 0; t < threads.n; t++) {
            if (has_main_case(run, tokens.v[i], threads.v[t])) {
                main_row(b, run, tokens.v[i], threads.v[t]);
            }
        }
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
    main_plot(b, run, &tokens, &threads);
}

/* ---- the other dtypes and rotary widths ---------------------------------- */

/* The subject's cases outside the main table. */
static int is_other(const pecert_bench_run *run, const pecert_bench_case *c)
{
    return strcmp(c->impl, run->impl) == 0 && !is_main(run, c);
}

static int dtype_rank(const char *dtype)
{
    return strcmp(dtype, "f32") == 0 ? 0 : strcmp(dtype, "f16") == 0 ? 1 : strcmp(dtype, "bf16") == 0 ? 2 : 3;
}

static int compare(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* The order of the variants' rows: f32, f16, bf16 (then others by name),
 * the widest rotary first, out of place first, split-half first. */
static int by_variant(const void *x, const void *y)
{
    const pecert_bench_case *a = *(const pecert_bench_case *const *)x;
    const pecert_bench_case *b = *(const pecert_bench_case *const *)y;
    int c = compare(dtype_rank(a->dtype), dtype_rank(b->dtype));
    c = c != 0 ? c : strcmp(a->dtype, b->dtype);
    c = c != 0 ? c : compare(b->rotary_dim, a->rotary_dim);
    c = c != 0 ? c : compare(strcmp(a->placement, placements[0]) != 0, strcmp(b->placement, placements[0]) != 0);
    return c != 0 ? c : compare(strcmp(a->pairing, pairings[0]) != 0, strcmp(b->pairing, pairings[0]) != 0);
}

/* One representative case per (dtype, rotary_dim, placement, pairing), in
 * display order; returns how many. */
static size_t other_variants(const pecert_bench_run *run, const pecert_bench_case **out, axis *tokens,
                             axis *threads)
{
    size_t n = 0;
    for (size_t i = 0; i < run->n_cases; i++) {
        const pecert_bench_case *c = &run->cases[i];
        if (!is_other(run, c)) {
            continue;
        }
        axis_add(tokens, c->tokens);
        axis_add(threads, c->threads);
        case_key k = {c->impl, c->dtype, c->rotary_dim, c->placement, c->pairing, 0, 0};
        size_t v = 0;
        while (v < n && !same_shape(out[v], &k)) {
            v++;
        }
        if (v == n && n < MAX_AXIS) {
            out[n++] = c;
        }
    }
    qsort(out, n, sizeof(out[0]), by_variant);
    return n;
}

static void other_row(pecert_sbuf *b, const pecert_bench_run *run, const pecert_bench_case *v, int64_t threads,
                      const axis *tokens)
{
    pecert_sbuf_puts(b, "<tr><th class=\"row\">");
    pecert_sbuf_escaped(b, v->dtype, 0);
    pecert_sbuf_printf(b, ", rotary %lld, %s, %s</th>", (long long)v->rotary_dim, placement_text(v->placement),
                       pairing_text(v->pairing));
    td_int(b, threads);
    for (size_t i = 0; i < tokens->n; i++) {
        case_key k = {v->impl, v->dtype, v->rotary_dim, v->placement, v->pairing, tokens->v[i], threads};
        const pecert_bench_case *c = find_case(run, &k);
        char time[48];
        char pct[32];
        fmt_time(time, sizeof(time), c != NULL ? c->time.median_s : 0.0);
        fmt_pct(pct, sizeof(pct), c != NULL ? pct_of(c->gbps, c->limit_gbps) : NAN);
        pecert_sbuf_printf(b, "<td class=\"num\">%s <span class=\"muted\">%s</span></td>", time, c != NULL ? pct : "");
    }
    pecert_sbuf_puts(b, "</tr>\n");
}

/* 1 if the file has a case of variant v at this thread count. */
static int has_threads(const pecert_bench_run *run, const pecert_bench_case *v, int64_t threads)
{
    case_key k = {v->impl, v->dtype, v->rotary_dim, v->placement, v->pairing, ANY, threads};

    return find_case(run, &k) != NULL;
}

static void rope_other(pecert_sbuf *b, const pecert_bench_run *run)
{
    const pecert_bench_case *variants[MAX_AXIS];
    axis tokens = {{0}, 0};
    axis threads = {{0}, 0};
    size_t n = other_variants(run, variants, &tokens, &threads);
    if (n == 0) {
        return;
    }
    pecert_sbuf_puts(b, "<h3 id=\"speed-rope-other\">Rotary embedding, other dtypes and rotary widths</h3>\n"
                        "<p>Median time per call and, in grey, % of the limit.</p>\n"
                        "<table class=\"speed\" id=\"speed-rope-others\"><thead><tr><th>dtype, rotary, placement, "
                        "pairing</th><th class=\"num\">threads</th>");
    for (size_t i = 0; i < tokens.n; i++) {
        pecert_sbuf_printf(b, "<th class=\"num\">T=%lld</th>", (long long)tokens.v[i]);
    }
    pecert_sbuf_puts(b, "</tr></thead><tbody>\n");
    for (size_t v = 0; v < n; v++) {
        for (size_t t = 0; t < threads.n; t++) {
            if (has_threads(run, variants[v], threads.v[t])) {
                other_row(b, run, variants[v], threads.v[t], &tokens);
            }
        }
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

/* ---- M-RoPE, cos/sin table, ALiBi ---------------------------------------- */

/* One row of the M-RoPE or 2-D RoPE table: the case's figures around the
 * cell that says how its positions are split (variant_cell). */
static void split_case_row(pecert_sbuf *b, const pecert_bench_case *c,
                           void (*variant_cell)(pecert_sbuf *b, const pecert_bench_case *c))
{
    pecert_sbuf_puts(b, "<tr>");
    td_text(b, c->impl);
    td_int(b, c->tokens);
    pecert_sbuf_printf(b, "<td>[T, %lld, %lld]</td>", (long long)c->heads, (long long)c->head_dim);
    variant_cell(b, c);
    td_int(b, c->threads);
    pecert_sbuf_printf(b, "<td>%s, ", placement_text(c->placement));
    pecert_sbuf_escaped(b, pairing_text(c->pairing), 0);
    pecert_sbuf_puts(b, "</td>");
    td_text(b, c->dtype);
    td_time(b, c->time.median_s);
    td_pct(b, pct_of(c->gbps, c->limit_gbps));
    td_text(b, c->limit_probe);
    td_times(b, c->speedup_vs_ref);
    pecert_sbuf_puts(b, "</tr>\n");
}

static void section_cell(pecert_sbuf *b, const pecert_bench_case *c)
{
    pecert_sbuf_printf(b, "<td>%lld/%lld/%lld</td>", (long long)c->section[0], (long long)c->section[1],
                       (long long)c->section[2]);
}

static void grid_cell(pecert_sbuf *b, const pecert_bench_case *c)
{
    pecert_sbuf_puts(b, "<td>");
    pecert_sbuf_escaped(b, c->frequencies, 0);
    pecert_sbuf_printf(b, ", %lld wide</td>", (long long)c->grid_width);
}

static void mrope_rows(pecert_sbuf *b, const pecert_bench_run *run)
{
    static const char *const columns[] = {"impl",   "#T",      "q",           "section", "#threads", "placement, pairing",
                                          "dtype", "#median", "#% of limit", "limit",   "#&#215; ref"};
    pecert_sbuf_puts(b, "<h3 id=\"speed-mrope\">M-RoPE</h3>\n<p>Multimodal rotary: the rotated pairs split into "
                        "temporal, height and width sections, each with its own position.</p>\n");
    table_start(b, "speed-mrope-cases", columns, N_COLUMNS(columns));
    for (size_t i = 0; i < run->n_mrope; i++) {
        split_case_row(b, &run->mrope[i], section_cell);
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

/* 2-D vision RoPE: the same q through rope2d_apply over an image's grid. */
static void rope2d_rows(pecert_sbuf *b, const pecert_bench_run *run)
{
    static const char *const columns[] = {"impl",  "#T",      "q",           "frequencies, grid", "#threads", "placement, pairing",
                                          "dtype", "#median", "#% of limit", "limit",             "#&#215; ref"};
    pecert_sbuf_puts(b, "<h3 id=\"speed-rope2d\">2-D vision RoPE</h3>\n<p>A vision tower's rotary: half the pairs "
                        "turned by each patch's row, half by its column, over an image so many patches wide.</p>\n");
    table_start(b, "speed-rope2d-cases", columns, N_COLUMNS(columns));
    for (size_t i = 0; i < run->n_rope2d; i++) {
        split_case_row(b, &run->rope2d[i], grid_cell);
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

/* The baseline's median for the same table, or 0. */
static double baseline_table(const pecert_bench_run *run, const pecert_bench_table *t)
{
    for (size_t i = 0; i < run->n_tables; i++) {
        const pecert_bench_table *r = &run->tables[i];
        if (strcmp(r->impl, run->baseline) == 0 && r->tokens == t->tokens && r->half == t->half) {
            return r->time.median_s;
        }
    }
    return 0.0;
}

static void cos_sin_tables(pecert_sbuf *b, const pecert_bench_run *run)
{
    static const char *const columns[] = {"impl", "#T", "#frequencies", "#threads", "#median", "#&#215; ref"};
    static const char *const accuracy[] = {"#first position", "#last position", "#max |error|"};
    pecert_sbuf_puts(b, "<h3 id=\"speed-tables\">cos/sin table</h3>\n");
    table_start(b, "speed-table-build", columns, N_COLUMNS(columns));
    for (size_t i = 0; i < run->n_tables; i++) {
        const pecert_bench_table *t = &run->tables[i];
        int is_baseline = strcmp(t->impl, run->baseline) == 0;
        pecert_sbuf_puts(b, "<tr>");
        td_text(b, t->impl);
        td_int(b, t->tokens);
        td_int(b, t->half);
        td_int(b, t->threads);
        td_time(b, t->time.median_s);
        td_times(b, !is_baseline && t->time.median_s > 0 ? baseline_table(run, t) / t->time.median_s : NAN);
        pecert_sbuf_puts(b, "</tr>\n");
    }
    pecert_sbuf_puts(b, "</tbody></table>\n<p>Accuracy of the subject's table against the reference's:</p>\n");
    table_start(b, "speed-accuracy", accuracy, N_COLUMNS(accuracy));
    for (size_t i = 0; i < run->n_accuracy; i++) {
        const pecert_bench_accuracy *a = &run->accuracy[i];
        pecert_sbuf_puts(b, "<tr>");
        td_int(b, a->first_position);
        td_int(b, a->first_position + a->positions - 1);
        pecert_sbuf_printf(b, "<td class=\"num\">%.3g</td></tr>\n", a->max_abs_error);
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

static void alibi_rows(pecert_sbuf *b, const pecert_bench_run *run)
{
    static const char *const columns[] = {"impl",  "bias [heads, n_q, n_k]", "#threads", "#median",
                                          "#GB/s", "#% of fill",             "#&#215; ref"};
    pecert_sbuf_puts(b, "<h3 id=\"speed-alibi\">ALiBi bias, f32</h3>\n<p>GB/s counts the bytes written; the limit is "
                        "the fill probe's (stores only) at the same size and thread count.</p>\n");
    table_start(b, "speed-alibi-bias", columns, N_COLUMNS(columns));
    for (size_t i = 0; i < run->n_alibi; i++) {
        const pecert_bench_alibi *a = &run->alibi[i];
        pecert_sbuf_puts(b, "<tr>");
        td_text(b, a->impl);
        pecert_sbuf_printf(b, "<td>[%lld, %lld, %lld]</td>", (long long)a->heads, (long long)a->n_q, (long long)a->n_k);
        td_int(b, a->threads);
        td_time(b, a->time.median_s);
        pecert_sbuf_printf(b, "<td class=\"num\">%.2f</td>", a->gbps);
        td_pct(b, pct_of(a->gbps, a->fill_limit_gbps));
        td_times(b, a->speedup_vs_ref);
        pecert_sbuf_puts(b, "</tr>\n");
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

static void session_rows(pecert_sbuf *b, const pecert_bench_run *run)
{
    static const char *const columns[] = {"impl", "layer", "#threads", "#median", "#GFLOP/s", "#&#215; ref"};
    const pecert_bench_session *first = &run->session[0];
    pecert_sbuf_printf(b, "<h3 id=\"speed-session\">Decode session</h3>\n<p>A session's life: a prefill of %lld "
                          "tokens in one append, then %lld one-token decode steps (%.3g GFLOP: 4 &#215; head_dim per "
                          "query head and token it sees). It is bound by arithmetic, not by memory.</p>\n",
                       (long long)first->prefill, (long long)first->decode, first->flops * 1e-9);
    table_start(b, "speed-session-table", columns, N_COLUMNS(columns));
    for (size_t i = 0; i < run->n_session; i++) {
        const pecert_bench_session *s = &run->session[i];
        pecert_sbuf_puts(b, "<tr>");
        td_text(b, s->impl);
        pecert_sbuf_printf(b, "<td>%lld heads, %lld kv heads, head_dim %lld</td>", (long long)s->heads,
                           (long long)s->kv_heads, (long long)s->head_dim);
        td_int(b, s->threads);
        td_time(b, s->time.median_s);
        pecert_sbuf_printf(b, "<td class=\"num\">%.2f</td>", s->gflops);
        td_times(b, s->speedup_vs_ref);
        pecert_sbuf_puts(b, "</tr>\n");
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

static void family_rows(pecert_sbuf *b, const pecert_bench_run *run)
{
    static const char *const columns[] = {"op", "shape", "impl", "#threads", "#median", "#GB/s", "#% of limit",
                                          "limit", "#&#215; ref"};
    pecert_sbuf_puts(b, "<h3 id=\"speed-families\">Other families' operations</h3>\n<p>GB/s counts the bytes an "
                        "op must read (its argument checks' pass included) and write; the limit is a probe that moves "
                        "the same bytes: the fastest copy where it reads what it writes, the fill where it reads "
                        "nothing, else the mix (reads and writes its bytes in step). Ops marked "
                        "&#8224; are bound by arithmetic, not memory.</p>\n");
    table_start(b, "speed-family-ops", columns, N_COLUMNS(columns));
    for (size_t i = 0; i < run->n_families; i++) {
        const pecert_bench_family *f = &run->families[i];
        pecert_sbuf_puts(b, "<tr><td>");
        pecert_sbuf_escaped(b, f->op, 0);
        pecert_sbuf_puts(b, f->memory_bound ? "</td>" : " &#8224;</td>");
        td_text(b, f->shape);
        td_text(b, f->impl);
        td_int(b, f->threads);
        td_time(b, f->time.median_s);
        pecert_sbuf_printf(b, "<td class=\"num\">%.2f</td>", f->gbps);
        if (isnan(f->pct_of_limit)) {
            pecert_sbuf_puts(b, "<td class=\"num\">&#8212;</td><td></td>");
        } else {
            td_pct(b, f->pct_of_limit);
            td_text(b, f->limit_probe);
        }
        td_times(b, f->speedup_vs_ref);
        pecert_sbuf_puts(b, "</tr>\n");
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

/* ---- machine, load, targets, notes --------------------------------------- */

static void machine(pecert_sbuf *b, const pecert_bench_run *run)
{
    char cpus[32];
    snprintf(cpus, sizeof(cpus), "%lld", (long long)run->machine.online_cpus);
    const char *keys[] = {"CPU", "Online CPUs", "Probes' ISA", "Subject", "Subject's describe()", "Reference", "File"};
    const char *values[] = {run->machine.cpu, cpus, run->machine.probe_isa, run->impl, run->impl_describe,
                            run->baseline[0] != '\0' ? run->baseline : "none", run->path};
    pecert_sbuf_puts(b, "<table class=\"kv\" id=\"speed-machine\">");
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        pecert_sbuf_printf(b, "<tr><th>%s</th>", keys[i]);
        td_text(b, values[i]);
        pecert_sbuf_puts(b, "</tr>\n");
    }
    pecert_sbuf_puts(b, "</table>\n");
}

/* The T values whose figures other processes disturbed, as a warning. */
static void machine_load(pecert_sbuf *b, const pecert_bench_run *run)
{
    double worst = -1.0;
    for (size_t i = 0; i < run->n_machine_load; i++) {
        worst = fmax(worst, run->machine_load[i].other_processes_cpu_share);
    }
    if (worst < 0) {
        return; /* not measured */
    }
    if (worst <= DISTURBED_SHARE) {
        pecert_sbuf_printf(b, "<p class=\"muted\">Machine load: other processes used at most %.1f%% of the CPUs "
                              "while any T's cases ran (undisturbed).</p>\n", 100.0 * worst);
        return;
    }
    pecert_sbuf_puts(b, "<div class=\"findings\" id=\"speed-disturbed\"><b>Disturbed runs</b>: other processes "
                        "used the CPUs while these cases ran, so their figures (2-thread ones most) understate the "
                        "code.<ul>");
    for (size_t i = 0; i < run->n_machine_load; i++) {
        const pecert_bench_load *l = &run->machine_load[i];
        if (l->other_processes_cpu_share > DISTURBED_SHARE) {
            pecert_sbuf_printf(b, "<li>T=%lld: other processes used %.0f%% of the CPUs</li>", (long long)l->tokens,
                               100.0 * l->other_processes_cpu_share);
        }
    }
    pecert_sbuf_puts(b, "</ul></div>\n");
}

/* What each target of bench/driver.c measures, and which way is
 * better (its summary() lines); an unknown key is shown as is. */
static const struct {
    const char *key;
    const char *text;
    int lower_is_better;
} target_texts[] = {
    {"out_of_place_pct_of_copy", "f32 out of place, T &#8805; 512: % of the copy limit", 0},
    {"in_place_pct_of_rmw", "f32 in place, T &#8805; 512: % of the read-modify-write limit", 0},
    {"split_over_interleaved", "split-half / interleaved time, T &#8805; 512", 1},
    {"half_t4096_1thread_ms", "f16/bf16, T=4096, 1 thread", 1},
    {"t1_1thread_us", "T=1, 1 thread", 1},
    {"table_ms", "cos/sin table, largest T, 1 thread", 1},
    {"table_max_abs_error", "cos/sin table max |error| against the reference", 1},
    {"families_pct_of_limit", "other families, memory-bound ops: % of the limit", 0},
};

/* A unit after its number: "%" right after it, others after a space. */
static void unit(pecert_sbuf *b, const char *text)
{
    pecert_sbuf_puts(b, text[0] == '\0' || strcmp(text, "%") == 0 ? "" : "&#160;");
    pecert_sbuf_escaped(b, text, 0);
}

static void target_row(pecert_sbuf *b, const pecert_bench_target *t)
{
    size_t k = 0;
    size_t n = sizeof(target_texts) / sizeof(target_texts[0]);
    while (k < n && strcmp(target_texts[k].key, t->key) != 0) {
        k++;
    }
    pecert_sbuf_puts(b, "<tr><th class=\"row\">");
    if (k < n) {
        pecert_sbuf_puts(b, target_texts[k].text);
    } else {
        pecert_sbuf_escaped(b, t->key, 0);
    }
    pecert_sbuf_printf(b, "</th><td class=\"num\">%.4g", t->value);
    unit(b, t->unit);
    const char *sense = k == n ? "" : target_texts[k].lower_is_better ? "&#8804; " : "&#8805; ";
    pecert_sbuf_printf(b, "</td><td class=\"num\">%s%g", sense, t->target);
    unit(b, t->unit);
    pecert_sbuf_puts(b, "</td><td class=\"num\">");
    if (t->cases >= 0 && t->cases_meeting >= 0) {
        pecert_sbuf_printf(b, "%lld of %lld", (long long)t->cases_meeting, (long long)t->cases);
    }
    int na = t->value == 0.0 && !t->met;
    pecert_sbuf_printf(b, "</td><td><span class=\"badge %s\">%s</span></td></tr>\n",
                       na ? "b-unsupported" : t->met ? "b-pass" : "b-fail", na ? "n/a" : t->met ? "met" : "missed");
}

static void targets(pecert_sbuf *b, const pecert_bench_run *run)
{
    static const char *const columns[] = {"Target", "#Measured", "#Goal", "#Cases meeting it", ""};
    pecert_sbuf_puts(b, "<h3 id=\"speed-targets\">Targets</h3>\n<p>The issue's targets as <code>pecert bench</code> "
                        "judged them: medians, the worst case over the grid.</p>\n");
    table_start(b, "speed-target-list", columns, N_COLUMNS(columns));
    for (size_t i = 0; i < run->n_targets; i++) {
        target_row(b, &run->targets[i]);
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

static void notes(pecert_sbuf *b, const pecert_bench_notes *n)
{
    if (n->n == 0) {
        return;
    }
    pecert_sbuf_puts(b, "<h5>Notes of the bench</h5>\n<ul>");
    for (size_t i = 0; i < n->n; i++) {
        pecert_sbuf_puts(b, "<li>");
        pecert_sbuf_escaped(b, n->text[i], 0);
        pecert_sbuf_puts(b, "</li>");
    }
    pecert_sbuf_puts(b, "</ul>\n");
}

/* ---- PyTorch ------------------------------------------------------------- */

static void peers(pecert_sbuf *b, const pecert_bench_peers *p)
{
    static const char *const columns[] = {"#T", "#threads", "torch's best", "#torch median", "#fast median",
                                          "#fast / torch"};
    pecert_sbuf_puts(b, "<h3 id=\"speed-peers\">Next to PyTorch</h3>\n<p>fast (");
    pecert_sbuf_escaped(b, p->fast, 0);
    pecert_sbuf_puts(b, ") against the faster of PyTorch's formulas (torch ");
    pecert_sbuf_escaped(b, p->torch, 0);
    pecert_sbuf_puts(b, "; hf: rotate_half, meta: complex multiply), timed in one process; f32, out of place, "
                        "whole head rotated, each side's best pairing. fast / torch is the time ratio: below 1, "
                        "fast is faster. From <code>");
    pecert_sbuf_escaped(b, p->path, 0);
    pecert_sbuf_puts(b, "</code>");
    if (p->note[0] != '\0') {
        pecert_sbuf_puts(b, ". ");
        pecert_sbuf_escaped(b, p->note, 0);
    }
    pecert_sbuf_puts(b, ".</p>\n");
    table_start(b, "speed-peer-summary", columns, N_COLUMNS(columns));
    for (size_t i = 0; i < p->n_summary; i++) {
        const pecert_bench_peer *s = &p->summary[i];
        pecert_sbuf_puts(b, "<tr>");
        td_int(b, s->tokens);
        td_int(b, s->threads);
        td_text(b, s->torch_best_formula);
        td_time(b, s->torch_best_median_s);
        td_time(b, s->fast_best_median_s);
        pecert_sbuf_printf(b, "<td class=\"num %s\">%.2f</td></tr>\n", s->fast_over_torch < 1.0 ? "err-ok" : "err-bad",
                           s->fast_over_torch);
    }
    pecert_sbuf_puts(b, "</tbody></table>\n");
}

/* ---- the section --------------------------------------------------------- */

/* Every part the file has figures for (an empty array: no table). */
static void bench_run(pecert_sbuf *b, const pecert_bench_run *run)
{
    machine(b, run);
    machine_load(b, run);
    if (run->n_targets > 0) {
        targets(b, run);
    }
    rope_main(b, run);
    rope_other(b, run);
    if (run->n_mrope > 0) {
        mrope_rows(b, run);
    }
    if (run->n_rope2d > 0) {
        rope2d_rows(b, run);
    }
    if (run->n_tables + run->n_accuracy > 0) {
        cos_sin_tables(b, run);
    }
    if (run->n_alibi > 0) {
        alibi_rows(b, run);
    }
    if (run->n_session > 0) {
        session_rows(b, run);
    }
    if (run->n_families > 0) {
        family_rows(b, run);
    }
    notes(b, &run->notes);
}

void pecert__html_speed(pecert_sbuf *b, const pecert_report *rep)
{
    const pecert_bench *bench = rep->bench;
    pecert_sbuf_puts(b, "<section id=\"speed\"><h2>Speed</h2>\n<p>Measured by <code>pecert bench</code> and "
                        "<code>make bench-peers</code>, not by this run: figures, not verdicts.</p>\n");
    if (bench->run.path[0] != '\0') {
        bench_run(b, &bench->run);
    }
    if (bench->peers.path[0] != '\0') {
        peers(b, &bench->peers);
    }
    pecert_sbuf_puts(b, "</section>\n");
}
