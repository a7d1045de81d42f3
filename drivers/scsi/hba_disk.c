/* The disk glue shared by host bus adapter drivers (see hba_disk.h). */
#include "hba_disk.h"
#include "scsi_health.h"
#include "../../efi/time_units.h"

int hba_host_init(struct hba_host *h, uint32_t nslots, uint64_t timeout_ns, const struct hba_host_ops *ops,
                  void *ctrl, const char *where)
{
    h->ops = ops;
    h->ctrl = ctrl;
    h->where = where;
    h->ndisks = 0;
    return hbaq_init(&h->q, nslots, timeout_ns);
}

void hba_host_free_disks(struct hba_host *h)
{
    for (unsigned i = 0; i < h->ndisks; i++) {
        hbaq_disk_destroy(&h->disks[i]->q);
        plat_free(h->disks[i]);
    }
    h->ndisks = 0;
}

void hba_host_destroy(struct hba_host *h)
{
    hba_host_free_disks(h);
    hbaq_destroy(&h->q);
}

int hba_disk_add(struct hba_host *h, struct bm_disk_list *disks, const struct hba_disk_spec *s)
{
    struct hba_target t = s->t;
    struct scsi_transport tr = { s->exec, &t, s->scsi_name ? s->scsi_name : s->tname };
    struct scsi_hba_place at = s->at;
    struct scsi_disk_info info;
    struct hba_disk *hd;
    uint32_t qd;
    int rc;

    if (h->ndisks >= ARRAY_SIZE(h->disks)) {
        plat_diag(h->where, "%s: too many disks, skipped", s->tname);
        return BM_ENOSPC;
    }
    rc = scsi_identify_for_hba(&tr, &info);
    if (rc != BM_OK)
        return rc;
    hd = plat_alloc(sizeof(*hd));
    if (!hd)
        return BM_ENOMEM;
    qd = MIN(s->max_qd, h->q.nslots - 1);
    if (s->one_if_untagged && !info.inq.cmdque)
        qd = 1;
    if (hbaq_disk_init(&hd->q, qd) != BM_OK) {
        plat_free(hd);
        return BM_ENOMEM;
    }
    hd->host = h;
    hd->t = s->t;
    hd->exec = s->exec;
    bm_strlcpy(hd->scsi_name, tr.name, sizeof(hd->scsi_name));
    hd->sat = info.sat;
    snprintf(hd->d.id, sizeof(hd->d.id), "%s", s->id);
    at.max_qd = hd->q.max_inflight;
    scsi_fill_hba_disk(&hd->d, &info, &at, s->ops, hd);
    if (disk_list_add(disks, &hd->d) != BM_OK) {
        plat_diag(h->where, "%s: disk list full, skipped", s->tname);
        hbaq_disk_destroy(&hd->q);
        plat_free(hd);
        return BM_ENOSPC;
    }
    h->disks[h->ndisks++] = hd;
    plat_diag(h->where, "%s: %s \"%s\" serial \"%s\", %llu x %u-byte blocks, queue depth %u", s->tname, hd->d.id,
              hd->d.model, hd->d.serial, (unsigned long long)hd->d.blocks, hd->d.lba_bytes, hd->d.max_qd);
    return BM_OK;
}

