/* The disk engine on the host, against file disks (drivers/fileblk_host.c):
 * real reads and writes, queue depth kept, transfers split, failures
 * contained, and the whole disk_run() with its records and safety rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "drivers/fileblk.h"
#include "platform_sim.h"
#include "efi/disk/disk.h"
#include "efi/disk/engine.h"
#include "efi/disk/health.h"
#include "efi/record.h"
#include "efi/time_units.h"
#include "capture_sink.h"

#define MIB (1u << 20)

static char dir[256];

static void make_file(const char *name, size_t bytes, bool random, char *path, size_t len)
{
    FILE *f;
    struct bm_rng r;

    snprintf(path, len, "%s/%s", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    bm_rng_seed(&r, bytes);
    for (size_t i = 0; i < bytes / 8; i++) {
        uint64_t v = random ? bm_rng_next(&r) : 0;
        fwrite(&v, 8, 1, f);
    }
    for (size_t i = 0; i < bytes % 8; i++)
        fputc(random ? 0x5a : 0, f);
    fclose(f);
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(*len);
    assert_int_equal(fread(buf, 1, *len, f), *len);
    fclose(f);
    return buf;
}

static const struct engine_timing quick_timing = { 20000000ull, 150000000ull, 5000000000ull };

static struct bm_disk *open_disk(const char *path, const char *id, const struct fileblk_opts *o)
{
    char err[160];
    struct bm_disk *d = fileblk_open(path, id, "SER", o, err, sizeof(err));
    if (!d)
        print_error("%s\n", err);
    assert_non_null(d);
    return d;
}

static void test_make(struct disk_test *t, const char *name, enum bm_io_op op, bool random, uint32_t bs, uint32_t qd,
                      uint32_t threads)
{
    memset(t, 0, sizeof(*t));
    bm_strlcpy(t->name, name, sizeof(t->name));
    t->op = op;
    t->random = random;
    t->bs = bs;
    t->qd = qd;
    t->threads = threads;
}

static void assert_contract_kept(struct bm_disk *d)
{
    struct fileblk_stats st;
    fileblk_get_stats(d, &st);
    assert_int_equal(st.bad_tag, 0);
    assert_int_equal(st.bad_range, 0);
    assert_int_equal(st.too_big, 0);
    assert_int_equal(st.bad_queue, 0);
    assert_int_equal(st.unaligned_buffers, 0);
    assert_int_equal(fileblk_inflight(d), 0);
}

static void test_read_run_leaves_disk_unchanged(void **state)
{
    char path[512];
    size_t n0, n1;
    uint8_t *before, *after;
    struct disk_job job;
    struct disk_test t;
    struct bm_disk *d;
    char why[160];
    (void)state;

    make_file("read.img", 8 * MIB + 1234, true, path, sizeof(path));
    before = read_all(path, &n0);
    d = open_disk(path, "r0", NULL);
    assert_int_equal(d->blocks, (8 * MIB + 1234) / 512);
    test_make(&t, "RND4K-Q32T1", BM_IO_READ, true, 4096, 32, 1);
    assert_int_equal(engine_job_prepare(&job, d, &t, 1, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&job, 1, &quick_timing, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    assert_true(job.ios > 100);
    assert_int_equal(job.hist->count, job.ios);
    assert_int_equal(job.bytes, job.ios * 4096);
    assert_contract_kept(d);
    engine_job_free(&job);
    fileblk_close(d);
    after = read_all(path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
}

static void test_write_run_writes_unique_incompressible_data(void **state)
{
    char path[512];
    size_t n;
    uint8_t *data;
    struct disk_job job;
    struct disk_test t;
    struct bm_disk *d;
    struct fileblk_stats st;
    char why[160];
    unsigned written = 0, zero = 0, dup = 0;
    (void)state;

    make_file("write.img", 4 * MIB, false, path, sizeof(path));
    d = open_disk(path, "w0", NULL);
    test_make(&t, "SEQ128K-Q4T1", BM_IO_WRITE, false, 128 * 1024, 4, 1);
    assert_int_equal(engine_job_prepare(&job, d, &t, 2, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&job, 1, &quick_timing, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    fileblk_get_stats(d, &st);
    assert_true(st.writes > 0 && st.reads == 0);
    assert_contract_kept(d);
    engine_job_free(&job);
    fileblk_close(d);

    /* The sequential run wrapped around a 4 MiB disk: every block was
     * written, none with zeros, and no two blocks hold the same data. */
    data = read_all(path, &n);
    for (size_t b = 0; b < n / 512; b++) {
        const uint64_t *w = (const uint64_t *)(data + b * 512);
        bool all_zero = true;
        for (int i = 0; i < 64; i++)
            all_zero &= w[i] == 0;
        zero += all_zero;
        written += !all_zero;
        if (b && !memcmp(data + b * 512, data + (b - 1) * 512, 512))
            dup++;
    }
    assert_int_equal(zero, 0);
    assert_int_equal(written, n / 512);
    assert_int_equal(dup, 0);
    free(data);
}

