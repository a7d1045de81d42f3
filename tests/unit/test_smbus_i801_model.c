/* The i801 SMBus host driver and the SPD reader against a model of an
 * Intel ICH/PCH SMBus controller (ICH9/C600 datasheet register set, as
 * Linux i2c-i801.c drives it) with SPD devices on its bus. The model
 * refuses what the chip refuses or what breaks another owner's
 * transaction: a START while HOST_BUSY, a START with stale status flags,
 * a START without holding the INUSE_STS semaphore, writes to 0x50-0x57
 * while SPD Write Disable is set; its I/O window decodes only while
 * HOSTC.HST_EN and I/O space are on. The bus model counts EEPROM writes
 * and addresses outside the SPD range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/smbus/i801_regs.h"
#include "drivers/smbus/smbus.h"
#include "efi/inventory/spd_read.h"
#include "platform_sim.h"
#include "smbus_bus_model.h"

#define IO_BASE 0xf000
#define BDF ((struct pci_addr){ 0, 0, 0x1f, 3 })

enum owner { FREE = 0, DRIVER, OTHER };

struct i801_model {
    struct plat_sim_dev pci;
    struct plat_sim_io io;
    struct spd_bus bus;
    uint8_t sts;                /* flags other than INUSE */
    enum owner inuse;
    unsigned other_reads;       /* OTHER keeps INUSE for this many more status reads */
    uint8_t cnt, cmd, add, dat0, dat1, auxctl;
    unsigned busy_reads;        /* status reads before the running transaction completes */
    bool stuck;                 /* the transaction never completes */
    uint64_t preempt_ns;        /* the driver loses the CPU this long at the next busy status read */
    uint8_t result;             /* INTR or DEV_ERR, set when it completes */
    /* What the driver must never do. */
    unsigned start_while_busy, start_with_stale_status, start_without_inuse, spd_wd_blocked;
    unsigned starts, kills;
};

static struct i801_model M;

static bool decodes(struct i801_model *m)
{
    return (m->pci.config[I801_PCI_HOSTC] & I801_HOSTC_HST_EN) && (m->pci.config[0x04] & 1);
}

static uint8_t status_read(struct i801_model *m)
{
    uint8_t v = m->sts;

    if (m->sts & I801_STS_HOST_BUSY) {
        if (m->preempt_ns) {
            /* This read returns busy; the transaction completes while the
             * driver is off the CPU. */
            plat_sim_advance_ns(m->preempt_ns);
            m->preempt_ns = 0;
            m->busy_reads = 0;
            m->sts = (uint8_t)((m->sts & ~I801_STS_HOST_BUSY) | m->result);
        } else if (m->stuck) {
            plat_sim_advance_ns(1000000);
        } else if (m->busy_reads && --m->busy_reads == 0) {
            m->sts = (uint8_t)((m->sts & ~I801_STS_HOST_BUSY) | m->result);
        }
    }
    /* INUSE_STS: a read that finds it free returns 0 and takes it. */
    if (m->inuse == OTHER) {
        v |= I801_STS_INUSE;
        if (m->other_reads != ~0u && m->other_reads-- == 0)
            m->inuse = FREE;
    } else if (m->inuse == DRIVER) {
        v |= I801_STS_INUSE;
    } else {
        m->inuse = DRIVER;
    }
    return v;
}

