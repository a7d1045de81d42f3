/* What the files of the NVMe driver share: the controller, namespace and
 * queue structures, and each file's functions the others call.
 *
 * The files, each with one job, and who calls whom (no file calls one that
 * calls it back):
 *   nvme.c          probe and release: controller start, namespaces, queue
 *                   pairs, shutdown            -> all of the below
 *   nvme_io.c       submit / poll / health (the disk's ops)
 *                                              -> recover, queue, admin
 *   nvme_recover.c  timeouts, Abort, controller reset and bring-back
 *                                              -> hmb, admin
 *   nvme_queue.c    I/O queue pair memory, Create I/O CQ/SQ -> admin
 *   nvme_hmb.c      host memory buffer         -> admin
 *   nvme_admin.c    registers, enable/disable, admin queue, synchronous
 *                   admin commands             -> nothing of the above
 *   nvme_ns.c, nvme_parse.c, nvme_prp.c, nvme_status.c: pure (nvme.h). */
#ifndef BAREMARK_NVME_TYPES_H
#define BAREMARK_NVME_TYPES_H

#include "nvme.h"
#include "nvme_regs.h"
#include "../pci.h"
#include "time_units.h"

/* I/O commands without a completion after bm_io_timeout_ns() (io_timeout=,
 * 30 s by default as Linux nvme_core.io_timeout) get an Abort; if they are
 * still not back NVME_ABORT_WAIT_NS later (or the controller reports a
 * fatal status, or has left the bus), the controller is reset: a controller
 * level reset (section 7.3.2) is the one recovery that surely stops its DMA.
 * Admin commands keep Linux's 60 s (NVME_ADMIN_TIMEOUT).
 * Linux gives an aborted command a whole timeout more; 10 s keeps the
 * reset (and the commands it returns) inside the engine's stall limit
 * (efi/disk/plan.c: 60 s, or twice io_timeout=), which would otherwise
 * give up first. */
#define NVME_ABORT_WAIT_NS (10ull * NS_PER_S)
#define NVME_ADMIN_TIMEOUT_NS (60ull * NS_PER_S)
/* poll() looks for expired commands at most this often: scanning 1024 tags
 * on every poll would cost more than the I/O. */
#define NVME_TIMEOUT_SCAN_NS (100ull * NS_PER_MS)
/* Shutdown notification: RTD3E clamped to 5..60 s, 5 s if not reported
 * (Linux nvme_init_ctrl_finish(), module parameter shutdown_timeout). */
#define NVME_SHUTDOWN_MIN_MS 5000u
#define NVME_SHUTDOWN_MAX_MS 60000u
/* Admin queue depth: commands are issued one at a time, plus one Abort. */
#define NVME_ADMIN_ENTRIES 32
/* Admin CIDs stay below this on NVME_QUIRK_SHARED_TAGS controllers, and
 * I/O CIDs start at it (Linux NVME_AQ_DEPTH reserved tags). */
#define NVME_SHARED_TAGS_ADMIN 32u
/* Times a controller is brought back after a timeout before it is given up. */
#define NVME_MAX_RECOVERIES 3

struct nvme_slot {
    uint64_t submit_ns;            /* when the controller last got it */
    uint64_t retry_at_ns;          /* retry_pending: when to submit it again */
    struct nvme_sqe cmd;           /* kept for a retry */
    uint8_t busy;
    uint8_t expired;               /* timed out; reported once the controller stopped */
    uint8_t retry_pending;         /* failed with DNR clear: waits to go out again */
    uint8_t retries;
    uint8_t aborted;               /* an Abort was sent for it */
};

struct nvme_queue {
    uint16_t qid;
    uint32_t entries;              /* SQ and CQ size */
    uint8_t sqe_log2;              /* SQ entry stride: 6, or 7 on NVME_QUIRK_128_BYTES_SQES */
    uint16_t cid_base;             /* CID = tag + cid_base (NVME_QUIRK_SHARED_TAGS: 32) */
    struct nvme_sqe *sq;
    volatile struct nvme_cqe *cq;
    uint32_t sq_db, cq_db;         /* doorbell offsets in BAR0 */
    uint32_t sq_tail, sq_head, cq_head;
    uint32_t sq_rung;              /* the SQ tail the controller was last told (nvme_sq_ring) */
    uint32_t cq_rung;              /* the CQ head the controller was last told (nvme_cq_release) */
    uint64_t stamp_ns;             /* submit_ns of commands pushed now: refreshed by poll */
    uint16_t phase;                /* phase tag of the next new CQE */
    uint32_t inflight;             /* busy slots, retry_pending ones included */
    uint32_t retries_pending;
    struct nvme_slot *slots;       /* [max_qd], indexed by tag = CID */
    uint64_t *prp_lists;           /* [max_qd] lists of list_bytes each */
    uint64_t next_scan_ns;
    bool dead;                     /* controller reset: report what is left */
    bool flushed;                  /* ...done: the rest waits for the queue to come back */
    bool broken;                   /* could not be re-created: out of service */
    uint32_t gen;                  /* the controller generation it was created in */
};

