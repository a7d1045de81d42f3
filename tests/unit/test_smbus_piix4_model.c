/* The PIIX4 / SB800 / FCH SMBus host driver against models of the two
 * register interfaces Linux i2c-piix4.c drives: the PIIX4 function (base
 * in config 0x90, enable in 0xd2; QEMU -machine pc) and an AMD FCH
 * (1022:790b rev 0x59) whose base and port select sit behind the PM
 * index/data ports 0xcd6/0xcd7 and whose bus is shared with the IMC/BMC
 * through the SMBSLVCNT host semaphore. The models refuse a START while
 * HOST_BUSY or with status left set, and (FCH) any transaction without
 * the semaphore or on a port other than 0, where the DIMMs are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/smbus/piix4_regs.h"
#include "drivers/smbus/smbus.h"
#include "efi/inventory/spd_read.h"
#include "platform_sim.h"
#include "smbus_bus_model.h"

#define IO_BASE 0xb100
#define BDF ((struct pci_addr){ 0, 0, 0x14, 0 })

struct piix4_model {
    struct plat_sim_dev pci;
    struct plat_sim_io io, pm;
    struct spd_bus bus;
    bool fch;
    uint8_t sts, cnt, cmd, add, dat0, dat1;
    unsigned busy_reads;
    uint8_t result;
    /* FCH: PM registers and the host semaphore. */
    uint8_t pm_index, pm_regs[256];
    bool host_sem;              /* SMBSLVCNT bit 4: the host owns the bus */
    unsigned imc_holds;         /* requests the IMC still refuses (~0u: forever) */
    /* What the driver must never do. */
    unsigned start_while_busy, start_with_stale_status, start_without_semaphore, start_on_other_port;
    unsigned starts;
};

static struct piix4_model M;

static void start(struct piix4_model *m)
{
    uint8_t proto = m->cnt & 0x1c, addr = m->add >> 1, d[2] = { m->dat0, m->dat1 };
    bool read = m->add & 1;
    enum bus_proto p = BUS_OTHER;

    m->starts++;
    if (m->sts & PIIX4_STS_HOST_BUSY) {
        m->start_while_busy++;
        return;
    }
    if (m->sts & PIIX4_STS_ALL) {
        m->start_with_stale_status++;
        return;
    }
    if (m->fch && !m->host_sem) {
        m->start_without_semaphore++;
        return;
    }
    if (m->fch && (m->pm_regs[KERNCZ_PM_PORT_SEL] & KERNCZ_PM_PORT_MASK)) {
        m->start_on_other_port++;
        return;
    }
    if (proto == PIIX4_BYTE)
        p = read ? BUS_RECV_BYTE : BUS_SEND_BYTE;
    else if (proto == PIIX4_BYTE_DATA)
        p = read ? BUS_READ_BYTE : BUS_WRITE_BYTE;
    else if (proto == PIIX4_WORD_DATA)
        p = read ? BUS_READ_WORD : BUS_WRITE_WORD;
    m->sts |= PIIX4_STS_HOST_BUSY;
    m->busy_reads = 2;
    m->result = spd_bus_xact(&m->bus, addr, p, m->cmd, d) == SPD_BUS_ACK ? PIIX4_STS_INTR : PIIX4_STS_DEV_ERR;
    if (read) {
        m->dat0 = d[0];
        m->dat1 = d[1];
    }
}

static uint8_t io_inb(void *ctx, uint16_t off)
{
    struct piix4_model *m = ctx;
    switch (off) {
    case PIIX4_HST_STS:
        if ((m->sts & PIIX4_STS_HOST_BUSY) && m->busy_reads && --m->busy_reads == 0)
            m->sts = (uint8_t)((m->sts & ~PIIX4_STS_HOST_BUSY) | m->result);
        return m->sts;
    case PIIX4_HST_CNT: return m->cnt;
    case PIIX4_HST_CMD: return m->cmd;
    case PIIX4_HST_ADD: return m->add;
    case PIIX4_HST_DAT0: return m->dat0;
    case PIIX4_HST_DAT1: return m->dat1;
    case PIIX4_SLV_CNT: return m->host_sem ? SB800_SLVCNT_HOST_SEM : 0;
    default: return 0;
    }
}

