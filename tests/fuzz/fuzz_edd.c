/* The INT 13h AH=48h drive parameter block (efi/disk/edd.c) the BIOS
 * fills in. Aborts if a usable drive has a size or sector size the parser
 * promises to refuse, or its host bus / interface text is not terminated. */
#include "fuzz.h"
#include "disk/edd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    uint8_t *p = fuzz_page(data, n, EDD_PARAMS_BYTES);
    struct edd_params e;

    if (edd_params_parse(p, &e)) {
        if (!e.sectors || e.bytes_per_sector < 512 || e.bytes_per_sector > 4096 ||
            (e.bytes_per_sector & (e.bytes_per_sector - 1)))
            abort();
        if (!memchr(e.host_bus, 0, sizeof(e.host_bus)) || !memchr(e.interface, 0, sizeof(e.interface)))
            abort();
        if (e.has_pci && !e.edd30)
            abort();
    }
    free(p);
    return 0;
}
