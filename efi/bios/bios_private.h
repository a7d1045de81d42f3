/* What the BIOS platform files share (efi/bios/, the *_bios.c files).
 * Each file implements one job of efi/platform.h on a legacy BIOS PC, after
 * boot/bios/setup.S and head_bios.S brought us to 64-bit mode with the first
 * 4 GiB identity mapped. */
#ifndef BAREMARK_BIOS_PRIVATE_H
#define BAREMARK_BIOS_PRIVATE_H

#include "../platform.h"

/* The boot_params "zero page" (Documentation/arch/x86/zero-page.rst). */
#define ZP_E820_ENTRIES 0x1e8   /* u8 */
#define ZP_SETUP_HEADER 0x1f1
#define ZP_CMD_LINE_PTR 0x228   /* u32, in the setup header */
#define ZP_E820_TABLE 0x2d0     /* struct bios_e820[128] */
#define ZP_E820_MAX 128

#define E820_RAM 1
#define E820_ACPI 3

struct bios_e820 {
    uint64_t addr, size;
    uint32_t type;
} __attribute__((packed));

/* Copied out of the zero page first thing (it lies in memory we give away). */
extern struct bios_e820 bios_e820_map[ZP_E820_MAX];
extern unsigned bios_e820_count;

/* The image's end (linker script): memory above it is ours to allocate. */
extern char _end[];

void bios_memory_init(void);
void bios_clock_init(void);
void bios_console_init(void);
void bios_load_options_init(const uint8_t *zero_page);
void bios_firmware_init(void);
/* The baremark_stick=GUID word of the loader's command line ("" if none). */
const char *bios_stick_guid(void);
void bios_idt_init(void);
/* Write straight to the screen and the first COM port, for a message when
 * nothing else may work (exception, no memory). */
void bios_console_emergency(const char *s);

#endif
