/* SPD over the Xeon integrated memory controller's SMBus
 * (efi/inventory/spd_imc.c) against the model of its two SMBus controllers
 * in drivers/smbus/imc_sim.h (E5 v1-v4 and Xeon Scalable layouts, its own
 * register constants from FreeBSD imcsmb_reg.h, Linux i2c-imc and Intel's
 * Purley header). The model ignores and counts what the chip would refuse
 * or what would change a module: a command while the thermal polling is
 * enabled or the bus BUSY, write/word/pointer commands, a device type
 * other than the SPD EEPROM's, a change to any control bit but the poll
 * enable and the device type, any other register write. It polls on a
 * cadence, ends a poll in flight only after the pause, NACKs empty slots
 * with SBE (which stops its polling until a command succeeds), keeps a
 * CLTT-locked poll enable set, and measures how long the polling stays
 * paused. Every test checks each controller is left as found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "capture_sink.h"
#include "efi/inventory/spd.h"
#include "efi/inventory/spd_imc.h"
#include "efi/inventory/spd_inventory.h"
#include "drivers/smbus/imc_sim.h"

#define NS_MS 1000000ull

static struct imc_sim M[2];
static int nmodels;
static uint8_t ddr3[4][256], ddr4[512];
static struct pci_list L;
static struct spd_raw raw[SPD_IMC_DIMMS];
static char note[600];

/* Images: the DDR3 UDIMM of the fuzz corpus with distinct serials (bytes
 * 122-125, outside the CRC'd range); the DDR4 RDIMM. */
static void load_images(void)
{
    FILE *f = fopen("tests/fuzz/corpus/spd/ddr3_udimm.bin", "rb");

    assert_non_null(f);
    assert_int_equal(fread(ddr3[0], 1, 256, f), 256);
    fclose(f);
    for (int i = 1; i < 4; i++) {
        memcpy(ddr3[i], ddr3[0], 256);
        ddr3[i][125] = (uint8_t)(ddr3[0][125] + i);
    }
    f = fopen("tests/fuzz/corpus/spd/ddr4_rdimm.bin", "rb");
    assert_non_null(f);
    assert_int_equal(fread(ddr4, 1, 512, f), 512);
    fclose(f);
}

/* A function with the id at bus:dev.fn, both controllers as a firmware
 * with closed-loop thermal throttling leaves them (imc_sim_init). */
static struct imc_sim *add_model(uint16_t device, uint8_t bus, uint8_t dev, uint8_t fn, bool skx)
{
    struct imc_sim *m = &M[nmodels++];

    imc_sim_init(m, device, (struct pci_addr){ 0, bus, dev, fn }, skx);
    imc_sim_attach(m);
    L.funcs[L.count].addr = m->pci.addr;
    L.funcs[L.count].vendor = 0x8086;
    L.funcs[L.count].device = device;
    L.count++;
    return m;
}

static int setup(void **state)
{
    (void)state;
    nmodels = 0;
    memset(&L, 0, sizeof(L));
    memset(raw, 0, sizeof(raw));
    load_images();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < nmodels; i++)
        imc_sim_detach(&M[i]);
    return 0;
}

/* Nothing the chip rejects was tried, every controller is as found
 * (control and E5 command registers, the polling on again, no SBE left
 * where a DIMM answers), and the polling was never paused past the bound. */
static void assert_left_as_found(struct imc_sim *m)
{
    char why[160];

    for (unsigned b = 0; b < 2; b++) {
        bool ok = imc_sim_left_as_found(m, b, why, sizeof(why));
        if (!ok)
            fprintf(stderr, "%s\n", why);
        assert_true(ok);
        assert_int_equal(imc_sim_violations(m, b), 0);
        assert_true(m->bus[b].max_pause_ns <= IMC_PAUSE_MAX_NS + 100 * NS_MS);
    }
}

static const struct spd_raw *entry(int n, const char *where, uint8_t addr)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(raw[i].where, where) && raw[i].addr == addr)
            return &raw[i];
    return NULL;
}

static void assert_ddr3(int n, const char *where, uint8_t addr, const uint8_t *want)
{
    const struct spd_raw *r = entry(n, where, addr);
    struct spd_info in;

    assert_non_null(r);
    assert_int_equal(r->rc, BM_OK);
    assert_int_equal(r->len, 256);
    assert_memory_equal(r->data, want, 256);
    assert_int_equal(spd_decode(r->data, r->len, &in), BM_OK);
    assert_int_equal(in.gen, SPD_GEN_DDR3);
    assert_true(in.crc_ok);
}

/* Xeon E5 v2 (0000:ff:0f.0, 8086:0ea8): DIMMs on both controllers, empty
 * slots between them; polling paused and put back, SBE cleared. */
