/* Port bring-up around the link reset: the port's DMA memory and FIS
 * reception (section 10.1.2), the device's signature, IDENTIFY DEVICE,
 * Power-Up-In-Standby spin-up, and the disk the engine sees. */
#include "ahci_types.h"

#define AHCI_SPINUP_CMD_MS 30000   /* SET FEATURES spin-up (Linux SETFEATURES_SPINUP_TIMEOUT) */

/* Give the port's memory back, unless the HBA may still write to it. */
void ahci_port_free(struct ahci_port *p)
{
    /* A recovery not finished yet: end it, so the link is not left held
     * in reset for whoever drives the port next (each step bounded by its
     * deadline). */
    ahci_port_recover_finish(p);
    if (ahci_port_quiesce(p) != BM_OK) {
        ahci_port_diag(p, "the port does not stop; its %u bytes of DMA memory stay allocated", AHCI_MEM_BYTES);
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
 * on FIS reception and power it up. The link comes with ahci_ports_hardreset().
 * NULL, with a diagnostic, for a port that cannot be used. */
struct ahci_port *ahci_port_setup(struct ahci_ctrl *c, unsigned num)
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

    if (ahci_port_quiesce(p) != BM_OK) {
        ahci_port_diag(p, "skipped: the port does not stop");
        plat_free(p);
        return NULL;
    }
    p->mem = plat_alloc_pages(AHCI_MEM_BYTES, below_4g);
    if (!p->mem) {
        ahci_port_diag(p, "skipped: no DMA memory%s", below_4g ? " below 4 GiB" : "");
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
    uint32_t dq, sectors_max = 0;
    bool no_ncq_here;

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
    /* What the port and the drive could do: CAP.ISS (AHCI 1.3.1 section
     * 3.1.1: 1 = Gen1, 2 = Gen2, 3 = Gen3) and IDENTIFY word 76. */
    {
        uint32_t iss = (c->cap >> AHCI_CAP_ISS_SHIFT) & AHCI_CAP_ISS_MASK;
        d->link_port_max_gbps = iss == 1 ? 1.5 : iss == 2 ? 3.0 : iss == 3 ? 6.0 : 0.0;
    }
    d->link_drive_max_gbps = p->id.sata_max_gbps;
    d->nqueues = 1;
    /* FPDMA QUEUED carries a 48-bit LBA: NCQ only with 48-bit addressing
     * (ACS-3 makes NCQ require it; a disk that claims NCQ without it is
     * not trusted with it). */
    dq = ata_dev_quirks(p->id.model, p->id.firmware);
    /* Linux ata_dev_config_ncq(): ATA_QUIRK_NO_NCQ_ON_ATI turns NCQ off
     * only when ata_dev_check_adapter() finds an ATI host. */
    no_ncq_here = (dq & ATA_DQUIRK_NO_NCQ_ON_ATI) && c->vendor == ATA_PCI_VENDOR_ATI;
    p->ncq = (c->cap & AHCI_CAP_SNCQ) && p->id.ncq && p->id.lba48 && !(dq & ATA_DQUIRK_NONCQ) && !no_ncq_here;
    d->max_qd = p->ncq ? MIN(p->id.ncq_depth, slots) : 1;
    d->max_transfer_bytes = AHCI_MAX_TRANSFER_BYTES - AHCI_MAX_TRANSFER_BYTES % d->lba_bytes;
    /* Each quirk applied is named in the disk record (Linux prints them
     * with ata_dev_print_quirks()). Sector limits count 512-byte sectors,
     * as Linux max_sectors does. */
    if (c->hquirks & AHCI_HQUIRK_32BIT_ONLY)
        bm_disk_add_quirk(d, "32bit_only");
    if (c->hquirks & AHCI_HQUIRK_NO_NCQ)
        bm_disk_add_quirk(d, "host_noncq");
    if (c->hquirks & AHCI_HQUIRK_SECT255) {
        sectors_max = AHCI_SECT255_SECTORS;
        bm_disk_add_quirk(d, "sect255");
    }
    if ((dq & ATA_DQUIRK_NONCQ) && p->id.ncq) {
        bm_disk_add_quirk(d, "noncq");
        plat_diag(c->bdf, "port %u: %s firmware %s has broken NCQ (Linux ATA_QUIRK_NONCQ): not used", p->num,
                  p->id.model, p->id.firmware);
    }
    if (no_ncq_here && p->id.ncq) {
        bm_disk_add_quirk(d, "noncq_on_ati");
        plat_diag(c->bdf, "port %u: %s has NCQ errors on ATI hosts (Linux ATA_QUIRK_NO_NCQ_ON_ATI): not used",
                  p->num, p->id.model);
    }
    if (dq & ATA_DQUIRK_MAX_SEC_128) {
        sectors_max = sectors_max ? MIN(sectors_max, 128u) : 128u;
        bm_disk_add_quirk(d, "max_sec_128");
    }
    if (dq & ATA_DQUIRK_MAX_SEC_1024) {
        sectors_max = sectors_max ? MIN(sectors_max, 1024u) : 1024u;
        bm_disk_add_quirk(d, "max_sec_1024");
    }
    if (sectors_max) {
        uint32_t cap_bytes = sectors_max * 512u;
        d->max_transfer_bytes = MIN(d->max_transfer_bytes, cap_bytes - cap_bytes % d->lba_bytes);
    }
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
    rc = ahci_port_exec_sync(p, fis, p->scratch, ATA_SECTOR_BYTES, AHCI_SYNC_CMD_MS, &sts, &err);
    if (rc != BM_OK) {
        snprintf(what, sizeof(what), "IDENTIFY DEVICE failed (%s, sts 0x%02x err 0x%02x)", bm_strerror(rc), sts, err);
        ahci_port_diag(p, "skipped: %s", what);
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
    ahci_port_diag(p, "powered up in standby (IDENTIFY word 2 = %s): SET FEATURES spin-up",
                   puis == ATA_PUIS_SPINUP_INCOMPLETE ? "37C8h, data incomplete" : "738Ch");
    ata_fis_set_features(fis, ATA_SF_SPINUP);
    rc = ahci_port_exec_sync(p, fis, NULL, 0, AHCI_SPINUP_CMD_MS, &sts, &err);
    if (rc != BM_OK) {
        snprintf(what, sizeof(what), "SET FEATURES spin-up failed (%s, sts 0x%02x err 0x%02x)", bm_strerror(rc), sts,
                 err);
        if (ahci_port_restart(p, rc == BM_ETIMEDOUT, &reset) != BM_OK || puis == ATA_PUIS_SPINUP_INCOMPLETE) {
            ahci_port_diag(p, "skipped: %s", what);
            return rc == BM_OK ? BM_EIO : rc;
        }
        ahci_port_diag(p, "%s; going on: its IDENTIFY data is complete", what);
        return BM_OK;
    }
    *spun_up = true;
    if (puis == ATA_PUIS_SPINUP_INCOMPLETE)
        return port_identify(p);
    return BM_OK;
}

/* After ahci_ports_hardreset() found the device ready: read its signature,
 * start the port and IDENTIFY an ATA disk (spinning it up first when it
 * powered up in standby). BM_OK when the port has a disk to benchmark;
 * otherwise the caller frees the port. Every device that is not brought
 * up is named in a diagnostic (a log record). */
int ahci_port_attach(struct ahci_port *p)
{
    uint32_t sig = port_rd(p, AHCI_PxSIG);
    bool spun_up;
    int rc;

    if (sig == AHCI_SIG_ATAPI) {
        ahci_port_diag(p, "ATAPI device (signature %08x) skipped: only ATA disks are benchmarked", sig);
        return BM_ENOTSUP;
    }
    if (sig == AHCI_SIG_PM) {
        ahci_port_diag(p, "port multiplier (signature %08x) skipped: not supported; the disks behind it are not "
                          "reached",
                       sig);
        return BM_ENOTSUP;
    }
    if (sig != AHCI_SIG_ATA) {
        ahci_port_diag(p, "device with signature %08x skipped: not an ATA disk", sig);
        return BM_ENOTSUP;
    }

    port_wr(p, AHCI_PxSERR, ~0u);
    port_wr(p, AHCI_PxIS, ~0u);
    ahci_port_start(p);
    rc = port_identify(p);
    if (rc == BM_OK)
        rc = port_spin_up(p, &spun_up);
    if (rc != BM_OK)
        return rc;
    rc = ata_parse_identify(p->scratch, &p->id);
    if (rc != BM_OK) {
        ahci_port_diag(p, "skipped: IDENTIFY DEVICE data is not usable (word 0 %04xh, word 2 %04xh)",
                       p->scratch[0] | p->scratch[1] << 8, p->scratch[4] | p->scratch[5] << 8);
        return rc;
    }
    if (!p->id.dma) {
        /* Every command baremark issues is DMA; a PIO-only device (some CF
         * cards behind a SATA adapter) would abort them all. */
        ahci_port_diag(p, "skipped: %s supports no DMA (IDENTIFY word 49 bit 8): PIO-only devices are not benchmarked",
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
