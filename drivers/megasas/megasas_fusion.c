/* MegaRAID "Fusion" transport: SAS2208 (Thunderbolt, e.g. PERC H710),
 * SAS3108 (Invader, PERC H730/H830, Intel RMS3 modules) and SAS3008
 * MegaRAID (Fury).
 *
 * These controllers keep MFI for management but move commands the MPI2
 * way (Linux megaraid_sas_fusion.c, FreeBSD mrsas.c):
 *   - the firmware is brought to READY with the MFI state machine (in
 *     megasas.c, shared with the MFI transport); scratch pad 0 gives the command limit, scratch pad
 *     1 the chain frame size;
 *   - host memory holds 256-byte request frames indexed by SMID (SMID 0 is
 *     never used), a sense buffer per SMID, a reply descriptor post queue
 *     initialised to all-ones ("unused"), and MFI frames for DCMDs;
 *   - IOC INIT is an MPI2 IOC INIT request wrapped in an MFI INIT frame,
 *     posted with an MFA request descriptor, finished when the frame's
 *     cmd_status changes;
 *   - afterwards every command is a request frame posted as a 64-bit
 *     request descriptor, one 8-byte write to IQPL as Linux
 *     megasas_write_64bit_req_desc() does on 64-bit kernels; DCMDs
 *     are MPI2 pass-through requests whose chain SGE points at the MFI
 *     frame; LD I/O is LD IO requests on the firmware path (no fast path:
 *     the RAID map is never read) with the RAID context of the chip
 *     generation; system (JBOD) drive reads and writes go the fast path
 *     with the device handle and sequence number of the JBOD sequence map
 *     when the firmware has one, else the firmware path;
 *   - completions are reply descriptors carrying the SMID; poll() drains
 *     them, puts all-ones back and tells the firmware through the reply
 *     post host index register.
 * Everything is polled: INTx is disabled at PCI and MSI-X is never
 * enabled, so one reply queue serves everything.
 */
#include "megasas.h"
#include "fusion_ctrl.h"
#include "../pci.h"
#include "../pci_regs.h"
#include "../scsi/scsi.h"

/* ---- Frames ------------------------------------------------------------------------------- */

/* The request frame of a slot (SMID slot + 1). */
static struct fusion_io_request *fu_request(struct fu_ctrl *c, uint32_t slot)
{
    return (struct fusion_io_request *)(c->req + (size_t)(slot + 1) * FUSION_FRAME_BYTES);
}

/* The sense buffer of a slot. */
static uint8_t *fu_sense(struct fu_ctrl *c, uint32_t slot) { return c->sense + (size_t)slot * FU_SENSE_STRIDE; }

/* Post a slot's request frame with a SCSI IO style descriptor. */
static void fu_fire_slot(struct fu_ctrl *c, uint32_t slot, uint8_t type, uint16_t dev_handle)
{
    uint32_t smid = slot + 1;

    /* RequestFlags at byte 0, MSIxIndex 0, SMID at 2; LMID 0 and the
     * DevHandle in the high half (MPI2_SCSI_IO_REQUEST_DESCRIPTOR). */
    fu_fire(c, (uint32_t)(type << FUSION_REQ_TYPE_SHIFT) | (smid << 16), (uint32_t)dev_handle << 16);
}

/* ---- Completions ----------------------------------------------------------------------------- */

/* Text for a RAID context / MFI status, including the Fusion-only ones. */
const char *fu_status_name(uint8_t st)
{
    switch (st) {
    case MFI_STAT_CONFIG_SEQ_MISMATCH: return "config sequence mismatch";
    case MFI_STAT_LD_INIT_IN_PROGRESS: return "LD initialisation in progress";
    default: return mfi_status_name(st);
    }
}

/* The outcome of a finished request (Linux complete_cmd_fusion and
 * map_cmd_status): an MFI pass-through reports in its MFI frame, I/O in
 * the RAID context (status = MFI status, ex_status = SCSI status). */
static int fu_result(struct fu_ctrl *c, uint32_t slot, char *detail, size_t len)
{
    struct fusion_io_request *r = fu_request(c, slot);
    uint8_t st, ex;

    if (r->function == MPI2_FUNCTION_SCSI_TASK_MGMT)
        return BM_OK; /* the TM's effect is judged by the task it named (Linux megasas_issue_tm) */
    if (r->function == FUSION_FUNCTION_PASSTHRU_IO) {
        st = c->mfi[slot].hdr.cmd_status;
        if (st == MFI_STAT_OK)
            return BM_OK;
        snprintf(detail, len, "MFI status 0x%02x %s", st, fu_status_name(st));
        return BM_EIO;
    }
    st = r->raid_context.status;
    ex = r->raid_context.ex_status;
    if (st == MFI_STAT_OK)
        return BM_OK;
    if (st == MFI_STAT_SCSI_DONE_WITH_ERROR) {
        scsi_describe(ex, fu_sense(c, slot), FUSION_SENSE_BYTES, detail, len);
        return BM_EIO;
    }
    snprintf(detail, len, "MFI status 0x%02x %s", st, fu_status_name(st));
    return st == MFI_STAT_DEVICE_NOT_FOUND ? BM_ENODEV : BM_EIO;
}

