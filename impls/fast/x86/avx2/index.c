/*
 * index.c (AVX2) - scalar/index.c's integer rows compiled under this
 * directory's flags: the same source, vectorized by the compiler ("omp simd"),
 * the same integers; T5's buckets in 32-bit lanes (t5_narrow) in
 * intrinsics. The compiler's version of that loop, with its 64-bit
 * distances and 32-bit counts in one expression, took ~4.5 cycles a
 * distance in cache (1.5 ns on Zen 3): more than its bytes at memory speed.
 */
#include <immintrin.h>
#include <stdint.h>

#include "../../fast.h"

#if !defined(__AVX2__)
#error "x86/avx2/*.c needs -mavx2 -mfma -mf16c"
#endif

static void t5_narrow_avx2(void *out, int wide, const int64_t *rel, int64_t n, const pecert__fast_t5_table *t);

#define PECERT__FAST_INDEX_ISA avx2
#define PECERT__FAST_INDEX_T5_NARROW t5_narrow_avx2
#include "../../scalar/index.c"

/* Lanes 0, 2, 4, 6 of a register of 32-bit words (the low words of four
 * 64-bit lanes) into its low half. */
static inline __m256i low_words(__m256i v)
{
    return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}

/* Eight 64-bit values as eight 32-bit lanes, each known to fit. */
static inline __m256i narrow8(__m256i lo, __m256i hi)
{
    return _mm256_permute2x128_si256(low_words(lo), low_words(hi), 0x20);
}

/* The distance a of four r (|r|, or max(-r, 0) when causal), clamped to cap. */
static inline __m256i distance4(__m256i r, int causal, __m256i cap)
{
    __m256i zero = _mm256_setzero_si256();
    __m256i negative = _mm256_cmpgt_epi64(zero, r);
    __m256i minus = _mm256_sub_epi64(zero, r);
    __m256i a = causal ? _mm256_and_si256(negative, minus) : _mm256_blendv_epi8(r, minus, negative);

    return _mm256_blendv_epi8(a, cap, _mm256_cmpgt_epi64(a, cap));
}

static inline void store(int stream, void *p, __m256i v)
{
    if (stream) {
        _mm256_stream_si256((__m256i *)p, v);
    } else {
        _mm256_storeu_si256((__m256i *)p, v);
    }
}

/* scalar/index.c's t5_bucket32, eight distances at a time: c = min(a,
 * cap), min(c, max_exact) + #{i : c >= edge[i]} + side where r > 0, the
 * edges padded to K (8 or 16, a constant of the caller) with INT32_MAX (c
 * >= edge is c > edge - 1); the last n mod 8 by scalar/index.c's loop.
 * out: int32 or (wide) int64. */
static inline __attribute__((always_inline)) void t5_lanes(void *out, int wide, const int64_t *rel, int64_t n,
                                                           const pecert__fast_t5_table *t, const int K)
{
    int32_t cap = t->count > 0 ? (int32_t)t->threshold[t->count - 1] : (int32_t)t->max_exact;
    int causal = !t->bidirectional;
    int32_t side = causal ? 0 : (int32_t)t->n, max_exact = (int32_t)t->max_exact;
    const __m256i cap64 = _mm256_set1_epi64x(cap), zero = _mm256_setzero_si256();
    const __m256i exact = _mm256_set1_epi32(max_exact), sides = _mm256_set1_epi32(side);
    __m256i below[16];
    int64_t j = 0;
    /* Streamed where asked (an output past PECERT__FAST_STREAM_MIN_BYTES,
     * fenced by the caller) and every vector lands on a 32-byte boundary. */
    int stream = t->stream && (uintptr_t)out % 32 == 0;

    for (int i = 0; i < K; i++) {
        below[i] = _mm256_set1_epi32(i < t->count ? (int32_t)t->threshold[i] - 1 : INT32_MAX - 1);
    }
    for (; j + 8 <= n; j += 8) {
        __m256i r0 = _mm256_loadu_si256((const __m256i *)(rel + j));
        __m256i r1 = _mm256_loadu_si256((const __m256i *)(rel + j + 4));
        __m256i c = narrow8(distance4(r0, causal, cap64), distance4(r1, causal, cap64));
        __m256i positive = narrow8(_mm256_cmpgt_epi64(r0, zero), _mm256_cmpgt_epi64(r1, zero));
        __m256i b = _mm256_min_epi32(c, exact);

        _Pragma("GCC unroll 16") for (int i = 0; i < K; i++) { /* a compare and a subtract each */
            b = _mm256_sub_epi32(b, _mm256_cmpgt_epi32(c, below[i]));
        }
        b = _mm256_add_epi32(b, _mm256_and_si256(positive, sides));
        if (wide) {
            store(stream, (int64_t *)out + j, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(b)));
            store(stream, (int64_t *)out + j + 4, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(b, 1)));
        } else {
            store(stream, (int32_t *)out + j, b);
        }
    }
    if (j < n) {
        t5_narrow(wide ? (void *)((int64_t *)out + j) : (void *)((int32_t *)out + j), wide, rel + j, n - j, t, K);
    }
}

static void t5_narrow_avx2(void *out, int wide, const int64_t *rel, int64_t n, const pecert__fast_t5_table *t)
{
    if (t->count <= 8) {
        t5_lanes(out, wide, rel, n, t, 8);
    } else {
        t5_lanes(out, wide, rel, n, t, 16);
    }
}

