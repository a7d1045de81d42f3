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
 *     request descriptor (low half to IQPL, then high half to IQPH); DCMDs
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
#include "megasas_internal.h"
#include "megasas_regs.h"
#include "mfi.h"
#include "fusion.h"
#include "../pci.h"
#include "../pci_regs.h"
#include "../scsi/hba_disk.h"
#include "../scsi/scsi.h"

#define FU_IO_TIMEOUT_NS (30ull * 1000000000ull)
#define FU_DCMD_TIMEOUT_NS (60ull * 1000000000ull)
#define FU_INIT_TIMEOUT_NS (30ull * 1000000000ull)    /* Linux MFI_POLL_TIMEOUT_SECS 60; 30 is plenty */
#define FU_DOORBELL_WAIT_NS (10ull * 1000000000ull)   /* Linux waits 10 s for doorbell bit 0 before INIT */
#define FU_STATE_WAIT_NS (180ull * 1000000000ull)
#define FU_SENSE_STRIDE 128           /* 96-byte sense buffers, 64-byte aligned as Linux's pool */
#define FU_SCRATCH_BYTES 8192
#define FU_CDB_TIMEOUT_S 30
/* Linux MEGASAS_DEFAULT_TM_TIMEOUT: what megasas_issue_tm waits for an
 * ABORT_TASK or TARGET_RESET when the target has no timeouts of its own. */
#define FU_TM_TIMEOUT_NS (50ull * 1000000000ull)
#define FU_FP_PD_TIMEOUT_S 255        /* Linux caps a fast-path disk command's timeout here */
#define FU_MS_NS 1000000ull

enum fu_gen {
    FU_THUNDERBOLT,     /* SAS2208 */
    FU_INVADER,         /* SAS3108, SAS3008 MegaRAID: CUDA RAID context, end-of-list SGE flag */
};

/* PCI device ids: Linux megaraid_sas.h PCI_DEVICE_ID_LSI_FUSION (0x5b),
 * _INVADER (0x5d), _FURY (0x5f). */
static const struct fu_id {
    uint16_t device;
    enum fu_gen gen;
    const char *chip;
} fu_ids[] = {
    { 0x005b, FU_THUNDERBOLT, "SAS2208 Thunderbolt" },
    { 0x005d, FU_INVADER, "SAS3108 Invader" },
    { 0x005f, FU_INVADER, "SAS3008 Fury" },
};

struct fu_ctrl {
    struct megasas_ctrl base;  /* transport = &megasas_fusion_transport */
    struct pci_addr pci;
    char name[32];            /* "MEGASAS 0000:03:00.0", for the screen log */
    char bdf[16];             /* where diagnostics come from */
    unsigned index;
    const struct fu_id *id;
    volatile void *regs;
    uint16_t pci_cmd_saved;
    uint32_t fw_max_cmds, fw_max_sge, max_chain_bytes, max_transfer_bytes;
    uint32_t max_io_sge;      /* SGEs one I/O may carry: main frame plus chain frame */
    bool operational;         /* IOC INIT done */
    bool failed;

    uint32_t nslots;          /* slot s is SMID s + 1 */
    uint8_t *req;             /* (nslots + 1) request frames; SMID 0's unused */
    size_t req_bytes;
    uint8_t *sense;           /* FU_SENSE_STRIDE per slot */
    size_t sense_bytes;
    union mfi_frame *mfi;     /* one MFI frame per slot, for DCMDs */
    size_t mfi_bytes;
    volatile uint64_t *reply; /* reply descriptor post queue */
    size_t reply_bytes;
    uint32_t reply_depth, reply_next;
    uint8_t *init_mem;        /* MFI INIT frame at 0, IOC INIT request at 256 */
    uint8_t *scratch;         /* DCMD data */
    struct mfi_jbod_map *jbod_map; /* MR_DCMD_SYSTEM_PD_MAP_GET_INFO, read once at probe */
    bool jbod_fp;             /* system drive reads/writes take the fast path with it */
    struct hba_host h;         /* the SMID table and the disks */
};

/* ---- Registers ---------------------------------------------------------------------------- */

/* Read a controller register. */
static uint32_t fu_read(struct fu_ctrl *c, uint32_t off) { return mmio_read32(c->regs, off); }
/* Write a controller register. */
static void fu_write(struct fu_ctrl *c, uint32_t off, uint32_t v) { mmio_write32(c->regs, off, v); }
/* Firmware status word: scratch pad 0 (Linux megasas_read_fw_status_reg_fusion). */
static uint32_t fu_fw_status(struct fu_ctrl *c) { return fu_read(c, MFI_REG_OSP0); }

/* The request frame of a slot (SMID slot + 1). */
static struct fusion_io_request *fu_request(struct fu_ctrl *c, uint32_t slot)
{
    return (struct fusion_io_request *)(c->req + (size_t)(slot + 1) * FUSION_FRAME_BYTES);
}

/* The sense buffer of a slot. */
static uint8_t *fu_sense(struct fu_ctrl *c, uint32_t slot) { return c->sense + (size_t)slot * FU_SENSE_STRIDE; }

