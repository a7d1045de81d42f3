/* LSI Fusion-MPT SAS driver, in layers:
 *
 *   mpt_doorbell.c  the system interface every MPT generation shares: IOC
 *                   state, message unit and diagnostic resets, and the
 *                   doorbell handshake (with the acknowledge waits real
 *                   chips need);
 *   mpt_scsi.c      SCSI IO messages: building the MPI 1 request and the
 *                   MPI 2 request with its SGL, and turning any reply (IOC
 *                   status, SCSI status, sense) into a result;
 *   mpt_disk.c      the disks, whatever the generation: completions
 *                   (mpt_slot_done), probe-time SCSI commands, submit/poll,
 *                   recovery of a timed-out request (task management, then
 *                   the IOC host reset), adding the disks of a device;
 *   mpt_mpi1.c      the MPI 1.5 backend: IOC FACTS / IOC INIT / PORT FACTS /
 *                   PORT ENABLE through the handshake, request frames posted
 *                   through the request FIFO, context and address replies
 *                   from the reply FIFO;
 *   mpt_mpi2*.c     the MPI 2.0 / 2.5 backend (SAS2008/2308/3008 IT mode):
 *                   request frames addressed by SMID, request descriptors,
 *                   reply free queue and reply descriptor post queue in host
 *                   memory; devices found by handle through SAS Device
 *                   Page 0 (its own files and their map: mpt_mpi2_types.h);
 *   mpt.c           the driver: PCI ids, probe and release.
 *
 * Call map (a file calls only the files below it; nothing calls back):
 *
 *   mpt.c ------> mpt_mpi1.c, mpt_mpi2.c (the backend tables)
 *     |             |  mpt_mpi2.c -> mpt_mpi2_config.c -> mpt_mpi2_io.c
 *     |             |             -> mpt_mpi2_ioc.c, mpt_mpi2_io.c
 *     v             v
 *   mpt_disk.c  (mpt_slot_done, mpt_add_disks; mpt.c: mpt_scan)
 *     v
 *   mpt_scsi.c, mpt_doorbell.c  (leaves); drivers/scsi/hba_disk.c (the
 *   disks, their slots and poll(), shared with megasas)
 *
 * mpt_disk.c reaches the queues only through struct mpt_backend's
 * function pointers, filled in by the backends: it names no backend file.
 * MPI 1 addresses a device by bus/target id, MPI 2 by a 16-bit device
 * handle; struct mpt_scsi_io carries both and each backend uses its own.
 */
#ifndef BAREMARK_MPT_TYPES_H
#define BAREMARK_MPT_TYPES_H

#include "../blkdev.h"
#include "../scsi/hba_disk.h"
#include "../scsi/scsi.h"

#define MPT_SENSE_BYTES 96
#define MPT_MAX_TRANSFER_BYTES (1u << 20)   /* largest command per disk */

/* A SCSI command for the backend to send. */
struct mpt_scsi_io {
    uint8_t target, bus;        /* MPI 1 */
    uint16_t dev_handle;        /* MPI 2 */
    uint32_t lun;
    uint8_t cdb[16];
    uint8_t cdb_len;
    enum scsi_dir dir;
    uint64_t data_pa;
    uint32_t data_len;
    uint64_t sense_pa;
};

/* What a reply said about one command (a context reply means success). */
struct mpt_result {
    uint16_t ioc_status;        /* MPI_IOCSTATUS_* without the log-info flag */
    uint32_t ioc_log_info;
    uint8_t scsi_status;
    uint8_t scsi_state;
    uint32_t transfer_count;
    uint32_t sense_count;
    bool address_reply;
};

struct mpt_ctrl;

