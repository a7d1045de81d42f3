/* PIIX4-compatible SMBus host: Intel PIIX4 (QEMU -machine pc), ATI SB600/
 * SB700/SP5100/SB800 and AMD Hudson-2/FCH (KERNCZ) and Hygon. Polled.
 * Follows Linux drivers/i2c/busses/i2c-piix4.c: piix4_setup() /
 * piix4_setup_sb800() for the base, piix4_transaction() for one
 * transaction, piix4_access_sb800() for the SB800 host semaphore (shared
 * with the IMC/BMC) and the port select, both put back on every path.
 * Not covered: FCH parts whose PM index ports are MMIO-only (Linux
 * piix4_sb800_region_request() with mmio_cfg) — reported as disabled. */
#include "smbus_bus.h"
#include "piix4_regs.h"

#define VID_INTEL 0x8086
#define VID_ATI 0x1002
#define VID_AMD 0x1022
#define VID_HYGON 0x1d94
#define DID_PIIX4 0x7113
#define DID_ATI_SBX00 0x4385
#define DID_AMD_HUDSON2 0x780b
#define DID_AMD_KERNCZ 0x790b

bool piix4_match(uint16_t vendor, uint16_t device)
{
    return (vendor == VID_INTEL && device == DID_PIIX4) || (vendor == VID_ATI && device == DID_ATI_SBX00) ||
           (vendor == VID_AMD && (device == DID_AMD_HUDSON2 || device == DID_AMD_KERNCZ)) ||
           (vendor == VID_HYGON && device == DID_AMD_KERNCZ);
}

static uint8_t rd(struct smbus *b, uint8_t reg) { return plat_inb((uint16_t)(b->base + reg)); }
static void wr(struct smbus *b, uint8_t reg, uint8_t v) { plat_outb((uint16_t)(b->base + reg), v); }

static uint8_t pm_read(uint8_t idx)
{
    plat_outb(SB800_PM_INDEX, idx);
    return plat_inb(SB800_PM_DATA);
}

static void pm_write(uint8_t idx, uint8_t v)
{
    plat_outb(SB800_PM_INDEX, idx);
    plat_outb(SB800_PM_DATA, v);
}

/* Linux MAX_TIMEOUT polls of 250-500 us: about 250 ms for a transaction;
 * the semaphore is asked for up to 500 times, 1 ms apart. */
#define PIIX4_XACT_TIMEOUT_NS 250000000ull
#define PIIX4_SEM_TIMEOUT_NS 500000000ull
#define PIIX4_POLL_NS 250000ull

/* As Linux piix4_transaction(): status clear, start, wait for HOST_BUSY
 * to drop (bounded), decode errors, clear status. */
static int piix4_transaction(struct smbus *b)
{
    uint64_t deadline;
    uint8_t sts = rd(b, PIIX4_HST_STS);
    bool expired;
    int rc = BM_OK;

    if (sts & PIIX4_STS_ALL) {
        wr(b, PIIX4_HST_STS, sts);
        sts = rd(b, PIIX4_HST_STS);
        if (sts & PIIX4_STS_ALL) {
            plat_diag(b->where, "SMBus busy before a transaction, status does not clear (0x%02x)", sts);
            return BM_EBUSY;
        }
    }
    wr(b, PIIX4_HST_CNT, rd(b, PIIX4_HST_CNT) | PIIX4_CNT_START);
    deadline = plat_now_ns() + PIIX4_XACT_TIMEOUT_NS;
    /* The deadline is sampled before each status read, so a read always
     * follows it (as Linux read_poll_timeout()): a preempted poller does
     * not time out a transaction that completed. */
    do {
        expired = plat_now_ns() > deadline;
        plat_delay_ns(PIIX4_POLL_NS);
        sts = rd(b, PIIX4_HST_STS);
    } while ((sts & PIIX4_STS_HOST_BUSY) && !expired);
    if (sts & PIIX4_STS_HOST_BUSY) {
        plat_diag(b->where, "SMBus transaction timed out waiting for HOST_BUSY to clear (status 0x%02x)", sts);
        rc = BM_ETIMEDOUT;
    } else if (sts & (PIIX4_STS_FAILED | PIIX4_STS_BUS_ERR)) {
        rc = BM_EIO;
    } else if (sts & PIIX4_STS_DEV_ERR) {
        rc = BM_ENODEV;
    }
    sts = rd(b, PIIX4_HST_STS);
    if (sts & PIIX4_STS_ALL)
        wr(b, PIIX4_HST_STS, sts);
    return rc;
}

