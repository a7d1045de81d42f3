/* The firmware path on UEFI: EFI Block I/O (2) disks as struct bm_disk.
 *
 * Block I/O 2 (UEFI 2.10 section 13.10) takes a token whose event the
 * firmware signals when the request is done; we give every tag its own
 * token and event, so up to max_qd requests are in the firmware's hands at
 * once. The events carry a notify function that only sets the command's
 * done flag; poll() collects flagged commands. Firmware drivers often reap
 * their own completions from a periodic timer event (EDK II asks for 1 ms;
 * under OVMF each request took 10-20 ms), so
 * latencies here are the firmware's, not the drive's: that is the point of
 * this path as a baseline. A request submitted while none is in flight
 * runs blocking instead (the firmware then polls the device itself, with
 * no timer tick in the way), so queue depth 1 shows the best the firmware
 * does at that depth. Without Block I/O 2, plain Block I/O (section 13.9)
 * runs one blocking request per submit, and the disk has max_qd 1. */
#include <efi.h>
#include <efilib.h>

#include "fwblk.h"
#include "../../efi/platform_uefi.h"
#include "../pci.h"
#include "../pci_regs.h"



/* ---- Protocols GNU-EFI does not define ----------------------------------------- */

/* EFI_DISK_INFO_PROTOCOL (PI 1.8 volume 5 section 12.8). */
#define FW_DISK_INFO_GUID { 0xd432a67f, 0x14dc, 0x484b, { 0xb3, 0xbb, 0x3f, 0x02, 0x91, 0x84, 0x93, 0x27 } }
#define FW_DISK_INFO_IDE_GUID { 0x5e948fe3, 0x26d3, 0x42b5, { 0xaf, 0x17, 0x61, 0x02, 0x87, 0x18, 0x8d, 0xec } }
#define FW_DISK_INFO_AHCI_GUID { 0x9e498932, 0x4abc, 0x45af, { 0xa3, 0x4d, 0x02, 0x47, 0x78, 0x7b, 0xe7, 0xc6 } }
#define FW_DISK_INFO_SCSI_GUID { 0x08f74baa, 0xea36, 0x41d9, { 0x95, 0x21, 0x21, 0xa7, 0x0f, 0x87, 0x80, 0xbc } }
#define FW_DISK_INFO_USB_GUID { 0xcb871572, 0xc11a, 0x47b5, { 0xb4, 0x92, 0x67, 0x5e, 0xaf, 0xa7, 0x77, 0x27 } }

typedef struct fw_disk_info FW_DISK_INFO;
struct fw_disk_info {
    EFI_GUID Interface;
    EFI_STATUS(EFIAPI *Inquiry)(FW_DISK_INFO *This, VOID *Data, UINT32 *Size);
    EFI_STATUS(EFIAPI *Identify)(FW_DISK_INFO *This, VOID *Data, UINT32 *Size);
    EFI_STATUS(EFIAPI *SenseData)(FW_DISK_INFO *This, VOID *Data, UINT32 *Size, UINT8 *Number);
    EFI_STATUS(EFIAPI *WhichIde)(FW_DISK_INFO *This, UINT32 *Channel, UINT32 *Device);
};

/* EFI_NVM_EXPRESS_PASS_THRU_PROTOCOL (UEFI 2.10 section 13.15). */
#define FW_NVME_PASS_THRU_GUID { 0x52c78312, 0x8edc, 0x4233, { 0x98, 0xf2, 0x1a, 0x1a, 0xa5, 0xe3, 0x88, 0xa5 } }
#define FW_NVME_CDW10_VALID 0x04
#define FW_NVME_ADMIN_QUEUE 0

typedef struct {
    UINT32 Cdw0;              /* opcode 7:0, fused operation 9:8 */
    UINT8 Flags;              /* which CDWs below are valid */
    UINT32 Nsid;
    UINT32 Cdw2, Cdw3, Cdw10, Cdw11, Cdw12, Cdw13, Cdw14, Cdw15;
} FW_NVME_COMMAND;

typedef struct {
    UINT32 DW0, DW1, DW2, DW3;
} FW_NVME_COMPLETION;

typedef struct {
    UINT64 CommandTimeout;    /* 100 ns units, 0 = forever */
    VOID *TransferBuffer;
    UINT32 TransferLength;
    VOID *MetadataBuffer;
    UINT32 MetadataLength;
    UINT8 QueueType;
    FW_NVME_COMMAND *NvmeCmd;
    FW_NVME_COMPLETION *NvmeCompletion;
} FW_NVME_PACKET;

