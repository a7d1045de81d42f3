/* MegaRAID SAS driver: what its two transports share (the driver entry that
 * picks one is megasas_driver.c).
 *
 * MegaRAID controllers come with one of two command transports: MFI
 * (megasas_mfi.c: LSI SAS1078, SAS2108, SAS2004/2008 iMR; QEMU's megasas
 * and megasas-gen2) and the MPI2-style "Fusion" one (megasas_fusion.c:
 * SAS2208/3108/3008). Both keep MFI frames for management, so the
 * firmware state machine, DCMD status names, the transfer limit and drive
 * discovery (LD list, system PD list) live here. The transports reach
 * this file; this file never reaches them.
 */
#include "megasas.h"
#include "megasas_internal.h"
#include "megasas_regs.h"
#include "mfi.h"
#include "../pci.h"
#include "../pci_regs.h"
#include "../scsi/scsi.h"
#include "../scsi/scsi_health.h"
#include "../../efi/time_units.h"

#define MFI_MAX_TRANSFER_BYTES (1u << 20)
#define MFI_SGE_PAGE_BYTES 4096u      /* Linux SGE_BUFFER_SIZE: one SGE per page at worst */
/* Linux MEGASAS_RESET_WAIT_TIME: a state (device scan on a full
 * enclosure) may legitimately last minutes. */
#define MFI_STATE_WAIT_NS (180ull * 1000000000ull)
/* The whole walk to READY, however often the status word moves. */
#define MFI_READY_TOTAL_NS (900ull * 1000000000ull)
/* The largest configuration read: the transports' 8 KiB scratch buffer
 * (an array is 288 bytes, a logical drive 256: dozens of each). */
#define MFI_CFG_MAX_BYTES 8192u

/* ---- The PCI function ------------------------------------------------------------------------------ */

int megasas_take_pci(struct megasas_ctrl *m, struct pci_addr a, uint64_t bar_min_bytes, volatile void **regs,
                     char *err, size_t errlen)
{
    m->pci = a;
    pci_addr_str(a, m->bdf, sizeof(m->bdf));
    return pci_take_function(a, bar_min_bytes, &m->pci_cmd_saved, regs, err, errlen);
}

void megasas_give_back_pci(struct megasas_ctrl *m) { pci_give_back_function(m->pci, m->pci_cmd_saved); }

/* ---- Drives --------------------------------------------------------------------------------------------- */

void megasas_add_disk(struct megasas_ctrl *m, const struct megasas_disk_kind *k, struct bm_disk_list *disks,
                      bool logical, uint16_t target, uint32_t max_qd)
{
    char tname[48], id[sizeof(((struct bm_disk *)0)->id)];
    struct hba_disk_spec s = {
        .t = { k->ctrl, logical, target, 0 },
        .tname = tname,
        .id = id,
        .at = { "megasas", m->pci, target, 0, 0, k->max_transfer_bytes },
        .max_qd = max_qd,
        .exec = k->exec,
        .ops = k->ops,
    };

    snprintf(tname, sizeof(tname), "%s%u", logical ? "ld" : "pd", target);
    snprintf(id, sizeof(id), "megasas%u%c%u", k->index, logical ? 'd' : 'p', target);
    (void)hba_disk_add(&m->h, disks, &s);
}

/* ---- Member disks of a logical drive --------------------------------------------------------------- */

/* One stride of the configuration's arrays or logical drives: FreeBSD
 * mfiutil (mfi_config_lookup_array, mfi_config_lookup_volume) steps by
 * array_size / log_drv_size, the size of one entry. QEMU's
 * megasas_dcmd_cfg_read puts the size of all of them there; a size that
 * is exactly count entries of the structure is taken as that. */
static size_t cfg_stride(uint16_t size, uint16_t count, size_t one)
{
    if (count > 1 && size == count * one)
        return one;
    return size;
}

