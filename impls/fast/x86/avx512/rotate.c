/*
 * rotate.c (AVX-512) - the rotation of one token's heads, 16 channels per
 * zmm register, for f32, f16 (F16C-style vcvtph2ps / vcvtps2ph) and bf16.
 *
 * The arithmetic is scalar/rotate.c's, lane for lane (float32 multiplies
 * and one add or subtract, no fma), so every result is bit-identical to
 * the scalar kernels; tails use masked loads and stores. bf16 is rounded
 * to nearest even in integer code, or with AVX512-BF16's VCVTNE2PS2BF16
 * where the CPU has it - except for subnormals, which that instruction
 * flushes to zero and which therefore take the integer path.
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || \
    !defined(__AVX512DQ__) || !defined(__AVX512BF16__)
#error "x86/avx512/rotate.c needs -mavx512f -mavx512dq -mavx512bw -mavx512vl -mavx512bf16"
#endif

/* Floats per register. */
#define LANES 16

/* vcvtps2ph rounding: nearest even, exceptions suppressed. */
#define ROUND_NEAREST (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE __m512 bf16_widen(__m256i raw)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(raw), 16));
}

/* pecert__fast_f32_to_bf16 on 16 lanes. */
ALWAYS_INLINE __m256i bf16_round(__m512 v)
{
    __m512i bits = _mm512_castps_si512(v);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), lsb);
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);

    rounded = _mm512_mask_mov_epi32(rounded, nan,
                                    _mm512_or_si512(bits, _mm512_set1_epi32(0x400000)));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(rounded, 16));
}

/* Load 16 channels starting at element i of row (any dtype), masked. */
ALWAYS_INLINE __m512 load16(const void *row, int64_t i, pecert__fast_dtype dtype, __mmask16 m)
{
    const uint16_t *half_row = (const uint16_t *)row + i;

    if (dtype == PECERT__FAST_F32) {
        return m == 0xffff ? _mm512_loadu_ps((const float *)row + i)
                           : _mm512_maskz_loadu_ps(m, (const float *)row + i);
    }
    __m256i raw = m == 0xffff ? _mm256_loadu_si256((const __m256i *)half_row)
                              : _mm256_maskz_loadu_epi16(m, half_row);
    return dtype == PECERT__FAST_F16 ? _mm512_cvtph_ps(raw) : bf16_widen(raw);
}

/* Store 16 channels at element i of row; streaming for full vectors when
 * asked (the caller guarantees 64-byte aligned rows then). */
ALWAYS_INLINE void store16(void *row, int64_t i, __m512 v, pecert__fast_dtype dtype,
                           __mmask16 m, int stream)
{
    uint16_t *half_row = (uint16_t *)row + i;
    __m256i packed;

    if (dtype == PECERT__FAST_F32) {
        if (m != 0xffff) {
            _mm512_mask_storeu_ps((float *)row + i, m, v);
        } else if (stream) {
            _mm512_stream_ps((float *)row + i, v);
        } else {
            _mm512_storeu_ps((float *)row + i, v);
        }
        return;
    }
    packed = dtype == PECERT__FAST_F16 ? _mm512_cvtps_ph(v, ROUND_NEAREST) : bf16_round(v);
    if (m == 0xffff && stream) {
        _mm256_stream_si256((__m256i *)half_row, packed);
    } else if (m == 0xffff) {
        _mm256_storeu_si256((__m256i *)half_row, packed);
    } else {
        _mm256_mask_storeu_epi16(half_row, m, packed);
    }
}

/* 16 table entries (float32 scratch) from index i. */
ALWAYS_INLINE __m512 load_table(const float *table, int64_t i, __mmask16 m)
{
    return m == 0xffff ? _mm512_loadu_ps(table + i) : _mm512_maskz_loadu_ps(m, table + i);
}

ALWAYS_INLINE __mmask16 first_lanes(int64_t left)
{
    return left >= LANES ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
}

/* A compiler barrier: the memory accesses before it are emitted before
 * those after it (no instruction; the CPU's own order is untouched). */
#define IN_THIS_ORDER() __asm__ volatile("" ::: "memory")

ALWAYS_INLINE const void *x_row(const pecert__fast_span *span, int64_t h, size_t size)
{
    return (const char *)span->x + (size_t)(h * span->x_head) * size;
}

ALWAYS_INLINE void *out_row(const pecert__fast_span *span, int64_t h, size_t size)
{
    return (char *)span->out + (size_t)(h * span->out_head) * size;
}

/* out_a = a*c - b*s, out_b = b*c + a*s for channels [i, i+16) of the
 * first half (a) and the second half (b), with the table in c, s. */
