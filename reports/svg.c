/*
 * svg.c - the report's plots as inline SVG (no script, no external file):
 * error against position on log axes, and a head x channel-pair heatmap.
 *
 * Why log axes: many real bugs are exact at position 0 and grow with
 * distance (float16 positions, clamped cos/sin caches, angle precision),
 * so the interesting structure spans decades of both position and error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_internal.h"

/* Geometry of the error plot (SVG user units = CSS pixels). */
#define PLOT_W 640
#define PLOT_H 250
#define PLOT_LEFT 62
#define PLOT_RIGHT 14
#define PLOT_TOP 24
#define PLOT_BOTTOM 40
#define PLOT_BINS 200
/* Positions up to this are token indices: a linear axis reads better. */
#define LINEAR_MAX_POSITION 64
/* Decades shown at most on the error axis. */
#define MAX_DECADES 20

/* One pixel column of samples. */
typedef struct plot_bin {
    double emin;
    double emax;
    double bmin;
    int used;
    int bad;    /* a sample in the bin is over its bound */
} plot_bin;

/* Axes: x as u(position) in [u0, u1], y as decades [d0, d1]; d0 is the
 * row where exact zeros sit. */
typedef struct plot_axes {
    int linear;
    double u1;
    int d0;
    int d1;
} plot_axes;

static double x_u(const plot_axes *a, int64_t position)
{
    return a->linear ? (double)position : log10(1.0 + (double)position);
}

static double px_x(const plot_axes *a, double u)
{
    return PLOT_LEFT + u / a->u1 * (PLOT_W - PLOT_LEFT - PLOT_RIGHT);
}

/* The y pixel of a value: zeros on the bottom row, non-finite on top. */
static double px_y(const plot_axes *a, double v)
{
    double d = !(v > 0) ? a->d0 : !isfinite(v) ? a->d1 : log10(v);
    d = d < a->d0 ? a->d0 : d > a->d1 ? a->d1 : d;
    return PLOT_H - PLOT_BOTTOM - (d - a->d0) / (a->d1 - a->d0) * (PLOT_H - PLOT_TOP - PLOT_BOTTOM);
}

static int over_bound(double error, double bound)
{
    return isnan(error) || error > bound;
}

/* Chooses the axes from the samples; 0, or -1 if none is positional. */
static int choose_axes(plot_axes *a, const pecert_check_result *r)
{
    int64_t xmax = -1;
    double lo = INFINITY;
    double hi = 0.0;
    for (size_t i = 0; i < r->n_points; i++) {
        const pecert_error_point *p = &r->points[i];
        if (p->position < 0) {
            continue;
        }
        xmax = p->position > xmax ? p->position : xmax;
        double v[2] = {p->error, p->bound};
        for (int k = 0; k < 2; k++) {
            if (v[k] > 0 && isfinite(v[k])) {
                lo = v[k] < lo ? v[k] : lo;
                hi = v[k] > hi ? v[k] : hi;
            }
        }
    }
    if (xmax < 0) {
        return -1;
    }
    a->linear = xmax <= LINEAR_MAX_POSITION;
    a->u1 = a->linear ? (xmax > 0 ? (double)xmax : 1.0) : log10(1.0 + (double)xmax);
    a->d1 = hi > 0 ? (int)ceil(log10(hi)) : 0;
    a->d0 = (lo < INFINITY ? (int)floor(log10(lo)) : a->d1 - 2) - 1; /* a decade for zeros */
    a->d0 = a->d1 - a->d0 > MAX_DECADES ? a->d1 - MAX_DECADES : a->d0;
    a->d1 = a->d1 - a->d0 < 2 ? a->d0 + 2 : a->d1;
    return 0;
}