bool hba_scsi_disposition(struct hba_host *h, uint32_t slot, uint8_t scsi_status, const uint8_t *sense,
                          size_t sense_len)
{
    struct hbaq_slot *s;
    struct hba_disk *hd;
    char what[64];
    uint64_t n;

    if (slot >= h->q.nslots)
        return false;
    s = &h->q.slots[slot];
    if (s->state != HBAQ_BUSY || !s->owner)
        return false;
    switch (scsi_disposition(scsi_status, sense, sense_len)) {
    case SCSI_DISP_RECOVERED:
        hd = (struct hba_disk *)(void *)((char *)s->owner - offsetof(struct hba_disk, q));
        /* Counted on the disk, where the engine reads it for the records
         * (disk_result "recovered"); logged the 1st, 2nd, 4th, 8th ...
         * time: a disk that corrects every read does not flood the log. */
        bm_disk_count_recovered(&hd->d);
        n = bm_disk_recovered(&hd->d);
        if (!(n & (n - 1))) {
            scsi_describe(scsi_status, sense, sense_len, what, sizeof(what));
            plat_diag(h->where, "%s: %s; the command succeeded (%llu recovered so far)", hd->d.id, what,
                      (unsigned long long)n);
        }
        hbaq_complete(&h->q, slot, BM_OK, NULL);
        return true;
    case SCSI_DISP_RETRY:
    case SCSI_DISP_WAIT_READY:
        return hbaq_requeue(&h->q, slot, plat_now_ns());
    default:
        return false;
    }
}

uint32_t hba_host_wait_idle(struct hba_host *h, uint64_t timeout_ns, bool (*gone)(void *ctrl))
{
    uint64_t deadline = plat_now_ns() + timeout_ns;
    uint32_t held;

    for (;;) {
        hbaq_lock(&h->q);
        h->ops->drain(h->ctrl);
        held = h->q.busy - h->q.retry_waiting;
        hbaq_unlock(&h->q);
        if (!held || plat_now_ns() > deadline || (gone && gone(h->ctrl)))
            return held;
        plat_delay_ns(1000000ull); /* 1 ms */
    }
}

int hba_disk_health(struct bm_disk *d, struct bm_health *out)
{
    struct hba_disk *hd = d->priv;
    struct hba_target t = hd->t;
    struct scsi_transport tr = { hd->exec, &t, hd->scsi_name };
    char err[160];
    int rc;

    if (hd->t.logical || !hd->exec)
        return BM_ENOTSUP;
    rc = scsi_read_health(&tr, hd->sat, out, err, sizeof(err));
    if (rc != BM_OK)
        plat_diag(hd->host->where, "%s: health not read: %s", d->id, err);
    return rc;
}

/* ---- Recovery, one step per poll() ----------------------------------------------------------- */

static const char *const hba_rec_names[] = { "none", "ABORT TASK", "TARGET RESET", "host reset" };

/* Does the controller still hold the command being recovered? */
static bool rec_held(const struct hba_host *h) { return hbaq_slot_held(&h->q, h->rec.slot); }

/* Enter a step: its start, its bound, and its name on the completions of
 * the timed-out commands it gets back. */
static void rec_enter(struct hba_host *h, uint8_t step, uint64_t now_ns, uint64_t bound_ns)
{
    h->rec.step = step;
    h->rec.step_ns = now_ns;
    h->rec.deadline_ns = now_ns + bound_ns;
    h->rec.tm_out = false;
    h->rec.sub = NULL;
    h->q.rec_step = hba_rec_names[step];
}

/* The recovery is over (the command came back, or nothing more can be
 * tried); how is kept for the records. */
static void rec_finish(struct hba_host *h, uint64_t now_ns, bool back)
{
    struct hba_recovery *r = &h->rec;

    snprintf(r->last, sizeof(r->last), "%s%s, %llu ms (step %llu ms)", hba_rec_names[r->step],
             back ? "" : " did not get it back", (unsigned long long)((now_ns - r->started_ns) / 1000000ull),
             (unsigned long long)((now_ns - r->step_ns) / 1000000ull));
    plat_diag(h->where, "slot %u: recovery ended: %s", r->slot, r->last);
    r->step = HBA_REC_IDLE;
    r->tm_out = false;
    h->q.rec_step = NULL;
}

