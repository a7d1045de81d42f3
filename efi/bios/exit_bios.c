/* The end of a run on a BIOS PC: power off by ACPI S5 (the FADT's PM1
 * control blocks and the DSDT's \_S5 package, read by efi/acpi.c), reset through the PCI reset
 * control register CF9h or the i8042, or stop (nothing to return to). */
#include "bios_private.h"
#include "../acpi.h"

#define PM1_SCI_EN 0x0001
#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_EN 0x2000
#define RESET_CF9 0xcf9
#define CF9_SYS_RST 0x02               /* hard reset when RST_CPU goes 0 -> 1 */
#define CF9_RST_CPU 0x04
#define CF9_FULL_RST 0x08
#define I8042_STATUS 0x64
#define I8042_CMD_PULSE_RESET 0xfe

static void outw(uint16_t port, uint16_t v) { __asm__ __volatile__("outw %0, %1" ::"a"(v), "Nd"(port)); }
static uint16_t inw(uint16_t port)
{
    uint16_t v;
    __asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

/* ACPI S5 through the FADT: enable ACPI mode if the firmware left it off
 * (SMI_CMD <- ACPI_ENABLE, then wait for SCI_EN, bounded), then SLP_TYP |
 * SLP_EN into PM1a (and PM1b) control (ACPI 6.5 section 16.1.7). */
static void acpi_s5(void)
{
    const uint8_t *fadt = plat_acpi_table("FACP", 0), *dsdt = plat_acpi_table("DSDT", 0);
    struct acpi_fadt f;
    uint32_t smi_cmd, pm1a, pm1b;
    unsigned a, b;

    if (!fadt || !dsdt || acpi_fadt_parse(fadt, acpi_table_len(fadt, ACPI_HEADER_LEN), &f) != BM_OK ||
        !acpi_dsdt_s5(dsdt, acpi_table_len(dsdt, ACPI_HEADER_LEN), &a, &b))
        return;
    smi_cmd = f.smi_cmd;
    pm1a = f.pm1a_cnt;
    pm1b = f.pm1b_cnt;
    if (!pm1a || pm1a > 0xffff)
        return;
    if (!(inw((uint16_t)pm1a) & PM1_SCI_EN) && smi_cmd && f.acpi_enable) {
        plat_outb((uint16_t)smi_cmd, f.acpi_enable);
        for (uint64_t end = plat_now_ns() + 1000000000ull; plat_now_ns() < end;)
            if (inw((uint16_t)pm1a) & PM1_SCI_EN)
                break;
    }
    outw((uint16_t)pm1a, (uint16_t)((a & 7) << PM1_SLP_TYP_SHIFT | PM1_SLP_EN));
    if (pm1b && pm1b <= 0xffff)
        outw((uint16_t)pm1b, (uint16_t)((b & 7) << PM1_SLP_TYP_SHIFT | PM1_SLP_EN));
    plat_delay_ns(100000000ull);
}

/* Reset as Linux native_machine_emergency_restart() tries it: CF9h (hard
 * reset, SYS_RST then RST_CPU), then the i8042 reset pulse. */
static void reset(void)
{
    uint8_t cf9 = plat_inb(RESET_CF9) & ~(CF9_SYS_RST | CF9_RST_CPU | CF9_FULL_RST);

    plat_outb(RESET_CF9, cf9 | CF9_SYS_RST);
    plat_delay_ns(50000);
    plat_outb(RESET_CF9, cf9 | CF9_SYS_RST | CF9_RST_CPU);
    plat_delay_ns(100000000ull);
    for (unsigned spin = 0; spin < 100000 && (plat_inb(I8042_STATUS) & 0x02); spin++)
        ;
    plat_outb(I8042_STATUS, I8042_CMD_PULSE_RESET);
    plat_delay_ns(100000000ull);
}

static __attribute__((noreturn)) void halt_forever(void)
{
    for (;;)
        __asm__ __volatile__("cli; hlt");
}

/* WAIT's key resets (plat_exit); RETURN halts. */
bool plat_exit_returns(void) { return false; }

void plat_exit(enum plat_exit_mode mode)
{
    if (mode == PLAT_EXIT_SHUTDOWN) {
        acpi_s5();
        plat_console_write("baremark: ACPI power-off did not work; switch the machine off.\n");
    } else if (mode == PLAT_EXIT_REBOOT || mode == PLAT_EXIT_WAIT) {
        /* exit=wait: the results stayed until a key; nothing to return to
         * but the BIOS itself, so a reset. */
        if (mode == PLAT_EXIT_WAIT) {
            plat_serial_write(PLAT_WAIT_KEY_LINE, sizeof(PLAT_WAIT_KEY_LINE) - 1);
            plat_wait_key();
        }
        reset();
        plat_console_write("baremark: reset did not work; switch the machine off.\n");
    } else {
        plat_console_write("baremark: finished; switch the machine off or reset it.\n");
    }
    halt_forever();
}
