/* What the memory benchmark needs to know about the processor: the widest
 * usable vector registers and a cheap clock (cache sizes come from the
 * inventory's struct sysinfo). Portable:
 * CPUID and RDTSC run the same in the firmware and the host build. */
#ifndef BAREMARK_MEM_CPU_H
#define BAREMARK_MEM_CPU_H

#include "../platform.h"

/* Vector widths the bandwidth kernels come in. */
enum mem_isa {
    MEM_ISA_SSE2 = 0, /* 128-bit: every x86-64 CPU */
    MEM_ISA_AVX,      /* 256-bit */
    MEM_ISA_AVX512,   /* 512-bit (AVX512F) */
};

/* The widest vectors the CPU has AND the current XCR0 lets us use (so call
 * it after mem_simd_enter on this CPU). */
enum mem_isa mem_isa_usable(void);
const char *mem_isa_name(enum mem_isa isa);
unsigned mem_isa_bits(enum mem_isa isa);

#if defined(__aarch64__)
/* AArch64 (a minimal seam so the aa64 build compiles and runs; the
 * AArch64 memory work, armmem32, owns and replaces this block): no CPUID
 * (all zero: the baseline set), no XCR0, the generic timer's counter as
 * the clock, YIELD to pause. */
static inline void mem_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    (void)leaf, (void)sub;
    r[0] = r[1] = r[2] = r[3] = 0;
}
static inline uint64_t mem_xgetbv0(void) { return 0; }
static inline uint64_t mem_ticks(void)
{
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
    return v;
}
static inline void mem_pause(void) { __asm__ __volatile__("yield" ::: "memory"); }
#else
/* CPUID subleaf. */
static inline void mem_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    __asm__ __volatile__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

/* XCR0; only valid when CR4.OSXSAVE is set (CPUID.1:ECX bit 27). */
static inline uint64_t mem_xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* The time-stamp counter, fenced so that every earlier instruction (the
 * last load of a chase) has completed before it is read and no later one
 * starts before it. */
static inline uint64_t mem_ticks(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline void mem_pause(void) { __asm__ __volatile__("pause" ::: "memory"); }
#endif

/* CPUID bits used here (Intel SDM vol. 2A, CPUID). */
#define CPUID1_ECX_XSAVE (1u << 26)
#define CPUID1_ECX_OSXSAVE (1u << 27)
#define CPUID1_ECX_AVX (1u << 28)
#define CPUID7_EBX_AVX512F (1u << 16)
/* XCR0 state components (SDM vol. 1, 13.1). */
#define XCR0_X87 0x1ull
#define XCR0_SSE 0x2ull
#define XCR0_AVX 0x4ull
#define XCR0_AVX512 0xe0ull /* opmask, ZMM_Hi256, Hi16_ZMM */

#endif
