/* The disk glue every host bus adapter driver repeats, in one place.
 *
 * An HBA has one command pool and one reply queue (struct hba_queue) for
 * all of its disks. A struct hba_host is that shared part of a controller:
 * the queue, the disks it made, and the operations its transport provides
 * (drain the replies, react to a timed-out slot, post commands that are
 * due again after BUSY). A struct hba_disk is one disk behind it: the
 * engine's bm_disk, its share of the slots (hbaq_disk) and its address
 * (target, LUN, logical drive or not).
 *
 * The transport keeps its own controller structure, embeds a struct
 * hba_host in it and gives hba_disk_poll as its disks' poll(). Used by
 * the MegaRAID transports (MFI, Fusion) and by MPT (MPI 1 and MPI 2, whose
 * struct mpt_backend sits below struct mpt_ctrl's hba_host).
 */
#ifndef BAREMARK_HBA_DISK_H
#define BAREMARK_HBA_DISK_H

#include "hba_queue.h"
#include "scsi.h"

/* A step under way: not done, not failed (a positive value, never a
 * BM_E* error). */
#define HBA_PENDING 1

/* Task management the recovery escalates through (SAM-5 section 7). */
enum hba_tm {
    HBA_TM_ABORT_TASK,
    HBA_TM_TARGET_RESET,
};

/* What a transport does for the shared glue. Called with the queue lock
 * held; none of them may wait long (poll() calls them): what takes time
 * is posted and then looked at again on the next poll(). */
struct hba_host_ops {
    /* Hand every reply the controller has posted to hbaq_complete(). */
    void (*drain)(void *ctrl);
    /* Post again the command of a slot hbaq_next_retry() says is due
     * (BUSY / TASK SET FULL / UNIT ATTENTION); may be NULL. */
    void (*resend)(void *ctrl, uint32_t slot);
    /* Optional: is the controller itself gone (FAULT)? why: its state.
     * A controller that is gets no task management: the host reset, or
     * nothing (mpt3sas _base_fault_reset_work). */
    bool (*faulted)(void *ctrl, char *why, size_t whylen);
    /* Optional: post task management for the device of the command in
     * slot (ABORT TASK naming it), not waited for. BM_OK: posted, its
     * answer is looked at with tm_check; BM_ENOTSUP: none for this
     * command (the next step); another error: not sent (err says why). */
    int (*tm_post)(void *ctrl, enum hba_tm tm, uint32_t slot, char *err, size_t errlen);
    /* Has the task management posted last been answered? HBA_PENDING: not
     * yet; BM_OK; another error: it failed (err says how). */
    int (*tm_check)(void *ctrl, char *err, size_t errlen);
    /* The task management got no answer within tm_timeout_ns: give up on
     * it (what it used stays the controller's until it answers). */
    void (*tm_abandon)(void *ctrl);
    /* Optional: one step of a host reset, first with start set. HBA_PENDING:
     * under way, *step names the part ("diagnostic reset", "IOC INIT");
     * BM_OK: the controller owns no command any more (every one it held
     * was returned) and works again; another error: the controller is
     * given up (err says why; its held commands stay held). */
    int (*host_reset)(void *ctrl, bool start, const char **step, char *err, size_t errlen);
    uint64_t tm_timeout_ns;   /* how long task management may take */
};

/* The recovery of timed-out commands, one step per poll() (as the NVMe
 * driver's nvme_recover_step): ABORT TASK, then TARGET RESET, then the
 * host reset, each with its own bound, as the Linux midlayer escalates
 * (scsi_eh_abort_cmds, scsi_eh_target_reset, scsi_eh_host_reset; mpt3sas
 * scsih_abort -> scsih_target_reset -> scsih_host_reset). The controller's
 * other commands and disks carry on meanwhile. */
enum hba_rec_step {
    HBA_REC_IDLE = 0,
    HBA_REC_ABORT_TASK,
    HBA_REC_TARGET_RESET,
    HBA_REC_HOST_RESET,
};

struct hba_recovery {
    uint8_t step;             /* enum hba_rec_step */
    uint32_t slot;            /* the command being got back */
    bool tm_out;              /* task management posted and not answered yet */
    const char *sub;          /* host reset: the part under way */
    uint64_t started_ns;      /* this recovery began */
    uint64_t step_ns;         /* this step (or host reset part) began */
    uint64_t deadline_ns;     /* this step's bound */
    bool given_up;            /* a host reset failed: no more recovery */
    uint64_t next_scan_ns;    /* idle: when to look for a held command again */
    unsigned recoveries;      /* recoveries started */
    char last[192];           /* the last step that ended one, and its time ("ABORT TASK, 12 ms"); a host
                               * reset given up: its part and why ("host reset gave up in PORT ENABLE: ...") */
};

