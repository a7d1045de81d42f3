/* LSI Fusion-MPT SAS driver: the disks of a controller, whatever its MPI
 * generation. Completions (mpt_slot_done, called by the backends), the
 * synchronous commands discovery runs, the disk operations (submit, poll),
 * recovery of a timed-out request (task management, then the IOC host
 * reset) and adding the disks of a device. The slots, the disks and poll()
 * are the shared HBA glue's (drivers/scsi/hba_disk.h); the queues are
 * reached only through struct mpt_backend; see the call map in
 * mpt_types.h. */
#include "mpt_types.h"
#include "mpt_regs.h"
#include "mpi.h"
#include "mpi2.h"

#define MPT_DISK_QD_MAX 256
#include "../../efi/time_units.h"
/* IOC resets one controller may need to take back timed-out requests
 * before it is given up (a disk that hangs every command would otherwise
 * cost the run two minutes per command). */
#define MPT_MAX_HOST_RESETS 4
/* Task management answers within 30 s (Linux mpt3sas and mptscsih). */
#define MPT_TM_TIMEOUT_NS (30 * NS_PER_S)

/* ---- Completions ---------------------------------------------------------------------------- */

/* Record a request's outcome and complete its slot. */
void mpt_slot_done(struct mpt_ctrl *c, uint32_t slot, const struct mpt_result *r)
{
    static const struct mpt_result ok = { 0 };
    char detail[64] = "";
    int status;

    if (slot >= c->nslots) {
        plat_diag(c->bdf, "reply for unknown request %u", slot);
        return;
    }
    if (!r)
        r = &ok;
    c->results[slot] = *r;
    /* The IOC out of resources (mpt3sas _scsih_io_done turns IOCStatus
     * BUSY and INSUFFICIENT_RESOURCES into SAM_STAT_BUSY): the shared
     * table's BUSY disposition, sent again later. */
    if (r->address_reply &&
        (r->ioc_status == MPI_IOCSTATUS_BUSY || r->ioc_status == MPI_IOCSTATUS_INSUFFICIENT_RESOURCES) &&
        hba_host_busy(&c->h, slot))
        return;
    /* A SCSI status from the target: the shared table decides (BUSY, TASK
     * SET FULL, UNIT ATTENTION, becoming ready: again later; RECOVERED
     * ERROR: success), as mpt3sas _scsih_io_done hands status and sense
     * to the midlayer (scsi_decide_disposition, scsi_check_sense). */
    if (r->address_reply &&
        (r->ioc_status == MPI_IOCSTATUS_SUCCESS || r->ioc_status == MPI_IOCSTATUS_SCSI_RECOVERED_ERROR ||
         r->ioc_status == MPI_IOCSTATUS_SCSI_DATA_UNDERRUN) &&
        !(r->scsi_state & (MPI_SCSI_STATE_NO_SCSI_STATUS | MPI_SCSI_STATE_TERMINATED)) &&
        r->scsi_status != SCSI_STATUS_GOOD &&
        hba_scsi_disposition(&c->h, slot, r->scsi_status,
                             (r->scsi_state & MPI_SCSI_STATE_AUTOSENSE_VALID)
                                 ? c->sense + (size_t)slot * MPT_SENSE_BYTES : NULL,
                             MIN(r->sense_count ? r->sense_count : MPT_SENSE_BYTES, MPT_SENSE_BYTES)))
        return;
    status = mpt_result_status(r, c->sense + (size_t)slot * MPT_SENSE_BYTES, c->slot_bytes[slot], detail,
                               sizeof(detail));
    if (!hbaq_complete(&c->h.q, slot, status, detail))
        plat_diag(c->bdf, "reply for idle request %u", slot);
}

/* ---- Synchronous commands (probe time) ------------------------------------------------------------ */

/* Fill the request of one command to the device at t. */
static void mpt_io_for(struct mpt_scsi_io *io, const struct hba_target *t)
{
    memset(io, 0, sizeof(*io));
    io->target = (uint8_t)t->target;
    io->dev_handle = t->dev_handle;
    io->lun = t->lun;
}

/* Run one CDB on a target and wait for it: the SCSI layer's transport
 * (ctx: the struct hba_target). */
