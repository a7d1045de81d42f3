/* The surface scan against SEQ1M-Q8T1 through the same engine (issue 29),
 * part of make bench: a disk that answers at once (every read in flight
 * completes at the next poll, no data moved), so what is left is the
 * engine's and the scan's own work. Per I/O: CPU ns of this thread, and
 * the reads in flight at each poll (the queue depth kept; a scan that
 * drained its queue at a curve part's end would show less than 8).
 * SEQ1M-Q8T1 runs a timed window; the scan a whole 64 GiB disk and a
 * 4 GiB one, whose difference takes the scan's set-up (its 8 MiB buffer)
 * out of the per-I/O figure. Then both on a bandwidth-bound model disk
 * (scanbench_link_print): MB/s and their ratio. */
#include <time.h>

#include "iobench.h"
#include "efi/disk/engine.h"
#include "efi/disk/scan.h"

/* A model disk's bm_disk: 512-byte blocks, one queue of max_qd tags,
 * transfers of 1 MiB at most. */
static void model_disk_init(struct bm_disk *d, const char *id, uint64_t blocks, uint32_t max_qd,
                            const struct bm_disk_ops *ops)
{
    bm_strlcpy(d->id, id, sizeof(d->id));
    d->path = BM_PATH_NATIVE;
    d->lba_bytes = 512;
    d->phys_bytes = 512;
    d->blocks = blocks;
    d->nqueues = 1;
    d->max_qd = max_qd;
    d->max_transfer_bytes = 1u << 20;
    d->ops = ops;
}

#define ZD_QD 32

struct zero_disk {
    struct bm_disk d;
    bool busy[ZD_QD];
    uint32_t inflight;
    uint64_t polls, inflight_at_polls;
};

static int zd_submit(struct bm_disk *d, unsigned q, uint32_t tag, enum bm_io_op op, uint64_t lba, uint32_t blocks,
                     void *buf)
{
    struct zero_disk *z = (struct zero_disk *)d;

    (void)op;
    if (q != 0 || tag >= ZD_QD || z->busy[tag] || !blocks || lba + blocks > d->blocks || !buf)
        return BM_EINVAL;
    z->busy[tag] = true;
    z->inflight++;
    return BM_OK;
}

static int zd_poll(struct bm_disk *d, unsigned q, struct bm_completion *out, int max)
{
    struct zero_disk *z = (struct zero_disk *)d;
    int n = 0;

    (void)q;
    z->polls++;
    z->inflight_at_polls += z->inflight;
    for (uint32_t t = 0; t < ZD_QD && n < max; t++)
        if (z->busy[t]) {
            z->busy[t] = false;
            z->inflight--;
            out[n].tag = t;
            out[n].status = BM_OK;
            out[n].detail[0] = '\0';
            n++;
        }
    return n;
}

static const struct bm_disk_ops zd_ops = { .submit = zd_submit, .poll = zd_poll };

static void zd_init(struct zero_disk *z, uint64_t blocks)
{
    memset(z, 0, sizeof(*z));
    model_disk_init(&z->d, "zero0", blocks, ZD_QD, &zd_ops);
}

static uint64_t thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A whole-disk scan of blocks: CPU ns, I/Os, mean depth at a poll. */
static bool scan_once(uint64_t blocks, uint64_t *ns, uint64_t *ios, double *depth)
{
    static struct zero_disk z;
    static struct scan_result r;
    struct bm_disk *d = &z.d;
    uint64_t first = 0, t0;

    zd_init(&z, blocks);
    t0 = thread_ns();
    if (disk_scan(&d, 1, &first, &blocks, 60ull * NS_PER_S, &r) != BM_OK || r.status != BM_OK)
        return false;
    *ns = thread_ns() - t0;
    *ios = r.read_bytes >> 20;
    *depth = (double)z.inflight_at_polls / (double)MAX(z.polls, 1);
    return true;
}

