/* The results screen: what is where on the host grid after a record
 * sequence, on a narrow 80x25 console and a large 200x60 one, and the
 * fallback to plain text on a console that cannot place the cursor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "disk/plan.h"
#include "platform.h"
#include "platform_sim.h"
#include "record.h"
#include "screen/screen.h"
#include "screen/screen_private.h"
#include "screen_sim.h"

static struct config cfg;

/* Records as a QEMU run sends them (trimmed to the fields the screen reads). */
static const char *const RUN = "{\"type\":\"run\",\"version\":\"0.1.0\",\"time\":\"2026-12-01T20:14:49\"}";
static const char *const SYSTEM =
    "{\"type\":\"system\",\"cpu\":\"QEMU TCG CPU version 2.5+\",\"cpus\":2,\"sockets\":1,\"l1d_bytes\":65536,"
    "\"l2_bytes\":524288,\"l3_bytes\":16777216,\"firmware\":\"EDK II 0x00010000 (UEFI 2.7)\","
    "\"manufacturer\":\"QEMU\",\"product\":\"Standard PC (Q35 + ICH9, 2009)\"}";
static const char *const DIMMS = "{\"type\":\"dimm_summary\",\"populated\":1,\"slots\":4,\"total_mb\":1024,"
                                 "\"channels\":null,\"warnings\":[\"3 of 4 slots empty: \\\"A1\\\" only\","
                                 "\"speeds differ\"]}";
static const char *const DISK0 = "{\"type\":\"disk\",\"id\":\"nvme0n1\",\"driver\":\"nvme\",\"path\":\"native\","
                                 "\"model\":\"QEMU NVMe Ctrl\",\"serial\":\"S1\",\"selected\":true,\"writes\":false}";
static const char *const DISK1 = "{\"type\":\"disk\",\"id\":\"ahci0p0\",\"driver\":\"ahci\",\"path\":\"native\","
                                 "\"model\":\"QEMU HARDDISK\",\"serial\":\"S2\",\"selected\":true,\"writes\":true}";

static const char *result(const char *disk, const char *test, const char *rw, double mbps, double iops, double p99)
{
    static char json[512];
    snprintf(json, sizeof(json),
             "{\"type\":\"disk_result\",\"disk\":\"%s\",\"test\":\"%s\",\"rw\":\"%s\",\"bs\":4096,\"mbps\":%.1f,"
             "\"iops\":%.0f,\"lat_us\":{\"mean\":1,\"p50\":2,\"p99\":%.1f,\"p999\":9,\"max\":10}}",
             disk, test, rw, mbps, iops, p99);
    return json;
}

static const char *latency(uint64_t bytes, double ns)
{
    static char json[256];
    snprintf(json, sizeof(json), "{\"type\":\"mem_latency\",\"bytes\":%llu,\"pattern\":\"full_random\",\"ns\":%.2f}",
             (unsigned long long)bytes, ns);
    return json;
}

static const char *bandwidth(const char *op, unsigned threads, double gbps)
{
    static char json[256];
    snprintf(json, sizeof(json), "{\"type\":\"mem_bandwidth\",\"op\":\"%s\",\"threads\":%u,\"gbps\":%.3f}", op,
             threads, gbps);
    return json;
}

static int find_col(unsigned r, const char *text)
{
    const char *p = strstr(row(r), text);
    return p ? (int)(p - row_text) : -1;
}

/* A quick run on one console: header, memory, two disks, a note, the end. */
static struct sink *quick_run(unsigned cols, unsigned rows)
{
    struct sink *s;

