/* MegaRAID Fusion transport: bring-up, discovery and release (the
 * request path is in megasas_fusion.c; see its head comment for the
 * transport). Bring-up follows Linux megasas_init_adapter_fusion and
 * megasas_ioc_init_fusion. */
#include "megasas.h"
#include "fusion_ctrl.h"
#include "../pci.h"
#include "../pci_regs.h"
#include "../scsi/scsi.h"

/* PCI device ids: Linux megaraid_sas.h PCI_DEVICE_ID_LSI_FUSION (0x5b),
 * _INVADER (0x5d), _FURY (0x5f). */
static const struct fu_id fu_ids[] = {
    { 0x005b, FU_THUNDERBOLT, "SAS2208 Thunderbolt" },
    { 0x005d, FU_INVADER, "SAS3108 Invader" },
    { 0x005f, FU_INVADER, "SAS3008 Fury" },
};

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
    uint64_t frame_pa = plat_virt_to_phys(f), ioc_pa = plat_virt_to_phys(ioc);
    uint32_t caps;
    int st;
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
    rc = mfi_wait_doorbell_taken(c->regs, FU_DOORBELL_WAIT_NS, err, errlen);
    if (rc != BM_OK)
        return rc;
    /* MFA descriptor: the frame's address, RequestFlags = MFA << 1 in the
     * low byte (the frame is 256-byte aligned, so no address bits lost). */
    fu_fire(c, ((uint32_t)frame_pa & ~0xffu) | (FUSION_REQ_TYPE_MFA << FUSION_REQ_TYPE_SHIFT),
            (uint32_t)(frame_pa >> 32));
    st = mfi_wait_polled_status(&f->hdr, FU_INIT_TIMEOUT_NS);
    if (st == BM_ETIMEDOUT) {
        snprintf(err, errlen, "IOC INIT: MFI INIT frame cmd_status still 0xff after %llu s (OSP0 0x%08x)",
                 (unsigned long long)(FU_INIT_TIMEOUT_NS / 1000000000ull), fu_fw_status(c));
        return BM_ETIMEDOUT;
    }
    if (st != MFI_STAT_OK) {
        snprintf(err, errlen, "IOC INIT failed: MFI status 0x%02x %s (OSP0 0x%08x)", st, fu_status_name((uint8_t)st),
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
    plat_pci_write16(c->base.pci, PCI_COMMAND, plat_pci_read16(c->base.pci, PCI_COMMAND) | PCI_COMMAND_INTX_DISABLE);
    fu_write(c, MFI_REG_OSTS, 0xffffffffu);
    (void)fu_read(c, MFI_REG_OSTS);
    fu_write(c, MFI_REG_OMSK, ~FUSION_ENABLE_INTR_MASK);
    (void)fu_read(c, MFI_REG_OMSK);
}

/* hba_host_wait_idle's early way out: the firmware FAULTed. */
static bool fu_fw_faulted(void *ctrl)
{
    return (fu_fw_status(ctrl) & MFI_FWSTATE_MASK) == MFI_FWSTATE_FAULT;
}

/* megasas_stop_ops.flush: the cache flush DCMD. */
static int fu_flush_cache(void *ctrl, char *err, size_t errlen)
{
    uint8_t mbox[MFI_MBOX_BYTES] = { MFI_FLUSH_CTRL_CACHE | MFI_FLUSH_DISK_CACHE };

    return fu_dcmd(ctrl, MFI_DCMD_CTRL_CACHE_FLUSH, mbox, sizeof(mbox), 0, false, err, errlen);
}

/* Hand the firmware back in READY state owning nothing of ours
 * (megasas_stop_firmware), the reset request taken through the doorbell's
 * bit 0 and the adapter reset Linux megasas_reset_fusion's
 * megasas_adp_reset_fusion. Not stopped: the request frames, sense
 * buffers, MFI frames and reply queue are kept for good (fu_free). */
static void fu_stop_firmware(struct fu_ctrl *c)
{
    struct megasas_stop_ops o = {
        .regs = c->regs,
        .doorbell_reg = MFI_REG_DOORBELL,
        .fusion = true,
        .faulted = fu_fw_faulted,
        .flush = fu_flush_cache,
        .seq_reg = MFI_REG_FUSION_SEQ,
        .diag_reg = MFI_REG_FUSION_HOSTDIAG,
        .keys = mfi_fusion_reset_keys,
        .nkeys = ARRAY_SIZE(mfi_fusion_reset_keys),
        .unit = "SMID(s)",
        .memory_bytes = c->req_bytes + c->sense_bytes + c->mfi_bytes + c->reply_bytes + 4096 + FU_SCRATCH_BYTES,
    };

    if (!megasas_stop_firmware(&c->base, &o, c->operational, c->failed))
        c->keep_memory = true;
    c->operational = false;
}

/* Release (megasas_driver.c): the firmware back to READY. */
static void fu_stop(struct megasas_ctrl *m) { fu_stop_firmware(MEGASAS_CTRL_OF(m, struct fu_ctrl)); }

/* Release, last step: the frames and queues (unless the firmware may
 * still write them), then the controller. */
static void fu_free(struct megasas_ctrl *m)
{
    struct fu_ctrl *c = MEGASAS_CTRL_OF(m, struct fu_ctrl);

    if (!c->keep_memory)
        fu_free_memory(c);
    else
        plat_free(c->jbod_map);
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
        plat_diag(c->base.bdf, "JBOD sequence map: %s; system drives go the firmware path", why);
        return;
    }
    if (((const struct mfi_jbod_map *)c->scratch)->count > MFI_JBOD_MAP_ENTRIES) {
        plat_diag(c->base.bdf, "JBOD sequence map lists %u drives, more than %u; system drives go the firmware path",
                  ((const struct mfi_jbod_map *)c->scratch)->count, MFI_JBOD_MAP_ENTRIES);
        return;
    }
    c->jbod_map = plat_alloc(sizeof(*c->jbod_map));
    if (!c->jbod_map)
        return;
    memcpy(c->jbod_map, c->scratch, sizeof(*c->jbod_map));
    c->jbod_fp = true;
    plat_diag(c->base.bdf, "JBOD sequence map read: system drive reads and writes take the fast path");
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

/* Controller info: the product name for the log, the limits that bound
 * the transfer size, and whether system drives want the JBOD sequence
 * map (Linux megasas_init_adapter_fusion, megasas_setup_jbod_map). */
static void fu_read_ctrl_info(struct fu_ctrl *c)
{
    const struct mfi_ctrl_info *ci = (const struct mfi_ctrl_info *)c->scratch;
    char why[128], product[81];

    c->max_transfer_bytes = mfi_max_transfer_bytes(c->max_io_sge, NULL);
    if (fu_dcmd(c, MFI_DCMD_CTRL_GET_INFO, NULL, 0, sizeof(struct mfi_ctrl_info), false, why, sizeof(why)) !=
        BM_OK) {
        plat_diag(c->base.bdf, "controller info: %s", why);
        return;
    }
    bm_copy_padded(product, sizeof(product), ci->product_name, sizeof(ci->product_name));
    bool seq_map = (ci->adapter_operations3 & MFI_CTRL_OPS3_USE_SEQ_NUM_JBOD_FP) != 0;

    c->max_transfer_bytes = mfi_max_transfer_bytes(c->max_io_sge, ci);
    plat_diag(c->base.bdf,
              "%s (%s), IOC INIT done, %u commands (%u SMIDs), %u-byte chain frames, %u SGEs per I/O, "
              "%u KiB per command (controller info: %u sectors per request, %u strips of %u sectors)",
              product, c->id->chip, c->fw_max_cmds, c->nslots, c->max_chain_bytes, c->max_io_sge,
              c->max_transfer_bytes / 1024, ci->max_request_size, ci->max_strips_per_io,
              ci->max_strips_per_io && ci->stripe_sz_min < 32 ? 1u << ci->stripe_sz_min : 0);
    if (seq_map)
        fu_read_jbod_map(c);
}

/* Take a Fusion controller, bring up its firmware, find its disks. */
static int fu_probe(struct pci_addr a, unsigned index, struct bm_disk_list *disks, struct megasas_ctrl **ctrl_out,
                    char *err, size_t errlen)
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
    c->id = fu_find_id(device);
    if (!c->id) {
        snprintf(err, errlen, "not a supported MegaRAID Fusion part (1000:%04x)", device);
        rc = BM_ENODEV;
        goto err_free;
    }
    rc = megasas_take_pci(&c->base, a, 0x400, &c->regs, err, errlen); /* BAR 1, the first memory BAR */
    if (rc != BM_OK)
        goto err_free;
    rc = mfi_fw_to_ready(c->regs, c->base.bdf, MFI_REG_DOORBELL, true, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s: %s", c->id->chip, why);
        goto err_release;
    }
    rc = fu_read_limits(c, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s", why);
        goto err_release;
    }
    rc = hba_host_init(&c->base.h, c->nslots, bm_io_timeout_ns(), &fu_host_ops, c, c->base.bdf);
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
    fu_read_ctrl_info(c);
    c->index = index;   /* megasas<index>...: discovery numbers controllers */
    {
        struct fu_scan_ctx sc = { c, disks };
        /* The RAID context's target id is 16 bits. */
        struct mfi_scan_ops ops = { &sc, c->base.bdf, c->scratch, 0xffff, fu_dcmd_read, fu_add_disk };

        mfi_scan_lds(&ops);
        mfi_scan_system_pds(&ops);
    }
    if (!c->base.h.ndisks)
        plat_diag(c->base.bdf, "no logical or system drives");
    *ctrl_out = &c->base;
    return BM_OK;

err_stop:
    /* A firmware that took IOC INIT and could not be stopped may still
     * write the frames and the reply queue it was given: they stay (as at
     * release, fu_free). */
    fu_stop_firmware(c);
err_memory:
    if (!c->keep_memory)
        fu_free_memory(c);
    else
        plat_free(c->jbod_map);
    hba_host_destroy(&c->base.h);
err_release:
    megasas_give_back_pci(&c->base);
err_free:
    plat_free(c);
    return rc;
}

const struct megasas_transport megasas_fusion_transport = {
    .name = "Fusion",
    .supports = fu_supports,
    .probe = fu_probe,
    .stop = fu_stop,
    .free = fu_free,
    .dcmd_read = fu_member_dcmd,
    .pd_exec = fu_pd_exec,
};
