/* The record channel on firmware platforms: our own 16550 (UEFI and BIOS
 * alike drive the UART themselves, never through the firmware). */
#include "fw_private.h"
#include "../../drivers/uart16550.h"

static struct plat_uart serial_uart;
static bool serial_open;

int plat_serial_open(const struct plat_uart *u)
{
    int rc = uart_init(u);
    serial_open = rc == BM_OK;
    if (serial_open)
        serial_uart = *u;
    return rc;
}

void plat_serial_write(const char *data, size_t len)
{
    if (serial_open)
        uart_write(&serial_uart, data, len);
}
