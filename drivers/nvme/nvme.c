/* Native NVMe driver (NVM Express Base Specification 1.4).
 *
 * One setup path: take the controller from the firmware, reset it, admin
 * queue, Identify, one set of I/O queue pairs per active namespace. One I/O
 * path: Read/Write with CID = the caller's tag, PRP lists prepared per tag,
 * completions polled through the phase bit. No interrupts.
 *
 * Threads: a queue is driven by one CPU at a time; different queues (also of
 * one namespace) may be driven from different CPUs at once. submit and poll
 * never call the firmware, never allocate and never wait.
 */
#include "nvme.h"
#include "nvme_regs.h"
#include "../pci.h"

/* Commands without a completion after this long are reported as timed out
 * and the controller is reset: a controller level reset (section 7.3.2) is
 * the one recovery that surely stops its DMA; an Abort may go unanswered. */
#define NVME_IO_TIMEOUT_NS (10ull * 1000000000ull)
/* Admin commands (Identify, queue creation) get the same. */
#define NVME_ADMIN_TIMEOUT_NS (10ull * 1000000000ull)
/* poll() looks for expired commands at most this often: scanning 1024 tags
 * on every poll would cost more than the I/O. */
#define NVME_TIMEOUT_SCAN_NS (100ull * 1000000ull)
/* Admin queue depth: commands are issued one at a time. */
#define NVME_ADMIN_ENTRIES 32
/* Namespaces one controller can contribute. */
#define NVME_MAX_NS_PER_CTRL 32

struct nvme_slot {
    uint64_t submit_ns;
    uint8_t busy;
    uint8_t expired;
};

struct nvme_queue {
    uint16_t qid;
    uint32_t entries;              /* SQ and CQ size */
    struct nvme_sqe *sq;
    volatile struct nvme_cqe *cq;
    uint32_t sq_db, cq_db;         /* doorbell offsets in BAR0 */
    uint32_t sq_tail, sq_head, cq_head;
    uint16_t phase;                /* phase tag of the next new CQE */
    uint32_t inflight;
    struct nvme_slot *slots;       /* [max_qd], indexed by tag = CID */
    uint64_t *prp_lists;           /* [max_qd] lists of list_bytes each */
    uint64_t next_scan_ns;
    bool dead;                     /* controller reset: report what is left */
};

struct nvme_ctrl;

struct nvme_ns {
    struct bm_disk disk;
    struct nvme_ctrl *ctrl;
    uint32_t nsid;
    uint32_t list_bytes;
    unsigned nq;
    struct nvme_queue q[NVME_MAX_QUEUES_PER_NS];
};

struct nvme_ctrl {
    struct pci_addr addr;
    char name[24];                 /* "NVME 0000:01:00.0" for log lines */
    char bdf[16];
    unsigned index;                /* nvme<index>n<nsid> */
    volatile void *bar;
    uint64_t bar_size;
    uint64_t cap;
    uint32_t dstrd, ready_timeout_ms, vs;

    struct nvme_sqe *asq;
    volatile struct nvme_cqe *acq;
    uint32_t asq_tail, acq_head;
    uint16_t aphase, admin_cid;

    uint8_t *idbuf;                /* 4 KiB for Identify data */
    uint32_t *nslist;              /* 4 KiB active namespace list */
    struct nvme_ctrl_info info;

    struct nvme_ns *ns[NVME_MAX_NS_PER_CTRL];
    unsigned nns;
    bool enable_timed_out;         /* CSTS.RDY did not follow CC.EN = 1 within CAP.TO */
    volatile bool dead;            /* reset after a timeout: every queue is gone */
    volatile bool stopped;         /* ...and CSTS.RDY went to 0 */
    bool fatal_seen;               /* CSTS.CFS was set when it was reset */
};

static unsigned nvme_ctrl_count;

/* ---- Registers ------------------------------------------------------------------ */

static uint32_t rd32(struct nvme_ctrl *c, uint32_t off)
{
    return mmio_read32(c->bar, off);
}

static void wr32(struct nvme_ctrl *c, uint32_t off, uint32_t v)
{
    mmio_write32(c->bar, off, v);
}

/* Wait for CSTS.RDY to read want, within CAP.TO (section 3.1.1, 7.6.1).
 * A fatal status while waiting for ready is an error of its own. */
static int nvme_wait_ready(struct nvme_ctrl *c, bool want, char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + (uint64_t)c->ready_timeout_ms * 1000000ull;
    uint32_t csts;

    for (;;) {
        csts = rd32(c, NVME_REG_CSTS);
        if (csts == 0xffffffffu) {
            snprintf(err, errlen, "%s: CSTS reads all ones: the controller is not answering", c->name);
            return BM_ENODEV;
        }
        if (want && (csts & NVME_CSTS_CFS)) {
            snprintf(err, errlen, "%s: CSTS.CFS set (controller fatal status) while enabling", c->name);
            return BM_EIO;
        }
        if (!!(csts & NVME_CSTS_RDY) == want)
            return BM_OK;
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "%s: CSTS.RDY did not become %d within %u ms", c->name, want ? 1 : 0,
                     c->ready_timeout_ms);
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(10000);
    }
}