static void bin_samples(plot_bin *bins, const plot_axes *a, const pecert_check_result *r)
{
    for (size_t i = 0; i < r->n_points; i++) {
        const pecert_error_point *p = &r->points[i];
        if (p->position < 0) {
            continue;
        }
        int k = (int)lround(x_u(a, p->position) / a->u1 * (PLOT_BINS - 1));
        plot_bin *bin = &bins[k < 0 ? 0 : k >= PLOT_BINS ? PLOT_BINS - 1 : k];
        double e = isnan(p->error) ? INFINITY : p->error;
        if (!bin->used) {
            *bin = (plot_bin){e, e, p->bound, 1, 0};
        }
        bin->emin = e < bin->emin ? e : bin->emin;
        bin->emax = e > bin->emax ? e : bin->emax;
        bin->bmin = p->bound < bin->bmin ? p->bound : bin->bmin;
        bin->bad |= over_bound(p->error, p->bound);
    }
}

/* The x of bin k's centre. */
static double bin_x(const plot_axes *a, int k)
{
    return px_x(a, (double)k / (PLOT_BINS - 1) * a->u1);
}

/* One <path> of the bins: kind 0 bound dashes, 1 error ranges, 2 dots
 * within bound, 3 dots over bound. */
static void bins_path(pecert_sbuf *b, const plot_bin *bins, const plot_axes *a, int kind)
{
    static const char *const cls[4] = {"bound", "range", "ok", "bad"};
    pecert_sbuf_printf(b, "<path class=\"%s\" d=\"", cls[kind]);
    for (int k = 0; k < PLOT_BINS; k++) {
        const plot_bin *bin = &bins[k];
        double x = bin_x(a, k);
        if (!bin->used) {
            continue;
        }
        if (kind == 0 && bin->bmin > 0 && isfinite(bin->bmin)) {
            pecert_sbuf_printf(b, "M%.1f %.1fh6", x - 3.0, px_y(a, bin->bmin));
        } else if (kind == 1 && px_y(a, bin->emin) - px_y(a, bin->emax) > 1.0) {
            pecert_sbuf_printf(b, "M%.1f %.1fV%.1f", x, px_y(a, bin->emin), px_y(a, bin->emax));
        } else if ((kind == 2 && !bin->bad) || (kind == 3 && bin->bad)) {
            pecert_sbuf_printf(b, "M%.1f %.1fh0.1", x, px_y(a, bin->emax));
        }
    }
    pecert_sbuf_puts(b, "\"/>");
}

/* "1", "10", "1k", ..., for log-axis position ticks. */
static void position_label(char *out, size_t len, double v)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T"};
    int s = 0;
    while (v >= 1000.0 && s < 4) {
        v /= 1000.0;
        s++;
    }
    snprintf(out, len, "%g%s", v, suffix[s]);
}

static void x_ticks(pecert_sbuf *b, const plot_axes *a)
{
    double base = PLOT_H - PLOT_BOTTOM;
    double step = a->linear ? (a->u1 <= 10 ? 1 : a->u1 <= 25 ? 2 : a->u1 <= 50 ? 5 : 10) : 1.0;
    for (double t = 0; t <= a->u1 + 1e-9; t += step) {
        char label[32];
        double u = a->linear || t == 0 ? t : log10(1.0 + pow(10.0, t));
        if (a->linear) {
            snprintf(label, sizeof(label), "%g", t);
        } else {
            position_label(label, sizeof(label), t == 0 ? 0.0 : pow(10.0, t));
        }
        u = u > a->u1 ? a->u1 : u;
        pecert_sbuf_printf(b, "<path class=\"tick\" d=\"M%.1f %.1fv4\"/><text x=\"%.1f\" y=\"%.1f\" class=\"xt\">%s</text>",
                           px_x(a, u), base, px_x(a, u), base + 15, label);
    }
}

static void y_ticks(pecert_sbuf *b, const plot_axes *a)
{
    int every = (a->d1 - a->d0 + 7) / 8;
    for (int d = a->d0; d <= a->d1; d++) {
        double y = px_y(a, pow(10.0, d));
        pecert_sbuf_printf(b, "<path class=\"grid\" d=\"M%d %.1fH%d\"/>", PLOT_LEFT, y, PLOT_W - PLOT_RIGHT);
        if (d == a->d0) {
            pecert_sbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" class=\"yt\">0</text>", PLOT_LEFT - 4, y + 4);
        } else if ((a->d1 - d) % every == 0) {
            pecert_sbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" class=\"yt\">1e%d</text>", PLOT_LEFT - 4, y + 4, d);
        }
    }
}

