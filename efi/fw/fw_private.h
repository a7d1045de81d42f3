/* What the two firmware platforms share (the *_fw.c files go into the UEFI
 * and the BIOS build, not the host one): code that reaches the machine
 * directly and asks no firmware, so it is the same on both. */
#ifndef BAREMARK_FW_PRIVATE_H
#define BAREMARK_FW_PRIVATE_H

#include "../platform.h"

/* Find the ECAM windows in the ACPI MCFG table (pci_config_fw.c); call once
 * plat_acpi_table() works. Without MCFG, configuration goes through CF8h/CFCh. */
void fw_pci_config_init(void);

/* Make [addr, addr + bytes) of device memory reachable, uncached, at its
 * own address (plat_pci_map_bar). UEFI firmware has identity-mapped it
 * already; the BIOS build maps what lies beyond its own tables
 * (mmio_bios.c). BM_OK, BM_ENOMEM (no page for a table), BM_EINVAL (past
 * what 4-level paging reaches). */
int fw_map_mmio(uint64_t addr, uint64_t bytes);

/* The instance-th ACPI table with this signature (the DSDT through the
 * FADT) under the RSDP at rsdp, every table's length and checksum checked
 * (acpi_fw.c, the parsers of efi/acpi.c); NULL when absent. What
 * plat_acpi_table() is on both firmware platforms. */
const void *fw_acpi_table(const void *rsdp, const char sig[4], unsigned instance);

#endif
