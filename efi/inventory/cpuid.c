/* CPUID decoding. Intel SDM vol. 2A, CPUID instruction (leaves 0, 4,
 * 80000002h-80000004h, 80000007h); AMD APM vol. 3 appendix E (leaves
 * 80000005h, 80000006h, 8000001Dh). */
#include "cpuid.h"

#if defined(__x86_64__)
/* The real CPUID instruction. */
static void cpuid_insn(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
    (void)ctx;
    __asm__ __volatile__("cpuid" : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx) : "a"(leaf), "c"(subleaf));
}
#endif

/* Four ASCII bytes of a register, lowest first. */
static void put32(char *dst, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        dst[i] = (char)(v >> (8 * i));
}

/* The deterministic cache parameters layout shared by Intel leaf 4 and
 * AMD leaf 8000001Dh: EAX[4:0] type (0 = no more caches, 1 data,
 * 2 instruction, 3 unified), EAX[7:5] level, EBX[31:22] ways - 1,
 * EBX[21:12] partitions - 1, EBX[11:0] line size - 1, ECX sets - 1. */
static bool deterministic_caches(cpuid_fn fn, void *ctx, uint32_t leaf, struct cpu_ident *out)
{
    bool any = false;

    for (uint32_t i = 0; i < 16; i++) {
        struct cpuid_regs r;
        uint32_t type, level, ways, parts, line, sets, bytes;

        fn(ctx, leaf, i, &r);
        type = r.eax & 0x1f;
        if (type == 0)
            break;
        level = (r.eax >> 5) & 0x7;
        ways = ((r.ebx >> 22) & 0x3ff) + 1;
        parts = ((r.ebx >> 12) & 0x3ff) + 1;
        line = (r.ebx & 0xfff) + 1;
        sets = r.ecx + 1;
        bytes = ways * parts * line * sets;
        any = true;
        if (level == 1 && type == 1) {
            out->l1d_bytes = bytes;
            out->line_bytes = line;
        } else if (level == 1 && type == 2) {
            out->l1i_bytes = bytes;
        } else if (level == 1 && type == 3) {
            out->l1d_bytes = bytes; /* unified L1: what data sees */
            out->line_bytes = line;
        } else if (level == 2 && type != 2) {
            out->l2_bytes = MAX(out->l2_bytes, bytes);
        } else if (level == 3 && type != 2) {
            out->l3_bytes = MAX(out->l3_bytes, bytes);
        }
    }
    return any;
}

/* Vendor, brand, invariant TSC and caches through a CPUID function. */
void cpu_identify_with(cpuid_fn fn, void *ctx, struct cpu_ident *out)
{
    struct cpuid_regs r;
    uint32_t max_basic, max_ext;
    bool amd;

    memset(out, 0, sizeof(*out));
    out->cache_source = "none";
    fn(ctx, 0, 0, &r);
    max_basic = r.eax;
    put32(out->vendor, r.ebx);
    put32(out->vendor + 4, r.edx);
    put32(out->vendor + 8, r.ecx);
    out->vendor[12] = '\0';
    amd = !strcmp(out->vendor, "AuthenticAMD") || !strcmp(out->vendor, "HygonGenuine");

    fn(ctx, 0x80000000u, 0, &r);
    max_ext = (r.eax & 0x80000000u) ? r.eax : 0;

    if (max_ext >= 0x80000004u) {
        for (uint32_t i = 0; i < 3; i++) {
            fn(ctx, 0x80000002u + i, 0, &r);
            put32(out->brand + 16 * i, r.eax);
            put32(out->brand + 16 * i + 4, r.ebx);
            put32(out->brand + 16 * i + 8, r.ecx);
            put32(out->brand + 16 * i + 12, r.edx);
        }
        out->brand[48] = '\0';
        /* Intel pads the brand on the left with spaces. */
        {
            char *t = bm_trim(out->brand);
            memmove(out->brand, t, strlen(t) + 1);
        }
        if (out->brand[0] == '\0')
            bm_strlcpy(out->brand, out->vendor, sizeof(out->brand));
    } else {
        bm_strlcpy(out->brand, out->vendor, sizeof(out->brand));
    }

    /* Advanced Power Management leaf: EDX bit 8 is the invariant TSC,
     * the one that ticks at a constant rate in every P-, C- and T-state. */
    if (max_ext >= 0x80000007u) {
        fn(ctx, 0x80000007u, 0, &r);
        out->tsc_invariant = (r.edx >> 8) & 1;
    }

    if (amd) {
        bool topoext = false;
        if (max_ext >= 0x80000001u) {
            fn(ctx, 0x80000001u, 0, &r);
            topoext = (r.ecx >> 22) & 1; /* TopologyExtensions: leaf 8000001Dh valid */
        }
        if (topoext && max_ext >= 0x8000001du && deterministic_caches(fn, ctx, 0x8000001du, out)) {
            out->cache_source = "cpuid 0x8000001d";
            return;
        }
        /* Older AMD: L1 sizes in KB in 80000005h ECX/EDX[31:24], L2 in KB
         * in 80000006h ECX[31:16], L3 in 512 KB units in EDX[31:18]. */
        if (max_ext >= 0x80000006u) {
            fn(ctx, 0x80000005u, 0, &r);
            out->l1d_bytes = (r.ecx >> 24) * 1024u;
            out->l1i_bytes = (r.edx >> 24) * 1024u;
            out->line_bytes = r.ecx & 0xff;
            fn(ctx, 0x80000006u, 0, &r);
            out->l2_bytes = (r.ecx >> 16) * 1024u;
            out->l3_bytes = (r.edx >> 18) * 512u * 1024u;
            out->cache_source = "cpuid 0x80000005/0x80000006";
        }
        return;
    }
    if (max_basic >= 4 && deterministic_caches(fn, ctx, 4, out))
        out->cache_source = "cpuid 4";
}

/* The same through the CPUID instruction. */
#if defined(__x86_64__)
void cpu_identify(struct cpu_ident *out)
{
    cpu_identify_with(cpuid_insn, NULL, out);
}
#endif /* Arm: cpu_identify() in cpu_arm.c */
