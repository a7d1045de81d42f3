/* The surface scan (see scan.h). The order of the reads, the buckets, the
 * curve and the unreadable ranges are this file's; the I/O is the engine's
 * (a sweep per disk, all disks in one engine_run()). */
#include "scan.h"
#include "engine.h"
#include "../time_units.h"

const uint32_t scan_bucket_ms[SCAN_NBUCKETS - 1] = { 5, 20, 50, 150, 500 };
const char *const scan_bucket_names[SCAN_NBUCKETS] = { "lt5ms", "lt20ms", "lt50ms", "lt150ms", "lt500ms", "slower" };

void scan_state_init(struct scan_state *s, struct scan_result *r, uint64_t first_lba, uint64_t blocks,
                     uint32_t chunk_blocks, uint32_t min_blocks, uint64_t t0_ns)
{
    uint64_t chunks;

    memset(s, 0, sizeof(*s));
    memset(r, 0, sizeof(*r));
    s->r = r;
    s->chunk_blocks = chunk_blocks ? chunk_blocks : 1;
    s->min_blocks = min_blocks ? MIN(min_blocks, s->chunk_blocks) : 1;
    s->end = first_lba + blocks;
    s->next_lba = first_lba;
    s->t0_ns = t0_ns;
    s->bad_end = UINT64_MAX;
    r->first_lba = first_lba;
    r->blocks = blocks;
    memset(r->part_worst, SCAN_WORST_NONE, sizeof(r->part_worst));
    /* The curve's parts are whole reads, at most SCAN_CURVE_POINTS of them
     * and at least two queues' worth each: a device that completes the
     * reads in flight together (QEMU's AHCI does) would leave a part of
     * fewer with no time of its own. */
    chunks = (blocks + s->chunk_blocks - 1) / s->chunk_blocks;
    if (chunks) {
        uint64_t per = MAX((chunks + SCAN_CURVE_POINTS - 1) / SCAN_CURVE_POINTS, (uint64_t)SCAN_MIN_POINT_READS);
        r->point_blocks = per * s->chunk_blocks;
        r->npoints = (unsigned)((chunks + per - 1) / per);
    }
}

/* Re-reads go depth first, lowest LBA first: a stack. A piece is cut in
 * two halves (whole physical blocks), the second pushed first; the second
 * remembers whether the piece is known to fail (see scan.h). False when
 * there is no room for both (nothing pushed then). */
static bool split_piece(struct scan_state *s, uint64_t lba, uint32_t blocks, bool fails)
{
    uint32_t half = (blocks / 2) / s->min_blocks * s->min_blocks;

    if (half == 0)
        half = s->min_blocks;
    if (s->nstack + 2 > SCAN_STACK)
        return false;
    s->stack[s->nstack].lba = lba + half;
    s->stack[s->nstack].blocks = blocks - half;
    s->stack[s->nstack].parent_fails = fails;
    s->stack[s->nstack].bad_at_push = s->r->bad_blocks;
    s->stack[s->nstack + 1].lba = lba;
    s->stack[s->nstack + 1].blocks = half;
    s->stack[s->nstack + 1].parent_fails = false;
    s->stack[s->nstack + 1].bad_at_push = s->r->bad_blocks;
    s->nstack += 2;
    return true;
}

/* The next re-read off the stack. A piece larger than one physical block
 * is split at once, not read whole, when that read would fail (on a hard
 * disk a failing read takes seconds of the drive's own retries):
 *  - it is known to fail: its parent failed and its first half read
 *    without an unreadable block, so the failure is in it;
 *  - it starts where a block was just named unreadable: the band likely
 *    runs on into it (bad sectors come in runs). Only likely: its halves
 *    are read as any piece's, and when the band stops at its start this
 *    costs a read per halving instead of one.
 * Each block named unreadable is still one that failed read on its own. */
