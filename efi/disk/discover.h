/* Disk discovery: native drivers for the controllers we have one for, the
 * firmware's Block I/O for the rest (as driver= says), never a native
 * driver on the controller that holds the boot or results volume. */
#ifndef BAREMARK_DISK_DISCOVER_H
#define BAREMARK_DISK_DISCOVER_H

#include "../config.h"
#include "../../drivers/blkdev.h"
#include "../../drivers/fwblk/fwblk.h"

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
    /* The firmware's whole disks before any native driver ran, and which
     * of them a note or error has already named. */
    struct fwblk_census census;
    bool census_named[FWBLK_CENSUS_MAX];
    /* Controllers a native driver took and handed back because it found
     * fewer disks than the firmware had shown there. */
    struct pci_addr handed_back[DISK_MAX_CTRLS];
    unsigned nhanded_back;
};

/* Find every disk. Notes and errors about controllers are records. The
 * controllers holding the boot volume and the results volume are left to
 * the firmware.
 *
 * Nothing goes missing: every whole disk the firmware shows at start (its
 * census, fwblk.h) ends up as a disk or is named in a note (an error with
 * driver=native). A controller whose native driver finds fewer disks than
 * the firmware showed on it is handed back to the firmware (driver->release)
 * and its disks run on the firmware path, with a note saying which disk
 * the driver did not find; with driver=native the driver keeps the
 * controller and each disk it did not find is an error. */
int disk_discover(const struct config *c, const struct plat_boot_location *boot,
                  const struct plat_boot_location *results, struct disk_set *s);
/* Hand every controller back (driver->release) and forget firmware disks.
 * Safe to call after errors and after Esc. */
void disk_release(struct disk_set *s);

#endif