    plat_sim_screen(cols, rows, true);
    config_defaults(&cfg);
    s = sink_screen(&cfg);
    assert_non_null(s);
    feed(s, RUN);
    feed(s, SYSTEM);
    feed(s, DIMMS);
    feed(s, DISK0);
    feed(s, DISK1);
    feed(s, latency(16384, 1.25));
    feed(s, latency(32768, 1.5));
    feed(s, latency(262144, 4.0));
    feed(s, latency(4u << 20, 12.0));
    feed(s, latency(64u << 20, 95.5));
    feed(s, bandwidth("read", 1, 9.5));
    feed(s, bandwidth("read", 2, 17.25));
    feed(s, bandwidth("copy", 1, 5.0));
    feed(s, result("nvme0n1", "SEQ1M-Q8T1", "read", 3456.7, 3297, 2650.3));
    feed(s, result("nvme0n1", "RND4K-Q32T1", "randread", 420.5, 102654, 512));
    feed(s, result("ahci0p0", "SEQ1M-Q8T1", "read", 550.1, 525, 9000));
    feed(s, result("ahci0p0", "SEQ1M-Q8T1", "write", 480.9, 459, 12000));
    feed(s, "{\"type\":\"note\",\"where\":\"0000:00:1f.2\",\"message\":\"ahci driver found no disk\"}");
    return s;
}

static void test_narrow_80x25_layout(void **state)
{
    struct sink *s;
    int r, hdr;

    (void)state;
    s = quick_run(80, 25);
    s->close(s);
    assert_non_null(strstr(row(0), "baremark 0.1.0   2026-12-01T20:14:49"));
    assert_non_null(strstr(row(1), "System  QEMU Standard PC (Q35 + ICH9, 2009)"));
    assert_non_null(strstr(row(2), "CPU     QEMU TCG CPU version 2.5+   2 CPUs, 1 socket   L1d 64K L2 512K L3 16M"));
    assert_non_null(strstr(row(3), "Memory  1024 MB in 1 of 4 DIMM slots"));
    /* The DIMM summary's warnings, in the warning colour. */
    assert_non_null(strstr(row(4), "DIMMs   3 of 4 slots empty: \"A1\" only"));
    assert_int_equal(plat_sim_screen_colour(9, 4), PLAT_COLOUR_WARN);
    assert_non_null(strstr(row(5), "speeds differ"));
    assert_non_null(strstr(row(6), "Status"));
    assert_int_equal(plat_sim_screen_colour(0, 6), PLAT_COLOUR_TITLE);
    /* L1 at the largest size within half of L1d (32K), L2 within 256K,
     * L3 within 8M, DRAM the largest size. */
    r = find_row(25, "Latency");
    assert_int_equal(r, 8);
    assert_non_null(strstr(row(8), "L1 32K 1.5 ns   L2 256K 4.0 ns   L3 4M 12.0 ns   DRAM 64M 95.5 ns"));
    assert_non_null(strstr(row(9), "read 9.50 | 17.25   copy 5.00 | -   GB/s, 1 CPU | 2 CPUs"));
    /* One table per disk, one above the other on 80 columns. */
    r = find_row(25, "nvme0n1  QEMU NVMe Ctrl  S1  (native)");
    assert_int_equal(r, 11);
    hdr = r + 1;
    assert_int_equal(find_col((unsigned)hdr, "read MB/s"), 14);
    assert_non_null(strstr(row((unsigned)r + 2), "SEQ1M-Q8T1      3456.7     3297     2650          -        -        -"));
    assert_non_null(strstr(row((unsigned)r + 3), "RND4K-Q32T1      420.5   102654      512"));
    r = find_row(25, "ahci0p0  QEMU HARDDISK  S2  (native)");
    assert_int_equal(r, 16);
    assert_non_null(strstr(row((unsigned)r + 2), "SEQ1M-Q8T1       550.1      525     9000      480.9      459    12000"));
    /* The note in its own area, in the warning colour. */
    r = find_row(25, "note 0000:00:1f.2: ahci driver found no disk");
    assert_true(r > 18);
    assert_int_equal(plat_sim_screen_colour(3, (unsigned)r), PLAT_COLOUR_WARN);
}

