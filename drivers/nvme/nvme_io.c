/* The NVMe I/O path: Read/Write with CID = the caller's tag, PRP lists
 * prepared per tag, completions polled through the phase bit, failed
 * commands retried, and the SMART log for health(). No interrupts.
 *
 * Threads: a queue is driven by one CPU at a time; different queues (also of
 * one namespace) may be driven from different CPUs at once. submit and poll
 * never call the firmware, never allocate and never wait. */
#include "nvme_types.h"

/* Put a slot's command on the SQ without telling the controller (see
 * nvme_sq_ring); false if the SQ is full. The command's age for the
 * timeout scan starts at the queue's stamp, taken by the last poll (or by
 * submit when the queue was idle): a clock read per command would cost
 * more than the rest of the submission, and 30 s timeouts do not need it. */
static bool nvme_sq_push(struct nvme_queue *q, struct nvme_slot *slot)
{
    uint32_t next = q->sq_tail + 1 == q->entries ? 0 : q->sq_tail + 1;

    if (next == q->sq_head)
        return false;
    *(struct nvme_sqe *)((uint8_t *)q->sq + ((size_t)q->sq_tail << q->sqe_log2)) = slot->cmd;
    slot->submit_ns = q->stamp_ns;
    q->sq_tail = next;
    return true;
}

/* One SQ tail doorbell for every command pushed since the last one (as
 * SPDK's nvme_pcie_qpair_ring_sq_doorbell() and Linux nvme_commit_rqs()
 * batch them): an MMIO write costs far more than building a command. */
static void nvme_sq_ring(struct nvme_ctrl *c, struct nvme_queue *q)
{
    if (q->sq_tail == q->sq_rung)
        return;
    /* The entries (and PRP lists) must be in memory before the doorbell. */
    plat_wmb();
    wr32(c, q->sq_db, q->sq_tail);
    q->sq_rung = q->sq_tail;
}

/* CQ entries read but not yet handed back to the controller. */
static inline uint32_t nvme_cq_unreleased(const struct nvme_queue *q)
{
    return q->cq_head >= q->cq_rung ? q->cq_head - q->cq_rung : q->cq_head + q->entries - q->cq_rung;
}

/* Hand the read CQ entries back: the CQ head doorbell (section 3.1.25). */
static void nvme_cq_release(struct nvme_ctrl *c, struct nvme_queue *q)
{
    if (q->cq_head == q->cq_rung)
        return;
    wr32(c, q->cq_db, q->cq_head);
    q->cq_rung = q->cq_head;
}

static int nvme_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                       uint32_t blocks, void *buf)
{
    struct nvme_ns *ns = d->priv;
    struct nvme_ctrl *c = ns->ctrl;
    struct nvme_queue *q;
    struct nvme_slot *slot;
    struct nvme_sqe *cmd;
    struct nvme_prp prp;
    uint64_t *list, phys;
    uint64_t bytes = (uint64_t)blocks * d->lba_bytes;

    if (queue >= ns->nq || tag >= d->max_qd || !buf || blocks == 0 || (op != BM_IO_READ && op != BM_IO_WRITE))
        return BM_EINVAL;
    if (bytes > d->max_transfer_bytes || lba >= d->blocks || blocks > d->blocks - lba)
        return BM_EINVAL;
    q = &ns->q[queue];
    /* A full queue holds entries - 1 commands (section 4.1); the room
     * check below relies on the depth never exceeding that (Linux
     * nvme_pci: tag set depth = queue depth - 1). */
    if (d->max_qd > q->entries - 1)
        return BM_EINVAL;
    if (c->state == NVME_FAILED || q->broken)
        return BM_EIO;
    if (c->dead || q->dead)
        return BM_EBUSY; /* being reset: poll() brings it back */
    slot = &q->slots[tag];
    if (slot->busy)
        return BM_EINVAL; /* the tag is still in flight: CIDs must be unique (section 4.2) */
    if ((q->sq_tail + 1 == q->entries ? 0 : q->sq_tail + 1) == q->sq_head)
        return BM_EBUSY;

    phys = plat_virt_to_phys(buf);
    if (!nvme_dma_reachable(phys, bytes, c->dma_bits))
        return BM_EINVAL; /* NVME_QUIRK_DMA_ADDRESS_BITS_48: the controller would not reach it */
    if ((phys & (NVME_PAGE_BYTES - 1)) + bytes <= NVME_PAGE_BYTES && !(phys & 3)) {
        /* One memory page (every 4 KiB I/O): PRP1 alone (section 4.3). */
        prp.prp1 = phys;
        prp.prp2 = 0;
    } else {
        list = (uint64_t *)((uint8_t *)q->prp_lists + (size_t)tag * ns->list_bytes);
        if (nvme_prp_build(phys, (uint32_t)bytes, NVME_PAGE_BYTES, list, plat_virt_to_phys(list), ns->list_bytes / 8,
                           &prp) != BM_OK)
            return BM_EINVAL;
    }

    cmd = &slot->cmd;
    *cmd = (struct nvme_sqe){
        .opcode = op == BM_IO_WRITE ? NVME_CMD_WRITE : NVME_CMD_READ,
        .cid = (uint16_t)(tag + q->cid_base),
        .nsid = ns->nsid,
        .prp1 = prp.prp1,
        .prp2 = prp.prp2,
        .cdw10 = (uint32_t)lba,
        .cdw11 = (uint32_t)(lba >> 32),
        .cdw12 = NVME_RW_NLB(blocks),
    };
    if (ns->pi_type)
        nvme_pi_rw_fields(ns->pi_type, lba, &cmd->cdw12, &cmd->cdw14);

    slot->busy = 1;
    slot->expired = 0;
    slot->retry_pending = 0;
    slot->retries = 0;
    slot->aborted = 0;
    /* The CQ head doorbell is written lazily: only when this command's
     * completion might otherwise find no free CQ entry. The controller
     * may post into every entry from its tail up to the head it was last
     * told, less one (a full queue, section 4.1); the entries it holds
     * are at most those read and not released plus the commands in
     * flight, so keeping that sum at most entries - 1 means a completion
     * always has room, and the read entries are never overwritten (the
     * controller writes only between its tail and the released head).
     * At QD1 on 1024-entry queues that is one CQ doorbell per ~1000 I/Os
     * instead of one per I/O: an MMIO write is the most expensive thing
     * a polled I/O does (Linux nvme_ring_cq_doorbell() and SPDK
     * nvme_pcie_qpair_ring_cq_doorbell() write one per batch reaped). */
    if (q->inflight + 1 + nvme_cq_unreleased(q) > q->entries - 1)
        nvme_cq_release(c, q);
    if (q->inflight++ == 0)
        q->stamp_ns = plat_now_ns(); /* an idle queue's stamp may be old (see nvme_sq_push) */
    (void)nvme_sq_push(q, slot); /* room was checked above */
    return BM_OK;
}