/* The descriptor type a built I/O frame is posted with (as fu_build_scsi
 * chose it): fast path, LD read/write, or the firmware's SCSI IO queue. */
static uint8_t fu_io_desc_type(const struct fu_ctrl *c, const struct fusion_io_request *r)
{
    if (r->function == MPI2_FUNCTION_SCSI_IO_REQUEST)
        return FUSION_REQ_TYPE_FP_IO;
    if (r->dev_handle == FUSION_DEVHANDLE_INVALID)
        return FUSION_REQ_TYPE_SCSI_IO;
    return c->id->gen == FU_INVADER ? FUSION_REQ_TYPE_NO_LOCK : FUSION_REQ_TYPE_LD_IO;
}

/* Turn a fast-path system drive request into its firmware-path form
 * (Linux megasas_build_syspd_fusion with fp_possible false): LD IO
 * function, no device handle, the PD's own target id, no sequence check. */
static void fu_jbod_to_firmware_path(struct fusion_io_request *r)
{
    struct fusion_raid_context *rc = &r->raid_context;

    r->function = FUSION_FUNCTION_LD_IO;
    r->dev_handle = FUSION_DEVHANDLE_INVALID;
    r->io_flags &= (uint16_t)~MPI25_IOFLAGS_FAST_PATH;
    rc->virtual_disk_tgt_id = (uint16_t)(rc->virtual_disk_tgt_id - FUSION_JBOD_TGT_OFFSET);
    rc->config_seq_num = 0;
    rc->reg_lock_flags = 0;
    rc->type_nseg = 0;
    rc->timeout_value = FU_CDB_TIMEOUT_S;
}

/* An engine I/O the firmware wants again later rather than failed:
 * SCSI status BUSY or TASK SET FULL (Linux map_cmd_status passes the SCSI
 * status up and the midlayer requeues it, scsi_decide_disposition), or
 * MFI_STAT_CONFIG_SEQ_MISMATCH (Linux map_cmd_status DID_IMM_RETRY,
 * FreeBSD mrsas_map_mpt_cmd_status CAM_REQUEUE_REQ). A sequence mismatch
 * means the JBOD map is stale: Linux refreshes it from the firmware's
 * pended map DCMD; a polled driver has no pended DCMD, so system drive
 * I/O goes the firmware path from here on, this command included. The
 * slot waits in the shared queue (hba_queue.h "BUSY and TASK SET FULL")
 * and fu_poll sends it again. False: complete it as usual. */
static bool fu_retry_later(struct fu_ctrl *c, uint32_t slot)
{
    struct fusion_io_request *r = fu_request(c, slot);
    struct fusion_raid_context *rc = &r->raid_context;
    const struct hbaq_slot *s = &c->base.h.q.slots[slot];
    bool seq;

    if (s->state != HBAQ_BUSY || !s->owner ||
        (r->function != FUSION_FUNCTION_LD_IO && r->function != MPI2_FUNCTION_SCSI_IO_REQUEST))
        return false;
    /* SCSI status and sense: the shared table decides (BUSY, TASK SET
     * FULL, UNIT ATTENTION, becoming ready: again later; RECOVERED
     * ERROR: success), as Linux map_cmd_status hands them to the
     * midlayer's scsi_decide_disposition / scsi_check_sense. */
    if (rc->status == MFI_STAT_SCSI_DONE_WITH_ERROR)
        return hba_scsi_disposition(&c->base.h, slot, rc->ex_status, fu_sense(c, slot), FUSION_SENSE_BYTES);
    seq = rc->status == MFI_STAT_CONFIG_SEQ_MISMATCH && r->function == MPI2_FUNCTION_SCSI_IO_REQUEST;
    if (!seq)
        return false;
    if (!hbaq_requeue(&c->base.h.q, slot, plat_now_ns()))
        return false;
    if (seq) {
        if (c->jbod_fp)
            plat_diag(c->base.bdf, "pd%u: JBOD sequence number %u is stale (config sequence mismatch): system drives "
                      "go the firmware path from now on",
                      (unsigned)(rc->virtual_disk_tgt_id - FUSION_JBOD_TGT_OFFSET), rc->config_seq_num);
        c->jbod_fp = false;
        fu_jbod_to_firmware_path(r);
    }
    return true;
}

/* Send again a request whose BUSY back-off is over, unchanged but for
 * the status the firmware wrote into its RAID context. */
