/* Device paths: which controller and port a volume's disk is on, so write
 * safety can keep the boot and results disks out of write tests. */
#include "uefi_private.h"

/* Where the disk under a volume's device handle sits: its PCI controller and
 * the port / namespace / target named by the device path. */
void uefi_volume_location(EFI_HANDLE volume, bool has_volume, struct plat_boot_location *loc)
{
    EFI_GUID dpg = DEVICE_PATH_PROTOCOL, pcig = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_DEVICE_PATH *dp = NULL, *rest;
    EFI_HANDLE pci_h;
    EFI_PCI_IO *io;
    CHAR16 *text;

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
     * (UEFI 2.10 section 10.3.4: SCSI 0x02, SATA 0x12, NVMe 0x17). */
    for (EFI_DEVICE_PATH *n = rest; n && !IsDevicePathEnd(n); n = NextDevicePathNode(n)) {
        const uint8_t *b = (const uint8_t *)n;
        if (DevicePathType(n) != MESSAGING_DEVICE_PATH)
            continue;
        switch (DevicePathSubType(n)) {
        case 0x02: /* SCSI: Pun u16, Lun u16 */
            loc->has_port = true;
            loc->port = *(const uint16_t *)(b + 4);
            loc->lun = *(const uint16_t *)(b + 6);
            break;
        case 0x12: /* SATA: HBA port u16, PM port u16, LUN u16 */
            loc->has_port = true;
            loc->port = *(const uint16_t *)(b + 4);
            break;
        case 0x17: /* NVMe namespace: NSID u32 */
            loc->has_port = true;
            loc->port = *(const uint32_t *)(b + 4);
            break;
        }
        if (loc->has_port)
            break;
    }
}
