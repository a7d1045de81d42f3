/* Native AHCI driver (Serial ATA AHCI 1.3.1; commands from ACS-3; link and
 * device bring-up as Linux libata/libahci do it).
 *
 * probe: take the HBA from the firmware, enable AHCI mode, keep its
 * firmware-written registers, GHC.HR reset and write them back; then for
 * every port in PI: program the command list and received-FIS area, power
 * it up, and COMRESET all ports at once (debounced, with libata's 10/10/35 s
 * deadlines for the device's first FIS); read each device's signature and
 * IDENTIFY each ATA disk (spinning up a Power-Up-In-Standby drive first).
 * Ports with a device that did not come up are named in log records only
 * (err on success means "left out on purpose", blkdev.h).
 * I/O: READ/WRITE FPDMA QUEUED with tag = slot = the engine's tag when both
 * the HBA (CAP.SNCQ) and the disk do NCQ, else READ/WRITE DMA EXT one at a
 * time (READ/WRITE DMA, 28-bit, on a disk without 48-bit addressing).
 * poll() reaps finished slots, turns errors into completions (section
 * 6.2.2 recovery) and times out commands that never finish. release():
 * stop every port and hand the HBA back.
 *
 * This file is the driver's entry (probe, release); the rest is split by
 * job, see ahci_types.h.
 */
#include "ahci_types.h"

/* Deadline of each hardreset, from the COMRESET to the device's first
 * D2H FIS (BSY clear): Linux ata_eh_reset_timeouts[], "most drives spin up
 * by 10sec", "> 99% ... before 20sec", "> 30 secs of idleness for outlier
 * devices". A port that fails one try is reset again with the next. */
static const unsigned ahci_reset_deadline_ms[] = { 10000, 10000, 35000 };
#define AHCI_RESET_TRIES ((unsigned)ARRAY_SIZE(ahci_reset_deadline_ms))

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
            ahci_port_free(c->port[i]);
        c->port[i] = NULL;
    }
    plat_pci_release(c->addr);
    plat_free(c);
}

/* What Linux ahci_save_initial_config() does with the board's host flags:
 * a CAP bit the chip sets but cannot honour is cleared before anything
 * relies on it (port memory below 4 GiB, no NCQ). */
static void ctrl_apply_host_quirks(struct ahci_ctrl *c)
{
    c->vendor = plat_pci_read16(c->addr, 0x00);
    c->hquirks = ahci_host_quirks(c->vendor, plat_pci_read16(c->addr, 0x02));
    if ((c->hquirks & AHCI_HQUIRK_32BIT_ONLY) && (c->cap & AHCI_CAP_S64A)) {
        plat_diag(c->bdf, "controller can't do 64-bit DMA (SB600): only memory below 4 GiB is used");
        c->cap &= ~AHCI_CAP_S64A;
    }
    if ((c->hquirks & AHCI_HQUIRK_NO_NCQ) && (c->cap & AHCI_CAP_SNCQ)) {
        plat_diag(c->bdf, "controller can't do NCQ (Marvell 88SE61xx / VIA VT8251): one command at a time");
        c->cap &= ~AHCI_CAP_SNCQ;
    }
}

/* Take the function from the firmware, map ABAR and reset the HBA; index
 * is the controller's number, decided by discovery (the N of ahciNpM). NULL with err filled (and *rc set) on failure;
 * nothing is left held then. */
static struct ahci_ctrl *ctrl_take(struct pci_addr a, unsigned index, int *rc, char *err, size_t errlen)
{
    struct ahci_ctrl *c = plat_alloc(sizeof(*c));

    if (!c) {
        snprintf(err, errlen, "out of memory");
        *rc = BM_ENOMEM;
        return NULL;
    }
    c->addr = a;
    c->index = index;
    pci_addr_str(a, c->bdf, sizeof(c->bdf));

    *rc = plat_pci_claim(a);
    if (*rc != BM_OK) {
        snprintf(err, errlen, "cannot take the controller from the firmware: %s", bm_strerror(*rc));
        goto err_free;
    }
    pci_enable_device(a);
    c->abar = plat_pci_map_bar(a, AHCI_ABAR, &c->abar_bytes);
    if (!c->abar || c->abar_bytes < AHCI_PORT_BASE + AHCI_PORT_STRIDE) {
        snprintf(err, errlen, "BAR5 (ABAR) is not an MMIO window");
        *rc = BM_ENODEV;
        goto err_release;
    }
    *rc = ahci_hba_reset(c, err, errlen);
    if (*rc != BM_OK)
        goto err_release;
    ctrl_apply_host_quirks(c);
    return c;

err_release:
    plat_pci_release(a);
err_free:
    plat_free(c);
    return NULL;
}

