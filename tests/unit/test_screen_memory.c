/* The results screen's memory tables: the DIMM table with its SPD columns
 * (fed the dimm and spd records as the inventory emits them: dimm records
 * first, then spd) and the memory map as one bar per region, grouped when
 * 32 regions meet an 80x25 console. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "platform.h"
#include "platform_sim.h"
#include "record.h"
#include "screen/screen.h"
#include "screen/screen_private.h"
#include "screen_sim.h"

static struct config cfg;

static unsigned count_rows(unsigned rows, const char *text)
{
    unsigned n = 0;
    for (unsigned r = 0; r < rows; r++)
        n += strstr(row(r), text) != NULL;
    return n;
}

static struct sink *open_screen(unsigned cols, unsigned rows)
{
    struct sink *s;

    plat_sim_screen(cols, rows, true);
    config_defaults(&cfg);
    s = sink_screen(&cfg);
    assert_non_null(s);
    feed(s, "{\"type\":\"run\",\"version\":\"0.1.0\",\"time\":\"2026-12-01T20:14:49\"}");
    return s;
}

static const char *dimm(const char *locator, const char *size_mb, unsigned mts)
{
    static char json[512];
    snprintf(json, sizeof(json),
             "{\"type\":\"dimm\",\"locator\":\"%s\",\"bank\":\"P0_Node0_Channel0_Dimm0\",\"size_mb\":%s,"
             "\"mem_type\":\"DDR4\",\"speed_mts\":%u,\"configured_mts\":%u,\"ranks\":2,"
             "\"manufacturer\":\"Samsung\",\"part\":\"M393A2K43DB3-CWE\",\"serial\":\"1234\"}",
             locator, size_mb, mts, mts);
    return json;
}

/* An spd record as spd_inventory emits it; locator NULL: matched no slot. */
static const char *spd(const char *addr, const char *locator, const char *part, unsigned size_mb, const char *differs)
{
    static char json[1024], loc[64];
    if (locator)
        snprintf(loc, sizeof(loc), "\"%s\",\"match\":\"serial\"", locator);
    else
        snprintf(loc, sizeof(loc), "null,\"match\":null");
    snprintf(json, sizeof(json),
             "{\"type\":\"spd\",\"address\":\"%s\",\"locator\":%s,\"mem_type\":\"DDR4\",\"module_type\":\"RDIMM\","
             "\"size_mb\":%u,\"ranks\":2,\"data_width\":64,\"ecc\":true,\"device_width\":8,"
             "\"manufacturer\":\"Samsung\",\"jep106\":\"1:0xce\",\"part\":\"%s\",\"amb_vendor\":\"\","
             "\"amb_jep106\":\"\",\"serial\":\"00001234\",\"date\":\"2019-W23\",\"speed_mts\":3200,\"tck_ps\":625,"
             "\"cl\":22,\"trcd\":22,\"trp\":22,\"tras\":52,\"crc_ok\":true,\"crc_note\":\"\",\"truncated\":false,"
             "\"bytes_read\":512,\"note\":\"\",\"smbios_disagrees\":\"%s\"}",
             addr, loc, size_mb, part, differs);
    return json;
}

static const char *region(unsigned idx, uint64_t base, uint64_t bytes, double ns, double gbps, bool slow)
{
    static char json[512];
    snprintf(json, sizeof(json),
             "{\"type\":\"mem_region\",\"index\":%u,\"base\":%llu,\"end\":%llu,\"bytes\":%llu,\"node\":null,"
             "\"buffer_base\":%llu,\"buffer_bytes\":268435456,\"latency_ns\":%.2f,\"latency_cpu\":0,"
             "\"read_gbps\":%.3f,\"threads\":16,\"slow\":%s}",
             idx, (unsigned long long)base, (unsigned long long)(base + bytes), (unsigned long long)bytes,
             (unsigned long long)base, ns, gbps, slow ? "true" : "false");
    return json;
}