typedef struct fw_nvme_pass_thru FW_NVME_PASS_THRU;
struct fw_nvme_pass_thru {
    VOID *Mode;
    EFI_STATUS(EFIAPI *PassThru)(FW_NVME_PASS_THRU *This, UINT32 Nsid, FW_NVME_PACKET *Packet, EFI_EVENT Event);
    /* GetNextNamespace, BuildDevicePath, GetNamespace: not used */
};

/* EFI_USB_IO_PROTOCOL (UEFI 2.10 section 17.2.4), up to the string call. */
#define FW_USB_IO_GUID { 0x2b2f68d6, 0x0cd2, 0x44cf, { 0x8e, 0x8b, 0xbb, 0xa2, 0x0b, 0x1b, 0x5b, 0x75 } }

typedef struct {
    UINT8 bLength, bDescriptorType;
    UINT16 bcdUSB;
    UINT8 bDeviceClass, bDeviceSubClass, bDeviceProtocol, bMaxPacketSize0;
    UINT16 idVendor, idProduct, bcdDevice;
    UINT8 iManufacturer, iProduct, iSerialNumber, bNumConfigurations;
} __attribute__((packed)) FW_USB_DEVICE_DESCRIPTOR; /* USB 2.0 table 9-8 */

typedef struct fw_usb_io FW_USB_IO;
struct fw_usb_io {
    VOID *ControlTransfer, *BulkTransfer, *AsyncInterruptTransfer, *SyncInterruptTransfer;
    VOID *IsochronousTransfer, *AsyncIsochronousTransfer;
    EFI_STATUS(EFIAPI *GetDeviceDescriptor)(FW_USB_IO *This, FW_USB_DEVICE_DESCRIPTOR *Desc);
    VOID *GetConfigDescriptor, *GetInterfaceDescriptor, *GetEndpointDescriptor;
    EFI_STATUS(EFIAPI *GetStringDescriptor)(FW_USB_IO *This, UINT16 LangId, UINT8 StringId, CHAR16 **String);
};

/* ---- Disk state ---------------------------------------------------------------- */

#define FW_MAX_DISKS BM_MAX_DISKS   /* past it the disk list is full anyway */
#define FW_ASYNC_MAX_QD 1024
#define FW_MAX_TRANSFER (64u << 20)   /* the firmware splits requests itself */
#define FW_LANG_EN_US 0x0409

enum fw_cmd_state { CMD_IDLE = 0, CMD_SUBMITTED, CMD_LOST };

struct fw_cmd {
    EFI_BLOCK_IO2_TOKEN token;  /* the firmware holds a pointer to it while in flight */
    EFI_EVENT event;            /* created on the tag's first use */
    volatile bool done;         /* set by the event's notify function */
    bool blocking;              /* ran to its end inside submit */
    enum fw_cmd_state state;
    EFI_STATUS status;          /* for requests that ended at submit */
    uint64_t deadline_ns;
};

struct fw_disk {
    struct bm_disk disk;
    EFI_HANDLE handle;
    EFI_BLOCK_IO *bio;
    EFI_BLOCK_IO2_PROTOCOL *bio2;   /* NULL: one blocking request at a time */
    UINT32 media_id;
    bool read_only;
    bool written;
    bool dead;                      /* a request was lost: no more I/O */
    int boot;                       /* 1, 0, or -1 unknown */
    bool results;                   /* holds the results volume (device path prefix) */
    char device_path[160];
    struct fw_cmd *cmds;            /* max_qd of them */
    uint32_t *inflight;             /* tags in flight, unordered */
    uint32_t ninflight;
};

static struct fw_disk *fw_disks[FW_MAX_DISKS];
static unsigned fw_count;

static const struct bm_disk_ops fw_ops;

static struct fw_disk *fw_of(const struct bm_disk *d)
{
    return d && d->ops == &fw_ops ? d->priv : NULL;
}

/* The name of an EFI status, for error details. */
static const char *efi_status_name(EFI_STATUS st)
{
    switch (st) {
    case EFI_SUCCESS: return "EFI_SUCCESS";
    case EFI_DEVICE_ERROR: return "EFI_DEVICE_ERROR";
    case EFI_MEDIA_CHANGED: return "EFI_MEDIA_CHANGED";
    case EFI_NO_MEDIA: return "EFI_NO_MEDIA";
    case EFI_WRITE_PROTECTED: return "EFI_WRITE_PROTECTED";
    case EFI_INVALID_PARAMETER: return "EFI_INVALID_PARAMETER";
    case EFI_BAD_BUFFER_SIZE: return "EFI_BAD_BUFFER_SIZE";
    case EFI_OUT_OF_RESOURCES: return "EFI_OUT_OF_RESOURCES";
    case EFI_NOT_READY: return "EFI_NOT_READY";
    case EFI_TIMEOUT: return "EFI_TIMEOUT";
    case EFI_UNSUPPORTED: return "EFI_UNSUPPORTED";
    case EFI_ABORTED: return "EFI_ABORTED";
    default: return "EFI error";
    }
}

