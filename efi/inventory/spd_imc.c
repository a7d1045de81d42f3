/* SPD through the Xeon integrated memory controller's SMBus controllers
 * (spd_imc.h), read only.
 *
 * What the references say, and what is followed here:
 *  - Registers: FreeBSD imcsmb_reg.h and Linux i2c-imc (Lutomirski 2016)
 *    for the E5 v1-v4 (SMBSTAT/SMBCMD/SMBCNTL at 0x180/0x184/0x188, 0x10
 *    apart per controller); Intel's Purley reference code register header
 *    for Skylake-SP/Cascade Lake-SP (SMB_CMD_CFG/SMB_STATUS_CFG/
 *    SMB_DATA_CFG of PCU function 5). A byte read is the read type (00)
 *    with the slave address split into the device type (DTI, bits 6:3:
 *    1010b for the SPD EEPROM) and SA (bits 2:0), the byte offset as the
 *    command code, and TRIGGER; the result is in the status (E5) or data
 *    (Scalable) register once BUSY clears with RDO set; SBE means no
 *    acknowledge (FreeBSD imcsmb_transfer(), Linux imc_smbus_xfer()).
 *  - Sharing: the IMC polls the DIMMs' thermal sensors (TSOD) over the same
 *    wires when TSOD_POLL_EN is set (closed-loop thermal throttling).
 *    Intel's text for the Scalable register (smb_tsod_poll_en): "If
 *    BIOS/BMC would like to use SMBus, it must first suspend TSOD polling by
 *    setting this field to 0 and wait for the bus to become free. When
 *    BIOS/BMC is done with the bus, it must resume TSOD polling by setting
 *    this field to 1." Linux imc_channel_claim() does that on the E5, reads
 *    the bit back ("sometimes the hardware won't let go": CLTT locks it)
 *    and gives up when BUSY stays set ("someone else is controlling the
 *    bus"); illumos (Tegile) chn_disable_tsod_polling() saves and restores
 *    the bit and the device type. Here: a command another master left
 *    pending (TRIGGER set) is waited for, then the control register is saved, the
 *    poll enable cleared and read back (still set: refused), BUSY waited for
 *    (bounded: a bus that stays busy belongs to someone else, refused), and
 *    the saved register written back and read back after each DIMM, so
 *    polling is never left off. Thermal polling is paused at most
 *    IMC_PAUSE_MAX_NS at a time.
 *  - Races: as Linux imc_smbus_xfer() ("be paranoid: try to detect races"),
 *    the control register is checked before each command; a change means
 *    another master (firmware SMM, the BMC) is using the controller: the
 *    bus is given back and left.
 *  - SBE stops the IMC's thermal polling until a later command succeeds
 *    (Purley header, smb_sbe: "H/W stops issuing hardware initiated TSOD
 *    polling ... until the SMB_SBE is cleared ... new command issue will
 *    clear the SMB_SBE"). Linux writes 0 to SMBSTAT, which it found does
 *    not clear it; here nothing is written there: the last command before
 *    the bus is given back is a read that succeeds (byte 0 of a DIMM that
 *    answered), so empty slots probed leave no SBE behind.
 *
 * The writes this file makes, all in the function's configuration space
 * (never a device write on the SMBus: the command type is always 00, read,
 * one byte, device type 1010b):
 *  - E5 SMBCNTL: TSOD_POLL_EN cleared (the pause); then the DTI field set
 *    to 1010b; at the end the saved value written back.
 *  - E5 SMBCMD: the read command; at the end the saved value (TRIGGER
 *    clear) written back if it differs (its PNTR_SEL is the thermal
 *    poller's).
 *  - Scalable SMB_CMD_CFG: TSOD_POLL_EN cleared (the pause); the read
 *    command (the saved word's other bits kept, poll enable clear); at the
 *    end the saved word, TRIGGER clear.
 * Nothing else: no status or data register, no other function, no page
 * select (DDR4 page 1 is not read on this path). */
#include "spd_imc.h"
#include "spd.h"

/* Where a kind keeps its registers. */
struct imc_kind {
    uint16_t device;
    int dev, fn;                  /* where the references put it; -1: not checked */
    const char *name;
    bool skx;                     /* the Scalable layout (control = command register, data apart) */
};

