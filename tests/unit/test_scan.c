/* scan=on: the surface scan against a fake disk with unreadable bands and
 * slow zones. The fake behaves as an NCQ disk behind AHCI does on a read
 * error (AHCI 1.3.1 section 6.2.2.1): the failing read and every other
 * command in flight complete with an error, so a scan that trusted a
 * failed read of a good range would list good blocks as bad. It refuses
 * what a real queue refuses (a tag in use or past the depth, a range past
 * the end, a transfer past the limit) and counts writes, which a scan
 * must never issue. Time is simulated: the medium serves one command at
 * a time, each taking its zone's service time, so a read's latency is its
 * wait in the queue plus its own service, as on a disk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "disk/engine.h"
#include "disk/scan.h"
#include "platform_sim.h"
#include "time_units.h"

#define FAKE_QD 32
#define FAKE_BANDS 4
#define FAKE_ZONES 4

struct fake_cmd {
    bool busy;
    uint64_t lba;
    uint32_t blocks;
    uint64_t due_ns;
    int status;
    char detail[64];
};

struct fake_disk {
    struct bm_disk d;
    struct fake_cmd cmd[FAKE_QD];
    struct { uint64_t first, count; } band[FAKE_BANDS];
    unsigned nbands;
    struct { uint64_t first, count, service_ns; } zone[FAKE_ZONES];
    unsigned nzones;
    uint64_t service_ns;         /* outside every zone */
    uint64_t busy_until_ns;      /* the medium's last queued command ends then */
    uint64_t dead_after;         /* refuse every command once this many were taken (0: never) */
    bool hung;                   /* takes commands and never completes one (time is not moved) */
    /* What the scan did. */
    uint64_t submitted, writes, refused, reads_of_bad, bad_completions_caught;
    uint64_t small_with_others;  /* a read shorter than the chunk issued while others were in flight */
    uint32_t chunk_blocks, max_inflight, inflight;
    uint32_t min_inflight_midway; /* the fewest in flight at a poll while reads were still to be issued */
    uint64_t *read_count;        /* reads of each block */
};

static struct fake_disk *fake_of(struct bm_disk *d) { return (struct fake_disk *)d; }

static bool touches_band(const struct fake_disk *f, uint64_t lba, uint32_t blocks)
{
    for (unsigned i = 0; i < f->nbands; i++)
        if (lba < f->band[i].first + f->band[i].count && f->band[i].first < lba + blocks)
            return true;
    return false;
}

static uint64_t service_at(const struct fake_disk *f, uint64_t lba)
{
    for (unsigned i = 0; i < f->nzones; i++)
        if (lba >= f->zone[i].first && lba < f->zone[i].first + f->zone[i].count)
            return f->zone[i].service_ns;
    return f->service_ns;
}

static int fake_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                       uint32_t blocks, void *buf)
{
    struct fake_disk *f = fake_of(d);
    struct fake_cmd *c;

    if (queue != 0 || tag >= d->max_qd || f->cmd[tag].busy || !blocks || lba + blocks > d->blocks ||
        (uint64_t)blocks * d->lba_bytes > d->max_transfer_bytes || !buf) {
        f->refused++;
        return BM_EINVAL;
    }
    if (f->dead_after && f->submitted >= f->dead_after)
        return BM_EIO;
    if (op != BM_IO_READ)
        f->writes++;
    if (blocks < f->chunk_blocks && f->inflight && lba + blocks != d->blocks)
        f->small_with_others++;
    c = &f->cmd[tag];
    c->busy = true;
    c->lba = lba;
    c->blocks = blocks;
    f->busy_until_ns = MAX(f->busy_until_ns, plat_now_ns()) + service_at(f, lba);
    c->due_ns = f->busy_until_ns;
    c->status = BM_OK;
    c->detail[0] = '\0';
    if (touches_band(f, lba, blocks)) {
        c->status = BM_EIO;
        snprintf(c->detail, sizeof(c->detail), "UNC at LBA %llu", (unsigned long long)lba);
        f->reads_of_bad++;
    }
    for (uint32_t b = 0; b < blocks && f->read_count; b++)
        f->read_count[lba + b]++;
    f->submitted++;
    f->inflight++;
    f->max_inflight = f->inflight > f->max_inflight ? f->inflight : f->max_inflight;
    return BM_OK;
}

/* Completions due by now; with none due, time moves to the next one. An
 * error completes every other command in flight with it. */
