/*
 * diagnose_html.c - the diagnose page (diagnose_html.h).
 */
#include "diagnose_html.h"

#include <math.h>
#include <stdio.h>

#include "html_internal.h"
#include "sbuf.h"

#ifndef PECERT_VERSION
#define PECERT_VERSION "0.1.0" /* the same guard as html.c and commands.h */
#endif

#define W 800
#define H 300
#define LEFT 64
#define RIGHT 16
#define TOP 12
#define BOTTOM 40

static void findings(pecert_sbuf *b, const pecert_diagnose_page *p)
{
    if (p->n_findings == 0) {
        return;
    }
    pecert_sbuf_puts(b, "<section id=\"findings\">\n<h2>Findings</h2>\n<ul>\n");
    for (size_t i = 0; i < p->n_findings; i++) {
        pecert_sbuf_puts(b, "<li><code>");
        pecert_sbuf_escaped(b, p->findings[i].id, 0);
        pecert_sbuf_puts(b, "</code> ");
        pecert_sbuf_escaped(b, p->findings[i].text, 0);
        pecert_sbuf_puts(b, "</li>\n");
    }
    pecert_sbuf_puts(b, "</ul>\n</section>\n");
}

static void row(pecert_sbuf *b, const char *key, const char *value)
{
    pecert_sbuf_puts(b, "<tr><th class=\"row\">");
    pecert_sbuf_escaped(b, key, 0);
    pecert_sbuf_puts(b, "</th><td>");
    pecert_sbuf_escaped(b, value, 0);
    pecert_sbuf_puts(b, "</td></tr>\n");
}

