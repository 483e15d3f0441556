/*
 * dispatch.c - the kernel tables and the choice among them.
 *
 * One table per ISA. The scalar table is complete and portable; the SIMD
 * tables replace the hot kernels (table rows, contiguous rotations, ALiBi
 * bias rows, the session's attention) and add streaming-store versions;
 * the rest (strided views, far angles) is portable code every table shares. Every table computes
 * bit-identical results (fast.h), so the choice changes speed, never
 * numbers.
 *
 * The choice is made per instance at create(): PECERT_ISA=scalar|avx2|
 * avx512 forces one (refused if the CPU lacks it), unset, empty or "auto"
 * takes the best the CPU runs (x86/cpu.c, detected once per process).
 * The AVX-512 table rounds bf16 with AVX512-BF16 where the CPU has it;
 * PECERT_ISA=avx512-nobf16 (for tests) forces its integer rounding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast.h"

static const pecert__fast_kernels scalar_kernels = {
    .isa = PECERT__FAST_ISA_SCALAR,
    .name = "scalar",
    .sincos_row = pecert__fast_sincos_row_scalar,
    .step_row = pecert__fast_step_row_scalar,
    .emit_f32 = pecert__fast_emit_f32_scalar,
    .rotate = {{pecert__fast_rotate_f32_split_scalar, pecert__fast_rotate_f32_pairs_scalar},
               {pecert__fast_rotate_f16_split_scalar, pecert__fast_rotate_f16_pairs_scalar},
               {pecert__fast_rotate_bf16_split_scalar, pecert__fast_rotate_bf16_pairs_scalar}},
    .alibi_keys = pecert__fast_alibi_keys_scalar,
    .alibi_row_f32 = pecert__fast_alibi_row_f32_scalar,
    .alibi_row_f64 = pecert__fast_alibi_row_f64_scalar,
    .dot_rows = pecert__fast_dot_rows_scalar,
    .softmax_weights = pecert__fast_softmax_weights_scalar,
    .weighted_rows = pecert__fast_weighted_rows_scalar,
    .swin_row = pecert__fast_swin_row_scalar,
    .shaw_row = pecert__fast_shaw_row_scalar,
    .t5_row = pecert__fast_t5_row_scalar,
    .narrow_row = pecert__fast_narrow_row_scalar,
    .interleave_row = pecert__fast_interleave_row_scalar,
    .axpy_row = pecert__fast_axpy_row_scalar,
    .sum_rows = pecert__fast_sum_rows_scalar,
    .sum_rows_shared = pecert__fast_sum_rows_shared_scalar,
    .peg_cell = pecert__fast_peg_cell_scalar,
    /* Compute-bound; no bound, so that the four-range walk (apply.c) is
     * exercised at every size on every machine the tests run on. */
    .row_ranges_below = SIZE_MAX,
};

#if defined(__x86_64__)

/* A SIMD table: every kernel of suffix S (avx2, avx512) but the bf16
 * rotations, which take suffix B (the same, or avx512bf16), and the
 * kernels only some ISAs have (designated initializers, last). */