static void test_dimm_table_has_spd_columns_and_marks_disagreement(void **state)
{
    struct sink *s;
    int hdr, r;

    (void)state;
    s = open_screen(80, 25);
    feed(s, dimm("P1-DIMMA1", "16384", 3200));
    feed(s, dimm("P1-DIMMB1", "0", 0));          /* empty: no row */
    feed(s, dimm("P1-DIMMC1", "8192", 3200));
    feed(s, dimm("P1-DIMMD1", "16384", 2933));   /* no SPD read */
    feed(s, spd("0x50", "P1-DIMMA1", "M393A2K43DB3-CWE", 16384, ""));
    feed(s, spd("0x52", "P1-DIMMC1", "M393A2K43DB3-CWE", 16384, "size"));
    feed(s, spd("0x53", NULL, "HMA82GR7CJR8N-XN", 16384, ""));
    s->close(s);
    hdr = find_row(25, "DIMM          size  MT/s | SPD type      MT/s CL-RCD-RP Rk  SPD part");
    assert_true(hdr > 0);
    assert_non_null(strstr(row((unsigned)hdr + 1),
                           " P1-DIMMA1      16G  3200 | DDR4 RDIMM    3200 22-22-22  2R  M393A2K43DB3-CWE"));
    /* SPD says 16 GB where SMBIOS says 8: marked, in the warning colour. */
    assert_non_null(strstr(row((unsigned)hdr + 2), "!P1-DIMMC1       8G  3200 | DDR4 RDIMM    3200"));
    assert_int_equal(plat_sim_screen_colour(1, (unsigned)hdr + 2), PLAT_COLOUR_WARN);
    assert_int_equal(plat_sim_screen_colour(1, (unsigned)hdr + 1), PLAT_COLOUR_NORMAL);
    /* No SPD read for this slot: dashes. */
    assert_non_null(strstr(row((unsigned)hdr + 3), " P1-DIMMD1      16G  2933 | -                -"));
    /* An SPD that matched no SMBIOS slot gets a row of its own. */
    assert_non_null(strstr(row((unsigned)hdr + 4), " SPD 0x53       16G     - | DDR4 RDIMM    3200"));
    assert_int_equal(find_row(25, "P1-DIMMB1"), -1);
    r = find_row(25, "differs: size");
    assert_true(r < 0 || r == hdr + 2);   /* cut at 80 columns; shown on wider consoles */
}

static void test_dimm_table_wide_console_says_what_differs(void **state)
{
    struct sink *s;
    int r;

    (void)state;
    s = open_screen(120, 40);
    feed(s, dimm("DIMM_A1", "8192", 1600));
    feed(s, spd("0x50", "DIMM_A1", "KVR16E11/8", 8192, "size, speed"));
    s->close(s);
    r = find_row(40, "!DIMM_A1");
    assert_true(r > 0);
    assert_non_null(strstr(row((unsigned)r), "KVR16E11/8       differs: size, speed"));
}

/* Many DIMMs beside disks: the table keeps to its share and says how
 * many more there are. */
static void test_many_dimms_are_cut_with_a_count(void **state)
{
    struct sink *s;
    char loc[24];

    (void)state;
    s = open_screen(80, 25);
    feed(s, "{\"type\":\"disk\",\"id\":\"nvme0n1\",\"model\":\"QEMU NVMe Ctrl\",\"serial\":\"S1\",\"path\":\"native\","
            "\"selected\":true,\"writes\":false}");
    for (unsigned i = 0; i < 24; i++) {
        snprintf(loc, sizeof(loc), "DIMM_%c%u", 'A' + i / 2, i % 2 + 1);
        feed(s, dimm(loc, "32768", 3200));
    }
    s->close(s);
    assert_true(find_row(25, "more DIMMs in the results file (0 with SPD)") > 0);
    assert_true(count_rows(25, "DIMM_") < 8);
    assert_true(find_row(25, "nvme0n1  QEMU NVMe Ctrl") > 0);
}

/* Two disks whose whole tables fit only without the DIMM table: the
 * table yields (its facts are in the header, the text table and the
 * report); with fewer results it is back. */
static void test_dimm_table_yields_to_whole_disk_tables(void **state)
{
    static const char *const tests[6] = { "SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1", "SEQ128K-Q32T1",
                                          "RND4K-Q8T8" };
    char json[400];

    (void)state;
    for (unsigned ntests = 1; ntests <= 6; ntests += 5) {
        struct sink *s = open_screen(80, 25);
        feed(s, dimm("DIMM 0", "1024", 0));
        for (unsigned k = 0; k < 2; k++) {
            snprintf(json, sizeof(json), "{\"type\":\"disk\",\"id\":\"disk%u\",\"model\":\"M\",\"serial\":\"S%u\","
                     "\"path\":\"native\",\"selected\":true,\"writes\":false}", k, k);
            feed(s, json);
            for (unsigned t = 0; t < ntests; t++) {
                snprintf(json, sizeof(json), "{\"type\":\"disk_result\",\"disk\":\"disk%u\",\"test\":\"%s\","
                         "\"rw\":\"read\",\"mbps\":100,\"iops\":100,\"lat_us\":{\"p99\":1}}", k, tests[t]);
                feed(s, json);
            }
        }
        s->close(s);
        assert_true(find_row(25, "disk1  M  S1  (native)") > 0);
        assert_int_equal(find_row(25, "DIMM 0") > 0, ntests == 1);
    }
}

