/* The firmware SCSI path on UEFI: EFI_EXT_SCSI_PASS_THRU_PROTOCOL (UEFI
 * 2.10 section 15.7) targets as struct bm_disk, identified and driven with
 * the shared SCSI layer. See scsi_passthru.h. */
#include <efi.h>
#include <efilib.h>

#include "scsi.h"
#include "scsi_health.h"
#include "../../efi/platform_uefi.h"
#include "scsi_passthru.h"
#include "../pci.h"
#include "../pci_regs.h"


/* ---- The protocol (GNU-EFI does not define it) ------------------------------------------ */

#define PT_GUID { 0x143b7632, 0xb81b, 0x4cb7, { 0xab, 0xd3, 0xb6, 0x25, 0xa5, 0xb9, 0xbf, 0xfe } }
#define PT_TARGET_BYTES 16
#define PT_ATTR_PHYSICAL 0x0001
#define PT_ATTR_LOGICAL 0x0002
#define PT_ATTR_NONBLOCKIO 0x0004
#define PT_DIR_READ 0
#define PT_DIR_WRITE 1

/* HostAdapterStatus values. */
#define PT_HA_OK 0x00
#define PT_HA_TIMEOUT_COMMAND 0x09
#define PT_HA_TIMEOUT 0x0b
#define PT_HA_MESSAGE_REJECT 0x0d
#define PT_HA_BUS_RESET 0x0e
#define PT_HA_PARITY_ERROR 0x0f
#define PT_HA_REQUEST_SENSE_FAILED 0x10
#define PT_HA_SELECTION_TIMEOUT 0x11
#define PT_HA_DATA_OVERRUN_UNDERRUN 0x12
#define PT_HA_BUS_FREE 0x13
#define PT_HA_PHASE_ERROR 0x14

typedef struct {
    UINT32 AdapterId;
    UINT32 Attributes;
    UINT32 IoAlign;
} PT_MODE;

typedef struct {
    UINT64 Timeout;            /* 100 ns units, 0 = wait forever */
    VOID *InDataBuffer;
    VOID *OutDataBuffer;
    VOID *SenseData;
    VOID *Cdb;
    UINT32 InTransferLength;
    UINT32 OutTransferLength;
    UINT8 CdbLength;
    UINT8 DataDirection;
    UINT8 HostAdapterStatus;
    UINT8 TargetStatus;
    UINT8 SenseDataLength;
} PT_PACKET;

typedef struct pt_protocol PT_PROTOCOL;
struct pt_protocol {
    PT_MODE *Mode;
    EFI_STATUS(EFIAPI *PassThru)(PT_PROTOCOL *This, UINT8 *Target, UINT64 Lun, PT_PACKET *Packet, EFI_EVENT Event);
    EFI_STATUS(EFIAPI *GetNextTargetLun)(PT_PROTOCOL *This, UINT8 **Target, UINT64 *Lun);
    EFI_STATUS(EFIAPI *BuildDevicePath)(PT_PROTOCOL *This, UINT8 *Target, UINT64 Lun, EFI_DEVICE_PATH **Path);
    EFI_STATUS(EFIAPI *GetTargetLun)(PT_PROTOCOL *This, EFI_DEVICE_PATH *Path, UINT8 **Target, UINT64 *Lun);
    EFI_STATUS(EFIAPI *ResetChannel)(PT_PROTOCOL *This);
    EFI_STATUS(EFIAPI *ResetTargetLun)(PT_PROTOCOL *This, UINT8 *Target, UINT64 Lun);
    EFI_STATUS(EFIAPI *GetNextTarget)(PT_PROTOCOL *This, UINT8 **Target);
};

/* ---- State ------------------------------------------------------------------------------------- */

#define PT_MAX_DISKS 64
#define PT_MAX_TARGETS 1024           /* bound on GetNextTarget walks */
#define PT_MAX_LUNS_PER_CTRL 4096     /* bound on GetNextTargetLun walks */
#define PT_MAX_TRANSFER_BYTES (1u << 20)

/* Per-command memory the firmware may require aligned (IoAlign): one page
 * holding the packet's CDB and sense buffer. */
