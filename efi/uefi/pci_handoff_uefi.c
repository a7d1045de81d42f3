/* PCI functions between the firmware's drivers and ours: take one from the
 * firmware, give it back, and have the firmware connect storage controllers. */
#include "uefi_private.h"
#include "../../drivers/pci.h"
#include "../../drivers/pci_regs.h"

/* The firmware's handle for a PCI function, via EFI_PCI_IO_PROTOCOL.GetLocation. */
static EFI_HANDLE pci_handle(struct pci_addr a)
{
    EFI_GUID guid = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_HANDLE *handles = NULL, found = NULL;
    UINTN count = 0;

    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &guid, NULL, &count, &handles) !=
        EFI_SUCCESS)
        return NULL;
    for (UINTN i = 0; i < count && !found; i++) {
        EFI_PCI_IO *io;
        UINTN seg, bus, dev, fn;
        if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, handles[i], &guid, (void **)&io) != EFI_SUCCESS)
            continue;
        if (uefi_call_wrapper(io->GetLocation, 5, io, &seg, &bus, &dev, &fn) != EFI_SUCCESS)
            continue;
        if (seg == a.seg && bus == a.bus && dev == a.dev && fn == a.fn)
            found = handles[i];
    }
    plat_free(handles);
    return found;
}

int plat_pci_claim(struct pci_addr a)
{
    EFI_HANDLE h = pci_handle(a);
    EFI_STATUS st;

    if (!h)
        return BM_OK; /* no firmware handle: nobody else drives it */
    st = uefi_call_wrapper(bm_st->BootServices->DisconnectController, 3, h, NULL, NULL);
    /* EFI_NOT_FOUND: no driver was connected. Anything else means a driver
     * refused to let go, and two drivers on one queue corrupt both. */
    if (st != EFI_SUCCESS && st != EFI_NOT_FOUND)
        return BM_EBUSY;
    return BM_OK;
}

#define PCI_CLASS_USB_CONTROLLER 0x0c03 /* serial bus controller, USB (PCI code and ID 1.11) */

void uefi_connect_storage_controllers(const struct pci_addr *taken, unsigned ntaken, bool with_usb)
{
    EFI_GUID pcig = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_HANDLE *handles = NULL;
    UINTN count = 0;

    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &pcig, NULL, &count, &handles) !=
        EFI_SUCCESS)
        return;
    for (UINTN i = 0; i < count; i++) {
        EFI_PCI_IO *io;
        UINTN seg, bus, dev, fn;
        struct pci_addr a;
        uint32_t cls;
        bool skip = false;

        if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, handles[i], &pcig, (void **)&io) !=
                EFI_SUCCESS ||
            uefi_call_wrapper(io->GetLocation, 5, io, &seg, &bus, &dev, &fn) != EFI_SUCCESS)
            continue;
        a = (struct pci_addr){ (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
        for (unsigned k = 0; k < ntaken; k++)
            skip |= taken[k].seg == a.seg && taken[k].bus == a.bus && taken[k].dev == a.dev && taken[k].fn == a.fn;
        cls = plat_pci_read32(a, PCI_CLASS_REVISION) >> 8; /* base << 16 | sub << 8 | prog-if */
        if (skip || ((cls >> 16) != PCI_CLASS_STORAGE && !(with_usb && (cls >> 8) == PCI_CLASS_USB_CONTROLLER)))
            continue;
        uefi_call_wrapper(bm_st->BootServices->ConnectController, 4, handles[i], NULL, NULL, TRUE);
    }
    plat_free(handles);
}

void plat_pci_release(struct pci_addr a)
{
    EFI_HANDLE h = pci_handle(a);

    /* The bridges above go back as found before the firmware's driver is
     * connected again: it enables what it needs itself (EDK II's PciIo
     * Attributes enables the parent bridges), and must find them so. */
    pci_release_bridges(a);
    if (h)
        uefi_call_wrapper(bm_st->BootServices->ConnectController, 4, h, NULL, NULL, TRUE);
}
