/* CPU exceptions on a BIOS PC: an IDT whose 32 exception gates lead to
 * head_bios.S stubs and then here, so a fault becomes an error record and a
 * clean stop, not a triple fault and a reboot loop. */
#include "bios_private.h"
#include "../record.h"

#define IDT_VECTORS 32
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

/* Load the boot CPU's IDT: every exception vector to its head_bios.S stub. */
void bios_idt_init(void)
{
    struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) idtr = { sizeof(idt) - 1, (uint64_t)(uintptr_t)idt };

    for (unsigned v = 0; v < IDT_VECTORS; v++)
        bios_idt_set(idt, v, bios_exception_stubs[v]);
    __asm__ __volatile__("lidt %0" ::"m"(idtr));
}

/* Let claim see each fault's message first: it returns true when the fault
 * is one it reports itself (cpus_bios.c: an application processor's, left
 * to the boot processor), and the faulting CPU then only halts. */
void bios_idt_on_fault(bool (*claim)(const char *msg))
{
    fault_claim = claim;
}

/* From the stubs, on the faulting stack. A fault while reporting one
 * stops at once; so does a fault the claim registered with
 * bios_idt_on_fault() takes (an application processor's). */
void bios_exception(uint64_t vector, uint64_t error, uint64_t rip)
{
    static bool reporting;
    char msg[200];
    uint64_t cr2;

    __asm__ __volatile__("mov %%cr2, %0" : "=r"(cr2));
    snprintf(msg, sizeof(msg), "CPU exception %lu (%s), error code 0x%lx, at rip 0x%lx, cr2 0x%lx: stopped",
             (unsigned long)vector, vector < IDT_VECTORS && names[vector] ? names[vector] : "reserved",
             (unsigned long)error, (unsigned long)rip, (unsigned long)cr2);
    if (!(fault_claim && fault_claim(msg)) && !reporting) {
        reporting = true;
        record_error("cpu", "%s", msg);
        bios_console_emergency(msg);
        bios_console_emergency("\n");
    }
    for (;;)
        __asm__ __volatile__("cli; hlt");
}
