/* MegaRAID MFI transport (LSI SAS1078, SAS2108, SAS2004/2008 iMR; QEMU's
 * megasas and megasas-gen2), behind megasas.c's struct megasas_transport.
 *
 * Bring-up: drive the firmware state machine to READY, hand it a reply
 * queue with an MFI INIT frame, then list logical drives (DCMD LD list)
 * and pass-through physical drives (DCMD PD list query for drives exposed
 * to the host, confirmed as SYSTEM state with PD info). Each becomes a
 * disk. I/O goes out as LD READ/WRITE frames (logical drives) or SCSI
 * pass-through frames (system drives), many at a time, posted through the
 * inbound queue port; the firmware writes each finished frame's context
 * (our slot number) into the reply queue in host memory, which poll()
 * drains. Everything is polled: device interrupts are enabled (QEMU only
 * advances the reply queue producer when they are) but INTx is disabled
 * in PCI config space and MSI is never turned on.
 */
#include "megasas.h"
#include "mfi_ctrl.h"
#include "../pci.h"
#include "../pci_regs.h"
#include "../scsi/scsi.h"

/* ---- Frames and the reply queue ---------------------------------------------------------- */

/* Post one frame. Every frame this driver builds is a single 64-byte
 * frame (one SGE fits it, as test_mfi_layout pins), and the inbound queue
 * port takes the number of frames beyond the first in bits 3:1: Linux
 * passes frame_count - 1 to megasas_fire_cmd_ppc/gen2/skinny (0 for DCMDs
 * and INIT, megasas_issue_dcmd) and FreeBSD mfi_send_frame passes
 * cm_extra_frames. The firmware fetches 1 + that many frames. */
void mfi_post(struct mfi_ctrl *c, uint32_t slot)
{
    uint64_t pa = plat_virt_to_phys(&c->frames[slot]);
    uint32_t extra_frames = 0;
    uint32_t lo = (uint32_t)pa | (extra_frames << MFI_IQP_COUNT_SHIFT) | MFI_IQP_VALID;

    plat_wmb(); /* the frame must be in memory before the firmware hears of it */
    if (c->id->family == MFI_FAMILY_SKINNY) {
        /* High half first: the low write makes the firmware take it
         * (Linux megasas_fire_cmd_skinny). */
        mfi_write(c, MFI_REG_IQPH, (uint32_t)(pa >> 32));
        mfi_write(c, MFI_REG_IQPL, lo);
    } else {
        mfi_write(c, MFI_REG_IQP, lo);
    }
}

/* Acknowledge the outbound interrupt the replies raised (masked at PCI,
 * but real firmware expects the host to clear it). */
static void mfi_clear_intr(struct mfi_ctrl *c)
{
    if (c->id->family == MFI_FAMILY_SKINNY)
        mfi_write(c, MFI_REG_OSTS, mfi_read(c, MFI_REG_OSTS));
    else
        mfi_write(c, MFI_REG_ODCR0, 0xffffffffu);
}

/* Fill a frame's data SGE. I/O and SCSI pass-through frames on skinny
 * parts take an IEEE SGE with both the IEEE and the SGL64 flag (Linux
 * megasas_build_ldio / megasas_build_dcdb with flag_ieee and
 * megasas_make_sgl_skinny; FreeBSD mfi_data_cb): without SGL64 the
 * firmware reads a 32-bit SGL. DCMDs and every frame on the other
 * families use 64-bit MFI SGEs (Linux megasas_set_dma_settings). */
static void mfi_set_sge(struct mfi_ctrl *c, union mfi_frame *f, union mfi_sgl *sgl, const void *buf, uint32_t len,
                        bool ieee_ok)
{
    uint64_t pa = plat_virt_to_phys(buf);

    if (ieee_ok && c->id->family == MFI_FAMILY_SKINNY) {
        sgl->ieee.addr = pa;
        sgl->ieee.len = len;
        sgl->ieee.flags = 0;
        f->hdr.flags |= MFI_FRAME_SKINNY_SGL;
    } else {
        sgl->sge64.addr = pa;
        sgl->sge64.len = len;
        f->hdr.flags |= MFI_FRAME_SGL64;
    }
    f->hdr.sge_count = 1;
}

