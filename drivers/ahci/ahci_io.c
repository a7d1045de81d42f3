/* The tagged queue of drivers/blkdev.h for one AHCI port: submit with
 * tag = slot, poll reaping finished slots, errors and timeouts, and SMART
 * between workloads. */
#include "ahci_types.h"

#define AHCI_ERROR_CHECK_NS (100 * NS_PER_US) /* PxIS is read at least this often while commands run */

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
    rc = ahci_slot_prepare(p, tag, fis, buf, (uint32_t)bytes, write);
    if (rc != BM_OK)
        return rc;

    s = &p->slot[tag];
    s->lba = lba;
    s->blocks = blocks;
    s->write = write;
    s->deadline_ns = plat_now_ns() + bm_io_timeout_ns();
    if (!p->busy || s->deadline_ns < p->next_check_ns)
        p->next_check_ns = s->deadline_ns;
    p->busy |= bit;

    if (!p->ncq)
        p->rfis[AHCI_RFIS_RFIS + FIS_TYPE] = 0; /* see d2h_error_lba */
    p->unrung |= bit;
    return BM_OK;
}

/* Issue every command submitted since the last time: one PxSACT and one
 * PxCI write for the batch. The command tables and headers must be in
 * memory before; PxSACT before PxCI for queued commands (AHCI 1.3.1
 * section 5.3.2); both registers only set the bits written as 1, so one
 * write may carry several slots (section 3.3.14). */
static void ahci_ring(struct ahci_port *p)
{
    uint32_t bits = p->unrung;

    if (!bits)
        return;
    p->unrung = 0;
    plat_wmb();
    if (p->ncq)
        port_wr(p, AHCI_PxSACT, bits);
    port_wr(p, AHCI_PxCI, bits);
}

/* The ATA status carried by the FISes whose PxIS bits are in is, read
 * from the received-FIS area in host memory instead of PxTFD: with
 * PxCMD.FRE set the HBA copies every FIS there (section 4.2.1) and
 * PxTFD.STS is only the status of the last one (3.3.8); a Set Device Bits
 * FIS carries status bits 6:4 and 2:0 (DF and ERR among them), a D2H
 * Register FIS all of them. That spares a register read on every I/O.
 * A PIO Setup FIS (never on the I/O path) keeps its ending status in
 * byte 15: that case reads PxTFD. */
static uint8_t fis_status(struct ahci_port *p, uint32_t is)
{
    const volatile uint8_t *r = p->rfis;
    uint8_t sts = 0;

    if (is & AHCI_PxIS_PSS)
        return (uint8_t)port_rd(p, AHCI_PxTFD);
    plat_rmb(); /* the FIS before its PxIS bit */
    if (is & AHCI_PxIS_SDBS)
        sts |= r[AHCI_RFIS_SDBFIS + 2];
    if (is & AHCI_PxIS_DHRS)
        sts |= r[AHCI_RFIS_RFIS + 2];
    return sts;
}

/* Look for errors in PxIS (and in the status of a FIS that arrived) and
 * recover from them. Returns true when it recovered: the caught commands
 * are then completed already. */
static bool port_check_errors(struct ahci_port *p)
{
    uint32_t is = port_rd(p, AHCI_PxIS);
    bool device_error;

    if (!is)
        return false;
    port_wr(p, AHCI_PxIS, is);
    if (is & AHCI_PxIS_UFS) {
        const volatile uint8_t *u = p->rfis + AHCI_RFIS_UFIS;
        plat_rmb();
        ahci_port_diag(p, "unknown FIS %02x %02x %02x %02x %02x %02x %02x %02x", u[0], u[1], u[2], u[3], u[4], u[5],
                       u[6], u[7]);
    }
    /* As Linux ahci_error_intr(): a link or connect change, an unknown
     * FIS, a bad PMP status or a host bus / interface error is recovered
     * at once with a COMRESET, not left to the command timeout. */
    if (is & AHCI_PxIS_RESET) {
        ahci_port_recover(p, FAULT_HBA, is, -1);
        return true;
    }
    /* Some HBAs (QEMU 7.2 ahci_write_fis_sdb()) report a failed queued
     * command only through the status of the SDB FIS, without TFES: look
     * at the status of the FIS that came. */
    device_error = (is & AHCI_PxIS_TFES) ||
                   ((is & AHCI_PxIS_FIS_RX) && (fis_status(p, is) & (ATA_STS_ERR | ATA_STS_DF)));
    if (device_error)
        ahci_port_recover(p, FAULT_DEVICE, is, -1);
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
        for (; finished; finished &= finished - 1)
            ahci_complete(p, (unsigned)__builtin_ctz(finished), BM_OK, NULL);
    }

    if (!p->busy || now < p->next_check_ns)
        return;
    p->next_check_ns = UINT64_MAX;
    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++) {
        if (!(p->busy & (1u << t)))
            continue;
        if (now >= p->slot[t].deadline_ns) {
            ahci_port_recover(p, FAULT_TIMEOUT, port_rd(p, AHCI_PxIS), (int)t);
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
    if (p->rec != REC_NONE)
        ahci_port_recover_step(p); /* nothing to ring or reap until the port is back */
    if (p->rec == REC_NONE && !p->dead) {
        ahci_ring(p); /* what the caller did not flush (or submitted while the port recovered) */
        if (p->busy)
            port_reap(p);
    }
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

    if (p->dead || p->busy || p->rec != REC_NONE)
        return BM_EBUSY;
    ata_fis_smart(fis, ATA_SMART_READ_THRESHOLDS);
    rc = ahci_port_exec_sync(p, fis, p->scratch + ATA_SECTOR_BYTES, ATA_SECTOR_BYTES, AHCI_SYNC_CMD_MS, &sts, &err);
    if (rc == BM_OK) {
        ata_fis_smart(fis, ATA_SMART_READ_DATA);
        rc = ahci_port_exec_sync(p, fis, p->scratch, ATA_SECTOR_BYTES, AHCI_SYNC_CMD_MS, &sts, &err);
    }
    if (rc != BM_OK) {
        ahci_port_diag(p, "SMART not read (%s, sts 0x%02x err 0x%02x)", bm_strerror(rc), sts, err);
        if (ahci_port_restart(p, rc == BM_ETIMEDOUT, &reset) != BM_OK)
            p->dead = true;
        return rc;
    }
    plat_rmb();
    ata_parse_smart(p->scratch, p->scratch + ATA_SECTOR_BYTES, h);
    port_wr(p, AHCI_PxIS, ~0u);
    return BM_OK;
}

/* The doorbell for what submit queued (blkdev.h flush). */
static void ahci_flush(struct bm_disk *d, unsigned queue)
{
    struct ahci_port *p = d->priv;

    if (queue == 0 && !p->dead && p->rec == REC_NONE)
        ahci_ring(p);
}

/* The recovery under way or the last one: its step and time (blkdev.h). */
static void ahci_recovery(struct bm_disk *d, char *out, size_t len)
{
    ahci_port_recovery_describe(d->priv, out, len);
}

const struct bm_disk_ops ahci_ops = {
    .submit = ahci_submit,
    .poll = ahci_poll,
    .flush = ahci_flush,
    .health = ahci_health,
    .recovery = ahci_recovery,
};