/* Reset: CC.EN = 0 and wait for CSTS.RDY = 0 (section 7.3.2). A controller
 * that is still coming up (EN = 1, RDY = 0) is let finish first, as the
 * specification asks the host not to clear EN during that transition. */
static int nvme_disable(struct nvme_ctrl *c, char *err, size_t errlen)
{
    uint32_t cc = rd32(c, NVME_REG_CC);
    char ignored[96];

    if (cc & NVME_CC_EN) {
        /* Unless it already had its CAP.TO and did not make it: waiting
         * again would only double what a broken controller costs, and
         * clearing EN is the one way left to stop it. */
        if (!(rd32(c, NVME_REG_CSTS) & NVME_CSTS_RDY) && !c->enable_timed_out)
            (void)nvme_wait_ready(c, true, ignored, sizeof(ignored));
        wr32(c, NVME_REG_CC, cc & ~NVME_CC_EN);
    }
    return nvme_wait_ready(c, false, err, errlen);
}

/* ---- Admin queue ------------------------------------------------------------------- */

static const char *admin_name(uint8_t opcode)
{
    switch (opcode) {
    case NVME_ADMIN_IDENTIFY: return "Identify";
    case NVME_ADMIN_SET_FEATURES: return "Set Features";
    case NVME_ADMIN_CREATE_CQ: return "Create I/O CQ";
    case NVME_ADMIN_CREATE_SQ: return "Create I/O SQ";
    case NVME_ADMIN_DELETE_CQ: return "Delete I/O CQ";
    case NVME_ADMIN_DELETE_SQ: return "Delete I/O SQ";
    case NVME_ADMIN_GET_LOG_PAGE: return "Get Log Page";
    default: return "admin command";
    }
}

/* Issue one admin command and wait for its completion. */
static int nvme_admin(struct nvme_ctrl *c, struct nvme_sqe *cmd, uint32_t *dw0, char *err, size_t errlen)
{
    uint64_t deadline;
    uint16_t cid = c->admin_cid++;

    cmd->cid = cid;
    c->asq[c->asq_tail] = *cmd;
    c->asq_tail = (c->asq_tail + 1) % NVME_ADMIN_ENTRIES;
    plat_wmb();
    wr32(c, NVME_SQ_TAIL_DB(0, c->dstrd), c->asq_tail);

    deadline = plat_now_ns() + NVME_ADMIN_TIMEOUT_NS;
    for (;;) {
        volatile struct nvme_cqe *e = &c->acq[c->acq_head];
        uint16_t st = e->status;

        if (NVME_CQE_PHASE(st) == c->aphase) {
            uint16_t got = e->cid;
            uint32_t res = e->dw0;

            plat_rmb();
            if (++c->acq_head == NVME_ADMIN_ENTRIES) {
                c->acq_head = 0;
                c->aphase ^= 1;
            }
            wr32(c, NVME_CQ_HEAD_DB(0, c->dstrd), c->acq_head);
            if (got != cid)
                continue; /* a stale completion; ours is still to come */
            if (NVME_CQE_SC(st) || NVME_CQE_SCT(st)) {
                char detail[64];
                nvme_status_detail(st, detail, sizeof(detail));
                snprintf(err, errlen, "%s: %s failed: %s", c->name, admin_name(cmd->opcode), detail);
                return BM_EIO;
            }
            if (dw0)
                *dw0 = res;
            return BM_OK;
        }
        if (rd32(c, NVME_REG_CSTS) & NVME_CSTS_CFS) {
            snprintf(err, errlen, "%s: CSTS.CFS set (controller fatal status) during %s", c->name,
                     admin_name(cmd->opcode));
            return BM_EIO;
        }
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "%s: %s got no completion within %llu ms (admin CQ phase bit)", c->name,
                     admin_name(cmd->opcode), (unsigned long long)(NVME_ADMIN_TIMEOUT_NS / 1000000ull));
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(1000);
    }
}

/* Identify (section 5.15) into a 4 KiB page. */
static int nvme_identify(struct nvme_ctrl *c, uint8_t cns, uint32_t nsid, void *buf, char *err, size_t errlen)
{
    struct nvme_sqe cmd = { 0 };

    cmd.opcode = NVME_ADMIN_IDENTIFY;
    cmd.nsid = nsid;
    cmd.prp1 = plat_virt_to_phys(buf);
    cmd.cdw10 = cns;
    return nvme_admin(c, &cmd, NULL, err, errlen);
}

/* ---- Bring-up ---------------------------------------------------------------------- */

