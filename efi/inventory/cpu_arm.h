/* CPU identity on Arm: the implementer and part from MIDR_EL1 and the
 * caches from CLIDR_EL1 / CCSIDR_EL1 (Arm ARM D17.2), decoded from register
 * values so unit tests can feed those of a given processor. */
#ifndef BAREMARK_CPU_ARM_H
#define BAREMARK_CPU_ARM_H

#include "cpuid.h"

struct cpu_arm_regs {
    uint64_t midr;          /* MIDR_EL1 */
    uint64_t clidr;         /* CLIDR_EL1 */
    uint64_t ctr;           /* CTR_EL0 */
    bool ccidx;             /* ID_AA64MMFR2_EL1.CCIDX: the 64-bit CCSIDR layout */
    /* CCSIDR_EL1 per level (0 = L1) as CSSELR_EL1 selects it: [level][0]
     * the data or unified cache, [level][1] the instruction cache. */
    uint64_t ccsidr[7][2];
};

/* MIDR + caches into out (brand "<implementer> <part>", vendor the implementer). */
void cpu_arm_decode(const struct cpu_arm_regs *r, struct cpu_ident *out);
/* Bytes of one cache from its CCSIDR_EL1 value (0 when it reads as none). */
uint64_t cpu_arm_ccsidr_bytes(uint64_t ccsidr, bool ccidx, uint32_t *line_bytes);

#endif