/* The queueing of one MPI generation. */
struct mpt_backend {
    const char *name;
    /* Facts, queue memory, IOC INIT, port facts and enable. Leaves
     * c->nslots, c->max_targets and c->port_id set. */
    int (*init)(struct mpt_ctrl *c, char *err, size_t errlen);
    /* Build and post the request for slot. */
    void (*post)(struct mpt_ctrl *c, uint32_t slot, const struct mpt_scsi_io *io);
    /* Hand every reply waiting to mpt_slot_done(). */
    void (*drain)(struct mpt_ctrl *c);
    /* Free queue memory (after the IOC has been reset). */
    void (*destroy)(struct mpt_ctrl *c);
    /* Optional: find the devices and add their disks with mpt_add_disks()
     * (runs once the slot table exists). NULL: scan bus 0 target ids
     * 0..max_targets-1. A negative return fails the probe. */
    int (*discover)(struct mpt_ctrl *c, struct bm_disk_list *disks, char *err, size_t errlen);
    /* Optional: post a SCSI task management request (MPI2_SCSITASKMGMT_TASKTYPE_*,
     * the same numbers in MPI 1) for the device of io (ABORT TASK: the
     * request in slot), not waited for; BM_EBUSY when one is still out.
     * The replies it makes the IOC send for other requests come through
     * drain as usual. */
    int (*tm_post)(struct mpt_ctrl *c, uint8_t task_type, const struct mpt_scsi_io *io, uint32_t slot, char *err,
                   size_t errlen);
    /* Optional: after a diagnostic reset (IOC READY, owning no request),
     * make it OPERATIONAL again with the queues init allocated, one part
     * per call and never waiting for the IOC (the host reset runs it from
     * poll(); the first call with start set): IOC FACTS (refused if they
     * shrank), IOC INIT, OPERATIONAL, reply frames lent again, ports
     * enabled. HBA_PENDING with *step naming the part under way; BM_OK
     * once OPERATIONAL with its ports enabled; an error, err naming the
     * part and how long it ran. Discovery is not repeated. */
    int (*reinit_step)(struct mpt_ctrl *c, bool start, const char **step, char *err, size_t errlen);
};

/* Where a device sits, for mpt_add_disks(). */
struct mpt_addr {
    uint8_t target;             /* MPI 1 target id */
    uint16_t dev_handle;        /* MPI 2 device handle */
    uint64_t sas_address;       /* MPI 2: finds the device again after an IOC reset */
    uint32_t port;              /* bm_disk.port: target id or enclosure slot */
    char label[12];             /* disk id suffix: "t3" (mpt0t3), "s5" (mpt0s5) */
    uint32_t max_qd;            /* the reference driver's depth for this kind of device (0: no cap) */
};

/* Per-device queue depths: Linux mpt3sas MPT3SAS_SAS_QUEUE_DEPTH and
 * MPT3SAS_SATA_QUEUE_DEPTH (scsih_slave_configure); a LUN without CMDQUE
 * gets one command at a time (mpt3sas_scsih_change_queue_depth). */
#define MPT_SAS_QUEUE_DEPTH 254
#define MPT_SATA_QUEUE_DEPTH 32
/* MPI 1: Linux mptscsih_slave_configure asks MPT_SCSI_CMD_PER_DEV_HIGH
 * (64) for every SAS/SATA device (mptscsih_change_queue_depth). */
#define MPT1_DEVICE_QUEUE_DEPTH 64

/* The one task management request out at a time, in its own frame
 * (outside the engine's slots), and what its reply said: filled in by the
 * backends' drain, read by mpt_tm_check. During a host reset the same
 * frame carries the IOC's own requests (MPI 2 EVENT NOTIFICATION and
 * PORT ENABLE): no task management is out then. */
struct mpt_tm {
    bool outstanding;           /* the frame is the IOC's: never reused until it answers */
    bool done;
    uint16_t ioc_status;
    uint8_t response_code;      /* MPI 2; MPI 1 replies say 0 here */
};

/* Where a backend's reinit_step is: its part, the port it is at, when
 * the part began and its bound. */
struct mpt_reinit_state {
    uint8_t part;
    unsigned port;
    uint64_t part_ns, deadline_ns;
};