/* The BM_E* code closest to an EFI status. */
static int efi_to_bm(EFI_STATUS st)
{
    switch (st) {
    case EFI_SUCCESS: return BM_OK;
    case EFI_TIMEOUT: return BM_ETIMEDOUT;
    case EFI_WRITE_PROTECTED: return BM_EPERM;
    case EFI_NO_MEDIA: return BM_ENODEV;
    case EFI_INVALID_PARAMETER:
    case EFI_BAD_BUFFER_SIZE: return BM_EINVAL;
    default: return BM_EIO;
    }
}

/* ---- I/O ------------------------------------------------------------------------- */

/* Notify function of a token's event (runs at TPL_CALLBACK, interrupting
 * our loop): only flag the command; poll() does the rest. */
static VOID EFIAPI fw_token_signalled(EFI_EVENT ev, VOID *ctx)
{
    struct fw_cmd *c = ctx;
    (void)ev;
    c->done = true;
}

/* Hand one request to the firmware (blocking when nothing else is in flight). */
static int fw_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba, uint32_t blocks,
                     void *buf)
{
    struct fw_disk *f = d->priv;
    struct fw_cmd *c;
    UINTN bytes = (UINTN)blocks * d->lba_bytes;
    EFI_STATUS st;

    if (queue != 0 || tag >= d->max_qd || !blocks || lba >= d->blocks || blocks > d->blocks - lba)
        return BM_EINVAL;
    if (f->dead)
        return BM_EIO;
    /* The engine never asks for this; a second lock on the door. */
    if (op == BM_IO_WRITE && (f->read_only || f->boot == 1 || f->results))
        return BM_EPERM;
    c = &f->cmds[tag];
    if (c->state != CMD_IDLE)
        return BM_EINVAL;
    c->done = false;
    c->blocking = false;
    c->status = EFI_SUCCESS;
    c->deadline_ns = plat_now_ns() + bm_io_timeout_ns();
    if (op == BM_IO_WRITE)
        f->written = true;

    if (f->bio2 && f->ninflight) {
        /* Out of events: wait for the ones in flight (once none is, the
         * request runs blocking below and needs none). */
        if (!c->event && uefi_call_wrapper(bm_st->BootServices->CreateEvent, 5, EVT_NOTIFY_SIGNAL, TPL_CALLBACK,
                                           fw_token_signalled, c, &c->event) != EFI_SUCCESS) {
            c->event = NULL;
            return BM_EBUSY;
        }
        c->token.Event = c->event;
        c->token.TransactionStatus = EFI_SUCCESS;
        c->state = CMD_SUBMITTED;
        f->inflight[f->ninflight++] = tag;
        if (op == BM_IO_READ)
            st = uefi_call_wrapper(f->bio2->ReadBlocksEx, 6, f->bio2, f->media_id, lba, &c->token, bytes, buf);
        else
            st = uefi_call_wrapper(f->bio2->WriteBlocksEx, 6, f->bio2, f->media_id, lba, &c->token, bytes, buf);
        if (st == EFI_SUCCESS)
            return BM_OK;
        /* Not queued (UEFI 2.10 section 13.10, ReadBlocksEx()/
         * WriteBlocksEx(): an error return means the request was not
         * accepted, and the event is not signalled for it). */
        f->ninflight--;
        c->state = CMD_IDLE;
        if ((st == EFI_OUT_OF_RESOURCES || st == EFI_NOT_READY) && f->ninflight)
            return BM_EBUSY;
        /* Report it as a completion, so the detail names the status. */
        c->status = st;
        c->done = true;
        c->state = CMD_SUBMITTED;
        f->inflight[f->ninflight++] = tag;
        return BM_OK;
    }

    /* Plain Block I/O, or nothing else in flight: the request runs to its
     * end here. */
    if (op == BM_IO_READ)
        st = uefi_call_wrapper(f->bio->ReadBlocks, 5, f->bio, f->media_id, lba, bytes, buf);
    else
        st = uefi_call_wrapper(f->bio->WriteBlocks, 5, f->bio, f->media_id, lba, bytes, buf);
    c->status = st;
    c->blocking = true;
    c->done = true;
    c->state = CMD_SUBMITTED;
    f->inflight[f->ninflight++] = tag;
    return BM_OK;
}

