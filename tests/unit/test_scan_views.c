/* The surface scan as the run shows it: the scan and scan_bad_range
 * records report_scan() builds, then the same records on the results
 * screen (rate, buckets, curve, unreadable ranges) and in the HTML report
 * (table, curve chart, LBA map), as the sinks see them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "capture_sink.h"
#include "config.h"
#include "disk/report.h"
#include "disk/scan.h"
#include "record.h"
#include "report/html.h"
#include "report/html_data.h"
#include "report/jscan.h"
#include "screen/screen.h"
#include "screen_sim.h"

static struct sink keeper = { "keep", capture, NULL, NULL, NULL, NULL };
static struct bm_disk disk;
static struct scan_result res;

/* A scan of 10 parts, the 7th slow, two unreadable ranges, as scan.c fills it. */
static void make_result(void)
{
    memset(&disk, 0, sizeof(disk));
    bm_strlcpy(disk.id, "ahci0p1", sizeof(disk.id));
    disk.lba_bytes = 512;
    memset(&res, 0, sizeof(res));
    res.first_lba = 0;
    res.blocks = 20480;
    res.scanned_blocks = 20480;
    res.chunk_bytes = 1 << 20;
    res.read_bytes = (20480 - 24) * 512ull;
    res.seconds = 0.05;
    res.mbps = 209.5;
    res.npoints = 10;
    res.point_blocks = 2048;
    for (unsigned i = 0; i < 10; i++)
        res.curve_mbps[i] = i == 6 ? 20.0 : 250.0;
    res.buckets[SCAN_B5] = 9;
    res.buckets[SCAN_B50] = 1;
    res.errors = 1;
    res.rereads = 25;
    res.reread_errors = 12;
    res.nbad = 2;
    res.bad[0].first_lba = 100;
    res.bad[0].count = 16;
    bm_strlcpy(res.bad[0].error, "ABRT <script>", sizeof(res.bad[0].error));
    res.bad[1].first_lba = 12000;
    res.bad[1].count = 8;
    bm_strlcpy(res.bad[1].error, "UNC", sizeof(res.bad[1].error));
    res.bad_blocks = 24;
    res.status = BM_OK;
    memset(res.part_worst, SCAN_B5, sizeof(res.part_worst));
    res.part_worst[0] = SCAN_WORST_ERROR;  /* LBA 100's failed read */
    res.part_worst[6] = SCAN_B50;          /* the slow part */
}

static void emit(double seq1m)
{
    sinks_reset();
    sinks_add(&keeper);
    nrecs = 0;
    report_scan(&disk, &res, seq1m);
    sinks_reset();
}

static const char *first_of(const char *type)
{
    for (unsigned i = 0; i < nrecs; i++)
        if (!strcmp(rec_type[i], type))
            return rec_json[i];
    return NULL;
}

static void test_scan_records_carry_curve_buckets_ranges_and_cost(void **state)
{
    const char *scan, *b;
    (void)state;
    make_result();
    emit(250.0);
    scan = first_of("scan");
    assert_non_null(scan);
    assert_int_equal(js_get_num(scan, "bad_blocks", -1), 24);
    assert_int_equal(js_get_num(scan, "bad_ranges", -1), 2);
    assert_int_equal(js_get_num(scan, "buckets.lt5ms", -1), 9);
    assert_int_equal(js_get_num(scan, "buckets.lt50ms", -1), 1);
    assert_int_equal(js_get_num(scan, "buckets.error", -1), 1);
    assert_true(js_get_num(scan, "vs_seq1m_pct", -1) > 83.7 && js_get_num(scan, "vs_seq1m_pct", -1) < 83.9);
    assert_int_equal(js_get_num(scan, "min_mbps", -1), 20);
    assert_int_equal(js_get_num(scan, "max_mbps", -1), 250);
    b = js_get(scan, "curve_mbps");
    assert_non_null(b);
    {
        unsigned n = 0;
        for (const char *e = js_first(b); e; e = js_next(e))
            n++;
        assert_int_equal(n, 10);
    }
    /* MHDD's map: per part the slowest read's bucket, 6 for a failed read. */
    assert_non_null(strstr(scan, "\"curve_worst\":[6,0,0,0,0,0,2,0,0,0]"));
    assert_int_equal(count_records("scan_bad_range", "\"first_lba\":100,", "\"count\":16,"), 1);
    assert_int_equal(count_records("scan_bad_range", "\"first_lba\":12000,", "\"last_lba\":12007,"), 1);
    assert_int_equal(count_records("error", "24 unreadable blocks in 2 ranges from LBA 100", NULL), 1);
    /* Without SEQ1M-Q8T1 in the pass there is nothing to set the rate against. */
    emit(0);
    assert_null(strstr(first_of("scan"), "seq1m"));
}