/* As Linux piix4_access(): set up address, command, protocol; read back. */
static int piix4_access(struct smbus *b, uint8_t addr, enum smbus_xact x, uint8_t cmd, uint8_t *data)
{
    bool write = x == SMBUS_WRITE_BYTE;
    uint8_t proto = x == SMBUS_RECV_BYTE ? PIIX4_BYTE : x == SMBUS_READ_WORD ? PIIX4_WORD_DATA : PIIX4_BYTE_DATA;
    int rc;

    wr(b, PIIX4_HST_ADD, (uint8_t)(addr << 1 | (write ? 0 : 1)));
    if (x != SMBUS_RECV_BYTE)
        wr(b, PIIX4_HST_CMD, cmd);
    if (write)
        wr(b, PIIX4_HST_DAT0, data[0]);
    wr(b, PIIX4_HST_CNT, proto);
    rc = piix4_transaction(b);
    if (rc == BM_OK && !write) {
        data[0] = rd(b, PIIX4_HST_DAT0);
        if (x == SMBUS_READ_WORD)
            data[1] = rd(b, PIIX4_HST_DAT1);
    }
    return rc;
}

/* Plain PIIX4: no semaphore, one port. */
static int piix4_xfer(struct smbus *b, uint8_t addr, enum smbus_xact x, uint8_t cmd, uint8_t *data)
{
    bool write = x == SMBUS_WRITE_BYTE;

    if (!smbus_xact_allowed(addr, write, cmd, write ? data[0] : 0))
        return BM_EPERM;
    return piix4_access(b, addr, x, cmd, data);
}

/* As Linux piix4_access_sb800(): take the host semaphore from the IMC/BMC
 * (bounded), select port 0 (where the DIMMs are), run the transaction,
 * put the port select back and release the semaphore. */
static int sb800_xfer(struct smbus *b, uint8_t addr, enum smbus_xact x, uint8_t cmd, uint8_t *data)
{
    bool write = x == SMBUS_WRITE_BYTE;
    uint64_t deadline = plat_now_ns() + PIIX4_SEM_TIMEOUT_NS;
    uint8_t slvcnt, port;
    int rc;

    if (!smbus_xact_allowed(addr, write, cmd, write ? data[0] : 0))
        return BM_EPERM;
    slvcnt = rd(b, PIIX4_SLV_CNT);
    for (;;) {
        wr(b, PIIX4_SLV_CNT, slvcnt | SB800_SLVCNT_HOST_SEM);
        slvcnt = rd(b, PIIX4_SLV_CNT);
        if (slvcnt & SB800_SLVCNT_HOST_SEM)
            break;
        if (plat_now_ns() > deadline) {
            plat_diag(b->where, "SMBus host semaphore not granted in 500 ms (held by the IMC/BMC): giving up");
            return BM_EBUSY;
        }
        plat_delay_ns(1000000);
    }
    port = pm_read(b->port_sel_reg);
    if (port & b->port_mask)
        pm_write(b->port_sel_reg, port & (uint8_t)~b->port_mask);
    rc = piix4_access(b, addr, x, cmd, data);
    if (port & b->port_mask)
        pm_write(b->port_sel_reg, port);
    wr(b, PIIX4_SLV_CNT, slvcnt | SB800_SLVCNT_HOST_SEM_CLR);
    return rc;
}

static void piix4_close(struct smbus *b) { (void)b; }

static const struct smbus_ops piix4_ops = { piix4_xfer, piix4_close };
static const struct smbus_ops sb800_ops = { sb800_xfer, piix4_close };

