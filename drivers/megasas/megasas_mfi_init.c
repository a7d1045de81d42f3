/* MegaRAID MFI transport: bring-up and release (the request path is in
 * megasas_mfi.c; see its head comment for the transport). */
#include "megasas.h"
#include "mfi_ctrl.h"
#include "../pci.h"
#include "../pci_regs.h"
#include "../scsi/scsi.h"


static const struct mfi_id mfi_ids[] = {
    { 0x0060, MFI_FAMILY_PPC, "SAS1078" },
    { 0x007c, MFI_FAMILY_PPC, "SAS1078DE" },
    { 0x0078, MFI_FAMILY_GEN2, "SAS1078 gen2" },
    { 0x0079, MFI_FAMILY_GEN2, "SAS2108" },
    { 0x0071, MFI_FAMILY_SKINNY, "SAS2004" },
    { 0x0073, MFI_FAMILY_SKINNY, "SAS2008 iMR" },
};

/* ---- Firmware state --------------------------------------------------------------------- */

/* The doorbell that moves the firmware between states. */
static uint32_t mfi_doorbell_reg(struct mfi_ctrl *c)
{
    return c->id->family == MFI_FAMILY_SKINNY ? MFI_REG_DOORBELL : MFI_REG_IDB;
}

/* This transport's doorbell and registers through the shared state machine. */
static int mfi_transition_to_ready(struct mfi_ctrl *c, char *err, size_t errlen)
{
    return mfi_fw_to_ready(c->regs, c->base.bdf, mfi_doorbell_reg(c), false, err, errlen);
}

/* ---- Probe and release ----------------------------------------------------------------------------- */


/* Host memory the firmware uses: frames, sense buffers, reply queue. All
 * below 4 GiB: 1078/gen2 frame addresses are 32-bit and so are the sense
 * and queue pointers we hand over. */
static int mfi_alloc_memory(struct mfi_ctrl *c)
{
    size_t rq_off = 128, qinfo_off, nodata_off;

    c->frames_bytes = ALIGN_UP((size_t)c->nslots * MFI_FRAME_BYTES, (size_t)4096);
    c->sense_bytes = ALIGN_UP((size_t)c->nslots * MFI_SENSE_BYTES, (size_t)4096);
    qinfo_off = ALIGN_UP(rq_off + (size_t)c->rq_entries * 4, (size_t)64);
    nodata_off = ALIGN_UP(qinfo_off + sizeof(struct mfi_init_qinfo), (size_t)512);
    c->rq_bytes = ALIGN_UP(nodata_off + 512, (size_t)4096);
    c->frames = plat_alloc_pages(c->frames_bytes, true);
    c->sense = plat_alloc_pages(c->sense_bytes, true);
    c->rq_mem = plat_alloc_pages(c->rq_bytes, true);
    c->scratch = plat_alloc_pages(MFI_SCRATCH_BYTES, true);
    if (!c->frames || !c->sense || !c->rq_mem || !c->scratch)
        return BM_ENOMEM;
    c->producer = (volatile uint32_t *)c->rq_mem;
    c->consumer = (volatile uint32_t *)(c->rq_mem + 64);
    c->reply_queue = (volatile uint32_t *)(c->rq_mem + rq_off);
    c->qinfo = (struct mfi_init_qinfo *)(c->rq_mem + qinfo_off);
    c->nodata = c->rq_mem + nodata_off;
    return BM_OK;
}

/* Free the host memory the firmware used. */
static void mfi_free_memory(struct mfi_ctrl *c)
{
    plat_free_pages(c->frames, c->frames_bytes);
    plat_free_pages(c->sense, c->sense_bytes);
    plat_free_pages(c->rq_mem, c->rq_bytes);
    plat_free_pages(c->scratch, MFI_SCRATCH_BYTES);
    c->frames = NULL;
    c->sense = NULL;
    c->rq_mem = NULL;
    c->scratch = NULL;
}

