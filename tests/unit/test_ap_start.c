/* INIT-SIPI-SIPI (efi/mp/ap_start.c) against a fake local APIC on a fake
 * clock: the IPIs Linux wakeup_secondary_cpu_via_init() sends, in order and
 * with its delays; an AP that checks in; an AP that never does, which is
 * given up on within the bound and sent INIT again; an APIC that does not
 * send. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mp/ap_start.h"

struct fake {
    uint64_t now;
    struct {
        uint32_t dest, icr;
        uint64_t at;
    } sent[16];
    unsigned nsent;
    int sipis_to_start;      /* the AP checks in after this many SIPIs (0: never) */
    unsigned sipis;
    bool stuck;              /* the APIC never takes an IPI */
    unsigned polls;
};

static int f_send(void *ctx, uint32_t dest, uint32_t icr)
{
    struct fake *f = ctx;
    if (f->stuck)
        return BM_ETIMEDOUT;
    if (f->nsent < 16)
        f->sent[f->nsent++] = (typeof(f->sent[0])){ dest, icr, f->now };
    if ((icr & 0x700) == ICR_DM_STARTUP)
        f->sipis++;
    return BM_OK;
}

static uint64_t f_now(void *ctx) { return ((struct fake *)ctx)->now; }
static void f_delay(void *ctx, uint64_t ns) { ((struct fake *)ctx)->now += ns; }

static bool f_checked_in(void *ctx, unsigned index)
{
    struct fake *f = ctx;
    assert_int_equal(index, 3);
    f->polls++;
    return f->sipis_to_start && (int)f->sipis >= f->sipis_to_start && f->polls > 5;
}

static const struct ap_start_ops ops = { f_send, f_now, f_delay, f_checked_in };

static void test_init_sipi_sipi_in_order_with_the_delays(void **state)
{
    struct fake f = { .now = 1000, .sipis_to_start = 1 };

    assert_int_equal(ap_start(&ops, &f, 6, 0x08, 3, AP_CALLIN_NS), BM_OK);
    assert_int_equal(f.nsent, 4);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(f.sent[i].dest, 6);
    assert_int_equal(f.sent[0].icr, ICR_TRIGGER_LEVEL | ICR_LEVEL_ASSERT | ICR_DM_INIT);
    assert_int_equal(f.sent[1].icr, ICR_TRIGGER_LEVEL | ICR_DM_INIT);
    assert_true(f.sent[1].at - f.sent[0].at >= 10000000); /* 10 ms INIT */
    assert_int_equal(f.sent[2].icr, ICR_DM_STARTUP | 0x08); /* entry at 0x8000 */
    assert_int_equal(f.sent[3].icr, ICR_DM_STARTUP | 0x08);
    assert_true(f.sent[3].at - f.sent[2].at >= 200000);   /* 200 us apart */
}

static void test_an_ap_that_never_checks_in_is_given_up_within_the_bound(void **state)
{
    struct fake f = { .now = 0, .sipis_to_start = 0 };

    assert_int_equal(ap_start(&ops, &f, 7, 0x08, 3, AP_CALLIN_NS), BM_ETIMEDOUT);
    /* Given up after the bound, not long after it. */
    assert_true(f.now >= AP_CALLIN_NS);
    assert_true(f.now <= AP_CALLIN_NS + 2 * AP_INIT_DELAY_NS + 2 * AP_SIPI_GAP_NS + 1000000);
    /* Sent back to wait-for-SIPI: INIT assert + de-assert after the two SIPIs. */
    assert_int_equal(f.nsent, 6);
    assert_int_equal(f.sent[4].icr, ICR_TRIGGER_LEVEL | ICR_LEVEL_ASSERT | ICR_DM_INIT);
    assert_int_equal(f.sent[5].icr, ICR_TRIGGER_LEVEL | ICR_DM_INIT);
}

static void test_an_apic_that_does_not_send_is_an_io_error(void **state)
{
    struct fake f = { .stuck = true };

    assert_int_equal(ap_start(&ops, &f, 1, 0x08, 3, AP_CALLIN_NS), BM_EIO);
    assert_int_equal(f.polls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_sipi_sipi_in_order_with_the_delays),
        cmocka_unit_test(test_an_ap_that_never_checks_in_is_given_up_within_the_bound),
        cmocka_unit_test(test_an_apic_that_does_not_send_is_an_io_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