static double iops_at(const char *path, uint32_t qd, uint64_t latency_ns, uint32_t *max_inflight)
{
    struct fileblk_opts o = { .latency_ns = latency_ns, .max_qd = 64 };
    struct engine_timing tm = { 20000000ull, 300000000ull, 5000000000ull };
    struct disk_job job;
    struct disk_test t;
    struct fileblk_stats st;
    struct bm_disk *d = open_disk(path, "q0", &o);
    char why[160];
    double iops;

    test_make(&t, "RND4K", BM_IO_READ, true, 4096, qd, 1);
    assert_int_equal(engine_job_prepare(&job, d, &t, qd, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&job, 1, &tm, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    iops = (double)job.ios / job.seconds;
    fileblk_get_stats(d, &st);
    *max_inflight = st.max_inflight;
    assert_contract_kept(d);
    engine_job_free(&job);
    fileblk_close(d);
    return iops;
}

static void test_queue_depth_is_kept_full(void **state)
{
    char path[512];
    uint32_t in1, in16;
    double q1, q16;
    (void)state;

    /* 2 ms per command: QD1 can do at most 500 IOPS, QD16 eight thousand.
     * A loaded host adds its own scheduling delay to every completion, so
     * only a clear multiple is asked for; the depth itself is exact. */
    make_file("qd.img", 4 * MIB, true, path, sizeof(path));
    q1 = iops_at(path, 1, 2000000, &in1);
    q16 = iops_at(path, 16, 2000000, &in16);
    assert_int_equal(in1, 1);
    assert_int_equal(in16, 16);
    assert_true(q1 <= 520);
    if (q16 < 4 * q1) {
        print_error("QD16 %.0f IOPS vs QD1 %.0f IOPS\n", q16, q1);
        fail();
    }
}

static void test_window_stays_open_until_a_first_io_finishes(void **state)
{
    char path[512];
    struct fileblk_opts slow = { .latency_ns = 300000000ull };
    struct engine_timing tm = { 1000000ull, 50000000ull, 5000000000ull };
    struct disk_job job;
    struct disk_test t;
    struct bm_disk *d;
    char why[160];
    (void)state;

    /* Every command takes 300 ms, the window is 50 ms: rather than report
     * nothing, the window waits for the first I/O and says so. */
    make_file("slow.img", MIB, true, path, sizeof(path));
    d = open_disk(path, "slow0", &slow);
    test_make(&t, "RND4K-Q1T1", BM_IO_READ, true, 4096, 1, 1);
    assert_int_equal(engine_job_prepare(&job, d, &t, 1, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&job, 1, &tm, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    assert_int_equal(job.ios, 1);
    assert_true(job.seconds >= 0.29 && job.seconds < 5.0);
    assert_non_null(strstr(job.note, "window kept open"));
    assert_true(job.hist->max >= 300000000ull);
    assert_contract_kept(d);
    engine_job_free(&job);
    fileblk_close(d);
}

static void test_large_transfers_split_at_the_disk_limit(void **state)
{
    char path[512];
    struct fileblk_opts o = { .max_transfer_bytes = 128 * 1024, .max_qd = 32 };
    struct disk_job job;
    struct disk_test t;
    struct fileblk_stats st;
    struct bm_disk *d;
    char why[160];
    (void)state;

    make_file("split.img", 16 * MIB, true, path, sizeof(path));
    d = open_disk(path, "s0", &o);
    test_make(&t, "SEQ1M-Q8T1", BM_IO_READ, false, MIB, 8, 1);
    assert_int_equal(engine_job_prepare(&job, d, &t, 3, why, sizeof(why)), BM_OK);
    assert_int_equal(job.pieces, 8);
    assert_int_equal(job.qd, 4); /* 32 commands in flight / 8 per I/O */
    assert_non_null(strstr(job.note, "queue depth 4"));
    assert_int_equal(engine_run(&job, 1, &quick_timing, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    fileblk_get_stats(d, &st);
    assert_int_equal(st.max_blocks, 256);
    assert_int_equal(st.bytes_read % MIB, 0); /* whole I/Os only */
    assert_true(st.max_inflight <= 32);
    assert_contract_kept(d);
    assert_int_equal(job.bytes, job.ios * MIB);
    engine_job_free(&job);
    fileblk_close(d);
}

static void test_tests_that_cannot_fit_are_refused_with_a_reason(void **state)
{
    char path[512];
    struct fileblk_opts o4k = { .lba_bytes = 4096 }, tiny_qd = { .max_transfer_bytes = 4096, .max_qd = 8 };
    struct disk_job job;
    struct disk_test t;
    struct bm_disk *d;
    char why[160];
    (void)state;

    make_file("tiny.img", 64 * 1024 + 100, true, path, sizeof(path));
    d = open_disk(path, "t0", &o4k);
    test_make(&t, "BS512-Q4", BM_IO_READ, false, 512, 4, 1);
    assert_int_equal(engine_job_prepare(&job, d, &t, 1, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "4096-byte blocks"));
    test_make(&t, "BS1M-Q4", BM_IO_READ, false, MIB, 4, 1);
    assert_int_equal(engine_job_prepare(&job, d, &t, 1, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "smaller"));
    fileblk_close(d);

    d = open_disk(path, "t1", &tiny_qd);
    test_make(&t, "BS64K-Q4", BM_IO_READ, false, 64 * 1024, 4, 1);
    assert_int_equal(engine_job_prepare(&job, d, &t, 1, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "16 commands"));
    fileblk_close(d);
}

static void test_sixteen_threads_on_one_queue_keep_the_total_depth(void **state)
{
    char path[512];
    struct fileblk_opts one = { .max_qd = 1024 }, many = { .max_qd = 64, .nqueues = 16 };
    struct disk_job job;
    struct disk_test t;
    struct bm_disk *d;
    char why[160];
    (void)state;

    make_file("t16.img", 4 * MIB, true, path, sizeof(path));
    test_make(&t, "RND4K-Q32T16", BM_IO_READ, true, 4096, 32, 16);
    d = open_disk(path, "m0", &one);
    assert_int_equal(engine_job_prepare(&job, d, &t, 1, why, sizeof(why)), BM_OK);
    assert_int_equal(job.nq, 1);
    assert_int_equal(job.qd, 512);
    assert_non_null(strstr(job.note, "1 queue of 512"));
    engine_job_free(&job);
    fileblk_close(d);

    d = open_disk(path, "m1", &many);
    assert_int_equal(engine_job_prepare(&job, d, &t, 1, why, sizeof(why)), BM_OK);
    assert_int_equal(job.nq, 16);
    assert_int_equal(job.qd, 32);
    assert_string_equal(job.note, "");
    assert_int_equal(engine_run(&job, 1, &quick_timing, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_OK);
    assert_contract_kept(d);
    engine_job_free(&job);
    fileblk_close(d);
}

static void test_failing_disk_does_not_stop_the_others(void **state)
{
    char p1[512], p2[512];
    struct fileblk_opts bad = { .fail_reads = true, .fail_after = 50 };
    struct disk_job jobs[2];
    struct disk_test t;
    struct bm_disk *good, *broken;
    char why[160];
    (void)state;

    make_file("good.img", 4 * MIB, true, p1, sizeof(p1));
    make_file("bad.img", 4 * MIB, true, p2, sizeof(p2));
    good = open_disk(p1, "g0", NULL);
    broken = open_disk(p2, "b0", &bad);
    test_make(&t, "RND4K-Q32T1", BM_IO_READ, true, 4096, 32, 1);
    assert_int_equal(engine_job_prepare(&jobs[0], good, &t, 1, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_job_prepare(&jobs[1], broken, &t, 2, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(jobs, 2, &quick_timing, "test", NULL), BM_OK);
    assert_int_equal(jobs[0].status, BM_OK);
    assert_true(jobs[0].ios > 100);
    assert_int_equal(jobs[1].status, BM_EIO);
    assert_non_null(strstr(jobs[1].detail, "injected I/O error"));
    assert_non_null(strstr(jobs[1].detail, "randread"));
    assert_contract_kept(good);
    assert_contract_kept(broken);
    engine_job_free(&jobs[0]);
    engine_job_free(&jobs[1]);
    fileblk_close(good);
    fileblk_close(broken);
}

/* A disk whose commands never come back, whose driver says what it is
 * doing about them (an HBA's recovery step, bm_disk_ops.recovery). */
static int silent_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                         uint32_t blocks, void *buf)
{
    (void)d, (void)queue, (void)tag, (void)op, (void)lba, (void)blocks, (void)buf;
    return BM_OK;
}
static int silent_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    (void)d, (void)queue, (void)out, (void)max;
    return 0;
}
static void silent_recovery(struct bm_disk *d, char *out, size_t len)
{
    (void)d;
    snprintf(out, len, "TARGET RESET for slot 3, 1200 ms so far");
}

/* A disk that stalls: its error names the stall and, when the driver
 * says, the recovery step under way and its time. */
static void test_stalled_disk_names_the_drivers_recovery_step(void **state)
{
    static const struct bm_disk_ops ops = { .submit = silent_submit, .poll = silent_poll,
                                            .recovery = silent_recovery };
    static const struct engine_timing fast_stall = { 20000000ull, 150000000ull, 300000000ull };
    struct bm_disk d = { .id = "hba0d0", .driver = "mpt", .path = BM_PATH_NATIVE, .lba_bytes = 512, .phys_bytes = 512,
                         .blocks = 1u << 20, .nqueues = 1, .max_qd = 4, .max_transfer_bytes = 1u << 20, .ops = &ops };
    struct disk_job job;
    struct disk_test t;
    char why[160];
    (void)state;

    test_make(&t, "RND4K-Q1T1", BM_IO_READ, true, 4096, 1, 1);
    assert_int_equal(engine_job_prepare(&job, &d, &t, 1, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&job, 1, &fast_stall, "test", NULL), BM_OK);
    assert_int_equal(job.status, BM_ETIMEDOUT);
    if (!strstr(job.detail, "no completion for") || !strstr(job.detail, "driver: TARGET RESET for slot 3, 1200 ms"))
        fail_msg("stall detail: %s", job.detail);
    engine_job_free(&job);
}

static int logged_health(struct bm_disk *d, struct bm_health *out)
{
    bm_health_init(out, "scsi_log");
    out->temperature_c = 31;
    return BM_OK;
}

/* The health record after the run carries the disk's count of commands
 * the drive completed after correcting an error (what its driver counted
 * with bm_disk_count_recovered); the one before the run, and a disk with
 * none, have no such field. */
static void test_health_after_the_run_says_how_many_commands_were_recovered(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    static const struct bm_disk_ops ops = { .submit = silent_submit, .poll = silent_poll, .health = logged_health };
    struct bm_disk d = { .id = "hba0d1", .driver = "mpt", .path = BM_PATH_NATIVE, .lba_bytes = 512, .blocks = 1u << 20,
                         .nqueues = 1, .max_qd = 4, .ops = &ops };
    struct bm_disk e = d;
    (void)state;

    bm_strlcpy(e.id, "hba0d2", sizeof(e.id));
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    disk_emit_health(&d, "before");
    for (int i = 0; i < 3; i++)
        bm_disk_count_recovered(&d);
    disk_emit_health(&d, "after");
    disk_emit_health(&e, "after");
    sinks_reset();
    assert_int_equal(count_records("health", "\"when\":\"before\"", "\"recovered\""), 0);
    assert_int_equal(count_records("health", "\"disk\":\"hba0d1\",\"when\":\"after\"", "\"recovered\":3"), 1);
    assert_int_equal(count_records("health", "\"disk\":\"hba0d2\"", NULL), 1);
    assert_int_equal(count_records("health", "\"disk\":\"hba0d2\"", "\"recovered\""), 0);
    assert_int_equal(count_records("note", NULL, NULL), 0);
}

static void test_quick_and_full_test_lists(void **state)
{
    struct disk_test t[64];
    unsigned n;
    const char *quick[] = { "SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1" };
    bool bs512 = false, bs8m = false, q256 = false, t16 = false;
    (void)state;

    n = disk_build_tests(LEVEL_QUICK, t, 64);
    assert_int_equal(n, 4);
    for (unsigned i = 0; i < 4; i++)
        assert_string_equal(t[i].name, quick[i]);
    n = disk_build_tests(LEVEL_FULL, t, 64);
    assert_int_equal(n, 4 + 15 + 7 + 1);
    for (unsigned i = 0; i < n; i++) {
        bs512 |= !strcmp(t[i].name, "BS512-Q4") && t[i].bs == 512 && t[i].qd == 4 && !t[i].random;
        bs8m |= !strcmp(t[i].name, "BS8M-Q4") && t[i].bs == 8 * MIB;
        q256 |= !strcmp(t[i].name, "RND4K-Q256T1") && t[i].qd == 256;
        t16 |= !strcmp(t[i].name, "RND4K-Q32T16") && t[i].threads == 16 && t[i].qd == 32;
        for (unsigned k = 0; k < i; k++)
            assert_string_not_equal(t[i].name, t[k].name);
    }
    assert_true(bs512 && bs8m && q256 && t16);
}

/* The stall limit stays 60 s while io_timeout= is at most 30 s, and is
 * twice it above: a driver's timed-out command and its recovery come
 * before the engine gives up on the disk. */
static void test_stall_limit_follows_a_long_io_timeout(void **state)
{
    static const uint32_t io_s[] = { 1, 5, 30, 31, 45, 600 };
    static const uint64_t stall_s[] = { 60, 60, 60, 62, 90, 1200 };
    struct engine_timing t;
    struct config c;
    (void)state;

    config_defaults(&c);
    for (unsigned i = 0; i < ARRAY_SIZE(io_s); i++) {
        c.io_timeout_s = io_s[i];
        disk_timing_for(&c, &t);
        assert_int_equal(t.stall_ns, stall_s[i] * NS_PER_S);
        assert_true(t.stall_ns >= (uint64_t)io_s[i] * NS_PER_S + 30 * NS_PER_S);
    }
}

/* ---- disk_run() end to end, records captured by a test sink ----------------------- */

/* Time for the disk_run tests: a warm-up and window of milliseconds, the run's own stall limit. */
static struct engine_timing test_timing(const struct config *c, uint64_t warmup_ns, uint64_t measure_ns)
{
    struct engine_timing t;

    disk_timing_for(c, &t);
    t.warmup_ns = warmup_ns;
    t.measure_ns = measure_ns;
    return t;
}

static void test_disk_run_end_to_end(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    struct plat_boot_location boot;
    struct config c;
    struct engine_timing tm;
    char a[512], b[512], x[512], env[2048], err[256];
    size_t na, nb, na2, nb2;
    uint8_t *a0, *b0, *a1, *b1;
    (void)state;

    make_file("boot.img", 8 * MIB, true, a, sizeof(a));
    make_file("data.img", 8 * MIB, true, b, sizeof(b));
    make_file("broken.img", 8 * MIB, true, x, sizeof(x));
    a0 = read_all(a, &na);
    b0 = read_all(b, &nb);
    snprintf(env, sizeof(env), "%s=BOOTSER,%s=DATASER,%s=BADSER+failread", a, b, x);
    setenv("BAREMARK_HOST_DISKS", env, 1);
    setenv("BAREMARK_HOST_BOOT", a, 1);

    config_defaults(&c);
    assert_int_equal(config_set(&c, "write", "BOOTSER,DATASER,NOSUCH", err, sizeof(err)), BM_OK);
    assert_int_equal(config_set(&c, "disks", "fw0,DATASER,BADSER,GHOST", err, sizeof(err)), BM_OK);
    memset(&boot, 0, sizeof(boot));
    boot.has_volume = true;
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    tm = test_timing(&c, 10000000ull, 60000000ull);
    assert_int_equal(disk_run_timed(&c, &boot, &tm), BM_OK);
    sinks_close();
    unsetenv("BAREMARK_HOST_DISKS");
    unsetenv("BAREMARK_HOST_BOOT");

    /* Three disk records; the boot disk read-only whatever write= says. */
    assert_int_equal(count_records("disk", NULL, NULL), 3);
    assert_int_equal(count_records("disk", "\"serial\":\"BOOTSER\"", "\"boot\":true"), 1);
    assert_int_equal(count_records("disk", "\"serial\":\"BOOTSER\"", "\"writes\":false"), 1);
    assert_int_equal(count_records("disk", "\"serial\":\"DATASER\"", "\"writes\":true"), 1);
    assert_int_equal(count_records("error", "\"where\":\"fw0\"", "refused"), 1);
    assert_int_equal(count_records("note", "NOSUCH", NULL), 1);
    assert_int_equal(count_records("note", "disks=GHOST", NULL), 1); /* by id and by serial: the others match */
    /* The broken disk fails by name; the others finish. */
    assert_int_equal(count_records("error", "\"where\":\"fw2\"", "injected I/O error"), 1);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw2\"", NULL), 0);
    /* two alone, one with the other disk */
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "\"rw\":\"randread\""), 3);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "write\""), 0);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw1\"", "\"rw\":\"randwrite\""), 2);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw1\"", "\"rw\":\"write\""), 2);
    /* The all-disks tests: per disk, plus one "all" record per workload. */
    assert_int_equal(count_records("disk_result", "\"disk\":\"all\"", "\"disks\":[\"fw0\",\"fw1\"]"), 2);
    assert_int_equal(count_records("disk_result", "\"concurrent\":2", "\"disk\":\"fw1\""), 2);
    assert_int_equal(count_records("disk_result", "\"disk\":\"all\"", "\"core_busy_pct\""), 2);

    a1 = read_all(a, &na2);
    b1 = read_all(b, &nb2);
    assert_memory_equal(a0, a1, na);
    assert_int_equal(nb, nb2);
    assert_true(memcmp(b0, b1, nb) != 0);
    free(a0);
    free(a1);
    free(b0);
    free(b1);
}

