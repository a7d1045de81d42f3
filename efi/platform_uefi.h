/* What UEFI-only code (*_uefi.c) shares with the UEFI platform layer:
 * the firmware's tables and a few firmware services the seam does not
 * carry because only firmware-path drivers need them. */
#ifndef BAREMARK_PLATFORM_UEFI_H
#define BAREMARK_PLATFORM_UEFI_H

#include <efi.h>
#include <efilib.h>

#include "platform.h"

extern EFI_HANDLE bm_image_handle;
extern EFI_SYSTEM_TABLE *bm_st;

/* Connect the firmware's drivers to every storage controller (and, with
 * with_usb, every USB controller) that is not in taken. With a boot order
 * set, firmware (OVMF among others) connects only the devices it boots
 * from, so a disk on any other controller has no Block I/O or pass-thru
 * protocol until this runs. */
void uefi_connect_storage_controllers(const struct pci_addr *taken, unsigned ntaken, bool with_usb);

/* The device handle of the volume the results file is on, or NULL when no
 * results file is open. */
EFI_HANDLE uefi_results_volume_handle(void);

#endif
