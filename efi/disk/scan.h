/* The surface scan (scan=on): every selected disk read front to back (or
 * the LBA range of scan_range=) in large transfers, all disks at once, as
 * MHDD, HDAT2 and Victoria do: the transfer rate across the surface (the
 * zone curve of a hard disk, the cache cliff of an SSD), MHDD's
 * access-time buckets, and each unreadable LBA range, found by re-reading
 * a failed transfer in halves down to one physical block. Read-only.
 * Each disk is an engine sweep (engine.c) whose order and errors the scan
 * owns through the sweep hooks (engine_io_hooks next and done). */
#ifndef BAREMARK_DISK_SCAN_H
#define BAREMARK_DISK_SCAN_H

#include "../../drivers/blkdev.h"

#define SCAN_QD 8                   /* as SEQ1M-Q8T1, so the two rates compare */
#define SCAN_CHUNK_MAX (1u << 20)   /* bytes per read, at most the disk's transfer limit */
#define SCAN_CURVE_POINTS 100       /* transfer-rate points across the range, at most */
#define SCAN_MIN_POINT_READS (2 * SCAN_QD) /* reads per point, at least */
#define SCAN_MAX_BAD 64             /* unreadable ranges listed per disk (the rest counted) */
#define SCAN_STACK 128              /* re-reads waiting, per disk */

/* MHDD's access-time buckets of the scan's reads: < 5, < 20, < 50, < 150,
 * < 500 ms, slower; errors are counted apart. */
enum { SCAN_B5, SCAN_B20, SCAN_B50, SCAN_B150, SCAN_B500, SCAN_BSLOW, SCAN_NBUCKETS };

#define SCAN_WORST_ERROR SCAN_NBUCKETS /* part_worst: a read of the part failed */
#define SCAN_WORST_NONE (-1)          /* part_worst: no read of the part ended */

/* The bucket upper bounds in ms (the last is open), and their names in the record. */
extern const uint32_t scan_bucket_ms[SCAN_NBUCKETS - 1];
extern const char *const scan_bucket_names[SCAN_NBUCKETS];

struct scan_bad_range {
    uint64_t first_lba, count;
    char error[64];               /* the device's decoded status of the first failed read in it */
};

struct scan_result {
    uint64_t first_lba, blocks;   /* the range asked for (after scan_range= and the disk's end) */
    uint32_t chunk_bytes;         /* bytes per read */
    uint64_t read_bytes;          /* read without error (re-reads included) */
    uint64_t scanned_blocks;      /* how far the scan got: blocks from first_lba (blocks when it finished) */
    double seconds;               /* first read to last completion */
    double mbps;                  /* read_bytes / seconds, decimal MB/s */
    unsigned npoints;             /* curve points: the range in npoints equal parts */
    uint64_t point_blocks;        /* blocks per point (the last may be shorter) */
    double curve_mbps[SCAN_CURVE_POINTS];
    uint64_t buckets[SCAN_NBUCKETS]; /* reads of the front-to-back pass, by access time */
    /* MHDD's map: per curve part the slowest bucket among its reads of the
     * pass (SCAN_B5..SCAN_BSLOW), SCAN_WORST_ERROR when one failed,
     * SCAN_WORST_NONE when none ended there. Where the slow reads are, not
     * only how many: a weak area shows as a run of slow parts. */
    int8_t part_worst[SCAN_CURVE_POINTS];
    uint64_t errors;              /* reads of that pass that failed */
    uint64_t rereads, reread_errors; /* the halving re-reads after errors */
    struct scan_bad_range bad[SCAN_MAX_BAD]; /* ascending, adjacent ranges merged */
    unsigned nbad;
    unsigned bad_unlisted;        /* ranges past SCAN_MAX_BAD (their blocks are in bad_blocks) */
    uint64_t bad_blocks;          /* unreadable blocks found */
    int status;                   /* BM_OK, or what stopped the scan (detail says) */
    char detail[160];
};

/* One disk's scan state: the order of its reads and what came back. The
 * scan's logic as pure functions over it, so tests drive it without a disk. */
struct scan_state {
    struct scan_result *r;
    uint32_t chunk_blocks;        /* blocks per front-to-back read */
    uint32_t min_blocks;          /* the smallest re-read: one physical block */
    uint64_t end;                 /* first_lba + blocks */
    uint64_t next_lba;            /* the front-to-back pass's next read */
    uint32_t linear_inflight;     /* its reads in flight */
    bool reread_busy;             /* a re-read in flight (alone: nothing else is) */
    /* Pieces waiting to be re-read, the next on top. A second half whose
     * parent is known to fail (it failed read alone, or was itself found
     * to fail) fails for sure when nothing was found unreadable in its
     * first half, the only reads between its push and its pop. */
    struct {
        uint64_t lba;
        uint32_t blocks;
        bool parent_fails;        /* its parent is known to fail */
        uint64_t bad_at_push;     /* r->bad_blocks when it was pushed */
    } stack[SCAN_STACK];
    unsigned nstack;
    uint64_t bad_end;             /* the LBA after the last block named unreadable (UINT64_MAX: none) */
    bool started;                 /* its first read was given out ... */
    uint64_t t0_ns;               /* ... then: the scan's start */
    uint64_t read_blocks;         /* read without error */
    uint64_t point_read_blocks[SCAN_CURVE_POINTS];
    uint64_t point_end_ns[SCAN_CURVE_POINTS]; /* the last completion in each part */
};

/* Set up a disk's scan of blocks blocks from first_lba in reads of
 * chunk_blocks (min_blocks: the smallest re-read); t0_ns until its first
 * read starts (then the clock at that moment). */
void scan_state_init(struct scan_state *s, struct scan_result *r, uint64_t first_lba, uint64_t blocks,
                     uint32_t chunk_blocks, uint32_t min_blocks, uint64_t t0_ns);
/* The next read to start (re-reads first, alone; then the pass), false for none now. */
bool scan_next(struct scan_state *s, uint64_t *lba, uint32_t *blocks);
/* A read ended (status BM_OK or its error) after lat_ns, at now_ns. */
void scan_done(struct scan_state *s, uint64_t lba, uint32_t blocks, int status, const char *detail, uint64_t lat_ns,
               uint64_t now_ns);
/* The curve, the rate and the seconds from what came back, at the end. */
void scan_finish(struct scan_state *s, uint64_t lba_bytes, uint64_t end_ns);

/* The range scan_range= (first, last inclusive; last UINT64_MAX: to the end)
 * leaves of a disk of disk_blocks: BM_OK with *first and *blocks, or
 * BM_ENOTSUP (why says so) when it starts past the disk's end. */
int scan_clip_range(bool set, uint64_t first, uint64_t last, uint64_t disk_blocks, uint64_t *first_out,
                    uint64_t *blocks_out, char *why, size_t why_len);

/* Scan n disks at once over [first_lba[i], +blocks[i]), results in out[i]
 * (status per disk); a disk that completes nothing for stall_ns
 * (disk_stall_ns()) is given up. Returns BM_OK, or BM_EABORT on Esc
 * (results void). */
int disk_scan(struct bm_disk *const *disks, unsigned n, const uint64_t *first_lba, const uint64_t *blocks,
              uint64_t stall_ns, struct scan_result *out);

#endif
