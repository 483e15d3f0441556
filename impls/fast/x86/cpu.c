/*
 * cpu.c - which of fast's ISAs this CPU and its OS can run.
 *
 * An ISA is usable when CPUID reports every instruction set its kernels
 * are compiled with (the Makefile's FAST_AVX2_FLAGS / FAST_AVX512_FLAGS)
 * and XGETBV shows the OS saves the registers they use. AVX512-BF16 is
 * optional: the AVX-512 kernels round bf16 in integer code without it
 * (x86/avx512/rotate.c). Detection runs once; the answer is cached.
 */
#include "../fast.h"

#if defined(__x86_64__) || defined(__i386__)

#include <cpuid.h>

/* CPUID.1:ECX */
#define ECX1_FMA (1u << 12)
#define ECX1_OSXSAVE (1u << 27)
#define ECX1_AVX (1u << 28)
#define ECX1_F16C (1u << 29)
/* CPUID.(7,0):EBX */
#define EBX7_AVX2 (1u << 5)
#define EBX7_AVX512F (1u << 16)
#define EBX7_AVX512DQ (1u << 17)
#define EBX7_AVX512BW (1u << 30)
#define EBX7_AVX512VL (1u << 31)
/* CPUID.(7,1):EAX */
#define EAX71_AVX512_BF16 (1u << 5)
/* XCR0: SSE and AVX state; opmask, upper ZMM0-15, ZMM16-31. */
#define XCR0_AVX 0x6u
#define XCR0_AVX512 0xe0u

static uint32_t read_xcr0(void)
{
    uint32_t eax;
    uint32_t edx;

    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return eax;
}

/* 1 if CPUID reports AVX512-BF16 (meaningful once AVX-512 is usable). */
static int detect_bf16(void)
{
    unsigned int eax = 0;
    unsigned int ebx = 0;
    unsigned int ecx = 0;
    unsigned int edx = 0;

    return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & EAX71_AVX512_BF16) != 0;
}

static pecert__fast_isa detect(void)
{
    unsigned int eax = 0;
    unsigned int ebx = 0;
    unsigned int ecx = 0;
    unsigned int edx = 0;
    uint32_t need1 = ECX1_FMA | ECX1_OSXSAVE | ECX1_AVX | ECX1_F16C;
    uint32_t need512 = EBX7_AVX512F | EBX7_AVX512DQ | EBX7_AVX512BW | EBX7_AVX512VL;
    uint32_t xcr0;

    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || (ecx & need1) != need1) {
        return PECERT__FAST_ISA_SCALAR;
    }
    xcr0 = read_xcr0();
    if ((xcr0 & XCR0_AVX) != XCR0_AVX || !__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) ||
        (ebx & EBX7_AVX2) == 0) {
        return PECERT__FAST_ISA_SCALAR;
    }
    if ((ebx & need512) == need512 && (xcr0 & XCR0_AVX512) == XCR0_AVX512) {
        return PECERT__FAST_ISA_AVX512;
    }
    return PECERT__FAST_ISA_AVX2;
}

#else

static int detect_bf16(void)
{
    return 0;
}

static pecert__fast_isa detect(void)
{
    return PECERT__FAST_ISA_SCALAR;
}

#endif

/* Bits 0-1: the best ISA; bit 2: AVX512-BF16 usable; -1: not detected
 * yet. Racing first calls compute the same answer; the atomics only make
 * the shared cache well-defined. */
static int features(void)
{
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);

    if (value < 0) {
        pecert__fast_isa isa = detect();

        value = (int)isa | (isa == PECERT__FAST_ISA_AVX512 && detect_bf16() ? 4 : 0);
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
}

pecert__fast_isa pecert__fast_cpu_best_isa(void)
{
    return (pecert__fast_isa)(features() & 3);
}

int pecert__fast_cpu_has_avx512_bf16(void)
{
    return (features() & 4) != 0;
}