static void test_stopped_scan_says_why(void **state)
{
    (void)state;
    make_result();
    res.status = BM_EIO;
    res.scanned_blocks = 4096;
    bm_strlcpy(res.detail, "the driver refused a read at LBA 4096: I/O error", sizeof(res.detail));
    emit(0);
    assert_int_equal(count_records("scan", "\"result\":\"stopped\"", "refused a read at LBA 4096"), 1);
    assert_int_equal(count_records("error", "stopped after 4096 of 20480 blocks", NULL), 1);
}

static void test_screen_shows_rate_buckets_curve_and_ranges(void **state)
{
    static struct config cfg;
    struct sink *s;
    int r;
    const char *line;
    (void)state;
    make_result();
    emit(250.0);
    plat_sim_screen(100, 40, true);
    config_defaults(&cfg);
    s = sink_screen(&cfg);
    assert_non_null(s);
    feed(s, "{\"type\":\"run\",\"version\":\"0.1.0\",\"time\":\"2026-12-01T20:14:49\"}");
    for (unsigned i = 0; i < nrecs; i++)
        s->record(s, rec_type[i], rec_json[i], NULL);
    s->close(s);
    assert_true(find_row(40, "Surface scan: 1 disk") >= 0);
    assert_true(find_row(40, "map: each column its slowest read  . <5 ms") >= 0);
    r = find_row(40, "ahci0p1    ");
    assert_true(r >= 0);
    line = row((unsigned)r);
    assert_non_null(strstr(line, "209.5 MB/s (20-250)"));
    assert_non_null(strstr(line, "<5ms 9"));
    assert_non_null(strstr(line, "<50 1"));
    assert_non_null(strstr(line, "err 1"));
    /* The curve: full-rate columns '@', the slow part low, in order. */
    line = row((unsigned)r + 1);
    assert_non_null(strstr(line, "|@@@"));
    assert_non_null(strstr(line, "@.")); /* the dip, and the full rate after it */
    assert_non_null(strstr(line, ".@"));
    {
        const char *dip = strchr(line, '.'), *from = strstr(line, "|@@@"), *to = strrchr(line, '|');
        assert_non_null(dip);
        /* the 7th of 10 parts: past the middle, before the last fifth */
        assert_true((dip - from) * 2 > to - from && (dip - from) * 5 < (to - from) * 4);
    }
    /* MHDD's map under it: the failed part first, in the error colour,
     * the slow part where the dip is, fast parts between. */
    line = row((unsigned)r + 2);
    assert_non_null(strstr(line, "map |X"));
    assert_non_null(strstr(line, ".-"));
    assert_non_null(strstr(line, "-."));
    assert_int_equal(plat_sim_screen_colour((unsigned)(strchr(line, 'X') - line), (unsigned)r + 2), PLAT_COLOUR_ERROR);
    assert_int_equal(plat_sim_screen_colour((unsigned)(strchr(line, '-') - line), (unsigned)r + 2), PLAT_COLOUR_NORMAL);
    {
        const char *dash = strchr(line, '-'), *from = strstr(line, "|X"), *to = strrchr(line, '|');
        assert_true((dash - from) * 2 > to - from && (dash - from) * 5 < (to - from) * 4);
    }
    line = row((unsigned)r + 3);
    assert_non_null(strstr(line, "unreadable: 24 blocks in 2 ranges: LBA 100-115 LBA 12000-12007"));
    assert_int_equal(plat_sim_screen_colour(20, (unsigned)r + 3), PLAT_COLOUR_ERROR);
}