static void recovered_table(pecert_sbuf *b, const pecert_diagnose_page *p)
{
    const pecert_dump_report *r = p->rope;
    char v[160];
    pecert_sbuf_puts(b, "<section id=\"recovered\">\n<h2>What the engine did</h2>\n<table class=\"summary\">\n");
    if (r->rotated_hi > 0) {
        snprintf(v, sizeof(v), "%d..%d", (int)r->rotated_lo, (int)r->rotated_hi - 1);
    } else {
        snprintf(v, sizeof(v), "none");
    }
    row(b, "rotated channels", v);
    row(b, "pairing", !r->pairing_found ? "neither"
                      : r->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved" : "split-half");
    snprintf(v, sizeof(v), "%.9g (the config: %.9g)", r->attention_factor, r->expected_factor);
    row(b, "attention factor", v);
    pecert_sbuf_puts(b, "</table>\n<h3>Frequency sets tried</h3>\n<table class=\"summary\">\n"
                        "<tr><th>frequency set</th><th>at integer positions</th><th>at the given ones</th></tr>\n");
    for (int32_t i = 0; i < r->n_hypotheses; i++) {
        const pecert_dump_hypothesis *h = &r->hypotheses[i];
        if (h->explained < 0) {
            continue;
        }
        pecert_sbuf_printf(b, "<tr%s><td>", i == r->best ? " class=\"best\"" : "");
        pecert_sbuf_escaped(b, h->label, 0);
        pecert_sbuf_printf(b, "%s%s</td><td>%lld of %lld</td><td>%lld</td></tr>\n", i == 0 ? " (the config)" : "",
                           i == r->best ? " &#8592; best" : "", (long long)h->explained, (long long)r->n_tokens,
                           (long long)h->matched);
    }
    pecert_sbuf_puts(b, "</table>\n</section>\n");
}

/* ---- the plot: recovered - expected (or recovered) per point ------------ */

typedef struct axis {
    double lo;
    double hi;
} axis;

static double px(const axis *a, double v, double from, double to)
{
    return a->hi > a->lo ? from + (v - a->lo) / (a->hi - a->lo) * (to - from) : (from + to) / 2.0;
}

static int has_value(const pecert_diagnose_page *p, int64_t i)
{
    return p->recovered[i] >= 0 && (p->expected == NULL || p->expected[i] >= 0);
}

/* A difference is drawn on a signed log scale, sign(d) log10(1 + |d|):
 * off by one and off by a thousand both stand apart from 0. */
static double symlog(double d)
{
    return copysign(log10(1.0 + fabs(d)), d);
}

static double value(const pecert_diagnose_page *p, int64_t i)
{
    return p->expected != NULL ? symlog((double)(p->recovered[i] - p->expected[i])) : (double)p->recovered[i];
}

static axis value_axis(const pecert_diagnose_page *p)
{
    axis y = {0.0, 0.0};
    int any = 0;
    for (int64_t i = 0; i < p->n_points; i++) {
        if (has_value(p, i)) {
            double v = value(p, i);
            y.lo = any ? fmin(y.lo, v) : v;
            y.hi = any ? fmax(y.hi, v) : v;
            any = 1;
        }
    }
    if (p->expected != NULL) { /* 0 and +-1 are always on the plot */
        y.lo = fmin(y.lo, symlog(-1.0));
        y.hi = fmax(y.hi, symlog(1.0));
    }
    return y;
}

static void y_tick(pecert_sbuf *b, const axis *y, double v, double label, int signed_label)
{
    double at = px(y, v, H - BOTTOM, TOP);
    char text[32];
    snprintf(text, sizeof(text), signed_label && label != 0.0 ? "%+.0f" : "%.0f", label);
    pecert_sbuf_printf(b, "<path class=\"grid\" d=\"M%d %.1fH%d\"/><text x=\"%d\" y=\"%.1f\" class=\"yt\">%s"
                       "</text>", LEFT, at, W - RIGHT, LEFT - 6, at + 4.0, text);
}

/* Differences: 0 and +-1, +-10, +-100, ... within the axis; positions:
 * five even steps. */
static void y_ticks(pecert_sbuf *b, const pecert_diagnose_page *p, const axis *y)
{
    if (p->expected == NULL) {
        for (int k = 0; k <= 4; k++) {
            double v = y->lo + (y->hi - y->lo) * k / 4.0;
            y_tick(b, y, v, v, 0);
        }
        return;
    }
    y_tick(b, y, 0.0, 0.0, 1);
    for (double d = 1.0; d < 1e15; d *= 10.0) {
        if (symlog(d) <= y->hi + 1e-9) {
            y_tick(b, y, symlog(d), d, 1);
        }
        if (symlog(-d) >= y->lo - 1e-9) {
            y_tick(b, y, symlog(-d), -d, 1);
        }
    }
}

/* Points binned by pixel column: each column's lowest and highest value,
 * red when any point of the column is wrong (or rotated for no integer
 * position, drawn on the bottom edge). */
static void points(pecert_sbuf *b, const pecert_diagnose_page *p, const axis *x, const axis *y)
{
    int columns = W - LEFT - RIGHT;
    for (int pass = 0; pass < 2; pass++) {
        pecert_sbuf_printf(b, "<path class=\"%s\" d=\"", pass == 0 ? "ok" : "bad");
        int64_t i = 0;
        for (int c = 0; c < columns && i < p->n_points; c++) {
            double lo = INFINITY, hi = -INFINITY;
            int bad = 0;
            int64_t end = (int64_t)((double)(c + 1) / columns * (double)p->n_points);
            for (end = end <= i ? i + 1 : end; i < end && i < p->n_points; i++) {
                if (p->expected != NULL && p->expected[i] < 0) {
                    continue; /* an empty slot */
                }
                if (!has_value(p, i)) {
                    bad = 1;
                    lo = fmin(lo, y->lo);
                    hi = fmax(hi, y->lo);
                    continue;
                }
                double v = value(p, i);
                bad |= p->expected != NULL && p->recovered[i] != p->expected[i];
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
            if (lo > hi || bad != pass) {
                continue;
            }
            double at = px(x, (double)(i - 1), LEFT, W - RIGHT);
            pecert_sbuf_printf(b, "M%.1f %.1fV%.1f", at, px(y, lo, H - BOTTOM, TOP), px(y, hi, H - BOTTOM, TOP) - 0.1);
        }
        pecert_sbuf_puts(b, "\"/>\n");
    }
}

static void step_marks(pecert_sbuf *b, const pecert_diagnose_page *p, const axis *x)
{
    if (p->n_steps < 2 || p->n_steps > 200) {
        return; /* a mark per step only while they stay apart */
    }
    pecert_sbuf_puts(b, "<path class=\"range\" d=\"");
    for (int32_t k = 1; k < p->n_steps; k++) {
        pecert_sbuf_printf(b, "M%.1f %dV%d", px(x, (double)p->step_first[k] - 0.5, LEFT, W - RIGHT), TOP, H - BOTTOM);
    }
    pecert_sbuf_puts(b, "\"/>\n");
}

static void plot(pecert_sbuf *b, const pecert_diagnose_page *p)
{
    if (p->n_points == 0 || p->recovered == NULL) {
        return;
    }
    axis x = {0.0, (double)(p->n_points - 1)};
    axis y = value_axis(p);
    const char *what = p->expected != NULL ? "recovered minus expected position" : "recovered position";
    const char *scale = p->expected != NULL ? " on a signed log scale" : "";
    pecert_sbuf_printf(b, "<section id=\"positions\">\n<h2>Positions</h2>\n<p>Per %s, the %s%s%s. Green: as it "
                       "should be; red: rotated for another position (on the bottom edge: for no integer "
                       "position)%s.</p>\n", p->point_name, what, scale,
                       p->expected != NULL ? " (0: rotated for its own position)" : "",
                       p->n_steps > 1 && p->n_steps <= 200 ? "; blue lines: where each step of the trace begins"
                                                           : "");
    pecert_sbuf_printf(b, "<svg class=\"plot\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s per %s\">\n", W, H,
                       what, p->point_name);
    pecert_sbuf_printf(b, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", LEFT, TOP,
                       W - LEFT - RIGHT, H - TOP - BOTTOM);
    y_ticks(b, p, &y);
    for (int k = 0; k <= 4; k++) {
        double v = floor(x.hi * k / 4.0);
        pecert_sbuf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"xt\">%.0f</text>", px(&x, v, LEFT, W - RIGHT),
                           H - BOTTOM + 16, v);
    }
    pecert_sbuf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"xl\">%s</text>\n", (LEFT + W - RIGHT) / 2, H - 6,
                       p->point_name);
    step_marks(b, p, &x);
    points(b, p, &x, &y);
    pecert_sbuf_puts(b, "</svg>\n</section>\n");
}

