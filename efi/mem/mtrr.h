/* Which RAM the MTRRs leave uncached (Intel SDM vol. 3A, 11.11 "Memory
 * Type Range Registers"), as pure functions over the MSR values: the
 * memory type of an address by the SDM's precedence (11.11.4.1), and the
 * E820 RAM that is not write-back, as Linux mtrr_trim_uncached_memory()
 * (arch/x86/kernel/cpu/mtrr/cleanup.c) looks for it. A BIOS that runs out
 * of variable MTRRs for a large or odd-sized memory leaves the top of RAM
 * uncached: a buffer there measures the bus, not the DIMMs. The BIOS build
 * (efi/bios/memory_bios.c) reads the MSRs and keeps such RAM out of its
 * allocator. */
#ifndef BAREMARK_MEM_MTRR_H
#define BAREMARK_MEM_MTRR_H

#include "e820.h"

#define MTRR_VAR_MAX 32
#define MTRR_TYPE_UC 0
#define MTRR_TYPE_WC 1
#define MTRR_TYPE_WT 4
#define MTRR_TYPE_WP 5
#define MTRR_TYPE_WB 6
#define MTRR_DEF_TYPE_E (1ull << 11)    /* IA32_MTRR_DEF_TYPE: MTRRs enabled */
#define MTRR_PHYSMASK_VALID (1ull << 11)

/* The MSRs as read: IA32_MTRR_DEF_TYPE (2FFh), and IA32_MTRR_PHYSBASEn /
 * PHYSMASKn (200h + 2n, 201h + 2n) for the nvar = IA32_MTRRCAP[7:0] pairs;
 * phys_bits = CPUID 80000008h EAX[7:0] (36 without that leaf). */
struct mtrr_state {
    uint64_t def_type;
    unsigned nvar;
    struct {
        uint64_t base, mask;
    } var[MTRR_VAR_MAX];
    unsigned phys_bits;
};

struct mtrr_range {
    uint64_t addr, size;
    uint8_t type;
};

struct mtrr_coverage {
    uint64_t ram_bytes;             /* E820 RAM in the range looked at */
    uint64_t uncached_bytes;        /* of it, not write-back */
    unsigned nranges;               /* ranges[] filled (merged, ascending) */
    unsigned dropped;               /* ranges past MTRR_COVERAGE_MAX, counted in uncached_bytes */
    unsigned var_used;              /* valid variable MTRRs */
    bool irregular;                 /* a valid MTRR's mask is not contiguous: types between
                                       its repeats were taken at range starts */
#define MTRR_COVERAGE_MAX 16
    struct mtrr_range ranges[MTRR_COVERAGE_MAX];
};

/* "UC", "WC", "WT", "WP", "WB", "reserved". */
const char *mtrr_type_name(uint8_t type);
/* The memory type of physical address a (at or above 1 MiB: the fixed
 * MTRRs are not looked at): disabled MTRRs make everything UC; no valid
 * variable MTRR matching gives the default type; several matching: UC if
 * any is UC, WT for WT with WB, and for any other mix UC (the SDM calls it
 * undefined; uncached is the side that never reports bus speed as DRAM). */
uint8_t mtrr_type_at(const struct mtrr_state *s, uint64_t a);
/* The RAM of the E820 map between lo and hi that is not write-back. */
void mtrr_coverage(const struct mtrr_state *s, const struct e820_entry *map, unsigned n, uint64_t lo, uint64_t hi,
                   struct mtrr_coverage *c);
/* One sentence for the `mtrr` record. */
void mtrr_coverage_describe(const struct mtrr_state *s, const struct mtrr_coverage *c, char *buf, size_t len);

#endif