static void fu_resend(void *ctrl, uint32_t slot)
{
    struct fu_ctrl *c = ctrl;
    struct fusion_io_request *r = fu_request(c, slot);

    r->raid_context.status = 0;
    r->raid_context.ex_status = 0;
    memset(fu_sense(c, slot), 0, FUSION_SENSE_BYTES);
    fu_fire_slot(c, slot, fu_io_desc_type(c, r), r->dev_handle);
}

/* Hand every posted reply descriptor to the slot table, mark it unused
 * again and tell the firmware how far we got. */
static void fu_drain_replies(void *ctrl)
{
    struct fu_ctrl *c = ctrl;
    bool any = false;

    /* At most one lap per call: a firmware that keeps rewriting entries
     * must not keep the caller here forever. */
    for (uint32_t n = 0; n < c->reply_depth; n++) {
        uint64_t d = c->reply[c->reply_next];
        uint32_t smid;
        char detail[64] = "";

        /* Unused: type 0xf, or either half still all-ones (Linux
         * complete_cmd_fusion checks both). */
        if ((d & MPI2_RPY_TYPE_MASK) == MPI2_RPY_TYPE_UNUSED || (uint32_t)d == 0xffffffffu ||
            (uint32_t)(d >> 32) == 0xffffffffu)
            break;
        plat_rmb(); /* the request frame's status is read after the descriptor */
        smid = (uint32_t)(d >> 16) & 0xffff;
        c->reply[c->reply_next] = FUSION_REPLY_UNUSED;
        c->reply_next = (c->reply_next + 1) % c->reply_depth;
        any = true;
        if (smid < 1 || smid > c->nslots) {
            plat_diag(c->base.bdf, "reply descriptor 0x%016llx with SMID %u out of range 1..%u",
                      (unsigned long long)d, smid, c->nslots);
            continue;
        }
        if (fu_retry_later(c, smid - 1))
            continue;
        if (!hbaq_complete(&c->base.h.q, smid - 1, fu_result(c, smid - 1, detail, sizeof(detail)), detail))
            plat_diag(c->base.bdf, "reply for idle SMID %u", smid);
    }
    if (any) {
        plat_wmb(); /* the all-ones must be visible before the firmware may reuse the entries */
        /* One queue, no MSI-X: the index register at 0x6c on every
         * generation (0x30c and up are for combined MSI-X vectors). */
        fu_write(c, FUSION_REG_REPLY_POST_HOST_INDEX, c->reply_next);
    }
}

/* Post an internal request (already built) and wait for its reply. */
static int fu_exec_sync(struct fu_ctrl *c, uint32_t slot, uint8_t type, uint16_t dev_handle, uint64_t timeout_ns,
                        const char *what)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;   /* from the moment of the post */
    int st;

    fu_fire_slot(c, slot, type, dev_handle);
    if (hba_wait_internal(&c->base.h, slot, deadline, &st) == BM_OK)
        return BM_OK;
    /* The slot stays held until the firmware answers for it. */
    plat_diag(c->base.bdf, "%s: no reply descriptor for SMID %u within %llu ms (reply queue index %u, OSP0 0x%08x)",
              what, slot + 1, (unsigned long long)(timeout_ns / NS_PER_MS), c->reply_next, fu_fw_status(c));
    return BM_ETIMEDOUT;
}

/* An internal slot with cleared request and MFI frames, or a negative error. */
static int fu_internal_slot(struct fu_ctrl *c, uint64_t timeout_ns)
{
    int slot = hbaq_get_internal(&c->base.h.q, plat_now_ns(), timeout_ns);

    if (slot >= 0) {
        memset(fu_request(c, (uint32_t)slot), 0, FUSION_FRAME_BYTES);
        memset(&c->mfi[slot], 0, sizeof(union mfi_frame));
    }
    return slot;
}

/* ---- DCMDs through the MPI2 pass-through function -------------------------------------------- */

/* Make a slot's request frame an MFI pass-through: a chain SGE at the SGL
 * that points at the slot's MFI frame (Linux build_mpt_mfi_pass_thru). */
static void fu_build_mfi_passthru(struct fu_ctrl *c, uint32_t slot)
{
    struct fusion_io_request *r = fu_request(c, slot);
    struct fusion_sge *chain = &r->sgl[0];

    r->function = FUSION_FUNCTION_PASSTHRU_IO;
    r->sgl_offset0 = FUSION_SGL_OFFSET / 4;
    r->chain_offset = FUSION_SGL_OFFSET / 16;
    chain->addr = plat_virt_to_phys(&c->mfi[slot]);
    /* Linux and FreeBSD give the chain frame size here, not the MFI
     * frame's 64 bytes; the frame pool is padded so the firmware may read
     * that far past the last frame. */
    chain->len = c->max_chain_bytes;
    chain->flags = IEEE_SGE_FLAGS_CHAIN_ELEMENT | IEEE_SGE_FLAGS_IOCPLBNTA_ADDR;
}

