/* 16550 register offsets from the base I/O port (PC16550D data sheet). */
#ifndef BAREMARK_UART16550_REGS_H
#define BAREMARK_UART16550_REGS_H

#define UART_THR 0 /* transmit holding register (DLAB=0, write) */
#define UART_RBR 0 /* receive buffer (DLAB=0, read) */
#define UART_DLL 0 /* divisor latch low (DLAB=1) */
#define UART_IER 1 /* interrupt enable (DLAB=0) */
#define UART_DLM 1 /* divisor latch high (DLAB=1) */
#define UART_FCR 2 /* FIFO control (write) */
#define UART_LCR 3 /* line control */
#define UART_MCR 4 /* modem control */
#define UART_LSR 5 /* line status */
#define UART_SCR 7 /* scratch */

#define UART_LCR_8N1 0x03  /* 8 data bits, no parity, 1 stop bit */
#define UART_LCR_DLAB 0x80 /* divisor latch access */
#define UART_FCR_ENABLE 0x07 /* enable and clear both FIFOs */
#define UART_MCR_DTR_RTS 0x03
#define UART_LSR_THRE 0x20 /* transmit holding register empty */
#define UART_LSR_DR 0x01   /* data ready */

#define UART_CLOCK_DIV_BASE 115200 /* 1.8432 MHz / 16 */

#endif