/* Esc in the middle of a write test: the run stops with BM_EABORT, not
 * one more write is issued once the run has seen the key (commands in
 * flight drain), and verify= never starts. The disk presses Esc itself on
 * its 20th write. */
static void test_esc_during_a_write_test_stops_all_writing(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    struct plat_boot_location boot;
    struct config c;
    struct engine_timing tm;
    char b[512], env[1024], err[256];
    size_t nb, nb2, changed = 0;
    uint8_t *b0, *b1;
    (void)state;

    make_file("esc.img", 64 * MIB, true, b, sizeof(b));
    b0 = read_all(b, &nb);
    snprintf(env, sizeof(env), "%s=ESCSER+escw=20", b);
    setenv("BAREMARK_HOST_DISKS", env, 1);
    config_defaults(&c);
    assert_int_equal(config_set(&c, "write", "ESCSER", err, sizeof(err)), BM_OK);
    assert_int_equal(config_set(&c, "verify", "1M", err, sizeof(err)), BM_OK);
    memset(&boot, 0, sizeof(boot));
    boot.has_volume = true;
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    fileblk_reset_counters();
    tm = test_timing(&c, 10000000ull, 200000000ull);
    assert_int_equal(disk_run_timed(&c, &boot, &tm), BM_EABORT);
    sinks_close();
    unsetenv("BAREMARK_HOST_DISKS");
    assert_true(plat_abort_requested()); /* the disk did press it */
    plat_sim_set_abort(false);

    assert_int_equal(fileblk_writes_after_esc(), 0);
    assert_int_equal(count_records("verify", NULL, NULL), 0);
    b1 = read_all(b, &nb2);
    assert_int_equal(nb, nb2);
    for (size_t off = 0; off < nb; off += MIB)
        changed += memcmp(b0 + off, b1 + off, MIB) != 0;
    assert_true(changed >= 1);  /* the write test did start */
    free(b0);
    free(b1);
}

