/*
 * taps.c - the weighted sums of the filtering ops (family/posinterp.c,
 * family/peg.c): one portable source for every ISA, as scalar/index.c
 * (x86/avx2/taps.c and x86/avx512/taps.c include it under their flags;
 * "omp simd" vectorizes each loop over the channels). Each channel's
 * arithmetic is its own and in a fixed order, a multiply then an add (the
 * tree builds with -ffp-contract=off): the same bits in every ISA.
 *
 *   axpy_row   acc[d] += w * x[d]
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