bool scanbench_print(FILE *f, uint64_t ms)
{
    const struct disk_test t = { .name = "SEQ1M-Q8T1", .op = BM_IO_READ, .bs = 1u << 20, .qd = 8, .threads = 1 };
    const struct engine_timing tm = { 0, ms * 1000000ull, 10000000000ull };
    static struct zero_disk z;
    struct disk_job j;
    uint64_t t0, ns, big_ns, big_ios, small_ns, small_ios;
    double depth, big_depth, small_depth;
    char why[160];

    engine_limit_cpus(1);
    zd_init(&z, 64ull << 21);
    if (engine_job_prepare(&j, &z.d, &t, 1, why, sizeof(why)) != BM_OK)
        return false;
    t0 = thread_ns();
    if (engine_run(&j, 1, &tm, "scanbench", NULL) != BM_OK || j.status != BM_OK) {
        engine_job_free(&j);
        return false;
    }
    ns = thread_ns() - t0;
    depth = (double)z.inflight_at_polls / (double)MAX(z.polls, 1);
    fprintf(f, "surface scan against SEQ1M-Q8T1, 1 MiB reads at QD 8 on a disk that answers at once (engine only)\n");
    fprintf(f, "%-28s  %10s  %12s  %14s\n", "", "ns/IO", "I/Os", "depth at poll");
    fprintf(f, "%-28s  %10.1f  %12llu  %14.2f\n", "SEQ1M-Q8T1 (timed window)", (double)ns / (double)(j.live_bytes >> 20),
            (unsigned long long)(j.live_bytes >> 20), depth);
    engine_job_free(&j);
    if (!scan_once(64ull << 21, &big_ns, &big_ios, &big_depth) || !scan_once(4ull << 21, &small_ns, &small_ios,
                                                                              &small_depth))
        return false;
    fprintf(f, "%-28s  %10.1f  %12llu  %14.2f\n", "scan, 64 GiB (with set-up)", (double)big_ns / (double)big_ios,
            (unsigned long long)big_ios, big_depth);
    fprintf(f, "%-28s  %10.1f  %12llu  %14s\n", "scan, per I/O (64 - 4 GiB)",
            (double)(big_ns - MIN(small_ns, big_ns)) / (double)(big_ios - small_ios),
            (unsigned long long)(big_ios - small_ios), "");
    return true;
}

/* A bandwidth-bound disk: each read takes a fixed command latency, then
 * its bytes cross one link of fixed bandwidth, one transfer at a time, in
 * the order submitted; it completes when its transfer has ended on the
 * host's clock (plat_now_ns: CLOCK_MONOTONIC on the host build). So a
 * caller that keeps the queue full gets the link's rate, and one that
 * lets it run dry (at a part boundary, between a read's completion and
 * the next submit) loses what the link could have moved meanwhile. */
#define LD_QD 32

struct link_disk {
    struct bm_disk d;
    uint32_t qd_limit;           /* commands the device takes at once (8..32) */
    uint64_t latency_ns;         /* per command, before its transfer */
    double ns_per_byte;          /* the link: 1e3 / MB/s */
    uint64_t link_free_ns;       /* the last queued transfer ends then */
    uint64_t due_ns[LD_QD];      /* 0: tag free */
};

static int ld_submit(struct bm_disk *d, unsigned q, uint32_t tag, enum bm_io_op op, uint64_t lba, uint32_t blocks,
                     void *buf)
{
    struct link_disk *l = (struct link_disk *)d;
    uint64_t now = plat_now_ns(), start;

    (void)op;
    if (q != 0 || tag >= l->qd_limit || l->due_ns[tag] || !blocks || lba + blocks > d->blocks || !buf)
        return BM_EINVAL;
    start = MAX(now + l->latency_ns, l->link_free_ns);
    l->link_free_ns = start + (uint64_t)((double)blocks * d->lba_bytes * l->ns_per_byte);
    l->due_ns[tag] = l->link_free_ns;
    return BM_OK;
}

