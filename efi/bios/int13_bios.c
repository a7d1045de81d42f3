/* The BIOS's disks: INT 13h drives 80h.. and the floppy drives 00h.., with
 * the EDD extensions (Phoenix "BIOS Enhanced Disk Drive Specification"
 * 3.0): AH=41h check extensions, AH=48h drive parameters with the EDD 3.0
 * device path (host bus, PCI bus/dev/fn, interface), AH=42h extended read,
 * AH=43h extended write, or without them CHS (AH=02h/03h, AH=08h
 * geometry), one request at a time through the bounce buffer at 0x10000;
 * the retries, halving and CHS fallback are efi/disk/int13_io.c's.
 *
 * Probing follows Linux arch/x86/boot/edd.c get_edd_info() (41h with
 * BX=55AAh, answer BX=AA55h and CX bit 0 "fixed disk access subset", then
 * 48h with the buffer's length field preset), and the device path is only
 * believed as Linux drivers/firmware/edd.c edd_has_edd30() does: key BEDDh,
 * and bytes 30..73 summing to zero. */
#include "bios_private.h"

#define BDA_EQUIPMENT 0x410     /* BIOS data area: equipment word (bit 0 floppies, bits 6-7 their number - 1) */
#define BDA_HARD_DISKS 0x475    /* BIOS data area: number of hard disks */
#define DAP_ADDR 0x9830u        /* the disk address packet, in our low page */

static struct bios_drive drives[BIOS_DRIVES_MAX];
static unsigned ndrives;
static bool scanned;

/* i13_drive's INT: bios_int() in real mode. */
static void i13_call(void *ctx, struct i13_regs *q)
{
    struct bios_rm_regs r = { .eax = q->ax, .ebx = q->bx, .ecx = q->cx, .edx = q->dx, .esi = q->si,
                              .ds = q->ds, .es = q->es };

    (void)ctx;
    bios_int(0x13, &r);
    q->ax = (uint16_t)r.eax;
    q->bx = (uint16_t)r.ebx;
    q->cx = (uint16_t)r.ecx;
    q->dx = (uint16_t)r.edx;
    q->si = (uint16_t)r.esi;
    q->ds = r.ds;
    q->es = r.es;
    q->cf = r.eflags & BIOS_EFLAGS_CF;
}

static uint8_t bda8(unsigned at)
{
    uintptr_t a = at;
    __asm__("" : "+r"(a));      /* a low address, not an empty object (-Warray-bounds) */
    return *(volatile uint8_t *)a;
}

/* One drive: it answers AH=41h or AH=08h (int13_io.c retries both after a
 * reset: a drive is not dropped for one failed call), and has a usable
 * size, from AH=48h with the extensions or the AH=08h geometry without
 * them (a stick a BIOS emulates as a floppy, an old BIOS). */
static bool probe_drive(uint8_t dl, struct bios_drive *d)
{
    struct edd_params e;

    memset(d, 0, sizeof(*d));
    d->dl = dl;
    d->io.dl = dl;
    d->io.intcall = i13_call;
    d->io.dap = (uint8_t *)(uintptr_t)DAP_ADDR;
    d->io.dap_seg = 0;
    d->io.dap_off = DAP_ADDR;
    d->io.bounce = (uint8_t *)(uintptr_t)BIOS_BOUNCE;
    d->io.bounce_seg = BIOS_BOUNCE_SEG;
    d->io.bounce_bytes = BIOS_BOUNCE_BYTES;
    if (!i13_probe(&d->io))
        return false;
    d->edd_version = d->io.edd_version;
    if (d->io.edd && i13_params(&d->io, EDD_PARAMS_BYTES) && edd_params_parse(d->io.bounce, &e)) {
        d->params = e;
    } else {
        /* No AH=48h answer (or no EDD): the CHS geometry's size. A floppy
         * drive with no medium answers AH=08h with the drive's geometry:
         * its sector 0 must read for it to count. */
        d->params.sectors = i13_chs_sectors(&d->io);
        d->params.bytes_per_sector = 512;
        d->params.removable = dl < 0x80;
        if (!d->params.sectors)
            return false;
    }
    d->io.bytes_per_sector = d->params.bytes_per_sector;
    if (d->params.bytes_per_sector == 512) {
        uint8_t st;
        d->has_sector1 = bios_drive_rw(d, false, 1, 1, d->sector1, &st) == BM_OK;
        if (!d->has_sector1 && dl < 0x80)
            return false;
    }
    return true;
}