/* Write a request descriptor: low half first, then high half, which makes
 * the firmware take it (Linux megasas_fire_cmd_fusion without writeq). */
static void fu_fire(struct fu_ctrl *c, uint32_t lo, uint32_t hi)
{
    plat_wmb(); /* the frame must be in memory before the firmware hears of it */
    fu_write(c, MFI_REG_IQPL, lo);
    fu_write(c, MFI_REG_IQPH, hi);
}

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
static const char *fu_status_name(uint8_t st)
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
    const struct hbaq_slot *s = &c->h.q.slots[slot];
    bool busy, seq;

    if (s->state != HBAQ_BUSY || !s->owner ||
        (r->function != FUSION_FUNCTION_LD_IO && r->function != MPI2_FUNCTION_SCSI_IO_REQUEST))
        return false;
    busy = rc->status == MFI_STAT_SCSI_DONE_WITH_ERROR && hbaq_status_is_busy(rc->ex_status);
    seq = rc->status == MFI_STAT_CONFIG_SEQ_MISMATCH && r->function == MPI2_FUNCTION_SCSI_IO_REQUEST;
    if (!busy && !seq)
        return false;
    if (!hbaq_requeue(&c->h.q, slot, plat_now_ns()))
        return false;
    if (seq) {
        if (c->jbod_fp)
            plat_diag(c->bdf, "pd%u: JBOD sequence number %u is stale (config sequence mismatch): system drives "
                      "go the firmware path from now on",
                      (unsigned)(rc->virtual_disk_tgt_id - FUSION_JBOD_TGT_OFFSET), rc->config_seq_num);
        c->jbod_fp = false;
        fu_jbod_to_firmware_path(r);
    }
    return true;
}

/* Send again the requests whose BUSY back-off is over, unchanged but for
 * the status the firmware wrote into their RAID context. */
static void fu_send_retries(void *ctrl)
{
    struct fu_ctrl *c = ctrl;
    int s;

    while ((s = hbaq_next_retry(&c->h.q, plat_now_ns())) >= 0) {
        struct fusion_io_request *r = fu_request(c, (uint32_t)s);

        r->raid_context.status = 0;
        r->raid_context.ex_status = 0;
        fu_fire_slot(c, (uint32_t)s, fu_io_desc_type(c, r), r->dev_handle);
    }
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
            plat_diag(c->bdf, "reply descriptor 0x%016llx with SMID %u out of range 1..%u",
                      (unsigned long long)d, smid, c->nslots);
            continue;
        }
        if (fu_retry_later(c, smid - 1))
            continue;
        if (!hbaq_complete(&c->h.q, smid - 1, fu_result(c, smid - 1, detail, sizeof(detail)), detail))
            plat_diag(c->bdf, "reply for idle SMID %u", smid);
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
    uint64_t deadline = plat_now_ns() + timeout_ns;
    int st;

    fu_fire_slot(c, slot, type, dev_handle);
    for (;;) {
        fu_drain_replies(c);
        if (hbaq_internal_done(&c->h.q, slot, &st))
            return BM_OK;
        if (plat_now_ns() > deadline) {
            /* The slot stays held until the firmware answers for it. */
            hbaq_abandon(&c->h.q, slot);
            plat_diag(c->bdf, "%s: no reply descriptor for SMID %u within %llu ms (reply queue index %u, OSP0 0x%08x)",
                      what, slot + 1, (unsigned long long)(timeout_ns / FU_MS_NS), c->reply_next, fu_fw_status(c));
            return BM_ETIMEDOUT;
        }
        __asm__ __volatile__("pause");
    }
}

/* An internal slot with cleared request and MFI frames, or a negative error. */
static int fu_internal_slot(struct fu_ctrl *c, uint64_t timeout_ns)
{
    int slot = hbaq_get_internal(&c->h.q, plat_now_ns(), timeout_ns);

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
    union mfi_frame *f;
    int a;

    if (c->failed)
        return;
    a = fu_internal_slot(c, FU_DCMD_TIMEOUT_NS);
    if (a < 0) {
        plat_diag(c->bdf, "DCMD on SMID %u timed out; no free SMID to abort it with, it stays held", slot + 1);
        return;
    }
    f = &c->mfi[a];
    f->abort.hdr.cmd = MFI_CMD_ABORT;
    f->abort.hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    f->abort.hdr.context = (uint32_t)a;
    f->abort.abort_context = slot;
    f->abort.abort_frame_lo = (uint32_t)pa;
    f->abort.abort_frame_hi = (uint32_t)(pa >> 32);
    fu_build_mfi_passthru(c, (uint32_t)a);
    fu_fire_slot(c, (uint32_t)a, FUSION_REQ_TYPE_SCSI_IO, 0);
    hbaq_abandon(&c->h.q, (uint32_t)a);
    plat_diag(c->bdf, "DCMD on SMID %u timed out: abort sent (SMID %d)", slot + 1, a + 1);
}

