/* The disk benchmark's reports: its records (disk, disk_result, verify,
 * the refusals and notes about the options) and the screen table. Records
 * are built here and nowhere else in efi/disk; nothing here runs I/O or
 * decides anything. */
#ifndef BAREMARK_DISK_REPORT_H
#define BAREMARK_DISK_REPORT_H

#include "../config.h"
#include "engine.h"
#include "links.h"
#include "plan.h"
#include "safety.h"
#include "scan.h"
#include "verify.h"

/* The disk record: identity, place, limits, quirks and what the run may do with it. */
void report_disk(const struct bm_disk *d, bool selected, const struct disk_write_decision *w);

/* The error record of a write= the safety rules refused (nothing otherwise). */
void report_write_refused(const struct bm_disk *d, const struct disk_write_decision *w);

/* Notes for write= serials and disks= entries no disk matches, and for a
 * run with no disk found or none selected. */
void report_unmatched_options(const struct config *c, struct bm_disk *const *disks, unsigned n, unsigned selected);

/* A job's disk_result record (concurrent: how many disks ran at once, 0
 * alone). A job in which no I/O completed inside the window gets a note
 * instead; returns BM_ENODEV then, else BM_OK. */
int report_result(const struct disk_job *j, unsigned concurrent);

/* The "all" disk_result of an all-disks test: the sum over the jobs that finished. */
void report_all_disks(const struct disk_job *jobs, unsigned n, const struct engine_run_stats *st,
                      const struct link_summary *link);

/* The error record of a test that failed the disk. */
void report_disk_failed(const struct bm_disk *d, const struct disk_job *j);

/* The verify record, and an error record when it failed. */
void report_verify(const struct bm_disk *d, const struct verify_result *v);

/* The scan record of a disk's surface scan, a scan_bad_range record per
 * unreadable range, and an error record when it found any or stopped.
 * seq1m_mbps: SEQ1M-Q8T1's read MB/s on the disk in the same pass (0: not
 * run), which the record sets the scan's rate against. */
void report_scan(const struct bm_disk *d, const struct scan_result *s, double seq1m_mbps);

/* The screen's summary of one disk: a row per test, read and write side
 * by side, like CrystalDiskMark's window. */
struct disk_table_row {
    char test[24];
    bool have[2];            /* [0] read, [1] write */
    double mbps[2], iops[2], p99_us[2];
};

struct disk_table {
    struct disk_table_row rows[DISK_MAX_TESTS];
    unsigned nrows;
};

/* Put a finished job into its row (a new row per test name). */
void table_add(struct disk_table *t, const struct disk_job *j);
/* The table of disk d on the screen, once its tests are done (nothing if empty). */
void table_print(const struct disk_table *t, const struct bm_disk *d);

#endif
