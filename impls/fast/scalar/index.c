/*
 * index.c - the integer rows of the relative-position ops (family/relpos.c,
 * family/t5.c) over contiguous outputs, i32 or i64 ("wide").
 *
 * One source for every ISA: x86/avx2/index.c and x86/avx512/index.c include
 * this file under their flags with PECERT__FAST_INDEX_ISA set, and `omp
 * simd` has the compiler vectorize each loop. The values are integers,
 * exact in every ISA; an i32 output takes the value's low 32 bits, as the
 * portable store does.
 *
 *   swin_row   out[j] = base - col[j]
 *   shaw_row   out[j] = clamp(k[j] - q, -K, K) + K
 *   t5_row     out[j] = side + a if a < max_exact, else max_exact + the
 *              number of thresholds <= a (t5.c computes them exactly from
 *              the bucket function), with a = |r| (bidirectional; side n
 *              when r > 0) or max(-r, 0); in 32-bit lanes when every
 *              threshold fits (t5_narrow)
 */
#include <limits.h>
#include <stdint.h>

#include "../fast.h"

#ifndef PECERT__FAST_INDEX_ISA
#define PECERT__FAST_INDEX_ISA scalar
#endif

#define INDEX_NAME_(op, isa) pecert__fast_##op##_##isa
#define INDEX_NAME(op, isa) INDEX_NAME_(op, isa)

/* The loop body once per output type, so that each loop vectorizes. */
#define INDEX_LOOP(out, wide, n, expr)                               \
    do {                                                             \
        if (wide) {                                                  \
            int64_t *o64 = (int64_t *)(out);                         \
            _Pragma("omp simd") for (int64_t j = 0; j < (n); j++) {  \
                o64[j] = (expr);                                     \
            }                                                        \
        } else {                                                     \
            int32_t *o32 = (int32_t *)(out);                         \
            _Pragma("omp simd") for (int64_t j = 0; j < (n); j++) {  \
                o32[j] = (int32_t)(expr);                            \
            }                                                        \
        }                                                            \
    } while (0)

void INDEX_NAME(swin_row, PECERT__FAST_INDEX_ISA)(void *out, int wide, int64_t base, const int64_t *col, int64_t n)
{
    INDEX_LOOP(out, wide, n, base - col[j]);
}

static inline int64_t clamp_distance(int64_t d, int64_t k)
{
    return d < -k ? -k : (d > k ? k : d);
}

void INDEX_NAME(shaw_row, PECERT__FAST_INDEX_ISA)(void *out, int wide, const int64_t *k, int64_t n, int64_t q,
                                                 int64_t max)
{
    INDEX_LOOP(out, wide, n, clamp_distance(k[j] - q, max) + max);
}

/* Buckets of n distances with the thresholds padded to K (a constant
 * of the caller: the loop over them unrolls inside the vector loop, each
 * a compare and an add on a register; padding thresholds never match). */
static inline __attribute__((always_inline)) int64_t t5_bucket(int64_t r, const int64_t *edge, const int K,
                                                                int64_t max_exact, int64_t side, int64_t causal)
{
    int64_t a = r < 0 ? -r : (causal ? 0 : r);
    int64_t b = a < max_exact ? a : max_exact;

    _Pragma("GCC unroll 64") for (int i = 0; i < K; i++) {
        b += a >= edge[i];
    }
    return b + (r > 0 ? side : 0);
}

static inline __attribute__((always_inline)) void t5_padded(void *out, int wide, const int64_t *rel, int64_t n,
                                                            const pecert__fast_t5_table *t, const int K)
{
    int64_t edge[PECERT__FAST_T5_MAX_THRESHOLDS];
    int64_t max_exact = t->max_exact;
    int64_t side = t->bidirectional ? t->n : 0;
    int64_t causal = !t->bidirectional;

    for (int i = 0; i < K; i++) {
        edge[i] = i < t->count ? t->threshold[i] : INT64_MAX;
    }
    INDEX_LOOP(out, wide, n, t5_bucket(rel[j], edge, K, max_exact, side, causal));
}

/* The same where every threshold is below INT32_MAX (max_distance up to
 * ~2^31: every released T5): a distance clamped to the last threshold
 * keeps its count, so the compares run on 32-bit lanes, twice as many per
 * register; padding thresholds are INT32_MAX and never match. */
static inline __attribute__((always_inline)) int32_t t5_bucket32(int64_t r, const int32_t *edge, const int K,
                                                                  int32_t cap, int32_t max_exact, int32_t side,
                                                                  int64_t causal)
{
    int64_t a = r < 0 ? -r : (causal ? 0 : r);
    int32_t c = (int32_t)(a < cap ? a : cap);
    int32_t b = c < max_exact ? c : max_exact;

    _Pragma("GCC unroll 64") for (int i = 0; i < K; i++) {
        b += c >= edge[i];
    }
    return b + (r > 0 ? side : 0);
}

static inline __attribute__((always_inline)) void t5_narrow(void *out, int wide, const int64_t *rel, int64_t n,
                                                            const pecert__fast_t5_table *t, const int K)
{
    int32_t edge[PECERT__FAST_T5_MAX_THRESHOLDS];
    int32_t cap = t->count > 0 ? (int32_t)t->threshold[t->count - 1] : (int32_t)t->max_exact;
    int32_t max_exact = (int32_t)t->max_exact;
    int32_t side = t->bidirectional ? (int32_t)t->n : 0;
    int64_t causal = !t->bidirectional;

    for (int i = 0; i < K; i++) {
        edge[i] = i < t->count ? (int32_t)t->threshold[i] : INT32_MAX;
    }
    INDEX_LOOP(out, wide, n, t5_bucket32(rel[j], edge, K, cap, max_exact, side, causal));
}

void INDEX_NAME(t5_row, PECERT__FAST_INDEX_ISA)(void *out, int wide, const int64_t *rel, int64_t n,
                                               const pecert__fast_t5_table *t)
{
    int narrow = t->count == 0 || t->threshold[t->count - 1] < INT32_MAX;

#ifdef PECERT__FAST_INDEX_T5_NARROW
    /* The ISA's own kernel for the 32-bit lanes (x86/avx2/index.c). */
    if (narrow && t->count <= 16) {
        PECERT__FAST_INDEX_T5_NARROW(out, wide, rel, n, t);
        return;
    }
#endif
    if (narrow && t->count <= 8) {
        t5_narrow(out, wide, rel, n, t, 8);
    } else if (narrow && t->count <= 16) {
        t5_narrow(out, wide, rel, n, t, 16);
    } else if (t->count <= 8) {
        t5_padded(out, wide, rel, n, t, 8);
    } else if (t->count <= 16) {
        t5_padded(out, wide, rel, n, t, 16);
    } else if (t->count <= 32) {
        t5_padded(out, wide, rel, n, t, 32);
    } else {
        t5_padded(out, wide, rel, n, t, PECERT__FAST_T5_MAX_THRESHOLDS);
    }
}
