/*
 * half.c - float16 and bfloat16 conversions in portable C.
 *
 * Each is bit-identical to what the SIMD kernels do, so a row computed by
 * a scalar tail equals one computed by a vector body:
 *   f16 <-> f32: what F16C's VCVTPH2PS / VCVTPS2PH (imm 0, nearest-even)
 *     produce, including subnormals, infinities and NaNs (a NaN is quieted
 *     and keeps the top of its payload). Verified on all 65536 halves and
 *     the rounding boundaries by tests/check_fast.c through the plugin.
 *   bf16 -> f32: the 16 bits shifted up (exact).
 *   f32 -> bf16: round to nearest even on the bits (subnormals included,
 *     unlike AVX512-BF16's VCVTNEPS2BF16, which flushes them); a NaN is
 *     quieted and keeps its top payload bits.
 */
#include <string.h>

#include "../fast.h"

static float from_bits(uint32_t bits)
{
    float f;

    memcpy(&f, &bits, sizeof(f));
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t bits;

    memcpy(&bits, &f, sizeof(bits));
    return bits;
}

float pecert__fast_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;

    if (exponent == 0x1f) {
        /* Infinity, or a NaN made quiet (bit 22) as VCVTPH2PS does. */
        return from_bits(sign | 0x7f800000u | (mantissa != 0 ? 0x400000u : 0) | (mantissa << 13));
    }
    if (exponent == 0) {
        /* Zero or subnormal: mantissa * 2^-24, exact in float. */
        float magnitude = (float)mantissa * 0x1p-24f;

        return from_bits(sign | to_bits(magnitude));
    }
    return from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/* A float below 2^-14 (the smallest normal half) in units of 2^-24,
 * rounded to nearest even. */
static uint32_t f16_subnormal(uint32_t magnitude)
{
    uint32_t exponent = magnitude >> 23;
    uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - exponent; /* 14..24 for [2^-25, 2^-14) */
    uint32_t result = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);

    if (rest > halfway || (rest == halfway && (result & 1u) != 0)) {
        result++;
    }
    return result;
}

uint16_t pecert__fast_f32_to_f16(float f)
{
    uint32_t bits = to_bits(f);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t magnitude = bits & 0x7fffffffu;

    if (magnitude > 0x7f800000u) {
        return (uint16_t)(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    }
    if (magnitude >= 0x477ff000u) {
        return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to infinity */
    }
    if (magnitude >= 0x38800000u) {
        /* Normal: round at bit 13 (nearest even), then rebias 127 -> 15. */
        uint32_t rounded = magnitude + 0x0fffu + ((magnitude >> 13) & 1u);

        return (uint16_t)(sign | ((rounded - 0x38000000u) >> 13));
    }
    if (magnitude < 0x33000000u) {
        return (uint16_t)sign; /* below 2^-25: rounds to zero (2^-25 ties to 0) */
    }
    return (uint16_t)(sign | f16_subnormal(magnitude));
}

float pecert__fast_bf16_to_f32(uint16_t h)
{
    return from_bits((uint32_t)h << 16);
}

uint16_t pecert__fast_f32_to_bf16(float f)
{
    uint32_t bits = to_bits(f);

    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((bits | 0x400000u) >> 16);
    }
    return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