static int mpt_scsi_exec(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len)
{
    struct hba_target *t = ctx;
    struct mpt_ctrl *c = t->ctrl;
    struct mpt_scsi_io io;
    const struct mpt_result *r;
    uint64_t deadline = plat_now_ns() + cmd->timeout_ns;
    void *dma = hba_cmd_dma_get(cmd);
    int slot, st, rc;

    if (cmd->len && !dma) {
        snprintf(detail, detail_len, "no memory for the data");
        return BM_ENOMEM;
    }
    slot = hbaq_get_internal(&c->h.q, plat_now_ns(), cmd->timeout_ns);
    if (slot < 0) {
        hba_cmd_dma_put(&c->h, cmd, dma, false);
        return slot;
    }
    mpt_io_for(&io, t);
    memcpy(io.cdb, cmd->cdb, cmd->cdb_len);
    io.cdb_len = cmd->cdb_len;
    io.dir = cmd->dir;
    io.data_pa = dma ? plat_virt_to_phys(dma) : 0;
    io.data_len = cmd->len;
    io.sense_pa = plat_virt_to_phys(c->sense + (size_t)slot * MPT_SENSE_BYTES);
    c->slot_bytes[slot] = cmd->len;
    c->slot_io[slot] = io;
    memset(c->sense + (size_t)slot * MPT_SENSE_BYTES, 0, MPT_SENSE_BYTES);
    c->be->post(c, (uint32_t)slot, &io);
    if (hba_wait_internal(&c->h, (uint32_t)slot, deadline, &st) != BM_OK) {
        snprintf(detail, detail_len, "no reply within %llu ms (doorbell 0x%08x)",
                 (unsigned long long)(cmd->timeout_ns / NS_PER_MS), mpt_read(c, MPT_REG_DOORBELL));
        /* Same recovery as an engine command's, run to its end here (probe
         * time: nothing else runs on this controller); what it did not get
         * back keeps its memory. */
        hba_recover_now(&c->h, (uint32_t)slot);
        hba_cmd_dma_put(&c->h, cmd, dma, hbaq_slot_held(&c->h.q, (uint32_t)slot));
        return BM_ETIMEDOUT;
    }
    hba_cmd_dma_put(&c->h, cmd, dma, false);
    r = &c->results[slot];
    rc = mpt_result_status(r, NULL, 0, detail, detail_len);
    if (rc == BM_ENODEV)
        return BM_ENODEV;
    if (r->scsi_state & (MPI_SCSI_STATE_NO_SCSI_STATUS | MPI_SCSI_STATE_TERMINATED) ||
        (r->ioc_status != MPI_IOCSTATUS_SUCCESS && r->ioc_status != MPI_IOCSTATUS_SCSI_RECOVERED_ERROR &&
         r->ioc_status != MPI_IOCSTATUS_SCSI_DATA_UNDERRUN))
        return BM_EIO;
    /* The target answered: hand its status and sense to the SCSI layer. */
    scsi_cmd_answer(cmd, r->scsi_status,
                    r->scsi_state & MPI_SCSI_STATE_AUTOSENSE_VALID ? c->sense + (size_t)slot * MPT_SENSE_BYTES : NULL,
                    MIN(r->sense_count ? r->sense_count : MPT_SENSE_BYTES, MPT_SENSE_BYTES),
                    r->address_reply ? (int64_t)r->transfer_count : -1);
    return BM_OK;
}

/* ---- Disk operations ---------------------------------------------------------------------------------- */

/* Queue one SCSI READ/WRITE request. */
static int mpt_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                      uint32_t blocks, void *buf)
{
    struct hba_disk *hd = hba_disk_of(d);
    struct mpt_ctrl *c = hd->t.ctrl;
    struct mpt_scsi_io io;
    int slot;

    if (!hba_disk_io_valid(d, queue, tag, lba, blocks, buf))
        return BM_EINVAL;
    if (c->failed)
        return BM_EIO;
    if (c->resetting)
        return BM_EBUSY; /* a host reset is under way: again after a poll() */
    mpt_io_for(&io, &hd->t);
    io.cdb_len = (uint8_t)scsi_build_rw(io.cdb, op, d->blocks, lba, blocks);
    io.dir = op == BM_IO_WRITE ? SCSI_DIR_OUT : SCSI_DIR_IN;
    io.data_pa = plat_virt_to_phys(buf);
    io.data_len = blocks * d->lba_bytes;
    hbaq_lock(&c->h.q);
    slot = hbaq_get(&c->h.q, &hd->q, tag, plat_now_ns());
    if (slot < 0) {
        hbaq_unlock(&c->h.q);
        return slot;
    }
    io.sense_pa = plat_virt_to_phys(c->sense + (size_t)slot * MPT_SENSE_BYTES);
    c->slot_bytes[slot] = io.data_len;
    c->slot_io[slot] = io;
    c->be->post(c, (uint32_t)slot, &io);
    hbaq_unlock(&c->h.q);
    return BM_OK;
}