/* Where a diagnostic reset in steps is (mpt_diag_reset_start / _poll). */
struct mpt_diag_reset_state {
    uint64_t next_read_ns, deadline_ns;
    unsigned unlock_tries;      /* write sequences sent so far; 0 once RESET_ADAPTER is set */
};

struct mpt_ctrl {
    struct pci_addr pci;
    char bdf[16];               /* "0000:03:00.0": where plat_diag() messages are about */
    bool mpi2;                  /* MPI 2.x (write-sequence keys, reset timings) */
    unsigned index;
    volatile void *regs;
    uint16_t pci_cmd_saved;
    const struct mpt_backend *be;
    const char *chip;           /* "SAS2008" */
    void *be_state;
    bool operational, failed;
    bool resetting;             /* a host reset is under way: no request goes to the IOC */
    unsigned host_resets;       /* IOC resets done to take back a request */
    uint8_t hr_part;            /* the host reset's part under way (mpt_disk.c) */
    struct mpt_diag_reset_state hr_diag;
    uint64_t hr_deadline_ns;
    uint8_t tm_type;            /* the task management out (its name in messages) */
    struct mpt_tm tm;
    struct mpt_reinit_state ri; /* the backend's reinit_step */
    /* A doorbell handshake taken a step per call (mpt_handshake_poll):
     * the request and how much of it the IOC took, the reply words so
     * far, and the bound of the wait under way. */
    struct {
        uint8_t stage;              /* MPT_HS_* */
        bool send_only;             /* no reply words (mpt_handshake_send_post) */
        unsigned req_dwords, req_sent;
        uint32_t req[32];
        unsigned words, msg_words;
        uint64_t reply_timeout_ns;  /* the first reply word's, from the last dword's acknowledgement */
        uint64_t bound_ns, deadline_ns;
        uint8_t buf[128];
    } hs;

    uint32_t nslots;            /* requests we may have outstanding */
    uint32_t max_targets;       /* target ids to scan on bus 0 */
    uint32_t port_id;           /* the IOC's own id (not scanned) */
    uint32_t max_transfer_bytes;
    struct hba_host h;          /* the slots and the disks (drivers/scsi/hba_disk.h) */
    uint8_t *sense;             /* MPT_SENSE_BYTES per slot, below 4 GiB */
    size_t sense_bytes;
    struct mpt_result *results; /* last result per slot (internal commands) */
    uint32_t *slot_bytes;       /* bytes each outstanding request asked for */
    struct mpt_scsi_io *slot_io; /* each engine request, to send again after BUSY */
};

static inline uint32_t mpt_read(struct mpt_ctrl *c, uint32_t off) { return mmio_read32(c->regs, off); }
static inline void mpt_write(struct mpt_ctrl *c, uint32_t off, uint32_t v) { mmio_write32(c->regs, off, v); }

/* ---- mpt_doorbell.c ------------------------------------------------------------------------ */
uint32_t mpt_ioc_state(struct mpt_ctrl *c);
const char *mpt_ioc_state_name(uint32_t doorbell);
/* Wait until the IOC reaches state (BM_ETIMEDOUT naming the doorbell). */
int mpt_wait_state(struct mpt_ctrl *c, uint32_t state, uint64_t timeout_ns, char *err, size_t errlen);
/* Get the IOC to READY: message unit reset when operational, diagnostic
 * (hard) reset when faulted or when the soft reset does not take. */
int mpt_make_ready(struct mpt_ctrl *c, char *err, size_t errlen);
/* Message unit reset back to READY (release path). */
int mpt_message_unit_reset(struct mpt_ctrl *c, char *err, size_t errlen);
/* Send a request through the doorbell and read its reply 16 bits at a
 * time, waited for (probe time). reply_timeout_ns bounds the wait for
 * the first reply word (PORT ENABLE can take minutes on a large domain).
 * Returns the reply length in bytes (at most reply_cap are stored). */
int mpt_handshake(struct mpt_ctrl *c, const void *req, unsigned req_bytes, void *reply, unsigned reply_cap,
                  uint64_t reply_timeout_ns, char *err, size_t errlen);
