/*
 * alibi.c (AVX2) - one row of ALiBi biases, 4 keys per ymm register of
 * doubles, 8 biases per store.
 *
 * The arithmetic is scalar/alibi.c's, lane for lane: k - q and the
 * product by the slope in double (VSUBPD, VMULPD; nothing to fuse), then
 * VCVTPD2PS, which rounds to nearest like the scalar (float) conversion.
 * The symmetric form clears the sign of k - q and multiplies by -m,
 * which is what -m * fabs(k - q) computes. Keys past the last full step
 * go through the scalar kernel.
 */
#include <immintrin.h>

#include "../../fast.h"

#if !defined(__AVX2__)
#error "x86/avx2/*.c needs -mavx2 -mfma -mf16c"
#endif

/* Doubles per register; biases per step (one 64-byte line of f32). */
#define LANES 4
#define STEP 16

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* What every lane of a row shares: q, the sign mask and the multiplier. */
typedef struct row_consts {
    __m256d q;
    __m256d abs_mask;  /* all but the sign bit                            */
    __m256d mult;      /* m (linear) or -m (symmetric)                    */
} row_consts;

ALWAYS_INLINE row_consts make_consts(double m, double q, int symmetric)
{
    return (row_consts){_mm256_set1_pd(q), _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX)),
                        _mm256_set1_pd(symmetric ? -m : m)};
}

/* The biases of keys k[0..3] in double (symmetric a constant: the
 * linear loop has no mask to apply). */
ALWAYS_INLINE __m256d bias4(const double *k, const row_consts *c, int symmetric)
{
    __m256d d = _mm256_sub_pd(_mm256_loadu_pd(k), c->q);

    if (symmetric) {
        d = _mm256_and_pd(d, c->abs_mask);
    }
    return _mm256_mul_pd(d, c->mult);
}

/* The biases of keys k[0..7] rounded to f32. */
ALWAYS_INLINE __m256 bias8_f32(const double *k, const row_consts *c, int symmetric)
{
    __m128 lo = _mm256_cvtpd_ps(bias4(k, c, symmetric));
    __m128 hi = _mm256_cvtpd_ps(bias4(k + LANES, c, symmetric));

    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

/* Streaming stores need 32-byte alignment: out is 64-byte aligned and
 * every store lands a multiple of 8 floats (4 doubles) past it. */
ALWAYS_INLINE void store8_f32(float *out, __m256 v, int stream)
{
    if (stream) {
        _mm256_stream_ps(out, v);
    } else {
        _mm256_storeu_ps(out, v);
    }
}

ALWAYS_INLINE void store4_f64(double *out, __m256d v, int stream)
{
    if (stream) {
        _mm256_stream_pd(out, v);
    } else {
        _mm256_storeu_pd(out, v);
    }
}

ALWAYS_INLINE void row_f32_form(float *out, const double *k, int64_t n, double m, double q,
                                int symmetric, int stream)
{
    row_consts c = make_consts(m, q, symmetric);
    int64_t j = 0;

    for (; j + STEP <= n; j += STEP) {
        store8_f32(out + j, bias8_f32(k + j, &c, symmetric), stream);
        store8_f32(out + j + 8, bias8_f32(k + j + 8, &c, symmetric), stream);
    }
    for (; j + 8 <= n; j += 8) {
        store8_f32(out + j, bias8_f32(k + j, &c, symmetric), stream);
    }
    pecert__fast_alibi_row_f32_scalar(out + j, k + j, n - j, m, q, symmetric);
}

ALWAYS_INLINE void row_f64_form(double *out, const double *k, int64_t n, double m, double q,
                                int symmetric, int stream)
{
    row_consts c = make_consts(m, q, symmetric);
    int64_t j = 0;

    for (; j + 2 * LANES <= n; j += 2 * LANES) {
        store4_f64(out + j, bias4(k + j, &c, symmetric), stream);
        store4_f64(out + j + LANES, bias4(k + j + LANES, &c, symmetric), stream);
    }
    for (; j + LANES <= n; j += LANES) {
        store4_f64(out + j, bias4(k + j, &c, symmetric), stream);
    }
    pecert__fast_alibi_row_f64_scalar(out + j, k + j, n - j, m, q, symmetric);
}

/* One loop per form, symmetric a constant in each. */
ALWAYS_INLINE void row_f32(float *out, const double *k, int64_t n, double m, double q,
                           int symmetric, int stream)
{
    if (symmetric) {
        row_f32_form(out, k, n, m, q, 1, stream);
    } else {
        row_f32_form(out, k, n, m, q, 0, stream);
    }
}

ALWAYS_INLINE void row_f64(double *out, const double *k, int64_t n, double m, double q,
                           int symmetric, int stream)
{
    if (symmetric) {
        row_f64_form(out, k, n, m, q, 1, stream);
    } else {
        row_f64_form(out, k, n, m, q, 0, stream);
    }
}

/* AVX2 has no int64 -> double conversion. k = hi 2^32 + lo (lo the low
 * 32 bits, unsigned): lo under the exponent of 2^52 is the double
 * 2^52 + lo; hi with its sign bit flipped under the exponent of 2^84 is
 * 2^84 + 2^63 + hi 2^32, and minus 2^84 + 2^63 + 2^52 (exact) it is
 * hi 2^32 - 2^52. Their sum, k, is rounded once: exact for |k| < 2^53,
 * as (double)k is. */
void pecert__fast_alibi_keys_avx2(double *out, const int64_t *k, int64_t n)
{
    const __m256i lo_magic = _mm256_set1_epi64x(0x4330000000000000);  /* 2^52           */
    const __m256i hi_magic = _mm256_set1_epi64x(0x4530000080000000);  /* 2^84 + 2^63    */
    const __m256d all_magic = _mm256_castsi256_pd(
        _mm256_set1_epi64x(0x4530000080100000));                      /* + 2^52         */
    int64_t j = 0;

    for (; j + LANES <= n; j += LANES) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(k + j));
        __m256i lo = _mm256_blend_epi32(lo_magic, v, 0x55);
        __m256i hi = _mm256_xor_si256(_mm256_srli_epi64(v, 32), hi_magic);
        __m256d hi_d = _mm256_sub_pd(_mm256_castsi256_pd(hi), all_magic);

        _mm256_storeu_pd(out + j, _mm256_add_pd(hi_d, _mm256_castsi256_pd(lo)));
    }
    pecert__fast_alibi_keys_scalar(out + j, k + j, n - j);
}

void pecert__fast_alibi_row_f32_avx2(float *out, const double *k, int64_t n, double m, double q,
                                     int symmetric)
{
    row_f32(out, k, n, m, q, symmetric, 0);
}

void pecert__fast_alibi_row_f32_avx2_stream(float *out, const double *k, int64_t n, double m,
                                            double q, int symmetric)
{
    row_f32(out, k, n, m, q, symmetric, 1);
}

void pecert__fast_alibi_row_f64_avx2(double *out, const double *k, int64_t n, double m, double q,
                                     int symmetric)
{
    row_f64(out, k, n, m, q, symmetric, 0);
}

void pecert__fast_alibi_row_f64_avx2_stream(double *out, const double *k, int64_t n, double m,
                                            double q, int symmetric)
{
    row_f64(out, k, n, m, q, symmetric, 1);
}