static void test_imc_e5v2_reads_ddr3_on_both_controllers_and_restores_polling(void **state)
{
    struct imc_sim *m;
    int n;

    (void)state;
    m = add_model(0x0ea8, 0xff, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[0].dimm[4] = ddr3[1];
    m->bus[1].dimm[1] = ddr3[2];
    n = spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    assert_int_equal(n, 3);
    assert_string_equal(note, "");
    assert_ddr3(n, "i0.0", 0x50, ddr3[0]);
    assert_ddr3(n, "i0.0", 0x54, ddr3[1]);
    assert_ddr3(n, "i0.1", 0x51, ddr3[2]);
    assert_true(m->bus[0].nacks >= 6);
    assert_left_as_found(m);
}

/* CLTT keeps TSOD_POLL_EN set: no command at all, the bus named, nothing
 * left changed. */
static void test_imc_pause_that_never_confirms_is_refused(void **state)
{
    struct imc_sim *m;
    int n;

    (void)state;
    m = add_model(0x3ca8, 0x7f, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[0].poll_locked = true;
    m->bus[1].dimm[2] = ddr3[1];
    n = spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    assert_int_equal(n, 1);
    assert_int_equal(m->bus[0].commands, 0);
    assert_non_null(strstr(note, "i0.0"));
    assert_non_null(strstr(note, "could not be paused"));
    assert_null(strstr(note, "i0.1"));
    assert_ddr3(n, "i0.1", 0x52, ddr3[1]);
    assert_left_as_found(m);
}

/* Polling off, and the bus BUSY for ever: a BMC owns it. Refused within
 * the bound, no command. */
static void test_imc_bus_held_by_another_master_is_refused_in_time(void **state)
{
    struct imc_sim *m;
    uint64_t t0;

    (void)state;
    m = add_model(0x2fa8, 0xff, 18, 0, false);
    imc_sim_poll_off(m, 0);
    imc_sim_poll_off(m, 1);
    m->bus[1].foreign_busy = ~0u;
    m->bus[1].dimm[0] = ddr3[0];
    m->bus[0].dimm[3] = ddr3[3];
    t0 = plat_now_ns();
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_true(plat_now_ns() - t0 < 2000 * NS_MS);
    assert_int_equal(m->bus[1].commands, 0);
    assert_non_null(strstr(note, "i0.1"));
    assert_non_null(strstr(note, "another master"));
    assert_ddr3(1, "i0.0", 0x53, ddr3[3]);
    assert_left_as_found(m);
}

/* The thermal poll in flight when the pause is asked for, and a BMC
 * transaction, last several polls: waited for, then the read goes on. */
static void test_imc_busy_that_clears_late_is_waited_for(void **state)
{
    struct imc_sim *m;

    (void)state;
    m = add_model(0x6fa8, 0xff, 18, 0, false);
    m->bus[0].dimm[2] = ddr3[2];
    m->bus[0].poll_period = 1;      /* a poll always in flight */
    m->bus[0].tail = 40;            /* ends 40 polls after the pause */
    m->bus[1].foreign_busy = 200;   /* a BMC read, 4 ms */
    m->bus[1].dimm[5] = ddr3[3];
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 2);
    assert_string_equal(note, "");
    assert_ddr3(2, "i0.0", 0x52, ddr3[2]);
    assert_ddr3(2, "i0.1", 0x55, ddr3[3]);
    assert_left_as_found(m);
}

/* A command that never ends: bounded, the bus given back (polling on
 * again), the other controller still read. */
static void test_imc_stuck_transaction_is_bounded_and_bus_given_back(void **state)
{
    struct imc_sim *m;
    uint64_t t0;

    (void)state;
    m = add_model(0x0ea8, 0xff, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[0].stuck = true;
    m->bus[1].dimm[7] = ddr3[1];
    t0 = plat_now_ns();
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_true(plat_now_ns() - t0 < 2000 * NS_MS);
    assert_non_null(strstr(note, "i0.0"));
    assert_non_null(strstr(note, "did not end"));
    assert_int_equal(m->bus[0].commands, 1);
    assert_ddr3(1, "i0.1", 0x57, ddr3[1]);
    /* The stuck command still shows BUSY: nothing more was issued, the
     * control register is back as found. */
    m->bus[0].stuck = false;
    m->bus[0].running = false;
    m->bus[0].stat = 0;
    assert_left_as_found(m);
}

/* No DIMM on a controller: every probe NACKs; the note says the SBE stays
 * (nothing to read to clear it), nothing forbidden happened. */
static void test_imc_empty_controller_probes_only_and_says_sbe_stays(void **state)
{
    struct imc_sim *m;

    (void)state;
    m = add_model(0x2f68, 0xff, 22, 0, false);
    m->bus[0].dimm[1] = ddr3[0];
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_int_equal(m->bus[1].commands, 8);
    assert_int_equal(m->bus[1].nacks, 8);
    assert_non_null(strstr(note, "i0.1"));
    assert_non_null(strstr(note, "bus error (SBE) of the last command stays set"));
    assert_left_as_found(m);
}

/* DDR4 (E5 v4): page 0 only, with a note; no page select (there is no
 * command that could carry one: the model counts any write command). */
static void test_imc_ddr4_page0_read_without_a_page_select(void **state)
{
    struct imc_sim *m;
    struct spd_info in;
    int n;

    (void)state;
    m = add_model(0x6fa8, 0xff, 18, 0, false);
    m->bus[0].dimm[0] = ddr4;
    n = spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    assert_int_equal(n, 1);
    assert_int_equal(raw[0].len, 256);
    assert_memory_equal(raw[0].data, ddr4, 256);
    assert_non_null(strstr(raw[0].note, "DDR4 page 1"));
    assert_int_equal(spd_decode(raw[0].data, raw[0].len, &in), BM_OK);
    assert_int_equal(in.gen, SPD_GEN_DDR4);
    assert_left_as_found(m);
}

/* Reading many DIMMs gives the bus back to the thermal polling between
 * them: never paused longer than the bound even when each byte is slow. */
static void test_imc_polling_never_paused_longer_than_the_bound(void **state)
{
    struct imc_sim *m;

    (void)state;
    m = add_model(0x3ca8, 0x7f, 15, 0, false);
    for (int s = 0; s < 4; s++)
        m->bus[0].dimm[s] = ddr3[s];
    m->bus[0].cmd_busy_reads = 150;   /* 4.5 ms a byte: 1.2 s a DIMM */
    m->bus[1].dimm[0] = ddr3[0];
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 5);
    assert_string_equal(note, "");
    for (int s = 0; s < 4; s++)
        assert_ddr3(4, "i0.0", (uint8_t)(0x50 + s), ddr3[s]);
    assert_true(m->bus[0].max_pause_ns > 0);
    assert_left_as_found(m);
}

/* Two sockets of Xeon Scalable (PCU function 5, 8086:2085): the command
 * register carries the poll enable; the data comes from SMB_DATA_CFG. */
static void test_imc_scalable_two_sockets_read_and_restored(void **state)
{
    struct imc_sim *a, *b;
    int n;

    (void)state;
    a = add_model(0x2085, 0x17, 30, 5, true);
    b = add_model(0x2085, 0x85, 30, 5, true);
    a->bus[0].dimm[0] = ddr4;
    a->bus[1].dimm[2] = ddr4;
    b->bus[1].dimm[6] = ddr4;
    n = spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    assert_int_equal(n, 3);
    /* Socket 1's controller 0 is empty: only that is noted. */
    assert_null(strstr(note, "not read"));
    assert_non_null(strstr(note, "i1.0 (0000:85:1e.5): the bus error (SBE)"));
    assert_null(strstr(note, "i0."));
    assert_non_null(entry(n, "i0.0", 0x50));
    assert_non_null(entry(n, "i0.1", 0x52));
    assert_non_null(entry(n, "i1.1", 0x56));
    for (int i = 0; i < n; i++)
        assert_memory_equal(raw[i].data, ddr4, 256);
    assert_left_as_found(a);
    assert_left_as_found(b);
}

/* Scalable with a locked poll enable on one controller: refused there. */
static void test_imc_scalable_locked_poll_enable_refused(void **state)
{
    struct imc_sim *a;

    (void)state;
    a = add_model(0x2085, 0x17, 30, 5, true);
    a->bus[0].dimm[0] = ddr4;
    a->bus[0].poll_locked = true;
    a->bus[1].dimm[1] = ddr4;
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_int_equal(a->bus[0].commands, 0);
    assert_non_null(strstr(note, "could not be paused"));
    assert_left_as_found(a);
}

/* A PCU function 1 or an IMC function at the wrong place is not read. */
static void test_imc_other_functions_are_not_touched(void **state)
{
    struct imc_sim *a, *b;

    (void)state;
    a = add_model(0x2085, 0x17, 30, 1, true);   /* the id at another function */
    b = add_model(0x3ca8, 0x7f, 14, 0, false);  /* Sandy Bridge-EP's is at 15.0 */
    a->bus[0].dimm[0] = ddr4;
    b->bus[0].dimm[0] = ddr3[0];
    assert_false(spd_imc_present(&L));
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), BM_ENODEV);
    assert_int_equal(a->bus[0].commands + b->bus[0].commands, 0);
    assert_int_equal(a->bus[0].max_pause_ns + b->bus[0].max_pause_ns, 0);
}