/* MFI INIT: give the firmware the reply queue. Issued polled, before the
 * queue exists (Linux megasas_issue_init_mfi + megasas_issue_polled). */
static int mfi_init_queues(struct mfi_ctrl *c, char *err, size_t errlen)
{
    union mfi_frame *f = &c->frames[0];
    int st;

    *c->producer = 0;
    *c->consumer = 0;
    c->rq_next = 0;
    memset(c->qinfo, 0, sizeof(*c->qinfo));
    c->qinfo->rq_entries = c->rq_entries;
    c->qinfo->rq_addr_lo = mfi_pa32((const void *)c->reply_queue);
    c->qinfo->pi_addr_lo = mfi_pa32((const void *)c->producer);
    c->qinfo->ci_addr_lo = mfi_pa32((const void *)c->consumer);
    memset(f, 0, sizeof(*f));
    f->init.hdr.cmd = MFI_CMD_INIT;
    f->init.hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    f->init.hdr.flags = MFI_FRAME_DONT_POST_IN_REPLY_QUEUE;
    f->init.hdr.data_len = sizeof(struct mfi_init_qinfo);
    f->init.qinfo_new_lo = mfi_pa32(c->qinfo);
    mfi_post(c, 0);
    st = mfi_wait_polled_status(&f->hdr, MFI_INIT_TIMEOUT_NS);
    if (st == BM_ETIMEDOUT) {
        snprintf(err, errlen, "MFI INIT: frame status not written within %llu s (OSP0 0x%08x)",
                 (unsigned long long)(MFI_INIT_TIMEOUT_NS / 1000000000ull), mfi_fw_status(c));
        return BM_ETIMEDOUT;
    }
    if (st != MFI_STAT_OK) {
        snprintf(err, errlen, "MFI INIT failed: status 0x%02x %s", st, mfi_status_name((uint8_t)st));
        return BM_EIO;
    }
    c->operational = true;
    return BM_OK;
}

/* Unmask the reply interrupt in the device (QEMU only advances the reply
 * queue producer while it is unmasked) with INTx disabled at PCI, so no
 * interrupt ever reaches the firmware's interrupt controller. */
static void mfi_enable_replies(struct mfi_ctrl *c)
{
    plat_pci_write16(c->base.pci, PCI_COMMAND, plat_pci_read16(c->base.pci, PCI_COMMAND) | PCI_COMMAND_INTX_DISABLE);
    switch (c->id->family) {
    case MFI_FAMILY_PPC:
        mfi_write(c, MFI_REG_ODCR0, 0xffffffffu);
        mfi_write(c, MFI_REG_OMSK, ~MFI_PPC_ENABLE_INTR_MASK);
        break;
    case MFI_FAMILY_GEN2:
        mfi_write(c, MFI_REG_ODCR0, 0xffffffffu);
        mfi_write(c, MFI_REG_OMSK, ~MFI_GEN2_ENABLE_INTR_MASK);
        break;
    case MFI_FAMILY_SKINNY:
        mfi_write(c, MFI_REG_OMSK, ~MFI_SKINNY_ENABLE_INTR_MASK);
        break;
    }
    (void)mfi_read(c, MFI_REG_OMSK); /* flush the posted writes */
}

/* hba_host_wait_idle's early way out: the firmware FAULTed. */
static bool mfi_fw_faulted(void *ctrl)
{
    return (mfi_fw_status(ctrl) & MFI_FWSTATE_MASK) == MFI_FWSTATE_FAULT;
}

/* megasas_stop_ops.flush: the cache flush DCMD. */
static int mfi_flush_cache(void *ctrl, char *err, size_t errlen)
{
    uint8_t mbox[MFI_MBOX_BYTES] = { MFI_FLUSH_CTRL_CACHE | MFI_FLUSH_DISK_CACHE };

    return mfi_dcmd_read(ctrl, MFI_DCMD_CTRL_CACHE_FLUSH, mbox, sizeof(mbox), 0, err, errlen);
}

