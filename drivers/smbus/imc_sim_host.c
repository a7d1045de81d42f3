/* The simulated Xeon IMC SMBus function (imc_sim.h). */
#include "imc_sim.h"
#include "lib/bmlib.h"

/* E5 v1-v4 (FreeBSD imcsmb_reg.h; Linux i2c-imc). */
#define E5_STAT(b) (0x180u + 0x10u * (b))
#define E5_CMD(b) (0x184u + 0x10u * (b))
#define E5_CNTL(b) (0x188u + 0x10u * (b))
#define E5_RDO 0x80000000u
#define E5_WOD 0x40000000u
#define E5_SBE 0x20000000u
#define E5_BUSY 0x10000000u
#define E5_TRIGGER 0x80000000u
#define E5_PNTR_SEL 0x40000000u
#define E5_WORD 0x20000000u
#define E5_TYPE 0x18000000u
#define E5_DTI 0xf0000000u
#define E5_CKOVRD 0x08000000u
#define E5_POLL_EN 0x00000100u
/* Xeon Scalable (Purley SMB_*_CFG_*_PCU_FUN5). */
#define SKX_CMD(b) (0x9cu + 4u * (b))
#define SKX_STAT(b) (0xa8u + 4u * (b))
#define SKX_DATA(b) (0xb4u + 4u * (b))
#define SKX_BUSY 0x1u
#define SKX_SBE 0x2u
#define SKX_RDO 0x4u
#define SKX_WOD 0x8u
#define SKX_DTI (0xfu << 11)
#define SKX_WRT (3u << 15)
#define SKX_WORD (1u << 17)
#define SKX_PNTR (1u << 18)
#define SKX_TRIGGER (1u << 19)
#define SKX_POLL_EN (1u << 20)
#define SKX_CKOVRD (1u << 29)

static uint32_t get32(const struct imc_sim *m, unsigned off)
{
    uint32_t v;
    memcpy(&v, &m->pci.config[off], 4);
    return v;
}

static void put32(struct imc_sim *m, unsigned off, uint32_t v)
{
    memcpy(&m->pci.config[off], &v, 4);
}

static unsigned stat_off(const struct imc_sim *m, unsigned b) { return m->skx ? SKX_STAT(b) : E5_STAT(b); }
static unsigned cntl_off(const struct imc_sim *m, unsigned b) { return m->skx ? SKX_CMD(b) : E5_CNTL(b); }
static uint32_t busy_bit(const struct imc_sim *m) { return m->skx ? SKX_BUSY : E5_BUSY; }
static uint32_t sbe_bit(const struct imc_sim *m) { return m->skx ? SKX_SBE : E5_SBE; }
static uint32_t poll_bit(const struct imc_sim *m) { return m->skx ? SKX_POLL_EN : E5_POLL_EN; }