static const struct imc_kind kinds[] = {
    /* FreeBSD imcsmb_pci_devices[]; Linux i2c-imc imc_probe(): "the
     * datasheet says this is always at 15.0" (Sandy Bridge-EP). */
    { 0x3ca8, 15, 0, "Xeon E5 v1 (Sandy Bridge-EP) IMC", false },
    { 0x0ea8, -1, -1, "Xeon E5 v2 (Ivy Bridge-EP) IMC", false },
    { 0x2fa8, -1, -1, "Xeon E5 v3 (Haswell-EP) IMC 0", false },
    { 0x2f68, -1, -1, "Xeon E5 v3 (Haswell-EP) IMC 1", false },
    { 0x6fa8, -1, -1, "Xeon E5 v4 (Broadwell-EP) IMC 0", false },
    { 0x6f68, -1, -1, "Xeon E5 v4 (Broadwell-EP) IMC 1", false },
    /* Sky Lake-E PCU function 5 (device 30): Skylake-SP and Cascade
     * Lake-SP, Xeon Scalable 1st and 2nd generation. */
    { 0x2085, 30, 5, "Xeon Scalable (Skylake-SP/Cascade Lake-SP) PCU", true },
};

static const struct imc_kind *kind_of(const struct pci_func *f)
{
    if (f->vendor != 0x8086)
        return NULL;
    for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
        if (f->device == kinds[k].device && (kinds[k].dev < 0 || f->addr.dev == kinds[k].dev) &&
            (kinds[k].fn < 0 || f->addr.fn == kinds[k].fn))
            return &kinds[k];
    return NULL;
}

bool spd_imc_present(const struct pci_list *l)
{
    for (int i = 0; i < l->count; i++)
        if (kind_of(&l->funcs[i]))
            return true;
    return false;
}

/* One SMBus controller while baremark uses it. */
struct imc_bus {
    const struct imc_kind *k;
    struct pci_addr a;
    unsigned b;                   /* controller 0 or 1 */
    uint16_t stat, cmd, cntl, data;   /* register offsets; cntl == cmd on Scalable */
    uint32_t busy, sbe, rdo, poll_en, ckovrd, soft_rst, trigger;
    uint32_t ours;                /* control register bits only we change while we own it (Linux
                                   * SMBCNTL_OUR_BITS): a change there is another master's */
    uint32_t saved_cntl, saved_cmd;   /* as found at the claim */
    uint32_t expect_cntl;         /* what the control register holds while we own it (TRIGGER masked) */
    uint64_t claimed_at;
    bool claimed, sbe_pending, sbe_at_entry;
    int good_addr;                /* an address that answered (its byte 0 clears SBE), -1: none */
};

enum imc_err { IMC_OK, IMC_NACK, IMC_STUCK, IMC_RACED, IMC_GONE };

static void bus_init(struct imc_bus *c, const struct imc_kind *k, struct pci_addr a, unsigned b)
{
    memset(c, 0, sizeof(*c));
    c->k = k;
    c->a = a;
    c->b = b;
    c->good_addr = -1;
    if (k->skx) {
        c->stat = IMC_SKX_STATUS(b);
        c->cmd = c->cntl = IMC_SKX_CMD(b);
        c->data = IMC_SKX_DATA(b);
        c->busy = IMC_SKX_STAT_BUSY, c->sbe = IMC_SKX_STAT_SBE, c->rdo = IMC_SKX_STAT_RDO;
        c->poll_en = IMC_SKX_CMD_TSOD_POLL_EN, c->ckovrd = IMC_SKX_CMD_CKOVRD;
        c->soft_rst = IMC_SKX_CMD_SOFT_RST, c->trigger = IMC_SKX_CMD_TRIGGER;
        c->ours = 0x7ffu | IMC_SKX_CMD_DTI_MASK | IMC_SKX_CMD_WRT_MASK | IMC_SKX_CMD_WORD | IMC_SKX_CMD_PNTR_SEL |
                  IMC_SKX_CMD_TSOD_POLL_EN;
    } else {
        c->stat = IMC_E5_SMBSTAT(b);
        c->cmd = IMC_E5_SMBCMD(b);
        c->cntl = IMC_E5_SMBCNTL(b);
        c->data = 0;
        c->busy = IMC_E5_STAT_BUSY, c->sbe = IMC_E5_STAT_SBE, c->rdo = IMC_E5_STAT_RDO;
        c->poll_en = IMC_E5_CNTL_TSOD_POLL_EN, c->ckovrd = IMC_E5_CNTL_CKOVRD;
        c->soft_rst = IMC_E5_CNTL_SOFT_RST, c->trigger = 0;   /* SMBCNTL has no trigger */
        c->ours = IMC_E5_CNTL_DTI_MASK | IMC_E5_CNTL_TSOD_POLL_EN;
    }
}