/* A diagnostic naming the HBA's version and capabilities. */
static void ctrl_describe(struct ahci_ctrl *c)
{
    uint32_t vs = c->vs;
    char version[16];

    /* Section 3.1.5: BCD, major in 31:16, minor 15:8 and 7:0 (1.3.1 is
     * 00010301h, 1.3 is 00010300h). */
    snprintf(version, sizeof(version), (vs & 0xff) ? "%x.%x.%x" : "%x.%x", vs >> 16, (vs >> 8) & 0xff, vs & 0xff);
    plat_diag(c->bdf, "AHCI version %s, %u ports (PI 0x%08x), %u slots,%s%s%s%s", version,
              (c->cap & AHCI_CAP_NP_MASK) + 1, c->pi, ((c->cap >> AHCI_CAP_NCS_SHIFT) & AHCI_CAP_NCS_MASK) + 1,
              (c->cap & AHCI_CAP_SNCQ) ? " NCQ" : "", (c->cap & AHCI_CAP_S64A) ? " 64-bit DMA" : " 32-bit DMA",
              (c->cap & AHCI_CAP_SSS) ? " staggered spin-up" : "", (c->cap & AHCI_CAP_SCLO) ? " CLO" : "");
}

/* Set up every port PI names that lies inside ABAR; returns those set up. */
static uint32_t ports_set_up(struct ahci_ctrl *c)
{
    uint32_t set_up = 0;

    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++) {
        if (!(c->pi & (1u << i)))
            continue;
        if (AHCI_PORT_BASE + (i + 1) * AHCI_PORT_STRIDE > c->abar_bytes) {
            plat_diag(c->bdf, "port %u: outside BAR5, skipped", i);
            continue;
        }
        c->port[i] = ahci_port_setup(c, i);
        if (c->port[i])
            set_up |= 1u << i;
    }
    return set_up;
}

/* All links at once; a port whose device is there but does not come up
 * is reset again with the next, longer deadline (Linux ata_eh_reset()
 * walks ata_eh_reset_timeouts[] the same way). Empty ports are decided in
 * the first debounce. Returns the ports whose device answered. */
static uint32_t ports_bring_up(struct ahci_ctrl *c, uint32_t set_up)
{
    uint32_t ready = 0, retry = set_up;

    for (unsigned t = 0; t < AHCI_RESET_TRIES && retry; t++) {
        uint32_t failed = 0;

        ready |= ahci_ports_hardreset(c, retry, ahci_reset_deadline_ms[t]);
        for_each_port(c, retry, i, p) {
            if (p->link != LINK_FAILED)
                continue;
            failed |= 1u << i;
            if (t + 1 < AHCI_RESET_TRIES)
                ahci_port_diag(p, "%s; COMRESET again, %u s deadline", p->why, ahci_reset_deadline_ms[t + 1] / 1000);
        }
        retry = failed;
    }
    for_each_port(c, retry, i, p) {
        ahci_port_diag(p, "skipped: a device is there but did not come up after %u COMRESETs: %s", AHCI_RESET_TRIES,
                       p->why);
    }
    return ready;
}

/* Attach the ready ports' disks to the list; free every other port.
 * Returns the number of disks added. */
static unsigned ports_attach(struct ahci_ctrl *c, uint32_t ready, struct bm_disk_list *disks)
{
    unsigned found = 0;

    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++) {
        struct ahci_port *p = c->port[i];
        if (!p)
            continue;
        if ((ready & (1u << i)) && ahci_port_attach(p) == BM_OK) {
            if (disk_list_add(disks, &p->disk) == BM_OK) {
                found++;
                continue;
            }
            ahci_port_diag(p, "skipped: the disk list is full");
        }
        ahci_port_free(p);
        c->port[i] = NULL;
    }
    return found;
}

static int ahci_probe(struct pci_addr a, unsigned index, struct bm_disk_list *disks, void **ctrl_out, char *err,
                      size_t errlen)
{
    struct ahci_ctrl *c;
    uint32_t ready;
    int rc;

    *ctrl_out = NULL;
    c = ctrl_take(a, index, &rc, err, errlen);
    if (!c)
        return rc;
    ctrl_describe(c);
    ready = ports_bring_up(c, ports_set_up(c));
    if (!ports_attach(c, ready, disks))
        plat_diag(c->bdf, "no ATA disks");
    /* Ports with a device that did not come up are not in err: err on a
     * successful probe means disks left out on purpose (blkdev.h). Each
     * has its log line, and discovery's census notices the firmware's disk
     * on that port and hands the controller back (discover.c). */
    *ctrl_out = c;
    return BM_OK;
}

const struct bm_driver ahci_driver = {
    .name = "ahci",
    .match = ahci_match,
    .probe = ahci_probe,
    .release = ahci_release,
};
