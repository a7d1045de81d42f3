/* UEFI device paths read as bytes (UEFI 2.10 section 10.3): which disk on
 * its controller a path names, and the MAC address of a network path.
 * Every node's length is checked against the bytes readable and against
 * the node's own fields, so a malformed path from the firmware (a node
 * under 4 bytes, one running past the end, a field-less short node) gives
 * "not named", never a read past it. Portable: the UEFI layer hands it the
 * firmware's paths, tests/fuzz/fuzz_devpath.c mutated ones. */
#ifndef BAREMARK_DEVPATH_H
#define BAREMARK_DEVPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEVPATH_MAX_BYTES 4096   /* far past any real path (a few hundred bytes) */

/* Which disk the first SCSI (3/2), SATA (3/0x12) or NVMe namespace (3/0x17)
 * node of the path names; false when there is none before the end node, or
 * the path is malformed before it. */
struct devpath_disk {
    uint8_t subtype;     /* 0x02 SCSI, 0x12 SATA, 0x17 NVMe */
    uint32_t port;       /* SCSI target (Pun), SATA HBA port, NVMe NSID */
    uint32_t lun;        /* SCSI LUN; 0 for the others */
};
bool devpath_disk_node(const void *path, size_t avail, struct devpath_disk *d);

/* The 6-byte MAC of the first MAC address node (3/0x0b), if any. */
bool devpath_mac_node(const void *path, size_t avail, uint8_t mac[6]);

#endif