/* Reset, admin queue, enable (section 7.6.1 steps 1-5). */
static int nvme_enable(struct nvme_ctrl *c, char *err, size_t errlen)
{
    int rc = nvme_disable(c, err, errlen);
    uint32_t cc;

    if (rc != BM_OK)
        return rc;
    c->asq_tail = c->acq_head = 0;
    c->aphase = 1;
    memset(c->asq, 0, NVME_PAGE_BYTES);
    memset((void *)c->acq, 0, NVME_PAGE_BYTES);
    wr32(c, NVME_REG_AQA, NVME_AQA_ASQS(NVME_ADMIN_ENTRIES) | NVME_AQA_ACQS(NVME_ADMIN_ENTRIES));
    mmio_write64(c->bar, NVME_REG_ASQ, plat_virt_to_phys(c->asq));
    mmio_write64(c->bar, NVME_REG_ACQ, plat_virt_to_phys((const void *)c->acq));
    cc = NVME_CC_CSS_NVM | NVME_CC_MPS(12) | NVME_CC_AMS_RR | NVME_CC_IOSQES(NVME_SQE_LOG2) |
         NVME_CC_IOCQES(NVME_CQE_LOG2);
    wr32(c, NVME_REG_CC, cc);
    wr32(c, NVME_REG_CC, cc | NVME_CC_EN);
    rc = nvme_wait_ready(c, true, err, errlen);
    c->enable_timed_out = rc == BM_ETIMEDOUT;
    return rc;
}

/* Active namespace IDs: the CNS 02h list (NVMe 1.1+), else 1..NN. */
static int nvme_namespace_ids(struct nvme_ctrl *c, uint32_t *ids, unsigned max, unsigned *count,
                              unsigned *listed, char *err, size_t errlen)
{
    unsigned n = 0, all = 0;

    if (c->vs >= NVME_VS(1, 1)) {
        int rc = nvme_identify(c, NVME_CNS_ACTIVE_NS_LIST, 0, c->nslist, err, errlen);
        if (rc != BM_OK)
            return rc;
        while (all < NVME_NS_LIST_MAX && c->nslist[all])
            all++;
        for (n = 0; n < MIN(all, max); n++)
            ids[n] = c->nslist[n];
    } else {
        /* 1.0: 1..NN, some possibly inactive (the caller finds out). */
        all = c->info.nn;
        for (uint32_t id = 1; id <= c->info.nn && n < max; id++)
            ids[n++] = id;
    }
    if (all > n)
        plat_log("%s: %u namespaces; only the first %u are looked at", c->name, all, n);
    *count = n;
    *listed = all;
    return BM_OK;
}

/* Number of I/O queue pairs the controller grants (Set Features 07h,
 * section 5.21.1.7). */
static int nvme_set_queue_count(struct nvme_ctrl *c, unsigned want, unsigned *granted, char *err, size_t errlen)
{
    struct nvme_sqe cmd = { 0 };
    uint32_t dw0 = 0;
    int rc;

    cmd.opcode = NVME_ADMIN_SET_FEATURES;
    cmd.cdw10 = NVME_FEAT_NUMBER_OF_QUEUES;
    cmd.cdw11 = NVME_FEAT_NQ(want, want);
    rc = nvme_admin(c, &cmd, &dw0, err, errlen);
    if (rc != BM_OK)
        return rc;
    *granted = MIN(NVME_FEAT_NQ_NSQA(dw0), NVME_FEAT_NQ_NCQA(dw0));
    return BM_OK;
}

static size_t sq_bytes(uint32_t entries)
{
    return ALIGN_UP((size_t)entries << NVME_SQE_LOG2, (size_t)NVME_PAGE_BYTES);
}

static size_t cq_bytes(uint32_t entries)
{
    return ALIGN_UP((size_t)entries << NVME_CQE_LOG2, (size_t)NVME_PAGE_BYTES);
}

static size_t prp_pool_bytes(const struct nvme_ns *ns)
{
    return ALIGN_UP((size_t)ns->disk.max_qd * ns->list_bytes, (size_t)NVME_PAGE_BYTES);
}

/* Free a queue's memory (the controller no longer owns it). */
static void nvme_queue_free(struct nvme_ns *ns, struct nvme_queue *q)
{
    plat_free_pages(q->sq, sq_bytes(q->entries));
    plat_free_pages((void *)q->cq, cq_bytes(q->entries));
    plat_free_pages(q->prp_lists, prp_pool_bytes(ns));
    plat_free(q->slots);
    q->sq = NULL;
    q->cq = NULL;
    q->prp_lists = NULL;
    q->slots = NULL;
}

/* Allocate an I/O queue pair and create it on the controller: the CQ
 * first, then the SQ bound to it (sections 5.3, 5.4). Polled: IEN = 0. */
