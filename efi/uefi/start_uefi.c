/* Start and end of the UEFI platform layer. */
#include "uefi_private.h"
#include "../fw/fw_private.h"

int plat_init(void)
{
    EFI_GUID lip = LOADED_IMAGE_PROTOCOL;
    EFI_LOADED_IMAGE *image;

    /* The UEFI watchdog resets the machine after 5 minutes otherwise. */
    uefi_call_wrapper(bm_st->BootServices->SetWatchdogTimer, 4, 0, 0, 0, NULL);
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, bm_image_handle, &lip, (void **)&image) !=
        EFI_SUCCESS)
        return BM_ENODEV;
    uefi_clock_init();
    fw_pci_config_init();
    uefi_cpus_init();
    uefi_load_options_init(image);
    uefi_boot_volume_open(image->DeviceHandle);
    return BM_OK;
}

bool plat_exit_returns(void) { return true; }

void plat_exit(enum plat_exit_mode mode)
{
    uefi_cpus_stop();
    uefi_results_close();
    uefi_boot_volume_close();
    if (mode == PLAT_EXIT_REBOOT)
        uefi_call_wrapper(bm_st->RuntimeServices->ResetSystem, 4, EfiResetCold, EFI_SUCCESS, 0, NULL);
    else if (mode == PLAT_EXIT_SHUTDOWN)
        uefi_call_wrapper(bm_st->RuntimeServices->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0, NULL);
    else if (mode == PLAT_EXIT_WAIT) {
        /* The files above are closed: pulling the stick now loses nothing.
         * Said on the record channel (not the screen, which stays) so a
         * rack's capture or a test knows the run is over without a key. */
        plat_serial_write(PLAT_WAIT_KEY_LINE, sizeof(PLAT_WAIT_KEY_LINE) - 1);
        plat_wait_key();
    }
    uefi_console_restore(mode == PLAT_EXIT_WAIT);
}
