/*
 * table.c - the rows of a cos/sin table, one position after another.
 *
 * Positions in a prefill are mostly consecutive, and a direct evaluation
 * (argument reduction and two polynomials, ~300 cycles per 8 frequencies)
 * costs ten times a step of the angle-addition recurrence. So a row is
 * derived from the previous one when its position is the same or one
 * more, and computed directly on a grid of row indices (every
 * PECERT__FAST_ANCHOR-th row, and wherever positions jump). The grid
 * depends only on the row index and the positions, never on where a
 * thread's share starts: a thread entering mid-block recomputes from the
 * block's anchor, so every thread count gives the same bits (fast.h).
 */
#include <math.h>

#include "fast.h"

typedef enum row_kind { ROW_DIRECT, ROW_SAME, ROW_STEP } row_kind;

static row_kind kind_of(const int64_t *positions, int64_t t)
{
    if (t % PECERT__FAST_ANCHOR == 0) {
        return ROW_DIRECT;
    }
    if (positions[t] == positions[t - 1]) {
        return ROW_SAME;
    }
    return positions[t] == positions[t - 1] + 1 ? ROW_STEP : ROW_DIRECT;
}

static void compute_direct(pecert__fast_rows *rows, int64_t t)
{
    const pecert__fast_freqs *f = rows->freqs;
    double p = (double)rows->positions[t];

    if (fabs(p) * f->max_inv_freq < PECERT__FAST_NEAR_LIMIT) {
        rows->kernels->sincos_row(f->inv_freq, f->half, p, rows->cos, rows->sin);
    } else {
        pecert__fast_far_row(f->inv_freq, f->half, p, rows->cos, rows->sin);
    }
}

/* Row t from row t - 1 (held), or directly. */
static void advance(pecert__fast_rows *rows, int64_t t)
{
    const pecert__fast_freqs *f = rows->freqs;

    switch (kind_of(rows->positions, t)) {
    case ROW_SAME:
        break;
    case ROW_STEP:
        rows->kernels->step_row(f->step_cos, f->step_sin, f->half, rows->cos, rows->sin);
        rows->changed = 1;
        break;
    default:
        compute_direct(rows, t);
        rows->changed = 1;
        break;
    }
    rows->current = t;
}

void pecert__fast_rows_init(pecert__fast_rows *rows, const pecert__fast_kernels *kernels,
                            const pecert__fast_freqs *freqs, const int64_t *positions,
                            double *cos, double *sin)
{
    rows->kernels = kernels;
    rows->freqs = freqs;
    rows->positions = positions;
    rows->cos = cos;
    rows->sin = sin;
    rows->current = -1;
    rows->changed = 0;
}

void pecert__fast_rows_seek(pecert__fast_rows *rows, int64_t t)
{
    int64_t anchor = t;

    if (rows->current == t) {
        return;
    }
    if (rows->current >= 0 && rows->current == t - 1) {
        advance(rows, t);
        return;
    }
    /* Back to the row this one derives from, then forward. */
    while (kind_of(rows->positions, anchor) != ROW_DIRECT) {
        anchor--;
    }
    compute_direct(rows, anchor);
    rows->changed = 1;
    rows->current = anchor;
    while (rows->current < t) {
        advance(rows, rows->current + 1);
    }
}

int pecert__fast_rows_step_out(pecert__fast_rows *rows, int64_t t, float *out_sin, float *out_cos)
{
    const pecert__fast_freqs *f = rows->freqs;
    const pecert__fast_kernels *k = rows->kernels;

    if (rows->current < 0 || rows->current != t - 1 || kind_of(rows->positions, t) != ROW_STEP ||
        (uintptr_t)out_sin % 64 != 0 || (out_cos != NULL && (uintptr_t)out_cos % 64 != 0)) {
        return 0;
    }
    if (out_cos == NULL && k->step_interleave_stream != NULL) {
        k->step_interleave_stream(f->step_cos, f->step_sin, f->half, rows->cos, rows->sin, out_sin);
    } else if (out_cos != NULL && k->step_halves_stream != NULL) {
        k->step_halves_stream(f->step_cos, f->step_sin, f->half, rows->cos, rows->sin, out_sin, out_cos);
    } else {
        return 0;
    }
    rows->current = t;
    rows->changed = 1;
    return 1;
}
