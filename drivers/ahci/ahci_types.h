/* Shared inside the AHCI driver only: the controller and port structs,
 * the per-port DMA memory layout, register access, and the functions the
 * driver's files give each other. Each file calls only those below it
 * (no circles):
 *   ahci.c            the driver: probe, release        -> port_setup, hba, link, port
 *   ahci_port_setup.c port memory, IDENTIFY, attach     -> exec, port (and io's ahci_ops)
 *   ahci_io.c         the tagged queue: submit, poll, SMART -> recover, exec, port
 *   ahci_recover.c    error recovery (section 6.2.2)    -> exec, link, port
 *   ahci_exec.c       slot filling, polled commands, port restart -> link, port, ahci_cmd
 *   ahci_link.c       COMRESET, debounce, device ready  -> port
 *   ahci_hba.c        take over, reset, restore the HBA -> port
 *   ahci_port.c       port diagnostics, register waits, PxCMD.ST/FRE
 * ata.c (ATA commands and IDENTIFY parsing) and ahci_cmd.c (command header
 * and PRD builders) are pure and call none of these. */
#ifndef BAREMARK_AHCI_TYPES_H
#define BAREMARK_AHCI_TYPES_H

#include "ahci_quirks.h"
#include "ahci.h"
#include "ahci_cmd.h"
#include "ahci_regs.h"
#include "ata.h"
#include "../pci.h"
#include "../../efi/time_units.h"

/* ---- Limits shared between files ------------------------------------------------------- */

#define AHCI_POLL_NS (10 * NS_PER_US) /* pause between register reads in setup waits */
#define AHCI_SYNC_CMD_MS 5000      /* IDENTIFY DEVICE, READ LOG EXT, SMART (Linux ATA_EH_CMD_DFL_TIMEOUT) */
#define AHCI_RECOVER_READY_MS 10000 /* device ready after a COMRESET in error recovery */
#define AHCI_STOP_MS 500           /* PxCMD.CR and FR clear within 500 ms (section 10.1.2; Linux
                                    * ahci_stop_engine(), ahci_stop_fis_rx()) */
#define AHCI_CLO_MS 500            /* PxCMD.CLO clears when the override is done (ahci_kick_engine()) */

/* ---- Per-port memory: one allocation, laid out as the spec aligns it ---------------- */

#define AHCI_PRDT_ENTRIES 8        /* a contiguous 4 MiB buffer needs 1 or 2 */
#define AHCI_CMD_TABLE_BYTES (AHCI_CT_PRDT + AHCI_PRDT_ENTRIES * (int)sizeof(struct ahci_prd))
#define AHCI_MEM_CLB 0x0000        /* 32 command headers, 1 KiB aligned */
#define AHCI_MEM_RFIS 0x0400       /* received FIS area, 256 B aligned */
#define AHCI_MEM_TABLES 0x0800     /* 32 command tables, 128 B aligned */
#define AHCI_MEM_SCRATCH (AHCI_MEM_TABLES + AHCI_SLOTS_MAX * AHCI_CMD_TABLE_BYTES) /* IDENTIFY, logs */
#define AHCI_MEM_BYTES (AHCI_MEM_SCRATCH + 2 * ATA_SECTOR_BYTES) /* SMART data + thresholds */

_Static_assert(AHCI_CMD_TABLE_BYTES % AHCI_CMD_TABLE_ALIGN == 0, "command tables stay 128-byte aligned");
_Static_assert(AHCI_MEM_RFIS % AHCI_RFIS_ALIGN == 0 && AHCI_MEM_RFIS >= AHCI_SLOTS_MAX * 32, "FIS area layout");
_Static_assert(AHCI_MEM_TABLES >= AHCI_MEM_RFIS + AHCI_RFIS_BYTES, "tables after the FIS area");

struct ahci_ctrl;

/* What the driver remembers of a command the hardware owns. */
struct ahci_slot {
    uint64_t deadline_ns;
    uint64_t lba;
    uint32_t blocks;
    bool write;
};

struct ahci_port {
    struct ahci_ctrl *ctrl;
    unsigned num;
    volatile void *regs;

    uint8_t *mem;                  /* AHCI_MEM_BYTES of DMA memory */
    struct ahci_cmd_header *hdr;
    uint8_t *rfis;
    uint8_t *tables;
    uint8_t *scratch;

