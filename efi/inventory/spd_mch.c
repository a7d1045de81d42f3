/* SPD through the Intel 5000P/5000V/5000X MCH's FB-DIMM SPD registers
 * (spd_mch.h). The facts follow coreboot's i5000 raminit spd_read_byte():
 * SPDCMD = DTI 1010b | CKOVRD | slot << 24 | byte << 16 with the CMD bit 0
 * clear (read), then the SPD status register is polled until BUSY clears;
 * SBE means the EEPROM did not acknowledge, RDO that bits 7:0 hold the
 * byte. Beyond coreboot (which owns the machine at that point): no command
 * is written while BUSY is set (the firmware may still be using the
 * registers), each wait has its own deadline and error, and a channel
 * whose BUSY never clears is left alone. The write opcode (CMD bit 0, or
 * the AMB's device type 1011b) is never issued: the only config write
 * this file makes is the SPDCMD read command.
 * The Intel 5100 MCH (DDR2 registered DIMMs) has the same command and
 * status words at another place, as Linux i5100_edac i5100_read_spd_byte()
 * drives them: one SPDDATA (0x48) / SPDCMD (0x4c) pair on device 16
 * function 1 for both channels, the channel in the slot address (channel *
 * 4 + slot), and up to 100 ms for a byte. The Intel 5400 and 7300
 * branches have the 5000's registers at the 5000's offsets, as illumos
 * intel_nb5000 drives all of them (nb5000.h SPD_RD()/SPDCMD_WR(),
 * nb5000_init.c read_spd_eeprom(); spd_mch.h); a 7300 channel has up to 8
 * DIMMs (slot address 0-7). Their datasheets' register chapters (Intel
 * 318610, 318082) were not at hand: the handshake is the 5000X datasheet's
 * (section 5.16.5: a command completes when RDO, WOD or SBE is set, BUSY
 * while it runs), which names no arbitration or ownership bit, so BUSY is
 * the only sign of another owner and no command is written while it is
 * set. */
#include "spd_mch.h"
#include "spd.h"

/* Where each MCH keeps its SPD registers. */
struct mch_kind {
    uint16_t device;
    int function;                 /* the function that has them; -1: any */
    const char *name;
    uint16_t status[2], cmd[2];   /* per channel */
    bool shared;                  /* one pair for both channels: the channel goes into the slot address */
    int branch;                   /* the branch it serves, for the DIMM's name; -1: none */
    unsigned slots;               /* DIMMs per channel (SPD slave addresses 0..slots-1) */
    uint64_t wait_ns;
};

static const struct mch_kind kinds[] = {
    /* Linux i5000_edac binds the branches; coreboot i5000 raminit.h names
     * the registers (MCH_SPD_* in spd_mch.h). */
    { 0x25f5, -1, "5000-series branch 0", { MCH_SPD_STATUS(0), MCH_SPD_STATUS(1) },
      { MCH_SPD_CMD(0), MCH_SPD_CMD(1) }, false, 0, 4, MCH_SPD_WAIT_NS },
    { 0x25f6, -1, "5000-series branch 1", { MCH_SPD_STATUS(0), MCH_SPD_STATUS(1) },
      { MCH_SPD_CMD(0), MCH_SPD_CMD(1) }, false, 1, 4, MCH_SPD_WAIT_NS },
    /* Linux i5100_edac: I5100_SPDDATA/I5100_SPDCMD on 8086:65f0 function 1
     * (its probe refuses the other functions), "wait up to 100ms". */
    { 0x65f0, 1, "5100", { MCH5100_SPDDATA, MCH5100_SPDDATA }, { MCH5100_SPDCMD, MCH5100_SPDCMD }, true, -1, 4,
      MCH5100_WAIT_NS },
    /* illumos intel_nb5000 SPD_RD()/SPDCMD_WR(): function 0 of device
     * 21/22 (illumos reads a 5400's memory error logs at function 1,
     * NRECMEMA_RD(): never written here). */
    { MCH5400_FBD0, 0, "5400 branch 0", { MCH_SPD_STATUS(0), MCH_SPD_STATUS(1) },
      { MCH_SPD_CMD(0), MCH_SPD_CMD(1) }, false, 0, 4, MCH_SPD_WAIT_NS },
    { MCH5400_FBD1, 0, "5400 branch 1", { MCH_SPD_STATUS(0), MCH_SPD_STATUS(1) },
      { MCH_SPD_CMD(0), MCH_SPD_CMD(1) }, false, 1, 4, MCH_SPD_WAIT_NS },
    { MCH7300_FB0, 0, "7300 branch 0", { MCH_SPD_STATUS(0), MCH_SPD_STATUS(1) },
      { MCH_SPD_CMD(0), MCH_SPD_CMD(1) }, false, 0, 8, MCH_SPD_WAIT_NS },
    { MCH7300_FB1, 0, "7300 branch 1", { MCH_SPD_STATUS(0), MCH_SPD_STATUS(1) },
      { MCH_SPD_CMD(0), MCH_SPD_CMD(1) }, false, 1, 8, MCH_SPD_WAIT_NS },
};

