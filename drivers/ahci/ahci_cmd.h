/* Pure builders for AHCI command slots: the command header and the PRD
 * table (AHCI 1.3.1 section 4.2). They only fill memory, so unit tests can
 * check every field offset and every split. */
#ifndef BAREMARK_AHCI_CMD_H
#define BAREMARK_AHCI_CMD_H

#include "../../efi/platform.h"
#include "ahci_regs.h"

/* Fill a PRD table for one physically contiguous buffer. Each entry holds
 * at most AHCI_PRD_MAX_BYTES (4 MiB) and never crosses a 4 GiB boundary
 * (as Linux libahci also keeps them). The byte count must be even and the
 * address word-aligned (DBC bit 0 is always 1, DBA bit 0 reserved).
 * Returns the number of entries, BM_EINVAL for a bad buffer, BM_ENOSPC if
 * max_entries are not enough. */
int ahci_prd_fill(struct ahci_prd *prdt, unsigned max_entries, uint64_t phys, uint64_t bytes);

/* Fill a command header for a command table at table_phys. cfl_dwords is
 * the command FIS length; write sets W (host to device data). */
void ahci_cmd_header_fill(struct ahci_cmd_header *h, uint64_t table_phys, unsigned cfl_dwords, bool write,
                          unsigned prdt_entries);

#endif