/* HST_CNT with START: run the transaction on the bus. */
static void start(struct i801_model *m, uint8_t cnt)
{
    uint8_t proto = cnt & I801_CNT_CMD_MASK, addr = m->add >> 1, d[2] = { m->dat0, m->dat1 };
    bool read = m->add & 1;
    enum bus_proto p = BUS_OTHER;

    m->starts++;
    if (m->sts & I801_STS_HOST_BUSY) {
        m->start_while_busy++;
        return;
    }
    if (m->sts & I801_STS_FLAGS) {
        m->start_with_stale_status++;
        return;
    }
    if (m->inuse != DRIVER) {
        m->start_without_inuse++;
        return;
    }
    if (proto == I801_BYTE)
        p = read ? BUS_RECV_BYTE : BUS_SEND_BYTE;
    else if (proto == I801_BYTE_DATA)
        p = read ? BUS_READ_BYTE : BUS_WRITE_BYTE;
    else if (proto == I801_WORD_DATA)
        p = read ? BUS_READ_WORD : BUS_WRITE_WORD;
    m->sts |= I801_STS_HOST_BUSY;
    m->busy_reads = 2;
    if (!read && addr >= 0x50 && addr <= 0x57 && (m->pci.config[I801_PCI_HOSTC] & I801_HOSTC_SPD_WD)) {
        m->spd_wd_blocked++;
        m->result = I801_STS_DEV_ERR;
        return;
    }
    switch (spd_bus_xact(&m->bus, addr, p, m->cmd, d)) {
    case SPD_BUS_ACK: m->result = I801_STS_INTR; break;
    case SPD_BUS_NACK: m->result = I801_STS_DEV_ERR; break;
    default: m->result = I801_STS_BUS_ERR; break;
    }
    if (read) {
        m->dat0 = d[0];
        m->dat1 = d[1];
    }
}

static uint8_t io_inb(void *ctx, uint16_t off)
{
    struct i801_model *m = ctx;
    if (!decodes(m))
        return 0xff;
    switch (off) {
    case I801_HST_STS: return status_read(m);
    case I801_HST_CNT: return m->cnt;
    case I801_HST_CMD: return m->cmd;
    case I801_HST_ADD: return m->add;
    case I801_HST_DAT0: return m->dat0;
    case I801_HST_DAT1: return m->dat1;
    case I801_AUX_CTL: return m->auxctl;
    default: return 0;
    }
}

static void io_outb(void *ctx, uint16_t off, uint8_t v)
{
    struct i801_model *m = ctx;
    if (!decodes(m))
        return;
    switch (off) {
    case I801_HST_STS:
        m->sts &= (uint8_t)~(v & I801_STS_FLAGS);
        if ((v & I801_STS_INUSE) && m->inuse == DRIVER)
            m->inuse = FREE;
        break;
    case I801_HST_CNT:
        if (v & I801_CNT_KILL) {
            m->kills++;
            m->stuck = false;
            m->sts = (uint8_t)((m->sts & ~I801_STS_HOST_BUSY) | I801_STS_FAILED);
        }
        m->cnt = v & (uint8_t)~I801_CNT_START;
        if (v & I801_CNT_START)
            start(m, v);
        break;
    case I801_HST_CMD: m->cmd = v; break;
    case I801_HST_ADD: m->add = v; break;
    case I801_HST_DAT0: m->dat0 = v; break;
    case I801_HST_DAT1: m->dat1 = v; break;
    case I801_AUX_CTL: m->auxctl = v; break;
    default: break;
    }
}

/* An ICH9 SMBus function (8086:2930) the firmware enabled, HOSTC as given. */
static void attach(uint8_t hostc)
{
    memset(&M, 0, sizeof(M));
    M.pci.addr = BDF;
    M.pci.config[0] = 0x86, M.pci.config[1] = 0x80, M.pci.config[2] = 0x30, M.pci.config[3] = 0x29;
    M.pci.config[0x04] = 0x01;                           /* I/O space on */
    M.pci.config[0x0a] = 0x05, M.pci.config[0x0b] = 0x0c; /* serial bus, SMBus */
    M.pci.config[0x20] = (uint8_t)(IO_BASE | 1), M.pci.config[0x21] = IO_BASE >> 8;
    M.pci.config[I801_PCI_HOSTC] = hostc;
    M.pci.ctx = &M;
    plat_sim_attach(&M.pci);
    attach_ports(&M.io, IO_BASE, I801_IO_SIZE, &M, io_inb, io_outb);
}

static int teardown(void **state)
{
    (void)state;
    plat_sim_io_detach(&M.io);
    plat_sim_detach(&M.pci);
    return 0;
}

static struct pci_list L;
static struct smbus B;
static char note[200];

