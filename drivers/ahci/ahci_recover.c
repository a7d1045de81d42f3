/* Error recovery, AHCI 1.3.1 section 6.2.2, as a state machine that each
 * poll() takes a step on (Linux runs it in the port's EH thread, out of
 * the I/O path): decode what failed, stop the command list, clear it, CLO
 * or COMRESET, restart, read the NCQ error log, and complete every command
 * the error caught with a detail that says why. No step waits: each looks
 * at its register once a poll until the register says so or the step's
 * own deadline passes, so the other disks are polled meanwhile. Each step
 * and its time go into the recovery's record (ahci_port_recovery_describe
 * and the "recovery ended" diagnostic). */
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

static const char *const rec_step_name[] = {
    [REC_NONE] = "none", [REC_STOP] = "engine stop", [REC_CLO] = "CLO", [REC_LOG] = "log 10h",
    [REC_COMRESET] = "COMRESET",
};

/* Go to a step; ahci_port_recover_step runs its entry next (in the same
 * poll). */
static void rec_goto(struct ahci_port *p, enum ahci_rec step)
{
    p->rec = step;
    p->rec_entered = false;
}

/* The step under way is over (how: "" or what went wrong): its name and
 * time go into the record. */
static void rec_step_done(struct ahci_port *p, const char *how)
{
    size_t n = strlen(p->rec_steps);
    uint64_t now = plat_now_ns();

    snprintf(p->rec_steps + n, sizeof(p->rec_steps) - n, "%s%s %llu ms%s%s", n ? ", " : "", rec_step_name[p->rec],
             (unsigned long long)((now - p->rec_step_ns) / NS_PER_MS), how[0] ? " " : "", how);
}

/* The end of a recovery: the port runs again (rc BM_OK) or not. Every
 * command the error caught completes, once the command list is known to
 * be stopped (PxCMD.CR clear; every failure path comes here with ST
 * clear); commands submitted meanwhile get their timeout from now and are
 * issued by this poll. */
static void rec_end(struct ahci_port *p, int rc, const struct ata_ncq_error *log)
{
    uint64_t now = plat_now_ns();
    uint32_t caught = p->rec_caught;
    unsigned long long total_ms = (now - p->rec_start_ns) / NS_PER_MS;

    p->rec = REC_NONE;
    snprintf(p->rec_last, sizeof(p->rec_last), "%s%s; %llu ms", rc == BM_OK ? "" : "failed: ", p->rec_steps,
             total_ms);
    if (rc != BM_OK) {
        p->dead = true;
        ahci_port_diag(p, "recovery failed (%s) after %s, %llu ms in all: port disabled", bm_strerror(rc),
                       p->rec_steps, total_ms);
        if (port_rd(p, AHCI_PxCMD) & AHCI_PxCMD_CR) {
            /* PxCMD.CR still set: the HBA may still move data for these
             * commands, so their buffers must not go back to the engine.
             * They stay in flight; the engine's stall detection gives up
             * on the disk and keeps the buffers. */
            ahci_port_diag(p, "the port does not stop (PxCMD.CR set); %u command%s kept in flight: the HBA may "
                              "still write their buffers",
                           popcount32(caught), caught & (caught - 1) ? "s" : "");
            return;
        }
    } else {
        ahci_port_diag(p, "recovery ended, port running: %s, %llu ms in all", p->rec_steps, total_ms);
    }
    complete_caught(p, (enum ahci_fault)p->rec_fault, caught, p->rec_tag, p->rec_why, log);
    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++)
        if (p->unrung & (1u << t))
            p->slot[t].deadline_ns = now + bm_io_timeout_ns();
    p->next_check_ns = 0;
}

/* The port runs again (section 6.2.2.1 step 6 done). A device error on a
 * queued command leaves the device aborting every command until log 10h
 * is read (ACS-3 section 9.13): that is next, unless a COMRESET already
 * cleared the state. Without the log (no GPL) only a COMRESET does. */
static void rec_restarted(struct ahci_port *p)
{
    if (!p->ncq || p->rec_fault != FAULT_DEVICE || p->rec_did_reset) {
        rec_end(p, BM_OK, NULL);
        return;
    }
    if (p->id.gpl && !p->rec_log_tried) {
        rec_goto(p, REC_LOG);
        return;
    }
    p->rec_reset = true;
    rec_goto(p, REC_STOP);
}

