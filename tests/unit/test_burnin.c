/* Burn-in: limits parsing and matching, statistics across passes, verdicts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "burnin.h"
#include "platform.h"
#include "config.h"
#include "record.h"

static char verdicts[8][1024];
static unsigned nverdicts;

static void keep_verdicts(struct sink *s, const char *type, const char *json, const char *human)
{
    (void)s;
    (void)human;
    if (!strcmp(type, "verdict") && nverdicts < 8)
        snprintf(verdicts[nverdicts++], sizeof(verdicts[0]), "%s", json);
}

static struct sink keeper = { "keep", keep_verdicts, NULL, NULL, NULL, NULL };

static void observe(const char *disk, const char *serial, const char *test, double mbps, double iops, double p99)
{
    struct record_metric m;
    memset(&m, 0, sizeof(m));
    m.set = true;
    snprintf(m.subject, sizeof(m.subject), "%s", disk);
    snprintf(m.serial, sizeof(m.serial), "%s", serial);
    snprintf(m.model, sizeof(m.model), "QEMU NVMe Ctrl");
    snprintf(m.test, sizeof(m.test), "%s", test);
    snprintf(m.unit, sizeof(m.unit), "MB/s");
    m.value = mbps;
    m.iops = iops;
    m.p99_us = p99;
    burnin_observe("disk_result", &m);
}

static void test_limit_options_plain_and_per_test(void **state)
{
    struct limit_set ls;
    (void)state;
    memset(&ls, 0, sizeof(ls));
    assert_int_equal(limits_parse_option(&ls, "min_mbps", "100"), BM_OK);
    assert_int_equal(limits_parse_option(&ls, "min_mbps", "SEQ1M-Q8T1:1500,RND4K*:40.5"), BM_OK);
    assert_int_equal(limits_parse_option(&ls, "max_lat_us", "RND4K-Q1T1:150"), BM_OK);
    assert_int_equal(ls.count, 4);
    assert_string_equal(ls.items[0].test, "*");
    assert_true(ls.items[0].min_mbps == 100);
    assert_string_equal(ls.items[2].test, "RND4K*");
    assert_true(ls.items[2].min_mbps == 40.5);
    assert_true(ls.items[3].max_lat_us == 150);
    assert_int_equal(limits_parse_option(&ls, "min_mbps", "SEQ:"), BM_EINVAL);
    assert_int_equal(limits_parse_option(&ls, "min_mbps", "-5"), BM_EINVAL);
    assert_int_equal(limits_parse_option(&ls, "min_mbps", "0"), BM_EINVAL);
    assert_int_equal(limits_parse_option(&ls, "min_mbps", "a,b"), BM_EINVAL);
    assert_int_equal(ls.count, 4); /* a bad value changes nothing */
}

static void test_limit_options_through_config_name_the_key(void **state)
{
    struct config c;
    char err[CONFIG_ERR_LEN];
    (void)state;
    config_defaults(&c);
    assert_int_equal(config_parse_args(&c, "x min_iops=RND4K-Q32T1:50000 passes=3 duration=10", err, sizeof(err)),
                     BM_OK);
    assert_int_equal(c.passes, 3);
    assert_int_equal(c.duration_s, 600);
    assert_int_equal(config_parse_args(&c, "x duration=90s", err, sizeof(err)), BM_OK);
    assert_int_equal(c.duration_s, 90);
    assert_int_equal(config_parse_args(&c, "x duration=2h", err, sizeof(err)), BM_OK);
    assert_int_equal(c.duration_s, 7200);
    assert_int_equal(config_parse_args(&c, "x duration=30m", err, sizeof(err)), BM_OK);
    assert_int_equal(c.duration_s, 1800);
    assert_int_equal(config_parse_args(&c, "x duration=s", err, sizeof(err)), BM_EINVAL);
    assert_int_equal(config_parse_args(&c, "x duration=0s", err, sizeof(err)), BM_EINVAL);
    assert_int_equal(config_parse_args(&c, "x duration=10x", err, sizeof(err)), BM_EINVAL);
    assert_int_equal(config_parse_args(&c, "x duration=16667h", err, sizeof(err)), BM_EINVAL);
    assert_int_equal(c.limits.count, 1);
    assert_int_equal(config_parse_args(&c, "x max_lat_us=fast", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "'max_lat_us'"));
    assert_int_equal(config_parse_args(&c, "x passes=0", err, sizeof(err)), BM_EINVAL);
    assert_int_equal(config_parse_args(&c, "x duration=-1", err, sizeof(err)), BM_EINVAL);
}

static void test_limits_file_lines_and_errors(void **state)
{
    struct limit_set ls;
    char err[256];
    (void)state;
    memset(&ls, 0, sizeof(ls));
    assert_int_equal(limits_parse_file(&ls,
                                       "# disk test limits\n"
                                       "*        SEQ1M-Q8T1  min_mbps=1500\n"
                                       "S1234   RND4K-Q1T1  max_lat_us=150 min_iops=5000   # tight\n\n",
                                       err, sizeof(err)),
                     BM_OK);
    assert_int_equal(ls.count, 2);
    assert_string_equal(ls.items[1].subject, "S1234");
    assert_true(ls.items[1].min_iops == 5000 && ls.items[1].max_lat_us == 150);
    assert_int_equal(limits_parse_file(&ls, "* SEQ1M-Q8T1\n", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "line 1"));
    assert_int_equal(limits_parse_file(&ls, "\n* SEQ1M-Q8T1 min_speed=5\n", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "line 2"));
    assert_non_null(strstr(err, "min_speed"));
    assert_int_equal(limits_parse_file(&ls, "* * min_mbps\n", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "not key=value"));
}