    /* Link bring-up (ahci_ports_hardreset) */
    enum ahci_link {
        LINK_PENDING,              /* COMRESET done, DET not settled yet */
        LINK_EMPTY,                /* DET settled at 0, 4 or (2 s) 1: link offline */
        LINK_UP,                   /* DET=3: waiting for the device's first D2H FIS */
        LINK_READY,                /* BSY and DRQ clear: the device answered */
        LINK_FAILED,               /* a device is there but did not come up: see why */
    } link;
    uint32_t det_last;
    uint64_t det_since_ns;
    unsigned link_step;            /* LSTEP_* of ahci_link.c */
    unsigned link_tries;           /* writes of SControl.DET=0 so far */
    unsigned link_deadline_ms;
    uint64_t link_next_ns;         /* the next step is not due before this */
    uint64_t link_deadline_ns;     /* device ready by then (from the COMRESET's end) */
    uint64_t deb_start_ns;
    char why[96];                  /* LINK_FAILED: what went wrong, for the diagnostic */

    bool started;                  /* PxCMD.ST set by us */
    bool dead;                     /* recovery failed: every submit fails, nothing is reaped */
    /* Error recovery in progress (ahci_recover.c): a state machine taken
     * one step on by each poll(), every wait a look at a register and a
     * deadline; the caught commands complete when it ends, commands
     * submitted meanwhile are issued once the port runs again. */
    enum ahci_rec {
        REC_NONE,
        REC_STOP,                  /* PxCMD.ST cleared: CR looked at, AHCI_STOP_MS */
        REC_CLO,                   /* PxCMD.CLO set: looked at until it clears, AHCI_CLO_MS */
        REC_LOG,                   /* READ LOG EXT 10h issued: PxCI looked at, AHCI_SYNC_CMD_MS */
        REC_COMRESET,              /* the port's COMRESET (ahci_link_step) */
    } rec;
    uint8_t rec_fault;             /* enum ahci_fault */
    bool rec_entered;              /* the step's entry (its register write) is done */
    bool rec_reset;                /* a COMRESET is to follow the stop */
    bool rec_did_reset;            /* ...and was done: the device's queue and error state are gone */
    bool rec_log_tried;            /* log 10h was read, or tried */
    int rec_tag;                   /* FAULT_TIMEOUT: the tag that timed out */
    unsigned rec_log_slot;         /* REC_LOG: the slot READ LOG EXT went out in */
    uint32_t rec_caught;           /* the commands the error caught */
    uint64_t rec_start_ns, rec_step_ns, rec_deadline_ns;
    char rec_why[64];
    char rec_steps[112];           /* the steps done so far and their time: "engine stop 400 ms, ..." */
    char rec_last[160];            /* the last recovery, for the recovery op (blkdev.h) */
    bool ncq;
    struct ata_identity id;

    uint32_t busy;                 /* slots the hardware owns */
    uint32_t unrung;               /* ...of which submitted and not yet written to PxCI (ahci_ring) */
    uint64_t next_check_ns;        /* earliest deadline among busy slots (or later) */
    uint64_t next_error_check_ns;  /* next look at PxIS while nothing finishes */
    struct ahci_slot slot[AHCI_SLOTS_MAX];
    /* Finished commands not yet handed to the engine: at most one per slot. */
    struct bm_completion done[AHCI_SLOTS_MAX];
    unsigned done_head, done_count;

    struct bm_disk disk;
};

struct ahci_ctrl {
    struct pci_addr addr;
    char bdf[16];
    unsigned index;                /* the N in "ahciNpM" */
    volatile void *abar;
    uint64_t abar_bytes;
    uint32_t cap, cap2, pi, vs;    /* cap: what we trust, host quirks applied */
    uint32_t hquirks;              /* AHCI_HQUIRK_* (ahci_quirks.h) */
    uint16_t vendor;               /* PCI vendor ID (drive quirks that hold on one maker's hosts) */
    struct ahci_port *port[AHCI_MAX_PORTS];
};

/* ---- Register access ------------------------------------------------------------------- */