int mfi_config_ld_members(const uint8_t *cfg, size_t len, uint8_t target, uint16_t *ids, unsigned max,
                          unsigned *n)
{
    const struct mfi_config_hdr *h = (const struct mfi_config_hdr *)cfg;
    const struct mfi_ld_config *ld = NULL;
    size_t astride, lstride, arrays, off;

    *n = 0;
    if (len < sizeof(*h))
        return BM_EINVAL;
    len = MIN(len, (size_t)h->size);
    astride = cfg_stride(h->array_size, h->array_count, sizeof(struct mfi_array));
    lstride = cfg_stride(h->log_drv_size, h->log_drv_count, sizeof(struct mfi_ld_config));
    if ((h->array_count && astride < sizeof(struct mfi_array)) ||
        (h->log_drv_count && lstride < sizeof(struct mfi_ld_config)))
        return BM_EINVAL;
    arrays = sizeof(*h);
    off = arrays + (size_t)h->array_count * astride;
    for (unsigned i = 0; i < h->log_drv_count; i++, off += lstride) {
        if (off + sizeof(*ld) > len)
            return BM_EINVAL;
        if (((const struct mfi_ld_config *)(cfg + off))->target_id == target) {
            ld = (const struct mfi_ld_config *)(cfg + off);
            break;
        }
    }
    if (!ld)
        return BM_ENODEV;
    /* Spans name arrays by reference (mfiutil show_config walks
     * ld->span[0 .. span_depth - 1].array_ref the same way). */
    for (unsigned s = 0; s < MIN(ld->span_depth, (uint8_t)MFI_MAX_SPAN_DEPTH); s++) {
        for (unsigned a = 0; a < h->array_count; a++) {
            const struct mfi_array *ar = (const struct mfi_array *)(cfg + arrays + a * astride);

            if (arrays + a * astride + sizeof(*ar) > len)
                return BM_EINVAL;
            if (ar->array_ref != ld->span[s].array_ref)
                continue;
            for (unsigned r = 0; r < MIN(ar->num_drives, (uint8_t)MFI_MAX_ROW_SIZE); r++)
                if (ar->pd[r].device_id != MFI_PD_NONE && *n < max)
                    ids[(*n)++] = ar->pd[r].device_id;
            break;
        }
    }
    return BM_OK;
}

/* Read the configuration and keep the logical drive's members in hd. */
static int megasas_read_members(struct megasas_ctrl *m, struct hba_disk *hd, char *err, size_t errlen)
{
    const struct mfi_config_hdr *h;
    const uint8_t *data;
    uint32_t size;
    int rc;

    hd->nmembers = 0;
    /* Its header first, for the whole size, then all of it (FreeBSD
     * mfiutil mfi_config_read reads again when size is larger). */
    rc = m->transport->dcmd_read(m, MFI_DCMD_CFG_READ, NULL, 0, sizeof(*h), &data, err, errlen);
    if (rc != BM_OK)
        return rc;
    h = (const struct mfi_config_hdr *)data;
    size = h->size;
    if (size < sizeof(*h) || size > MFI_CFG_MAX_BYTES) {
        snprintf(err, errlen, "configuration of %u bytes (not read)", size);
        return BM_EIO;
    }
    rc = m->transport->dcmd_read(m, MFI_DCMD_CFG_READ, NULL, 0, size, &data, err, errlen);
    if (rc != BM_OK)
        return rc;
    rc = mfi_config_ld_members(data, size, (uint8_t)hd->t.target, hd->members, BM_MAX_MEMBERS, &hd->nmembers);
    if (rc == BM_ENODEV)
        snprintf(err, errlen, "ld%u is not in the controller's configuration", hd->t.target);
    else if (rc != BM_OK)
        snprintf(err, errlen, "configuration data malformed");
    return rc;
}

int megasas_member_health(struct bm_disk *d, unsigned index, struct bm_member *who, struct bm_health *out)
{
    struct hba_disk *hd = hba_disk_of(d);
    struct megasas_ctrl *m = (struct megasas_ctrl *)(void *)((char *)hd->host - offsetof(struct megasas_ctrl, h));
    struct hba_target t;
    struct scsi_transport tr;
    struct scsi_disk_info info;
    uint16_t id;
    int rc;

    if (!hd->t.logical || !m->transport->dcmd_read || !m->transport->pd_exec)
        return BM_ENODEV;
    if (index == 0) {
        rc = megasas_read_members(m, hd, who->note, sizeof(who->note));
        if (rc != BM_OK) {
            plat_diag(m->bdf, "%s: member list not read: %s", d->id, who->note);
            return rc;
        }
    }
    if (index >= hd->nmembers)
        return BM_ENODEV;
    id = hd->members[index];
    snprintf(who->name, sizeof(who->name), "pd%u", id);
    who->device_id = id;
    if (id > 0xff) {
        /* The MFI frame's target id is one byte (Linux struct
         * megasas_pthru_frame target_id). */
        snprintf(who->note, sizeof(who->note), "device id %u does not fit a pass-through frame", id);
        return BM_ENOTSUP;
    }
    t = (struct hba_target){ .ctrl = hd->t.ctrl, .logical = false, .target = id };
    tr = (struct scsi_transport){ m->transport->pd_exec, &t, who->name };
    rc = scsi_identify_inquiry_only(&tr, &info, who->note, sizeof(who->note));
    if (rc != BM_OK) {
        plat_diag(m->bdf, "%s: member %s not identified: %s", d->id, who->name, who->note);
        return rc;
    }
    bm_strlcpy(who->serial, info.serial, sizeof(who->serial));
    rc = scsi_read_health(&tr, info.sat, out, who->note, sizeof(who->note));
    if (rc != BM_OK)
        plat_diag(m->bdf, "%s: member %s health not read: %s", d->id, who->name, who->note);
    return rc;
}