static void plot_frame(pecert_sbuf *b, const plot_axes *a, const char *x_label)
{
    pecert_sbuf_printf(b, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", PLOT_LEFT, PLOT_TOP,
                       PLOT_W - PLOT_LEFT - PLOT_RIGHT, PLOT_H - PLOT_TOP - PLOT_BOTTOM);
    y_ticks(b, a);
    x_ticks(b, a);
    pecert_sbuf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"xl\">%s</text>", (PLOT_W + PLOT_LEFT) / 2, PLOT_H - 4,
                       x_label);
    pecert_sbuf_printf(b, "<text transform=\"translate(14 %d) rotate(-90)\" class=\"xl\">|error| (log)</text>",
                       (PLOT_H - PLOT_BOTTOM + PLOT_TOP) / 2);
    pecert_sbuf_printf(b, "<g class=\"legend\" transform=\"translate(%d %d)\">"
                          "<path class=\"ok\" d=\"M0 0h0.1\"/><text x=\"8\" y=\"4\">within bound</text>"
                          "<path class=\"bad\" d=\"M92 0h0.1\"/><text x=\"100\" y=\"4\">over bound</text>"
                          "<path class=\"bound\" d=\"M172 0h10\"/><text x=\"188\" y=\"4\">bound</text></g>",
                       PLOT_W - PLOT_RIGHT - 228, PLOT_TOP - 12);
}

void pecert__svg_error_plot(pecert_sbuf *b, const pecert_check_result *r)
{
    plot_axes a;
    if (choose_axes(&a, r) != 0) {
        return;
    }
    plot_bin *bins = calloc(PLOT_BINS, sizeof(*bins));
    if (bins == NULL) {
        b->failed = 1;
        return;
    }
    bin_samples(bins, &a, r);
    pecert_sbuf_printf(b, "<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
                       PLOT_W, PLOT_H, PLOT_W, PLOT_H);
    pecert_sbuf_escaped(b, r->check_id, 0);
    pecert_sbuf_puts(b, ": error against position\">");
    plot_frame(b, &a, a.linear ? "token index" : "position (log)");
    for (int kind = 0; kind < 4; kind++) {
        bins_path(b, bins, &a, kind);
    }
    pecert_sbuf_puts(b, "</svg>");
    free(bins);
}

/* ---- heatmap ------------------------------------------------------------ */

#define HEAT_LEFT 44
#define HEAT_TOP 8
#define HEAT_MAX_W 560
#define HEAT_MAX_H 240
#define HEAT_LEVELS 9

/* Colour class of an error/bound ratio: 0 exact, 1-5 within the bound by
 * decades, 6-8 over it. */
static int heat_level(double ratio)
{
    static const double upper[HEAT_LEVELS - 1] = {0.0, 1e-3, 1e-2, 1e-1, 0.5, 1.0, 10.0, 1e3};
    if (isnan(ratio)) {
        return HEAT_LEVELS - 1;
    }
    for (int i = 0; i < HEAT_LEVELS - 1; i++) {
        if (ratio <= upper[i]) {
            return i;
        }
    }
    return HEAT_LEVELS - 1;
}

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Cells of one row, runs of one colour drawn as one rect. */
static void heat_row(pecert_sbuf *b, const pecert_heatmap *h, int row, int cw, int ch)
{
    int col = 0;
    while (col < h->cols) {
        int level = heat_level(h->ratio[(int64_t)row * h->cols + col]);
        int end = col + 1;
        while (end < h->cols && heat_level(h->ratio[(int64_t)row * h->cols + end]) == level) {
            end++;
        }
        pecert_sbuf_printf(b, "<rect class=\"h%d\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", level,
                           HEAT_LEFT + col * cw, HEAT_TOP + row * ch, (end - col) * cw, ch);
        col = end;
    }
}

