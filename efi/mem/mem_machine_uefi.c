/* Memory-benchmark machine services that ask UEFI: the usable RAM ranges
 * from the firmware memory map (CPU state: mem_machine_fw.c). */
#include "mem_machine.h"
#include "../platform_uefi.h"

/* Memory types an OS owns once boot services are gone (UEFI 2.10, 7.2.3
 * EFI_BOOT_SERVICES.GetMemoryMap(), table "Memory Type Usage after
 * ExitBootServices()"): what the memory map measures. */
static bool usable_ram(UINT32 type)
{
    return type == EfiConventionalMemory || type == EfiLoaderCode || type == EfiLoaderData ||
           type == EfiBootServicesCode || type == EfiBootServicesData;
}

unsigned mem_ram_ranges(struct mem_ram_range *out, unsigned max)
{
    UINTN size = 0, key, desc_size;
    UINT32 desc_version;
    EFI_MEMORY_DESCRIPTOR *map = NULL;
    EFI_STATUS st;
    unsigned n = 0;

    st = uefi_call_wrapper(bm_st->BootServices->GetMemoryMap, 5, &size, map, &key, &desc_size, &desc_version);
    if (st != EFI_BUFFER_TOO_SMALL)
        return 0;
    size += 8 * desc_size; /* the allocation below may add entries */
    map = plat_alloc(size);
    if (!map)
        return 0;
    st = uefi_call_wrapper(bm_st->BootServices->GetMemoryMap, 5, &size, map, &key, &desc_size, &desc_version);
    for (UINTN off = 0; st == EFI_SUCCESS && off + desc_size <= size; off += desc_size) {
        EFI_MEMORY_DESCRIPTOR *d = (void *)((uint8_t *)map + off);
        if (usable_ram(d->Type) && d->NumberOfPages)
            n = mem_ram_range_add(out, n, max, d->PhysicalStart, d->NumberOfPages * 4096ull);
    }
    plat_free(map);
    return n;
}
