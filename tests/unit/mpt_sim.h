/* What the two MPT model tests share: test_mpt1.c (an MPI 1.5 IOC,
 * SAS1068E-like) and test_mpt2.c (MPI 2.0/2.5, SAS2008/SAS3008-like).
 * Their IOCs differ (IOC FACTS and IOC INIT layouts, request FIFO against
 * request descriptors, reply FIFO against reply queues) and stay in each
 * file; the controller's PCI function and the way a test polls a disk
 * are the same for both. */
#ifndef BAREMARK_TEST_MPT_SIM_H
#define BAREMARK_TEST_MPT_SIM_H

#include <stdint.h>

#include "drivers/blkdev.h"
#include "platform_sim.h"

/* Put an LSI (vendor 1000h) SAS controller of this device id, class
 * 01h/07h (mass storage, SAS), on the simulated bus at addr: BAR0 I/O,
 * BAR1 64 KiB of 64-bit memory, whose registers the model's callbacks
 * serve with ctx (write64 may be NULL: 8-byte writes then come as two
 * dwords). sd must stay valid until plat_sim_detach(sd). */
void mpt_sim_attach(struct plat_sim_dev *sd, struct pci_addr addr, uint16_t device_id, void *ctx,
                    uint32_t (*read32)(void *ctx, int bar, uint32_t off),
                    void (*write32)(void *ctx, int bar, uint32_t off, uint32_t v),
                    void (*write64)(void *ctx, int bar, uint32_t off, uint64_t v));

/* Poll d's queue 0 until n completions arrived in out, as an engine
 * polls: 10 us of simulated time pass for each poll that brings nothing
 * (1 s at most), so a recovery step that waits for the chip (the
 * diagnostic reset's 100 ms) gets there. The completions that came. */
int mpt_poll_n(struct bm_disk *d, struct bm_completion *out, int n);

#endif
