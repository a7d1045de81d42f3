/* What the two MPT model tests share: test_mpt1.c (an MPI 1.5 IOC,
 * SAS1068E-like) and test_mpt2.c (MPI 2.0/2.5, SAS2008/SAS3008-like).
 * Their IOCs differ (IOC FACTS and IOC INIT layouts, request FIFO against
 * request descriptors, reply FIFO against reply queues) and stay in each
 * file; the doorbell handshake's request dwords, the controller's PCI
 * function and the way a test polls a disk are the same for both. */
#ifndef BAREMARK_TEST_MPT_SIM_H
#define BAREMARK_TEST_MPT_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/blkdev.h"
#include "platform_sim.h"

/* Host Interrupt Status bit 31 (IOP doorbell status, mpi.h
 * MPI_HIS_IOP_DOORBELL_STATUS / mpi2.h MPI2_HIS_IOP_DOORBELL_STATUS): set
 * while the IOC has not yet taken the dword written to the doorbell. */
#define MPT_SIM_HIS_SYS2IOC 0x80000000u

/* A doorbell handshake's request as an IOC takes it, dword by dword: the
 * same on MPI 1.5 and MPI 2.x (Linux mptbase mpt_handshake_req_reply_wait
 * and mpt3sas _base_handshake_req_reply_wait write a dword, then wait
 * for the IOP doorbell status to clear before the next). What a test
 * sets to make the IOC slow, and what the model counts for it, are here
 * too. */
struct mpt_sim_hs_request {
    uint32_t dwords, got, dw[64];   /* the request's length in dwords, those written so far */
    /* Dwords taken this late (0: the host sees the IOP doorbell status
     * set once): the bit stays set until then, and a dword written before
     * it clears is refused (the doorbell holds one dword).
     * ack_never_fn/_dword: that dword (1-based) of a handshake of that
     * function is never taken. */
    uint64_t ack_late_ns, ack_due_ns;
    bool ack_pending;
    unsigned late_acks;
    uint8_t ack_never_fn;
    unsigned ack_never_dword;
    /* The test numbers its poll() calls (call); per call, the request
     * dwords written and the HIS reads while a dword was not yet taken,
     * and the most of each in one call. */
    unsigned call, dw_call, dwords_in_call, max_dwords_in_call;
    unsigned his_call, his_waits_in_call, max_his_waits_in_call;
};

/* What became of a request dword written to the doorbell. */
enum mpt_sim_dword {
    MPT_SIM_DWORD_REFUSED,  /* the IOC had not taken the one before: a protocol violation */
    MPT_SIM_DWORD_HELD,     /* the IOC takes it later (mpt_sim_hs_ack_due) */
    MPT_SIM_DWORD_TAKEN,    /* taken; the request is whole when got == dwords */
};

/* The host wrote request dword v to the doorbell; his is the model's
 * Host Interrupt Status. */
enum mpt_sim_dword mpt_sim_hs_dword(struct mpt_sim_hs_request *r, uint32_t *his, uint32_t v);
/* The host reads HIS: its value (a dword not yet taken is counted as a
 * wait in the current call; a taken one is seen pending only once). */
uint32_t mpt_sim_hs_his_read(struct mpt_sim_hs_request *r, uint32_t *his);
/* A held dword whose time has come is taken now: true then (the request
 * is whole when got == dwords). */
bool mpt_sim_hs_ack_due(struct mpt_sim_hs_request *r, uint32_t *his);

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