struct pt_dma {
    uint8_t cdb[16];
    uint8_t pad[48];
    uint8_t sense[SCSI_SENSE_MAX];
};

struct pt_disk {
    struct bm_disk d;
    PT_PROTOCOL *pt;
    bool nonblocking;
    uint8_t target[PT_TARGET_BYTES];
    uint64_t lun;
    struct pt_dma *dma;          /* page-aligned */
    PT_PACKET pkt;
    EFI_EVENT event;
    bool sat;                    /* an ATA disk behind a SATL (scsi_disk_info.sat) */
    uint32_t bytes;              /* the part in flight */
    enum bm_io_op op;            /* and its direction */
    /* The one request in flight (or finished and not yet reaped), run as
     * parts one command at a time (scsi_passthru.c). */
    struct scsi_pt_io io;
};

static struct pt_disk *pt_disks[PT_MAX_DISKS];
static unsigned pt_count;

/* ---- Running one packet ------------------------------------------------------------------------ */

/* Text for the packet's HostAdapterStatus. */
static const char *pt_host_status_name(uint8_t s)
{
    switch (s) {
    case PT_HA_TIMEOUT_COMMAND: return "command timeout";
    case PT_HA_TIMEOUT: return "timeout";
    case PT_HA_MESSAGE_REJECT: return "message reject";
    case PT_HA_BUS_RESET: return "bus reset";
    case PT_HA_PARITY_ERROR: return "parity error";
    case PT_HA_REQUEST_SENSE_FAILED: return "request sense failed";
    case PT_HA_SELECTION_TIMEOUT: return "selection timeout";
    case PT_HA_DATA_OVERRUN_UNDERRUN: return "data overrun/underrun";
    case PT_HA_BUS_FREE: return "unexpected bus free";
    case PT_HA_PHASE_ERROR: return "phase error";
    default: return "adapter error";
    }
}

/* Fill the packet for one CDB. */
static void pt_fill_packet(struct pt_disk *p, const uint8_t *cdb, uint8_t cdb_len, enum scsi_dir dir, void *buf,
                           uint32_t len, uint64_t timeout_ns)
{
    PT_PACKET *k = &p->pkt;

    memset(k, 0, sizeof(*k));
    memcpy(p->dma->cdb, cdb, cdb_len);
    memset(p->dma->sense, 0, sizeof(p->dma->sense));
    k->Timeout = timeout_ns / 100;
    k->Cdb = p->dma->cdb;
    k->CdbLength = cdb_len;
    k->SenseData = p->dma->sense;
    k->SenseDataLength = SCSI_SENSE_MAX;
    if (dir == SCSI_DIR_OUT) {
        k->OutDataBuffer = buf;
        k->OutTransferLength = len;
        k->DataDirection = PT_DIR_WRITE;
    } else {
        k->InDataBuffer = len ? buf : NULL;
        k->InTransferLength = len;
        k->DataDirection = PT_DIR_READ;
    }
}

/* What a finished packet says, as the SCSI layer's transport result:
 * BM_OK once the target returned a status (stored with its sense in cmd),
 * else a negative error with a reason. efi is the PassThru return value
 * (EFI_SUCCESS for a non-blocking request that completed). */