static int open_bus(unsigned flags)
{
    return open_one_function(&L, BDF, 0x8086, 0x2930, flags, &B, note, sizeof(note));
}

/* Nothing the bus or the chip forbids happened. */
static void assert_clean(void)
{
    assert_int_equal(M.start_while_busy, 0);
    assert_int_equal(M.start_with_stale_status, 0);
    assert_int_equal(M.start_without_inuse, 0);
    assert_int_equal(M.spd_wd_blocked, 0);
    assert_int_equal(M.bus.eeprom_writes, 0);
    assert_int_equal(M.bus.legacy_protect_writes, 0);
    assert_int_equal(M.bus.out_of_range, 0);
    assert_int_equal(M.inuse, FREE);   /* released on every path */
}

static struct spd_raw raw[SPD_SLOTS];

/* An enabled host with one DDR3 EEPROM at 0x50, opened. */
static void one_eeprom_bus(void)
{
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill(&M.bus, 0, DEV_EEPROM, 0x0b, 256);
    assert_int_equal(open_bus(0), BM_OK);
}

static void test_ddr4_both_pages_read_and_page_left_as_found(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 4 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 0);
    spd_bus_fill_ddr4(&M.bus, 2);
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 2);
    smbus_close(&B);
    assert_true(raw[0].present && raw[2].present && !raw[1].present);
    assert_int_equal(raw[0].len, 512);
    assert_memory_equal(raw[0].data, M.bus.mem[0], 512);
    assert_memory_equal(raw[2].data, M.bus.mem[2], 512);
    assert_int_equal(M.bus.ee1004_page, 0);
    assert_clean();
}

static void test_ddr4_on_page_1_read_from_page_0_and_put_back(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 2 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 0);
    M.bus.ee1004_page = 1;
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_memory_equal(raw[0].data, M.bus.mem[0], 512);
    assert_int_equal(M.bus.ee1004_page, 1);
    assert_clean();
}

static void test_ddr3_bus_gets_no_page_select(void **state)
{
    struct spd_bus_hint hint = { 0 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill(&M.bus, 1, DEV_EEPROM, 0x0b, 256);
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[1].len, 256);
    assert_memory_equal(raw[1].data, M.bus.mem[1], 256);
    assert_int_equal(M.bus.page_selects, 0);
    assert_clean();
}

static void test_only_spd_addresses_and_page_selects_go_on_the_bus(void **state)
{
    uint8_t v;
    (void)state;
    one_eeprom_bus();
    assert_int_equal(smbus_read_byte(&B, 0x48, 0, &v), BM_EPERM);      /* a thermal sensor */
    assert_int_equal(smbus_read_byte(&B, 0x58, 0, &v), BM_EPERM);
    assert_int_equal(smbus_spd_page_select(&B, 0x50, 0x10, 0x00), BM_EPERM); /* an EEPROM write */
    assert_int_equal(smbus_spd_page_select(&B, 0x36, 0x00, 0x01), BM_EPERM); /* SPA with data */
    assert_int_equal(smbus_spd_page_select(&B, 0x50, 0x0b, 8), BM_EPERM);   /* MR11 beyond page 7 */
    smbus_close(&B);
    assert_int_equal(M.bus.transactions, 0);
    assert_int_equal(M.starts, 0);
    assert_clean();
}

static void test_inuse_held_by_another_owner_is_waited_for(void **state)
{
    uint8_t v;
    (void)state;
    one_eeprom_bus();
    M.inuse = OTHER;
    M.other_reads = 5;
    assert_int_equal(smbus_read_byte(&B, 0x50, 2, &v), BM_OK);
    assert_int_equal(v, 0x0b);
    smbus_close(&B);
    assert_clean();
}

static void test_inuse_never_released_gives_up_without_starting(void **state)
{
    uint8_t v;
    (void)state;
    one_eeprom_bus();
    M.inuse = OTHER;
    M.other_reads = ~0u;
    assert_int_equal(smbus_read_byte(&B, 0x50, 2, &v), BM_EBUSY);
    assert_int_equal(M.starts, 0);
    assert_int_equal(M.inuse, OTHER);   /* the other owner's semaphore is not released by us */
    smbus_close(&B);
}

