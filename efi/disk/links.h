/* Which shared PCIe link the disks' traffic crosses, for the all-disks
 * tests: the narrowest hop on the way to the root and its ceiling, so the
 * aggregate can be read against it ("6 disks behind one x4 Gen2 uplink:
 * 1.7 of 2.0 GB/s").
 *
 * The chain of links comes from pcie_path_to_root() (drivers/pci.h). Only
 * PCI Express hops count: disks whose controllers have no link of their
 * own (root-complex integrated, as q35's AHCI) or share only the root
 * complex give no ceiling, and the aggregate record then has no link.
 * Disks behind the chipset also share its uplink to the CPU (DMI, ESI, a
 * Promontory's PCIe x4), which config space does not show: the chipset
 * table (inventory/chipset.h) adds it as one more hop when it knows it. */
#ifndef BAREMARK_DISK_LINKS_H
#define BAREMARK_DISK_LINKS_H

#include "../../drivers/blkdev.h"

struct link_summary {
    bool known;
    unsigned disks_behind;   /* of the disks given, how many cross the hop */
    char hop[16];            /* BDF of the port whose link is narrowest */
    char link[32];           /* "x4 Gen2" */
    double ceiling_mbps;     /* what that link can carry, MB/s */
    char text[160];          /* for the screen */
    bool chipset_uplink;     /* the hop is the chipset's uplink (DMI/ESI: invisible in config space) */
    bool emulated;           /* the chipset is an emulator's: its links are not enforced */
};

/* The narrowest link two or more of the given disks' traffic shares. */
void links_summarize(struct bm_disk *const *disks, unsigned n, struct link_summary *out);
/* One line for the screen: the narrowest hop on this disk's way to the
 * root ("" when its controller is not on PCI). */
void links_describe_disk(const struct bm_disk *d, char *buf, size_t len);

#endif