char *pecert_diagnose_html(const pecert_diagnose_page *p)
{
    pecert_sbuf b = {0};
    pecert_sbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                         "<meta name=\"generator\" content=\"pecert " PECERT_VERSION "\">\n<title>pecert diagnose: ");
    pecert_sbuf_puts(&b, p->pass ? "PASS" : "FINDINGS");
    pecert_sbuf_puts(&b, "</title>\n<style>\n");
    pecert_sbuf_puts(&b, pecert__report_css);
    pecert_sbuf_printf(&b, "</style>\n</head>\n<body>\n<main>\n<header class=\"banner %s\" id=\"verdict\" "
                       "data-verdict=\"%s\">\n<h1>pecert diagnose</h1>\n<p class=\"big\">%s</p>\n<p>",
                       p->pass ? "pass" : "fail", p->pass ? "pass" : "findings", p->pass ? "PASS" : "FINDINGS");
    pecert_sbuf_escaped(&b, p->verdict, 0);
    pecert_sbuf_puts(&b, "</p>\n<p class=\"meta\">");
    pecert_sbuf_escaped(&b, p->title, 0);
    pecert_sbuf_puts(&b, "</p>\n</header>\n");
    findings(&b, p);
    plot(&b, p);
    recovered_table(&b, p);
    pecert_sbuf_puts(&b, "<footer>Generated by pecert " PECERT_VERSION ". This page is self-contained: it loads "
                         "no script, font, image or stylesheet from anywhere.</footer>\n</main>\n</body>\n</html>");
    return pecert_sbuf_take(&b);
}
