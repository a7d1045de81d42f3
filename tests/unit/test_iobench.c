/* The per-I/O cost benchmark (make bench, tests/bench) runs and prints
 * sane rows, and what it pins about the hot path: one SQ tail doorbell
 * for a batch of NVMe commands, the commands a caller did not flush rung
 * by the next poll, a job without a histogram still counted. No test
 * here checks a speed: this is a shared, loaded machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* One translation unit with the benchmark and its instant controller. */
#include "../bench/iobench.c"
#include "../bench/nvme_instant.c"
#include "../bench/ahci_instant.c"

static struct iobench bench;

static int setup(void **state)
{
    char err[160] = "";

    (void)state;
    plat_init();
    if (iobench_open(&bench, err, sizeof(err)) != BM_OK) {
        fprintf(stderr, "probe: %s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    iobench_close(&bench);
    return 0;
}

static void test_bench_prints_a_sane_row_for_each_queue_depth(void **state)
{
    static const uint32_t qds[] = { 1, 32, 128 };
    char text[4096];
    FILE *f = fmemopen(text, sizeof(text), "w");

    (void)state;
    assert_non_null(f);
    iobench_measure_model(&bench, 20000);
    assert_true(bench.doorbell_ns > 0 && bench.command_ns > -5);
    iobench_print_header(f, &bench);
    for (unsigned i = 0; i < ARRAY_SIZE(qds); i++) {
        struct iobench_row r;
        assert_int_equal(iobench_row(&bench, qds[i], i != 1, 20000000ull, &r), BM_OK);
        assert_int_equal(r.qd, qds[i]);
        assert_true(r.ios > 100);
        assert_true(r.full_ns > 0 && r.model_ns >= 0);
        assert_true(r.sq_per_doorbell >= 1.0 && r.sq_per_doorbell <= qds[i]);
        iobench_print_row(f, &r);
    }
    fclose(f);
    assert_non_null(strstr(text, "ns/IO"));
    assert_non_null(strstr(text, "    1  on "));
    assert_non_null(strstr(text, "   32  off"));
    assert_non_null(strstr(text, "  128  on "));
    assert_int_equal(bench.model.io_refused, 0);
    assert_int_equal(bench.model.cq_overflows, 0);
    assert_int_equal(bench.model.bad_cq_heads, 0);
}

/* The engine at QD32: completions reaped in a batch are replaced by a
 * batch of commands that goes out with one doorbell write (the old
 * driver wrote the doorbell for every command: 1.0 per ring). */
static void test_engine_at_qd32_rings_the_sq_doorbell_once_per_batch(void **state)
{
    struct iobench_row r;

    (void)state;
    assert_int_equal(iobench_row(&bench, 32, true, 20000000ull, &r), BM_OK);
    assert_true(r.sq_per_doorbell >= 16.0);
}

/* submit queues, flush rings once; what nobody flushed goes out with the
 * next poll, so callers that never flush still get their I/O done. */
static void test_nvme_submit_waits_for_flush_or_poll_to_ring(void **state)
{
    struct bm_disk *d = bench.disk;
    struct nvme_instant *m = &bench.model;
    struct bm_completion c[16];
    uint8_t *buf = plat_alloc_pages(8 * 4096, false);
    uint64_t done0 = m->io_done, rings0 = m->sq_doorbells;
    int got = 0;

    (void)state;
    assert_non_null(d->ops->flush);
    for (uint32_t t = 0; t < 8; t++)
        assert_int_equal(d->ops->submit(d, 0, t, BM_IO_READ, 8 * t, 8, buf + 4096 * t), BM_OK);
    assert_int_equal(m->io_done, done0);          /* not told yet */
    d->ops->flush(d, 0);
    assert_int_equal(m->io_done, done0 + 8);
    assert_int_equal(m->sq_doorbells, rings0 + 1);
    got = d->ops->poll(d, 0, c, 16);
    assert_int_equal(got, 8);

    for (uint32_t t = 0; t < 4; t++)
        assert_int_equal(d->ops->submit(d, 0, t, BM_IO_READ, 8 * t, 8, buf + 4096 * t), BM_OK);
    assert_int_equal(m->io_done, done0 + 8);
    got = d->ops->poll(d, 0, c, 16);              /* rings, then reaps */
    got += d->ops->poll(d, 0, c + got, 16 - got);
    assert_int_equal(got, 4);
    assert_int_equal(m->io_done, done0 + 12);
    assert_int_equal(m->sq_doorbells, rings0 + 2);
    for (int i = 0; i < got; i++)
        assert_int_equal(c[i].status, BM_OK);
    plat_free_pages(buf, 8 * 4096);
}

/* A job whose histogram was dropped (the benchmark's "hist off" row)
 * still counts its I/Os and bytes. */
static void test_job_without_histogram_still_counts_its_ios(void **state)
{
    struct disk_test t = { .name = "RND4K-Q4T1", .op = BM_IO_READ, .random = true, .bs = 4096, .qd = 4, .threads = 1 };
    struct engine_timing tm = { .warmup_ns = 0, .measure_ns = 5000000ull, .stall_ns = 1000000000ull };
    struct disk_job j;
    char why[160];

    (void)state;
    assert_int_equal(engine_job_prepare(&j, bench.disk, &t, 7, why, sizeof(why)), BM_OK);
    plat_free(j.hist);
    j.hist = NULL;
    assert_int_equal(engine_run(&j, 1, &tm, "nohist", NULL), BM_OK);
    assert_int_equal(j.status, BM_OK);
    assert_true(j.ios > 0);
    assert_int_equal(j.bytes, j.ios * 4096);
    engine_job_free(&j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_prints_a_sane_row_for_each_queue_depth),
        cmocka_unit_test(test_engine_at_qd32_rings_the_sq_doorbell_once_per_batch),
        cmocka_unit_test(test_nvme_submit_waits_for_flush_or_poll_to_ring),
        cmocka_unit_test(test_job_without_histogram_still_counts_its_ios),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