/* ---- Recovery (the steps: drivers/scsi/hba_disk.c hba_recover_step) ---------------------------- */

static const char *mpt_tm_name(uint8_t type)
{
    return type == MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK ? "ABORT TASK" : "TARGET RESET";
}

/* A faulted IOC gets no task management but the host reset (mpt3sas
 * _base_fault_reset_work); a given-up one nothing. */
static bool mpt_faulted(void *ctrl, char *why, size_t whylen)
{
    struct mpt_ctrl *c = ctrl;
    uint32_t db = mpt_read(c, MPT_REG_DOORBELL);

    if (c->failed) {
        snprintf(why, whylen, "controller given up");
        return true;
    }
    if ((db & MPT_IOC_STATE_MASK) != MPT_IOC_STATE_FAULT)
        return false;
    snprintf(why, whylen, "IOC FAULT 0x%04x with a request outstanding", db & MPT_DOORBELL_DATA_MASK);
    return true;
}

/* ABORT TASK naming the timed-out request, or TARGET RESET of its device
 * (mpt3sas scsih_abort / scsih_target_reset; mptscsih_abort /
 * mptscsih_dev_reset), posted and not waited for. */
static int mpt_tm_post(void *ctrl, enum hba_tm tm, uint32_t slot, char *err, size_t errlen)
{
    struct mpt_ctrl *c = ctrl;
    uint8_t type = tm == HBA_TM_ABORT_TASK ? MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK
                                           : MPI2_SCSITASKMGMT_TASKTYPE_TARGET_RESET;
    const struct mpt_scsi_io *io = &c->slot_io[slot];

    if (!c->be->tm_post)
        return BM_ENOTSUP;
    if (c->tm.outstanding) {
        snprintf(err, errlen, "an earlier task management request is still unanswered");
        return BM_EBUSY;
    }
    c->tm_type = type;
    plat_diag(c->bdf, "request %u (target %u, handle 0x%04x): %s", slot, io->target, io->dev_handle,
              mpt_tm_name(type));
    return c->be->tm_post(c, type, io, slot, err, errlen);
}

bool mpt_tm_answer(struct mpt_ctrl *c, uint16_t *ioc_status, uint8_t *response_code)
{
    if (!c->tm.done)
        return false;
    *ioc_status = c->tm.ioc_status;
    *response_code = c->tm.response_code;
    return true;
}

/* Has the IOC answered the task management? Bounded by the recovery's
 * MPT_TM_TIMEOUT_NS; an IOC that leaves OPERATIONAL meanwhile ends it. */
static int mpt_tm_check(void *ctrl, char *err, size_t errlen)
{
    struct mpt_ctrl *c = ctrl;
    const char *what = mpt_tm_name(c->tm_type);
    uint16_t ioc_status;
    uint8_t rsp;

    if (mpt_handshake_busy(c)) {
        /* Sent through the doorbell (MPI 1 without a high-priority FIFO),
         * a dword per poll: not the IOC's until the handshake is over. */
        char why[128];
        int rc = mpt_handshake_poll(c, NULL, 0, why, sizeof(why));

        if (rc == HBA_PENDING)
            return HBA_PENDING;
        if (rc < 0) {
            /* Not taken: the frame is ours again and the step failed
             * (mptscsih_IssueTaskMgmt frees it: "TaskMgmt handshake
             * FAILED"); the recovery goes on to its next step. */
            c->tm.outstanding = false;
            snprintf(err, errlen, "%s through the doorbell: %s", what, why);
            return rc == BM_ETIMEDOUT ? BM_ETIMEDOUT : BM_EIO;
        }
    }
    if (!mpt_tm_answer(c, &ioc_status, &rsp)) {
        uint32_t db = mpt_read(c, MPT_REG_DOORBELL);

        if ((db & MPT_IOC_STATE_MASK) == MPT_IOC_STATE_OPERATIONAL)
            return HBA_PENDING;
        snprintf(err, errlen, "%s: IOC left OPERATIONAL: doorbell 0x%08x (%s)", what, db, mpt_ioc_state_name(db));
        return BM_EIO;
    }
    if ((ioc_status & MPI_IOCSTATUS_MASK) != MPI_IOCSTATUS_SUCCESS ||
        (rsp != MPI2_SCSITASKMGMT_RSP_TM_COMPLETE && rsp != MPI2_SCSITASKMGMT_RSP_TM_SUCCEEDED)) {
        snprintf(err, errlen, "%s: IOC status 0x%04x %s, response code 0x%02x", what, ioc_status & MPI_IOCSTATUS_MASK,
                 mpt_ioc_status_name(ioc_status), rsp);
        return BM_EIO;
    }
    return BM_OK;
}

