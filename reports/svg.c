/*
 * svg.c - the report's plots as inline SVG (no script, no external file):
 * error against position on log axes, a head x channel-pair heatmap, and
 * lines of a share (% of a limit) against a size on a log axis.
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

/* One pixel column of samples. Its dot and dash are one sample's: the one
 * furthest over (or least under) its own bound, so a dot drawn above its
 * dash is a sample over its bound and no other (the dash once was the
 * smallest bound in the bin under the largest error, and passing samples
 * sat decades above the bound drawn). */
typedef struct plot_bin {
    double emin;
    double emax;
    double dot_error;  /* the worst sample's error ...             */
    double dot_bound;  /* ... and its own bound                    */
    double dot_ratio;  /* error / bound; +inf for NaN or no bound  */
    int used;
    int bad;           /* a sample in the bin is over its bound */
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
        double ratio = over_bound(p->error, p->bound) && !(p->bound > 0) ? INFINITY
                       : p->bound > 0                                  ? e / p->bound
                                                                       : 0.0;
        if (!bin->used) {
            *bin = (plot_bin){e, e, e, p->bound, ratio, 1, 0};
        }
        bin->emin = e < bin->emin ? e : bin->emin;
        bin->emax = e > bin->emax ? e : bin->emax;
        if (ratio > bin->dot_ratio) {
            bin->dot_error = e;
            bin->dot_bound = p->bound;
            bin->dot_ratio = ratio;
        }
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
        if (kind == 0 && bin->dot_bound > 0 && isfinite(bin->dot_bound)) {
            pecert_sbuf_printf(b, "M%.1f %.1fh6", x - 3.0, px_y(a, bin->dot_bound));
        } else if (kind == 1 && px_y(a, bin->emin) - px_y(a, bin->emax) > 1.0) {
            pecert_sbuf_printf(b, "M%.1f %.1fV%.1f", x, px_y(a, bin->emin), px_y(a, bin->emax));
        } else if ((kind == 2 && !bin->bad) || (kind == 3 && bin->bad)) {
            pecert_sbuf_printf(b, "M%.1f %.1fh0.1", x, px_y(a, bin->dot_error));
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

/* A tick under the x axis at pixel x, labelled. */
static void x_tick(pecert_sbuf *b, double x, const char *label)
{
    double base = PLOT_H - PLOT_BOTTOM;
    pecert_sbuf_printf(b, "<path class=\"tick\" d=\"M%.1f %.1fv4\"/><text x=\"%.1f\" y=\"%.1f\" class=\"xt\">%s</text>",
                       x, base, x, base + 15, label);
}

/* A grid line across the plot at pixel y, labelled on the left (or not). */
static void y_grid(pecert_sbuf *b, double y, const char *label)
{
    pecert_sbuf_printf(b, "<path class=\"grid\" d=\"M%d %.1fH%d\"/>", PLOT_LEFT, y, PLOT_W - PLOT_RIGHT);
    if (label != NULL) {
        pecert_sbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" class=\"yt\">%s</text>", PLOT_LEFT - 4, y + 4, label);
    }
}

static void x_ticks(pecert_sbuf *b, const plot_axes *a)
{
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
        x_tick(b, px_x(a, u), label);
    }
}

static void y_ticks(pecert_sbuf *b, const plot_axes *a)
{
    int every = (a->d1 - a->d0 + 7) / 8;
    for (int d = a->d0; d <= a->d1; d++) {
        char label[16] = "0";
        if (d != a->d0) {
            snprintf(label, sizeof(label), "1e%d", d);
        }
        y_grid(b, px_y(a, pow(10.0, d)), d == a->d0 || (a->d1 - d) % every == 0 ? label : NULL);
    }
}

static void frame_rect(pecert_sbuf *b)
{
    pecert_sbuf_printf(b, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", PLOT_LEFT, PLOT_TOP,
                       PLOT_W - PLOT_LEFT - PLOT_RIGHT, PLOT_H - PLOT_TOP - PLOT_BOTTOM);
}

