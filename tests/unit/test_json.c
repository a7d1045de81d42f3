/* The JSON writer: structure, escaping, numbers, overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "json.h"
#include "record.h"

static char buf[512];
static struct json j;

static void test_nested_objects_and_arrays(void **state)
{
    (void)state;
    json_init(&j, buf, sizeof(buf));
    json_obj_begin(&j, NULL);
    json_str(&j, "type", "pci");
    json_obj_begin(&j, "link");
    json_u64(&j, "width", 4);
    json_bool(&j, "downtrained", false);
    json_obj_end(&j);
    json_arr_begin(&j, "path");
    json_str(&j, NULL, "0000:00:01.0");
    json_str(&j, NULL, "0000:01:00.0");
    json_arr_end(&j);
    json_arr_begin(&j, "empty");
    json_arr_end(&j);
    json_null(&j, "none");
    json_obj_end(&j);
    assert_false(j.overflow);
    assert_string_equal(json_text(&j), "{\"type\":\"pci\",\"link\":{\"width\":4,\"downtrained\":false},"
                                       "\"path\":[\"0000:00:01.0\",\"0000:01:00.0\"],\"empty\":[],\"none\":null}");
}

static void test_strings_are_escaped(void **state)
{
    (void)state;
    json_init(&j, buf, sizeof(buf));
    json_obj_begin(&j, NULL);
    json_str(&j, "s", "a\"b\\c\nd\re\tf\x01g\x7f");
    json_str(&j, "path", "\\baremark\\results");
    json_str(&j, "null", NULL);
    json_obj_end(&j);
    assert_string_equal(json_text(&j),
                        "{\"s\":\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u007f\",\"path\":\"\\\\baremark\\\\results\",\"null\":\"\"}");
}

static void test_numbers(void **state)
{
    (void)state;
    json_init(&j, buf, sizeof(buf));
    json_arr_begin(&j, NULL);
    json_u64(&j, NULL, 18446744073709551615ull);
    json_i64(&j, NULL, -9223372036854775807ll - 1);
    json_num(&j, NULL, 1.5, 3);
    json_num(&j, NULL, 2.0, 3);
    json_num(&j, NULL, 0.0004, 3);
    json_num(&j, NULL, -0.0001, 2);
    json_num(&j, NULL, 123.456789, 2);
    json_num(&j, NULL, 0.0 / 0.0, 2);
    json_num(&j, NULL, 1e300, 2);
    json_num(&j, NULL, 7.25, 0);
    json_arr_end(&j);
    assert_string_equal(json_text(&j),
                        "[18446744073709551615,-9223372036854775808,1.5,2,0,0,123.46,null,null,7]");
}

static void test_overflow_is_flagged_not_cut_mid_value(void **state)
{
    char small[24];
    (void)state;
    json_init(&j, small, sizeof(small));
    json_obj_begin(&j, NULL);
    json_str(&j, "k", "0123456789abcdefghijkl");
    json_obj_end(&j);
    assert_true(j.overflow);
    assert_string_equal(json_text(&j), "{");
}

/* A sink that keeps the last record, to test record assembly. */
static char last_json[RECORD_MAX_BYTES];
static char last_human[256];
static void keep_record(struct sink *s, const char *type, const char *json, const char *human)
{
    (void)s;
    (void)type;
    snprintf(last_json, sizeof(last_json), "%s", json);
    snprintf(last_human, sizeof(last_human), "%s", human ? human : "");
}

static void test_records_carry_type_pass_and_count_errors(void **state)
{
    static struct sink keeper = { "keep", keep_record, NULL, NULL, NULL, NULL };
    static struct record r;
    (void)state;
    sinks_reset();
    sinks_add(&keeper);
    record_begin(&r, "disk");
    json_str(&r.j, "id", "nvme0n1");
    record_emit(&r, "disk nvme0n1");
    assert_string_equal(last_json, "{\"type\":\"disk\",\"id\":\"nvme0n1\"}");
    assert_string_equal(last_human, "disk nvme0n1");
    record_set_pass(3);
    record_error("nvme0n1", "read failed at LBA %d", 42);
    assert_string_equal(last_json, "{\"type\":\"error\",\"pass\":3,\"where\":\"nvme0n1\",\"message\":\"read failed at LBA 42\"}");
    assert_int_equal(record_error_count(), 1);
    record_note("results_file", "netboot");
    assert_int_equal(record_error_count(), 1);
    sinks_close();
    sinks_reset();
}

static void test_oversized_record_becomes_an_error_record(void **state)
{
    static struct sink keeper = { "keep", keep_record, NULL, NULL, NULL, NULL };
    static struct record r;
    static char big[RECORD_MAX_BYTES];
    (void)state;
    memset(big, 'x', sizeof(big) - 1);
    sinks_reset();
    sinks_add(&keeper);
    record_begin(&r, "dimm");
    json_str(&r.j, "part", big);
    record_emit(&r, NULL);
    assert_string_equal(last_json, "{\"type\":\"error\",\"where\":\"dimm\",\"message\":\"record too large, dropped\"}");
    assert_int_equal(record_error_count(), 1);
    sinks_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_objects_and_arrays),
        cmocka_unit_test(test_strings_are_escaped),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_overflow_is_flagged_not_cut_mid_value),
        cmocka_unit_test(test_records_carry_type_pass_and_count_errors),
        cmocka_unit_test(test_oversized_record_becomes_an_error_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