static void io_outb(void *ctx, uint16_t off, uint8_t v)
{
    struct piix4_model *m = ctx;
    switch (off) {
    case PIIX4_HST_STS: m->sts &= (uint8_t)~(v & PIIX4_STS_ALL); break;
    case PIIX4_HST_CNT:
        m->cnt = v & (uint8_t)~PIIX4_CNT_START;
        if (v & PIIX4_CNT_START)
            start(m);
        break;
    case PIIX4_HST_CMD: m->cmd = v; break;
    case PIIX4_HST_ADD: m->add = v; break;
    case PIIX4_HST_DAT0: m->dat0 = v; break;
    case PIIX4_HST_DAT1: m->dat1 = v; break;
    case PIIX4_SLV_CNT:
        if (v & SB800_SLVCNT_HOST_SEM_CLR) {
            m->host_sem = false;
        } else if (v & SB800_SLVCNT_HOST_SEM) {
            if (m->imc_holds == 0)
                m->host_sem = true;
            else if (m->imc_holds != ~0u)
                m->imc_holds--;
        }
        break;
    default: break;
    }
}

static uint8_t pm_inb(void *ctx, uint16_t off)
{
    struct piix4_model *m = ctx;
    return off == 0 ? m->pm_index : m->pm_regs[m->pm_index];
}

static void pm_outb(void *ctx, uint16_t off, uint8_t v)
{
    struct piix4_model *m = ctx;
    if (off == 0)
        m->pm_index = v;
    else
        m->pm_regs[m->pm_index] = v;
}

static void attach(bool fch)
{
    memset(&M, 0, sizeof(M));
    M.fch = fch;
    M.pci.addr = BDF;
    M.pci.ctx = &M;
    if (fch) {
        M.pci.config[0x08] = 0x59;    /* revision: FCH with DecodeEn at PM 0x00 */
        M.pm_regs[SB800_PM_DECODE_EN] = SB800_PM_DECODE_SMB_EN;
        M.pm_regs[SB800_PM_DECODE_EN + 1] = IO_BASE >> 8;
        M.pm_regs[KERNCZ_PM_PORT_SEL] = 0x08 | 0x01;   /* port 1 selected by the firmware, other bits set */
        attach_ports(&M.pm, SB800_PM_INDEX, 2, &M, pm_inb, pm_outb);
    } else {
        M.pci.config[PIIX4_PCI_SMBBA] = (uint8_t)(IO_BASE | 1);
        M.pci.config[PIIX4_PCI_SMBBA + 1] = IO_BASE >> 8;
        M.pci.config[PIIX4_PCI_HSTCFG] = PIIX4_HSTCFG_EN;
    }
    plat_sim_attach(&M.pci);
    attach_ports(&M.io, fch ? (IO_BASE & 0xff00) : IO_BASE, PIIX4_IO_SIZE, &M, io_inb, io_outb);
}

static int teardown(void **state)
{
    (void)state;
    plat_sim_io_detach(&M.io);
    plat_sim_io_detach(&M.pm);
    plat_sim_detach(&M.pci);
    return 0;
}

static struct pci_list L;
static struct smbus B;
static char note[200];
static struct spd_raw raw[SPD_SLOTS];

static int open_bus(uint16_t vendor, uint16_t device)
{
    return open_one_function(&L, BDF, vendor, device, 0, &B, note, sizeof(note));
}

static void assert_clean(void)
{
    assert_int_equal(M.start_while_busy, 0);
    assert_int_equal(M.start_with_stale_status, 0);
    assert_int_equal(M.start_without_semaphore, 0);
    assert_int_equal(M.start_on_other_port, 0);
    assert_int_equal(M.bus.eeprom_writes, 0);
    assert_int_equal(M.bus.legacy_protect_writes, 0);
    assert_int_equal(M.bus.out_of_range, 0);
}