static int ld_poll(struct bm_disk *d, unsigned q, struct bm_completion *out, int max)
{
    struct link_disk *l = (struct link_disk *)d;
    uint64_t now = plat_now_ns();
    int n = 0;

    (void)q;
    for (uint32_t t = 0; t < l->qd_limit && n < max; t++)
        if (l->due_ns[t] && l->due_ns[t] <= now) {
            l->due_ns[t] = 0;
            out[n].tag = t;
            out[n].status = BM_OK;
            out[n].detail[0] = '\0';
            n++;
        }
    return n;
}

static const struct bm_disk_ops ld_ops = { .submit = ld_submit, .poll = ld_poll };

static void ld_init(struct link_disk *l, uint64_t blocks, uint32_t mbps, uint32_t qd_limit, uint64_t latency_ns)
{
    memset(l, 0, sizeof(*l));
    model_disk_init(&l->d, "link0", blocks, qd_limit, &ld_ops);
    l->qd_limit = qd_limit;
    l->latency_ns = latency_ns;
    l->ns_per_byte = 1e3 / (double)mbps;
}

/* SEQ1M-Q8T1 (warm-up ms/5, window ms) and a scan of about ms worth of
 * the link on the same model; one printed row. */
static bool link_row(FILE *f, uint32_t mbps, uint32_t qd_limit, uint64_t latency_ns, uint64_t ms)
{
    const struct disk_test t = { .name = "SEQ1M-Q8T1", .op = BM_IO_READ, .bs = 1u << 20, .qd = 8, .threads = 1 };
    const struct engine_timing tm = { ms * 200000ull, ms * 1000000ull, 10000000000ull };
    static struct link_disk l;
    static struct scan_result r;
    struct bm_disk *d = &l.d;
    uint64_t first = 0, blocks = (uint64_t)mbps * ms / 1000 * 2048; /* MiB the link moves in ms, in blocks */
    struct disk_job j;
    double seq;
    char why[160];

    ld_init(&l, 64ull << 21, mbps, qd_limit, latency_ns);
    if (engine_job_prepare(&j, d, &t, 1, why, sizeof(why)) != BM_OK)
        return false;
    if (engine_run(&j, 1, &tm, "scanbench link", NULL) != BM_OK || j.status != BM_OK || j.seconds <= 0) {
        engine_job_free(&j);
        return false;
    }
    seq = (double)j.bytes / j.seconds / 1e6;
    engine_job_free(&j);
    ld_init(&l, 64ull << 21, mbps, qd_limit, latency_ns);
    if (disk_scan(&d, 1, &first, &blocks, 60ull * NS_PER_S, &r) != BM_OK || r.status != BM_OK)
        return false;
    fprintf(f, "%8u  %6u  %6.1f  %12.1f  %10.1f  %9.1f%%\n", mbps, qd_limit, (double)latency_ns / 1e3, seq, r.mbps,
            100.0 * r.mbps / seq);
    return true;
}

bool scanbench_link_print(FILE *f, uint64_t ms)
{
    static const struct { uint32_t mbps, qd_limit; } rows[] = { { 3000, 32 }, { 3000, 8 }, { 500, 32 }, { 500, 8 } };

    engine_limit_cpus(1);
    fprintf(f, "surface scan against SEQ1M-Q8T1 on a bandwidth-bound model disk (host clock; figures, not a test)\n");
    fprintf(f, "%8s  %6s  %6s  %12s  %10s  %10s\n", "link MB/s", "max QD", "lat us", "SEQ1M MB/s", "scan MB/s",
            "scan/SEQ1M");
    for (unsigned i = 0; i < ARRAY_SIZE(rows); i++)
        if (!link_row(f, rows[i].mbps, rows[i].qd_limit, 20000, ms))
            return false;
    return true;
}