/* A DCMD moving len bytes between the firmware and c->scratch. */
static int fu_dcmd(struct fu_ctrl *c, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
                   bool write, char *err, size_t errlen)
{
    union mfi_frame *f;
    int slot, rc;
    uint8_t st;

    if (len > FU_SCRATCH_BYTES)
        return BM_EINVAL;
    slot = fu_internal_slot(c, FU_DCMD_TIMEOUT_NS);
    if (slot < 0) {
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
        f->dcmd.sgl.sge64.addr = plat_virt_to_phys(c->scratch);
        f->dcmd.sgl.sge64.len = len;
    }
    fu_build_mfi_passthru(c, (uint32_t)slot);
    rc = fu_exec_sync(c, (uint32_t)slot, FUSION_REQ_TYPE_SCSI_IO, 0, FU_DCMD_TIMEOUT_NS, "DCMD");
    if (rc == BM_ETIMEDOUT)
        fu_abort_dcmd(c, (uint32_t)slot);
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

/* What discovery's callbacks get: the controller and the disk list. */
struct fu_scan_ctx {
    struct fu_ctrl *c;
    struct bm_disk_list *disks;
};

/* mfi_scan_ops.dcmd_read. */
static int fu_dcmd_read(void *ctx, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len, char *err,
                        size_t errlen)
{
    return fu_dcmd(((struct fu_scan_ctx *)ctx)->c, opcode, mbox, mbox_len, len, false, err, errlen);
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
    uint16_t dev_handle;
    uint8_t type, st;
    int slot, rc;

    slot = fu_internal_slot(c, cmd->timeout_ns);
    if (slot < 0) {
        snprintf(detail, detail_len, "no free SMID");
        return slot;
    }
    memset(fu_sense(c, (uint32_t)slot), 0, FUSION_SENSE_BYTES);
    type = fu_build_scsi(c, (uint32_t)slot, t->logical, t->target, cmd->cdb, cmd->cdb_len, cmd->dir, cmd->buf,
                         cmd->len, false, &dev_handle);
    rc = fu_exec_sync(c, (uint32_t)slot, type, dev_handle, cmd->timeout_ns, "SCSI command");
    if (rc != BM_OK) {
        snprintf(detail, detail_len, "no reply descriptor for SMID %d", slot + 1);
        return rc;
    }
    r = fu_request(c, (uint32_t)slot);
    st = r->raid_context.status;
    if (st == MFI_STAT_OK) {
        cmd->status = SCSI_STATUS_GOOD;
        return BM_OK;
    }
    if (st == MFI_STAT_SCSI_DONE_WITH_ERROR) {
        cmd->status = r->raid_context.ex_status;
        cmd->sense_len = MIN((uint32_t)FUSION_SENSE_BYTES, (uint32_t)SCSI_SENSE_MAX);
        memcpy(cmd->sense, fu_sense(c, (uint32_t)slot), cmd->sense_len);
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

    if (queue != 0 || tag >= d->max_qd || !blocks || !buf || lba >= d->blocks || blocks > d->blocks - lba ||
        (uint64_t)blocks * d->lba_bytes > d->max_transfer_bytes)
        return BM_EINVAL;
    if (c->failed)
        return BM_EIO;
    cdb_len = scsi_build_rw(cdb, op, d->blocks, lba, blocks);
    hbaq_lock(&c->h.q);
    slot = hbaq_get(&c->h.q, &fd->q, tag, plat_now_ns());
    if (slot < 0) {
        hbaq_unlock(&c->h.q);
        return slot;
    }
    type = fu_build_scsi(c, (uint32_t)slot, fd->t.logical, fd->t.target, cdb, (uint8_t)cdb_len,
                         op == BM_IO_WRITE ? SCSI_DIR_OUT : SCSI_DIR_IN, buf, blocks * d->lba_bytes, true,
                         &dev_handle);
    fu_fire_slot(c, (uint32_t)slot, type, dev_handle);
    hbaq_unlock(&c->h.q);
    return BM_OK;
}

/* One MPI2 SCSI task management request through the high-priority
 * descriptor, waited for (Linux megasas_issue_tm): DevHandle, task type,
 * the SMID it names, LUN 0, and the MegaRAID flag saying a PD is meant.
 * BM_OK once the firmware answered it. */
static int fu_issue_tm(struct fu_ctrl *c, uint16_t dev_handle, uint8_t task_type, uint32_t task_slot)
{
    struct fusion_tm_request *tm;
    int slot, rc;

    slot = fu_internal_slot(c, FU_TM_TIMEOUT_NS);
    if (slot < 0)
        return slot;
    tm = (struct fusion_tm_request *)fu_request(c, (uint32_t)slot);
    tm->function = MPI2_FUNCTION_SCSI_TASK_MGMT;
    tm->dev_handle = dev_handle;
    tm->task_type = task_type;
    tm->task_mid = (uint16_t)(task_slot + 1);
    tm->tm_req_flags = FUSION_TM_FOR_PD;
    /* The high-priority descriptor carries no device handle. */
    rc = fu_exec_sync(c, (uint32_t)slot, FUSION_REQ_TYPE_HIGH_PRIORITY, 0, FU_TM_TIMEOUT_NS,
                      task_type == MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK ? "ABORT_TASK" : "TARGET_RESET");
    return rc;
}

/* Has the firmware given a timed-out SMID back? */
static bool fu_slot_returned(const struct fu_ctrl *c, uint32_t slot) { return c->h.q.slots[slot].state != HBAQ_ABANDONED; }

/* A command timed out (its slot stays held, see hba_queue.h). Note whether
 * the firmware itself is gone; otherwise, as Linux megasas_task_abort_fusion
 * and megasas_reset_target_fusion, ask for the task back with ABORT_TASK
 * and, when it is still outstanding after that, reset the target. Linux
 * does this only for devices the firmware marks TM-capable and addresses
 * them by device handle (megasas_get_tm_devhandle): for a system drive the
 * handle and capability come from the JBOD sequence map; for an LD they
 * come from the RAID map, which this driver does not read, so a hung LD
 * command (and a system drive command on the firmware path) just keeps
 * its SMID until the firmware answers. Waited for under the queue lock:
 * the controller's other I/O waits meanwhile, as it does during Linux's
 * error handling. */
static void fu_on_timeout(void *arg, uint32_t slot)
{
    struct fu_ctrl *c = arg;
    struct fusion_io_request *r = fu_request(c, slot);
    uint32_t status = fu_fw_status(c);
    uint16_t pd, handle;
    int rc;

    if (!c->failed && (status & MFI_FWSTATE_MASK) == MFI_FWSTATE_FAULT) {
        c->failed = true;
        plat_diag(c->bdf, "firmware FAULT (OSP0 0x%08x) with SMID %u outstanding", status, slot + 1);
    }
    if (c->failed || r->function != MPI2_FUNCTION_SCSI_IO_REQUEST || !c->jbod_map)
        return;
    pd = (uint16_t)(r->raid_context.virtual_disk_tgt_id - FUSION_JBOD_TGT_OFFSET);
    if (pd >= MFI_JBOD_MAP_ENTRIES || !(c->jbod_map->seq[pd].capability & MFI_JBOD_TM_CAPABLE)) {
        plat_diag(c->bdf, "pd%u: SMID %u timed out; the drive is not TM-capable, its SMID stays held", pd, slot + 1);
        return;
    }
    handle = r->dev_handle;
    rc = fu_issue_tm(c, handle, MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK, slot);
    if (rc == BM_OK && fu_slot_returned(c, slot)) {
        plat_diag(c->bdf, "pd%u: SMID %u timed out and was aborted (ABORT_TASK)", pd, slot + 1);
        return;
    }
    plat_diag(c->bdf, "pd%u: SMID %u timed out; ABORT_TASK %s, resetting the target (handle 0x%04x)", pd, slot + 1,
              rc == BM_OK ? "did not return it" : bm_strerror(rc), handle);
    rc = fu_issue_tm(c, handle, MPI2_SCSITASKMGMT_TASKTYPE_TARGET_RESET, slot);
    if (rc == BM_OK && fu_slot_returned(c, slot))
        plat_diag(c->bdf, "pd%u: target reset returned SMID %u", pd, slot + 1);
    else
        plat_diag(c->bdf, "pd%u: target reset %s; SMID %u stays held until the firmware answers", pd,
                  rc == BM_OK ? "did not return the command" : bm_strerror(rc), slot + 1);
}

static const struct bm_disk_ops fu_disk_ops = {
    .submit = fu_submit,
    .poll = hba_disk_poll,
};

static const struct hba_host_ops fu_host_ops = {
    .drain = fu_drain_replies,
    .on_timeout = fu_on_timeout,
    .send_retries = fu_send_retries,
};

/* ---- Discovery ------------------------------------------------------------------------------------------- */

/* Identify one LD or system PD and add it as a disk (mfi_scan_ops.add_disk). */
static void fu_add_disk(void *ctx, bool logical, uint16_t target, uint32_t max_qd)
{
    struct fu_scan_ctx *sc = ctx;
    struct fu_ctrl *c = sc->c;
    char tname[48], id[sizeof(((struct bm_disk *)0)->id)];
    struct hba_disk_spec s = {
        .t = { c, logical, target, 0 },
        .tname = tname,
        .id = id,
        .at = { "megasas", c->pci, target, 0, 0, c->max_transfer_bytes },
        .max_qd = max_qd,
        .exec = fu_scsi_exec,
        .ops = &fu_disk_ops,
    };

    snprintf(tname, sizeof(tname), "%s%u", logical ? "ld" : "pd", target);
    snprintf(id, sizeof(id), "megasas%u%c%u", c->index, logical ? 'd' : 'p', target);
    (void)hba_disk_add(&c->h, sc->disks, &s);
}

/* ---- Bring-up and release ------------------------------------------------------------------------------------- */


/* Free the host memory the firmware used. */
static void fu_free_memory(struct fu_ctrl *c)
{
    plat_free_pages(c->req, c->req_bytes);
    plat_free_pages(c->sense, c->sense_bytes);
    plat_free_pages(c->mfi, c->mfi_bytes);
    plat_free_pages((void *)c->reply, c->reply_bytes);
    plat_free_pages(c->init_mem, 4096);
    plat_free_pages(c->scratch, FU_SCRATCH_BYTES);
    plat_free(c->jbod_map);
    c->jbod_map = NULL;
    c->jbod_fp = false;
    c->req = c->sense = c->init_mem = c->scratch = NULL;
    c->mfi = NULL;
    c->reply = NULL;
}

/* Request frames, sense buffers, MFI frames, reply queue, all below 4 GiB
 * (the sense buffers share one upper address half in IOC INIT and MFI
 * frames are reached through 32-bit fields on older firmware). */
static int fu_alloc_memory(struct fu_ctrl *c)
{
    c->req_bytes = ALIGN_UP((size_t)(c->nslots + 1) * FUSION_FRAME_BYTES, (size_t)4096);
    c->sense_bytes = ALIGN_UP((size_t)c->nslots * FU_SENSE_STRIDE, (size_t)4096);
    c->mfi_bytes = ALIGN_UP((size_t)c->nslots * MFI_FRAME_BYTES + c->max_chain_bytes, (size_t)4096);
    c->reply_bytes = ALIGN_UP((size_t)c->reply_depth * sizeof(uint64_t), (size_t)4096);
    c->req = plat_alloc_pages(c->req_bytes, true);
    c->sense = plat_alloc_pages(c->sense_bytes, true);
    c->mfi = plat_alloc_pages(c->mfi_bytes, true);
    c->reply = plat_alloc_pages(c->reply_bytes, true);
    c->init_mem = plat_alloc_pages(4096, true);
    c->scratch = plat_alloc_pages(FU_SCRATCH_BYTES, true);
    if (!c->req || !c->sense || !c->mfi || !c->reply || !c->init_mem || !c->scratch)
        return BM_ENOMEM;
    /* Every descriptor starts unused (Linux megasas_alloc_cmds_fusion). */
    for (uint32_t i = 0; i < c->reply_depth; i++)
        c->reply[i] = FUSION_REPLY_UNUSED;
    c->reply_next = 0;
    return BM_OK;
}

/* Wait for the doorbell's bit 0 to clear (the firmware took the last request). */
static int fu_wait_doorbell_clear(struct fu_ctrl *c, uint64_t timeout_ns, char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;

    while (fu_read(c, MFI_REG_DOORBELL) & 1) {
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "DOORBELL bit 0 still set after %llu ms (0x%08x)",
                     (unsigned long long)(timeout_ns / FU_MS_NS), fu_read(c, MFI_REG_DOORBELL));
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(FU_MS_NS);
    }
    return BM_OK;
}

/* The driver capabilities IOC INIT announces: what Linux
 * megasas_ioc_init_fusion sets, less what a polled, firmware-path driver
 * would be claiming falsely.
 * Set, as Linux does: remote LUN, n-drive RAID 1 load balancing and
 * region-lock bypass on the fast path (they shape the firmware's LD fast
 * path and RAID map, which this driver does not use, so they cost
 * nothing), security protocol commands through the firmware, PD map
 * entries by target id, QD throttling (Linux sets it unconditionally and
 * meets a throttling firmware only through the midlayer's BUSY / TASK SET
 * FULL retry, which fu_retry_later does here), and extended I/O size when
 * the firmware offers chain frames over 1 KiB (Linux: max_chain_frame_sz
 * > MIN).
 * Left clear:
 *   ADDITIONAL_MSIX   no MSI-X vector is ever enabled;
 *   MAX_255LDS        discovery reads the 64-entry LD list (MFI firmware,
 *                     QEMU's included, refuses a longer buffer there);
 *   EXT_QUEUE_DEPTH   the pool is sized from scratch pad 0, as Linux with
 *                     dual_qdepth_disable, not from scratch pad 2;
 *   64BIT_MODE        frames, sense buffers and queues stay below 4 GiB
 *                     (Linux sets it only with a 64-bit coherent DMA mask);
 *   NVME_PASSTHRU     no NVMe command is ever encapsulated;
 *   FW_EXPOSED_DEV_LIST  discovery uses the PD list query as Linux
 *                     without it. */
static uint32_t fu_driver_capabilities(const struct fu_ctrl *c)
{
    uint32_t caps = MFI_CAP_FP_REMOTE_LUN | MFI_CAP_NDRIVE_R1_LB | MFI_CAP_SECURITY_PROTOCOL_CMDS_FW |
                    MFI_CAP_FP_RLBYPASS | MFI_CAP_PD_MAP_TARGET_ID | MFI_CAP_QD_THROTTLING;

    if (c->max_chain_bytes > FUSION_CHAIN_FRAME_MIN)
        caps |= MFI_CAP_EXT_IO_SIZE;
    return caps;
}

/* IOC INIT: the MPI2 IOC INIT request in an MFI INIT frame, posted with an
 * MFA descriptor and finished when the frame's cmd_status leaves 0xff
 * (Linux megasas_ioc_init_fusion and wait_and_poll). */
static int fu_ioc_init(struct fu_ctrl *c, char *err, size_t errlen)
{
    struct mfi_init_frame *f = (struct mfi_init_frame *)c->init_mem;
    struct fusion_ioc_init *ioc = (struct fusion_ioc_init *)(c->init_mem + 256);
    uint64_t frame_pa = plat_virt_to_phys(f), ioc_pa = plat_virt_to_phys(ioc), deadline;
    uint32_t caps;
    uint8_t st;
    int rc;

    memset(c->init_mem, 0, 4096);
    ioc->function = MPI2_FUNCTION_IOC_INIT;
    ioc->who_init = MPI2_WHOINIT_HOST_DRIVER;
    ioc->msg_version = MPI2_VERSION;
    ioc->header_version = MPI2_HEADER_VERSION;
    ioc->system_request_frame_size = FUSION_FRAME_BYTES / 4;
    ioc->reply_descriptor_post_queue_depth = (uint16_t)c->reply_depth;
    ioc->reply_descriptor_post_queue_address = plat_virt_to_phys((const void *)c->reply);
    ioc->system_request_frame_base_address = plat_virt_to_phys(c->req);
    ioc->sense_buffer_address_high = (uint32_t)(plat_virt_to_phys(c->sense) >> 32);
    ioc->host_msix_vectors = 0;

    f->hdr.cmd = MFI_CMD_INIT;
    f->hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    f->hdr.flags = MFI_FRAME_DONT_POST_IN_REPLY_QUEUE;
    f->hdr.data_len = sizeof(*ioc);
    caps = fu_driver_capabilities(c);
    memcpy((uint8_t *)f + FUSION_INIT_DRV_OPS_OFFSET, &caps, sizeof(caps));
    f->qinfo_new_lo = (uint32_t)ioc_pa;
    f->qinfo_new_hi = (uint32_t)(ioc_pa >> 32);

    /* Interrupts masked and the doorbell idle before the INIT goes out. */
    fu_write(c, MFI_REG_OMSK, MFI_OMSK_ALL_MASKED);
    (void)fu_read(c, MFI_REG_OMSK);
    rc = fu_wait_doorbell_clear(c, FU_DOORBELL_WAIT_NS, err, errlen);
    if (rc != BM_OK)
        return rc;
    /* MFA descriptor: the frame's address, RequestFlags = MFA << 1 in the
     * low byte (the frame is 256-byte aligned, so no address bits lost). */
    fu_fire(c, ((uint32_t)frame_pa & ~0xffu) | (FUSION_REQ_TYPE_MFA << FUSION_REQ_TYPE_SHIFT),
            (uint32_t)(frame_pa >> 32));
    deadline = plat_now_ns() + FU_INIT_TIMEOUT_NS;
    while ((st = *(volatile uint8_t *)&f->hdr.cmd_status) == MFI_STAT_INVALID_STATUS) {
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "IOC INIT: MFI INIT frame cmd_status still 0xff after %llu s (OSP0 0x%08x)",
                     (unsigned long long)(FU_INIT_TIMEOUT_NS / 1000000000ull), fu_fw_status(c));
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(10000);
    }
    if (st != MFI_STAT_OK) {
        snprintf(err, errlen, "IOC INIT failed: MFI status 0x%02x %s (OSP0 0x%08x)", st, fu_status_name(st),
                 fu_fw_status(c));
        return BM_EIO;
    }
    c->operational = true;
    return BM_OK;
}