/* Parts of the IOC host reset. */
enum { MPT_HR_DIAG = 1, MPT_HR_READY, MPT_HR_REINIT };

/* Every request the IOC held ends: it owns none after the diagnostic
 * reset (mpt3sas _scsih_flush_running_cmds, DID_RESET); the timed-out
 * ones are the engine's again only now (hba_queue.h). */
static void mpt_end_all(struct mpt_ctrl *c, unsigned *ended, unsigned *released)
{
    static const struct mpt_result reset = { .ioc_status = MPI_IOCSTATUS_SCSI_IOC_TERMINATED,
                                             .scsi_state = MPI_SCSI_STATE_TERMINATED, .address_reply = true };

    for (uint32_t i = 0; i < c->nslots; i++) {
        switch (c->h.q.slots[i].state) {
        case HBAQ_BUSY:
        case HBAQ_INTERNAL:
            c->results[i] = reset;
            hbaq_complete(&c->h.q, i, BM_EIO, "IOC reset after a command timed out");
            (*ended)++;
            break;
        case HBAQ_TIMEDOUT:
            c->results[i] = reset;
            hbaq_complete(&c->h.q, i, BM_ETIMEDOUT, "ended by an IOC reset");
            (*released)++;
            break;
        case HBAQ_ABANDONED:
            hbaq_complete(&c->h.q, i, BM_EIO, NULL);
            (*released)++;
            break;
        default:
            break; /* free, or waiting for a BUSY retry (not the IOC's) */
        }
    }
}

void mpt_reinit_enter(struct mpt_ctrl *c, uint8_t part, uint64_t bound_ns)
{
    c->ri.part = part;
    c->ri.part_ns = plat_now_ns();
    c->ri.deadline_ns = c->ri.part_ns + bound_ns;
}

int mpt_reinit_wait(struct mpt_ctrl *c, const char *what, bool check_state, char *err, size_t errlen)
{
    uint64_t now = plat_now_ns();
    uint32_t db;

    if (check_state) {
        db = mpt_read(c, MPT_REG_DOORBELL);
        if ((db & MPT_IOC_STATE_MASK) != MPT_IOC_STATE_OPERATIONAL) {
            snprintf(err, errlen, "%s: IOC left OPERATIONAL after %llu ms: doorbell 0x%08x (%s)", what,
                     (unsigned long long)((now - c->ri.part_ns) / NS_PER_MS), db, mpt_ioc_state_name(db));
            return BM_EIO;
        }
    }
    if (now <= c->ri.deadline_ns)
        return HBA_PENDING;
    snprintf(err, errlen, "%s: no answer within %llu ms (%llu ms spent)", what,
             (unsigned long long)((c->ri.deadline_ns - c->ri.part_ns) / NS_PER_MS),
             (unsigned long long)((now - c->ri.part_ns) / NS_PER_MS));
    return BM_ETIMEDOUT;
}

int mpt_reinit_post(struct mpt_ctrl *c, const void *req, unsigned req_bytes, uint8_t part, uint64_t bound_ns,
                    char *err, size_t errlen)
{
    int rc = mpt_handshake_post(c, req, req_bytes, bound_ns, err, errlen);

    if (rc != BM_OK)
        return rc;
    mpt_reinit_enter(c, part, bound_ns);
    return HBA_PENDING;
}

int mpt_reinit_reply(struct mpt_ctrl *c, void *reply, unsigned reply_cap, const char *what, char *err, size_t errlen)
{
    char why[128];
    int got = mpt_handshake_poll(c, reply, reply_cap, why, sizeof(why));

    if (got < 0)
        snprintf(err, errlen, "%s: %s", what, why);
    return got;
}