static const struct mch_kind *kind_of(const struct pci_func *f)
{
    if (f->vendor != 0x8086)
        return NULL;
    for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
        if (f->device == kinds[k].device && (kinds[k].function < 0 || f->addr.fn == kinds[k].function))
            return &kinds[k];
    return NULL;
}

bool spd_mch_present(const struct pci_list *l)
{
    for (int i = 0; i < l->count; i++)
        if (kind_of(&l->funcs[i]))
            return true;
    return false;
}

/* Wait until the channel's SPD status shows BUSY clear and, when done is
 * not 0, one of the done bits set; the status read last into *status. The
 * deadline is sampled before each read, so a poller preempted past it
 * still sees a command that completed. */
static int wait_status(const struct mch_kind *k, struct pci_addr a, unsigned ch, uint16_t done, uint16_t *status)
{
    uint64_t deadline = plat_now_ns() + k->wait_ns;

    for (;;) {
        bool late = plat_now_ns() > deadline;
        *status = plat_pci_read16(a, k->status[ch]);
        if (!(*status & MCH_SPD_BUSY) && (!done || (*status & done)))
            return BM_OK;
        if (late)
            return BM_ETIMEDOUT;
        plat_delay_ns(10000);
    }
}

enum mch_byte_err { MCH_OK, MCH_BUSY_BEFORE, MCH_BUSY_AFTER, MCH_NACK, MCH_NO_DATA };

/* Read one SPD byte of the DIMM in slot on channel ch: the read command
 * only, never while BUSY. */
static enum mch_byte_err mch_read_byte(const struct mch_kind *k, struct pci_addr a, unsigned ch, unsigned slot,
                                       uint8_t off, uint8_t *out)
{
    uint16_t st;
    unsigned sa = k->shared ? ch * 4 + (slot & 3) : slot & 7;
    uint32_t cmd = MCH_SPDCMD_DTI_SPD | MCH_SPDCMD_CKOVRD | (uint32_t)(sa & 7) << 24 | (uint32_t)off << 16;

    if (wait_status(k, a, ch, 0, &st) != BM_OK)
        return MCH_BUSY_BEFORE;
    cmd &= ~MCH_SPDCMD_WRITE;
    plat_pci_write32(a, k->cmd[ch], cmd);
    /* 5000X datasheet 5.16.5.1: a command has completed when RDO, WOD or
     * SBE is set (the MCH clears them when it starts one); BUSY clear
     * alone may be a command not yet shown. As illumos read_spd_eeprom(),
     * poll on for a completion field, within the same bound. */
    if (wait_status(k, a, ch, MCH_SPD_RDO | MCH_SPD_WOD | MCH_SPD_SBE, &st) != BM_OK)
        return st & MCH_SPD_BUSY ? MCH_BUSY_AFTER : MCH_NO_DATA;
    if (st & MCH_SPD_SBE)
        return MCH_NACK;
    if (!(st & MCH_SPD_RDO))
        return MCH_NO_DATA;
    *out = (uint8_t)st;
    return MCH_OK;
}

/* Read one DIMM's image into r. Returns the byte error that stopped it
 * (MCH_NACK at byte 2: no DIMM). */
