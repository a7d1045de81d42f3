/* Taking PCI devices from the firmware on a BIOS PC: nothing to do. BIOS
 * option ROM drivers run only inside BIOS calls, and we make none (no
 * INT 13h yet), so a controller is ours as soon as a native driver wants it. */
#include "bios_private.h"

int plat_pci_claim(struct pci_addr a) { return BM_OK; }
void plat_pci_release(struct pci_addr a) {}
