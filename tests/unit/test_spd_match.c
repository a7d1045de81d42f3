/* SPD devices matched to SMBIOS memory devices, and the dimm_summary
 * warnings that come from comparing them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "inventory/spd_inventory.h"
#include "inventory/spd_match.h"

static struct dimm_summary sum;
static struct dimm d[4];
static struct spd_dimm s[4];

static void smbios(int i, const char *loc, uint32_t mb, uint32_t mts, const char *serial)
{
    memset(&d[i], 0, sizeof(d[i]));
    bm_strlcpy(d[i].locator, loc, sizeof(d[i].locator));
    bm_strlcpy(d[i].mem_type, "DDR4", sizeof(d[i].mem_type));
    bm_strlcpy(d[i].serial, serial, sizeof(d[i].serial));
    d[i].size_mb = mb;
    d[i].speed_mts = mts;
}

static void spd(int i, uint8_t addr, uint64_t mb, uint32_t mts, uint16_t cl, const char *serial)
{
    memset(&s[i], 0, sizeof(s[i]));
    s[i].addr = addr;
    s[i].info.size_mb = mb;
    s[i].info.speed_mts = mts;
    s[i].info.cl = s[i].info.trcd = s[i].info.trp = cl;
    bm_strlcpy(s[i].info.serial, serial, sizeof(s[i].info.serial));
}

static const char *warning(const char *prefix)
{
    for (unsigned i = 0; i < sum.nwarnings; i++)
        if (!strncmp(sum.warnings[i], prefix, strlen(prefix)))
            return sum.warnings[i];
    return NULL;
}

static void test_matched_by_serial_in_any_order(void **state)
{
    (void)state;
    smbios(0, "DIMM_A1", 16384, 3200, "361A2B3C");
    smbios(1, "DIMM_B1", 16384, 3200, "0012ab34");
    spd(0, 0x50, 16384, 3200, 22, "0012AB34");
    spd(1, 0x52, 16384, 3200, 22, "361A2B3C");
    spd_match_dimms(s, 2, d, 2);
    assert_int_equal(s[0].dimm_index, 1);
    assert_string_equal(s[0].match, "serial");
    assert_int_equal(s[1].dimm_index, 0);
    memset(&sum, 0, sizeof(sum));
    spd_match_warnings(s, 2, d, 2, &sum);
    assert_int_equal(sum.nwarnings, 0);
}

static void test_matched_by_order_when_counts_agree(void **state)
{
    (void)state;
    smbios(0, "DIMM 0", 8192, 2666, "");
    smbios(1, "DIMM 1", 0, 0, "");          /* empty slot is skipped */
    smbios(2, "DIMM 2", 8192, 2666, "");
    spd(0, 0x50, 8192, 2666, 19, "AAAA0001");
    spd(1, 0x51, 8192, 2666, 19, "AAAA0002");
    spd_match_dimms(s, 2, d, 3);
    assert_int_equal(s[0].dimm_index, 0);
    assert_int_equal(s[1].dimm_index, 2);
    assert_string_equal(s[1].match, "order");
}

static void test_not_matched_when_counts_differ(void **state)
{
    (void)state;
    smbios(0, "DIMM 0", 8192, 2666, "");
    smbios(1, "DIMM 1", 8192, 2666, "");
    spd(0, 0x50, 8192, 2666, 19, "AAAA0001");
    spd_match_dimms(s, 1, d, 2);
    assert_int_equal(s[0].dimm_index, -1);
    assert_null(s[0].match);
}

static void test_size_and_speed_disagreements_warned(void **state)
{
    (void)state;
    smbios(0, "DIMM_A1", 8192, 2400, "11111111");
    spd(0, 0x50, 16384, 3200, 22, "11111111");
    spd_match_dimms(s, 1, d, 1);
    memset(&sum, 0, sizeof(sum));
    spd_match_warnings(s, 1, d, 1, &sum);
    assert_non_null(warning("SPD and SMBIOS disagree on size: DIMM_A1 is 8192 MB in SMBIOS, 16384 MB"));
    assert_non_null(warning("SPD and SMBIOS disagree on speed: DIMM_A1 is rated 2400 MT/s in SMBIOS, 3200"));
}

static void test_speed_in_mhz_is_not_a_disagreement(void **state)
{
    (void)state;
    smbios(0, "DIMM_A1", 16384, 1600, "11111111");   /* firmware gave MHz */
    spd(0, 0x50, 16384, 3200, 22, "11111111");
    spd_match_dimms(s, 1, d, 1);
    memset(&sum, 0, sizeof(sum));
    spd_match_warnings(s, 1, d, 1, &sum);
    assert_int_equal(sum.nwarnings, 0);
}

