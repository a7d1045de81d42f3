/* Which shared PCIe link the disks' traffic crosses, for the all-disks
 * tests: the narrowest hop on the way to the root and its ceiling, so the
 * aggregate can be read against it ("6 disks behind one x4 Gen2 uplink:
 * 1.7 of 2.0 GB/s").
 *
 * The bridge chain of a controller is the inventory's business
 * (drivers/pci.h); until it offers one, links_summarize() reports that the
 * ceiling is unknown and the aggregate record carries no link fields. */
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
};

/* The narrowest link the given disks' traffic shares. */
void links_summarize(struct bm_disk *const *disks, unsigned n, struct link_summary *out);

#endif