static void test_no_dram_figure_when_the_run_stayed_in_the_caches(void **state)
{
    struct sink *s;

    (void)state;
    plat_sim_screen(80, 25, true);
    config_defaults(&cfg);
    s = sink_screen(&cfg);
    feed(s, SYSTEM);
    feed(s, latency(32768, 1.5));
    feed(s, latency(1u << 20, 9.0));
    s->close(s);
    assert_non_null(strstr(row(find_row(25, "Latency")), "Latency L1 32K 1.5 ns   L3 1M 9.0 ns"));
    assert_int_equal(find_row(25, "DRAM"), -1);
}

/* Device strings reach the grid as characters: UTF-8 kept, escapes and
 * control characters shown as '?', never passed to the console. */
static void test_device_strings_keep_utf8_and_lose_controls(void **state)
{
    struct sink *s;

    (void)state;
    plat_sim_screen(80, 25, true);
    config_defaults(&cfg);
    s = sink_screen(&cfg);
    feed(s, "{\"type\":\"disk\",\"id\":\"nvme0n1\",\"path\":\"native\",\"model\":\"SSD \xc3\xa9t\xc3\xa9\\u001b[2J\","
            "\"serial\":\"S\\\"1\",\"selected\":true}");
    s->close(s);
    assert_true(find_row(25, "nvme0n1  SSD \xc3\xa9t\xc3\xa9?[2J  S\"1  (native)") > 0);
}

static void test_large_200x60_puts_disks_side_by_side(void **state)
{
    struct sink *s;
    int r0, r1;

    (void)state;
    s = quick_run(200, 60);
    s->close(s);
    r0 = find_row(60, "nvme0n1  QEMU NVMe Ctrl");
    r1 = find_row(60, "ahci0p0  QEMU HARDDISK");
    assert_true(r0 > 0);
    assert_int_equal(r0, r1);
    assert_int_equal(find_col((unsigned)r0, "nvme0n1"), 1);
    assert_int_equal(find_col((unsigned)r1, "ahci0p0"), 74);
    /* The hint on the right of the title bar, while the run goes on. */
    assert_int_equal(find_col(0, "Esc stops the run"), 200 - 18);
}

/* A server with many disks: one row per disk when the tables do not fit. */
static struct sink *many_disks(unsigned n)
{
    struct sink *s;
    char json[512], id[16];

    plat_sim_screen(100, 31, true);
    config_defaults(&cfg);
    s = sink_screen(&cfg);
    for (unsigned i = 0; i < n; i++) {
        snprintf(json, sizeof(json), "{\"type\":\"disk\",\"id\":\"nvme%un1\",\"path\":\"native\",\"model\":\"M%u\","
                 "\"serial\":\"S%u\",\"selected\":true,\"writes\":%s}", i, i, i, i ? "false" : "true");
        feed(s, json);
    }
    for (unsigned i = 0; i < n; i++) {
        snprintf(id, sizeof(id), "nvme%un1", i);
        feed(s, result(id, "SEQ1M-Q8T1", "read", 3000 + i, 3000, 900));
        feed(s, result(id, "RND4K-Q32T1", "randread", 400, 100000 + i, 300));
        if (!i)
            feed(s, result(id, "SEQ1M-Q8T1", "write", 2000, 2000, 900));
    }
    return s;
}

static void test_many_disks_get_one_row_each(void **state)
{
    struct sink *s;
    int r;

    (void)state;
    s = many_disks(12);
    s->close(s);
    r = find_row(31, "disk       model                 SEQ1M-Q8T1 RND4K-Q32T1");
    assert_true(r > 0);
    assert_non_null(strstr(row((unsigned)r + 1), "MB/s        IOPS"));
    assert_non_null(strstr(row((unsigned)r + 2), " nvme0n1    M0  S0  (native)          3000.0      100000"));
    assert_non_null(strstr(row((unsigned)r + 3), "              write                   2000.0           -"));
    assert_non_null(strstr(row((unsigned)r + 14), " nvme11n1   M11  S11  (native)        3011.0      100011"));
    assert_int_equal(find_row(31, "more disk"), -1);
    /* Thirty do not fit: the rest are counted. */
    s = many_disks(30);
    s->close(s);
    assert_true(find_row(31, "more disks: see the results file") > 0);
}

