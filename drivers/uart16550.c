/* Polled 16550 output. */
#include "uart16550.h"
#include "uart16550_regs.h"

int uart_init(uint16_t port, uint32_t baud)
{
    uint16_t div;

    if (baud == 0 || UART_CLOCK_DIV_BASE % baud)
        return BM_EINVAL;
    /* A missing UART floats the bus: the scratch register reads 0xff. */
    plat_outb(port + UART_SCR, 0x5a);
    if (plat_inb(port + UART_SCR) != 0x5a)
        return BM_ENODEV;
    div = (uint16_t)(UART_CLOCK_DIV_BASE / baud);
    plat_outb(port + UART_IER, 0);
    plat_outb(port + UART_LCR, UART_LCR_DLAB);
    plat_outb(port + UART_DLL, (uint8_t)div);
    plat_outb(port + UART_DLM, (uint8_t)(div >> 8));
    plat_outb(port + UART_LCR, UART_LCR_8N1);
    plat_outb(port + UART_FCR, UART_FCR_ENABLE);
    plat_outb(port + UART_MCR, UART_MCR_DTR_RTS);
    return BM_OK;
}

void uart_write(uint16_t port, const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        /* About 87 us per byte at 115200; 10 ms means the UART is stuck
         * (no cable flow control here), so drop rather than hang. */
        uint64_t deadline = plat_now_ns() + 10000000ull;
        while (!(plat_inb(port + UART_LSR) & UART_LSR_THRE))
            if (plat_now_ns() > deadline)
                return;
        plat_outb(port + UART_THR, (uint8_t)data[i]);
    }
}
