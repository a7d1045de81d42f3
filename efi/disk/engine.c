/* The disk benchmark engine (see engine.h). */
#include "engine_internal.h"
#include "../time_units.h"

#define ENGINE_POLL_BATCH 64
/* A sweep's window: open until its last I/O (distinct from UINT64_MAX, see engine_run). */
#define ENGINE_SWEEP_WINDOW (UINT64_MAX - 1)

/* The rw field of a disk_result record. */
const char *engine_rw_name(const struct disk_test *t)
{
    if (t->random)
        return t->op == BM_IO_WRITE ? "randwrite" : "randread";
    return t->op == BM_IO_WRITE ? "write" : "read";
}

/* Fill a buffer with PRNG output: incompressible, never zeros, so a drive
 * that compresses or deduplicates cannot shortcut the write workloads. */
static void fill_random(uint8_t *buf, size_t bytes, uint64_t seed)
{
    struct bm_rng rng;
    uint64_t *w = (uint64_t *)buf;

    bm_rng_seed(&rng, seed);
    for (size_t i = 0; i < bytes / 8; i++)
        w[i] = bm_rng_next(&rng);
}

/* Data buffers for the I/O: page-aligned and physically contiguous. */
static void *alloc_dma(size_t bytes)
{
    /* Below 4 GiB first: some controllers (AHCI without CAP.S64A) cannot
     * reach higher; above is better than nothing for the others. */
    void *p = plat_alloc_pages(bytes, true);
    return p ? p : plat_alloc_pages(bytes, false);
}

/* Slots, histogram and data buffers for nq queues of qd I/Os of test.bs bytes. */
static int job_alloc(struct disk_job *j, char *why, size_t why_len)
{
    size_t nslots = (size_t)j->nq * j->qd;

    j->buf_bytes = nslots * j->test.bs;
    j->slots = plat_alloc(nslots * sizeof(*j->slots));
    j->hist = plat_alloc(sizeof(*j->hist));
    j->buf = alloc_dma(j->buf_bytes);
    if (!j->slots || !j->hist || !j->buf) {
        snprintf(why, why_len, "out of memory for %u MiB of buffers", (unsigned)(j->buf_bytes >> 20));
        engine_job_free(j);
        return BM_ENOMEM;
    }
    hist_reset(j->hist);
    return BM_OK;
}

/* The disk's chunk in blocks (bm_disk.chunk_bytes), 0 when it has none or
 * one that is no whole number of blocks. */
static uint32_t disk_chunk_blocks(const struct bm_disk *d)
{
    if (!d->chunk_bytes || d->chunk_bytes % d->lba_bytes)
        return 0;
    return d->chunk_bytes / d->lba_bytes;
}

/* The most commands an I/O of io_blocks takes when it is cut into pieces
 * of at most piece_blocks and again at every chunk boundary inside it
 * (Linux: blk_queue_split() at chunk_sectors). first: where the job's
 * I/Os start, at multiples of io_blocks from it; anywhere: they may start
 * at any LBA. */
static uint32_t job_max_pieces(uint64_t first, bool anywhere, uint64_t io_blocks, uint32_t piece_blocks,
                               uint32_t chunk_blocks)
{
    uint64_t n = (io_blocks + piece_blocks - 1) / piece_blocks;

    if (!chunk_blocks)
        return (uint32_t)n;
    if (!anywhere && chunk_blocks % io_blocks == 0 && first % io_blocks == 0)
        return (uint32_t)n; /* every I/O inside one chunk */
    if (!anywhere && io_blocks % chunk_blocks == 0 && first % chunk_blocks == 0 && chunk_blocks % piece_blocks == 0)
        return (uint32_t)n; /* whole chunks, each whole pieces */
    /* The first and last chunk's share of the I/O each take at most one
     * piece more than their length needs; chunks between them whole
     * pieces, when a piece divides the chunk. */
    if (chunk_blocks % piece_blocks == 0)
        return (uint32_t)(n + 1);
    return (uint32_t)(n + io_blocks / chunk_blocks + 2);
}

