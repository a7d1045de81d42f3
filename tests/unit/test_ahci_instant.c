/* The instant AHCI HBA of make bench (tests/bench/ahci_instant.c) is an
 * honest stand-in: the real driver probes it and runs its queued reads at
 * QD1 and QD32 with one PxCI write per batch, and it refuses what an HBA
 * and a disk refuse (a bad PRD table or command table, a queued command
 * without its PxSACT bit or with a tag that is not its slot, a command FIS
 * of the wrong type, an LBA range past the end), stopping the port until
 * PxCMD.ST goes 1 -> 0. The refusals are driven on the model's
 * benchmark-only port with hand-built commands (the driver never builds a
 * wrong one); no speed is checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../bench/iobench.c"
#include "../bench/nvme_instant.c"
#include "../bench/ahci_instant.c"

/* Register and bit names: ahci_instant.c's own (P_*, IS_*). */

static struct iobench bench;
static uint8_t *mem;                  /* the bench port's command list, FIS area, tables, buffer */

static volatile uint8_t *bar(void) { return bench.ahci.dev.bar_window[5]; }
static uint32_t rd(uint32_t reg) { return mmio_read32(bar(), ahci_instant_reg(AHCI_INSTANT_BENCH_PORT, reg)); }
static void wr(uint32_t reg, uint32_t v) { mmio_write32(bar(), ahci_instant_reg(AHCI_INSTANT_BENCH_PORT, reg), v); }
static uint8_t *table(unsigned s) { return mem + 4096 + 256 * s; }

/* The bench port started afresh (ST 0 -> 1 also ends a halt). */
static void port_restart(void)
{
    uint64_t phys = plat_virt_to_phys(mem);

    wr(P_CMD, 0);
    wr(0x00, (uint32_t)phys);
    wr(0x04, (uint32_t)(phys >> 32));
    wr(0x08, (uint32_t)(phys + 1024));
    wr(0x0c, (uint32_t)((phys + 1024) >> 32));
    wr(P_IS, ~0u);
    wr(P_CMD, 0x11);
}

static int setup(void **state)
{
    char err[160] = "";

    (void)state;
    plat_init();
    if (iobench_open_kind(&bench, IOBENCH_AHCI, err, sizeof(err)) != BM_OK) {
        fprintf(stderr, "probe: %s\n", err);
        return -1;
    }
    mem = plat_alloc_pages(16384, false);
    return mem ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    plat_free_pages(mem, 16384);
    iobench_close(&bench);
    return 0;
}

/* Issue slot s (PxSACT first when sact) and return PxIS after it. */
static uint32_t issue(unsigned s, bool sact)
{
    if (sact)
        wr(P_SACT, 1u << s);
    wr(P_CI, 1u << s);
    return rd(P_IS);
}

static void test_driver_probes_the_instant_hba_and_reads_at_qd1_and_qd32(void **state)
{
    static const uint32_t qds[] = { 1, 32 };

    (void)state;
    assert_string_equal(bench.disk->driver, "ahci");
    assert_int_equal(bench.disk->max_qd, 32);
    iobench_measure_model(&bench, 20000);
    assert_true(bench.doorbell_ns > 0 && bench.read_ns > 0);
    for (unsigned i = 0; i < ARRAY_SIZE(qds); i++) {
        struct iobench_row r;
        assert_int_equal(iobench_row(&bench, qds[i], i == 0, 20000000ull, &r), BM_OK);
        assert_true(r.ios > 100);
        assert_true(r.full_ns > 0 && r.reads_per_io > 0);
        /* At QD32 completions reaped together go back out with one
         * PxSACT and one PxCI write for the batch. */
        assert_true(qds[i] == 1 ? r.sq_per_doorbell == 1.0 : r.sq_per_doorbell >= 16.0);
    }
    assert_int_equal(bench.ahci.io_refused + bench.ahci.bad_prdt + bench.ahci.bad_fis + bench.ahci.not_issued, 0);
}

static void test_good_queued_read_completes_inside_the_pxci_write(void **state)
{
    uint64_t done = bench.ahci.io_done;

    (void)state;
    port_restart();
    put_fpdma(mem, table(3), 3, 800, plat_virt_to_phys(mem + 12288));
    assert_int_equal(issue(3, true) & (IS_OFS | IS_IFS | IS_HBDS | IS_TFES), 0);
    assert_int_equal(rd(P_CI), 0);
    assert_int_equal(rd(P_SACT), 0);
    assert_int_equal(bench.ahci.io_done, done + 1);
}

static void test_bad_prd_tables_are_refused_with_a_host_bus_error_or_overflow(void **state)
{
    uint64_t bad = bench.ahci.bad_prdt, done = bench.ahci.io_done;
    uint32_t dbc;

    (void)state;
    port_restart();                   /* a data base not word aligned */
    put_fpdma(mem, table(0), 0, 8, plat_virt_to_phys(mem + 12288) + 1);
    assert_true(issue(0, true) & IS_HBDS);
    port_restart();                   /* an odd byte count (DBC bit 0 clear) */
    put_fpdma(mem, table(0), 0, 8, plat_virt_to_phys(mem + 12288));
    dbc = 4094;
    memcpy(table(0) + 0x8c, &dbc, 4);
    assert_true(issue(0, true) & IS_HBDS);
    port_restart();                   /* no PRD entry at all */
    put_fpdma(mem, table(0), 0, 8, plat_virt_to_phys(mem + 12288));
    mem[2] = mem[3] = 0;              /* PRDTL 0 */
    assert_true(issue(0, true) & IS_HBDS);
    port_restart();                   /* 2 KiB of buffer for a 4 KiB read */
    put_fpdma(mem, table(0), 0, 8, plat_virt_to_phys(mem + 12288));
    dbc = 2047;
    memcpy(table(0) + 0x8c, &dbc, 4);
    assert_true(issue(0, true) & IS_OFS);
    port_restart();                   /* a command table not 128-byte aligned */
    put_fpdma(mem, table(0) + 64, 0, 8, plat_virt_to_phys(mem + 12288));
    assert_true(issue(0, true) & IS_HBDS);
    assert_int_equal(bench.ahci.bad_prdt, bad + 5);
    assert_int_equal(bench.ahci.io_done, done);
}

