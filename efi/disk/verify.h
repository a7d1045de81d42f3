/* Data verification for burn-in: write a known pattern over a range of a
 * disk the user allowed to be written, read it back, compare. */
#ifndef BAREMARK_DISK_VERIFY_H
#define BAREMARK_DISK_VERIFY_H

#include "../../drivers/blkdev.h"

#define VERIFY_MAX_BAD 16

struct verify_result {
    uint64_t first_lba, blocks;  /* the range checked */
    uint64_t bad_blocks;         /* blocks whose contents came back wrong */
    uint64_t bad_lba[VERIFY_MAX_BAD]; /* the lowest of them, ascending */
    unsigned nbad_listed;
    int status;                  /* BM_OK, or the I/O error that stopped it */
    char detail[160];
    double seconds;
};

/* The pattern of one block: every 8 bytes derived from (seed, lba, offset),
 * so a block written to the wrong LBA, a stale block or a torn one all
 * differ from what is expected. Pure, for tests. */
void verify_fill_block(uint8_t *buf, uint32_t block_bytes, uint64_t seed, uint64_t lba);

/* Write then read back `bytes` (rounded down to whole transfers, at least
 * one block) from a seed-chosen, aligned start. Only for disks the safety
 * rules allow to be written: the caller checks. BM_EABORT on Esc. The
 * record is report_verify() (report.c). A disk that completes nothing for
 * stall_ns (disk_stall_ns()) is given up. */
int disk_verify(struct bm_disk *d, uint64_t bytes, uint64_t seed, uint64_t stall_ns, struct verify_result *out);

#endif
