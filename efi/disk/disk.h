/* Disk benchmark: discovery through the drivers, then the workloads. */
#ifndef BAREMARK_DISK_H
#define BAREMARK_DISK_H

#include "../config.h"
#include "../platform.h"

/* Find disks (native drivers or the firmware path as c->driver says),
 * emit disk records, run the workloads at c->disk, hand controllers back.
 * Returns BM_OK, or BM_EABORT on Esc. */
int disk_run(const struct config *c, const struct plat_boot_location *boot);

#endif
