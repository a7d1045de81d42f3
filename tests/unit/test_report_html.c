/* The HTML report (efi/report/): the JSON reader, escaping of record text,
 * the caps, streaming in chunks, the page of a fixture run, and the sink's
 * rewrite after each burn-in pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "platform.h"
#include "report/html.h"
#include "report/html_data.h"
#include "report/html_out.h"
#include "report/jscan.h"

static struct html_data d;
static char page[1 << 20];
static size_t page_len, chunks, biggest_chunk;

static int collect(void *ctx, const void *data, size_t len)
{
    (void)ctx;
    assert_true(page_len + len < sizeof(page));
    memcpy(page + page_len, data, len);
    page_len += len;
    page[page_len] = '\0';
    chunks++;
    biggest_chunk = len > biggest_chunk ? len : biggest_chunk;
    return BM_OK;
}

static void render(void)
{
    page_len = chunks = biggest_chunk = 0;
    page[0] = '\0';
    assert_true(html_report_write(&d, "x.jsonl", collect, NULL).ok);
}

static void feed(const char *json)
{
    char type[24];
    js_get_str(json, "type", type, sizeof(type));
    html_data_feed(&d, type, json);
}

static unsigned count(const char *hay, const char *needle)
{
    unsigned n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_jscan_reads_nested_fields_arrays_and_escapes(void **state)
{
    const char *j = "{\"type\":\"disk_result\",\"s\":\"a\\\"b\\u00e9\\ud83d\\ude00\\u0001\",\"lat_us\":{\"p50\":2,"
                    "\"p99\":12.5e1},\"path\":[\"x\",{\"k\":[1,2]},\"y\"],\"neg\":-3.25}";
    char s[32];
    const char *e;

    (void)state;
    assert_true(js_get_num(j, "lat_us.p99", 0) == 125);
    assert_true(js_get_num(j, "neg", 0) == -3.25);
    assert_true(js_get_num(j, "missing", 7) == 7);
    js_get_str(j, "s", s, sizeof(s));
    assert_string_equal(s, "a\"b\xc3\xa9\xf0\x9f\x98\x80?");
    e = js_first(js_get(j, "path"));
    assert_non_null(e);
    e = js_next(e);
    assert_non_null(e);
    assert_true(*e == '{');
    e = js_next(e);
    js_str(e, s, sizeof(s));
    assert_string_equal(s, "y");
    assert_null(js_next(e));
    /* A record cut mid-way reads as fields missing, never past the end. */
    assert_true(js_get_num("{\"type\":\"x\",\"a\":{\"b\":1", "a.b", -1) == 1);
    assert_true(js_get_num("{\"type\":\"x\",\"a\":\"unterminated", "b", -1) == -1);
    assert_null(js_skip("{\"a\":[1,2"));
    /* A string cut by the cap never ends inside a UTF-8 sequence. */
    js_str("\"ab\xc3\xa9\"", s, 4);
    assert_string_equal(s, "ab");
}

static void test_disk_model_cannot_inject_html(void **state)
{
    (void)state;
    html_data_init(&d);
    feed("{\"type\":\"disk\",\"id\":\"nvme0n1\\\"><script>\",\"model\":\"<script>alert(1)</script>\\\"><img src=x>\",\"serial\":\"'&lt;\",\"driver\":\"nvme\",\"bytes\":1000}");
    feed("{\"type\":\"disk_result\",\"disk\":\"nvme0n1\\\"><script>\",\"test\":\"SEQ1M-Q8T1</td><b>\",\"rw\":\"read\","
         "\"bs\":1048576,\"qd\":8,\"threads\":1,\"mbps\":1,\"iops\":1,\"lat_us\":{\"p99\":1}}");
    feed("{\"type\":\"error\",\"where\":\"<style>\",\"message\":\"</div><iframe src=//evil>\\u001b[2J\"}");
    feed("{\"type\":\"system\",\"product\":\"</title><script>x</script>\",\"cpu\":\"\\u0000\\u0085\"}");
    render();
    assert_int_equal(count(page, "<script"), 0);
    assert_int_equal(count(page, "<img"), 0);
    assert_int_equal(count(page, "<iframe"), 0);
    assert_int_equal(count(page, "</td><b>"), 0);
    assert_int_equal(count(page, "\x1b"), 0);
    assert_int_equal(count(page, "<style>"), 1); /* the page's own */
    assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x&gt;"));
    assert_non_null(strstr(page, "&#39;&amp;lt;"));
    assert_non_null(strstr(page, "id=\"disk-nvme0n1&quot;&gt;&lt;script&gt;\""));
}

