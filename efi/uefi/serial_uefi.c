/* What the firmware says about its console (the ConOut device path, Super
 * I/O resources); our own 16550 output is efi/fw/serial_fw.c. */
#include "uefi_private.h"

long plat_console_device_path(void *buf, size_t cap)
{
    EFI_GUID global = EFI_GLOBAL_VARIABLE;
    UINTN size = cap;
    UINT32 attr;
    EFI_STATUS st = uefi_call_wrapper(bm_st->RuntimeServices->GetVariable, 5, L"ConOut", &global, &attr, &size, buf);

    if (st == EFI_BUFFER_TOO_SMALL)
        return BM_ENOSPC;
    if (st != EFI_SUCCESS)
        return BM_ENODEV;
    return (long)size;
}

/* UEFI PI 1.7 volume 5 section 14: the Super I/O protocol (not in gnu-efi). */
#define EFI_SIO_PROTOCOL_GUID { 0x215fdd18, 0xbd50, 0x4feb, { 0x89, 0x0b, 0x58, 0xca, 0x0b, 0x47, 0x39, 0xe9 } }
struct efi_sio_protocol {
    void *register_access;
    EFI_STATUS(EFIAPI *get_resources)(struct efi_sio_protocol *self, const uint8_t **resources);
    void *set_resources, *possible_resources, *modify;
};

/* ACPI 6.5 section 6.4.2: small resource descriptors a COM port lists. */
#define ACPI_RES_IO_PORT 0x47        /* info, min u16, max u16, align, length */
#define ACPI_RES_FIXED_IO 0x4b       /* base u16, length */
#define ACPI_RES_END 0x79

int plat_sio_io_port(const void *path, size_t prefix_len, uint16_t *port)
{
    EFI_GUID siog = EFI_SIO_PROTOCOL_GUID;
    EFI_DEVICE_PATH *rest = (EFI_DEVICE_PATH *)(uintptr_t)path;
    EFI_HANDLE h;
    struct efi_sio_protocol *sio;
    const uint8_t *r = NULL;

    if (uefi_call_wrapper(bm_st->BootServices->LocateDevicePath, 3, &siog, &rest, &h) != EFI_SUCCESS ||
        (const uint8_t *)rest != (const uint8_t *)path + prefix_len ||
        uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &siog, (void **)&sio) != EFI_SUCCESS ||
        uefi_call_wrapper(sio->get_resources, 2, sio, &r) != EFI_SUCCESS || !r)
        return BM_ENODEV;
    /* As PciSioSerialDxe CreateSerialDevice(): the first I/O range with a
     * length is the UART's base. The list is the firmware's; stop after a
     * few dozen descriptors if it lacks its end tag. */
    for (unsigned n = 0; n < 32 && r[0] != ACPI_RES_END; n++) {
        if (r[0] & 0x80) {               /* large descriptor: tag, length u16 */
            r += 3 + (r[1] | r[2] << 8);
            continue;
        }
        if (r[0] == ACPI_RES_IO_PORT && r[7]) {
            *port = (uint16_t)(r[2] | r[3] << 8);
            return BM_OK;
        }
        if (r[0] == ACPI_RES_FIXED_IO && r[3]) {
            *port = (uint16_t)(r[1] | r[2] << 8);
            return BM_OK;
        }
        r += 1 + (r[0] & 7);
    }
    return BM_ENODEV;
}