/* Take every request back from the IOC by resetting it, as Linux
 * mpt3sas_base_hard_reset_handler does when task management could not
 * end a command (MPI 1: mptscsih_IssueTaskMgmt calls
 * mpt_HardResetHandler), one part per poll(), none waiting for the IOC:
 * the diagnostic reset (HostDiagnostic read at the times the MPI 2 header
 * allows, 60 s), READY (60 s), then the backend's reinit_step, itself in
 * parts bounded as Linux bounds them (_base_make_ioc_operational: IOC
 * FACTS and IOC INIT handshakes, OPERATIONAL, EVENT NOTIFICATION,
 * mpt3sas_port_enable's 300 s). The requests the IOC held end only once
 * it is OPERATIONAL again (the midlayer completes them after the host
 * reset, scsi_eh_flush_done_q), or once it is given up after the
 * diagnostic reset took them from it. A controller that cannot be brought
 * back, or that needed MPT_MAX_HOST_RESETS already, is marked failed (its
 * disks' commands end with an error; what it may still write, a request
 * frame it never answered, stays allocated until release resets it). */
static int mpt_host_reset(void *ctrl, bool start, const char **step, char *err, size_t errlen)
{
    struct mpt_ctrl *c = ctrl;
    unsigned ended = 0, released = 0;
    uint32_t db;
    int rc;

    if (start) {
        if (!c->be->reinit_step || c->host_resets >= MPT_MAX_HOST_RESETS) {
            snprintf(err, errlen, "%u IOC resets already: its disks end their commands with an error", c->host_resets);
            c->failed = true;
            return BM_EIO;
        }
        c->host_resets++;
        db = mpt_read(c, MPT_REG_DOORBELL);
        plat_diag(c->bdf, "IOC host reset %u from %s (doorbell 0x%08x): diagnostic reset, then IOC INIT and PORT "
                  "ENABLE again", c->host_resets, mpt_ioc_state_name(db), db);
        /* No request goes to the IOC until it is OPERATIONAL again. */
        c->resetting = true;
        rc = mpt_diag_reset_start(c, &c->hr_diag, err, errlen);
        if (rc != BM_OK) {
            c->failed = true;
            return rc;
        }
        c->hr_part = MPT_HR_DIAG;
        *step = "diagnostic reset";
        return HBA_PENDING;
    }
    switch (c->hr_part) {
    case MPT_HR_DIAG:
        rc = mpt_diag_reset_poll(c, &c->hr_diag, err, errlen);
        if (rc == HBA_PENDING) {
            *step = "diagnostic reset";
            return rc;
        }
        if (rc != BM_OK) {
            /* The IOC may still own its requests: nothing is freed. */
            c->failed = true;
            return rc;
        }
        c->hr_part = MPT_HR_READY;
        c->hr_deadline_ns = plat_now_ns() + MPT_READY_TIMEOUT_NS;
        *step = "READY";
        return HBA_PENDING;
    case MPT_HR_READY:
        db = mpt_read(c, MPT_REG_DOORBELL);
        if ((db & MPT_IOC_STATE_MASK) != MPT_IOC_STATE_READY) {
            *step = "READY";
            if (plat_now_ns() <= c->hr_deadline_ns)
                return HBA_PENDING;
            snprintf(err, errlen, "IOC not READY %llu s after the diagnostic reset: doorbell 0x%08x (%s)",
                     (unsigned long long)(MPT_READY_TIMEOUT_NS / NS_PER_S), db, mpt_ioc_state_name(db));
            c->failed = true;
            return BM_ETIMEDOUT;
        }
        /* READY: the IOC owns no request any more; the task management
         * frame is ours again. */
        c->operational = false;
        memset(&c->tm, 0, sizeof(c->tm));
        c->hr_part = MPT_HR_REINIT;
        rc = c->be->reinit_step(c, true, step, err, errlen);
        break;
    case MPT_HR_REINIT:
        rc = c->be->reinit_step(c, false, step, err, errlen);
        break;
    default:
        snprintf(err, errlen, "host reset in no known part");
        c->failed = true;
        return BM_EIO;
    }
    if (rc == HBA_PENDING)
        return rc;
    /* OPERATIONAL again, or given up after the diagnostic reset took
     * every request from the IOC: either way they end now. */
    mpt_end_all(c, &ended, &released);
    c->resetting = false;
    if (rc != BM_OK) {
        c->failed = true;
        plat_diag(c->bdf, "host reset %u: IOC given up; %u commands in flight ended with an error, %u timed-out "
                  "requests released (the diagnostic reset took them)", c->host_resets, ended, released);
        return rc;
    }
    plat_diag(c->bdf, "host reset %u done: IOC OPERATIONAL, %u commands in flight ended with an error, %u timed-out "
              "requests released", c->host_resets, ended, released);
    return BM_OK;
}

