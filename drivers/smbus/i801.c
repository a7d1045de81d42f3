/* Intel ICH/PCH SMBus host controller (82801AA ICH .. C600/C620 and later
 * PCHs), polled. Follows Linux drivers/i2c/busses/i2c-i801.c: its PCI id
 * table, i801_check_pre() / i801_wait_intr() / i801_check_post() and
 * i801_access(); FreeBSD ichsmb(4) ichsmb_readb() and EDK2 PchSmbusLib
 * SmbusExec() do the same. Differences on purpose: the INUSE_STS
 * semaphore is taken and honoured before every transaction (the BIOS, ACPI
 * code or a BMC may be mid-transaction), and a host the firmware left
 * disabled (HOSTC.HST_EN clear) is reported, not turned on, unless the
 * caller asks for it (spd=force; then it is turned off again at close). */
#include "smbus_bus.h"
#include "i801_regs.h"

/* Intel device ids of i801-compatible SMBus functions (Linux i801_ids[]). */
static const uint16_t i801_ids[] = {
    0x2413, 0x2423, 0x2443, 0x2483, 0x24c3, 0x24d3, 0x25a4, /* ICH .. ICH5, 6300ESB */
    0x266a, 0x269b, 0x27da, 0x283e, 0x2930, 0x5032,         /* ICH6, ESB2 631x/632xESB (5000/5400 series),
                                                             * ICH7-9, EP80579 */
    0x3a30, 0x3a60, 0x3b30, 0x1c22, 0x1d22, 0x1d70, 0x1d71, /* ICH10, 5/3400, 6 series, C600 Patsburg (+IDF) */
    0x1d72, 0x2330, 0x1e22, 0x8c22, 0x9c22, 0x1f3c, 0x8d22, /* DH89xx, 7 series, Lynx Point, Avoton, C610 Wellsburg */
    0x8d7d, 0x8d7e, 0x8d7f, 0x23b0, 0x8ca2, 0x9ca2, 0x0f12, /* Wellsburg MS, Coleto Creek, Wildcat Point, BayTrail */
    0x2292, 0xa123, 0x9d23, 0x19df, 0x1bc9, 0x5ad4, 0xa1a3, /* Braswell, Sunrise Point, DNV, C740 Emmitsburg, BXT, C620 */
    0xa223, 0xa2a3, 0x31d4, 0xa323, 0x9da3, 0x18df, 0x34a3, /* Lewisburg SSKU, KBL, GLK, Cannon Lake, Cedar Fork, ICL */
    0x38a3, 0x02a3, 0x06a3, 0x4b23, 0xa0a3, 0x43a3, 0x4da3, /* ICL-N, Comet Lake, EHL, Tiger Lake, JSL */
    0xa3a3, 0x7aa3, 0x51a3, 0x54a3, 0x7a23, 0x7e22, 0xae22, /* CML-V, Alder Lake, Raptor Lake, Meteor Lake */
    0x7f23, 0x5796,                                         /* MTL PCH-S, Birch Stream */
    0x7722, 0xe322, 0xe422, 0x4d22,                         /* Arrow Lake-H, Panther Lake-H, -P, Wildcat Lake-U */
};

/* Chips before ICH4 have no AUX_CTL register. */
static bool i801_has_auxctl(uint16_t device)
{
    return device != 0x2413 && device != 0x2423 && device != 0x2443 && device != 0x2483;
}

bool i801_match(uint16_t vendor, uint16_t device)
{
    if (vendor != 0x8086)
        return false;
    for (size_t i = 0; i < ARRAY_SIZE(i801_ids); i++)
        if (i801_ids[i] == device)
            return true;
    return false;
}

static uint8_t rd(struct smbus *b, uint8_t reg) { return plat_inb((uint16_t)(b->base + reg)); }
static void wr(struct smbus *b, uint8_t reg, uint8_t v) { plat_outb((uint16_t)(b->base + reg), v); }

/* How long one transaction may take: Linux's adapter timeout (HZ / 5). */
#define I801_XACT_TIMEOUT_NS 200000000ull
/* How long another owner may hold INUSE_STS before we give up. */
#define I801_INUSE_TIMEOUT_NS 100000000ull
#define I801_POLL_NS 100000ull

/* Take the INUSE_STS semaphore: a read that finds it clear sets it for us
 * (ICH datasheets, "INUSE_STS"). Bounded: BM_EBUSY when another owner
 * keeps it. *sts is the status the winning read returned. */
static int i801_acquire(struct smbus *b, uint8_t *sts)
{
    uint64_t deadline = plat_now_ns() + I801_INUSE_TIMEOUT_NS;

    for (;;) {
        bool expired = plat_now_ns() > deadline;   /* before the read: see i801_wait_intr() */
        *sts = rd(b, I801_HST_STS);
        if (!(*sts & I801_STS_INUSE))
            return BM_OK;
        if (expired) {
            plat_diag(b->where, "SMBus INUSE_STS held by another owner (firmware, ACPI or BMC) for 100 ms: giving up");
            return BM_EBUSY;
        }
        plat_delay_ns(I801_POLL_NS);
    }
}