static void trace(struct imc_sim *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void trace(struct imc_sim *m, const char *fmt, ...)
{
    char line[200];
    va_list ap;

    if (!m->trace)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    m->trace(m->trace_ctx, line);
}

/* Is the IMC polling the thermal sensors now (enabled, no SBE)? */
static bool polling(const struct imc_sim *m, unsigned b)
{
    return (m->bus[b].shadow & poll_bit(m)) && !(m->bus[b].stat & sbe_bit(m));
}

/* A status read: time passes; a command, a poll, another master move on. */
static void model_read(void *ctx, uint16_t off, unsigned bytes)
{
    struct imc_sim *m = ctx;
    struct imc_sim_bus *bm;
    unsigned b;

    (void)bytes;
    if (off == stat_off(m, 0))
        b = 0;
    else if (off == stat_off(m, 1))
        b = 1;
    else
        return;
    bm = &m->bus[b];
    plat_sim_advance_ns(20000);   /* a config read and a bit of the bus's 100 kHz */
    bm->stat &= ~busy_bit(m);
    if (bm->running) {
        if (!bm->stuck && bm->busy_left-- == 0) {
            bm->running = false;
            bm->stat = bm->result;
            bm->data = bm->result_data;
        } else {
            bm->stat |= busy_bit(m);
        }
    } else if (bm->foreign_busy) {
        bm->stat |= busy_bit(m);
        if (bm->foreign_busy != ~0u)
            bm->foreign_busy--;
    } else if (bm->poll_left) {
        bm->poll_left--;
        bm->stat |= busy_bit(m);
    } else if (polling(m, b) && bm->poll_period && ++bm->poll_reads % bm->poll_period == 0) {
        bm->poll_left = 2;        /* a thermal sensor read takes a few polls */
        bm->stat |= busy_bit(m);
    }
    put32(m, off, bm->stat);
    if (m->skx)
        put32(m, SKX_DATA(b), bm->data);
}

/* The poll enable moved from was to now. */
static void poll_changed(struct imc_sim_bus *bm, bool was, bool now)
{
    if (was && !now) {
        bm->paused = true;
        bm->paused_at = plat_now_ns();
        if (bm->poll_left)
            bm->poll_left += bm->tail;   /* the poll in flight ends first */
    } else if (!was && now && bm->paused) {
        uint64_t d = plat_now_ns() - bm->paused_at;
        bm->paused = false;
        if (d > bm->max_pause_ns)
            bm->max_pause_ns = d;
    }
}

/* Start (or refuse) a command. */
static void trigger(struct imc_sim *m, unsigned b, uint32_t type, bool word, bool pntr, unsigned dti, unsigned sa,
                    unsigned ba, bool poll_on)
{
    struct imc_sim_bus *bm = &m->bus[b];
    const char *refused = NULL;

    if (poll_on && !(bm->stat & sbe_bit(m)))
        bm->cmd_while_polling++, refused = "the thermal polling is on";
    else if (bm->running || bm->foreign_busy || bm->poll_left || (bm->stat & busy_bit(m)))
        bm->cmd_while_busy++, refused = "the bus is BUSY";
    else if (type)
        bm->write_cmd++, refused = "a write command";
    else if (word)
        bm->word_cmd++, refused = "a word access";
    else if (pntr)
        bm->pntr_cmd++, refused = "a pointer access";
    else if (dti != 0xa)
        bm->bad_dti++, refused = "a device type other than the SPD EEPROM's";
    if (refused) {
        trace(m, "    controller %u: command REFUSED (%s)", b, refused);
        return;
    }
    bm->commands++;
    bm->running = true;
    bm->busy_left = bm->cmd_busy_reads;
    bm->stat = busy_bit(m);   /* RDO, WOD, SBE cleared as the command starts */
    if (bm->dimm[sa] && (!bm->nack_from[sa] || ba < bm->nack_from[sa])) {
        uint8_t v = bm->dimm[sa][ba];
        bm->reads_ok++;
        /* Linux i2c-imc: a successful read sets WOD as well as RDO. */
        bm->result = m->skx ? SKX_RDO | SKX_WOD : E5_RDO | E5_WOD | 0xab00u | v;
        bm->result_data = m->skx ? 0xab00u | v : 0;
        trace(m, "    controller %u: read 0x%02x byte %u = 0x%02x", b, 0x50 + sa, ba, v);
    } else {
        bm->nacks++;
        bm->result = sbe_bit(m);
        bm->result_data = 0;
        trace(m, "    controller %u: read 0x%02x byte %u: no acknowledge (SBE)", b, 0x50 + sa, ba);
    }
    if (bm->foreign_write_after && bm->commands == bm->foreign_write_after) {
        /* Another master (SMM, a BMC) points the device type elsewhere. */
        uint32_t dti_mask = m->skx ? SKX_DTI : E5_DTI;
        uint32_t v = (bm->shadow & ~dti_mask) | (m->skx ? 0x3u << 11 : 0x3u << 28);
        bm->shadow = v;
        put32(m, cntl_off(m, b), v);
    }
}

/* A control register write: only the poll enable and the device type may
 * change (on Scalable, the command fields of the same register too). */
static void cntl_written(struct imc_sim *m, unsigned b, uint32_t v)
{
    struct imc_sim_bus *bm = &m->bus[b];
    uint32_t old = bm->shadow, pe = poll_bit(m);
    uint32_t allowed = m->skx ? (0x7ffu | SKX_DTI | SKX_WRT | SKX_WORD | SKX_PNTR | SKX_TRIGGER | SKX_POLL_EN)
                              : (E5_DTI | E5_POLL_EN);

    trace(m, "  write %s%u = 0x%08x", m->skx ? "SMB_CMD_CFG_" : "SMBCNTL_", b, v);
    if ((v ^ old) & ~allowed) {
        bm->bad_bits++;
        trace(m, "    controller %u: FORBIDDEN change of control bits 0x%08x", b, (v ^ old) & ~allowed);
        v = (v & allowed) | (old & ~allowed);   /* the model keeps them */
    }
    if (bm->poll_locked && (old & pe) && !(v & pe))
        v |= pe;                                 /* CLTT lock: the bit stays */
    poll_changed(bm, old & pe, v & pe);
    if (m->skx && (v & SKX_TRIGGER)) {
        trigger(m, b, v & SKX_WRT, v & SKX_WORD, v & SKX_PNTR, (v >> 11) & 0xf, (v >> 8) & 7, v & 0xff, v & pe);
        v &= ~SKX_TRIGGER;
    }
    bm->shadow = v;
    put32(m, cntl_off(m, b), v);
}

static void model_written(void *ctx, uint16_t off, unsigned bytes)
{
    struct imc_sim *m = ctx;

    for (unsigned b = 0; b < 2; b++) {
        if (bytes != 4)
            break;
        if (off == cntl_off(m, b)) {
            cntl_written(m, b, get32(m, off));
            return;
        }
        if (!m->skx && off == E5_CMD(b)) {
            uint32_t v = get32(m, off), cntl = m->bus[b].shadow;
            trace(m, "  write SMBCMD_%u = 0x%08x", b, v);
            if (v & E5_TRIGGER) {
                trigger(m, b, v & E5_TYPE, v & E5_WORD, v & E5_PNTR_SEL, cntl >> 28, (v >> 24) & 7, (v >> 16) & 0xff,
                        cntl & E5_POLL_EN);
                put32(m, off, v & ~E5_TRIGGER);   /* the controller clears it */
            }
            return;
        }
    }
    trace(m, "  FORBIDDEN write of %u bytes at 0x%03x", bytes, off);
    m->other_writes++;
}

void imc_sim_init(struct imc_sim *m, uint16_t device, struct pci_addr a, bool skx)
{
    memset(m, 0, sizeof(*m));
    m->skx = skx;
    m->pci.addr = a;
    m->pci.ctx = m;
    m->pci.config_read = model_read;
    m->pci.config_written = model_written;
    m->pci.config[0] = 0x86, m->pci.config[1] = 0x80;
    m->pci.config[2] = (uint8_t)device, m->pci.config[3] = (uint8_t)(device >> 8);
    m->pci.config[0x0a] = 0x80, m->pci.config[0x0b] = 0x08;   /* system peripheral */
    for (unsigned b = 0; b < 2; b++) {
        struct imc_sim_bus *bm = &m->bus[b];
        uint32_t cntl = skx ? (SKX_CKOVRD | SKX_POLL_EN | 0x3u << 11) : (0x3u << 28 | E5_CKOVRD | E5_POLL_EN | 0x3fu);
        uint32_t cmd = skx ? cntl : E5_PNTR_SEL | 0x05u << 16;   /* the poller's pointer read of register 5 */

        bm->cmd_busy_reads = 2;
        bm->poll_period = 7;
        bm->tail = 1;
        put32(m, cntl_off(m, b), cntl);
        if (!skx)
            put32(m, E5_CMD(b), cmd);
        bm->shadow = bm->found_cntl = cntl;
        bm->found_cmd = cmd;
    }
}

void imc_sim_poll_off(struct imc_sim *m, unsigned b)
{
    struct imc_sim_bus *bm = &m->bus[b];
    uint32_t v = bm->shadow & ~poll_bit(m);

    bm->shadow = bm->found_cntl = v;
    put32(m, cntl_off(m, b), v);
    if (m->skx)
        bm->found_cmd = v;
}

void imc_sim_attach(struct imc_sim *m)
{
    plat_sim_attach(&m->pci);
}

void imc_sim_detach(struct imc_sim *m)
{
    plat_sim_detach(&m->pci);
}

unsigned imc_sim_violations(const struct imc_sim *m, unsigned b)
{
    const struct imc_sim_bus *bm = &m->bus[b];

    return m->other_writes + bm->cmd_while_polling + bm->cmd_while_busy + bm->write_cmd + bm->word_cmd +
           bm->pntr_cmd + bm->bad_dti + bm->bad_bits;
}

bool imc_sim_left_as_found(const struct imc_sim *m, unsigned b, char *why, size_t cap)
{
    const struct imc_sim_bus *bm = &m->bus[b];
    bool any = false;

    for (int s = 0; s < 8; s++)
        any |= bm->dimm[s] != NULL;
    if (get32(m, cntl_off(m, b)) != bm->found_cntl)
        snprintf(why, cap, "controller %u: control register 0x%08x at the end, 0x%08x at the start", b,
                 get32(m, cntl_off(m, b)), bm->found_cntl);
    else if (!m->skx && get32(m, E5_CMD(b)) != bm->found_cmd)
        snprintf(why, cap, "controller %u: SMBCMD 0x%08x at the end, 0x%08x at the start", b, get32(m, E5_CMD(b)),
                 bm->found_cmd);
    else if (bm->paused)
        snprintf(why, cap, "controller %u: thermal polling left paused", b);
    else if (any && (bm->stat & sbe_bit(m)))
        snprintf(why, cap, "controller %u: SBE left set (the thermal polling stays stopped)", b);
    else
        return true;
    return false;
}