/* Every INT 13h drive, once (before any native driver resets a
 * controller): the hard disks 80h.. the BIOS data area counts, then the
 * floppy drives 00h.. of the equipment word (a USB stick a BIOS emulates
 * as a floppy or a ZIP drive is drive 00h). */
unsigned bios_drives(struct bios_drive **out)
{
    if (!scanned) {
        unsigned n = bda8(BDA_HARD_DISKS), eq = bda8(BDA_EQUIPMENT), nfd = (eq & 1) ? ((eq >> 6) & 3) + 1 : 0;
        scanned = true;
        if (!n || n > BIOS_DRIVES_MAX)
            n = BIOS_DRIVES_MAX;
        if (bios_rm_init()) {
            for (unsigned i = 0; i < n && ndrives < BIOS_DRIVES_MAX; i++)
                if (probe_drive((uint8_t)(0x80 + i), &drives[ndrives]))
                    ndrives++;
            for (unsigned i = 0; i < nfd && ndrives < BIOS_DRIVES_MAX; i++)
                if (probe_drive((uint8_t)i, &drives[ndrives]))
                    ndrives++;
        }
    }
    *out = drives;
    return ndrives;
}

/* Never again through INT 13h: a native driver reset its controller. */
void bios_drive_retire(struct bios_drive *d, const char *why)
{
    if (!d->retired)
        plat_diag("int13", "drive %02xh is no longer used through INT 13h: %s%s", d->dl, why,
                  d->boot ? " (the boot stick: its results file gets nothing more)" : "");
    d->retired = true;
}

/* count blocks at lba, through the bounce buffer, with SYSLINUX's
 * retries, halving and CHS fallback (efi/disk/int13_io.c). BM_OK, or BM_EIO
 * with the BIOS status in *status. */
int bios_drive_rw(struct bios_drive *d, bool write, uint64_t lba, uint32_t count, void *buf, uint8_t *status)
{
    *status = 0;
    if (d->retired)
        return BM_EPERM;
    if (lba >= d->params.sectors || count > d->params.sectors - lba)
        return BM_EINVAL;
    return i13_rw(&d->io, write, lba, count, buf, status);
}

/* "PCI SATA port 1", "USB", ... for messages. */
void bios_drive_describe(const struct bios_drive *d, char *buf, size_t len)
{
    const struct edd_params *p = &d->params;

    if (d->dl < 0x80)
        snprintf(buf, len, "INT 13h drive %02xh (a floppy drive: a stick emulated as a floppy or ZIP drive?)", d->dl);
    else if (!p->edd30)
        snprintf(buf, len, "INT 13h drive %02xh (no EDD 3.0 device path)", d->dl);
    else if (p->has_pci)
        snprintf(buf, len, "INT 13h drive %02xh, %s %s device %u at %04x:%02x:%02x.%x", d->dl, p->host_bus,
                 p->interface, p->device, p->pci.seg, p->pci.bus, p->pci.dev, p->pci.fn);
    else
        snprintf(buf, len, "INT 13h drive %02xh, %s %s", d->dl, p->host_bus, p->interface);
}

/* A log record when the drive's INT 13h calls needed retries, smaller
 * transfers or CHS since the last one (how a USB stick behind a BIOS's SMM
 * emulation is doing). */
void bios_drive_note_errors(struct bios_drive *d)
{
    uint32_t sum = d->io.retries + d->io.halvings + d->io.chs_fallbacks;

    if (sum == d->errors_noted)
        return;
    d->errors_noted = sum;
    plat_diag("int13", "drive %02xh: %u INT 13h calls tried again after a disk reset (last BIOS status %02xh), "
              "%u transfer size halvings (now %u blocks at most), %u fallbacks to CHS%s",
              d->dl, (unsigned)d->io.retries, d->io.last_error, (unsigned)d->io.halvings, (unsigned)d->io.max_blocks,
              (unsigned)d->io.chs_fallbacks, d->io.edd ? "" : " (it is driven through CHS)");
}
