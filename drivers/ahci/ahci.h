/* Native AHCI driver: takes an AHCI 1.x SATA controller from the firmware,
 * resets it, brings up every implemented port and exposes each ATA disk as
 * a struct bm_disk with one tagged queue (NCQ: up to 32 commands in flight;
 * otherwise one). Polled; no interrupts. */
#ifndef BAREMARK_AHCI_H
#define BAREMARK_AHCI_H

#include "../blkdev.h"
#include "../../efi/time_units.h"

extern const struct bm_driver ahci_driver;

/* A command that has not finished after bm_io_timeout_ns() (io_timeout=;
 * 30 s by default, as Linux ATA_TMOUT_INTERNAL and the SCSI disk default,
 * sd SD_TIMEOUT) is reported as BM_ETIMEDOUT and the port is reset. With
 * the recovery's own bounds (PxCMD.CR 0.5 s, COMRESET and ready 10 s; a
 * device error's log 10h 5 s) it ends well inside the engine's stall
 * limit (efi/disk/plan.c: 60 s, or twice io_timeout=). */
/* Largest single command (max_transfer_bytes): 4 MiB, one or two PRD
 * entries for a physically contiguous buffer. */
#define AHCI_MAX_TRANSFER_BYTES (4u << 20)

#endif