/* The blocks of the command starting at lba with left blocks of its I/O
 * to go: a piece at most, and never across a chunk boundary. */
static inline uint32_t piece_at(const struct disk_job *j, uint64_t lba, uint32_t left)
{
    uint32_t n = MIN(j->piece_blocks, left);

    if (j->chunk_blocks) {
        uint64_t room = j->chunk_blocks - lba % j->chunk_blocks;
        if (room < n)
            n = (uint32_t)room;
    }
    return n;
}

/* Fit a test to a disk (block size, capacity, queues, transfer size) and allocate its state. */
int engine_job_prepare(struct disk_job *j, struct bm_disk *d, const struct disk_test *t, uint64_t seed, char *why,
                       size_t why_len)
{
    uint32_t piece_bytes, total_qd, qd_limit;
    int rc;

    memset(j, 0, sizeof(*j));
    j->disk = d;
    j->test = *t;
    if (why_len)
        why[0] = '\0';
    if (t->bs % d->lba_bytes) {
        snprintf(why, why_len, "%u-byte I/Os do not fit the disk's %u-byte blocks", t->bs, d->lba_bytes);
        return BM_ENOTSUP;
    }
    /* I/Os start on physical block boundaries: from the lowest aligned LBA
     * the disk reports (0 for most). */
    rc = offset_gen_init_from(&j->gen, d->align_lba, d->blocks, d->lba_bytes, t->bs, t->random, seed);
    if (rc == BM_ENOSPC) {
        snprintf(why, why_len, "the disk is smaller than one %u-byte I/O", t->bs);
        return BM_ENOTSUP;
    }
    if (rc != BM_OK) {
        snprintf(why, why_len, "bad I/O size %u", t->bs);
        return BM_ENOTSUP;
    }
    j->io_blocks = j->gen.io_blocks;

    /* Transfers larger than the disk takes in one command are split into
     * several commands in flight at once, and count as one I/O whose
     * latency runs from the first command's submission to the last one's
     * completion (what an OS block layer does with a large request). */
    piece_bytes = d->max_transfer_bytes ? d->max_transfer_bytes - d->max_transfer_bytes % d->lba_bytes : t->bs;
    if (piece_bytes == 0 || piece_bytes > t->bs)
        piece_bytes = t->bs;
    j->piece_blocks = piece_bytes / d->lba_bytes;
    /* A disk with a chunk (the Intel 0953 stripe) gets no command across
     * a chunk boundary: an I/O crossing one is cut there too (Linux
     * chunk_sectors), and its slot keeps room for the extra command. */
    j->chunk_blocks = disk_chunk_blocks(d);
    if (j->chunk_blocks)
        j->piece_blocks = MIN(j->piece_blocks, j->chunk_blocks);
    j->pieces = job_max_pieces(d->align_lba, false, j->io_blocks, j->piece_blocks, j->chunk_blocks);
    if (!d->max_qd || j->pieces > d->max_qd) {
        snprintf(why, why_len, "one %u-byte I/O needs %u commands, more than the %u the disk keeps in flight", t->bs,
                 j->pieces, d->max_qd);
        return BM_ENOTSUP;
    }

    /* Queues: as many as named when the disk has them, else the same total
     * depth on the queues there are. */
    j->nq = MIN(t->threads ? t->threads : 1, d->nqueues ? d->nqueues : 1);
    total_qd = t->qd * (t->threads ? t->threads : 1);
    j->qd = (total_qd + j->nq - 1) / j->nq;
    if (j->nq != (t->threads ? t->threads : 1))
        snprintf(j->note, sizeof(j->note), "%u queue%s of %u (the disk has %u)", j->nq, j->nq == 1 ? "" : "s", j->qd,
                 d->nqueues);
    qd_limit = d->max_qd / j->pieces;
    if (j->qd > qd_limit) {
        size_t len = strlen(j->note);
        snprintf(j->note + len, sizeof(j->note) - len, "%squeue depth %u: the disk keeps %u command%s in flight%s",
                 len ? "; " : "", qd_limit, d->max_qd, d->max_qd == 1 ? "" : "s",
                 j->pieces > 1 ? " and each I/O takes several" : "");
        j->qd = qd_limit;
    }

    if (job_alloc(j, why, why_len) != BM_OK)
        return BM_ENOMEM;
    bm_rng_seed(&j->gen.rng, seed ^ 0x5eed); /* reseeded: the start position came from the first seed */
    j->stamp_key = seed * 0x9e3779b97f4a7c15ull;
    if (t->op == BM_IO_WRITE)
        fill_random(j->buf, j->buf_bytes, seed ^ 0xda7a);
    j->status = BM_OK;
    return BM_OK;
}

