/* Native AHCI driver (Serial ATA AHCI 1.3.1; commands from ACS-3; link and
 * device bring-up as Linux libata/libahci do it).
 *
 * probe: take the HBA from the firmware, enable AHCI mode, keep its
 * firmware-written registers, GHC.HR reset and write them back; then for
 * every port in PI: program the command list and received-FIS area, power
 * it up, and COMRESET all ports at once (debounced, with libata's 10/10/35 s
 * deadlines for the device's first FIS); read each device's signature and
 * IDENTIFY each ATA disk (spinning up a Power-Up-In-Standby drive first).
 * Ports with a device that did not come up are named in the probe's err.
 * I/O: READ/WRITE FPDMA QUEUED with tag = slot = the engine's tag when both
 * the HBA (CAP.SNCQ) and the disk do NCQ, else READ/WRITE DMA EXT one at a
 * time (READ/WRITE DMA, 28-bit, on a disk without 48-bit addressing).
 * poll() reaps finished slots, turns errors into completions (section
 * 6.2.2 recovery) and times out commands that never finish. release():
 * stop every port and hand the HBA back.
 */
#include "ahci.h"
#include "ahci_cmd.h"
#include "ahci_regs.h"
#include "ata.h"
#include "../pci.h"

#include <stdarg.h>

/* ---- Limits and timeouts ----------------------------------------------------------- */

#define MS(x) ((uint64_t)(x) * 1000000ull)
#define AHCI_HBA_RESET_MS 1000     /* GHC.HR clears within 1 s (section 10.4.3) */
#define AHCI_STOP_MS 500           /* PxCMD.CR and FR clear within 500 ms (section 10.1.2) */
#define AHCI_CLO_MS 500            /* PxCMD.CLO clears when the override is done */
#define AHCI_COMRESET_HOLD_NS 2000000ull /* PxSCTL.DET=1 held at least 1 ms (section 10.4.2) */
/* Link bring-up as Linux libata does it (sata_link_hardreset,
 * sata_link_resume, sata_link_debounce with sata_deb_timing_normal). */
