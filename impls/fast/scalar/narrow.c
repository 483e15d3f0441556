/*
 * narrow.c - double rows rounded to f32 rows, for the table ops
 * (family/rows.c, family/sinusoidal.c, family/relpos.c): one source for
 * every ISA, as scalar/index.c (x86/avx2/narrow.c and x86/avx512/narrow.c
 * include it under their flags; "omp simd" vectorizes each loop). A
 * conversion rounds to nearest in every ISA: the same bits.
 *
 *   narrow_row       out[i] = (float)a[i]
 *   interleave_row   out[2i] = (float)a[i], out[2i + 1] = (float)b[i]
 */
#include <stdint.h>

#include "../fast.h"

#ifndef PECERT__FAST_NARROW_ISA
#define PECERT__FAST_NARROW_ISA scalar
#endif

#define NARROW_NAME_(op, isa) pecert__fast_##op##_##isa
#define NARROW_NAME(op, isa) NARROW_NAME_(op, isa)

void NARROW_NAME(narrow_row, PECERT__FAST_NARROW_ISA)(float *restrict out, const double *restrict a, int64_t n)
{
    _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {
        out[i] = (float)a[i];
    }
}

void NARROW_NAME(interleave_row, PECERT__FAST_NARROW_ISA)(float *restrict out, const double *restrict a,
                                                          const double *restrict b, int64_t n)
{
    _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {
        out[2 * i] = (float)a[i];
        out[2 * i + 1] = (float)b[i];
    }
}