/* A sweep over a range of the disk (see engine.h). */
int engine_job_prepare_sweep(struct disk_job *j, struct bm_disk *d, enum bm_io_op op, uint64_t first_lba,
                             uint64_t blocks, uint32_t chunk_blocks, uint32_t qd, const struct engine_io_hooks *hooks,
                             void *hooks_ctx, char *why, size_t why_len)
{
    memset(j, 0, sizeof(*j));
    j->disk = d;
    if (why_len)
        why[0] = '\0';
    if (!d->lba_bytes || !chunk_blocks || !d->max_qd || !qd ||
        (d->max_transfer_bytes && (uint64_t)chunk_blocks * d->lba_bytes > d->max_transfer_bytes) ||
        first_lba + blocks > d->blocks) {
        snprintf(why, why_len, "a sweep of %llu blocks in I/Os of %u does not fit the disk",
                 (unsigned long long)blocks, chunk_blocks);
        return BM_ENOTSUP;
    }
    bm_strlcpy(j->test.name, "sweep", sizeof(j->test.name));
    j->test.op = op;
    j->test.bs = chunk_blocks * d->lba_bytes;
    j->test.qd = qd;
    j->test.threads = 1;
    j->nq = 1;
    j->piece_blocks = chunk_blocks;
    j->io_blocks = chunk_blocks;
    /* At most the transfer limit, but a chunk boundary may still cut it:
     * the scan's re-reads start anywhere, a range anywhere. */
    j->chunk_blocks = disk_chunk_blocks(d);
    if (j->chunk_blocks)
        j->piece_blocks = MIN(j->piece_blocks, j->chunk_blocks);
    j->pieces = job_max_pieces(first_lba, hooks && hooks->next, j->io_blocks, j->piece_blocks, j->chunk_blocks);
    if (j->pieces > d->max_qd) {
        snprintf(why, why_len, "a sweep I/O of %u blocks needs %u commands, more than the %u the disk keeps in flight",
                 chunk_blocks, j->pieces, d->max_qd);
        return BM_ENOTSUP;
    }
    j->qd = MIN(qd, d->max_qd / j->pieces);
    j->sweep = true;
    j->sweep_first = j->sweep_next = first_lba;
    j->sweep_end = first_lba + blocks;
    j->hooks = hooks;
    j->hooks_ctx = hooks_ctx;
    if (job_alloc(j, why, why_len) != BM_OK)
        return BM_ENOMEM;
    if (j->pieces > 1 && hooks && hooks->done) {
        j->part_detail = plat_alloc((size_t)j->nq * j->qd * sizeof(*j->part_detail));
        if (!j->part_detail) {
            snprintf(why, why_len, "out of memory");
            engine_job_free(j);
            return BM_ENOMEM;
        }
    }
    if (op == BM_IO_READ)
        memset(j->buf, 0xa5, j->buf_bytes);
    j->status = BM_OK;
    return BM_OK;
}

