/* The ACPI table walk on the firmware platforms (UEFI, BIOS): the RSDP the
 * platform found, the tables at their physical addresses (both builds run
 * identity-mapped over the memory the firmware's tables are in), and the
 * parsers of efi/acpi.c doing every bounded read. */
#include "fw_private.h"
#include "../acpi.h"

static const void *identity(uint64_t phys, size_t len, void *ctx)
{
    (void)len;
    (void)ctx;
    return (const void *)(uintptr_t)phys;
}

const void *fw_acpi_table(const void *rsdp, const char sig[4], unsigned instance)
{
    struct acpi_rsdp r;
    char why[64];
    uint32_t len;

    /* The RSDP of the UEFI configuration table or of the BIOS scan; 36
     * bytes are readable at either (the BIOS scan checked 20, and the
     * extended part lies in the same ROM or EBDA window). */
    if (!rsdp || acpi_rsdp_parse(rsdp, 36, &r, why, sizeof(why)) != BM_OK)
        return NULL;
    return acpi_find_table(&r, sig, instance, identity, NULL, &len);
}
