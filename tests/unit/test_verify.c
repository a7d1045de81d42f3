/* verify=: the pattern is unique per block, a good disk passes, a disk
 * whose data changes behind our back is caught at the right LBAs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <unistd.h>

#include "disk/verify.h"
#include "../drivers/fileblk.h"
#include "platform_sim.h"
#include "time_units.h"

/* The stall limit of a default run (plan.c disk_stall_ns(): io_timeout=30). */
#define STALL_NS (60ull * NS_PER_S)

static char path[64];

static struct bm_disk *open_disk(uint32_t lba_bytes, uint64_t bytes, uint32_t max_qd)
{
    struct fileblk_opts o;
    FILE *f;

    snprintf(path, sizeof(path), "/tmp/baremark-verify-%d.img", (int)getpid());
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)bytes), 0);
    fclose(f);
    memset(&o, 0, sizeof(o));
    o.lba_bytes = lba_bytes;
    o.max_qd = max_qd;
    o.max_transfer_bytes = 64 * 1024;
    o.path_kind = BM_PATH_NATIVE;
    return fileblk_open(path, "file0", "F1", &o, NULL, 0);
}

static void test_pattern_differs_per_block_and_seed(void **state)
{
    uint8_t a[512], b[512], c[512];
    (void)state;
    verify_fill_block(a, sizeof(a), 1, 100);
    verify_fill_block(b, sizeof(b), 1, 101);
    verify_fill_block(c, sizeof(c), 2, 100);
    assert_memory_not_equal(a, b, sizeof(a));
    assert_memory_not_equal(a, c, sizeof(a));
    verify_fill_block(b, sizeof(b), 1, 100);
    assert_memory_equal(a, b, sizeof(a)); /* deterministic */
}

static void test_good_disk_passes_for_each_block_size(void **state)
{
    const uint32_t sizes[] = { 512, 4096 };
    (void)state;
    for (unsigned i = 0; i < 2; i++) {
        struct bm_disk *d = open_disk(sizes[i], 8 << 20, 4);
        struct verify_result v;
        assert_non_null(d);
        assert_int_equal(disk_verify(d, 1 << 20, 42 + i, STALL_NS, &v), BM_OK);
        assert_int_equal(v.bad_blocks, 0);
        assert_int_equal(v.blocks * sizes[i], 1 << 20);
        assert_true(v.first_lba + v.blocks <= d->blocks);
        assert_int_equal(v.first_lba % (64 * 1024 / sizes[i]), 0);
        fileblk_close(d);
        unlink(path);
    }
}

static void test_range_is_clamped_to_the_disk(void **state)
{
    struct bm_disk *d = open_disk(512, 256 * 1024, 8);
    struct verify_result v;
    (void)state;
    assert_int_equal(disk_verify(d, 64ull << 20, 7, STALL_NS, &v), BM_OK);
    assert_int_equal(v.first_lba, 0);
    assert_int_equal(v.blocks, d->blocks);
    fileblk_close(d);
    unlink(path);
}

static void test_failing_disk_reports_the_error(void **state)
{
    struct fileblk_opts o;
    struct bm_disk *d;
    struct verify_result v;
    FILE *f;
    (void)state;
    snprintf(path, sizeof(path), "/tmp/baremark-verify-%d.img", (int)getpid());
    f = fopen(path, "w");
    assert_int_equal(ftruncate(fileno(f), 4 << 20), 0);
    fclose(f);
    memset(&o, 0, sizeof(o));
    o.fail_reads = true;
    o.path_kind = BM_PATH_NATIVE;
    d = fileblk_open(path, "file0", "F1", &o, NULL, 0);
    assert_non_null(d);
    assert_int_equal(disk_verify(d, 1 << 20, 1, STALL_NS, &v), BM_EIO);
    assert_non_null(strstr(v.detail, "read at LBA"));
    fileblk_close(d);
    unlink(path);
}

/* verify= runs as engine sweeps: a range that is not whole chunks is
 * written and read exactly once, block for block, at no more than the
 * disk's depth, without breaking the disk's contract. */
static void test_range_of_part_chunks_is_written_and_read_once(void **state)
{
    struct bm_disk *d = open_disk(512, 4 << 20, 2);
    struct fileblk_stats st;
    struct verify_result v;
    uint8_t expect[512], got[512];
    FILE *f;
    (void)state;
    assert_non_null(d);
    assert_int_equal(disk_verify(d, 100 * 1024, 3, STALL_NS, &v), BM_OK);  /* one 64 KiB chunk and 36 KiB */
    assert_int_equal(v.blocks, 200);
    assert_int_equal(v.bad_blocks, 0);
    fileblk_get_stats(d, &st);
    assert_int_equal(st.bytes_written, 200 * 512);
    assert_int_equal(st.bytes_read, 200 * 512);
    assert_int_equal(st.writes + st.reads, 4);
    assert_true(st.max_inflight <= 2);
    assert_int_equal(st.bad_tag + st.bad_range + st.too_big + st.bad_queue + st.unaligned_buffers, 0);
    fileblk_close(d);
    f = fopen(path, "rb");
    assert_non_null(f);
    for (uint64_t b = 0; b < v.blocks; b++) {
        assert_int_equal(fseek(f, (long)((v.first_lba + b) * 512), SEEK_SET), 0);
        assert_int_equal(fread(got, 1, 512, f), 512);
        verify_fill_block(expect, 512, 3, v.first_lba + b);
        assert_memory_equal(got, expect, 512);
    }
    fclose(f);
    unlink(path);
}

/* Esc during the write phase: BM_EABORT, and not one write once the run has seen the key. */
static void test_esc_stops_verify(void **state)
{
    struct fileblk_opts o;
    struct bm_disk *d;
    struct verify_result v;
    FILE *f;
    (void)state;
    snprintf(path, sizeof(path), "/tmp/baremark-verify-%d.img", (int)getpid());
    f = fopen(path, "w");
    assert_int_equal(ftruncate(fileno(f), 8 << 20), 0);
    fclose(f);
    memset(&o, 0, sizeof(o));
    o.max_qd = 2;
    o.max_transfer_bytes = 4096;
    o.esc_after_writes = 3;
    o.path_kind = BM_PATH_NATIVE;
    d = fileblk_open(path, "file0", "F1", &o, NULL, 0);
    assert_non_null(d);
    fileblk_reset_counters();
    assert_int_equal(disk_verify(d, 1 << 20, 1, STALL_NS, &v), BM_EABORT);
    assert_int_equal(fileblk_writes_after_esc(), 0);
    plat_sim_set_abort(false);
    fileblk_close(d);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pattern_differs_per_block_and_seed),
        cmocka_unit_test(test_good_disk_passes_for_each_block_size),
        cmocka_unit_test(test_range_is_clamped_to_the_disk),
        cmocka_unit_test(test_failing_disk_reports_the_error),
        cmocka_unit_test(test_range_of_part_chunks_is_written_and_read_once),
        cmocka_unit_test(test_esc_stops_verify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
