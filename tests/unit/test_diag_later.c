/* plat_diag_later() (efi/platform_common.c): a diagnostic made before the
 * records start (the BIOS build's clock calibration and MTRR check in
 * plat_init) is held, not lost to the screen alone, and becomes a record
 * at the first plat_diag_flush() after a sink is installed, once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "platform.h"

static char got[4][160];
static unsigned ngot;

static void sink(const char *where, const char *message)
{
    if (ngot < 4)
        snprintf(got[ngot++], sizeof(got[0]), "%s: %s", where, message);
}

static void test_diag_later_waits_for_a_sink(void **state)
{
    (void)state;
    plat_set_diag_sink(NULL);
    plat_diag_later("clock", "TSC %u MHz", 2400);
    plat_diag_later("mtrr", "all RAM is write-back");
    plat_diag_flush();                  /* no sink yet: still held */
    plat_set_diag_sink(sink);
    assert_int_equal(ngot, 0);
    plat_diag_flush();
    assert_int_equal(ngot, 2);
    assert_string_equal(got[0], "clock: TSC 2400 MHz");
    assert_string_equal(got[1], "mtrr: all RAM is write-back");
    plat_diag_flush();                  /* said once */
    assert_int_equal(ngot, 2);
    plat_set_diag_sink(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_later_waits_for_a_sink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
