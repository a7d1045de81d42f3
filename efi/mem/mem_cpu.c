/* Cache sizes and usable vector width from CPUID. */
#include "mem_cpu.h"

/* Deterministic cache parameters: leaf 4 (Intel) and 0x8000001D (AMD) share
 * one layout (SDM vol. 2A, CPUID leaf 04H; AMD APM vol. 3, E.4.15). */
static bool caches_from_leaf(uint32_t leaf, struct mem_caches *c)
{
    bool any = false;

    for (uint32_t sub = 0; sub < 16; sub++) {
        uint32_t r[4];
        uint32_t type, level;
        uint64_t ways, parts, line, sets, bytes;

        mem_cpuid(leaf, sub, r);
        type = r[0] & 0x1f;
        if (type == 0)
            break;
        if (type != 1 && type != 3) /* data or unified only */
            continue;
        level = (r[0] >> 5) & 7;
        ways = (r[1] >> 22) + 1;
        parts = ((r[1] >> 12) & 0x3ff) + 1;
        line = (r[1] & 0xfff) + 1;
        sets = (uint64_t)r[2] + 1;
        bytes = ways * parts * line * sets;
        if (level == 1)
            c->l1d_bytes = bytes;
        else if (level == 2)
            c->l2_bytes = bytes;
        else if (level == 3)
            c->l3_bytes = bytes;
        any = true;
    }
    return any;
}

void mem_cpu_caches(struct mem_caches *c)
{
    uint32_t r[4], max_leaf, max_ext;

    memset(c, 0, sizeof(*c));
    mem_cpuid(0, 0, r);
    max_leaf = r[0];
    mem_cpuid(0x80000000u, 0, r);
    max_ext = r[0];
    if (max_leaf >= 4 && caches_from_leaf(4, c))
        return;
    if (max_ext >= 0x8000001du && caches_from_leaf(0x8000001du, c))
        return;
    /* AMD's older summary leaves: L1D KiB in 0x80000005 ECX[31:24], L2 KiB
     * in 0x80000006 ECX[31:16], L3 in 512 KiB units in EDX[31:18]. */
    if (max_ext >= 0x80000005u) {
        mem_cpuid(0x80000005u, 0, r);
        c->l1d_bytes = (uint64_t)(r[2] >> 24) << 10;
    }
    if (max_ext >= 0x80000006u) {
        mem_cpuid(0x80000006u, 0, r);
        c->l2_bytes = (uint64_t)(r[2] >> 16) << 10;
        c->l3_bytes = (uint64_t)(r[3] >> 18) << 19;
    }
}

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

const char *mem_isa_name(enum mem_isa isa)
{
    switch (isa) {
    case MEM_ISA_AVX512: return "avx512";
    case MEM_ISA_AVX: return "avx";
    default: return "sse2";
    }
}

unsigned mem_isa_bits(enum mem_isa isa)
{
    return isa == MEM_ISA_AVX512 ? 512 : isa == MEM_ISA_AVX ? 256 : 128;
}
