/*
 * taps.c - the weighted sums of the filtering ops (family/posinterp.c,
 * family/peg.c): one portable source for every ISA, as scalar/index.c
 * (x86/avx2/taps.c and x86/avx512/taps.c include it under their flags;
 * "omp simd" vectorizes each loop over the channels). Each channel's
 * arithmetic is its own and in a fixed order, a multiply then an add (the
 * tree builds with -ffp-contract=off): the same bits in every ISA.
 *
 *   axpy_row   acc[d] += w * x[d]
 *   sum_rows   out[d] = (((0 + w_0 x_0[d]) + w_1 x_1[d]) + ...) over the
 *              taps in their order (from out[d] instead of 0 unless
 *              from_zero): axpy_row tap by tap, with up to four taps per
 *              pass held in a register (a store per value and pass, not
 *              per tap)
 *   sum_rows_shared
 *              sum_rows from zero into 1 to 4 outputs over the same taps'
 *              rows, each output with its own weights: the rows loaded
 *              once for every output where there are four taps
 *   peg_cell   out[c] = centre[c] + ((((0 + w_0[c] x_0[c]) + w_1[c] x_1[c])
 *              + ...) + bias[c]) over the taps in their order, for the
 *              channels c in [begin, end)
 */
#include <stdint.h>

#include "../fast.h"

#ifndef PECERT__FAST_TAPS_ISA
#define PECERT__FAST_TAPS_ISA scalar
#endif

#define TAPS_NAME_(op, isa) pecert__fast_##op##_##isa
#define TAPS_NAME(op, isa) TAPS_NAME_(op, isa)

void TAPS_NAME(axpy_row, PECERT__FAST_TAPS_ISA)(float *restrict acc, float w, const float *restrict x, int64_t n)
{
    _Pragma("omp simd") for (int64_t d = 0; d < n; d++) {
        acc[d] += w * x[d];
    }
}

/* Taps [first, first + 4) added to out, or to zero. */
static inline __attribute__((always_inline)) void add_four(float *restrict out, const float *const *x,
                                                           const float *w, int32_t first, int64_t n, int zero)
{
    const float *restrict x0 = x[first];
    const float *restrict x1 = x[first + 1];
    const float *restrict x2 = x[first + 2];
    const float *restrict x3 = x[first + 3];
    float w0 = w[first], w1 = w[first + 1], w2 = w[first + 2], w3 = w[first + 3];

    if (zero) {
        _Pragma("omp simd") for (int64_t d = 0; d < n; d++) {
            out[d] = (((0.0f + w0 * x0[d]) + w1 * x1[d]) + w2 * x2[d]) + w3 * x3[d];
        }
    } else {
        _Pragma("omp simd") for (int64_t d = 0; d < n; d++) {
            out[d] = (((out[d] + w0 * x0[d]) + w1 * x1[d]) + w2 * x2[d]) + w3 * x3[d];
        }
    }
}

void TAPS_NAME(sum_rows, PECERT__FAST_TAPS_ISA)(float *restrict out, const float *const *x, const float *w,
                                               int32_t taps, int64_t n, int from_zero)
{
    int32_t t = 0;

    for (; t + 4 <= taps; t += 4) {
        add_four(out, x, w, t, n, from_zero && t == 0);
    }
    if (from_zero && t == 0) { /* fewer than four taps: the first (or none) from zero */
        const float *restrict x0 = taps > 0 ? x[0] : NULL;
        float w0 = taps > 0 ? w[0] : 0.0f;

        if (taps > 0) {
            _Pragma("omp simd") for (int64_t d = 0; d < n; d++) {
                out[d] = 0.0f + w0 * x0[d];
            }
            t = 1;
        } else {
            _Pragma("omp simd") for (int64_t d = 0; d < n; d++) {
                out[d] = 0.0f;
            }
        }
    }
    for (; t < taps; t++) {
        TAPS_NAME(axpy_row, PECERT__FAST_TAPS_ISA)(out, w[t], x[t], n);
    }
}

/* Four taps from zero into K outputs (weights w[k * 4 + t]), one load of
 * each row's value for all K: add_four's sums, per output. */
static inline __attribute__((always_inline)) void four_into(int K, float *const *out, const float *const *x,
                                                            const float *w, int64_t n)
{
    const float *restrict x0 = x[0];
    const float *restrict x1 = x[1];
    const float *restrict x2 = x[2];
    const float *restrict x3 = x[3];
    float *restrict o0 = out[0];
    float *restrict o1 = out[K > 1 ? 1 : 0];
    float *restrict o2 = out[K > 2 ? 2 : 0];
    float *restrict o3 = out[K > 3 ? 3 : 0];

    _Pragma("omp simd") for (int64_t d = 0; d < n; d++) {
        float v0 = x0[d], v1 = x1[d], v2 = x2[d], v3 = x3[d];

        o0[d] = (((0.0f + w[0] * v0) + w[1] * v1) + w[2] * v2) + w[3] * v3;
        if (K > 1) {
            o1[d] = (((0.0f + w[4] * v0) + w[5] * v1) + w[6] * v2) + w[7] * v3;
        }
        if (K > 2) {
            o2[d] = (((0.0f + w[8] * v0) + w[9] * v1) + w[10] * v2) + w[11] * v3;
        }
        if (K > 3) {
            o3[d] = (((0.0f + w[12] * v0) + w[13] * v1) + w[14] * v2) + w[15] * v3;
        }
    }
}

void TAPS_NAME(sum_rows_shared, PECERT__FAST_TAPS_ISA)(float *const *out, int32_t outs, const float *const *x,
                                                      const float *w, int32_t taps, int64_t n)
{
    if (taps == 4 && outs == 4) {
        four_into(4, out, x, w, n);
    } else if (taps == 4 && outs == 3) {
        four_into(3, out, x, w, n);
    } else if (taps == 4 && outs == 2) {
        four_into(2, out, x, w, n);
    } else {
        for (int32_t k = 0; k < outs; k++) {
            TAPS_NAME(sum_rows, PECERT__FAST_TAPS_ISA)(out[k], x, w + k * taps, taps, n, 1);
        }
    }
}

#ifndef PECERT__FAST_TAPS_NO_PEG
/* The model of every ISA's peg_cell (x86/<isa>/peg.c keep the sums of a
 * block of channels in registers across the taps): channel by channel. */
void TAPS_NAME(peg_cell, PECERT__FAST_TAPS_ISA)(float *restrict out, const float *const *src, const float *const *w,
                                               int32_t taps, const float *restrict bias,
                                               const float *restrict centre, int64_t begin,
                                               int64_t end)
{
    for (int64_t l = begin; l < end; l++) {
        float sum = 0.0f;

        for (int32_t t = 0; t < taps; t++) {
            sum += w[t][l] * src[t][l];
        }
        out[l] = centre[l] + (sum + bias[l]);
    }
}
#endif
