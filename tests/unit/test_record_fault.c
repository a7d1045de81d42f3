/* A fault that lands while a record is being emitted (efi/record.c):
 * record_error_halting() goes out at once, since the interrupted emission
 * never resumes (the handler halts). Seen under QEMU: a machine check
 * injected while the screen sink drew the DIMM table left only the
 * emergency console line, and the error record was held for good. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "efi/record.h"
#include "capture_sink.h"

static unsigned seen_inside;
static bool halting;

/* A sink that, while given the "drawing" note, takes a fault (halting: the
 * handler's record, which is never followed by the end of this emission)
 * or makes an ordinary error, and counts what came out meanwhile. */
static void faulting_sink(struct sink *s, const char *type, const char *json, const char *human)
{
    capture(s, type, json, human);
    if (!strcmp(type, "note") && strstr(json, "drawing")) {
        if (halting)
            record_error_halting("cpu", "CPU exception 18 (#MC machine check): stopped");
        else
            record_error("disk", "a nested error");
        seen_inside = count_records("error", NULL, NULL);
    }
}

/* One note whose emission is interrupted as above; returns how many
 * error records were out while it was still under way. */
static unsigned interrupted_note(bool halting_fault)
{
    static struct sink sink = { "test", faulting_sink, NULL, NULL, NULL, NULL };

    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    seen_inside = 0;
    halting = halting_fault;
    record_note("screen", "drawing the DIMM table");
    return seen_inside;
}

static void test_fault_during_an_emission_is_reported_before_the_handler_returns(void **state)
{
    (void)state;
    /* Out while the interrupted emission was still under way: a handler
     * that halts next gets its record written. */
    assert_int_equal(interrupted_note(true), 1);
    assert_int_equal(count_records("error", "\"where\":\"cpu\"", "#MC machine check"), 1);
    sinks_close();
}

/* An ordinary error made during an emission still waits its turn (the
 * order of records is kept), and goes out once. */
static void test_plain_error_during_an_emission_is_held_until_it_ends(void **state)
{
    (void)state;
    assert_int_equal(interrupted_note(false), 0);
    assert_int_equal(count_records("error", "nested", NULL), 1);
    sinks_close();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_during_an_emission_is_reported_before_the_handler_returns),
        cmocka_unit_test(test_plain_error_during_an_emission_is_held_until_it_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