ALWAYS_INLINE void split_step(const void *x, void *out, int64_t half, int64_t i, __m512 c,
                              __m512 s, pecert__fast_dtype dtype, __mmask16 m, int stream)
{
    __m512 a = load16(x, i, dtype, m);
    __m512 b = load16(x, i + half, dtype, m);

    store16(out, i, _mm512_sub_ps(_mm512_mul_ps(a, c), _mm512_mul_ps(b, s)), dtype, m, stream);
    store16(out, i + half, _mm512_add_ps(_mm512_mul_ps(b, c), _mm512_mul_ps(a, s)), dtype, m,
            stream);
}

/* out = x*cos + swap_pairs(x)*sin on channels [j, j+16) (PAIRS table). */
ALWAYS_INLINE void pairs_step(const void *x, void *out, int64_t j, __m512 c, __m512 s,
                              pecert__fast_dtype dtype, __mmask16 m, int stream)
{
    __m512 v = load16(x, j, dtype, m);
    __m512 swapped = _mm512_permute_ps(v, 0xb1);

    store16(out, j, _mm512_add_ps(_mm512_mul_ps(v, c), _mm512_mul_ps(swapped, s)), dtype, m,
            stream);
}

/* Channels rotary_dim .. head_dim - 1 of one row, 64 bytes at a time;
 * streaming only where the destination is line-aligned. */
ALWAYS_INLINE void copy_tail(const pecert__fast_span *span, const void *x, void *out,
                             size_t size, int stream)
{
    const char *from = (const char *)x + (size_t)(2 * span->half) * size;
    char *to = (char *)out + (size_t)(2 * span->half) * size;
    size_t bytes = (size_t)(span->head_dim - 2 * span->half) * size;
    int aligned = stream && (uintptr_t)to % 64 == 0;
    size_t i;

    for (i = 0; i + 64 <= bytes; i += 64) {
        __m512i v = _mm512_loadu_si512((const void *)(from + i));

        if (aligned) {
            _mm512_stream_si512((void *)(to + i), v);
        } else {
            _mm512_storeu_si512((void *)(to + i), v);
        }
    }
    if (i < bytes) {
        __mmask64 m = (__mmask64)(~0ull >> (64 - (bytes - i)));

        _mm512_mask_storeu_epi8(to + i, m, _mm512_maskz_loadu_epi8(m, from + i));
    }
}

/* Split-half with half = 16 * nv (nv <= 4, a constant after inlining):
 * the table row stays in registers for every head of the span, and a
 * row is loaded whole before any of it is stored (an output that sits at
 * the input's offset modulo 4 KiB would otherwise stall loads behind
 * stores that only seem to alias). Its lines are read and written in
 * ascending order (IN_THIS_ORDER): left to itself the compiler pairs
 * line k with line k + half, and on Zen 4 one thread streaming
 * q[T, 32, 128] f32 out of place ran 2-6% slower that way (2026-12-07,
 * samples in turn: T = 32768 32.1-33.8 against 29.7-32.1 ms, T = 4096
 * 3.85-4.90 against 3.75-4.38 ms; a streaming copy 26.6-28.1 and
 * 3.1-3.9 ms). */
ALWAYS_INLINE void split_fixed(const pecert__fast_span *span, pecert__fast_dtype dtype,
                               int stream, int nv)
{
    size_t size = dtype == PECERT__FAST_F32 ? sizeof(float) : sizeof(uint16_t);
    int64_t half = LANES * nv;
    __m512 c[4];
    __m512 s[4];
    int64_t h;
    int k;

#pragma GCC unroll 4
    for (k = 0; k < nv; k++) {
        c[k] = _mm512_loadu_ps(span->cos + LANES * k);
        s[k] = _mm512_loadu_ps(span->sin + LANES * k);
    }
    for (h = 0; h < span->n_heads; h++) {
        const void *x = x_row(span, h, size);
        void *out = out_row(span, h, size);
        __m512 a[4];
        __m512 b[4];

#pragma GCC unroll 4
        for (k = 0; k < nv; k++) {
            a[k] = load16(x, LANES * k, dtype, 0xffff);
        }
        IN_THIS_ORDER();
#pragma GCC unroll 4
        for (k = 0; k < nv; k++) {
            b[k] = load16(x, half + LANES * k, dtype, 0xffff);
        }
        IN_THIS_ORDER();
#pragma GCC unroll 4
        for (k = 0; k < nv; k++) {
            store16(out, LANES * k,
                    _mm512_sub_ps(_mm512_mul_ps(a[k], c[k]), _mm512_mul_ps(b[k], s[k])), dtype,
                    0xffff, stream);
        }
        IN_THIS_ORDER();
#pragma GCC unroll 4
        for (k = 0; k < nv; k++) {
            store16(out, half + LANES * k,
                    _mm512_add_ps(_mm512_mul_ps(b[k], c[k]), _mm512_mul_ps(a[k], s[k])), dtype,
                    0xffff, stream);
        }
        if (span->copy_pass) {
            copy_tail(span, x, out, size, stream);
        }
    }
}