static int fake_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct fake_disk *f = fake_of(d);
    uint64_t now = plat_now_ns(), next = UINT64_MAX;
    int n = 0;

    (void)queue;
    if (f->submitted + SCAN_QD <= d->blocks / f->chunk_blocks && f->inflight < f->min_inflight_midway)
        f->min_inflight_midway = f->inflight;
    for (uint32_t t = 0; t < FAKE_QD; t++)
        if (f->cmd[t].busy && f->cmd[t].due_ns < next)
            next = f->cmd[t].due_ns;
    if (next == UINT64_MAX || f->hung)
        return 0;
    if (next > now) {
        plat_sim_advance_ns(next - now);
        now = plat_now_ns();
    }
    for (uint32_t t = 0; t < FAKE_QD && n < max; t++) {
        struct fake_cmd *c = &f->cmd[t];
        if (!c->busy || c->due_ns > now || c->status == BM_OK)
            continue;
        /* The error: it and everything queued beside it. */
        for (uint32_t u = 0; u < FAKE_QD; u++)
            if (f->cmd[u].busy && u != t && f->cmd[u].status == BM_OK) {
                f->cmd[u].status = BM_EIO;
                f->cmd[u].due_ns = now;
                bm_strlcpy(f->cmd[u].detail, "aborted: NCQ error", sizeof(f->cmd[u].detail));
                f->bad_completions_caught++;
            }
        f->busy_until_ns = now;
        break;
    }
    for (uint32_t t = 0; t < FAKE_QD && n < max; t++) {
        struct fake_cmd *c = &f->cmd[t];
        if (!c->busy || c->due_ns > now)
            continue;
        out[n].tag = t;
        out[n].status = c->status;
        bm_strlcpy(out[n].detail, c->detail, sizeof(out[n].detail));
        c->busy = false;
        f->inflight--;
        n++;
    }
    return n;
}

static const struct bm_disk_ops fake_ops = { .submit = fake_submit, .poll = fake_poll };

static void fake_init(struct fake_disk *f, const char *id, uint64_t blocks, uint32_t lba_bytes, uint32_t phys_bytes,
                      uint32_t max_transfer_bytes)
{
    memset(f, 0, sizeof(*f));
    snprintf(f->d.id, sizeof(f->d.id), "%s", id);
    f->d.path = BM_PATH_NATIVE;
    f->d.lba_bytes = lba_bytes;
    f->d.phys_bytes = phys_bytes;
    f->d.blocks = blocks;
    f->d.nqueues = 1;
    f->d.max_qd = FAKE_QD;
    f->d.max_transfer_bytes = max_transfer_bytes;
    f->d.ops = &fake_ops;
    f->chunk_blocks = (max_transfer_bytes < SCAN_CHUNK_MAX ? max_transfer_bytes : SCAN_CHUNK_MAX) / lba_bytes;
    f->service_ns = 25 * NS_PER_US;
    f->min_inflight_midway = UINT32_MAX;
    f->read_count = calloc(blocks, sizeof(uint64_t));
}

/* One more unreadable band: count blocks from first. */
static void fake_add_band(struct fake_disk *f, uint64_t first, uint64_t count)
{
    assert_true(f->nbands < FAKE_BANDS);
    f->band[f->nbands].first = first;
    f->band[f->nbands].count = count;
    f->nbands++;
}

static void fake_free(struct fake_disk *f)
{
    free(f->read_count);
    f->read_count = NULL;
}

/* The stall limit of a default run (plan.c disk_stall_ns(): io_timeout=30). */
#define STALL_NS (60ull * NS_PER_S)

static int scan_whole(struct fake_disk **f, unsigned n, struct scan_result *r)
{
    struct bm_disk *disks[4];
    uint64_t first[4], blocks[4];

    for (unsigned i = 0; i < n; i++) {
        disks[i] = &f[i]->d;
        first[i] = 0;
        blocks[i] = f[i]->d.blocks;
    }
    return disk_scan(disks, n, first, blocks, STALL_NS, r);
}

static void assert_contract_kept(const struct fake_disk *f)
{
    assert_int_equal(f->refused, 0);
    assert_int_equal(f->writes, 0);
    assert_int_equal(f->inflight, 0);
    assert_true(f->max_inflight <= SCAN_QD);
}

/* The case: an unreadable band inside one read is listed exactly,
 * once, and the scan reads on to the end; the reads the error caught
 * beside it are not listed. */
