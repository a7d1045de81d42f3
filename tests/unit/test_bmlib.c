/* efi/lib/bmlib.c: the number parsing and the small statistics helpers
 * that several layers share (config values, JSON \u escapes, BOOTIF= MACs,
 * memory medians, MTRR boundaries). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/bmlib.h"

static void test_hex_digit_takes_both_cases_and_nothing_else(void **state)
{
    const char *digits = "0123456789abcdef", *upper = "ABCDEF", *not_hex = "gG/:@`x -";

    (void)state;
    for (int i = 0; digits[i]; i++)
        assert_int_equal(bm_hex_digit(digits[i]), i);
    for (int i = 0; upper[i]; i++)
        assert_int_equal(bm_hex_digit(upper[i]), 10 + i);
    for (int i = 0; not_hex[i]; i++)
        assert_int_equal(bm_hex_digit(not_hex[i]), -1);
}

static void test_parse_u64_decimal_and_hex(void **state)
{
    uint64_t v = 0;

    (void)state;
    assert_true(bm_parse_u64("4096", &v));
    assert_true(v == 4096);
    assert_true(bm_parse_u64("0xBEdd", &v));
    assert_true(v == 0xbedd);
    assert_true(bm_parse_u64("18446744073709551615", &v));
    assert_true(v == UINT64_MAX);
    assert_true(bm_parse_u64("0xffffffffffffffff", &v));
    assert_true(v == UINT64_MAX);
}

static void test_parse_u64_refuses_letters_in_decimal_and_overflow(void **state)
{
    const char *bad[] = { "", "12a", "0x", "0xg1", "1 2", "-1", "18446744073709551616", "0x10000000000000000" };
    uint64_t v;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(bm_parse_u64(bad[i], &v));
}

static void test_sort_median_sorts_and_takes_the_middle(void **state)
{
    double odd[] = { 7, 1, 5, 3, 9 }, even[] = { 8, 2, 6, 4 }, one[] = { 42 };

    (void)state;
    assert_true(bm_sort_median(odd, 5) == 5);
    for (int i = 1; i < 5; i++)
        assert_true(odd[i - 1] <= odd[i]);
    assert_true(bm_sort_median(even, 4) == 5);
    assert_true(even[0] == 2 && even[3] == 8);
    assert_true(bm_sort_median(one, 1) == 42);
    assert_true(bm_median_sorted(even, 3) == 4);
}

static void test_cmp_u64_orders_the_whole_range(void **state)
{
    uint64_t v[] = { UINT64_MAX, 0, 1ull << 63, 5, (1ull << 63) - 1, 5 };

    (void)state;
    qsort(v, 6, sizeof(v[0]), bm_cmp_u64);
    for (int i = 1; i < 6; i++)
        assert_true(v[i - 1] <= v[i]);
    assert_true(v[0] == 0 && v[5] == UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hex_digit_takes_both_cases_and_nothing_else),
        cmocka_unit_test(test_parse_u64_decimal_and_hex),
        cmocka_unit_test(test_parse_u64_refuses_letters_in_decimal_and_overflow),
        cmocka_unit_test(test_sort_median_sorts_and_takes_the_middle),
        cmocka_unit_test(test_cmp_u64_orders_the_whole_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
