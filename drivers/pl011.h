/* A polled Arm PL011 or SBSA Generic UART for the records, as ACPI SPCR
 * names it (interface types 0x03, 0x0D, 0x0E), driven as Linux's pl011
 * earlycon drives it (drivers/tty/serial/amba-pl011.c pl011_putc(),
 * pl011_early_console_setup()): the firmware already set the line up for
 * its own console there, so the rate and format stay as they are. */
#ifndef BAREMARK_PL011_H
#define BAREMARK_PL011_H

#include "../efi/platform.h"

/* Check that a UART answers at u (memory mapped, 32-bit registers) and,
 * on a PL011 whose transmitter the firmware left off, switch it on.
 * BM_ENODEV when nothing answers there (the flag register reads all ones,
 * or a PL011 without its PrimeCell ID); BM_EINVAL for an I/O port, a
 * misaligned or zero address, or a register width other than 32 bits. */
int pl011_init(const struct plat_uart *u);
/* Write bytes, each after the transmit FIFO has room, with a bounded wait. */
void pl011_write(const struct plat_uart *u, const char *data, size_t len);

#endif