/* Release INUSE_STS and clear any status flag left (Linux i801_access()). */
static void i801_release(struct smbus *b)
{
    wr(b, I801_HST_STS, I801_STS_INUSE | I801_STS_FLAGS);
}

/* As Linux i801_check_pre(): the host must be idle and its flags clear. */
static int i801_check_pre(struct smbus *b, uint8_t sts)
{
    if (sts & I801_STS_HOST_BUSY) {
        plat_diag(b->where, "SMBus host busy before a transaction (HST_STS 0x%02x)", sts);
        return BM_EBUSY;
    }
    if (sts & I801_STS_FLAGS) {
        wr(b, I801_HST_STS, sts & I801_STS_FLAGS);
        sts = rd(b, I801_HST_STS);
        if (sts & I801_STS_FLAGS) {
            plat_diag(b->where, "SMBus status flags do not clear (HST_STS 0x%02x)", sts);
            return BM_EBUSY;
        }
    }
    return BM_OK;
}

/* As Linux i801_wait_intr(): HOST_BUSY clear and INTR or an error flag
 * set. On timeout the transaction is killed (i801_check_post()). Returns
 * the error flags (0 on success) or BM_ETIMEDOUT. */
static int i801_wait_intr(struct smbus *b)
{
    uint64_t deadline = plat_now_ns() + I801_XACT_TIMEOUT_NS;
    uint8_t sts;

    /* The deadline is taken before the status read, so the last read
     * comes after it: a poller that was preempted past the deadline still
     * sees a transaction that completed meanwhile (as Linux
     * read_poll_timeout() evaluates the condition once more). */
    for (;;) {
        bool expired = plat_now_ns() > deadline;
        sts = rd(b, I801_HST_STS);
        if (!(sts & I801_STS_HOST_BUSY) && (sts & (I801_STS_ERRORS | I801_STS_INTR)))
            return sts & I801_STS_ERRORS;
        if (expired)
            break;
        plat_delay_ns(I801_POLL_NS);
    }
    plat_diag(b->where, "SMBus transaction timed out waiting for HST_STS.INTR (HST_STS 0x%02x): killed", sts);
    wr(b, I801_HST_CNT, I801_CNT_KILL);
    plat_delay_ns(1000000);
    wr(b, I801_HST_CNT, 0);
    sts = rd(b, I801_HST_STS);
    if (sts & I801_STS_HOST_BUSY)
        plat_diag(b->where, "SMBus host still busy after KILL (HST_STS 0x%02x)", sts);
    return BM_ETIMEDOUT;
}

/* As Linux i801_check_post(): error flags to an error code. */
static int i801_check_post(int flags)
{
    if (flags < 0)
        return flags;
    if (flags & I801_STS_FAILED)
        return BM_EIO;
    if (flags & I801_STS_DEV_ERR)
        return BM_ENODEV;   /* no acknowledge: nothing at that address */
    if (flags & I801_STS_BUS_ERR)
        return BM_EBUSY;    /* lost arbitration to another master */
    return BM_OK;
}

/* One transaction, as Linux i801_access() + i801_simple_transaction(). */
static int i801_xfer(struct smbus *b, uint8_t addr, enum smbus_xact x, uint8_t cmd, uint8_t *data)
{
    bool write = x == SMBUS_WRITE_BYTE;
    uint8_t proto = x == SMBUS_RECV_BYTE ? I801_BYTE : x == SMBUS_READ_WORD ? I801_WORD_DATA : I801_BYTE_DATA;
    uint8_t sts;
    int rc;

    /* The SPD-range rule, checked again where the address reaches the chip. */
    if (!smbus_xact_allowed(addr, write, cmd, write ? data[0] : 0))
        return BM_EPERM;
    rc = i801_acquire(b, &sts);
    if (rc != BM_OK)
        return rc;
    rc = i801_check_pre(b, sts);
    if (rc == BM_OK) {
        wr(b, I801_HST_ADD, (uint8_t)(addr << 1 | (write ? 0 : 1)));
        if (x != SMBUS_RECV_BYTE)
            wr(b, I801_HST_CMD, cmd);
        if (write)
            wr(b, I801_HST_DAT0, data[0]);
        wr(b, I801_HST_CNT, proto | I801_CNT_START);
        rc = i801_check_post(i801_wait_intr(b));
    }
    if (rc == BM_OK && !write) {
        data[0] = rd(b, I801_HST_DAT0);
        if (x == SMBUS_READ_WORD)
            data[1] = rd(b, I801_HST_DAT1);
    }
    i801_release(b);
    return rc;
}