static int nvme_queue_create(struct nvme_ctrl *c, struct nvme_ns *ns, struct nvme_queue *q, uint16_t qid,
                             uint32_t entries, char *err, size_t errlen)
{
    struct nvme_sqe cmd = { 0 };
    int rc;

    memset(q, 0, sizeof(*q));
    q->qid = qid;
    q->entries = entries;
    q->phase = 1;
    q->sq_db = NVME_SQ_TAIL_DB(qid, c->dstrd);
    q->cq_db = NVME_CQ_HEAD_DB(qid, c->dstrd);
    q->sq = plat_alloc_pages(sq_bytes(entries), false);
    q->cq = plat_alloc_pages(cq_bytes(entries), false);
    q->prp_lists = plat_alloc_pages(prp_pool_bytes(ns), false);
    q->slots = plat_alloc(sizeof(*q->slots) * ns->disk.max_qd);
    if (!q->sq || !q->cq || !q->prp_lists || !q->slots) {
        snprintf(err, errlen, "%s: out of memory for I/O queue %u (%u entries)", c->name, qid, entries);
        nvme_queue_free(ns, q);
        return BM_ENOMEM;
    }

    cmd.opcode = NVME_ADMIN_CREATE_CQ;
    cmd.prp1 = plat_virt_to_phys((const void *)q->cq);
    cmd.cdw10 = NVME_CREATE_CQ_CDW10(qid, entries);
    cmd.cdw11 = NVME_CREATE_CQ_PC;
    /* On failure the caller's teardown resets the controller, which
     * deletes whatever queue was created, and only then frees memory. */
    rc = nvme_admin(c, &cmd, NULL, err, errlen);
    if (rc != BM_OK)
        return rc;

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = NVME_ADMIN_CREATE_SQ;
    cmd.prp1 = plat_virt_to_phys(q->sq);
    cmd.cdw10 = NVME_CREATE_SQ_CDW10(qid, entries);
    cmd.cdw11 = NVME_CREATE_SQ_PC | NVME_CREATE_SQ_CQID(qid);
    return nvme_admin(c, &cmd, NULL, err, errlen);
}

/* ---- Teardown ---------------------------------------------------------------------- */

/* Stop the controller, free everything, hand the function back to the
 * firmware. Memory the controller may still write to is kept if it would
 * not stop. */
static void nvme_teardown(struct nvme_ctrl *c)
{
    char err[160];
    bool stopped = true;

    if (c->bar) {
        /* Reset deletes every I/O queue and aborts what is in flight
         * (section 7.3.2); the firmware's driver sets the controller up
         * again from scratch when it reconnects. */
        if (nvme_disable(c, err, sizeof(err)) != BM_OK) {
            plat_log("%s", err);
            if (rd32(c, NVME_REG_CSTS) != 0xffffffffu) {
                plat_log("%s: the controller did not stop; its queue memory is left allocated", c->name);
                stopped = false;
            }
        }
    }
    for (unsigned i = 0; i < c->nns; i++) {
        struct nvme_ns *ns = c->ns[i];
        if (stopped)
            for (unsigned k = 0; k < NVME_MAX_QUEUES_PER_NS; k++)
                nvme_queue_free(ns, &ns->q[k]);
        plat_free(ns);
    }
    c->nns = 0;
    if (stopped) {
        plat_free_pages(c->asq, NVME_PAGE_BYTES);
        plat_free_pages((void *)c->acq, NVME_PAGE_BYTES);
        plat_free_pages(c->idbuf, NVME_IDENTIFY_BYTES);
        plat_free_pages(c->nslist, NVME_IDENTIFY_BYTES);
    }
    plat_pci_release(c->addr);
    plat_free(c);
}

static void nvme_release(void *ctrl)
{
    if (ctrl)
        nvme_teardown(ctrl);
}

/* ---- I/O path ------------------------------------------------------------------------ */

/* A command did not complete in time: stop the controller so it can no
 * longer write into buffers the engine will reuse (CC.EN = 0 aborts every
 * command, section 7.3.2). Every queue then reports what it had in flight,
 * once the controller has stopped (see nvme_controller_stopped). */
static void nvme_fail_controller(struct nvme_ctrl *c)
{
    uint32_t csts;

    if (c->dead)
        return;
    /* Why it went quiet, if it says: a fatal status is reported in CSTS
     * instead of a completion (section 3.1.6); the reset clears it. */
    csts = rd32(c, NVME_REG_CSTS);
    c->fatal_seen = csts != 0xffffffffu && (csts & NVME_CSTS_CFS);
    c->dead = true;
    wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
}

/* Has the reset finished (CSTS.RDY = 0)? Checked once per poll instead of
 * waiting, so poll never blocks. A controller that does not stop may still
 * write into the buffers of the commands it holds, so they are not handed
 * back, however long it takes: the engine's own stall detection then gives
 * up on the disk and keeps those buffers, and release() keeps the queue
 * memory. (A function that reads all ones has left the bus: it writes
 * nothing any more.) */
static bool nvme_controller_stopped(struct nvme_ctrl *c)
{
    uint32_t csts;

    if (c->stopped)
        return true;
    csts = rd32(c, NVME_REG_CSTS);
    if (!(csts & NVME_CSTS_RDY) || csts == 0xffffffffu)
        c->stopped = true;
    return c->stopped;
}

