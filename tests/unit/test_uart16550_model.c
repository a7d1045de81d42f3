/* The 16550 driver against a model of a memory-mapped 16550 (PC16550D data
 * sheet register set): byte registers one byte apart, or 32-bit registers
 * four bytes apart (a DesignWare-style UART on a dword bus, SPCR access
 * size DWord, Linux UPIO_MEM32). The model decodes only its own access
 * width and stride, as those buses do: a driver that uses the wrong one
 * reaches no register. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/uart16550.h"
#include "drivers/uart16550_regs.h"
#include "platform_sim.h"

struct uart_model {
    unsigned reg_bytes;                 /* 1 or 4 */
    uint8_t ier, lcr, mcr, fcr, scr, dll, dlm;
    bool stuck;                         /* THRE never sets (a jammed transmitter) */
    bool absent;                        /* nothing decodes: floating bus */
    unsigned busy_reads;                /* LSR reads left before THRE sets again */
    char tx[256];
    unsigned tx_len;
    unsigned overruns;                  /* THR written while THRE was clear */
    unsigned dlab_writes;               /* divisor latch writes */
    unsigned misaligned;                /* accesses off the register stride */
};

static uint8_t reg_read(struct uart_model *m, unsigned reg)
{
    if (m->absent)
        return 0xff;
    switch (reg) {
    case UART_IER: return m->lcr & UART_LCR_DLAB ? m->dlm : m->ier;
    case UART_LCR: return m->lcr;
    case UART_MCR: return m->mcr;
    case UART_LSR:
        if (m->stuck) {
            plat_sim_advance_ns(1000000);   /* 1 ms per poll: deadlines pass in test time */
            return 0;
        }
        if (m->busy_reads) {
            m->busy_reads--;
            return 0;
        }
        return UART_LSR_THRE | 0x40;
    case UART_SCR: return m->scr;
    case 0: return m->lcr & UART_LCR_DLAB ? m->dll : 0;
    default: return 0;
    }
}

static void reg_write(struct uart_model *m, unsigned reg, uint8_t v)
{
    if (m->absent)
        return;
    switch (reg) {
    case 0:
        if (m->lcr & UART_LCR_DLAB) {
            m->dll = v;
            m->dlab_writes++;
        } else {
            if (m->busy_reads || m->stuck)
                m->overruns++;
            if (m->tx_len < sizeof(m->tx) - 1)
                m->tx[m->tx_len++] = (char)v;
            m->busy_reads = 2;
        }
        break;
    case UART_IER:
        if (m->lcr & UART_LCR_DLAB) {
            m->dlm = v;
            m->dlab_writes++;
        } else {
            m->ier = v;
        }
        break;
    case UART_FCR: m->fcr = v; break;
    case UART_LCR: m->lcr = v; break;
    case UART_MCR: m->mcr = v; break;
    case UART_SCR: m->scr = v; break;
    default: break;
    }
}

static uint32_t model_read32(void *ctx, int bar, uint32_t off)
{
    struct uart_model *m = ctx;
    (void)bar;
    if (m->reg_bytes != 4)
        return 0xffffffffu;             /* a byte-bus UART does not decode dword cycles */
    if (off % 4) {
        m->misaligned++;
        return 0xffffffffu;
    }
    return reg_read(m, off / 4);
}

static void model_write32(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct uart_model *m = ctx;
    (void)bar;
    if (m->reg_bytes != 4)
        return;
    if (off % 4) {
        m->misaligned++;
        return;
    }
    reg_write(m, off / 4, (uint8_t)v);
}

static uint8_t model_read8(void *ctx, int bar, uint32_t off)
{
    struct uart_model *m = ctx;
    (void)bar;
    if (m->reg_bytes != 1)
        return 0xff;                    /* a dword-bus UART ignores byte cycles */
    return reg_read(m, off);
}

static void model_write8(void *ctx, int bar, uint32_t off, uint8_t v)
{
    struct uart_model *m = ctx;
    (void)bar;
    if (m->reg_bytes != 1)
        return;
    reg_write(m, off, v);
}

static struct plat_sim_dev dev;
static struct uart_model model;
static volatile void *window;

/* A memory-mapped 16550 with reg_bytes-wide registers; returns its base. */
static uint64_t attach(unsigned reg_bytes)
{
    uint64_t size;
    memset(&dev, 0, sizeof(dev));
    memset(&model, 0, sizeof(model));
    model.reg_bytes = reg_bytes;
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
    return (uint64_t)(uintptr_t)window;
}

static int teardown(void **state)
{
    (void)state;
    plat_sim_detach(&dev);
    return 0;
}

static void test_mmio32_uart_programs_divisor_and_sends(void **state)
{
    struct plat_uart u = { PLAT_UART_MMIO, 0, 4, 115200 };
    (void)state;
    u.base = attach(4);
    assert_int_equal(uart_init(&u), BM_OK);
    assert_int_equal(model.dll, 1);
    assert_int_equal(model.dlm, 0);
    assert_int_equal(model.lcr, UART_LCR_8N1);
    assert_int_equal(model.ier, 0);
    uart_write(&u, "BAREMARK {}\r\n", 13);
    assert_int_equal(model.tx_len, 13);
    assert_memory_equal(model.tx, "BAREMARK {}\r\n", 13);
    assert_int_equal(model.overruns, 0);
    assert_int_equal(model.misaligned, 0);
}