/* The outcome of a finished I/O or pass-through frame. */
static int mfi_frame_result(struct mfi_ctrl *c, uint32_t slot, char *detail, size_t len)
{
    union mfi_frame *f = &c->frames[slot];
    uint8_t st = f->hdr.cmd_status;

    if (st == MFI_STAT_OK)
        return BM_OK;
    if (st == MFI_STAT_SCSI_DONE_WITH_ERROR) {
        scsi_describe(f->hdr.scsi_status, c->sense + (size_t)slot * MFI_SENSE_BYTES,
                      MIN(f->hdr.sense_len ? f->hdr.sense_len : MFI_SENSE_BYTES, MFI_SENSE_BYTES), detail, len);
        return BM_EIO;
    }
    snprintf(detail, len, "MFI status 0x%02x %s", st, mfi_status_name(st));
    return BM_EIO;
}

/* An engine I/O the target ended with a SCSI status: BUSY / TASK SET FULL,
 * UNIT ATTENTION and NOT READY 04/01 are sent again later, RECOVERED
 * ERROR is success, by the shared table (hba_scsi_disposition). Linux
 * megasas_complete_cmd passes MFI_STAT_SCSI_DONE_WITH_ERROR up as DID_OK
 * with the SCSI status and sense, and the midlayer decides
 * (scsi_decide_disposition, scsi_check_sense). False: complete it as
 * usual. */
static bool mfi_retry_later(struct mfi_ctrl *c, uint32_t slot)
{
    const union mfi_frame *f = &c->frames[slot];

    if (f->hdr.cmd != MFI_CMD_LD_READ && f->hdr.cmd != MFI_CMD_LD_WRITE && f->hdr.cmd != MFI_CMD_PD_SCSI_IO)
        return false;
    if (f->hdr.cmd_status != MFI_STAT_SCSI_DONE_WITH_ERROR)
        return false;
    return hba_scsi_disposition(&c->base.h, slot, f->hdr.scsi_status, c->sense + (size_t)slot * MFI_SENSE_BYTES,
                                MIN(f->hdr.sense_len ? f->hdr.sense_len : MFI_SENSE_BYTES, MFI_SENSE_BYTES));
}

/* Post again a frame whose BUSY back-off is over, unchanged but for the
 * status the firmware wrote into it. */
static void mfi_resend(void *ctrl, uint32_t slot)
{
    struct mfi_ctrl *c = ctrl;
    union mfi_frame *f = &c->frames[slot];

    f->hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    f->hdr.scsi_status = 0;
    memset(c->sense + (size_t)slot * MFI_SENSE_BYTES, 0, MFI_SENSE_BYTES);
    mfi_post(c, slot);
}

/* Move every context the firmware has posted into the slot table. */
static void mfi_drain_replies(void *ctrl)
{
    struct mfi_ctrl *c = ctrl;
    uint32_t prod = *c->producer;
    bool any = false;

    if (prod == c->rq_next)
        return;
    if (prod >= c->rq_entries) {
        plat_diag(c->base.bdf, "reply queue producer %u out of range (%u entries)", prod, c->rq_entries);
        return;
    }
    plat_rmb(); /* entries are read after the producer index that covers them */
    while (c->rq_next != prod) {
        uint32_t ctx = c->reply_queue[c->rq_next];
        char detail[64] = "";

        c->rq_next = (c->rq_next + 1) % c->rq_entries;
        any = true;
        if (ctx >= c->nslots) {
            plat_diag(c->base.bdf, "reply with unknown context 0x%08x", ctx);
            continue;
        }
        if (mfi_retry_later(c, ctx))
            continue;
        if (!hbaq_complete(&c->base.h.q, ctx, mfi_frame_result(c, ctx, detail, sizeof(detail)), detail))
            plat_diag(c->base.bdf, "reply for idle frame %u", ctx);
    }
    *c->consumer = c->rq_next;
    if (any)
        mfi_clear_intr(c);
}

