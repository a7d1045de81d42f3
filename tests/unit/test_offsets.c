/* Offset generation: every I/O inside the disk and aligned to its own
 * size, for every block size and disk size, tiny and odd ones included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "efi/disk/offsets.h"
#include "efi/platform.h"

static const uint64_t disk_sizes[] = { 1, 7, 8, 9, 15, 16, 17, 1000, 1001, 4095, 4096, 4097,
                                       (1ull << 21) + 3, (1ull << 31) - 1, (1ull << 40) + 17 };

static void check_all(bool random)
{
    for (size_t s = 0; s < sizeof(disk_sizes) / sizeof(disk_sizes[0]); s++)
        for (uint32_t lba = 512; lba <= 4096; lba *= 8)
            for (uint32_t bs = 512; bs <= (8u << 20); bs *= 2) {
                struct offset_gen g;
                uint64_t blocks = disk_sizes[s];
                int rc = offset_gen_init(&g, blocks, lba, bs, random, s * 1000 + bs);

                if (bs % lba) {
                    assert_int_equal(rc, BM_EINVAL);
                    continue;
                }
                if (bs / lba > blocks) {
                    assert_int_equal(rc, BM_ENOSPC);
                    continue;
                }
                assert_int_equal(rc, BM_OK);
                for (int i = 0; i < 3000; i++) {
                    uint64_t off = offset_gen_next(&g);
                    uint64_t io = bs / lba;
                    assert_int_equal(off % io, 0);
                    assert_true(off + io <= blocks);
                }
            }
}

static void test_random_offsets_inside_and_aligned(void **state)
{
    (void)state;
    check_all(true);
}

static void test_sequential_offsets_inside_and_aligned(void **state)
{
    (void)state;
    check_all(false);
}

/* A 512e disk whose lowest aligned LBA is 7 (the physical 4 KiB blocks
 * start at LBA 7): every 4 KiB and 1 MiB I/O starts on one of them, none
 * runs past the end, and both ends of the disk are reached. */
static void test_offsets_start_at_the_lowest_aligned_lba(void **state)
{
    const uint64_t blocks = 7 + 8 * 100 + 5;
    (void)state;
    for (int random = 0; random < 2; random++)
        for (uint32_t bs = 4096; bs <= 65536; bs *= 16) {
            struct offset_gen g;
            uint64_t io = bs / 512, lo = UINT64_MAX, hi = 0;

            assert_int_equal(offset_gen_init_from(&g, 7, blocks, 512, bs, random, 3), BM_OK);
            for (int i = 0; i < 5000; i++) {
                uint64_t off = offset_gen_next(&g);
                assert_int_equal((off - 7) % io, 0);
                assert_true(off >= 7 && off + io <= blocks);
                lo = off < lo ? off : lo;
                hi = off > hi ? off : hi;
            }
            assert_int_equal(lo, 7);
            assert_int_equal(hi, 7 + ((blocks - 7) / io - 1) * io);
        }
    {
        struct offset_gen g;
        assert_int_equal(offset_gen_init_from(&g, 1000, 1000, 512, 4096, true, 1), BM_ENOSPC);
        assert_int_equal(offset_gen_init_from(&g, 0, 1000, 512, 4096, false, 1), BM_OK);
        assert_int_equal(g.first, 0);
    }
}

static void test_io_larger_than_block_size_multiple_rejected(void **state)
{
    struct offset_gen g;
    (void)state;
    assert_int_equal(offset_gen_init(&g, 1000, 4096, 512, true, 1), BM_EINVAL);
    assert_int_equal(offset_gen_init(&g, 1000, 4096, 6144, true, 1), BM_EINVAL);
    assert_int_equal(offset_gen_init(&g, 1000, 512, 0, true, 1), BM_EINVAL);
    assert_int_equal(offset_gen_init(&g, 0, 512, 512, true, 1), BM_ENOSPC);
}

static void test_sequential_walks_up_and_wraps_over_whole_positions(void **state)
{
    struct offset_gen g;
    uint64_t first, prev;
    (void)state;

    /* 10 blocks of 512, I/Os of 2 KiB: positions 0, 4 (8 and 9 are a tail
     * too short for an I/O and never touched). */
    assert_int_equal(offset_gen_init(&g, 10, 512, 2048, false, 99), BM_OK);
    assert_int_equal(g.positions, 2);
    first = prev = offset_gen_next(&g);
    for (int i = 0; i < 9; i++) {
        uint64_t off = offset_gen_next(&g);
        assert_int_equal(off, prev == 4 ? 0 : prev + 4);
        prev = off;
    }
    (void)first;
}

static void test_sequential_start_is_random(void **state)
{
    bool seen[64] = { false };
    unsigned distinct = 0;
    (void)state;

    for (uint64_t seed = 0; seed < 200; seed++) {
        struct offset_gen g;
        assert_int_equal(offset_gen_init(&g, 64 * 8, 512, 4096, false, seed), BM_OK);
        uint64_t pos = offset_gen_next(&g) / 8;
        if (!seen[pos]) {
            seen[pos] = true;
            distinct++;
        }
    }
    assert_true(distinct > 40);
}

static void test_random_offsets_are_uniform(void **state)
{
    struct offset_gen g;
    unsigned count[10] = { 0 };
    (void)state;

    assert_int_equal(offset_gen_init(&g, 80, 512, 4096, true, 5), BM_OK);
    for (int i = 0; i < 100000; i++)
        count[offset_gen_next(&g) / 8]++;
    for (int i = 0; i < 10; i++)
        assert_true(count[i] > 9500 && count[i] < 10500);
}

static void test_random_offsets_reach_both_ends_of_a_big_disk(void **state)
{
    struct offset_gen g;
    uint64_t blocks = 1ull << 34, lo = UINT64_MAX, hi = 0; /* 8 TiB of 512-byte blocks */
    (void)state;

    assert_int_equal(offset_gen_init(&g, blocks, 512, 4096, true, 11), BM_OK);
    for (int i = 0; i < 10000; i++) {
        uint64_t off = offset_gen_next(&g);
        lo = off < lo ? off : lo;
        hi = off > hi ? off : hi;
    }
    assert_true(lo < blocks / 100);
    assert_true(hi > blocks - blocks / 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_offsets_inside_and_aligned),
        cmocka_unit_test(test_sequential_offsets_inside_and_aligned),
        cmocka_unit_test(test_io_larger_than_block_size_multiple_rejected),
        cmocka_unit_test(test_offsets_start_at_the_lowest_aligned_lba),
        cmocka_unit_test(test_sequential_walks_up_and_wraps_over_whole_positions),
        cmocka_unit_test(test_sequential_start_is_random),
        cmocka_unit_test(test_random_offsets_are_uniform),
        cmocka_unit_test(test_random_offsets_reach_both_ends_of_a_big_disk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
