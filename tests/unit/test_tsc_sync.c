/* Two CPUs' TSCs compared (efi/clock/tsc_sync.c, as Linux
 * check_tsc_warp()): simulated CPUs whose TSCs run in step show no warp,
 * one whose TSC is behind shows it (and by how much), and two real threads
 * reading one monotonic clock through the lock never see time go back. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "clock/tsc_sync.h"

/* A simulated CPU: its TSC is the shared "real time" plus an offset. */
struct sim_cpu {
    uint64_t *real;
    int64_t offset;
};

static uint64_t sim_read(void *ctx)
{
    struct sim_cpu *c = ctx;
    *c->real += 37;             /* time passes between any two reads */
    return (uint64_t)((int64_t)*c->real + c->offset);
}

static void interleave(struct tsc_warp *w, struct sim_cpu *a, struct sim_cpu *b, unsigned rounds)
{
    for (unsigned i = 0; i < rounds; i++) {
        tsc_warp_step(w, sim_read, a);
        /* Some rounds B twice in a row, as two CPUs race for the lock. */
        tsc_warp_step(w, sim_read, b);
        if (i % 3 == 0)
            tsc_warp_step(w, sim_read, b);
    }
}

static void test_tsc_sync_in_step_no_warp(void **state)
{
    uint64_t real = 1000000;
    struct sim_cpu a = { &real, 0 }, b = { &real, 0 };
    struct tsc_warp w = { 0 };

    (void)state;
    interleave(&w, &a, &b, 1000);
    assert_int_equal(w.warps, 0);
    assert_int_equal(w.max_warp, 0);
    assert_int_equal(tsc_warp_ns(&w, 2000000000ull), 0);
    assert_true(w.rounds > 2000);
}

static void test_tsc_sync_cpu_behind_is_a_warp(void **state)
{
    /* The AP's TSC 5 us behind at 2 GHz (a BIOS that wrote the TSC of each
     * socket at a different time): every switch to it steps back. */
    uint64_t real = 1000000;
    struct sim_cpu a = { &real, 0 }, b = { &real, -10000 };
    struct tsc_warp w = { 0 };

    (void)state;
    interleave(&w, &a, &b, 100);
    assert_int_equal(w.warps, 100);
    assert_int_equal(w.max_warp, 10000 - 37);
    assert_int_equal(tsc_warp_ns(&w, 2000000000ull), (10000 - 37 + 1) / 2);
}

static void test_tsc_sync_cpu_ahead_is_seen_from_the_other_side(void **state)
{
    /* Ahead is the same fault seen from the boot CPU: its reads step back. */
    uint64_t real = 1000000;
    struct sim_cpu a = { &real, 0 }, b = { &real, 300 };
    struct tsc_warp w = { 0 };

    (void)state;
    interleave(&w, &a, &b, 10);
    assert_int_equal(w.warps, 9);      /* each A read after a B one, but the first */
    assert_int_equal(w.max_warp, 300 - 37);
    /* One tick at 3 GHz is still a warp: rounded up, not to 0 ns. */
    w.max_warp = 1;
    assert_int_equal(tsc_warp_ns(&w, 3000000000ull), 1);
}

static void test_tsc_sync_run_is_bounded(void **state)
{
    uint64_t real = 0;
    struct sim_cpu a = { &real, 0 };
    struct tsc_warp w = { 0 };

    (void)state;
    tsc_warp_run(&w, sim_read, &a, 37 * 100, TSC_SYNC_MAX_LOOPS);
    assert_int_equal(w.rounds, 101);
    w = (struct tsc_warp){ 0 };
    real = 0;
    tsc_warp_run(&w, sim_read, &a, UINT64_MAX, 500);    /* a TSC that never gets there */
    assert_int_equal(w.rounds, 500);
}

static uint64_t mono_read(void *ctx)
{
    struct timespec ts;
    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *thread_side(void *arg)
{
    tsc_warp_run(arg, mono_read, NULL, 20000000ull, TSC_SYNC_MAX_LOOPS);
    return NULL;
}

static void test_tsc_sync_two_threads_on_one_clock(void **state)
{
    static struct tsc_warp w;
    pthread_t t;

    (void)state;
    assert_int_equal(pthread_create(&t, NULL, thread_side, &w), 0);
    thread_side(&w);
    pthread_join(t, NULL);
    /* CLOCK_MONOTONIC is one clock for every CPU: the lock orders the reads. */
    assert_int_equal(w.warps, 0);
    assert_true(w.rounds > 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsc_sync_in_step_no_warp),
        cmocka_unit_test(test_tsc_sync_cpu_behind_is_a_warp),
        cmocka_unit_test(test_tsc_sync_cpu_ahead_is_seen_from_the_other_side),
        cmocka_unit_test(test_tsc_sync_run_is_bounded),
        cmocka_unit_test(test_tsc_sync_two_threads_on_one_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