/* Hand a request to the IOC through the doorbell without reading a reply
 * there (its reply comes through the reply queue), waited for: MPI 1
 * task management without a high-priority FIFO at probe time (Linux
 * mpt_send_handshake_request). */
int mpt_handshake_send(struct mpt_ctrl *c, const void *req, unsigned req_bytes, char *err, size_t errlen);

/* The same in steps, for recovery from poll(). post claims the doorbell
 * and keeps the request (nothing waited for; BM_EBUSY while the doorbell
 * or another handshake is in use); send_post the same for a request
 * with no reply words. poll then takes the handshake as far as the IOC
 * has got, never waiting: it writes at most one request dword per call,
 * each acknowledged within 5 s (the IOP doorbell status bit of HIS
 * clears), reads the reply words already signalled (the first within
 * reply_timeout_ns of the last dword's acknowledgement, each later one
 * within 5 s), and returns HBA_PENDING until the handshake is over: then
 * the reply's length in bytes (0 for send_post), or an error naming the
 * wait that passed its bound (c->hs keeps the handshake between calls). */
int mpt_handshake_post(struct mpt_ctrl *c, const void *req, unsigned req_bytes, uint64_t reply_timeout_ns, char *err,
                       size_t errlen);
int mpt_handshake_send_post(struct mpt_ctrl *c, const void *req, unsigned req_bytes, char *err, size_t errlen);
int mpt_handshake_poll(struct mpt_ctrl *c, void *reply, unsigned reply_cap, char *err, size_t errlen);
/* Is a handshake under way (posted and not yet over)? */
bool mpt_handshake_busy(const struct mpt_ctrl *c);
/* Where a handshake is: its function written (waiting for the doorbell
 * interrupt), a dword written (waiting for its acknowledgement), the
 * request taken (send_post), the first reply word, the later ones, the
 * end interrupt, DOORBELL_USED clear. */
enum { MPT_HS_IDLE, MPT_HS_START, MPT_HS_ACK, MPT_HS_TAKEN, MPT_HS_FIRST, MPT_HS_WORDS, MPT_HS_END, MPT_HS_FREE };

/* Diagnostic (hard) reset of the IOC in any state, back to READY. */
int mpt_hard_reset(struct mpt_ctrl *c, char *err, size_t errlen);
/* The same in steps, for recovery from poll(): start writes the unlock
 * keys; poll is called again and again (each call reads HostDiagnostic
 * at most once, never waits): it looks for DiagWriteEnable
 * MPT_WRSEQ_WAIT_MS after each write sequence (another sequence when it
 * is not set, MPT_WRSEQ_TRIES in all), sets RESET_ADAPTER, then reads the
 * register at the times mpi2.h allows. HBA_PENDING meanwhile, BM_OK once
 * RESET_ADAPTER cleared and the register is locked again; an error when
 * it never unlocks or the chip does not finish within
 * MPT_READY_TIMEOUT_NS. */
int mpt_diag_reset_start(struct mpt_ctrl *c, struct mpt_diag_reset_state *st, char *err, size_t errlen);
int mpt_diag_reset_poll(struct mpt_ctrl *c, struct mpt_diag_reset_state *st, char *err, size_t errlen);
#define MPT_READY_TIMEOUT_NS (60 * NS_PER_S)  /* a reset back to READY */

/* ---- mpt_scsi.c ----------------------------------------------------------------------------- */
/* The 8-byte SAM LUN field of a request. */
void mpt_encode_lun(uint8_t lun_out[8], uint32_t lun);
/* Fill an MPI 1 SCSI IO request for io with this context; returns the
 * bytes of the frame used (header plus SGL). */
unsigned mpt1_build_scsi_io(void *frame, const struct mpt_scsi_io *io, uint32_t context);
/* A reply's IOC status, SCSI status and sense as a disk completion
 * status (BM_OK, BM_EIO, BM_ENODEV) with a readable detail. */