/* Reap new completion entries (section 4.6: an entry is new when its phase
 * tag matches the phase of the current pass through the queue). A failure
 * whose status has DNR clear is not reported but submitted again later,
 * up to NVME_MAX_RETRIES times, after the Command Retry Delay it names
 * (Linux nvme_decide_disposition() and nvme_retry_req()). */
static int nvme_reap(struct nvme_ns *ns, struct nvme_queue *q, struct bm_completion *out, int max)
{
    struct nvme_ctrl *c = ns->ctrl;
    int n = 0;

    while (n < max) {
        volatile struct nvme_cqe *e = &q->cq[q->cq_head];
        uint16_t st = e->status, cid, sqhd;
        struct nvme_slot *slot;
        bool failed;

        if (NVME_CQE_PHASE(st) != q->phase)
            break;
        plat_rmb();
        cid = (uint16_t)(e->cid - q->cid_base); /* back to the tag; a CID below the base wraps high */
        sqhd = e->sq_head;
        if (++q->cq_head == q->entries) {
            q->cq_head = 0;
            q->phase ^= 1;
        }
        /* SQHD tells which SQ entries the controller has consumed
         * (section 4.6); they may be reused. */
        if (sqhd < q->entries)
            q->sq_head = sqhd;
        if (cid >= ns->disk.max_qd || !q->slots[cid].busy || q->slots[cid].retry_pending)
            continue; /* not a command we have at the controller: ignore it */
        slot = &q->slots[cid];
        failed = NVME_CQE_SC(st) || NVME_CQE_SCT(st);
        if (failed && !slot->aborted && !c->dead) {
            int delay_ms = nvme_retry_delay_ms(st, c->info.crdt, slot->retries);
            if (delay_ms >= 0) {
                slot->retries++;
                slot->retry_pending = 1;
                slot->retry_at_ns = plat_now_ns() + (uint64_t)delay_ms * NS_PER_MS;
                q->retries_pending++;
                continue;
            }
        }
        slot->busy = 0;
        q->inflight--;
        out[n].tag = cid;
        if (!failed) {
            out[n].status = BM_OK;
            out[n].detail[0] = '\0';
        } else if (slot->aborted && NVME_CQE_SCT(st) == NVME_SCT_GENERIC &&
                   NVME_CQE_SC(st) == NVME_SC_ABORT_REQUESTED) {
            out[n].status = BM_ETIMEDOUT;
            snprintf(out[n].detail, sizeof(out[n].detail), "no completion within %u s: aborted (SQ %u CID %u)",
                     (unsigned)(bm_io_timeout_ns() / NS_PER_S), q->qid, cid);
        } else {
            size_t len;
            out[n].status = BM_EIO;
            nvme_status_detail(st, out[n].detail, sizeof(out[n].detail));
            len = strlen(out[n].detail);
            if (slot->retries && len + 16 < sizeof(out[n].detail))
                snprintf(out[n].detail + len, sizeof(out[n].detail) - len, " (%u retries)", slot->retries);
        }
        n++;
    }
    /* No head doorbell here: nvme_submit() releases the read entries
     * when a new command needs their room. */
    return n;
}