/* Wait until BUSY is clear and, when done is not 0, one of the done bits
 * is set; the status read last into *st. Bounded by IMC_WAIT_NS; the
 * deadline is sampled before each read, so a late poller still sees a
 * completion. */
static int wait_status(struct imc_bus *c, uint32_t done, uint32_t *st)
{
    uint64_t deadline = plat_now_ns() + IMC_WAIT_NS;

    for (;;) {
        bool late = plat_now_ns() > deadline;
        *st = plat_pci_read32(c->a, c->stat);
        if (!(*st & c->busy) && (!done || (*st & done)))
            return BM_OK;
        if (late)
            return BM_ETIMEDOUT;
        plat_delay_ns(10000);
    }
}

/* A TRIGGER left set in the command register is a command another master
 * wrote that the controller has not started yet (it clears the bit when it
 * starts one: Purley header, smb_cmd_trigger): wait for it, bounded. */
static int wait_trigger_clear(struct imc_bus *c)
{
    uint32_t trig = c->k->skx ? IMC_SKX_CMD_TRIGGER : IMC_E5_CMD_TRIGGER;
    uint64_t deadline = plat_now_ns() + IMC_WAIT_NS;

    for (;;) {
        bool late = plat_now_ns() > deadline;
        if (!(plat_pci_read32(c->a, c->cmd) & trig))
            return BM_OK;
        if (late)
            return BM_ETIMEDOUT;
        plat_delay_ns(10000);
    }
}

/* Write the control register as saved, read it back. True when it reads
 * as saved (TRIGGER, which the controller clears, masked). */
static bool restore_cntl(struct imc_bus *c)
{
    uint32_t want = c->saved_cntl & ~c->trigger;

    for (int tries = 0; tries < 2; tries++) {
        plat_pci_write32(c->a, c->cntl, want);
        if ((plat_pci_read32(c->a, c->cntl) & ~c->trigger) == want)
            return true;
        plat_delay_ns(1000000);
    }
    return false;
}