static void test_disk_run_full_has_sweeps_and_scaling_series(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    struct plat_boot_location boot;
    struct config c;
    struct engine_timing tm;
    char a[512], b[512], k[512], env[2048], err[256];
    (void)state;

    make_file("f512.img", 32 * MIB, true, a, sizeof(a));
    make_file("f512b.img", 32 * MIB, true, b, sizeof(b));
    make_file("f4k.img", 32 * MIB, true, k, sizeof(k));
    snprintf(env, sizeof(env), "%s=S1,%s=S2,%s=S3", a, b, k);
    setenv("BAREMARK_HOST_DISKS", env, 1);
    config_defaults(&c);
    assert_int_equal(config_set(&c, "disk", "full", err, sizeof(err)), BM_OK);
    assert_int_equal(config_set(&c, "write", "S2", err, sizeof(err)), BM_OK);
    memset(&boot, 0, sizeof(boot));
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    tm = test_timing(&c, 3000000ull, 30000000ull);
    assert_int_equal(disk_run_timed(&c, &boot, &tm), BM_OK);
    sinks_close();
    unsetenv("BAREMARK_HOST_DISKS");

    /* Per disk: 4 quick + 15 block sizes + 7 more depths + T16 reads. */
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "\"test\":\"BS"), 15);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "\"test\":\"RND4K-Q256T1\""), 1);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "\"test\":\"RND4K-Q32T16\""), 1);
    /* The write twins on the disk write= names: all but the depth sweep. */
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw1\"", "\"rw\":\"write\""), 2 + 15);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw1\"", "\"rw\":\"randwrite\""), 3);
    /* The scaling series: 1, 2, 3 disks, for both workloads. */
    for (unsigned n = 1; n <= 3; n++) {
        char t1[64], t2[64];
        snprintf(t1, sizeof(t1), "\"test\":\"ALL%u-SEQ1M-Q8T1\"", n);
        snprintf(t2, sizeof(t2), "\"test\":\"ALL%u-RND4K-Q32T1\"", n);
        assert_int_equal(count_records("disk_result", "\"disk\":\"all\"", t1), 1);
        assert_int_equal(count_records("disk_result", "\"disk\":\"all\"", t2), 1);
        assert_int_equal(count_records("disk_result", t1, NULL), n + 1); /* per disk and the sum */
    }
    assert_int_equal(count_records("error", NULL, NULL), 0);
}

