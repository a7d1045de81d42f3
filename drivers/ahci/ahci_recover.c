/* Error recovery, AHCI 1.3.1 section 6.2.2: decode what failed, restart
 * the port, read the NCQ error log, and complete every command the error
 * caught with a detail that says why. */
#include "ahci_types.h"

/* Queue a completion for the engine and give the slot back. */
void ahci_complete(struct ahci_port *p, unsigned tag, int status, const char *detail)
{
    struct bm_completion *c = &p->done[(p->done_head + p->done_count) % AHCI_SLOTS_MAX];

    p->busy &= ~(1u << tag);
    p->unrung &= ~(1u << tag);
    if (p->done_count == AHCI_SLOTS_MAX) {
        /* Only if the engine reused a tag before reaping its completion. */
        ahci_port_diag(p, "tag %u: completion lost, %u already waiting to be reaped", tag, p->done_count);
        return;
    }
    c->tag = tag;
    c->status = status;
    bm_strlcpy(c->detail, detail ? detail : "", sizeof(c->detail));
    p->done_count++;
}

/* Names of the PxIS error bits, for a detail string (the link and FIS
 * errors by what happened, as Linux ahci_error_intr()'s descriptions). */
static void describe_hba_error(char *dst, size_t cap, uint32_t is, uint32_t serr)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } bits[] = {
        { AHCI_PxIS_PRCS, "link change (PRCS)" },  { AHCI_PxIS_PCS, "connect change (PCS)" },
        { AHCI_PxIS_UFS, "unknown FIS (UFS)" },    { AHCI_PxIS_IPMS, "bad PMP status (IPMS)" },
        { AHCI_PxIS_HBFS, "HBFS" },                { AHCI_PxIS_HBDS, "HBDS" },
        { AHCI_PxIS_IFS, "IFS" },                  { AHCI_PxIS_OFS, "OFS" },
        { AHCI_PxIS_TFES, "TFES" },
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
    rc = ahci_port_exec_sync(p, fis, p->scratch, ATA_SECTOR_BYTES, AHCI_SYNC_CMD_MS, &sts, &err);
    if (rc != BM_OK) {
        ahci_port_diag(p, "READ LOG EXT 10h failed (%s, sts 0x%02x err 0x%02x)", bm_strerror(rc), sts, err);
        return rc;
    }
    rc = ata_parse_ncq_error_log(p->scratch, e);
    if (rc == BM_OK && e->bad_checksum)
        ahci_port_diag(p, "NCQ error log (10h) has a bad checksum; used as read (Linux ata_eh_read_log_10h)");
    return rc;
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

/* Complete every command the error caught: BM_ETIMEDOUT for the one that
 * timed out, else BM_EIO with the failing tag's decoded registers from
 * log 10h (when read), or why the others were aborted. */
static void complete_caught(struct ahci_port *p, enum ahci_fault fault, uint32_t caught, int timed_out_tag,
                            const char *why, const struct ata_ncq_error *log)
{
    char detail[64];

    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++) {
        if (!(caught & (1u << t)))
            continue;
        if (fault == FAULT_TIMEOUT) {
            if ((int)t == timed_out_tag) {
                ahci_complete(p, t, BM_ETIMEDOUT, why);
                continue;
            }
            snprintf(detail, sizeof(detail), "aborted: tag %d timed out", timed_out_tag);
        } else if (log && log->tag == t) {
            ata_describe_error(detail, sizeof(detail), log->status, log->error, true, log->lba);
        } else if (log && (caught & (1u << log->tag))) {
            snprintf(detail, sizeof(detail), "aborted: NCQ error on tag %u", log->tag);
        } else if (p->ncq && fault == FAULT_DEVICE && (caught & (caught - 1))) {
            /* No log: any of the queued commands may be the one that failed. */
            snprintf(detail, sizeof(detail), "%.36s; tag unknown (%u queued)", why, popcount32(caught));
        } else {
            bm_strlcpy(detail, why, sizeof(detail));
        }
        ahci_complete(p, t, BM_EIO, detail);
    }
}

/* The end of a recovery: the port runs again (rc BM_OK) or not. Every
 * command the error caught completes; commands submitted meanwhile get
 * their timeout from now and are issued by this poll. */
static void recover_end(struct ahci_port *p, int rc, bool have_log, const struct ata_ncq_error *log)
{
    uint64_t now = plat_now_ns();
    uint32_t caught = p->rec_caught;

    p->rec = REC_NONE;
    if (rc != BM_OK) {
        p->dead = true;
        ahci_port_diag(p, "recovery failed (%s): port disabled", bm_strerror(rc));
        if (ahci_port_stop(p) != BM_OK) {
            /* PxCMD.CR still set: the HBA may still move data for these
             * commands, so their buffers must not go back to the engine.
             * They stay in flight; the engine's stall detection gives up
             * on the disk and keeps the buffers. */
            ahci_port_diag(p, "the port does not stop; %u command%s kept in flight: the HBA may still write "
                              "their buffers",
                           popcount32(caught), caught & (caught - 1) ? "s" : "");
            return;
        }
    }
    complete_caught(p, (enum ahci_fault)p->rec_fault, caught, p->rec_tag, p->rec_why, have_log ? log : NULL);
    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++)
        if (p->unrung & (1u << t))
            p->slot[t].deadline_ns = now + AHCI_CMD_TIMEOUT_NS;
    p->next_check_ns = 0;
}