/* ---- Firmware state ------------------------------------------------------------------------------ */

/* The firmware state's name, for messages. */
const char *mfi_state_name(uint32_t state)
{
    switch (state & MFI_FWSTATE_MASK) {
    case MFI_FWSTATE_UNDEFINED: return "UNDEFINED";
    case MFI_FWSTATE_BB_INIT: return "BB_INIT";
    case MFI_FWSTATE_FW_INIT: return "FW_INIT";
    case MFI_FWSTATE_WAIT_HANDSHAKE: return "WAIT_HANDSHAKE";
    case MFI_FWSTATE_FW_INIT_2: return "FW_INIT_2";
    case MFI_FWSTATE_DEVICE_SCAN: return "DEVICE_SCAN";
    case MFI_FWSTATE_BOOT_MSG_PENDING: return "BOOT_MSG_PENDING";
    case MFI_FWSTATE_FLUSH_CACHE: return "FLUSH_CACHE";
    case MFI_FWSTATE_READY: return "READY";
    case MFI_FWSTATE_OPERATIONAL: return "OPERATIONAL";
    case MFI_FWSTATE_FAULT: return "FAULT";
    default: return "UNKNOWN";
    }
}

/* Text for an MFI command status. */
const char *mfi_status_name(uint8_t st)
{
    switch (st) {
    case MFI_STAT_OK: return "ok";
    case MFI_STAT_INVALID_CMD: return "invalid command";
    case MFI_STAT_INVALID_DCMD: return "invalid DCMD";
    case MFI_STAT_INVALID_PARAMETER: return "invalid parameter";
    case MFI_STAT_DEVICE_NOT_FOUND: return "device not found";
    case MFI_STAT_LD_LBA_OUT_OF_RANGE: return "LBA out of range";
    case MFI_STAT_MEMORY_NOT_AVAILABLE: return "memory not available";
    case MFI_STAT_SCSI_DONE_WITH_ERROR: return "SCSI done with error";
    case MFI_STAT_SCSI_IO_FAILED: return "SCSI I/O failed";
    case MFI_STAT_RESERVATION_CONFLICT: return "reservation conflict";
    case MFI_STAT_LD_OFFLINE: return "logical drive offline";
    case MFI_STAT_INVALID_SGL: return "invalid SGL";
    default: return "error";
    }
}

/* The largest command for a controller whose I/O frames take max_sge
 * SGEs, as Linux megasas_init_fw computes max_sectors_per_req: max_sge
 * pages of 4 KiB (SGE_BUFFER_SIZE), capped by the controller info's two
 * limits, the strip size times the strips one command may span
 * ((1 << stripe_sz_ops.min) * max_strips_per_io sectors) and
 * max_request_size. Older firmware leaves the strip figures 0; each limit
 * applies only when filled in. Never above baremark's own 1 MiB. ci may be
 * NULL (controller info unavailable). */
uint32_t mfi_max_transfer_bytes(uint32_t max_sge, const struct mfi_ctrl_info *ci)
{
    uint64_t bytes = MFI_MAX_TRANSFER_BYTES;

    if (max_sge)
        bytes = MIN(bytes, (uint64_t)max_sge * MFI_SGE_PAGE_BYTES);
    if (ci && ci->max_request_size)
        bytes = MIN(bytes, (uint64_t)ci->max_request_size * 512);
    if (ci && ci->max_strips_per_io && ci->stripe_sz_min < 32)
        bytes = MIN(bytes, ((uint64_t)1 << ci->stripe_sz_min) * ci->max_strips_per_io * 512);
    return (uint32_t)bytes;
}

