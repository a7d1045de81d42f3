/* The PL011 driver against a model of an Arm PL011 (ARM DDI 0183G) and of
 * the SBSA Generic UART (SBSA appendix B). The model decodes only aligned
 * 32-bit accesses, as the UART's APB/AXI interface in an SBSA system does;
 * it transmits only while UARTEN and TXE are set, and keeps a 16-byte
 * transmit FIFO that drains one byte per flag register poll, so a driver
 * that ignores TXFF overruns it and one that never enables the
 * transmitter sends nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/pl011.h"
#include "drivers/pl011_regs.h"
#include "platform_sim.h"

#define FIFO_DEPTH 16

struct pl011_model {
    bool sbsa;                  /* SBSA Generic UART: DR and FR only, no IDs */
    bool absent;                /* nothing decodes: floating bus */
    bool stuck;                 /* the FIFO never drains (flow control held) */
    bool bad_id;                /* something else answers at the address */
    uint32_t cr, lcr_h, ibrd, fbrd;
    unsigned fifo;              /* bytes waiting in the transmit FIFO */
    char tx[256];               /* bytes queued, in order */
    unsigned tx_len, sent;      /* queued; gone out on the line */
    unsigned overruns;          /* DR written with the FIFO full */
    unsigned narrow;            /* byte accesses (not decoded) */
    unsigned misaligned;
    unsigned line_writes;       /* IBRD/FBRD/LCR_H written: the firmware's settings touched */
    unsigned sbsa_cr_writes;    /* writes to a control register the SBSA UART does not have */
};

static struct pl011_model model;

static bool transmitting(const struct pl011_model *m)
{
    return m->sbsa || (m->cr & (PL011_CR_UARTEN | PL011_CR_TXE)) == (PL011_CR_UARTEN | PL011_CR_TXE);
}

static uint32_t model_read32(void *ctx, int bar, uint32_t off)
{
    struct pl011_model *m = ctx;
    static const uint8_t cell[4] = { 0x0d, 0xf0, 0x05, 0xb1 };
    (void)bar;
    if (m->absent)
        return 0xffffffffu;
    if (off % 4) {
        m->misaligned++;
        return 0;
    }
    switch (off) {
    case PL011_FR:
        if (m->stuck) {
            plat_sim_advance_ns(1000000);   /* 1 ms per poll: deadlines pass in test time */
            return PL011_FR_TXFF | PL011_FR_BUSY;
        }
        if (m->fifo && transmitting(m)) {   /* one byte leaves per poll */
            m->fifo--;
            m->sent++;
        }
        return (m->fifo >= FIFO_DEPTH ? PL011_FR_TXFF : 0) | (m->fifo ? PL011_FR_BUSY : PL011_FR_TXFE) |
               PL011_FR_RXFE;
    case PL011_CR: return m->sbsa ? 0 : m->cr;
    case PL011_LCR_H: return m->sbsa ? 0 : m->lcr_h;
    case PL011_IBRD: return m->sbsa ? 0 : m->ibrd;
    case PL011_FBRD: return m->sbsa ? 0 : m->fbrd;
    default:
        if (!m->sbsa && off >= PL011_CELLID0 && off <= PL011_CELLID0 + 12)
            return m->bad_id ? 0 : cell[(off - PL011_CELLID0) / 4];
        if (!m->sbsa && off == PL011_PERIPHID0)
            return 0x11;
        return 0;
    }
}

static void model_write32(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct pl011_model *m = ctx;
    (void)bar;
    if (m->absent)
        return;
    if (off % 4) {
        m->misaligned++;
        return;
    }
    switch (off) {
    case PL011_DR:
        if (m->fifo >= FIFO_DEPTH || m->stuck) {
            m->overruns++;
            return;
        }
        m->fifo++;
        if (m->tx_len < sizeof(m->tx))
            m->tx[m->tx_len++] = (char)v;
        return;
    case PL011_CR:
        if (m->sbsa)
            m->sbsa_cr_writes++;
        else
            m->cr = v;
        return;
    case PL011_LCR_H:
    case PL011_IBRD:
    case PL011_FBRD:
        m->line_writes++;
        return;
    default:
        return;
    }
}

static uint8_t model_read8(void *ctx, int bar, uint32_t off)
{
    struct pl011_model *m = ctx;
    (void)bar, (void)off;
    m->narrow++;
    return 0xff;
}

static void model_write8(void *ctx, int bar, uint32_t off, uint8_t v)
{
    struct pl011_model *m = ctx;
    (void)bar, (void)off, (void)v;
    m->narrow++;
}

static struct plat_sim_dev dev;

/* A UART model in a simulated BAR; returns the description SPCR would give. */
static struct plat_uart attach(bool sbsa)
{
    struct plat_uart u = { PLAT_UART_MMIO, 0, 4, 0, sbsa ? PLAT_UART_SBSA : PLAT_UART_PL011 };
    uint64_t size;
    volatile void *window;