#define AHCI_RESUME_SETTLE_MS 200  /* no SStatus reads this long after DET=0: "some PHYs react badly" */
#define AHCI_RESUME_TRIES 5        /* ATA_LINK_RESUME_TRIES: SControl writes that did not stick */
#define AHCI_DEB_INTERVAL_MS 5     /* SStatus.DET polled this often ... */
#define AHCI_DEB_DURATION_MS 100   /* ... and must hold one value this long */
#define AHCI_DET1_MS 5000          /* DET=1 (device seen, no phy link yet) waited on this long: a link
                                    * that takes seconds (sata_deb_timing_long's 5 s) */
/* Deadline of each hardreset, from the COMRESET to the device's first
 * D2H FIS (BSY clear): Linux ata_eh_reset_timeouts[], "most drives spin up
 * by 10sec", "> 99% ... before 20sec", "> 30 secs of idleness for outlier
 * devices". A port that fails one try is reset again with the next. */
static const unsigned ahci_reset_deadline_ms[] = { 10000, 10000, 35000 };
#define AHCI_RESET_TRIES ((unsigned)ARRAY_SIZE(ahci_reset_deadline_ms))
#define AHCI_RECOVER_READY_MS 10000 /* the same after a COMRESET in error recovery */
#define AHCI_SYNC_CMD_MS 5000      /* IDENTIFY DEVICE, READ LOG EXT, SMART */
#define AHCI_SPINUP_CMD_MS 30000   /* SET FEATURES spin-up (Linux SETFEATURES_SPINUP_TIMEOUT) */
#define AHCI_POLL_NS 10000ull      /* pause between register reads in setup waits */
#define AHCI_ERROR_CHECK_NS 100000ull /* PxIS is read at least this often while commands run */

/* ---- Per-port memory: one allocation, laid out as the spec aligns it ---------------- */

#define AHCI_PRDT_ENTRIES 8        /* a contiguous 4 MiB buffer needs 1 or 2 */
#define AHCI_CMD_TABLE_BYTES (AHCI_CT_PRDT + AHCI_PRDT_ENTRIES * (int)sizeof(struct ahci_prd))
#define AHCI_MEM_CLB 0x0000        /* 32 command headers, 1 KiB aligned */
#define AHCI_MEM_RFIS 0x0400       /* received FIS area, 256 B aligned */
#define AHCI_MEM_TABLES 0x0800     /* 32 command tables, 128 B aligned */
#define AHCI_MEM_SCRATCH (AHCI_MEM_TABLES + AHCI_SLOTS_MAX * AHCI_CMD_TABLE_BYTES) /* IDENTIFY, logs */
#define AHCI_MEM_BYTES (AHCI_MEM_SCRATCH + 2 * ATA_SECTOR_BYTES) /* SMART data + thresholds */

_Static_assert(AHCI_CMD_TABLE_BYTES % AHCI_CMD_TABLE_ALIGN == 0, "command tables stay 128-byte aligned");
_Static_assert(AHCI_MEM_RFIS % AHCI_RFIS_ALIGN == 0 && AHCI_MEM_RFIS >= AHCI_SLOTS_MAX * 32, "FIS area layout");
_Static_assert(AHCI_MEM_TABLES >= AHCI_MEM_RFIS + AHCI_RFIS_BYTES, "tables after the FIS area");

struct ahci_ctrl;

/* What the driver remembers of a command the hardware owns. */
struct ahci_slot {
    uint64_t deadline_ns;
    uint64_t lba;
    uint32_t blocks;
    bool write;
};

struct ahci_port {
    struct ahci_ctrl *ctrl;
    unsigned num;
    volatile void *regs;

    uint8_t *mem;                  /* AHCI_MEM_BYTES of DMA memory */
    struct ahci_cmd_header *hdr;
    uint8_t *rfis;
    uint8_t *tables;
    uint8_t *scratch;

    /* Link bring-up (ports_hardreset) */
    enum ahci_link {
        LINK_PENDING,              /* COMRESET done, DET not settled yet */
        LINK_EMPTY,                /* DET settled at 0 (or 4): nothing attached */
        LINK_UP,                   /* DET=3: waiting for the device's first D2H FIS */
        LINK_READY,                /* BSY and DRQ clear: the device answered */
        LINK_FAILED,               /* a device is there but did not come up: see why */
    } link;
    uint32_t det_last;
    uint64_t det_since_ns;
    char why[96];                  /* LINK_FAILED: what went wrong, for the diagnostic */

    bool started;                  /* PxCMD.ST set by us */
    bool dead;                     /* recovery failed: every submit fails, nothing is reaped */
    bool ncq;
    struct ata_identity id;

    uint32_t busy;                 /* slots the hardware owns */
    uint64_t next_check_ns;        /* earliest deadline among busy slots (or later) */
    uint64_t next_error_check_ns;  /* next look at PxIS while nothing finishes */
    struct ahci_slot slot[AHCI_SLOTS_MAX];
    /* Finished commands not yet handed to the engine: at most one per slot. */
    struct bm_completion done[AHCI_SLOTS_MAX];
    unsigned done_head, done_count;

    struct bm_disk disk;
};

struct ahci_ctrl {
    struct pci_addr addr;
    char bdf[16];
    unsigned index;                /* the N in "ahciNpM" */
    volatile void *abar;
    uint64_t abar_bytes;
    uint32_t cap, cap2, pi, vs;
    struct ahci_port *port[AHCI_MAX_PORTS];
};

/* ---- Register access ------------------------------------------------------------------- */

static uint32_t hba_rd(struct ahci_ctrl *c, uint32_t off) { return mmio_read32(c->abar, off); }
static void hba_wr(struct ahci_ctrl *c, uint32_t off, uint32_t v) { mmio_write32(c->abar, off, v); }
static uint32_t port_rd(struct ahci_port *p, uint32_t off) { return mmio_read32(p->regs, off); }
static void port_wr(struct ahci_port *p, uint32_t off, uint32_t v) { mmio_write32(p->regs, off, v); }

/* A driver diagnostic about a port (efi/platform.h plat_diag): where is
 * the disk once it is registered, else the controller with "port N: ". */
static void port_diag(struct ahci_port *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void port_diag(struct ahci_port *p, const char *fmt, ...)
{
    char msg[320];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (p->disk.ops)
        plat_diag(p->disk.id, "%s", msg);
    else
        plat_diag(p->ctrl->bdf, "port %u: %s", p->num, msg);
}

/* Wait until (register & mask) == want; BM_ETIMEDOUT otherwise. */
static int wait_reg(volatile void *base, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms)
{
    uint64_t deadline = plat_now_ns() + MS(ms);

    for (;;) {
        if ((mmio_read32(base, off) & mask) == want)
            return BM_OK;
        if (plat_now_ns() > deadline)
            return BM_ETIMEDOUT;
        plat_delay_ns(AHCI_POLL_NS);
    }
}

/* wait_reg on a port register, with a diagnostic naming it on a timeout. */
static int port_wait_reg(struct ahci_port *p, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms, const char *what)
{
    int rc = wait_reg(p->regs, off, mask, want, ms);

    if (rc != BM_OK)
        port_diag(p, "timed out after %llu ms waiting for %s", (unsigned long long)ms, what);
    return rc;
}

static uint64_t phys_of(const void *p) { return plat_virt_to_phys(p); }

static unsigned popcount32(uint32_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* ---- HBA ------------------------------------------------------------------------------------ */

/* Set GHC.AE; some HBAs need the write repeated before it sticks (Linux
 * libahci retries five times). */
static int hba_enable_ahci(struct ahci_ctrl *c)
{
    for (int i = 0; i < 5; i++) {
        uint32_t ghc = hba_rd(c, AHCI_GHC);
        if (ghc & AHCI_GHC_AE)
            return BM_OK;
        hba_wr(c, AHCI_GHC, ghc | AHCI_GHC_AE);
        plat_delay_ns(MS(1));
    }
    return (hba_rd(c, AHCI_GHC) & AHCI_GHC_AE) ? BM_OK : BM_EIO;
}

/* Section 10.4.3, as Linux libahci ahci_save_initial_config() and
 * ahci_reset_controller() do it: set GHC.AE before reading anything
 * AHCI-specific (CAP and PI are not valid in legacy mode on some HBAs),
 * keep the firmware-written values (CAP, CAP2, PI and each port's PxCMD
 * capability bits are write-once for the firmware, and some chipsets lose
 * them in GHC.HR), reset, enable AHCI mode again and write them back
 * (ahci_restore_initial_config()). */
static int hba_reset(struct ahci_ctrl *c, char *err, size_t errlen)
{
    uint32_t cap, cap2 = 0, pi, vs, port_caps[AHCI_MAX_PORTS];
    unsigned nports;

    if (hba_enable_ahci(c) != BM_OK) {
        snprintf(err, errlen, "GHC.AE does not stay set: the HBA will not enter AHCI mode");
        return BM_EIO;
    }
    cap = hba_rd(c, AHCI_CAP);
    pi = hba_rd(c, AHCI_PI);
    vs = hba_rd(c, AHCI_VS);
    if (vs >= AHCI_VS_1_2)
        cap2 = hba_rd(c, AHCI_CAP2);
    nports = (cap & AHCI_CAP_NP_MASK) + 1;
    /* PI names the ports wired up; it cannot name more than the silicon
     * has (CAP.NP). libahci: "If PI has more ports than n_ports, whine,
     * clear port_map and let it be generated from n_ports". A PI of 0
     * gets the same (libahci below AHCI 1.3; harmless above). */
    c->pi = pi;
    if (popcount32(pi) > nports) {
        c->pi = (uint32_t)((2ull << (cap & AHCI_CAP_NP_MASK)) - 1);
        plat_diag(c->bdf, "PI 0x%08x names more ports than CAP.NP allows (%u): using ports 0-%u", pi, nports,
                  nports - 1);
    } else if (!pi) {
        c->pi = (uint32_t)((2ull << (cap & AHCI_CAP_NP_MASK)) - 1);
        plat_diag(c->bdf, "PI is 0; assuming ports 0-%u from CAP.NP", nports - 1);
    }
    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++) {
        port_caps[i] = 0;
        if ((c->pi & (1u << i)) && AHCI_PORT_BASE + (i + 1) * AHCI_PORT_STRIDE <= c->abar_bytes)
            port_caps[i] = mmio_read32(c->abar, AHCI_PORT_BASE + i * AHCI_PORT_STRIDE + AHCI_PxCMD) & AHCI_PxCMD_CAPS;
    }

    hba_wr(c, AHCI_GHC, hba_rd(c, AHCI_GHC) | AHCI_GHC_HR);
    (void)hba_rd(c, AHCI_GHC);
    if (wait_reg(c->abar, AHCI_GHC, AHCI_GHC_HR, 0, AHCI_HBA_RESET_MS) != BM_OK) {
        snprintf(err, errlen, "HBA reset: GHC.HR still set after %u ms", AHCI_HBA_RESET_MS);
        return BM_ETIMEDOUT;
    }
    if (hba_enable_ahci(c) != BM_OK) {
        snprintf(err, errlen, "GHC.AE does not stay set after the HBA reset");
        return BM_EIO;
    }
    hba_wr(c, AHCI_CAP, cap);
    if (cap2)
        hba_wr(c, AHCI_CAP2, cap2);
    if (pi)
        hba_wr(c, AHCI_PI, pi);
    (void)hba_rd(c, AHCI_PI);
    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++)
        if (port_caps[i])
            mmio_write32(c->abar, AHCI_PORT_BASE + i * AHCI_PORT_STRIDE + AHCI_PxCMD, port_caps[i]);
    c->cap = cap;
    c->cap2 = cap2;
    c->vs = vs;
    return BM_OK;
}

/* ---- Port state changes ------------------------------------------------------------------------ */

/* Section 10.1.2 / 10.3.2: clear PxCMD.ST and wait for CR to clear. The
 * HBA then owns no command (PxCI and PxSACT clear). */
static int port_stop(struct ahci_port *p)
{
    uint32_t cmd = port_rd(p, AHCI_PxCMD);

    p->started = false;
    if (!(cmd & (AHCI_PxCMD_ST | AHCI_PxCMD_CR)))
        return BM_OK;
    port_wr(p, AHCI_PxCMD, cmd & ~AHCI_PxCMD_ST);
    return port_wait_reg(p, AHCI_PxCMD, AHCI_PxCMD_CR, 0, AHCI_STOP_MS, "PxCMD.CR to clear");
}

/* Stop the command list and FIS reception: after this the HBA writes
 * nothing to the port's memory. */
static int port_quiesce(struct ahci_port *p)
{
    uint32_t cmd;
    int rc = port_stop(p);

    if (rc != BM_OK)
        return rc;
    cmd = port_rd(p, AHCI_PxCMD);
    if (!(cmd & (AHCI_PxCMD_FRE | AHCI_PxCMD_FR)))
        return BM_OK;
    port_wr(p, AHCI_PxCMD, cmd & ~AHCI_PxCMD_FRE);
    return port_wait_reg(p, AHCI_PxCMD, AHCI_PxCMD_FR, 0, AHCI_STOP_MS, "PxCMD.FR to clear");
}

/* Set PxCMD.ST (section 10.3.1: FRE set, CR clear, BSY/DRQ clear). */
static void port_start(struct ahci_port *p)
{
    port_wr(p, AHCI_PxCMD, port_rd(p, AHCI_PxCMD) | AHCI_PxCMD_ST);
    p->started = true;
}

/* ---- Link bring-up: COMRESET, debounce, wait for the device ------------------------------- */

/* The ports of mask that are set up, lowest first. */
#define for_each_port(c, mask, i, p)                                                                   \
    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++)                                                      \
        for (struct ahci_port *p = ((mask) & (1u << i)) ? (c)->port[i] : NULL; p; p = NULL)

