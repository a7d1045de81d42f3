/* Command slots shared by the disks of one HBA: routing, limits, timeouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "drivers/scsi/hba_queue.h"

#define MS 1000000ull

static void test_completions_route_to_their_disk(void **state)
{
    struct hba_queue q;
    struct hbaq_disk a, b;
    struct bm_completion out[8];
    int sa, sb;

    assert_int_equal(hbaq_init(&q, 8, 1000 * MS), BM_OK);
    assert_int_equal(hbaq_disk_init(&a, 4), BM_OK);
    assert_int_equal(hbaq_disk_init(&b, 4), BM_OK);
    sa = hbaq_get(&q, &a, 7, 0);
    sb = hbaq_get(&q, &b, 7, 0); /* same tag on another disk */
    assert_true(sa >= 0 && sb >= 0 && sa != sb);
    assert_true(hbaq_complete(&q, (uint32_t)sb, BM_EIO, "MEDIUM ERROR 11/00"));
    assert_int_equal(hbaq_reap(&a, out, 8), 0);
    assert_int_equal(hbaq_reap(&b, out, 8), 1);
    assert_int_equal(out[0].tag, 7);
    assert_int_equal(out[0].status, BM_EIO);
    assert_string_equal(out[0].detail, "MEDIUM ERROR 11/00");
    assert_true(hbaq_complete(&q, (uint32_t)sa, BM_OK, "ignored"));
    assert_int_equal(hbaq_reap(&a, out, 8), 1);
    assert_int_equal(out[0].status, BM_OK);
    assert_string_equal(out[0].detail, "");
    /* a second reply for the same slot is spurious */
    assert_false(hbaq_complete(&q, (uint32_t)sa, BM_OK, NULL));
    hbaq_disk_destroy(&a);
    hbaq_disk_destroy(&b);
    hbaq_destroy(&q);
}

static void test_pool_and_disk_limits_return_busy(void **state)
{
    struct hba_queue q;
    struct hbaq_disk a, b;

    hbaq_init(&q, 3, 1000 * MS);
    hbaq_disk_init(&a, 2);
    hbaq_disk_init(&b, 2);
    assert_true(hbaq_get(&q, &a, 0, 0) >= 0);
    assert_true(hbaq_get(&q, &a, 1, 0) >= 0);
    assert_int_equal(hbaq_get(&q, &a, 2, 0), BM_EBUSY); /* disk's share */
    assert_true(hbaq_get(&q, &b, 0, 0) >= 0);
    assert_int_equal(hbaq_get(&q, &b, 1, 0), BM_EBUSY); /* pool empty */
    hbaq_disk_destroy(&a);
    hbaq_disk_destroy(&b);
    hbaq_destroy(&q);
}

/* An overdue command is marked timed out but NOT completed while the
 * hardware owns it (its tag and buffer stay held, Linux
 * scsi_eh_flush_done_q); the hardware's late answer completes it once as
 * BM_ETIMEDOUT. */
static void test_overdue_command_times_out_and_slot_held(void **state)
{
    struct hba_queue q;
    struct hbaq_disk a;
    struct bm_completion out[4];
    int s0, s1;

    hbaq_init(&q, 2, 10 * MS);
    hbaq_disk_init(&a, 2);
    s0 = hbaq_get(&q, &a, 3, 0);
    s1 = hbaq_get(&q, &a, 4, 8 * MS);
    assert_int_equal(hbaq_expire(&q, 5 * MS, NULL, NULL), 0);
    assert_int_equal(hbaq_expire(&q, 11 * MS, NULL, NULL), 1);
    assert_int_equal(hbaq_reap(&a, out, 4), 0);
    assert_true(hbaq_slot_held(&q, (uint32_t)s0));
    assert_int_equal(q.timed_out, 1);
    assert_int_equal(a.inflight, 2);
    assert_int_equal(q.nfree, 0);
    assert_int_equal(hbaq_get(&q, &a, 5, 12 * MS), BM_EBUSY);
    /* the late reply completes it once, as timed out */
    assert_true(hbaq_complete(&q, (uint32_t)s0, BM_OK, NULL));
    assert_int_equal(hbaq_reap(&a, out, 4), 1);
    assert_int_equal(out[0].tag, 3);
    assert_int_equal(out[0].status, BM_ETIMEDOUT);
    assert_non_null(strstr(out[0].detail, "10 ms"));
    assert_false(hbaq_complete(&q, (uint32_t)s0, BM_OK, NULL));
    assert_int_equal(q.nfree, 1);
    assert_int_equal(q.timed_out, 0);
    assert_true(hbaq_complete(&q, (uint32_t)s1, BM_OK, NULL));
    assert_int_equal(hbaq_reap(&a, out, 4), 1);
    assert_int_equal(out[0].tag, 4);
    hbaq_disk_destroy(&a);
    hbaq_destroy(&q);
}

