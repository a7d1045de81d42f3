/* The instant AHCI HBA (see ahci_instant.h). Facts from Serial ATA AHCI
 * 1.3.1, SATA 3.x section 10.5 (FISes) and ACS-3 (commands, IDENTIFY);
 * the full fault model of the driver is tests/unit/test_ahci_model.c. */
#include "ahci_instant.h"
#include "sata_model.h"

/* More of the spec's names (sata_model.h has those both models use). */
#define CAP_NCS_32 (31u << 8)         /* 3.1.1: 32 command slots, 0-based */
#define IS_OFS (1u << 24)
#define IS_HBDS (1u << 28)
#define SIG_ATA 0x00000101u           /* 3.3.9 */

/* IDENTIFY DEVICE (ACS-3 7.12.7): LBA48, DMA, NCQ depth 32, 512-byte
 * sectors, no GPL (recovery from a queued error is then a port reset). */
static void identify_data(const struct ahci_instant *m, uint8_t id[512])
{
    memset(id, 0, 512);
    sata_model_put_word(id, 0, 0x0040);
    sata_model_put_string(id, 10, 10, "AHCI-INSTANT-1");
    sata_model_put_string(id, 23, 4, "1.0");
    sata_model_put_string(id, 27, 20, "Baremark Instant SATA");
    sata_model_put_word(id, 49, 3u << 8);        /* LBA, DMA */
    sata_model_put_word(id, 60, 0xffff);
    sata_model_put_word(id, 61, 0x0fff);
    sata_model_put_word(id, 75, 31);
    sata_model_put_word(id, 76, 1u << 8 | 1u << 3); /* NCQ, Gen3 */
    sata_model_put_word(id, 83, 0x4000 | 1u << 10); /* 48-bit addressing */
    sata_model_put_word(id, 86, 1u << 10);
    for (unsigned i = 0; i < 4; i++)
        sata_model_put_word(id, 100 + i, (uint16_t)(m->blocks >> (16 * i)));
    sata_model_put_word(id, 106, 0x4000);
    id[510] = 0xa5;                   /* integrity word: signature, checksum */
    sata_model_checksum(id);
}

/* A fatal condition (6.2.2): the port stops processing its list. */
static void port_fault(struct ahci_instant_port *p, uint32_t is_bit)
{
    p->is |= is_bit;
    p->halted = true;
}

/* A Register D2H FIS: PxTFD, and TFES when the disk reports ERR. */
static void send_d2h(struct ahci_instant_port *p, uint8_t sts, uint8_t err)
{
    uint8_t *r = (p->cmd & CMD_FRE) ? sata_model_mem(p->fb, p->fbu) : NULL;

    if (r) {
        memset(r + RFIS_RFIS, 0, 20);
        r[RFIS_RFIS] = FIS_D2H;
        r[RFIS_RFIS + 2] = sts;
        r[RFIS_RFIS + 3] = err;
    }
    p->tfd = sts | (uint32_t)err << 8;
    p->is |= IS_DHRS;
    if (sts & STS_ERR)
        port_fault(p, IS_TFES);
}

/* A Set Device Bits FIS (3.3.13: clears the PxSACT bits it names). */
static void send_sdb(struct ahci_instant_port *p, uint32_t done, uint8_t sts, uint8_t err)
{
    uint8_t *r = (p->cmd & CMD_FRE) ? sata_model_mem(p->fb, p->fbu) : NULL;

    if (r) {
        r[RFIS_SDBFIS] = FIS_SDB;
        r[RFIS_SDBFIS + 1] = 0x40;
        r[RFIS_SDBFIS + 2] = sts & 0x77;
        r[RFIS_SDBFIS + 3] = err;
        memcpy(r + RFIS_SDBFIS + 4, &done, 4);
    }
    p->sact &= ~done;
    p->tfd = (p->tfd & ~0xff77u) | (sts & 0x77u) | (uint32_t)err << 8;
    p->is |= IS_SDBS;
    if (sts & STS_ERR)
        port_fault(p, IS_TFES);
}

/* The PRD table of a command (4.2.3.3): the bytes it can hold, or -1 when
 * the HBA could not use it. */
static int64_t prdt_bytes(const uint8_t *table, unsigned prdtl)
{
    int64_t total = 0;

    if (prdtl == 0)
        return -1;
    for (unsigned i = 0; i < prdtl; i++) {
        const uint8_t *e = table + 0x80 + 16 * i;
        uint32_t dbc = sata_model_le32(e + 12) & 0x3fffff;
        if ((sata_model_le32(e) & 1) || !(dbc & 1))
            return -1;                /* data base word aligned; an even byte count */
        total += dbc + 1;
    }
    return total;
}

/* A queued read or write in slot s (5.3.2, ACS-3 7.22): accepted (the
 * D2H FIS that clears PxCI) and finished (the SDB FIS) at once. */