/* Submit again the commands whose retry delay has passed. */
static void nvme_resubmit_due(struct nvme_ctrl *c, struct nvme_ns *ns, struct nvme_queue *q)
{
    uint64_t now = plat_now_ns();

    /* A retried command's failed completion was read while it stays in
     * flight: release before it goes back (see nvme_submit). */
    nvme_cq_release(c, q);
    for (uint32_t t = 0; t < ns->disk.max_qd && q->retries_pending; t++) {
        struct nvme_slot *s = &q->slots[t];
        if (!s->retry_pending || now < s->retry_at_ns)
            continue;
        if (!nvme_sq_push(q, s))
            break;
        s->retry_pending = 0;
        q->retries_pending--;
    }
    nvme_sq_ring(c, q);
}

static int nvme_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct nvme_ns *ns = d->priv;
    struct nvme_ctrl *c = ns->ctrl;
    struct nvme_queue *q;
    int n = 0;

    if (queue >= ns->nq || !out)
        return BM_EINVAL;
    if (max <= 0)
        return 0;
    q = &ns->q[queue];
    if (!q->dead && (c->dead || q->gen != c->gen))
        q->dead = true;
    /* Commands the caller submitted without a flush go out now. */
    if (!q->dead)
        nvme_sq_ring(c, q);
    /* What the controller completed counts, even if it was reset since;
     * once it has stopped, the CQ holds nothing new. */
    if (!(q->dead && c->stopped))
        n = nvme_reap(ns, q, out, max);
    if (q->dead) {
        nvme_recover_step(c);
        /* Again once the controller is given up on: what was kept for its
         * return is reported then. */
        if (c->stopped && (!q->flushed || (c->state == NVME_FAILED && q->inflight)))
            n += nvme_flush_dead(ns, q, out + n, max - n);
        if (q->flushed && !q->broken && c->state == NVME_LIVE && q->gen != c->gen) {
            nvme_queue_revive(c, q);
            if (q->broken)
                n += nvme_flush_dead(ns, q, out + n, max - n);
        }
    }
    if (!q->dead && q->retries_pending)
        nvme_resubmit_due(c, ns, q);
    if (!q->dead && q->inflight) {
        uint64_t now = plat_now_ns();
        q->stamp_ns = now;
        nvme_admin_poll(c);
        if (now >= q->next_scan_ns) {
            q->next_scan_ns = now + NVME_TIMEOUT_SCAN_NS;
            if (nvme_check_timeouts(ns, q, now))
                q->dead = true;
        }
    }
    return n;
}

/* The controller's SMART / Health Information log (Get Log Page 02h for
 * the whole controller, section 5.14.1.2) through the admin queue. The
 * engine calls it between workloads, from one CPU. */
static int nvme_health(struct bm_disk *d, struct bm_health *out)
{
    struct nvme_ns *ns = d->priv;
    struct nvme_ctrl *c = ns->ctrl;
    struct nvme_sqe cmd = { 0 };
    char err[160];
    int rc;

    if (!out)
        return BM_EINVAL;
    if (c->dead || !c->admin_live)
        return BM_EIO;
    memset(c->idbuf, 0, NVME_LOG_SMART_BYTES);
    cmd.opcode = NVME_ADMIN_GET_LOG_PAGE;
    cmd.nsid = NVME_NSID_ALL;
    cmd.prp1 = plat_virt_to_phys(c->idbuf);
    cmd.cdw10 = NVME_LOG_CDW10(NVME_LOG_SMART, NVME_LOG_SMART_BYTES);
    rc = nvme_admin(c, &cmd, NULL, err, sizeof(err));
    if (rc != BM_OK) {
        plat_diag(d->id, "%s", err);
        return rc;
    }
    nvme_parse_smart_log(c->idbuf, out);
    return BM_OK;
}

/* The doorbell for what submit queued (blkdev.h flush). */
static void nvme_flush(struct bm_disk *d, unsigned queue)
{
    struct nvme_ns *ns = d->priv;

    if (queue < ns->nq && !ns->q[queue].dead && !ns->ctrl->dead)
        nvme_sq_ring(ns->ctrl, &ns->q[queue]);
}

/* What recovery is doing (blkdev.h recovery). */
static void nvme_recovery(struct bm_disk *d, char *out, size_t len)
{
    struct nvme_ns *ns = d->priv;

    nvme_recovery_text(ns->ctrl, out, len);
}

const struct bm_disk_ops nvme_disk_ops = {
    .submit = nvme_submit,
    .poll = nvme_poll,
    .flush = nvme_flush,
    .health = nvme_health,
    .recovery = nvme_recovery,
};
