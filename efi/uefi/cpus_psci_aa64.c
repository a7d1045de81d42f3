/* The other cores of an Arm machine whose firmware has no EFI MP services
 * protocol (Debian 12's AAVMF, edk2 2022.11, among others): started here
 * through PSCI CPU_ON (Arm DEN 0022, PSCI 1.1, section 5.6), found in the
 * ACPI MADT's GICC entries (ACPI 6.5 section 5.2.12.14: MPIDR at offset
 * 68, Enabled flag bit 0), with the conduit (HVC or SMC) the FADT's
 * ARM_BOOT_ARCH flags name (offset 129: bit 0 PSCI compliant, bit 1 use
 * HVC). As EDK2 ArmPsciMpServicesDxe does, each core takes the boot
 * core's page tables (psci_entry_aa64.S), then waits for jobs; at the end
 * of the run each one turns itself off with PSCI CPU_OFF, so nothing runs
 * in this image's memory once the firmware frees it. */
#include "uefi_private.h"

#define PSCI_CPU_OFF 0x84000002u
#define PSCI_CPU_ON_64 0xc4000003u
#define FADT_ARM_BOOT_ARCH 129
#define ARM_BOOT_PSCI 0x1
#define ARM_BOOT_HVC 0x2
#define MADT_GICC 0x0b
#define GICC_MIN_LENGTH 76
#define GICC_ENABLED 0x1
#define STACK_BYTES (64 * 1024)
#define START_TIMEOUT_NS 200000000ull /* 200 ms for a core to report in */

/* The layout psci_entry_aa64.S reads. */
struct psci_boot {
    uint64_t mair, tcr, ttbr0, vbar, cpacr, sctlr, sp, fn, arg;
};

struct psci_core {
    struct psci_boot boot __attribute__((aligned(64)));
    uint64_t mpidr;
    unsigned index;          /* our CPU index */
    plat_cpu_fn fn;
    void *arg;
    uint32_t posted, done;   /* job sequence: busy while they differ */
    uint32_t alive, quit, off;
} __attribute__((aligned(64)));

void psci_secondary_entry(void);

static struct psci_core *cores[PSCI_MAX_CORES];
static unsigned ncores;
static bool use_hvc;

static uint64_t psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
    register uint64_t x0 __asm__("x0") = fn, x1 __asm__("x1") = a1, x2 __asm__("x2") = a2, x3 __asm__("x3") = a3;

    /* SMCCC 1.0 lets the callee clobber x4-x17. */
    if (use_hvc)
        __asm__ __volatile__("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)::"x4", "x5", "x6", "x7", "x8", "x9",
                             "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
    else
        __asm__ __volatile__("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)::"x4", "x5", "x6", "x7", "x8", "x9",
                             "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
    return x0;
}

/* A started core: report in, then run each job posted, until told to quit. */
static void secondary_main(void *p)
{
    struct psci_core *c = p;

    __atomic_store_n(&c->alive, 1, __ATOMIC_RELEASE);
    __asm__ __volatile__("sev");
    for (;;) {
        uint32_t seq = __atomic_load_n(&c->posted, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&c->quit, __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&c->off, 1, __ATOMIC_RELEASE);
            __asm__ __volatile__("sev");
            psci_call(PSCI_CPU_OFF, 0, 0, 0);
            for (;;)
                __asm__ __volatile__("wfe");
        }
        if (seq == c->done) {
            __asm__ __volatile__("wfe");
            continue;
        }
        c->fn(c->index, c->arg);
        __atomic_store_n(&c->done, seq, __ATOMIC_RELEASE);
        __asm__ __volatile__("sev");
    }
}

/* Clean a range to the point of coherency: a core with its MMU off reads
 * memory, not the boot core's caches. */
static void clean_to_poc(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p & ~63ull, end = (uintptr_t)p + n;

    for (; a < end; a += 64)
        __asm__ __volatile__("dc civac, %0" ::"r"(a) : "memory");
    __asm__ __volatile__("dsb sy" ::: "memory");
}

/* The boot core's translation regime, vectors, FP enable and SCTLR. */
static void read_boot_regs(struct psci_boot *b)
{
    uint64_t el;

    __asm__ __volatile__("mrs %0, CurrentEL" : "=r"(el));
    if ((el >> 2) == 2) {
        __asm__ __volatile__("mrs %0, mair_el2" : "=r"(b->mair));
        __asm__ __volatile__("mrs %0, tcr_el2" : "=r"(b->tcr));
        __asm__ __volatile__("mrs %0, ttbr0_el2" : "=r"(b->ttbr0));
        __asm__ __volatile__("mrs %0, vbar_el2" : "=r"(b->vbar));
        __asm__ __volatile__("mrs %0, cptr_el2" : "=r"(b->cpacr));
        __asm__ __volatile__("mrs %0, sctlr_el2" : "=r"(b->sctlr));
    } else {
        __asm__ __volatile__("mrs %0, mair_el1" : "=r"(b->mair));
        __asm__ __volatile__("mrs %0, tcr_el1" : "=r"(b->tcr));
        __asm__ __volatile__("mrs %0, ttbr0_el1" : "=r"(b->ttbr0));
        __asm__ __volatile__("mrs %0, vbar_el1" : "=r"(b->vbar));
        __asm__ __volatile__("mrs %0, cpacr_el1" : "=r"(b->cpacr));
        __asm__ __volatile__("mrs %0, sctlr_el1" : "=r"(b->sctlr));
    }
}

