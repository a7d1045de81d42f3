/* Disk benchmark: discovery through the drivers, then the workloads. */
#ifndef BAREMARK_DISK_H
#define BAREMARK_DISK_H

#include "../config.h"
#include "../platform.h"
#include "engine.h"

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

/* The read tests of a level in run order (writes, where allowed, repeat
 * them except the queue-depth sweep). Returns how many were written. */
unsigned disk_build_tests(enum bm_level level, struct disk_test *out, unsigned max);

/* Host tests only: measure for measure_ns after warmup_ns instead of
 * time= seconds (0, 0 restores time=). */
void disk_set_test_timing(uint64_t warmup_ns, uint64_t measure_ns);

#endif