/* Collect requests the firmware finished, and time out the ones it never will. */
static int fw_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct fw_disk *f = d->priv;
    uint64_t now = 0;
    int n = 0;

    if (queue != 0)
        return 0;
    for (uint32_t i = 0; i < f->ninflight && n < max;) {
        uint32_t tag = f->inflight[i];
        struct fw_cmd *c = &f->cmds[tag];
        EFI_STATUS st;

        if (!c->done) {
            if (!now)
                now = plat_now_ns();
            if (now < c->deadline_ns) {
                i++;
                continue;
            }
            /* The firmware still owns the token and the buffer: the
             * command is lost for good, and so is the disk. */
            c->state = CMD_LOST;
            f->dead = true;
            out[n].tag = tag;
            out[n].status = BM_ETIMEDOUT;
            snprintf(out[n].detail, sizeof(out[n].detail), "no answer from the firmware in %u s",
                     (unsigned)(bm_io_timeout_ns() / 1000000000ull));
            n++;
            f->inflight[i] = f->inflight[--f->ninflight];
            continue;
        }
        st = !c->blocking && c->status == EFI_SUCCESS ? c->token.TransactionStatus : c->status;
        c->state = CMD_IDLE;
        out[n].tag = tag;
        out[n].status = efi_to_bm(st);
        if (st == EFI_SUCCESS)
            out[n].detail[0] = '\0';
        else
            snprintf(out[n].detail, sizeof(out[n].detail), "%s (0x%llx) from Block I/O%s", efi_status_name(st),
                     (unsigned long long)st, c->blocking ? "" : " 2");
        n++;
        f->inflight[i] = f->inflight[--f->ninflight];
    }
    return n;
}

static const struct bm_disk_ops fw_ops = { fw_submit, fw_poll, NULL };

/* ---- Identity -------------------------------------------------------------------- */

static bool guid_eq(const EFI_GUID *a, const EFI_GUID *b)
{
    return !memcmp(a, b, sizeof(*a));
}

/* An ATA string: bytes swapped within each 16-bit word (ATA8-ACS 3.4.9). */
static void ata_string(char *dst, size_t cap, const uint8_t *id, unsigned first_word, unsigned words)
{
    char tmp[96];
    size_t n = 0;

    for (unsigned w = 0; w < words && n + 2 < sizeof(tmp); w++) {
        tmp[n++] = (char)id[(first_word + w) * 2 + 1];
        tmp[n++] = (char)id[(first_word + w) * 2];
    }
    bm_copy_padded(dst, cap, tmp, n);
}

/* A firmware UCS-2 string as printable ASCII. */
static void ucs2_copy(char *dst, size_t cap, const CHAR16 *s)
{
    size_t n = 0;

    for (; s && *s && n + 1 < cap; s++)
        if (*s >= 0x20 && *s < 0x7f)
            dst[n++] = (char)*s;
    dst[n] = '\0';
    bm_trim(dst);
}

/* The nearest handle along a device path that carries a protocol. */
static EFI_HANDLE handle_along(EFI_DEVICE_PATH *dp, EFI_GUID *proto)
{
    EFI_DEVICE_PATH *rest = dp;
    EFI_HANDLE h = NULL;

    if (!dp || uefi_call_wrapper(bm_st->BootServices->LocateDevicePath, 3, proto, &rest, &h) != EFI_SUCCESS)
        return NULL;
    return h;
}

/* Model, serial and firmware from ATA IDENTIFY data (ACS-4 table 45:
 * serial words 10-19, firmware 23-26, model 27-46). */
static void identity_from_ata(struct bm_disk *d, FW_DISK_INFO *di)
{
    static uint8_t id[512];
    UINT32 size = sizeof(id);

    if (uefi_call_wrapper(di->Identify, 3, di, id, &size) != EFI_SUCCESS || size < 94)
        return;
    ata_string(d->serial, sizeof(d->serial), id, 10, 10);
    ata_string(d->firmware, sizeof(d->firmware), id, 23, 4);
    ata_string(d->model, sizeof(d->model), id, 27, 20);
}

/* Vendor, product and revision from standard INQUIRY data (SPC-4 6.6.2:
 * vendor bytes 8-15, product 16-31, revision 32-35). */
static void identity_from_inquiry(struct bm_disk *d, FW_DISK_INFO *di)
{
    static uint8_t inq[96];
    UINT32 size = sizeof(inq);
    char vendor[16], product[24];

    if (uefi_call_wrapper(di->Inquiry, 3, di, inq, &size) != EFI_SUCCESS || size < 36)
        return;
    bm_copy_padded(vendor, sizeof(vendor), inq + 8, 8);
    bm_copy_padded(product, sizeof(product), inq + 16, 16);
    snprintf(d->model, sizeof(d->model), "%s%s%s", vendor, vendor[0] ? " " : "", product);
    bm_copy_padded(d->firmware, sizeof(d->firmware), inq + 32, 4);
}

