/* The memory benchmark's pure parts: the pointer chains the latency test
 * follows (one cycle through every line, in the promised order), the
 * working-set sizes, the run plan and the pass statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mem/mem_chain.h"

/* A page-aligned buffer like plat_alloc_pages gives. */
static uint8_t *page_buffer(uint64_t bytes)
{
    void *p = NULL;
    assert_int_equal(posix_memalign(&p, MEM_PAGE, bytes), 0);
    memset(p, 0xa5, bytes);
    return p;
}

/* Follow the chain from start for one lap. Every step must land on the start
 * of a line inside the buffer, no line may be seen twice, and after exactly
 * `lines` steps the walk must be back at start. Returns the visit order. */
static uint64_t *walk_one_lap(uint8_t *buf, uint64_t bytes, void *start)
{
    uint64_t lines = bytes / MEM_LINE;
    uint64_t *order = calloc(lines, sizeof(*order));
    uint8_t *seen = calloc(lines, 1);
    void *p = start;

    assert_non_null(order);
    assert_non_null(seen);
    for (uint64_t step = 0; step < lines; step++) {
        uintptr_t off = (uintptr_t)p - (uintptr_t)buf;
        assert_true((uint8_t *)p >= buf && off < bytes);
        assert_int_equal(off % MEM_LINE, 0);
        if (seen[off / MEM_LINE])
            fail_msg("line %llu visited twice (step %llu of %llu)", (unsigned long long)(off / MEM_LINE),
                     (unsigned long long)step, (unsigned long long)lines);
        seen[off / MEM_LINE] = 1;
        order[step] = off / MEM_LINE;
        p = *(void **)p;
    }
    assert_ptr_equal(p, start);
    for (uint64_t i = 0; i < lines; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
    return order;
}

static void test_full_random_visits_every_line_exactly_once(void **state)
{
    /* One page, an odd page count, and a size with many lines. */
    static const uint64_t sizes[] = { 4096, 37 * 4096, 3 * MEM_MIB };
    (void)state;

    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        uint8_t *buf = page_buffer(sizes[i]);
        void *start = mem_chain_build(buf, sizes[i], MEM_FULL_RANDOM, 42 + i);
        uint64_t *order;

        assert_non_null(start);
        order = walk_one_lap(buf, sizes[i], start);
        free(order);
        free(buf);
    }
}

static void test_full_random_is_not_in_address_order(void **state)
{
    const uint64_t bytes = 1 * MEM_MIB, lines = bytes / MEM_LINE;
    uint8_t *buf = page_buffer(bytes);
    uint64_t *order, sequential = 0, same_page = 0;
    (void)state;

    order = walk_one_lap(buf, bytes, mem_chain_build(buf, bytes, MEM_FULL_RANDOM, 7));
    /* A random cycle over 16384 lines: a step to the next line, or within
     * the same page, should be about as rare as 1 in 16384 and 1 in 256. */
    for (uint64_t i = 0; i + 1 < lines; i++) {
        sequential += order[i + 1] == order[i] + 1;
        same_page += order[i + 1] / 64 == order[i] / 64;
    }
    assert_true(sequential < 10);
    assert_true(same_page < lines / 64);
    free(order);
    free(buf);
}

static void test_random_chains_repeat_with_the_seed(void **state)
{
    const uint64_t bytes = 64 * 4096;
    uint8_t *a = page_buffer(bytes), *b = page_buffer(bytes), *c = page_buffer(bytes);
    uint64_t *oa, *ob, *oc;
    bool differs = false;
    (void)state;

    oa = walk_one_lap(a, bytes, mem_chain_build(a, bytes, MEM_FULL_RANDOM, 1));
    ob = walk_one_lap(b, bytes, mem_chain_build(b, bytes, MEM_FULL_RANDOM, 1));
    oc = walk_one_lap(c, bytes, mem_chain_build(c, bytes, MEM_FULL_RANDOM, 2));
    assert_memory_equal(oa, ob, bytes / MEM_LINE * sizeof(uint64_t));
    for (uint64_t i = 0; i < bytes / MEM_LINE; i++)
        differs |= oa[i] != oc[i];
    assert_true(differs);
    free(oa), free(ob), free(oc);
    free(a), free(b), free(c);
}

static void test_page_random_shuffles_inside_pages_in_page_order(void **state)
{
    const uint64_t bytes = 9 * 4096, lines = bytes / MEM_LINE, per_page = MEM_PAGE / MEM_LINE;
    uint8_t *buf = page_buffer(bytes);
    void *start = mem_chain_build(buf, bytes, MEM_PAGE_RANDOM, 3);
    uint64_t *order = walk_one_lap(buf, bytes, start);
    unsigned in_order_pages = 0;
    (void)state;

    /* The lap starts in page 0 and takes the pages one after another, all
     * 64 lines of each before the next. */
    for (uint64_t step = 0; step < lines; step++)
        assert_int_equal(order[step] / per_page, step / per_page);
    /* Inside a page the order is shuffled (a page left in order happens
     * with probability 1/64!). */
    for (uint64_t pg = 0; pg < bytes / MEM_PAGE; pg++) {
        bool ordered = true;
        for (uint64_t k = 0; k < per_page; k++)
            ordered &= order[pg * per_page + k] == pg * per_page + k;
        in_order_pages += ordered;
    }
    assert_int_equal(in_order_pages, 0);
    free(order);
    free(buf);
}