static void test_band_is_listed_exactly_and_the_scan_carries_on(void **state)
{
    struct fake_disk disk, *f = &disk;
    struct scan_result r;
    (void)state;
    fake_init(f, "fake0", 16384, 512, 512, 64 * 1024);    /* 8 MiB, reads of 128 blocks */
    fake_add_band(f, 5000, 16);
    assert_int_equal(scan_whole(&f, 1, &r), BM_OK);
    assert_int_equal(r.status, BM_OK);
    assert_int_equal(r.nbad, 1);
    assert_int_equal(r.bad[0].first_lba, 5000);
    assert_int_equal(r.bad[0].count, 16);
    assert_string_equal(r.bad[0].error, "UNC at LBA 5000");
    assert_int_equal(r.bad_blocks, 16);
    assert_int_equal(r.bad_unlisted, 0);
    assert_int_equal(r.scanned_blocks, 16384);
    assert_int_equal(r.read_bytes, (16384 - 16) * 512ull);
    assert_int_equal(r.chunk_bytes, 64 * 1024);
    /* The failed read and those it caught in flight were read again, */
    assert_true(r.errors >= 1);
    assert_true(f->bad_completions_caught >= 1);
    assert_true(r.rereads > 0);
    /* alone: no re-read had company, */
    assert_int_equal(f->small_with_others, 0);
    /* and every good block was read to the end of the disk. */
    for (uint64_t b = 0; b < 16384; b++)
        assert_true(f->read_count[b] >= 1);
    /* MHDD's map: the band's part (2 of 8, LBA 4096-6143, with every
     * read the error caught) shows the failure, every other part a read
     * time. */
    assert_int_equal(r.npoints, 8);
    for (unsigned i = 0; i < r.npoints; i++) {
        if (i == 2)
            assert_int_equal(r.part_worst[i], SCAN_WORST_ERROR);
        else
            assert_true(r.part_worst[i] >= SCAN_B5 && r.part_worst[i] <= SCAN_BSLOW);
    }
    assert_contract_kept(f);
    fake_free(f);
}

/* Bands at the very start, the very end, and two touching each other's
 * reads: each listed, touching ranges merged, a read's worth of re-reads
 * at most per band. */
static void test_bands_at_both_ends_and_adjacent_ones_merge(void **state)
{
    struct fake_disk disk, *f = &disk;
    struct scan_result r;
    (void)state;
    fake_init(f, "fake0", 4096, 512, 512, 16 * 1024);     /* reads of 32 blocks */
    fake_add_band(f, 0, 1);
    fake_add_band(f, 4095, 1);
    fake_add_band(f, 60, 4);    /* ends a read ... */
    fake_add_band(f, 64, 3);    /* ... and starts the next: one range */
    assert_int_equal(scan_whole(&f, 1, &r), BM_OK);
    assert_int_equal(r.status, BM_OK);
    assert_int_equal(r.nbad, 3);
    assert_int_equal(r.bad[0].first_lba, 0);
    assert_int_equal(r.bad[0].count, 1);
    assert_int_equal(r.bad[1].first_lba, 60);
    assert_int_equal(r.bad[1].count, 7);
    assert_int_equal(r.bad[2].first_lba, 4095);
    assert_int_equal(r.bad[2].count, 1);
    assert_int_equal(r.bad_blocks, 9);
    assert_int_equal(r.read_bytes, (4096 - 9) * 512ull);
    assert_contract_kept(f);
    fake_free(f);
}

/* A 512e disk: the smallest re-read is the 4 KiB physical block, so a
 * bad 512-byte sector is named as its whole physical block. */
static void test_512e_disk_names_whole_physical_blocks(void **state)
{
    struct fake_disk disk, *f = &disk;
    struct scan_result r;
    (void)state;
    fake_init(f, "fake0", 8192, 512, 4096, 64 * 1024);
    fake_add_band(f, 1003, 1);
    assert_int_equal(scan_whole(&f, 1, &r), BM_OK);
    assert_int_equal(r.nbad, 1);
    assert_int_equal(r.bad[0].first_lba, 1000);
    assert_int_equal(r.bad[0].count, 8);
    assert_contract_kept(f);
    fake_free(f);
}