/* REC_STOP: PxCMD.ST cleared, CR looked at until it clears (Linux
 * ahci_stop_engine(): ata_wait_register() up to 500 ms). Then steps 3-5
 * of section 6.2.2.1. A list that does not stop in that time gets the
 * COMRESET (as Linux ahci_hardreset() goes on after a failed stop, and
 * ahci_kick_engine()'s failure fails the softreset, which EH follows with
 * a hardreset; AHCI 1.3.1 section 10.4.1 leaves a port or HBA reset for a
 * CR that does not clear). */
static void rec_stop(struct ahci_port *p, uint64_t now, bool entry)
{
    bool stopped;

    if (entry) {
        p->rec_step_ns = now;
        p->rec_deadline_ns = now + AHCI_STOP_MS * NS_PER_MS;
        stopped = ahci_port_stop_begin(p);
    } else {
        stopped = !(port_rd(p, AHCI_PxCMD) & AHCI_PxCMD_CR);
    }
    if (!stopped) {
        if (now <= p->rec_deadline_ns)
            return;
        ahci_port_diag(p, "PxCMD.CR still set %u ms after PxCMD.ST was cleared: COMRESET", AHCI_STOP_MS);
        rec_step_done(p, "(PxCMD.CR still set)");
        rec_goto(p, REC_COMRESET);
        return;
    }
    if (ahci_port_stopped_clear(p))
        p->rec_reset = true;
    rec_step_done(p, "");
    if (p->rec_reset) {
        rec_goto(p, REC_COMRESET);
        return;
    }
    if (port_rd(p, AHCI_PxTFD) & (ATA_STS_BSY | ATA_STS_DRQ)) {
        rec_goto(p, REC_CLO);
        return;
    }
    ahci_port_restart_end(p);
    rec_restarted(p);
}

/* REC_CLO: BSY or DRQ stayed set after the stop: command list override
 * (section 6.2.2.1 step 5, Linux ahci_kick_engine(): CLO waited on up to
 * 500 ms), or a COMRESET where BSY/DRQ still hold or there is no CLO. */
static void rec_clo(struct ahci_port *p, uint64_t now, bool entry)
{
    if (entry) {
        p->rec_step_ns = now;
        p->rec_deadline_ns = now + AHCI_CLO_MS * NS_PER_MS;
        if (!ahci_port_clo_begin(p)) {
            rec_goto(p, REC_COMRESET);
            return;
        }
    }
    if ((port_rd(p, AHCI_PxCMD) & AHCI_PxCMD_CLO) && now <= p->rec_deadline_ns)
        return;
    if (port_rd(p, AHCI_PxTFD) & (ATA_STS_BSY | ATA_STS_DRQ)) {
        rec_step_done(p, "(BSY/DRQ still set)");
        rec_goto(p, REC_COMRESET);
        return;
    }
    rec_step_done(p, "");
    ahci_port_restart_end(p);
    rec_restarted(p);
}

/* The slot READ LOG EXT goes out in: a caught one, whose command is over
 * (the list was stopped) and which no submit can take (its tag is the
 * engine's again only when the recovery ends); -1 when nothing was caught. */
static int rec_log_slot(struct ahci_port *p)
{
    return p->rec_caught ? __builtin_ctz(p->rec_caught) : -1;
}

/* Log 10h could not be had: as Linux ata_eh_analyze_ncq_error() on a
 * failed ata_eh_read_log_10h(), no command is named the culprit, every
 * caught one fails (complete_caught: "tag unknown"), and the port is
 * reset (a timed-out READ LOG EXT freezes the port in libata, and only a
 * COMRESET takes the device out of its NCQ error state without the log). */
static void rec_log_failed(struct ahci_port *p, const char *why)
{
    ahci_port_diag(p, "READ LOG EXT 10h %s: every caught command fails, port reset", why);
    rec_step_done(p, "(failed)");
    p->rec_reset = true;
    rec_goto(p, REC_STOP);
}

/* REC_LOG: READ LOG EXT 10h issued, PxCI looked at until its bit clears
 * or an error stops the port, for AHCI_SYNC_CMD_MS (Linux
 * ata_internal_cmd_timeout(): READ LOG EXT is in no table entry, so
 * ATA_EH_CMD_DFL_TIMEOUT, 5 s). The page names the failing tag, and
 * reading it ends the device's NCQ error state (ACS-3 section 9.13). */