/* Bring the firmware to READY through its state machine (the transitions
 * of Linux megasas_transition_to_ready): answer a handshake wait or a
 * pending boot message, bring an operational firmware back to ready, and
 * otherwise wait for the firmware's own initialisation to move on.
 *
 * Like Linux (its abs_state / curr_abs_state comparison) the wait is for
 * the whole status word to change, not only the state in its top nibble:
 * firmware counts its progress through a long state (a device scan of a
 * full enclosure) in the low bits, and every change restarts the
 * MFI_STATE_WAIT_NS timer. MFI_READY_TOTAL_NS bounds the whole walk, which
 * Linux leaves open. Shared with the Fusion transport, which has the same
 * states in scratch pad 0. */
int mfi_fw_to_ready(volatile void *regs, const char *where, uint32_t doorbell_reg, bool fusion, char *err,
                    size_t errlen)
{
    uint64_t give_up = plat_now_ns() + MFI_READY_TOTAL_NS;
    uint32_t status = mmio_read32(regs, MFI_REG_OSP0);

    for (;;) {
        uint32_t state = status & MFI_FWSTATE_MASK, now_status;
        uint64_t deadline;

        switch (state) {
        case MFI_FWSTATE_READY:
            return BM_OK;
        case MFI_FWSTATE_FAULT:
            snprintf(err, errlen, "firmware in FAULT state (OSP0 0x%08x)", status);
            return BM_EIO;
        case MFI_FWSTATE_WAIT_HANDSHAKE:
            mmio_write32(regs, doorbell_reg, MFI_INIT_CLEAR_HANDSHAKE | MFI_INIT_HOTPLUG);
            break;
        case MFI_FWSTATE_BOOT_MSG_PENDING:
            mmio_write32(regs, doorbell_reg, MFI_INIT_HOTPLUG);
            break;
        case MFI_FWSTATE_OPERATIONAL:
            /* Someone (option ROM, firmware driver, an earlier run) left
             * it running: stop interrupts, abort and go back to READY. */
            mmio_write32(regs, MFI_REG_OMSK, MFI_OMSK_ALL_MASKED);
            mmio_write32(regs, doorbell_reg, MFI_RESET_FLAGS);
            /* Fusion firmware clears doorbell bit 0 once it took the
             * request (Linux megasas_transition_to_ready). */
            if (fusion && mfi_wait_doorbell_taken(regs, MFI_STATE_WAIT_NS, err, errlen) != BM_OK)
                return BM_ETIMEDOUT;
            break;
        case MFI_FWSTATE_UNDEFINED:
        case MFI_FWSTATE_BB_INIT:
        case MFI_FWSTATE_FW_INIT:
        case MFI_FWSTATE_FW_INIT_2:
        case MFI_FWSTATE_DEVICE_SCAN:
        case MFI_FWSTATE_FLUSH_CACHE:
            break; /* the firmware is still initialising itself */
        default:
            /* Linux gives up on a state it does not know, too. */
            snprintf(err, errlen, "firmware in unknown state (OSP0 0x%08x)", status);
            return BM_EIO;
        }
        deadline = plat_now_ns() + MFI_STATE_WAIT_NS;
        while ((now_status = mmio_read32(regs, MFI_REG_OSP0)) == status) {
            if (plat_now_ns() > deadline) {
                snprintf(err, errlen, "firmware stuck in state %s: status word unchanged for %llu s (OSP0 0x%08x)",
                         mfi_state_name(state), (unsigned long long)(MFI_STATE_WAIT_NS / 1000000000ull), status);
                return BM_ETIMEDOUT;
            }
            plat_delay_ns(NS_PER_MS);
        }
        if ((now_status & MFI_FWSTATE_MASK) != state)
            plat_diag(where, "firmware state %s -> %s (OSP0 0x%08x)", mfi_state_name(state),
                      mfi_state_name(now_status), now_status);
        status = now_status;
        if ((status & MFI_FWSTATE_MASK) != MFI_FWSTATE_READY && plat_now_ns() > give_up) {
            snprintf(err, errlen, "firmware not READY after %llu s, status word still moving (OSP0 0x%08x)",
                     (unsigned long long)(MFI_READY_TOTAL_NS / 1000000000ull), status);
            return BM_ETIMEDOUT;
        }
    }
}