/* Free a job, keeping any buffer a device may still write into. */
void engine_job_free(struct disk_job *j)
{
    if (j->cpu_hung) {
        /* A CPU that never returned may still poll this job's queues and
         * write into its slots, histogram and buffers. */
        plat_diag(j->disk->id, "the CPU driving it never returned; keeping its %u KiB of buffers and its state",
                  (unsigned)(j->buf_bytes >> 10));
        j->buf = NULL;
        j->slots = NULL;
        j->hist = NULL;
        j->part_detail = NULL;
        return;
    }
    if (j->buf) {
        if (j->stuck || j->inflight)
            plat_diag(j->disk->id, "%u command%s never completed; keeping their %u KiB of buffers", j->inflight,
                      j->inflight == 1 ? "" : "s", (unsigned)(j->buf_bytes >> 10));
        else
            plat_free_pages(j->buf, j->buf_bytes);
    }
    plat_free(j->slots);
    plat_free(j->hist);
    plat_free(j->part_detail);
    j->buf = NULL;
    j->slots = NULL;
    j->hist = NULL;
    j->part_detail = NULL;
}

/* Record the first failure of a job (where, and the I/O's LBA) and stop its new I/O. */
void job_fail(struct disk_job *j, int status, enum engine_fail_at at, uint64_t lba, const char *fmt, ...)
{
    va_list ap;

    j->stopping = true;
    j->pending = 0;
    if (j->status != BM_OK)
        return;
    j->status = status;
    j->fail_at = at;
    j->fail_lba = lba;
    va_start(ap, fmt);
    vsnprintf(j->detail, sizeof(j->detail), fmt, ap);
    va_end(ap);
}

/* A unique stamp at the start of every block of the I/O about to be
 * written: the buffer stays incompressible and no two blocks written in
 * a run carry the same data, so deduplicating drives cannot skip them. */
static void stamp_blocks(struct disk_job *j, uint8_t *buf)
{
    for (uint64_t b = 0; b < j->io_blocks; b++) {
        uint64_t v = j->stamp_key ^ (++j->stamp_seq * 0xbf58476d1ce4e5b9ull);
        memcpy(buf + b * j->disk->lba_bytes, &v, sizeof(v));
    }
}

/* The data buffer of slot s of queue q. */
static uint8_t *slot_buf(struct disk_job *j, unsigned q, uint32_t s)
{
    return j->buf + ((size_t)q * j->qd + s) * j->test.bs;
}

/* Start (or continue, after BM_EBUSY) the I/O of one slot. Returns true
 * when every command of the I/O is submitted. */
static bool slot_pump(struct disk_job *j, unsigned q, uint32_t s, uint64_t now)
{
    struct io_slot *slot = &j->slots[q * j->qd + s];
    struct bm_disk *d = j->disk;

    if (!slot->busy) {
        if (j->stopping || (j->sweep && !(j->hooks && j->hooks->next) && j->sweep_next >= j->sweep_end))
            return true;
        if (j->sweep && j->hooks && j->hooks->next) {
            /* The caller's order (engine.h); sweep_next follows its furthest I/O for the progress line. */
            uint64_t lba;
            uint32_t blocks;
            if (!j->hooks->next(j->hooks_ctx, &lba, &blocks))
                return true;
            if (blocks == 0 || blocks > j->io_blocks || lba < j->sweep_first || lba + blocks > j->sweep_end) {
                job_fail(j, BM_EINVAL, ENGINE_FAIL_OTHER, lba, "sweep I/O of %u blocks at LBA %llu outside the sweep",
                         blocks, (unsigned long long)lba);
                return true;
            }
            slot->lba = lba;
            slot->blocks = blocks;
            j->sweep_next = MAX(j->sweep_next, lba + blocks);
        } else if (j->sweep) {
            slot->lba = j->sweep_next;
            slot->blocks = (uint32_t)MIN(j->io_blocks, j->sweep_end - j->sweep_next);
            j->sweep_next += slot->blocks;
        } else {
            slot->lba = offset_gen_next(&j->gen);
            slot->blocks = (uint32_t)j->io_blocks;
        }
        slot->next_piece = 0;
        slot->next_block = 0;
        slot->pieces_left = 0;
        slot->status = BM_OK;
        if (j->part_detail)
            j->part_detail[q * j->qd + s][0] = '\0';
        slot->busy = true;
        if (j->hooks && j->hooks->fill)
            j->hooks->fill(j->hooks_ctx, slot->lba, slot->blocks, slot_buf(j, q, s));
        else if (j->test.op == BM_IO_WRITE)
            stamp_blocks(j, slot_buf(j, q, s));
    }
    while (slot->next_block < slot->blocks) {
        uint32_t p = slot->next_piece;
        uint32_t first = slot->next_block;
        uint32_t blocks = piece_at(j, slot->lba + first, slot->blocks - first);
        int rc;

        if (j->stopping && p == 0) {
            slot->busy = false;
            return true;
        }
        if (p >= j->pieces) { /* job_max_pieces() was wrong: the tag would be another slot's */
            job_fail(j, BM_EINVAL, ENGINE_FAIL_OTHER, slot->lba,
                     "an I/O of %u blocks at LBA %llu needs more than %u commands", slot->blocks,
                     (unsigned long long)slot->lba, j->pieces);
            if (slot->pieces_left == 0)
                slot->busy = false;
            return true;
        }
        rc = d->ops->submit(d, j->q_base + q, s * j->pieces + p, j->test.op, slot->lba + first, blocks,
                            slot_buf(j, q, s) + first * d->lba_bytes);
        if (rc == BM_EBUSY)
            return false;
        if (rc < 0) {
            job_fail(j, rc, ENGINE_FAIL_SUBMIT, slot->lba + first, "%s submitting %u blocks at LBA %llu: %s", engine_rw_name(&j->test), blocks,
                     (unsigned long long)(slot->lba + first), bm_strerror(rc));
            if (slot->pieces_left == 0)
                slot->busy = false;
            return true;
        }
        if (p == 0)
            slot->start_ns = now;
        if (j->inflight == 0)
            j->last_event_ns = now;
        slot->next_piece++;
        slot->next_block += blocks;
        slot->pieces_left++;
        j->inflight++;
    }
    return true;
}

