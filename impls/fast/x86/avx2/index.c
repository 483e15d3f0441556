/*
 * index.c (AVX2) - scalar/index.c's integer rows compiled under this
 * directory's flags: the same source, vectorized by the compiler ("omp simd"),
 * the same integers.
 */
#define PECERT__FAST_INDEX_ISA avx2
#include "../../scalar/index.c"