/* A DCMD the firmware did not answer: an MFI ABORT naming its frame,
 * sent like any DCMD through the pass-through function (Linux
 * megasas_issue_blocked_abort_cmd, which Fusion parts take through
 * megasas_issue_dcmd_fusion). It is not waited for: its SMID is abandoned
 * and freed by its reply, and the hung SMID stays held until the firmware
 * gives it back. */
static void fu_abort_dcmd(struct fu_ctrl *c, uint32_t slot)
{
    uint64_t pa = plat_virt_to_phys(&c->mfi[slot]);
    int a;

    if (c->failed)
        return;
    a = fu_internal_slot(c, FU_DCMD_TIMEOUT_NS);
    if (a < 0) {
        plat_diag(c->base.bdf, "DCMD on SMID %u timed out; no free SMID to abort it with, it stays held", slot + 1);
        return;
    }
    mfi_build_abort(&c->mfi[a], (uint32_t)a, slot, pa);
    fu_build_mfi_passthru(c, (uint32_t)a);
    fu_fire_slot(c, (uint32_t)a, FUSION_REQ_TYPE_SCSI_IO, 0);
    hbaq_abandon(&c->base.h.q, (uint32_t)a);
    plat_diag(c->base.bdf, "DCMD on SMID %u timed out: abort sent (SMID %d)", slot + 1, a + 1);
}

/* A DCMD moving len bytes between the firmware and c->scratch. */
int fu_dcmd(struct fu_ctrl *c, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
            bool write, char *err, size_t errlen)
{
    union mfi_frame *f;
    void *dma;
    char what[32];
    int slot, rc;
    uint8_t st;

    if (len > FU_SCRATCH_BYTES)
        return BM_EINVAL;
    /* The data goes through pages of its own, copied from / to c->scratch:
     * a DCMD the firmware never answers may still move them after the
     * next DCMD (hba_dma_lend). */
    dma = hba_dma_lend(write ? c->scratch : NULL, len);
    if (len && !dma) {
        snprintf(err, errlen, "DCMD 0x%08x: no memory for its data", opcode);
        return BM_ENOMEM;
    }
    slot = fu_internal_slot(c, FU_DCMD_TIMEOUT_NS);
    if (slot < 0) {
        hba_dma_back(&c->base.h, NULL, dma, len, false, "DCMD");
        snprintf(err, errlen, "DCMD 0x%08x: no free SMID", opcode);
        return slot;
    }
    if (!write)
        memset(c->scratch, 0, len);
    f = &c->mfi[slot];
    f->dcmd.hdr.cmd = MFI_CMD_DCMD;
    f->dcmd.hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    f->dcmd.hdr.context = (uint32_t)slot;
    f->dcmd.hdr.data_len = len;
    f->dcmd.opcode = opcode;
    if (mbox)
        memcpy(f->dcmd.mbox, mbox, MIN(mbox_len, (size_t)MFI_MBOX_BYTES));
    if (len) {
        f->dcmd.hdr.flags = (write ? MFI_FRAME_DIR_WRITE : MFI_FRAME_DIR_READ) | MFI_FRAME_SGL64;
        f->dcmd.hdr.sge_count = 1;
        f->dcmd.sgl.sge64.addr = plat_virt_to_phys(dma);
        f->dcmd.sgl.sge64.len = len;
    }
    fu_build_mfi_passthru(c, (uint32_t)slot);
    rc = fu_exec_sync(c, (uint32_t)slot, FUSION_REQ_TYPE_SCSI_IO, 0, FU_DCMD_TIMEOUT_NS, "DCMD");
    if (rc == BM_ETIMEDOUT)
        fu_abort_dcmd(c, (uint32_t)slot);
    snprintf(what, sizeof(what), "DCMD 0x%08x", opcode);
    hba_dma_back(&c->base.h, write ? NULL : c->scratch, dma, len,
                 rc != BM_OK && hbaq_slot_held(&c->base.h.q, (uint32_t)slot), what);
    if (rc != BM_OK) {
        snprintf(err, errlen, "DCMD 0x%08x: no reply descriptor for SMID %d", opcode, slot + 1);
        return rc;
    }
    st = f->hdr.cmd_status;
    if (st != MFI_STAT_OK) {
        snprintf(err, errlen, "DCMD 0x%08x: MFI status 0x%02x %s", opcode, st, fu_status_name(st));
        return BM_EIO;
    }
    return BM_OK;
}

/* mfi_scan_ops.dcmd_read. */
int fu_dcmd_read(void *ctx, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len, char *err,
                 size_t errlen)
{
    return fu_dcmd(((struct fu_scan_ctx *)ctx)->c, opcode, mbox, mbox_len, len, false, err, errlen);
}

