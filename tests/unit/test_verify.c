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
        assert_int_equal(disk_verify(d, 1 << 20, 42 + i, &v), BM_OK);
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
    assert_int_equal(disk_verify(d, 64ull << 20, 7, &v), BM_OK);
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
    assert_int_equal(disk_verify(d, 1 << 20, 1, &v), BM_EIO);
    assert_non_null(strstr(v.detail, "read at LBA"));
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