/* Identify Controller through the firmware's NVMe pass-thru (NVMe 1.4
 * figure 247: serial bytes 4-23, model 24-63, firmware revision 64-71). */
static void identity_from_nvme(struct bm_disk *d, EFI_DEVICE_PATH *dp)
{
    EFI_GUID g = FW_NVME_PASS_THRU_GUID;
    EFI_HANDLE h = handle_along(dp, &g);
    FW_NVME_PASS_THRU *pt;
    FW_NVME_COMMAND cmd;
    FW_NVME_COMPLETION cpl;
    FW_NVME_PACKET pkt;
    uint8_t *data;

    if (!h || uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &g, (void **)&pt) != EFI_SUCCESS)
        return;
    data = plat_alloc_pages(4096, true);
    if (!data)
        return;
    memset(&cmd, 0, sizeof(cmd));
    memset(&cpl, 0, sizeof(cpl));
    memset(&pkt, 0, sizeof(pkt));
    cmd.Cdw0 = 0x06;              /* Identify */
    cmd.Cdw10 = 1;                /* CNS 1: the controller */
    cmd.Flags = FW_NVME_CDW10_VALID;
    pkt.CommandTimeout = 50000000; /* 5 s */
    pkt.TransferBuffer = data;
    pkt.TransferLength = 4096;
    pkt.QueueType = FW_NVME_ADMIN_QUEUE;
    pkt.NvmeCmd = &cmd;
    pkt.NvmeCompletion = &cpl;
    if (uefi_call_wrapper(pt->PassThru, 4, pt, 0, &pkt, NULL) == EFI_SUCCESS) {
        bm_copy_padded(d->serial, sizeof(d->serial), data + 4, 20);
        bm_copy_padded(d->model, sizeof(d->model), data + 24, 40);
        bm_copy_padded(d->firmware, sizeof(d->firmware), data + 64, 8);
    }
    plat_free_pages(data, 4096);
}

/* The USB device's serial number string (and its product name when no
 * INQUIRY gave a model). */
static void identity_from_usb(struct bm_disk *d, EFI_DEVICE_PATH *dp)
{
    EFI_GUID g = FW_USB_IO_GUID;
    EFI_HANDLE h = handle_along(dp, &g);
    FW_USB_DEVICE_DESCRIPTOR desc;
    FW_USB_IO *usb;
    CHAR16 *s = NULL;

    if (!h || uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &g, (void **)&usb) != EFI_SUCCESS)
        return;
    if (uefi_call_wrapper(usb->GetDeviceDescriptor, 2, usb, &desc) != EFI_SUCCESS)
        return;
    if (desc.iSerialNumber &&
        uefi_call_wrapper(usb->GetStringDescriptor, 4, usb, FW_LANG_EN_US, desc.iSerialNumber, &s) == EFI_SUCCESS) {
        ucs2_copy(d->serial, sizeof(d->serial), s);
        FreePool(s);
    }
    s = NULL;
    if (!d->model[0] && desc.iProduct &&
        uefi_call_wrapper(usb->GetStringDescriptor, 4, usb, FW_LANG_EN_US, desc.iProduct, &s) == EFI_SUCCESS) {
        ucs2_copy(d->model, sizeof(d->model), s);
        FreePool(s);
    }
}

/* Bytes of a device path, without its end node. */
static UINTN path_bytes(EFI_DEVICE_PATH *dp)
{
    UINTN n = 0;

    for (EFI_DEVICE_PATH *p = dp; p && !IsDevicePathEnd(p); p = NextDevicePathNode(p)) {
        if (DevicePathNodeLength(p) < 4)
            return 0; /* malformed */
        n += DevicePathNodeLength(p);
    }
    return n;
}

/* Does the path hold a partition or El Torito node (a view into a disk,
 * not the disk)? UEFI 2.x 10.3.5.1/10.3.5.2: media path, subtypes 1 and 2. */
static bool path_has_partition_node(EFI_DEVICE_PATH *dp)
{
    for (EFI_DEVICE_PATH *p = dp; p && !IsDevicePathEnd(p); p = NextDevicePathNode(p)) {
        if (DevicePathNodeLength(p) < 4)
            return false;
        if (DevicePathType(p) == MEDIA_DEVICE_PATH &&
            (DevicePathSubType(p) == MEDIA_HARDDRIVE_DP || DevicePathSubType(p) == MEDIA_CDROM_DP))
            return true;
    }
    return false;
}

