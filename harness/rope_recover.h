/*
 * rope_recover.h - what rotation an engine applied, read off a tensor dump
 * of q (or k) before and after its RoPE (pecert diagnose).
 *
 * For a channel pair (a, c) of a token's head, RoPE maps x to
 * y = s R(theta) x: the pair's norm ratio |y|/|x| is the attention factor
 * s, the same for every pair, and its angle
 *     theta = atan2(x_a y_c - x_c y_a, x_a y_a + x_c y_c)
 * is p * omega_i modulo 2 pi. Under the wrong pairing the "pairs" are not
 * rotated rigidly and their norm ratios scatter, which names the pairing.
 * The heads of a token rotate alike, so their pair sums give one angle per
 * pair (the circular mean, weighted by |x|^2). The position follows from
 * the angles by a ladder from the lowest frequency (unambiguous while
 * p * omega_min < 2 pi) up: each higher one refines the estimate by the
 * part of its angle the current estimate does not explain, as long as the
 * angle error an engine's float32 arithmetic makes there (the bound of
 * pecert_recover_angle_bound) leaves it meaningful.
 */
#ifndef PECERT_HARNESS_ROPE_RECOVER_H
#define PECERT_HARNESS_ROPE_RECOVER_H

#include <stdint.h>

#include "pecert/plugin.h"

/* One dump pair: the tensor before and after RoPE, [tokens][heads][dim]. */
typedef struct pecert_dump_view {
    int64_t n_tokens;
    int32_t n_heads;
    int32_t head_dim;
    const double *before;
    const double *after;
    double eps;             /* unit roundoff of the dump's dtype           */
} pecert_dump_view;

/* pecert_recover_rotated_range: the channels [lo, hi) that differ between
 * before and after anywhere (beyond the dump's rounding); lo = hi = 0
 * when nothing changed. */
void pecert_recover_rotated_range(const pecert_dump_view *v, int32_t *lo, int32_t *hi);

/* pecert_pair_channels: channels (a, c) of pair i of the rotated range
 * [lo, lo + width) under pairing p. */
void pecert_pair_channels(pecert_rope_pairing p, int32_t lo, int32_t width, int32_t i, int32_t *a, int32_t *c);

/* pecert_recover_pairing_spread: the relative spread (max - min) / median
 * of the pairs' norm ratios under pairing p over [lo, hi), skipping pairs
 * too small to measure; *median gets the median ratio (the attention
 * factor when p is right). 0 pairs measured: returns -1. */
double pecert_recover_pairing_spread(const pecert_dump_view *v, pecert_rope_pairing p, int32_t lo, int32_t hi,
                                     double *median);

/* pecert_recover_angles: per pair i of [lo, hi) under p, token t's angle
 * phi[t * n_pairs + i] in (-pi, pi] and its weight (sum over heads of
 * |x_pair|^2; 0 when unmeasurable). */
void pecert_recover_angles(const pecert_dump_view *v, pecert_rope_pairing p, int32_t lo, int32_t hi, double *phi,
                           double *weight);

/* pecert_recover_angle_bound: the angle error a float32 engine makes on
 * frequency omega of pair index `pair` at position p, plus the dump's
 * rounding eps: a frequency and a product rounded to float32 (u |p omega|
 * each), one more u per pair index for frequencies built by recurrence
 * (ggml's theta_scale powers: TOLERANCES.md), its sin/cos and the
 * engine's rotation (8 u), and the dump's values of a pair on each side
 * (each within eps of itself: 8 eps). The ladder steps on while the
 * plain float32 part (pair 0) stays below pi/4. */
double pecert_recover_angle_bound(double position, double omega, int32_t pair, double eps);

typedef struct pecert_recovered_position {
    double estimate;        /* the ladder's real-valued position          */
    int64_t nearest;        /* the integer nearest it                     */
    double residual;        /* max |wrap(phi_i - nearest omega_i)| / bound_i
                             * over the pairs used (<= 1: explained)       */
    int32_t pairs_used;     /* pairs whose bound left them meaningful     */
    int integer;            /* residual <= 1 and |estimate - nearest| small */
    double period;          /* 2 pi / omega_min: positions repeat after it */
} pecert_recovered_position;

/* pecert_recover_position: token angles phi[n_pairs] (weights w) against
 * frequencies omega[n_pairs]; start is the expected position to refine
 * from, or a NaN to start from the lowest frequency alone. */
void pecert_recover_position(const double *phi, const double *w, const double *omega, int32_t n_pairs, double start,
                             double eps, pecert_recovered_position *out);

#endif /* PECERT_HARNESS_ROPE_RECOVER_H */
