/*
 * rope_recover.c - rotation angles, pairing, rotated channels and
 * positions read off a before/after dump (rope_recover.h).
 */
#include "rope_recover.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define U32 (1.0 / 16777216.0) /* float32 unit roundoff, 2^-24 */

/* A pair is measured when its norm is above this share of the largest
 * one: a nearly-zero pair's angle is all rounding. */
#define MIN_PAIR_SHARE 1e-3

static double wrap(double a)
{
    a = fmod(a, 2.0 * M_PI);
    if (a > M_PI) {
        a -= 2.0 * M_PI;
    } else if (a <= -M_PI) {
        a += 2.0 * M_PI;
    }
    return a;
}

static const double *row(const double *base, const pecert_dump_view *v, int64_t t, int32_t h)
{
    return base + ((size_t)t * (size_t)v->n_heads + (size_t)h) * (size_t)v->head_dim;
}

void pecert_recover_rotated_range(const pecert_dump_view *v, int32_t *lo, int32_t *hi)
{
    *lo = v->head_dim;
    *hi = 0;
    for (int64_t t = 0; t < v->n_tokens; t++) {
        for (int32_t h = 0; h < v->n_heads; h++) {
            const double *x = row(v->before, v, t, h);
            const double *y = row(v->after, v, t, h);
            for (int32_t d = 0; d < v->head_dim; d++) {
                double tol = 2.0 * v->eps * fmax(fabs(x[d]), fabs(y[d]));
                if (fabs(y[d] - x[d]) > tol) {
                    *lo = d < *lo ? d : *lo;
                    *hi = d + 1 > *hi ? d + 1 : *hi;
                }
            }
        }
    }
    if (*hi <= *lo) {
        *lo = *hi = 0;
    }
}

void pecert_pair_channels(pecert_rope_pairing p, int32_t lo, int32_t width, int32_t i, int32_t *a, int32_t *c)
{
    if (p == PECERT_PAIRING_INTERLEAVED) {
        *a = lo + 2 * i;
        *c = lo + 2 * i + 1;
    } else {
        *a = lo + i;
        *c = lo + i + width / 2;
    }
}

/* The largest pair norm of a head row over [lo, hi) under p. */
static double largest_pair(const double *x, pecert_rope_pairing p, int32_t lo, int32_t width)
{
    double m = 0.0;
    for (int32_t i = 0; i < width / 2; i++) {
        int32_t a;
        int32_t c;
        pecert_pair_channels(p, lo, width, i, &a, &c);
        m = fmax(m, hypot(x[a], x[c]));
    }
    return m;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa;
    double b = *(const double *)pb;
    return (a > b) - (a < b);
}

double pecert_recover_pairing_spread(const pecert_dump_view *v, pecert_rope_pairing p, int32_t lo, int32_t hi,
                                     double *median)
{
    int32_t width = (hi - lo) & ~1;
    size_t cap = (size_t)v->n_tokens * (size_t)v->n_heads * (size_t)(width / 2);
    double *ratios = malloc((cap > 0 ? cap : 1) * sizeof(double));
    size_t n = 0;
    *median = 1.0;
    if (ratios == NULL || width < 2) {
        free(ratios);
        return -1.0;
    }
    for (int64_t t = 0; t < v->n_tokens; t++) {
        for (int32_t h = 0; h < v->n_heads; h++) {
            const double *x = row(v->before, v, t, h);
            const double *y = row(v->after, v, t, h);
            double floor_norm = MIN_PAIR_SHARE * largest_pair(x, p, lo, width);
            for (int32_t i = 0; i < width / 2; i++) {
                int32_t a;
                int32_t c;
                pecert_pair_channels(p, lo, width, i, &a, &c);
                double nx = hypot(x[a], x[c]);
                if (nx > floor_norm && nx > 0.0) {
                    ratios[n++] = hypot(y[a], y[c]) / nx;
                }
            }
        }
    }
    if (n == 0) {
        free(ratios);
        return -1.0;
    }
    qsort(ratios, n, sizeof(double), cmp_double);
    *median = ratios[n / 2];
    double spread = *median > 0.0 ? (ratios[n - 1] - ratios[0]) / *median : INFINITY;
    free(ratios);
    return spread;
}

void pecert_recover_angles(const pecert_dump_view *v, pecert_rope_pairing p, int32_t lo, int32_t hi, double *phi,
                           double *weight)
{
    int32_t width = (hi - lo) & ~1;
    int32_t n_pairs = width / 2;
    for (int64_t t = 0; t < v->n_tokens; t++) {
        for (int32_t i = 0; i < n_pairs; i++) {
            double cross = 0.0;
            double dot = 0.0;
            double w = 0.0;
            for (int32_t h = 0; h < v->n_heads; h++) {
                const double *x = row(v->before, v, t, h);
                const double *y = row(v->after, v, t, h);
                int32_t a;
                int32_t c;
                pecert_pair_channels(p, lo, width, i, &a, &c);
                cross += x[a] * y[c] - x[c] * y[a];
                dot += x[a] * y[a] + x[c] * y[c];
                w += x[a] * x[a] + x[c] * x[c];
            }
            phi[t * n_pairs + i] = atan2(cross, dot);
            weight[t * n_pairs + i] = hypot(cross, dot) > 0.0 ? w : 0.0;
        }
    }
}

double pecert_recover_angle_bound(double position, double omega, int32_t pair, double eps)
{
    double angle = fabs(position * omega);
    return (3.0 + (double)pair) * U32 * angle + 8.0 * eps + 8.0 * U32;
}