/* The device path of a handle, or NULL. */
static EFI_DEVICE_PATH *handle_device_path(EFI_HANDLE h)
{
    EFI_GUID dpg = DEVICE_PATH_PROTOCOL;
    EFI_DEVICE_PATH *dp;

    if (!h || uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &dpg, (void **)&dp) != EFI_SUCCESS)
        return NULL;
    return dp;
}

/* The device path of the handle the app was loaded from (a partition). */
static EFI_DEVICE_PATH *boot_device_path(void)
{
    EFI_GUID lip = LOADED_IMAGE_PROTOCOL;
    EFI_LOADED_IMAGE *li;

    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, bm_image_handle, &lip, (void **)&li) !=
        EFI_SUCCESS)
        return NULL;
    return handle_device_path(li->DeviceHandle);
}

/* Is the disk at dp the one under the volume at vol_dp (its path a
 * prefix of the volume's, or equal on a disk without partitions)? */
static bool path_holds(EFI_DEVICE_PATH *dp, EFI_DEVICE_PATH *vol_dp, UINTN vol_len)
{
    UINTN n = path_bytes(dp);
    return n && n <= vol_len && !memcmp(dp, vol_dp, n);
}

/* Where the disk sits: its controller's PCI location and the port, target
 * or namespace the messaging node after it names (UEFI 2.10 section
 * 10.3.4: SCSI 0x02, SATA 0x12, NVMe namespace 0x17). Returns which of
 * those named the place. */
static enum fwblk_at locate(struct bm_disk *d, EFI_DEVICE_PATH *dp)
{
    EFI_GUID pcig = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_DEVICE_PATH *rest = dp;
    EFI_HANDLE h;
    EFI_PCI_IO *io;
    UINTN seg, bus, dev, fn;

    if (!dp || uefi_call_wrapper(bm_st->BootServices->LocateDevicePath, 3, &pcig, &rest, &h) != EFI_SUCCESS)
        return FWBLK_AT_NONE;
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &pcig, (void **)&io) == EFI_SUCCESS &&
        uefi_call_wrapper(io->GetLocation, 5, io, &seg, &bus, &dev, &fn) == EFI_SUCCESS) {
        d->has_pci = true;
        d->pci_addr = (struct pci_addr){ (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
        pci_addr_str(d->pci_addr, d->pci, sizeof(d->pci));
    }
    for (EFI_DEVICE_PATH *n = rest; n && !IsDevicePathEnd(n); n = NextDevicePathNode(n)) {
        const uint8_t *b = (const uint8_t *)n;
        if (DevicePathType(n) != MESSAGING_DEVICE_PATH)
            continue;
        if (DevicePathSubType(n) == 0x02) {
            d->port = *(const uint16_t *)(b + 4);
            d->lun = *(const uint16_t *)(b + 6);
            return FWBLK_AT_SCSI;
        }
        if (DevicePathSubType(n) == 0x12) {
            d->port = *(const uint16_t *)(b + 4);
            return FWBLK_AT_SATA;
        }
        if (DevicePathSubType(n) == 0x17) {
            d->port = *(const uint32_t *)(b + 4);
            return FWBLK_AT_NVME;
        }
    }
    return FWBLK_AT_NONE;
}

/* Is the messaging node for NVMe namespaces somewhere on the path? */
static bool path_has_nvme(EFI_DEVICE_PATH *dp)
{
    for (EFI_DEVICE_PATH *n = dp; n && !IsDevicePathEnd(n); n = NextDevicePathNode(n))
        if (DevicePathType(n) == MESSAGING_DEVICE_PATH && DevicePathSubType(n) == 0x17)
            return true;
    return false;
}

/* Fill in what a disk is; the handle's Block I/O is usable. Returns
 * where on its controller the device path places it. */
static enum fwblk_at identify(struct fw_disk *f, EFI_DEVICE_PATH *dp)
{
    EFI_GUID dig = FW_DISK_INFO_GUID, ide = FW_DISK_INFO_IDE_GUID, ahci = FW_DISK_INFO_AHCI_GUID;
    EFI_GUID scsi = FW_DISK_INFO_SCSI_GUID, usb = FW_DISK_INFO_USB_GUID;
    struct bm_disk *d = &f->disk;
    FW_DISK_INFO *di = NULL;
    enum fwblk_at at = locate(d, dp);

    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, f->handle, &dig, (void **)&di) == EFI_SUCCESS &&
        di) {
        if (guid_eq(&di->Interface, &ahci) || guid_eq(&di->Interface, &ide))
            identity_from_ata(d, di);
        else if (guid_eq(&di->Interface, &scsi) || guid_eq(&di->Interface, &usb))
            identity_from_inquiry(d, di);
    }
    if (path_has_nvme(dp))
        identity_from_nvme(d, dp);
    if (!d->serial[0])
        identity_from_usb(d, dp);
    if (dp) {
        /* The firmware's converter knows every node type (GNU-EFI's does
         * not know NVMe); GNU-EFI's is the fallback. */
        EFI_GUID tg = EFI_DEVICE_PATH_TO_TEXT_PROTOCOL_GUID;
        EFI_DEVICE_PATH_TO_TEXT_PROTOCOL *tp = NULL;
        CHAR16 *text = NULL;
        if (uefi_call_wrapper(bm_st->BootServices->LocateProtocol, 3, &tg, NULL, (void **)&tp) == EFI_SUCCESS && tp)
            text = uefi_call_wrapper(tp->ConvertDevicePathToText, 3, dp, FALSE, FALSE);
        if (!text)
            text = DevicePathToStr(dp);
        if (text) {
            ucs2_copy(f->device_path, sizeof(f->device_path), text);
            FreePool(text);
        }
    }
    return at;
}