unsigned psci_cpus_start(uint64_t self_mpidr, uint64_t *mpidrs, unsigned max)
{
    const uint8_t *fadt = plat_acpi_table("FACP", 0), *madt = plat_acpi_table("APIC", 0);
    uint32_t flen, mlen;
    uint16_t flags;
    unsigned started = 0;

    if (!fadt || !madt)
        return 0;
    memcpy(&flen, fadt + 4, 4);
    if (flen < FADT_ARM_BOOT_ARCH + 2)
        return 0;
    memcpy(&flags, fadt + FADT_ARM_BOOT_ARCH, 2);
    if (!(flags & ARM_BOOT_PSCI)) {
        plat_log("the FADT says the firmware has no PSCI: the other cores cannot be started, running on 1 CPU\n");
        return 0;
    }
    use_hvc = flags & ARM_BOOT_HVC;
    memcpy(&mlen, madt + 4, 4);
    for (uint32_t off = 44; off + 2 <= mlen && started < max && ncores < PSCI_MAX_CORES;) {
        uint8_t type = madt[off], len = madt[off + 1];
        uint32_t gflags;
        uint64_t mpidr;
        struct psci_core *c;
        uint64_t r, deadline;

        if (len < 2 || off + len > mlen)
            break;
        if (type != MADT_GICC || len < GICC_MIN_LENGTH) {
            off += len;
            continue;
        }
        memcpy(&gflags, madt + off + 12, 4);
        memcpy(&mpidr, madt + off + 68, 8);
        off += len;
        mpidr &= 0xff00ffffffull;
        if (!(gflags & GICC_ENABLED) || mpidr == (self_mpidr & 0xff00ffffffull))
            continue;
        c = plat_alloc_pages(sizeof(*c) + STACK_BYTES, false);
        if (!c)
            break;
        read_boot_regs(&c->boot);
        c->boot.sp = (uint64_t)(uintptr_t)c + sizeof(*c) + STACK_BYTES;
        c->boot.sp &= ~15ull;
        c->boot.fn = (uint64_t)(uintptr_t)secondary_main;
        c->boot.arg = (uint64_t)(uintptr_t)c;
        c->mpidr = mpidr;
        clean_to_poc(c, sizeof(*c));
        r = psci_call(PSCI_CPU_ON_64, mpidr, (uint64_t)(uintptr_t)psci_secondary_entry, (uint64_t)(uintptr_t)&c->boot);
        if (r != 0) {
            plat_log("PSCI CPU_ON of core 0x%llx refused (%lld)\n", (unsigned long long)mpidr, (long long)r);
            plat_free_pages(c, sizeof(*c) + STACK_BYTES);
            continue;
        }
        deadline = plat_now_ns() + START_TIMEOUT_NS;
        while (!__atomic_load_n(&c->alive, __ATOMIC_ACQUIRE) && plat_now_ns() < deadline)
            plat_cpu_relax();
        if (!__atomic_load_n(&c->alive, __ATOMIC_ACQUIRE)) {
            /* It may still wake up later and run our code: never free it. */
            plat_log("core 0x%llx did not report in after PSCI CPU_ON: left out\n", (unsigned long long)mpidr);
            continue;
        }
        cores[ncores++] = c;
        mpidrs[started++] = mpidr;
    }
    return started;
}

int psci_cpu_post(unsigned core, unsigned index, plat_cpu_fn fn, void *arg)
{
    struct psci_core *c;

    if (core >= ncores)
        return BM_EINVAL;
    c = cores[core];
    if (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) != c->posted)
        return BM_EBUSY;
    c->fn = fn;
    c->arg = arg;
    c->index = index;
    __atomic_store_n(&c->posted, c->posted + 1, __ATOMIC_RELEASE);
    __asm__ __volatile__("dsb ish\n\tsev" ::: "memory");
    return BM_OK;
}

bool psci_cpu_idle(unsigned core)
{
    return core < ncores && __atomic_load_n(&cores[core]->done, __ATOMIC_ACQUIRE) == cores[core]->posted;
}

void psci_cpus_stop(void)
{
    for (unsigned i = 0; i < ncores; i++) {
        struct psci_core *c = cores[i];
        uint64_t deadline = plat_now_ns() + 100000000ull;

        if (!psci_cpu_idle(i)) {
            plat_log("core 0x%llx still runs a job: it is left running\n", (unsigned long long)c->mpidr);
            continue;
        }
        __atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
        __asm__ __volatile__("dsb ish\n\tsev" ::: "memory");
        while (!__atomic_load_n(&c->off, __ATOMIC_ACQUIRE) && plat_now_ns() < deadline)
            plat_cpu_relax();
        /* From `off` to the PSCI call is a few instructions; give it a moment. */
        plat_delay_ns(1000000);
    }
    ncores = 0;
}