struct nvme_ctrl;

struct nvme_ns {
    struct bm_disk disk;
    struct nvme_ctrl *ctrl;
    uint32_t nsid;
    uint32_t list_bytes;
    uint8_t pi_type;               /* Read/Write carry PRACT (nvme_pi_rw_fields) */
    unsigned nq;
    struct nvme_queue q[NVME_MAX_QUEUES_PER_NS];
};

/* Recovery states (nvme_recover.c): after ENABLING, one Set Features
 * each, in the order of Linux nvme_reset_work(). */
enum { NVME_LIVE, NVME_RESETTING, NVME_ENABLING, NVME_SET_ACRE, NVME_SET_HMB, NVME_SET_QUEUES, NVME_FAILED };

/* How long each Set Features of a recovery may take. Linux gives admin
 * commands 60 s (NVME_ADMIN_TIMEOUT); a ready controller answers in
 * microseconds, and 10 s each keeps a recovery that gives up inside the
 * engine's stall limit (efi/disk/plan.c, at least 60 s), as
 * NVME_ABORT_WAIT_NS does. */
#define NVME_RECOVER_ADMIN_TIMEOUT_NS (10ull * NS_PER_S)

struct nvme_ctrl {
    struct pci_addr addr;
    char bdf[16];                  /* where of plat_diag */
    unsigned index;                /* nvme<index>n<nsid> */
    volatile void *bar;
    uint64_t bar_size;
    uint64_t cap;
    uint32_t dstrd, vs;
    uint32_t ready_timeout_ms;     /* CAP.TO: for CSTS.RDY = 0 after a reset */
    uint32_t enable_timeout_ms;    /* CAP.TO or CRTO.CRWMT: for CSTS.RDY = 1 */
    uint32_t shutdown_timeout_ms;
    bool multi_css;                /* CC.CSS = 110b: every I/O command set enabled */
    unsigned dma_bits;             /* what the controller addresses: 64, or 48 (quirk) */
    uint32_t stripe_bytes;         /* NVME_QUIRK_STRIPE_SIZE: no command is larger (0: none) */
    char cmb_note[112];            /* why the CMB holds no SQs ("" if it offers none) */
    uint32_t quirks;               /* NVME_QUIRK_* (nvme_pci_quirks) */
    const char *applied[6];        /* quirk names for each disk's record */
    unsigned napplied;

    struct nvme_sqe *asq;
    volatile struct nvme_cqe *acq;
    uint32_t asq_tail, acq_head;
    uint16_t aphase, admin_cid;
    uint8_t admin_lock;            /* the admin queue: probe/health vs. Aborts from poll */
    bool admin_live;               /* enabled: the admin queue takes commands */
    /* The command nvme_admin() waits for, and its result. */
    uint16_t wait_cid, wait_status;
    uint32_t wait_dw0;
    bool waiting, wait_done;
    uint16_t last_admin_status;    /* status of the last admin command that completed with one */
    /* One Abort at a time (Linux sends up to ACL + 1; one is enough here). */
    bool abort_outstanding;
    uint16_t abort_cid;

    void *hmb;                     /* host memory buffer lent to the controller */
    uint64_t hmb_bytes;
    uint8_t *hmb_descs;            /* its descriptor list (one entry) */
    bool hmb_enabled;

    uint8_t *idbuf;                /* 4 KiB for Identify data */
    uint32_t *nslist;              /* 4 KiB active namespace list */
    uint8_t *descbuf;              /* 4 KiB namespace identification descriptors */
    struct nvme_ctrl_info info;

    struct nvme_ns *ns[NVME_MAX_NS_PER_CTRL];
    unsigned nns;
    /* Recovery after a timeout (Linux nvme_timeout -> nvme_reset_ctrl ->
     * nvme_reset_work): reset, enable, and each queue re-created by the CPU
     * that drives it, the commands the reset took resubmitted. Stepped from
     * poll() without waiting; at most NVME_MAX_RECOVERIES times. */
    volatile int state;            /* NVME_LIVE ... NVME_FAILED */
    volatile uint32_t gen;         /* +1 each time the controller is back */
    volatile bool dead;            /* not LIVE: the I/O queues are gone */
    volatile bool stopped;         /* ...and CSTS.RDY went to 0 (or it left the bus) */
    bool fatal_seen;               /* CSTS.CFS was set when it was reset */
    unsigned recoveries;
    uint64_t reset_at_ns, state_deadline_ns;
    unsigned queue_want;           /* what Set Features Number of Queues asked */
    /* The recovery's record: the step under way (or where it ended), when
     * it and the recovery began, and how the last recovery ended. */
    const char *step;              /* "CSTS.RDY = 0", "Set Features Number of Queues", ... */
    bool step_posted;              /* its admin command is on the queue */
    uint64_t step_at_ns, step_deadline_ns;
    uint64_t step_ms_last;         /* how long the last finished step took */
    char outcome[112];             /* "" while none ended; "back", or why it gave up */
    uint64_t recovery_ms;          /* how long the last ended recovery took */
};

