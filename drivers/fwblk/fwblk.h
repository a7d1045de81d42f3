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
 * BAREMARK_HOST_DISKS="PATH[=SERIAL][+OPTION]...,..." and
 * BAREMARK_HOST_BOOT=PATH (that file plays the boot disk). Options:
 * failread, lat=NS, lba=BYTES, escw=N (press Esc after N writes), qd=N
 * (commands in flight, 256 unless given), native (the disk plays one a
 * native driver found: path native, never blocking), and,
 * to place the disk where the firmware would show it: pci=SSSS:BB:DD.F
 * (its controller), sata=PORT | nvme=NSID | scsi=TARGET (the device
 * path's node), model=TEXT (no commas), removable (removable medium),
 * gone (in the census at start, but no longer exposed by the time the
 * Block I/O disks are collected: a disk the firmware lost). An entry on a
 * controller in `taken` is not exposed (its firmware driver was
 * disconnected), as on UEFI. */
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

/* ---- Census: what the firmware exposes before any native driver runs ----
 *
 * baremark's promise is that every whole disk the firmware shows at start
 * ends up in the run: as a disk, or in a note that names it. The census
 * is taken before any native driver takes a controller (taking one
 * disconnects the firmware's driver and its disks vanish). */

/* Where on its controller a firmware disk sits, from the messaging node of
 * its device path (UEFI 2.10 section 10.3.4). */
enum fwblk_at {
    FWBLK_AT_NONE = 0,      /* no node that names a place (IDE, USB, vendor) */
    FWBLK_AT_SATA,          /* SATA node: port = HBA port number */
    FWBLK_AT_NVME,          /* NVMe namespace node: port = namespace id */
    FWBLK_AT_SCSI,          /* SCSI node: port = target (Pun), lun = Lun */
};

struct fwblk_census_disk {
    bool has_pci;
    struct pci_addr pci;    /* its controller */
    enum fwblk_at at;
    uint32_t port, lun;     /* as at says */
    char model[48], serial[48];
    uint64_t bytes;
};

#define FWBLK_CENSUS_MAX 64

struct fwblk_census {
    struct fwblk_census_disk disks[FWBLK_CENSUS_MAX];
    unsigned count;
    unsigned more;          /* whole disks beyond FWBLK_CENSUS_MAX, not listed */
};

/* List the firmware's whole, present, non-removable disks (partitions and
 * removable media such as CD and DVD drives are left out: native drivers
 * skip those on purpose). Storage and USB controllers are connected to
 * their firmware drivers first. Returns the number listed. */
int fwblk_census(struct fwblk_census *c);

/* "port 1", "namespace 2", "target 3 lun 0" or "" for a census disk. */
void fwblk_census_place(const struct fwblk_census_disk *e, char *buf, size_t len);

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