/* Append to note. */
static void add_note(char *note, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_note(char *note, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(note);
    va_list ap;

    if (n + 3 >= cap)
        return;
    if (n)
        n += (size_t)snprintf(note + n, cap - n, "; ");
    va_start(ap, fmt);
    vsnprintf(note + n, cap - n, fmt, ap);
    va_end(ap);
}

/* Take the controller: pause the thermal polling (confirmed by a read),
 * wait for the bus to be free, point the device type at the SPD EEPROM.
 * On failure everything is as found and why says so. */
static int bus_claim(struct imc_bus *c, char *why, size_t why_len)
{
    uint32_t v, st;
    bool polling;

    if (wait_trigger_clear(c) != BM_OK) {
        snprintf(why, why_len, "another master's command stayed pending (TRIGGER set) for %u ms",
                 (unsigned)(IMC_WAIT_NS / 1000000ull));
        return BM_EBUSY;
    }
    c->saved_cntl = plat_pci_read32(c->a, c->cntl);
    c->saved_cmd = c->k->skx ? c->saved_cntl : plat_pci_read32(c->a, c->cmd);
    polling = c->saved_cntl & c->poll_en;
    if (polling) {
        plat_pci_write32(c->a, c->cntl, c->saved_cntl & ~c->poll_en & ~c->trigger);
        v = plat_pci_read32(c->a, c->cntl);
        if (v & c->poll_en) {
            /* Linux imc_channel_claim(): the hardware did not let go (a
             * locked CLTT setting). Nothing changed that needs putting
             * back unless other bits moved. */
            if ((v & ~c->trigger) != (c->saved_cntl & ~c->trigger))
                restore_cntl(c);
            snprintf(why, why_len, "the thermal sensor polling could not be paused (TSOD_POLL_EN reads back set: "
                     "closed-loop thermal throttling holds it)");
            return BM_EPERM;
        }
    }
    if (wait_status(c, 0, &st) != BM_OK) {
        bool back = !polling || restore_cntl(c);
        snprintf(why, why_len, "the bus stayed BUSY for %u ms %s%s", (unsigned)(IMC_WAIT_NS / 1000000ull),
                 polling ? "after the thermal polling was paused: another master (BMC) or a hung device holds it"
                         : "with the thermal polling off: another master (BMC) is using it",
                 back ? "" : "; TSOD_POLL_EN NOT put back");
        return BM_EBUSY;
    }
    c->sbe_at_entry = c->sbe_pending = st & c->sbe;
    if (!c->k->skx) {
        v = (c->saved_cntl & ~c->poll_en & ~IMC_E5_CNTL_DTI_MASK) | IMC_DTI_EEPROM << IMC_E5_CNTL_DTI_SHIFT;
        plat_pci_write32(c->a, c->cntl, v);
        if ((plat_pci_read32(c->a, c->cntl) ^ v) & c->ours) {
            bool back = restore_cntl(c);
            snprintf(why, why_len, "SMBCNTL did not take the SPD device type (another master is using the "
                     "controller)%s", back ? "" : "; SMBCNTL NOT put back");
            return BM_EBUSY;
        }
        c->expect_cntl = v;
    } else {
        c->expect_cntl = c->saved_cntl & ~c->poll_en & ~c->trigger;
    }
    c->claimed = true;
    c->claimed_at = plat_now_ns();
    return BM_OK;
}

static enum imc_err read_byte(struct imc_bus *c, uint8_t addr, uint8_t off, uint8_t *out);

/* Give the controller back: clear an SBE our probes left (a read that
 * succeeds), then the command and control registers as found, checked by
 * a read. False (and why) when the control register did not go back. */
static bool bus_release(struct imc_bus *c, bool may_command, char *why, size_t why_len)
{
    uint8_t v;
    bool ok;

    if (!c->claimed)
        return true;
    if (c->sbe_pending && may_command && c->good_addr >= 0)
        read_byte(c, (uint8_t)c->good_addr, 0, &v);
    if (!c->k->skx && (plat_pci_read32(c->a, c->cmd) & ~IMC_E5_CMD_TRIGGER) != (c->saved_cmd & ~IMC_E5_CMD_TRIGGER))
        plat_pci_write32(c->a, c->cmd, c->saved_cmd & ~IMC_E5_CMD_TRIGGER);
    ok = restore_cntl(c);
    c->claimed = false;
    if (!ok)
        snprintf(why, why_len, "the control register did not read back as found (0x%08x written, 0x%08x read): "
                 "the thermal sensor polling may be left %s", c->saved_cntl & ~c->trigger,
                 plat_pci_read32(c->a, c->cntl), c->saved_cntl & c->poll_en ? "off" : "changed");
    return ok;
}

/* One SPD byte: the read command (type 00, byte, DTI 1010b) for addr at
 * off, never while BUSY, never when the control register shows another
 * owner's hand. */
static enum imc_err read_byte(struct imc_bus *c, uint8_t addr, uint8_t off, uint8_t *out)
{
    uint32_t cmd, st, now;

    if (!c->claimed || addr < SMBUS_SPD_FIRST || addr > SMBUS_SPD_LAST)
        return IMC_RACED;   /* never reached: only the SPD range is read */
    now = plat_pci_read32(c->a, c->cntl);
    if ((now ^ c->expect_cntl) & c->ours)
        return IMC_RACED;
    if (wait_status(c, 0, &st) != BM_OK)
        return IMC_STUCK;
    if (c->k->skx) {
        cmd = (c->expect_cntl & ~(IMC_SKX_CMD_DTI_MASK | IMC_SKX_CMD_WRT_MASK | IMC_SKX_CMD_WORD |
                                  IMC_SKX_CMD_PNTR_SEL | IMC_SKX_CMD_SOFT_RST | 0x7ffu)) |
              IMC_DTI_EEPROM << IMC_SKX_CMD_DTI_SHIFT | (uint32_t)(addr & 7) << IMC_SKX_CMD_SA_SHIFT |
              (uint32_t)off << IMC_SKX_CMD_BA_SHIFT;
        c->expect_cntl = cmd;
        cmd |= IMC_SKX_CMD_TRIGGER;
    } else {
        cmd = IMC_E5_CMD_TRIGGER | (uint32_t)(addr & 7) << IMC_E5_CMD_SA_SHIFT | (uint32_t)off << IMC_E5_CMD_BA_SHIFT;
    }
    plat_pci_write32(c->a, c->cmd, cmd);
    /* Done when BUSY is clear and RDO or SBE is set (RDO is cleared when a
     * read command is issued: Purley header smb_rdo; FreeBSD waits for it). */
    if (wait_status(c, c->rdo | c->sbe, &st) != BM_OK)
        return IMC_STUCK;
    if (st & c->sbe) {
        c->sbe_pending = true;
        return IMC_NACK;
    }
    c->sbe_pending = false;
    *out = (uint8_t)(c->data ? plat_pci_read32(c->a, c->data) : st);
    return IMC_OK;
}

static const char *err_text(enum imc_err e)
{
    switch (e) {
    case IMC_NACK:
        return "no acknowledge (SBE)";
    case IMC_STUCK:
        return "a transaction did not end (BUSY, or no RDO/SBE, for 50 ms)";
    case IMC_RACED:
        return "the control register changed under the read: another master is using the controller";
    case IMC_GONE:
        return "the controller could not be taken again";
    default:
        return "ok";
    }
}

/* Keep the pause short: after IMC_PAUSE_MAX_NS give the bus back to the
 * thermal polling and take it again. */
static int bus_breathe(struct imc_bus *c, char *why, size_t why_len)
{
    if (plat_now_ns() - c->claimed_at < IMC_PAUSE_MAX_NS)
        return BM_OK;
    if (!bus_release(c, true, why, why_len))
        return BM_EIO;
    return bus_claim(c, why, why_len);
}

/* Read the image of the DIMM at r->addr (its key byte read already). */
static enum imc_err read_dimm(struct imc_bus *c, struct spd_raw *r, char *why, size_t why_len)
{
    enum imc_err e = IMC_OK;
    uint8_t key = r->data[2];
    size_t want = spd_bytes_wanted(key);

    /* Page 0 only: 256 bytes at most (a DDR4 EE1004's page 1 needs a
     * page select, which this path never writes). */
    if (want == 0)
        want = 3;
    if (want > 256)
        want = 256;
    r->len = 0;
    for (size_t i = 0; i < want; i++) {
        if (bus_breathe(c, why, why_len) != BM_OK)
            return IMC_GONE;
        e = read_byte(c, r->addr, (uint8_t)i, &r->data[i]);
        if (e != IMC_OK)
            break;
        r->len = i + 1;
    }
    if (e == IMC_OK && r->data[2] != key) {
        snprintf(r->note, sizeof(r->note), "SPD %s:0x%02x: key byte changed during the read (0x%02x, then 0x%02x)",
                 r->where, r->addr, key, r->data[2]);
        r->rc = BM_EIO;
    } else if (e == IMC_OK && key == SPD_TYPE_DDR4) {
        snprintf(r->note, sizeof(r->note), "SPD %s:0x%02x: DDR4 page 1 (manufacturer, part, serial) not read: no "
                 "EE1004 page select is written on the memory controller's SMBus", r->where, r->addr);
    } else if (e != IMC_OK) {
        r->rc = e == IMC_NACK ? BM_EIO : BM_ETIMEDOUT;
        snprintf(r->note, sizeof(r->note), "SPD %s:0x%02x: read stopped at byte %zu: %s", r->where, r->addr, r->len,
                 err_text(e));
    }
    if (e == IMC_OK)
        c->good_addr = r->addr;
    return e;
}

/* Read one SMBus controller's DIMMs into raw[*n..]. */
static void read_bus(const struct imc_kind *k, const struct pci_func *f, unsigned fidx, unsigned b,
                     struct spd_raw *raw, unsigned cap, unsigned *n, char *note, size_t note_len)
{
    struct imc_bus c;
    char bdf[16], why[200];
    uint32_t ctl, st;
    enum imc_err e = IMC_OK;
    unsigned first = *n;

    why[0] = '\0';
    bus_init(&c, k, f->addr, b);
    pci_addr_str(f->addr, bdf, sizeof(bdf));
    ctl = plat_pci_read32(c.a, c.cntl);
    st = plat_pci_read32(c.a, c.stat);
    if (ctl == 0xffffffffu && st == 0xffffffffu) {
        add_note(note, note_len, "IMC SMBus i%u.%u (%s, %s): its registers at 0x%x read all ones (configuration "
                 "space beyond 0xff not reachable: no ECAM window for bus %02x?); not read", fidx, b, bdf, k->name,
                 c.cntl, f->addr.bus);
        return;
    }
    if (!(ctl & c.ckovrd) || (ctl & c.soft_rst)) {
        add_note(note, note_len, "IMC SMBus i%u.%u (%s, %s): %s; not read", fidx, b, bdf, k->name,
                 !(ctl & c.ckovrd) ? "the clock override holds SMBCLK low (CKOVRD clear)" : "held in soft reset");
        return;
    }
    if (bus_claim(&c, why, sizeof(why)) != BM_OK) {
        add_note(note, note_len, "IMC SMBus i%u.%u (%s, %s): %s; not read", fidx, b, bdf, k->name, why);
        return;
    }
    /* Which addresses answer: the key byte (2) of each. */
    for (unsigned s = 0; s < SPD_SLOTS && *n < cap; s++) {
        struct spd_raw *r = &raw[*n];
        uint8_t key;

        e = read_byte(&c, (uint8_t)(SMBUS_SPD_FIRST + s), 2, &key);
        if (e == IMC_NACK) {
            e = IMC_OK;   /* nothing there */
            continue;
        }
        if (e != IMC_OK)
            break;
        memset(r, 0, sizeof(*r));
        r->addr = (uint8_t)(SMBUS_SPD_FIRST + s);
        snprintf(r->where, sizeof(r->where), "i%u.%u", fidx & 15, b);
        r->present = true;
        r->data[2] = key;
        r->len = 3;
        (*n)++;
    }
    if (*n > first)
        c.good_addr = raw[first].addr;   /* its key byte read: a read there clears an SBE */
    for (unsigned i = first; i < *n && e == IMC_OK; i++) {
        /* The thermal polling gets the bus back between DIMMs: paused
         * for one DIMM's read at a time (about 0.1 s at 100 kHz). */
        if (bus_release(&c, true, why, sizeof(why)) && bus_claim(&c, why, sizeof(why)) == BM_OK)
            e = read_dimm(&c, &raw[i], why, sizeof(why));
        else
            e = IMC_GONE;
        if (e == IMC_NACK)
            e = IMC_OK;   /* that DIMM stopped answering (noted); go on */
    }
    if (e != IMC_OK)
        add_note(note, note_len, "IMC SMBus i%u.%u (%s, %s): %s; not read further", fidx, b, bdf, k->name,
                 why[0] ? why : err_text(e));
    why[0] = '\0';
    if (!bus_release(&c, e == IMC_OK || e == IMC_NACK, why, sizeof(why)))
        add_note(note, note_len, "IMC SMBus i%u.%u (%s): %s", fidx, b, bdf, why);
    else if (c.sbe_pending && !c.sbe_at_entry)
        add_note(note, note_len, "IMC SMBus i%u.%u (%s): the bus error (SBE) of the last command stays set, no "
                 "device at 0x50-0x57 answered a read that would clear it (the IMC polls no thermal sensor there "
                 "until its next command succeeds)", fidx, b, bdf);
}

int spd_imc_read(const struct pci_list *l, struct spd_raw *raw, unsigned cap, char *note, size_t note_len)
{
    unsigned n = 0, fidx = 0;
    char bdf[16];

    if (note_len)
        note[0] = '\0';
    for (int i = 0; i < l->count; i++) {
        const struct pci_func *f = &l->funcs[i];
        const struct imc_kind *k = kind_of(f);

        if (!k)
            continue;
        pci_addr_str(f->addr, bdf, sizeof(bdf));
        plat_diag(bdf, "IMC SMBus i%u: %s (8086:%04x), SPD read through its two SMBus controllers", fidx, k->name,
                  k->device);
        for (unsigned b = 0; b < 2; b++)
            read_bus(k, f, fidx, b, raw, cap, &n, note, note_len);
        fidx++;
    }
    return fidx ? (int)n : BM_ENODEV;
}
