/*
 * half.c - f16 and bf16 storage: rounding to nearest even, widening.
 * f16 uses the compiler's _Float16 (IEEE binary16, correctly rounded);
 * bf16 is the upper half of a float32, rounded to nearest even.
 */
#include <string.h>

#include "honest.h"

uint16_t honest_f32_to_f16(float v)
{
    _Float16 h = (_Float16)v;
    uint16_t bits;
    memcpy(&bits, &h, sizeof(bits));
    return bits;
}

float honest_f16_to_f32(uint16_t bits)
{
    _Float16 h;
    memcpy(&h, &bits, sizeof(h));
    return (float)h;
}

uint16_t honest_f32_to_bf16(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof(bits));
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((bits >> 16) | 0x40u); /* NaN stays a quiet NaN */
    }
    uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)((bits + rounding) >> 16);
}

float honest_bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float v;
    memcpy(&v, &bits, sizeof(v));
    return v;
}
