/* The INT 13h AH=48h drive parameter block (Phoenix "BIOS Enhanced Disk
 * Drive Specification" 3.0, table 1): size, sector size and, with EDD 3.0,
 * the device path (host bus, interface, PCI address). A pure function over
 * the bytes the BIOS filled in, called by efi/bios/int13_bios.c. */
#ifndef BAREMARK_DISK_EDD_H
#define BAREMARK_DISK_EDD_H

#include "../platform.h"

#define EDD_PARAMS_BYTES 74        /* the buffer, through the device path's checksum */
#define EDD_KEY 0xbedd
#define EDD_FLAG_REMOVABLE 0x4

struct edd_params {
    uint16_t flags;                /* information flags (bit 2 removable) */
    uint64_t sectors;
    uint32_t bytes_per_sector;
    bool removable;
    bool edd30;                    /* the device path below is valid */
    char host_bus[5];              /* "PCI", "ISA", ... */
    char interface[9];             /* "ATA", "SATA", "SCSI", "USB", "RAID", ... */
    bool has_pci;
    struct pci_addr pci;
    uint8_t device;                /* ATA/SATA device (port), SCSI id */
};

/* Read a parameter block p of EDD_PARAMS_BYTES. True for a usable drive:
 * a non-zero size and a sector size that is a power of two from 512 to
 * 4096 (0 is taken as 512, as some EDD 1.x BIOSes leave it). The device
 * path is believed only as Linux drivers/firmware/edd.c edd_has_edd30()
 * does: the buffer's length field covers it, key BEDDh, and bytes 30..73
 * summing to zero. */
bool edd_params_parse(const uint8_t p[EDD_PARAMS_BYTES], struct edd_params *out);

#endif
