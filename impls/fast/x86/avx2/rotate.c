/*
 * rotate.c (AVX2 + F16C) - the rotation of one token's heads, 8 channels
 * per ymm register, for f32, f16 and bf16.
 *
 * The arithmetic is scalar/rotate.c's, lane for lane (float32 multiplies
 * and one add or subtract, no fma), so results are bit-identical to the
 * scalar kernels; the channels past the last full vector of each half
 * (split) or row (pairs) go through the scalar generic kernel.
 */
#include <immintrin.h>
#include <string.h>

#include "../../fast.h"

#if !defined(__AVX2__) || !defined(__F16C__)
#error "x86/avx2/*.c needs -mavx2 -mfma -mf16c"
#endif

/* Floats per register. */
#define LANES 8

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* pecert__fast_f32_to_bf16 on 8 lanes, packed to 8 uint16 values. */
ALWAYS_INLINE __m128i bf16_round(__m256 v)
{
    __m256i bits = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    __m256i rounded = _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb);
    __m256i quiet = _mm256_or_si256(bits, _mm256_set1_epi32(0x400000));
    __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
    __m256i packed;

    rounded = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(rounded),
                                                   _mm256_castsi256_ps(quiet), nan));
    /* 16-bit halves of 32-bit lanes: packus works per 128-bit lane, so
     * the two useful 64-bit quarters are gathered afterwards. */
    packed = _mm256_packus_epi32(_mm256_srli_epi32(rounded, 16), _mm256_setzero_si256());
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(packed, 0x08));
}

/* Load 8 channels starting at element i of row (any dtype). */
ALWAYS_INLINE __m256 load8(const void *row, int64_t i, pecert__fast_dtype dtype)
{
    const __m128i *half_row = (const __m128i *)((const uint16_t *)row + i);

    if (dtype == PECERT__FAST_F32) {
        return _mm256_loadu_ps((const float *)row + i);
    }
    if (dtype == PECERT__FAST_F16) {
        return _mm256_cvtph_ps(_mm_loadu_si128(half_row));
    }
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(half_row)), 16));
}

/* Store 8 channels at element i of row; streaming stores when asked (the
 * caller guarantees 64-byte aligned rows then). */
ALWAYS_INLINE void store8(void *row, int64_t i, __m256 v, pecert__fast_dtype dtype, int stream)
{
    __m128i *half_row = (__m128i *)((uint16_t *)row + i);
    __m128i packed;

    if (dtype == PECERT__FAST_F32) {
        if (stream) {
            _mm256_stream_ps((float *)row + i, v);
        } else {
            _mm256_storeu_ps((float *)row + i, v);
        }
        return;
    }
    packed = dtype == PECERT__FAST_F16
                 ? _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
                 : bf16_round(v);
    if (stream) {
        _mm_stream_si128(half_row, packed);
    } else {
        _mm_storeu_si128(half_row, packed);
    }
}

ALWAYS_INLINE void split_head(const void *x, void *out, const pecert__fast_span *span,
                              pecert__fast_dtype dtype, int stream)
{
    int64_t half = span->half;
    int64_t i;

    for (i = 0; i + LANES <= half; i += LANES) {
        __m256 a = load8(x, i, dtype);
        __m256 b = load8(x, i + half, dtype);
        __m256 c = _mm256_loadu_ps(span->cos + i);
        __m256 s = _mm256_loadu_ps(span->sin + i);

        store8(out, i, _mm256_sub_ps(_mm256_mul_ps(a, c), _mm256_mul_ps(b, s)), dtype, stream);
        store8(out, i + half, _mm256_add_ps(_mm256_mul_ps(b, c), _mm256_mul_ps(a, s)), dtype,
               stream);
    }
    if (i < half) {
        pecert__fast_rotate_tail(span, x, out, (int32_t)i, dtype, PECERT__FAST_SPLIT);
    }
}