/* Unmask the reply interrupt in the device as Linux does, with INTx
 * disabled at PCI (and MSI-X never enabled), so nothing reaches the CPU. */
static void fu_enable_replies(struct fu_ctrl *c)
{
    plat_pci_write16(c->pci, PCI_COMMAND, plat_pci_read16(c->pci, PCI_COMMAND) | PCI_COMMAND_INTX_DISABLE);
    fu_write(c, MFI_REG_OSTS, 0xffffffffu);
    (void)fu_read(c, MFI_REG_OSTS);
    fu_write(c, MFI_REG_OMSK, ~FUSION_ENABLE_INTR_MASK);
    (void)fu_read(c, MFI_REG_OMSK);
}

/* Hand the firmware back in READY state: flush caches, then the reset
 * request that takes an operational firmware back to READY. */
static void fu_stop_firmware(struct fu_ctrl *c)
{
    uint8_t mbox[MFI_MBOX_BYTES] = { MFI_FLUSH_CTRL_CACHE | MFI_FLUSH_DISK_CACHE };
    char err[128];
    uint64_t deadline;

    if (c->operational && !c->failed &&
        fu_dcmd(c, MFI_DCMD_CTRL_CACHE_FLUSH, mbox, sizeof(mbox), 0, false, err, sizeof(err)) != BM_OK)
        plat_diag(c->bdf, "cache flush: %s", err);
    if ((fu_fw_status(c) & MFI_FWSTATE_MASK) == MFI_FWSTATE_OPERATIONAL) {
        fu_write(c, MFI_REG_OMSK, MFI_OMSK_ALL_MASKED);
        fu_write(c, MFI_REG_DOORBELL, MFI_RESET_FLAGS);
        if (fu_wait_doorbell_clear(c, FU_STATE_WAIT_NS, err, sizeof(err)) != BM_OK)
            plat_diag(c->bdf, "reset to READY: %s", err);
        deadline = plat_now_ns() + FU_STATE_WAIT_NS;
        while ((fu_fw_status(c) & MFI_FWSTATE_MASK) == MFI_FWSTATE_OPERATIONAL && plat_now_ns() < deadline)
            plat_delay_ns(FU_MS_NS);
        if ((fu_fw_status(c) & MFI_FWSTATE_MASK) == MFI_FWSTATE_OPERATIONAL)
            plat_diag(c->bdf, "firmware did not leave OPERATIONAL state (OSP0 0x%08x)", fu_fw_status(c));
    }
    fu_write(c, MFI_REG_OMSK, MFI_OMSK_ALL_MASKED);
    if (c->h.q.busy)
        plat_diag(c->bdf, "%u SMID(s) never answered before the reset", c->h.q.busy);
    c->operational = false;
}