static void pop_reread(struct scan_state *s, uint64_t *lba, uint32_t *blocks)
{
    for (;;) {
        unsigned top = s->nstack - 1;
        bool fails = s->stack[top].parent_fails && s->stack[top].bad_at_push == s->r->bad_blocks;
        bool band_runs_on = s->stack[top].lba == s->bad_end;

        s->nstack--;
        *lba = s->stack[top].lba;
        *blocks = s->stack[top].blocks;
        if (!(fails || band_runs_on) || *blocks <= s->min_blocks || !split_piece(s, *lba, *blocks, fails))
            return;
    }
}

bool scan_next(struct scan_state *s, uint64_t *lba, uint32_t *blocks)
{
    /* The scan's time runs from its first read (not from setting up the
     * other disks' buffers and CPUs). */
    if (!s->started) {
        s->started = true;
        s->t0_ns = plat_now_ns();
    }
    /* A re-read runs alone: an error aborts whatever else the device holds
     * (an NCQ error, AHCI 1.3.1 section 6.2.2.1), and a read caught that
     * way must not look unreadable; nor may a slow re-read slow the pass. */
    if (s->nstack) {
        if (s->reread_busy || s->linear_inflight)
            return false;
        pop_reread(s, lba, blocks);
        s->reread_busy = true;
        return true;
    }
    if (s->reread_busy || s->next_lba >= s->end)
        return false;
    *lba = s->next_lba;
    *blocks = (uint32_t)MIN((uint64_t)s->chunk_blocks, s->end - s->next_lba);
    s->next_lba += *blocks;
    s->linear_inflight++;
    return true;
}

/* An unreadable range, kept ascending with neighbours merged. */
static void add_bad(struct scan_result *r, uint64_t lba, uint64_t count, const char *detail)
{
    unsigned i = 0;

    r->bad_blocks += count;
    while (i < r->nbad && r->bad[i].first_lba + r->bad[i].count < lba)
        i++;
    if (i < r->nbad && r->bad[i].first_lba + r->bad[i].count == lba) {
        r->bad[i].count += count;
        /* ...and the range after it, now touching */
        if (i + 1 < r->nbad && r->bad[i].first_lba + r->bad[i].count == r->bad[i + 1].first_lba) {
            r->bad[i].count += r->bad[i + 1].count;
            memmove(&r->bad[i + 1], &r->bad[i + 2], (r->nbad - i - 2) * sizeof(r->bad[0]));
            r->nbad--;
        }
        return;
    }
    if (i < r->nbad && lba + count == r->bad[i].first_lba) {
        r->bad[i].first_lba = lba;
        r->bad[i].count += count;
        bm_strlcpy(r->bad[i].error, detail, sizeof(r->bad[i].error));
        return;
    }
    if (r->nbad == SCAN_MAX_BAD) {
        r->bad_unlisted++;
        return;
    }
    memmove(&r->bad[i + 1], &r->bad[i], (r->nbad - i) * sizeof(r->bad[0]));
    r->bad[i].first_lba = lba;
    r->bad[i].count = count;
    bm_strlcpy(r->bad[i].error, detail, sizeof(r->bad[i].error));
    r->nbad++;
}

