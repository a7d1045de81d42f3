/* The E820 map's entries as page spans (efi/mem/e820.c, used by the BIOS
 * build's allocator): RAM shrinks to whole pages and reserved grows, the
 * limits clip, and entries whose end passes 2^64 (a firmware's nonsense)
 * neither wrap to a small range nor hand out memory that is not there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mem/e820.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

static void test_e820_ram_shrinks_and_reserved_grows_to_pages(void **state)
{
    struct e820_entry ram = { 0x100001, 0x3000, E820_TYPE_RAM }, res = { 0x100001, 0x3000, 2 };
    uint64_t lo, hi;

    (void)state;
    assert_true(e820_page_span(&ram, 0, 4 * GIB, &lo, &hi));
    assert_int_equal(lo, 0x101000);
    assert_int_equal(hi, 0x103000);
    assert_true(e820_page_span(&res, 0, 4 * GIB, &lo, &hi));
    assert_int_equal(lo, 0x100000);
    assert_int_equal(hi, 0x104000);
    /* Clipped to the limits; nothing left is false. */
    assert_true(e820_page_span(&res, 0x102000, 0x103000, &lo, &hi));
    assert_int_equal(lo, 0x102000);
    assert_int_equal(hi, 0x103000);
    assert_false(e820_page_span(&res, 0x200000, 4 * GIB, &lo, &hi));
    ram.size = 0xfff;
    ram.addr = 0x100000;
    assert_false(e820_page_span(&ram, 0, 4 * GIB, &lo, &hi));
}

/* No E820 (a BIOS older than 1996, or one that returns CF at once): the
 * map from E801h and 88h, as Linux e820__memory_setup_default(). */
static void test_e820_from_e801_and_88h(void **state)
{
    struct e820_entry map[2];
    uint64_t lo, hi;

    (void)state;
    /* E801h: 15 MiB + 4032 x 64 KiB = 267 MiB total above 1 MiB; 88h says 64 MiB - 1 KiB. */
    assert_int_equal(e820_from_legacy(15 * 1024 + (4032 << 6), 0xfc00, map), 2);
    assert_int_equal(map[0].addr, 0);
    assert_int_equal(map[0].size, 640 * 1024);
    assert_int_equal(map[1].addr, MIB);
    assert_int_equal(map[1].size, (15ull * 1024 + (4032 << 6)) * 1024);
    assert_int_equal(map[1].type, E820_TYPE_RAM);
    assert_true(e820_page_span(&map[1], 0, 4 * GIB, &lo, &hi));
    assert_int_equal(hi, MIB + map[1].size);
    /* Only 88h answered: its 63 MiB. */
    assert_int_equal(e820_from_legacy(0, 63 * 1024, map), 2);
    assert_int_equal(map[1].size, 63 * MIB);
    /* Neither: no map (and no memory to run in). */
    assert_int_equal(e820_from_legacy(0, 0, map), 0);
}

static void test_e820_reserved_past_2_64_reserves_to_the_limit(void **state)
{
    /* addr + size wraps to 0: the old arithmetic reserved nothing, leaving
     * the RAM under it free. */
    struct e820_entry res = { 16 * MIB, 0ull - 16 * MIB, 2 };
    uint64_t lo, hi;

    (void)state;
    assert_true(e820_page_span(&res, 2 * MIB, 4 * GIB, &lo, &hi));
    assert_int_equal(lo, 16 * MIB);
    assert_int_equal(hi, 4 * GIB);
    res.size = UINT64_MAX;
    assert_true(e820_page_span(&res, 2 * MIB, 4 * GIB, &lo, &hi));
    assert_int_equal(hi, 4 * GIB);
}

static void test_e820_ram_past_2_64_gives_nothing(void **state)
{
    struct e820_entry map[3] = {
        { 1 * MIB, 2 * GIB, E820_TYPE_RAM },
        { 8 * GIB, UINT64_MAX - 4 * GIB, E820_TYPE_RAM },   /* wraps */
        { UINT64_MAX - 100, 50, E820_TYPE_RAM },           /* ends below 2^64 but no whole page */
    };
    uint64_t lo, hi;

    (void)state;
    assert_false(e820_page_span(&map[1], 0, 512 * GIB, &lo, &hi));
    assert_false(e820_page_span(&map[2], 0, UINT64_MAX & ~4095ull, &lo, &hi));
    assert_int_equal(e820_ram_top(map, 2, 4 * GIB), 4 * GIB);
    map[0].size = 20 * GIB;
    assert_int_equal(e820_ram_top(map, 2, 4 * GIB), 20 * GIB + 1 * MIB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e820_ram_shrinks_and_reserved_grows_to_pages),
        cmocka_unit_test(test_e820_from_e801_and_88h),
        cmocka_unit_test(test_e820_reserved_past_2_64_reserves_to_the_limit),
        cmocka_unit_test(test_e820_ram_past_2_64_gives_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
