/* Hostile options: a long command line is applied whole or refused whole,
 * NUL bytes and long lines in baremark.cfg are named, out= never leaves
 * the results volume. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "platform.h"

static struct config c;
static char err[CONFIG_ERR_LEN];

static int setup(void **state)
{
    (void)state;
    config_defaults(&c);
    err[0] = '\0';
    return 0;
}

static void test_long_command_line_applies_every_option(void **state)
{
    static char line[CONFIG_ARGS_MAX + 1];
    size_t n = 0;
    (void)state;
    n += (size_t)snprintf(line + n, sizeof(line) - n, "baremark.efi");
    /* Far past the old 511-byte cut: options there used to vanish. */
    while (n < 3000)
        n += (size_t)snprintf(line + n, sizeof(line) - n, " time=7");
    n += (size_t)snprintf(line + n, sizeof(line) - n, " exit=shutdown mem=off");
    assert_int_equal(config_parse_args(&c, line, err, sizeof(err)), BM_OK);
    assert_int_equal(c.time_s, 7);
    assert_int_equal(c.exit, EXIT_SHUTDOWN);
    assert_int_equal(c.mem, LEVEL_OFF);
    /* A bad option at the end is seen, not cut off. */
    snprintf(line + n, sizeof(line) - n, " time=never");
    assert_int_equal(config_parse_args(&c, line, err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "'time'"));
}

static void test_too_long_command_line_is_refused_whole(void **state)
{
    static char line[CONFIG_ARGS_MAX + 100];
    char want[80];
    (void)state;
    memset(line, ' ', sizeof(line) - 1);
    line[sizeof(line) - 1] = '\0';
    memcpy(line, "mem=off", 7);
    assert_int_equal(config_parse_args(&c, line, err, sizeof(err)), BM_EINVAL);
    snprintf(want, sizeof(want), "command line too long (%u bytes, at most %u)", (unsigned)sizeof(line) - 1,
             CONFIG_ARGS_MAX);
    assert_non_null(strstr(err, want));
    assert_int_equal(c.mem, LEVEL_QUICK); /* nothing applied */
}

static void test_nul_byte_in_file_names_its_line(void **state)
{
    static const char text[] = "mem=off\n# ok\ndisk=off\0exit=shutdown\n";
    (void)state;
    assert_int_equal(config_nul_line(text, sizeof(text) - 1), 3);
    assert_int_equal(config_nul_line("mem=off\n", 8), 0);
    assert_int_equal(config_nul_line("\0", 1), 1);
}

static void test_long_file_line_reports_its_real_length(void **state)
{
    static char text[20000];
    (void)state;
    memset(text, 'a', sizeof(text) - 1);
    memcpy(text, "mem=off\r\ndisks=", 15);
    text[sizeof(text) - 3] = '\r';
    text[sizeof(text) - 2] = '\n';
    assert_int_equal(config_parse_file(&c, text, err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "line 2: line too long (19988 bytes, at most 511)"));
}

static void test_out_never_leaves_the_volume(void **state)
{
    static const char *const refused[] = {
        "..", "../..", "..\\..", "\\baremark\\..\\..\\x", "a/../b", "a\\.\\b", "USB:\\..", "*:\\..\\x",
        "\\baremark\\...", "\\baremark\\. .", "./x",
    };
    static const char *const accepted[] = {
        "\\baremark\\results", "a.b\\c", "..x", "\\x..\\y", "USB:\\res.v1", "*:\\out",
    };
    (void)state;
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        config_defaults(&c);
        assert_int_equal(config_set(&c, "out", refused[i], err, sizeof(err)), BM_EINVAL);
        assert_non_null(strstr(err, "no . or .. in the path"));
        assert_string_equal(c.out, "\\baremark\\results");
    }
    for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++)
        assert_int_equal(config_set(&c, "out", accepted[i], err, sizeof(err)), BM_OK);
    assert_true(bm_path_has_dot_part("x/../y"));
    assert_false(bm_path_has_dot_part("x/.y./y"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_long_command_line_applies_every_option, setup),
        cmocka_unit_test_setup(test_too_long_command_line_is_refused_whole, setup),
        cmocka_unit_test_setup(test_nul_byte_in_file_names_its_line, setup),
        cmocka_unit_test_setup(test_long_file_line_reports_its_real_length, setup),
        cmocka_unit_test_setup(test_out_never_leaves_the_volume, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
