/* TSC calibration from samples (efi/clock/tsc_cal.c): a PIT window an SMI
 * hit (one poll far longer than the others) is rejected and the others
 * give the rate; the reference counter (ACPI PM timer) is used when it
 * agrees within 10 %, the PIT when it does not, and a machine with no good
 * window still gets a rate, said to be unchecked, as Linux
 * pit_hpet_ptimer_calibrate_cpu() decides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clock/tsc_cal.h"

#define TSC_HZ 2400000000ull
#define LOOPS_MIN TSC_CAL_LOOPS_PER_MS_MIN

/* A 10 ms window on a 2.4 GHz TSC polled every 1 us; smi_ticks added to one
 * poll (and to the window) when an SMI hits it. The PM timer, when asked,
 * is read around the window at its true rate. */
static struct tsc_cal_window window(uint64_t smi_ticks, bool ref)
{
    struct tsc_cal_window w = { 0 };
    uint64_t pit = TSC_CAL_PIT_HZ / 100;

    w.pit_ticks = pit;
    w.tsc_ticks = TSC_HZ * pit / TSC_CAL_PIT_HZ + smi_ticks;
    w.loops = 10000;
    w.poll_min = 2300;
    w.poll_max = 2500 + smi_ticks;
    if (ref) {
        w.ref_ok = true;
        w.ref_ticks = TSC_CAL_PMTIMER_HZ / 100;
        w.ref_tsc_ticks = TSC_HZ * w.ref_ticks / TSC_CAL_PMTIMER_HZ + smi_ticks;
    }
    return w;
}

static uint64_t off_by_ppm(uint64_t a, uint64_t b) { return (a > b ? a - b : b - a) * 1000000 / b; }

static void test_tsc_cal_smi_gap_is_rejected(void **state)
{
    /* A 1 ms SMI in the second window: 10 % more TSC ticks in it. */
    struct tsc_cal_window w[3] = { window(0, false), window(TSC_HZ / 1000, false), window(0, false) };
    struct tsc_cal_result r;
    uint64_t hz;

    (void)state;
    assert_int_equal(tsc_cal_window_judge(&w[1], LOOPS_MIN, &hz), TSC_WIN_STALLED);
    assert_true(hz > TSC_HZ * 109 / 100);
    assert_int_equal(tsc_cal_window_judge(&w[0], LOOPS_MIN, &hz), TSC_WIN_OK);
    tsc_cal_choose(w, 3, LOOPS_MIN, 0, &r);
    assert_int_equal(r.stalled, 1);
    assert_false(r.unchecked);
    assert_true(off_by_ppm(r.hz, TSC_HZ) < 10);
}

static void test_tsc_cal_smi_in_every_window_but_one(void **state)
{
    /* Short SMIs (20 us, as USB legacy emulation) in two windows of three:
     * the one clean window gives the rate, not the average. */
    struct tsc_cal_window w[3] = { window(48000, false), window(0, false), window(48000, false) };
    struct tsc_cal_result r;
    char text[400];

    (void)state;
    tsc_cal_choose(w, 3, LOOPS_MIN, 0, &r);
    assert_int_equal(r.stalled, 2);
    assert_true(off_by_ppm(r.hz, TSC_HZ) < 10);
    tsc_cal_describe(&r, "", text, sizeof(text));
    assert_non_null(strstr(text, "2 windows hit by an SMI"));
    assert_non_null(strstr(text, "TSC 2400.0 MHz"));
}

static void test_tsc_cal_reference_agreeing_is_used(void **state)
{
    struct tsc_cal_window w[3] = { window(0, true), window(0, true), window(0, true) };
    struct tsc_cal_result r;
    char text[400];

    (void)state;
    w[1].pit_ticks += 100;      /* a PIT window a little long: 0.8 % slow */
    tsc_cal_choose(w, 3, LOOPS_MIN, TSC_CAL_PMTIMER_HZ, &r);
    assert_true(r.from_ref);
    assert_true(off_by_ppm(r.hz, TSC_HZ) < 10);
    tsc_cal_describe(&r, "ACPI PM timer", text, sizeof(text));
    assert_non_null(strstr(text, "ACPI PM timer agrees"));
}