/* ---- Member health (megasas_member_health) ----------------------------------------------------- */

int fu_member_dcmd(struct megasas_ctrl *m, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
                   const uint8_t **data, char *err, size_t errlen)
{
    struct fu_ctrl *c = MEGASAS_CTRL_OF(m, struct fu_ctrl);

    *data = c->scratch;
    return fu_dcmd(c, opcode, mbox, mbox_len, len, false, err, errlen);
}

/* One CDB to a physical disk by device id: an MFI PD SCSI I/O frame sent
 * through the MPI2 pass-through function, as Linux sends smartctl's
 * frames on Fusion parts (megasas_mgmt_fw_ioctl -> megasas_issue_blocked_cmd
 * -> megasas_issue_dcmd_fusion, build_mpt_mfi_pass_thru). Not the system
 * PD I/O path: that one reaches only drives exposed to the host, and a
 * RAID member is not. */
int fu_pd_exec(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len)
{
    struct hba_target *t = ctx;
    struct fu_ctrl *c = t->ctrl;
    union mfi_frame *f;
    uint8_t *sense;
    uint64_t sense_pa;
    int slot, rc;
    uint8_t st;

    if (t->logical || t->target > 0xff || cmd->cdb_len > sizeof(f->pass.cdb)) {
        snprintf(detail, detail_len, "not a PD pass-through command");
        return BM_EINVAL;
    }
    slot = fu_internal_slot(c, cmd->timeout_ns);
    if (slot < 0) {
        snprintf(detail, detail_len, "no free SMID");
        return slot;
    }
    sense = fu_sense(c, (uint32_t)slot);
    sense_pa = plat_virt_to_phys(sense);
    memset(sense, 0, FUSION_SENSE_BYTES);
    f = &c->mfi[slot];
    f->pass.hdr.cmd = MFI_CMD_PD_SCSI_IO;
    f->pass.hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    f->pass.hdr.context = (uint32_t)slot;
    f->pass.hdr.target_id = (uint8_t)t->target;
    f->pass.hdr.cdb_len = cmd->cdb_len;
    f->pass.hdr.sense_len = MFI_SENSE_BYTES;
    f->pass.hdr.data_len = cmd->len;
    f->pass.hdr.timeout = (uint16_t)MIN(cmd->timeout_ns / NS_PER_S, 0xffffull);
    f->pass.sense_lo = (uint32_t)sense_pa;
    f->pass.sense_hi = (uint32_t)(sense_pa >> 32);
    memcpy(f->pass.cdb, cmd->cdb, cmd->cdb_len);
    f->pass.hdr.flags = MFI_FRAME_SGL64 | (cmd->dir == SCSI_DIR_OUT  ? MFI_FRAME_DIR_WRITE
                                           : cmd->dir == SCSI_DIR_IN ? MFI_FRAME_DIR_READ
                                                                     : 0);
    if (cmd->len) {
        f->pass.hdr.sge_count = 1;
        f->pass.sgl.sge64.addr = plat_virt_to_phys(cmd->buf);
        f->pass.sgl.sge64.len = cmd->len;
    }
    fu_build_mfi_passthru(c, (uint32_t)slot);
    rc = fu_exec_sync(c, (uint32_t)slot, FUSION_REQ_TYPE_SCSI_IO, 0, cmd->timeout_ns, "PD pass-through");
    if (rc == BM_ETIMEDOUT)
        fu_abort_dcmd(c, (uint32_t)slot);
    if (rc != BM_OK) {
        snprintf(detail, detail_len, "no reply descriptor for SMID %d", slot + 1);
        return rc;
    }
    st = f->hdr.cmd_status;
    if (st == MFI_STAT_OK || st == MFI_STAT_SCSI_DONE_WITH_ERROR) {
        scsi_cmd_answer(cmd, st == MFI_STAT_OK ? SCSI_STATUS_GOOD : f->hdr.scsi_status,
                        st == MFI_STAT_OK ? NULL : sense, MIN((uint32_t)MFI_SENSE_BYTES, FUSION_SENSE_BYTES), -1);
        return BM_OK;
    }
    snprintf(detail, detail_len, "MFI status 0x%02x %s", st, fu_status_name(st));
    return st == MFI_STAT_DEVICE_NOT_FOUND ? BM_ENODEV : BM_EIO;
}

/* ---- SCSI requests ------------------------------------------------------------------------------- */

/* Fill a slot's request frame for one CDB to an LD or system PD on the
 * firmware path (Linux megasas_build_io_fusion with
 * megasas_build_ldio_fusion / _ld_nonrw_fusion / _syspd_fusion when no
 * fast path is possible). Returns the request descriptor type and sets
 * *dev_handle. buf may be NULL when len is 0. */
