/* The system record's secure_boot field from the firmware's SecureBoot and
 * SetupMode variables (-1: the variable is absent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform.h"

static void test_enforcing_firmware_is_on(void **state)
{
    assert_string_equal(secure_boot_state(1, 0), "on");
}

static void test_user_mode_without_enforcement_is_off(void **state)
{
    assert_string_equal(secure_boot_state(0, 0), "off");
    /* a firmware that publishes SecureBoot but not SetupMode */
    assert_string_equal(secure_boot_state(0, -1), "off");
}

/* No platform key enrolled: SecureBoot reads 0 and nothing is verified. */
static void test_setup_mode_is_setup(void **state)
{
    assert_string_equal(secure_boot_state(0, 1), "setup");
}

/* Before UEFI 2.3.1 there is no SecureBoot variable; a BIOS-booted Linux
 * host has no efivars at all. Odd values are not taken for "on". */
static void test_missing_or_odd_variable_is_unknown(void **state)
{
    assert_string_equal(secure_boot_state(-1, -1), "unknown");
    assert_string_equal(secure_boot_state(2, 0), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enforcing_firmware_is_on),
        cmocka_unit_test(test_user_mode_without_enforcement_is_off),
        cmocka_unit_test(test_setup_mode_is_setup),
        cmocka_unit_test(test_missing_or_odd_variable_is_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