static inline uint32_t hba_rd(struct ahci_ctrl *c, uint32_t off) { return mmio_read32(c->abar, off); }
static inline void hba_wr(struct ahci_ctrl *c, uint32_t off, uint32_t v) { mmio_write32(c->abar, off, v); }
static inline uint32_t port_rd(struct ahci_port *p, uint32_t off) { return mmio_read32(p->regs, off); }
static inline void port_wr(struct ahci_port *p, uint32_t off, uint32_t v) { mmio_write32(p->regs, off, v); }
static inline uint64_t phys_of(const void *p) { return plat_virt_to_phys(p); }

static inline unsigned popcount32(uint32_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

static inline uint8_t *slot_table(struct ahci_port *p, unsigned slot)
{
    return p->tables + slot * AHCI_CMD_TABLE_BYTES;
}

/* The ports of mask that are set up, lowest first. */
#define for_each_port(c, mask, i, p)                                                                   \
    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++)                                                      \
        for (struct ahci_port *p = ((mask) & (1u << i)) ? (c)->port[i] : NULL; p; p = NULL)

/* ---- ahci_port.c: diagnostics, waits, port state ------------------------------------------ */

void ahci_port_diag(struct ahci_port *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ahci_wait_reg(volatile void *base, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms);
int ahci_port_wait_reg(struct ahci_port *p, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms,
                       const char *what);
bool ahci_port_stop_begin(struct ahci_port *p);
int ahci_port_stop(struct ahci_port *p);
int ahci_port_quiesce(struct ahci_port *p);
void ahci_port_start(struct ahci_port *p);

/* ---- ahci_hba.c ------------------------------------------------------------------------------- */

int ahci_hba_reset(struct ahci_ctrl *c, char *err, size_t errlen);

/* ---- ahci_link.c ------------------------------------------------------------------------------ */

uint32_t ahci_ports_hardreset(struct ahci_ctrl *c, uint32_t mask, unsigned deadline_ms);
void ahci_link_begin(struct ahci_port *p, unsigned deadline_ms);
bool ahci_link_step(struct ahci_port *p);
int ahci_link_result(struct ahci_port *p);
int ahci_port_comreset(struct ahci_port *p, unsigned ready_ms);

/* ---- ahci_exec.c ------------------------------------------------------------------------------ */

int ahci_slot_prepare(struct ahci_port *p, unsigned slot, const uint8_t fis[SATA_FIS_H2D_BYTES], void *buf,
                      uint32_t bytes, bool write);
int ahci_slot_issue(struct ahci_port *p, unsigned slot, const uint8_t fis[SATA_FIS_H2D_BYTES], void *buf,
                    uint32_t bytes);
int ahci_port_exec_sync(struct ahci_port *p, const uint8_t fis[SATA_FIS_H2D_BYTES], void *buf, uint32_t bytes,
                        unsigned timeout_ms, uint8_t *sts, uint8_t *err);
int ahci_port_restart(struct ahci_port *p, bool reset, bool *did_reset);
bool ahci_port_stopped_clear(struct ahci_port *p);
bool ahci_port_clo_begin(struct ahci_port *p);
void ahci_port_restart_end(struct ahci_port *p);

/* ---- ahci_recover.c --------------------------------------------------------------------------- */

enum ahci_fault {
    FAULT_DEVICE,                  /* the device reported an error (STS.ERR/DF, TFES) */
    FAULT_HBA,                     /* a bus, interface, link or FIS error (AHCI_PxIS_RESET) */
    FAULT_TIMEOUT,                 /* a command did not finish in bm_io_timeout_ns() */
};

void ahci_complete(struct ahci_port *p, unsigned tag, int status, const char *detail);
void ahci_port_recover(struct ahci_port *p, enum ahci_fault fault, uint32_t is, int timed_out_tag);
void ahci_port_recover_step(struct ahci_port *p);
void ahci_port_recover_finish(struct ahci_port *p);
void ahci_port_recovery_describe(struct ahci_port *p, char *out, size_t len);

/* ---- ahci_io.c -------------------------------------------------------------------------------- */

extern const struct bm_disk_ops ahci_ops;

/* ---- ahci_port_setup.c ------------------------------------------------------------------------ */

struct ahci_port *ahci_port_setup(struct ahci_ctrl *c, unsigned num);
int ahci_port_attach(struct ahci_port *p);
void ahci_port_free(struct ahci_port *p);

#endif