void scan_done(struct scan_state *s, uint64_t lba, uint32_t blocks, int status, const char *detail, uint64_t lat_ns,
               uint64_t now_ns)
{
    struct scan_result *r = s->r;
    bool reread = s->reread_busy;
    unsigned point = 0;

    if (reread) {
        s->reread_busy = false;
        r->rereads++;
    } else if (s->linear_inflight) {
        s->linear_inflight--;
    }
    if (r->point_blocks && lba >= r->first_lba)
        point = (unsigned)MIN((lba - r->first_lba) / r->point_blocks, (uint64_t)SCAN_CURVE_POINTS - 1);
    s->point_end_ns[point] = MAX(s->point_end_ns[point], now_ns);

    if (status == BM_OK) {
        s->point_read_blocks[point] += blocks;
        s->read_blocks += blocks;
        if (!reread) {
            unsigned b = 0;
            while (b < SCAN_NBUCKETS - 1 && lat_ns >= (uint64_t)scan_bucket_ms[b] * NS_PER_MS)
                b++;
            r->buckets[b]++;
            r->part_worst[point] = (int8_t)MAX((int)r->part_worst[point], (int)b);
        }
        return;
    }
    if (reread) {
        r->reread_errors++;
    } else {
        r->errors++;
        r->part_worst[point] = SCAN_WORST_ERROR;
    }
    /* As MHDD and ddrescue's splitting pass: the failed read again in
     * halves, each half that fails halved again, down to one physical
     * block, which is then unreadable. The pass waits meanwhile. Only a
     * re-read's failure is known to be its own (it ran alone): a read of
     * the pass may have failed only because another read's error aborted
     * it (NCQ), so the second half of such a read is read whole. */
    if (blocks > s->min_blocks && split_piece(s, lba, blocks, reread))
        return;
    /* One physical block, or no room to split further: the whole piece is
     * named (unresolved, when larger). */
    add_bad(r, lba, blocks, detail && detail[0] ? detail : bm_strerror(status));
    s->bad_end = lba + blocks;
}

void scan_finish(struct scan_state *s, uint64_t lba_bytes, uint64_t end_ns)
{
    struct scan_result *r = s->r;
    uint64_t prev = s->t0_ns;

    r->read_bytes = s->read_blocks * lba_bytes;
    r->scanned_blocks = s->next_lba - r->first_lba;
    r->seconds = end_ns > s->t0_ns ? (double)(end_ns - s->t0_ns) / 1e9 : 0;
    r->mbps = r->seconds > 0 ? (double)r->read_bytes / r->seconds / 1e6 : 0;
    /* Each part's rate: its bytes over the time from the previous part's
     * last completion to its own (the reads are in order, QD deep). */
    for (unsigned i = 0; i < r->npoints; i++) {
        uint64_t t = MAX(s->point_end_ns[i], prev);
        uint64_t bytes = s->point_read_blocks[i] * lba_bytes;
        r->curve_mbps[i] = t > prev ? (double)bytes / ((double)(t - prev) / 1e9) / 1e6 : 0;
        prev = t;
    }
}

int scan_clip_range(bool set, uint64_t first, uint64_t last, uint64_t disk_blocks, uint64_t *first_out,
                    uint64_t *blocks_out, char *why, size_t why_len)
{
    if (why_len)
        why[0] = '\0';
    if (!set) {
        *first_out = 0;
        *blocks_out = disk_blocks;
        return disk_blocks ? BM_OK : BM_ENOTSUP;
    }
    if (first >= disk_blocks) {
        snprintf(why, why_len, "scan_range= starts at LBA %llu, past the disk's last LBA %llu",
                 (unsigned long long)first, (unsigned long long)(disk_blocks ? disk_blocks - 1 : 0));
        return BM_ENOTSUP;
    }
    if (last >= disk_blocks) {
        if (last != UINT64_MAX)
            snprintf(why, why_len, "scan_range= ends past the disk's last LBA %llu: scanned to it",
                     (unsigned long long)(disk_blocks - 1));
        last = disk_blocks - 1;
    }
    *first_out = first;
    *blocks_out = last - first + 1;
    return BM_OK;
}

/* The engine's hooks over a scan_state. */
static bool hook_next(void *ctx, uint64_t *lba, uint32_t *blocks)
{
    return scan_next(ctx, lba, blocks);
}

static void hook_done(void *ctx, uint64_t lba, uint32_t blocks, int status, const char *detail, uint64_t lat_ns,
                      uint64_t now_ns)
{
    scan_done(ctx, lba, blocks, status, detail, lat_ns, now_ns);
}

/* The hooks touch only their disk's scan_state: each disk's sweep may run on
 * its own CPU, so one disk's slow error recovery holds no other disk back. */
static const struct engine_io_hooks scan_hooks = { .next = hook_next, .done = hook_done, .mp_safe = true };

