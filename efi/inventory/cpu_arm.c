/* CPU identity on Arm (cpu_arm.h). The names follow Linux
 * arch/arm64/include/asm/cputype.h (ARM_CPU_IMP_*, *_CPU_PART_*); the
 * cache walk follows Linux arch/arm64/kernel/cacheinfo.c
 * (get_cache_type(), CLIDR_CTYPE) and the CCSIDR_EL1 layouts of the Arm ARM
 * D17.2.25 (with and without FEAT_CCIDX). */
#include "cpu_arm.h"

struct arm_name {
    uint16_t implementer, part; /* part 0xffff: the implementer's name only */
    const char *name;
};

static const struct arm_name arm_names[] = {
    { 0x41, 0xffff, "ARM" },
    { 0x41, 0xd03, "Cortex-A53" },
    { 0x41, 0xd07, "Cortex-A57" },
    { 0x41, 0xd08, "Cortex-A72" },
    { 0x41, 0xd0c, "Neoverse-N1" },   /* Ampere Altra, AWS Graviton2 */
    { 0x41, 0xd40, "Neoverse-V1" },   /* AWS Graviton3 */
    { 0x41, 0xd49, "Neoverse-N2" },
    { 0x41, 0xd4f, "Neoverse-V2" },   /* NVIDIA Grace, AWS Graviton4 */
    { 0x41, 0xd84, "Neoverse-V3" },
    { 0x41, 0xd8e, "Neoverse-N3" },
    { 0x42, 0xffff, "Broadcom" },
    { 0x42, 0x516, "Vulcan" },
    { 0x43, 0xffff, "Cavium" },
    { 0x43, 0x0af, "ThunderX2" },
    { 0x46, 0xffff, "Fujitsu" },
    { 0x46, 0x001, "A64FX" },
    { 0x48, 0xffff, "HiSilicon" },
    { 0x48, 0xd01, "TSV110" },         /* Kunpeng 920 */
    { 0x4e, 0xffff, "NVIDIA" },
    { 0x50, 0xffff, "APM" },
    { 0x50, 0x000, "X-Gene" },
    { 0x51, 0xffff, "Qualcomm" },
    { 0x61, 0xffff, "Apple" },
    { 0xc0, 0xffff, "Ampere" },
    { 0xc0, 0xac3, "AmpereOne" },
    { 0xc0, 0xac4, "AmpereOne AC04" },
};

/* The name of implementer imp's part (NULL: not in the table); part
 * 0xffff asks for the implementer's own name. */
static const char *arm_name(unsigned imp, unsigned part)
{
    for (size_t i = 0; i < ARRAY_SIZE(arm_names); i++)
        if (arm_names[i].implementer == imp && arm_names[i].part == part)
            return arm_names[i].name;
    return NULL;
}

uint64_t cpu_arm_ccsidr_bytes(uint64_t ccsidr, bool ccidx, uint32_t *line_bytes)
{
    uint64_t line = 16ull << (ccsidr & 7), ways, sets;

    if (ccidx) {
        ways = ((ccsidr >> 3) & 0x1fffff) + 1;
        sets = ((ccsidr >> 32) & 0xffffff) + 1;
    } else {
        ways = ((ccsidr >> 3) & 0x3ff) + 1;
        sets = ((ccsidr >> 13) & 0x7fff) + 1;
    }
    if (line_bytes)
        *line_bytes = (uint32_t)line;
    return line * ways * sets;
}

void cpu_arm_decode(const struct cpu_arm_regs *r, struct cpu_ident *out)
{
    unsigned imp = (unsigned)(r->midr >> 24) & 0xff, part = (unsigned)(r->midr >> 4) & 0xfff;
    unsigned variant = (unsigned)(r->midr >> 20) & 0xf, rev = (unsigned)r->midr & 0xf;
    const char *vname = arm_name(imp, 0xffff), *pname = arm_name(imp, part);
    uint32_t line = 0;

    memset(out, 0, sizeof(*out));
    if (vname)
        bm_strlcpy(out->vendor, vname, sizeof(out->vendor));
    else
        snprintf(out->vendor, sizeof(out->vendor), "impl 0x%02x", imp);
    if (pname)
        snprintf(out->brand, sizeof(out->brand), "%s %s r%up%u", out->vendor, pname, variant, rev);
    else
        snprintf(out->brand, sizeof(out->brand), "%s part 0x%03x r%up%u", out->vendor, part, variant, rev);
    /* The generic timer counts at a constant rate (Arm ARM D11.1.2): the
     * TSC's "invariant" holds by architecture. */
    out->tsc_invariant = true;

    for (unsigned level = 0; level < 7; level++) {
        unsigned ctype = (unsigned)(r->clidr >> (3 * level)) & 7;
        uint32_t lb = 0;
        uint64_t dbytes = 0, ibytes = 0;

        if (ctype == 0 || ctype > 4)
            break; /* no cache here, nor beyond (CLIDR_EL1: Ctype<n>) */
        if (ctype == 2 || ctype == 3 || ctype == 4) /* data, separate, unified */
            dbytes = cpu_arm_ccsidr_bytes(r->ccsidr[level][0], r->ccidx, &lb);
        if (ctype == 1 || ctype == 3)               /* instruction, separate */
            ibytes = cpu_arm_ccsidr_bytes(r->ccsidr[level][1], r->ccidx, NULL);
        if (level == 0) {
            out->l1d_bytes = (uint32_t)dbytes;
            out->l1i_bytes = (uint32_t)ibytes;
            line = lb;
        } else if (level == 1) {
            out->l2_bytes = (uint32_t)dbytes;
        } else if (level == 2) {
            out->l3_bytes = (uint32_t)dbytes;
        }
    }
    /* CTR_EL0.DminLine: log2 of the smallest data cache line in words. */
    if (!line && r->ctr)
        line = 4u << ((r->ctr >> 16) & 0xf);
    out->line_bytes = line;
    out->cache_source = "clidr_ccsidr";
}

#if defined(__aarch64__)
/* The registers of the calling CPU; CSSELR_EL1 picks the cache CCSIDR_EL1
 * shows, an ISB between (Linux cache_get_ccsidr()). */
void cpu_identify(struct cpu_ident *out)
{
    struct cpu_arm_regs r;
    uint64_t mmfr2;

    memset(&r, 0, sizeof(r));
    __asm__ __volatile__("mrs %0, midr_el1" : "=r"(r.midr));
    __asm__ __volatile__("mrs %0, clidr_el1" : "=r"(r.clidr));
    __asm__ __volatile__("mrs %0, ctr_el0" : "=r"(r.ctr));
    __asm__ __volatile__("mrs %0, id_aa64mmfr2_el1" : "=r"(mmfr2));
    r.ccidx = ((mmfr2 >> 20) & 0xf) == 1;
    for (unsigned level = 0; level < 7; level++) {
        unsigned ctype = (unsigned)(r.clidr >> (3 * level)) & 7;
        if (ctype == 0 || ctype > 4)
            break;
        for (unsigned ind = 0; ind < 2; ind++) {
            uint64_t sel = ((uint64_t)level << 1) | ind;
            __asm__ __volatile__("msr csselr_el1, %1\n\tisb\n\tmrs %0, ccsidr_el1" : "=r"(r.ccsidr[level][ind]) : "r"(sel));
        }
    }
    cpu_arm_decode(&r, out);
}
#endif