/* Free a firmware disk that never had a request in flight. */
static void fw_free(struct fw_disk *f)
{
    plat_free(f->cmds);
    plat_free(f->inflight);
    plat_free(f);
}

/* Is the handle a whole, present disk (not a partition, a medium-less
 * drive or a block size we cannot use)? Its Block I/O and device path
 * (NULL if none) are returned. */
static bool whole_disk(EFI_HANDLE h, EFI_BLOCK_IO **bio, EFI_DEVICE_PATH **dp)
{
    EFI_GUID biog = BLOCK_IO_PROTOCOL, dpg = DEVICE_PATH_PROTOCOL;

    *dp = NULL;
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &biog, (void **)bio) != EFI_SUCCESS)
        return false;
    /* Whole disks only: partitions are views of a disk we already have. */
    if ((*bio)->Media->LogicalPartition || !(*bio)->Media->MediaPresent || !(*bio)->Media->BlockSize ||
        (*bio)->Media->BlockSize % 512 || !(*bio)->Media->LastBlock)
        return false;
    uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &dpg, (void **)dp);
    /* A partition the firmware did not flag as one. */
    return !(*dp && path_has_partition_node(*dp));
}

/* The firmware's whole disks before any native driver runs (fwblk.h). */
int fwblk_census(struct fwblk_census *c)
{
    EFI_GUID biog = BLOCK_IO_PROTOCOL;
    EFI_HANDLE *handles = NULL;
    UINTN count = 0;
    struct fw_disk *f = plat_alloc(sizeof(*f));

    memset(c, 0, sizeof(*c));
    if (!f)
        return 0;
    uefi_connect_storage_controllers(NULL, 0, true);
    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &biog, NULL, &count, &handles) !=
        EFI_SUCCESS) {
        plat_free(f);
        return 0;
    }
    for (UINTN i = 0; i < count; i++) {
        EFI_BLOCK_IO *bio;
        EFI_DEVICE_PATH *dp;
        struct fwblk_census_disk *e;
        enum fwblk_at at;

        /* Removable media (CD/DVD drives, card readers) are left out: the
         * native drivers skip ATAPI devices on purpose. */
        if (!whole_disk(handles[i], &bio, &dp) || bio->Media->RemovableMedia)
            continue;
        if (c->count == FWBLK_CENSUS_MAX) {
            c->more++;
            continue;
        }
        memset(f, 0, sizeof(*f));
        f->handle = handles[i];
        f->bio = bio;
        at = identify(f, dp);
        e = &c->disks[c->count++];
        e->has_pci = f->disk.has_pci;
        e->pci = f->disk.pci_addr;
        e->at = at;
        e->port = f->disk.port;
        e->lun = f->disk.lun;
        bm_strlcpy(e->model, f->disk.model, sizeof(e->model));
        bm_strlcpy(e->serial, f->disk.serial, sizeof(e->serial));
        e->bytes = (bio->Media->LastBlock + 1) * (uint64_t)bio->Media->BlockSize;
    }
    plat_free(handles);
    plat_free(f);
    return (int)c->count;
}

