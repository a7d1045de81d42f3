/* A fault that lands while a record is being emitted (efi/record.c):
 * record_error_halting() goes out at once, since the interrupted emission
 * never resumes (the handler halts). Seen under QEMU: a machine check
 * injected while the screen sink drew the DIMM table left only the
 * emergency console line, and the error record was held for good. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "efi/record.h"
#include "capture_sink.h"

static unsigned seen_inside;

/* A sink that, while given the first note, "takes a fault": the handler
 * reports it, and (as the halted CPU would) this emission is never
 * finished from the point of view of what came after. */
static void faulting_sink(struct sink *s, const char *type, const char *json, const char *human)
{
    capture(s, type, json, human);
    if (!strcmp(type, "note") && strstr(json, "drawing")) {
        record_error_halting("cpu", "CPU exception 18 (#MC machine check): stopped");
        seen_inside = count_records("error", "\"where\":\"cpu\"", NULL);
    }
}

static void test_fault_during_an_emission_is_reported_before_the_handler_returns(void **state)
{
    static struct sink sink = { "test", faulting_sink, NULL, NULL, NULL, NULL };
    (void)state;

    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    seen_inside = 0;
    record_note("screen", "drawing the DIMM table");
    /* Out while the interrupted emission was still under way: a handler
     * that halts next gets its record written. */
    assert_int_equal(seen_inside, 1);
    assert_int_equal(count_records("error", "#MC machine check", NULL), 1);
    sinks_close();
}

/* An ordinary error made during an emission still waits its turn (the
 * order of records is kept), and goes out once. */
static void plain_sink(struct sink *s, const char *type, const char *json, const char *human)
{
    capture(s, type, json, human);
    if (!strcmp(type, "note") && strstr(json, "drawing")) {
        record_error("disk", "a nested error");
        seen_inside = count_records("error", "nested", NULL);
    }
}

static void test_plain_error_during_an_emission_is_held_until_it_ends(void **state)
{
    static struct sink sink = { "test", plain_sink, NULL, NULL, NULL, NULL };
    (void)state;

    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    seen_inside = 0;
    record_note("screen", "drawing the DIMM table");
    assert_int_equal(seen_inside, 0);
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
