/* Where a server keeps its DIMMs' SPD when it is not on the chipset SMBus
 * baremark reads (drivers/smbus): the FB-DIMM MCH's own SPD registers, the
 * Xeon integrated memory controller's SMBus, an EPYC's I3C bus. Pure: from
 * the PCI functions and the CPU brand string to a note naming the path. */
#ifndef BAREMARK_SPD_PLATFORM_H
#define BAREMARK_SPD_PLATFORM_H

#include "../../drivers/pci.h"

/* True, with note saying where the SPD is and that it is not read, when
 * this machine keeps it somewhere baremark does not read. */
bool spd_platform_elsewhere(const struct pci_list *l, const char *cpu_brand, char *note, size_t cap);

#endif
