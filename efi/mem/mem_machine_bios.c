/* Memory-benchmark machine services on a BIOS PC: the usable RAM ranges from
 * the E820 map the loader handed over (CPU state: mem_machine_fw.c, the same
 * code as under UEFI: it touches only CPU registers, never firmware). */
#include "mem_machine.h"
#include "../bios/bios_private.h"

unsigned mem_ram_ranges(struct mem_ram_range *out, unsigned max)
{
    unsigned n = 0;

    /* ACPI 6.5, 15.1 "INT 15H, E820H": type 1 is memory the OS may use. */
    for (unsigned i = 0; i < bios_e820_count; i++)
        if (bios_e820_map[i].type == E820_RAM && bios_e820_map[i].size >= 4096)
            n = mem_ram_range_add(out, n, max, bios_e820_map[i].addr, bios_e820_map[i].size);
    return n;
}