/* Put back HOSTC, HST_CNT and AUX_CTL as open found them (Linux
 * i801_restore_regs()). */
static void i801_close(struct smbus *b)
{
    if (b->has_auxctl)
        wr(b, I801_AUX_CTL, b->orig_auxctl);
    wr(b, I801_HST_CNT, b->orig_hstcnt);
    if (b->hostc_changed) {
        uint16_t w = plat_pci_read16(b->pci, I801_PCI_HOSTC);
        plat_pci_write16(b->pci, I801_PCI_HOSTC, (uint16_t)((w & 0xff00) | b->orig_hostc));
    }
    if (b->pcicmd_changed)
        plat_pci_write16(b->pci, 0x04, b->orig_pcicmd);
}

/* HOSTC as the transactions need it: host enabled, SMBus (not I2C)
 * timing; I/O decode on. Only what differs is written. */
static void i801_setup_hostc(struct smbus *b, uint16_t pcicmd)
{
    uint8_t want = (uint8_t)((b->orig_hostc | I801_HOSTC_HST_EN) & ~I801_HOSTC_I2C_EN);
    uint16_t w;

    if (want != b->orig_hostc) {
        w = plat_pci_read16(b->pci, I801_PCI_HOSTC);
        plat_pci_write16(b->pci, I801_PCI_HOSTC, (uint16_t)((w & 0xff00) | want));
        b->hostc_changed = true;
    }
    if (!(pcicmd & 0x0001)) {
        b->orig_pcicmd = pcicmd;
        plat_pci_write16(b->pci, 0x04, (uint16_t)(pcicmd | 0x0001));
        b->pcicmd_changed = true;
    }
}

static const struct smbus_ops i801_ops = { i801_xfer, i801_close };

/* As Linux i801_probe(): the I/O base from BAR4, HOSTC checked; SMBus
 * timing selected (I2C_EN cleared, restored at close). */
int i801_open(const struct pci_func *f, unsigned flags, struct smbus *b, char *note, size_t note_len)
{
    uint32_t bar = plat_pci_read32(f->addr, I801_PCI_SMBBAR);
    uint16_t pcicmd = plat_pci_read16(f->addr, 0x04);
    bool disabled;

    b->kind = "i801";
    b->pci = f->addr;
    b->vendor = f->vendor;
    b->device = f->device;
    b->revision = plat_pci_read8(f->addr, 0x08);
    pci_addr_str(f->addr, b->where, sizeof(b->where));
    b->base = (uint16_t)(bar & 0xffe0);
    if (!(bar & 1) || b->base == 0) {
        snprintf(note, note_len, "Intel SMBus %s (8086:%04x): I/O base not assigned by the firmware", b->where,
                 f->device);
        return BM_ENODEV;
    }
    b->orig_hostc = plat_pci_read8(f->addr, I801_PCI_HOSTC);
    disabled = !(b->orig_hostc & I801_HOSTC_HST_EN) || !(pcicmd & 0x0001);
    if (disabled && !(flags & SMBUS_OPEN_ENABLE_HOST)) {
        snprintf(note, note_len, "Intel SMBus %s (8086:%04x) disabled by the firmware (HOSTC 0x%02x%s): SPD not read "
                 "(spd=force enables it for the read, as Linux does)", b->where, f->device, b->orig_hostc,
                 pcicmd & 1 ? "" : ", I/O decode off");
        return BM_EPERM;
    }
    if (disabled)
        plat_diag(b->where, "SMBus host disabled by the firmware (HOSTC 0x%02x, command 0x%04x): enabled for the "
                  "SPD read (spd=force), restored afterwards", b->orig_hostc, pcicmd);
    b->spd_write_disabled = (b->orig_hostc & I801_HOSTC_SPD_WD) != 0;
    i801_setup_hostc(b, pcicmd);
    b->orig_hstcnt = rd(b, I801_HST_CNT) & (uint8_t)~I801_CNT_KILL;
    b->has_auxctl = i801_has_auxctl(f->device);
    if (b->has_auxctl) {
        b->orig_auxctl = rd(b, I801_AUX_CTL);
        if (b->orig_auxctl & (I801_AUXCTL_CRC | I801_AUXCTL_E32B))
            wr(b, I801_AUX_CTL, b->orig_auxctl & (uint8_t)~(I801_AUXCTL_CRC | I801_AUXCTL_E32B));
    }
    b->ops = &i801_ops;
    plat_diag(b->where, "SMBus i801 (8086:%04x) at I/O 0x%04x, HOSTC 0x%02x%s", f->device, b->base, b->orig_hostc,
              b->spd_write_disabled ? " (SPD write disable set)" : "");
    return BM_OK;
}
