/* An instant AHCI HBA with one SATA disk, for the per-I/O cost benchmark
 * (and its unit test): just enough of AHCI 1.3.1 for the driver's real
 * probe (GHC.AE and GHC.HR, section 3.1; a port's COMRESET through
 * PxSCTL.DET, link up and the disk's signature, section 10.4; PxCMD.ST/FRE
 * mirrored in CR/FR; IDENTIFY DEVICE as PIO data-in) and for queued reads
 * and writes (READ/WRITE FPDMA QUEUED, ACS-3 7.22 / 7.61): each command
 * runs inside the PxCI write that issues it, and its completion (the D2H
 * FIS that frees the slot, the Set Device Bits FIS that clears its PxSACT
 * bit, PxIS.DHRS/SDBS as a real HBA sets them) is there at once.
 *
 * It moves no data on reads and writes (a benchmark of CPU cost, not of
 * memcpy), but it refuses what an HBA and a disk refuse:
 *  - a bad command table (CTBA not 128-byte aligned, section 4.2.2), a bad
 *    PRD table (no entry, an odd byte count or a data base not word
 *    aligned, section 4.2.3.3: PxIS.HBDS), or one shorter than the transfer
 *    (the disk sends more than it holds: PxIS.OFS, section 3.3.5);
 *  - a slot not issued as NCQ needs it (PxSACT bit not set before PxCI,
 *    section 5.3.2, or an FPDMA tag that is not the slot: the HBA cannot
 *    match the disk's DMA Setup FIS to that slot): PxIS.IFS;
 *  - a command FIS that is not a Register H2D FIS with its C bit (SATA 3.x
 *    10.5.5): PxIS.IFS;
 *  - an LBA range past the end: the disk fails the queued command (IDNF,
 *    ERR in the SDB FIS: PxIS.TFES); an unknown command: ABRT.
 * Each of these stops the port (section 6.2.2) until PxCMD.ST goes 1 -> 0,
 * as a real HBA, and is counted. Writes a real HBA ignores (a command
 * issued to a stopped list, ST set while CR still reads set, SControl.DET
 * changed while the list runs) are ignored too, and counted. The disk has no GPL, so the driver's
 * recovery is a COMRESET.
 *
 * Port 0 is the driver's (PI). Port 1 exists only for the benchmark's
 * own measurement of the model (PI does not list it, the driver never
 * touches it), as nvme_instant's model-only queue pair. Register reads
 * and writes are counted, so the benchmark can subtract the model's share
 * and show how many MMIO accesses an I/O costs. Host build only. */
#ifndef BAREMARK_AHCI_INSTANT_H
#define BAREMARK_AHCI_INSTANT_H

#include "platform_sim.h"

#define AHCI_INSTANT_PORTS 2
#define AHCI_INSTANT_BENCH_PORT 1

struct ahci_instant_port {
    uint32_t clb, clbu, fb, fbu, is, cmd, tfd, sig, ssts, sctl, serr, sact, ci;
    bool halted;                      /* stopped on an error until ST goes 1 -> 0 */
};

struct ahci_instant {
    struct plat_sim_dev dev;
    uint32_t cap, ghc, pi;
    uint64_t blocks;                  /* the disk: 512-byte sectors */
    struct ahci_instant_port port[AHCI_INSTANT_PORTS];
    /* What happened. */
    uint64_t reg_reads, reg_writes;   /* every MMIO access */
    uint64_t ci_writes;               /* PxCI writes that issued at least one slot */
    uint64_t io_done;                 /* reads and writes completed OK */
    uint64_t io_refused;              /* ended with an error: LBA range, unknown command */
    uint64_t bad_prdt, bad_fis, not_issued; /* refused by the HBA */
    uint64_t refused;                 /* writes a real HBA ignores (sata_model.h): PxCI/PxSACT with ST
                                       * clear, ST set while CR is set, SControl.DET while ST is set */
};

/* An HBA at PCI address a (32 slots, NCQ, 64-bit) with a disk of blocks
 * 512-byte sectors on port 0, attached to the host platform. */
void ahci_instant_attach(struct ahci_instant *m, struct pci_addr a, uint64_t blocks);
void ahci_instant_detach(struct ahci_instant *m);

/* ABAR offset of register reg of port n. */
static inline uint32_t ahci_instant_reg(unsigned n, uint32_t reg) { return 0x100 + 0x80 * n + reg; }

#endif