/* Logical drives that are not offline. */
void mfi_scan_lds(const struct mfi_scan_ops *ops)
{
    struct mfi_ld_list *ll = (struct mfi_ld_list *)ops->scratch;
    uint8_t targets[MFI_MAX_LD], states[MFI_MAX_LD];
    char err[96];
    uint32_t n;

    if (ops->dcmd_read(ops->ctx, MFI_DCMD_LD_GET_LIST, NULL, 0, sizeof(*ll), err, sizeof(err)) != BM_OK) {
        plat_diag(ops->where, "LD list: %s", err);
        return;
    }
    /* Copy out: identification reuses the scratch buffer. */
    n = MIN(ll->count, (uint32_t)MFI_MAX_LD);
    for (uint32_t i = 0; i < n; i++) {
        targets[i] = ll->ld[i].target_id;
        states[i] = ll->ld[i].state;
    }
    /* Target order, so disk ids come out in a stable order. */
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && targets[j - 1] > targets[j]; j--) {
            uint8_t t = targets[j], s = states[j];
            targets[j] = targets[j - 1];
            states[j] = states[j - 1];
            targets[j - 1] = t;
            states[j - 1] = s;
        }
    plat_diag(ops->where, "%u logical drive(s)", n);
    for (uint32_t i = 0; i < n; i++) {
        if (states[i] == MFI_LD_STATE_OFFLINE) {
            plat_diag(ops->where, "ld%u offline, skipped", targets[i]);
            continue;
        }
        if (states[i] != MFI_LD_STATE_OPTIMAL)
            plat_diag(ops->where, "ld%u is %s degraded", targets[i],
                      states[i] == MFI_LD_STATE_PARTIALLY_DEGRADED ? "partially" : "");
        ops->add_disk(ops->ctx, true, targets[i], MFI_LD_QD);
    }
}

/* Does this PD state say the drive belongs to the RAID layer (a member,
 * a spare, or being rebuilt or copied to)? */
static bool mfi_pd_state_in_array(uint16_t state)
{
    return state == MFI_PD_STATE_ONLINE || state == MFI_PD_STATE_HOT_SPARE || state == MFI_PD_STATE_REBUILD ||
           state == MFI_PD_STATE_COPYBACK;
}

/* Physical drives the firmware exposes to the host as they are (JBOD /
 * system drives). The "exposed to host" PD list query is what says so,
 * as Linux's megaraid_sas takes it; PD info is read as a second check,
 * and a drive whose state puts it in an array is never touched directly:
 * that would bypass the RAID layer. (QEMU's model answers PD info with
 * state OFFLINE for every drive: it never copies the INQUIRY data its
 * state is derived from.) */
