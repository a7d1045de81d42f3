/* Drive health records, before and after the workloads. */
#ifndef BAREMARK_DISK_HEALTH_H
#define BAREMARK_DISK_HEALTH_H

#include "../../drivers/blkdev.h"

/* Read the disk's health log (if its driver has one) and emit a `health`
 * record; when is "before" or "after". Quiet when the driver has none. */
void disk_emit_health(struct bm_disk *d, const char *when);

#endif