/* Submit every slot still waiting for queue room. */
static void job_retry_pending(struct disk_job *j, uint64_t now)
{
    uint32_t still = 0;

    for (unsigned q = 0; q < j->nq; q++)
        for (uint32_t s = 0; s < j->qd; s++) {
            struct io_slot *slot = &j->slots[q * j->qd + s];
            bool waiting = !slot->busy || slot->next_block < slot->blocks;
            if (waiting && !j->stopping && !slot_pump(j, q, s, now))
                still++;
        }
    j->pending = j->stopping ? 0 : still;
}

/* One completed command. */
static void job_complete(struct disk_job *j, unsigned q, const struct bm_completion *c, uint64_t now,
                         uint64_t t_meas)
{
    uint32_t s = j->pieces == 1 ? c->tag : c->tag / j->pieces; /* no division for the usual one-command I/O */
    struct io_slot *slot;
    uint64_t lat;

    if (c->tag >= j->qd * j->pieces || !j->slots[q * j->qd + s].busy ||
        j->slots[q * j->qd + s].pieces_left == 0) {
        job_fail(j, BM_EIO, ENGINE_FAIL_OTHER, 0, "the driver completed tag %u on queue %u, which was not in flight",
                 c->tag, j->q_base + q);
        return;
    }
    slot = &j->slots[q * j->qd + s];
    slot->pieces_left--;
    j->inflight--;
    j->last_event_ns = now;
    if (j->sweep && j->hooks && j->hooks->done) {
        /* The hook owns the outcome (engine.h). An I/O cut at a chunk
         * boundary is several commands: it ends when the last has, with
         * the status of the first that failed (Linux: the bio's status
         * is its first failed split's). */
        const char *detail = "";

        if (c->status != BM_OK && slot->status == BM_OK) {
            slot->status = c->status;
            if (j->part_detail)
                bm_strlcpy(j->part_detail[q * j->qd + s], c->detail, sizeof(j->part_detail[0]));
        }
        if (slot->pieces_left)
            return;
        if (slot->next_block < slot->blocks) {
            if (!j->stopping)
                return; /* the rest waits for queue room */
            if (slot->status == BM_OK) /* a failed submit or Esc: never read whole */
                slot->status = j->status != BM_OK ? j->status : BM_EABORT;
        }
        slot->busy = false;
        if (slot->status != BM_OK)
            detail = j->part_detail ? j->part_detail[q * j->qd + s] : c->detail;
        if (slot->status == BM_OK && j->hooks->check)
            j->hooks->check(j->hooks_ctx, slot->lba, slot->blocks, slot_buf(j, q, s));
        j->hooks->done(j->hooks_ctx, slot->lba, slot->blocks, slot->status, detail, now - slot->start_ns, now);
        if (slot->status == BM_OK) {
            j->live_bytes += (uint64_t)slot->blocks * j->disk->lba_bytes;
            if (j->hist)
                hist_add(j->hist, now - slot->start_ns);
            j->ios++;
            j->bytes += (uint64_t)slot->blocks * j->disk->lba_bytes;
        }
        /* What ended may open more work than this slot takes (the two
         * halves of a failed read): every idle slot is offered it. */
        if (!j->stopping) {
            if (!slot_pump(j, q, s, now))
                j->pending++;
            if (j->hooks->next)
                j->pending++;
        }
        return;
    }
    if (c->status != BM_OK) {
        if (j->status == BM_OK)
            bm_strlcpy(j->fail_device, c->detail, sizeof(j->fail_device));
        job_fail(j, c->status, ENGINE_FAIL_COMPLETION, slot->lba, "%s of %u KiB at LBA %llu: %s%s%s",
                 engine_rw_name(&j->test), j->test.bs >> 10, (unsigned long long)slot->lba, bm_strerror(c->status),
                 c->detail[0] ? ": " : "", c->detail);
    }
    if (slot->pieces_left || slot->next_block < slot->blocks)
        return;
    slot->busy = false;
    if (j->status == BM_OK && j->hooks && j->hooks->check)
        j->hooks->check(j->hooks_ctx, slot->lba, slot->blocks, slot_buf(j, q, s));
    if (j->status == BM_OK) {
        j->live_bytes += (uint64_t)slot->blocks * j->disk->lba_bytes;
        /* Counted when it completes inside the window: I/Os submitted
         * in the warm-up and finishing in the window count, the ones
         * finishing after the window do not (fio's ramp_time rule). */
        if (now >= t_meas && now < j->window_end) {
            lat = now - slot->start_ns;
            if (j->hist)
                hist_add(j->hist, lat);
            j->ios++;
            j->bytes += (uint64_t)slot->blocks * j->disk->lba_bytes;
            /* An open window (see engine_run) closes on its first I/O. */
            if (j->window_end == UINT64_MAX) {
                j->window_end = now + 1;
                j->stopping = true;
            }
        }
    }
    /* Keep the queue full: the next I/O goes out right away. */
    if (!j->stopping && !slot_pump(j, q, s, now))
        j->pending++;
}