static uint8_t fu_build_scsi(struct fu_ctrl *c, uint32_t slot, bool logical, uint16_t target, const uint8_t *cdb,
                             uint8_t cdb_len, enum scsi_dir dir, void *buf, uint32_t len, bool rw,
                             uint16_t *dev_handle)
{
    struct fusion_io_request *r = fu_request(c, slot);
    struct fusion_raid_context *rc = &r->raid_context;
    uint8_t type = FUSION_REQ_TYPE_SCSI_IO;

    memset(r, 0, FUSION_FRAME_BYTES);
    r->function = FUSION_FUNCTION_LD_IO;
    memcpy(r->cdb, cdb, cdb_len);
    r->io_flags = cdb_len;          /* just the CDB length on the firmware path */
    r->data_length = len;
    r->sense_buffer_low = (uint32_t)plat_virt_to_phys(fu_sense(c, slot));
    r->sense_buffer_length = FUSION_SENSE_BYTES;
    r->sgl_flags = MPI2_SGE_FLAGS_64_BIT_ADDRESSING;
    r->sgl_offset0 = FUSION_SGL_OFFSET / 4;
    r->control = dir == SCSI_DIR_OUT ? MPI2_SCSIIO_CONTROL_WRITE : dir == SCSI_DIR_IN ? MPI2_SCSIIO_CONTROL_READ : 0;
    rc->virtual_disk_tgt_id = target;
    if (logical) {
        *dev_handle = target;
        r->dev_handle = target;
        if (rw) {
            /* LD read/write without a RAID map: no region lock, so
             * Invader takes the NO_LOCK descriptor and the CUDA
             * context; Thunderbolt the LD_IO descriptor. The config
             * sequence check stays off: it compares against the RAID
             * map's sequence number, which we never read. */
            type = FUSION_REQ_TYPE_LD_IO;
            if (c->id->gen == FU_INVADER) {
                type = FUSION_REQ_TYPE_NO_LOCK;
                rc->type_nseg = FUSION_RAID_TYPE_CUDA | (1u << 4);
                rc->reg_lock_flags = FUSION_RL_GRANT_DESTINATION_CPU0;
            }
        } else {
            rc->timeout_value = FU_CDB_TIMEOUT_S;
        }
    } else if (rw && c->jbod_fp && target < MFI_JBOD_MAP_ENTRIES) {
        /* System PD read/write on the fast path with the JBOD sequence
         * map (Linux megasas_build_syspd_fusion with use_seqnum_jbod_fp
         * and fp_possible; FreeBSD mrsas_build_syspdio): SCSI IO function
         * to the map's device handle, target id above the LDs, the map's
         * sequence number checked by the firmware, CUDA context, FP_IO
         * descriptor, the fast-path flag on Invader and later, and the
         * OS timeout plus one capped at 255 s for a disk. */
        r->function = MPI2_FUNCTION_SCSI_IO_REQUEST;
        r->dev_handle = c->jbod_map->seq[target].dev_handle;
        *dev_handle = r->dev_handle;
        rc->virtual_disk_tgt_id = (uint16_t)(target + FUSION_JBOD_TGT_OFFSET);
        rc->config_seq_num = c->jbod_map->seq[target].seq_num;
        rc->reg_lock_flags = FUSION_RL_SEQ_NUM_ENABLE | FUSION_RL_GRANT_DESTINATION_CUDA;
        rc->type_nseg = FUSION_RAID_TYPE_CUDA | (1u << 4);
        rc->raid_flags = FUSION_RAID_FLAGS_SUBTYPE_SYSTEM_PD << FUSION_RAID_FLAGS_SUBTYPE_SHIFT;
        rc->timeout_value = MIN(FU_CDB_TIMEOUT_S + 1, FU_FP_PD_TIMEOUT_S);
        if (c->id->gen == FU_INVADER)
            r->io_flags |= MPI25_IOFLAGS_FAST_PATH;
        type = FUSION_REQ_TYPE_FP_IO;
    } else {
        /* System PD, firmware path (Linux megasas_build_syspd_fusion with
         * fp_possible false, which Linux takes for non-read/write CDBs
         * with secure JBOD; FreeBSD mrsas_build_syspdio "FW PATH"): no
         * device handle, the target id in the RAID context and the
         * SYSTEM_PD I/O sub-type. Identification always comes this way;
         * reads and writes too when the firmware has no JBOD map. */
        *dev_handle = FUSION_DEVHANDLE_INVALID;
        r->dev_handle = FUSION_DEVHANDLE_INVALID;
        rc->raid_flags = FUSION_RAID_FLAGS_SUBTYPE_SYSTEM_PD << FUSION_RAID_FLAGS_SUBTYPE_SHIFT;
        rc->timeout_value = FU_CDB_TIMEOUT_S;
    }
    if (len) {
        /* Buffers are physically contiguous (plat_alloc_pages): one IEEE
         * SGE, marked last on Invader and later. */
        r->sgl[0].addr = plat_virt_to_phys(buf);
        r->sgl[0].len = len;
        r->sgl[0].flags = c->id->gen == FU_INVADER ? IEEE_SGE_FLAGS_END_OF_LIST : 0;
        rc->num_sge = 1;
    }
    return type;
}