static void heat_labels(pecert_sbuf *b, const pecert_heatmap *h, int cw, int ch)
{
    int row_every = h->rows <= 16 ? 1 : (h->rows + 15) / 16;
    int col_every = cw >= 16 ? 1 : cw >= 8 ? 4 : 8;
    for (int r = 0; r < h->rows; r += row_every) {
        pecert_sbuf_printf(b, "<text class=\"yt\" x=\"%d\" y=\"%d\">%d</text>", HEAT_LEFT - 4,
                           HEAT_TOP + r * ch + ch / 2 + 4, r);
    }
    for (int c = 0; c < h->cols; c += col_every) {
        pecert_sbuf_printf(b, "<text class=\"xt\" x=\"%d\" y=\"%d\">%d</text>", HEAT_LEFT + c * cw + cw / 2,
                           HEAT_TOP + h->rows * ch + 14, c);
    }
}

static void heat_legend(pecert_sbuf *b, int y)
{
    static const char *const names[HEAT_LEVELS] = {"0",   "&#8804;1e-3", "&#8804;1e-2", "&#8804;0.1", "&#8804;0.5",
                                                   "&#8804;1", "&#8804;10", "&#8804;1e3", "&gt;1e3"};
    pecert_sbuf_printf(b, "<g class=\"legend\" transform=\"translate(%d %d)\"><text x=\"0\" y=\"10\">error/bound:</text>",
                       HEAT_LEFT, y);
    for (int i = 0; i < HEAT_LEVELS; i++) {
        pecert_sbuf_printf(b, "<rect class=\"h%d\" x=\"%d\" y=\"0\" width=\"12\" height=\"12\"/><text x=\"%d\" y=\"10\">%s</text>",
                           i, 78 + i * 52, 78 + i * 52 + 15, names[i]);
    }
    pecert_sbuf_puts(b, "</g>");
}

void pecert__svg_heatmap(pecert_sbuf *b, const pecert_heatmap *h)
{
    if (h->rows <= 0 || h->cols <= 0 || h->ratio == NULL) {
        return;
    }
    int cw = clamp_int(HEAT_MAX_W / h->cols, 2, 16);
    int ch = clamp_int(HEAT_MAX_H / h->rows, 2, 20);
    int width = HEAT_LEFT + h->cols * cw + 8;
    int height = HEAT_TOP + h->rows * ch + 58;
    width = width < HEAT_LEFT + 78 + HEAT_LEVELS * 52 ? HEAT_LEFT + 78 + HEAT_LEVELS * 52 : width;
    pecert_sbuf_printf(b, "<svg class=\"plot heat\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"error/bound by ",
                       width, height, width, height);
    pecert_sbuf_escaped(b, h->row_axis, 0);
    pecert_sbuf_puts(b, " and ");
    pecert_sbuf_escaped(b, h->col_axis, 0);
    pecert_sbuf_puts(b, "\">");
    for (int r = 0; r < h->rows; r++) {
        heat_row(b, h, r, cw, ch);
    }
    heat_labels(b, h, cw, ch);
    pecert_sbuf_printf(b, "<text class=\"xl\" x=\"%d\" y=\"%d\">", HEAT_LEFT + h->cols * cw / 2, HEAT_TOP + h->rows * ch + 28);
    pecert_sbuf_escaped(b, h->col_axis, 0);
    pecert_sbuf_printf(b, "</text><text class=\"xl\" transform=\"translate(12 %d) rotate(-90)\">", HEAT_TOP + h->rows * ch / 2);
    pecert_sbuf_escaped(b, h->row_axis, 0);
    pecert_sbuf_puts(b, "</text>");
    heat_legend(b, HEAT_TOP + h->rows * ch + 40);
    pecert_sbuf_puts(b, "</svg>");
}
