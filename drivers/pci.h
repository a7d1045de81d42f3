/* PCI enumeration and PCI Express link facts. Config space is reached
 * through the platform seam; no driver state lives here. */
#ifndef BAREMARK_PCI_H
#define BAREMARK_PCI_H

#include "../efi/platform.h"

#define PCI_MAX_FUNCS 512

struct pci_func {
    struct pci_addr addr;
    uint16_t vendor, device;
    uint32_t class_code;      /* base << 16 | sub << 8 | prog-if */
    uint8_t header_type;      /* PCI_HEADER_NORMAL or PCI_HEADER_BRIDGE */
    uint8_t secondary_bus, subordinate_bus; /* bridges only */
    int parent;               /* index of the bridge above, -1 on a root bus */
};

struct pci_list {
    struct pci_func funcs[PCI_MAX_FUNCS];
    int count;
};

/* Walk every segment's buses from the root, depth first, following bridges.
 * Returns the number of functions found. */
int pci_enumerate(struct pci_list *l);

/* "0000:00:1f.2" */
void pci_addr_str(struct pci_addr a, char *buf, size_t len);

/* Turn on memory decode and bus mastering (needed after the firmware's
 * driver let go of a controller). */
void pci_enable_device(struct pci_addr a);

#endif