/* Hand the controller back in READY state and free everything. */
static void fu_release(struct megasas_ctrl *m)
{
    struct fu_ctrl *c = MEGASAS_CTRL_OF(m, struct fu_ctrl);

    fu_stop_firmware(c);
    plat_pci_write16(c->pci, PCI_COMMAND, c->pci_cmd_saved);
    hba_host_destroy(&c->h);
    fu_free_memory(c);
    plat_pci_release(c->pci);
    plat_log("%s released", c->name);
    plat_free(c);
}

/* Read the JBOD sequence map once (Linux megasas_sync_pd_seq_num without
 * pend, called from megasas_setup_jbod_map when controller info says
 * useSeqNumJbodFP); without it system drive I/O stays on the firmware
 * path, as Linux when the DCMD fails. */
static void fu_read_jbod_map(struct fu_ctrl *c)
{
    char why[128];
    int rc;

    rc = fu_dcmd(c, MFI_DCMD_SYSTEM_PD_MAP_GET_INFO, NULL, 0, sizeof(struct mfi_jbod_map), false, why, sizeof(why));
    if (rc != BM_OK) {
        plat_diag(c->bdf, "JBOD sequence map: %s; system drives go the firmware path", why);
        return;
    }
    if (((const struct mfi_jbod_map *)c->scratch)->count > MFI_JBOD_MAP_ENTRIES) {
        plat_diag(c->bdf, "JBOD sequence map lists %u drives, more than %u; system drives go the firmware path",
                  ((const struct mfi_jbod_map *)c->scratch)->count, MFI_JBOD_MAP_ENTRIES);
        return;
    }
    c->jbod_map = plat_alloc(sizeof(*c->jbod_map));
    if (!c->jbod_map)
        return;
    memcpy(c->jbod_map, c->scratch, sizeof(*c->jbod_map));
    c->jbod_fp = true;
    plat_diag(c->bdf, "JBOD sequence map read: system drive reads and writes take the fast path");
}