static int pt_packet_result(struct pt_disk *p, EFI_STATUS efi, struct scsi_cmd *cmd, char *detail, size_t len)
{
    PT_PACKET *k = &p->pkt;
    uint32_t moved = cmd->dir == SCSI_DIR_OUT ? k->OutTransferLength : k->InTransferLength;

    /* Checked before the EFI status: firmware (OVMF's virtio-scsi) returns
     * EFI_TIMEOUT for a target that is not there. */
    if (k->HostAdapterStatus == PT_HA_SELECTION_TIMEOUT) {
        snprintf(detail, len, "no device (selection timeout)");
        return BM_ENODEV;
    }
    if (efi == EFI_BAD_BUFFER_SIZE) {
        snprintf(detail, len, "firmware takes at most %u bytes per command", moved);
        return BM_EINVAL;
    }
    if (efi == EFI_NOT_READY) {
        snprintf(detail, len, "firmware queue full");
        return BM_EBUSY;
    }
    if (efi == EFI_TIMEOUT) {
        snprintf(detail, len, "firmware timed out the command");
        return BM_ETIMEDOUT;
    }
    if (efi == EFI_INVALID_PARAMETER || efi == EFI_UNSUPPORTED) {
        snprintf(detail, len, "firmware refused the command (EFI status 0x%llx)", (unsigned long long)efi);
        return efi == EFI_UNSUPPORTED ? BM_ENOTSUP : BM_EINVAL;
    }
    /* A target status with its sense data: EFI_SUCCESS, or
     * EFI_DEVICE_ERROR with a CHECK CONDITION, depending on the firmware. */
    if (k->HostAdapterStatus == PT_HA_OK || k->HostAdapterStatus == PT_HA_DATA_OVERRUN_UNDERRUN ||
        k->TargetStatus != SCSI_STATUS_GOOD) {
        if (efi != EFI_SUCCESS && efi != EFI_DEVICE_ERROR) {
            snprintf(detail, len, "EFI status 0x%llx", (unsigned long long)efi);
            return BM_EIO;
        }
        if (efi == EFI_DEVICE_ERROR && k->TargetStatus == SCSI_STATUS_GOOD) {
            snprintf(detail, len, "device error, host adapter status 0x%02x %s", k->HostAdapterStatus,
                     pt_host_status_name(k->HostAdapterStatus));
            return BM_EIO;
        }
        cmd->status = k->TargetStatus;
        cmd->resid = cmd->len > moved ? cmd->len - moved : 0;
        cmd->sense_len = MIN((uint32_t)k->SenseDataLength, (uint32_t)SCSI_SENSE_MAX);
        memcpy(cmd->sense, p->dma->sense, cmd->sense_len);
        return BM_OK;
    }
    snprintf(detail, len, "host adapter status 0x%02x %s", k->HostAdapterStatus,
             pt_host_status_name(k->HostAdapterStatus));
    return BM_EIO;
}

/* The SCSI layer's transport: one blocking PassThru call. */
static int pt_exec(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len)
{
    struct pt_disk *p = ctx;
    EFI_STATUS efi;
    pt_fill_packet(p, cmd->cdb, cmd->cdb_len, cmd->dir, cmd->buf, cmd->len, cmd->timeout_ns);
    int rc;

    efi = uefi_call_wrapper(p->pt->PassThru, 5, p->pt, p->target, p->lun, &p->pkt, NULL);
    rc = pt_packet_result(p, efi, cmd, detail, detail_len);
    /* UEFI 2.10 15.7: a valid but unconnected target/LUN answers
     * EFI_TIMEOUT (OVMF's virtio-scsi does exactly that). */
    if (rc == BM_ETIMEDOUT && cmd->cdb[0] == SCSI_OP_INQUIRY) {
        snprintf(detail, detail_len, "no device");
        return BM_ENODEV;
    }
    return rc;
}

/* ---- Disk operations --------------------------------------------------------------------------------- */

/* What a finished I/O packet says: BM_OK, or an error with detail. */
static int pt_finish(struct pt_disk *p, EFI_STATUS efi, enum bm_io_op op, char *detail, size_t len)
{
    struct scsi_cmd c;
    int rc;

    memset(&c, 0, sizeof(c));
    c.dir = op == BM_IO_WRITE ? SCSI_DIR_OUT : SCSI_DIR_IN;
    c.len = p->bytes;
    detail[0] = '\0';
    rc = pt_packet_result(p, efi, &c, detail, len);
    if (rc == BM_OK && c.status != SCSI_STATUS_GOOD) {
        scsi_describe(c.status, c.sense, c.sense_len, detail, len);
        rc = BM_EIO;
    } else if (rc == BM_OK && c.resid) {
        snprintf(detail, len, "short transfer: %u of %u bytes", p->bytes - c.resid, p->bytes);
        rc = BM_EIO;
    }
    return rc;
}

/* The request machine's firmware call: one part through PassThru, with
 * the disk's event when the firmware runs requests non-blocking. */