static void rec_log(struct ahci_port *p, uint64_t now, bool entry)
{
    uint8_t fis[SATA_FIS_H2D_BYTES], sts, err;
    uint32_t is, tfd, bit;
    struct ata_ncq_error log;
    char why[64];
    int slot;

    if (entry) {
        p->rec_log_tried = true;
        p->rec_step_ns = now;
        p->rec_deadline_ns = now + AHCI_SYNC_CMD_MS * NS_PER_MS;
        slot = rec_log_slot(p);
        ata_fis_read_log_ext(fis, ATA_LOG_NCQ_ERROR, 0, 1);
        memset(p->scratch, 0, ATA_SECTOR_BYTES);
        if (slot < 0 || ahci_slot_issue(p, (unsigned)slot, fis, p->scratch, ATA_SECTOR_BYTES) != BM_OK) {
            rec_log_failed(p, "not issued: no caught slot to read it in");
            return;
        }
        p->rec_log_slot = (unsigned)slot;
    }
    bit = 1u << p->rec_log_slot;
    is = port_rd(p, AHCI_PxIS);
    if (!(is & AHCI_PxIS_FATAL) && (port_rd(p, AHCI_PxCI) & bit)) {
        if (now <= p->rec_deadline_ns)
            return;
        slot_table(p, p->rec_log_slot)[AHCI_CT_CFIS + FIS_TYPE] = 0;
        snprintf(why, sizeof(why), "timed out after %u ms (PxCI bit %u still set)", AHCI_SYNC_CMD_MS,
                 p->rec_log_slot);
        rec_log_failed(p, why);
        return;
    }
    plat_rmb();
    slot_table(p, p->rec_log_slot)[AHCI_CT_CFIS + FIS_TYPE] = 0; /* no stale command in a caught slot */
    port_wr(p, AHCI_PxIS, is);
    tfd = port_rd(p, AHCI_PxTFD);
    sts = (uint8_t)tfd;
    err = (uint8_t)(tfd >> AHCI_PxTFD_ERR_SHIFT);
    if ((is & AHCI_PxIS_FATAL) || (sts & (ATA_STS_ERR | ATA_STS_DF))) {
        snprintf(why, sizeof(why), "failed (sts 0x%02x err 0x%02x)", sts, err);
        rec_log_failed(p, why);
        return;
    }
    if (ata_parse_ncq_error_log(p->scratch, &log) != BM_OK || log.nq) {
        rec_log_failed(p, "names no queued command");
        return;
    }
    if (log.bad_checksum)
        ahci_port_diag(p, "NCQ error log (10h) has a bad checksum; used as read (Linux ata_eh_read_log_10h)");
    rec_step_done(p, "");
    rec_end(p, BM_OK, &log);
}

/* REC_COMRESET: ahci_link.c's steps (the list is stopped, or was given
 * its 500 ms), then the port is started again if its list has stopped. */
static void rec_comreset(struct ahci_port *p, uint64_t now, bool entry)
{
    int rc;

    if (entry) {
        p->rec_step_ns = now;
        ahci_link_begin(p, AHCI_RECOVER_READY_MS);
    }
    if (!ahci_link_step(p))
        return;
    rc = ahci_link_result(p);
    if (rc != BM_OK) {
        rec_step_done(p, "(failed)");
        rec_end(p, rc, NULL);
        return;
    }
    if (port_rd(p, AHCI_PxCMD) & AHCI_PxCMD_CR) {
        rec_step_done(p, "(PxCMD.CR still set)");
        rec_end(p, BM_EIO, NULL);
        return;
    }
    rec_step_done(p, "");
    p->rec_did_reset = true;
    ahci_port_restart_end(p);
    rec_restarted(p);
}

/* Take the recovery on from poll(): each step's entry and one look at its
 * register; a step that ends goes straight on to the next (a few register
 * accesses each), one that waits leaves the rest to the next poll. */
void ahci_port_recover_step(struct ahci_port *p)
{
    for (unsigned moves = 0; p->rec != REC_NONE && moves < 8; moves++) {
        enum ahci_rec step = p->rec;
        bool entry = !p->rec_entered;
        uint64_t now = plat_now_ns();

        p->rec_entered = true;
        switch (step) {
        case REC_STOP: rec_stop(p, now, entry); break;
        case REC_CLO: rec_clo(p, now, entry); break;
        case REC_LOG: rec_log(p, now, entry); break;
        case REC_COMRESET: rec_comreset(p, now, entry); break;
        default: p->rec = REC_NONE; break;
        }
        if (p->rec == step && p->rec_entered)
            return; /* waiting in this step */
    }
}