static void test_piix4_reads_ddr2_eeproms(void **state)
{
    struct spd_bus_hint hint = { 0 };
    (void)state;
    attach(false);
    spd_bus_fill(&M.bus, 0, DEV_EEPROM, 0x08, 256);
    spd_bus_fill(&M.bus, 1, DEV_EEPROM, 0x08, 256);
    assert_int_equal(open_bus(0x8086, 0x7113), BM_OK);
    assert_string_equal(B.kind, "piix4");
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 2);
    smbus_close(&B);
    assert_int_equal(raw[1].len, 256);
    assert_memory_equal(raw[1].data, M.bus.mem[1], 128);
    assert_clean();
}

static void test_piix4_stale_status_cleared_first(void **state)
{
    uint8_t v;
    (void)state;
    attach(false);
    spd_bus_fill(&M.bus, 0, DEV_EEPROM, 0x08, 256);
    assert_int_equal(open_bus(0x8086, 0x7113), BM_OK);
    M.sts = PIIX4_STS_INTR | PIIX4_STS_FAILED;
    assert_int_equal(smbus_read_byte(&B, 0x50, 2, &v), BM_OK);
    assert_int_equal(v, 0x08);
    smbus_close(&B);
    assert_clean();
}

static void test_piix4_disabled_host_reported(void **state)
{
    (void)state;
    attach(false);
    M.pci.config[PIIX4_PCI_HSTCFG] = 0;
    assert_int_equal(open_bus(0x8086, 0x7113), BM_EPERM);
    assert_non_null(strstr(note, "disabled by the firmware"));
}

static void test_fch_takes_semaphore_selects_port_0_and_puts_both_back(void **state)
{
    struct spd_bus_hint hint = { .smbios_ddr4 = true, .smbios_slots = 4 };
    (void)state;
    attach(true);
    spd_bus_fill_ddr4(&M.bus, 0);
    M.imc_holds = 3;   /* the IMC lets go after a few requests */
    assert_int_equal(open_bus(0x1022, 0x790b), BM_OK);
    assert_string_equal(B.kind, "sb800");
    assert_int_equal(B.base, IO_BASE & 0xff00);
    assert_int_equal(spd_read_bus(&B, &hint, raw, note, sizeof(note)), 1);
    smbus_close(&B);
    assert_int_equal(raw[0].len, 512);
    assert_memory_equal(raw[0].data, M.bus.mem[0], 512);
    assert_false(M.host_sem);                                  /* released */
    assert_int_equal(M.pm_regs[KERNCZ_PM_PORT_SEL], 0x09);     /* port select as found */
    assert_clean();
}

static void test_fch_semaphore_never_granted_no_transaction(void **state)
{
    uint8_t v;
    (void)state;
    attach(true);
    spd_bus_fill(&M.bus, 0, DEV_EE1004, 0x0c, 512);
    M.imc_holds = ~0u;
    assert_int_equal(open_bus(0x1022, 0x790b), BM_OK);
    assert_int_equal(smbus_read_byte(&B, 0x50, 2, &v), BM_EBUSY);
    smbus_close(&B);
    assert_int_equal(M.starts, 0);
    assert_int_equal(M.pm_regs[KERNCZ_PM_PORT_SEL], 0x09);
}

static void test_fch_smbus_disabled_reported(void **state)
{
    (void)state;
    attach(true);
    M.pm_regs[SB800_PM_DECODE_EN] = 0;
    assert_int_equal(open_bus(0x1022, 0x790b), BM_EPERM);
    assert_non_null(strstr(note, "SMB_EN"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_piix4_reads_ddr2_eeproms, teardown),
        cmocka_unit_test_teardown(test_piix4_stale_status_cleared_first, teardown),
        cmocka_unit_test_teardown(test_piix4_disabled_host_reported, teardown),
        cmocka_unit_test_teardown(test_fch_takes_semaphore_selects_port_0_and_puts_both_back, teardown),
        cmocka_unit_test_teardown(test_fch_semaphore_never_granted_no_transaction, teardown),
        cmocka_unit_test_teardown(test_fch_smbus_disabled_reported, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