static void link_failed(struct ahci_port *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void link_failed(struct ahci_port *p, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(p->why, sizeof(p->why), fmt, ap);
    va_end(ap);
    p->link = LINK_FAILED;
}

/* COMRESET on every port of mask at once and wait for each link and device,
 * as Linux sata_link_hardreset() does for one (libata probes the ports of
 * an AHCI host in parallel, so six empty ports cost one debounce, not
 * six): PxSCTL.DET=1 (IPM=3: no partial or slumber, so latency does not
 * depend on their exits; the SPD limit kept) held at least 1 ms (section
 * 10.4.2; only with PxCMD.ST clear), then sata_link_resume(): DET=0, 200
 * ms without touching SStatus, and SControl must read DET=0 back (writes
 * get lost on some controllers: written again, up to 5 times). Then
 * sata_link_debounce(): SStatus.DET must hold one value for 100 ms, polled
 * every 5 ms; DET=0 then means an empty port, DET=3 a link. DET=1 (device
 * seen, phy not up yet) is waited on for up to AHCI_DET1_MS. Last
 * ata_wait_ready(): PxTFD BSY and DRQ clear (7Fh, then BSY, until the
 * device's first D2H register FIS) before deadline_ms from the COMRESET.
 * Each port ends LINK_EMPTY, LINK_READY or LINK_FAILED (why says what);
 * returns the LINK_READY ports. */
static uint32_t ports_hardreset(struct ahci_ctrl *c, uint32_t mask, unsigned deadline_ms)
{
    uint32_t todo = mask, pending = 0, ready = 0;
    uint64_t deadline, now;
    unsigned tries = 0;

    if (!mask)
        return 0;
    for_each_port(c, mask, i, p) {
        uint32_t sctl = port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_SPD_MASK;
        p->link = LINK_PENDING;
        p->why[0] = '\0';
        port_wr(p, AHCI_PxSCTL, sctl | AHCI_PxSCTL_IPM_NONE | AHCI_PxSCTL_DET_COMRESET);
        (void)port_rd(p, AHCI_PxSCTL);
    }
    plat_delay_ns(AHCI_COMRESET_HOLD_NS);
    deadline = plat_now_ns() + MS(deadline_ms);

    while (todo && tries < AHCI_RESUME_TRIES) {
        for_each_port(c, todo, i, p)
            port_wr(p, AHCI_PxSCTL, (port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_SPD_MASK) | AHCI_PxSCTL_IPM_NONE);
        plat_delay_ns(MS(AHCI_RESUME_SETTLE_MS));
        tries++;
        for_each_port(c, todo, i, p) {
            /* libata also wants IPM back as written; only DET says whether
             * the COMRESET was released, so only DET is held against a port
             * (an HBA with a read-only IPM field is not retried for it). */
            if (port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_DET_MASK)
                continue;
            todo &= ~(1u << i);
            if (tries > 1)
                port_diag(p, "link resumed after %u writes of PxSCTL.DET=0", tries);
        }
    }
    /* libata warns and goes on: the link may be up all the same. */
    for_each_port(c, todo, i, p)
        port_diag(p, "PxSCTL 0x%08x after %u writes of DET=0: the COMRESET may still be held", port_rd(p, AHCI_PxSCTL),
                  tries);

    now = plat_now_ns();
    for_each_port(c, mask, i, p) {
        p->det_last = port_rd(p, AHCI_PxSSTS) & AHCI_PxSSTS_DET_MASK;
        p->det_since_ns = now;
    }
    pending = mask;
    while (pending) {
        plat_delay_ns(MS(AHCI_DEB_INTERVAL_MS));
        now = plat_now_ns();
        for_each_port(c, pending, i, p) {
            uint32_t det = port_rd(p, AHCI_PxSSTS) & AHCI_PxSSTS_DET_MASK;
            uint64_t held = now - p->det_since_ns;

            if (det != p->det_last) {
                p->det_last = det;
                p->det_since_ns = now;
            } else if (det == AHCI_PxSSTS_DET_NOPHY) {
                if (held >= MS(AHCI_DET1_MS))
                    link_failed(p, "device seen (PxSSTS.DET=1) but no link after %u ms", AHCI_DET1_MS);
            } else if (held >= MS(AHCI_DEB_DURATION_MS)) {
                p->link = det == AHCI_PxSSTS_DET_UP ? LINK_UP : LINK_EMPTY;
            }
            if (p->link == LINK_PENDING && now > deadline)
                link_failed(p, "PxSSTS.DET never settled in %u ms (last DET=%u)", deadline_ms, det);
            if (p->link != LINK_PENDING)
                pending &= ~(1u << i);
        }
    }

    for_each_port(c, mask, i, p) {
        if (p->link != LINK_UP)
            continue;
        port_wr(p, AHCI_PxSERR, ~0u); /* the link-up set DIAG bits; some PHYs want SError clear */
        pending |= 1u << i;
    }
    while (pending) {
        now = plat_now_ns();
        for_each_port(c, pending, i, p) {
            uint32_t tfd = port_rd(p, AHCI_PxTFD);
            if (!(tfd & (ATA_STS_BSY | ATA_STS_DRQ)))
                p->link = LINK_READY;
            else if (now > deadline)
                link_failed(p, "device present (PxSSTS.DET=3) but not ready in %u ms (PxTFD 0x%04x: BSY/DRQ set)",
                            deadline_ms, tfd & 0xffff);
            if (p->link != LINK_UP)
                pending &= ~(1u << i);
        }
        if (pending)
            plat_delay_ns(AHCI_POLL_NS);
    }
    for_each_port(c, mask, i, p)
        if (p->link == LINK_READY)
            ready |= 1u << i;
    return ready;
}

/* One port's COMRESET in error recovery: BM_OK when the device answered,
 * BM_ENODEV when the port is empty now, BM_ETIMEDOUT otherwise. */
static int port_comreset(struct ahci_port *p, unsigned ready_ms)
{
    ports_hardreset(p->ctrl, 1u << p->num, ready_ms);
    switch (p->link) {
    case LINK_READY:
        return BM_OK;
    case LINK_EMPTY:
        port_diag(p, "no device after COMRESET");
        return BM_ENODEV;
    default:
        port_diag(p, "COMRESET: %s", p->why);
        return BM_ETIMEDOUT;
    }
}

/* Section 6.2.2.1 steps 2-6: stop the command list, clear PxSERR and PxIS,
 * free a stuck BSY/DRQ (CLO where CAP.SCLO, else COMRESET) and start
 * again. reset forces a COMRESET; *did_reset says whether one happened. */
static int port_restart(struct ahci_port *p, bool reset, bool *did_reset)
{
    uint32_t tfd;
    int rc;

    *did_reset = false;
    rc = port_stop(p);
    if (rc != BM_OK)
        return rc;
    port_wr(p, AHCI_PxSERR, ~0u);
    port_wr(p, AHCI_PxIS, ~0u);
    /* Clearing ST must clear PxCI and PxSACT (sections 3.3.13, 3.3.14).
     * An HBA that keeps them (QEMU 7.2 does) still has commands running:
     * only a COMRESET stops those. */
    if (port_rd(p, AHCI_PxCI) | port_rd(p, AHCI_PxSACT))
        reset = true;
    tfd = port_rd(p, AHCI_PxTFD);
    if (!reset && (tfd & (ATA_STS_BSY | ATA_STS_DRQ))) {
        if (p->ctrl->cap & AHCI_CAP_SCLO) {
            port_wr(p, AHCI_PxCMD, port_rd(p, AHCI_PxCMD) | AHCI_PxCMD_CLO);
            port_wait_reg(p, AHCI_PxCMD, AHCI_PxCMD_CLO, 0, AHCI_CLO_MS, "PxCMD.CLO to clear");
        }
        if (port_rd(p, AHCI_PxTFD) & (ATA_STS_BSY | ATA_STS_DRQ))
            reset = true;
    }
    if (reset) {
        rc = port_comreset(p, AHCI_RECOVER_READY_MS);
        if (rc != BM_OK)
            return rc;
        *did_reset = true;
    }
    port_wr(p, AHCI_PxSERR, ~0u);
    port_wr(p, AHCI_PxIS, ~0u);
    port_start(p);
    return BM_OK;
}

/* ---- Commands -------------------------------------------------------------------------------------- */

static uint8_t *slot_table(struct ahci_port *p, unsigned slot) { return p->tables + slot * AHCI_CMD_TABLE_BYTES; }

/* Put a command FIS and its buffer into a slot's table and header. */
static int slot_prepare(struct ahci_port *p, unsigned slot, const uint8_t fis[SATA_FIS_H2D_BYTES], void *buf,
                        uint32_t bytes, bool write)
{
    uint8_t *t = slot_table(p, slot);
    int n = 0;

    memcpy(t + AHCI_CT_CFIS, fis, SATA_FIS_H2D_BYTES);
    if (bytes) {
        n = ahci_prd_fill((struct ahci_prd *)(t + AHCI_CT_PRDT), AHCI_PRDT_ENTRIES, phys_of(buf), bytes);
        if (n < 0)
            return n;
    }
    ahci_cmd_header_fill(&p->hdr[slot], phys_of(t), SATA_FIS_H2D_DWORDS, write, (unsigned)n);
    return BM_OK;
}

/* Run one non-queued command in slot 0 and wait for it (probe and error
 * recovery only: no other command is in flight). On a device error returns
 * BM_EIO with the status and error registers; the caller restarts the
 * port before using it again. */
static int port_exec_sync(struct ahci_port *p, const uint8_t fis[SATA_FIS_H2D_BYTES], void *buf, uint32_t bytes,
                          unsigned timeout_ms, uint8_t *sts, uint8_t *err)
{
    uint64_t deadline = plat_now_ns() + MS(timeout_ms);
    uint32_t is, tfd;
    int rc = slot_prepare(p, 0, fis, buf, bytes, false);

    if (rc != BM_OK)
        return rc;
    port_wr(p, AHCI_PxIS, ~0u);
    plat_wmb();
    port_wr(p, AHCI_PxCI, 1u);
    for (;;) {
        is = port_rd(p, AHCI_PxIS);
        if (is & AHCI_PxIS_FATAL)
            break;
        if (!(port_rd(p, AHCI_PxCI) & 1u))
            break;
        if (plat_now_ns() > deadline) {
            port_diag(p, "command %02xh: timed out after %u ms waiting for PxCI bit 0 to clear", fis[FIS_COMMAND],
                      timeout_ms);
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(AHCI_POLL_NS);
    }
    plat_rmb();
    tfd = port_rd(p, AHCI_PxTFD);
    *sts = (uint8_t)tfd;
    *err = (uint8_t)(tfd >> AHCI_PxTFD_ERR_SHIFT);
    if ((is & AHCI_PxIS_FATAL) || (tfd & (ATA_STS_ERR | ATA_STS_DF)))
        return BM_EIO;
    return BM_OK;
}

/* ---- Completions --------------------------------------------------------------------------------------- */

/* Queue a completion for the engine and give the slot back. */
static void complete(struct ahci_port *p, unsigned tag, int status, const char *detail)
{
    struct bm_completion *c = &p->done[(p->done_head + p->done_count) % AHCI_SLOTS_MAX];

    p->busy &= ~(1u << tag);
    if (p->done_count == AHCI_SLOTS_MAX) {
        /* Only if the engine reused a tag before reaping its completion. */
        port_diag(p, "tag %u: completion lost, %u already waiting to be reaped", tag, p->done_count);
        return;
    }
    c->tag = tag;
    c->status = status;
    bm_strlcpy(c->detail, detail ? detail : "", sizeof(c->detail));
    p->done_count++;
}

/* Names of the PxIS error bits, for a detail string. */
static void describe_hba_error(char *dst, size_t cap, uint32_t is, uint32_t serr)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } bits[] = {
        { AHCI_PxIS_HBFS, "HBFS" }, { AHCI_PxIS_HBDS, "HBDS" }, { AHCI_PxIS_IFS, "IFS" },
        { AHCI_PxIS_OFS, "OFS" },   { AHCI_PxIS_TFES, "TFES" },
    };
    size_t n = 0;

    dst[0] = '\0';
    for (unsigned i = 0; i < ARRAY_SIZE(bits); i++)
        if (is & bits[i].bit)
            n += (size_t)snprintf(dst + n, cap - n, "%s%s", n ? "," : "", bits[i].name);
    snprintf(dst + n, cap - n, "%sPxSERR 0x%08x", n ? " " : "", serr);
}