static int nvme_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                       uint32_t blocks, void *buf)
{
    struct nvme_ns *ns = d->priv;
    struct nvme_ctrl *c = ns->ctrl;
    struct nvme_queue *q;
    struct nvme_slot *slot;
    struct nvme_sqe cmd = { 0 };
    struct nvme_prp prp;
    uint64_t *list;
    uint32_t next;
    uint64_t bytes = (uint64_t)blocks * d->lba_bytes;

    if (queue >= ns->nq || tag >= d->max_qd || !buf || blocks == 0 || (op != BM_IO_READ && op != BM_IO_WRITE))
        return BM_EINVAL;
    if (bytes > d->max_transfer_bytes || lba >= d->blocks || blocks > d->blocks - lba)
        return BM_EINVAL;
    q = &ns->q[queue];
    if (c->dead || q->dead)
        return BM_EIO;
    slot = &q->slots[tag];
    if (slot->busy)
        return BM_EINVAL; /* the tag is still in flight: CIDs must be unique (section 4.2) */
    next = q->sq_tail + 1 == q->entries ? 0 : q->sq_tail + 1;
    if (next == q->sq_head)
        return BM_EBUSY;

    list = (uint64_t *)((uint8_t *)q->prp_lists + (size_t)tag * ns->list_bytes);
    if (nvme_prp_build(plat_virt_to_phys(buf), (uint32_t)bytes, NVME_PAGE_BYTES, list, plat_virt_to_phys(list),
                       ns->list_bytes / 8, &prp) != BM_OK)
        return BM_EINVAL;

    cmd.opcode = op == BM_IO_WRITE ? NVME_CMD_WRITE : NVME_CMD_READ;
    cmd.cid = (uint16_t)tag;
    cmd.nsid = ns->nsid;
    cmd.prp1 = prp.prp1;
    cmd.prp2 = prp.prp2;
    cmd.cdw10 = (uint32_t)lba;
    cmd.cdw11 = (uint32_t)(lba >> 32);
    cmd.cdw12 = NVME_RW_NLB(blocks);
    q->sq[q->sq_tail] = cmd;

    slot->busy = 1;
    slot->expired = 0;
    slot->submit_ns = plat_now_ns();
    q->inflight++;
    q->sq_tail = next;
    /* The entry (and PRP list) must be in memory before the doorbell. */
    plat_wmb();
    wr32(c, q->sq_db, next);
    return BM_OK;
}

/* Reap new completion entries (section 4.6: an entry is new when its phase
 * tag matches the phase of the current pass through the queue). */
static int nvme_reap(struct nvme_ns *ns, struct nvme_queue *q, struct bm_completion *out, int max)
{
    struct nvme_ctrl *c = ns->ctrl;
    int n = 0;
    bool moved = false;

    while (n < max) {
        volatile struct nvme_cqe *e = &q->cq[q->cq_head];
        uint16_t st = e->status, cid, sqhd;

        if (NVME_CQE_PHASE(st) != q->phase)
            break;
        plat_rmb();
        cid = e->cid;
        sqhd = e->sq_head;
        moved = true;
        if (++q->cq_head == q->entries) {
            q->cq_head = 0;
            q->phase ^= 1;
        }
        /* SQHD tells which SQ entries the controller has consumed
         * (section 4.6); they may be reused. */
        if (sqhd < q->entries)
            q->sq_head = sqhd;
        if (cid >= ns->disk.max_qd || !q->slots[cid].busy)
            continue; /* not a command we have in flight: ignore it */
        q->slots[cid].busy = 0;
        q->inflight--;
        out[n].tag = cid;
        if (NVME_CQE_SC(st) == 0 && NVME_CQE_SCT(st) == 0) {
            out[n].status = BM_OK;
            out[n].detail[0] = '\0';
        } else {
            out[n].status = BM_EIO;
            nvme_status_detail(st, out[n].detail, sizeof(out[n].detail));
        }
        n++;
    }
    /* One head doorbell per batch; none once the controller is being
     * reset (its queues no longer exist). */
    if (moved && !c->dead)
        wr32(c, q->cq_db, q->cq_head);
    return n;
}

/* Mark commands older than NVME_IO_TIMEOUT_NS; true if there were any. */
static bool nvme_find_expired(struct nvme_ns *ns, struct nvme_queue *q, uint64_t now)
{
    bool any = false;

    for (uint32_t t = 0; t < ns->disk.max_qd; t++) {
        struct nvme_slot *s = &q->slots[t];
        if (s->busy && now - s->submit_ns > NVME_IO_TIMEOUT_NS) {
            s->expired = 1;
            any = true;
        }
    }
    return any;
}

/* After the controller was stopped: report every command still in flight,
 * the expired ones as timed out, the rest as aborted by the reset. */
