/* SATA link bring-up as Linux libata does it: COMRESET (SControl.DET=1),
 * resume, debounce SStatus.DET, wait for the device's first D2H FIS. */
#include "ahci_types.h"

#include <stdarg.h>

#define AHCI_COMRESET_HOLD_NS (2 * NS_PER_MS) /* PxSCTL.DET=1 held at least 1 ms (section 10.4.2) */
/* Link bring-up as Linux libata does it (sata_link_hardreset,
 * sata_link_resume, sata_link_debounce with sata_deb_timing_normal). */
#define AHCI_RESUME_SETTLE_MS 200  /* no SStatus reads this long after DET=0: "some PHYs react badly" */
#define AHCI_RESUME_TRIES 5        /* ATA_LINK_RESUME_TRIES: SControl writes that did not stick */
#define AHCI_DEB_INTERVAL_MS 5     /* SStatus.DET polled this often ... */
#define AHCI_DEB_DURATION_MS 100   /* ... and must hold one value this long */
#define AHCI_DEB_TIMEOUT_MS 2000   /* DET=1 (presence, no phy communication) waited on this long from
                                    * the debounce's start; then the link is offline: no device */

static void link_failed(struct ahci_port *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void link_failed(struct ahci_port *p, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(p->why, sizeof(p->why), fmt, ap);
    va_end(ap);
    p->link = LINK_FAILED;
}

/* COMRESET on every port of mask at once, as Linux sata_link_hardreset()
 * does for one: PxSCTL.DET=1 (IPM=3: no partial or slumber, so latency
 * does not depend on their exits; the SPD limit kept) held at least 1 ms
 * (section 10.4.2; only with PxCMD.ST clear), then sata_link_resume():
 * DET=0, 200 ms without touching SStatus, and SControl must read DET=0
 * back (writes get lost on some controllers: written again, up to 5
 * times; libata warns and goes on, the link may be up all the same).
 * Returns the hardreset's deadline: deadline_ms after the COMRESET. */
static uint64_t links_comreset(struct ahci_ctrl *c, uint32_t mask, unsigned deadline_ms)
{
    uint32_t todo = mask;
    unsigned tries = 0;
    uint64_t deadline;

    for_each_port(c, mask, i, p) {
        uint32_t sctl = port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_SPD_MASK;
        p->link = LINK_PENDING;
        p->why[0] = '\0';
        port_wr(p, AHCI_PxSCTL, sctl | AHCI_PxSCTL_IPM_NONE | AHCI_PxSCTL_DET_COMRESET);
        (void)port_rd(p, AHCI_PxSCTL);
    }
    plat_delay_ns(AHCI_COMRESET_HOLD_NS);
    deadline = plat_now_ns() + deadline_ms * NS_PER_MS;

    while (todo && tries < AHCI_RESUME_TRIES) {
        for_each_port(c, todo, i, p)
            port_wr(p, AHCI_PxSCTL, (port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_SPD_MASK) | AHCI_PxSCTL_IPM_NONE);
        plat_delay_ns(AHCI_RESUME_SETTLE_MS * NS_PER_MS);
        tries++;
        for_each_port(c, todo, i, p) {
            /* libata also wants IPM back as written; only DET says whether
             * the COMRESET was released, so only DET is held against a port
             * (an HBA with a read-only IPM field is not retried for it). */
            if (port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_DET_MASK)
                continue;
            todo &= ~(1u << i);
            if (tries > 1)
                ahci_port_diag(p, "link resumed after %u writes of PxSCTL.DET=0", tries);
        }
    }
    for_each_port(c, todo, i, p)
        ahci_port_diag(p, "PxSCTL 0x%08x after %u writes of DET=0: the COMRESET may still be held",
                       port_rd(p, AHCI_PxSCTL), tries);
    return deadline;
}

/* sata_link_debounce() with sata_deb_timing_normal, for the ports of mask
 * together: SStatus.DET must hold one value for 100 ms, polled every 5 ms.
 * DET=1 (presence, phy not up yet) is waited on until 2 s after the
 * debounce began ("if (cur == 1 && time_before(jiffies, deadline))
 * continue"). A settled DET=3 is a link (LINK_UP); anything else is
 * offline (ata_phys_link_offline(): sata_link_hardreset() stops there and
 * ata_eh_reset() clears the class to NONE), so a DET stuck at 1, which
 * some PHYs report on an empty port, is an empty port (LINK_EMPTY). */
static void links_debounce(struct ahci_ctrl *c, uint32_t mask, uint64_t deadline, unsigned deadline_ms)
{
    uint64_t now = plat_now_ns(), start = now;
    uint32_t pending = mask;

    for_each_port(c, mask, i, p) {
        p->det_last = port_rd(p, AHCI_PxSSTS) & AHCI_PxSSTS_DET_MASK;
        p->det_since_ns = now;
    }
    while (pending) {
        plat_delay_ns(AHCI_DEB_INTERVAL_MS * NS_PER_MS);
        now = plat_now_ns();
        for_each_port(c, pending, i, p) {
            uint32_t det = port_rd(p, AHCI_PxSSTS) & AHCI_PxSSTS_DET_MASK;

            if (det != p->det_last) {
                p->det_last = det;
                p->det_since_ns = now;
            } else if (det == AHCI_PxSSTS_DET_NOPHY && now - start < AHCI_DEB_TIMEOUT_MS * NS_PER_MS) {
                /* still waiting for the phy */
            } else if (now - p->det_since_ns >= AHCI_DEB_DURATION_MS * NS_PER_MS) {
                if (det == AHCI_PxSSTS_DET_NOPHY)
                    ahci_port_diag(p, "PxSSTS.DET=1 (presence, no phy communication) for %u ms: link offline, "
                                      "no device",
                                   AHCI_DEB_TIMEOUT_MS);
                p->link = det == AHCI_PxSSTS_DET_UP ? LINK_UP : LINK_EMPTY;
            }
            if (p->link == LINK_PENDING && now > deadline)
                link_failed(p, "PxSSTS.DET never settled in %u ms (last DET=%u)", deadline_ms, det);
            if (p->link != LINK_PENDING)
                pending &= ~(1u << i);
        }
    }
}

/* ata_wait_ready() on the ports of mask that are LINK_UP: PxTFD BSY and
 * DRQ clear (7Fh, then BSY, until the device's first D2H register FIS)
 * before the hardreset's deadline. */
static void links_wait_ready(struct ahci_ctrl *c, uint32_t mask, uint64_t deadline, unsigned deadline_ms)
{
    uint32_t pending = 0;

    for_each_port(c, mask, i, p) {
        if (p->link != LINK_UP)
            continue;
        port_wr(p, AHCI_PxSERR, ~0u); /* the link-up set DIAG bits; some PHYs want SError clear */
        pending |= 1u << i;
    }
    while (pending) {
        uint64_t now = plat_now_ns();

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
}

/* Hardreset every port of mask at once and wait for each link and device
 * (libata probes the ports of an AHCI host in parallel, so six empty ports
 * cost one debounce, not six): COMRESET and resume, debounce, then wait
 * for the device, all before deadline_ms from the COMRESET. Each port ends
 * LINK_EMPTY, LINK_READY or LINK_FAILED (why says what); returns the
 * LINK_READY ports. */
uint32_t ahci_ports_hardreset(struct ahci_ctrl *c, uint32_t mask, unsigned deadline_ms)
{
    uint32_t ready = 0;
    uint64_t deadline;

    if (!mask)
        return 0;
    deadline = links_comreset(c, mask, deadline_ms);
    links_debounce(c, mask, deadline, deadline_ms);
    links_wait_ready(c, mask, deadline, deadline_ms);
    for_each_port(c, mask, i, p)
        if (p->link == LINK_READY)
            ready |= 1u << i;
    return ready;
}

/* One port's COMRESET in error recovery: BM_OK when the device answered,
 * BM_ENODEV when the port is empty now, BM_ETIMEDOUT otherwise. */
int ahci_port_comreset(struct ahci_port *p, unsigned ready_ms)
{
    ahci_ports_hardreset(p->ctrl, 1u << p->num, ready_ms);
    switch (p->link) {
    case LINK_READY:
        return BM_OK;
    case LINK_EMPTY:
        ahci_port_diag(p, "no device after COMRESET");
        return BM_ENODEV;
    default:
        ahci_port_diag(p, "COMRESET: %s", p->why);
        return BM_ETIMEDOUT;
    }
}
