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

/* One port's COMRESET as a ladder of timed steps (ahci_link_begin, then
 * ahci_link_step whenever plat_now_ns() reaches p->link_next_ns), so the
 * probe brings every port up at once and error recovery runs from poll()
 * while the other disks are polled: no step waits. The timings are
 * Linux's:
 * - sata_link_hardreset(): PxSCTL.DET=1 (IPM=3: no partial or slumber, so
 *   latency does not depend on their exits; the SPD limit kept) held at
 *   least 1 ms (ata_msleep(ap, 1); AHCI 1.3.1 section 10.4.2; only with
 *   PxCMD.ST clear);
 * - sata_link_resume(): DET=0, 200 ms without touching SStatus ("some
 *   PHYs react badly if SStatus is pounded immediately after resuming"),
 *   and SControl must read DET=0 back (writes get lost on some
 *   controllers: written again, up to ATA_LINK_RESUME_TRIES; libata warns
 *   and goes on, the link may be up all the same);
 * - sata_link_debounce() with sata_deb_timing_normal: SStatus.DET must
 *   hold one value for 100 ms, looked at every 5 ms; DET=1 (presence, phy
 *   not up yet) is waited on until 2 s after the debounce began ("if (cur
 *   == 1 && time_before(jiffies, deadline)) continue"). A settled DET=3 is
 *   a link; anything else is offline (ata_phys_link_offline():
 *   sata_link_hardreset() stops there and ata_eh_reset() clears the class
 *   to NONE), so a DET stuck at 1, which some PHYs report on an empty
 *   port, is an empty port (LINK_EMPTY);
 * - ata_wait_ready() (ahci_hardreset() -> ahci_check_ready): PxTFD BSY
 *   and DRQ clear (7Fh, then BSY, until the device's first D2H register
 *   FIS), all before deadline_ms from the end of the COMRESET. */
enum {
    LSTEP_HOLD,                    /* DET=1 written: the COMRESET is on the wire */
    LSTEP_SETTLE,                  /* DET=0 written: 200 ms before SControl and SStatus are read */
    LSTEP_DEBOUNCE,                /* SStatus.DET looked at every 5 ms */
    LSTEP_READY,                   /* link up: PxTFD looked at until BSY and DRQ clear */
};

/* Start a COMRESET on one port (PxCMD.ST and CR must be clear). */
void ahci_link_begin(struct ahci_port *p, unsigned deadline_ms)
{
    uint32_t sctl = port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_SPD_MASK;

    p->link = LINK_PENDING;
    p->why[0] = '\0';
    p->link_step = LSTEP_HOLD;
    p->link_tries = 0;
    p->link_deadline_ms = deadline_ms;
    port_wr(p, AHCI_PxSCTL, sctl | AHCI_PxSCTL_IPM_NONE | AHCI_PxSCTL_DET_COMRESET);
    (void)port_rd(p, AHCI_PxSCTL);
    p->link_next_ns = plat_now_ns() + AHCI_COMRESET_HOLD_NS;
}

/* Release the COMRESET (or write the release again): sata_link_resume(). */
static void link_release(struct ahci_port *p, uint64_t now)
{
    port_wr(p, AHCI_PxSCTL, (port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_SPD_MASK) | AHCI_PxSCTL_IPM_NONE);
    p->link_tries++;
    p->link_step = LSTEP_SETTLE;
    p->link_next_ns = now + AHCI_RESUME_SETTLE_MS * NS_PER_MS;
}

/* The debounce's look at SStatus.DET (see ahci_link_begin's comment). */
static void link_debounce(struct ahci_port *p, uint64_t now)
{
    uint32_t det = port_rd(p, AHCI_PxSSTS) & AHCI_PxSSTS_DET_MASK;

    if (det != p->det_last) {
        p->det_last = det;
        p->det_since_ns = now;
    } else if (det == AHCI_PxSSTS_DET_NOPHY && now - p->deb_start_ns < AHCI_DEB_TIMEOUT_MS * NS_PER_MS) {
        /* still waiting for the phy */
    } else if (now - p->det_since_ns >= AHCI_DEB_DURATION_MS * NS_PER_MS) {
        if (det == AHCI_PxSSTS_DET_NOPHY)
            ahci_port_diag(p, "PxSSTS.DET=1 (presence, no phy communication) for %u ms: link offline, no device",
                           AHCI_DEB_TIMEOUT_MS);
        p->link = det == AHCI_PxSSTS_DET_UP ? LINK_UP : LINK_EMPTY;
    }
    if (p->link == LINK_PENDING && now > p->link_deadline_ns)
        link_failed(p, "PxSSTS.DET never settled in %u ms (last DET=%u)", p->link_deadline_ms, det);
    if (p->link == LINK_UP) {
        port_wr(p, AHCI_PxSERR, ~0u); /* the link-up set DIAG bits; some PHYs want SError clear */
        p->link_step = LSTEP_READY;
        p->link_next_ns = now;
        return;
    }
    p->link_next_ns = now + AHCI_DEB_INTERVAL_MS * NS_PER_MS;
}

