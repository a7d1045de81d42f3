/* The surface scan against SEQ1M-Q8T1 through the same engine (issue 29),
 * part of make bench: a disk that answers at once (every read in flight
 * completes at the next poll, no data moved), so what is left is the
 * engine's and the scan's own work. Per I/O: CPU ns of this thread, and
 * the reads in flight at each poll (the queue depth kept; a scan that
 * drained its queue at a curve part's end would show less than 8).
 * SEQ1M-Q8T1 runs a timed window; the scan a whole 64 GiB disk and a
 * 4 GiB one, whose difference takes the scan's set-up (its 8 MiB buffer)
 * out of the per-I/O figure. */
#include <time.h>

#include "iobench.h"
#include "efi/disk/engine.h"
#include "efi/disk/scan.h"

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
    bm_strlcpy(z->d.id, "zero0", sizeof(z->d.id));
    z->d.path = BM_PATH_NATIVE;
    z->d.lba_bytes = 512;
    z->d.phys_bytes = 512;
    z->d.blocks = blocks;
    z->d.nqueues = 1;
    z->d.max_qd = ZD_QD;
    z->d.max_transfer_bytes = 1u << 20;
    z->d.ops = &zd_ops;
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
    if (disk_scan(&d, 1, &first, &blocks, &r) != BM_OK || r.status != BM_OK)
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