/* Post an MFI ABORT frame naming a frame's context and address (Linux
 * megasas_issue_blocked_abort_cmd) on an internal slot of its own, not
 * waited for: the slot, or a negative error. The frame it names stays
 * held until the firmware answers for it. */
static int mfi_post_abort(struct mfi_ctrl *c, uint32_t slot)
{
    int abort_slot;

    if (c->failed || !c->operational)
        return BM_EIO;
    abort_slot = hbaq_get_internal(&c->base.h.q, plat_now_ns(), MFI_DCMD_TIMEOUT_NS);
    if (abort_slot < 0)
        return abort_slot;
    mfi_build_abort(&c->frames[abort_slot], (uint32_t)abort_slot, slot, plat_virt_to_phys(&c->frames[slot]));
    mfi_post(c, (uint32_t)abort_slot);
    return abort_slot;
}

/* Post an internal frame and wait for its reply; a DCMD that gets none
 * is asked back with an ABORT that is not waited for (its frame is
 * abandoned too and freed by its reply). The caller reads the frame's
 * status afterwards. */
static int mfi_exec_sync(struct mfi_ctrl *c, uint32_t slot, uint64_t timeout_ns, const char *what)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;   /* from the moment of the post */
    int st, a;

    mfi_post(c, slot);
    if (hba_wait_internal(&c->base.h, slot, deadline, &st) == BM_OK)
        return BM_OK;
    a = mfi_post_abort(c, slot);
    if (a >= 0)
        hbaq_abandon(&c->base.h.q, (uint32_t)a);
    plat_diag(c->base.bdf, "%s: no reply within %llu ms (reply queue producer %u, OSP0 0x%08x); %s", what,
              (unsigned long long)(timeout_ns / NS_PER_MS), *c->producer, mfi_fw_status(c),
              a >= 0 ? "abort sent" : "no abort sent, the frame stays held");
    return BM_ETIMEDOUT;
}

/* An internal slot with a cleared frame, or a negative error. */
static int mfi_internal_slot(struct mfi_ctrl *c, uint64_t timeout_ns)
{
    int slot = hbaq_get_internal(&c->base.h.q, plat_now_ns(), timeout_ns);

    if (slot >= 0) {
        memset(&c->frames[slot], 0, sizeof(union mfi_frame));
        c->frames[slot].hdr.context = (uint32_t)slot;
        c->frames[slot].hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    }
    return slot;
}

/* A DCMD reading len bytes into c->scratch. */
int mfi_dcmd_read(struct mfi_ctrl *c, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
                  char *err, size_t errlen)
{
    union mfi_frame *f;
    void *dma;
    char what[32];
    int slot, rc;
    uint8_t st;

    if (len > MFI_SCRATCH_BYTES)
        return BM_EINVAL;
    /* The data goes through pages of its own, copied to c->scratch once
     * the firmware answered: a DCMD it never answers may still write
     * them after the next DCMD (hba_dma_lend). */
    dma = hba_dma_lend(NULL, len);
    if (len && !dma) {
        snprintf(err, errlen, "DCMD 0x%08x: no memory for its data", opcode);
        return BM_ENOMEM;
    }
    slot = mfi_internal_slot(c, MFI_DCMD_TIMEOUT_NS);
    if (slot < 0) {
        hba_dma_back(&c->base.h, NULL, dma, len, false, "DCMD");
        return slot;
    }
    memset(c->scratch, 0, len);
    f = &c->frames[slot];
    f->dcmd.hdr.cmd = MFI_CMD_DCMD;
    f->dcmd.hdr.data_len = len;
    f->dcmd.opcode = opcode;
    if (mbox)
        memcpy(f->dcmd.mbox, mbox, MIN(mbox_len, (size_t)MFI_MBOX_BYTES));
    if (len) {
        f->dcmd.hdr.flags = MFI_FRAME_DIR_READ;
        mfi_set_sge(c, f, &f->dcmd.sgl, dma, len, false);
    }
    rc = mfi_exec_sync(c, (uint32_t)slot, MFI_DCMD_TIMEOUT_NS, "DCMD");
    snprintf(what, sizeof(what), "DCMD 0x%08x", opcode);
    hba_dma_back(&c->base.h, c->scratch, dma, len, rc != BM_OK && hbaq_slot_held(&c->base.h.q, (uint32_t)slot), what);
    if (rc != BM_OK) {
        snprintf(err, errlen, "DCMD 0x%08x: no reply", opcode);
        return rc;
    }
    st = f->hdr.cmd_status;
    if (st != MFI_STAT_OK) {
        snprintf(err, errlen, "DCMD 0x%08x: MFI status 0x%02x %s", opcode, st, mfi_status_name(st));
        return BM_EIO;
    }
    return BM_OK;
}

