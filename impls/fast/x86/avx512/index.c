/*
 * index.c (AVX-512) - scalar/index.c's integer rows compiled under this
 * directory's flags: the same source, vectorized by the compiler ("omp simd"),
 * the same integers; T5's buckets in 32-bit lanes (t5_narrow) in
 * intrinsics, as under AVX2 (x86/avx2/index.c), sixteen distances a
 * register and each edge a compare into a mask and a masked add.
 */
#include <immintrin.h>
#include <stdint.h>

#include "../../fast.h"

#if !defined(__AVX512F__) || !defined(__AVX512DQ__)
#error "x86/avx512/*.c needs -mavx512f -mavx512bw -mavx512vl -mavx512dq"
#endif

static void t5_narrow_avx512(void *out, int wide, const int64_t *rel, int64_t n, const pecert__fast_t5_table *t);

#define PECERT__FAST_INDEX_ISA avx512
#define PECERT__FAST_INDEX_T5_NARROW t5_narrow_avx512
#include "../../scalar/index.c"

/* The distance a of eight r (|r|, or max(-r, 0) when causal), clamped to
 * cap, as eight 32-bit lanes (each fits: cap does). */
static inline __m256i distance8(__m512i r, int causal, __m512i cap)
{
    __m512i a = causal ? _mm512_max_epi64(_mm512_sub_epi64(_mm512_setzero_si512(), r), _mm512_setzero_si512())
                       : _mm512_abs_epi64(r);

    return _mm512_cvtepi64_epi32(_mm512_min_epi64(a, cap));
}

static inline void store(int stream, void *p, __m512i v)
{
    if (stream) {
        _mm512_stream_si512(p, v);
    } else {
        _mm512_storeu_si512(p, v);
    }
}

/* scalar/index.c's t5_bucket32, sixteen distances at a time: c = min(a,
 * cap), min(c, max_exact) + #{i : c >= edge[i]} + side where r > 0, the
 * edges padded to K (8 or 16, a constant of the caller) with INT32_MAX;
 * the last n mod 16 by scalar/index.c's loop (the same integers).
 * out: int32 or (wide) int64. */
static inline __attribute__((always_inline)) void t5_lanes(void *out, int wide, const int64_t *rel, int64_t n,
                                                           const pecert__fast_t5_table *t, const int K)
{
    int32_t cap = t->count > 0 ? (int32_t)t->threshold[t->count - 1] : (int32_t)t->max_exact;
    int causal = !t->bidirectional;
    const __m512i cap64 = _mm512_set1_epi64(cap), zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    const __m512i exact = _mm512_set1_epi32((int32_t)t->max_exact);
    const __m512i sides = _mm512_set1_epi32(causal ? 0 : (int32_t)t->n);
    __m512i edge[16];
    int64_t j = 0;
    /* Streamed where asked (an output past PECERT__FAST_STREAM_MIN_BYTES,
     * fenced by the caller) and every vector lands on a 64-byte boundary. */
    int stream = t->stream && (uintptr_t)out % 64 == 0;

    for (int i = 0; i < K; i++) {
        edge[i] = _mm512_set1_epi32(i < t->count ? (int32_t)t->threshold[i] : INT32_MAX);
    }
    for (; j + 16 <= n; j += 16) {
        __m512i r0 = _mm512_loadu_si512(rel + j);
        __m512i r1 = _mm512_loadu_si512(rel + j + 8);
        __m512i c = _mm512_inserti64x4(_mm512_castsi256_si512(distance8(r0, causal, cap64)),
                                       distance8(r1, causal, cap64), 1);
        __mmask16 positive = (__mmask16)(_mm512_cmpgt_epi64_mask(r0, zero) |
                                         (unsigned)_mm512_cmpgt_epi64_mask(r1, zero) << 8);
        __m512i b = _mm512_min_epi32(c, exact);

        _Pragma("GCC unroll 16") for (int i = 0; i < K; i++) { /* c >= edge: one more */
            b = _mm512_mask_add_epi32(b, _mm512_cmpge_epi32_mask(c, edge[i]), b, one);
        }
        b = _mm512_mask_add_epi32(b, positive, b, sides);
        if (wide) {
            store(stream, (int64_t *)out + j, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(b)));
            store(stream, (int64_t *)out + j + 8, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(b, 1)));
        } else {
            store(stream, (int32_t *)out + j, b);
        }
    }
    if (j < n) {
        t5_narrow(wide ? (void *)((int64_t *)out + j) : (void *)((int32_t *)out + j), wide, rel + j, n - j, t, K);
    }
}

static void t5_narrow_avx512(void *out, int wide, const int64_t *rel, int64_t n, const pecert__fast_t5_table *t)
{
    if (t->count <= 8) {
        t5_lanes(out, wide, rel, n, t, 8);
    } else {
        t5_lanes(out, wide, rel, n, t, 16);
    }
}