/* Interleaved with rotary_dim = 16 * nv (nv <= 8), table in registers,
 * rows loaded whole before they are stored. */
ALWAYS_INLINE void pairs_fixed(const pecert__fast_span *span, pecert__fast_dtype dtype,
                               int stream, int nv)
{
    size_t size = dtype == PECERT__FAST_F32 ? sizeof(float) : sizeof(uint16_t);
    __m512 c[8];
    __m512 s[8];
    int64_t h;
    int k;

#pragma GCC unroll 8
    for (k = 0; k < nv; k++) {
        c[k] = _mm512_loadu_ps(span->cos + LANES * k);
        s[k] = _mm512_loadu_ps(span->sin + LANES * k);
    }
    for (h = 0; h < span->n_heads; h++) {
        const void *x = x_row(span, h, size);
        void *out = out_row(span, h, size);
        __m512 v[8];

#pragma GCC unroll 8
        for (k = 0; k < nv; k++) {
            v[k] = load16(x, LANES * k, dtype, 0xffff);
        }
#pragma GCC unroll 8
        for (k = 0; k < nv; k++) {
            __m512 swapped = _mm512_permute_ps(v[k], 0xb1);

            store16(out, LANES * k,
                    _mm512_add_ps(_mm512_mul_ps(v[k], c[k]), _mm512_mul_ps(swapped, s[k])), dtype,
                    0xffff, stream);
        }
        if (span->copy_pass) {
            copy_tail(span, x, out, size, stream);
        }
    }
}

/* ---- bf16 by even/odd lanes -------------------------------------------------
 * A 64-byte load of 32 bf16 values is 16 dwords: shifting each left by 16
 * gives the even elements as f32, masking the low half gives the odd
 * ones; after rotating, the two rounded results recombine with one word
 * blend. No widening or narrowing shuffles; the arithmetic per element is
 * the one every kernel does, so the bits do not change. */

ALWAYS_INLINE __m512 bf16_even(__m512i w)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

ALWAYS_INLINE __m512 bf16_odd(__m512i w)
{
    return _mm512_castsi512_ps(_mm512_and_si512(w, _mm512_set1_epi32((int)0xffff0000u)));
}

/* pecert__fast_f32_to_bf16 in the high half of each dword. */
ALWAYS_INLINE __m512i bf16_round_high(__m512 v)
{
    __m512i bits = _mm512_castps_si512(v);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), lsb);
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);

    return _mm512_mask_or_epi32(rounded, nan, bits, _mm512_set1_epi32(0x400000));
}

/* 32 bf16 values from the rounded even and odd elements. */
ALWAYS_INLINE __m512i bf16_join_integer(__m512 even, __m512 odd)
{
    return _mm512_mask_blend_epi16((__mmask32)0xaaaaaaaau,
                                   _mm512_srli_epi32(bf16_round_high(even), 16),
                                   bf16_round_high(odd));
}

/* The same with AVX512-BF16's VCVTNE2PS2BF16, whose rounding is ours
 * (nearest even; a NaN keeps its top bits and gets bit 6 set) except that
 * it flushes f32 subnormals to zero: a chunk holding one (class bits 0x20)
 * takes the integer path, so the bits never differ. */
ALWAYS_INLINE __m512i bf16_join_native(__m512 even, __m512 odd)
{
    const __m512i interleave =
        _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22,
                         6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);

    if (__builtin_expect((_mm512_fpclass_ps_mask(even, 0x20) | _mm512_fpclass_ps_mask(odd, 0x20)) != 0,
                         0)) {
        return bf16_join_integer(even, odd);
    }
    return _mm512_permutexvar_epi16(interleave, (__m512i)_mm512_cvtne2ps_pbh(odd, even));
}

ALWAYS_INLINE __m512i bf16_join(__m512 even, __m512 odd, int native)
{
    return native ? bf16_join_native(even, odd) : bf16_join_integer(even, odd);
}

ALWAYS_INLINE void store64(void *to, __m512i v, int stream)
{
    if (stream) {
        _mm512_stream_si512(to, v);
    } else {
        _mm512_storeu_si512(to, v);
    }
}

