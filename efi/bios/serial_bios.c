/* The serial port on a BIOS PC: our own 16550 output. No firmware says
 * where its console goes (no ConOut, no Super I/O protocol): the app then
 * uses SPCR or COM1, as serial=auto does on UEFI without those. */
#include "bios_private.h"
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

long plat_console_device_path(void *buf, size_t cap) { return BM_ENODEV; }

int plat_sio_io_port(const void *path, size_t prefix_len, uint16_t *port) { return BM_ENODEV; }
