/* CPUs on a BIOS PC: the application processors the ACPI MADT lists,
 * started with INIT-SIPI-SIPI (efi/mp/ap_start.c) through the boot
 * processor's local APIC, each on a stack of its own, our GDT, page tables
 * and an IDT with the same exception gates (so a fault on an AP becomes a
 * report, not a reset). An AP then halts with interrupts on until the boot
 * processor gives it a job and sends it a wake-up IPI; it runs the job with
 * interrupts off and halts again. The platform calls keep the semantics of
 * the UEFI build's MP services version (efi/uefi/cpus_uefi.c). */
#include "bios_private.h"
#include "../mp/ap_start.h"
#include "../mp/madt.h"
#include "../mp/mptable.h"
#include "../clock/tsc_sync.h"

#define MAX_CPUS 256
#define AP_STACK_BYTES (64 * 1024)
#define AP_TRAMPOLINE_PHYS 0x8000ull /* ours: 0x8000-0x8FFF (bios_private.h) */
#define AP_TRAMPOLINE_MAX 0x1000ull
#define AP_SIPI_VECTOR (AP_TRAMPOLINE_PHYS >> 12)
#define WAKE_VECTOR 0x20                /* the first vector past the exceptions */
#define SPURIOUS_VECTOR 0x2f            /* bits 3:0 all ones: what P6-era APICs force */
#define AP_IDT_VECTORS 0x30

/* Local APIC (Intel SDM vol. 3A, 10.4 and table 10-1; x2APIC: 10.12,
 * MSR 0x800 + offset / 16, the ICR one 64-bit MSR). */
#define MSR_APIC_BASE 0x1b
#define APIC_BASE_EXTD (1ull << 10)     /* x2APIC mode */
#define APIC_BASE_EN (1ull << 11)       /* xAPIC global enable */
#define APIC_BASE_ADDR 0x000ffffffffff000ull
#define LAPIC_ID 0x20
#define LAPIC_EOI 0xb0
#define LAPIC_SVR 0xf0
#define LAPIC_ESR 0x280
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define SVR_APIC_ENABLED 0x100
#define MSR_X2APIC_BASE 0x800
#define MSR_X2APIC_ICR 0x830
#define ICR_IDLE_NS 100000000ull        /* Linux safe_apic_wait_icr_idle(): 1000 x 100 us */
#define PDE_PCD_PWT 0x18ull             /* uncached 2 MiB page (SDM vol. 3A, 4.9.2) */
#define BDA_EBDA_SEG 0x40e              /* BIOS data area: EBDA segment, u16 */
#define BDA_BASE_KIB 0x413              /* BIOS data area: base memory in KiB, u16 */
#define MP_TABLE_READ_MAX 0x10000u      /* the base table's length is a u16 */

enum { CPU_OFF, CPU_IDLE, CPU_JOB, CPU_FAULTED };

struct bios_cpu {
    uint32_t apic_id;
    uint32_t state;                     /* CPU_*, written by both sides */
    plat_cpu_fn fn;
    void *arg;
    bool taken;                         /* a plat_cpu_start job not yet waited for */
    bool fault_said;
    char fault[200];                    /* the exception, as the AP saw it */
};

extern const uint8_t ap_trampoline[], ap_trampoline_end[], ap_gdt_ptr[];
extern uint64_t ap_boot_stack;
extern uint32_t ap_boot_index;
extern uint64_t bios_pd[2048];
void ap_wake_isr(void);
void ap_spurious_isr(void);
void bios_ap_main(unsigned index);

uint8_t bios_x2apic;                    /* ap_bios.S reads these two */
uint64_t bios_lapic_eoi;

static struct bios_cpu cpus[MAX_CPUS];
static unsigned ncpus = 1;
static uint64_t lapic;                  /* xAPIC base; 0: none found */
static uint8_t ap_idt[AP_IDT_VECTORS * BIOS_IDT_GATE_BYTES] __attribute__((aligned(16)));
static char start_report[320];          /* said with the first job (no sink before) */
static bool start_report_said;

static uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t)hi << 32 | lo;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ __volatile__("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static uint32_t lapic_read(uint32_t off)
{
    if (bios_x2apic)
        return (uint32_t)rdmsr(MSR_X2APIC_BASE + off / 16);
    return mmio_read32((volatile void *)(uintptr_t)lapic, off);
}

static void lapic_write(uint32_t off, uint32_t v)
{
    if (bios_x2apic)
        wrmsr(MSR_X2APIC_BASE + off / 16, v);
    else
        mmio_write32((volatile void *)(uintptr_t)lapic, off, v);
}

/* This CPU's APIC ID: x2APIC ID register, or bits 31:24 of the xAPIC one. */
static uint32_t this_apic_id(void)
{
    uint32_t a = 1, b, c = 0, d;

    if (bios_x2apic)
        return (uint32_t)rdmsr(MSR_X2APIC_BASE + LAPIC_ID / 16);
    if (lapic)
        return lapic_read(LAPIC_ID) >> 24;
    __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    return b >> 24;
}

/* Send an IPI and, on an xAPIC, wait (bounded) until it has left. As
 * Linux, the error status is cleared before a start-up IPI. */
static int send_ipi(void *ctx, uint32_t dest, uint32_t icr)
{
    uint64_t deadline;

    if ((icr & 0x700) == ICR_DM_STARTUP)
        lapic_write(LAPIC_ESR, 0);
    if (bios_x2apic) {
        wrmsr(MSR_X2APIC_ICR, (uint64_t)dest << 32 | icr);
        return BM_OK;
    }
    lapic_write(LAPIC_ICR_HI, dest << 24);
    lapic_write(LAPIC_ICR_LO, icr);
    deadline = plat_now_ns() + ICR_IDLE_NS;
    while (lapic_read(LAPIC_ICR_LO) & ICR_DELIVERY_PENDING) {
        if (plat_now_ns() >= deadline)
            return BM_ETIMEDOUT;
        __asm__ __volatile__("pause");
    }
    return BM_OK;
}

static uint64_t now_ns(void *ctx) { return plat_now_ns(); }
static void delay_ns(void *ctx, uint64_t ns) { plat_delay_ns(ns); }
static bool checked_in(void *ctx, unsigned i) { return __atomic_load_n(&cpus[i].state, __ATOMIC_ACQUIRE) != CPU_OFF; }

static const struct ap_start_ops lapic_ops = { send_ipi, now_ns, delay_ns, checked_in };

/* The APs' IDT: the boot processor's 32 exception gates, then the wake-up
 * vector and the spurious one (an AP halts with interrupts on). */
static void ap_idt_build(void)
{
    struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) idtr;

    __asm__ __volatile__("sidt %0" : "=m"(idtr));
    memcpy(ap_idt, (const void *)(uintptr_t)idtr.base, MIN((size_t)idtr.limit + 1, 32 * BIOS_IDT_GATE_BYTES));
    for (unsigned v = 32; v < AP_IDT_VECTORS; v++)
        bios_idt_set(ap_idt, v, (uint64_t)(uintptr_t)(v == WAKE_VECTOR ? ap_wake_isr : ap_spurious_isr));
}

/* The trampoline at 0x8000 with the GDT pointer the boot processor uses. */
static bool trampoline_install(void)
{
    size_t bytes = (size_t)(ap_trampoline_end - ap_trampoline);
    uint8_t *dst = (uint8_t *)(uintptr_t)AP_TRAMPOLINE_PHYS;
    struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) gdtr;

    if (bytes > AP_TRAMPOLINE_MAX)
        return false;
    __asm__ __volatile__("sgdt %0" : "=m"(gdtr));
    if (gdtr.base >> 32)
        return false;
    memcpy(dst, ap_trampoline, bytes);
    /* The real-mode lgdtl takes a 16-bit limit and a 32-bit base. */
    memcpy(dst + (ap_gdt_ptr - ap_trampoline), &gdtr.limit, 2);
    memcpy(dst + (ap_gdt_ptr - ap_trampoline) + 2, &gdtr.base, 4);
    return true;
}

/* The local APIC of the boot processor: its mode and base from the APIC
 * base MSR, its 2 MiB page uncached (the SDM wants APIC registers UC; the
 * firmware's MTRRs may not say so), and software-enabled. false: none. */