/* Hand the firmware back in READY state, as we found it, owning nothing
 * of ours (megasas_stop_firmware): the adapter reset of gen2 and skinny
 * parts is Linux megasas_adp_reset_gen2's (skinny parts through the
 * Fusion register pair); SAS1078 (ppc) parts have none. Not stopped: the
 * frames, sense buffers and reply queue are kept for good (mfi_free). */
static void mfi_stop_firmware(struct mfi_ctrl *c)
{
    bool skinny = c->id->family == MFI_FAMILY_SKINNY;
    struct megasas_stop_ops o = {
        .regs = c->regs,
        .doorbell_reg = mfi_doorbell_reg(c),
        .faulted = mfi_fw_faulted,
        .flush = mfi_flush_cache,
        .seq_reg = skinny ? MFI_REG_FUSION_SEQ : MFI_REG_SEQ,
        .diag_reg = skinny ? MFI_REG_FUSION_HOSTDIAG : MFI_REG_HOSTDIAG,
        .keys = c->id->family == MFI_FAMILY_PPC ? NULL : mfi_gen2_reset_keys,
        .nkeys = ARRAY_SIZE(mfi_gen2_reset_keys),
        .unit = "command(s)",
        .memory_bytes = c->frames_bytes + c->sense_bytes + c->rq_bytes + MFI_SCRATCH_BYTES,
    };

    if (!megasas_stop_firmware(&c->base, &o, c->operational, c->failed))
        c->keep_memory = true;
    if (!skinny)
        mfi_write(c, MFI_REG_ODCR0, 0xffffffffu);
    c->operational = false;
}

/* Release (megasas_driver.c): the firmware back to READY. */
static void mfi_stop(struct megasas_ctrl *m) { mfi_stop_firmware(MEGASAS_CTRL_OF(m, struct mfi_ctrl)); }

/* Release, last step: the frames and queues (unless the firmware may
 * still write them), then the controller. */
static void mfi_free(struct megasas_ctrl *m)
{
    struct mfi_ctrl *c = MEGASAS_CTRL_OF(m, struct mfi_ctrl);

    if (!c->keep_memory)
        mfi_free_memory(c);
    plat_free(c);
}

/* The family of a supported MFI controller, or NULL. */
static const struct mfi_id *mfi_find_id(uint16_t device)
{
    for (size_t i = 0; i < ARRAY_SIZE(mfi_ids); i++)
        if (mfi_ids[i].device == device)
            return &mfi_ids[i];
    return NULL;
}

/* Is this LSI device id an MFI controller we drive? */
static bool mfi_supports(uint16_t device) { return mfi_find_id(device) != NULL; }

/* Controller info: the product name for the log and the limits that
 * bound the transfer size (Linux megasas_init_fw). */
static void mfi_read_ctrl_info(struct mfi_ctrl *c)
{
    const struct mfi_ctrl_info *ci = (const struct mfi_ctrl_info *)c->scratch;
    char why[96], product[81];

    c->max_transfer_bytes = mfi_max_transfer_bytes(c->fw_max_sge, NULL);
    if (mfi_dcmd_read(c, MFI_DCMD_CTRL_GET_INFO, NULL, 0, sizeof(struct mfi_ctrl_info), why, sizeof(why)) != BM_OK) {
        /* Not fatal: the SGE limit alone is enough to run. */
        plat_diag(c->base.bdf, "controller info: %s", why);
        return;
    }
    bm_copy_padded(product, sizeof(product), ci->product_name, sizeof(ci->product_name));
    c->max_transfer_bytes = mfi_max_transfer_bytes(c->fw_max_sge, ci);
    plat_diag(c->base.bdf,
              "%s (%s), firmware READY -> OPERATIONAL, %u commands, %u SGEs, %u KiB per command "
              "(controller info: %u sectors per request, %u strips of %u sectors)",
              product, c->id->chip, c->fw_max_cmds, c->fw_max_sge, c->max_transfer_bytes / 1024,
              ci->max_request_size, ci->max_strips_per_io,
              ci->max_strips_per_io && ci->stripe_sz_min < 32 ? 1u << ci->stripe_sz_min : 0);
}

