/* The write rules end to end: how write= is parsed and matched, which disk
 * a serial names, and what disk_run() really writes on file disks (the
 * host's firmware path): only the disks write= names and disks= selects,
 * never the boot disk, never a disk whose serial another disk shares,
 * never in the all-disks tests, and nothing more once a disk has failed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "drivers/fileblk.h"
#include "efi/disk/discover.h"
#include "efi/disk/disk.h"
#include "efi/platform_sim.h"
#include "efi/disk/engine.h"
#include "efi/disk/safety.h"
#include "efi/disk/verify.h"
#include "efi/record.h"
#include "capture_sink.h"
#include "efi/time_units.h"

#define MIB (1u << 20)

static char dir[256];

/* ---- write= and how a serial matches ------------------------------------------------ */

static int set(struct config *c, const char *key, const char *value)
{
    char err[256];
    return config_set(c, key, value, err, sizeof(err));
}

static void test_write_list_rejects_blanks_and_empty_items(void **state)
{
    struct config c;
    const char *bad[] = { "", "A,", ",A", "A,,B", "A B", " A", "A\tB", "A=B", "A#B",
                          "0123456789012345678901234567890123456789012345678" /* 49 chars */ };
    (void)state;

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        config_defaults(&c);
        assert_int_equal(set(&c, "write", "KEEP"), BM_OK);
        assert_int_equal(set(&c, "write", bad[i]), BM_EINVAL);
        /* a refused value leaves the list as it was, nothing half-parsed */
        assert_int_equal(c.write.count, 1);
        assert_string_equal(c.write.items[0], "KEEP");
    }
}

static void test_write_matches_whole_serial_exactly(void **state)
{
    struct config c;
    (void)state;

    config_defaults(&c);
    assert_int_equal(set(&c, "write", "S1234,abc"), BM_OK);
    assert_true(config_write_allowed(&c, "S1234"));
    assert_true(config_write_allowed(&c, "abc"));
    /* prefixes, extensions and case variants name other disks */
    assert_false(config_write_allowed(&c, "S123"));
    assert_false(config_write_allowed(&c, "S12345"));
    assert_false(config_write_allowed(&c, "s1234"));
    assert_false(config_write_allowed(&c, "ABC"));
    assert_false(config_write_allowed(&c, ""));
    assert_false(config_write_allowed(&c, NULL));
    /* the default and "none" allow nothing; "all" is not a wildcard */
    config_defaults(&c);
    assert_false(config_write_allowed(&c, "S1234"));
    assert_int_equal(set(&c, "write", "S1234"), BM_OK);
    assert_int_equal(set(&c, "write", "none"), BM_OK);
    assert_false(config_write_allowed(&c, "S1234"));
    assert_int_equal(set(&c, "write", "all"), BM_OK);
    assert_false(config_write_allowed(&c, "S1234"));
    assert_true(config_write_allowed(&c, "all"));
    assert_int_equal(set(&c, "write", "*,S?,S.*"), BM_OK);
    assert_false(config_write_allowed(&c, "S1234"));
    assert_false(config_write_allowed(&c, "S1"));
}

static void test_padded_drive_serials_match_their_trimmed_name(void **state)
{
    struct config c;
    char serial[48];
    (void)state;

    /* Drives pad serials (ATA and NVMe with spaces, some with NULs); the
     * disk's serial is the padding stripped, which is what write= names. */
    config_defaults(&c);
    assert_int_equal(set(&c, "write", "S1234"), BM_OK);
    bm_copy_padded(serial, sizeof(serial), "      S1234         ", 20);
    assert_true(config_write_allowed(&c, serial));
    bm_copy_padded(serial, sizeof(serial), "S1234\0\0\0", 8);
    assert_true(config_write_allowed(&c, serial));
    /* a serial of padding only is no serial */
    bm_copy_padded(serial, sizeof(serial), "                    ", 20);
    assert_string_equal(serial, "");
    assert_false(config_write_allowed(&c, serial));
    /* inner spaces stay: such a serial cannot be written in write=, so the
     * disk is never written, rather than matched loosely */
    bm_copy_padded(serial, sizeof(serial), "  S1 234  ", 10);
    assert_string_equal(serial, "S1 234");
    assert_int_equal(set(&c, "write", "S1 234"), BM_EINVAL);
}