/* Tell the disk about the commands submitted on queue q (one doorbell
 * for the batch, blkdev.h flush). */
static inline void job_flush(struct disk_job *j, unsigned q)
{
    if (j->disk->ops->flush)
        j->disk->ops->flush(j->disk, j->q_base + q);
}

/* Poll every queue of a job once and refill it. now is the clock when the
 * round started; each batch of completions gets its own reading (its I/Os'
 * end, and the start of the I/Os that replace them). Returns how many
 * completions it reaped (0: the disk had nothing for us). */
int job_step(struct disk_job *j, uint64_t t_meas, const struct engine_timing *t, uint64_t now)
{
    struct bm_completion cq[ENGINE_POLL_BATCH];
    struct bm_disk *d = j->disk;
    int work = 0;

    if (j->stuck)
        return 0;
    for (unsigned q = 0; q < j->nq; q++) {
        int n = d->ops->poll(d, j->q_base + q, cq, ENGINE_POLL_BATCH);
        if (n < 0) {
            job_fail(j, n, ENGINE_FAIL_OTHER, 0, "polling queue %u: %s", j->q_base + q, bm_strerror(n));
            continue;
        }
        if (n == 0)
            continue;
        now = plat_now_ns();
        for (int i = 0; i < n; i++)
            job_complete(j, q, &cq[i], now, t_meas);
        job_flush(j, q);
        work += n;
    }
    if (j->pending) {
        job_retry_pending(j, now);
        for (unsigned q = 0; q < j->nq; q++)
            job_flush(j, q);
    }
    /* A sweep whose driver keeps refusing (BM_EBUSY) with nothing in
     * flight would never finish: that stalls too. */
    if ((j->inflight || (j->sweep && j->pending)) && now > j->last_event_ns &&
        now - j->last_event_ns > t->stall_ns) {
        /* What the driver is doing about it, when it says (an HBA's
         * recovery step and its time so far). */
        char rec[96] = "";

        if (j->disk->ops->recovery)
            j->disk->ops->recovery(j->disk, rec, sizeof(rec));
        job_fail(j, BM_ETIMEDOUT, ENGINE_FAIL_STALL, 0, "%u command%s in flight and no completion for %llu s%s%s",
                 j->inflight, j->inflight == 1 ? "" : "s", (unsigned long long)(t->stall_ns / NS_PER_S),
                 rec[0] ? "; driver: " : "", rec);
        j->stuck = true;
    }
    return work;
}