/* As Linux piix4_setup_sb800(): the base and its enable bit from the PM
 * registers, and which PM register selects the port. */
static int sb800_open(const struct pci_func *f, struct smbus *b, char *note, size_t note_len)
{
    bool fch = (f->vendor == VID_AMD && f->device == DID_AMD_HUDSON2 && b->revision >= 0x41) ||
               (f->vendor == VID_AMD && f->device == DID_AMD_KERNCZ && b->revision >= 0x49) ||
               f->vendor == VID_HYGON;
    uint8_t reg = fch ? SB800_PM_DECODE_EN : SB800_PM_SMB_EN;
    uint8_t lo = pm_read(reg), hi = pm_read((uint8_t)(reg + 1));
    bool enabled = fch ? (lo & SB800_PM_DECODE_SMB_EN) != 0 : (lo & 1) != 0;

    b->kind = "sb800";
    b->base = fch ? (uint16_t)(hi << 8) : (uint16_t)(((hi << 8) | lo) & 0xffe0);
    if (lo == 0xff && hi == 0xff) {
        snprintf(note, note_len, "AMD SMBus %s (%04x:%04x): PM index ports 0xcd6/0xcd7 do not answer "
                 "(MMIO-only FCH): SPD not read", b->where, f->vendor, f->device);
        return BM_ENODEV;
    }
    if (!enabled || b->base == 0) {
        snprintf(note, note_len, "AMD SMBus %s (%04x:%04x) disabled by the firmware (SMB_EN clear): SPD not read",
                 b->where, f->vendor, f->device);
        return BM_EPERM;
    }
    if (f->device == DID_AMD_KERNCZ || (f->device == DID_AMD_HUDSON2 && b->revision >= 0x1f)) {
        b->port_sel_reg = KERNCZ_PM_PORT_SEL;
        b->port_mask = KERNCZ_PM_PORT_MASK;
    } else {
        b->port_sel_reg = f->vendor == VID_ATI && !(pm_read(SB800_PM_PORT_SEL_SWITCH) & 1) ? SB800_PM_SMB_EN
                                                                                         : SB800_PM_PORT_SEL;
        b->port_mask = SB800_PM_PORT_MASK;
    }
    b->ops = &sb800_ops;
    return BM_OK;
}

int piix4_open(const struct pci_func *f, struct smbus *b, char *note, size_t note_len)
{
    int rc;

    b->pci = f->addr;
    b->vendor = f->vendor;
    b->device = f->device;
    b->revision = plat_pci_read8(f->addr, 0x08);
    pci_addr_str(f->addr, b->where, sizeof(b->where));
    if (f->vendor == VID_AMD || f->vendor == VID_HYGON || (f->vendor == VID_ATI && b->revision >= 0x40)) {
        rc = sb800_open(f, b, note, note_len);
    } else {
        b->kind = "piix4";
        b->base = plat_pci_read16(f->addr, PIIX4_PCI_SMBBA) & 0xfff0;
        b->orig_hostc = plat_pci_read8(f->addr, PIIX4_PCI_HSTCFG);
        rc = BM_OK;
        if (b->base == 0) {
            snprintf(note, note_len, "SMBus %s (%04x:%04x): I/O base not assigned by the firmware", b->where,
                     f->vendor, f->device);
            rc = BM_ENODEV;
        } else if (!(b->orig_hostc & PIIX4_HSTCFG_EN)) {
            snprintf(note, note_len, "SMBus %s (%04x:%04x) disabled by the firmware (SMBHSTCFG 0x%02x): SPD not read",
                     b->where, f->vendor, f->device, b->orig_hostc);
            rc = BM_EPERM;
        }
        b->ops = rc == BM_OK ? &piix4_ops : NULL;
    }
    if (rc == BM_OK)
        plat_diag(b->where, "SMBus %s (%04x:%04x rev 0x%02x) at I/O 0x%04x", b->kind, f->vendor, f->device,
                  b->revision, b->base);
    return rc;
}
