/* Usable vector width from CPUID and XCR0. */
#include "mem_cpu.h"

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
#ifdef BAREMARK_MEM_C_KERNELS
    /* The aa64 build's temporary C kernels (mem_kernels_c_aa64.c). */
    (void)isa;
    return "c_fallback";
#endif
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
