/* The test plan: which workloads a level runs, in what order, for how long.
 * Pure: names and shapes only, nothing runs here. */
#ifndef BAREMARK_DISK_PLAN_H
#define BAREMARK_DISK_PLAN_H

#include "../config.h"
#include "engine.h"

#define DISK_MAX_TESTS 48

/* The read tests of a level in run order (writes, where allowed, repeat
 * them except the queue-depth sweep). Returns how many were written. */
unsigned disk_build_tests(enum bm_level level, struct disk_test *out, unsigned max);

/* Is this read test also run as a write? All but the queue-depth sweep. */
bool disk_has_write_twin(const struct disk_test *t);

/* The two all-disks workloads: SEQ1M-Q8T1 and RND4K-Q32T1. */
void disk_all_disks_tests(struct disk_test out[2]);

/* "ALL3-SEQ1M-Q8T1": the all-disks version of t run on k disks at once. */
void disk_all_disks_name(struct disk_test *named, const struct disk_test *t, unsigned k);

/* The timed tests one pass runs on disks disks (writable of them take
 * writes) plus the all-disks tests over all_disks of them, and the
 * seconds each takes: what the screen's time left is made of. */
unsigned disk_plan_test_count(const struct config *c, unsigned disks, unsigned writable, unsigned all_disks);
double disk_plan_test_seconds(const struct config *c);

/* How long a disk may hold commands without completing one before it is
 * given up, for the benchmark, verify= and the surface scan alike: 60 s,
 * or twice io_timeout= when that is longer (a driver's timed-out command
 * is reported and recovered first). */
uint64_t disk_stall_ns(const struct config *c);

/* Warm-up, measured window (time=) and stall limit (io_timeout=). */
void disk_timing_for(const struct config *c, struct engine_timing *t);

#endif
