/* What the memory benchmark needs to know about the processor: the widest
 * usable vector registers and a cheap clock (cache sizes come from the
 * inventory's struct sysinfo). Portable: on x86-64, CPUID and RDTSC; on
 * AArch64, the ID registers and the generic timer's CNTVCT_EL0. Both run
 * the same in the firmware and the host (Linux) build. */
#ifndef BAREMARK_MEM_CPU_H
#define BAREMARK_MEM_CPU_H

#include "../platform.h"

#if defined(__aarch64__)
/* Kernel sets of mem_kernels_aa64.S. */
enum mem_isa {
    MEM_ISA_LDP = 0,  /* general registers, LDP/STNP pairs: every AArch64 CPU */
    MEM_ISA_NEON,     /* Advanced SIMD Q registers, LD1/STNP */
    MEM_ISA_BASE = MEM_ISA_LDP,
};
#else
/* Vector widths the bandwidth kernels come in. */
enum mem_isa {
    MEM_ISA_SSE2 = 0, /* 128-bit: every x86-64 CPU */
    MEM_ISA_AVX,      /* 256-bit */
    MEM_ISA_AVX512,   /* 512-bit (AVX512F) */
    MEM_ISA_BASE = MEM_ISA_SSE2,
};
#endif

/* The widest vectors the CPU has AND the current XCR0 lets us use (so call
 * it after mem_simd_enter on this CPU). AArch64: NEON when ID_AA64PFR0_EL1
 * lists Advanced SIMD, else the general-register kernels. */
enum mem_isa mem_isa_usable(void);
const char *mem_isa_name(enum mem_isa isa);
unsigned mem_isa_bits(enum mem_isa isa);

#if defined(__aarch64__)
/* A system register by name (readable at EL0 under Linux and at EL1/EL2 in
 * firmware: CNTVCT_EL0 and CTR_EL0 directly, the ID registers through
 * Linux's emulation of MRS, Documentation/arch/arm64/cpu-feature-registers.rst). */
#define MEM_READ_SYSREG(name)                                             \
    ({                                                                    \
        uint64_t v_;                                                      \
        __asm__ __volatile__("mrs %0, " #name : "=r"(v_)::"memory");      \
        v_;                                                               \
    })

/* The generic timer's virtual count, with an ISB on each side. The Arm ARM
 * lets a CNTVCT_EL0 read be taken speculatively and out of order: the ISB
 * before keeps it after the earlier instructions (the last load of a
 * chase), the one after keeps later ones from starting before it (as
 * Linux __arch_counter_get_cntvct(), whose isb comes first and whose
 * arch_counter_enforce_ordering() holds back later loads).
 * Its rate is CNTFRQ_EL0 (mem_counter_hz), not the CPU clock. */
static inline uint64_t mem_ticks(void)
{
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
    return v;
}

/* The counter's frequency in Hz, as firmware programmed it (0 if it did not). */
static inline uint64_t mem_counter_hz(void) { return MEM_READ_SYSREG(cntfrq_el0) & 0xffffffffull; }

/* A spin-wait hint, as Linux cpu_relax() on arm64. */
static inline void mem_pause(void) { __asm__ __volatile__("yield" ::: "memory"); }

/* CTR_EL0, the Cache Type Register (Arm ARM): DminLine, bits 19:16, is log2
 * of the words (4 bytes) in the smallest data cache line of the hierarchy
 * (as Linux's dcache_line_size macro, arch/arm64/include/asm/assembler.h);
 * CWG, bits 27:24, log2 of the words in the largest line that can be
 * written back, 0 if not reported (as Linux cache_line_size_of_cpu()). */
#define CTR_EL0_DMINLINE_SHIFT 16
#define CTR_EL0_CWG_SHIFT 24

/* Smallest data cache line in bytes (64 on Neoverse and Ampere cores). */
static inline uint32_t mem_dcache_line_bytes(void)
{
    return 4u << ((MEM_READ_SYSREG(ctr_el0) >> CTR_EL0_DMINLINE_SHIFT) & 0xf);
}

/* Largest line written back in bytes, 0 if the CPU does not say (then
 * assume the architectural maximum, 2 KiB, where it matters). A chase step
 * smaller than this can land two steps in one line of an outer cache. */
static inline uint32_t mem_writeback_granule_bytes(void)
{
    uint32_t cwg = (MEM_READ_SYSREG(ctr_el0) >> CTR_EL0_CWG_SHIFT) & 0xf;
    return cwg ? 4u << cwg : 0;
}

/* ID_AA64PFR0_EL1.AdvSIMD, bits 23:20: 0xf means no Advanced SIMD. */
#define ID_AA64PFR0_ADVSIMD_SHIFT 20
#define ID_AA64PFR0_ADVSIMD_NONE 0xf
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

#endif /* __aarch64__ */

#endif