void mfi_scan_system_pds(const struct mfi_scan_ops *ops)
{
    struct mfi_pd_list *pl = (struct mfi_pd_list *)ops->scratch;
    const struct mfi_pd_info *info = (const struct mfi_pd_info *)ops->scratch;
    uint8_t mbox[MFI_MBOX_BYTES] = { MFI_PD_QUERY_EXPOSED_TO_HOST };
    uint16_t ids[MFI_MAX_PD];
    char err[96];
    uint32_t n, m = 0, intf, qd;

    if (ops->dcmd_read(ops->ctx, MFI_DCMD_PD_LIST_QUERY, mbox, sizeof(mbox), sizeof(*pl), err, sizeof(err)) !=
        BM_OK) {
        plat_diag(ops->where, "PD list: %s", err);
        return;
    }
    n = MIN(pl->count, (uint32_t)MFI_MAX_PD);
    for (uint32_t i = 0; i < n; i++)
        if (pl->addr[i].scsi_dev_type == SCSI_TYPE_DISK)
            ids[m++] = pl->addr[i].device_id;
    for (uint32_t i = 0; i < m; i++) {
        uint8_t pmbox[MFI_MBOX_BYTES] = { (uint8_t)ids[i], (uint8_t)(ids[i] >> 8) };

        if (ops->dcmd_read(ops->ctx, MFI_DCMD_PD_GET_INFO, pmbox, sizeof(pmbox), sizeof(*info), err, sizeof(err)) !=
            BM_OK) {
            plat_diag(ops->where, "pd%u info: %s", ids[i], err);
            continue;
        }
        if (mfi_pd_state_in_array(info->fw_state)) {
            plat_diag(ops->where, "pd%u in state 0x%02x (in an array), though listed as exposed to the host: skipped",
                      ids[i], info->fw_state);
            continue;
        }
        if (info->fw_state != MFI_PD_STATE_SYSTEM)
            plat_diag(ops->where, "pd%u is listed as exposed to the host but reports state 0x%02x, not SYSTEM",
                      ids[i], info->fw_state);
        if (ids[i] > ops->max_pd_target) {
            plat_diag(ops->where, "pd%u: device id does not fit a frame, skipped", ids[i]);
            continue;
        }
        intf = (info->ddf_type >> MFI_PD_INTF_SHIFT) & 0xf;
        qd = intf == MFI_PD_INTF_SATA ? MFI_SATA_PD_QD : intf == MFI_PD_INTF_NVME ? MFI_NVME_PD_QD : MFI_SAS_PD_QD;
        if (qd != MFI_SAS_PD_QD)
            plat_diag(ops->where, "pd%u: %s drive, queue depth %u (Linux MEGASAS_%s_QD)", ids[i],
                      intf == MFI_PD_INTF_SATA ? "SATA" : "NVMe", qd, intf == MFI_PD_INTF_SATA ? "SATA" : "NVME");
        ops->add_disk(ops->ctx, false, ids[i], qd);
    }
}

bool mfi_wait_not_operational(volatile void *regs, const char *where)
{
    uint64_t deadline = plat_now_ns() + MFI_STATE_WAIT_NS;

    while ((mmio_read32(regs, MFI_REG_OSP0) & MFI_FWSTATE_MASK) == MFI_FWSTATE_OPERATIONAL &&
           plat_now_ns() < deadline)
        plat_delay_ns(NS_PER_MS);
    if ((mmio_read32(regs, MFI_REG_OSP0) & MFI_FWSTATE_MASK) == MFI_FWSTATE_OPERATIONAL) {
        plat_diag(where, "firmware did not leave OPERATIONAL state (OSP0 0x%08x)", mmio_read32(regs, MFI_REG_OSP0));
        return false;
    }
    return true;
}

int mfi_wait_doorbell_taken(volatile void *regs, uint64_t timeout_ns, char *err, size_t errlen)
{
    uint32_t db;

    if (hba_poll_reg(regs, MFI_REG_DOORBELL, 1, 0, timeout_ns, NS_PER_MS, false, &db))
        return BM_OK;
    snprintf(err, errlen, "request not taken: DOORBELL bit 0 still set after %llu ms (0x%08x)",
             (unsigned long long)(timeout_ns / NS_PER_MS), db);
    return BM_ETIMEDOUT;
}

int mfi_wait_polled_status(const struct mfi_header *hdr, uint64_t timeout_ns)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;
    uint8_t st;

    while ((st = *(const volatile uint8_t *)&hdr->cmd_status) == MFI_STAT_INVALID_STATUS) {
        if (plat_now_ns() > deadline)
            return BM_ETIMEDOUT;
        plat_delay_ns(10000);
    }
    plat_rmb(); /* what the firmware wrote with the status, after it */
    return st;
}

