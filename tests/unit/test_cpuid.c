/* CPUID decoding: brand string, invariant TSC and cache sizes from the
 * leaves of an Intel, a recent AMD and an older AMD processor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "inventory/cpuid.h"

struct leaf {
    uint32_t leaf, sub;
    struct cpuid_regs r;
};

struct fake_cpu {
    const struct leaf *leaves;
    size_t n;
};

static void fake_cpuid(void *ctx, uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
    const struct fake_cpu *c = ctx;
    memset(r, 0, sizeof(*r));
    for (size_t i = 0; i < c->n; i++)
        if (c->leaves[i].leaf == leaf && c->leaves[i].sub == sub)
            *r = c->leaves[i].r;
}

/* Four characters of a brand string as CPUID returns them in a register. */
#define S4(s) ((uint32_t)(s)[0] | (uint32_t)(s)[1] << 8 | (uint32_t)(s)[2] << 16 | (uint32_t)(s)[3] << 24)
#define BRAND(leaf, s) { leaf, 0, { S4(s), S4((s) + 4), S4((s) + 8), S4((s) + 12) } }

/* Deterministic cache parameters (Intel leaf 4, AMD 8000001Dh). */
#define CACHE(leaf, sub, level, type, ways, sets)                                                        \
    {                                                                                                    \
        leaf, sub, { (level) << 5 | (type), ((ways) - 1u) << 22 | 63u, (sets) - 1u, 0 }                \
    }

static void test_intel_leaf4_caches_brand_and_invariant_tsc(void **state)
{
    const struct leaf leaves[] = {
        { 0, 0, { 0x16, S4("Genu"), S4("ntel"), S4("ineI") } },
        { 0x80000000u, 0, { 0x80000008u, 0, 0, 0 } },
        BRAND(0x80000002u, "      Intel(R) X"),
        BRAND(0x80000003u, "eon(R) Gold 6148"),
        BRAND(0x80000004u, " CPU @ 2.40GHz\0\0"),
        { 0x80000007u, 0, { 0, 0, 0, 1u << 8 } },
        CACHE(4, 0, 1, 1, 8, 64),      /* L1d 32 KiB */
        CACHE(4, 1, 1, 2, 8, 64),      /* L1i 32 KiB */
        CACHE(4, 2, 2, 3, 16, 1024),   /* L2 1 MiB */
        CACHE(4, 3, 3, 3, 11, 57344),  /* L3 38.5 MiB */
    };
    struct fake_cpu cpu = { leaves, ARRAY_SIZE(leaves) };
    struct cpu_ident id;

    (void)state;
    cpu_identify_with(fake_cpuid, &cpu, &id);
    assert_string_equal(id.vendor, "GenuineIntel");
    assert_string_equal(id.brand, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
    assert_true(id.tsc_invariant);
    assert_int_equal(id.l1d_bytes, 32768);
    assert_int_equal(id.l1i_bytes, 32768);
    assert_int_equal(id.l2_bytes, 1048576);
    assert_int_equal(id.l3_bytes, 11u * 64u * 57344u);
    assert_int_equal(id.line_bytes, 64);
    assert_string_equal(id.cache_source, "cpuid 4");
}

static void test_amd_topology_extension_caches(void **state)
{
    const struct leaf leaves[] = {
        { 0, 0, { 0x10, S4("Auth"), S4("cAMD"), S4("enti") } },
        { 0x80000000u, 0, { 0x80000020u, 0, 0, 0 } },
        { 0x80000001u, 0, { 0, 0, 1u << 22, 0 } },
        { 0x80000007u, 0, { 0, 0, 0, 1u << 8 } },
        CACHE(0x8000001du, 0, 1, 1, 8, 64),
        CACHE(0x8000001du, 1, 1, 2, 8, 64),
        CACHE(0x8000001du, 2, 2, 3, 8, 1024),
        CACHE(0x8000001du, 3, 3, 3, 16, 16384),
        /* Leaf 4 is reserved on AMD and must not be used. */
        CACHE(4, 0, 1, 1, 1, 1),
    };
    struct fake_cpu cpu = { leaves, ARRAY_SIZE(leaves) };
    struct cpu_ident id;

    (void)state;
    cpu_identify_with(fake_cpuid, &cpu, &id);
    assert_string_equal(id.vendor, "AuthenticAMD");
    assert_string_equal(id.brand, "AuthenticAMD"); /* no brand leaves: the vendor stands in */
    assert_int_equal(id.l1d_bytes, 32768);
    assert_int_equal(id.l2_bytes, 512 * 1024);
    assert_int_equal(id.l3_bytes, 16 * 1024 * 1024);
    assert_string_equal(id.cache_source, "cpuid 0x8000001d");
}

static void test_older_amd_legacy_cache_leaves(void **state)
{
    const struct leaf leaves[] = {
        { 0, 0, { 0x05, S4("Auth"), S4("cAMD"), S4("enti") } },
        { 0x80000000u, 0, { 0x8000001bu, 0, 0, 0 } },
        { 0x80000001u, 0, { 0, 0, 0, 0 } }, /* no topology extensions */
        { 0x80000005u, 0, { 0, 0, 64u << 24 | 2u << 16 | 1u << 8 | 64u, 64u << 24 | 64u } },
        { 0x80000006u, 0, { 0, 0, 512u << 16 | 0x6140, 12u << 18 } },
        { 0x80000007u, 0, { 0, 0, 0, 0 } },
    };
    struct fake_cpu cpu = { leaves, ARRAY_SIZE(leaves) };
    struct cpu_ident id;

    (void)state;
    cpu_identify_with(fake_cpuid, &cpu, &id);
    assert_false(id.tsc_invariant);
    assert_int_equal(id.l1d_bytes, 64 * 1024);
    assert_int_equal(id.l1i_bytes, 64 * 1024);
    assert_int_equal(id.l2_bytes, 512 * 1024);
    assert_int_equal(id.l3_bytes, 6 * 1024 * 1024);
    assert_int_equal(id.line_bytes, 64);
}

/* No extended leaves at all: nothing invented. */
static void test_minimal_cpu(void **state)
{
    const struct leaf leaves[] = {
        { 0, 0, { 0x01, S4("Genu"), S4("ntel"), S4("ineI") } },
    };
    struct fake_cpu cpu = { leaves, ARRAY_SIZE(leaves) };
    struct cpu_ident id;

    (void)state;
    cpu_identify_with(fake_cpuid, &cpu, &id);
    assert_false(id.tsc_invariant);
    assert_int_equal(id.l1d_bytes + id.l2_bytes + id.l3_bytes, 0);
    assert_string_equal(id.cache_source, "none");
}

/* The real instruction on the build machine gives a consistent picture. */
static void test_this_cpu(void **state)
{
    struct cpu_ident id;

    (void)state;
    cpu_identify(&id);
    assert_true(strlen(id.vendor) == 12);
    assert_true(id.brand[0] != ' ' && id.brand[0] != '\0');
    if (id.l1d_bytes && id.l2_bytes)
        assert_true(id.l2_bytes >= id.l1d_bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intel_leaf4_caches_brand_and_invariant_tsc),
        cmocka_unit_test(test_amd_topology_extension_caches),
        cmocka_unit_test(test_older_amd_legacy_cache_leaves),
        cmocka_unit_test(test_minimal_cpu),
        cmocka_unit_test(test_this_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