/* Where a disk is and the transport controller that reaches it; also the
 * context of the transport's SCSI exec function. */
struct hba_target {
    void *ctrl;
    bool logical;             /* a RAID logical drive (else a physical device) */
    uint16_t target;          /* LD target id, PD device id or SCSI target */
    uint32_t lun;
    uint16_t dev_handle;      /* MPI 2 device handle (MPT) */
    uint64_t sas_address;     /* MPT: finds the device again after an IOC reset */
};

struct hba_host;

struct hba_disk {
    struct bm_disk d;
    struct hba_host *host;
    struct hbaq_disk q;
    struct hba_target t;
    scsi_exec_fn exec;        /* the spec's: health commands after the probe */
    char scsi_name[48];       /* the drive in the SCSI layer's messages */
    bool sat;                 /* an ATA disk behind the HBA's SATL (scsi_disk_info.sat) */
    /* A logical drive: its member disks' device ids as the controller's
     * configuration last listed them (member_health, index 0). */
    uint16_t members[BM_MAX_MEMBERS];
    unsigned nmembers;
};

struct hba_host {
    struct hba_queue q;
    const struct hba_host_ops *ops;
    void *ctrl;               /* handed to ops */
    const char *where;        /* the controller's BDF, for plat_diag */
    struct hba_disk *disks[BM_MAX_DISKS];
    unsigned ndisks;
    struct hba_recovery rec;  /* timed-out commands being got back (hba_recover_step) */
};

/* How to make one disk (hba_disk_add). */
struct hba_disk_spec {
    struct hba_target t;
    const char *tname;        /* "ld1", "pd4": the drive in messages */
    const char *scsi_name;    /* the drive in the SCSI layer's messages; NULL: tname */
    const char *id;           /* the disk id, "megasas0d1" */
    struct scsi_hba_place at; /* driver, PCI place, max transfer (max_qd set here) */
    uint32_t max_qd;          /* the kind of drive's queue depth before the pool limit */
    bool one_if_untagged;     /* a LUN without CMDQUE takes one command at a time */
    scsi_exec_fn exec;        /* identification commands (ctx: the spec's hba_target) */
    const struct bm_disk_ops *ops;
};

/* The shared part of a controller with nslots command slots. */
int hba_host_init(struct hba_host *h, uint32_t nslots, uint64_t timeout_ns, const struct hba_host_ops *ops,
                  void *ctrl, const char *where);
/* Free the disks and the slot table. */
void hba_host_destroy(struct hba_host *h);
/* Free every disk of the controller. */
void hba_host_free_disks(struct hba_host *h);

/* Identify a drive and add it to the controller (h->disks[h->ndisks - 1])
 * and to disks. A drive that is not added is logged and skipped: the
 * SCSI layer's error (BM_ENODEV: nothing answers there), BM_ENOSPC or
 * BM_ENOMEM. */
int hba_disk_add(struct hba_host *h, struct bm_disk_list *disks, const struct hba_disk_spec *s);

/* An engine command the target ended with a SCSI status other than GOOD
 * (sense: its sense data, may be NULL): decided by the shared table
 * (scsi_disposition; Linux scsi_check_sense). BUSY, TASK SET FULL, UNIT
 * ATTENTION and NOT READY 04/01 go back to the queue to be sent again
 * after a back-off (hbaq_requeue; bounded by the command's own deadline),
 * RECOVERED ERROR completes as success (counted on its bm_disk,
 * bm_disk_count_recovered, and logged). Returns true when it took the slot; false: the
 * caller completes it as the error it is (also when too near its
 * deadline for another try). Call with the queue lock held, for a slot
 * in HBAQ_BUSY. */
bool hba_scsi_disposition(struct hba_host *h, uint32_t slot, uint8_t scsi_status, const uint8_t *sense,
                          size_t sense_len);

/* The HBA itself said "busy, send it again" for an engine command (MPI
 * IOCStatus BUSY / INSUFFICIENT_RESOURCES, which mpt3sas _scsih_io_done
 * turns into SAM_STAT_BUSY): the same disposition as a target's BUSY,
 * from the same table (hba_scsi_disposition). */
static inline bool hba_host_busy(struct hba_host *h, uint32_t slot)
{
    return hba_scsi_disposition(h, slot, SCSI_STATUS_BUSY, NULL, 0);
}

/* Drain the controller's replies until it holds no command (not counting
 * those waiting for a BUSY retry, which are ours), timeout_ns passes, or
 * gone (may be NULL; it reads the controller's state) says waiting is
 * pointless (a FAULTed firmware). Returns how many it still holds. As
 * Linux megasas_wait_for_outstanding(_fusion), which looks at the
 * firmware state on each round, before a reset or release. */
uint32_t hba_host_wait_idle(struct hba_host *h, uint64_t timeout_ns, bool (*gone)(void *ctrl));