static bool bsp_lapic_init(void)
{
    uint32_t a = 1, b, c = 0, d;
    uint64_t base;

    __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    if (!(d & (1u << 9)))               /* CPUID.01h:EDX.APIC */
        return false;
    base = rdmsr(MSR_APIC_BASE);
    if (!(base & APIC_BASE_EN))
        return false;
    bios_x2apic = (base & APIC_BASE_EXTD) != 0;
    if (!bios_x2apic) {
        lapic = base & APIC_BASE_ADDR;
        if (lapic >> 32)
            return lapic = 0, false;
        bios_pd[lapic >> 21] |= PDE_PCD_PWT;
        __asm__ __volatile__("invlpg (%0)" ::"r"(lapic) : "memory");
        bios_lapic_eoi = lapic + LAPIC_EOI;
    }
    lapic_write(LAPIC_SVR, lapic_read(LAPIC_SVR) | SVR_APIC_ENABLED);
    return true;
}

/* Start one AP as index ncpus; true when it checked in. */
static bool start_one(uint32_t apic_id)
{
    uint8_t *stack = plat_alloc_pages(AP_STACK_BYTES, true);
    struct bios_cpu *c = &cpus[ncpus];

    if (!stack)
        return false;
    memset(c, 0, sizeof(*c));
    c->apic_id = apic_id;
    ap_boot_stack = (uint64_t)(uintptr_t)(stack + AP_STACK_BYTES);
    ap_boot_index = ncpus;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (ap_start(&lapic_ops, NULL, apic_id, AP_SIPI_VECTOR, ncpus, AP_CALLIN_NS) != BM_OK)
        return false;                   /* its stack stays allocated: it was sent INIT, but who knows */
    ncpus++;
    return true;
}

/* Where there is no usable MADT (ACPI off in the BIOS setup, a pre-ACPI
 * 2.0 BIOS): the Intel MP table. Its floating pointer is looked for where
 * MP spec 1.4 section 4.1 puts it, in the order Linux smp_scan_config()
 * and memtest86+ look: the EBDA's first KiB, the last KiB of base memory,
 * the BIOS ROM at 0xF0000-0xFFFFF. BM_OK with m filled, else why says
 * what was wrong. */
static int mp_table_cpus(struct madt_info *m, char *why, size_t why_len, unsigned *rev)
{
    const volatile uint16_t *bda = (const volatile uint16_t *)BDA_EBDA_SEG;
    uint64_t ebda, base_top, addr = 0;
    struct mptable_fps f;
    struct {
        uint64_t lo, len;
    } where[3];
    long off = -1;

    /* The compiler takes a pointer into page 0 for a bug; it is the BDA. */
    __asm__("" : "+r"(bda));
    ebda = (uint64_t)bda[0] << 4;
    base_top = (uint64_t)bda[(BDA_BASE_KIB - BDA_EBDA_SEG) / 2] * 1024;
    where[0].lo = ebda, where[0].len = ebda >= 0x80000 && ebda < 0xa0000 ? 1024 : 0;
    where[1].lo = base_top - 1024, where[1].len = base_top >= 0x80000 && base_top <= 0xa0000 ? 1024 : 0;
    where[2].lo = 0xf0000, where[2].len = 0x10000;
    for (unsigned i = 0; i < 3 && off < 0; i++)
        if (where[i].len && (off = mptable_find((const uint8_t *)(uintptr_t)where[i].lo, where[i].len, &f)) >= 0)
            addr = where[i].lo + (uint64_t)off;
    if (off < 0) {
        snprintf(why, why_len, "no Intel MP table either");
        return BM_ENODEV;
    }
    *rev = f.spec_rev;
    if (f.default_config)
        return mptable_default_config(f.default_config, m);
    if (!f.config_addr) {
        snprintf(why, why_len, "the Intel MP floating pointer at 0x%llx names no table", (unsigned long long)addr);
        return BM_EINVAL;
    }
    return mptable_parse((const uint8_t *)(uintptr_t)f.config_addr,
                         MIN((uint64_t)MP_TABLE_READ_MAX, (4ull << 30) - f.config_addr), m, why, why_len);
}

static void report_add(size_t *n, const char *fmt, uint32_t v)
{
    if (*n < sizeof(start_report))
        *n += (size_t)snprintf(start_report + *n, sizeof(start_report) - *n, fmt, v);
}