/* ---- SCSI pass-through as a transport for identification ------------------------------------- */

/* Run one CDB through an LD or PD SCSI I/O frame and wait for it. */
static int mfi_scsi_exec(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len)
{
    struct hba_target *t = ctx;
    struct mfi_ctrl *c = t->ctrl;
    union mfi_frame *f;
    void *dma = hba_cmd_dma_get(cmd);
    int slot, rc;
    uint8_t st;

    if (cmd->len && !dma) {
        snprintf(detail, detail_len, "no memory for the data");
        return BM_ENOMEM;
    }
    slot = mfi_internal_slot(c, cmd->timeout_ns);
    if (slot < 0) {
        hba_cmd_dma_put(&c->base.h, cmd, dma, false);
        return slot;
    }
    f = &c->frames[slot];
    f->pass.hdr.cmd = t->logical ? MFI_CMD_LD_SCSI_IO : MFI_CMD_PD_SCSI_IO;
    f->pass.hdr.target_id = (uint8_t)t->target;
    f->pass.hdr.cdb_len = cmd->cdb_len;
    f->pass.hdr.sense_len = MFI_SENSE_BYTES;
    f->pass.hdr.data_len = cmd->len;
    f->pass.hdr.flags =
        cmd->dir == SCSI_DIR_OUT ? MFI_FRAME_DIR_WRITE : cmd->dir == SCSI_DIR_IN ? MFI_FRAME_DIR_READ : 0;
    f->pass.sense_lo = mfi_pa32(c->sense + (size_t)slot * MFI_SENSE_BYTES);
    memcpy(f->pass.cdb, cmd->cdb, cmd->cdb_len);
    /* QEMU rejects a pass-through frame without an SGE even when no data
     * moves (TEST UNIT READY); a zero-length transfer with a valid SGE is
     * fine for real firmware too. */
    if (cmd->len)
        mfi_set_sge(c, f, &f->pass.sgl, dma, cmd->len, true);
    else
        mfi_set_sge(c, f, &f->pass.sgl, c->nodata, 512, true);
    rc = mfi_exec_sync(c, (uint32_t)slot, cmd->timeout_ns, "SCSI pass-through");
    /* A frame the firmware did not answer stays held (the abort is not
     * waited for): so does the memory it names. */
    hba_cmd_dma_put(&c->base.h, cmd, dma, rc != BM_OK && hbaq_slot_held(&c->base.h.q, (uint32_t)slot));
    if (rc != BM_OK) {
        snprintf(detail, detail_len, "no reply from firmware");
        return rc;
    }
    st = f->hdr.cmd_status;
    if (st == MFI_STAT_OK || st == MFI_STAT_SCSI_DONE_WITH_ERROR) {
        scsi_cmd_answer(cmd, st == MFI_STAT_OK ? SCSI_STATUS_GOOD : f->hdr.scsi_status,
                        st == MFI_STAT_OK ? NULL : c->sense + (size_t)slot * MFI_SENSE_BYTES,
                        MIN(f->hdr.sense_len ? f->hdr.sense_len : MFI_SENSE_BYTES, MFI_SENSE_BYTES), -1);
        return BM_OK;
    }
    snprintf(detail, detail_len, "MFI status 0x%02x %s", st, mfi_status_name(st));
    return st == MFI_STAT_DEVICE_NOT_FOUND ? BM_ENODEV : BM_EIO;
}