static void test_mmio8_uart_programs_divisor_and_sends(void **state)
{
    struct plat_uart u = { PLAT_UART_MMIO, 0, 1, 9600 };
    (void)state;
    u.base = attach(1);
    assert_int_equal(uart_init(&u), BM_OK);
    assert_int_equal(model.dll, 12);    /* 115200 / 9600 */
    assert_int_equal(model.lcr, UART_LCR_8N1);
    uart_write(&u, "ok", 2);
    assert_int_equal(model.tx_len, 2);
    assert_memory_equal(model.tx, "ok", 2);
    assert_int_equal(model.overruns, 0);
}

/* Byte accesses at stride 1 reach nothing on a dword-register UART: the
 * scratch test fails and the port is refused instead of written blindly. */
static void test_wrong_width_finds_no_uart(void **state)
{
    struct plat_uart u = { PLAT_UART_MMIO, 0, 1, 115200 };
    (void)state;
    u.base = attach(4);
    assert_int_equal(uart_init(&u), BM_ENODEV);
    assert_int_equal(model.dlab_writes, 0);
    teardown(NULL);
    u.base = attach(1);
    u.reg_bytes = 4;
    assert_int_equal(uart_init(&u), BM_ENODEV);
    assert_int_equal(model.dlab_writes, 0);
}

/* SPCR baud 0, "as is": the firmware's divisor and line settings stay. */
static void test_baud_as_is_keeps_the_firmware_rate(void **state)
{
    struct plat_uart u = { PLAT_UART_MMIO, 0, 4, 0 };
    (void)state;
    u.base = attach(4);
    model.dll = 26;                     /* what firmware set for its own UART clock */
    model.lcr = UART_LCR_8N1;
    model.fcr = 0xc7;
    model.mcr = 0x0b;
    model.ier = 0x01;
    assert_int_equal(uart_init(&u), BM_OK);
    assert_int_equal(model.dlab_writes, 0);
    assert_int_equal(model.dll, 26);
    assert_int_equal(model.lcr, UART_LCR_8N1);
    assert_int_equal(model.fcr, 0xc7);
    assert_int_equal(model.mcr, 0x0b);
    assert_int_equal(model.ier, 0);     /* polled: interrupts masked, as Linux does */
    uart_write(&u, "x", 1);
    assert_int_equal(model.tx_len, 1);
}

static void test_missing_uart_is_refused(void **state)
{
    struct plat_uart u = { PLAT_UART_MMIO, 0, 4, 115200 };
    (void)state;
    u.base = attach(4);
    model.absent = true;
    assert_int_equal(uart_init(&u), BM_ENODEV);
}

/* A transmitter that never empties costs a bounded wait per write, not a
 * hang, and nothing is pushed into a full holding register. */
static void test_stuck_transmitter_wait_is_bounded(void **state)
{
    struct plat_uart u = { PLAT_UART_MMIO, 0, 4, 115200 };
    uint64_t t0;
    (void)state;
    u.base = attach(4);
    assert_int_equal(uart_init(&u), BM_OK);
    model.stuck = true;
    t0 = plat_now_ns();
    uart_write(&u, "lost record", 11);
    assert_int_equal(model.tx_len, 0);
    assert_int_equal(model.overruns, 0);
    assert_true(plat_now_ns() - t0 >= 10000000ull);
    assert_true(plat_now_ns() - t0 < 1000000000ull);
}

static void test_bad_descriptions_are_refused(void **state)
{
    struct plat_uart u = { PLAT_UART_MMIO, 0x1000, 2, 115200 };
    (void)state;
    assert_int_equal(uart_init(&u), BM_EINVAL);          /* 16-bit registers */
    u = (struct plat_uart){ PLAT_UART_MMIO, 0, 4, 115200 };
    assert_int_equal(uart_init(&u), BM_EINVAL);          /* no address */
    u = (struct plat_uart){ PLAT_UART_IO, 0x2f8, 1, 100000 };
    assert_int_equal(uart_init(&u), BM_EINVAL);          /* not a divisor of 115200 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_mmio32_uart_programs_divisor_and_sends, teardown),
        cmocka_unit_test_teardown(test_mmio8_uart_programs_divisor_and_sends, teardown),
        cmocka_unit_test_teardown(test_wrong_width_finds_no_uart, teardown),
        cmocka_unit_test_teardown(test_baud_as_is_keeps_the_firmware_rate, teardown),
        cmocka_unit_test_teardown(test_missing_uart_is_refused, teardown),
        cmocka_unit_test_teardown(test_stuck_transmitter_wait_is_bounded, teardown),
        cmocka_unit_test(test_bad_descriptions_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