/* Read log 10h: which tag failed, and (ACS-3 section 9.13) the read itself
 * takes the device out of its NCQ error state. */
static int port_read_ncq_log(struct ahci_port *p, struct ata_ncq_error *e)
{
    uint8_t fis[SATA_FIS_H2D_BYTES], sts, err;
    int rc;

    ata_fis_read_log_ext(fis, ATA_LOG_NCQ_ERROR, 0, 1);
    memset(p->scratch, 0, ATA_SECTOR_BYTES);
    rc = port_exec_sync(p, fis, p->scratch, ATA_SECTOR_BYTES, AHCI_SYNC_CMD_MS, &sts, &err);
    if (rc != BM_OK) {
        port_diag(p, "READ LOG EXT 10h failed (%s, sts 0x%02x err 0x%02x)", bm_strerror(rc), sts, err);
        return rc;
    }
    return ata_parse_ncq_error_log(p->scratch, e);
}

/* The LBA a failed non-queued command reports: ACS-3's error outputs put
 * the address of the first failing sector in the LBA field when ERROR has
 * UNC or IDNF, and the D2H Register FIS that ended the command carries it
 * (submit clears the FIS type first, so a stale FIS is not believed). */
static bool d2h_error_lba(struct ahci_port *p, uint8_t err, uint64_t *lba)
{
    const volatile uint8_t *f = p->rfis + AHCI_RFIS_RFIS;

    if (!(err & (ATA_ERR_UNC | ATA_ERR_IDNF)) || f[FIS_TYPE] != SATA_FIS_TYPE_D2H)
        return false;
    plat_rmb();
    *lba = (uint64_t)f[FIS_LBA0] | ((uint64_t)f[FIS_LBA1] << 8) | ((uint64_t)f[FIS_LBA2] << 16) |
           ((uint64_t)f[FIS_LBA3] << 24) | ((uint64_t)f[FIS_LBA4] << 32) | ((uint64_t)f[FIS_LBA5] << 40);
    return true;
}

