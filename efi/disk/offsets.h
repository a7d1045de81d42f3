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
    uint64_t pow2_mask;   /* positions - 1 when positions is a power of two, else 0 */
    uint64_t next;        /* sequential: the next position */
    uint64_t first;       /* the LBA of position 0 (offset_gen_init_from) */
    struct bm_rng rng;
};

/* Returns BM_OK; BM_EINVAL when io_bytes is zero or not a multiple of
 * lba_bytes; BM_ENOSPC when not even one I/O fits on the disk. */
int offset_gen_init(struct offset_gen *g, uint64_t disk_blocks, uint32_t lba_bytes, uint32_t io_bytes, bool random,
                    uint64_t seed);
/* The same with position 0 at first_lba: a disk whose lowest aligned LBA
 * (SCSI READ CAPACITY(16), as Linux's alignment_offset) is not 0 has its
 * physical blocks start there, and I/Os cut from it start on them.
 * BM_ENOSPC when first_lba leaves no room for one I/O. */
int offset_gen_init_from(struct offset_gen *g, uint64_t first_lba, uint64_t disk_blocks, uint32_t lba_bytes,
                         uint32_t io_bytes, bool random, uint64_t seed);
/* The first LBA of the next I/O: a random position, or the next one up
 * with wrap. Inline, no division: it runs once per I/O. A power-of-two
 * count of positions takes the generator's bits as they come; others go
 * through Lemire's multiply-shift (bm_rng_below). */
static inline uint64_t offset_gen_next(struct offset_gen *g)
{
    uint64_t pos;

    if (g->random) {
        pos = g->pow2_mask ? bm_rng_next(&g->rng) & g->pow2_mask : bm_rng_below(&g->rng, g->positions);
    } else {
        pos = g->next;
        g->next = pos + 1 < g->positions ? pos + 1 : 0;
    }
    return g->first + pos * g->io_blocks;
}

#endif
