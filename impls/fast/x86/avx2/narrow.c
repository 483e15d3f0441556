/*
 * narrow.c (AVX2) - scalar/narrow.c's f64 -> f32 rows compiled under this
 * directory's flags: the same source, vectorized by the compiler, the same
 * bits (every conversion rounds to nearest).
 */
#define PECERT__FAST_NARROW_ISA avx2
#include "../../scalar/narrow.c"
