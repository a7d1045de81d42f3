/* Offset generation for the disk workloads (see offsets.h). */
#include "offsets.h"
#include "../platform.h"

/* Count the whole aligned positions and pick a random start. */
int offset_gen_init(struct offset_gen *g, uint64_t disk_blocks, uint32_t lba_bytes, uint32_t io_bytes, bool random,
                    uint64_t seed)
{
    memset(g, 0, sizeof(*g));
    if (!lba_bytes || !io_bytes || io_bytes % lba_bytes)
        return BM_EINVAL;
    g->io_blocks = io_bytes / lba_bytes;
    g->positions = disk_blocks / g->io_blocks;
    if (!g->positions)
        return BM_ENOSPC;
    g->random = random;
    /* positions > 1: a disk of one position draws from bm_rng_below (always 0). */
    if (g->positions > 1 && !(g->positions & (g->positions - 1)))
        g->pow2_mask = g->positions - 1;
    bm_rng_seed(&g->rng, seed);
    /* Sequential runs start somewhere random, so repeated runs do not all
     * measure the first gigabytes (often the fastest zone of a hard disk). */
    g->next = bm_rng_below(&g->rng, g->positions);
    return BM_OK;
}

int offset_gen_init_from(struct offset_gen *g, uint64_t first_lba, uint64_t disk_blocks, uint32_t lba_bytes,
                         uint32_t io_bytes, bool random, uint64_t seed)
{
    int rc = offset_gen_init(g, first_lba < disk_blocks ? disk_blocks - first_lba : 0, lba_bytes, io_bytes, random,
                             seed);

    g->first = rc == BM_OK ? first_lba : 0;
    return rc;
}