/* Eight regions: one line each, the bar as long as the region's share of
 * the fastest, SLOW on the slow one. */
static void test_memory_map_one_bar_per_region(void **state)
{
    struct sink *s;
    int title, r;
    const char *line, *bar;

    (void)state;
    s = open_screen(120, 40);
    for (unsigned i = 0; i < 8; i++)
        feed(s, region(i, (uint64_t)i << 30, 1ull << 30, i == 6 ? 140.0 : 90.0, i == 6 ? 5.0 : 10.0, i == 6));
    feed(s, "{\"type\":\"mem_map_summary\",\"regions\":8,\"measured\":8,\"slow_regions\":[6],"
            "\"verdict\":\"1 of 8 regions more than 10% slower than the median\"}");
    s->close(s);
    title = find_row(40, "Memory map: 8 regions, read GB/s against the fastest - 1 of 8 regions");
    assert_true(title > 0);
    assert_int_equal(plat_sim_screen_colour(1, (unsigned)title), PLAT_COLOUR_WARN);
    assert_non_null(strstr(row((unsigned)title + 1), "    0 @0M          1G    90.0 ns   10.00 GB/s ####"));
    r = find_row(40, "    6 @6G          1G   140.0 ns    5.00 GB/s ");
    assert_int_equal(r, title + 7);
    line = row((unsigned)r);
    assert_non_null(strstr(line, "SLOW"));
    assert_int_equal(plat_sim_screen_colour(1, (unsigned)r), PLAT_COLOUR_WARN);
    /* Half the bandwidth, half the bar. */
    bar = strchr(line, '#');
    assert_non_null(bar);
    assert_int_equal(strspn(bar, "#"), strspn(bar + strspn(bar, "#"), "."));
    assert_int_equal(count_rows(40, "SLOW"), 1);
}

/* 32 regions on 80x25 beside a disk: grouped, the slow group still
 * marked, the disk table still on screen. */
static void test_memory_map_32_regions_grouped_on_80x25(void **state)
{
    struct sink *s;
    int title, r;

    (void)state;
    s = open_screen(80, 25);
    feed(s, "{\"type\":\"disk\",\"id\":\"nvme0n1\",\"model\":\"QEMU NVMe Ctrl\",\"serial\":\"S1\",\"path\":\"native\","
            "\"selected\":true,\"writes\":false}");
    for (unsigned i = 0; i < 32; i++)
        feed(s, region(i, (uint64_t)i << 32, 4ull << 30, 90.0, i >= 30 ? 6.0 : 12.0, i >= 30));
    s->close(s);
    title = find_row(25, "Memory map: 32 regions (grouped: slowest of each group)");
    assert_true(title > 0);
    /* Every region is on some line: the last line ends with 31. */
    r = find_row(25, "-31 @");
    assert_true(r > title);
    assert_true(r - title <= 6);
    assert_non_null(strstr(row((unsigned)r), "6.00 GB/s"));
    assert_non_null(strstr(row((unsigned)r), "SLOW"));
    assert_non_null(strstr(row((unsigned)title + 1), "  0-"));
    assert_null(strstr(row((unsigned)title + 1), "SLOW"));
    assert_true(find_row(25, "nvme0n1  QEMU NVMe Ctrl") > r);
}

/* Without disks (mem only) all 32 regions get a line of their own on a
 * console tall enough. */
static void test_memory_map_32_regions_whole_without_disks(void **state)
{
    struct sink *s;

    (void)state;
    s = open_screen(100, 50);
    for (unsigned i = 0; i < 32; i++)
        feed(s, region(i, (uint64_t)i << 32, 4ull << 30, 90.0, 12.0, false));
    feed(s, "{\"type\":\"mem_region\",\"index\":32,\"base\":137438953472,\"end\":137438954472,\"bytes\":1000,"
            "\"node\":null,\"latency_ns\":null,\"read_gbps\":null,\"reason\":\"too small\"}");
    s->close(s);
    assert_true(find_row(50, "Memory map: 33 regions, read GB/s against the fastest") > 0);
    assert_true(find_row(50, "   31 @124G        4G") > 0);
    assert_true(find_row(50, "   32 @128G        0M  not measured") > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dimm_table_has_spd_columns_and_marks_disagreement),
        cmocka_unit_test(test_dimm_table_wide_console_says_what_differs),
        cmocka_unit_test(test_many_dimms_are_cut_with_a_count),
        cmocka_unit_test(test_dimm_table_yields_to_whole_disk_tables),
        cmocka_unit_test(test_memory_map_one_bar_per_region),
        cmocka_unit_test(test_memory_map_32_regions_grouped_on_80x25),
        cmocka_unit_test(test_memory_map_32_regions_whole_without_disks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