static void test_end_keeps_summary_and_results_line(void **state)
{
    struct sink *s;

    (void)state;
    s = quick_run(100, 31);
    feed(s, "{\"type\":\"end\",\"status\":\"ok\",\"errors\":0,\"seconds\":72.072}");
    screen_final_line("Results: \\baremark\\results\\x.jsonl (+ .html report)\n"
                      "Press any key to return to the firmware.");
    s->close(s);
    assert_non_null(strstr(row(6), "Status  finished: ok, 0 errors, 72 s"));
    assert_null(strstr(row(0), "Esc stops the run"));
    assert_non_null(strstr(row(29), " Results: \\baremark\\results\\x.jsonl (+ .html report)"));
    assert_non_null(strstr(row(30), " Press any key to return to the firmware."));
    assert_int_equal(plat_sim_screen_colour(1, 29), PLAT_COLOUR_GOOD);
    assert_int_equal(plat_sim_screen_colour(1, 30), PLAT_COLOUR_GOOD);
    /* The summary is still what is on screen. */
    assert_true(find_row(31, "SEQ1M-Q8T1      3456.7") > 0);
    assert_true(find_row(31, "DRAM 64M 95.5 ns") > 0);
}

/* The findings come under the title, above the system line, warnings
 * first in the warning colour; more than fit are counted. */
static void test_findings_are_shown_first(void **state)
{
    struct sink *s;
    int top, sys;

    (void)state;
    s = quick_run(100, 31);
    feed(s, "{\"type\":\"finding\",\"finding\":\"numa_remote\",\"severity\":\"info\",\"subjects\":[],"
            "\"text\":\"Remote memory is 1.65x as slow as local.\",\"numbers\":{}}");
    feed(s, "{\"type\":\"finding\",\"finding\":\"shared_ceiling\",\"severity\":\"warn\",\"subjects\":[],"
            "\"text\":\"4 SATA disks behind the C226's DMI 2.0 x4: 1.71 of 2.00 GB/s\",\"numbers\":{}}");
    feed(s, "{\"type\":\"end\",\"status\":\"ok\",\"errors\":0,\"seconds\":72.072}");
    s->close(s);
    top = find_row(31, "Findings: 2");
    sys = find_row(31, "System");
    assert_int_equal(top, 1);
    assert_true(sys > top + 2);
    assert_non_null(strstr(row(2), "WARN 4 SATA disks behind the C226's DMI 2.0 x4: 1.71 of 2.00 GB/s"));
    assert_int_equal(plat_sim_screen_colour(3, 2), PLAT_COLOUR_WARN);
    assert_non_null(strstr(row(3), "info Remote memory is 1.65x as slow as local."));
}

static void test_errors_stand_out_and_are_never_pushed_out(void **state)
{
    struct sink *s;
    char json[256];
    int r;

    (void)state;
    s = quick_run(80, 25);
    feed(s, "{\"type\":\"error\",\"where\":\"nvme0n1\",\"message\":\"read failed at LBA 5\"}");
    for (unsigned i = 0; i < 40; i++) {
        snprintf(json, sizeof(json), "{\"type\":\"note\",\"where\":\"n%u\",\"message\":\"note %u\"}", i, i);
        feed(s, json);
    }
    s->close(s);
    r = find_row(25, "Errors and notes: 1 error, 41 notes");
    assert_true(r > 0);
    assert_int_equal(plat_sim_screen_colour(1, (unsigned)r), PLAT_COLOUR_ERROR);
    /* The error first, red, though 40 notes came after it. */
    assert_non_null(strstr(row((unsigned)r + 1), "ERROR nvme0n1: read failed at LBA 5"));
    assert_int_equal(plat_sim_screen_colour(3, (unsigned)r + 1), PLAT_COLOUR_ERROR);
}