/* The axis names, under the x axis and up the left edge. */
static void axis_names(pecert_sbuf *b, const char *x_label, const char *y_label)
{
    pecert_sbuf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"xl\">", (PLOT_W + PLOT_LEFT) / 2, PLOT_H - 4);
    pecert_sbuf_escaped(b, x_label, 0);
    pecert_sbuf_printf(b, "</text><text transform=\"translate(14 %d) rotate(-90)\" class=\"xl\">",
                       (PLOT_H - PLOT_BOTTOM + PLOT_TOP) / 2);
    pecert_sbuf_escaped(b, y_label, 0);
    pecert_sbuf_puts(b, "</text>");
}

static void plot_frame(pecert_sbuf *b, const plot_axes *a, const char *x_label)
{
    frame_rect(b);
    y_ticks(b, a);
    x_ticks(b, a);
    axis_names(b, x_label, "|error| (log)");
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

/* ---- line plot: a share (%) against a size on a log axis ----------------- */

#define LINES_MAX_TICKS 32
#define LEGEND_COLS 2
#define LEGEND_COL_W 290
#define LEGEND_ROW_H 18

/* x as log10(x) in [u0, u1]; y linear in [0, ymax], a grid line every ystep. */
typedef struct line_axes {
    double u0;
    double u1;
    double ymax;
    double ystep;
} line_axes;

static double line_x(const line_axes *a, double x)
{
    return PLOT_LEFT + (log10(x) - a->u0) / (a->u1 - a->u0) * (PLOT_W - PLOT_LEFT - PLOT_RIGHT);
}

static double line_y(const line_axes *a, double y)
{
    return PLOT_H - PLOT_BOTTOM - y / a->ymax * (PLOT_H - PLOT_TOP - PLOT_BOTTOM);
}

static int plottable(const pecert_svg_line *l, size_t i)
{
    return l->x[i] > 0 && isfinite(l->x[i]) && isfinite(l->y[i]);
}

/* Axes that hold every point and level; 0, or -1 if there is no point. */
static int choose_line_axes(line_axes *a, const pecert_svg_line_plot *p)
{
    double xmin = INFINITY;
    double xmax = 0.0;
    double ymax = 100.0;
    for (size_t k = 0; k < p->n_lines; k++) {
        for (size_t i = 0; i < p->lines[k].n; i++) {
            if (plottable(&p->lines[k], i)) {
                xmin = fmin(xmin, p->lines[k].x[i]);
                xmax = fmax(xmax, p->lines[k].x[i]);
                ymax = fmax(ymax, p->lines[k].y[i]);
            }
        }
    }
    for (size_t k = 0; k < p->n_levels; k++) {
        ymax = fmax(ymax, p->levels[k].y);
    }
    if (!(xmax > 0)) {
        return -1;
    }
    double pad = xmax > xmin ? 0.04 * log10(xmax / xmin) : 0.5; /* points off the frame */
    a->u0 = log10(xmin) - pad;
    a->u1 = log10(xmax) + pad;
    a->ystep = 20.0 * ceil(ymax / 120.0);
    a->ymax = a->ystep * ceil(ymax / a->ystep);
    return 0;
}

/* A tick at every distinct x of the lines, labelled as a count. */
static void line_x_ticks(pecert_sbuf *b, const line_axes *a, const pecert_svg_line_plot *p)
{
    double seen[LINES_MAX_TICKS];
    size_t n = 0;
    for (size_t k = 0; k < p->n_lines; k++) {
        for (size_t i = 0; i < p->lines[k].n && n < LINES_MAX_TICKS; i++) {
            size_t j = 0;
            while (j < n && seen[j] != p->lines[k].x[i]) {
                j++;
            }
            if (j == n && plottable(&p->lines[k], i)) {
                char label[32];
                seen[n++] = p->lines[k].x[i];
                if (seen[j] < 1e5) {
                    snprintf(label, sizeof(label), "%.0f", seen[j]);
                } else {
                    position_label(label, sizeof(label), seen[j]);
                }
                x_tick(b, line_x(a, seen[j]), label);
            }
        }
    }
}

/* The line through a line's points, then a dot on each. */
static void line_path(pecert_sbuf *b, const line_axes *a, const pecert_svg_line *l)
{
    for (int dots = 0; dots < 2; dots++) {
        int started = 0;
        pecert_sbuf_printf(b, "<path class=\"%s s%d%s\" d=\"", dots ? "dot" : "line", l->colour % 6,
                           l->dashed && !dots ? " dash" : "");
        for (size_t i = 0; i < l->n; i++) {
            if (!plottable(l, i)) {
                started = 0;
                continue;
            }
            pecert_sbuf_printf(b, "%s%.1f %.1f%s", dots || !started ? "M" : "L", line_x(a, l->x[i]),
                               line_y(a, l->y[i]), dots ? "h0.1" : "");
            started = 1;
        }
        pecert_sbuf_puts(b, "\"/>");
    }
}

static void line_levels(pecert_sbuf *b, const line_axes *a, const pecert_svg_line_plot *p)
{
    for (size_t k = 0; k < p->n_levels; k++) {
        pecert_sbuf_printf(b, "<path class=\"level s%d\" d=\"M%d %.1fH%d\"/>", p->levels[k].colour % 6, PLOT_LEFT,
                           line_y(a, p->levels[k].y), PLOT_W - PLOT_RIGHT);
    }
}

/* Legend entry n: a sample of the stroke (class cls), then the label. */
static void legend_entry(pecert_sbuf *b, size_t n, const char *cls, const char *label)
{
    int x = (int)(n % LEGEND_COLS) * LEGEND_COL_W;
    int y = (int)(n / LEGEND_COLS) * LEGEND_ROW_H;
    pecert_sbuf_printf(b, "<path class=\"%s\" d=\"M%d %dh24\"/><text x=\"%d\" y=\"%d\">", cls, x, y, x + 30, y + 4);
    pecert_sbuf_escaped(b, label, 0);
    pecert_sbuf_puts(b, "</text>");
}

static size_t legend_entries(const pecert_svg_line_plot *p)
{
    size_t n = p->n_levels;
    for (size_t k = 0; k < p->n_lines; k++) {
        n += p->lines[k].label != NULL;
    }
    return n;
}

/* Every labelled line, then every level, LEGEND_COLS to a row. */
static void line_legend(pecert_sbuf *b, const pecert_svg_line_plot *p)
{
    size_t n = 0;
    char cls[32];
    pecert_sbuf_printf(b, "<g class=\"legend\" transform=\"translate(%d %d)\">", PLOT_LEFT, PLOT_H + 8);
    for (size_t k = 0; k < p->n_lines; k++) {
        const pecert_svg_line *l = &p->lines[k];
        if (l->label != NULL) {
            snprintf(cls, sizeof(cls), "line s%d%s", l->colour % 6, l->dashed ? " dash" : "");
            legend_entry(b, n++, cls, l->label);
        }
    }
    for (size_t k = 0; k < p->n_levels; k++) {
        snprintf(cls, sizeof(cls), "level s%d", p->levels[k].colour % 6);
        legend_entry(b, n++, cls, p->levels[k].label);
    }
    pecert_sbuf_puts(b, "</g>");
}

void pecert__svg_lines(pecert_sbuf *b, const pecert_svg_line_plot *p)
{
    line_axes a;
    if (choose_line_axes(&a, p) != 0) {
        return;
    }
    int height = PLOT_H + 6 + (int)((legend_entries(p) + LEGEND_COLS - 1) / LEGEND_COLS) * LEGEND_ROW_H;
    pecert_sbuf_printf(b, "<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
                       PLOT_W, height, PLOT_W, height);
    pecert_sbuf_escaped(b, p->title, 0);
    pecert_sbuf_puts(b, "\">");
    frame_rect(b);
    for (double y = 0; y <= a.ymax + 1e-9; y += a.ystep) {
        char label[16];
        snprintf(label, sizeof(label), "%g%%", y);
        y_grid(b, line_y(&a, y), label);
    }
    line_x_ticks(b, &a, p);
    axis_names(b, p->x_label, p->y_label);
    line_levels(b, &a, p);
    for (size_t k = 0; k < p->n_lines; k++) {
        line_path(b, &a, &p->lines[k]);
    }
    line_legend(b, p);
    pecert_sbuf_puts(b, "</svg>");
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