/* The even (or odd) entries of 32 consecutive table floats. */
ALWAYS_INLINE __m512 table_lanes(const float *table, int odd)
{
    const __m512i even_index =
        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    __m512i index = _mm512_add_epi32(even_index, _mm512_set1_epi32(odd));

    return _mm512_permutex2var_ps(_mm512_loadu_ps(table), index, _mm512_loadu_ps(table + 16));
}

/* Interleaved bf16, rotary_dim = 32 * nc (nc <= 4): pair i of a chunk is
 * (even, odd) element, its table entry cos[2i] = c, sin[2i + 1] = s of
 * the PAIRS row, so the even entries of cos and odd entries of sin. */
ALWAYS_INLINE void bf16_pairs_fixed(const pecert__fast_span *span, int stream, int nc,
                                    int native)
{
    __m512 c[4];
    __m512 s[4];
    int64_t h;
    int k;

#pragma GCC unroll 4
    for (k = 0; k < nc; k++) {
        c[k] = table_lanes(span->cos + 32 * k, 0);
        s[k] = table_lanes(span->sin + 32 * k, 1);
    }
    for (h = 0; h < span->n_heads; h++) {
        const uint16_t *x = x_row(span, h, sizeof(uint16_t));
        uint16_t *out = out_row(span, h, sizeof(uint16_t));
        __m512i w[4];

#pragma GCC unroll 4
        for (k = 0; k < nc; k++) {
            w[k] = _mm512_loadu_si512((const void *)(x + 32 * k));
        }
#pragma GCC unroll 4
        for (k = 0; k < nc; k++) {
            __m512 a = bf16_even(w[k]);
            __m512 b = bf16_odd(w[k]);

            store64(out + 32 * k,
                    bf16_join(_mm512_sub_ps(_mm512_mul_ps(a, c[k]), _mm512_mul_ps(b, s[k])),
                              _mm512_add_ps(_mm512_mul_ps(b, c[k]), _mm512_mul_ps(a, s[k])), native),
                    stream);
        }
        if (span->copy_pass) {
            copy_tail(span, x, out, sizeof(uint16_t), stream);
        }
    }
}

/* Split-half bf16, half = 32 * nc (nc <= 2): chunk k of each half splits
 * into even and odd channels, each pairing with its partner's. */
ALWAYS_INLINE void bf16_split_fixed(const pecert__fast_span *span, int stream, int nc,
                                    int native)
{
    int64_t half = 32 * nc;
    __m512 c[2][2];
    __m512 s[2][2];
    int64_t h;
    int k;

#pragma GCC unroll 2
    for (k = 0; k < nc; k++) {
        for (int odd = 0; odd < 2; odd++) {
            c[k][odd] = table_lanes(span->cos + 32 * k, odd);
            s[k][odd] = table_lanes(span->sin + 32 * k, odd);
        }
    }
    for (h = 0; h < span->n_heads; h++) {
        const uint16_t *x = x_row(span, h, sizeof(uint16_t));
        uint16_t *out = out_row(span, h, sizeof(uint16_t));
        __m512i wa[2];
        __m512i wb[2];

#pragma GCC unroll 2
        for (k = 0; k < nc; k++) {
            wa[k] = _mm512_loadu_si512((const void *)(x + 32 * k));
            wb[k] = _mm512_loadu_si512((const void *)(x + half + 32 * k));
        }
#pragma GCC unroll 2
        for (k = 0; k < nc; k++) {
            __m512 ae = bf16_even(wa[k]);
            __m512 ao = bf16_odd(wa[k]);
            __m512 be = bf16_even(wb[k]);
            __m512 bo = bf16_odd(wb[k]);

            store64(out + 32 * k,
                    bf16_join(_mm512_sub_ps(_mm512_mul_ps(ae, c[k][0]), _mm512_mul_ps(be, s[k][0])),
                              _mm512_sub_ps(_mm512_mul_ps(ao, c[k][1]), _mm512_mul_ps(bo, s[k][1])),
                              native),
                    stream);
            store64(out + half + 32 * k,
                    bf16_join(_mm512_add_ps(_mm512_mul_ps(be, c[k][0]), _mm512_mul_ps(ae, s[k][0])),
                              _mm512_add_ps(_mm512_mul_ps(bo, c[k][1]), _mm512_mul_ps(ao, s[k][1])),
                              native),
                    stream);
        }
        if (span->copy_pass) {
            copy_tail(span, x, out, sizeof(uint16_t), stream);
        }
    }
}