    memset(&dev, 0, sizeof(dev));
    memset(&model, 0, sizeof(model));
    model.sbsa = sbsa;
    model.cr = PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE; /* as the firmware left it */
    dev.addr = (struct pci_addr){ 0, 7, 0, 0 };
    dev.ctx = &model;
    dev.mmio_read32 = model_read32;
    dev.mmio_write32 = model_write32;
    dev.mmio_read8 = model_read8;
    dev.mmio_write8 = model_write8;
    dev.bar_size[0] = 0x1000;
    plat_sim_attach(&dev);
    window = plat_pci_map_bar(dev.addr, 0, &size);
    assert_non_null(window);
    u.base = (uint64_t)(uintptr_t)window;
    return u;
}

static int teardown(void **state)
{
    (void)state;
    plat_sim_detach(&dev);
    return 0;
}

/* More bytes than the FIFO holds: every one arrives, none overruns, and
 * the firmware's line settings are left alone. */
static void test_pl011_sends_a_record_without_overrun(void **state)
{
    static const char rec[] = "BAREMARK {\"type\":\"run\",\"arch\":\"aarch64\"}\r\n";
    struct plat_uart u = attach(false);
    (void)state;
    assert_int_equal(pl011_init(&u), BM_OK);
    pl011_write(&u, rec, sizeof(rec) - 1);
    assert_int_equal(model.tx_len, sizeof(rec) - 1);
    assert_memory_equal(model.tx, rec, sizeof(rec) - 1);
    assert_int_equal(model.overruns, 0);
    assert_int_equal(model.line_writes, 0);
    assert_int_equal(model.narrow, 0);
    assert_int_equal(model.misaligned, 0);
}

/* A transmitter the firmware left off is switched on (UARTEN, TXE), with
 * the other control bits kept; else nothing would leave the FIFO. */
static void test_pl011_disabled_transmitter_is_enabled(void **state)
{
    struct plat_uart u = attach(false);
    (void)state;
    model.cr = PL011_CR_RXE;
    assert_int_equal(pl011_init(&u), BM_OK);
    assert_int_equal(model.cr, PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE);
    pl011_write(&u, "0123456789abcdefXYZ", 19);
    assert_int_equal(model.tx_len, 19);
    assert_int_equal(model.overruns, 0);
    assert_true(model.sent >= 3);
}

/* The SBSA Generic UART has no control register: the driver writes none. */
static void test_sbsa_uart_uses_data_and_flags_only(void **state)
{
    struct plat_uart u = attach(true);
    (void)state;
    assert_int_equal(pl011_init(&u), BM_OK);
    pl011_write(&u, "0123456789abcdef0123456789abcdef", 32);
    assert_int_equal(model.tx_len, 32);
    assert_int_equal(model.overruns, 0);
    assert_int_equal(model.sbsa_cr_writes, 0);
    assert_int_equal(model.line_writes, 0);
}

/* Nothing there (all ones), or not a PrimeCell (no component ID): refused,
 * nothing written. */
static void test_absent_or_foreign_device_is_refused(void **state)
{
    struct plat_uart u = attach(false);
    (void)state;
    model.absent = true;
    assert_int_equal(pl011_init(&u), BM_ENODEV);
    model.absent = false;
    model.bad_id = true;
    model.cr = 0;
    assert_int_equal(pl011_init(&u), BM_ENODEV);
    assert_int_equal(model.cr, 0);
}

/* A FIFO that never drains costs a bounded wait, not a hang, and no byte
 * is pushed into a full FIFO. */
static void test_stuck_fifo_wait_is_bounded(void **state)
{
    struct plat_uart u = attach(false);
    uint64_t t0;
    (void)state;
    assert_int_equal(pl011_init(&u), BM_OK);
    model.stuck = true;
    t0 = plat_now_ns();
    pl011_write(&u, "lost record", 11);
    assert_int_equal(model.tx_len, 0);
    assert_int_equal(model.overruns, 0);
    assert_true(plat_now_ns() - t0 >= 10000000ull);
    assert_true(plat_now_ns() - t0 < 1000000000ull);
}

static void test_bad_descriptions_are_refused(void **state)
{
    struct plat_uart u = { PLAT_UART_IO, 0x3f8, 1, 0, PLAT_UART_PL011 };
    (void)state;
    assert_int_equal(pl011_init(&u), BM_EINVAL);          /* no I/O ports on Arm */
    u = (struct plat_uart){ PLAT_UART_MMIO, 0x9000000, 1, 0, PLAT_UART_PL011 };
    assert_int_equal(pl011_init(&u), BM_EINVAL);          /* byte registers */
    u = (struct plat_uart){ PLAT_UART_MMIO, 0x9000002, 4, 0, PLAT_UART_SBSA };
    assert_int_equal(pl011_init(&u), BM_EINVAL);          /* misaligned */
    u = (struct plat_uart){ PLAT_UART_MMIO, 0, 4, 0, PLAT_UART_PL011 };
    assert_int_equal(pl011_init(&u), BM_EINVAL);          /* no address */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_pl011_sends_a_record_without_overrun, teardown),
        cmocka_unit_test_teardown(test_pl011_disabled_transmitter_is_enabled, teardown),
        cmocka_unit_test_teardown(test_sbsa_uart_uses_data_and_flags_only, teardown),
        cmocka_unit_test_teardown(test_absent_or_foreign_device_is_refused, teardown),
        cmocka_unit_test_teardown(test_stuck_fifo_wait_is_bounded, teardown),
        cmocka_unit_test(test_bad_descriptions_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
