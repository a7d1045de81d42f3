/* A polled 16550 UART: records reach the serial port even where the
 * firmware does not redirect its console there.
 *
 * At an I/O port (the PC's COM ports), or memory mapped as ACPI SPCR
 * describes it: byte registers one byte apart, or (SPCR access size DWord)
 * 32-bit registers four bytes apart, as Linux's 8250 driver runs UPIO_MEM
 * and UPIO_MEM32 ports (reg-shift 0 and 2). */
#ifndef BAREMARK_UART16550_H
#define BAREMARK_UART16550_H

#include "../efi/platform.h"

/* Bring the UART u up for polled output: 8N1 at u->baud (a divisor of
 * 115200, for the PC's 1.8432 MHz clock), or, with baud 0, the line
 * settings the firmware left, untouched. BM_ENODEV if no UART answers
 * there (scratch register test); BM_EINVAL for a baud, width or address
 * it cannot use. */
int uart_init(const struct plat_uart *u);
/* Write bytes, waiting for THRE with a bounded wait per byte. */
void uart_write(const struct plat_uart *u, const char *data, size_t len);
/* A byte received (LSR data ready), without waiting: false when none. */
bool uart_read(const struct plat_uart *u, uint8_t *byte);

#endif