static void test_last_write_wins_and_command_line_overrides_file(void **state)
{
    struct config c;
    char err[256];
    (void)state;

    config_defaults(&c);
    assert_int_equal(config_parse_file(&c, "write=A\nwrite=B,C\n", err, sizeof(err)), BM_OK);
    assert_false(config_write_allowed(&c, "A"));
    assert_true(config_write_allowed(&c, "B") && config_write_allowed(&c, "C"));
    /* the command line replaces the file's list; it does not add to it */
    assert_int_equal(config_parse_args(&c, "baremark.efi write=D", err, sizeof(err)), BM_OK);
    assert_false(config_write_allowed(&c, "B") || config_write_allowed(&c, "C"));
    assert_true(config_write_allowed(&c, "D"));
    assert_int_equal(config_parse_args(&c, "write=none", err, sizeof(err)), BM_OK);
    assert_false(config_write_allowed(&c, "D"));
    /* a bad write= anywhere stops the run (the caller gets BM_EINVAL) */
    config_defaults(&c);
    assert_int_equal(config_parse_file(&c, "write = A, B\n", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "write"));
}

/* ---- a serial shared by several disks ---------------------------------------------- */

static struct bm_disk disk(const char *serial, uint8_t bus, uint32_t port)
{
    struct bm_disk d;
    memset(&d, 0, sizeof(d));
    bm_strlcpy(d.serial, serial, sizeof(d.serial));
    d.has_pci = true;
    d.pci_addr = (struct pci_addr){ 0, bus, 0, 0 };
    d.port = port;
    return d;
}

static void test_shared_serial_clashes_unless_namespaces_of_one_controller(void **state)
{
    struct bm_disk a = disk("SAME", 3, 1), b = disk("SAME", 4, 1), c = disk("OTHER", 3, 2);
    struct bm_disk ns1 = disk("NVME1", 5, 1), ns2 = disk("NVME1", 5, 2), ns1again = disk("NVME1", 5, 1);
    struct bm_disk e1 = disk("", 3, 1), e2 = disk("", 4, 1);
    (void)state;

    /* two controllers, one serial: write= cannot say which it means */
    assert_true(disk_serials_clash(&a, false, &b, false));
    assert_true(disk_serials_clash(&a, true, &b, true));
    assert_false(disk_serials_clash(&a, false, &c, false));
    /* namespaces of one NVMe controller share its serial by design */
    assert_false(disk_serials_clash(&ns1, true, &ns2, true));
    /* ... but not disks of other kinds on one controller (two USB sticks
     * behind one host controller, a disk seen through two paths) */
    assert_true(disk_serials_clash(&ns1, false, &ns2, false));
    assert_true(disk_serials_clash(&ns1, true, &ns2, false));
    /* one namespace seen twice is one disk named twice */
    assert_true(disk_serials_clash(&ns1, true, &ns1again, true));
    /* no serial, nothing to clash about (it is never written anyway) */
    assert_false(disk_serials_clash(&e1, false, &e2, false));
}

/* The namespace exception rests on a property the driver sets
 * (controller_serial), not on the driver's name: two disks on one
 * controller with one serial are twins unless they say they carry their
 * controller's serial. */