enum ahci_fault {
    FAULT_DEVICE,                  /* the device reported an error (STS.ERR/DF, TFES) */
    FAULT_HBA,                     /* the HBA stopped on a bus or interface error */
    FAULT_TIMEOUT,                 /* a command did not finish in AHCI_CMD_TIMEOUT_NS */
};

/* Error recovery, AHCI 1.3.1 section 6.2.2: commands that finished before
 * the error complete normally; the port is stopped, cleared and restarted
 * (COMRESET after a timeout or an HBA error, else where BSY/DRQ stay set);
 * for NCQ, log 10h names the failing tag. Every
 * command the error caught completes with BM_EIO (the timed-out one with
 * BM_ETIMEDOUT) and a decoded detail. Nothing is retried: the engine
 * decides. If the port cannot be restarted it is declared dead. */
static void port_recover(struct ahci_port *p, enum ahci_fault fault, uint32_t is, int timed_out_tag)
{
    uint32_t tfd = port_rd(p, AHCI_PxTFD), serr = port_rd(p, AHCI_PxSERR);
    uint32_t sact = port_rd(p, AHCI_PxSACT), ci = port_rd(p, AHCI_PxCI);
    uint32_t finished = p->ncq ? p->busy & ~(sact | ci) : 0, caught;
    uint8_t sts = (uint8_t)tfd, err = (uint8_t)(tfd >> AHCI_PxTFD_ERR_SHIFT);
    struct ata_ncq_error log;
    bool have_log = false, did_reset = false;
    char why[64], detail[64];
    int rc;

    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++)
        if (finished & (1u << t))
            complete(p, t, BM_OK, NULL);
    caught = p->busy;

    if (fault == FAULT_DEVICE) {
        uint64_t lba = 0;
        bool has_lba = !p->ncq && d2h_error_lba(p, err, &lba);
        ata_describe_error(why, sizeof(why), sts, err, has_lba, lba);
    }
    else if (fault == FAULT_HBA)
        describe_hba_error(why, sizeof(why), is, serr);
    else
        snprintf(why, sizeof(why), "tag %d: no answer in %llu s", timed_out_tag,
                 (unsigned long long)(AHCI_CMD_TIMEOUT_NS / 1000000000ull));
    port_diag(p, "%s; recovering (PxIS 0x%08x PxTFD 0x%04x PxSERR 0x%08x PxSACT 0x%08x PxCI 0x%08x)",
              why, is, tfd & 0xffff, serr, sact, ci);

    /* Make the caught slots harmless first: an HBA that re-issues stale
     * PxCI bits after a restart then finds no command FIS (type 0). */
    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++)
        if (caught & (1u << t))
            slot_table(p, t)[AHCI_CT_CFIS + FIS_TYPE] = 0;
    plat_wmb();

    /* Only a device error tells the drive anything (it then aborts its
     * queue itself). After a timeout, or an HBA or interface error, the
     * drive may still hold queued commands whose tags and buffers we are
     * about to hand back, and finish them later into whatever the slot
     * then points at: only a COMRESET empties its queue (Linux libahci
     * resets on IFS/HBFS/HBDS too). */
    rc = port_restart(p, fault != FAULT_DEVICE, &did_reset);
    if (rc == BM_OK && p->ncq && fault == FAULT_DEVICE && !did_reset) {
        /* The device aborted every queued command and accepts no new one
         * until log 10h is read (ACS-3 section 9.13). Without the log (no
         * GPL, or the read failed) only a COMRESET clears that state. */
        if (p->id.gpl && port_read_ncq_log(p, &log) == BM_OK && !log.nq)
            have_log = true;
        else
            rc = port_restart(p, true, &did_reset);
    }
    if (rc != BM_OK) {
        p->dead = true;
        port_diag(p, "recovery failed (%s): port disabled", bm_strerror(rc));
        if (port_stop(p) != BM_OK) {
            /* PxCMD.CR still set: the HBA may still move data for these
             * commands, so their buffers must not go back to the engine.
             * They stay in flight; the engine's stall detection gives up
             * on the disk and keeps the buffers. */
            port_diag(p, "the port does not stop; %u command%s kept in flight: the HBA may still write their buffers",
                      popcount32(caught), caught & (caught - 1) ? "s" : "");
            return;
        }
    }

    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++) {
        if (!(caught & (1u << t)))
            continue;
        if (fault == FAULT_TIMEOUT) {
            if ((int)t == timed_out_tag) {
                complete(p, t, BM_ETIMEDOUT, why);
                continue;
            }
            snprintf(detail, sizeof(detail), "aborted: tag %d timed out", timed_out_tag);
        } else if (have_log && log.tag == t) {
            ata_describe_error(detail, sizeof(detail), log.status, log.error, true, log.lba);
        } else if (have_log && (caught & (1u << log.tag))) {
            snprintf(detail, sizeof(detail), "aborted: NCQ error on tag %u", log.tag);
        } else if (p->ncq && fault == FAULT_DEVICE && (caught & (caught - 1))) {
            /* No log: any of the queued commands may be the one that failed. */
            snprintf(detail, sizeof(detail), "%s; tag unknown (%u queued)", why, popcount32(caught));
        } else {
            bm_strlcpy(detail, why, sizeof(detail));
        }
        complete(p, t, BM_EIO, detail);
    }
    p->next_check_ns = 0;
}

/* ---- The tagged queue (drivers/blkdev.h) ------------------------------------------------------------------ */

static int ahci_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                       uint32_t blocks, void *buf)
{
    struct ahci_port *p = d->priv;
    uint64_t bytes = (uint64_t)blocks * d->lba_bytes, phys = phys_of(buf);
    bool write = op == BM_IO_WRITE;
    uint8_t fis[SATA_FIS_H2D_BYTES];
    uint32_t bit = 1u << tag;
    struct ahci_slot *s;
    int rc;

    if (p->dead)
        return BM_EIO;
    if (queue != 0 || tag >= d->max_qd || blocks == 0 || bytes > d->max_transfer_bytes || lba >= d->blocks ||
        blocks > d->blocks - lba || (op != BM_IO_READ && op != BM_IO_WRITE))
        return BM_EINVAL;
    if (p->busy & bit)
        return BM_EINVAL; /* the engine's tags are unique among commands in flight */
    if (!(p->ctrl->cap & AHCI_CAP_S64A) && phys + bytes > (1ull << 32))
        return BM_EINVAL; /* this HBA reaches only the low 4 GiB */

    if (p->ncq) {
        ata_fis_fpdma(fis, write, tag, lba, blocks);
    } else if (p->id.lba48) {
        ata_fis_dma_ext(fis, write, lba, blocks);
    } else {
        rc = ata_fis_dma28(fis, write, lba, blocks);
        if (rc != BM_OK)
            return rc; /* an LBA or count the disk cannot be given */
    }
    rc = slot_prepare(p, tag, fis, buf, (uint32_t)bytes, write);
    if (rc != BM_OK)
        return rc;

    s = &p->slot[tag];
    s->lba = lba;
    s->blocks = blocks;
    s->write = write;
    s->deadline_ns = plat_now_ns() + AHCI_CMD_TIMEOUT_NS;
    if (!p->busy || s->deadline_ns < p->next_check_ns)
        p->next_check_ns = s->deadline_ns;
    p->busy |= bit;

    /* The command table and header must be in memory before the doorbell;
     * PxSACT before PxCI for a queued command (section 5.3.2). Both
     * registers only set the bits written as 1. */
    if (!p->ncq)
        p->rfis[AHCI_RFIS_RFIS + FIS_TYPE] = 0; /* see d2h_error_lba */
    plat_wmb();
    if (p->ncq)
        port_wr(p, AHCI_PxSACT, bit);
    port_wr(p, AHCI_PxCI, bit);
    return BM_OK;
}