/* A reset that confirms the controller owns nothing returns every held
 * command: timed-out ones as BM_ETIMEDOUT, the others as BM_EIO, the
 * abandoned internal ones freed. */
static void test_return_all_ends_every_held_command(void **state)
{
    struct hba_queue q;
    struct hbaq_disk a;
    struct bm_completion out[4];
    int s0, s1, si;

    hbaq_init(&q, 4, 10 * MS);
    hbaq_disk_init(&a, 3);
    s0 = hbaq_get(&q, &a, 0, 0);
    assert_int_equal(hbaq_expire(&q, 11 * MS, NULL, NULL), 1);
    s1 = hbaq_get(&q, &a, 1, 11 * MS);
    si = hbaq_get_internal(&q, 11 * MS, 5 * MS);
    hbaq_abandon(&q, (uint32_t)si);
    assert_true(s0 >= 0 && s1 >= 0);
    assert_int_equal(hbaq_return_all(&q, "adapter reset"), 2);
    assert_int_equal(hbaq_reap(&a, out, 4), 2);
    assert_int_equal(out[0].status + out[1].status, BM_ETIMEDOUT + BM_EIO);
    assert_int_equal(q.nfree, 4);
    assert_int_equal(a.inflight, 0);
    hbaq_disk_destroy(&a);
    hbaq_destroy(&q);
}

static void test_internal_command_result(void **state)
{
    struct hba_queue q;
    int s, st = 99;

    hbaq_init(&q, 2, 10 * MS);
    s = hbaq_get_internal(&q, 0, 50 * MS);
    assert_true(s >= 0);
    assert_false(hbaq_internal_done(&q, (uint32_t)s, &st));
    /* internal commands are not expired as engine commands */
    assert_int_equal(hbaq_expire(&q, 100 * MS, NULL, NULL), 0);
    hbaq_complete(&q, (uint32_t)s, BM_EIO, NULL);
    assert_true(hbaq_internal_done(&q, (uint32_t)s, &st));
    assert_int_equal(st, BM_EIO);
    assert_int_equal(q.nfree, 2);
    /* an abandoned internal command holds its slot until answered */
    s = hbaq_get_internal(&q, 0, 50 * MS);
    hbaq_abandon(&q, (uint32_t)s);
    assert_int_equal(q.nfree, 1);
    hbaq_complete(&q, (uint32_t)s, BM_OK, NULL);
    assert_int_equal(q.nfree, 2);
    hbaq_destroy(&q);
}

static void on_timeout(void *arg, uint32_t slot) { *(int *)arg += (int)slot + 1; }

static void test_timeout_callback_told_each_slot(void **state)
{
    struct hba_queue q;
    struct hbaq_disk a;
    int sum = 0, s0, s1;

    hbaq_init(&q, 4, 1 * MS);
    hbaq_disk_init(&a, 4);
    s0 = hbaq_get(&q, &a, 0, 0);
    s1 = hbaq_get(&q, &a, 1, 0);
    assert_int_equal(hbaq_expire(&q, 2 * MS, on_timeout, &sum), 2);
    assert_int_equal(sum, s0 + 1 + s1 + 1);
    hbaq_disk_destroy(&a);
    hbaq_destroy(&q);
}

/* BUSY / TASK SET FULL: the slot is kept, the disk blocked for 3 ms, the
 * slot handed back when due, and a good answer then completes it once. */
