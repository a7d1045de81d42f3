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

static char got[40][160];
static unsigned ngot;

static void sink(const char *where, const char *message)
{
    if (ngot < 40)
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

/* plat_diag() on the boot processor (the host build's only CPU) goes to
 * the sink at once; nothing is held for the next flush. */
static void test_diag_on_the_boot_cpu_is_said_at_once(void **state)
{
    (void)state;
    ngot = 0;
    plat_set_diag_sink(sink);
    plat_diag("nvme", "CSTS.RDY %u after %u ms", 1, 20);
    assert_int_equal(ngot, 1);
    assert_string_equal(got[0], "nvme: CSTS.RDY 1 after 20 ms");
    plat_diag_flush();
    assert_int_equal(ngot, 1);
    plat_set_diag_sink(NULL);
}

/* The hold keeps what fits (32) in the order made; what comes after is
 * dropped, not written over the first ones. */
static void test_diag_later_keeps_the_first_that_fit(void **state)
{
    unsigned made = 0;

    (void)state;
    ngot = 0;
    plat_set_diag_sink(NULL);
    while (made < 36) {
        plat_diag_later("spd", "note %u", made);
        made++;
    }
    plat_set_diag_sink(sink);
    plat_diag_flush();
    assert_true(ngot > 0 && ngot < made);
    for (unsigned i = 0; i < ngot; i++) {
        char want[32];
        snprintf(want, sizeof(want), "spd: note %u", i);
        assert_string_equal(got[i], want);
    }
    plat_diag_flush();
    assert_true(ngot < made);
    plat_set_diag_sink(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_later_waits_for_a_sink),
        cmocka_unit_test(test_diag_on_the_boot_cpu_is_said_at_once),
        cmocka_unit_test(test_diag_later_keeps_the_first_that_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