/* The Fusion part with this LSI device id, or NULL. */
static const struct fu_id *fu_find_id(uint16_t device)
{
    for (size_t i = 0; i < ARRAY_SIZE(fu_ids); i++)
        if (fu_ids[i].device == device)
            return &fu_ids[i];
    return NULL;
}

/* Is this LSI device id one the Fusion transport drives? */
static bool fu_supports(uint16_t device) { return fu_find_id(device) != NULL; }

/* Command and chain limits from the scratch pads once READY (Linux
 * megasas_init_adapter_fusion): commands in scratch pad 0 bits 15:0,
 * capped at 1008 and one kept back so the reply queue never fills; the
 * chain frame size in scratch pad 1 on Invader and later. */
static int fu_read_limits(struct fu_ctrl *c, char *err, size_t errlen)
{
    uint32_t status = fu_fw_status(c), sp1;

    c->fw_max_cmds = MIN(status & MFI_FWSTATE_MAXCMD_MASK, (uint32_t)FUSION_MAX_FW_CMDS);
    c->fw_max_sge = (status & MFI_FWSTATE_MAXSGL_MASK) >> MFI_FWSTATE_MAXSGL_SHIFT;
    if (c->fw_max_cmds < 8) {
        snprintf(err, errlen, "firmware allows only %u commands (OSP0 0x%08x)", c->fw_max_cmds, status);
        return BM_EIO;
    }
    c->nslots = c->fw_max_cmds - 1;
    c->reply_depth = 2 * ALIGN_UP(c->nslots + 1, 16u);
    c->max_chain_bytes = FUSION_CHAIN_FRAME_MIN;
    if (c->id->gen == FU_INVADER) {
        sp1 = fu_read(c, MFI_REG_OSP1);
        c->max_chain_bytes = ((sp1 & FUSION_CHAIN_SIZE_MASK) >> FUSION_CHAIN_SIZE_SHIFT) *
                             ((sp1 & FUSION_CHAIN_SIZE_UNITS_1M) ? 512u : 128u);
        if (c->max_chain_bytes < FUSION_CHAIN_FRAME_MIN)
            c->max_chain_bytes = FUSION_CHAIN_FRAME_MIN;
    }
    /* Linux megasas_init_adapter_fusion: the SGEs of the main frame and
     * of one chain frame, less two, rounded down to a power of two (64 on
     * a 1 KiB chain frame, 256 on a 4 KiB one). */
    c->max_io_sge = FUSION_SGES_IN_FRAME + c->max_chain_bytes / (uint32_t)sizeof(struct fusion_sge) - 2;
    while (c->max_io_sge & (c->max_io_sge - 1))
        c->max_io_sge &= c->max_io_sge - 1;
    return BM_OK;
}

