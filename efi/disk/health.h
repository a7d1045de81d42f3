/* Drive health records, before and after the workloads. */
#ifndef BAREMARK_DISK_HEALTH_H
#define BAREMARK_DISK_HEALTH_H

#include "../../drivers/blkdev.h"

/* Read the disk's health log (if its driver has one) and emit a `health`
 * record; when is "before" or "after". Quiet when the driver has none.
 * After the run, the record carries the disk's count of commands the drive
 * completed after correcting an error (bm_disk.recovered, when not 0); a
 * disk with no health record gets a note with that count instead. */
void disk_emit_health(struct bm_disk *d, const char *when);

#endif