static int nvme_flush_dead(struct nvme_ns *ns, struct nvme_queue *q, struct bm_completion *out, int max)
{
    int n = 0;

    for (uint32_t t = 0; t < ns->disk.max_qd && q->inflight && n < max; t++) {
        struct nvme_slot *s = &q->slots[t];
        if (!s->busy)
            continue;
        s->busy = 0;
        q->inflight--;
        out[n].tag = t;
        if (s->expired) {
            out[n].status = BM_ETIMEDOUT;
            snprintf(out[n].detail, sizeof(out[n].detail), "no completion within %llu s%s (SQ %u CID %u)",
                     (unsigned long long)(NVME_IO_TIMEOUT_NS / 1000000000ull),
                     ns->ctrl->fatal_seen ? ", CSTS.CFS set" : "", q->qid, (uint16_t)t);
        } else {
            out[n].status = BM_EIO;
            snprintf(out[n].detail, sizeof(out[n].detail), "aborted: controller reset after a timeout");
        }
        n++;
    }
    return n;
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
    /* What the controller completed counts, even if it was reset since. */
    n = nvme_reap(ns, q, out, max);
    if (!q->dead && c->dead)
        q->dead = true;
    if (!q->dead && q->inflight) {
        uint64_t now = plat_now_ns();
        if (now >= q->next_scan_ns) {
            q->next_scan_ns = now + NVME_TIMEOUT_SCAN_NS;
            if (nvme_find_expired(ns, q, now)) {
                nvme_fail_controller(c);
                q->dead = true;
            }
        }
    }
    if (q->dead && nvme_controller_stopped(c))
        n += nvme_flush_dead(ns, q, out + n, max - n);
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
    if (c->dead)
        return BM_EIO;
    memset(c->idbuf, 0, NVME_LOG_SMART_BYTES);
    cmd.opcode = NVME_ADMIN_GET_LOG_PAGE;
    cmd.nsid = NVME_NSID_ALL;
    cmd.prp1 = plat_virt_to_phys(c->idbuf);
    cmd.cdw10 = NVME_LOG_CDW10(NVME_LOG_SMART, NVME_LOG_SMART_BYTES);
    rc = nvme_admin(c, &cmd, NULL, err, sizeof(err));
    if (rc != BM_OK) {
        plat_log("%s", err);
        return rc;
    }
    nvme_parse_smart_log(c->idbuf, out);
    return BM_OK;
}

static const struct bm_disk_ops nvme_disk_ops = {
    .submit = nvme_submit,
    .poll = nvme_poll,
    .health = nvme_health,
};

/* ---- Probe --------------------------------------------------------------------------- */

static bool nvme_match(uint16_t vendor, uint16_t device, uint32_t class_code)
{
    (void)vendor;
    (void)device;
    return class_code == NVME_PCI_CLASS;
}

/* The struct bm_disk of one namespace. */
static void nvme_fill_disk(struct nvme_ctrl *c, struct nvme_ns *ns, const struct nvme_ns_info *info,
                           unsigned nq, uint32_t max_qd, uint32_t max_transfer)
{
    struct bm_disk *d = &ns->disk;

    snprintf(d->id, sizeof(d->id), "nvme%un%u", c->index, ns->nsid);
    bm_strlcpy(d->driver, "nvme", sizeof(d->driver));
    d->path = BM_PATH_NATIVE;
    bm_strlcpy(d->model, c->info.model, sizeof(d->model));
    bm_strlcpy(d->serial, c->info.serial, sizeof(d->serial));
    bm_strlcpy(d->firmware, c->info.firmware, sizeof(d->firmware));
    d->lba_bytes = info->lba_bytes;
    d->phys_bytes = info->phys_bytes;
    d->blocks = info->blocks;
    bm_strlcpy(d->pci, c->bdf, sizeof(d->pci));
    d->pci_addr = c->addr;
    d->has_pci = true;
    d->port = ns->nsid;
    d->lun = 0;
    d->link_gbps = 0;
    d->nqueues = nq;
    d->max_qd = max_qd;
    d->max_transfer_bytes = max_transfer;
    d->failed = false;
    d->ops = &nvme_disk_ops;
    d->priv = ns;
}