static void test_namespace_exception_follows_the_controller_serial_property(void **state)
{
    struct bm_disk ns1 = disk("NVME1", 5, 1), ns2 = disk("NVME1", 5, 2);
    struct bm_disk *both[2] = { &ns1, &ns2 };
    struct disk_write_decision w[2];
    struct plat_boot_location boot, results;
    struct config c;
    char err[160];
    (void)state;

    config_defaults(&c);
    assert_int_equal(config_set(&c, "write", "NVME1", err, sizeof(err)), BM_OK);
    memset(&boot, 0, sizeof(boot));
    memset(&results, 0, sizeof(results));
    bm_strlcpy(ns1.id, "d0", sizeof(ns1.id));
    bm_strlcpy(ns2.id, "d1", sizeof(ns2.id));
    bm_strlcpy(ns1.driver, "nvme", sizeof(ns1.driver)); /* the name alone proves nothing */
    bm_strlcpy(ns2.driver, "nvme", sizeof(ns2.driver));
    disk_decide_writes(&c, both, 2, &boot, &results, w);
    assert_int_equal(w[0].perm, WRITE_REFUSED);
    assert_string_equal(w[0].facts.serial_twin, "d1");
    ns1.controller_serial = ns2.controller_serial = true;
    disk_decide_writes(&c, both, 2, &boot, &results, w);
    assert_int_equal(w[0].perm, WRITE_ALLOWED);
    assert_int_equal(w[1].perm, WRITE_ALLOWED);
    assert_null(w[0].facts.serial_twin);
}

static void test_write_refused_when_serial_is_shared(void **state)
{
    struct config c;
    struct disk_facts f = { .serial_twin = "fw3" };
    char why[160];
    (void)state;

    config_defaults(&c);
    assert_int_equal(set(&c, "write", "SAME"), BM_OK);
    assert_int_equal(disk_write_permission(&c, "SAME", &f, why, sizeof(why)), WRITE_REFUSED);
    assert_non_null(strstr(why, "fw3"));
    assert_non_null(strstr(why, "same serial"));
    /* not listed: nothing to refuse, the run stays quiet */
    assert_int_equal(disk_write_permission(&c, "ELSE", &f, why, sizeof(why)), WRITE_NOT_LISTED);
}

/* ---- disk_run() on file disks -------------------------------------------------------- */

/* A file of random data; its content is kept in *copy to compare later. */
static void make_file(const char *name, size_t bytes, char *path, size_t len, uint8_t **copy)
{
    FILE *f;
    uint8_t *buf = malloc(bytes);
    struct bm_rng r;

    assert_non_null(buf);
    bm_rng_seed(&r, bytes ^ (uint64_t)name[0] << 32);
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t v = bm_rng_next(&r);
        memcpy(buf + i, &v, 8);
    }
    snprintf(path, len, "%s/%s", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, bytes, f), bytes);
    fclose(f);
    *copy = buf;
}

static bool file_unchanged(const char *path, const uint8_t *copy, size_t bytes)
{
    FILE *f = fopen(path, "rb");
    uint8_t *now = malloc(bytes + 1);
    size_t n;
    bool same;

    assert_non_null(f);
    assert_non_null(now);
    n = fread(now, 1, bytes + 1, f);
    fclose(f);
    same = n == bytes && !memcmp(now, copy, bytes);
    free(now);
    return same;
}

/* disk_run() over BAREMARK_HOST_DISKS with these options, records captured. */
static void run_disks(const char *env, const char *boot_path, const char *const *opts)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    struct plat_boot_location boot;
    struct engine_timing tm;
    struct config c;
    char err[256];

    setenv("BAREMARK_HOST_DISKS", env, 1);
    if (boot_path)
        setenv("BAREMARK_HOST_BOOT", boot_path, 1);
    config_defaults(&c);
    for (unsigned i = 0; opts[i]; i += 2)
        assert_int_equal(config_set(&c, opts[i], opts[i + 1], err, sizeof(err)), BM_OK);
    memset(&boot, 0, sizeof(boot));
    boot.has_volume = boot_path != NULL;
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    /* A short warm-up and window; the run's own stall limit. */
    disk_timing_for(&c, &tm);
    tm.warmup_ns = 2000000ull;
    tm.measure_ns = 10000000ull;
    if (c.passes > 1) {
        assert_int_equal(disk_open(&c, &boot), BM_OK);
        for (unsigned p = 0; p < c.passes; p++)
            assert_int_equal(disk_pass_timed(&c, &tm), BM_OK);
        disk_close();
    } else {
        assert_int_equal(disk_run_timed(&c, &boot, &tm), BM_OK);
    }
    sinks_close();
    unsetenv("BAREMARK_HOST_DISKS");
    unsetenv("BAREMARK_HOST_BOOT");
}

