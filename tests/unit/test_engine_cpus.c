/* The disk engine on every CPU (efi/disk/engine_run.c, engine_cpus.c):
 * against instant NVMe controllers (tests/bench/nvme_instant.c), on the
 * host's CPUs (pthreads, efi/host/cpus_host.c). A multi-queue random job
 * is cut into one unit per queue pair, each CPU polls only its own queues,
 * the records say how many CPUs ran a job, and a CPU that never comes
 * back fails its disk's test within a bounded time while the others
 * finish. Skipped on a machine with one CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../bench/nvme_instant.c"
#include "drivers/nvme/nvme.h"
#include "efi/disk/engine_internal.h"
#include "efi/time_units.h"

#define BLOCKS (1ull << 21)

static struct nvme_instant models[2];
static struct bm_disk *disks[2];
static void *ctrls[2];

static struct bm_disk *probe(unsigned i, unsigned grant)
{
    static struct bm_disk_list list;
    struct pci_addr a = { 0, (uint8_t)(0x50 + i), 0, 0 };
    char err[160] = "";

    memset(&list, 0, sizeof(list));
    nvme_instant_attach(&models[i], a, grant, BLOCKS);
    if (nvme_driver.probe(a, i, &list, &ctrls[i], err, sizeof(err)) != BM_OK)
        fail_msg("probe: %s", err);
    disks[i] = list.disks[0];
    return disks[i];
}

static void release(unsigned i)
{
    nvme_driver.release(ctrls[i]);
    nvme_instant_detach(&models[i]);
}

static int setup(void **state)
{
    (void)state;
    plat_init();
    engine_limit_cpus(0);
    return 0;
}

static const struct engine_timing timing = { .warmup_ns = 0, .measure_ns = 30000000ull, .stall_ns = 1000000000ull };

/* RND4K-Q8T4 on a controller with 4 queue pairs: 4 units over the CPUs,
 * each queue rung by one thread only, the record's cpus > 1. */
static void test_random_job_runs_one_queue_pair_per_cpu(void **state)
{
    struct disk_test t = { .name = "RND4K-Q8T4", .op = BM_IO_READ, .random = true, .bs = 4096, .qd = 8, .threads = 4 };
    struct engine_run_stats st;
    struct disk_job j;
    char why[160];
    long threads[4];
    unsigned distinct = 0;

    (void)state;
    if (plat_cpu_count() < 2)
        skip();
    probe(0, 4);
    assert_int_equal(disks[0]->nqueues, 4);
    assert_true(disks[0]->mp_queues);
    assert_int_equal(engine_job_prepare(&j, disks[0], &t, 3, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&j, 1, &timing, "cpus", &st), BM_OK);
    assert_int_equal(j.status, BM_OK);
    assert_true(j.ios > 0);
    assert_int_equal(j.cpus, 2);
    assert_int_equal(st.cpus, 2);
    for (unsigned q = 0; q < 4; q++) {
        threads[q] = models[0].sq_thread[1 + q];
        assert_true(threads[q] > 0); /* one thread rang it, after the boot processor's first batch */
    }
    for (unsigned q = 0; q < 4; q++) {
        bool seen = false;
        for (unsigned k = 0; k < q; k++)
            seen |= threads[k] == threads[q];
        distinct += !seen;
    }
    assert_int_equal(distinct, 2);
    assert_int_equal(models[0].io_refused, 0);
    assert_int_equal(models[0].cq_overflows, 0);
    assert_int_equal(models[0].bad_cq_heads, 0);
    assert_int_equal(j.hist->count, j.ios);
    engine_job_free(&j);
    release(0);
}

/* Two disks at once, the one on the application processor hangs inside
 * its driver: its test fails naming the CPU within a bounded time, the
 * other disk's test completes. */
