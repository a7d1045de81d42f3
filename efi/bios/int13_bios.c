/* The BIOS's disks: INT 13h drives 80h.. with the EDD extensions (Phoenix
 * "BIOS Enhanced Disk Drive Specification" 3.0): AH=41h check extensions,
 * AH=48h drive parameters with the EDD 3.0 device path (host bus, PCI
 * bus/dev/fn, interface), AH=42h extended read, AH=43h extended write, one
 * request at a time through the bounce buffer at 0x10000.
 *
 * Probing follows Linux arch/x86/boot/edd.c get_edd_info() (41h with
 * BX=55AAh, answer BX=AA55h and CX bit 0 "fixed disk access subset", then
 * 48h with the buffer's length field preset), and the device path is only
 * believed as Linux drivers/firmware/edd.c edd_has_edd30() does: key BEDDh,
 * and bytes 30..73 summing to zero. */
#include "bios_private.h"
#include "../disk/edd.h"

#define INT13 0x13
#define I13_CHECK_EXT 0x41
#define I13_EXT_READ 0x42
#define I13_EXT_WRITE 0x43
#define I13_PARAMS 0x48
#define EDD_FIXED_DISK_ACCESS 0x1
#define BDA_HARD_DISKS 0x475    /* BIOS data area: number of hard disks */
#define DAP_ADDR 0x9830u        /* the disk address packet, in our low page */
#define I13_MAX_BLOCKS 127u     /* EDD 3.0: at most 127 blocks per request */

static struct bios_drive drives[BIOS_DRIVES_MAX];
static unsigned ndrives;
static bool scanned;

/* One drive: present with extensions and a usable size, or false. */
static bool probe_drive(uint8_t dl, struct bios_drive *d)
{
    struct bios_rm_regs r = { 0 };
    uint8_t *p = (uint8_t *)(uintptr_t)BIOS_BOUNCE;
    struct edd_params e;

    memset(d, 0, sizeof(*d));
    d->dl = dl;
    r.eax = I13_CHECK_EXT << 8;
    r.ebx = 0x55aa;
    r.edx = dl;
    bios_int(INT13, &r);
    if ((r.eflags & BIOS_EFLAGS_CF) || (r.ebx & 0xffff) != 0xaa55 || !(r.ecx & EDD_FIXED_DISK_ACCESS))
        return false;
    d->edd_version = (uint8_t)(r.eax >> 8);
    memset(p, 0, EDD_PARAMS_BYTES);
    p[0] = EDD_PARAMS_BYTES;
    memset(&r, 0, sizeof(r));
    r.eax = I13_PARAMS << 8;
    r.edx = dl;
    r.ds = BIOS_BOUNCE_SEG;
    r.esi = 0;
    bios_int(INT13, &r);
    if (r.eflags & BIOS_EFLAGS_CF)
        return false;
    if (!edd_params_parse(p, &e))   /* disk/edd.c: size, sector size, EDD 3.0 device path */
        return false;
    d->flags = e.flags;
    d->sectors = e.sectors;
    d->bytes_per_sector = e.bytes_per_sector;
    d->removable = e.removable;
    d->edd30 = e.edd30;
    memcpy(d->host_bus, e.host_bus, sizeof(d->host_bus));
    memcpy(d->interface, e.interface, sizeof(d->interface));
    d->has_pci = e.has_pci;
    d->pci = e.pci;
    d->device = e.device;
    if (d->bytes_per_sector == 512) {
        uint8_t st;
        d->has_sector1 = bios_drive_rw(d, false, 1, 1, d->sector1, &st) == BM_OK;
    }
    return true;
}

/* Every INT 13h hard disk, once (before any native driver resets a controller). */
unsigned bios_drives(struct bios_drive **out)
{
    if (!scanned) {
        uintptr_t bda = BDA_HARD_DISKS;
        unsigned n;
        __asm__("" : "+r"(bda));    /* a low address, not an empty object (-Warray-bounds) */
        n = *(volatile uint8_t *)bda;
        scanned = true;
        if (!n || n > BIOS_DRIVES_MAX)
            n = BIOS_DRIVES_MAX;
        if (bios_rm_init())
            for (unsigned i = 0; i < n && ndrives < BIOS_DRIVES_MAX; i++)
                if (probe_drive((uint8_t)(0x80 + i), &drives[ndrives]))
                    ndrives++;
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

/* count blocks at lba, through the bounce buffer, 127 blocks at most per
 * request. BM_OK, or BM_EIO with the BIOS status in *status. */
int bios_drive_rw(struct bios_drive *d, bool write, uint64_t lba, uint32_t count, void *buf, uint8_t *status)
{
    uint8_t *dap = (uint8_t *)(uintptr_t)DAP_ADDR, *b = buf;
    uint32_t per = BIOS_BOUNCE_BYTES / d->bytes_per_sector;

    *status = 0;
    if (d->retired)
        return BM_EPERM;
    if (lba >= d->sectors || count > d->sectors - lba)
        return BM_EINVAL;
    if (per > I13_MAX_BLOCKS)
        per = I13_MAX_BLOCKS;
    while (count) {
        uint32_t n = count < per ? count : per;
        size_t bytes = (size_t)n * d->bytes_per_sector;
        struct bios_rm_regs r = { 0 };

        if (write)
            memcpy((void *)(uintptr_t)BIOS_BOUNCE, b, bytes);
        memset(dap, 0, 16);
        dap[0] = 16;
        dap[2] = (uint8_t)n;
        dap[4] = 0;                             /* offset 0 ... */
        dap[6] = BIOS_BOUNCE_SEG & 0xff;        /* ... in segment 1000h */
        dap[7] = BIOS_BOUNCE_SEG >> 8;
        memcpy(dap + 8, &lba, 8);
        r.eax = (uint32_t)(write ? I13_EXT_WRITE : I13_EXT_READ) << 8;
        r.edx = d->dl;
        r.esi = DAP_ADDR;
        bios_int(INT13, &r);
        if ((r.eflags & BIOS_EFLAGS_CF) || dap[2] != n) {
            *status = (uint8_t)(r.eax >> 8);
            return BM_EIO;
        }
        if (!write)
            memcpy(b, (void *)(uintptr_t)BIOS_BOUNCE, bytes);
        b += bytes;
        lba += n;
        count -= n;
    }
    return BM_OK;
}

/* "PCI SATA port 1", "USB", ... for messages. */
void bios_drive_describe(const struct bios_drive *d, char *buf, size_t len)
{
    if (!d->edd30)
        snprintf(buf, len, "INT 13h drive %02xh (no EDD 3.0 device path)", d->dl);
    else if (d->has_pci)
        snprintf(buf, len, "INT 13h drive %02xh, %s %s device %u at %04x:%02x:%02x.%x", d->dl, d->host_bus,
                 d->interface, d->device, d->pci.seg, d->pci.bus, d->pci.dev, d->pci.fn);
    else
        snprintf(buf, len, "INT 13h drive %02xh, %s %s", d->dl, d->host_bus, d->interface);
}
