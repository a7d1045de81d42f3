/* Start and end of the legacy BIOS platform: the C entry from head_bios.S,
 * plat_init(), plat_exit() (ACPI S5 or a CF9h reset). */
#include "bios_private.h"
#include "../app.h"
#include "../config.h"
#include "../fw/fw_private.h"
#include "../mem/e820.h"

void bios_main(uint32_t zero_page);

/* From head_bios.S, in 64-bit mode with a stack; never returns. */
void bios_main(uint32_t zero_page)
{
    int exit_mode = EXIT_RETURN;
    const uint8_t *zp = (const uint8_t *)(uintptr_t)zero_page;
    unsigned n = zp[ZP_E820_ENTRIES];

    bios_idt_init();
    if (n > ZP_E820_MAX)
        n = ZP_E820_MAX;
    memcpy(bios_e820_map, zp + ZP_E820_TABLE, n * sizeof(struct bios_e820));
    bios_e820_count = n;
    if (!n) {
        /* No E820 map: E801h / 88h as setup.S found them (Linux
         * e820__memory_setup_default()). */
        uint32_t alt_mem_k;
        uint16_t ext_mem_k;
        struct e820_entry legacy[2];
        memcpy(&alt_mem_k, zp + ZP_ALT_MEM_K, 4);
        memcpy(&ext_mem_k, zp + ZP_EXT_MEM_K, 2);
        bios_e820_count = e820_from_legacy(alt_mem_k, ext_mem_k, legacy);
        memcpy(bios_e820_map, legacy, bios_e820_count * sizeof(struct bios_e820));
        plat_diag_later("memory", "legacy BIOS: no E820 memory map; %s (INT 15h E801h: %u KiB, AH=88h: %u KiB above 1 MiB)",
                        bios_e820_count ? "the memory is taken from the older calls" : "nor any other: no memory",
                        alt_mem_k, ext_mem_k);
    }
    bios_initrd_init(zp);
    bios_load_options_init(zp);
    bios_console_init();
    baremark_main(&exit_mode);
    /* No firmware to return to: plat_exit(RETURN) stops the CPU, WAIT
     * keeps the results screen until a key and then resets. */
    plat_exit(exit_mode == EXIT_REBOOT     ? PLAT_EXIT_REBOOT
              : exit_mode == EXIT_SHUTDOWN ? PLAT_EXIT_SHUTDOWN
              : exit_mode == EXIT_WAIT     ? PLAT_EXIT_WAIT
                                           : PLAT_EXIT_RETURN);
}

int plat_init(void)
{
    bios_memory_init();
    /* The firmware tables first: the clock looks for the PM timer in the FADT. */
    bios_firmware_init();
    bios_clock_init();
    fw_pci_config_init();
    bios_cpus_init();
    return BM_OK;
}