static void test_stale_status_cleared_before_start(void **state)
{
    uint8_t v;
    (void)state;
    one_eeprom_bus();
    M.sts = I801_STS_INTR | I801_STS_DEV_ERR;   /* left by the firmware */
    assert_int_equal(smbus_read_byte(&B, 0x50, 2, &v), BM_OK);
    smbus_close(&B);
    assert_clean();
}

static void test_busy_host_not_started(void **state)
{
    uint8_t v;
    (void)state;
    one_eeprom_bus();
    M.sts = I801_STS_HOST_BUSY;   /* another master's transaction */
    M.stuck = true;
    assert_int_equal(smbus_read_byte(&B, 0x50, 2, &v), BM_EBUSY);
    assert_int_equal(M.starts, 0);
    M.stuck = false;
    M.sts = 0;
    smbus_close(&B);
    assert_clean();
}

static void test_hung_transaction_killed_and_semaphore_released(void **state)
{
    uint8_t v;
    (void)state;
    one_eeprom_bus();
    M.stuck = true;   /* completes never: the device holds the clock */
    M.sts = 0;
    {
        int rc;
        /* The model keeps HOST_BUSY until KILL. */
        rc = smbus_read_byte(&B, 0x50, 2, &v);
        assert_int_equal(rc, BM_ETIMEDOUT);
    }
    assert_int_equal(M.kills, 1);
    smbus_close(&B);
    assert_clean();
}

/* A poller preempted past its deadline while the transaction completed
 * reads the status once more before giving up (Linux read_poll_timeout()). */
static void test_preempted_poller_sees_the_completed_transaction(void **state)
{
    uint8_t v;
    (void)state;
    one_eeprom_bus();
    M.preempt_ns = 300000000ull;   /* 300 ms, past the 200 ms transaction deadline */
    assert_int_equal(smbus_read_byte(&B, 0x50, 2, &v), BM_OK);
    assert_int_equal(v, 0x0b);
    assert_int_equal(M.kills, 0);
    smbus_close(&B);
    assert_clean();
}

static void test_disabled_host_reported_and_left_alone(void **state)
{
    (void)state;
    attach(0);
    assert_int_equal(open_bus(0), BM_EPERM);
    assert_non_null(strstr(note, "disabled by the firmware"));
    assert_int_equal(M.pci.config[I801_PCI_HOSTC], 0);
    assert_int_equal(M.starts, 0);
}

static void test_force_enables_host_and_close_restores_it(void **state)
{
    struct spd_bus_hint hint = { 0 };
    (void)state;
    attach(I801_HOSTC_I2C_EN);
    M.pci.config[0x04] = 0;
    spd_bus_fill(&M.bus, 0, DEV_EEPROM, 0x0b, 256);
    assert_int_equal(open_bus(SMBUS_OPEN_ENABLE_HOST), BM_OK);
    assert_int_equal(M.pci.config[I801_PCI_HOSTC], I801_HOSTC_HST_EN);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(M.pci.config[I801_PCI_HOSTC], I801_HOSTC_I2C_EN);
    assert_int_equal(M.pci.config[0x04], 0);
}

static void test_ddr5_hub_paged_through_mr11_and_page_put_back(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr5 = true };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill(&M.bus, 3, DEV_HUB, 0x12, 1024);
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_true(raw[3].hub);
    assert_int_equal(raw[3].len, 1024);
    assert_memory_equal(raw[3].data, M.bus.mem[3], 1024);
    assert_int_equal(M.bus.mr11[3], 0);
    assert_clean();
}

static void test_ddr5_paging_stops_at_spd_write_disable_with_note(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr5 = true };
    (void)state;
    attach(I801_HOSTC_HST_EN | I801_HOSTC_SPD_WD);
    spd_bus_fill(&M.bus, 0, DEV_HUB, 0x12, 1024);
    assert_int_equal(open_bus(0), BM_OK);
    assert_true(B.spd_write_disabled);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[0].len, 128);   /* page 0 only: the key bytes and timings */
    assert_memory_equal(raw[0].data, M.bus.mem[0], 128);
    assert_non_null(strstr(raw[0].note, "SPD write disable"));
    assert_int_equal(M.bus.mr11_writes, 0);
    assert_clean();
}