/* Start the host reset (or, without one, leave the command held). */
static void rec_host_reset(struct hba_host *h, uint64_t now_ns, const char *why)
{
    char err[160] = "";
    const char *sub = NULL;
    int rc;

    if (!h->ops->host_reset) {
        struct hba_recovery *r = &h->rec;

        snprintf(r->last, sizeof(r->last), "%.50s, no host reset: held since %llu ms", why,
                 (unsigned long long)((now_ns - r->started_ns) / 1000000ull));
        plat_diag(h->where, "slot %u: %s; no host reset here: it stays held until the controller answers", r->slot,
                  why);
        r->step = HBA_REC_IDLE;
        r->tm_out = false;
        h->q.rec_step = NULL;
        return;
    }
    plat_diag(h->where, "slot %u: %s: host reset", h->rec.slot, why);
    /* The parts bound themselves; this bound only catches a transport
     * that never ends one (every part is at most minutes). */
    rec_enter(h, HBA_REC_HOST_RESET, now_ns, 600ull * NS_PER_S);
    rc = h->ops->host_reset(h->ctrl, true, &sub, err, sizeof(err));
    h->rec.sub = sub;
    if (rc == HBA_PENDING)
        return;
    if (rc != BM_OK) {
        plat_diag(h->where, "host reset: %s; controller given up", err);
        h->rec.given_up = true;
    }
    rec_finish(h, plat_now_ns(), rc == BM_OK);
}

/* Post the task management of a step, or go on to the next one when
 * there is none for this command. */
static void rec_tm(struct hba_host *h, uint8_t step, uint64_t now_ns)
{
    char err[160] = "", why[200];
    int rc;

    if (!h->ops->tm_post) {
        rec_host_reset(h, now_ns, "no task management");
        return;
    }
    rec_enter(h, step, now_ns, h->ops->tm_timeout_ns);
    rc = h->ops->tm_post(h->ctrl, step == HBA_REC_ABORT_TASK ? HBA_TM_ABORT_TASK : HBA_TM_TARGET_RESET, h->rec.slot,
                         err, sizeof(err));
    if (rc == BM_OK) {
        h->rec.tm_out = true;
        plat_diag(h->where, "slot %u timed out: %s sent", h->rec.slot, hba_rec_names[step]);
        return;
    }
    if (rc == BM_ENOTSUP && step == HBA_REC_ABORT_TASK) {
        rec_tm(h, HBA_REC_TARGET_RESET, now_ns);
        return;
    }
    snprintf(why, sizeof(why), "%s %s", hba_rec_names[step], rc == BM_ENOTSUP ? "not available" : err);
    rec_host_reset(h, now_ns, why);
}

/* The next held command no recovery has tried yet, or -1. */
static int rec_next(struct hba_host *h)
{
    if (!h->q.timed_out && h->q.busy == h->q.retry_waiting)
        return -1;
    for (uint32_t i = 0; i < h->q.nslots; i++) {
        struct hbaq_slot *s = &h->q.slots[i];

        if (!s->rec_tried && (s->state == HBAQ_TIMEDOUT || (s->state == HBAQ_ABANDONED && s->rec_wanted)))
            return (int)i;
    }
    return -1;
}

