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
    /* BUSY / TASK SET FULL from the target, or the IOC out of resources
     * (mpt3sas _scsih_io_done turns IOCStatus BUSY and
     * INSUFFICIENT_RESOURCES into SAM_STAT_BUSY): send it again later. */
    if (r->address_reply &&
        (r->ioc_status == MPI_IOCSTATUS_BUSY || r->ioc_status == MPI_IOCSTATUS_INSUFFICIENT_RESOURCES) &&
        hbaq_requeue(&c->h.q, slot, plat_now_ns()))
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

static void mpt_on_timeout(void *arg, uint32_t slot);

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
    int slot, st, rc;

    slot = hbaq_get_internal(&c->h.q, plat_now_ns(), cmd->timeout_ns);
    if (slot < 0)
        return slot;
    mpt_io_for(&io, t);
    memcpy(io.cdb, cmd->cdb, cmd->cdb_len);
    io.cdb_len = cmd->cdb_len;
    io.dir = cmd->dir;
    io.data_pa = cmd->len ? plat_virt_to_phys(cmd->buf) : 0;
    io.data_len = cmd->len;
    io.sense_pa = plat_virt_to_phys(c->sense + (size_t)slot * MPT_SENSE_BYTES);
    c->slot_bytes[slot] = cmd->len;
    c->slot_io[slot] = io;
    memset(c->sense + (size_t)slot * MPT_SENSE_BYTES, 0, MPT_SENSE_BYTES);
    c->be->post(c, (uint32_t)slot, &io);
    while (!hbaq_internal_done(&c->h.q, (uint32_t)slot, &st)) {
        c->be->drain(c);
        if (plat_now_ns() > deadline) {
            hbaq_abandon(&c->h.q, (uint32_t)slot);
            /* Same recovery as an engine command's (task management). */
            mpt_on_timeout(c, (uint32_t)slot);
            snprintf(detail, detail_len, "no reply within %llu ms (doorbell 0x%08x)",
                     (unsigned long long)(cmd->timeout_ns / NS_PER_MS), mpt_read(c, MPT_REG_DOORBELL));
            return BM_ETIMEDOUT;
        }
        plat_cpu_relax();
    }
    r = &c->results[slot];
    rc = mpt_result_status(r, NULL, 0, detail, detail_len);
    if (rc == BM_ENODEV)
        return BM_ENODEV;
    if (r->scsi_state & (MPI_SCSI_STATE_NO_SCSI_STATUS | MPI_SCSI_STATE_TERMINATED) ||
        (r->ioc_status != MPI_IOCSTATUS_SUCCESS && r->ioc_status != MPI_IOCSTATUS_SCSI_RECOVERED_ERROR &&
         r->ioc_status != MPI_IOCSTATUS_SCSI_DATA_UNDERRUN))
        return BM_EIO;
    /* The target answered: hand its status and sense to the SCSI layer. */
    cmd->status = r->scsi_status;
    if (r->address_reply && cmd->len >= r->transfer_count && r->scsi_status == SCSI_STATUS_GOOD)
        cmd->resid = cmd->len - r->transfer_count;
    if (r->scsi_state & MPI_SCSI_STATE_AUTOSENSE_VALID) {
        cmd->sense_len = MIN(r->sense_count ? r->sense_count : MPT_SENSE_BYTES, (uint32_t)SCSI_SENSE_MAX);
        memcpy(cmd->sense, c->sense + (size_t)slot * MPT_SENSE_BYTES, cmd->sense_len);
    }
    return BM_OK;
}

/* ---- Task management ---------------------------------------------------------------------------------- */

