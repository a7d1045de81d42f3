/* Where each I/O of a workload goes: pure, unit-tested.
 *
 * The disk is cut into positions of io_bytes, aligned to io_bytes from LBA
 * 0; only positions that fit whole are used, so the tail of a disk that is
 * not a multiple of the I/O size is never touched and no I/O runs past the
 * end. Random workloads pick a position uniformly over the whole disk;
 * sequential ones start at a random position and walk up, wrapping to
 * position 0 after the last one. */
#ifndef BAREMARK_OFFSETS_H
#define BAREMARK_OFFSETS_H

#include "../lib/bmlib.h"

struct offset_gen {
    uint64_t positions;   /* whole, aligned I/O positions on the disk */
    uint64_t io_blocks;   /* logical blocks per I/O */
    bool random;
    uint64_t next;        /* sequential: the next position */
    struct bm_rng rng;
};

/* Returns BM_OK; BM_EINVAL when io_bytes is zero or not a multiple of
 * lba_bytes; BM_ENOSPC when not even one I/O fits on the disk. */
int offset_gen_init(struct offset_gen *g, uint64_t disk_blocks, uint32_t lba_bytes, uint32_t io_bytes, bool random,
                    uint64_t seed);
/* The first LBA of the next I/O. */
uint64_t offset_gen_next(struct offset_gen *g);

#endif