/* Look for errors in PxIS (and PxTFD when a FIS arrived) and recover from
 * them. Returns true when it recovered: the caught commands are then
 * completed already. */
static bool port_check_errors(struct ahci_port *p)
{
    uint32_t is = port_rd(p, AHCI_PxIS);
    bool device_error;

    if (!is)
        return false;
    port_wr(p, AHCI_PxIS, is);
    if (is & (AHCI_PxIS_FATAL & ~AHCI_PxIS_TFES)) {
        port_recover(p, FAULT_HBA, is, -1);
        return true;
    }
    /* Some HBAs (QEMU 7.2) report a failed queued command only through the
     * status of the SDB FIS, without TFES: look at PxTFD when a FIS came. */
    device_error = (is & AHCI_PxIS_TFES) ||
                   ((is & AHCI_PxIS_FIS_RX) && (port_rd(p, AHCI_PxTFD) & (ATA_STS_ERR | ATA_STS_DF)));
    if (device_error)
        port_recover(p, FAULT_DEVICE, is, -1);
    return device_error;
}

/* Look at the hardware once: finished slots, errors, timeouts. An idle
 * poll costs one register read (PxSACT or PxCI): under emulation every
 * MMIO read competes with the device model itself. */
static void port_reap(struct ahci_port *p)
{
    uint32_t active = port_rd(p, p->ncq ? AHCI_PxSACT : AHCI_PxCI);
    uint32_t finished = p->busy & ~active;
    uint64_t now = plat_now_ns();

    /* Errors are checked before a finished command is believed (an HBA
     * may clear PxCI of a non-queued command that failed), and every
     * AHCI_ERROR_CHECK_NS while nothing finishes (a queued error finishes
     * nothing: the device aborts all its commands). */
    if (finished || now >= p->next_error_check_ns) {
        p->next_error_check_ns = now + AHCI_ERROR_CHECK_NS;
        if (port_check_errors(p))
            return;
    }
    if (finished) {
        plat_rmb(); /* data before the engine looks at it */
        for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++)
            if (finished & (1u << t))
                complete(p, t, BM_OK, NULL);
    }

    if (!p->busy || now < p->next_check_ns)
        return;
    p->next_check_ns = UINT64_MAX;
    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++) {
        if (!(p->busy & (1u << t)))
            continue;
        if (now >= p->slot[t].deadline_ns) {
            port_recover(p, FAULT_TIMEOUT, port_rd(p, AHCI_PxIS), (int)t);
            return;
        }
        p->next_check_ns = MIN(p->next_check_ns, p->slot[t].deadline_ns);
    }
}

static int ahci_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct ahci_port *p = d->priv;
    int n = 0;

    if (queue != 0)
        return 0;
    if (p->busy && !p->dead)
        port_reap(p);
    while (n < max && p->done_count) {
        out[n++] = p->done[p->done_head];
        p->done_head = (p->done_head + 1) % AHCI_SLOTS_MAX;
        p->done_count--;
    }
    return n;
}

/* ATA SMART attributes and thresholds through slot 0, with nothing else
 * in flight (the engine calls it between workloads). A drive that refuses
 * (SMART disabled: ABRT) gets its port restarted, so I/O goes on. */
static int ahci_health(struct bm_disk *d, struct bm_health *h)
{
    struct ahci_port *p = d->priv;
    uint8_t fis[SATA_FIS_H2D_BYTES], sts = 0, err = 0;
    bool reset;
    int rc;

    if (p->dead || p->busy)
        return BM_EBUSY;
    ata_fis_smart(fis, ATA_SMART_READ_THRESHOLDS);
    rc = port_exec_sync(p, fis, p->scratch + ATA_SECTOR_BYTES, ATA_SECTOR_BYTES, AHCI_SYNC_CMD_MS, &sts, &err);
    if (rc == BM_OK) {
        ata_fis_smart(fis, ATA_SMART_READ_DATA);
        rc = port_exec_sync(p, fis, p->scratch, ATA_SECTOR_BYTES, AHCI_SYNC_CMD_MS, &sts, &err);
    }
    if (rc != BM_OK) {
        port_diag(p, "SMART not read (%s, sts 0x%02x err 0x%02x)", bm_strerror(rc), sts, err);
        if (port_restart(p, rc == BM_ETIMEDOUT, &reset) != BM_OK)
            p->dead = true;
        return rc;
    }
    plat_rmb();
    ata_parse_smart(p->scratch, p->scratch + ATA_SECTOR_BYTES, h);
    port_wr(p, AHCI_PxIS, ~0u);
    return BM_OK;
}

static const struct bm_disk_ops ahci_ops = {
    .submit = ahci_submit,
    .poll = ahci_poll,
    .health = ahci_health,
};

/* ---- Port bring-up ------------------------------------------------------------------------------------------ */

/* Give the port's memory back, unless the HBA may still write to it. */
static void port_free(struct ahci_port *p)
{
    if (port_quiesce(p) != BM_OK) {
        port_diag(p, "the port does not stop; its %u bytes of DMA memory stay allocated", AHCI_MEM_BYTES);
        plat_free(p);
        return;
    }
    port_wr(p, AHCI_PxSERR, ~0u);
    port_wr(p, AHCI_PxIS, ~0u);
    /* The memory goes back to the firmware's pool: leave no pointer to it
     * for whoever sets FRE next before programming its own. */
    port_wr(p, AHCI_PxCLB, 0);
    port_wr(p, AHCI_PxCLBU, 0);
    port_wr(p, AHCI_PxFB, 0);
    port_wr(p, AHCI_PxFBU, 0);
    if (p->mem)
        plat_free_pages(p->mem, AHCI_MEM_BYTES);
    plat_free(p);
}

/* Section 10.1.2: stop the port, give it a command list and FIS area, turn
 * on FIS reception and power it up. The link comes with ports_hardreset().
 * NULL, with a diagnostic, for a port that cannot be used. */
static struct ahci_port *port_setup(struct ahci_ctrl *c, unsigned num)
{
    bool below_4g = !(c->cap & AHCI_CAP_S64A);
    struct ahci_port *p = plat_alloc(sizeof(*p));
    uint32_t cmd;

    if (!p) {
        plat_diag(c->bdf, "port %u: skipped: out of memory", num);
        return NULL;
    }
    p->ctrl = c;
    p->num = num;
    p->regs = (volatile uint8_t *)c->abar + AHCI_PORT_BASE + num * AHCI_PORT_STRIDE;

    if (port_quiesce(p) != BM_OK) {
        port_diag(p, "skipped: the port does not stop");
        plat_free(p);
        return NULL;
    }
    p->mem = plat_alloc_pages(AHCI_MEM_BYTES, below_4g);
    if (!p->mem) {
        port_diag(p, "skipped: no DMA memory%s", below_4g ? " below 4 GiB" : "");
        plat_free(p);
        return NULL;
    }
    p->hdr = (struct ahci_cmd_header *)(p->mem + AHCI_MEM_CLB);
    p->rfis = p->mem + AHCI_MEM_RFIS;
    p->tables = p->mem + AHCI_MEM_TABLES;
    p->scratch = p->mem + AHCI_MEM_SCRATCH;