/* The median of n values (sorts them). */
static double median(double *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned k = i; k > 0 && v[k - 1] > v[k]; k--) {
            double t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A slow zone (a hard disk's inner tracks, an SSD past its cache) shows
 * in the curve, and its reads land in MHDD's slower buckets. Time is the
 * model's: 64 KiB every 12.5 ms is 5.24 MB/s (each read waits for the 7
 * ahead of it: 100 ms), every 375 ms 0.175 MB/s (3 s). The real time the
 * code takes only adds to that, and is small against it even on a
 * loaded machine; the medians keep one stall from moving the figures. */
static void test_slow_zone_shows_in_the_curve_and_the_buckets(void **state)
{
    struct fake_disk disk, *f = &disk;
    struct scan_result r;
    double fast[8], slow[8];
    (void)state;
    fake_init(f, "fake0", 256 * 128, 512, 512, 64 * 1024); /* 256 reads of 64 KiB */
    f->service_ns = 12500 * NS_PER_US;
    f->zone[0].first = 128 * 128;                           /* the second half */
    f->zone[0].count = 128 * 128;
    f->zone[0].service_ns = 375 * NS_PER_MS;
    f->nzones = 1;
    assert_int_equal(scan_whole(&f, 1, &r), BM_OK);
    assert_int_equal(r.status, BM_OK);
    assert_int_equal(r.nbad, 0);
    assert_int_equal(r.errors, 0);
    assert_int_equal(r.npoints, 16);                        /* 256 reads, 16 a point (two queues' worth) */
    assert_int_equal(r.point_blocks, 16 * 128);
    /* Each read's time counts from its submission. The first queue fills
     * at once (12.5 ms, 25 ms ... 100 ms), then the fast half runs at
     * 100 ms; the slow half at 3 s once the queue holds only slow reads. */
    assert_int_equal(r.buckets[SCAN_B5], 0);
    assert_true(r.buckets[SCAN_B20] + r.buckets[SCAN_B50] <= 3);
    assert_true(r.buckets[SCAN_B150] >= 128 - 3 - 4);
    assert_true(r.buckets[SCAN_B500] + r.buckets[SCAN_BSLOW] >= 128 && r.buckets[SCAN_B500] + r.buckets[SCAN_BSLOW] <= 132);
    assert_true(r.buckets[SCAN_BSLOW] >= 128 - SCAN_QD);
    assert_int_equal(r.buckets[SCAN_B5] + r.buckets[SCAN_B20] + r.buckets[SCAN_B50] + r.buckets[SCAN_B150] +
                         r.buckets[SCAN_B500] + r.buckets[SCAN_BSLOW], 256);
    for (unsigned i = 0; i < 7; i++) {
        fast[i] = r.curve_mbps[i];
        slow[i] = r.curve_mbps[9 + i];
    }
    assert_true(median(fast, 7) > 5.24 * 0.9 && median(fast, 7) < 5.24 * 1.05);
    assert_true(median(slow, 7) > 0.1748 * 0.9 && median(slow, 7) < 0.1748 * 1.05);
    /* MHDD's map says where: the fast half's parts at most < 150 ms, the
     * slow half's (past the part where the queue turns over) 500 ms or more. */
    for (unsigned i = 0; i < 8; i++)
        assert_true(r.part_worst[i] >= SCAN_B5 && r.part_worst[i] <= SCAN_B150);
    for (unsigned i = 9; i < 16; i++)
        assert_int_equal(r.part_worst[i], SCAN_BSLOW);
    for (unsigned i = 16; i < SCAN_CURVE_POINTS; i++)
        assert_int_equal(r.part_worst[i], SCAN_WORST_NONE);
    assert_contract_kept(f);
    fake_free(f);
}

/* Every disk at once: a bad one's re-reads do not hold the good one back
 * (each disk is its own sweep), and both finish. */
static void test_two_disks_at_once_each_its_own_result(void **state)
{
    struct fake_disk a, b, *f[2] = { &a, &b };
    struct scan_result r[2];
    (void)state;
    fake_init(&a, "fake0", 8192, 512, 512, 64 * 1024);
    fake_init(&b, "fake1", 2048, 4096, 4096, 128 * 1024);
    fake_add_band(&a, 100, 2);
    assert_int_equal(scan_whole(f, 2, r), BM_OK);
    assert_int_equal(r[0].nbad, 1);
    assert_int_equal(r[0].bad[0].first_lba, 100);
    assert_int_equal(r[0].bad[0].count, 2);
    assert_int_equal(r[1].nbad, 0);
    assert_int_equal(r[1].read_bytes, 2048 * 4096ull);
    assert_int_equal(r[1].chunk_bytes, 128 * 1024);
    assert_int_equal(r[0].status, BM_OK);
    assert_int_equal(r[1].status, BM_OK);
    assert_contract_kept(&a);
    assert_contract_kept(&b);
    fake_free(&a);
    fake_free(&b);
}

/* A disk whose driver gives up (the port declared dead) ends its scan
 * with the reason and how far it got, instead of spinning. */
static void test_dead_disk_stops_with_the_reason(void **state)
{
    struct fake_disk disk, *f = &disk;
    struct scan_result r;
    (void)state;
    fake_init(f, "fake0", 8192, 512, 512, 64 * 1024);
    f->dead_after = 20;
    assert_int_equal(scan_whole(&f, 1, &r), BM_OK);
    assert_int_equal(r.status, BM_EIO);
    assert_non_null(strstr(r.detail, "refused a read at LBA"));
    assert_true(r.scanned_blocks < 8192);
    fake_free(f);
}

/* scan_range=: inclusive LBAs, clipped to the disk with a word, refused past it. */
static void test_scan_range_is_clipped_to_each_disk(void **state)
{
    uint64_t first, blocks;
    char why[160];
    (void)state;
    assert_int_equal(scan_clip_range(false, 0, 0, 1000, &first, &blocks, why, sizeof(why)), BM_OK);
    assert_int_equal(first, 0);
    assert_int_equal(blocks, 1000);
    assert_int_equal(scan_clip_range(true, 10, 19, 1000, &first, &blocks, why, sizeof(why)), BM_OK);
    assert_int_equal(first, 10);
    assert_int_equal(blocks, 10);
    assert_string_equal(why, "");
    assert_int_equal(scan_clip_range(true, 10, UINT64_MAX, 1000, &first, &blocks, why, sizeof(why)), BM_OK);
    assert_int_equal(blocks, 990);
    assert_string_equal(why, "");
    assert_int_equal(scan_clip_range(true, 10, 5000, 1000, &first, &blocks, why, sizeof(why)), BM_OK);
    assert_int_equal(blocks, 990);
    assert_non_null(strstr(why, "last LBA 999"));
    assert_int_equal(scan_clip_range(true, 1000, 2000, 1000, &first, &blocks, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "starts at LBA 1000"));
}

/* A range scan reads exactly its LBAs, the last read short. */
static void test_range_scan_reads_only_its_range(void **state)
{
    struct fake_disk disk;
    struct bm_disk *d = &disk.d;
    struct scan_result r;
    uint64_t first = 1000, blocks = 300;
    (void)state;
    fake_init(&disk, "fake0", 8192, 512, 512, 64 * 1024);
    assert_int_equal(disk_scan(&d, 1, &first, &blocks, STALL_NS, &r), BM_OK);
    assert_int_equal(r.status, BM_OK);
    assert_int_equal(r.first_lba, 1000);
    assert_int_equal(r.scanned_blocks, 300);
    assert_int_equal(r.read_bytes, 300 * 512);
    assert_int_equal(r.npoints, 1);
    for (uint64_t b = 0; b < 8192; b++)
        assert_int_equal(disk.read_count[b], b >= 1000 && b < 1300);
    assert_contract_kept(&disk);
    fake_free(&disk);
}

/* A disk that completes nothing is given up after the stall limit the
 * caller passes (disk_stall_ns(): it follows io_timeout=), not a fixed
 * one; its commands stay with the engine. */
static void test_disk_completing_nothing_is_given_up_at_the_stall_limit(void **state)
{
    struct fake_disk disk;
    struct bm_disk *d = &disk.d;
    struct scan_result r;
    uint64_t first = 0, blocks = 4096, t0;
    (void)state;
    fake_init(&disk, "fake0", 4096, 512, 512, 64 * 1024);
    disk.hung = true;
    t0 = plat_now_ns();
    assert_int_equal(disk_scan(&d, 1, &first, &blocks, 1 * NS_PER_S, &r), BM_OK);
    assert_true(plat_now_ns() - t0 < 20 * NS_PER_S);
    assert_int_equal(r.status, BM_ETIMEDOUT);
    assert_non_null(strstr(r.detail, "no completion for 1 s"));
    assert_int_equal(r.read_bytes, 0);                     /* nothing came back */
    assert_true(disk.submitted > 0);
}

struct reread_step {
    uint64_t lba;
    uint32_t blocks;
    bool bad;
};

/* Drive a scan of one read of n blocks that fails in the pass, then its
 * re-reads: each must be want[i] (lowest LBA first, alone), and fails when
 * want[i].bad says. The scan must then list one unreadable range,
 * bad_count blocks from bad_first, with reread_errors re-reads failed. */
static void expect_rereads(uint32_t n, const struct reread_step *want, unsigned nwant, uint64_t bad_first,
                           uint64_t bad_count, uint64_t reread_errors)
{
    static struct scan_state scan;
    struct scan_state *s = &scan;
    struct scan_result result, *r = &result;
    uint64_t lba;
    uint32_t blocks;

    scan_state_init(s, r, 0, n, n, 1, 0);
    assert_true(scan_next(s, &lba, &blocks));
    assert_int_equal(lba, 0);
    assert_int_equal(blocks, n);
    assert_false(scan_next(s, &lba, &blocks)); /* the whole range is in flight */
    scan_done(s, 0, n, BM_EIO, "UNC", 1000, 1000);
    for (unsigned i = 0; i < nwant; i++) {
        assert_true(scan_next(s, &lba, &blocks));
        assert_int_equal(lba, want[i].lba);
        assert_int_equal(blocks, want[i].blocks);
        assert_false(scan_next(s, &lba, &blocks)); /* alone */
        scan_done(s, lba, blocks, want[i].bad ? BM_EIO : BM_OK, "UNC", 1000, 2000 + i);
    }
    assert_false(scan_next(s, &lba, &blocks));
    assert_int_equal(r->errors, 1);
    assert_int_equal(r->rereads, nwant);
    assert_int_equal(r->nbad, 1);
    assert_int_equal(r->bad[0].first_lba, bad_first);
    assert_int_equal(r->bad[0].count, bad_count);
    assert_int_equal(r->reread_errors, reread_errors);
}

/* The halving itself, without a disk: a failed read of 8 blocks with one
 * bad block at 5 is re-read as 4+4, then 2+2, then 1+1, lowest first.
 * [4,8) fails but its first half does too, so [6,8) may be clean; it
 * starts right after the bad block, so it is halved once more (see
 * test_piece_after_an_unreadable_block_is_split_unread). */
static void test_failed_read_is_reread_in_halves_lowest_first(void **state)
{
    static const struct reread_step want[] = {
        { 0, 4, false }, { 4, 4, true }, { 4, 2, true }, { 4, 1, false }, { 5, 1, true }, { 6, 1, false },
        { 7, 1, false },
    };
    (void)state;
    expect_rereads(8, want, ARRAY_SIZE(want), 5, 1, 3);
}

/* A second half whose parent failed on a re-read (alone, so the failure
 * was its own) and whose first half read clean can only fail: it is split
 * without being read whole. One bad block at 15 of 16: the pass's read
 * [0,16) fails; [8,16) is still read whole (a read of the pass may have
 * failed only because an NCQ error beside it aborted it), fails, and from
 * there [12,16) and [14,16) are known to fail. Before, both were read (and
 * failed): 8 re-reads, 4 failing. */
static void test_second_half_known_to_fail_is_split_unread(void **state)
{
    static const struct reread_step want[] = {
        { 0, 8, false }, { 8, 8, true }, { 8, 4, false }, { 12, 2, false }, { 14, 1, false }, { 15, 1, true },
    };
    (void)state;
    expect_rereads(16, want, ARRAY_SIZE(want), 15, 1, 2);
}

/* A piece that starts where a block was just named unreadable is split
 * without a whole read: the band likely runs on into it. Bad blocks 6-9
 * of 16: after 6 and 7, [8,16) is not read whole but halved down to 8,
 * which fails, then 9; [10,12) is halved too (10 and 11 read clean: the
 * guess's cost), and [12,16), after a clean block, is read whole. Before,
 * [8,16), [8,12) and [8,10) were read, and failed: 12 re-reads, 7 failing. */
static void test_piece_after_an_unreadable_block_is_split_unread(void **state)
{
    static const struct reread_step want[] = {
        { 0, 8, true }, { 0, 4, false }, { 4, 2, false }, { 6, 1, true }, { 7, 1, true },
        { 8, 1, true }, { 9, 1, true }, { 10, 1, false }, { 11, 1, false }, { 12, 4, false },
    };
    (void)state;
    expect_rereads(16, want, ARRAY_SIZE(want), 6, 4, 5);
}

/* The QEMU test's band (tests/qemu/test_scan.py): 16 unreadable sectors at
 * LBA 20000-20015 of a 32 MiB disk read in 1 MiB reads. The pass's read
 * [18432,20480) fails; the failing re-reads are [19456,20480) (its second
 * half, read whole: see above), [19968,20224), [19968,20096),
 * [19968,20032); the halves known to fail, [19968,20480) (after
 * [19456,19968) read clean) and [20000,20032) (after [19968,20000)), are
 * not read. Then the band: [20000,20016), [20000,20008), [20000,20004),
 * [20000,20002), and each of its 16 blocks alone (every piece after
 * 20000 starts where a block was just named unreadable): 4 + 4 + 16 = 24.
 * Before, every piece of the band and both halves known to fail were
 * read: 37. The reads the error caught beside it are re-read clean. */
static void test_band_rereads_skip_pieces_known_to_fail(void **state)
{
    struct fake_disk disk, *f = &disk;
    struct scan_result r;
    (void)state;
    fake_init(f, "fake0", 32 * 2048, 512, 512, 1u << 20);
    fake_add_band(f, 20000, 16);
    assert_int_equal(scan_whole(&f, 1, &r), BM_OK);
    assert_int_equal(r.status, BM_OK);
    assert_int_equal(r.nbad, 1);
    assert_int_equal(r.bad[0].first_lba, 20000);
    assert_int_equal(r.bad[0].count, 16);
    assert_int_equal(r.bad_blocks, 16);
    assert_int_equal(r.read_bytes, (32 * 2048 - 16) * 512ull);
    assert_int_equal(r.reread_errors, 4 + 4 + 16);
    assert_int_equal(f->small_with_others, 0);
    assert_contract_kept(f);
    fake_free(f);
}

/* The scan keeps SEQ1M-Q8T1's shape (issue 29): on a disk that answers at
 * once, every poll until the last queue's worth is issued finds all 8
 * reads in flight, across each of the curve's part boundaries too: the
 * scan never drains its queue where a part ends. */
static void test_queue_stays_full_across_curve_parts(void **state)
{
    struct fake_disk disk, *f = &disk;
    struct scan_result r;
    (void)state;
    fake_init(f, "fake0", 4096 * 128, 512, 512, 64 * 1024); /* 4096 reads of 64 KiB */
    f->service_ns = 0;
    assert_int_equal(scan_whole(&f, 1, &r), BM_OK);
    assert_int_equal(r.status, BM_OK);
    assert_int_equal(r.npoints, 100);
    assert_int_equal(f->submitted, 4096);
    assert_int_equal(f->min_inflight_midway, SCAN_QD);
    assert_int_equal(f->max_inflight, SCAN_QD);
    assert_contract_kept(f);
    fake_free(f);
}

static int setup(void **state)
{
    (void)state;
    engine_limit_cpus(1);
    plat_sim_set_abort(false);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_band_is_listed_exactly_and_the_scan_carries_on, setup),
        cmocka_unit_test_setup(test_bands_at_both_ends_and_adjacent_ones_merge, setup),
        cmocka_unit_test_setup(test_512e_disk_names_whole_physical_blocks, setup),
        cmocka_unit_test_setup(test_slow_zone_shows_in_the_curve_and_the_buckets, setup),
        cmocka_unit_test_setup(test_two_disks_at_once_each_its_own_result, setup),
        cmocka_unit_test_setup(test_dead_disk_stops_with_the_reason, setup),
        cmocka_unit_test_setup(test_scan_range_is_clipped_to_each_disk, setup),
        cmocka_unit_test_setup(test_range_scan_reads_only_its_range, setup),
        cmocka_unit_test_setup(test_failed_read_is_reread_in_halves_lowest_first, setup),
        cmocka_unit_test_setup(test_second_half_known_to_fail_is_split_unread, setup),
        cmocka_unit_test_setup(test_piece_after_an_unreadable_block_is_split_unread, setup),
        cmocka_unit_test_setup(test_band_rereads_skip_pieces_known_to_fail, setup),
        cmocka_unit_test_setup(test_queue_stays_full_across_curve_parts, setup),
        cmocka_unit_test_setup(test_disk_completing_nothing_is_given_up_at_the_stall_limit, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