/* The measured pairs in ascending frequency. */
static int32_t ladder_order(const double *w, const double *omega, int32_t n_pairs, int32_t *order)
{
    int32_t n = 0;
    for (int32_t i = 0; i < n_pairs; i++) {
        if (w[i] > 0.0 && omega[i] > 0.0 && isfinite(omega[i])) {
            order[n++] = i;
        }
    }
    for (int32_t i = 1; i < n; i++) { /* insertion sort: a head has few pairs */
        int32_t k = order[i];
        int32_t j = i - 1;
        while (j >= 0 && omega[order[j]] > omega[k]) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = k;
    }
    return n;
}

/* Angle errors below this are meaningful: a larger one could move the
 * estimate by more than a quarter of the pair's period. */
#define LADDER_MAX_BOUND (M_PI / 4.0)
/* Without a position to start from, the lowest frequency's angle fixes p
 * modulo its period; the candidates p0 + k period are tried up to this
 * position (certify's farthest positions) and at most this many. */
#define SEARCH_MAX_POSITION ((double)(1 << 24))
#define SEARCH_MAX_CANDIDATES 4096

/* The worst |angle error| / bound over the first `used` pairs of order
 * at integer position p. */
static double residual_at(const double *phi, const double *omega, const int32_t *order, int32_t used, int64_t p,
                          double eps)
{
    double worst = 0.0;
    for (int32_t k = 0; k < used; k++) {
        int32_t i = order[k];
        double bound = pecert_recover_angle_bound((double)p, omega[i], i, eps);
        worst = fmax(worst, fabs(wrap(phi[i] - (double)p * omega[i])) / bound);
    }
    return worst;
}

static void set_position(pecert_recovered_position *out, double estimate, int64_t nearest, int32_t used,
                         double residual)
{
    out->estimate = estimate;
    out->nearest = nearest;
    out->pairs_used = used;
    out->residual = residual;
    out->integer = used > 0 && residual <= 1.0 && nearest >= 0;
}

/* One ladder from start over the measured pairs order[0..n). */
static void ladder(const double *phi, const double *omega, const int32_t *order, int32_t n, double start, double eps,
                   pecert_recovered_position *out)
{
    double p = start;
    int32_t used = 0;
    for (int32_t k = 0; k < n; k++) {
        int32_t i = order[k];
        if (pecert_recover_angle_bound(p, omega[i], 0, eps) > LADDER_MAX_BOUND) {
            break; /* higher frequencies only get noisier at this position */
        }
        p += wrap(phi[i] - p * omega[i]) / omega[i];
        used++;
    }
    int64_t nearest = (int64_t)llround(p);
    set_position(out, p, nearest, used, residual_at(phi, omega, order, used, nearest, eps));
}

/* The expected position checked as it is: where the angles' bounds admit
 * neighbours too (a float32 recurrence near 2^24 fits p and p - 2), the
 * ladder could settle on either, and the one asked about is the answer. */
static int expected_fits(const double *phi, const double *omega, const int32_t *order, int32_t n, double start,
                         double eps, pecert_recovered_position *out)
{
    if (start != nearbyint(start) || start < 0) {
        return 0;
    }
    int32_t used = 0;
    while (used < n && pecert_recover_angle_bound(start, omega[order[used]], 0, eps) <= LADDER_MAX_BOUND) {
        used++;
    }
    double residual = residual_at(phi, omega, order, used, (int64_t)start, eps);
    if (used == 0 || residual > 1.0) {
        return 0;
    }
    set_position(out, start, (int64_t)start, used, residual);
    return 1;
}

static int fits_better(const pecert_recovered_position *a, const pecert_recovered_position *b)
{
    if (a->integer != b->integer) {
        return a->integer;
    }
    return a->residual < b->residual;
}

void pecert_recover_position(const double *phi, const double *w, const double *omega, int32_t n_pairs, double start,
                             double eps, pecert_recovered_position *out)
{
    int32_t *order = malloc((size_t)(n_pairs > 0 ? n_pairs : 1) * sizeof(int32_t));
    memset(out, 0, sizeof(*out));
    out->estimate = NAN;
    int32_t n = order != NULL ? ladder_order(w, omega, n_pairs, order) : 0;
    if (n == 0) {
        free(order);
        return;
    }
    double period = 2.0 * M_PI / omega[order[0]];
    if (!isnan(start)) {
        if (!expected_fits(phi, omega, order, n, start, eps, out)) {
            ladder(phi, omega, order, n, start, eps, out);
        }
    } else {
        /* From (-period/2, period/2]: an angle a hair below 0 (position 0
         * under an attention factor, rounded) must start at 0, not at a
         * period. */
        double p0 = wrap(phi[order[0]]) / omega[order[0]];
        double candidates = fmin(floor((SEARCH_MAX_POSITION - p0) / period) + 1.0, SEARCH_MAX_CANDIDATES);
        for (double k = 0; k < candidates; k++) {
            pecert_recovered_position c;
            memset(&c, 0, sizeof(c));
            ladder(phi, omega, order, n, p0 + k * period, eps, &c);
            if (k == 0 || fits_better(&c, out)) {
                *out = c;
            }
            if (c.integer && c.residual < 0.5) {
                break; /* the first candidate that fits well: later ones are the same angles again */
            }
        }
    }
    out->period = period;
    free(order);
}