static void test_escaper_replaces_invalid_utf8_and_controls(void **state)
{
    static struct hout o;

    (void)state;
    page_len = 0;
    ho_init(&o, collect, NULL);
    ho_text(&o, "a\xff\x01<\xc3\xa9\xe2\x82");
    ho_flush(&o);
    assert_string_equal(page, "a\xef\xbf\xbd\xef\xbf\xbd&lt;\xc3\xa9\xef\xbf\xbd");
}

static void test_caps_drop_data_and_the_page_says_so(void **state)
{
    char rec[256];

    (void)state;
    html_data_init(&d);
    for (int i = 0; i < HD_MAX_MSGS + 22; i++) {
        snprintf(rec, sizeof(rec), "{\"type\":\"error\",\"where\":\"w%d\",\"message\":\"m\"}", i);
        feed(rec);
    }
    for (int i = 0; i < HD_MAX_DISKS + 3; i++) {
        snprintf(rec, sizeof(rec), "{\"type\":\"disk\",\"id\":\"d%d\",\"model\":\"M\"}", i);
        feed(rec);
    }
    for (int i = 0; i < HD_MAX_LAT + 5; i++) {
        snprintf(rec, sizeof(rec), "{\"type\":\"mem_latency\",\"bytes\":%d,\"pattern\":\"stride\",\"ns\":1}", 4096 + i);
        feed(rec);
    }
    assert_int_equal(d.nmsgs, HD_MAX_MSGS);
    assert_int_equal(d.dropped_msgs, 22);
    assert_int_equal(d.nerror_records, HD_MAX_MSGS + 22);
    assert_int_equal(d.ndisks, HD_MAX_DISKS);
    assert_int_equal(d.dropped_disks, 3);
    assert_int_equal(d.nlat[0], HD_MAX_LAT);
    render();
    snprintf(rec, sizeof(rec),
             "<p class=\"banner cap\">22 more errors and notes are in the .jsonl only (the page keeps %d).</p>",
             HD_MAX_MSGS);
    assert_non_null(strstr(page, rec));
    assert_non_null(strstr(page, "More disks than the page keeps"));
    assert_non_null(strstr(page, "5 latency"));
    assert_non_null(strstr(page, "Errors and notes (70 errors)"));
}

/* The note under a capped table: nothing when nothing was dropped, the
 * page's cap in brackets only where the section names it. */
static void test_unkept_note_names_what_was_left_out(void **state)
{
    static struct hout o;

    (void)state;
    page_len = 0;
    ho_init(&o, collect, NULL);
    html_unkept(&o, "cap", 0, "scans", 0);
    html_unkept(&o, "cap", 3, "scans", 0);
    html_unkept(&o, "banner cap", 2, "errors and notes", 64);
    ho_flush(&o);
    assert_string_equal(page, "<p class=\"cap\">3 more scans are in the .jsonl only.</p>"
                              "<p class=\"banner cap\">2 more errors and notes are in the .jsonl only "
                              "(the page keeps 64).</p>");
}

static void test_page_is_streamed_in_chunks(void **state)
{
    FILE *f = fopen("tests/unit/data/report_full.jsonl", "r");
    static char line[65536];

    (void)state;
    assert_non_null(f);
    html_data_init(&d);
    while (fgets(line, sizeof(line), f))
        feed(line);
    fclose(f);
    render();
    assert_true(chunks > 10);
    assert_true(biggest_chunk <= HOUT_CHUNK);
    assert_true(page_len > 20000);
}

/* The fixture is a host run with disk=full, plus DIMMs, a downtrained PCIe
 * path, an error and a 2-node NUMA matrix (tests/unit/data/README.md). */