/* ---- Member health (megasas_member_health) ----------------------------------------------------- */

int mfi_member_dcmd(struct megasas_ctrl *m, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
                    const uint8_t **data, char *err, size_t errlen)
{
    struct mfi_ctrl *c = MEGASAS_CTRL_OF(m, struct mfi_ctrl);

    *data = c->scratch;
    return mfi_dcmd_read(c, opcode, mbox, mbox_len, len, err, errlen);
}

/* A PD pass-through frame is what mfi_scsi_exec sends for a target that
 * is not logical: the member's device id in the frame's target id. */
int mfi_pd_exec(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len)
{
    return mfi_scsi_exec(ctx, cmd, detail, detail_len);
}

/* ---- Disk operations --------------------------------------------------------------------------- */

/* Queue one LD READ/WRITE or pass-through READ/WRITE frame. */
static int mfi_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                      uint32_t blocks, void *buf)
{
    struct hba_disk *md = hba_disk_of(d);
    struct mfi_ctrl *c = md->t.ctrl;
    union mfi_frame *f;
    uint32_t bytes;
    int slot;

    if (!hba_disk_io_valid(d, queue, tag, lba, blocks, buf))
        return BM_EINVAL;
    if (c->failed)
        return BM_EIO;
    bytes = blocks * d->lba_bytes;
    hbaq_lock(&c->base.h.q);
    slot = hbaq_get(&c->base.h.q, &md->q, tag, plat_now_ns());
    if (slot < 0) {
        hbaq_unlock(&c->base.h.q);
        return slot;
    }
    f = &c->frames[slot];
    memset(f, 0, sizeof(*f));
    f->hdr.context = (uint32_t)slot;
    f->hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    f->hdr.sense_len = MFI_SENSE_BYTES;
    f->hdr.target_id = (uint8_t)md->t.target;
    f->hdr.flags = op == BM_IO_WRITE ? MFI_FRAME_DIR_WRITE : MFI_FRAME_DIR_READ;
    if (md->t.logical) {
        /* LD READ/WRITE: the firmware maps blocks onto the array itself. */
        f->io.hdr.cmd = op == BM_IO_WRITE ? MFI_CMD_LD_WRITE : MFI_CMD_LD_READ;
        f->io.hdr.data_len = blocks;
        f->io.sense_lo = mfi_pa32(c->sense + (size_t)slot * MFI_SENSE_BYTES);
        f->io.lba_lo = (uint32_t)lba;
        f->io.lba_hi = (uint32_t)(lba >> 32);
        mfi_set_sge(c, f, &f->io.sgl, buf, bytes, true);
    } else {
        f->pass.hdr.cmd = MFI_CMD_PD_SCSI_IO;
        f->pass.hdr.data_len = bytes;
        f->pass.sense_lo = mfi_pa32(c->sense + (size_t)slot * MFI_SENSE_BYTES);
        f->pass.hdr.cdb_len = (uint8_t)scsi_build_rw(f->pass.cdb, op, d->blocks, lba, blocks);
        mfi_set_sge(c, f, &f->pass.sgl, buf, bytes, true);
    }
    mfi_post(c, (uint32_t)slot);
    hbaq_unlock(&c->base.h.q);
    return BM_OK;
}

/* ---- Recovery (the steps: drivers/scsi/hba_disk.c hba_recover_step) ---------------------------- */

/* A FAULTed firmware gets no abort; the controller is marked failed (the
 * online adapter reset is not done: docs/drivers.md). */
static bool mfi_faulted(void *ctrl, char *why, size_t whylen)
{
    struct mfi_ctrl *c = ctrl;
    uint32_t status = mfi_fw_status(c);

    if (!c->failed && (status & MFI_FWSTATE_MASK) != MFI_FWSTATE_FAULT)
        return false;
    c->failed = true;
    snprintf(why, whylen, "firmware FAULT (OSP0 0x%08x)", status);
    return true;
}