static inline uint32_t rd32(struct nvme_ctrl *c, uint32_t off)
{
    return mmio_read32(c->bar, off);
}

static inline void wr32(struct nvme_ctrl *c, uint32_t off, uint32_t v)
{
    mmio_write32(c->bar, off, v);
}

/* ---- nvme_admin.c: registers, enable/disable, admin queue ---------------------- */

/* Error strings (err) name no device: the caller's plat_diag() or the
 * discovery record's `where` does. */
int nvme_wait_csts(struct nvme_ctrl *c, uint32_t mask, uint32_t val, uint32_t timeout_ms, const char *what, char *err,
                   size_t errlen);
int nvme_disable(struct nvme_ctrl *c, char *err, size_t errlen);
/* Admin queue registers and CC without EN; computes the enable timeout.
 * Returns the CC value to write with EN. */
uint32_t nvme_program_admin_queue(struct nvme_ctrl *c);
int nvme_enable(struct nvme_ctrl *c, char *err, size_t errlen);
bool nvme_admin_trylock(struct nvme_ctrl *c);
void nvme_admin_unlock(struct nvme_ctrl *c);
/* The one command waited for, without waiting (admin lock held):
 * nvme_admin_check() says BM_EBUSY until its answer is there, then BM_OK
 * or BM_EIO with the decoded status; nvme_admin_forget() gives up on it. */
void nvme_admin_post_nowait(struct nvme_ctrl *c, struct nvme_sqe *cmd);
int nvme_admin_check(struct nvme_ctrl *c, uint8_t opcode, uint32_t *dw0, char *err, size_t errlen);
void nvme_admin_forget(struct nvme_ctrl *c);
/* Issue one admin command and wait for its completion. */
int nvme_admin(struct nvme_ctrl *c, struct nvme_sqe *cmd, uint32_t *dw0, char *err, size_t errlen);
int nvme_identify(struct nvme_ctrl *c, uint8_t cns, uint32_t nsid, void *buf, char *err, size_t errlen);
bool nvme_acre_command(struct nvme_ctrl *c, struct nvme_sqe *cmd);
void nvme_enable_acre(struct nvme_ctrl *c);
void nvme_queue_count_command(struct nvme_sqe *cmd, unsigned want);
unsigned nvme_queues_granted(uint32_t dw0);
int nvme_set_queue_count(struct nvme_ctrl *c, unsigned want, unsigned *granted, char *err, size_t errlen);
/* Reap the admin queue for an Abort's completion, if nobody else is at it. */
void nvme_admin_poll(struct nvme_ctrl *c);
/* Abort one command without waiting for the answer; false if the admin
 * queue is busy or another Abort is still out. */
bool nvme_send_abort(struct nvme_ctrl *c, uint16_t sqid, uint16_t cid);

/* ---- nvme_hmb.c: host memory buffer --------------------------------------------- */

void nvme_hmb_command(struct nvme_ctrl *c, struct nvme_sqe *cmd, bool enable, bool returned);
int nvme_hmb_set(struct nvme_ctrl *c, bool enable, bool returned, char *err, size_t errlen);
void nvme_hmb_setup(struct nvme_ctrl *c);

/* ---- nvme_queue.c: I/O queue pairs ---------------------------------------------- */

int nvme_queue_create(struct nvme_ctrl *c, struct nvme_ns *ns, struct nvme_queue *q, uint16_t qid, uint32_t entries,
                      char *err, size_t errlen);
void nvme_queue_revive(struct nvme_ctrl *c, struct nvme_queue *q);
void nvme_queue_free(struct nvme_ns *ns, struct nvme_queue *q);

/* ---- nvme_recover.c: timeouts, reset, bring-back ---------------------------------- */

void nvme_recover_step(struct nvme_ctrl *c);
/* The disk's recovery() record (blkdev.h): the step under way and its
 * time, or how the last controller reset ended. */
void nvme_recovery_text(struct nvme_ctrl *c, char *out, size_t len);
bool nvme_check_timeouts(struct nvme_ns *ns, struct nvme_queue *q, uint64_t now);
int nvme_flush_dead(struct nvme_ns *ns, struct nvme_queue *q, struct bm_completion *out, int max);

/* ---- nvme_io.c: the disk's operations --------------------------------------------- */

extern const struct bm_disk_ops nvme_disk_ops;

#endif
