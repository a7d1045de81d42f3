/* Where earlier runs end in a preallocated results file (efi/jsonl_tail.c),
 * the index the legacy BIOS build appends each run's records after: blank
 * files, one and two runs, a line cut by a run that stopped mid-write, a
 * file filled to its last byte, and bytes that are not records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jsonl_tail.h"

#define SIZE 4096u

/* A preallocated file (spaces, a final '\n') with text at its start. */
static char *file_with(const char *text)
{
    char *img = malloc(SIZE);

    memset(img, ' ', SIZE - 1);
    img[SIZE - 1] = '\n';
    memcpy(img, text, strlen(text));
    return img;
}

static void test_blank_file_starts_at_zero(void **state)
{
    char *img = file_with("");
    struct jsonl_tail t;

    (void)state;
    jsonl_tail_scan(img, SIZE, &t);
    assert_int_equal(t.end, 0);
    assert_int_equal(t.runs, 0);
    assert_int_equal(t.cut_bytes, 0);
    free(img);
}

static void test_two_runs_are_kept_and_counted(void **state)
{
    const char *text = "{\"type\":\"run\",\"time\":\"a\"}\n{\"type\":\"end\"}\n"
                       "{\"type\":\"run\",\"time\":\"b\"}\n{\"type\":\"log\",\"message\":\"{\\\"type\\\":\\\"run\\\"\"}\n";
    char *img = file_with(text);
    struct jsonl_tail t;

    (void)state;
    jsonl_tail_scan(img, SIZE, &t);
    assert_int_equal(t.end, strlen(text));
    assert_int_equal(t.runs, 2);    /* a "run" inside a message is not a run */
    assert_int_equal(t.cut_bytes, 0);
    free(img);
}

static void test_a_cut_last_line_is_blanked_not_appended_to(void **state)
{
    const char *whole = "{\"type\":\"run\"}\n{\"type\":\"log\"}\n";
    char text[128];
    char *img;
    struct jsonl_tail t;

    (void)state;
    snprintf(text, sizeof(text), "%s{\"type\":\"disk_res", whole);
    img = file_with(text);
    jsonl_tail_scan(img, SIZE, &t);
    assert_int_equal(t.end, strlen(whole));
    assert_int_equal(t.cut_bytes, strlen("{\"type\":\"disk_res"));
    assert_int_equal(t.runs, 1);
    free(img);
}

static void test_a_full_file_has_no_room(void **state)
{
    char *img = malloc(SIZE);
    struct jsonl_tail t;

    (void)state;
    memset(img, 'x', SIZE);
    memcpy(img, "{\"type\":\"run\"}\n", 15);
    img[SIZE - 1] = '\n';
    jsonl_tail_scan(img, SIZE, &t);
    assert_int_equal(t.end, SIZE - 1);   /* the final '\n' ends the last record */
    assert_int_equal(t.cut_bytes, 0);
    assert_int_equal(t.runs, 1);
    free(img);
}

static void test_tiny_and_odd_files(void **state)
{
    struct jsonl_tail t;
    char one[1] = { '\n' }, two[2] = { 'x', '\n' }, zeros[64] = { 0 };

    (void)state;
    jsonl_tail_scan(one, 1, &t);
    assert_int_equal(t.end, 0);
    jsonl_tail_scan(two, 2, &t);
    assert_int_equal(t.end, 1);
    /* NULs (a sector that was never written as text) are not blank: they
     * are kept, never written over; here they fill the file (no room). */
    zeros[63] = '\n';
    jsonl_tail_scan(zeros, 64, &t);
    assert_int_equal(t.end, 63);
    assert_int_equal(t.runs, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blank_file_starts_at_zero),
        cmocka_unit_test(test_two_runs_are_kept_and_counted),
        cmocka_unit_test(test_a_cut_last_line_is_blanked_not_appended_to),
        cmocka_unit_test(test_a_full_file_has_no_room),
        cmocka_unit_test(test_tiny_and_odd_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
