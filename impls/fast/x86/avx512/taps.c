/*
 * taps.c (AVX-512) - scalar/taps.c's weighted sums compiled under this
 * directory's flags: the same source, vectorized by the compiler, the same
 * bits (each channel's multiplies and adds in the same order); peg_cell
 * is peg.c's, in intrinsics.
 */
#define PECERT__FAST_TAPS_ISA avx512
#define PECERT__FAST_TAPS_NO_PEG
#include "../../scalar/taps.c"