#define SIMD_KERNELS(ISA, S, B, ...)                                                          \
    {                                                                                         \
        .isa = ISA, .name = #S, .sincos_row = pecert__fast_sincos_row_##S,                    \
        .step_row = pecert__fast_step_row_##S, .emit_f32 = pecert__fast_emit_f32_##S,         \
        .rotate = {{pecert__fast_rotate_f32_split_##S, pecert__fast_rotate_f32_pairs_##S},    \
                   {pecert__fast_rotate_f16_split_##S, pecert__fast_rotate_f16_pairs_##S},    \
                   {pecert__fast_rotate_bf16_split_##B, pecert__fast_rotate_bf16_pairs_##B}}, \
        .rotate_stream = {{pecert__fast_rotate_f32_split_##S##_stream,                        \
                           pecert__fast_rotate_f32_pairs_##S##_stream},                       \
                          {pecert__fast_rotate_f16_split_##S##_stream,                        \
                           pecert__fast_rotate_f16_pairs_##S##_stream},                       \
                          {pecert__fast_rotate_bf16_split_##B##_stream,                       \
                           pecert__fast_rotate_bf16_pairs_##B##_stream}},                     \
        .store_fence = pecert__fast_store_fence_##S, .alibi_keys = pecert__fast_alibi_keys_##S, \
        .alibi_row_f32 = pecert__fast_alibi_row_f32_##S,                                      \
        .alibi_row_f64 = pecert__fast_alibi_row_f64_##S,                                      \
        .alibi_row_f32_stream = pecert__fast_alibi_row_f32_##S##_stream,                      \
        .alibi_row_f64_stream = pecert__fast_alibi_row_f64_##S##_stream,                      \
        .dot_rows = pecert__fast_dot_rows_##S, .softmax_weights = pecert__fast_softmax_weights_##S, \
        .weighted_rows = pecert__fast_weighted_rows_##S, .swin_row = pecert__fast_swin_row_##S,   \
        .shaw_row = pecert__fast_shaw_row_##S, .t5_row = pecert__fast_t5_row_##S,                 \
        .narrow_row = pecert__fast_narrow_row_##S, .interleave_row = pecert__fast_interleave_row_##S, \
        .narrow_row_stream = pecert__fast_narrow_row_stream_##S,                                  \
        .interleave_row_stream = pecert__fast_interleave_row_stream_##S,                          \
        .copy_row_stream = pecert__fast_copy_row_stream_##S,                                      \
        .outer_sum_stream = pecert__fast_outer_sum_stream_##S,                                    \
        .axpy_row = pecert__fast_axpy_row_##S, .sum_rows = pecert__fast_sum_rows_##S,             \
        .sum_rows_shared = pecert__fast_sum_rows_shared_##S,                                      \
        .peg_cell = pecert__fast_peg_cell_##S, __VA_ARGS__                                        \
    }

/* Four row ranges a thread (apply.c, pecert__fast_row_ranges) up to the
 * bytes the machine each table was tuned on gained them at: on Zen 3
 * (AVX2) below 512 MiB a thread; on Zen 4 (AVX-512) never: one run of
 * 2026-12-07 beside a streaming-copy probe, one thread, f32 out of place,
 * four ranges against one at T = 32768 53 against 32.6 ms (copy 28.6),
 * f16 29.2 against 13.1, at T = 4096 4.6 against 3.7 ms, two threads at
 * T = 32768 43 against 26 ms; the gain once measured there (60 -> 52 ms)
 * was against a single stream that ran at half today's speed. */
static const pecert__fast_kernels avx2_kernels =
    SIMD_KERNELS(PECERT__FAST_ISA_AVX2, avx2, avx2, .step_interleave_stream = pecert__fast_step_interleave_stream_avx2,
                 .step_halves_stream = pecert__fast_step_halves_stream_avx2,
                 .sum_rows_stream = pecert__fast_sum_rows_stream_avx2, .peg_row3 = pecert__fast_peg_row3_avx2,
                 .row_ranges_below = (size_t)512 << 20);

#define AVX512_ONLY                                                                          \
    .step_interleave_stream = pecert__fast_step_interleave_stream_avx512,                    \
    .step_halves_stream = pecert__fast_step_halves_stream_avx512,                            \
    .sum_rows_stream = pecert__fast_sum_rows_stream_avx512,                                  \
    .peg_row3 = pecert__fast_peg_row3_avx512, .row_ranges_below = 0

static const pecert__fast_kernels avx512_kernels =
    SIMD_KERNELS(PECERT__FAST_ISA_AVX512, avx512, avx512, AVX512_ONLY);

/* avx512_kernels with bf16 rounded by VCVTNE2PS2BF16 (same bits). */
static const pecert__fast_kernels avx512_bf16_kernels =
    SIMD_KERNELS(PECERT__FAST_ISA_AVX512, avx512, avx512bf16, AVX512_ONLY);

static const pecert__fast_kernels *const tables[PECERT__FAST_ISA_COUNT] = {
    &scalar_kernels, &avx2_kernels, &avx512_kernels};

#else

static const pecert__fast_kernels *const tables[PECERT__FAST_ISA_COUNT] = {
    &scalar_kernels, NULL, NULL};

#endif

static const char *const isa_names[PECERT__FAST_ISA_COUNT] = {"scalar", "avx2", "avx512"};

/* Testing name: the AVX-512 kernels a CPU without AVX512-BF16 runs. */
static const char no_bf16_name[] = "avx512-nobf16";

/* The ISA PECERT_ISA names, the best one for "" / "auto" / unset, or -1. */
static int requested_isa(const char *value)
{
    int i;

    if (value == NULL || value[0] == '\0' || strcmp(value, "auto") == 0) {
        return (int)pecert__fast_cpu_best_isa();
    }
    if (strcmp(value, no_bf16_name) == 0) {
        return PECERT__FAST_ISA_AVX512;
    }
    for (i = 0; i < PECERT__FAST_ISA_COUNT; i++) {
        if (strcmp(value, isa_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

pecert_status pecert__fast_select_kernels(const pecert__fast_kernels **out, char *error,
                                          size_t len)
{
    const char *value = getenv("PECERT_ISA");
    int isa = requested_isa(value);
    int best = (int)pecert__fast_cpu_best_isa();

    if (isa < 0) {
        snprintf(error, len,
                 "create: PECERT_ISA='%.32s' is not one of scalar, avx2, avx512, auto "
                 "(or avx512-nobf16)",
                 value);
        return PECERT_E_INVAL;
    }
    /* ISAs are ordered: a CPU that runs one runs every smaller one. */
    if (isa > best || tables[isa] == NULL) {
        snprintf(error, len, "create: PECERT_ISA=%s, but this CPU (or build) runs at most %s",
                 isa_names[isa], isa_names[best]);
        return PECERT_E_UNSUPPORTED;
    }
    *out = tables[isa];
    if (isa == PECERT__FAST_ISA_AVX512 && pecert__fast_cpu_has_avx512_bf16() &&
        !(value != NULL && strcmp(value, no_bf16_name) == 0)) {
        *out = &avx512_bf16_kernels;
    }
    return PECERT_OK;
}