static enum scsi_pt_fire pt_fire(void *ctx, enum bm_io_op op, uint64_t lba, uint32_t blocks, void *buf,
                                 uint32_t bytes, int *status, char *detail, size_t len)
{
    struct pt_disk *p = ctx;
    uint8_t cdb[16], cdb_len;
    EFI_EVENT ev = p->nonblocking ? p->event : NULL;
    EFI_STATUS efi;

    cdb_len = (uint8_t)scsi_build_rw(cdb, op, p->d.blocks, lba, blocks);
    p->bytes = bytes;
    p->op = op;
    pt_fill_packet(p, cdb, cdb_len, op == BM_IO_WRITE ? SCSI_DIR_OUT : SCSI_DIR_IN, buf, bytes, bm_io_timeout_ns());
    efi = uefi_call_wrapper(p->pt->PassThru, 5, p->pt, p->target, p->lun, &p->pkt, ev);
    if (efi == EFI_NOT_READY)
        return SCSI_PT_NOT_READY;
    if (ev && efi == EFI_SUCCESS)
        return SCSI_PT_TAKEN;
    *status = pt_finish(p, efi, op, detail, len);
    return SCSI_PT_ENDED;
}

/* Has the part the firmware took ended? Its event says. */
static bool pt_ended(void *ctx, int *status, char *detail, size_t len)
{
    struct pt_disk *p = ctx;

    if (uefi_call_wrapper(bm_st->BootServices->CheckEvent, 1, p->event) != EFI_SUCCESS)
        return false;
    *status = pt_finish(p, EFI_SUCCESS, p->op, detail, len);
    return true;
}

static const struct scsi_pt_fw pt_fw = { pt_fire, pt_ended };

/* Start one read or write; at most one request per disk is in flight. */
static int pt_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                     uint32_t blocks, void *buf)
{
    struct pt_disk *p = d->priv;

    if (queue != 0 || tag >= d->max_qd || !blocks || !buf || lba >= d->blocks || blocks > d->blocks - lba ||
        (uint64_t)blocks * d->lba_bytes > d->max_transfer_bytes)
        return BM_EINVAL;
    return scsi_pt_io_submit(&p->io, tag, op, lba, blocks, buf);
}

/* Collect the request (scsi_pt_io_poll). */
static int pt_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct pt_disk *p = d->priv;

    if (queue != 0 || max <= 0)
        return 0;
    return scsi_pt_io_poll(&p->io, out);
}

/* What the driver is doing about an overdue request (the engine's stall record). */
static void pt_recovery(struct bm_disk *d, char *out, size_t len)
{
    struct pt_disk *p = d->priv;

    scsi_pt_io_recovery(&p->io, out, len);
}

/* Drive health through the same PassThru (scsi_read_health: LOG SENSE,
 * or SMART through SAT), between runs with no command in flight. */
static int pt_health(struct bm_disk *d, struct bm_health *out)
{
    struct pt_disk *p = d->priv;
    struct scsi_transport tr = { pt_exec, p, d->id };
    char err[160];
    int rc;

    if (p->io.busy || p->io.stuck)
        return BM_EBUSY;
    rc = scsi_read_health(&tr, p->sat, out, err, sizeof(err));
    if (rc != BM_OK)
        plat_diag(d->pci[0] ? d->pci : "firmware", "%s: health not read: %s", d->id, err);
    return rc;
}

static const struct bm_disk_ops pt_ops = {
    .submit = pt_submit,
    .poll = pt_poll,
    .health = pt_health,
    .recovery = pt_recovery,
};

/* ---- Discovery ------------------------------------------------------------------------------------------ */