static void test_busy_command_is_retried_after_backoff(void **state)
{
    struct hba_queue q;
    struct hbaq_disk a;
    struct bm_completion out[4];
    int s;

    hbaq_init(&q, 4, 1000 * MS);
    hbaq_disk_init(&a, 4);
    s = hbaq_get(&q, &a, 9, 0);
    assert_true(hbaq_status_is_busy(0x08));
    assert_true(hbaq_status_is_busy(0x28));
    assert_false(hbaq_status_is_busy(0x02));
    assert_true(hbaq_requeue(&q, (uint32_t)s, 10 * MS));
    /* Not a completion; the hardware does not own it: a reply is spurious. */
    assert_int_equal(hbaq_reap(&a, out, 4), 0);
    assert_false(hbaq_complete(&q, (uint32_t)s, BM_OK, NULL));
    /* The disk is blocked for the back-off, then not. */
    assert_int_equal(hbaq_get(&q, &a, 1, 11 * MS), BM_EBUSY);
    assert_int_equal(hbaq_next_retry(&q, 12 * MS), -1);
    assert_int_equal(hbaq_next_retry(&q, 13 * MS), s);
    assert_int_equal(hbaq_next_retry(&q, 13 * MS), -1);
    assert_true(hbaq_get(&q, &a, 1, 13 * MS) >= 0);
    /* Outstanding again: the next answer completes it. */
    assert_true(hbaq_complete(&q, (uint32_t)s, BM_OK, NULL));
    assert_int_equal(hbaq_reap(&a, out, 4), 1);
    assert_int_equal(out[0].tag, 9);
    assert_int_equal(out[0].status, BM_OK);
    assert_int_equal(a.busy_retries, 1);
    hbaq_disk_destroy(&a);
    hbaq_destroy(&q);
}

/* Each retry of the same command waits twice as long (3, 6, 12 ms...). */
static void test_busy_backoff_doubles(void **state)
{
    struct hba_queue q;
    struct hbaq_disk a;
    uint64_t now = 0;
    int s;

    hbaq_init(&q, 2, 10000 * MS);
    hbaq_disk_init(&a, 2);
    s = hbaq_get(&q, &a, 0, 0);
    for (uint64_t delay = 3 * MS; delay <= 96 * MS; delay *= 2) {
        assert_true(hbaq_requeue(&q, (uint32_t)s, now));
        assert_int_equal(hbaq_next_retry(&q, now + delay - 1), -1);
        assert_int_equal(hbaq_next_retry(&q, now + delay), s);
        now += delay;
    }
    hbaq_disk_destroy(&a);
    hbaq_destroy(&q);
}

/* A target that stays BUSY: the command times out at its deadline, its
 * slot freed at once (nothing of it is in the hardware). */
static void test_busy_forever_times_out_at_deadline(void **state)
{
    struct hba_queue q;
    struct hbaq_disk a;
    struct bm_completion out[2];
    uint64_t now = 0;
    int s, retries = 0;

    hbaq_init(&q, 2, 100 * MS);
    hbaq_disk_init(&a, 2);
    s = hbaq_get(&q, &a, 5, 0);
    while (hbaq_requeue(&q, (uint32_t)s, now)) {
        retries++;
        while (hbaq_next_retry(&q, now) != s)
            now += MS;
    }
    /* Too near the deadline for another try: the driver completes it. */
    assert_true(retries >= 4);
    assert_true(hbaq_complete(&q, (uint32_t)s, BM_EIO, "BUSY"));
    assert_int_equal(hbaq_reap(&a, out, 2), 1);
    assert_int_equal(out[0].status, BM_EIO);
    /* A command still waiting at its deadline: BM_ETIMEDOUT from expire. */
    s = hbaq_get(&q, &a, 6, now);
    assert_true(hbaq_requeue(&q, (uint32_t)s, now + 99 * MS - 10 * MS));
    assert_int_equal(hbaq_expire(&q, now + 200 * MS, NULL, NULL), 1);
    assert_int_equal(hbaq_reap(&a, out, 2), 1);
    assert_int_equal(out[0].tag, 6);
    assert_int_equal(out[0].status, BM_ETIMEDOUT);
    assert_non_null(strstr(out[0].detail, "BUSY"));
    assert_int_equal(q.nfree, 2);
    assert_int_equal(a.inflight, 0);
    assert_int_equal(hbaq_next_retry(&q, now + 300 * MS), -1);
    hbaq_disk_destroy(&a);
    hbaq_destroy(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_completions_route_to_their_disk),
        cmocka_unit_test(test_pool_and_disk_limits_return_busy),
        cmocka_unit_test(test_overdue_command_times_out_and_slot_held),
        cmocka_unit_test(test_return_all_ends_every_held_command),
        cmocka_unit_test(test_internal_command_result),
        cmocka_unit_test(test_timeout_callback_told_each_slot),
        cmocka_unit_test(test_busy_command_is_retried_after_backoff),
        cmocka_unit_test(test_busy_backoff_doubles),
        cmocka_unit_test(test_busy_forever_times_out_at_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