static void test_queued_command_without_its_sact_bit_or_with_another_tag_is_refused(void **state)
{
    uint64_t before = bench.ahci.not_issued, done = bench.ahci.io_done;

    (void)state;
    port_restart();
    put_fpdma(mem, table(5), 5, 8, plat_virt_to_phys(mem + 12288));
    assert_true(issue(5, false) & IS_IFS);
    assert_true(rd(P_CI) & (1u << 5));   /* never accepted */
    port_restart();
    put_fpdma(mem, table(6), 6, 8, plat_virt_to_phys(mem + 12288));
    table(6)[12] = 7 << 3;              /* tag 7 in slot 6 */
    assert_true(issue(6, true) & IS_IFS);
    assert_int_equal(bench.ahci.not_issued, before + 2);
    assert_int_equal(bench.ahci.io_done, done);
}

static void test_wrong_fis_type_is_refused_and_the_port_stays_stopped_until_st_cycles(void **state)
{
    uint64_t bad = bench.ahci.bad_fis, done = bench.ahci.io_done;

    (void)state;
    port_restart();
    put_fpdma(mem, table(1), 1, 8, plat_virt_to_phys(mem + 12288));
    table(1)[0] = 0x34;                 /* a D2H FIS as a command */
    assert_true(issue(1, true) & IS_IFS);
    put_fpdma(mem, table(2), 2, 8, plat_virt_to_phys(mem + 12288));
    issue(2, true);                     /* halted: not run */
    assert_true(rd(P_CI) & (1u << 2));
    port_restart();
    put_fpdma(mem, table(1), 1, 8, plat_virt_to_phys(mem + 12288));
    table(1)[1] = 0;                    /* C bit clear: a device control FIS */
    assert_true(issue(1, true) & IS_IFS);
    assert_int_equal(bench.ahci.bad_fis, bad + 2);
    assert_int_equal(bench.ahci.io_done, done);
    port_restart();
    put_fpdma(mem, table(2), 2, 8, plat_virt_to_phys(mem + 12288));
    assert_int_equal(issue(2, true) & IS_IFS, 0);
    assert_int_equal(bench.ahci.io_done, done + 1);
}

/* What a real HBA ignores is ignored and counted: a command issued to a
 * stopped list (PxCI, PxSACT with ST clear) and SControl.DET changed
 * while the list runs; the driver's own runs (the probe, QD1 and QD32
 * reads of the tests before) did none of it. */
static void test_writes_a_real_hba_ignores_are_refused_and_counted(void **state)
{
    uint64_t refused = bench.ahci.refused, done = bench.ahci.io_done;

    (void)state;
    assert_int_equal(refused, 0);
    port_restart();
    put_fpdma(mem, table(3), 3, 8, plat_virt_to_phys(mem + 12288));
    wr(P_CMD, 0x10);                    /* ST cleared: the list stops (CR with it) */
    wr(P_SACT, 1u << 3);
    wr(P_CI, 1u << 3);
    assert_int_equal(rd(P_CI) | rd(P_SACT), 0);
    assert_int_equal(bench.ahci.refused, refused + 2);
    wr(P_CMD, 0x11);
    wr(P_SCTL, rd(P_SCTL) | 1);         /* a COMRESET while the list runs */
    assert_int_equal(rd(P_SCTL) & 0xf, 0);
    assert_int_equal(bench.ahci.refused, refused + 3);
    assert_int_equal(bench.ahci.io_done, done);
    port_restart();
}

static void test_lba_past_the_end_fails_with_idnf_and_tfes(void **state)
{
    uint64_t refused = bench.ahci.io_refused, done = bench.ahci.io_done;

    (void)state;
    port_restart();
    put_fpdma(mem, table(0), 0, IOBENCH_BLOCKS - 4, plat_virt_to_phys(mem + 12288)); /* 8 sectors, 4 left */
    assert_true(issue(0, true) & IS_TFES);
    assert_int_equal((rd(P_TFD) >> 8) & 0x10, 0x10);
    assert_int_equal(bench.ahci.io_refused, refused + 1);
    assert_int_equal(bench.ahci.io_done, done);
    port_restart();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driver_probes_the_instant_hba_and_reads_at_qd1_and_qd32),
        cmocka_unit_test(test_good_queued_read_completes_inside_the_pxci_write),
        cmocka_unit_test(test_bad_prd_tables_are_refused_with_a_host_bus_error_or_overflow),
        cmocka_unit_test(test_queued_command_without_its_sact_bit_or_with_another_tag_is_refused),
        cmocka_unit_test(test_wrong_fis_type_is_refused_and_the_port_stays_stopped_until_st_cycles),
        cmocka_unit_test(test_lba_past_the_end_fails_with_idnf_and_tfes),
        cmocka_unit_test(test_writes_a_real_hba_ignores_are_refused_and_counted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