static unsigned scan_texts_2, scan_texts_1;

/* struct sink's text: counts the scan's "N disks at once" lines. */
static void count_scan_texts(struct sink *s, const char *human)
{
    (void)s;
    scan_texts_2 += strstr(human, "surface scan: 2 disks at once") != NULL;
    scan_texts_1 += strstr(human, "surface scan: 1 disk at once") != NULL;
}

/* A native disk of depth 1 (AHCI without NCQ, an Apple 2001 NVMe) never
 * waits in submit or poll (blkdev.h): it runs in the all-disks tests and
 * is scanned at once with the others. Only a firmware path of depth 1
 * (plain Block I/O) runs its command inside submit, so it alone is left
 * out of the all-disks tests and scanned after them, each named. */
static void test_native_depth_1_disk_runs_beside_the_others(void **state)
{
    static struct sink sink = { "test", capture, count_scan_texts, NULL, NULL, NULL };
    struct plat_boot_location boot;
    struct config c;
    struct engine_timing tm;
    char deep[512], nat1[512], fw1[512], env[2048], err[256];
    (void)state;

    make_file("deep.img", 8 * MIB, true, deep, sizeof(deep));
    make_file("nat1.img", 8 * MIB, true, nat1, sizeof(nat1));
    make_file("fw1.img", 8 * MIB, true, fw1, sizeof(fw1));
    snprintf(env, sizeof(env), "%s=DEEP,%s=NAT1+qd=1+native,%s=FW1+qd=1", deep, nat1, fw1);
    setenv("BAREMARK_HOST_DISKS", env, 1);
    config_defaults(&c);
    assert_int_equal(config_set(&c, "scan", "on", err, sizeof(err)), BM_OK);
    memset(&boot, 0, sizeof(boot));
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    scan_texts_1 = scan_texts_2 = 0;
    tm = test_timing(&c, 3000000ull, 30000000ull);
    assert_int_equal(disk_run_timed(&c, &boot, &tm), BM_OK);
    sinks_close();
    unsetenv("BAREMARK_HOST_DISKS");

    assert_int_equal(count_records("disk", "\"serial\":\"NAT1\"", "\"max_qd\":1,"), 1);
    /* fw1, native at depth 1, with fw0 in the all-disks tests ... */
    assert_int_equal(count_records("note", "\"where\":\"fw1\"", "left out of the all-disks"), 0);
    assert_int_equal(count_records("disk_result", "\"disk\":\"all\"", "\"disks\":[\"fw0\",\"fw1\"]"), 2);
    /* ... the firmware one at depth 1 left out, named. */
    assert_int_equal(count_records("note", "\"where\":\"fw2\"", "left out of the all-disks"), 1);
    /* One scan of fw0 and fw1 at once, then fw2's alone; all three read whole. */
    assert_int_equal(scan_texts_2, 1);
    assert_int_equal(scan_texts_1, 1);
    for (unsigned i = 0; i < 3; i++) {
        char id[32];
        snprintf(id, sizeof(id), "\"disk\":\"fw%u\"", i);
        assert_int_equal(count_records("scan", id, "\"result\":\"pass\""), 1);
    }
    assert_int_equal(count_records("error", NULL, NULL), 0);
}

