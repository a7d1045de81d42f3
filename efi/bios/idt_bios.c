/* CPU exceptions on a BIOS PC: an IDT whose 32 exception gates lead to
 * head_bios.S stubs and then here, so a fault becomes an error record and a
 * clean stop, not a triple fault and a reboot loop. */
#include "bios_private.h"
#include "../record.h"

#define IDT_VECTORS 32
#define VECTOR_MC 18
#define CR4_MCE (1ull << 6)
#define CPUID1_EDX_MCE (1u << 7)
#define CPUID1_EDX_MCA (1u << 14)
#define MSR_MCG_CAP 0x179
#define MSR_MCG_STATUS 0x17a
#define MCG_STATUS_MCIP (1ull << 2)   /* machine check in progress */
#define MSR_MC0_STATUS 0x401            /* MCi_STATUS = 401h + 4i, MCi_ADDR = 402h + 4i */
#define MCI_STATUS_VAL (1ull << 63)
#define MCI_STATUS_ADDRV (1ull << 58)
#define MC_BANKS_SAID 4
#define SEL_CODE64 0x18
#define GATE_INTERRUPT64 0x8e           /* present, DPL 0, 64-bit interrupt gate */

struct idt_gate {
    uint16_t offset_lo, selector;
    uint8_t ist, type;
    uint16_t offset_mid;
    uint32_t offset_hi, reserved;
} __attribute__((packed));

extern const uint64_t bios_exception_stubs[IDT_VECTORS];
void bios_exception(uint64_t vector, uint64_t error, uint64_t rip);

static struct idt_gate idt[IDT_VECTORS] __attribute__((aligned(16)));

/* Who else wants a fault first (bios_idt_on_fault); NULL: every fault is the boot CPU's. */
static bool (*fault_claim)(const char *msg);

static const char *const names[IDT_VECTORS] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow", "#BR bound range",
    "#UD invalid opcode", "#NM device not available", "#DF double fault", "coprocessor segment overrun",
    "#TS invalid TSS", "#NP segment not present", "#SS stack fault", "#GP general protection",
    "#PF page fault", "reserved", "#MF x87 error", "#AC alignment check", "#MC machine check",
    "#XM SIMD exception", "#VE virtualization", "#CP control protection",
};

/* Gate vector of the IDT at table: a 64-bit interrupt gate (interrupts
 * off on entry) to handler. */
void bios_idt_set(void *table, unsigned vector, uint64_t handler)
{
    ((struct idt_gate *)table)[vector] = (struct idt_gate){ (uint16_t)handler, SEL_CODE64, 0, GATE_INTERRUPT64,
                                                            (uint16_t)(handler >> 16), (uint32_t)(handler >> 32), 0 };
}

static void cpuid1(uint32_t *ecx, uint32_t *edx)
{
    uint32_t a = 1, b;
    __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "=c"(*ecx), "=d"(*edx));
}

static uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t)hi << 32 | lo;
}

/* CR4.MCE on this CPU, once its IDT is loaded: a machine check then
 * reaches the #MC gate and becomes an error record; with CR4.MCE clear the
 * CPU shuts down (a triple fault: the machine resets and nothing says
 * why). SDM vol. 3B, 16.2 and 2.5 (CR4.MCE). */
void bios_mce_enable(void)
{
    uint32_t c, d;
    uint64_t cr4;

    cpuid1(&c, &d);
    if (!(d & CPUID1_EDX_MCE))
        return;
    __asm__ __volatile__("mov %%cr4, %0" : "=r"(cr4));
    __asm__ __volatile__("mov %0, %%cr4" ::"r"(cr4 | CR4_MCE));
}

/* The banks that hold an error (MCi_STATUS.VAL), for a #MC's message:
 * " (MCG_STATUS 0x5; bank 1 status 0x... addr 0x...)" (SDM vol. 3B, 16.3). */
static void mc_banks(char *buf, size_t len)
{
    uint32_t c, d;
    unsigned banks, said = 0;
    size_t n = 0;

    buf[0] = '\0';
    cpuid1(&c, &d);
    if (!(d & CPUID1_EDX_MCA) || !len)
        return;
    banks = (unsigned)(rdmsr(MSR_MCG_CAP) & 0xff);
    n += (size_t)snprintf(buf, len, " (MCG_STATUS 0x%lx", (unsigned long)rdmsr(MSR_MCG_STATUS));
    for (unsigned i = 0; i < banks && said < MC_BANKS_SAID && n < len; i++) {
        uint64_t st = rdmsr(MSR_MC0_STATUS + 4 * i);
        if (!(st & MCI_STATUS_VAL))
            continue;
        said++;
        n += (size_t)snprintf(buf + n, len - n, "; bank %u status 0x%lx", i, (unsigned long)st);
        if ((st & MCI_STATUS_ADDRV) && n < len)
            n += (size_t)snprintf(buf + n, len - n, " addr 0x%lx", (unsigned long)rdmsr(MSR_MC0_STATUS + 4 * i + 1));
    }
    if (n < len)
        snprintf(buf + n, len - n, "%s)", said ? "" : "; no bank holds an error");
}