/* Take a Fusion controller, bring up its firmware, find its disks. */
static int fu_probe(struct pci_addr a, struct bm_disk_list *disks, struct megasas_ctrl **ctrl_out, char *err,
                    size_t errlen)
{
    uint16_t device = plat_pci_read16(a, PCI_DEVICE_ID);
    struct fu_ctrl *c;
    char why[128];
    int rc;

    *ctrl_out = NULL;
    c = plat_alloc(sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    c->base.transport = &megasas_fusion_transport;
    c->pci = a;
    c->id = fu_find_id(device);
    pci_addr_str(a, c->bdf, sizeof(c->bdf));
    snprintf(c->name, sizeof(c->name), "MEGASAS %s", c->bdf);
    if (!c->id) {
        snprintf(err, errlen, "not a supported MegaRAID Fusion part (1000:%04x)", device);
        rc = BM_ENODEV;
        goto err_free;
    }
    rc = plat_pci_claim(a);
    if (rc != BM_OK) {
        snprintf(err, errlen, "cannot take the controller from the firmware: %s", bm_strerror(rc));
        goto err_free;
    }
    c->pci_cmd_saved = plat_pci_read16(a, PCI_COMMAND);
    pci_enable_device(a);
    c->regs = pci_map_first_mem_bar(a, 0x400); /* Linux megasas_init_fw: BAR 1, the first memory BAR */
    if (!c->regs) {
        snprintf(err, errlen, "no memory BAR");
        rc = BM_ENODEV;
        goto err_release;
    }
    rc = mfi_fw_to_ready(c->regs, c->bdf, MFI_REG_DOORBELL, true, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s: %s", c->id->chip, why);
        goto err_release;
    }
    rc = fu_read_limits(c, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s", why);
        goto err_release;
    }
    rc = hba_host_init(&c->h, c->nslots, FU_IO_TIMEOUT_NS, &fu_host_ops, c, c->bdf, c->name);
    if (rc != BM_OK) {
        snprintf(err, errlen, "out of memory for %u SMIDs", c->nslots);
        goto err_release;
    }
    rc = fu_alloc_memory(c);
    if (rc != BM_OK) {
        snprintf(err, errlen, "out of memory below 4 GiB for %u request frames", c->nslots);
        goto err_memory;
    }
    rc = fu_ioc_init(c, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s", why);
        goto err_stop;
    }
    fu_enable_replies(c);
    c->max_transfer_bytes = mfi_max_transfer_bytes(c->max_io_sge, NULL);
    if (fu_dcmd(c, MFI_DCMD_CTRL_GET_INFO, NULL, 0, sizeof(struct mfi_ctrl_info), false, why, sizeof(why)) ==
        BM_OK) {
        const struct mfi_ctrl_info *ci = (const struct mfi_ctrl_info *)c->scratch;
        char product[81];

        bm_copy_padded(product, sizeof(product), ci->product_name, sizeof(ci->product_name));
        bool seq_map = (ci->adapter_operations3 & MFI_CTRL_OPS3_USE_SEQ_NUM_JBOD_FP) != 0;

        c->max_transfer_bytes = mfi_max_transfer_bytes(c->max_io_sge, ci);
        plat_diag(c->bdf,
                  "%s (%s), IOC INIT done, %u commands (%u SMIDs), %u-byte chain frames, %u SGEs per I/O, "
                  "%u KiB per command (controller info: %u sectors per request, %u strips of %u sectors)",
                  product, c->id->chip, c->fw_max_cmds, c->nslots, c->max_chain_bytes, c->max_io_sge,
                  c->max_transfer_bytes / 1024, ci->max_request_size, ci->max_strips_per_io,
                  ci->max_strips_per_io && ci->stripe_sz_min < 32 ? 1u << ci->stripe_sz_min : 0);
        if (seq_map)
            fu_read_jbod_map(c);
    } else {
        plat_diag(c->bdf, "controller info: %s", why);
    }
    c->index = megasas_next_index;
    {
        struct fu_scan_ctx sc = { c, disks };
        /* The RAID context's target id is 16 bits. */
        struct mfi_scan_ops ops = { &sc, c->bdf, c->scratch, 0xffff, fu_dcmd_read, fu_add_disk };

        mfi_scan_lds(&ops);
        mfi_scan_system_pds(&ops);
    }
    megasas_next_index++;
    if (!c->h.ndisks)
        plat_diag(c->bdf, "no logical or system drives");
    *ctrl_out = &c->base;
    return BM_OK;

err_stop:
    fu_stop_firmware(c);
err_memory:
    fu_free_memory(c);
    hba_host_destroy(&c->h);
err_release:
    plat_pci_write16(a, PCI_COMMAND, c->pci_cmd_saved);
    plat_pci_release(a);
err_free:
    plat_free(c);
    return rc;
}

const struct megasas_transport megasas_fusion_transport = {
    .name = "Fusion",
    .supports = fu_supports,
    .probe = fu_probe,
    .release = fu_release,
};