static void test_two_disks_with_one_serial_are_never_written(void **state)
{
    char a[512], b[512], c[512], env[2048];
    uint8_t *a0, *b0, *c0;
    const char *opts[] = { "write", "TWIN,SOLO", "disk", "quick", NULL };
    (void)state;

    /* Cheap USB bridges give every unit the same serial: which disk did
     * the user mean? Neither is written; the one with its own serial is. */
    make_file("twin1.img", 4 * MIB, a, sizeof(a), &a0);
    make_file("twin2.img", 4 * MIB, b, sizeof(b), &b0);
    make_file("solo.img", 4 * MIB, c, sizeof(c), &c0);
    snprintf(env, sizeof(env), "%s=TWIN,%s=TWIN,%s=SOLO", a, b, c);
    run_disks(env, NULL, opts);

    assert_int_equal(count_records("disk", "\"serial\":\"TWIN\"", "\"writes\":false"), 2);
    assert_int_equal(count_records("disk", "\"serial\":\"SOLO\"", "\"writes\":true"), 1);
    assert_int_equal(count_records("error", "\"where\":\"fw0\"", "same serial as fw1"), 1);
    assert_int_equal(count_records("error", "\"where\":\"fw1\"", "same serial as fw0"), 1);
    assert_int_equal(count_records("error", NULL, NULL), 2);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "write\""), 0);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw1\"", "write\""), 0);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw2\"", "\"rw\":\"write\""), 2);
    assert_true(file_unchanged(a, a0, 4 * MIB));
    assert_true(file_unchanged(b, b0, 4 * MIB));
    assert_false(file_unchanged(c, c0, 4 * MIB));
    free(a0);
    free(b0);
    free(c0);
}

static void test_boot_disk_twin_is_never_written(void **state)
{
    char a[512], b[512], env[2048];
    uint8_t *a0, *b0;
    const char *opts[] = { "write", "STICK", "verify", "1M", NULL };
    (void)state;

    /* The boot stick and a second stick of the same batch: refusing only
     * the boot one would write the other, which may be the user's. */
    make_file("boot.img", 4 * MIB, a, sizeof(a), &a0);
    make_file("twin.img", 4 * MIB, b, sizeof(b), &b0);
    snprintf(env, sizeof(env), "%s=STICK,%s=STICK", a, b);
    run_disks(env, a, opts);
    assert_int_equal(count_records("disk", "\"boot\":true", "\"writes\":false"), 1);
    assert_int_equal(count_records("disk", "\"id\":\"fw1\"", "\"writes\":false"), 1);
    assert_int_equal(count_records("error", "\"where\":\"fw0\"", "loaded from"), 1);
    assert_int_equal(count_records("error", "\"where\":\"fw1\"", "same serial"), 1);
    assert_int_equal(count_records("verify", NULL, NULL), 0);
    assert_true(file_unchanged(a, a0, 4 * MIB));
    assert_true(file_unchanged(b, b0, 4 * MIB));
    free(a0);
    free(b0);
}

