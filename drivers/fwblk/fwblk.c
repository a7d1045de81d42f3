/* Portable part of the firmware path: naming census disks. */
#include "fwblk.h"

/* Where a census disk sits, in the words its device path uses. */
void fwblk_census_place(const struct fwblk_census_disk *e, char *buf, size_t len)
{
    switch (e->at) {
    case FWBLK_AT_SATA: snprintf(buf, len, "port %u", (unsigned)e->port); break;
    case FWBLK_AT_NVME: snprintf(buf, len, "namespace %u", (unsigned)e->port); break;
    case FWBLK_AT_SCSI: snprintf(buf, len, "target %u lun %u", (unsigned)e->port, (unsigned)e->lun); break;
    default: snprintf(buf, len, "%s", ""); break;
    }
}
