/* Disk discovery: native drivers for the controllers we have one for, the
 * firmware's Block I/O for the rest (as driver= says), never a native
 * driver on the controller that holds the boot or results volume. */
#ifndef BAREMARK_DISK_DISCOVER_H
#define BAREMARK_DISK_DISCOVER_H

#include "../config.h"
#include "../../drivers/blkdev.h"

#define DISK_MAX_CTRLS 32

/* A controller a native driver took. */
struct disk_ctrl {
    const struct bm_driver *drv;
    void *ctrl;
    struct pci_addr addr;
};

struct disk_set {
    struct bm_disk_list list;
    struct disk_ctrl ctrls[DISK_MAX_CTRLS];
    unsigned nctrls;
    /* Controllers we have a driver for but left to the firmware on
     * purpose (they hold the boot volume). */
    struct pci_addr kept_for_firmware[DISK_MAX_CTRLS];
    unsigned nkept;
    bool firmware_used;
};

/* Find every disk. Notes and errors about controllers are records. The
 * controllers holding the boot volume and the results volume are left to
 * the firmware. */
int disk_discover(const struct config *c, const struct plat_boot_location *boot,
                  const struct plat_boot_location *results, struct disk_set *s);
/* Hand every controller back (driver->release) and forget firmware disks.
 * Safe to call after errors and after Esc. */
void disk_release(struct disk_set *s);

#endif