static void test_tsc_cal_reference_disagreeing_keeps_the_pit(void **state)
{
    /* A PM timer running at double speed (Linux's comment): the PIT wins. */
    struct tsc_cal_window w[2] = { window(0, true), window(0, true) };
    struct tsc_cal_result r;

    (void)state;
    w[0].ref_ticks *= 2;
    w[1].ref_ticks *= 2;
    tsc_cal_choose(w, 2, LOOPS_MIN, TSC_CAL_PMTIMER_HZ, &r);
    assert_false(r.from_ref);
    assert_int_equal(r.deviation_pct, 100);
    assert_true(off_by_ppm(r.hz, TSC_HZ) < 10);
}

static void test_tsc_cal_no_good_pit_window_uses_the_reference(void **state)
{
    struct tsc_cal_window w[2] = { window(TSC_HZ / 1000, true), window(TSC_HZ / 1000, true) };
    struct tsc_cal_result r;

    (void)state;
    w[0].ref_tsc_ticks = w[1].ref_tsc_ticks = TSC_HZ * w[0].ref_ticks / TSC_CAL_PMTIMER_HZ;    /* the SMI fell outside the reference reads */
    tsc_cal_choose(w, 2, LOOPS_MIN, TSC_CAL_PMTIMER_HZ, &r);
    assert_int_equal(r.pit_hz, 0);
    assert_true(r.from_ref);
    assert_true(off_by_ppm(r.hz, TSC_HZ) < 10);
}

static void test_tsc_cal_nothing_good_is_unchecked_median_window(void **state)
{
    /* One window cut short (-30 %), one lengthened by an SMI (+20 %), one too coarse. */
    struct tsc_cal_window w[3] = { window(0, false), window(TSC_HZ / 500, false), window(0, false) };
    struct tsc_cal_result r;
    char text[400];

    (void)state;
    w[0].tsc_ticks = w[0].tsc_ticks * 7 / 10;
    w[0].poll_max = w[0].poll_min * 20;
    w[2].loops = 10;            /* too few polls to count (a virtual PIT) */
    w[2].poll_max = w[2].poll_min;
    tsc_cal_choose(w, 3, LOOPS_MIN, 0, &r);
    assert_true(r.unchecked);
    assert_int_equal(r.few_loops, 1);
    assert_true(off_by_ppm(r.hz, TSC_HZ) < 10);     /* the median, the few-loops one */
    tsc_cal_describe(&r, "", text, sizeof(text));
    assert_non_null(strstr(text, "unchecked"));
    assert_non_null(strstr(text, "(PIT windows: 1680.0 2880.0 2400.0 MHz)"));
}

static void test_tsc_cal_empty_windows_give_no_rate(void **state)
{
    struct tsc_cal_window w[2] = { { 0 }, { 0 } };
    struct tsc_cal_result r;
    char text[128];

    (void)state;
    tsc_cal_choose(w, 2, LOOPS_MIN, TSC_CAL_PMTIMER_HZ, &r);
    assert_int_equal(r.hz, 0);
    tsc_cal_describe(&r, "ACPI PM timer", text, sizeof(text));
    assert_non_null(strstr(text, "no TSC rate"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsc_cal_smi_gap_is_rejected),
        cmocka_unit_test(test_tsc_cal_smi_in_every_window_but_one),
        cmocka_unit_test(test_tsc_cal_reference_agreeing_is_used),
        cmocka_unit_test(test_tsc_cal_reference_disagreeing_keeps_the_pit),
        cmocka_unit_test(test_tsc_cal_no_good_pit_window_uses_the_reference),
        cmocka_unit_test(test_tsc_cal_nothing_good_is_unchecked_median_window),
        cmocka_unit_test(test_tsc_cal_empty_windows_give_no_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