static void test_fixture_page_has_every_section_and_chart(void **state)
{
    (void)state;
    test_page_is_streamed_in_chunks(state);
    assert_true(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(page, "</html>\n"));
    for (const char *id = "messages\0machine\0dimms\0pci\0disks\0disk-fw0\0disk-fw1\0all-disks\0memory\0"; *id;
         id += strlen(id) + 1) {
        char want[64];
        snprintf(want, sizeof(want), "id=\"%s\"", id);
        assert_non_null(strstr(page, want));
    }
    assert_non_null(strstr(page, "data-chart=\"mem-latency\" data-points=\"66\""));
    assert_non_null(strstr(page, "data-chart=\"mem-bandwidth\" data-points=\"6\""));
    assert_non_null(strstr(page, "data-chart=\"loaded-latency\" data-points=\"5\""));
    assert_non_null(strstr(page, "data-chart=\"numa-latency\" data-points=\"4\""));
    assert_non_null(strstr(page, "data-chart=\"atto\" data-points=\"30\""));
    assert_non_null(strstr(page, "data-chart=\"qd-iops\" data-points=\"9\""));
    assert_non_null(strstr(page, "data-chart=\"scaling\" data-points=\"4\""));
    assert_int_equal(count(page, "data-chart=\"latency-percentiles\""), 2);
    assert_int_equal(count(page, "class=\"vmark\""), 2);   /* L1d, L2; L3 is past the largest set */
    assert_int_equal(count(page, "class=\"hmark\""), 1);   /* the shared link's ceiling */
    assert_non_null(strstr(page, "DOWNTRAINED"));
    assert_non_null(strstr(page, "class=\"warn dimm-warning\""));
    assert_non_null(strstr(page, "<div class=\"msg error\"><b>ERROR</b> fw1: RND4K-Q1T1 write"));
    assert_null(strstr(page, "id=\"unfinished\""));
    /* Self-contained: nothing is fetched. */
    assert_null(strstr(page, "src="));
    assert_null(strstr(page, "href="));
    assert_null(strstr(page, "<script"));
    assert_int_equal(count(page, "http"), count(page, "xmlns=\"http://www.w3.org/2000/svg\""));
}

static void test_run_without_end_record_says_so(void **state)
{
    (void)state;
    html_data_init(&d);
    feed("{\"type\":\"run\",\"version\":\"0.1.0\",\"time\":\"t\"}");
    feed("{\"type\":\"mem_latency\",\"bytes\":4096,\"pattern\":\"stride\",\"ns\":1");
    render();
    assert_non_null(strstr(page, "id=\"unfinished\""));
    assert_non_null(strstr(page, "</html>"));
}

/* The findings come first, before any table, warnings before info, with
 * their numbers; text from the record is escaped. */
static void test_findings_block_comes_before_any_table(void **state)
{
    const char *block, *table;
    (void)state;
    html_data_init(&d);
    feed("{\"type\":\"run\",\"version\":\"0.1.0\",\"time\":\"t\"}");
    feed("{\"type\":\"finding\",\"finding\":\"numa_remote\",\"severity\":\"info\",\"subjects\":[\"node0\","
         "\"node1\"],\"text\":\"Remote memory is 1.65x as slow as local.\",\"numbers\":{\"ratio\":1.65}}");
    feed("{\"type\":\"finding\",\"finding\":\"shared_ceiling\",\"severity\":\"warn\",\"subjects\":[\"ahci0p0\"],"
         "\"text\":\"4 SATA disks behind the <C226>'s DMI 2.0 x4: 1.71 of 2.00 GB/s\",\"numbers\":"
         "{\"aggregate_mbps\":1710,\"ceiling_mbps\":2000}}");
    feed("{\"type\":\"end\",\"status\":\"ok\",\"errors\":0,\"seconds\":1}");
    render();
    block = strstr(page, "<section id=\"findings\">");
    table = strstr(page, "<table");
    assert_non_null(block);
    assert_non_null(table);
    assert_true(block < table);
    assert_true(strstr(page, "data-finding=\"shared_ceiling\"") < strstr(page, "data-finding=\"numa_remote\""));
    assert_non_null(strstr(page, "behind the &lt;C226&gt;"));
    assert_non_null(strstr(page, "aggregate_mbps 1710, ceiling_mbps 2000"));
    assert_null(strstr(page, "<C226>"));
}

static void test_ended_run_without_findings_says_none(void **state)
{
    (void)state;
    html_data_init(&d);
    feed("{\"type\":\"run\",\"version\":\"0.1.0\",\"time\":\"t\"}");
    feed("{\"type\":\"end\",\"status\":\"ok\",\"errors\":0,\"seconds\":1}");
    render();
    assert_non_null(strstr(page, "<h2>Findings</h2>\n<p>None"));
}

/* A broken or hostile file: numbers at the ends of the double range, zero
 * and negative values on log axes. The page must still come out whole. */
