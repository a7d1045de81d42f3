/* Memory-benchmark machine services on firmware (UEFI and BIOS builds).
 *
 * Firmware runs with CR4.OSXSAVE clear and XCR0 = x87|SSE (OVMF, and most
 * real firmware), so AVX and AVX-512 instructions fault (#UD) until the
 * operating system - here, us - enables their state components (Intel SDM
 * vol. 1, 13.3 "Enabling the XSAVE feature set and XSAVE-enabled
 * features"). We enable them around each run of kernels and put the
 * registers back afterwards.
 *
 * Why this is safe inside firmware: the firmware's interrupt handlers save
 * only what they clobber (legacy SSE code leaves the upper halves of YMM
 * and ZMM registers alone and never touches ZMM16-31 or the opmask
 * registers), and our kernels end with vzeroupper, so no extended state is
 * live when firmware code runs. */
#include "mem_machine.h"
#include "mem_cpu.h"

#if defined(__aarch64__)
/* AArch64: nothing to switch on. UEFI allows FP and Advanced SIMD code
 * (UEFI 2.10, 2.3.6.4), so firmware runs with them enabled (CPACR_EL1.FPEN),
 * and the kernels of mem_kernels_aa64.S use no wider state (no SVE). */
void mem_simd_enter(unsigned cpu) { (void)cpu; }
void mem_simd_leave(unsigned cpu) { (void)cpu; }
#else
#define CR4_OSXSAVE (1ull << 18) /* SDM vol. 3A, 2.5 "Control registers" */
#define MEM_MAX_CPUS 256

struct saved_state {
    uint64_t cr4, xcr0;
    bool changed_cr4, changed_xcr0;
};

static struct saved_state saved[MEM_MAX_CPUS];

/* Control register 4. */
static inline uint64_t read_cr4(void)
{
    uint64_t v;
    __asm__ __volatile__("mov %%cr4, %0" : "=r"(v));
    return v;
}

/* Set control register 4. */
static inline void write_cr4(uint64_t v) { __asm__ __volatile__("mov %0, %%cr4" ::"r"(v) : "memory"); }

/* Set XCR0 (needs CR4.OSXSAVE). */
static inline void xsetbv0(uint64_t v)
{
    __asm__ __volatile__("xsetbv" ::"a"((uint32_t)v), "d"((uint32_t)(v >> 32)), "c"(0) : "memory");
}

/* Enable the AVX/AVX-512 state CPUID offers on this CPU, saving CR4/XCR0. */
void mem_simd_enter(unsigned cpu)
{
    struct saved_state *s = &saved[cpu < MEM_MAX_CPUS ? cpu : MEM_MAX_CPUS - 1];
    uint32_t r0[4], r1[4], r7[4] = { 0 }, rd[4];
    uint64_t want, xcr0;

    memset(s, 0, sizeof(*s));
    mem_cpuid(0, 0, r0);
    mem_cpuid(1, 0, r1);
    if (!(r1[2] & CPUID1_ECX_XSAVE) || r0[0] < 0xd)
        return;
    if (r0[0] >= 7)
        mem_cpuid(7, 0, r7);
    /* CPUID.(EAX=0DH,ECX=0):EAX lists the XCR0 bits this CPU supports. */
    mem_cpuid(0xd, 0, rd);

    s->cr4 = read_cr4();
    if (!(s->cr4 & CR4_OSXSAVE)) {
        write_cr4(s->cr4 | CR4_OSXSAVE);
        s->changed_cr4 = true;
    }
    xcr0 = mem_xgetbv0();
    s->xcr0 = xcr0;
    want = XCR0_X87 | XCR0_SSE;
    if ((r1[2] & CPUID1_ECX_AVX) && (rd[0] & XCR0_AVX)) {
        want |= XCR0_AVX;
        /* AVX-512 state needs all three components at once, and AVX too. */
        if ((r7[1] & CPUID7_EBX_AVX512F) && (rd[0] & XCR0_AVX512) == XCR0_AVX512)
            want |= XCR0_AVX512;
    }
    if ((xcr0 | want) != xcr0) {
        xsetbv0(xcr0 | want);
        s->changed_xcr0 = true;
    }
}

/* Restore this CPU's CR4 and XCR0. */
void mem_simd_leave(unsigned cpu)
{
    struct saved_state *s = &saved[cpu < MEM_MAX_CPUS ? cpu : MEM_MAX_CPUS - 1];

    /* XCR0 first: XSETBV needs CR4.OSXSAVE still set. */
    if (s->changed_xcr0)
        xsetbv0(s->xcr0);
    if (s->changed_cr4)
        write_cr4(s->cr4);
    s->changed_xcr0 = s->changed_cr4 = false;
}
#endif

/* Identity map: a physical range is where the memory is. */
bool mem_numa_placement(void) { return true; }

/* Insert [base, base+bytes) into the n ranges of out (at most max), keeping
 * them ascending and merging with a neighbour it touches; the new count. */
unsigned mem_ram_range_add(struct mem_ram_range *out, unsigned n, unsigned max, uint64_t base, uint64_t bytes)
{
    unsigned i = n;

    while (i > 0 && out[i - 1].base > base)
        i--;
    if (i > 0 && out[i - 1].base + out[i - 1].bytes == base) {
        out[i - 1].bytes += bytes;
        if (i < n && out[i - 1].base + out[i - 1].bytes == out[i].base) { /* now touches the next one */
            out[i - 1].bytes += out[i].bytes;
            memmove(&out[i], &out[i + 1], (n - i - 1) * sizeof(*out));
            n--;
        }
        return n;
    }
    if (i < n && base + bytes == out[i].base) {
        out[i].base = base;
        out[i].bytes += bytes;
        return n;
    }
    if (n == max)
        return n;
    memmove(&out[i + 1], &out[i], (n - i) * sizeof(*out));
    out[i].base = base;
    out[i].bytes = bytes;
    return n + 1;
}
