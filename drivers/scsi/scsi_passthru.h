/* The firmware fallback for SCSI controllers baremark has no driver for:
 * each target/LUN behind the firmware's EFI_EXT_SCSI_PASS_THRU_PROTOCOL
 * (UEFI 2.10 section 15.7) becomes a disk (driver "scsi_passthru", path
 * "firmware", ids "scsi0", "scsi1", ...), identified and driven with the
 * same SCSI layer as the native HBA drivers.
 *
 * One request in flight per disk (max_qd 1): non-blocking through an event
 * when the firmware's pass-thru supports it, else the firmware call itself
 * blocks inside submit(). A request larger than the LUN takes in one
 * command runs as parts, one after another (scsi_pt_parts below).
 *
 * Call it after the native drivers have probed (a controller they took has
 * lost its firmware driver, and with it its pass-thru protocol) and before
 * the Block I/O path, whose disks behind a pass-thru disk are then skipped
 * with scsi_passthru_covers(). On the host build there is no firmware and
 * discovery finds nothing.
 */
#ifndef BAREMARK_SCSI_PASSTHRU_H
#define BAREMARK_SCSI_PASSTHRU_H

#include "../blkdev.h"

/* Keep this disk? Called once per disk found, with its identity and PCI
 * location filled in (same shape as the Block I/O path's filter). */
typedef bool (*scsi_passthru_keep_fn)(const struct bm_disk *d, void *ctx);

/* Add every SCSI disk reachable through a logical Extended SCSI Pass Thru
 * instance to l, skipping the PCI functions in taken (controllers native
 * drivers hold). Storage controllers not taken are connected to their
 * firmware drivers first. Returns the number added or a negative error. */
int scsi_passthru_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken,
                           scsi_passthru_keep_fn keep, void *ctx);

/* Is the disk d (a firmware Block I/O disk, say) the same target/LUN as a
 * pass-thru disk already in l? Compares controller, port and LUN. */
bool scsi_passthru_covers(const struct bm_disk_list *l, const struct bm_disk *d);

/* A request larger than one command of the LUN (its VPD B0h maximum
 * transfer length, or the firmware's limit) runs as parts, one command
 * after another, each with its own timeout; the request completes when
 * the last part has, or with the first part that fails. Linux gets the
 * same from the block layer splitting at max_hw_sectors. */
#define SCSI_PT_MAX_PARTS 16

struct scsi_pt_parts {
    enum bm_io_op op;
    uint64_t lba;           /* the next part's first block */
    uint32_t left;          /* blocks no part has started */
    uint32_t part_blocks;   /* one command's blocks, at most */
    uint32_t lba_bytes;
    uint8_t *buf;           /* the next part's data */
    unsigned started;       /* parts handed to the firmware */
};

/* The largest request a disk whose command takes at most part_bytes
 * offers (up to want): whole blocks, SCSI_PT_MAX_PARTS parts at most. */
uint32_t scsi_pt_request_bytes(uint32_t part_bytes, uint32_t lba_bytes, uint32_t want);
/* Cut a request of blocks at lba into parts of at most part_blocks. */
void scsi_pt_parts_begin(struct scsi_pt_parts *r, enum bm_io_op op, uint64_t lba, uint32_t blocks, void *buf,
                         uint32_t lba_bytes, uint32_t part_blocks);
/* The next part (lba, blocks, data); false when every part has started. */
bool scsi_pt_parts_peek(const struct scsi_pt_parts *r, uint64_t *lba, uint32_t *blocks, void **buf);
/* The part peek gave was taken by the firmware. */
void scsi_pt_parts_advance(struct scsi_pt_parts *r);

/* ---- One LUN's request, run against the firmware (portable, so a host
 * test can drive it with a model of the firmware) ---------------------- */

/* What the firmware did with one part handed to it. */
enum scsi_pt_fire {
    SCSI_PT_TAKEN,      /* non-blocking: in the firmware's hands until its event signals */
    SCSI_PT_ENDED,      /* the call itself finished it (blocking, or refused at once) */
    SCSI_PT_NOT_READY,  /* EFI_NOT_READY: the firmware has no room, try again later */
};

/* The firmware glue (scsi_passthru_uefi.c; a model in the unit test). */
struct scsi_pt_fw {
    /* Hand one part to the firmware (EXT_SCSI_PASS_THRU PassThru()). With
     * SCSI_PT_ENDED the part's result is in *status (BM_OK or an error
     * with detail). */
    enum scsi_pt_fire (*fire)(void *ctx, enum bm_io_op op, uint64_t lba, uint32_t blocks, void *buf,
                              uint32_t bytes, int *status, char *detail, size_t len);
    /* Has the part the firmware took ended (its event signalled)? Then
     * its result is in *status. */
    bool (*ended)(void *ctx, int *status, char *detail, size_t len);
};

/* Every part carries bm_io_timeout_ns() (io_timeout=) as its packet
 * timeout; this is how long past it the firmware's own timeout may take
 * before the driver stops waiting. */
#define SCSI_PT_FW_GRACE_NS (5ull * 1000000000ull)

/* One LUN's request state (max_qd 1). */
struct scsi_pt_io {
    const struct scsi_pt_fw *fw;
    void *ctx;
    uint32_t lba_bytes;
    uint32_t part_bytes;         /* one command of the LUN and firmware */
    bool busy, done, stuck;
    bool waiting;                /* the next part waits for the firmware to take it (EFI_NOT_READY) */
    bool in_fw;                  /* a part is in the firmware's hands (taken, event not yet signalled) */
    uint32_t tag;
    struct scsi_pt_parts req;
    uint64_t deadline_ns;        /* the part in flight's (or waiting one's) */
    uint64_t taken_ns;           /* when the firmware took the part in flight */
    bool overdue;                /* its deadline passed with the firmware still holding it */
    int status;
    char detail[64];
};

/* Start one read or write (scsi_pt_io_submit); collect it (poll: 0 or 1
 * completion in out). Same return values as struct bm_disk_ops. */
int scsi_pt_io_submit(struct scsi_pt_io *io, uint32_t tag, enum bm_io_op op, uint64_t lba, uint32_t blocks,
                      void *buf);
int scsi_pt_io_poll(struct scsi_pt_io *io, struct bm_completion *out);
/* May the firmware still read or write this LUN's request memory (packet,
 * sense, data buffer)? Then none of it may be freed or reused. */
bool scsi_pt_io_fw_holds(const struct scsi_pt_io *io);
/* What the driver is doing about an overdue request (bm_disk_ops.recovery). */
void scsi_pt_io_recovery(const struct scsi_pt_io *io, char *out, size_t len);

/* Forget every pass-thru disk: free memory and events, except where a
 * request may still be in flight (then it is left allocated). */
void scsi_passthru_release_all(void);

#endif