static void test_stride_steps_one_line_and_wraps(void **state)
{
    const uint64_t bytes = 3 * 4096, lines = bytes / MEM_LINE;
    uint8_t *buf = page_buffer(bytes);
    void *start = mem_chain_build(buf, bytes, MEM_STRIDE, 0);
    uint64_t *order;
    (void)state;

    assert_ptr_equal(start, buf);
    order = walk_one_lap(buf, bytes, start);
    for (uint64_t i = 0; i < lines; i++)
        assert_int_equal(order[i], i);
    free(order);
    free(buf);
}

static void test_chain_refuses_partial_pages(void **state)
{
    uint8_t *buf = page_buffer(3 * 4096);
    (void)state;

    assert_null(mem_chain_build(buf, 4096 + 64, MEM_FULL_RANDOM, 1));
    assert_null(mem_chain_build(buf, 2048, MEM_STRIDE, 1));
    assert_null(mem_chain_build(NULL, 4096, MEM_STRIDE, 1));
    free(buf);
}

static void test_pattern_names(void **state)
{
    (void)state;
    assert_string_equal(mem_pattern_name(MEM_STRIDE), "stride");
    assert_string_equal(mem_pattern_name(MEM_PAGE_RANDOM), "page_random");
    assert_string_equal(mem_pattern_name(MEM_FULL_RANDOM), "full_random");
}

/* ---- Sizes ------------------------------------------------------------------------ */

static void test_latency_sizes_from_4k_in_half_steps(void **state)
{
    uint64_t s[64];
    size_t n = mem_latency_sizes(256 * MEM_MIB, s, ARRAY_SIZE(s));
    static const uint64_t head[] = { 4096, 8192, 12288, 16384, 24576, 32768, 49152, 65536 };
    (void)state;

    for (size_t i = 0; i < ARRAY_SIZE(head); i++)
        assert_int_equal(s[i], head[i]);
    /* 4 KiB, then 1x and 1.5x of every power of two from 8 KiB to 128 MiB,
     * then 256 MiB: 1 + 2 * 15 + 1. */
    assert_int_equal(n, 32);
    assert_int_equal(s[n - 1], 256 * MEM_MIB);
    assert_int_equal(s[n - 2], 192 * MEM_MIB);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i] % MEM_PAGE, 0);
        if (i)
            assert_true(s[i] > s[i - 1]);
    }
}

static void test_latency_sizes_end_at_an_unround_max(void **state)
{
    uint64_t s[64];
    size_t n;
    (void)state;

    /* mem_max=100M: ..., 64M, 96M, then 100M itself. */
    n = mem_latency_sizes(100 * MEM_MIB, s, ARRAY_SIZE(s));
    assert_int_equal(s[n - 1], 100 * MEM_MIB);
    assert_int_equal(s[n - 2], 96 * MEM_MIB);
    /* An LLC-derived 2032 MiB: 1.5 GiB is a step, 2032 MiB ends the list. */
    n = mem_latency_sizes(2032 * MEM_MIB, s, ARRAY_SIZE(s));
    assert_int_equal(s[n - 2], 1536 * MEM_MIB);
    assert_int_equal(s[n - 1], 2032 * MEM_MIB);
    /* 10000 bytes: whole pages only, so 4 KiB and 8 KiB. */
    n = mem_latency_sizes(10000, s, ARRAY_SIZE(s));
    assert_int_equal(n, 2);
    assert_int_equal(s[1], 8192);
    /* Less than a page: nothing to measure. */
    assert_int_equal(mem_latency_sizes(4095, s, ARRAY_SIZE(s)), 0);
    /* The output is never overrun. */
    assert_int_equal(mem_latency_sizes(MEM_GIB, s, 5), 5);
}

/* ---- Plan --------------------------------------------------------------------------- */