static void run_fpdma(struct ahci_instant *m, struct ahci_instant_port *p, unsigned s, const uint8_t *f,
                      int64_t room)
{
    uint64_t lba = (uint64_t)f[4] | (uint64_t)f[5] << 8 | (uint64_t)f[6] << 16 | (uint64_t)f[8] << 24 |
                   (uint64_t)f[9] << 32 | (uint64_t)f[10] << 40;
    uint32_t blocks = (uint32_t)(f[3] | f[11] << 8), bit = 1u << s;

    blocks = blocks ? blocks : 65536;
    if (!(p->sact & bit) || (f[12] >> 3) != s) {
        m->not_issued++;              /* no PxSACT bit, or a tag that is not the slot */
        port_fault(p, IS_IFS);
        return;
    }
    if (room < 0 || (uint64_t)room < (uint64_t)blocks * 512) {
        m->bad_prdt++;
        port_fault(p, room < 0 ? IS_HBDS : IS_OFS);
        return;
    }
    p->ci &= ~bit;
    p->is |= IS_DHRS;
    if (lba >= m->blocks || blocks > m->blocks - lba) {
        m->io_refused++;              /* the disk aborts every queued command */
        send_sdb(p, 0, STS_DRDY | STS_ERR, ERR_IDNF);
        return;
    }
    m->io_done++;
    send_sdb(p, bit, STS_DRDY, 0);
}

/* The command in slot s of port p (4.2.2 header, 4.2.3 command table). */
static void run_slot(struct ahci_instant *m, struct ahci_instant_port *p, unsigned s)
{
    uint8_t *hdr = (uint8_t *)sata_model_mem(p->clb, p->clbu) + 32 * s, *r, id[512];
    uint32_t ctba = sata_model_le32(hdr + 8), prdtl = sata_model_le32(hdr) >> 16, bit = 1u << s, got;
    const uint8_t *f = sata_model_mem(ctba, sata_model_le32(hdr + 12));
    int64_t room;

    if (ctba & 0x7f) {
        m->bad_prdt++;                /* CTBA bits 6:0 are reserved */
        port_fault(p, IS_HBDS);
        return;
    }
    if (f[0] != FIS_H2D || !(f[1] & 0x80)) {
        m->bad_fis++;                 /* not a command: the disk answers R_ERR */
        port_fault(p, IS_IFS);
        return;
    }
    room = prdt_bytes(f, prdtl);
    switch (f[2]) {
    case ATA_READ_FPDMA:
    case ATA_WRITE_FPDMA:
        run_fpdma(m, p, s, f, room);
        return;
    case ATA_IDENTIFY:
        if (room < 512) {
            m->bad_prdt++;
            port_fault(p, room < 0 ? IS_HBDS : IS_OFS);
            return;
        }
        identify_data(m, id);
        got = sata_model_prdt_copy_in(f, prdtl, id, 512);
        memcpy(hdr + 4, &got, 4);     /* PRDBC */
        if ((r = (p->cmd & CMD_FRE) ? sata_model_mem(p->fb, p->fbu) : NULL) != NULL) {
            memset(r + RFIS_PSFIS, 0, 20);
            r[RFIS_PSFIS] = FIS_PIO_SETUP;
            r[RFIS_PSFIS + 1] = 0x60;
            r[RFIS_PSFIS + 15] = STS_DRDY;
        }
        p->tfd = STS_DRDY;
        p->is |= IS_PSS;
        p->ci &= ~bit;
        return;
    default:
        m->io_refused++;
        send_d2h(p, STS_DRDY | STS_ERR, ERR_ABRT);
        return;
    }
}

/* COMRESET released (PxSCTL.DET 1 -> 0, 10.4.2) or the HBA reset: the
 * disk's queue is gone, the link is up and the disk ready at once. */
static void link_up(struct ahci_instant_port *p, bool present)
{
    p->sact = p->ci = 0;
    p->ssts = present ? SSTS_UP_GEN3 : 0;
    p->sig = present ? SIG_ATA : 0xffffffffu;
    p->tfd = present ? STS_DRDY : 0x7f;
}

static void write_cmd(struct ahci_instant *m, struct ahci_instant_port *p, uint32_t v)
{
    uint32_t old = p->cmd;

    if (sata_model_start_refused(old, v)) {
        m->refused++;
        v &= ~CMD_ST;
    }
    p->cmd = (v & ~(CMD_CR | CMD_FR | CMD_CLO)) | (v & CMD_FRE ? CMD_FR : 0);
    if (v & CMD_CLO)
        p->tfd &= ~0x88u;             /* 3.3.7: CLO clears BSY and DRQ */
    if (v & CMD_ST)
        p->cmd |= CMD_CR;
    else if (old & CMD_ST) {
        p->ci = p->sact = 0;          /* 3.3.13, 3.3.14: ST 1 -> 0 */
        p->halted = false;
    }
}