/* scsi_transport.exec: one CDB to an LD or system PD, waited for. */
static int fu_scsi_exec(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len)
{
    struct hba_target *t = ctx;
    struct fu_ctrl *c = t->ctrl;
    struct fusion_io_request *r;
    void *dma = hba_cmd_dma_get(cmd);
    uint16_t dev_handle;
    uint8_t type, st;
    int slot, rc;

    if (cmd->len && !dma) {
        snprintf(detail, detail_len, "no memory for the data");
        return BM_ENOMEM;
    }
    slot = fu_internal_slot(c, cmd->timeout_ns);
    if (slot < 0) {
        hba_cmd_dma_put(&c->base.h, cmd, dma, false);
        snprintf(detail, detail_len, "no free SMID");
        return slot;
    }
    memset(fu_sense(c, (uint32_t)slot), 0, FUSION_SENSE_BYTES);
    type = fu_build_scsi(c, (uint32_t)slot, t->logical, t->target, cmd->cdb, cmd->cdb_len, cmd->dir, dma,
                         cmd->len, false, &dev_handle);
    rc = fu_exec_sync(c, (uint32_t)slot, type, dev_handle, cmd->timeout_ns, "SCSI command");
    /* An SMID the firmware did not answer stays held: so does its memory. */
    hba_cmd_dma_put(&c->base.h, cmd, dma, rc != BM_OK && hbaq_slot_held(&c->base.h.q, (uint32_t)slot));
    if (rc != BM_OK) {
        snprintf(detail, detail_len, "no reply descriptor for SMID %d", slot + 1);
        return rc;
    }
    r = fu_request(c, (uint32_t)slot);
    st = r->raid_context.status;
    if (st == MFI_STAT_OK || st == MFI_STAT_SCSI_DONE_WITH_ERROR) {
        scsi_cmd_answer(cmd, st == MFI_STAT_OK ? SCSI_STATUS_GOOD : r->raid_context.ex_status,
                        st == MFI_STAT_OK ? NULL : fu_sense(c, (uint32_t)slot), FUSION_SENSE_BYTES, -1);
        return BM_OK;
    }
    snprintf(detail, detail_len, "MFI status 0x%02x %s", st, fu_status_name(st));
    return st == MFI_STAT_DEVICE_NOT_FOUND || st == MFI_STAT_LD_OFFLINE ? BM_ENODEV : BM_EIO;
}

/* ---- Disk operations --------------------------------------------------------------------------------- */

/* Queue one READ/WRITE request. */
static int fu_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                     uint32_t blocks, void *buf)
{
    struct hba_disk *fd = hba_disk_of(d);
    struct fu_ctrl *c = fd->t.ctrl;
    uint8_t cdb[16];
    uint16_t dev_handle;
    uint8_t type;
    int slot, cdb_len;

    if (!hba_disk_io_valid(d, queue, tag, lba, blocks, buf))
        return BM_EINVAL;
    if (c->failed)
        return BM_EIO;
    cdb_len = scsi_build_rw(cdb, op, d->blocks, lba, blocks);
    hbaq_lock(&c->base.h.q);
    slot = hbaq_get(&c->base.h.q, &fd->q, tag, plat_now_ns());
    if (slot < 0) {
        hbaq_unlock(&c->base.h.q);
        return slot;
    }
    type = fu_build_scsi(c, (uint32_t)slot, fd->t.logical, fd->t.target, cdb, (uint8_t)cdb_len,
                         op == BM_IO_WRITE ? SCSI_DIR_OUT : SCSI_DIR_IN, buf, blocks * d->lba_bytes, true,
                         &dev_handle);
    fu_fire_slot(c, (uint32_t)slot, type, dev_handle);
    hbaq_unlock(&c->base.h.q);
    return BM_OK;
}

/* ---- Recovery (the steps: drivers/scsi/hba_disk.c hba_recover_step) ---------------------------- */

/* A FAULTed firmware gets no task management; the controller is marked
 * failed (the online adapter reset is not done: docs/drivers.md). */
static bool fu_faulted(void *ctrl, char *why, size_t whylen)
{
    struct fu_ctrl *c = ctrl;
    uint32_t status = fu_fw_status(c);

    if (!c->failed && (status & MFI_FWSTATE_MASK) != MFI_FWSTATE_FAULT)
        return false;
    c->failed = true;
    snprintf(why, whylen, "firmware FAULT (OSP0 0x%08x)", status);
    return true;
}