/* The PCI function behind a handle's device path, if any. */
static bool pt_pci_location(EFI_HANDLE h, struct pci_addr *a)
{
    EFI_GUID dpg = DEVICE_PATH_PROTOCOL, pcig = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_DEVICE_PATH *dp = NULL, *rest;
    EFI_HANDLE pci_h;
    EFI_PCI_IO *io;
    UINTN seg, bus, dev, fn;

    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &dpg, (void **)&dp) != EFI_SUCCESS || !dp)
        return false;
    rest = dp;
    if (uefi_call_wrapper(bm_st->BootServices->LocateDevicePath, 3, &pcig, &rest, &pci_h) != EFI_SUCCESS ||
        uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, pci_h, &pcig, (void **)&io) != EFI_SUCCESS ||
        uefi_call_wrapper(io->GetLocation, 5, io, &seg, &bus, &dev, &fn) != EFI_SUCCESS)
        return false;
    *a = (struct pci_addr){ (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
    return true;
}

/* Port and LUN as the firmware's device path names them (a SCSI node:
 * UEFI 2.10 section 10.3.4.2, Pun and Lun as 16-bit values), the way the
 * boot location describes the boot disk. */
static void pt_port_lun(struct pt_disk *p)
{
    EFI_DEVICE_PATH *node = NULL;

    p->d.port = p->target[0];
    p->d.lun = (uint32_t)p->lun;
    if (uefi_call_wrapper(p->pt->BuildDevicePath, 4, p->pt, p->target, p->lun, &node) != EFI_SUCCESS || !node)
        return;
    if (DevicePathType(node) == MESSAGING_DEVICE_PATH && DevicePathSubType(node) == 0x02 &&
        DevicePathNodeLength(node) >= 8) {
        const uint8_t *b = (const uint8_t *)node;
        p->d.port = (uint32_t)(b[4] | (b[5] << 8));
        p->d.lun = (uint32_t)(b[6] | (b[7] << 8));
    }
    uefi_call_wrapper(bm_st->BootServices->FreePool, 1, node);
}

/* The largest transfer the firmware takes: a read at LBA 0 of our
 * maximum; a firmware with a lower limit answers EFI_BAD_BUFFER_SIZE with
 * what it can do. */
static uint32_t pt_max_transfer(struct pt_disk *p, uint32_t want)
{
    uint32_t blocks;
    uint8_t cdb[16], cdb_len;
    void *buf;
    EFI_STATUS efi;

    if ((uint64_t)want > p->d.blocks * p->d.lba_bytes)
        want = (uint32_t)(p->d.blocks * p->d.lba_bytes);
    blocks = want / p->d.lba_bytes;
    buf = plat_alloc_pages(want, true);
    if (!buf || !blocks)
        return want;
    cdb_len = (uint8_t)scsi_build_rw(cdb, BM_IO_READ, p->d.blocks, 0, blocks);
    pt_fill_packet(p, cdb, cdb_len, SCSI_DIR_IN, buf, want, bm_io_timeout_ns());
    efi = uefi_call_wrapper(p->pt->PassThru, 5, p->pt, p->target, p->lun, &p->pkt, NULL);
    plat_free_pages(buf, want);
    if (efi == EFI_BAD_BUFFER_SIZE && p->pkt.InTransferLength >= p->d.lba_bytes)
        return p->pkt.InTransferLength / p->d.lba_bytes * p->d.lba_bytes;
    return want;
}

/* Close a disk's event and free its memory. */
static void pt_free(struct pt_disk *p)
{
    if (p->event)
        uefi_call_wrapper(bm_st->BootServices->CloseEvent, 1, p->event);
    plat_free_pages(p->dma, sizeof(struct pt_dma));
    plat_free(p);
}

/* Identify one target/LUN; a disk, or NULL (logged) when there is none. */
static struct pt_disk *pt_probe_lun(PT_PROTOCOL *pt, bool has_pci, struct pci_addr pci, const uint8_t *target,
                                    uint64_t lun)
{
    struct pt_disk *p = plat_alloc(sizeof(*p));
    struct scsi_disk_info info;
    char name[64], err[96], bdf[16] = "firmware", at[40];
    struct scsi_transport tr = { pt_exec, NULL, name };
    int rc;

    if (!p)
        return NULL;
    p->dma = plat_alloc_pages(sizeof(struct pt_dma), true);
    if (!p->dma) {
        plat_free(p);
        return NULL;
    }
    p->pt = pt;
    memcpy(p->target, target, PT_TARGET_BYTES);
    p->lun = lun;
    tr.ctx = p;
    if (has_pci)
        pci_addr_str(pci, bdf, sizeof(bdf));
    snprintf(name, sizeof(name), "%s target %u lun %llu", bdf, target[0], (unsigned long long)lun);
    /* Diagnostics name the controller as where, the LUN in the message. */
    snprintf(at, sizeof(at), "firmware SCSI pass-thru target %u lun %llu", target[0], (unsigned long long)lun);
    rc = scsi_identify(&tr, &info, err, sizeof(err));
    if (rc != BM_OK) {
        if (rc != BM_ENODEV)
            plat_diag(bdf, "%s: skipped: %s", at, err);
        pt_free(p);
        return NULL;
    }
    if (info.cap.block_bytes != 512 && info.cap.block_bytes != 4096) {
        plat_diag(bdf, "%s: skipped: %u-byte blocks", at, info.cap.block_bytes);
        pt_free(p);
        return NULL;
    }
    bm_strlcpy(p->d.driver, "scsi_passthru", sizeof(p->d.driver));
    p->d.path = BM_PATH_FIRMWARE;
    scsi_fill_disk(&p->d, &info);
    p->sat = info.sat;
    p->d.has_pci = has_pci;
    if (has_pci) {
        p->d.pci_addr = pci;
        pci_addr_str(pci, p->d.pci, sizeof(p->d.pci));
    }
    pt_port_lun(p);
    p->d.nqueues = 1;
    p->d.max_qd = 1;
    p->d.ops = &pt_ops;
    p->d.priv = p;
    p->nonblocking = (pt->Mode->Attributes & PT_ATTR_NONBLOCKIO) != 0;
    if (p->nonblocking &&
        uefi_call_wrapper(bm_st->BootServices->CreateEvent, 5, 0, 0, NULL, NULL, &p->event) != EFI_SUCCESS) {
        p->event = NULL;
        p->nonblocking = false;
    }
    /* The LUN's own limit (VPD B0h) first: a probe read larger than it
     * would only earn ILLEGAL REQUEST. */
    p->io.part_bytes = pt_max_transfer(p, scsi_max_transfer(&info, PT_MAX_TRANSFER_BYTES));
    p->io.lba_bytes = p->d.lba_bytes;
    p->io.fw = &pt_fw;
    p->io.ctx = p;
    /* Requests up to 1 MiB all the same, as parts one after another
     * (scsi_passthru.h), so SEQ1M runs on a LUN that takes less. */
    p->d.max_transfer_bytes = scsi_pt_request_bytes(p->io.part_bytes, p->d.lba_bytes, PT_MAX_TRANSFER_BYTES);
    p->d.opt_transfer_bytes = scsi_opt_transfer(&info, p->io.part_bytes);
    plat_diag(bdf, "%s: \"%s\" serial \"%s\", %llu x %u-byte blocks, %s, %u KiB per command, requests of %u KiB",
              at, p->d.model, p->d.serial, (unsigned long long)p->d.blocks, p->d.lba_bytes,
              p->nonblocking ? "non-blocking" : "blocking", p->io.part_bytes / 1024, p->d.max_transfer_bytes / 1024);
    return p;
}

/* Add one probed LUN to the list (or drop it); true when added. */
static bool pt_add(struct bm_disk_list *l, struct pt_disk *p, scsi_passthru_keep_fn keep, void *ctx)
{
    snprintf(p->d.id, sizeof(p->d.id), "scsi%u", pt_count);
    if ((keep && !keep(&p->d, ctx)) || disk_list_add(l, &p->d) != BM_OK) {
        pt_free(p);
        return false;
    }
    pt_disks[pt_count++] = p;
    return true;
}

/* Every disk behind one pass-thru instance. Targets come from
 * GetNextTarget; on each, LUN 0 answers INQUIRY or the target is empty,
 * and REPORT LUNS names the others. Walking GetNextTargetLun instead
 * would cost a command per possible pair (OVMF's virtio-scsi lists 32
 * targets x 8 LUNs), so it is only the fallback for firmware without
 * GetNextTarget. */
static int pt_scan_instance(struct bm_disk_list *l, PT_PROTOCOL *pt, bool has_pci, struct pci_addr pci,
                            scsi_passthru_keep_fn keep, void *ctx)
{
    uint8_t tbuf[PT_TARGET_BYTES], *tp;
    uint64_t lun = 0;
    int added = 0, n;

    memset(tbuf, 0xff, sizeof(tbuf)); /* all 0xff asks for the first one */
    for (n = 0; n < PT_MAX_TARGETS && pt_count < PT_MAX_DISKS; n++) {
        struct pt_disk *p;
        uint32_t luns[16];
        int nluns;

        tp = tbuf;
        if (uefi_call_wrapper(pt->GetNextTarget, 2, pt, &tp) != EFI_SUCCESS)
            break;
        if (tp != tbuf)
            memcpy(tbuf, tp, sizeof(tbuf));
        p = pt_probe_lun(pt, has_pci, pci, tbuf, 0);
        if (!p)
            continue;
        {
            struct scsi_transport tr = { pt_exec, p, "" };
            nluns = scsi_report_luns(&tr, luns, (int)ARRAY_SIZE(luns));
        }
        added += pt_add(l, p, keep, ctx);
        for (int i = 0; i < nluns && pt_count < PT_MAX_DISKS; i++) {
            if (!luns[i])
                continue;
            p = pt_probe_lun(pt, has_pci, pci, tbuf, luns[i]);
            if (p)
                added += pt_add(l, p, keep, ctx);
        }
    }
    if (n > 0)
        return added;
    memset(tbuf, 0xff, sizeof(tbuf));
    for (n = 0; n < PT_MAX_LUNS_PER_CTRL && pt_count < PT_MAX_DISKS; n++) {
        struct pt_disk *p;

        tp = tbuf;
        if (uefi_call_wrapper(pt->GetNextTargetLun, 3, pt, &tp, &lun) != EFI_SUCCESS)
            break;
        if (tp != tbuf)
            memcpy(tbuf, tp, sizeof(tbuf));
        p = pt_probe_lun(pt, has_pci, pci, tbuf, lun);
        if (p)
            added += pt_add(l, p, keep, ctx);
    }
    return added;
}

/* Is this PCI function one a native driver holds? */
static bool pt_pci_taken(struct pci_addr a, const struct pci_addr *taken, unsigned ntaken)
{
    for (unsigned k = 0; k < ntaken; k++)
        if (taken[k].seg == a.seg && taken[k].bus == a.bus && taken[k].dev == a.dev && taken[k].fn == a.fn)
            return true;
    return false;
}

/* Every logical pass-thru instance's disks (see scsi_passthru.h). */
int scsi_passthru_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken,
                           scsi_passthru_keep_fn keep, void *ctx)
{
    EFI_GUID ptg = PT_GUID;
    EFI_HANDLE *handles = NULL;
    UINTN count = 0;
    int added = 0;

    uefi_connect_storage_controllers(taken, ntaken, false);
    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &ptg, NULL, &count, &handles) !=
        EFI_SUCCESS)
        return 0;
    for (UINTN i = 0; i < count && pt_count < PT_MAX_DISKS; i++) {
        PT_PROTOCOL *pt;
        struct pci_addr pci = { 0 };
        bool has_pci;

        if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, handles[i], &ptg, (void **)&pt) != EFI_SUCCESS ||
            !pt->Mode)
            continue;
        /* A RAID controller's physical-only instance reaches the member
         * disks behind its arrays: never touch those (UEFI 2.10 15.7). */
        if (!(pt->Mode->Attributes & PT_ATTR_LOGICAL))
            continue;
        has_pci = pt_pci_location(handles[i], &pci);
        if (has_pci && pt_pci_taken(pci, taken, ntaken))
            continue;
        added += pt_scan_instance(l, pt, has_pci, pci, keep, ctx);
    }
    plat_free(handles);
    return added;
}

/* Free every pass-thru disk not still busy in the firmware. */
void scsi_passthru_release_all(void)
{
    for (unsigned i = 0; i < pt_count; i++) {
        struct pt_disk *p = pt_disks[i];
        /* A request the firmware still holds keeps its memory. */
        if (scsi_pt_io_fw_holds(&p->io))
            continue;
        pt_free(p);
    }
    pt_count = 0;
}