static void test_dimm_smbios_omits_warned(void **state)
{
    (void)state;
    smbios(0, "DIMM_A1", 16384, 3200, "11111111");
    spd(0, 0x50, 16384, 3200, 22, "11111111");
    spd(1, 0x51, 16384, 3200, 22, "22222222");
    spd_match_dimms(s, 2, d, 1);
    memset(&sum, 0, sizeof(sum));
    spd_match_warnings(s, 2, d, 1, &sum);
    assert_non_null(warning("SMBIOS omits DIMMs: SPD finds 2 DIMMs on the SMBus, SMBIOS lists 1 populated slot"));
    assert_int_equal(s[1].dimm_index, -1);
}

static void test_mixed_timings_warned(void **state)
{
    (void)state;
    smbios(0, "A1", 16384, 3200, "1");
    smbios(1, "B1", 16384, 3200, "2");
    smbios(2, "C1", 16384, 3200, "3");
    spd(0, 0x50, 16384, 3200, 22, "1");
    spd(1, 0x52, 16384, 3200, 22, "2");
    spd(2, 0x54, 16384, 2933, 21, "3");
    spd_match_dimms(s, 3, d, 3);
    memset(&sum, 0, sizeof(sum));
    spd_match_warnings(s, 3, d, 3, &sum);
    assert_non_null(warning("mixed SPD timings: 3200 CL22-22-22 (2), 2933 CL21-21-21 (1)"));
}

/* What the spd record's smbios_disagrees and the DIMM table's mark say. */
static void test_disagreement_named_per_dimm(void **state)
{
    char why[16];

    (void)state;
    smbios(0, "DIMM_A1", 8192, 1600, "01020304");
    smbios(1, "DIMM_B1", 16384, 1333, "0A0B0C0D");
    smbios(2, "DIMM_C1", 16384, 800, "11121314");    /* MHz of a 1600 module */
    spd(0, 0x50, 8192, 1600, 11, "01020304");
    spd(1, 0x51, 8192, 1600, 11, "0A0B0C0D");
    spd(2, 0x52, 16384, 1600, 11, "11121314");
    spd(3, 0x53, 16384, 1600, 11, "FFEEDDCC");        /* no slot */
    spd_match_dimms(s, 4, d, 3);
    assert_int_equal(spd_disagreement(&s[0], d, why, sizeof(why)), 0);
    assert_string_equal(why, "");
    assert_int_equal(spd_disagreement(&s[1], d, why, sizeof(why)), SPD_DISAGREE_SIZE | SPD_DISAGREE_SPEED);
    assert_string_equal(why, "size, speed");
    assert_int_equal(spd_disagreement(&s[2], d, why, sizeof(why)), 0);
    assert_int_equal(spd_disagreement(&s[3], d, why, sizeof(why)), 0);
    s[1].info.speed_mts = 1333;
    assert_int_equal(spd_disagreement(&s[1], d, why, sizeof(why)), SPD_DISAGREE_SIZE);
    assert_string_equal(why, "size");
}

/* The text DIMM table's SPD columns: dashes without SPD, the mark with. */
static void test_text_table_spd_columns(void **state)
{
    char cols[160];

    (void)state;
    smbios(0, "DIMM_A1", 16384, 3200, "01020304");
    spd(0, 0x50, 8192, 3200, 22, "01020304");
    bm_strlcpy(s[0].info.mem_type, "DDR4", sizeof(s[0].info.mem_type));
    bm_strlcpy(s[0].info.module_type, "RDIMM", sizeof(s[0].info.module_type));
    bm_strlcpy(s[0].info.part, "M393A1K43BB1-CTD", sizeof(s[0].info.part));
    s[0].info.ranks = 1;
    spd_match_dimms(s, 1, d, 1);
    spd_table_columns(cols, sizeof(cols), &s[0], d);
    assert_string_equal(cols, "DDR4 RDIMM         3200 22-22-22 1R  M393A1K43BB1-CTD   DIFFERS: size");
    spd_table_columns(cols, sizeof(cols), NULL, d);
    assert_string_equal(cols, "-                     - -        -   -                 ");
    s[0].info.gen = SPD_GEN_DDR2_FB;
    bm_strlcpy(s[0].info.module_type, "FB-DIMM", sizeof(s[0].info.module_type));
    s[0].info.size_mb = 16384;
    spd_table_columns(cols, sizeof(cols), &s[0], d);
    assert_string_equal(cols, "FB-DIMM            3200 22-22-22 1R  M393A1K43BB1-CTD  ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matched_by_serial_in_any_order),
        cmocka_unit_test(test_matched_by_order_when_counts_agree),
        cmocka_unit_test(test_not_matched_when_counts_differ),
        cmocka_unit_test(test_size_and_speed_disagreements_warned),
        cmocka_unit_test(test_speed_in_mhz_is_not_a_disagreement),
        cmocka_unit_test(test_dimm_smbios_omits_warned),
        cmocka_unit_test(test_mixed_timings_warned),
        cmocka_unit_test(test_disagreement_named_per_dimm),
        cmocka_unit_test(test_text_table_spd_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
