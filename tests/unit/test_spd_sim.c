/* The example bus files of tests/spd/ (the runner's cwd is the repo root),
 * each replayed through the simulated bus (drivers/smbus/smbus_sim.h) and
 * the real SPD reader, as build/host/baremark-spd-sim does (an `imc` file
 * through the simulated IMC SMBus, drivers/smbus/imc_sim.h, and
 * spd_imc.c); and the bus file parser's messages for bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "drivers/smbus/imc_sim.h"
#include "drivers/smbus/smbus_sim.h"
#include "efi/inventory/spd_imc.h"
#include "efi/inventory/spd_read.h"

static struct smbus_sim sim;
static struct spd_raw raw[SPD_SLOTS];
static struct spd_info info;
static char text[1 << 16], note[200], err[160];
static struct spd_raw imc_raw[SPD_IMC_DIMMS];
static char imc_note[600];
static unsigned imc_commands;

/* Load tests/spd/name into sim and read the bus; returns how many answered. */
static int replay(const char *name)
{
    char path[128];
    struct spd_bus_hint hint;
    struct smbus b;
    FILE *f;
    size_t len;
    int rc;

    snprintf(path, sizeof(path), "tests/spd/%s", name);
    f = fopen(path, "rb");
    assert_non_null(f);
    len = fread(text, 1, sizeof(text), f);
    fclose(f);
    assert_int_equal(smbus_sim_parse(text, len, &sim, err, sizeof(err)), BM_OK);
    hint.smbios_ddr4 = sim.smbios_ddr4;
    hint.smbios_ddr5 = sim.smbios_ddr5;
    hint.smbios_slots = sim.smbios_slots;
    smbus_sim_open(&sim, &b);
    note[0] = '\0';
    rc = spd_read_bus(&b, &hint, raw, note, sizeof(note));
    smbus_close(&b);
    assert_int_equal(sim.protect_writes, 0);
    assert_int_equal(sim.eeprom_writes, 0);
    return rc;
}

static void decode(int slot)
{
    assert_int_equal(spd_decode(raw[slot].data, raw[slot].len, &info), BM_OK);
    assert_true(info.crc_ok);
    assert_false(info.truncated);
}

static void test_bus_34c02_smbios_ddr4_no_write(void **state)
{
    (void)state;
    assert_int_equal(replay("34c02-smbios-ddr4.bus"), 1);
    assert_int_equal(sim.writes, 0);
    assert_false(sim.swp_set[6]);
    decode(6);
    assert_string_equal(info.mem_type, "DDR3");
}

static void test_bus_ddr4_page1_at_start_read_and_put_back(void **state)
{
    (void)state;
    assert_int_equal(replay("ddr4-ee1004-page1-at-start.bus"), 2);
    assert_int_equal(sim.ee1004_page, 1);
    decode(0);
    decode(2);
    assert_string_equal(info.part, "M393A2K43DB3-CWE");
}

static void test_bus_ee1004_select_nack_read_whole(void **state)
{
    (void)state;
    assert_int_equal(replay("ee1004-select-nack.bus"), 1);
    assert_int_equal(raw[1].len, 512);
    assert_int_equal(sim.ee1004_page, 0);
    decode(1);
}

static void test_bus_page_query_busy_not_page_1(void **state)
{
    (void)state;
    assert_int_equal(replay("page-query-busy.bus"), 1);
    assert_int_equal(raw[0].len, 512);
    assert_int_equal(sim.ee1004_page, 0);
}

static void test_bus_ddr5_hub_page3_cl52(void **state)
{
    (void)state;
    assert_int_equal(replay("ddr5-hub-mr11-page3.bus"), 1);
    assert_int_equal(sim.mr11[1], 3);
    decode(1);
    assert_int_equal(info.speed_mts, 6400);
    assert_int_equal(info.cl, 52);
}

static void test_bus_ddr5_6000_cl48(void **state)
{
    (void)state;
    assert_int_equal(replay("ddr5-6000.bus"), 1);
    decode(0);
    assert_int_equal(info.speed_mts, 6000);
    assert_int_equal(info.cl, 48);
}

static void test_bus_ddr4_beside_blank_34c02_no_write(void **state)
{
    (void)state;
    assert_int_equal(replay("ddr4-beside-blank-34c02.bus"), 2);
    assert_int_equal(sim.writes, 0);
    assert_false(sim.swp_set[6]);
    assert_int_equal(raw[0].len, 256);
    assert_non_null(strstr(raw[0].note, "0x56"));
}

/* An `imc` bus file replayed as baremark-spd-sim does: the devices on
 * controller 0 of the simulated IMC SMBus (drivers/smbus/imc_sim.h), read
 * by spd_imc_read(); the model must have refused nothing and every
 * controller be left as found. Returns how many answered. */