static int nvme_probe(struct pci_addr a, struct bm_disk_list *disks, void **ctrl_out, char *err, size_t errlen)
{
    struct nvme_ctrl *c;
    static uint32_t ids[NVME_MAX_NS_PER_CTRL];
    static struct nvme_ns_info infos[NVME_MAX_NS_PER_CTRL];
    unsigned nids = 0, listed = 0, nusable = 0, nskipped = 0, granted = 0, qpn, room;
    uint32_t entries, max_qd;
    struct nvme_io_limits lim;
    char why[96];
    char limit[80] = "";        /* why namespaces beyond nusable were left out */
    uint32_t skipped_id = 0;    /* the last namespace skipped; why says why */
    int rc;

    *ctrl_out = NULL;
    c = plat_alloc(sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "NVME: out of memory");
        return BM_ENOMEM;
    }
    c->addr = a;
    c->index = nvme_ctrl_count++;
    pci_addr_str(a, c->bdf, sizeof(c->bdf));
    snprintf(c->name, sizeof(c->name), "NVME %s", c->bdf);

    rc = plat_pci_claim(a);
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s: could not take the controller from the firmware: %s", c->name, bm_strerror(rc));
        goto err;
    }
    c->bar = plat_pci_map_bar(a, 0, &c->bar_size);
    if (!c->bar || c->bar_size < 2 * NVME_REG_DBS) {
        snprintf(err, errlen, "%s: BAR0 is not a usable register window", c->name);
        rc = BM_ENODEV;
        goto err;
    }
    pci_enable_device(a);

    c->cap = mmio_read64(c->bar, NVME_REG_CAP);
    c->vs = rd32(c, NVME_REG_VS);
    if (c->cap == ~0ull) {
        snprintf(err, errlen, "%s: CAP reads all ones: the controller is not answering", c->name);
        rc = BM_ENODEV;
        goto err;
    }
    c->dstrd = NVME_CAP_DSTRD(c->cap);
    c->ready_timeout_ms = MAX(NVME_CAP_TO(c->cap), 1u) * 500u;
    if (!(NVME_CAP_CSS(c->cap) & NVME_CAP_CSS_NVM)) {
        snprintf(err, errlen, "%s: CAP.CSS lacks the NVM command set", c->name);
        rc = BM_ENOTSUP;
        goto err;
    }
    /* CC.MPS = 0 (4 KiB, the x86 page) must be within CAP.MPSMIN..MPSMAX. */
    if (NVME_CAP_MPSMIN(c->cap) != 0) {
        snprintf(err, errlen, "%s: CAP.MPSMIN is %u KiB; only 4 KiB memory pages are supported", c->name,
                 4u << NVME_CAP_MPSMIN(c->cap));
        rc = BM_ENOTSUP;
        goto err;
    }

    c->asq = plat_alloc_pages(NVME_PAGE_BYTES, false);
    c->acq = plat_alloc_pages(NVME_PAGE_BYTES, false);
    c->idbuf = plat_alloc_pages(NVME_IDENTIFY_BYTES, false);
    c->nslist = plat_alloc_pages(NVME_IDENTIFY_BYTES, false);
    if (!c->asq || !c->acq || !c->idbuf || !c->nslist) {
        snprintf(err, errlen, "%s: out of memory for the admin queue", c->name);
        rc = BM_ENOMEM;
        goto err;
    }

    rc = nvme_enable(c, err, errlen);
    if (rc != BM_OK)
        goto err;

    rc = nvme_identify(c, NVME_CNS_CONTROLLER, 0, c->idbuf, err, errlen);
    if (rc != BM_OK)
        goto err;
    nvme_parse_identify_ctrl(c->idbuf, &c->info);
    /* Section 5.15.2: SQES/CQES give the required (3:0) and largest (7:4)
     * entry sizes; ours are 64 and 16 bytes. Zero means not reported. */
    if ((c->info.sqes && ((c->info.sqes & 0xf) > NVME_SQE_LOG2 || (c->info.sqes >> 4) < NVME_SQE_LOG2)) ||
        (c->info.cqes && ((c->info.cqes & 0xf) > NVME_CQE_LOG2 || (c->info.cqes >> 4) < NVME_CQE_LOG2))) {
        snprintf(err, errlen, "%s: queue entry sizes SQES %02xh CQES %02xh exclude 64/16 bytes", c->name,
                 c->info.sqes, c->info.cqes);
        rc = BM_ENOTSUP;
        goto err;
    }

    rc = nvme_namespace_ids(c, ids, NVME_MAX_NS_PER_CTRL, &nids, &listed, err, errlen);
    if (rc != BM_OK)
        goto err;
    for (unsigned i = 0; i < nids; i++) {
        rc = nvme_identify(c, NVME_CNS_NAMESPACE, ids[i], c->idbuf, err, errlen);
        if (rc != BM_OK)
            goto err;
        rc = nvme_parse_identify_ns(c->idbuf, c->info.awupf, &infos[nusable], why, sizeof(why));
        if (rc == BM_ENODEV && c->vs < NVME_VS(1, 1))
            continue; /* 1..NN includes inactive namespaces on 1.0 controllers */
        if (rc != BM_OK) {
            plat_log("%s: namespace %u skipped: %s", c->name, ids[i], why);
            skipped_id = ids[i];
            nskipped++;
            continue;
        }
        ids[nusable++] = ids[i];
    }
    if (listed > nids)
        snprintf(limit, sizeof(limit), "baremark takes at most %u namespaces per controller", nids);
    room = BM_MAX_DISKS - MIN(disks->count, (unsigned)BM_MAX_DISKS);
    if (nusable > room) {
        plat_log("%s: only %u of %u namespaces fit the disk list", c->name, room, nusable);
        disks->dropped += nusable - room;
        nusable = room;
        snprintf(limit, sizeof(limit), "the disk list is full (%u disks)", (unsigned)BM_MAX_DISKS);
        if (!nusable) {
            snprintf(err, errlen, "%s: %u namespace%s left out: %s", c->name, nids - nskipped,
                     nids - nskipped == 1 ? "" : "s", limit);
            rc = BM_ENOSPC;
            goto err;
        }
    }
    if (nusable == 0) {
        /* The last skip reason says why, e.g. a format with metadata. */
        if (skipped_id)
            snprintf(err, errlen, "%s: no usable namespace (%u active; namespace %u: %s)", c->name, nids,
                     skipped_id, why);
        else
            snprintf(err, errlen, "%s: no usable namespace (%u active)", c->name, nids);
        rc = BM_ENODEV;
        goto err;
    }

    /* Queue pairs: up to 16 per namespace, each namespace its own, so disks
     * never share a CID space or a completion queue. */
    rc = nvme_set_queue_count(c, MIN(NVME_MAX_QUEUES_PER_NS * nusable, 0xfffeu), &granted, err, errlen);
    if (rc != BM_OK)
        goto err;
    if (granted < nusable) {
        plat_log("%s: %u I/O queue pairs granted; only the first %u namespaces are used", c->name, granted,
                 granted);
        nusable = granted;
        snprintf(limit, sizeof(limit), "the controller granted only %u I/O queue pairs", granted);
    }
    qpn = MIN(granted / nusable, (unsigned)NVME_MAX_QUEUES_PER_NS);
    /* Depth: CAP.MQES is the largest queue size, 0-based (section 3.1.1). */
    entries = MIN(NVME_CAP_MQES(c->cap) + 1u, (uint32_t)NVME_MAX_QD + 1u);
    if (entries < 2) {
        snprintf(err, errlen, "%s: CAP.MQES %u is too small", c->name, NVME_CAP_MQES(c->cap));
        rc = BM_ENOTSUP;
        goto err;
    }
    max_qd = entries - 1;
    nvme_io_limits(c->info.mdts, NVME_CAP_MPSMIN(c->cap), qpn, max_qd, &lim);
    if (NVME_CQ_HEAD_DB(nusable * qpn, c->dstrd) + 4 > c->bar_size) {
        snprintf(err, errlen, "%s: BAR0 (%llu bytes) has no doorbell for queue %u", c->name,
                 (unsigned long long)c->bar_size, nusable * qpn);
        rc = BM_ENODEV;
        goto err;
    }

    for (unsigned i = 0; i < nusable; i++) {
        struct nvme_ns *ns = plat_alloc(sizeof(*ns));
        if (!ns) {
            snprintf(err, errlen, "%s: out of memory", c->name);
            rc = BM_ENOMEM;
            goto err;
        }
        c->ns[c->nns++] = ns;
        ns->ctrl = c;
        ns->nsid = ids[i];
        ns->list_bytes = lim.list_bytes;
        nvme_fill_disk(c, ns, &infos[i], qpn, max_qd, lim.max_transfer_bytes);
        for (unsigned k = 0; k < qpn; k++) {
            rc = nvme_queue_create(c, ns, &ns->q[k], (uint16_t)(1 + i * qpn + k), entries, err, errlen);
            if (rc != BM_OK)
                goto err;
            ns->nq = k + 1;
        }
    }

    /* Nothing can fail from here: the disks go on the list. */
    for (unsigned i = 0; i < c->nns; i++)
        (void)disk_list_add(disks, &c->ns[i]->disk);
    /* A success that leaves namespaces out says so (blkdev.h: the caller
     * makes it a note), so no active namespace vanishes without a word. */
    err[0] = '\0';
    if (limit[0] && nskipped)
        snprintf(err, errlen, "%s: %u of %u namespaces used: %s; namespace %u skipped: %s", c->name,
                 c->nns, listed, limit, skipped_id, why);
    else if (limit[0])
        snprintf(err, errlen, "%s: %u of %u namespaces used: %s", c->name, c->nns, listed, limit);
    else if (nskipped)
        snprintf(err, errlen, "%s: namespace %u skipped: %s", c->name, skipped_id, why);
    plat_log("%s: %s, serial %s, firmware %s: %u namespace%s, %u queue%s of %u, up to %u KiB per command",
             c->name, c->info.model, c->info.serial, c->info.firmware, c->nns, c->nns == 1 ? "" : "s", qpn,
             qpn == 1 ? "" : "s", max_qd, lim.max_transfer_bytes / 1024);
    *ctrl_out = c;
    return BM_OK;

err:
    /* Give the number back (probes run one at a time), so the next
     * controller's disks are not named as if this one had some. */
    if (c->index + 1 == nvme_ctrl_count)
        nvme_ctrl_count--;
    nvme_teardown(c);
    return rc;
}

const struct bm_driver nvme_driver = {
    .name = "nvme",
    .match = nvme_match,
    .probe = nvme_probe,
    .release = nvme_release,
};
