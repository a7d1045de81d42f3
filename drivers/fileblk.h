/* A regular file as a struct bm_disk, in the host build only
 * (fileblk_host.c): the engine and its tests run on Linux against it.
 *
 * Commands are carried out with pread/pwrite at submit time and their
 * completion is held back until latency_ns has passed, so a test can give
 * the disk a fixed per-command latency and see queue depth at work. The
 * disk also checks the blkdev.h contract (tags, ranges, sizes) and counts
 * every violation, and can fail reads or writes on purpose. */
#ifndef BAREMARK_FILEBLK_H
#define BAREMARK_FILEBLK_H

#include "blkdev.h"

struct fileblk_opts {
    uint32_t lba_bytes;          /* 0: 512 */
    uint32_t phys_bytes;         /* 0: lba_bytes */
    unsigned nqueues;            /* 0: 1 */
    uint32_t max_qd;             /* 0: 32 */
    uint32_t max_transfer_bytes; /* 0: 1 MiB */
    uint64_t latency_ns;         /* completion shows up this long after submit */
    bool fail_reads;             /* reads complete with BM_EIO ... */
    bool fail_writes;            /* ... writes too ... */
    uint64_t fail_after;         /* ... once this many commands have completed */
    const char *path_kind;       /* BM_PATH_NATIVE or (NULL) BM_PATH_FIRMWARE */
    uint64_t esc_after_writes;   /* press Esc once this many writes were submitted (0: never) */
};

struct fileblk_stats {
    uint64_t reads, writes;              /* commands */
    uint64_t bytes_read, bytes_written;
    uint32_t max_inflight;               /* most commands held at once, all queues */
    uint32_t max_blocks;                 /* the largest command, in blocks */
    uint64_t bad_tag, bad_range, too_big, bad_queue; /* contract violations */
    uint64_t unaligned_buffers;          /* buffers not 8-byte aligned */
};

/* Open path as a disk named id with this serial. NULL with err filled on
 * failure. The file's size, rounded down to whole blocks, is the disk. */
struct bm_disk *fileblk_open(const char *path, const char *id, const char *serial, const struct fileblk_opts *o,
                             char *err, size_t errlen);
void fileblk_close(struct bm_disk *d);
/* Is d a file disk (and not some driver's)? */
bool fileblk_is(const struct bm_disk *d);
void fileblk_get_stats(const struct bm_disk *d, struct fileblk_stats *s);
/* Commands submitted and not yet reaped, all queues. */
uint32_t fileblk_inflight(const struct bm_disk *d);
/* Writes submitted to any file disk after the code saw Esc (must stay 0:
 * once seen, Esc stops a run from issuing new writes). Reset with
 * fileblk_reset_counters. */
uint64_t fileblk_writes_after_esc(void);
void fileblk_reset_counters(void);

#endif