/* bm_disk_ops.health for every HBA disk: LOG SENSE, or ATA SMART through
 * SAT for a SATA disk (scsi_read_health), with the transport's internal
 * command path. BM_ENOTSUP for a RAID logical drive (it has no health log
 * of its own: its members are read by the transport's member_health,
 * megasas_member_health) and for a drive with neither. */
int hba_disk_health(struct bm_disk *d, struct bm_health *out);
/* Advance the recovery of timed-out commands by one step (see struct
 * hba_recovery); never waits. Called by hba_disk_poll with the queue lock
 * held. */
void hba_recover_step(struct hba_host *h, uint64_t now_ns);

/* A driver's own command (slot, abandoned after its timeout) at probe
 * time: run the same recovery for it until it ends, polling the
 * controller (each step bounded by its own deadline). */
void hba_recover_now(struct hba_host *h, uint32_t slot);

/* What the recovery is doing, for a record: "TARGET RESET for slot 3,
 * 1200 ms so far" or the last one done; "" when none ran. */
void hba_recovery_describe(const struct hba_host *h, char *out, size_t len);

/* bm_disk_ops.recovery for every HBA disk: its controller's
 * hba_recovery_describe (under the queue lock). */
void hba_disk_recovery(struct bm_disk *d, char *out, size_t len);

/* Post again every command whose BUSY back-off is over (ops->resend). */
void hba_send_retries(struct hba_host *h);

/* Post an internal command's slot already handed to the hardware and wait
 * for it, draining the controller, until deadline_ns. BM_OK: done (its
 * status in *status, the slot freed); BM_ETIMEDOUT: the slot is abandoned
 * (held until the controller answers) and the caller decides what to do
 * about it. The one post-and-wait of MFI, Fusion and MPT. */
int hba_wait_internal(struct hba_host *h, uint32_t slot, uint64_t deadline_ns, int *status);

/* Pages of the driver's own for a synchronous command the controller
 * moves len bytes of, with src's bytes copied in (a data-out command;
 * NULL: none). NULL when there is no memory. */
void *hba_dma_lend(const void *src, uint32_t len);
/* The command is over: held (its slot is still the controller's, which
 * may yet move its data): dma is kept for good, and logged naming what;
 * else its bytes go to dst (data in; NULL: none) and it is freed. */
void hba_dma_back(const struct hba_host *h, void *dst, void *dma, uint32_t len, bool held, const char *what);

/* The DMA memory a driver's own SCSI command (identification, REQUEST
 * SENSE, health) moves its data through: pages of its own, with
 * cmd->buf's bytes copied in for a data-out command. cmd->buf belongs to
 * the SCSI layer, which frees or reuses it as soon as exec returns, a
 * timeout included; a controller that still owns the timed-out command
 * would then DMA into freed or reused memory. NULL when cmd moves no
 * data, or when there is no memory. */
void *hba_cmd_dma_get(const struct scsi_cmd *cmd);
/* After the command: held (its slot is still the controller's, which
 * may yet move its data): the pages are kept for good and logged; else a
 * data-in command's bytes go to cmd->buf and the pages are freed. As
 * Linux, where scsi_execute() returns only once the error handler has the
 * command back (scsi_eh_flush_done_q), never while the HBA owns it. */
void hba_cmd_dma_put(const struct hba_host *h, const struct scsi_cmd *cmd, void *dma, bool held);

/* Poll a 32-bit register until (value & mask) == want, every step_ns,
 * for at most timeout_ns; the last value read goes to *last (may be
 * NULL). A read of all-ones (the device left the bus, or is resetting)
 * never matches, and ends the wait when gone_on_ones is set. True when it
 * matched. The register waits of MFI, Fusion and MPT. */
bool hba_poll_reg(volatile void *regs, uint32_t off, uint32_t mask, uint32_t want, uint64_t timeout_ns,
                  uint64_t step_ns, bool gone_on_ones, uint32_t *last);

/* bm_disk_ops.poll for every HBA disk: drain the controller's replies,
 * expire overdue commands, post due retries, pop this disk's completions. */
int hba_disk_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max);

/* Are submit()'s arguments within what the disk takes: its one queue, a
 * tag below its depth, a buffer, a range inside the disk, a size within
 * its transfer limit? */
static inline bool hba_disk_io_valid(const struct bm_disk *d, unsigned queue, uint32_t tag, uint64_t lba,
                                     uint32_t blocks, const void *buf)
{
    return queue == 0 && tag < d->max_qd && blocks && buf && lba < d->blocks && blocks <= d->blocks - lba &&
           (uint64_t)blocks * d->lba_bytes <= d->max_transfer_bytes;
}

/* The hba_disk behind an engine disk. */
static inline struct hba_disk *hba_disk_of(struct bm_disk *d) { return d->priv; }

#endif
