/* An instant NVMe controller for the per-I/O cost benchmark (and its unit
 * test): just enough of NVMe 1.4 for the driver's real probe (controller
 * registers 3.1, admin queue, Identify, Set Features Number of Queues,
 * Create/Delete I/O CQ and SQ, section 5) and for Read and Write (NVM
 * command set 6.9, 6.15), each completed inside the SQ tail doorbell write
 * that made it visible, in host memory. It moves no data (a benchmark of
 * CPU cost per I/O, not of memcpy), but it still refuses what a controller
 * refuses: unknown opcodes, LBAs past the end, a namespace it does not
 * have, PRP1 not dword aligned, a doorbell past the queue's size, a CQ
 * head moved past the entries posted; a CQ the host did not free entries
 * of is counted as an overflow.
 *
 * It counts doorbell writes, so a test can see how many commands one SQ
 * tail write carried. Host build only (efi/platform_sim.h). */
#ifndef BAREMARK_NVME_INSTANT_H
#define BAREMARK_NVME_INSTANT_H

#include "platform_sim.h"

#define NVME_INSTANT_MAXQ 72          /* queue ids, admin included: 4 namespaces of 16 pairs */

struct nvme_instant_queue {
    bool live;
    uint8_t *base;
    uint32_t size, head, tail;
    uint16_t cqid;                    /* SQ: its CQ */
    uint8_t phase;                    /* CQ: phase tag of the next entry */
};

struct nvme_instant {
    struct plat_sim_dev dev;
    uint64_t cap;
    uint32_t cc, csts, aqa;
    uint64_t asq, acq;
    uint64_t blocks;                  /* namespace 1, 512-byte blocks */
    unsigned grant;                   /* I/O queue pairs Set Features grants */
    /* Faults (the engine's CPU tests): an I/O doorbell written by a CPU
     * other than the boot processor never returns until release is set,
     * and moves the clock on meanwhile, as a machine whose CPU hung. */
    volatile bool hang_off_bsp, release;
    volatile bool hang_still;         /* the hung CPU stops moving the clock (a later run is timed) */
    volatile int hung_cpus;
    /* Which thread rang each I/O queue's SQ doorbell (0: none yet; -1: several). */
    long sq_thread[NVME_INSTANT_MAXQ];
    struct nvme_instant_queue sq[NVME_INSTANT_MAXQ], cq[NVME_INSTANT_MAXQ];
    /* What happened. */
    uint64_t io_done, io_refused;     /* I/O commands completed OK / with an error status */
    uint64_t sq_doorbells, cq_doorbells; /* I/O queue doorbell writes */
    uint64_t cq_overflows;
    uint64_t bad_cq_heads;            /* CQ head doorbells past what was posted */
    uint64_t reg_reads;               /* register reads (none on the I/O path) */
};

/* May the host move this CQ's head to v? Only over entries posted: a head
 * past the tail is an Invalid Doorbell Write Value (NVMe 1.4 section 5.2),
 * which a controller ignores and reports. */
static inline bool nvme_instant_cq_head_ok(const struct nvme_instant_queue *cq, uint32_t v)
{
    return (v + cq->size - cq->head) % cq->size <= (cq->tail + cq->size - cq->head) % cq->size;
}

/* A controller at PCI address a (queues of 1024 entries, grant pairs,
 * a namespace of blocks 512-byte blocks), attached to the host platform. */
void nvme_instant_attach(struct nvme_instant *m, struct pci_addr a, unsigned grant, uint64_t blocks);
void nvme_instant_detach(struct nvme_instant *m);

/* The model's SQ tail doorbell, called directly (no MMIO routing): the
 * benchmark measures the model's own cost with it. */
void nvme_instant_sq_doorbell(struct nvme_instant *m, uint16_t qid, uint32_t tail);

#endif