/* After the port was started again: a device error on a queued command
 * leaves the device aborting every command until log 10h is read (ACS-3
 * section 9.13); without the log (no GPL, or the read failed) only a
 * COMRESET clears that state, which is then begun. */
static void recover_after_restart(struct ahci_port *p, bool did_reset)
{
    struct ata_ncq_error log;

    if (p->ncq && p->rec_fault == FAULT_DEVICE && !did_reset) {
        if (p->id.gpl && port_read_ncq_log(p, &log) == BM_OK && !log.nq) {
            recover_end(p, BM_OK, true, &log);
            return;
        }
        bool reset = true;
        int rc = ahci_port_restart_begin(p, &reset);
        if (rc != BM_OK) {
            recover_end(p, rc, false, NULL);
            return;
        }
        ahci_link_begin(p, AHCI_RECOVER_READY_MS);
        p->rec = REC_COMRESET_NO_LOG;
        return;
    }
    recover_end(p, BM_OK, false, NULL);
}

/* One step of a recovery's COMRESET, from poll(): a few register accesses,
 * never a wait, so the other disks are polled meanwhile (as Linux runs
 * ahci_hardreset() in the port's EH thread, not in the I/O path). */
void ahci_port_recover_step(struct ahci_port *p)
{
    int rc;

    if (p->rec == REC_NONE || !ahci_link_step(p))
        return;
    rc = ahci_link_result(p);
    if (rc != BM_OK) {
        recover_end(p, rc, false, NULL);
        return;
    }
    ahci_port_restart_end(p);
    if (p->rec == REC_COMRESET_NO_LOG)
        recover_end(p, BM_OK, false, NULL);
    else
        recover_after_restart(p, true);
}

/* Error recovery, AHCI 1.3.1 section 6.2.2: commands that finished before
 * the error complete normally; the port is stopped, cleared and restarted
 * (COMRESET after a timeout or an HBA error, else where BSY/DRQ stay set);
 * for NCQ, log 10h names the failing tag. Every command the error caught
 * completes with BM_EIO (the timed-out one with BM_ETIMEDOUT) and a
 * decoded detail, once the port is back: a COMRESET (hundreds of ms:
 * ahci_link.c) is stepped from poll() meanwhile (ahci_port_recover_step),
 * and commands submitted in the meantime wait for it. Nothing is retried:
 * the engine decides. If the port cannot be restarted it is declared dead. */
void ahci_port_recover(struct ahci_port *p, enum ahci_fault fault, uint32_t is, int timed_out_tag)
{
    uint32_t tfd = port_rd(p, AHCI_PxTFD), serr = port_rd(p, AHCI_PxSERR);
    uint32_t sact = port_rd(p, AHCI_PxSACT), ci = port_rd(p, AHCI_PxCI);
    uint32_t finished = p->ncq ? p->busy & ~(sact | ci) : 0, caught;
    uint8_t sts = (uint8_t)tfd, err = (uint8_t)(tfd >> AHCI_PxTFD_ERR_SHIFT);
    bool reset = fault != FAULT_DEVICE;
    int rc;

    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++)
        if (finished & (1u << t))
            ahci_complete(p, t, BM_OK, NULL);
    caught = p->busy;

    if (fault == FAULT_DEVICE) {
        uint64_t lba = 0;
        bool has_lba = !p->ncq && d2h_error_lba(p, err, &lba);
        ata_describe_error(p->rec_why, sizeof(p->rec_why), sts, err, has_lba, lba);
    }
    else if (fault == FAULT_HBA)
        describe_hba_error(p->rec_why, sizeof(p->rec_why), is, serr);
    else
        snprintf(p->rec_why, sizeof(p->rec_why), "tag %d: no answer in %llu s", timed_out_tag,
                 (unsigned long long)(AHCI_CMD_TIMEOUT_NS / NS_PER_S));
    ahci_port_diag(p, "%s; recovering (PxIS 0x%08x PxTFD 0x%04x PxSERR 0x%08x PxSACT 0x%08x PxCI 0x%08x)",
                   p->rec_why, is, tfd & 0xffff, serr, sact, ci);
    p->rec_fault = (uint8_t)fault;
    p->rec_tag = timed_out_tag;
    p->rec_caught = caught;

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
    rc = ahci_port_restart_begin(p, &reset);
    if (rc != BM_OK) {
        recover_end(p, rc, false, NULL);
        return;
    }
    if (reset) {
        ahci_link_begin(p, AHCI_RECOVER_READY_MS);
        p->rec = REC_COMRESET;
        return;
    }
    recover_after_restart(p, false);
}
