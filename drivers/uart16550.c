/* Polled 16550 output, over port I/O or MMIO (8- or 32-bit registers). */
#include "uart16550.h"
#include "uart16550_regs.h"

/* Register reg of u. MMIO registers sit reg_bytes apart and are accessed
 * with that width: a 32-bit-register UART (SPCR access size DWord,
 * Linux UPIO_MEM32) ignores byte cycles, and only the low byte of each
 * dword is meaningful, as in Linux mem32_serial_in(). */
static uint8_t uart_in(const struct plat_uart *u, unsigned reg)
{
    volatile void *base = (volatile void *)(uintptr_t)u->base;

    if (u->space == PLAT_UART_IO)
        return plat_inb((uint16_t)(u->base + reg));
    if (u->reg_bytes == 4)
        return (uint8_t)mmio_read32(base, reg * 4);
    return mmio_read8(base, reg);
}

static void uart_out(const struct plat_uart *u, unsigned reg, uint8_t v)
{
    volatile void *base = (volatile void *)(uintptr_t)u->base;

    if (u->space == PLAT_UART_IO)
        plat_outb((uint16_t)(u->base + reg), v);
    else if (u->reg_bytes == 4)
        mmio_write32(base, reg * 4, v);
    else
        mmio_write8(base, reg, v);
}

static bool uart_valid(const struct plat_uart *u)
{
    if (u->space == PLAT_UART_IO)
        return u->base && u->base + UART_SCR <= 0xffff;
    return u->base && (u->reg_bytes == 1 || u->reg_bytes == 4);
}

int uart_init(const struct plat_uart *u)
{
    uint16_t div;

    if (!uart_valid(u))
        return BM_EINVAL;
    if (u->baud && (u->baud > UART_CLOCK_DIV_BASE || UART_CLOCK_DIV_BASE % u->baud))
        return BM_EINVAL;
    /* A missing UART floats the bus: the scratch register reads 0xff. */
    uart_out(u, UART_SCR, 0x5a);
    if (uart_in(u, UART_SCR) != 0x5a)
        return BM_ENODEV;
    /* Polled: no interrupts. */
    uart_out(u, UART_IER, 0);
    if (!u->baud) {
        /* Baud "as is" (SPCR 0): the firmware's console already runs on
         * this UART at the rate the BMC expects, and the UART's input clock
         * may not be the PC's, so leave divisor, line and FIFO settings
         * alone, as Linux early_serial8250_setup() does without a baud. */
        return BM_OK;
    }
    div = (uint16_t)(UART_CLOCK_DIV_BASE / u->baud);
    uart_out(u, UART_LCR, UART_LCR_DLAB);
    uart_out(u, UART_DLL, (uint8_t)div);
    uart_out(u, UART_DLM, (uint8_t)(div >> 8));
    uart_out(u, UART_LCR, UART_LCR_8N1);
    uart_out(u, UART_FCR, UART_FCR_ENABLE);
    uart_out(u, UART_MCR, UART_MCR_DTR_RTS);
    return BM_OK;
}

void uart_write(const struct plat_uart *u, const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        /* About 87 us per byte at 115200; 10 ms means the UART is stuck
         * (no cable flow control here), so drop rather than hang. */
        uint64_t deadline = plat_now_ns() + 10000000ull;
        while (!(uart_in(u, UART_LSR) & UART_LSR_THRE))
            if (plat_now_ns() > deadline)
                return;
        uart_out(u, UART_THR, (uint8_t)data[i]);
    }
}

bool uart_read(const struct plat_uart *u, uint8_t *byte)
{
    uint8_t lsr = uart_in(u, UART_LSR);

    /* 0xff: the UART is gone (a floating bus reads all ones). */
    if (lsr == 0xff || !(lsr & UART_LSR_DR))
        return false;
    *byte = uart_in(u, UART_RBR);
    return true;
}