static void test_no_cursor_positioning_falls_back_to_text(void **state)
{
    struct json j;
    char buf[256];

    (void)state;
    plat_sim_screen(0, 0, false);
    config_defaults(&cfg);
    assert_null(sink_screen(&cfg));
    assert_false(screen_active());
    json_init(&j, buf, sizeof(buf));
    json_obj_begin(&j, NULL);
    screen_json(&j);
    json_obj_end(&j);
    assert_string_equal(json_text(&j), "{\"screen\":{\"layout\":\"text\",\"mode\":-1,\"cols\":0,\"rows\":0,\"modes\":0}}");
    /* A console too small for the layout gets text too. */
    plat_sim_screen(30, 10, true);
    assert_null(sink_screen(&cfg));
}

static void test_status_line_says_time_left_from_the_plan(void **state)
{
    struct sink *s;
    char e[160];
    int r;

    (void)state;
    config_defaults(&cfg);
    /* quick: 4 reads per disk, their 4 write twins on a writable disk, and
     * the two all-disks tests once both disks are found. */
    assert_int_equal(disk_plan_test_count(&cfg, 2, 1, 2), 2 * 4 + 4 + 2);
    assert_true(disk_plan_test_seconds(&cfg) == 6.0); /* time=5 plus a 1 s warm-up */
    assert_int_equal(config_set(&cfg, "time", "300ms", e, sizeof(e)), BM_OK);
    assert_true(disk_plan_test_seconds(&cfg) == 0.55); /* the warm-up is at least 0.25 s */
    assert_int_equal(config_set(&cfg, "warmup", "50ms", e, sizeof(e)), BM_OK);
    assert_true(disk_plan_test_seconds(&cfg) == 0.35); /* unless warmup= says otherwise */
    assert_int_equal(config_set(&cfg, "warmup", "0", e, sizeof(e)), BM_OK);
    assert_true(disk_plan_test_seconds(&cfg) == 0.3);
    config_defaults(&cfg);
    plat_sim_screen(80, 25, true);
    s = sink_screen(&cfg);
    feed(s, DISK0);
    feed(s, DISK1);
    /* 14 tests of 6 s to go, two done: 12 x 6 s = 1:12. */
    feed(s, result("nvme0n1", "SEQ1M-Q8T1", "read", 100, 100, 100));
    feed(s, result("nvme0n1", "SEQ1M-Q1T1", "read", 100, 100, 100));
    s->close(s);
    r = find_row(25, "Status");
    assert_true(r >= 0);
    assert_non_null(strstr(row((unsigned)r), "about 1:12 left"));
    assert_non_null(strstr(row((unsigned)r), "disks"));
}

/* Burn-in (passes=3): the passes still to come, each as long as the first. */
static void test_time_left_counts_the_passes_to_come(void **state)
{
    static struct screen_model m;
    char json[256];
    uint64_t s = 1000000000ull;

    (void)state;
    config_defaults(&cfg);
    cfg.passes = 3;
    screen_model_reset(&m, 0);
    screen_model_record(&m, "disk", DISK0, 0);
    for (unsigned i = 0; i < 4; i++) {
        snprintf(json, sizeof(json), "{\"type\":\"disk_result\",\"pass\":1,\"disk\":\"nvme0n1\",\"test\":\"T%u\"}", i);
        screen_model_record(&m, "disk_result", json, (10 + i) * s);
    }
    /* Pass 1 ran from 10 s; pass 2's first result at 100 s. */
    screen_model_record(&m, "disk_result", "{\"type\":\"disk_result\",\"pass\":2,\"disk\":\"nvme0n1\",\"test\":\"T0\"}",
                        100 * s);
    /* 3 tests of 6 s left in pass 2, then pass 3 as long as pass 1 (90 s). */
    assert_true(screen_model_seconds_left(&m, &cfg, 100 * s) == 3 * 6.0 + 90.0);
    /* duration= runs until its time is up. */
    cfg.duration_s = 600;
    assert_true(screen_model_seconds_left(&m, &cfg, 100 * s) == 600.0 - 100.0);
}