    port_wr(p, AHCI_PxCLB, (uint32_t)phys_of(p->hdr));
    port_wr(p, AHCI_PxCLBU, (uint32_t)(phys_of(p->hdr) >> 32));
    port_wr(p, AHCI_PxFB, (uint32_t)phys_of(p->rfis));
    port_wr(p, AHCI_PxFBU, (uint32_t)(phys_of(p->rfis) >> 32));
    port_wr(p, AHCI_PxIE, 0);
    port_wr(p, AHCI_PxSERR, ~0u);
    port_wr(p, AHCI_PxIS, ~0u);

    cmd = port_rd(p, AHCI_PxCMD) | AHCI_PxCMD_FRE;
    port_wr(p, AHCI_PxCMD, cmd);
    /* With CAP.SSS the HBA sends no COMRESET until software sets SUD
     * (section 10.10.1); without it SUD reads 1. The COMRESET that follows
     * spins up every port's disk at once, as Linux's parallel probe does. */
    cmd = (cmd & ~AHCI_PxCMD_ICC_MASK) | AHCI_PxCMD_SUD | AHCI_PxCMD_POD | AHCI_PxCMD_ICC_ACTIVE;
    port_wr(p, AHCI_PxCMD, cmd);
    return p;
}

/* Fill the engine's view of the disk. */
static void port_fill_disk(struct ahci_port *p)
{
    struct bm_disk *d = &p->disk;
    struct ahci_ctrl *c = p->ctrl;
    uint32_t spd = (port_rd(p, AHCI_PxSSTS) >> AHCI_PxSSTS_SPD_SHIFT) & AHCI_PxSSTS_SPD_MASK;
    uint32_t slots = ((c->cap >> AHCI_CAP_NCS_SHIFT) & AHCI_CAP_NCS_MASK) + 1;

    snprintf(d->id, sizeof(d->id), "ahci%up%u", c->index, p->num);
    bm_strlcpy(d->driver, "ahci", sizeof(d->driver));
    d->path = BM_PATH_NATIVE;
    bm_strlcpy(d->model, p->id.model, sizeof(d->model));
    bm_strlcpy(d->serial, p->id.serial, sizeof(d->serial));
    bm_strlcpy(d->firmware, p->id.firmware, sizeof(d->firmware));
    d->lba_bytes = p->id.logical_bytes;
    d->phys_bytes = p->id.physical_bytes;
    d->blocks = p->id.blocks;
    bm_strlcpy(d->pci, c->bdf, sizeof(d->pci));
    d->pci_addr = c->addr;
    d->has_pci = true;
    d->port = p->num;
    d->lun = 0;
    /* SStatus.SPD (SATA 3.x section 14.2.1): generation 1, 2, 3. */
    d->link_gbps = spd == 1 ? 1.5 : spd == 2 ? 3.0 : spd == 3 ? 6.0 : 0.0;
    d->nqueues = 1;
    /* FPDMA QUEUED carries a 48-bit LBA: NCQ only with 48-bit addressing
     * (ACS-3 makes NCQ require it; a disk that claims NCQ without it is
     * not trusted with it). */
    p->ncq = (c->cap & AHCI_CAP_SNCQ) && p->id.ncq && p->id.lba48;
    d->max_qd = p->ncq ? MIN(p->id.ncq_depth, slots) : 1;
    d->max_transfer_bytes = AHCI_MAX_TRANSFER_BYTES - AHCI_MAX_TRANSFER_BYTES % d->lba_bytes;
    if (!p->id.lba48) {
        /* SATA DOMs, CF adapters, old disks: READ/WRITE DMA with a 28-bit
         * LBA and at most 256 sectors, as Linux ata_build_rw_tf() and
         * ata_dev_configure() (ATA_MAX_SECTORS) treat a disk without
         * ATA_DFLAG_LBA48. */
        d->max_transfer_bytes = MIN(d->max_transfer_bytes, ATA_LBA28_MAX_BLOCKS * d->lba_bytes);
        bm_disk_add_quirk(d, "no_lba48");
    }
    d->ops = &ahci_ops;
    d->priv = p;
}

/* IDENTIFY DEVICE into the scratch page; a diagnostic (a log record)
 * when it fails. */
static int port_identify(struct ahci_port *p)
{
    uint8_t fis[SATA_FIS_H2D_BYTES], sts = 0, err = 0;
    char what[80];
    int rc;

    ata_fis_identify(fis);
    rc = port_exec_sync(p, fis, p->scratch, ATA_SECTOR_BYTES, AHCI_SYNC_CMD_MS, &sts, &err);
    if (rc != BM_OK) {
        snprintf(what, sizeof(what), "IDENTIFY DEVICE failed (%s, sts 0x%02x err 0x%02x)", bm_strerror(rc), sts, err);
        port_diag(p, "skipped: %s", what);
        return rc;
    }
    plat_rmb();
    return BM_OK;
}

/* A Power-Up-In-Standby drive (IDENTIFY word 2 = 37C8h or 738Ch) stays in
 * Standby and aborts media access until SET FEATURES spin-up (ACS-3
 * PUIS feature set). As Linux ata_dev_read_id(): spin it up once (the command
 * ends when the disk is up: SETFEATURES_SPINUP_TIMEOUT), then IDENTIFY
 * again when the first data was incomplete; a failed spin-up is only
 * fatal when it was. *spun_up says whether it happened. */
static int port_spin_up(struct ahci_port *p, bool *spun_up)
{
    enum ata_puis puis = ata_identify_puis(p->scratch);
    uint8_t fis[SATA_FIS_H2D_BYTES], sts = 0, err = 0;
    char what[80];
    bool reset;
    int rc;

    *spun_up = false;
    if (puis == ATA_PUIS_NONE)
        return BM_OK;
    port_diag(p, "powered up in standby (IDENTIFY word 2 = %s): SET FEATURES spin-up",
              puis == ATA_PUIS_SPINUP_INCOMPLETE ? "37C8h, data incomplete" : "738Ch");
    ata_fis_set_features(fis, ATA_SF_SPINUP);
    rc = port_exec_sync(p, fis, NULL, 0, AHCI_SPINUP_CMD_MS, &sts, &err);
    if (rc != BM_OK) {
        snprintf(what, sizeof(what), "SET FEATURES spin-up failed (%s, sts 0x%02x err 0x%02x)", bm_strerror(rc), sts,
                 err);
        if (port_restart(p, rc == BM_ETIMEDOUT, &reset) != BM_OK || puis == ATA_PUIS_SPINUP_INCOMPLETE) {
            port_diag(p, "skipped: %s", what);
            return rc == BM_OK ? BM_EIO : rc;
        }
        port_diag(p, "%s; going on: its IDENTIFY data is complete", what);
        return BM_OK;
    }
    *spun_up = true;
    if (puis == ATA_PUIS_SPINUP_INCOMPLETE)
        return port_identify(p);
    return BM_OK;
}

/* After ports_hardreset() found the device ready: read its signature,
 * start the port and IDENTIFY an ATA disk (spinning it up first when it
 * powered up in standby). BM_OK when the port has a disk to benchmark;
 * otherwise the caller frees the port. Every device that is not brought
 * up is named in a diagnostic (a log record). */