static void test_ddr5_hub_not_paged_unless_smbios_says_ddr5(void **state)
{
    struct spd_bus_hint hint = { 0 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill(&M.bus, 0, DEV_HUB, 0x12, 1024);
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[0].len, 128);
    assert_int_equal(M.bus.mr11_writes, 0);
    assert_non_null(strstr(raw[0].note, "SMBIOS"));
    assert_clean();
}

static void test_ddr5_hub_refusing_paging_reported(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr5 = true };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill(&M.bus, 0, DEV_HUB, 0x12, 1024);
    M.bus.hub_refuses_paging = true;
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[0].len, 128);
    assert_non_null(strstr(raw[0].note, "refused by the hub"));
    assert_clean();
}

static void test_empty_eeproms_read_briefly(void **state)
{
    struct spd_bus_hint hint = { 0 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    for (int s = 0; s < 8; s++)
        M.bus.kind[s] = DEV_EEPROM;   /* QEMU's q35: eight zeroed EEPROMs */
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 8);
    smbus_close(&B);
    for (int s = 0; s < 8; s++)
        assert_int_equal(raw[s].len, 3);
    assert_true(M.bus.transactions < 40);
    assert_clean();
}

/* Every write on the bus was a page select: SPA0/SPA1 with command and
 * data 0, or MR11 of a hub with a page number. */
static void assert_only_page_selects_written(void)
{
    for (unsigned i = 0; i < M.bus.nwrites; i++) {
        uint8_t a = M.bus.writes[i].addr, c = M.bus.writes[i].cmd, d = M.bus.writes[i].data;
        bool spa = (a == 0x36 || a == 0x37) && c == 0 && d == 0;
        bool mr11 = a >= 0x50 && a <= 0x57 && M.bus.kind[a - 0x50] == DEV_HUB && c == 0x0b && d <= 7;
        assert_true(spa || mr11);
    }
}

static void test_34c02_at_0x56_with_smbios_ddr4_gets_no_write(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 8 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill(&M.bus, 6, DEV_34C02, 0x0b, 256);   /* a DDR3 module's 34C02 at 0x56 */
    M.bus.swp_read_nack = true;                      /* it does not answer at 0x36 either */
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(M.bus.nwrites, 0);
    assert_false(M.bus.swp_set[6]);
    assert_int_equal(raw[6].len, 256);
    assert_memory_equal(raw[6].data, M.bus.mem[6], 256);
    assert_clean();
}

static void test_34c02_answering_its_protect_read_gets_no_write(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 8 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill(&M.bus, 6, DEV_34C02, 0x08, 256);   /* DDR2: it ACKs the read at 0x36 */
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(M.bus.nwrites, 0);
    assert_false(M.bus.swp_set[6]);
    assert_clean();
}

static void test_ddr4_beside_a_legacy_eeprom_gets_no_page_select(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 8 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 0);
    spd_bus_fill(&M.bus, 6, DEV_34C02, 0x0b, 256);
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 2);
    smbus_close(&B);
    assert_int_equal(M.bus.nwrites, 0);
    assert_int_equal(raw[0].len, 256);                /* page 0 only */
    assert_memory_equal(raw[0].data, M.bus.mem[0], 256);
    assert_non_null(strstr(raw[0].note, "pre-DDR4"));
    assert_false(M.bus.swp_set[6]);
    assert_clean();
}

/* Found by fuzz_spdbus: a blank 34C02 (no legacy key byte) beside a DDR4
 * module got the page selects. */
static void test_ddr4_beside_a_blank_34c02_gets_no_page_select(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 8 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 0);
    M.bus.kind[6] = DEV_34C02;                        /* erased to zero */
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 2);
    smbus_close(&B);
    assert_int_equal(M.bus.nwrites, 0);
    assert_false(M.bus.swp_set[6]);
    assert_int_equal(raw[0].len, 256);
    assert_clean();
}