static int replay_imc(const char *name)
{
    static struct imc_sim m;
    static struct pci_list l;
    char path[128], why[160];
    FILE *f;
    size_t len;
    int rc;

    snprintf(path, sizeof(path), "tests/spd/%s", name);
    f = fopen(path, "rb");
    assert_non_null(f);
    len = fread(text, 1, sizeof(text), f);
    fclose(f);
    assert_int_equal(smbus_sim_parse(text, len, &sim, err, sizeof(err)), BM_OK);
    assert_true(sim.imc != 0);
    if (sim.imc == 1)
        imc_sim_init(&m, 0x0ea8, (struct pci_addr){ 0, 0xff, 15, 0 }, false);
    else
        imc_sim_init(&m, 0x2085, (struct pci_addr){ 0, 0x17, 30, 5 }, true);
    for (int s = 0; s < 8; s++)
        if (sim.kind[s] != SIM_NONE)
            m.bus[0].dimm[s] = sim.mem[s];
    m.bus[0].poll_locked = sim.imc_cltt_locked;
    m.bus[0].foreign_busy = sim.imc_bmc_busy;
    imc_sim_attach(&m);
    memset(&l, 0, sizeof(l));
    l.count = 1;
    l.funcs[0].addr = m.pci.addr;
    l.funcs[0].vendor = 0x8086;
    l.funcs[0].device = sim.imc == 1 ? 0x0ea8 : 0x2085;
    imc_note[0] = '\0';
    rc = spd_imc_read(&l, imc_raw, SPD_IMC_DIMMS, imc_note, sizeof(imc_note));
    for (unsigned b = 0; b < 2; b++) {
        assert_int_equal(imc_sim_violations(&m, b), 0);
        assert_true(imc_sim_left_as_found(&m, b, why, sizeof(why)));
    }
    imc_commands = m.bus[0].commands;
    imc_sim_detach(&m);
    return rc;
}

static void test_bus_imc_e5_ddr3_polling_paused_and_restored(void **state)
{
    (void)state;
    assert_int_equal(replay_imc("imc-e5-ddr3-polling.bus"), 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(spd_decode(imc_raw[i].data, imc_raw[i].len, &info), BM_OK);
        assert_int_equal(info.gen, SPD_GEN_DDR3);
        assert_true(info.crc_ok);
    }
    assert_int_equal(imc_raw[1].addr, 0x54);
}

static void test_bus_imc_cltt_locked_no_command(void **state)
{
    (void)state;
    assert_int_equal(replay_imc("imc-cltt-locked.bus"), 0);
    assert_int_equal(imc_commands, 0);
    assert_non_null(strstr(imc_note, "i0.0"));
    assert_non_null(strstr(imc_note, "could not be paused"));
}

static void test_bus_imc_scalable_ddr4_after_bmc(void **state)
{
    (void)state;
    assert_int_equal(replay_imc("imc-scalable-ddr4-bmc-busy.bus"), 1);
    assert_int_equal(imc_raw[0].addr, 0x51);
    assert_int_equal(imc_raw[0].len, 256);
    assert_int_equal(spd_decode(imc_raw[0].data, imc_raw[0].len, &info), BM_OK);
    assert_int_equal(info.gen, SPD_GEN_DDR4);
    assert_non_null(strstr(imc_raw[0].note, "page 1"));
}

/* Bad bus files: the line and the problem are named. */
static void test_bus_file_errors_named(void **state)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        { "device 0x60 eeprom\n", "line 1: device needs an address 0x50-0x57" },
        { "# ok\ndevice 0x50 flash\n", "line 2: unknown device kind 'flash'" },
        { "bytes 0x50 0x3ff 00 11\n", "line 1: bytes run past offset 1023" },
        { "bytes 0x50 0 0g\n", "line 1: '0g' is not a byte in hex" },
        { "smbios ddr4 slots=x\n", "line 1: smbios: 'slots=x' is not slots=N" },
        { "ee1004-page 2\n", "line 1: ee1004-page needs a number (0 or 1)" },
        { "frobnicate\n", "line 1: unknown directive 'frobnicate'" },
        { "spd-write-disable now\n", "line 1: unexpected 'now'" },
        { "imc e6\n", "line 1: imc needs a layout (e5, scalable)" },
        { "imc e5 cltt\n", "line 1: unknown imc option 'cltt'" },
        { "imc scalable\ndevice 0x51 hub\n", "device 0x51: an imc bus holds SPD EEPROMs only" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(smbus_sim_parse(cases[i].text, strlen(cases[i].text), &sim, err, sizeof(err)), BM_EINVAL);
        assert_non_null(strstr(err, cases[i].want));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bus_34c02_smbios_ddr4_no_write),
        cmocka_unit_test(test_bus_ddr4_page1_at_start_read_and_put_back),
        cmocka_unit_test(test_bus_ee1004_select_nack_read_whole),
        cmocka_unit_test(test_bus_page_query_busy_not_page_1),
        cmocka_unit_test(test_bus_ddr5_hub_page3_cl52),
        cmocka_unit_test(test_bus_ddr5_6000_cl48),
        cmocka_unit_test(test_bus_ddr4_beside_blank_34c02_no_write),
        cmocka_unit_test(test_bus_imc_e5_ddr3_polling_paused_and_restored),
        cmocka_unit_test(test_bus_imc_cltt_locked_no_command),
        cmocka_unit_test(test_bus_imc_scalable_ddr4_after_bmc),
        cmocka_unit_test(test_bus_file_errors_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