static void test_extreme_numbers_still_render(void **state)
{
    static const char *const v[] = { "1e308", "-1e308", "1e-300", "0", "-5", "1e999", "123456789012345678" };
    char rec[256];

    (void)state;
    html_data_init(&d);
    feed("{\"type\":\"disk\",\"id\":\"x\"}");
    for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        snprintf(rec, sizeof(rec), "{\"type\":\"mem_latency\",\"bytes\":%s,\"pattern\":\"stride\",\"ns\":%s}", v[i],
                 v[(i + 3) % 7]);
        feed(rec);
        snprintf(rec, sizeof(rec), "{\"type\":\"disk_result\",\"disk\":\"x\",\"test\":\"BS%u-Q4\",\"rw\":\"read\","
                 "\"bs\":%s,\"mbps\":%s,\"lat_us\":{\"p99\":%s}}", i, v[i], v[(i + 1) % 7], v[(i + 2) % 7]);
        feed(rec);
        snprintf(rec, sizeof(rec), "{\"type\":\"mem_loaded_latency\",\"load_gbps\":%s,\"ns\":%s}", v[i], v[(i + 5) % 7]);
        feed(rec);
    }
    render();
    assert_non_null(strstr(page, "</html>"));
    assert_non_null(strstr(page, "data-chart=\"mem-latency\""));
}

static void test_html_path_replaces_the_extension(void **state)
{
    char p[64];

    (void)state;
    html_path_for(p, sizeof(p), "\\baremark\\results\\20260101-000000-SN1.jsonl");
    assert_string_equal(p, "\\baremark\\results\\20260101-000000-SN1.html");
    html_path_for(p, sizeof(p), "x");
    assert_string_equal(p, "x.html");
}

static char *slurp(const char *path)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f)
        return NULL;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Burn-in: the first record of pass N+1 rewrites the page with pass N; the
 * end of the run writes it once more, whole. */
static void test_sink_rewrites_the_page_after_each_pass(void **state)
{
    char dir[] = "/tmp/bm_report_XXXXXX", path[128];
    struct sink *s;
    const char *text;

    (void)state;
    assert_non_null(mkdtemp(dir));
    setenv("BAREMARK_HOST_VOLUME", dir, 1);
    s = sink_html("\\r.jsonl");
    snprintf(path, sizeof(path), "%s/r.html", dir);
    s->record(s, "run", "{\"type\":\"run\",\"version\":\"9\"}", NULL);
    s->record(s, "mem_bandwidth", "{\"type\":\"mem_bandwidth\",\"pass\":1,\"op\":\"read\",\"threads\":1,\"gbps\":11}",
              NULL);
    assert_null(slurp(path));
    s->record(s, "mem_bandwidth", "{\"type\":\"mem_bandwidth\",\"pass\":2,\"op\":\"read\",\"threads\":1,\"gbps\":22}",
              NULL);
    text = slurp(path);
    assert_non_null(text);
    assert_non_null(strstr(text, "written after burn-in pass 1"));
    assert_non_null(strstr(text, "<title>1 CPU: 11</title>"));
    assert_non_null(strstr(text, "</html>"));
    s->record(s, "end", "{\"type\":\"end\",\"status\":\"ok\",\"errors\":0,\"seconds\":1,\"passes\":2}", NULL);
    s->close(s);
    text = slurp(path);
    assert_non_null(strstr(text, "<title>1 CPU: 22</title>"));
    assert_null(strstr(text, "id=\"unfinished\""));
    assert_non_null(strstr(text, "of r.jsonl"));
    unlink(path);
    rmdir(dir);
    unsetenv("BAREMARK_HOST_VOLUME");
}

/* The DIMM table's SPD columns: joined to the slot by locator, dashes
 * where no SPD was read, a row of its own for an SPD without a slot, the
 * disagreement marked, an FB-DIMM's AMB maker shown. */
