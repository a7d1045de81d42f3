/* RAM the MTRRs leave uncached (efi/mem/mtrr.c): the SDM's precedence of
 * overlapping variable MTRRs, and the coverage of E820 RAM in the layouts
 * real BIOSes program: a write-back default with an uncached PCI hole
 * (SeaBIOS, most later BIOSes), an uncached default with write-back
 * ranges that run out before the top of RAM (the case Linux
 * mtrr_trim_uncached_memory() warns of: "BIOS bug: CPU MTRRs don't cover
 * all of memory"), and MTRRs left disabled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mem/mtrr.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)
#define PHYS_BITS 36
#define MASK(size) ((((1ull << PHYS_BITS) - 1) & ~((size) - 1)) | MTRR_PHYSMASK_VALID)

static void var(struct mtrr_state *s, uint64_t base, uint64_t size, uint8_t type)
{
    s->var[s->nvar].base = base | type;
    s->var[s->nvar].mask = MASK(size);
    s->nvar++;
}

/* Free the unused pairs as the MSRs read on a machine with 8. */
static void pad(struct mtrr_state *s)
{
    while (s->nvar < 8)
        s->nvar++;
}

static void test_mtrr_overlap_precedence(void **state)
{
    struct mtrr_state s = { MTRR_DEF_TYPE_E | MTRR_TYPE_UC, 0, { { 0, 0 } }, PHYS_BITS };

    (void)state;
    var(&s, 0, 4 * GIB, MTRR_TYPE_WB);
    var(&s, 3 * GIB, GIB, MTRR_TYPE_UC);
    var(&s, 2 * GIB, 256 * MIB, MTRR_TYPE_WT);
    var(&s, 2 * GIB + 512 * MIB, 256 * MIB, MTRR_TYPE_WC);
    assert_int_equal(mtrr_type_at(&s, 16 * MIB), MTRR_TYPE_WB);
    assert_int_equal(mtrr_type_at(&s, 3 * GIB + 5), MTRR_TYPE_UC);        /* UC wins over WB */
    assert_int_equal(mtrr_type_at(&s, 2 * GIB + MIB), MTRR_TYPE_WT);      /* WT with WB is WT */
    assert_int_equal(mtrr_type_at(&s, 2 * GIB + 600 * MIB), MTRR_TYPE_UC); /* WC with WB: undefined, taken as UC */
    assert_int_equal(mtrr_type_at(&s, 5 * GIB), MTRR_TYPE_UC);            /* no match: the default */
    s.def_type = MTRR_TYPE_WB;                                            /* E clear: all UC */
    assert_int_equal(mtrr_type_at(&s, 16 * MIB), MTRR_TYPE_UC);
}

static void test_mtrr_seabios_layout_all_ram_write_back(void **state)
{
    /* SeaBIOS mtrr_setup() under QEMU: default WB, the 32-bit PCI window UC. */
    struct mtrr_state s = { MTRR_DEF_TYPE_E | MTRR_TYPE_WB, 0, { { 0, 0 } }, 40 };
    struct e820_entry map[] = {
        { 0, 0x9fc00, E820_TYPE_RAM }, { 0xf0000, 0x10000, 2 }, { MIB, 0xbff00000 - MIB, E820_TYPE_RAM },
        { 0xbff00000, 0x100000, 2 }, { 0xfeffc000, 0x4000, 2 }, { 4 * GIB, 2 * GIB, E820_TYPE_RAM },
    };
    struct mtrr_coverage c;
    char text[512];

    (void)state;
    s.var[0].base = 0xc0000000 | MTRR_TYPE_UC;
    s.var[0].mask = ((1ull << 40) - 1 - (GIB - 1)) | MTRR_PHYSMASK_VALID;
    s.nvar = 1;
    pad(&s);
    mtrr_coverage(&s, map, 6, MIB, 1ull << 40, &c);
    assert_int_equal(c.uncached_bytes, 0);
    assert_int_equal(c.ram_bytes, 0xbff00000 - MIB + 2 * GIB);
    assert_int_equal(c.var_used, 1);
    mtrr_coverage_describe(&s, &c, text, sizeof(text));
    assert_non_null(strstr(text, "write-back"));
    assert_null(strstr(text, "left out"));
}

static void test_mtrr_ran_out_before_the_top_of_ram(void **state)
{
    /* A 2008 two-socket server with 6.5 GiB: default UC, WB 0-4 GiB with
     * the PCI hole UC, WB 4-6 GiB: the last 512 MiB is uncached. */
    struct mtrr_state s = { MTRR_DEF_TYPE_E | MTRR_TYPE_UC, 0, { { 0, 0 } }, PHYS_BITS };
    struct e820_entry map[] = {
        { 0, 0x9ec00, E820_TYPE_RAM }, { MIB, 0xcff70000 - MIB, E820_TYPE_RAM }, { 0xcff70000, 0x90000, 3 },
        { 0xe0000000, 0x10000000, 2 }, { 4 * GIB, 2 * GIB + 512 * MIB, E820_TYPE_RAM },
    };
    struct mtrr_coverage c;
    char text[512];

    (void)state;
    var(&s, 0, 4 * GIB, MTRR_TYPE_WB);
    var(&s, 0xd0000000, 256 * MIB, MTRR_TYPE_UC);
    var(&s, 0xe0000000, 512 * MIB, MTRR_TYPE_UC);
    var(&s, 4 * GIB, 2 * GIB, MTRR_TYPE_WB);
    pad(&s);
    mtrr_coverage(&s, map, 5, MIB, 1ull << PHYS_BITS, &c);
    assert_int_equal(c.uncached_bytes, 512 * MIB);
    assert_int_equal(c.nranges, 1);
    assert_int_equal(c.ranges[0].addr, 6 * GIB);
    assert_int_equal(c.ranges[0].size, 512 * MIB);
    assert_int_equal(c.ranges[0].type, MTRR_TYPE_UC);
    mtrr_coverage_describe(&s, &c, text, sizeof(text));
    assert_non_null(strstr(text, "512 MiB of"));
    assert_non_null(strstr(text, "0x180000000-0x19fffffff UC"));
    assert_non_null(strstr(text, "4 of 8 variable MTRRs"));
}