/* out = x*cos + swap_pairs(x)*sin (PAIRS table), 4 pairs per step. */
ALWAYS_INLINE void pairs_head(const void *x, void *out, const pecert__fast_span *span,
                              pecert__fast_dtype dtype, int stream)
{
    int64_t width = 2 * (int64_t)span->half;
    int64_t j;

    for (j = 0; j + LANES <= width; j += LANES) {
        __m256 v = load8(x, j, dtype);
        __m256 swapped = _mm256_permute_ps(v, 0xb1);
        __m256 c = _mm256_loadu_ps(span->cos + j);
        __m256 s = _mm256_loadu_ps(span->sin + j);

        store8(out, j, _mm256_add_ps(_mm256_mul_ps(v, c), _mm256_mul_ps(swapped, s)), dtype,
               stream);
    }
    if (j < width) {
        pecert__fast_rotate_tail(span, x, out, (int32_t)(j / 2), dtype, PECERT__FAST_PAIRS);
    }
}

/* Channels rotary_dim .. head_dim - 1 of one row, 32 bytes at a time;
 * streaming only where the destination is aligned. */
ALWAYS_INLINE void copy_tail(const pecert__fast_span *span, const void *x, void *out,
                             size_t size, int stream)
{
    const char *from = (const char *)x + (size_t)(2 * span->half) * size;
    char *to = (char *)out + (size_t)(2 * span->half) * size;
    size_t bytes = (size_t)(span->head_dim - 2 * span->half) * size;
    int aligned = stream && (uintptr_t)to % 32 == 0;
    size_t i;

    for (i = 0; i + 32 <= bytes; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(from + i));

        if (aligned) {
            _mm256_stream_si256((__m256i *)(to + i), v);
        } else {
            _mm256_storeu_si256((__m256i *)(to + i), v);
        }
    }
    memmove(to + i, from + i, bytes - i); /* to == from when rewriting in place */
}

ALWAYS_INLINE void rotate_span(const pecert__fast_span *span, pecert__fast_dtype dtype,
                               int layout, int stream)
{
    size_t size = dtype == PECERT__FAST_F32 ? sizeof(float) : sizeof(uint16_t);
    int64_t h;

    for (h = 0; h < span->n_heads; h++) {
        const void *x = (const char *)span->x + (size_t)(h * span->x_head) * size;
        void *out = (char *)span->out + (size_t)(h * span->out_head) * size;

        if (layout == PECERT__FAST_PAIRS) {
            pairs_head(x, out, span, dtype, stream);
        } else {
            split_head(x, out, span, dtype, stream);
        }
        if (span->copy_pass) {
            copy_tail(span, x, out, size, stream);
        }
    }
}

/* Streaming stores are weakly ordered: each thread fences once after its
 * share (apply.c). */
void pecert__fast_store_fence_avx2(void)
{
    _mm_sfence();
}

void pecert__fast_rotate_f32_split_avx2(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F32, PECERT__FAST_SPLIT, 0);
}

void pecert__fast_rotate_f32_pairs_avx2(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F32, PECERT__FAST_PAIRS, 0);
}

void pecert__fast_rotate_f16_split_avx2(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F16, PECERT__FAST_SPLIT, 0);
}

void pecert__fast_rotate_f16_pairs_avx2(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F16, PECERT__FAST_PAIRS, 0);
}

void pecert__fast_rotate_bf16_split_avx2(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_SPLIT, 0);
}

void pecert__fast_rotate_bf16_pairs_avx2(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_PAIRS, 0);
}

void pecert__fast_rotate_f32_split_avx2_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F32, PECERT__FAST_SPLIT, 1);
}

void pecert__fast_rotate_f32_pairs_avx2_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F32, PECERT__FAST_PAIRS, 1);
}

void pecert__fast_rotate_f16_split_avx2_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F16, PECERT__FAST_SPLIT, 1);
}

void pecert__fast_rotate_f16_pairs_avx2_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F16, PECERT__FAST_PAIRS, 1);
}

void pecert__fast_rotate_bf16_split_avx2_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_SPLIT, 1);
}

void pecert__fast_rotate_bf16_pairs_avx2_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_PAIRS, 1);
}