static bool cpu_fault(const char *msg);
static void give(unsigned i, plat_cpu_fn fn, void *arg);

static uint64_t rdtsc_ordered(void *ctx)
{
    uint32_t lo, hi;
    /* LFENCE: the read is not moved before the lock was taken (Linux rdtsc_ordered()). */
    __asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

static struct tsc_warp warp;
static uint64_t warp_ticks;

static void warp_side(unsigned cpu, void *arg) { tsc_warp_run(&warp, rdtsc_ordered, NULL, warp_ticks, TSC_SYNC_MAX_LOOPS); }

/* Before AP i times anything: is its TSC in step with the boot
 * processor's? Both run Linux's check_tsc_warp() loop at once
 * (efi/clock/tsc_sync.c). The largest warp in ns, or UINT64_MAX when the
 * AP did not come back from the check within a second. */
static uint64_t warp_check(unsigned i, bool first)
{
    uint64_t deadline;

    memset(&warp, 0, sizeof(warp));
    warp_ticks = (uint64_t)((unsigned __int128)plat_tsc_hz() * (first ? TSC_SYNC_FIRST_NS : TSC_SYNC_NEXT_NS) /
                            1000000000ull);
    give(i, warp_side, NULL);
    warp_side(0, NULL);
    deadline = plat_now_ns() + AP_CALLIN_NS;
    while (__atomic_load_n(&cpus[i].state, __ATOMIC_ACQUIRE) == CPU_JOB)
        if (plat_now_ns() >= deadline)
            return UINT64_MAX;
    return tsc_warp_ns(&warp, plat_tsc_hz());
}

/* A CPU left out after it started: INIT puts it back in wait-for-SIPI,
 * where it runs nothing and touches no memory (its slot is reused; its
 * stack stays allocated). The level-triggered assert and de-assert as
 * ap_start() sends INIT. */
static void park(uint32_t apic_id)
{
    send_ipi(NULL, apic_id, ICR_DM_INIT | ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL);
    plat_delay_ns(AP_INIT_DELAY_NS);
    send_ipi(NULL, apic_id, ICR_DM_INIT | ICR_TRIGGER_LEVEL);
    plat_delay_ns(AP_INIT_DELAY_NS);
}

/* Start every usable AP of the MADT, one after another (each takes the
 * trampoline's stack slot). Those that do not check in are left out and
 * named in the report. */
void bios_cpus_init(void)
{
    static struct madt_info madt;
    const uint8_t *t = plat_acpi_table("APIC", 0);
    uint32_t len = 0;
    size_t n = 0, warp_said;
    unsigned failed = 0, skipped = 0, warped = 0, synced = 0;
    static char warp_text[240];

    ncpus = 1;
    cpus[0].state = CPU_IDLE;
    bios_idt_on_fault(cpu_fault);
    if (!bsp_lapic_init()) {
        cpus[0].apic_id = this_apic_id();
        snprintf(start_report, sizeof(start_report), "no usable local APIC: only the boot CPU runs");
        return;
    }
    cpus[0].apic_id = this_apic_id();
    if (t)
        memcpy(&len, t + 4, 4);
    if (!t || madt_parse(t, len, &madt) != BM_OK) {
        char why[160];
        unsigned rev = 0;
        if (mp_table_cpus(&madt, why, sizeof(why), &rev) != BM_OK) {
            snprintf(start_report, sizeof(start_report), "no usable ACPI MADT and %s: only the boot CPU runs", why);
            return;
        }
        n = (size_t)snprintf(start_report, sizeof(start_report),
                             "no usable ACPI MADT: the CPUs are the Intel MP table's (MP 1.%u, %u listed)", rev,
                             madt.ncpus);
    }
    if (!trampoline_install()) {
        snprintf(start_report, sizeof(start_report), "AP trampoline does not fit: only the boot CPU runs");
        return;
    }
    ap_idt_build();
    warp_said = 0;
    for (unsigned i = 0; i < madt.ncpus; i++) {
        uint32_t id = madt.cpus[i].apic_id;
        /* Online capable but not enabled: a socket that may be hot-added
         * later, not a CPU present now. Linux registers it as possible
         * but not present (acpi_register_lapic() -> topology_register_apic()
         * with present = enabled) and brings up only present CPUs; so do
         * we, instead of waiting a second for a CPU that is not there. */
        if (id == cpus[0].apic_id || !madt.cpus[i].enabled)
            continue;
        if (ncpus >= MAX_CPUS || (!bios_x2apic && id > 0xfe)) {
            skipped++;
            continue;
        }
        if (start_one(id)) {
            uint64_t warp_ns;
            if (!plat_tsc_hz())
                continue;
            warp_ns = warp_check(ncpus - 1, ncpus == 2);
            if (!warp_ns) {
                synced++;
                continue;
            }
            /* Its TSC disagrees with the boot CPU's: its timings would not
             * compare, so it is left out and the run is timed from the CPUs
             * whose TSCs agree (the boot CPU's among them). */
            park(id);
            ncpus--;
            warped++;
            if (warp_said < sizeof(warp_text))
                warp_said += (size_t)snprintf(warp_text + warp_said, sizeof(warp_text) - warp_said,
                                              warp_ns == UINT64_MAX ? "%sAPIC ID %u (did not finish the check)"
                                                                    : "%sAPIC ID %u (%llu ns)",
                                              warped > 1 ? ", " : "", id, (unsigned long long)warp_ns);
            continue;
        }
        report_add(&n, failed ? ", %u" : n ? "; APIC ID %u" : "APIC ID %u", id);
        failed++;
    }
    if (warped)
        plat_diag_later("tsc", "legacy BIOS: the TSCs of %u CPUs disagree with the boot CPU's by more than they "
                        "advance between two reads (Linux check_tsc_warp): %s; they are left out and the run is "
                        "timed on the %u CPUs whose TSCs agree", warped, warp_text, ncpus);
    else if (synced)
        plat_diag_later("tsc", "legacy BIOS: the TSCs of the %u other CPUs agree with the boot CPU's "
                        "(Linux check_tsc_warp, %llu ms then %llu ms each)", synced,
                        (unsigned long long)(TSC_SYNC_FIRST_NS / 1000000), (unsigned long long)(TSC_SYNC_NEXT_NS / 1000000));
    if (failed)
        report_add(&n, " did not start within a second (INIT-SIPI-SIPI): left out; %u CPUs run", ncpus);
    if (skipped || madt.dropped)
        report_add(&n, n ? "; %u CPUs of the MADT left out (at most 256 run, xAPIC IDs below 255)"
                         : "%u CPUs of the MADT left out (at most 256 run, xAPIC IDs below 255)",
                   skipped + madt.dropped);
}

/* The start report, once, from the boot processor, when a measurement
 * first asks for the CPUs (the sink that makes it a record comes after
 * plat_init). */
static void say_start_report(void)
{
    if (start_report_said || !start_report[0])
        return;
    start_report_said = true;
    plat_diag("cpus", "legacy BIOS: %s", start_report);
}

/* An AP's life after its check-in: halt until given a job, run it with
 * interrupts off, say it is done. */
void bios_ap_main(unsigned index)
{
    struct bios_cpu *c = &cpus[index];
    struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) idtr = { sizeof(ap_idt) - 1, (uint64_t)(uintptr_t)ap_idt };

    __asm__ __volatile__("lidt %0" ::"m"(idtr));
    bios_mce_enable();
    lapic_write(LAPIC_SVR, SVR_APIC_ENABLED | SPURIOUS_VECTOR);
    __atomic_store_n(&c->state, CPU_IDLE, __ATOMIC_RELEASE);
    for (;;) {
        if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_JOB) {
            c->fn(index, c->arg);
            __atomic_store_n(&c->state, CPU_IDLE, __ATOMIC_RELEASE);
            continue;
        }
        /* STI's one-instruction shadow: a wake-up sent after the check
         * above is taken at the HLT, never lost before it. */
        __asm__ __volatile__("sti; hlt; cli" ::: "memory");
    }
}