static void test_cpu_that_never_returns_fails_its_disk_and_the_other_carries_on(void **state)
{
    struct disk_test t = { .name = "RND4K-Q4T1", .op = BM_IO_READ, .random = true, .bs = 4096, .qd = 4, .threads = 1 };
    struct disk_job jobs[2];
    char why[160];
    unsigned hung, fine;

    (void)state;
    if (plat_cpu_count() < 2)
        skip();
    probe(0, 1);
    probe(1, 1);
    models[0].hang_off_bsp = models[1].hang_off_bsp = true;
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(engine_job_prepare(&jobs[i], disks[i], &t, 5 + i, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(jobs, 2, &timing, "hang", NULL), BM_OK);
    hung = jobs[0].cpu_hung ? 0 : 1;
    fine = 1 - hung;
    assert_true(jobs[hung].cpu_hung);
    assert_int_equal(jobs[hung].status, BM_ETIMEDOUT);
    assert_non_null(strstr(jobs[hung].detail, "did not come back"));
    assert_int_equal(jobs[fine].status, BM_OK);
    assert_true(jobs[fine].ios > 0);
    assert_false(jobs[fine].cpu_hung);
    engine_job_free(&jobs[hung]); /* keeps what the hung CPU may use */
    engine_job_free(&jobs[fine]);
    models[hung].release = true;
    assert_int_equal(plat_cpu_wait(1, 5000000000ull), BM_OK);
    release(fine);
    plat_sim_detach(&models[hung].dev); /* its controller stays as the hung CPU left it */
}

/* After a CPU hung, the run goes on: the next test of another disk
 * that would place a queue pair on that CPU finds it busy, and the boot
 * processor polls that queue pair itself (engine_run.c start_aps); the
 * test completes with its I/O counted on both queue pairs. */
static void test_next_test_after_a_hung_cpu_runs_its_queues_on_the_boot_processor(void **state)
{
    struct disk_test t = { .name = "RND4K-Q4T1", .op = BM_IO_READ, .random = true, .bs = 4096, .qd = 4, .threads = 1 };
    struct disk_test t2 = { .name = "RND4K-Q4T2", .op = BM_IO_READ, .random = true, .bs = 4096, .qd = 4, .threads = 2 };
    struct engine_run_stats st;
    struct disk_job jobs[2], next;
    char why[160];

    (void)state;
    if (plat_cpu_count() != 2)
        skip();                       /* the placement below assumes one application processor */
    probe(0, 1);
    probe(1, 2);
    models[0].hang_off_bsp = true;
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(engine_job_prepare(&jobs[i], disks[i], &t, 11 + i, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(jobs, 2, &timing, "hang", NULL), BM_OK);
    assert_true(jobs[0].cpu_hung);    /* the first unit goes to CPU 1, where disk 0 hangs */
    assert_int_equal(jobs[1].status, BM_OK);
    assert_int_equal(models[0].hung_cpus, 1);
    models[0].hang_still = true;

    assert_int_equal(engine_job_prepare(&next, disks[1], &t2, 13, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&next, 1, &timing, "after", &st), BM_OK);
    assert_int_equal(next.status, BM_OK);
    assert_true(next.ios > 0);
    assert_int_equal(st.cpus, 1);     /* CPU 1 is still hung: everything on the boot processor */
    assert_int_equal(models[1].sq_thread[1], models[1].sq_thread[2]);
    assert_int_equal(models[1].io_refused, 0);
    engine_job_free(&next);
    engine_job_free(&jobs[0]);
    engine_job_free(&jobs[1]);
    models[0].release = true;
    assert_int_equal(plat_cpu_wait(1, 5000000000ull), BM_OK);
    release(1);
    plat_sim_detach(&models[0].dev);
}

/* A disk for the placement test: only what engine_job_prepare reads. */
static void fake_disk(struct bm_disk *d, const char *id, const char *path, const char *pci, bool mp, unsigned nq)
{
    memset(d, 0, sizeof(*d));
    bm_strlcpy(d->id, id, sizeof(d->id));
    bm_strlcpy(d->pci, pci, sizeof(d->pci));
    d->path = path;
    d->mp_queues = mp;
    d->nqueues = nq;
    d->lba_bytes = 512;
    d->blocks = 1u << 20;
    d->max_qd = 64;
    d->max_transfer_bytes = 128 * 1024;
}

/* Placement: a firmware disk on the boot processor; an NVMe random job
 * one unit per queue pair, round-robin from the application processors;
 * two ports of one AHCI HBA together on one CPU; a sequential multi-queue
 * job whole. Then the units fold back into their jobs. */
static void test_units_are_placed_by_path_queue_and_controller(void **state)
{
    struct disk_test rnd = { .name = "RND4K-Q8T4", .op = BM_IO_READ, .random = true, .bs = 4096, .qd = 8,
                             .threads = 4 };
    struct disk_test seq = { .name = "SEQ128K-Q2T4", .op = BM_IO_READ, .bs = 131072, .qd = 2, .threads = 4 };
    static struct bm_disk d[5];
    static struct disk_job jobs[5];
    static struct engine_plan plan;
    char why[160];
    unsigned cpu_of[5][4], n_of[5] = { 0 };

    (void)state;
    fake_disk(&d[0], "fw0", BM_PATH_FIRMWARE, "", false, 1);
    fake_disk(&d[1], "nvme0n1", BM_PATH_NATIVE, "0000:01:00.0", true, 4);
    fake_disk(&d[2], "ahci0p0", BM_PATH_NATIVE, "0000:00:1f.2", false, 1);
    fake_disk(&d[3], "ahci0p1", BM_PATH_NATIVE, "0000:00:1f.2", false, 1);
    fake_disk(&d[4], "nvme1n1", BM_PATH_NATIVE, "0000:02:00.0", true, 4);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(engine_job_prepare(&jobs[i], &d[i], i == 4 ? &seq : &rnd, i, why, sizeof(why)), BM_OK);
    assert_int_equal(engine_plan_spread(&plan, jobs, 5, 3), BM_OK);
    assert_int_equal(plan.nunits, 1 + 4 + 1 + 1 + 1);
    for (unsigned k = 0, u = 0; k < plan.ncpus; k++)
        for (unsigned i = 0; i < plan.cpus[k].n; i++, u++) {
            unsigned parent = plan.parent[u];
            assert_ptr_equal(&plan.cpus[k].jobs[i], &plan.units[u]);
            assert_int_equal(plan.units[u].cpu, k);
            cpu_of[parent][n_of[parent]++] = k;
        }
    assert_int_equal(cpu_of[0][0], 0);                   /* firmware: the boot processor */
    assert_int_equal(n_of[1], 4);                        /* a unit per queue pair, on 1, 2, 0, 1 */
    assert_int_equal(cpu_of[1][0] + cpu_of[1][1] + cpu_of[1][2] + cpu_of[1][3], 1 + 2 + 0 + 1);
    assert_int_equal(cpu_of[2][0], cpu_of[3][0]);        /* one HBA, one CPU */
    assert_int_equal(n_of[4], 1);                        /* sequential: whole */
    for (unsigned k = 0; k < plan.ncpus; k++)
        plan.cpus[k].sh = NULL;
    engine_plan_merge(&plan, jobs, 5);
    assert_int_equal(jobs[1].cpus, 3);
    assert_int_equal(jobs[0].cpus, 1);
    assert_int_equal(jobs[1].q_base, 0);
    assert_int_equal(jobs[1].nq, 4);
    for (unsigned i = 0; i < 5; i++)
        engine_job_free(&jobs[i]);
}

static char held_where[32], held_msg[96];
static unsigned held_calls;

static void sink(const char *where, const char *message)
{
    held_calls++;
    bm_strlcpy(held_where, where, sizeof(held_where));
    bm_strlcpy(held_msg, message, sizeof(held_msg));
}

static void diag_on_ap(unsigned cpu, void *arg)
{
    (void)arg;
    plat_diag("nvme9n1", "from CPU %u", cpu);
}

/* A driver's diagnostic on an application processor waits for the boot
 * processor, which alone writes records. */
static void test_diagnostic_from_another_cpu_is_held_for_the_boot_processor(void **state)
{
    (void)state;
    if (plat_cpu_count() < 2)
        skip();
    plat_set_diag_sink(sink);
    assert_int_equal(plat_cpu_start(1, diag_on_ap, NULL), BM_OK);
    assert_int_equal(plat_cpu_wait(1, 5000000000ull), BM_OK);
    assert_int_equal(held_calls, 0);
    plat_diag_flush();
    assert_int_equal(held_calls, 1);
    assert_string_equal(held_where, "nvme9n1");
    assert_string_equal(held_msg, "from CPU 1");
    plat_set_diag_sink(NULL);
}

/* Sweeps: one whose hooks may print or check data (verify=) stays on the
 * boot processor; one whose hooks say mp_safe (the surface scan) is placed
 * like any native job, and a firmware disk's stays on the boot processor
 * whatever its hooks say. */
static bool no_next(void *ctx, uint64_t *lba, uint32_t *blocks)
{
    (void)ctx;
    (void)lba;
    (void)blocks;
    return false;
}

static void test_sweep_leaves_the_boot_processor_only_with_mp_safe_hooks(void **state)
{
    static const struct engine_io_hooks checking = { NULL, NULL, NULL, NULL, false };
    static const struct engine_io_hooks safe = { .next = no_next, .mp_safe = true };
    static struct bm_disk d[3];
    static struct disk_job jobs[3];
    static struct engine_plan plan;
    char why[160];

    (void)state;
    fake_disk(&d[0], "ahci0p0", BM_PATH_NATIVE, "0000:00:1f.2", false, 1);
    fake_disk(&d[1], "ahci1p0", BM_PATH_NATIVE, "0000:00:03.0", false, 1);
    fake_disk(&d[2], "fw0", BM_PATH_FIRMWARE, "", false, 1);
    assert_int_equal(engine_job_prepare_sweep(&jobs[0], &d[0], BM_IO_READ, 0, 1024, 256, 8, &checking, NULL, why,
                                              sizeof(why)), BM_OK);
    assert_int_equal(engine_job_prepare_sweep(&jobs[1], &d[1], BM_IO_READ, 0, 1024, 256, 8, &safe, NULL, why,
                                              sizeof(why)), BM_OK);
    assert_int_equal(engine_job_prepare_sweep(&jobs[2], &d[2], BM_IO_READ, 0, 1024, 256, 8, &safe, NULL, why,
                                              sizeof(why)), BM_OK);
    assert_int_equal(engine_plan_spread(&plan, jobs, 3, 2), BM_OK);
    for (unsigned u = 0; u < plan.nunits; u++)
        assert_int_equal(plan.units[u].cpu, plan.parent[u] == 1 ? 1 : 0);
    for (unsigned k = 0; k < plan.ncpus; k++)
        plan.cpus[k].sh = NULL;
    engine_plan_merge(&plan, jobs, 3);
    for (unsigned i = 0; i < 3; i++)
        engine_job_free(&jobs[i]);
}

/* A disk whose reads take lat_ns of real time each (0: done at the next
 * poll), counting the polls that found nothing in flight. */
struct timed_disk {
    struct bm_disk d;
    uint64_t due[64];
    bool busy[64];
    uint32_t inflight;
    uint64_t lat_ns, idle_polls;
};

static int timed_submit(struct bm_disk *d, unsigned q, uint32_t tag, enum bm_io_op op, uint64_t lba, uint32_t blocks,
                        void *buf)
{
    struct timed_disk *t = (struct timed_disk *)d;

    (void)op;
    if (q != 0 || tag >= d->max_qd || t->busy[tag] || !blocks || lba + blocks > d->blocks || !buf)
        return BM_EINVAL;
    t->busy[tag] = true;
    t->due[tag] = plat_now_ns() + t->lat_ns;
    t->inflight++;
    return BM_OK;
}

static int timed_poll(struct bm_disk *d, unsigned q, struct bm_completion *out, int max)
{
    struct timed_disk *t = (struct timed_disk *)d;
    uint64_t now = plat_now_ns();
    int n = 0;

    (void)q;
    if (!t->inflight)
        t->idle_polls++;
    for (uint32_t tag = 0; tag < d->max_qd && n < max; tag++)
        if (t->busy[tag] && t->due[tag] <= now) {
            t->busy[tag] = false;
            t->inflight--;
            out[n].tag = tag;
            out[n].status = BM_OK;
            out[n].detail[0] = '\0';
            n++;
        }
    return n;
}

static const struct bm_disk_ops timed_ops = { .submit = timed_submit, .poll = timed_poll };

/* The surface scan of a small disk beside a large one (issue 29): the
 * small one's sweep, on the boot processor, ends long before the large
 * one's on the application processor. From then on the boot processor has
 * nothing to poll and must rest between looks, as it does when it has no
 * queue at all (SEQ1M-Q8T1 alone): spinning would take a core (a host
 * core, under QEMU's TCG) from the CPU still reading. Counted, not timed:
 * a resting boot processor looks at its finished disk about once a
 * millisecond (ENGINE_BSP_IDLE_NS), a spinning one every few hundred ns. */
static void test_boot_processor_rests_once_its_own_sweep_is_done(void **state)
{
    static const struct engine_io_hooks anywhere = { .mp_safe = true };
    const struct engine_timing tm = { 0, 0, NS_PER_S };
    static struct timed_disk big, small;
    static struct disk_job jobs[2];
    char why[160];
    uint64_t t0, ms;

    (void)state;
    if (plat_cpu_count() < 2)
        skip();
    engine_limit_cpus(2);
    fake_disk(&big.d, "ahci0p0", BM_PATH_NATIVE, "0000:00:03.0", false, 1);
    fake_disk(&small.d, "ahci1p2", BM_PATH_NATIVE, "0000:00:1f.2", false, 1);
    big.d.ops = small.d.ops = &timed_ops;
    big.lat_ns = NS_PER_MS;                   /* 8 in flight: 8 reads a millisecond, 800 in 100 ms */
    assert_int_equal(engine_job_prepare_sweep(&jobs[0], &big.d, BM_IO_READ, 0, 800 * 256, 256, 8, &anywhere, NULL,
                                              why, sizeof(why)), BM_OK);
    assert_int_equal(engine_job_prepare_sweep(&jobs[1], &small.d, BM_IO_READ, 0, 8 * 256, 256, 8, &anywhere, NULL,
                                              why, sizeof(why)), BM_OK);
    t0 = plat_now_ns();
    assert_int_equal(engine_run(jobs, 2, &tm, "scan", NULL), BM_OK);
    ms = (plat_now_ns() - t0) / NS_PER_MS;
    assert_int_equal(jobs[0].status, BM_OK);
    assert_int_equal(jobs[1].status, BM_OK);
    assert_int_equal(jobs[0].cpu, 1);         /* the large disk on the application processor */
    assert_int_equal(jobs[1].cpu, 0);         /* the small one on the boot processor */
    assert_int_equal(jobs[0].bytes, 800ull * 256 * 512);
    assert_true(ms >= 90);
    /* About one look a millisecond (two allowed, and the progress line's). */
    assert_true(small.idle_polls <= 2 * ms + 10);
    engine_job_free(&jobs[0]);
    engine_job_free(&jobs[1]);
    engine_limit_cpus(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_are_placed_by_path_queue_and_controller),
        cmocka_unit_test(test_sweep_leaves_the_boot_processor_only_with_mp_safe_hooks),
        cmocka_unit_test(test_random_job_runs_one_queue_pair_per_cpu),
        cmocka_unit_test(test_cpu_that_never_returns_fails_its_disk_and_the_other_carries_on),
        cmocka_unit_test(test_next_test_after_a_hung_cpu_runs_its_queues_on_the_boot_processor),
        cmocka_unit_test(test_diagnostic_from_another_cpu_is_held_for_the_boot_processor),
        cmocka_unit_test(test_boot_processor_rests_once_its_own_sweep_is_done),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