static void test_dimm_table_has_spd_columns(void **state)
{
    const char *row;

    (void)state;
    html_data_init(&d);
    feed("{\"type\":\"dimm\",\"locator\":\"DIMM_A1\",\"bank\":\"P0\",\"size_mb\":8192,\"mem_type\":\"DDR4\","
         "\"speed_mts\":3200,\"configured_mts\":3200,\"manufacturer\":\"Samsung\",\"part\":\"M393\"}");
    feed("{\"type\":\"dimm\",\"locator\":\"DIMM_B1\",\"bank\":\"P0\",\"size_mb\":8192,\"mem_type\":\"DDR4\","
         "\"speed_mts\":3200,\"configured_mts\":3200,\"manufacturer\":\"Samsung\",\"part\":\"M393\"}");
    feed("{\"type\":\"spd\",\"address\":\"0x50\",\"locator\":\"DIMM_A1\",\"mem_type\":\"DDR4\","
         "\"module_type\":\"RDIMM\",\"size_mb\":16384,\"ranks\":2,\"part\":\"M393A2K43DB3-CWE\","
         "\"amb_vendor\":\"\",\"speed_mts\":3200,\"cl\":22,\"trcd\":22,\"trp\":22,\"smbios_disagrees\":\"size\"}");
    feed("{\"type\":\"spd\",\"address\":\"b1c0:0x53\",\"locator\":null,\"mem_type\":\"DDR2 FB-DIMM\","
         "\"module_type\":\"FB-DIMM\",\"size_mb\":2048,\"ranks\":2,\"part\":\"18HF25672FD667\","
         "\"amb_vendor\":\"Intel\",\"speed_mts\":667,\"cl\":5,\"trcd\":5,\"trp\":5,\"smbios_disagrees\":\"\"}");
    render();
    assert_non_null(strstr(page, "<th colspan=\"6\">SPD</th>"));
    row = strstr(page, "<td>DIMM_A1</td>");
    assert_non_null(row);
    assert_non_null(strstr(row, "<td>DDR4 RDIMM</td><td class=\"n\">3200</td><td>22-22-22</td><td class=\"n\">2</td>"
                                "<td>M393A2K43DB3-CWE</td><td class=\"warn spd-differs\">differs: size</td>"));
    row = strstr(page, "<td>DIMM_B1</td>");
    assert_non_null(row);
    assert_non_null(strstr(row, "<td class=\"n\">3200</td><td class=\"muted\">-</td><td class=\"muted\">-</td>"));
    /* An FB-DIMM read through the MCH: its branch and channel stay in the name. */
    row = strstr(page, "<td>SPD b1c0:0x53</td><td>(no SMBIOS slot)</td>");
    assert_non_null(row);
    assert_non_null(strstr(row, "<td>FB-DIMM <span class=\"muted\">(AMB Intel)</span></td>"));
    assert_int_equal(count(page, "spd-differs"), 1);
}

/* The memory map: one row per region, bars against the fastest, slow rows
 * marked, regions not measured say why, the verdict above. */
static void test_memory_map_chart(void **state)
{
    char rec[512];
    const char *slow;

    (void)state;
    html_data_init(&d);
    for (unsigned i = 0; i < 32; i++) {
        snprintf(rec, sizeof(rec),
                 "{\"type\":\"mem_region\",\"index\":%u,\"base\":%llu,\"end\":0,\"bytes\":4294967296,\"node\":%u,"
                 "\"latency_ns\":%.1f,\"read_gbps\":%.2f,\"slow\":%s}",
                 i, (unsigned long long)i << 32, i / 16, i >= 24 ? 130.0 : 90.0, i >= 24 ? 10.0 : 20.0,
                 i >= 24 ? "true" : "false");
        feed(rec);
    }
    feed("{\"type\":\"mem_region\",\"index\":32,\"base\":137438953472,\"bytes\":655360,\"node\":null,"
         "\"latency_ns\":null,\"read_gbps\":null,\"reason\":\"too small for a buffer past the caches\"}");
    feed("{\"type\":\"mem_map_summary\",\"regions\":33,\"slow_regions\":[24,25,26,27,28,29,30,31],"
         "\"verdict\":\"8 of 33 regions more than 10% slower than the median\",\"seconds\":27.5,"
         "\"seconds_per_gib\":0.2148}");
    render();
    assert_non_null(strstr(page, "<section id=\"memory\">"));
    assert_non_null(strstr(page, "<table id=\"mem-map\">"));
    assert_non_null(strstr(page, "<p class=\"warn map-verdict\">8 of 33 regions more than 10% slower than the median "
                                 "(27.5 s, 0.215 s per GiB)</p>"));
    assert_int_equal(count(page, "<div class=\"bar\" style=\"width:100.0%\">"), 24);
    assert_int_equal(count(page, "<div class=\"bar\" style=\"width:50.0%\">"), 8);
    assert_int_equal(count(page, "<tr class=\"slow\">"), 8);
    slow = strstr(page, "<tr class=\"slow\">");
    assert_non_null(strstr(slow, "<td class=\"n\">0x1800000000</td><td>4G</td><td class=\"n\">1</td>"
                                 "<td class=\"n\">130.0</td><td class=\"n\">10.00</td>"));
    assert_non_null(strstr(page, "not measured: too small for a buffer past the caches"));
}

