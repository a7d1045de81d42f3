/* What a BIOS says about its console: nothing (no ConOut, no Super I/O
 * protocol), so serial=auto takes SPCR or COM1, as on UEFI without those.
 * Our own 16550 output is efi/fw/serial_fw.c. */
#include "bios_private.h"

long plat_console_device_path(void *buf, size_t cap) { return BM_ENODEV; }

int plat_sio_io_port(const void *path, size_t prefix_len, uint16_t *port) { return BM_ENODEV; }