int mpt_wait_tm_reply(struct mpt_ctrl *c, volatile bool *done, uint64_t timeout_ns, const char *what, char *err,
                      size_t errlen)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;
    bool in_s = timeout_ns % NS_PER_S == 0;

    while (!*done) {
        uint32_t db = mpt_read(c, MPT_REG_DOORBELL);

        c->be->drain(c);
        if (*done)
            break;
        if ((db & MPT_IOC_STATE_MASK) != MPT_IOC_STATE_OPERATIONAL) {
            snprintf(err, errlen, "%s: IOC left OPERATIONAL: doorbell 0x%08x (%s)", what, db, mpt_ioc_state_name(db));
            return BM_EIO;
        }
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "%s: no reply within %llu %s (doorbell 0x%08x)", what,
                     (unsigned long long)(timeout_ns / (in_s ? NS_PER_S : NS_PER_MS)), in_s ? "s" : "ms", db);
            return BM_ETIMEDOUT;
        }
        plat_cpu_relax();
    }
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

/* Take every request back from the IOC by resetting it, as Linux
 * mpt3sas_base_hard_reset_handler does when task management could not
 * end a command (scsih_abort / scsih_target_reset escalate to
 * scsih_host_reset; MPI 1: mptscsih_IssueTaskMgmt calls
 * mpt_HardResetHandler): diagnostic reset, so the IOC owns no request and
 * writes no buffer any more; every command it held ends with an error
 * (mpt3sas _scsih_flush_running_cmds, DID_RESET) and every frame held
 * for a timed-out request is free again; then the IOC is made
 * OPERATIONAL with the same queues (_base_make_ioc_operational) and the
 * controller's disks carry on. A controller that cannot be brought back,
 * or that needed MPT_MAX_HOST_RESETS already, is marked failed (its
 * disks' commands end with an error). Every wait in it is bounded (diag
 * reset 60 s, IOC INIT 10 s + 30 s, PORT ENABLE 300 s). */
static void mpt_host_reset(struct mpt_ctrl *c, const char *why)
{
    static const struct mpt_result reset = { .ioc_status = MPI_IOCSTATUS_SCSI_IOC_TERMINATED,
                                             .scsi_state = MPI_SCSI_STATE_TERMINATED, .address_reply = true };
    unsigned ended = 0, released = 0;
    char err[160];
    int rc;

    if (!c->be->reinit || c->host_resets >= MPT_MAX_HOST_RESETS) {
        plat_diag(c->bdf, "%s; %u IOC resets already: controller given up, its disks end their commands with an "
                  "error", why, c->host_resets);
        c->failed = true;
        return;
    }
    c->host_resets++;
    plat_diag(c->bdf, "%s: IOC host reset %u (diagnostic reset, then IOC INIT and PORT ENABLE again)", why,
              c->host_resets);
    rc = mpt_hard_reset(c, err, sizeof(err));
    if (rc != BM_OK) {
        /* The IOC may still own its requests: nothing is freed. */
        plat_diag(c->bdf, "host reset: %s; controller given up", err);
        c->failed = true;
        return;
    }
    c->operational = false;
    for (uint32_t i = 0; i < c->nslots; i++) {
        switch (c->h.q.slots[i].state) {
        case HBAQ_BUSY:
        case HBAQ_INTERNAL:
            c->results[i] = reset;
            hbaq_complete(&c->h.q, i, BM_EIO, "IOC reset after a command timed out");
            ended++;
            break;
        case HBAQ_TIMEDOUT:
            /* Its buffer is the engine's again only now (hba_queue.h). */
            c->results[i] = reset;
            hbaq_complete(&c->h.q, i, BM_ETIMEDOUT, "ended by an IOC reset");
            released++;
            break;
        case HBAQ_ABANDONED:
            hbaq_complete(&c->h.q, i, BM_EIO, NULL);
            released++;
            break;
        default:
            break; /* free, or waiting for a BUSY retry (not the IOC's) */
        }
    }
    rc = c->be->reinit(c, err, sizeof(err));
    if (rc != BM_OK) {
        plat_diag(c->bdf, "host reset: IOC not brought back: %s; controller given up", err);
        c->failed = true;
        return;
    }
    plat_diag(c->bdf, "host reset %u done: IOC OPERATIONAL, %u commands in flight ended with an error, %u timed-out "
              "requests released", c->host_resets, ended, released);
}

