/* SPD devices matched to SMBIOS memory devices, and the dimm_summary
 * warnings that come from comparing them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
