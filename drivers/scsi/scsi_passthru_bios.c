/* A BIOS has no Extended SCSI Pass Thru: no pass-thru disks. SCSI disks
 * behind an HBA are reached by the native MegaRAID/MPT drivers, or (later)
 * as INT 13h drives through fwblk_bios.c. */
#include "scsi_passthru.h"

int scsi_passthru_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken,
                           scsi_passthru_keep_fn keep, void *ctx)
{
    return 0;
}

void scsi_passthru_release_all(void) {}