static void test_page_select_refused_with_more_than_8_smbios_slots(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 16 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 0);
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(M.bus.nwrites, 0);
    assert_int_equal(raw[0].len, 256);
    assert_non_null(strstr(raw[0].note, "16 memory slots"));
    assert_clean();
}

static void test_silent_0x36_and_no_ddr4_page1_signature_gets_no_write(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 4 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    M.bus.kind[1] = DEV_EEPROM;                       /* erased: 0xff throughout */
    memset(M.bus.mem[1], 0xff, 256);
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(M.bus.nwrites, 0);
    assert_clean();
}

static void test_ee1004_select_nacked_but_switched_is_not_a_failure(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 2 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 1);
    M.bus.ee1004_select_nack = true;
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[1].len, 512);
    assert_memory_equal(raw[1].data, M.bus.mem[1], 512);
    assert_int_equal(M.bus.ee1004_page, 0);
    assert_only_page_selects_written();
}

static void test_ee1004_select_nacked_from_page_1_restored_to_page_1(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 2 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 1);
    M.bus.ee1004_select_nack = true;
    M.bus.ee1004_page = 1;
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[1].len, 512);
    assert_memory_equal(raw[1].data, M.bus.mem[1], 512);
    assert_int_equal(M.bus.ee1004_page, 1);
    assert_only_page_selects_written();
}

static void test_transient_busy_on_page_query_is_not_page_1(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 2 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 0);
    M.bus.spa0_collisions = 1;                       /* the first page query loses arbitration */
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[0].len, 512);
    assert_memory_equal(raw[0].data, M.bus.mem[0], 512);
    assert_int_equal(M.bus.ee1004_page, 0);          /* as found, not "put back" to page 1 */
    assert_only_page_selects_written();
}

static void test_page_query_never_answering_means_no_write(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 2 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill_ddr4(&M.bus, 0);
    M.bus.spa0_collisions = 100;
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(M.bus.nwrites, 0);
    assert_int_equal(raw[0].len, 256);
    assert_non_null(strstr(raw[0].note, "page query"));
}

static void test_ddr5_hub_starting_on_page_3_read_in_order_and_put_back(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr5 = true, .smbios_slots = 2 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    spd_bus_fill(&M.bus, 1, DEV_HUB, 0x12, 1024);
    M.bus.mr11[1] = 3;
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[1].len, 1024);
    assert_memory_equal(raw[1].data, M.bus.mem[1], 1024);
    assert_int_equal(M.bus.mr11[1], 3);
    assert_only_page_selects_written();
    assert_clean();
}

/* MR0/MR1 alone are not proof: an EEPROM whose first bytes read 0x51 0x18
 * but whose bytes 3-4 are no JEP-106 id (Linux spd5118_detect()) must not
 * get the MR11 write, which would land on its byte 11. */
static void test_eeprom_reading_0x51_0x18_without_vendor_id_not_paged(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr5 = true, .smbios_slots = 2 };
    (void)state;
    attach(I801_HOSTC_HST_EN);
    M.bus.kind[2] = DEV_EEPROM;
    M.bus.mem[2][0] = 0x51, M.bus.mem[2][1] = 0x18;
    M.bus.mem[2][3] = 0x00, M.bus.mem[2][4] = 0x00;
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_false(raw[2].hub);
    assert_int_equal(M.bus.nwrites, 0);
    assert_clean();
}

static void test_ddr5_hub_on_page_3_without_paging_reads_nothing_wrong(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr5 = true, .smbios_slots = 2 };
    (void)state;
    attach(I801_HOSTC_HST_EN | I801_HOSTC_SPD_WD);
    spd_bus_fill(&M.bus, 1, DEV_HUB, 0x12, 1024);
    M.bus.mr11[1] = 3;
    assert_int_equal(open_bus(0), BM_OK);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[1].len, 0);                 /* page 3 is not the image's start */
    assert_non_null(strstr(raw[1].note, "on NVM page 3"));
    assert_int_equal(M.bus.nwrites, 0);
    assert_clean();
}