/* A DIMM that stops answering in the middle of its read leaves SBE set
 * (and the thermal polling stopped): before the controller is given back,
 * a read of a DIMM that answers clears it. */
static void test_imc_sbe_from_a_failing_dimm_is_cleared_before_release(void **state)
{
    struct imc_sim *m;
    const struct spd_raw *r;

    (void)state;
    m = add_model(0x0ea8, 0xff, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[0].dimm[3] = ddr3[1];
    m->bus[0].nack_from[3] = 100;
    m->bus[1].dimm[0] = ddr3[2];
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 3);
    r = entry(3, "i0.0", 0x53);
    assert_non_null(r);
    assert_int_equal(r->len, 100);
    assert_non_null(strstr(r->note, "read stopped at byte 100: no acknowledge"));
    assert_ddr3(3, "i0.0", 0x50, ddr3[0]);
    assert_left_as_found(m);
}

/* Another master (SMM, a BMC) rewrites the control register while the
 * DIMMs are read: the controller is given back at once, named, and left
 * as found (no command after the change). */
static void test_imc_another_master_changing_the_control_register_stops_the_read(void **state)
{
    struct imc_sim *m;
    unsigned before;

    (void)state;
    m = add_model(0x3ca8, 0x7f, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[0].foreign_write_after = 20;
    m->bus[1].dimm[1] = ddr3[1];
    spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    before = m->bus[0].commands;
    assert_int_equal(before, 20);
    assert_non_null(strstr(note, "i0.0"));
    assert_non_null(strstr(note, "another master"));
    assert_ddr3(2, "i0.1", 0x51, ddr3[1]);
    /* The register is back as found: the model's change was overwritten
     * with the saved value, which is what was there at the start. */
    assert_left_as_found(m);
}

/* A command another master wrote that never starts (TRIGGER left set in
 * SMBCMD): that controller is left alone, within the bound. */
static void test_imc_pending_foreign_command_is_refused(void **state)
{
    struct imc_sim *m;
    uint32_t cmd;

    (void)state;
    m = add_model(0x0ea8, 0xff, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[1].dimm[0] = ddr3[1];
    memcpy(&cmd, &m->pci.config[0x184], 4);
    cmd |= 0x80000000u;   /* SMBCMD_0 TRIGGER */
    memcpy(&m->pci.config[0x184], &cmd, 4);
    m->bus[0].found_cmd = cmd;
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_int_equal(m->bus[0].commands, 0);
    assert_non_null(strstr(note, "i0.0"));
    assert_non_null(strstr(note, "pending"));
    assert_ddr3(1, "i0.1", 0x50, ddr3[1]);
    assert_left_as_found(m);
}

/* The inventory reads the IMC (found by PCI enumeration) and emits spd
 * records addressed by controller, not the "not read" note. */
static void test_imc_inventory_emits_spd_records_not_a_note(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    static struct dimm_summary sum;
    struct imc_sim *m;

    (void)state;
    m = add_model(0x0ea8, 0xff, 15, 0, false);
    m->bus[0].dimm[1] = ddr3[0];
    m->bus[1].dimm[4] = ddr3[1];
    nrecs = 0;
    sinks_reset();
    sinks_add(&sink);
    spd_inventory_read(NULL, 0);
    spd_inventory_emit(NULL, 0, &sum);
    sinks_close();
    assert_int_equal(count_records("spd", NULL, NULL), 2);
    assert_int_equal(count_records("spd", "\"address\":\"i0.0:0x51\"", "\"mem_type\":\"DDR3\""), 1);
    assert_int_equal(count_records("spd", "\"address\":\"i0.1:0x54\"", "\"crc_ok\":true"), 1);
    assert_int_equal(count_records("note", "not read", NULL), 0);
    assert_left_as_found(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_imc_e5v2_reads_ddr3_on_both_controllers_and_restores_polling, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_imc_pause_that_never_confirms_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_bus_held_by_another_master_is_refused_in_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_busy_that_clears_late_is_waited_for, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_stuck_transaction_is_bounded_and_bus_given_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_empty_controller_probes_only_and_says_sbe_stays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_ddr4_page0_read_without_a_page_select, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_polling_never_paused_longer_than_the_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_scalable_two_sockets_read_and_restored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_scalable_locked_poll_enable_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_other_functions_are_not_touched, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_sbe_from_a_failing_dimm_is_cleared_before_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_another_master_changing_the_control_register_stops_the_read, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_imc_pending_foreign_command_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_inventory_emits_spd_records_not_a_note, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
