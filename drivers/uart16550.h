/* A polled 16550 UART: records reach the serial port even where the
 * firmware does not redirect its console there. */
#ifndef BAREMARK_UART16550_H
#define BAREMARK_UART16550_H

#include "../efi/platform.h"

/* Program 8N1 at baud (a divisor of 115200). BM_ENODEV if no UART answers
 * at port (scratch register test). */
int uart_init(uint16_t port, uint32_t baud);
/* Write bytes, waiting for THRE with a bounded wait per byte. */
void uart_write(uint16_t port, const char *data, size_t len);

#endif
