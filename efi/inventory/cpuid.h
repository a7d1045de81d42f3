/* CPU identity from CPUID: brand string, invariant TSC, cache sizes.
 *
 * The decoding takes the CPUID instruction as a function so unit tests can
 * feed it the leaves of a given processor. */
#ifndef BAREMARK_CPUID_H
#define BAREMARK_CPUID_H

#include "../lib/bmlib.h"

struct cpuid_regs {
    uint32_t eax, ebx, ecx, edx;
};

typedef void (*cpuid_fn)(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);

struct cpu_ident {
    char vendor[13];         /* "GenuineIntel", "AuthenticAMD" */
    char brand[49];          /* leaves 80000002h-80000004h, trimmed */
    bool tsc_invariant;      /* 80000007h EDX bit 8 */
    uint32_t l1d_bytes, l1i_bytes, l2_bytes, l3_bytes; /* 0 when not reported */
    uint32_t line_bytes;     /* cache line of the L1 data cache */
    const char *cache_source; /* which leaf gave the caches */
};

/* Decode through fn (tests) or through the CPUID instruction. */
void cpu_identify_with(cpuid_fn fn, void *ctx, struct cpu_ident *out);
void cpu_identify(struct cpu_ident *out);

#endif
