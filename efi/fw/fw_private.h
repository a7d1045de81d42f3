/* What the two firmware platforms share (the *_fw.c files go into the UEFI
 * and the BIOS build, not the host one): code that reaches the machine
 * directly and asks no firmware, so it is the same on both. */
#ifndef BAREMARK_FW_PRIVATE_H
#define BAREMARK_FW_PRIVATE_H

#include "../platform.h"

/* Find the ECAM windows in the ACPI MCFG table (pci_config_fw.c); call once
 * plat_acpi_table() works. Without MCFG, configuration goes through CF8h/CFCh. */
void fw_pci_config_init(void);

#endif