static void test_progress_shows_the_test_under_way(void **state)
{
    struct sink *s;

    (void)state;
    config_defaults(&cfg);
    plat_sim_screen(80, 25, true);
    s = sink_screen(&cfg);
    s->progress(s, "memory latency: 12 MiB full_random (69/96)");
    s->close(s);
    /* The phase is the progress line's own first word here: said once. */
    assert_non_null(strstr(row(4), "Status  memory latency: 12 MiB full_random (69/96)"));
}

static char dump[RECORD_MAX_BYTES];
static void keep_dump(struct sink *s, const char *type, const char *json, const char *human)
{
    (void)s;
    (void)human;
    if (!strcmp(type, "screen"))
        snprintf(dump, sizeof(dump), "%s", json);
}

static void test_screen_dump_is_the_grid(void **state)
{
    static struct sink keeper = { "keep", keep_dump, NULL, NULL, NULL, NULL };
    struct sink *s;

    (void)state;
    s = quick_run(80, 25);
    feed(s, "{\"type\":\"error\",\"where\":\"x\",\"message\":\"boom\"}");
    sinks_reset();
    sinks_add(s);
    sinks_add(&keeper);
    dump[0] = '\0';
    screen_emit_dump();
    sinks_reset();
    assert_non_null(strstr(dump, "\"type\":\"screen\",\"cols\":80,\"rows\":25,\"lines\":[\" baremark 0.1.0"));
    assert_non_null(strstr(dump, "\" SEQ1M-Q8T1      3456.7     3297     2650          -        -        -\""));
    assert_non_null(strstr(dump, "\"error_rows\":["));
    assert_null(strstr(dump, "\"error_rows\":[]"));
}

static void test_json_readers(void **state)
{
    char out[32];
    double v = 0;

    (void)state;
    assert_true(screen_json_str("{\"a\":\"x\\\"y\\\\z\\u001b!\"}", "a", out, sizeof(out)));
    assert_string_equal(out, "x\"y\\z?!");
    assert_true(screen_json_num("{\"n\":-12.5}", "n", &v));
    assert_true(v == -12.5);
    assert_true(screen_json_num("{\"n\":1.5e3}", "n", &v));
    assert_true(v == 1500);
    assert_false(screen_json_num("{\"n\":null}", "n", &v));
    assert_false(screen_json_str("{\"n\":1}", "m", out, sizeof(out)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow_80x25_layout),
        cmocka_unit_test(test_no_dram_figure_when_the_run_stayed_in_the_caches),
        cmocka_unit_test(test_device_strings_keep_utf8_and_lose_controls),
        cmocka_unit_test(test_large_200x60_puts_disks_side_by_side),
        cmocka_unit_test(test_many_disks_get_one_row_each),
        cmocka_unit_test(test_end_keeps_summary_and_results_line),
        cmocka_unit_test(test_findings_are_shown_first),
        cmocka_unit_test(test_errors_stand_out_and_are_never_pushed_out),
        cmocka_unit_test(test_no_cursor_positioning_falls_back_to_text),
        cmocka_unit_test(test_status_line_says_time_left_from_the_plan),
        cmocka_unit_test(test_time_left_counts_the_passes_to_come),
        cmocka_unit_test(test_progress_shows_the_test_under_way),
        cmocka_unit_test(test_screen_dump_is_the_grid),
        cmocka_unit_test(test_json_readers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