/* Every whole, present disk behind a Block I/O handle, identified and located. */
int fwblk_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken, fwblk_keep_fn keep,
                   void *ctx)
{
    EFI_GUID biog = BLOCK_IO_PROTOCOL, bio2g = EFI_BLOCK_IO2_PROTOCOL_GUID;
    EFI_HANDLE *handles = NULL;
    EFI_DEVICE_PATH *boot_dp = boot_device_path();
    EFI_DEVICE_PATH *results_dp = handle_device_path(uefi_results_volume_handle());
    UINTN count = 0, boot_len = boot_dp ? path_bytes(boot_dp) : 0;
    UINTN results_len = results_dp ? path_bytes(results_dp) : 0;
    int added = 0;

    uefi_connect_storage_controllers(taken, ntaken, true);
    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &biog, NULL, &count, &handles) !=
        EFI_SUCCESS)
        return 0;
    for (UINTN i = 0; i < count && fw_count < FW_MAX_DISKS; i++) {
        EFI_BLOCK_IO *bio;
        EFI_DEVICE_PATH *dp = NULL;
        struct fw_disk *f;
        struct bm_disk *d;
        uint32_t qd;

        if (!whole_disk(handles[i], &bio, &dp))
            continue;
        f = plat_alloc(sizeof(*f));
        if (!f)
            break;
        d = &f->disk;
        f->handle = handles[i];
        f->bio = bio;
        if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, handles[i], &bio2g, (void **)&f->bio2) !=
            EFI_SUCCESS)
            f->bio2 = NULL;
        f->media_id = bio->Media->MediaId;
        f->read_only = bio->Media->ReadOnly;
        /* The boot disk's device path is a prefix of the boot partition's
         * (or equal to it on a disk without partitions). */
        f->boot = -1;
        if (boot_dp && dp)
            f->boot = path_holds(dp, boot_dp, boot_len);
        f->results = results_dp && dp && path_holds(dp, results_dp, results_len);
        snprintf(d->id, sizeof(d->id), "fw%u", fw_count);
        bm_strlcpy(d->driver, f->bio2 ? "blockio2" : "blockio", sizeof(d->driver));
        d->path = BM_PATH_FIRMWARE;
        d->lba_bytes = bio->Media->BlockSize;
        d->phys_bytes = d->lba_bytes;
        if (bio->Revision >= EFI_BLOCK_IO_PROTOCOL_REVISION2 && bio->Media->LogicalBlocksPerPhysicalBlock > 1)
            d->phys_bytes = d->lba_bytes * bio->Media->LogicalBlocksPerPhysicalBlock;
        d->blocks = bio->Media->LastBlock + 1;
        d->nqueues = 1;
        qd = f->bio2 ? FW_ASYNC_MAX_QD : 1;
        d->max_qd = qd;
        d->max_transfer_bytes = FW_MAX_TRANSFER;
        d->ops = &fw_ops;
        d->priv = f;
        identify(f, dp);
        if (keep && !keep(d, ctx)) {
            fw_free(f);
            continue;
        }
        f->cmds = plat_alloc(qd * sizeof(*f->cmds));
        f->inflight = plat_alloc(qd * sizeof(*f->inflight));
        if (!f->cmds || !f->inflight) {
            fw_free(f);
            break;
        }
        if (disk_list_add(l, d) != BM_OK) {
            /* The list is full: it counts every disk left out, for the note. */
            fw_free(f);
            continue;
        }
        fw_disks[fw_count++] = f;
        added++;
    }
    plat_free(handles);
    return added;
}

/* Our device-path answer to "is this the boot disk?". */
int fwblk_boot_disk(const struct bm_disk *d)
{
    struct fw_disk *f = fw_of(d);
    return f ? f->boot : -1;
}

/* The medium's write protection, as Block I/O reports it. */
bool fwblk_read_only(const struct bm_disk *d)
{
    struct fw_disk *f = fw_of(d);
    return f && f->read_only;
}

/* The disk's device path as text. */
const char *fwblk_device_path(const struct bm_disk *d)
{
    struct fw_disk *f = fw_of(d);
    return f ? f->device_path : "";
}

/* Close events and free firmware disks, leaving alone any the firmware may still touch. */
void fwblk_release_all(void)
{
    for (unsigned i = 0; i < fw_count; i++) {
        struct fw_disk *f = fw_disks[i];
        bool lost = f->dead || f->ninflight;

        for (uint32_t t = 0; t < f->disk.max_qd && !lost; t++)
            if (f->cmds[t].state != CMD_IDLE)
                lost = true;
        if (lost) {
            /* The firmware may still write a token or signal an event:
             * leave every piece of this disk where it is. */
            plat_diag(f->disk.id, "requests still with the firmware; its memory is left allocated");
            continue;
        }
        /* Data written through a write-back cache reaches the medium. */
        if (f->written)
            uefi_call_wrapper(f->bio->FlushBlocks, 1, f->bio);
        for (uint32_t t = 0; t < f->disk.max_qd; t++)
            if (f->cmds[t].event)
                uefi_call_wrapper(bm_st->BootServices->CloseEvent, 1, f->cmds[t].event);
        fw_free(f);
    }
    fw_count = 0;
}