/* From bios_exception() (idt_bios.c, registered with bios_idt_on_fault())
 * on any CPU: on an AP, keep the message for the boot processor and say so
 * (the caller then halts this CPU for good); on the boot processor, false. */
static bool cpu_fault(const char *msg)
{
    uint32_t id;

    if (ncpus == 1)
        return false;
    id = this_apic_id();
    if (id == cpus[0].apic_id)
        return false;
    for (unsigned i = 1; i < ncpus; i++) {
        if (cpus[i].apic_id != id)
            continue;
        bm_strlcpy(cpus[i].fault, msg, sizeof(cpus[i].fault));
        __atomic_store_n(&cpus[i].state, CPU_FAULTED, __ATOMIC_RELEASE);
    }
    return true;
}

/* A faulted AP, said once by the boot processor. */
static bool faulted(unsigned i)
{
    struct bios_cpu *c = &cpus[i];

    if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) != CPU_FAULTED)
        return false;
    if (!c->fault_said) {
        c->fault_said = true;
        plat_diag("cpus", "CPU %u (APIC ID %u) %s; it is left out from now on", i, c->apic_id, c->fault);
    }
    return true;
}

/* Hand AP i a job and wake it. */
static void give(unsigned i, plat_cpu_fn fn, void *arg)
{
    cpus[i].fn = fn;
    cpus[i].arg = arg;
    __atomic_store_n(&cpus[i].state, CPU_JOB, __ATOMIC_RELEASE);
    send_ipi(NULL, cpus[i].apic_id, ICR_DM_FIXED | WAKE_VECTOR);
}