static void test_pattern_matching(void **state)
{
    (void)state;
    assert_true(limits_match("*", "RND4K-Q1T1"));
    assert_true(limits_match("RND4K*", "RND4K-Q1T1"));
    assert_false(limits_match("RND4K*", "SEQ1M-Q8T1"));
    assert_true(limits_match("SEQ1M-Q8T1", "SEQ1M-Q8T1"));
    assert_false(limits_match("SEQ1M-Q8", "SEQ1M-Q8T1"));
    assert_false(limits_match("*", ""));
}

static void test_verdicts_use_the_most_specific_limit_and_count_failures(void **state)
{
    struct limit_set ls;
    (void)state;
    memset(&ls, 0, sizeof(ls));
    assert_int_equal(limits_parse_option(&ls, "min_mbps", "SEQ1M-Q8T1:1000"), BM_OK);
    assert_int_equal(limits_parse_file(&ls, "SLOWDISK SEQ1M-Q8T1 min_mbps=100\n* RND4K-Q1T1 max_lat_us=200\n",
                                       verdicts[0], sizeof(verdicts[0])),
                     BM_OK);
    sinks_reset();
    sinks_add(&keeper);
    nverdicts = 0;
    burnin_start(&ls);
    /* nvme0n1 is held to 1000 MB/s; the SLOWDISK serial only to 100. */
    observe("nvme0n1", "FAST", "SEQ1M-Q8T1", 1200, 1200, 900);
    observe("nvme0n1", "FAST", "SEQ1M-Q8T1", 950, 950, 900);
    observe("ahci0p0", "SLOWDISK", "SEQ1M-Q8T1", 150, 150, 9000);
    observe("ahci0p0", "SLOWDISK", "RND4K-Q1T1", 2, 500, 250);
    observe("ahci0p0", "SLOWDISK", "RND4K-Q32T1", 2, 500, 9999); /* no limit: no verdict */
    assert_int_equal(burnin_emit_verdicts(), 2);
    assert_int_equal(nverdicts, 3);
    assert_non_null(strstr(verdicts[0], "\"disk\":\"nvme0n1\",\"test\":\"SEQ1M-Q8T1\",\"result\":\"fail\",\"passes\":2,"
                                        "\"failures\":1,\"limit\":{\"min_mbps\":1000}"));
    assert_non_null(strstr(verdicts[0], "\"worst\":{\"mbps\":950"));
    assert_non_null(strstr(verdicts[1], "\"disk\":\"ahci0p0\",\"test\":\"SEQ1M-Q8T1\",\"result\":\"pass\""));
    assert_non_null(strstr(verdicts[2], "\"test\":\"RND4K-Q1T1\",\"result\":\"fail\""));
    assert_non_null(strstr(verdicts[2], "\"p99_us\":250"));
    sinks_reset();
}

static void test_series_statistics(void **state)
{
    const double v[] = { 10, 12, 8, 10, 10 };
    const double even[] = { 4, 1, 3, 2 };
    struct burnin_stats st;
    (void)state;
    burnin_series_stats(v, 5, &st);
    assert_int_equal(st.n, 5);
    assert_true(st.min == 8 && st.max == 12 && st.median == 10 && st.mean == 10);
    /* sample sd = sqrt(8/4) = 1.41421 */
    assert_true(fabs(st.cv - 0.141421) < 1e-5);
    burnin_series_stats(even, 4, &st);
    assert_true(st.median == 2.5);
    burnin_series_stats(v, 1, &st);
    assert_true(st.cv == 0 && st.median == 10);
}

static void test_summary_lists_every_test_across_passes(void **state)
{
    static char buf[4096];
    struct json j;
    (void)state;
    burnin_start(NULL);
    for (int pass = 0; pass < 3; pass++) {
        observe("nvme0n1", "S", "SEQ1M-Q8T1", 1000 + pass * 100, 1, 1);
        observe("nvme0n1", "S", "RND4K-Q1T1", 50, 1, 1);
    }
    json_init(&j, buf, sizeof(buf));
    json_obj_begin(&j, NULL);
    burnin_add_summary(&j);
    json_obj_end(&j);
    assert_string_equal(buf, "{\"tests\":[{\"subject\":\"nvme0n1\",\"test\":\"SEQ1M-Q8T1\",\"unit\":\"MB/s\",\"n\":3,"
                             "\"min\":1000,\"median\":1100,\"max\":1200,\"cv\":0.0909},"
                             "{\"subject\":\"nvme0n1\",\"test\":\"RND4K-Q1T1\",\"unit\":\"MB/s\",\"n\":3,\"min\":50,"
                             "\"median\":50,\"max\":50,\"cv\":0}]}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_options_plain_and_per_test),
        cmocka_unit_test(test_limit_options_through_config_name_the_key),
        cmocka_unit_test(test_limits_file_lines_and_errors),
        cmocka_unit_test(test_pattern_matching),
        cmocka_unit_test(test_verdicts_use_the_most_specific_limit_and_count_failures),
        cmocka_unit_test(test_series_statistics),
        cmocka_unit_test(test_summary_lists_every_test_across_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
