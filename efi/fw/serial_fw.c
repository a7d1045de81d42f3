/* The record channel on firmware platforms: our own 16550, PL011 or SBSA
 * UART (UEFI and BIOS alike drive the UART themselves, never through the
 * firmware), and a second one beside it (COM2, serial_port.h) when it
 * answers. */
#include "fw_private.h"
#include "../../drivers/pl011.h"
#include "../../drivers/uart16550.h"

static struct plat_uart serial_uart, also_uart;
static bool serial_open, also_open;

int plat_serial_open(const struct plat_uart *u)
{
    int rc = u->kind == PLAT_UART_16550 ? uart_init(u) : pl011_init(u);
    serial_open = rc == BM_OK;
    if (serial_open)
        serial_uart = *u;
    return rc;
}

int plat_serial_open_also(const struct plat_uart *u)
{
    int rc = uart_init(u);
    also_open = rc == BM_OK;
    if (also_open)
        also_uart = *u;
    return rc;
}

void plat_serial_write(const char *data, size_t len)
{
    if (serial_open && serial_uart.kind != PLAT_UART_16550)
        pl011_write(&serial_uart, data, len);
    else if (serial_open)
        uart_write(&serial_uart, data, len);
    if (also_open)
        uart_write(&also_uart, data, len);
}

bool fw_serial_read(uint8_t *byte)
{
    return (serial_open && uart_read(&serial_uart, byte)) || (also_open && uart_read(&also_uart, byte));
}
