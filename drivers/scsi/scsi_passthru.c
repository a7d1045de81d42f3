/* Portable part of the firmware SCSI pass-thru path. */
#include "scsi_passthru.h"

/* Match a disk against the pass-thru disks by controller, port and LUN. */
bool scsi_passthru_covers(const struct bm_disk_list *l, const struct bm_disk *d)
{
    if (!d->has_pci)
        return false;
    for (unsigned i = 0; i < l->count; i++) {
        const struct bm_disk *p = l->disks[i];
        if (p == d || strcmp(p->driver, "scsi_passthru") || !p->has_pci)
            continue;
        if (p->pci_addr.seg == d->pci_addr.seg && p->pci_addr.bus == d->pci_addr.bus &&
            p->pci_addr.dev == d->pci_addr.dev && p->pci_addr.fn == d->pci_addr.fn && p->port == d->port &&
            p->lun == d->lun)
            return true;
    }
    return false;
}