bool megasas_stop_firmware(struct megasas_ctrl *m, const struct megasas_stop_ops *o, bool operational, bool failed)
{
    uint32_t held, state;
    bool stopped = true;
    char err[128];

    if (operational) {
        held = hba_host_wait_idle(&m->h, MEGASAS_RELEASE_DRAIN_NS, o->faulted);
        if (held)
            plat_diag(m->bdf, "%u %s still outstanding after %llu s; the controller reset takes them back", held,
                      o->unit, (unsigned long long)(MEGASAS_RELEASE_DRAIN_NS / NS_PER_S));
    }
    if (operational && !failed && o->flush(m->h.ctrl, err, sizeof(err)) != BM_OK)
        plat_diag(m->bdf, "cache flush: %s", err);
    state = mmio_read32(o->regs, MFI_REG_OSP0) & MFI_FWSTATE_MASK;
    if (state == MFI_FWSTATE_OPERATIONAL) {
        mmio_write32(o->regs, MFI_REG_OMSK, MFI_OMSK_ALL_MASKED);
        mmio_write32(o->regs, o->doorbell_reg, MFI_RESET_FLAGS);
        if (o->fusion && mfi_wait_doorbell_taken(o->regs, MFI_STATE_WAIT_NS, err, sizeof(err)) != BM_OK)
            plat_diag(m->bdf, "reset to READY: %s", err);
        stopped = mfi_wait_not_operational(o->regs, m->bdf);
    } else if (state == MFI_FWSTATE_FAULT && m->h.q.busy) {
        stopped = false;
        plat_diag(m->bdf, "firmware FAULT with %u %s outstanding", m->h.q.busy, o->unit);
    }
    if (!stopped && o->keys) {
        plat_diag(m->bdf, "escalating to the adapter reset (host diagnostic register)");
        stopped = mfi_adapter_reset(o->regs, m->bdf, o->seq_reg, o->diag_reg, o->keys, o->nkeys);
    }
    mmio_write32(o->regs, MFI_REG_OMSK, MFI_OMSK_ALL_MASKED);
    if (stopped) {
        unsigned n = hbaq_return_all(&m->h.q, "ended by the controller reset at release");

        if (n)
            plat_diag(m->bdf, "%u %s ended by the controller reset", n, o->unit);
    } else {
        plat_diag(m->bdf, "firmware not stopped: keeping its %zu KiB of frames, sense buffers and reply queue "
                  "(it may still write them)", o->memory_bytes >> 10);
    }
    return stopped;
}

void mfi_build_abort(union mfi_frame *f, uint32_t context, uint32_t abort_ctx, uint64_t abort_pa)
{
    memset(f, 0, sizeof(*f));
    f->abort.hdr.cmd = MFI_CMD_ABORT;
    f->abort.hdr.cmd_status = MFI_STAT_INVALID_STATUS;
    f->abort.hdr.context = context;
    f->abort.abort_context = abort_ctx;
    f->abort.abort_frame_lo = (uint32_t)abort_pa;
    f->abort.abort_frame_hi = (uint32_t)(abort_pa >> 32);
}

const uint32_t mfi_gen2_reset_keys[6] = { 0x0, 0x4, 0xb, 0x2, 0x7, 0xd };
const uint32_t mfi_fusion_reset_keys[7] = { 0x0, 0xf, 0x4, 0xb, 0x2, 0x7, 0xd };

/* Poll the host diagnostic register until (reg & bit) == want, bounded
 * (an all-ones read never matches: the chip is still off the bus). */
static bool mfi_diag_wait(volatile void *regs, uint32_t diag_reg, uint32_t bit, bool want, uint64_t timeout_ns)
{
    return hba_poll_reg(regs, diag_reg, bit, want ? bit : 0, timeout_ns, 10 * NS_PER_MS, false, NULL);
}

bool mfi_adapter_reset(volatile void *regs, const char *where, uint32_t seq_reg, uint32_t diag_reg,
                       const uint32_t *keys, size_t nkeys)
{
    uint64_t t0 = plat_now_ns();
    uint32_t diag;

    for (size_t i = 0; i < nkeys; i++)
        mmio_write32(regs, seq_reg, keys[i]);
    if (!mfi_diag_wait(regs, diag_reg, MFI_DIAG_WRITE_ENABLE, true, 10 * NS_PER_S)) {
        plat_diag(where, "adapter reset: host diagnostic register not unlocked within 10 s (0x%08x)",
                  mmio_read32(regs, diag_reg));
        return false;
    }
    diag = mmio_read32(regs, diag_reg);
    mmio_write32(regs, diag_reg, diag | MFI_DIAG_RESET_ADAPTER);
    plat_delay_ns(100 * NS_PER_MS);
    if (!mfi_diag_wait(regs, diag_reg, MFI_DIAG_RESET_ADAPTER, false, 100 * NS_PER_S)) {
        plat_diag(where, "adapter reset: RESET_ADAPTER still set after 100 s (0x%08x)", mmio_read32(regs, diag_reg));
        return false;
    }
    if (!mfi_wait_not_operational(regs, where))
        return false;
    plat_diag(where, "adapter reset done in %llu ms (OSP0 0x%08x)",
              (unsigned long long)((plat_now_ns() - t0) / NS_PER_MS), mmio_read32(regs, MFI_REG_OSP0));
    return true;
}