/* A byte count past the largest unit (1024P = 2^60 bytes, beyond any real
 * size) is named out of range, not cast to an integer it does not fit
 * (fuzz_report_html found the cast undefined for 4.73112e+92). */
static void test_fmt_bytes_past_1024p_is_out_of_range(void **state)
{
    const double p = 1125899906842624.0; /* 2^50 */
    char b[16];

    (void)state;
    fmt_bytes(b, sizeof(b), 4.73112e92);
    assert_string_equal(b, "out of range");
    fmt_bytes(b, sizeof(b), 1.0 / 0.0);
    assert_string_equal(b, "out of range");
    fmt_bytes(b, sizeof(b), 1024 * p);
    assert_string_equal(b, "out of range");
    fmt_bytes(b, sizeof(b), 1023 * p);
    assert_string_equal(b, "1023P");
    fmt_bytes(b, sizeof(b), 1.5 * p);
    assert_string_equal(b, "1.5P");
    fmt_bytes(b, sizeof(b), 4096);
    assert_string_equal(b, "4K");
    fmt_bytes(b, sizeof(b), 1000);
    assert_string_equal(b, "1000");
}

/* A record's "pass" that no unsigned holds (negative, past 2^32)
 * reads as 0 or the largest pass, never as a cast of a double out
 * of range (fuzz_report_html: "-5 is outside the range ... unsigned int"). */
static void test_pass_out_of_range_is_clamped(void **state)
{
    (void)state;
    assert_int_equal(html_data_pass_of("{\"type\":\"note\",\"pass\":-5}"), 0);
    assert_int_equal(html_data_pass_of("{\"pass\":5e9}"), UINT32_MAX);
    assert_int_equal(html_data_pass_of("{\"pass\":7}"), 7);
}

/* A memory region's base that is no address (negative, past 2^64) shows
 * as the nearest one, not a cast of a double out of range (it was undefined:
 * "-5 is outside the range of representable values of type 'unsigned long
 * long'"). */
static void test_region_base_out_of_range_is_clamped(void **state)
{
    (void)state;
    html_data_init(&d);
    feed("{\"type\":\"mem_region\",\"index\":0,\"base\":-5,\"bytes\":4096,\"node\":0,"
         "\"latency_ns\":80,\"read_gbps\":10,\"slow\":false}");
    feed("{\"type\":\"mem_region\",\"index\":1,\"base\":1e30,\"bytes\":4096,\"node\":0,"
         "\"latency_ns\":80,\"read_gbps\":10,\"slow\":false}");
    feed("{\"type\":\"mem_map_summary\",\"regions\":2,\"slow_regions\":[],\"verdict\":\"ok\"}");
    render();
    assert_non_null(strstr(page, "<td class=\"n\">0x0</td>"));
    assert_non_null(strstr(page, "<td class=\"n\">0xffffffffffffffff</td>"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jscan_reads_nested_fields_arrays_and_escapes),
        cmocka_unit_test(test_disk_model_cannot_inject_html),
        cmocka_unit_test(test_escaper_replaces_invalid_utf8_and_controls),
        cmocka_unit_test(test_caps_drop_data_and_the_page_says_so),
        cmocka_unit_test(test_unkept_note_names_what_was_left_out),
        cmocka_unit_test(test_page_is_streamed_in_chunks),
        cmocka_unit_test(test_fixture_page_has_every_section_and_chart),
        cmocka_unit_test(test_run_without_end_record_says_so),
        cmocka_unit_test(test_findings_block_comes_before_any_table),
        cmocka_unit_test(test_ended_run_without_findings_says_none),
        cmocka_unit_test(test_extreme_numbers_still_render),
        cmocka_unit_test(test_html_path_replaces_the_extension),
        cmocka_unit_test(test_sink_rewrites_the_page_after_each_pass),
        cmocka_unit_test(test_dimm_table_has_spd_columns),
        cmocka_unit_test(test_memory_map_chart),
        cmocka_unit_test(test_fmt_bytes_past_1024p_is_out_of_range),
        cmocka_unit_test(test_pass_out_of_range_is_clamped),
        cmocka_unit_test(test_region_base_out_of_range_is_clamped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
