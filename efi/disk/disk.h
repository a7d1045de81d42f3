/* Disk benchmark: discovery through the drivers, then the workloads. */
#ifndef BAREMARK_DISK_H
#define BAREMARK_DISK_H

#include "../config.h"
#include "../platform.h"
#include "engine.h"
#include "plan.h"

/* Find disks (native drivers or the firmware path as c->driver says),
 * emit disk records, run the workloads at c->disk, hand controllers back.
 * Returns BM_OK, or BM_EABORT on Esc. */
int disk_run(const struct config *c, const struct plat_boot_location *boot);

/* The same in three steps, for burn-in: disk_open() once (discovery, disk
 * and health records), disk_pass() per pass (workloads, all-disks tests,
 * verify=), disk_close() once (health after, controllers handed back).
 * disk_pass returns BM_OK or BM_EABORT. */
int disk_open(const struct config *c, const struct plat_boot_location *boot);
int disk_pass(const struct config *c);
void disk_close(void);

/* The same with the given warm-up, window and stall limit instead of
 * time= (host tests run in milliseconds). */
int disk_run_timed(const struct config *c, const struct plat_boot_location *boot, const struct engine_timing *t);
int disk_pass_timed(const struct config *c, const struct engine_timing *t);

#endif