/* Has the job work left: commands in flight, or a sweep with I/O still to start? */
bool job_active(const struct disk_job *j)
{
    if (j->stuck)
        return false;
    if (j->inflight)
        return true;
    if (j->sweep && j->hooks && j->hooks->next)
        return !j->stopping && j->pending; /* next() gave nothing with nothing in flight: done */
    return j->sweep && !j->stopping && (j->sweep_next < j->sweep_end || j->pending);
}

/* Every job's first I/Os, and its window. */
void start_jobs(struct disk_job *jobs, unsigned n, uint64_t t0, uint64_t t_end)
{
    for (unsigned i = 0; i < n; i++) {
        struct disk_job *j = &jobs[i];
        j->pending = 0;
        j->last_event_ns = t0;
        j->window_end = j->sweep ? ENGINE_SWEEP_WINDOW : t_end;
        for (unsigned q = 0; q < j->nq; q++) {
            for (uint32_t s = 0; s < j->qd && !j->stopping; s++)
                if (!slot_pump(j, q, s, t0))
                    j->pending++;
            job_flush(j, q);
        }
    }
}

/* The measured window is over: stop new I/O, except where not one I/O
 * finished in it (each takes longer than time=): that window stays open
 * until one does, rather than report nothing (the stall deadline still
 * applies). A sweep runs on to its end. */
void close_windows(struct disk_job *jobs, unsigned n, bool aborted)
{
    for (unsigned i = 0; i < n; i++) {
        struct disk_job *j = &jobs[i];
        if (j->sweep)
            continue;
        if (!aborted && j->status == BM_OK && !j->ios && j->inflight && !j->stuck)
            j->window_end = UINT64_MAX;
        else
            j->stopping = true;
    }
}

/* Esc: stop new I/O and let what is in flight finish, so no buffer is
 * freed under a device still writing into it. */
void stop_for_esc(struct disk_job *jobs, unsigned n, uint64_t now)
{
    for (unsigned i = 0; i < n; i++) {
        jobs[i].stopping = true;
        jobs[i].window_end = MIN(jobs[i].window_end, now);
    }
}

/* Each job's measured seconds (a sweep: to its last completion), with a
 * note when a window was kept open. */
void finish_windows(struct disk_job *jobs, unsigned n, uint64_t t_meas, uint64_t t_end)
{
    for (unsigned i = 0; i < n; i++) {
        struct disk_job *j = &jobs[i];
        uint64_t end;
        if (j->sweep) {
            end = MIN(j->window_end, j->last_event_ns);
            j->seconds = end > t_meas ? (double)(end - t_meas) / 1e9 : 0;
            continue;
        }
        end = j->window_end == UINT64_MAX ? t_end : j->window_end;
        j->seconds = (double)(end - t_meas) / 1e9;
        if (end > t_end) {
            size_t len = strlen(j->note);
            snprintf(j->note + len, sizeof(j->note) - len, "%swindow kept open to %.2f s for a first I/O to finish",
                     len ? "; " : "", j->seconds);
        }
    }
}