static void test_only_selected_listed_disks_are_written_and_verified(void **state)
{
    char a[512], b[512], c[512], env[2048];
    uint8_t *a0, *b0, *c0;
    const char *opts[] = { "write", "WA,WB", "disks", "WA,RC", "verify", "64K", "passes", "2", NULL };
    (void)state;

    /* WB is in write= but not in disks=: it is not touched at all. RC is
     * selected but not in write=: read only. Two burn-in passes with
     * verify= write only WA, and the all-disks tests only read. */
    make_file("wa.img", 4 * MIB, a, sizeof(a), &a0);
    make_file("wb.img", 4 * MIB, b, sizeof(b), &b0);
    make_file("rc.img", 4 * MIB, c, sizeof(c), &c0);
    snprintf(env, sizeof(env), "%s=WA,%s=WB,%s=RC", a, b, c);
    run_disks(env, NULL, opts);
    assert_int_equal(count_records("disk", "\"serial\":\"WA\"", "\"writes\":true"), 1);
    assert_int_equal(count_records("disk", "\"serial\":\"WB\"", "\"writes\":false"), 1);
    assert_int_equal(count_records("disk", "\"serial\":\"RC\"", "\"writes\":false"), 1);
    assert_int_equal(count_records("verify", "\"disk\":\"fw0\"", "\"result\":\"pass\""), 2);
    assert_int_equal(count_records("verify", NULL, NULL), 2);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw0\"", "\"rw\":\"randwrite\""), 4);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw1\"", NULL), 0);
    assert_int_equal(count_records("disk_result", "\"disk\":\"fw2\"", "write\""), 0);
    /* the all-disks tests ran (twice) and only read */
    assert_int_equal(count_records("disk_result", "\"disk\":\"all\"", NULL), 4);
    assert_int_equal(count_records("disk_result", "\"test\":\"ALL", "write\""), 0);
    assert_int_equal(count_records("error", NULL, NULL), 0);
    assert_false(file_unchanged(a, a0, 4 * MIB));
    assert_true(file_unchanged(b, b0, 4 * MIB));
    assert_true(file_unchanged(c, c0, 4 * MIB));
    free(a0);
    free(b0);
    free(c0);
}

static void test_disk_without_serial_is_only_read(void **state)
{
    char a[512], env[1200];
    uint8_t *a0;
    const char *opts[] = { "write", "SOMETHING", "verify", "64K", NULL };
    (void)state;

    make_file("noserial.img", 4 * MIB, a, sizeof(a), &a0);
    snprintf(env, sizeof(env), "%s", a);
    run_disks(env, NULL, opts);
    assert_int_equal(count_records("disk", "\"serial\":\"\"", "\"writes\":false"), 1);
    assert_int_equal(count_records("note", "write=SOMETHING", "no disk has this serial"), 1);
    assert_int_equal(count_records("disk_result", "write\"", NULL), 0);
    assert_true(file_unchanged(a, a0, 4 * MIB));
    free(a0);
}

/* ---- the engine: writes stay inside the disk and stop at the first error ---------------- */

/* A spy between the engine and a file disk: counts what is submitted
 * after the engine has seen a failed completion. */
static const struct bm_disk_ops *spy_inner;
static bool spy_failure_seen;
static unsigned spy_submits_after_failure;

static int spy_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                      uint32_t blocks, void *buf)
{
    spy_submits_after_failure += spy_failure_seen;
    return spy_inner->submit(d, queue, tag, op, lba, blocks, buf);
}

static int spy_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    int n = spy_inner->poll(d, queue, out, max);
    for (int i = 0; i < n; i++)
        spy_failure_seen |= out[i].status != BM_OK;
    return n;
}

static void test_writes_stay_in_range_and_stop_after_a_failure(void **state)
{
    static const struct engine_timing tm = { 1000000ull, 200000000ull, 5000000000ull };
    static struct bm_disk_ops spy = { spy_submit, spy_poll, NULL };
    struct fileblk_opts o = { 0 };
    struct fileblk_stats st;
    struct disk_test t;
    struct disk_job j;
    struct bm_disk *d;
    char path[512], err[160], why[160];
    uint8_t *copy;
    (void)state;

    /* 1 MiB I/Os on a disk taking 64 KiB per command, 5 blocks beyond the
     * last whole I/O: every command inside the disk, the tail never
     * touched; once a write fails, nothing more is submitted. */
    make_file("edge.img", 3 * MIB + 5 * 512, path, sizeof(path), &copy);
    o.max_qd = 64;
    o.max_transfer_bytes = 64 * 1024;
    o.fail_writes = true;
    o.fail_after = 200;
    d = fileblk_open(path, "edge", "EDGE", &o, err, sizeof(err));
    assert_non_null(d);
    spy_inner = d->ops;
    spy_failure_seen = false;
    spy_submits_after_failure = 0;
    d->ops = &spy;
    memset(&t, 0, sizeof(t));
    bm_strlcpy(t.name, "SEQ1M-Q4T1", sizeof(t.name));
    t.op = BM_IO_WRITE;
    t.bs = MIB;
    t.qd = 4;
    t.threads = 1;
    assert_int_equal(engine_job_prepare(&j, d, &t, 42, why, sizeof(why)), BM_OK);
    assert_int_equal(j.pieces, 16);
    assert_int_equal(engine_run(&j, 1, &tm, "edge", NULL), BM_OK);
    d->ops = spy_inner;
    assert_int_equal(j.status, BM_EIO);
    assert_true(spy_failure_seen);
    assert_int_equal(spy_submits_after_failure, 0);
    fileblk_get_stats(d, &st);
    assert_true(st.writes >= 200);
    assert_int_equal(st.bad_range + st.too_big + st.bad_tag, 0);
    assert_int_equal(fileblk_inflight(d), 0);
    engine_job_free(&j);
    fileblk_close(d);
    {
        FILE *f = fopen(path, "rb");
        uint8_t tail[5 * 512];
        assert_non_null(f);
        fseek(f, 3 * MIB, SEEK_SET);
        assert_int_equal(fread(tail, 1, sizeof(tail), f), sizeof(tail));
        fclose(f);
        assert_memory_equal(tail, copy + 3 * MIB, sizeof(tail));
    }
    free(copy);
}

