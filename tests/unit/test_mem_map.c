/* The measured memory map's pure half: regions cover all usable RAM, never
 * cross a NUMA boundary, scale with memory; the judge names the slow top
 * of memory; the mem_map= and mem_map_ms= options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "mem/mem_map_plan.h"
#include "mem/mem_srat.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

static struct mem_region regions[MEM_MAP_MAX_REGIONS];

static uint64_t covered(unsigned n)
{
    uint64_t sum = 0;

    for (unsigned i = 0; i < n; i++) {
        sum += regions[i].ram_bytes;
        assert_true(regions[i].end > regions[i].base);
        assert_true(regions[i].end - regions[i].base >= regions[i].ram_bytes);
        if (i)
            assert_true(regions[i].base >= regions[i - 1].end);
    }
    return sum;
}

/* Region sizes: 1/32 of memory, at least 1 GiB while that leaves 8. */
static void test_region_size_scales_with_memory(void **state)
{
    (void)state;
    assert_int_equal(mem_map_region_bytes(1024 * GIB, 32), 32 * GIB);
    assert_int_equal(mem_map_region_bytes(64 * GIB, 32), 2 * GIB);
    assert_int_equal(mem_map_region_bytes(16 * GIB, 32), 1 * GIB);
    assert_int_equal(mem_map_region_bytes(4 * GIB, 32), 512 * MIB);
    assert_int_equal(mem_map_region_bytes(4 * GIB, 8), 512 * MIB);
    assert_int_equal(mem_map_region_bytes(64 * GIB, 8), 8 * GIB);
    assert_int_equal(mem_map_region_bytes(8 * MIB, 32), 2 * MIB);
}

/* A QEMU -m 4096 map: low memory with holes, the rest above 4 GiB. Every
 * byte of usable RAM is in exactly one region. */
static void test_regions_cover_all_ram(void **state)
{
    static const struct mem_ram_range r[] = {
        { 0, 0xa0000 },
        { 0x100000, 0x7f700000 },        /* to 2 GiB - 9 MiB */
        { 0x80000000ull - 0x800000, 0x400000 },
        { 0x100000000ull, 0x80000000ull }, /* 2 GiB above 4 GiB */
    };
    uint64_t total = 0;
    unsigned n;

    (void)state;
    for (unsigned i = 0; i < ARRAY_SIZE(r); i++)
        total += r[i].bytes;
    n = mem_map_plan(r, ARRAY_SIZE(r), mem_map_region_bytes(total, 32), NULL, 0, regions, MEM_MAP_MAX_REGIONS);
    assert_int_equal(covered(n), total);
    assert_true(n >= 7 && n <= 9);
    assert_int_equal(regions[0].base, 0);
    assert_int_equal(regions[n - 1].end, 0x180000000ull);
}

/* Two NUMA nodes: no region spans the boundary at 2 GiB. */
static void test_regions_stop_at_node_boundaries(void **state)
{
    static const struct mem_ram_range r[] = { { 0x100000, 0xbff00000ull } }; /* 1 MiB .. 3 GiB */
    static const uint64_t cuts[] = { 0, 0x80000000ull, 0xc0000000ull };
    unsigned n;

    (void)state;
    n = mem_map_plan(r, 1, 700 * MIB, cuts, ARRAY_SIZE(cuts), regions, MEM_MAP_MAX_REGIONS);
    assert_int_equal(covered(n), r[0].bytes);
    for (unsigned i = 0; i < n; i++)
        assert_false(regions[i].base < 0x80000000ull && regions[i].end > 0x80000000ull);
}

/* More RAM than regions allow: stops at max, never overflows. */
static void test_region_count_is_bounded(void **state)
{
    static const struct mem_ram_range r[] = { { 0, 1024 * GIB } };

    (void)state;
    assert_int_equal(mem_map_plan(r, 1, 1 * GIB, NULL, 0, regions, 16), 16);
    assert_int_equal(mem_map_plan(r, 1, mem_map_region_bytes(1024 * GIB, 32), NULL, 0, regions,
                                  MEM_MAP_MAX_REGIONS), 32);
}

