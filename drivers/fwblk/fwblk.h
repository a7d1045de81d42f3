/* The firmware path: disks the firmware exposes, driven as struct bm_disk.
 *
 * On UEFI (fwblk_uefi.c) every whole physical disk with an
 * EFI_BLOCK_IO_PROTOCOL: through EFI_BLOCK_IO2_PROTOCOL with one token per
 * tag (many requests in flight) when the firmware offers it, else Block I/O
 * one request at a time (max_qd 1). Model, serial and firmware revision
 * come from EFI_DISK_INFO (ATA IDENTIFY, SCSI INQUIRY), the NVMe pass-thru
 * protocol (Identify Controller) or the USB device descriptor.
 *
 * On the host (fwblk_host.c) the disks are files named in the environment:
 * BAREMARK_HOST_DISKS="PATH[=SERIAL][+failread][+lat=NS][+lba=BYTES],..." and
 * BAREMARK_HOST_BOOT=PATH (that file plays the boot disk). */
#ifndef BAREMARK_FWBLK_H
#define BAREMARK_FWBLK_H

#include "../blkdev.h"

/* Keep this firmware disk? Called once per disk found, after its identity
 * and PCI location are filled in; a disk not kept is forgotten. */
typedef bool (*fwblk_keep_fn)(const struct bm_disk *d, void *ctx);

/* Add the firmware's whole disks to l (ids "fw0", "fw1", ...). Firmware
 * often connects only the devices it boots from, so storage and USB
 * controllers are connected first, except the `taken` ones (a native
 * driver has them: the firmware's driver must stay away). Returns the
 * number added or a negative error. */
int fwblk_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken, fwblk_keep_fn keep,
                   void *ctx);

/* Does this firmware disk hold the volume baremark was loaded from?
 * 1 yes, 0 no, -1 unknown (or not a firmware disk). */
int fwblk_boot_disk(const struct bm_disk *d);
/* Is the medium write-protected, as the firmware reports it? */
bool fwblk_read_only(const struct bm_disk *d);
/* The firmware's device path as text ("" if none or not a firmware disk). */
const char *fwblk_device_path(const struct bm_disk *d);

/* Forget every firmware disk: close events and free memory, except where a
 * request may still be in flight (then it is left allocated). */
void fwblk_release_all(void);

#endif
