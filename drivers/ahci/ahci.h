/* Native AHCI driver: takes an AHCI 1.x SATA controller from the firmware,
 * resets it, brings up every implemented port and exposes each ATA disk as
 * a struct bm_disk with one tagged queue (NCQ: up to 32 commands in flight;
 * otherwise one). Polled; no interrupts. */
#ifndef BAREMARK_AHCI_H
#define BAREMARK_AHCI_H

#include "../blkdev.h"
#include "../../efi/time_units.h"

extern const struct bm_driver ahci_driver;

/* A command that has not finished after this long is reported as
 * BM_ETIMEDOUT and the port is reset: 30 s as Linux (ATA_TMOUT_INTERNAL
 * and the SCSI disk default, sd SD_TIMEOUT). With the recovery's own
 * bounds (PxCMD.CR 0.5 s, COMRESET and ready 10 s; a device error's log
 * 10h 5 s) it ends well inside the engine's 60 s stall limit
 * (efi/disk/plan.c DISK_STALL_NS). */
#define AHCI_CMD_TIMEOUT_NS (30 * NS_PER_S)
/* Largest single command (max_transfer_bytes): 4 MiB, one or two PRD
 * entries for a physically contiguous buffer. */
#define AHCI_MAX_TRANSFER_BYTES (4u << 20)

#endif