static void test_disk_that_fails_is_not_written_afterwards(void **state)
{
    char a[512], env[1200];
    uint8_t *a0;
    const char *opts[] = { "write", "FAILS", "verify", "64K", NULL };
    (void)state;

    /* Its reads fail in the first test: the writes write= allows never
     * start, nor does verify=. */
    make_file("fails.img", 4 * MIB, a, sizeof(a), &a0);
    snprintf(env, sizeof(env), "%s=FAILS+failread", a);
    run_disks(env, NULL, opts);
    assert_int_equal(count_records("disk", "\"serial\":\"FAILS\"", "\"writes\":true"), 1);
    assert_int_equal(count_records("error", "\"where\":\"fw0\"", "skipped for the rest of the run"), 1);
    assert_int_equal(count_records("verify", NULL, NULL), 0);
    assert_true(file_unchanged(a, a0, 4 * MIB));
    free(a0);
}

static void test_verify_writes_only_its_range(void **state)
{
    const size_t bytes = 3 * MIB + 7 * 512;
    struct fileblk_opts o = { 0 };
    char path[512], err[160];
    uint8_t *copy, *now = malloc(bytes), expect[512];
    (void)state;

    /* verify= writes a range of the disk somewhere different each pass:
     * every byte outside it stays as it was, and inside it each block
     * carries its own pattern, for any seed and a disk that is not a
     * whole number of chunks. */
    assert_non_null(now);
    make_file("verify.img", bytes, path, sizeof(path), &copy);
    o.max_qd = 8;
    o.max_transfer_bytes = 64 * 1024;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct verify_result v;
        struct bm_disk *d = fileblk_open(path, "v", "V", &o, err, sizeof(err));
        FILE *f;

        assert_non_null(d);
        assert_int_equal(disk_verify(d, MIB, seed, 60ull * NS_PER_S, &v), BM_OK);
        assert_int_equal(v.blocks, MIB / 512);
        assert_true(v.first_lba + v.blocks <= d->blocks);
        fileblk_close(d);
        f = fopen(path, "rb");
        assert_non_null(f);
        assert_int_equal(fread(now, 1, bytes, f), bytes);
        fclose(f);
        assert_memory_equal(now, copy, v.first_lba * 512);
        assert_memory_equal(now + (v.first_lba + v.blocks) * 512, copy + (v.first_lba + v.blocks) * 512,
                            bytes - (v.first_lba + v.blocks) * 512);
        for (uint64_t b = 0; b < v.blocks; b++) {
            verify_fill_block(expect, 512, seed, v.first_lba + b);
            assert_memory_equal(now + (v.first_lba + b) * 512, expect, 512);
        }
        memcpy(copy, now, bytes); /* the next pass starts from here */
    }
    free(now);
    free(copy);
}