/* Any rotary_dim: the table is read from L1 per step, tails masked. */
ALWAYS_INLINE void any_width(const pecert__fast_span *span, pecert__fast_dtype dtype, int layout,
                             int stream)
{
    size_t size = dtype == PECERT__FAST_F32 ? sizeof(float) : sizeof(uint16_t);
    int64_t width = layout == PECERT__FAST_PAIRS ? 2 * (int64_t)span->half : span->half;
    int64_t h;

    for (h = 0; h < span->n_heads; h++) {
        const void *x = x_row(span, h, size);
        void *out = out_row(span, h, size);
        int64_t i;

        for (i = 0; i < width; i += LANES) {
            __mmask16 m = first_lanes(width - i);
            __m512 c = load_table(span->cos, i, m);
            __m512 s = load_table(span->sin, i, m);

            if (layout == PECERT__FAST_PAIRS) {
                pairs_step(x, out, i, c, s, dtype, m, stream);
            } else {
                split_step(x, out, span->half, i, c, s, dtype, m, stream);
            }
        }
        if (span->copy_pass) {
            copy_tail(span, x, out, size, stream);
        }
    }
}

/* native: bf16 with VCVTNE2PS2BF16 (the CPU has AVX512-BF16). */
ALWAYS_INLINE void rotate_span(const pecert__fast_span *span, pecert__fast_dtype dtype,
                               int layout, int stream, int native)
{
    int bf16 = dtype == PECERT__FAST_BF16;

    if (bf16 && layout == PECERT__FAST_SPLIT && (span->half == 64 || span->half == 32)) {
        bf16_split_fixed(span, stream, span->half == 64 ? 2 : 1, native);
    } else if (bf16 && layout == PECERT__FAST_PAIRS && (span->half == 64 || span->half == 32)) {
        bf16_pairs_fixed(span, stream, span->half == 64 ? 4 : 2, native);
    } else if (layout == PECERT__FAST_SPLIT && span->half == 64) {
        split_fixed(span, dtype, stream, 4);
    } else if (layout == PECERT__FAST_SPLIT && span->half == 32) {
        split_fixed(span, dtype, stream, 2);
    } else if (layout == PECERT__FAST_PAIRS && span->half == 64) {
        pairs_fixed(span, dtype, stream, 8);
    } else if (layout == PECERT__FAST_PAIRS && span->half == 32) {
        pairs_fixed(span, dtype, stream, 4);
    } else {
        any_width(span, dtype, layout, stream);
    }
}

/* Streaming stores are weakly ordered: each thread fences once after its
 * share (apply.c), not after every span, where the wait for the write
 * buffers to drain cost 20% of a DRAM-bound call. */
void pecert__fast_store_fence_avx512(void)
{
    _mm_sfence();
}

void pecert__fast_rotate_f32_split_avx512(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F32, PECERT__FAST_SPLIT, 0, 0);
}

void pecert__fast_rotate_f32_pairs_avx512(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F32, PECERT__FAST_PAIRS, 0, 0);
}

void pecert__fast_rotate_f16_split_avx512(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F16, PECERT__FAST_SPLIT, 0, 0);
}

void pecert__fast_rotate_f16_pairs_avx512(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F16, PECERT__FAST_PAIRS, 0, 0);
}

void pecert__fast_rotate_bf16_split_avx512(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_SPLIT, 0, 0);
}

void pecert__fast_rotate_bf16_pairs_avx512(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_PAIRS, 0, 0);
}

/* The same with streaming stores (large out-of-place calls). */
void pecert__fast_rotate_f32_split_avx512_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F32, PECERT__FAST_SPLIT, 1, 0);
}

void pecert__fast_rotate_f32_pairs_avx512_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F32, PECERT__FAST_PAIRS, 1, 0);
}

void pecert__fast_rotate_f16_split_avx512_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F16, PECERT__FAST_SPLIT, 1, 0);
}

void pecert__fast_rotate_f16_pairs_avx512_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_F16, PECERT__FAST_PAIRS, 1, 0);
}

void pecert__fast_rotate_bf16_split_avx512_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_SPLIT, 1, 0);
}

void pecert__fast_rotate_bf16_pairs_avx512_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_PAIRS, 1, 0);
}

/* bf16 with AVX512-BF16 (dispatch.c picks these when CPUID has it). */
void pecert__fast_rotate_bf16_split_avx512bf16(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_SPLIT, 0, 1);
}

void pecert__fast_rotate_bf16_pairs_avx512bf16(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_PAIRS, 0, 1);
}

void pecert__fast_rotate_bf16_split_avx512bf16_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_SPLIT, 1, 1);
}

void pecert__fast_rotate_bf16_pairs_avx512bf16_stream(const pecert__fast_span *span)
{
    rotate_span(span, PECERT__FAST_BF16, PECERT__FAST_PAIRS, 1, 1);
}
