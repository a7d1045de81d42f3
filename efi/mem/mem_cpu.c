/* Usable kernel set: CPUID and XCR0 on x86-64, ID_AA64PFR0_EL1 on AArch64. */
#include "mem_cpu.h"

#if defined(__aarch64__)
/* Advanced SIMD is part of every AArch64 CPU meant for servers; the ID
 * register says so (ID_AA64PFR0_EL1.AdvSIMD, 0xf = not implemented, as
 * Linux's cpufeature table reads it). UEFI allows it in applications. */
enum mem_isa mem_isa_usable(void)
{
    uint64_t pfr0 = MEM_READ_SYSREG(id_aa64pfr0_el1);

    if (((pfr0 >> ID_AA64PFR0_ADVSIMD_SHIFT) & 0xf) == ID_AA64PFR0_ADVSIMD_NONE)
        return MEM_ISA_LDP;
    return MEM_ISA_NEON;
}

/* The kernel set's name in records. */
const char *mem_isa_name(enum mem_isa isa) { return isa == MEM_ISA_NEON ? "neon" : "ldp"; }

/* Register width of a kernel set (bytes per access are 16 in both: a Q
 * register, or a pair of X registers). */
unsigned mem_isa_bits(enum mem_isa isa) { return isa == MEM_ISA_NEON ? 128 : 64; }

#else
/* The widest vectors: CPUID says what exists, XCR0 what is switched on
 * (SDM vol. 1, 13.3 and 15.2). */
enum mem_isa mem_isa_usable(void)
{
    uint32_t r1[4], r7[4] = { 0 }, r0[4];
    uint64_t xcr0;

    mem_cpuid(0, 0, r0);
    mem_cpuid(1, 0, r1);
    if (r0[0] >= 7)
        mem_cpuid(7, 0, r7);
    if (!(r1[2] & CPUID1_ECX_OSXSAVE))
        return MEM_ISA_SSE2;
    xcr0 = mem_xgetbv0();
    if (!(r1[2] & CPUID1_ECX_AVX) || (xcr0 & (XCR0_SSE | XCR0_AVX)) != (XCR0_SSE | XCR0_AVX))
        return MEM_ISA_SSE2;
    if ((r7[1] & CPUID7_EBX_AVX512F) && (xcr0 & XCR0_AVX512) == XCR0_AVX512)
        return MEM_ISA_AVX512;
    return MEM_ISA_AVX;
}

/* The kernel set's name in records. */
const char *mem_isa_name(enum mem_isa isa)
{
    switch (isa) {
    case MEM_ISA_AVX512: return "avx512";
    case MEM_ISA_AVX: return "avx";
    default: return "sse2";
    }
}

/* Register width of a kernel set. */
unsigned mem_isa_bits(enum mem_isa isa)
{
    return isa == MEM_ISA_AVX512 ? 512 : isa == MEM_ISA_AVX ? 256 : 128;
}
#endif