/* ---- discovery: the controller under the boot or results volume stays with the firmware -- */

/* An NVMe controller (class 01:08:02) as config space only: a native
 * probe of it claims it and then fails for want of registers. */
static void nvme_config_only(struct plat_sim_dev *dev, struct pci_addr a)
{
    memset(dev, 0, sizeof(*dev));
    dev->addr = a;
    dev->config[0] = 0x36, dev->config[1] = 0x1b, dev->config[2] = 0x10; /* 1b36:0010 */
    dev->config[9] = 0x02, dev->config[10] = 0x08, dev->config[11] = 0x01;
    plat_sim_attach(dev);
}

static void test_boot_and_results_controllers_are_left_to_the_firmware(void **state)
{
    static struct plat_sim_dev boot_dev, res_dev, other_dev;
    static struct disk_set set;
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    const struct pci_addr boot_at = { 0, 3, 0, 0 }, res_at = { 0, 4, 0, 0 }, other_at = { 0, 5, 0, 0 };
    struct plat_boot_location boot, results;
    struct config c;
    (void)state;

    nvme_config_only(&boot_dev, boot_at);
    nvme_config_only(&res_dev, res_at);
    nvme_config_only(&other_dev, other_at);
    config_defaults(&c);
    /* The boot location counts without a volume (the app was loaded from
     * there even if its file system did not open); the results location
     * only with one. */
    memset(&boot, 0, sizeof(boot));
    boot.has_pci = true;
    boot.pci = boot_at;
    memset(&results, 0, sizeof(results));
    results.has_volume = results.has_pci = true;
    results.pci = res_at;
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    for (int mode = 0; mode < 2; mode++) {
        c.driver = mode ? DRIVER_NATIVE : DRIVER_AUTO;
        boot_dev.claims = res_dev.claims = other_dev.claims = 0;
        disk_discover(&c, &boot, &results, &set);
        disk_release(&set);
        assert_int_equal(boot_dev.claims, 0);
        assert_int_equal(res_dev.claims, 0);
        assert_int_equal(other_dev.claims, 1);
    }
    assert_int_equal(count_records("note", "\"where\":\"0000:03:00.0\"", "holds the boot volume: left to the firmware"), 2);
    assert_int_equal(count_records("note", "\"where\":\"0000:04:00.0\"", "holds the results volume"), 2);
    /* no results file: nothing to keep there */
    results.has_volume = false;
    res_dev.claims = 0;
    c.driver = DRIVER_AUTO;
    disk_discover(&c, &boot, &results, &set);
    disk_release(&set);
    assert_int_equal(res_dev.claims, 1);
    sinks_close();
    plat_sim_detach(&boot_dev);
    plat_sim_detach(&res_dev);
    plat_sim_detach(&other_dev);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/baremark-rules-XXXXXX");
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
        cmocka_unit_test(test_write_list_rejects_blanks_and_empty_items),
        cmocka_unit_test(test_write_matches_whole_serial_exactly),
        cmocka_unit_test(test_padded_drive_serials_match_their_trimmed_name),
        cmocka_unit_test(test_last_write_wins_and_command_line_overrides_file),
        cmocka_unit_test(test_shared_serial_clashes_unless_namespaces_of_one_controller),
        cmocka_unit_test(test_namespace_exception_follows_the_controller_serial_property),
        cmocka_unit_test(test_write_refused_when_serial_is_shared),
        cmocka_unit_test(test_two_disks_with_one_serial_are_never_written),
        cmocka_unit_test(test_boot_disk_twin_is_never_written),
        cmocka_unit_test(test_only_selected_listed_disks_are_written_and_verified),
        cmocka_unit_test(test_disk_without_serial_is_only_read),
        cmocka_unit_test(test_writes_stay_in_range_and_stop_after_a_failure),
        cmocka_unit_test(test_disk_that_fails_is_not_written_afterwards),
        cmocka_unit_test(test_verify_writes_only_its_range),
        cmocka_unit_test(test_boot_and_results_controllers_are_left_to_the_firmware),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
