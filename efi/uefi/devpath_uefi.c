/* Device paths: which controller and port a volume's disk is on, so write
 * safety can keep the boot and results disks out of write tests. */
#include "uefi_private.h"
#include "../devpath.h"

/* Where the disk under a volume's device handle sits: its PCI controller and
 * the port / namespace / target named by the device path. */
void uefi_volume_location(EFI_HANDLE volume, bool has_volume, struct plat_boot_location *loc)
{
    EFI_GUID dpg = DEVICE_PATH_PROTOCOL, pcig = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_DEVICE_PATH *dp = NULL, *rest;
    EFI_HANDLE pci_h;
    EFI_PCI_IO *io;
    CHAR16 *text;
    struct devpath_disk disk;

    memset(loc, 0, sizeof(*loc));
    loc->has_volume = has_volume;
    if (!volume ||
        uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, volume, &dpg, (void **)&dp) != EFI_SUCCESS)
        return;
    text = DevicePathToStr(dp);
    if (text) {
        uefi_ucs2_to_ascii(loc->description, sizeof(loc->description), text, sizeof(loc->description) - 1);
        FreePool(text);
    }
    /* The PCI function nearest the disk along the path. */
    rest = dp;
    if (uefi_call_wrapper(bm_st->BootServices->LocateDevicePath, 3, &pcig, &rest, &pci_h) == EFI_SUCCESS &&
        uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, pci_h, &pcig, (void **)&io) == EFI_SUCCESS) {
        UINTN seg, bus, dev, fn;
        if (uefi_call_wrapper(io->GetLocation, 5, io, &seg, &bus, &dev, &fn) == EFI_SUCCESS) {
            loc->has_pci = true;
            loc->pci = (struct pci_addr){ (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
        }
    }
    /* The messaging node after it names the disk on that controller
     * (efi/devpath.c: SCSI, SATA, NVMe namespace). A firmware path carries
     * no length of its own: the walk stops at its end node, at a malformed
     * node, or after DEVPATH_MAX_BYTES. */
    if (rest && devpath_disk_node(rest, DEVPATH_MAX_BYTES, &disk)) {
        loc->has_port = true;
        loc->port = disk.port;
        loc->lun = disk.lun;
    }
}
