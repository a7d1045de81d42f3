/* Options: defaults, every key, every error path, file vs command line. */
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

static void test_defaults_are_read_only_quick_runs(void **state)
{
    (void)state;
    assert_int_equal(c.mem, LEVEL_QUICK);
    assert_int_equal(c.disk, LEVEL_QUICK);
    assert_true(c.disks.all);
    assert_int_equal(c.write.count, 0);
    assert_false(config_write_allowed(&c, "ANY"));
    assert_int_equal(c.driver, DRIVER_AUTO);
    assert_int_equal(c.time_s, 5);
    assert_int_equal(c.io_timeout_s, 30);
    assert_int_equal(c.serial, SERIAL_AUTO);
    assert_false(c.baud_given);
    assert_int_equal(c.baud, 115200);
    assert_string_equal(c.out, "\\baremark\\results");
    assert_int_equal(c.exit, EXIT_WAIT);
}

static void test_every_key_accepts_its_documented_values(void **state)
{
    (void)state;
    assert_int_equal(config_parse_args(&c, "baremark.efi mem=full disk=off driver=firmware time=30 exit=shutdown",
                                       err, sizeof(err)), BM_OK);
    assert_int_equal(c.mem, LEVEL_FULL);
    assert_int_equal(c.disk, LEVEL_OFF);
    assert_int_equal(c.driver, DRIVER_FIRMWARE);
    assert_int_equal(c.time_s, 30);
    assert_int_equal(c.time_ms, 30000);
    assert_int_equal(c.exit, EXIT_SHUTDOWN);
    /* time=Nms: the engine measures milliseconds; time_s is rounded up. */
    assert_int_equal(config_parse_args(&c, "x time=300ms", err, sizeof(err)), BM_OK);
    assert_int_equal(c.time_ms, 300);
    assert_int_equal(c.time_s, 1);
    assert_int_equal(config_parse_args(&c, "x time=2500ms", err, sizeof(err)), BM_OK);
    assert_int_equal(c.time_ms, 2500);
    assert_int_equal(c.time_s, 3);
    /* warmup= in seconds or milliseconds, 0 allowed; unset until given. */
    assert_int_equal(config_parse_args(&c, "x", err, sizeof(err)), BM_OK);
    assert_false(c.warmup_given);
    assert_int_equal(config_parse_args(&c, "x warmup=0", err, sizeof(err)), BM_OK);
    assert_true(c.warmup_given);
    assert_int_equal(c.warmup_ms, 0);
    assert_int_equal(config_parse_args(&c, "x warmup=50ms", err, sizeof(err)), BM_OK);
    assert_int_equal(c.warmup_ms, 50);
    assert_int_equal(config_parse_args(&c, "x warmup=600", err, sizeof(err)), BM_OK);
    assert_int_equal(c.warmup_ms, 600000);
    assert_int_equal(config_parse_args(&c, "x serial=com2 baud=9600 out=/logs/run exit=reboot", err, sizeof(err)),
                     BM_OK);
    assert_int_equal(c.serial, SERIAL_FIXED);
    assert_int_equal(c.serial_uart.base, 0x2f8);
    assert_int_equal(c.baud, 9600);
    assert_string_equal(c.out, "\\logs\\run");
    assert_int_equal(c.exit, EXIT_REBOOT);
    assert_int_equal(config_parse_args(&c, "x exit=return", err, sizeof(err)), BM_OK);
    assert_int_equal(c.exit, EXIT_RETURN);
    assert_int_equal(config_parse_args(&c, "x exit=wait", err, sizeof(err)), BM_OK);
    assert_int_equal(c.exit, EXIT_WAIT);
    assert_int_equal(config_parse_args(&c, "x serial=0x2e8 out=off driver=native", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial_uart.base, 0x2e8);
    assert_true(c.out_off);
    assert_int_equal(c.driver, DRIVER_NATIVE);
    assert_int_equal(config_parse_args(&c, "x out=BAREMARK:\\logs", err, sizeof(err)), BM_OK);
    assert_string_equal(c.out, "BAREMARK:\\logs");
    assert_int_equal(config_parse_args(&c, "x out=*:/logs", err, sizeof(err)), BM_OK);
    assert_string_equal(c.out, "*:\\logs");
    assert_int_equal(config_parse_args(&c, "x serial=off", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial, SERIAL_OFF);
    assert_int_equal(config_parse_args(&c, "x mem_max=64M", err, sizeof(err)), BM_OK);
    assert_int_equal(c.mem_max_bytes, 64ull << 20);
}

static void test_help_as_a_word_or_a_key(void **state)
{
    (void)state;
    assert_int_equal(config_parse_args(&c, "help", err, sizeof(err)), BM_OK);
    assert_true(c.help);
    config_defaults(&c);
    assert_int_equal(config_parse_args(&c, "baremark.efi help=1", err, sizeof(err)), BM_OK);
    assert_true(c.help);
    assert_non_null(strstr(config_help_text(), "write"));
}

static void test_unknown_key_is_named(void **state)
{
    (void)state;
    assert_int_equal(config_parse_args(&c, "baremark.efi dsik=quick", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "unknown option 'dsik'"));
}

/* Each bad value names the key, the value and what is accepted. */
static void check_bad(const char *arg, const char *key, const char *value, const char *accepted)
{
    char line[160];
    config_defaults(&c);
    snprintf(line, sizeof(line), "baremark.efi %s", arg);
    assert_int_equal(config_parse_args(&c, line, err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, key));
    assert_non_null(strstr(err, value));
    assert_non_null(strstr(err, accepted));
}

static void test_bad_values_name_key_value_and_accepted(void **state)
{
    (void)state;
    check_bad("mem=fast", "'mem'", "'fast'", "off, quick or full");
    check_bad("disk=1", "'disk'", "'1'", "off, quick or full");
    check_bad("disks=", "'disks'", "''", "comma-separated");
    check_bad("disks=a,,b", "'disks'", "'a,,b'", "comma-separated");
    check_bad("disks=a,", "'disks'", "'a,'", "comma-separated");
    check_bad("write=", "'write'", "''", "serials");
    check_bad("driver=bios", "'driver'", "'bios'", "auto, native or firmware");
    check_bad("time=0", "'time'", "'0'", "1 to 3600");
    check_bad("time=3601", "'time'", "'3601'", "1 to 3600");
    check_bad("time=5s", "'time'", "'5s'", "1 to 3600");
    check_bad("time=50ms", "'time'", "'50ms'", "1 to 3600");
    check_bad("time=3600001ms", "'time'", "'3600001ms'", "1 to 3600");
    check_bad("time=ms", "'time'", "'ms'", "1 to 3600");
    check_bad("warmup=601", "'warmup'", "'601'", "0 to 600");
    check_bad("warmup=600001ms", "'warmup'", "'600001ms'", "0 to 600");
    check_bad("warmup=-1", "'warmup'", "'-1'", "0 to 600");
    check_bad("warmup=2s", "'warmup'", "'2s'", "0 to 600");
    check_bad("serial=com9", "'serial'", "'com9'", "com1");
    check_bad("serial=0x", "'serial'", "'0x'", "com1");
    check_bad("baud=100000", "'baud'", "'100000'", "divisor of 115200");
    check_bad("baud=fast", "'baud'", "'fast'", "divisor of 115200");
    check_bad("exit=halt", "'exit'", "'halt'", "return, reboot or shutdown");
    check_bad("out=a*b", "'out'", "'a*b'", "folder");
    check_bad("out=:\\x", "'out'", "':\\x'", "LABEL:");
    check_bad("out=STICK:", "'out'", "'STICK:'", "LABEL:");
    check_bad("out=AB*:\\x", "'out'", "'AB*:\\x'", "LABEL:");
    check_bad("out=A:\\b:c", "'out'", "'A:\\b:c'", "LABEL:");
    check_bad("mem_max=1", "'mem_max'", "'1'", "at least 4K");
    check_bad("mem_max=12X", "'mem_max'", "'12X'", "at least 4K");
    check_bad("help=maybe", "'help'", "'maybe'", "no value");
}

/* io_timeout=: whole seconds 1 to 600, in the file or on the command
 * line; the help names it. */
static void test_io_timeout_seconds_in_bounds(void **state)
{
    (void)state;
    assert_int_equal(config_parse_args(&c, "x io_timeout=5", err, sizeof(err)), BM_OK);
    assert_int_equal(c.io_timeout_s, 5);
    assert_int_equal(config_parse_args(&c, "x io_timeout=1", err, sizeof(err)), BM_OK);
    assert_int_equal(c.io_timeout_s, 1);
    assert_int_equal(config_parse_args(&c, "x io_timeout=600", err, sizeof(err)), BM_OK);
    assert_int_equal(c.io_timeout_s, 600);
    assert_int_equal(config_parse_file(&c, "io_timeout = 12\n", err, sizeof(err)), BM_OK);
    assert_int_equal(c.io_timeout_s, 12);
    assert_non_null(strstr(config_help_text(), "io_timeout"));
    check_bad("io_timeout=0", "'io_timeout'", "'0'", "seconds from 1 to 600");
    check_bad("io_timeout=601", "'io_timeout'", "'601'", "seconds from 1 to 600");
    check_bad("io_timeout=5000ms", "'io_timeout'", "'5000ms'", "seconds from 1 to 600");
    check_bad("io_timeout=5s", "'io_timeout'", "'5s'", "seconds from 1 to 600");
    check_bad("io_timeout=-1", "'io_timeout'", "'-1'", "seconds from 1 to 600");
    check_bad("io_timeout=", "'io_timeout'", "''", "seconds from 1 to 600");
    /* A bad value leaves the default. */
    assert_int_equal(c.io_timeout_s, 30);
}

static void test_malformed_words(void **state)
{
    (void)state;
    assert_int_equal(config_parse_args(&c, "baremark.efi disk=off quick", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "malformed option 'quick'"));
    config_defaults(&c);
    assert_int_equal(config_parse_args(&c, "baremark.efi =off", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "key is missing"));
}

static void test_first_word_without_equals_is_the_program_name(void **state)
{
    (void)state;
    assert_int_equal(config_parse_args(&c, "fs0:\\EFI\\BOOT\\BOOTX64.EFI disk=off", err, sizeof(err)), BM_OK);
    assert_int_equal(c.disk, LEVEL_OFF);
    config_defaults(&c);
    assert_int_equal(config_parse_args(&c, "disk=off mem=off", err, sizeof(err)), BM_OK);
    assert_int_equal(c.mem, LEVEL_OFF);
    config_defaults(&c);
    assert_int_equal(config_parse_args(&c, "", err, sizeof(err)), BM_OK);
    assert_int_equal(config_parse_args(&c, "   \t ", err, sizeof(err)), BM_OK);
}

static void test_file_lines_comments_and_line_numbers(void **state)
{
    (void)state;
    assert_int_equal(config_parse_file(&c, "# comment\n\nmem=off   # trailing\r\n  disk = full \n", err, sizeof(err)),
                     BM_OK);
    assert_int_equal(c.mem, LEVEL_OFF);
    assert_int_equal(c.disk, LEVEL_FULL);
    config_defaults(&c);
    assert_int_equal(config_parse_file(&c, "mem=off\n\ndisk quick\n", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "line 3"));
    assert_non_null(strstr(err, "malformed line 'disk quick'"));
    config_defaults(&c);
    assert_int_equal(config_parse_file(&c, "mem=off\ntime=never\n", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "line 2"));
    assert_non_null(strstr(err, "'time'"));
}

static void test_overlong_file_line_is_rejected(void **state)
{
    char text[700];
    (void)state;
    memset(text, 'a', sizeof(text) - 1);
    text[sizeof(text) - 1] = '\0';
    memcpy(text, "disks=", 6);
    assert_int_equal(config_parse_file(&c, text, err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "line 1: line too long"));
}

static void test_command_line_overrides_file(void **state)
{
    (void)state;
    assert_int_equal(config_parse_file(&c, "mem=off\ndisk=full\n", err, sizeof(err)), BM_OK);
    assert_int_equal(config_parse_args(&c, "baremark.efi disk=off", err, sizeof(err)), BM_OK);
    assert_int_equal(c.mem, LEVEL_OFF);
    assert_int_equal(c.disk, LEVEL_OFF);
}

static void test_disk_selection_by_id_or_serial(void **state)
{
    (void)state;
    assert_true(config_disk_selected(&c, "nvme0n1", "S1"));
    assert_int_equal(config_parse_args(&c, "x disks=nvme0n1,SER2", err, sizeof(err)), BM_OK);
    assert_true(config_disk_selected(&c, "nvme0n1", "S1"));
    assert_true(config_disk_selected(&c, "ahci0p1", "SER2"));
    assert_false(config_disk_selected(&c, "ahci0p2", "SER3"));
    assert_int_equal(config_parse_args(&c, "x disks=all", err, sizeof(err)), BM_OK);
    assert_true(config_disk_selected(&c, "ahci0p2", "SER3"));
}

static void test_write_refused_without_serial(void **state)
{
    (void)state;
    assert_int_equal(config_parse_args(&c, "x write=ABC123,DEF456", err, sizeof(err)), BM_OK);
    assert_true(config_write_allowed(&c, "ABC123"));
    assert_true(config_write_allowed(&c, "DEF456"));
    assert_false(config_write_allowed(&c, "abc123"));
    assert_false(config_write_allowed(&c, ""));
    assert_false(config_write_allowed(&c, NULL));
    assert_int_equal(config_parse_args(&c, "x write=none", err, sizeof(err)), BM_OK);
    assert_false(config_write_allowed(&c, "ABC123"));
}

static void test_scan_off_by_default_on_and_its_range(void **state)
{
    (void)state;
    assert_false(c.scan);
    assert_false(c.scan_range_set);
    assert_int_equal(config_parse_args(&c, "x scan=on scan_range=2048-4095", err, sizeof(err)), BM_OK);
    assert_true(c.scan);
    assert_true(c.scan_range_set);
    assert_int_equal(c.scan_first_lba, 2048);
    assert_int_equal(c.scan_last_lba, 4095);
    /* FIRST-: to the disk's end; one LBA alone is a range too. */
    assert_int_equal(config_parse_args(&c, "x scan_range=100-", err, sizeof(err)), BM_OK);
    assert_int_equal(c.scan_first_lba, 100);
    assert_true(c.scan_last_lba == UINT64_MAX);
    assert_int_equal(config_parse_args(&c, "x scan_range=7-7 scan=off", err, sizeof(err)), BM_OK);
    assert_false(c.scan);
    assert_int_equal(c.scan_first_lba, 7);
    assert_int_equal(c.scan_last_lba, 7);
}

static void test_bad_scan_values_are_named(void **state)
{
    (void)state;
    check_bad("scan=1", "'scan'", "'1'", "on or off");
    check_bad("scan=yes", "'scan'", "'yes'", "on or off");
    check_bad("scan_range=100", "'scan_range'", "'100'", "FIRST-LAST");
    check_bad("scan_range=-100", "'scan_range'", "'-100'", "FIRST-LAST");
    check_bad("scan_range=200-100", "'scan_range'", "'200-100'", "FIRST-LAST");
    check_bad("scan_range=1-2-3", "'scan_range'", "'1-2-3'", "FIRST-LAST");
    check_bad("scan_range=1G-2G", "'scan_range'", "'1G-2G'", "FIRST-LAST");
    check_bad("scan_range=0-18446744073709551616", "'scan_range'", "'0-18446744073709551616'", "FIRST-LAST");
    check_bad("scan_range=0-18446744073709551615", "'scan_range'", "'0-18446744073709551615'", "FIRST-LAST");
}

static void test_too_many_list_items_rejected(void **state)
{
    char line[600] = "x disks=";
    (void)state;
    for (int i = 0; i <= CONFIG_MAX_LIST; i++)
        snprintf(line + strlen(line), sizeof(line) - strlen(line), "%sd%d", i ? "," : "", i);
    assert_int_equal(config_parse_args(&c, line, err, sizeof(err)), BM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults_are_read_only_quick_runs, setup),
        cmocka_unit_test_setup(test_every_key_accepts_its_documented_values, setup),
        cmocka_unit_test_setup(test_help_as_a_word_or_a_key, setup),
        cmocka_unit_test_setup(test_unknown_key_is_named, setup),
        cmocka_unit_test_setup(test_bad_values_name_key_value_and_accepted, setup),
        cmocka_unit_test_setup(test_io_timeout_seconds_in_bounds, setup),
        cmocka_unit_test_setup(test_malformed_words, setup),
        cmocka_unit_test_setup(test_first_word_without_equals_is_the_program_name, setup),
        cmocka_unit_test_setup(test_file_lines_comments_and_line_numbers, setup),
        cmocka_unit_test_setup(test_overlong_file_line_is_rejected, setup),
        cmocka_unit_test_setup(test_command_line_overrides_file, setup),
        cmocka_unit_test_setup(test_disk_selection_by_id_or_serial, setup),
        cmocka_unit_test_setup(test_write_refused_without_serial, setup),
        cmocka_unit_test_setup(test_too_many_list_items_rejected, setup),
        cmocka_unit_test_setup(test_scan_off_by_default_on_and_its_range, setup),
        cmocka_unit_test_setup(test_bad_scan_values_are_named, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