/* What stopped a disk's scan, in the record's words (a stall in the
 * engine's: how many commands, how long, what the driver's recovery did). */
static void word_stop(const struct disk_job *j, struct scan_result *r)
{
    r->status = j->status;
    switch (j->fail_at) {
    case ENGINE_FAIL_SUBMIT:
        snprintf(r->detail, sizeof(r->detail), "the driver refused a read at LBA %llu: %s",
                 (unsigned long long)j->fail_lba, bm_strerror(j->status));
        break;
    default:
        bm_strlcpy(r->detail, j->detail, sizeof(r->detail));
        break;
    }
}

int disk_scan(struct bm_disk *const *disks, unsigned n, const uint64_t *first_lba, const uint64_t *blocks,
              uint64_t stall_ns, struct scan_result *out)
{
    const struct engine_timing tm = { 0, 0, stall_ns };
    struct disk_job *jobs = plat_alloc((size_t)n * sizeof(*jobs));
    struct scan_state *st = plat_alloc((size_t)n * sizeof(*st));
    unsigned *which = plat_alloc((size_t)n * sizeof(*which));
    unsigned nj = 0;
    bool hung = false;
    char why[160], label[64];
    uint64_t t0;
    int rc = BM_OK;

    if (!jobs || !st || !which) {
        for (unsigned i = 0; i < n; i++) {
            memset(&out[i], 0, sizeof(out[i]));
            out[i].status = BM_ENOMEM;
            bm_strlcpy(out[i].detail, "no memory for the scan's state", sizeof(out[i].detail));
        }
        plat_free(jobs);
        plat_free(st);
        plat_free(which);
        return BM_OK;
    }
    t0 = plat_now_ns();
    for (unsigned i = 0; i < n; i++) {
        struct bm_disk *d = disks[i];
        uint32_t chunk = d->max_transfer_bytes ? MIN(SCAN_CHUNK_MAX, d->max_transfer_bytes) : SCAN_CHUNK_MAX;
        uint32_t chunk_blocks = d->lba_bytes ? chunk / d->lba_bytes : 0;
        uint32_t min_blocks = d->lba_bytes && d->phys_bytes > d->lba_bytes ? d->phys_bytes / d->lba_bytes : 1;

        scan_state_init(&st[i], &out[i], first_lba[i], blocks[i], chunk_blocks, min_blocks, t0);
        out[i].chunk_bytes = chunk_blocks * d->lba_bytes;
        rc = engine_job_prepare_sweep(&jobs[nj], d, BM_IO_READ, first_lba[i], blocks[i], chunk_blocks,
                                      SCAN_QD, &scan_hooks, &st[i], why, sizeof(why));
        if (rc != BM_OK) {
            out[i].status = rc;
            bm_strlcpy(out[i].detail, why, sizeof(out[i].detail));
            continue;
        }
        which[nj++] = i;
    }
    rc = BM_OK;
    if (nj) {
        snprintf(label, sizeof(label), "surface scan, %u disk%s", nj, nj == 1 ? "" : "s");
        rc = engine_run(jobs, nj, &tm, label, NULL);
    }
    for (unsigned k = 0; k < nj; k++) {
        struct disk_job *j = &jobs[k];
        unsigned i = which[k];
        hung |= j->cpu_hung;
        scan_finish(&st[i], disks[i]->lba_bytes, j->last_event_ns);
        if (j->status != BM_OK)
            word_stop(j, &out[i]);
        else if (st[i].nstack || st[i].next_lba < st[i].end) {
            out[i].status = BM_EIO;
            bm_strlcpy(out[i].detail, "the scan ended before its range did", sizeof(out[i].detail));
        }
        engine_job_free(j);
    }
    if (hung)
        return rc; /* a CPU that never came back may still run the hooks over st and the jobs */
    plat_free(jobs);
    plat_free(st);
    plat_free(which);
    return rc;
}