/* 8 regions, the top 2 at 1.9x lower bandwidth (only 2 of 3 channels). */
static void test_judge_names_the_slow_top(void **state)
{
    struct mem_map_verdict v;

    (void)state;
    memset(regions, 0, sizeof(regions));
    for (unsigned i = 0; i < 8; i++) {
        regions[i].base = i * 8 * GIB;
        regions[i].end = regions[i].base + 8 * GIB;
        regions[i].node = -1;
        regions[i].measured = true;
        regions[i].latency_ns = 90;
        regions[i].read_gbps = i >= 6 ? 50.0 : 95.0;
    }
    regions[3].read_gbps = 93; /* noise stays unflagged */
    mem_map_judge(regions, 8, &v);
    assert_int_equal(v.measured, 8);
    assert_int_equal(v.slow, 2);
    assert_true(regions[6].slow && regions[7].slow && !regions[3].slow);
    assert_int_equal(v.slow_from, 48 * GIB);
    assert_true(v.slow_at_top);
    assert_true(v.worst_ratio > 1.85 && v.worst_ratio < 1.95);
}

/* Latency alone can make a region slow; unmeasured regions do not count,
 * and regions are judged against their own node. */
static void test_judge_latency_and_nodes(void **state)
{
    struct mem_map_verdict v;

    (void)state;
    memset(regions, 0, sizeof(regions));
    for (unsigned i = 0; i < 8; i++) {
        regions[i].base = i * GIB;
        regions[i].node = i < 4 ? 0 : 1;
        regions[i].measured = i != 2;
        regions[i].latency_ns = i < 4 ? 80 : 140; /* node 1 is remote from cpu 0 */
        regions[i].read_gbps = 20;
    }
    regions[1].latency_ns = 100;
    mem_map_judge(regions, 8, &v);
    assert_int_equal(v.measured, 7);
    assert_int_equal(v.slow, 1);
    assert_true(regions[1].slow);
    assert_false(v.slow_at_top);
    for (unsigned i = 4; i < 8; i++)
        assert_false(regions[i].slow);
}

static void test_srat_domain_of_addr(void **state)
{
    static struct srat_info s;

    (void)state;
    memset(&s, 0, sizeof(s));
    s.nmems = 2;
    s.mems[0] = (struct srat_mem){ .base = 0, .length = 2 * GIB, .domain = 0 };
    s.mems[1] = (struct srat_mem){ .base = 4 * GIB, .length = 2 * GIB, .domain = 1 };
    assert_int_equal(srat_domain_of_addr(&s, 0x1000), 0);
    assert_int_equal(srat_domain_of_addr(&s, 5 * GIB), 1);
    assert_int_equal(srat_domain_of_addr(&s, 3 * GIB), -1);
}

/* QEMU's two-node SRAT: node 0 in two ranges around the legacy hole,
 * listed out of order, node 1 above. One cut, where node 1 starts. */
static void test_node_cuts_only_where_the_node_changes(void **state)
{
    static struct srat_info s;
    uint64_t cuts[8];

    (void)state;
    memset(&s, 0, sizeof(s));
    s.nmems = 3;
    s.mems[0] = (struct srat_mem){ .base = 512 * MIB, .length = 512 * MIB, .domain = 1 };
    s.mems[1] = (struct srat_mem){ .base = 0, .length = 0xa0000, .domain = 0 };
    s.mems[2] = (struct srat_mem){ .base = 0x100000, .length = 511 * MIB, .domain = 0 };
    assert_int_equal(mem_map_node_cuts(&s, cuts, 8), 1);
    assert_int_equal(cuts[0], 512 * MIB);
    assert_int_equal(mem_map_node_cuts(&s, cuts, 0), 0);
}

static void test_mem_map_options(void **state)
{
    struct config c;
    char err[256];

    (void)state;
    config_defaults(&c);
    assert_false(c.mem_map_given);
    assert_int_equal(config_parse_args(&c, "x mem_map=quick mem_map_ms=50", err, sizeof(err)), BM_OK);
    assert_true(c.mem_map_given);
    assert_int_equal(c.mem_map, LEVEL_QUICK);
    assert_int_equal(c.mem_map_ms, 50);
    config_defaults(&c);
    assert_int_equal(config_parse_args(&c, "x mem_map_ms=5", err, sizeof(err)), BM_EINVAL);
    config_defaults(&c);
    assert_int_equal(config_parse_args(&c, "x mem_map=most", err, sizeof(err)), BM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_region_size_scales_with_memory),
        cmocka_unit_test(test_regions_cover_all_ram),
        cmocka_unit_test(test_regions_stop_at_node_boundaries),
        cmocka_unit_test(test_region_count_is_bounded),
        cmocka_unit_test(test_judge_names_the_slow_top),
        cmocka_unit_test(test_judge_latency_and_nodes),
        cmocka_unit_test(test_srat_domain_of_addr),
        cmocka_unit_test(test_node_cuts_only_where_the_node_changes),
        cmocka_unit_test(test_mem_map_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