unsigned plat_cpu_count(void) { return ncpus; }
uint32_t plat_cpu_apic_id(unsigned i) { return i < ncpus ? cpus[i].apic_id : 0; }
bool plat_on_bsp(void) { return ncpus == 1 || this_apic_id() == cpus[0].apic_id; }

/* As the UEFI build: the APs start first, the caller runs cpu 0, then it
 * waits for each (no deadline: fn is our own bounded loop), except for one
 * that faulted, which did not run fn to its end and is not counted. */
int plat_run_on_cpus(unsigned n, plat_cpu_fn fn, void *arg)
{
    unsigned started = 1, ran;

    if (n == 0)
        return BM_EINVAL;
    say_start_report();
    n = MIN(n, ncpus);
    for (unsigned i = 1; i < n; i++) {
        if (faulted(i) || __atomic_load_n(&cpus[i].state, __ATOMIC_ACQUIRE) != CPU_IDLE)
            break;                      /* busy with (or hung in) a plat_cpu_start job */
        give(i, fn, arg);
        started++;
    }
    fn(0, arg);
    ran = started;
    for (unsigned i = 1; i < started; i++) {
        while (__atomic_load_n(&cpus[i].state, __ATOMIC_ACQUIRE) == CPU_JOB)
            __asm__ __volatile__("pause");
        if (faulted(i))
            ran--;
    }
    return (int)ran;
}

/* The engine's CPUs (platform.h). BM_EIO: the CPU stopped on an exception. */
int plat_cpu_start(unsigned cpu, plat_cpu_fn fn, void *arg)
{
    say_start_report();
    if (cpu == 0 || cpu >= ncpus)
        return BM_EINVAL;
    if (faulted(cpu))
        return BM_EIO;
    if (__atomic_load_n(&cpus[cpu].state, __ATOMIC_ACQUIRE) != CPU_IDLE)
        return BM_EBUSY;
    cpus[cpu].taken = true;
    give(cpu, fn, arg);
    return BM_OK;
}

int plat_cpu_wait(unsigned cpu, uint64_t timeout_ns)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;

    if (cpu == 0 || cpu >= ncpus || !cpus[cpu].taken)
        return BM_EINVAL;
    for (;;) {
        if (faulted(cpu)) {
            cpus[cpu].taken = false;
            return BM_EIO;
        }
        if (__atomic_load_n(&cpus[cpu].state, __ATOMIC_ACQUIRE) == CPU_IDLE) {
            cpus[cpu].taken = false;
            return BM_OK;
        }
        if (plat_now_ns() >= deadline)
            return BM_ETIMEDOUT;
        __asm__ __volatile__("pause");
    }
}

/* No timer interrupt is set up on the boot processor, so HLT could sleep
 * for ever: wait on the calibrated clock instead. */
void plat_idle_ns(uint64_t ns) { plat_delay_ns(ns); }