/* Hand every reply the backend's queue holds to mpt_slot_done(). */
static void mpt_drain(void *ctrl)
{
    struct mpt_ctrl *c = ctrl;

    c->be->drain(c);
}

/* Post again a command a BUSY target wants, once its back-off is over. */
static void mpt_resend(void *ctrl, uint32_t slot)
{
    struct mpt_ctrl *c = ctrl;

    memset(c->sense + (size_t)slot * MPT_SENSE_BYTES, 0, MPT_SENSE_BYTES);
    c->be->post(c, slot, &c->slot_io[slot]);
}

const struct hba_host_ops mpt_host_ops = {
    .drain = mpt_drain,
    .resend = mpt_resend,
    .faulted = mpt_faulted,
    .tm_post = mpt_tm_post,
    .tm_check = mpt_tm_check,
    .host_reset = mpt_host_reset,
    .tm_timeout_ns = MPT_TM_TIMEOUT_NS,
};

static const struct bm_disk_ops mpt_disk_ops = {
    .submit = mpt_submit,
    .poll = hba_disk_poll,
    .health = hba_disk_health,
    .recovery = hba_disk_recovery,
};

/* ---- Discovery ----------------------------------------------------------------------------------------- */

/* Identify one LUN; BM_ENODEV when nothing is there. */
static int mpt_add_lun(struct mpt_ctrl *c, struct bm_disk_list *disks, const struct mpt_addr *a, uint32_t lun)
{
    char tname[32], scsi_name[48], id[48];
    struct hba_disk_spec s = {
        .t = { c, false, a->target, lun, a->dev_handle, a->sas_address },
        .tname = tname,
        .scsi_name = scsi_name,
        .id = id,
        .at = { "mpt", c->pci, a->port, lun, 0, c->max_transfer_bytes },
        .max_qd = a->max_qd ? MIN((uint32_t)MPT_DISK_QD_MAX, a->max_qd) : MPT_DISK_QD_MAX,
        .one_if_untagged = true,
        .exec = mpt_scsi_exec,
        .ops = &mpt_disk_ops,
    };

    snprintf(tname, sizeof(tname), "%s l%u", a->label, lun);
    snprintf(scsi_name, sizeof(scsi_name), "%s %s l%u", c->bdf, a->label, lun);
    if (lun)
        snprintf(id, sizeof(id), "mpt%u%sl%u", c->index, a->label, lun);
    else
        snprintf(id, sizeof(id), "mpt%u%s", c->index, a->label);
    return hba_disk_add(&c->h, disks, &s);
}

/* One device: LUN 0 first (INQUIRY), then the other LUNs REPORT LUNS
 * names. */
int mpt_add_disks(struct mpt_ctrl *c, struct bm_disk_list *disks, const struct mpt_addr *a)
{
    struct hba_target tgt = { c, false, a->target, 0, a->dev_handle, a->sas_address };
    struct scsi_transport tr = { mpt_scsi_exec, &tgt, c->bdf };
    uint32_t luns[16];
    int n, rc;

    rc = mpt_add_lun(c, disks, a, 0);
    if (rc == BM_ENODEV)
        return rc;
    n = scsi_report_luns(&tr, luns, (int)ARRAY_SIZE(luns));
    for (int i = 0; i < n; i++)
        if (luns[i] != 0)
            mpt_add_lun(c, disks, a, luns[i]);
    return rc;
}

/* MPI 1: every target id on bus 0. */
void mpt_scan(struct mpt_ctrl *c, struct bm_disk_list *disks)
{
    for (uint32_t t = 0; t < c->max_targets; t++) {
        struct mpt_addr a = { .target = (uint8_t)t, .port = t, .max_qd = MPT1_DEVICE_QUEUE_DEPTH };

        if (t == c->port_id)
            continue; /* the IOC itself */
        snprintf(a.label, sizeof(a.label), "t%u", t);
        mpt_add_disks(c, disks, &a);
    }
}
