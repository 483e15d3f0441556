/*
 * cpu.c - which of fast's ISAs this CPU and its OS can run.
 *
 * An ISA is usable when CPUID reports every instruction set its kernels
 * are compiled with (the Makefile's FAST_AVX2_FLAGS / FAST_AVX512_FLAGS,
 * except AVX512-BF16: fast rounds bf16 in integer code, see
 * x86/avx512/rotate.c) and XGETBV shows the OS saves the registers they
 * use. Detection runs once; the answer is cached.
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

static pecert__fast_isa detect(void)
{
    return PECERT__FAST_ISA_SCALAR;
}

#endif

pecert__fast_isa pecert__fast_cpu_best_isa(void)
{
    /* -1 = not yet detected. Racing first calls compute the same answer;
     * the atomics only make the shared cache well-defined. */
    static int cached = -1;
    int isa = __atomic_load_n(&cached, __ATOMIC_RELAXED);

    if (isa < 0) {
        isa = (int)detect();
        __atomic_store_n(&cached, isa, __ATOMIC_RELAXED);
    }
    return (pecert__fast_isa)isa;
}