static void test_tests_that_do_not_fit_a_disk_are_skipped_with_a_note(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    struct plat_boot_location boot;
    struct config c;
    struct engine_timing tm;
    char a[512], k[512], env[1200], err[256];
    (void)state;

    /* A 3 MiB disk cannot hold a 4 or 8 MiB I/O; a 4 KiB-sector disk
     * cannot take 512 B to 2 KiB ones. */
    make_file("small.img", 3 * MIB, true, a, sizeof(a));
    make_file("fourk.img", 16 * MIB, true, k, sizeof(k));
    snprintf(env, sizeof(env), "%s=S9,%s=S4K+lba=4096", a, k);
    setenv("BAREMARK_HOST_DISKS", env, 1);
    config_defaults(&c);
    assert_int_equal(config_set(&c, "disk", "full", err, sizeof(err)), BM_OK);
    memset(&boot, 0, sizeof(boot));
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    tm = test_timing(&c, 1000000ull, 5000000ull);
    assert_int_equal(disk_run_timed(&c, &boot, &tm), BM_OK);
    sinks_close();
    unsetenv("BAREMARK_HOST_DISKS");
    assert_int_equal(count_records("note", "\"where\":\"fw0\"", "BS4M-Q4 read skipped: the disk is smaller"), 1);
    assert_int_equal(count_records("note", "\"where\":\"fw0\"", "BS8M-Q4"), 1);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "\"test\":\"BS2M-Q4\""), 1);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "\"test\":\"BS4M-Q4\""), 0);
    assert_int_equal(count_records("disk", "\"id\":\"fw1\"", "\"lba_bytes\":4096"), 1);
    assert_int_equal(count_records("note", "\"where\":\"fw1\"", "BS512-Q4 read skipped: 512-byte I/Os"), 1);
    assert_int_equal(count_records("note", "\"where\":\"fw1\"", "BS2K-Q4"), 1);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw1\"", "\"test\":\"BS4K-Q4\""), 1);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw1\"", "\"test\":\"BS1K-Q4\""), 0);
    assert_int_equal(count_records("error", NULL, NULL), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/baremark-engine-XXXXXX");
    assert_non_null(mkdtemp(dir));
    plat_init();
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_run_leaves_disk_unchanged),
        cmocka_unit_test(test_write_run_writes_unique_incompressible_data),
        cmocka_unit_test(test_queue_depth_is_kept_full),
        cmocka_unit_test(test_window_stays_open_until_a_first_io_finishes),
        cmocka_unit_test(test_large_transfers_split_at_the_disk_limit),
        cmocka_unit_test(test_tests_that_cannot_fit_are_refused_with_a_reason),
        cmocka_unit_test(test_sixteen_threads_on_one_queue_keep_the_total_depth),
        cmocka_unit_test(test_failing_disk_does_not_stop_the_others),
        cmocka_unit_test(test_quick_and_full_test_lists),
        cmocka_unit_test(test_stall_limit_follows_a_long_io_timeout),
        cmocka_unit_test(test_stalled_disk_names_the_drivers_recovery_step),
        cmocka_unit_test(test_health_after_the_run_says_how_many_commands_were_recovered),
        cmocka_unit_test(test_disk_run_end_to_end),
        cmocka_unit_test(test_esc_during_a_write_test_stops_all_writing),
        cmocka_unit_test(test_disk_run_full_has_sweeps_and_scaling_series),
        cmocka_unit_test(test_tests_that_do_not_fit_a_disk_are_skipped_with_a_note),
        cmocka_unit_test(test_native_depth_1_disk_runs_beside_the_others),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