/* Take the controller, bring up its firmware, find its disks. */
static int mfi_probe(struct pci_addr a, unsigned index, struct bm_disk_list *disks, struct megasas_ctrl **ctrl_out,
                     char *err, size_t errlen)
{
    uint16_t vendor = plat_pci_read16(a, PCI_VENDOR_ID), device = plat_pci_read16(a, PCI_DEVICE_ID);
    struct mfi_ctrl *c;
    char why[96];
    uint32_t status;
    int rc;

    *ctrl_out = NULL;
    c = plat_alloc(sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    c->base.transport = &megasas_mfi_transport;
    c->id = mfi_find_id(device);
    if (!c->id) {
        snprintf(err, errlen, "not a supported MegaRAID (%04x:%04x)", vendor, device);
        rc = BM_ENODEV;
        goto err_free;
    }
    rc = megasas_take_pci(&c->base, a, 0x100, &c->regs, err, errlen);
    if (rc != BM_OK)
        goto err_free;
    rc = mfi_transition_to_ready(c, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s", why);
        goto err_release;
    }
    /* The command and SGE limits are in the status word once READY. */
    status = mfi_fw_status(c);
    c->fw_max_cmds = status & MFI_FWSTATE_MAXCMD_MASK;
    c->fw_max_sge = (status & MFI_FWSTATE_MAXSGL_MASK) >> MFI_FWSTATE_MAXSGL_SHIFT;
    if (c->fw_max_cmds < 4) {
        snprintf(err, errlen, "firmware allows only %u commands (OSP0 0x%08x)", c->fw_max_cmds, status);
        rc = BM_EIO;
        goto err_release;
    }
    /* Like Linux, keep one command in reserve: the reply queue has as many
     * entries as the firmware has commands and must never fill. */
    c->rq_entries = c->fw_max_cmds;
    c->nslots = MIN(c->fw_max_cmds - 1, (uint32_t)MFI_SLOTS_MAX);
    rc = hba_host_init(&c->base.h, c->nslots, bm_io_timeout_ns(), &mfi_host_ops, c, c->base.bdf);
    if (rc != BM_OK) {
        snprintf(err, errlen, "out of memory for %u command slots", c->nslots);
        goto err_release;
    }
    rc = mfi_alloc_memory(c);
    if (rc != BM_OK) {
        snprintf(err, errlen, "out of memory below 4 GiB for %u frames", c->nslots);
        goto err_queue;
    }
    /* Masking all interrupts first is what Linux does before INIT (and
     * resets QEMU's reply queue state). */
    mfi_write(c, MFI_REG_OMSK, MFI_OMSK_ALL_MASKED);
    rc = mfi_init_queues(c, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s", why);
        goto err_stop;
    }
    mfi_enable_replies(c);
    mfi_read_ctrl_info(c);
    c->index = index;   /* megasas<index>...: discovery numbers controllers */
    mfi_scan(c, disks);
    if (!c->base.h.ndisks)
        plat_diag(c->base.bdf, "no logical or system drives");
    *ctrl_out = &c->base;
    return BM_OK;

err_stop:
    /* A firmware that took INIT and could not be stopped may still write
     * the frames and the reply queue it was given: they stay (as at
     * release, mfi_free). */
    mfi_stop_firmware(c);
    if (!c->keep_memory)
        mfi_free_memory(c);
err_queue:
    hba_host_destroy(&c->base.h);
err_release:
    megasas_give_back_pci(&c->base);
err_free:
    plat_free(c);
    return rc;
}

const struct megasas_transport megasas_mfi_transport = {
    .name = "MFI",
    .supports = mfi_supports,
    .probe = mfi_probe,
    .stop = mfi_stop,
    .free = mfi_free,
    .dcmd_read = mfi_member_dcmd,
    .pd_exec = mfi_pd_exec,
};