int mpt_result_status(const struct mpt_result *r, const uint8_t *sense, uint32_t expected_bytes, char *detail,
                      size_t len);
const char *mpt_ioc_status_name(uint16_t status);

/* Where an MPI 2 SCSI IO's scatter/gather list may go. */
struct mpt2_sgl_space {
    bool ieee;                  /* MPI 2.5 IEEE SGEs, else MPI simple SGEs */
    uint32_t frame_bytes;       /* request frame size */
    uint32_t max_sge_bytes;     /* data per SGE */
    uint8_t *chain;             /* this request's chain segments, or NULL */
    uint64_t chain_pa;
    uint32_t chain_seg_bytes;   /* one chain segment (IOC limit) */
    uint32_t chain_segs;        /* segments available at chain */
};

/* Fill an MPI 2 SCSI IO request (DevHandle addressing, sense buffer at
 * sense_pa's low 32 bits) with its SGL: SGEs of at most max_sge_bytes,
 * continued through chain segments when the frame is full. Returns the
 * bytes of the frame used, 0 if the SGL does not fit. */
unsigned mpt2_build_scsi_io(void *frame, const struct mpt_scsi_io *io, const struct mpt2_sgl_space *sp);

/* ---- mpt_disk.c (called by mpt.c and the backends) -------------------------------------------- */
/* The shared HBA glue's operations (drain, timeout recovery, BUSY retries). */
extern const struct hba_host_ops mpt_host_ops;
/* The hardware finished slot; r == NULL for a context (success) reply. */
void mpt_slot_done(struct mpt_ctrl *c, uint32_t slot, const struct mpt_result *r);
/* A backend's reinit_step enters a part bounded by bound_ns. */
void mpt_reinit_enter(struct mpt_ctrl *c, uint8_t part, uint64_t bound_ns);
/* Is the part past its bound? Then err says "what: no answer within N ms
 * (M ms spent)" and BM_ETIMEDOUT is returned; else HBA_PENDING. An IOC
 * that leaves OPERATIONAL (once it was, check_state) ends the part at
 * once with BM_EIO. */
int mpt_reinit_wait(struct mpt_ctrl *c, const char *what, bool check_state, char *err, size_t errlen);
/* A handshake of reinit_step: post it and enter its part (HBA_PENDING,
 * or the post's error); then take it a step per call: HBA_PENDING while
 * it is under way (each of its waits bounded by mpt_handshake_poll: 5 s
 * a request dword, bound_ns for the first reply word, 5 s each later
 * one), the reply's length in bytes, or an error "what: the wait that
 * ran out". */
int mpt_reinit_post(struct mpt_ctrl *c, const void *req, unsigned req_bytes, uint8_t part, uint64_t bound_ns,
                    char *err, size_t errlen);
int mpt_reinit_reply(struct mpt_ctrl *c, void *reply, unsigned reply_cap, const char *what, char *err, size_t errlen);
/* The answer to the task management (or reserved-frame request) out,
 * once drain has seen it: false while none came. */
bool mpt_tm_answer(struct mpt_ctrl *c, uint16_t *ioc_status, uint8_t *response_code);

/* Identify the device at a (LUN 0, then the LUNs REPORT LUNS names) and
 * add a disk for each; BM_ENODEV when nothing answers. */
int mpt_add_disks(struct mpt_ctrl *c, struct bm_disk_list *disks, const struct mpt_addr *a);
/* MPI 1 discovery: every target id on bus 0 but the IOC's own. */
void mpt_scan(struct mpt_ctrl *c, struct bm_disk_list *disks);

/* ---- mpt_mpi1.c ------------------------------------------------------------------------------- */
extern const struct mpt_backend mpt_mpi1_backend;

/* ---- mpt_mpi2.c ------------------------------------------------------------------------------- */
extern const struct mpt_backend mpt_mpi2_backend;   /* MPI 2.0: MPI simple SGEs */
extern const struct mpt_backend mpt_mpi25_backend;  /* MPI 2.5: IEEE SGEs */

#endif