/* With fewer rows than all of it needs, the maps and their legend give way:
 * the rate, the curve and the unreadable ranges stay. */
static void test_screen_leaves_the_map_out_before_the_ranges(void **state)
{
    static struct screen_model m;
    static struct screen_grid g;
    unsigned want;
    (void)state;
    make_result();
    emit(250.0);
    screen_model_reset(&m, 0);
    for (unsigned i = 0; i < nrecs; i++)
        screen_model_record(&m, rec_type[i], rec_json[i], 0);
    want = screen_scan_rows(&m);
    assert_int_equal(want, 6);          /* title, legend, rate, curve, map, ranges */
    memset(&g, 0, sizeof(g));
    g.cols = 100;
    g.rows = 10;
    assert_int_equal(screen_draw_scan(&g, 0, want, &m), 6);
    memset(&g, 0, sizeof(g));
    g.cols = 100;
    g.rows = 10;
    assert_int_equal(screen_draw_scan(&g, 0, want - 1, &m), 4);
    for (unsigned r = 0; r < 4; r++) {
        char text[128];
        unsigned n = 0;
        for (unsigned c = 0; c < 100 && n + 1 < sizeof(text); c++)
            text[n++] = g.ch[r][c] ? (char)g.ch[r][c] : ' ';
        text[n] = '\0';
        assert_null(strstr(text, "map"));
        if (r == 3)
            assert_non_null(strstr(text, "unreadable: 24 blocks"));
    }
}

static struct html_data hd;
static char page[1 << 20];
static size_t page_len;

static int collect(void *ctx, const void *data, size_t len)
{
    (void)ctx;
    assert_true(page_len + len < sizeof(page));
    memcpy(page + page_len, data, len);
    page_len += len;
    page[page_len] = '\0';
    return BM_OK;
}

static void test_report_draws_table_curve_and_map(void **state)
{
    (void)state;
    make_result();
    emit(250.0);
    html_data_init(&hd);
    for (unsigned i = 0; i < nrecs; i++)
        html_data_feed(&hd, rec_type[i], rec_json[i]);
    page_len = 0;
    assert_true(html_report_write(&hd, "x.jsonl", collect, NULL).ok);
    assert_non_null(strstr(page, "<section id=\"scan\"><h2>Surface scan</h2>"));
    assert_non_null(strstr(page, "<td>ahci0p1</td><td>unreadable</td><td>0-20479</td>"));
    assert_non_null(strstr(page, "<td class=\"n\">250.0 (84%)</td>"));
    /* The curve: one chart of the 10 points. */
    assert_non_null(strstr(page, "<div class=\"scan-curve\">"));
    assert_non_null(strstr(page, "data-chart=\"scan-curve\" data-points=\"10\""));
    /* The map: both ranges, where they lie on a 640-pixel strip. */
    assert_non_null(strstr(page, "data-chart=\"scan-map\" data-points=\"2\""));
    assert_non_null(strstr(page, "<title>LBA 100-115 unreadable</title>"));
    assert_non_null(strstr(page, "x=\"374.8\""));  /* 1 + 12000/20480 x 638 = 374.8 */
    /* MHDD's map: each part in the colour of its slowest read. */
    assert_non_null(strstr(page, "fill=\"#b22222\"><title>LBA 0-2047: slowest read a read failed</title>"));
    assert_non_null(strstr(page, "fill=\"#999\"><title>LBA 12288-14335: slowest read under 50 ms</title>"));
    assert_non_null(strstr(page, "fill=\"#d4d4d4\"><title>LBA 18432-20479: slowest read under 5 ms</title>"));
    assert_non_null(strstr(page, "<td>12000</td><td>12007</td>"));
    /* Device text is escaped. */
    assert_null(strstr(page, "ABRT <script>"));
    assert_non_null(strstr(page, "ABRT &lt;script&gt;"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_records_carry_curve_buckets_ranges_and_cost),
        cmocka_unit_test(test_stopped_scan_says_why),
        cmocka_unit_test(test_screen_shows_rate_buckets_curve_and_ranges),
        cmocka_unit_test(test_screen_leaves_the_map_out_before_the_ranges),
        cmocka_unit_test(test_report_draws_table_curve_and_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