static int port_attach(struct ahci_port *p)
{
    uint32_t sig = port_rd(p, AHCI_PxSIG);
    bool spun_up;
    int rc;

    if (sig == AHCI_SIG_ATAPI) {
        port_diag(p, "ATAPI device (signature %08x) skipped: only ATA disks are benchmarked", sig);
        return BM_ENOTSUP;
    }
    if (sig == AHCI_SIG_PM) {
        port_diag(p, "port multiplier (signature %08x) skipped: not supported; the disks behind it are not reached",
                  sig);
        return BM_ENOTSUP;
    }
    if (sig != AHCI_SIG_ATA) {
        port_diag(p, "device with signature %08x skipped: not an ATA disk", sig);
        return BM_ENOTSUP;
    }

    port_wr(p, AHCI_PxSERR, ~0u);
    port_wr(p, AHCI_PxIS, ~0u);
    port_start(p);
    rc = port_identify(p);
    if (rc == BM_OK)
        rc = port_spin_up(p, &spun_up);
    if (rc != BM_OK)
        return rc;
    rc = ata_parse_identify(p->scratch, &p->id);
    if (rc != BM_OK) {
        port_diag(p, "skipped: IDENTIFY DEVICE data is not usable (word 0 %04xh, word 2 %04xh)",
                  p->scratch[0] | p->scratch[1] << 8, p->scratch[4] | p->scratch[5] << 8);
        return rc;
    }
    if (!p->id.dma) {
        /* Every command baremark issues is DMA; a PIO-only device (some CF
         * cards behind a SATA adapter) would abort them all. */
        port_diag(p, "skipped: %s supports no DMA (IDENTIFY word 49 bit 8): PIO-only devices are not benchmarked",
                  p->id.model);
        return BM_ENOTSUP;
    }
    port_wr(p, AHCI_PxIS, ~0u);
    port_fill_disk(p);
    if (spun_up)
        bm_disk_add_quirk(&p->disk, "puis_spinup");
    if (!p->id.lba48)
        plat_diag(p->disk.id, "no 48-bit addressing (IDENTIFY word 83): READ/WRITE DMA with 28-bit LBAs, at most %u "
                              "sectors a command%s",
                  ATA_LBA28_MAX_BLOCKS, p->id.ncq ? "; its NCQ is not used (FPDMA commands are 48-bit)" : "");
    plat_diag(p->disk.id, "%s (serial %s, fw %s): %llu x %u B (physical %u B), %.1f Gb/s, %s %u", p->id.model,
              p->id.serial, p->id.firmware, (unsigned long long)p->id.blocks, p->id.logical_bytes,
              p->id.physical_bytes, p->disk.link_gbps, p->ncq ? "NCQ depth" : "no NCQ, depth", p->disk.max_qd);
    return BM_OK;
}

/* ---- The driver ------------------------------------------------------------------------------------------------- */

static bool ahci_match(uint16_t vendor, uint16_t device, uint32_t class_code)
{
    (void)vendor;
    (void)device;
    return class_code == AHCI_PCI_CLASS;
}

static void ahci_release(void *ctrl)
{
    struct ahci_ctrl *c = ctrl;

    if (!c)
        return;
    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++) {
        if (c->port[i])
            port_free(c->port[i]);
        c->port[i] = NULL;
    }
    plat_pci_release(c->addr);
    plat_free(c);
}

static int ahci_probe(struct pci_addr a, unsigned index, struct bm_disk_list *disks, void **ctrl_out, char *err,
                      size_t errlen)
{
    struct ahci_ctrl *c;
    uint32_t vs, set_up = 0, ready = 0, retry;
    char version[16];
    unsigned found = 0;
    int rc;

    *ctrl_out = NULL;
    c = plat_alloc(sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    c->addr = a;
    c->index = index;
    pci_addr_str(a, c->bdf, sizeof(c->bdf));

    rc = plat_pci_claim(a);
    if (rc != BM_OK) {
        snprintf(err, errlen, "cannot take the controller from the firmware: %s", bm_strerror(rc));
        goto err_free;
    }
    pci_enable_device(a);
    c->abar = plat_pci_map_bar(a, AHCI_ABAR, &c->abar_bytes);
    if (!c->abar || c->abar_bytes < AHCI_PORT_BASE + AHCI_PORT_STRIDE) {
        snprintf(err, errlen, "BAR5 (ABAR) is not an MMIO window");
        rc = BM_ENODEV;
        goto err_release;
    }
    rc = hba_reset(c, err, errlen);
    if (rc != BM_OK)
        goto err_release;
    vs = c->vs;
    /* Section 3.1.5: BCD, major in 31:16, minor 15:8 and 7:0 (1.3.1 is
     * 00010301h, 1.3 is 00010300h). */
    snprintf(version, sizeof(version), (vs & 0xff) ? "%x.%x.%x" : "%x.%x", vs >> 16, (vs >> 8) & 0xff, vs & 0xff);
    plat_diag(c->bdf, "version %s, %u ports (PI 0x%08x), %u slots,%s%s%s%s", version,
              (c->cap & AHCI_CAP_NP_MASK) + 1, c->pi,
              ((c->cap >> AHCI_CAP_NCS_SHIFT) & AHCI_CAP_NCS_MASK) + 1, (c->cap & AHCI_CAP_SNCQ) ? " NCQ" : "",
              (c->cap & AHCI_CAP_S64A) ? " 64-bit DMA" : " 32-bit DMA",
              (c->cap & AHCI_CAP_SSS) ? " staggered spin-up" : "", (c->cap & AHCI_CAP_SCLO) ? " CLO" : "");

    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++) {
        if (!(c->pi & (1u << i)))
            continue;
        if (AHCI_PORT_BASE + (i + 1) * AHCI_PORT_STRIDE > c->abar_bytes) {
            plat_diag(c->bdf, "port %u: outside BAR5, skipped", i);
            continue;
        }
        c->port[i] = port_setup(c, i);
        if (c->port[i])
            set_up |= 1u << i;
    }

    /* All links at once; a port whose device is there but does not come
     * up is reset again with the next, longer deadline (Linux
     * ata_eh_reset() walks ata_eh_reset_timeouts[] the same way). Empty
     * ports are decided in the first debounce. */
    retry = set_up;
    for (unsigned t = 0; t < AHCI_RESET_TRIES && retry; t++) {
        uint32_t failed = 0;

        ready |= ports_hardreset(c, retry, ahci_reset_deadline_ms[t]);
        for_each_port(c, retry, i, p) {
            if (p->link != LINK_FAILED)
                continue;
            failed |= 1u << i;
            if (t + 1 < AHCI_RESET_TRIES)
                port_diag(p, "%s; COMRESET again, %u s deadline", p->why, ahci_reset_deadline_ms[t + 1] / 1000);
        }
        retry = failed;
    }
    for_each_port(c, retry, i, p) {
        port_diag(p, "skipped: a device is there but did not come up after %u COMRESETs: %s", AHCI_RESET_TRIES,
                  p->why);
    }

    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++) {
        struct ahci_port *p = c->port[i];
        if (!p)
            continue;
        if ((ready & (1u << i)) && port_attach(p) == BM_OK) {
            if (disk_list_add(disks, &p->disk) == BM_OK) {
                found++;
                continue;
            }
            port_diag(p, "skipped: the disk list is full");
        }
        port_free(p);
        c->port[i] = NULL;
    }
    if (!found)
        plat_diag(c->bdf, "no ATA disks");
    /* Ports with a device that did not come up are not in err: err on a
     * successful probe means disks left out on purpose (blkdev.h). Each
     * has its log line, and discovery's census notices the firmware's disk
     * on that port and hands the controller back (discover.c). */
    *ctrl_out = c;
    return BM_OK;

err_release:
    plat_pci_release(a);
err_free:
    plat_free(c);
    return rc;
}

const struct bm_driver ahci_driver = {
    .name = "ahci",
    .match = ahci_match,
    .probe = ahci_probe,
    .release = ahci_release,
};