/* The i801-compatible functions Linux i2c-i801.c lists that were missing. */
static void test_i801_ids_linux_has_are_matched(void **state)
{
    static const uint16_t ids[] = { 0x7722 /* Arrow Lake-H */, 0xe322 /* Panther Lake-H */,
                                    0xe422 /* Panther Lake-P */, 0x4d22 /* Wildcat Lake-U */ };
    (void)state;
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        assert_true(i801_match(0x8086, ids[i]));
    assert_false(i801_match(0x8086, 0x1234));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_ddr4_both_pages_read_and_page_left_as_found, teardown),
        cmocka_unit_test_teardown(test_ddr4_on_page_1_read_from_page_0_and_put_back, teardown),
        cmocka_unit_test_teardown(test_ddr3_bus_gets_no_page_select, teardown),
        cmocka_unit_test_teardown(test_only_spd_addresses_and_page_selects_go_on_the_bus, teardown),
        cmocka_unit_test_teardown(test_inuse_held_by_another_owner_is_waited_for, teardown),
        cmocka_unit_test_teardown(test_inuse_never_released_gives_up_without_starting, teardown),
        cmocka_unit_test_teardown(test_stale_status_cleared_before_start, teardown),
        cmocka_unit_test_teardown(test_busy_host_not_started, teardown),
        cmocka_unit_test_teardown(test_hung_transaction_killed_and_semaphore_released, teardown),
        cmocka_unit_test_teardown(test_preempted_poller_sees_the_completed_transaction, teardown),
        cmocka_unit_test_teardown(test_disabled_host_reported_and_left_alone, teardown),
        cmocka_unit_test_teardown(test_force_enables_host_and_close_restores_it, teardown),
        cmocka_unit_test_teardown(test_ddr5_hub_paged_through_mr11_and_page_put_back, teardown),
        cmocka_unit_test_teardown(test_ddr5_paging_stops_at_spd_write_disable_with_note, teardown),
        cmocka_unit_test_teardown(test_ddr5_hub_not_paged_unless_smbios_says_ddr5, teardown),
        cmocka_unit_test_teardown(test_ddr5_hub_refusing_paging_reported, teardown),
        cmocka_unit_test_teardown(test_empty_eeproms_read_briefly, teardown),
        cmocka_unit_test(test_i801_ids_linux_has_are_matched),
        cmocka_unit_test_teardown(test_34c02_at_0x56_with_smbios_ddr4_gets_no_write, teardown),
        cmocka_unit_test_teardown(test_34c02_answering_its_protect_read_gets_no_write, teardown),
        cmocka_unit_test_teardown(test_ddr4_beside_a_legacy_eeprom_gets_no_page_select, teardown),
        cmocka_unit_test_teardown(test_ddr4_beside_a_blank_34c02_gets_no_page_select, teardown),
        cmocka_unit_test_teardown(test_page_select_refused_with_more_than_8_smbios_slots, teardown),
        cmocka_unit_test_teardown(test_silent_0x36_and_no_ddr4_page1_signature_gets_no_write, teardown),
        cmocka_unit_test_teardown(test_ee1004_select_nacked_but_switched_is_not_a_failure, teardown),
        cmocka_unit_test_teardown(test_ee1004_select_nacked_from_page_1_restored_to_page_1, teardown),
        cmocka_unit_test_teardown(test_transient_busy_on_page_query_is_not_page_1, teardown),
        cmocka_unit_test_teardown(test_page_query_never_answering_means_no_write, teardown),
        cmocka_unit_test_teardown(test_ddr5_hub_starting_on_page_3_read_in_order_and_put_back, teardown),
        cmocka_unit_test_teardown(test_ddr5_hub_on_page_3_without_paging_reads_nothing_wrong, teardown),
        cmocka_unit_test_teardown(test_eeprom_reading_0x51_0x18_without_vendor_id_not_paged, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