/* Run a recovery under way to its end (release: nothing else is polled);
 * every step is bounded by its own deadline. */
void ahci_port_recover_finish(struct ahci_port *p)
{
    while (p->rec != REC_NONE) {
        ahci_port_recover_step(p);
        if (p->rec != REC_NONE)
            plat_delay_ns(AHCI_POLL_NS);
    }
}

/* What the recovery is doing, or did last (the recovery op of blkdev.h):
 * the step and its time. */
void ahci_port_recovery_describe(struct ahci_port *p, char *out, size_t len)
{
    uint64_t now = plat_now_ns();

    if (p->rec != REC_NONE)
        snprintf(out, len, "%s, %llu ms so far (step %llu ms)", rec_step_name[p->rec],
                 (unsigned long long)((now - p->rec_start_ns) / NS_PER_MS),
                 (unsigned long long)(p->rec_entered ? (now - p->rec_step_ns) / NS_PER_MS : 0));
    else if (p->rec_last[0])
        snprintf(out, len, "last recovery: %s", p->rec_last);
    else if (len)
        out[0] = '\0';
}

/* Error recovery, AHCI 1.3.1 section 6.2.2: commands that finished before
 * the error complete normally; the port is stopped, cleared and restarted
 * (COMRESET after a timeout or an HBA error, else where BSY/DRQ stay set);
 * for NCQ, log 10h names the failing tag. Every command the error caught
 * completes with BM_EIO (the timed-out one with BM_ETIMEDOUT) and a
 * decoded detail once the port is back (or given up with its list
 * stopped); the steps run from poll() (ahci_port_recover_step), and
 * commands submitted in the meantime wait for them. Nothing is retried:
 * the engine decides. A port that cannot be restarted is declared dead. */
void ahci_port_recover(struct ahci_port *p, enum ahci_fault fault, uint32_t is, int timed_out_tag)
{
    uint32_t tfd = port_rd(p, AHCI_PxTFD), serr = port_rd(p, AHCI_PxSERR);
    uint32_t sact = port_rd(p, AHCI_PxSACT), ci = port_rd(p, AHCI_PxCI);
    uint32_t finished = p->ncq ? p->busy & ~(sact | ci) : 0, caught;
    uint8_t sts = (uint8_t)tfd, err = (uint8_t)(tfd >> AHCI_PxTFD_ERR_SHIFT);

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
                 (unsigned long long)(bm_io_timeout_ns() / NS_PER_S));
    ahci_port_diag(p, "%s; recovering (PxIS 0x%08x PxTFD 0x%04x PxSERR 0x%08x PxSACT 0x%08x PxCI 0x%08x)",
                   p->rec_why, is, tfd & 0xffff, serr, sact, ci);
    p->rec_fault = (uint8_t)fault;
    p->rec_tag = timed_out_tag;
    p->rec_caught = caught;
    p->rec_start_ns = plat_now_ns();
    p->rec_steps[0] = '\0';
    p->rec_log_tried = false;
    p->rec_did_reset = false;
    /* Only a device error tells the drive anything (it then aborts its
     * queue itself). After a timeout, or an HBA or interface error, the
     * drive may still hold queued commands whose tags and buffers we are
     * about to hand back, and finish them later into whatever the slot
     * then points at: only a COMRESET empties its queue (Linux libahci
     * resets on IFS/HBFS/HBDS too). */
    p->rec_reset = fault != FAULT_DEVICE;
    /* A queued error without GPL: no log 10h to end the drive's NCQ
     * error state, only a COMRESET (ACS-3 section 9.13). */
    if (fault == FAULT_DEVICE && p->ncq && !p->id.gpl)
        p->rec_reset = true;

    /* Make the caught slots harmless first: an HBA that re-issues stale
     * PxCI bits after a restart then finds no command FIS (type 0). */
    for (unsigned t = 0; t < AHCI_SLOTS_MAX; t++)
        if (caught & (1u << t))
            slot_table(p, t)[AHCI_CT_CFIS + FIS_TYPE] = 0;
    plat_wmb();
    rec_goto(p, REC_STOP);
    ahci_port_recover_step(p);
}