/* Take the COMRESET of ahci_link_begin one step on if its time has come;
 * each step reads or writes a few registers and returns. Returns true
 * once p->link is LINK_EMPTY, LINK_READY or LINK_FAILED (why says what). */
bool ahci_link_step(struct ahci_port *p)
{
    uint64_t now = plat_now_ns();
    uint32_t tfd;

    if (p->link != LINK_PENDING && p->link != LINK_UP)
        return true;
    if (now < p->link_next_ns)
        return false;
    switch (p->link_step) {
    case LSTEP_HOLD:
        p->link_deadline_ns = now + p->link_deadline_ms * NS_PER_MS;
        link_release(p, now);
        return false;
    case LSTEP_SETTLE:
        /* libata also wants IPM back as written; only DET says whether
         * the COMRESET was released, so only DET is held against a port
         * (an HBA with a read-only IPM field is not retried for it). */
        if (port_rd(p, AHCI_PxSCTL) & AHCI_PxSCTL_DET_MASK) {
            if (p->link_tries < AHCI_RESUME_TRIES) {
                link_release(p, now);
                return false;
            }
            ahci_port_diag(p, "PxSCTL 0x%08x after %u writes of DET=0: the COMRESET may still be held",
                           port_rd(p, AHCI_PxSCTL), p->link_tries);
        } else if (p->link_tries > 1) {
            ahci_port_diag(p, "link resumed after %u writes of PxSCTL.DET=0", p->link_tries);
        }
        p->det_last = port_rd(p, AHCI_PxSSTS) & AHCI_PxSSTS_DET_MASK;
        p->det_since_ns = p->deb_start_ns = now;
        p->link_step = LSTEP_DEBOUNCE;
        p->link_next_ns = now + AHCI_DEB_INTERVAL_MS * NS_PER_MS;
        return false;
    case LSTEP_DEBOUNCE:
        link_debounce(p, now);
        return p->link != LINK_PENDING && p->link != LINK_UP;
    default:
        tfd = port_rd(p, AHCI_PxTFD);
        if (!(tfd & (ATA_STS_BSY | ATA_STS_DRQ)))
            p->link = LINK_READY;
        else if (now > p->link_deadline_ns)
            link_failed(p, "device present (PxSSTS.DET=3) but not ready in %u ms (PxTFD 0x%04x: BSY/DRQ set)",
                        p->link_deadline_ms, tfd & 0xffff);
        p->link_next_ns = now + AHCI_POLL_NS;
        return p->link != LINK_UP;
    }
}

/* Hardreset every port of mask at once and wait for each link and device
 * (libata probes the ports of an AHCI host in parallel, so six empty ports
 * cost one debounce, not six): the steps of ahci_link_begin on every port,
 * sleeping until the earliest next step. Each port ends LINK_EMPTY,
 * LINK_READY or LINK_FAILED (why says what); returns the LINK_READY ports. */
uint32_t ahci_ports_hardreset(struct ahci_ctrl *c, uint32_t mask, unsigned deadline_ms)
{
    uint32_t pending = mask, ready = 0;

    for_each_port(c, mask, i, p)
        ahci_link_begin(p, deadline_ms);
    while (pending) {
        uint64_t next = UINT64_MAX, now;

        for_each_port(c, pending, i, p) {
            if (ahci_link_step(p))
                pending &= ~(1u << i);
            else
                next = MIN(next, p->link_next_ns);
        }
        now = plat_now_ns();
        if (pending && next > now)
            plat_delay_ns(next - now);
    }
    for_each_port(c, mask, i, p)
        if (p->link == LINK_READY)
            ready |= 1u << i;
    return ready;
}

/* What a finished COMRESET gives: BM_OK when the device answered,
 * BM_ENODEV when the port is empty now, BM_ETIMEDOUT otherwise. */
int ahci_link_result(struct ahci_port *p)
{
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

/* One port's COMRESET, waited for (probe and SMART only; error recovery
 * steps it from poll()): ahci_link_result's codes. */
int ahci_port_comreset(struct ahci_port *p, unsigned ready_ms)
{
    ahci_ports_hardreset(p->ctrl, 1u << p->num, ready_ms);
    return ahci_link_result(p);
}