static void port_write(struct ahci_instant *m, unsigned n, uint32_t reg, uint32_t v)
{
    struct ahci_instant_port *p = &m->port[n];
    uint32_t issue;

    switch (reg) {
    case P_CLB: p->clb = v & ~0x3ffu; return;
    case P_CLBU: p->clbu = v; return;
    case P_FB: p->fb = v & ~0xffu; return;
    case P_FBU: p->fbu = v; return;
    case P_IS: p->is &= ~v; return;   /* RWC */
    case P_SERR: p->serr &= ~v; return;
    case P_CMD: write_cmd(m, p, v); return;
    case P_SCTL:
        if (sata_model_det_refused(p->cmd, p->sctl, v)) {
            m->refused++;
            return;
        }
        if ((v & 0xf) == 0 && (p->sctl & 0xf) == 1 && !(p->cmd & CMD_ST))
            link_up(p, n == 0 || n == AHCI_INSTANT_BENCH_PORT);
        p->sctl = v;
        return;
    case P_SACT:
        if (sata_model_issue_refused(p->cmd))
            m->refused += v != 0;
        else
            p->sact |= v;             /* 3.3.13: write 1 to set */
        return;
    case P_CI:
        issue = v & ~p->ci;
        if (sata_model_issue_refused(p->cmd)) {
            m->refused += v != 0;
            return;
        }
        if (!issue)
            return;
        m->ci_writes++;
        p->ci |= issue;
        for (; issue && !p->halted; issue &= issue - 1)
            run_slot(m, p, (unsigned)__builtin_ctz(issue));
        return;
    }
}

static uint32_t port_read(const struct ahci_instant_port *p, uint32_t reg)
{
    switch (reg) {
    case P_CLB: return p->clb;
    case P_CLBU: return p->clbu;
    case P_FB: return p->fb;
    case P_FBU: return p->fbu;
    case P_IS: return p->is;
    case P_CMD: return p->cmd | CMD_SUD | CMD_POD;
    case P_TFD: return p->tfd;
    case P_SIG: return p->sig;
    case P_SSTS: return p->ssts;
    case P_SCTL: return p->sctl;
    case P_SERR: return p->serr;
    case P_SACT: return p->sact;
    case P_CI: return p->ci;
    }
    return 0;
}

static uint32_t ahci_model_read(void *ctx, int bar, uint32_t off)
{
    struct ahci_instant *m = ctx;
    uint32_t is = 0;

    (void)bar;
    m->reg_reads++;
    if (off >= 0x100 && off < 0x100 + 0x80 * AHCI_INSTANT_PORTS)
        return port_read(&m->port[(off - 0x100) / 0x80], (off - 0x100) % 0x80);
    switch (off) {
    case 0x00: return m->cap;
    case 0x04: return m->ghc;
    case 0x08:
        for (unsigned n = 0; n < AHCI_INSTANT_PORTS; n++)
            is |= m->port[n].is ? 1u << n : 0;
        return is;
    case 0x0c: return m->pi;
    case 0x10: return 0x00010301;     /* AHCI 1.3.1 */
    }
    return 0;
}

static void ahci_model_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct ahci_instant *m = ctx;

    (void)bar;
    m->reg_writes++;
    if (off >= 0x100 && off < 0x100 + 0x80 * AHCI_INSTANT_PORTS) {
        port_write(m, (off - 0x100) / 0x80, (off - 0x100) % 0x80, v);
        return;
    }
    if (off != 0x04)
        return;                       /* CAP, PI: HwInit */
    if (v & GHC_HR) {
        /* 10.4.3: every port back to reset, links retrained; AE clears. */
        m->ghc = 0;
        for (unsigned n = 0; n < AHCI_INSTANT_PORTS; n++) {
            struct ahci_instant_port *p = &m->port[n];
            memset(p, 0, sizeof(*p));
            link_up(p, n == 0 || n == AHCI_INSTANT_BENCH_PORT);
        }
        return;
    }
    m->ghc = v & (GHC_AE | 2u);
}

void ahci_instant_attach(struct ahci_instant *m, struct pci_addr a, uint64_t blocks)
{
    memset(m, 0, sizeof(*m));
    m->dev.addr = a;
    m->dev.ctx = m;
    m->dev.mmio_read32 = ahci_model_read;
    m->dev.mmio_write32 = ahci_model_write;
    m->dev.bar_size[5] = 0x1000;
    m->dev.config[0] = 0x86, m->dev.config[1] = 0x80; /* 8086:2922, ICH9 AHCI */
    m->dev.config[2] = 0x22, m->dev.config[3] = 0x29;
    m->dev.config[9] = 0x01, m->dev.config[10] = 0x06, m->dev.config[11] = 0x01;
    m->cap = CAP_S64A | CAP_SNCQ | CAP_SCLO | CAP_ISS_GEN3 | CAP_NCS_32 | (AHCI_INSTANT_PORTS - 1);
    m->pi = 1u;                       /* port 1 is the benchmark's own */
    m->ghc = GHC_AE;
    m->blocks = blocks;
    for (unsigned n = 0; n < AHCI_INSTANT_PORTS; n++)
        link_up(&m->port[n], true);
    plat_sim_attach(&m->dev);
}

void ahci_instant_detach(struct ahci_instant *m)
{
    plat_sim_detach(&m->dev);
}