static enum mch_byte_err read_dimm(const struct mch_kind *k, struct pci_addr a, unsigned ch, unsigned slot,
                                   struct spd_raw *r)
{
    enum mch_byte_err e;
    uint8_t key;
    size_t want;

    /* As coreboot: the memory type byte first; no answer, no DIMM. */
    e = mch_read_byte(k, a, ch, slot, 2, &key);
    if (e != MCH_OK)
        return e;
    r->present = true;
    want = spd_bytes_wanted(key);
    if (want == 0 || want > SPD_MAX_BYTES)
        want = 3;
    for (size_t i = 0; i < want; i++) {
        e = mch_read_byte(k, a, ch, slot, (uint8_t)i, &r->data[i]);
        if (e != MCH_OK)
            break;
        r->len = i + 1;
    }
    if (e == MCH_OK && r->data[2] != key) {
        snprintf(r->note, sizeof(r->note), "SPD %s 0x%02x: key byte changed during the read (0x%02x, then 0x%02x)",
                 r->where, r->addr, key, r->data[2]);
        r->rc = BM_EIO;
    }
    return e;
}

/* The words for a byte error. */
static const char *err_text(enum mch_byte_err e)
{
    switch (e) {
    case MCH_BUSY_BEFORE:
        return "the SPD status stayed BUSY before a command could be written";
    case MCH_BUSY_AFTER:
        return "the SPD status stayed BUSY after the read command";
    case MCH_NACK:
        return "SPD bus error (no acknowledge)";
    case MCH_NO_DATA:
        return "the read gave no read data (RDO not set within the wait)";
    default:
        return "ok";
    }
}

int spd_mch_read(const struct pci_list *l, struct spd_raw *raw, unsigned cap, char *note, size_t note_len)
{
    unsigned n = 0;
    size_t nl = 0;
    bool any = false;
    char bdf[16];

    if (note_len)
        note[0] = '\0';
    for (int i = 0; i < l->count; i++) {
        const struct pci_func *f = &l->funcs[i];
        const struct mch_kind *k = kind_of(f);
        bool stuck = false;

        if (!k)
            continue;
        any = true;
        pci_addr_str(f->addr, bdf, sizeof(bdf));
        for (unsigned ch = 0; ch < 2 && !stuck; ch++) {
            for (unsigned slot = 0; slot < k->slots && n < cap; slot++) {
                struct spd_raw *r = &raw[n];
                enum mch_byte_err e;

                memset(r, 0, sizeof(*r));
                r->addr = (uint8_t)(0x50 + (k->shared ? ch * 4 + slot : slot));
                if (k->branch >= 0)
                    snprintf(r->where, sizeof(r->where), "b%uc%u", k->branch & 1u, ch);
                else
                    snprintf(r->where, sizeof(r->where), "c%u", ch);
                e = read_dimm(k, f->addr, ch, slot, r);
                if (r->present) {
                    if (e != MCH_OK) {
                        r->rc = e == MCH_NACK ? BM_EIO : BM_ETIMEDOUT;
                        snprintf(r->note, sizeof(r->note), "SPD %s 0x%02x: read stopped at byte %zu: %s", r->where,
                                 r->addr, r->len, err_text(e));
                    }
                    n++;
                }
                if (e == MCH_BUSY_BEFORE || e == MCH_BUSY_AFTER) {
                    /* The controller is stuck: issue nothing more on it
                     * (on a shared pair, on either channel). */
                    if (nl < note_len)
                        nl += (size_t)snprintf(note + nl, note_len - nl, "%sMCH %s (%s, 8086:%04x)%s channel %u: "
                                               "%s (%u ms) at slot %u; %s not read further", nl ? "; " : "", bdf,
                                               k->name, k->device, k->branch == 1 ? " branch 1" :
                                               k->branch == 0 ? " branch 0" : "", ch, err_text(e),
                                               (unsigned)(k->wait_ns / 1000000ull), slot,
                                               k->shared ? "the SPD registers were" : "channel");
                    stuck = k->shared;
                    break;
                }
            }
        }
    }
    return any ? (int)n : BM_ENODEV;
}