void hba_recover_step(struct hba_host *h, uint64_t now_ns)
{
    struct hba_recovery *r = &h->rec;
    char err[160] = "", why[200];
    const char *sub = NULL;
    int rc, next;

    switch (r->step) {
    case HBA_REC_IDLE:
        /* Looked for at most every 5 ms: a command that stays held for
         * good (nothing could get it back) must not cost every poll of
         * the controller's other disks a walk of the slot table. */
        if (r->given_up || now_ns < r->next_scan_ns)
            return;
        r->next_scan_ns = now_ns + 5000000ull;
        if ((next = rec_next(h)) < 0)
            return;
        r->slot = (uint32_t)next;
        h->q.slots[next].rec_tried = true;
        r->started_ns = now_ns;
        r->recoveries++;
        if (h->ops->faulted && h->ops->faulted(h->ctrl, err, sizeof(err))) {
            /* No task management to a dead controller. */
            rec_host_reset(h, now_ns, err);
            return;
        }
        rec_tm(h, HBA_REC_ABORT_TASK, now_ns);
        return;
    case HBA_REC_ABORT_TASK:
    case HBA_REC_TARGET_RESET:
        if (r->tm_out) {
            rc = h->ops->tm_check(h->ctrl, err, sizeof(err));
            if (rc == HBA_PENDING) {
                if (now_ns <= r->deadline_ns)
                    return;
                /* Task management itself unanswered: the host reset
                 * (mptscsih "TaskMgmt TIMED OUT" -> hard reset; the
                 * midlayer's next escalation). */
                if (h->ops->tm_abandon)
                    h->ops->tm_abandon(h->ctrl);
                r->tm_out = false;
                snprintf(why, sizeof(why), "%s: no answer within %llu ms", hba_rec_names[r->step],
                         (unsigned long long)(h->ops->tm_timeout_ns / 1000000ull));
                rec_host_reset(h, now_ns, why);
                return;
            }
            r->tm_out = false;
            if (rc != BM_OK)
                plat_diag(h->where, "slot %u: %s", r->slot, err);
        }
        if (!rec_held(h)) {
            rec_finish(h, now_ns, true);
            return;
        }
        if (r->step == HBA_REC_ABORT_TASK) {
            rec_tm(h, HBA_REC_TARGET_RESET, now_ns);
            return;
        }
        snprintf(why, sizeof(why), "still held after %s", hba_rec_names[r->step]);
        rec_host_reset(h, now_ns, why);
        return;
    case HBA_REC_HOST_RESET:
        rc = h->ops->host_reset(h->ctrl, false, &sub, err, sizeof(err));
        if (rc == HBA_PENDING) {
            if (sub != r->sub) {
                plat_diag(h->where, "host reset: %s done in %llu ms, %s next", r->sub ? r->sub : "start",
                          (unsigned long long)((now_ns - r->step_ns) / 1000000ull), sub ? sub : "?");
                r->sub = sub;
                r->step_ns = now_ns;
            } else if (now_ns > r->deadline_ns) {
                plat_diag(h->where, "host reset: %s never ended; controller given up", sub ? sub : "?");
                r->given_up = true;
                rec_finish(h, now_ns, false);
            }
            return;
        }
        if (rc != BM_OK) {
            plat_diag(h->where, "host reset: %s; controller given up", err);
            r->given_up = true;
            rec_finish(h, now_ns, false);
            /* The record names the part that failed and why (its time). */
            snprintf(r->last, sizeof(r->last), "host reset gave up in %s after %llu ms: %.120s",
                     r->sub ? r->sub : "its start", (unsigned long long)((now_ns - r->started_ns) / 1000000ull), err);
            return;
        }
        rec_finish(h, now_ns, true);
        return;
    default:
        r->step = HBA_REC_IDLE;
        return;
    }
}

void hba_recover_now(struct hba_host *h, uint32_t slot)
{
    if (!hbaq_slot_held(&h->q, slot))
        return;
    h->q.slots[slot].rec_wanted = true;
    for (;;) {
        h->ops->drain(h->ctrl);
        hba_recover_step(h, plat_now_ns());
        if (h->rec.step == HBA_REC_IDLE &&
            (h->q.slots[slot].rec_tried || h->rec.given_up || !hbaq_slot_held(&h->q, slot)))
            return;
        plat_delay_ns(100000ull); /* 0.1 ms: each step is bounded by its own deadline */
    }
}

void hba_recovery_describe(const struct hba_host *h, char *out, size_t len)
{
    const struct hba_recovery *r = &h->rec;
    uint64_t now = plat_now_ns();

    if (r->step != HBA_REC_IDLE)
        snprintf(out, len, "%s%s%s for slot %u, %llu ms so far", hba_rec_names[r->step], r->sub ? ": " : "",
                 r->sub ? r->sub : "", r->slot, (unsigned long long)((now - r->started_ns) / 1000000ull));
    else if (r->last[0])
        snprintf(out, len, "last recovery: %s", r->last);
    else if (len)
        out[0] = '\0';
}