static void mc_check_after_call(uint8_t vector, uint32_t eax);

/* Load the boot CPU's IDT: every exception vector to its head_bios.S stub;
 * a machine check the BIOS takes during one of its calls is looked for
 * after each (mc_check_after_call). */
void bios_idt_init(void)
{
    struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) idtr = { sizeof(idt) - 1, (uint64_t)(uintptr_t)idt };

    for (unsigned v = 0; v < IDT_VECTORS; v++)
        bios_idt_set(idt, v, bios_exception_stubs[v]);
    __asm__ __volatile__("lidt %0" ::"m"(idtr));
    bios_mce_enable();
    bios_rm_after_call(mc_check_after_call);
}

/* Let claim see each fault's message first: it returns true when the fault
 * is one it reports itself (cpus_bios.c: an application processor's, left
 * to the boot processor), and the faulting CPU then only halts. */
void bios_idt_on_fault(bool (*claim)(const char *msg))
{
    fault_claim = claim;
}

/* Report msg once as the CPU's error record and on the emergency console,
 * then halt for good. A fault while reporting one stops at once; so does a
 * fault the claim registered with bios_idt_on_fault() takes (an
 * application processor's). */
static void __attribute__((noreturn)) report_and_halt(const char *msg)
{
    static bool reporting;

    if (!(fault_claim && fault_claim(msg)) && !reporting) {
        reporting = true;
        record_error_halting("cpu", "%s", msg);
        bios_console_emergency(msg);
        bios_console_emergency("\n");
    }
    for (;;)
        __asm__ __volatile__("cli; hlt");
}

/* From the stubs, on the faulting stack. */
void bios_exception(uint64_t vector, uint64_t error, uint64_t rip)
{
    char msg[480], mc[240] = "";
    uint64_t cr2;

    __asm__ __volatile__("mov %%cr2, %0" : "=r"(cr2));
    if (vector == VECTOR_MC)
        mc_banks(mc, sizeof(mc));
    snprintf(msg, sizeof(msg), "CPU exception %lu (%s%s), error code 0x%lx, at rip 0x%lx, cr2 0x%lx: stopped",
             (unsigned long)vector, vector < IDT_VECTORS && names[vector] ? names[vector] : "reserved", mc,
             (unsigned long)error, (unsigned long)rip, (unsigned long)cr2);
    report_and_halt(msg);
}

/* After a BIOS call (realmode_bios.c). In real mode a machine check goes
 * through the BIOS's interrupt vector table, not our IDT: CR4.MCE stays
 * set across the thunk, so the CPU takes vector 18 of the IVT, where
 * SeaBIOS (and most BIOSes) keep a bare IRET. The error would be lost and
 * the run would go on as if nothing happened, until a second machine check
 * finds MCG_STATUS.MCIP still set and shuts the CPU down. MCIP is set by
 * the CPU when it signals #MC and cleared only by the handler (SDM vol. 3B,
 * 16.3.1.2), and the IRET handler never clears it: so MCIP set after the
 * call means a machine check arrived during it, and it is reported as the
 * #MC gate would have, naming the call. */
static void mc_check_after_call(uint8_t vector, uint32_t eax)
{
    uint32_t c, d;
    char msg[480], mc[240];

    cpuid1(&c, &d);
    if (!(d & CPUID1_EDX_MCA) || !(d & CPUID1_EDX_MCE) || !(rdmsr(MSR_MCG_STATUS) & MCG_STATUS_MCIP))
        return;
    mc_banks(mc, sizeof(mc));
    snprintf(msg, sizeof(msg),
             "CPU exception 18 (%s%s) during BIOS INT %02xh AX=%04x, which the BIOS's own handler took "
             "(MCG_STATUS.MCIP still set after the call): stopped",
             names[VECTOR_MC], mc, (unsigned)vector, (unsigned)(eax & 0xffff));
    report_and_halt(msg);
}
