/* The firmware path on a BIOS PC: the firmware's disks would be INT 13h
 * drives, reached through a real-mode call thunk that is not written yet.
 * Until then there are none: the census is empty and discovery says once,
 * as a diagnostic on every sink, that firmware-only disks (the USB stick, a
 * RAID card with only an option ROM) are not measured on this platform. */
#include "fwblk.h"

int fwblk_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken, fwblk_keep_fn keep,
                   void *ctx)
{
    plat_diag("fwblk", "legacy BIOS: firmware disks (INT 13h) are not supported yet; "
                       "only disks on native drivers are measured");
    return 0;
}

int fwblk_census(struct fwblk_census *c)
{
    memset(c, 0, sizeof(*c));
    return 0;
}

/* No firmware disk is ever listed, so none is the boot disk. */
int fwblk_boot_disk(const struct bm_disk *d) { return -1; }

bool fwblk_read_only(const struct bm_disk *d) { return true; }

const char *fwblk_device_path(const struct bm_disk *d) { return ""; }

void fwblk_release_all(void) {}