static void test_plan_quick_covers_4x_llc_and_256m(void **state)
{
    struct mem_plan p;
    (void)state;

    /* A 32 MiB LLC: 4x is 128 MiB, so 256 MiB rules. */
    mem_plan_make(&p, LEVEL_QUICK, 32 * MEM_MIB, 64 * MEM_GIB, 0, 16);
    assert_int_equal(p.lat_max_bytes, 256 * MEM_MIB);
    assert_int_equal(p.bw_bytes, 128 * MEM_MIB);
    assert_int_equal(p.bw_all_bytes, 128 * MEM_MIB);
    assert_false(p.capped_by_option || p.capped_by_memory);
    /* A 96 MiB LLC: 4x = 384 MiB is past 256 MiB (8 threads x 384 MiB
     * still fit the 4 GiB quick allows for bandwidth buffers). */
    mem_plan_make(&p, LEVEL_QUICK, 96 * MEM_MIB, 64 * MEM_GIB, 0, 8);
    assert_int_equal(p.lat_max_bytes, 384 * MEM_MIB);
    assert_int_equal(p.bw_bytes, 384 * MEM_MIB);
    /* full goes to 1 GiB and takes more passes. */
    mem_plan_make(&p, LEVEL_FULL, 32 * MEM_MIB, 64 * MEM_GIB, 0, 16);
    assert_int_equal(p.lat_max_bytes, MEM_GIB);
    assert_true(p.lat_passes > 5 && p.bw_passes > 5);
}

static void test_plan_mem_max_caps_every_size(void **state)
{
    struct mem_plan p;
    (void)state;

    mem_plan_make(&p, LEVEL_QUICK, 32 * MEM_MIB, 64 * MEM_GIB, 8 * MEM_MIB + 100, 4);
    assert_int_equal(p.lat_max_bytes, 8 * MEM_MIB);
    assert_int_equal(p.bw_bytes, 8 * MEM_MIB);
    assert_int_equal(p.bw_all_bytes, 8 * MEM_MIB);
    assert_true(p.capped_by_option);
}

static void test_plan_stays_within_a_quarter_of_free_memory(void **state)
{
    struct mem_plan p;
    (void)state;

    /* 512 MiB free: latency at most 128 MiB; one thread 128 MiB, and with
     * both threads running they share 128 MiB. */
    mem_plan_make(&p, LEVEL_QUICK, 32 * MEM_MIB, 512 * MEM_MIB, 0, 2);
    assert_int_equal(p.lat_max_bytes, 128 * MEM_MIB);
    assert_int_equal(p.bw_bytes, 128 * MEM_MIB);
    assert_int_equal(p.bw_all_bytes, 64 * MEM_MIB);
    assert_true(p.capped_by_memory);
    /* 256 threads on a big machine: a thread alone still streams 4x its
     * LLC; all of them together stay within the 4 GiB quick allows. */
    mem_plan_make(&p, LEVEL_QUICK, 32 * MEM_MIB, 1024 * MEM_GIB, 0, 256);
    assert_int_equal(p.bw_bytes, 128 * MEM_MIB);
    assert_int_equal(p.bw_all_bytes * 256, 4 * MEM_GIB);
    assert_int_equal(p.bw_all_bytes % (2 * MEM_MIB), 0);
    assert_false(p.capped_by_memory);
}

/* ---- Statistics and text ---------------------------------------------------------------- */

static void test_spread_of_odd_and_even_counts(void **state)
{
    double odd[] = { 5, 1, 4, 2, 3 }, even[] = { 10, 40, 20, 30 };
    struct mem_spread s;
    (void)state;

    mem_spread_of(odd, 5, &s);
    assert_true(s.min == 1 && s.median == 3 && s.max == 5);
    mem_spread_of(even, 4, &s);
    assert_true(s.min == 10 && s.median == 25 && s.max == 40);
    mem_spread_of(even, 1, &s);
    assert_true(s.min == 10 && s.median == 10 && s.max == 10);
}

static void test_size_text(void **state)
{
    char b[24];
    (void)state;

    mem_size_text(b, sizeof(b), 4096);
    assert_string_equal(b, "4 KiB");
    mem_size_text(b, sizeof(b), 3 * MEM_MIB / 2);
    assert_string_equal(b, "1.5 MiB");
    mem_size_text(b, sizeof(b), 2 * MEM_GIB);
    assert_string_equal(b, "2 GiB");
    mem_size_text(b, sizeof(b), 100);
    assert_string_equal(b, "100 B");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_random_visits_every_line_exactly_once),
        cmocka_unit_test(test_full_random_is_not_in_address_order),
        cmocka_unit_test(test_random_chains_repeat_with_the_seed),
        cmocka_unit_test(test_page_random_shuffles_inside_pages_in_page_order),
        cmocka_unit_test(test_stride_steps_one_line_and_wraps),
        cmocka_unit_test(test_chain_refuses_partial_pages),
        cmocka_unit_test(test_pattern_names),
        cmocka_unit_test(test_latency_sizes_from_4k_in_half_steps),
        cmocka_unit_test(test_latency_sizes_end_at_an_unround_max),
        cmocka_unit_test(test_plan_quick_covers_4x_llc_and_256m),
        cmocka_unit_test(test_plan_mem_max_caps_every_size),
        cmocka_unit_test(test_plan_stays_within_a_quarter_of_free_memory),
        cmocka_unit_test(test_spread_of_odd_and_even_counts),
        cmocka_unit_test(test_size_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