static void test_mtrr_uc_hole_inside_ram(void **state)
{
    /* An UC range the BIOS put over RAM (a frame buffer carve-out sized
     * wrong): just that range is named, the RAM on both sides is fine. */
    struct mtrr_state s = { MTRR_DEF_TYPE_E | MTRR_TYPE_WB, 0, { { 0, 0 } }, PHYS_BITS };
    struct e820_entry map[] = { { MIB, 2 * GIB - MIB, E820_TYPE_RAM } };
    struct mtrr_coverage c;

    (void)state;
    var(&s, GIB, 64 * MIB, MTRR_TYPE_UC);
    var(&s, GIB + 64 * MIB, 64 * MIB, MTRR_TYPE_WC);
    mtrr_coverage(&s, map, 1, MIB, 4 * GIB, &c);
    assert_int_equal(c.nranges, 2);
    assert_int_equal(c.ranges[0].addr, GIB);
    assert_int_equal(c.ranges[0].type, MTRR_TYPE_UC);
    assert_int_equal(c.ranges[1].addr, GIB + 64 * MIB);
    assert_int_equal(c.ranges[1].type, MTRR_TYPE_WC);
    assert_int_equal(c.uncached_bytes, 128 * MIB);
}

static void test_mtrr_disabled_is_all_uncached(void **state)
{
    struct mtrr_state s = { MTRR_TYPE_WB, 0, { { 0, 0 } }, PHYS_BITS };
    struct e820_entry map[] = { { MIB, GIB - MIB, E820_TYPE_RAM }, { 4 * GIB, GIB, E820_TYPE_RAM } };
    struct mtrr_coverage c;
    char text[256];

    (void)state;
    mtrr_coverage(&s, map, 2, MIB, 1ull << PHYS_BITS, &c);
    assert_int_equal(c.uncached_bytes, 2 * GIB - MIB);
    assert_int_equal(c.nranges, 2);
    mtrr_coverage_describe(&s, &c, text, sizeof(text));
    assert_non_null(strstr(text, "MTRRs disabled"));
}

static void test_mtrr_reserved_over_ram_is_not_counted(void **state)
{
    /* Reserved wins over RAM, as the allocator has it: an UC range there is not RAM's. */
    struct mtrr_state s = { MTRR_DEF_TYPE_E | MTRR_TYPE_WB, 0, { { 0, 0 } }, PHYS_BITS };
    struct e820_entry map[] = { { MIB, GIB, E820_TYPE_RAM }, { 512 * MIB, 16 * MIB, 2 } };
    struct mtrr_coverage c;

    (void)state;
    var(&s, 512 * MIB, 16 * MIB, MTRR_TYPE_UC);
    mtrr_coverage(&s, map, 2, MIB, 4 * GIB, &c);
    assert_int_equal(c.uncached_bytes, 0);
    assert_int_equal(c.ram_bytes, GIB - 16 * MIB);
}

static void test_mtrr_mask_with_holes_is_flagged(void **state)
{
    struct mtrr_state s = { MTRR_DEF_TYPE_E | MTRR_TYPE_WB, 0, { { 0, 0 } }, PHYS_BITS };
    struct e820_entry map[] = { { MIB, GIB, E820_TYPE_RAM } };
    struct mtrr_coverage c;

    (void)state;
    s.var[0].base = MTRR_TYPE_UC;
    s.var[0].mask = (((1ull << PHYS_BITS) - 1) & ~(2 * GIB - 1)) | (64 * MIB) | MTRR_PHYSMASK_VALID;
    s.nvar = 1;
    mtrr_coverage(&s, map, 1, MIB, 4 * GIB, &c);
    assert_true(c.irregular);
    /* Its first match, from address 0, is seen at the range start. */
    assert_true(c.uncached_bytes > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mtrr_overlap_precedence),
        cmocka_unit_test(test_mtrr_seabios_layout_all_ram_write_back),
        cmocka_unit_test(test_mtrr_ran_out_before_the_top_of_ram),
        cmocka_unit_test(test_mtrr_uc_hole_inside_ram),
        cmocka_unit_test(test_mtrr_disabled_is_all_uncached),
        cmocka_unit_test(test_mtrr_reserved_over_ram_is_not_counted),
        cmocka_unit_test(test_mtrr_mask_with_holes_is_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