/* A timed-out frame: the MFI ABORT (MFI has no TARGET RESET). */
static int mfi_tm_post(void *ctrl, enum hba_tm tm, uint32_t slot, char *err, size_t errlen)
{
    struct mfi_ctrl *c = ctrl;
    int a;

    if (tm != HBA_TM_ABORT_TASK)
        return BM_ENOTSUP;
    a = mfi_post_abort(c, slot);
    if (a < 0) {
        snprintf(err, errlen, "no free frame for the abort");
        return a;
    }
    c->tm_slot = (uint32_t)a;
    return BM_OK;
}

/* Has the firmware answered the abort frame? */
static int mfi_tm_check(void *ctrl, char *err, size_t errlen)
{
    struct mfi_ctrl *c = ctrl;
    uint8_t st = c->frames[c->tm_slot].hdr.cmd_status;
    int done;

    if (!hbaq_internal_done(&c->base.h.q, c->tm_slot, &done))
        return HBA_PENDING;
    if (st != MFI_STAT_OK) {
        snprintf(err, errlen, "abort: MFI status 0x%02x", st);
        return BM_EIO;
    }
    return BM_OK;
}

/* The abort frame got no answer: it stays the firmware's. */
static void mfi_tm_abandon(void *ctrl)
{
    struct mfi_ctrl *c = ctrl;

    hbaq_abandon(&c->base.h.q, c->tm_slot);
}

static const struct bm_disk_ops mfi_disk_ops = {
    .submit = mfi_submit,
    .poll = hba_disk_poll,
    .health = hba_disk_health,
    .member_health = megasas_member_health,
    .recovery = hba_disk_recovery,
};

const struct hba_host_ops mfi_host_ops = {
    .drain = mfi_drain_replies,
    .resend = mfi_resend,
    .faulted = mfi_faulted,
    .tm_post = mfi_tm_post,
    .tm_check = mfi_tm_check,
    .tm_abandon = mfi_tm_abandon,
    .tm_timeout_ns = MFI_DCMD_TIMEOUT_NS,
};

/* ---- Discovery ----------------------------------------------------------------------------------- */

/* Identify one LD or system PD and add it as a disk; failures of one
 * drive are logged and skipped. */
static void mfi_add_disk(struct mfi_ctrl *c, struct bm_disk_list *disks, bool logical, uint16_t target,
                         uint32_t max_qd)
{
    struct megasas_disk_kind k = { c, c->index, c->max_transfer_bytes, mfi_scsi_exec, &mfi_disk_ops };

    megasas_add_disk(&c->base, &k, disks, logical, target, max_qd);
}

struct mfi_scan_ctx {
    struct mfi_ctrl *c;
    struct bm_disk_list *disks;
};

/* mfi_scan_ops.dcmd_read for this transport. */
static int mfi_scan_dcmd(void *ctx, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len, char *err,
                         size_t errlen)
{
    return mfi_dcmd_read(((struct mfi_scan_ctx *)ctx)->c, opcode, mbox, mbox_len, len, err, errlen);
}

/* mfi_scan_ops.add_disk for this transport. */
static void mfi_scan_add(void *ctx, bool logical, uint16_t target, uint32_t max_qd)
{
    struct mfi_scan_ctx *sc = ctx;
    mfi_add_disk(sc->c, sc->disks, logical, target, max_qd);
}

/* Find the controller's logical and system drives. */
void mfi_scan(struct mfi_ctrl *c, struct bm_disk_list *disks)
{
    struct mfi_scan_ctx sc = { c, disks };
    /* Pass-through frames carry an 8-bit target id. */
    struct mfi_scan_ops ops = { &sc, c->base.bdf, c->scratch, 0xff, mfi_scan_dcmd, mfi_scan_add };

    mfi_scan_lds(&ops);
    mfi_scan_system_pds(&ops);
}
