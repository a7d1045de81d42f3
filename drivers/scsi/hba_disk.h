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

/* What a transport does for the shared glue. Called with the queue lock
 * held. */
struct hba_host_ops {
    /* Hand every reply the controller has posted to hbaq_complete(). */
    void (*drain)(void *ctrl);
    /* An engine command passed its deadline (hbaq_expire); may be NULL. */
    void (*on_timeout)(void *ctrl, uint32_t slot);
    /* Post again the commands hbaq_next_retry() says are due; may be NULL. */
    void (*send_retries)(void *ctrl);
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
};

struct hba_host {
    struct hba_queue q;
    const struct hba_host_ops *ops;
    void *ctrl;               /* handed to ops */
    const char *where;        /* the controller's BDF, for plat_diag */
    struct hba_disk *disks[BM_MAX_DISKS];
    unsigned ndisks;
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
 * RECOVERED ERROR completes as success (counted in its disk's
 * q.recovered, logged). Returns true when it took the slot; false: the
 * caller completes it as the error it is (also when too near its
 * deadline for another try). Call with the queue lock held, for a slot
 * in HBAQ_BUSY. */
bool hba_scsi_disposition(struct hba_host *h, uint32_t slot, uint8_t scsi_status, const uint8_t *sense,
                          size_t sense_len);

/* Drain the controller's replies until it holds no command (not counting
 * those waiting for a BUSY retry, which are ours), timeout_ns passes, or
 * gone (may be NULL; it reads the controller's state) says waiting is
 * pointless (a FAULTed firmware). Returns how many it still holds. As
 * Linux megasas_wait_for_outstanding(_fusion), which looks at the
 * firmware state on each round, before a reset or release. */
uint32_t hba_host_wait_idle(struct hba_host *h, uint64_t timeout_ns, bool (*gone)(void *ctrl));

/* bm_disk_ops.health for every HBA disk: LOG SENSE, or ATA SMART through
 * SAT for a SATA disk (scsi_read_health), with the transport's internal
 * command path. BM_ENOTSUP for a RAID logical drive (its members' health
 * is the controller's) and for a drive with neither. */
int hba_disk_health(struct bm_disk *d, struct bm_health *out);

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
