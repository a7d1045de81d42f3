/* UEFI entry point. */
#include <efi.h>
#include <efilib.h>

#include "app.h"
#include "config.h"
#include "platform_uefi.h"


/* GNU-EFI's crt0 calls efi_main with the System V ABI, after relocation. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
    int exit_mode = EXIT_RETURN;
    int status;

    InitializeLib(image, st);
    bm_image_handle = image;
    bm_st = st;
#if defined(__aarch64__)
    /* An Arm server (SBSA/SBBR) describes itself in ACPI: PCI config
     * space (MCFG), the console UART (SPCR), coherency (IORT). Firmware
     * with a device tree only (U-Boot's UEFI, most boards) gives none of
     * it: say so and go back, never guess at addresses. */
    if (!plat_acpi_table("FACP", 0)) {
        Print(L"baremark: this Arm firmware has no ACPI tables (a device-tree platform, not SBSA/SBBR):\r\n"
              L"baremark-aa64 needs ACPI (MCFG, SPCR) to find PCI and the serial port. Nothing was done.\r\n");
        return EFI_UNSUPPORTED;
    }
#endif
    status = baremark_main(&exit_mode);
    plat_exit(exit_mode == EXIT_REBOOT     ? PLAT_EXIT_REBOOT
              : exit_mode == EXIT_SHUTDOWN ? PLAT_EXIT_SHUTDOWN
              : exit_mode == EXIT_WAIT     ? PLAT_EXIT_WAIT
                                           : PLAT_EXIT_RETURN);
    /* Every file is closed by now: the last line a serial log shows of
     * the run (a rack's capture, the QEMU tests) before the firmware's own. */
    Print(L"baremark: back to the firmware\r\n");
    switch (status) {
    case APP_OK:
        return EFI_SUCCESS;
    case APP_BAD_OPTIONS:
        return EFI_INVALID_PARAMETER;
    case APP_ABORTED:
        return EFI_ABORTED;
    default:
        return EFI_DEVICE_ERROR;
    }
}