void hba_disk_recovery(struct bm_disk *d, char *out, size_t len)
{
    struct hba_host *h = hba_disk_of(d)->host;

    hbaq_lock(&h->q);
    hba_recovery_describe(h, out, len);
    hbaq_unlock(&h->q);
}

void hba_send_retries(struct hba_host *h)
{
    int slot;

    /* Not to a controller being reset: they wait for it. */
    if (!h->ops->resend || h->rec.step == HBA_REC_HOST_RESET)
        return;
    while ((slot = hbaq_next_retry(&h->q, plat_now_ns())) >= 0)
        h->ops->resend(h->ctrl, (uint32_t)slot);
}

int hba_wait_internal(struct hba_host *h, uint32_t slot, uint64_t deadline_ns, int *status)
{
    for (;;) {
        h->ops->drain(h->ctrl);
        if (hbaq_internal_done(&h->q, slot, status))
            return BM_OK;
        if (plat_now_ns() > deadline_ns) {
            /* Held until the controller answers for it. */
            hbaq_abandon(&h->q, slot);
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(10000); /* 10 us between looks (probe and health time only) */
    }
}

void *hba_dma_lend(const void *src, uint32_t len)
{
    void *dma = len ? plat_alloc_pages(len, true) : NULL;

    if (dma && src)
        memcpy(dma, src, len);
    return dma;
}

void hba_dma_back(const struct hba_host *h, void *dst, void *dma, uint32_t len, bool held, const char *what)
{
    if (!dma)
        return;
    if (held) {
        plat_diag(h->where, "%s: no answer, the controller still holds it: keeping its %u-byte buffer (it may "
                  "still move data)", what, len);
        return;
    }
    if (dst)
        memcpy(dst, dma, len);
    plat_free_pages(dma, len);
}

void *hba_cmd_dma_get(const struct scsi_cmd *cmd)
{
    if (!cmd->buf)
        return NULL;
    return hba_dma_lend(cmd->dir == SCSI_DIR_OUT ? cmd->buf : NULL, cmd->len);
}

void hba_cmd_dma_put(const struct hba_host *h, const struct scsi_cmd *cmd, void *dma, bool held)
{
    char what[32];

    snprintf(what, sizeof(what), "SCSI command %02xh", cmd->cdb[0]);
    hba_dma_back(h, cmd->dir == SCSI_DIR_IN ? cmd->buf : NULL, dma, cmd->len, held, what);
}

bool hba_poll_reg(volatile void *regs, uint32_t off, uint32_t mask, uint32_t want, uint64_t timeout_ns,
                  uint64_t step_ns, bool gone_on_ones, uint32_t *last)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;
    uint32_t v;

    for (;;) {
        v = mmio_read32(regs, off);
        if (last)
            *last = v;
        /* All-ones never matches: the device is off the bus (or still
         * resetting), whatever bits the caller waits for. */
        if (v != 0xffffffffu && (v & mask) == want)
            return true;
        if ((gone_on_ones && v == 0xffffffffu) || plat_now_ns() > deadline)
            return false;
        plat_delay_ns(step_ns);
    }
}

int hba_disk_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct hba_disk *hd = d->priv;
    struct hba_host *h = hd->host;
    uint64_t now = plat_now_ns();
    int n;

    if (queue != 0 || max <= 0)
        return 0;
    hbaq_lock(&h->q);
    h->ops->drain(h->ctrl);
    hbaq_expire(&h->q, now, NULL, NULL);
    if (h->rec.step != HBA_REC_IDLE || h->q.timed_out)
        hba_recover_step(h, now);
    hba_send_retries(h);
    n = hbaq_reap(&hd->q, out, max);
    hbaq_unlock(&h->q);
    return n;
}