/* A command timed out (its slot is abandoned: held until the IOC answers
 * for it). Ask the target to give it up, as Linux escalates (mpt3sas
 * scsih_abort, then scsih_target_reset; mptscsih_abort): ABORT TASK, then
 * TARGET RESET if the request is still the IOC's; a request that survives
 * both (or an IOC that does not answer task management, or faulted) gets
 * the host reset. */
static void mpt_on_timeout(void *arg, uint32_t slot)
{
    static const struct { uint8_t type; const char *name; } steps[] = {
        { MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK, "ABORT TASK" },
        { MPI2_SCSITASKMGMT_TASKTYPE_TARGET_RESET, "TARGET RESET" },
    };
    struct mpt_ctrl *c = arg;
    uint32_t db = mpt_read(c, MPT_REG_DOORBELL);
    const struct mpt_scsi_io *io = &c->slot_io[slot];
    char err[128], why[200];

    if (c->failed)
        return;
    if ((db & MPT_IOC_STATE_MASK) == MPT_IOC_STATE_FAULT) {
        /* mpt3sas _base_fault_reset_work: a faulted IOC gets the host reset. */
        snprintf(why, sizeof(why), "IOC FAULT 0x%04x with request %u outstanding", db & MPT_DOORBELL_DATA_MASK, slot);
        mpt_host_reset(c, why);
        return;
    }
    snprintf(why, sizeof(why), "request %u (target %u, handle 0x%04x) still held by the IOC after task management",
             slot, io->target, io->dev_handle);
    for (size_t i = 0; c->be->task_mgmt && i < ARRAY_SIZE(steps); i++) {
        int rc;

        if (!hbaq_slot_held(&c->h.q, slot))
            return; /* answered meanwhile */
        rc = c->be->task_mgmt(c, steps[i].type, io, slot, err, sizeof(err));
        if (rc == BM_ENOTSUP)
            break;
        if (rc != BM_OK) {
            plat_diag(c->bdf, "request %u (target %u, handle 0x%04x) timed out; %s", slot, io->target,
                      io->dev_handle, err);
            if (rc == BM_ETIMEDOUT || rc == BM_EBUSY) {
                /* Task management itself went unanswered (mptscsih:
                 * "TaskMgmt TIMED OUT" -> hard reset). */
                snprintf(why, sizeof(why), "request %u: %s", slot, err);
                break;
            }
            continue;
        }
        if (!hbaq_slot_held(&c->h.q, slot)) {
            plat_diag(c->bdf, "request %u (target %u, handle 0x%04x) timed out; %s ended it", slot, io->target,
                      io->dev_handle, steps[i].name);
            return;
        }
    }
    if (!hbaq_slot_held(&c->h.q, slot))
        return;
    mpt_host_reset(c, why);
}

/* Hand every reply the backend's queue holds to mpt_slot_done(). */
static void mpt_drain(void *ctrl)
{
    struct mpt_ctrl *c = ctrl;

    c->be->drain(c);
}

/* Post again the commands a BUSY target wants, once their back-off is over. */
static void mpt_send_retries(void *ctrl)
{
    struct mpt_ctrl *c = ctrl;
    int slot;

    while ((slot = hbaq_next_retry(&c->h.q, plat_now_ns())) >= 0) {
        memset(c->sense + (size_t)slot * MPT_SENSE_BYTES, 0, MPT_SENSE_BYTES);
        c->be->post(c, (uint32_t)slot, &c->slot_io[slot]);
    }
}

const struct hba_host_ops mpt_host_ops = {
    .drain = mpt_drain,
    .on_timeout = mpt_on_timeout,
    .send_retries = mpt_send_retries,
};

static const struct bm_disk_ops mpt_disk_ops = {
    .submit = mpt_submit,
    .poll = hba_disk_poll,
    .health = hba_disk_health,
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