/* One MPI2 SCSI task management request through the high-priority
 * descriptor, not waited for (Linux megasas_issue_tm, as
 * megasas_task_abort_fusion and megasas_reset_target_fusion send it):
 * DevHandle, task type, the SMID it names, LUN 0, and the MegaRAID flag
 * saying a PD is meant. Linux does this only for devices the firmware
 * marks TM-capable and addresses them by device handle
 * (megasas_get_tm_devhandle): for a system drive the handle and
 * capability come from the JBOD sequence map; for an LD they come from
 * the RAID map, which this driver does not read, so a hung LD command
 * (and a system drive command on the firmware path) gets BM_ENOTSUP and
 * keeps its SMID until the firmware answers. */
static int fu_tm_post(void *ctrl, enum hba_tm tm, uint32_t task_slot, char *err, size_t errlen)
{
    struct fu_ctrl *c = ctrl;
    struct fusion_io_request *r = fu_request(c, task_slot);
    struct fusion_tm_request *t;
    uint16_t pd;
    int slot;

    if (r->function != MPI2_FUNCTION_SCSI_IO_REQUEST || !c->jbod_map)
        return BM_ENOTSUP;
    pd = (uint16_t)(r->raid_context.virtual_disk_tgt_id - FUSION_JBOD_TGT_OFFSET);
    if (pd >= MFI_JBOD_MAP_ENTRIES || !(c->jbod_map->seq[pd].capability & MFI_JBOD_TM_CAPABLE)) {
        plat_diag(c->base.bdf, "pd%u: SMID %u timed out; the drive is not TM-capable", pd, task_slot + 1);
        return BM_ENOTSUP;
    }
    slot = fu_internal_slot(c, FU_TM_TIMEOUT_NS);
    if (slot < 0) {
        snprintf(err, errlen, "no free SMID for task management");
        return slot;
    }
    t = (struct fusion_tm_request *)fu_request(c, (uint32_t)slot);
    t->function = MPI2_FUNCTION_SCSI_TASK_MGMT;
    t->dev_handle = r->dev_handle;
    t->task_type = tm == HBA_TM_ABORT_TASK ? MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK
                                           : MPI2_SCSITASKMGMT_TASKTYPE_TARGET_RESET;
    t->task_mid = (uint16_t)(task_slot + 1);
    t->tm_req_flags = FUSION_TM_FOR_PD;
    plat_diag(c->base.bdf, "pd%u: SMID %u timed out: %s (handle 0x%04x) on SMID %d", pd, task_slot + 1,
              tm == HBA_TM_ABORT_TASK ? "ABORT_TASK" : "TARGET_RESET", r->dev_handle, slot + 1);
    /* The high-priority descriptor carries no device handle. */
    fu_fire_slot(c, (uint32_t)slot, FUSION_REQ_TYPE_HIGH_PRIORITY, 0);
    c->tm_slot = (uint32_t)slot;
    return BM_OK;
}

/* Has the firmware answered the task management? */
static int fu_tm_check(void *ctrl, char *err, size_t errlen)
{
    struct fu_ctrl *c = ctrl;
    int st;

    (void)err, (void)errlen;
    return hbaq_internal_done(&c->base.h.q, c->tm_slot, &st) ? BM_OK : HBA_PENDING;
}

/* The task management got no answer: its SMID stays the firmware's. */
static void fu_tm_abandon(void *ctrl)
{
    struct fu_ctrl *c = ctrl;

    hbaq_abandon(&c->base.h.q, c->tm_slot);
}

static const struct bm_disk_ops fu_disk_ops = {
    .submit = fu_submit,
    .poll = hba_disk_poll,
    .health = hba_disk_health,
    .member_health = megasas_member_health,
    .recovery = hba_disk_recovery,
};

const struct hba_host_ops fu_host_ops = {
    .drain = fu_drain_replies,
    .resend = fu_resend,
    .faulted = fu_faulted,
    .tm_post = fu_tm_post,
    .tm_check = fu_tm_check,
    .tm_abandon = fu_tm_abandon,
    .tm_timeout_ns = FU_TM_TIMEOUT_NS,
};

/* ---- Discovery ------------------------------------------------------------------------------------------- */

/* Identify one LD or system PD and add it as a disk (mfi_scan_ops.add_disk). */
void fu_add_disk(void *ctx, bool logical, uint16_t target, uint32_t max_qd)
{
    struct fu_scan_ctx *sc = ctx;
    struct fu_ctrl *c = sc->c;
    struct megasas_disk_kind k = { c, c->index, c->max_transfer_bytes, fu_scsi_exec, &fu_disk_ops };

    megasas_add_disk(&c->base, &k, sc->disks, logical, target, max_qd);
}
