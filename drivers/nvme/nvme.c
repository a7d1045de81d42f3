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

/* Commands without a completion after this long get an Abort; if they are
 * still not back NVME_ABORT_WAIT_NS later (or the controller reports a
 * fatal status, or has left the bus), the controller is reset: a controller
 * level reset (section 7.3.2) is the one recovery that surely stops its DMA.
 * 30 s and 60 s are Linux's defaults (nvme_io_timeout, NVME_ADMIN_TIMEOUT).
 * Linux gives an aborted command a whole timeout more; 10 s keeps the
 * reset (and the commands it returns) inside the engine's 60 s stall limit
 * (efi/disk/disk.c DISK_STALL_NS), which would otherwise give up first. */
#define NVME_IO_TIMEOUT_NS (30ull * 1000000000ull)
#define NVME_ABORT_WAIT_NS (10ull * 1000000000ull)
#define NVME_ADMIN_TIMEOUT_NS (60ull * 1000000000ull)
/* poll() looks for expired commands at most this often: scanning 1024 tags
 * on every poll would cost more than the I/O. */
#define NVME_TIMEOUT_SCAN_NS (100ull * 1000000ull)
/* Shutdown notification: RTD3E clamped to 5..60 s, 5 s if not reported
 * (Linux nvme_init_ctrl_finish(), module parameter shutdown_timeout). */
#define NVME_SHUTDOWN_MIN_MS 5000u
#define NVME_SHUTDOWN_MAX_MS 60000u
/* Admin queue depth: commands are issued one at a time, plus one Abort. */
#define NVME_ADMIN_ENTRIES 32
/* Namespaces one controller can contribute. */
#define NVME_MAX_NS_PER_CTRL 32
/* NSIDs tried one by one when there is no active namespace list. */
#define NVME_SCAN_MAX_NSID 1024u

struct nvme_slot {
    uint64_t submit_ns;            /* when the controller last got it */
    uint64_t retry_at_ns;          /* retry_pending: when to submit it again */
    struct nvme_sqe cmd;           /* kept for a retry */
    uint8_t busy;
    uint8_t expired;               /* timed out; reported once the controller stopped */
    uint8_t retry_pending;         /* failed with DNR clear: waits to go out again */
    uint8_t retries;
    uint8_t aborted;               /* an Abort was sent for it */
};

struct nvme_queue {
    uint16_t qid;
    uint32_t entries;              /* SQ and CQ size */
    struct nvme_sqe *sq;
    volatile struct nvme_cqe *cq;
    uint32_t sq_db, cq_db;         /* doorbell offsets in BAR0 */
    uint32_t sq_tail, sq_head, cq_head;
    uint16_t phase;                /* phase tag of the next new CQE */
    uint32_t inflight;             /* busy slots, retry_pending ones included */
    uint32_t retries_pending;
    struct nvme_slot *slots;       /* [max_qd], indexed by tag = CID */
    uint64_t *prp_lists;           /* [max_qd] lists of list_bytes each */
    uint64_t next_scan_ns;
    bool dead;                     /* controller reset: report what is left */
    bool flushed;                  /* ...done: the rest waits for the queue to come back */
    bool broken;                   /* could not be re-created: out of service */
    uint32_t gen;                  /* the controller generation it was created in */
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
    char bdf[16];                  /* where of plat_diag */
    unsigned index;                /* nvme<index>n<nsid> */
    volatile void *bar;
    uint64_t bar_size;
    uint64_t cap;
    uint32_t dstrd, vs;
    uint32_t ready_timeout_ms;     /* CAP.TO: for CSTS.RDY = 0 after a reset */
    uint32_t enable_timeout_ms;    /* CAP.TO or CRTO.CRWMT: for CSTS.RDY = 1 */
    uint32_t shutdown_timeout_ms;
    uint32_t quirks;               /* NVME_QUIRK_* (nvme_pci_quirks) */
    const char *applied[6];        /* quirk names for each disk's record */
    unsigned napplied;

    struct nvme_sqe *asq;
    volatile struct nvme_cqe *acq;
    uint32_t asq_tail, acq_head;
    uint16_t aphase, admin_cid;
    uint8_t admin_lock;            /* the admin queue: probe/health vs. Aborts from poll */
    bool admin_live;               /* enabled: the admin queue takes commands */
    /* The command nvme_admin() waits for, and its result. */
    uint16_t wait_cid, wait_status;
    uint32_t wait_dw0;
    bool waiting, wait_done;
    uint16_t last_admin_status;    /* status of the last admin command that completed with one */
    /* One Abort at a time (Linux sends up to ACL + 1; one is enough here). */
    bool abort_outstanding;
    uint16_t abort_cid;

    void *hmb;                     /* host memory buffer lent to the controller */
    uint64_t hmb_bytes;
    uint8_t *hmb_descs;            /* its descriptor list (one entry) */
    bool hmb_enabled;

    uint8_t *idbuf;                /* 4 KiB for Identify data */
    uint32_t *nslist;              /* 4 KiB active namespace list */
    struct nvme_ctrl_info info;

    struct nvme_ns *ns[NVME_MAX_NS_PER_CTRL];
    unsigned nns;
    /* Recovery after a timeout (Linux nvme_timeout -> nvme_reset_ctrl ->
     * nvme_reset_work): reset, enable, and each queue re-created by the CPU
     * that drives it, the commands the reset took resubmitted. Stepped from
     * poll() without waiting; at most NVME_MAX_RECOVERIES times. */
    volatile int state;            /* NVME_LIVE ... NVME_FAILED */
    volatile uint32_t gen;         /* +1 each time the controller is back */
    volatile bool dead;            /* not LIVE: the I/O queues are gone */
    volatile bool stopped;         /* ...and CSTS.RDY went to 0 (or it left the bus) */
    bool fatal_seen;               /* CSTS.CFS was set when it was reset */
    unsigned recoveries;
    uint64_t reset_at_ns, state_deadline_ns;
    unsigned queue_want;           /* what Set Features Number of Queues asked */
};

enum { NVME_LIVE, NVME_RESETTING, NVME_ENABLING, NVME_CONFIGURING, NVME_FAILED };
#define NVME_MAX_RECOVERIES 3

/* ---- Registers ------------------------------------------------------------------ */

static uint32_t rd32(struct nvme_ctrl *c, uint32_t off)
{
    return mmio_read32(c->bar, off);
}

static void wr32(struct nvme_ctrl *c, uint32_t off, uint32_t v)
{
    mmio_write32(c->bar, off, v);
}

/* Name a quirk applied to this controller (each disk's record lists it). */
static void nvme_apply_quirk(struct nvme_ctrl *c, const char *name)
{
    for (unsigned i = 0; i < c->napplied; i++)
        if (c->applied[i] == name)
            return;
    if (c->napplied < ARRAY_SIZE(c->applied))
        c->applied[c->napplied++] = name;
}

/* Wait for (CSTS & mask) == val within timeout_ms, as Linux nvme_wait_ready()
 * does: all ones means the function has left the bus. A fatal status while
 * waiting for ready is an error of its own. */
static int nvme_wait_csts(struct nvme_ctrl *c, uint32_t mask, uint32_t val, uint32_t timeout_ms, const char *what,
                          char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + (uint64_t)timeout_ms * 1000000ull;
    uint32_t csts;

    for (;;) {
        csts = rd32(c, NVME_REG_CSTS);
        if (csts == 0xffffffffu) {
            snprintf(err, errlen, "CSTS reads all ones: the controller is not answering");
            return BM_ENODEV;
        }
        if (mask == NVME_CSTS_RDY && val && (csts & NVME_CSTS_CFS)) {
            snprintf(err, errlen, "CSTS.CFS set (controller fatal status) while enabling");
            return BM_EIO;
        }
        if ((csts & mask) == val)
            return BM_OK;
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "%s within %u ms", what, timeout_ms);
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(10000);
    }
}

/* Reset: CC.EN = 0 and wait for CSTS.RDY = 0 (section 7.3.2). EN is
 * cleared at once even when the firmware left the controller half enabled
 * (RDY still 0) or failed (CFS), as Linux does (nvme_pci_configure_admin_queue
 * -> nvme_disable_ctrl): waiting for a RDY that may never come first would
 * only add a full CAP.TO to a broken controller's cost. */
static int nvme_disable(struct nvme_ctrl *c, char *err, size_t errlen)
{
    uint32_t cc = rd32(c, NVME_REG_CC);

    c->admin_live = false;
    if (cc & NVME_CC_EN) {
        wr32(c, NVME_REG_CC, cc & ~(NVME_CC_EN | NVME_CC_SHN_MASK));
        /* Linux nvme_disable_ctrl(): these read CSTS too soon at their peril. */
        if (c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY)
            plat_delay_ns(NVME_QUIRK_DELAY_MS * 1000000ull);
    }
    return nvme_wait_csts(c, NVME_CSTS_RDY, 0, c->ready_timeout_ms, "CSTS.RDY did not become 0", err, errlen);
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
    case NVME_ADMIN_ABORT: return "Abort";
    default: return "admin command";
    }
}

/* The admin queue is shared by the probe, health() and the Aborts that
 * poll() sends from whichever CPU drives the timed-out queue. */
static bool admin_trylock(struct nvme_ctrl *c)
{
    return !__atomic_test_and_set(&c->admin_lock, __ATOMIC_ACQUIRE);
}

static void admin_unlock(struct nvme_ctrl *c)
{
    __atomic_clear(&c->admin_lock, __ATOMIC_RELEASE);
}

/* Put a command on the admin SQ (lock held); returns its CID. */
static uint16_t admin_post(struct nvme_ctrl *c, struct nvme_sqe *cmd)
{
    uint16_t cid = c->admin_cid++;

    cmd->cid = cid;
    c->asq[c->asq_tail] = *cmd;
    c->asq_tail = (c->asq_tail + 1) % NVME_ADMIN_ENTRIES;
    plat_wmb();
    wr32(c, NVME_SQ_TAIL_DB(0, c->dstrd), c->asq_tail);
    return cid;
}

/* Consume new admin completions (lock held): the one nvme_admin() waits
 * for, and an Abort's. */
static void admin_reap(struct nvme_ctrl *c)
{
    bool moved = false;

    for (;;) {
        volatile struct nvme_cqe *e = &c->acq[c->acq_head];
        uint16_t st = e->status, cid;
        uint32_t res;

        if (NVME_CQE_PHASE(st) != c->aphase)
            break;
        plat_rmb();
        cid = e->cid;
        res = e->dw0;
        moved = true;
        if (++c->acq_head == NVME_ADMIN_ENTRIES) {
            c->acq_head = 0;
            c->aphase ^= 1;
        }
        if (c->abort_outstanding && cid == c->abort_cid)
            c->abort_outstanding = false; /* the command itself comes back on its own queue, or times out again */
        else if (c->waiting && cid == c->wait_cid) {
            c->wait_status = st & 0xfffeu;
            c->wait_dw0 = res;
            c->wait_done = true;
        }
        /* anything else is stale: a command given up on earlier */
    }
    if (moved)
        wr32(c, NVME_CQ_HEAD_DB(0, c->dstrd), c->acq_head);
}

/* Issue one admin command and wait for its completion. */
static int nvme_admin(struct nvme_ctrl *c, struct nvme_sqe *cmd, uint32_t *dw0, char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + NVME_ADMIN_TIMEOUT_NS;
    int rc = BM_OK;

    /* A poller holds the lock only to post or reap, never to wait. */
    while (!admin_trylock(c)) {
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "the admin queue stayed busy");
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(1000);
    }
    c->wait_done = false;
    c->waiting = true;
    c->wait_cid = admin_post(c, cmd);
    for (;;) {
        admin_reap(c);
        if (c->wait_done)
            break;
        if (rd32(c, NVME_REG_CSTS) & NVME_CSTS_CFS) {
            snprintf(err, errlen, "CSTS.CFS set (controller fatal status) during %s",
                     admin_name(cmd->opcode));
            rc = BM_EIO;
            c->admin_live = false;
            break;
        }
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "%s got no completion within %llu ms (admin CQ phase bit)",
                     admin_name(cmd->opcode), (unsigned long long)(NVME_ADMIN_TIMEOUT_NS / 1000000ull));
            rc = BM_ETIMEDOUT;
            c->admin_live = false; /* no more admin commands: only a reset is left */
            break;
        }
        plat_delay_ns(1000);
    }
    c->waiting = false;
    admin_unlock(c);
    if (rc != BM_OK)
        return rc;
    if (NVME_CQE_SC(c->wait_status) || NVME_CQE_SCT(c->wait_status)) {
        char detail[64];
        c->last_admin_status = c->wait_status;
        nvme_status_detail(c->wait_status, detail, sizeof(detail));
        snprintf(err, errlen, "%s failed: %s", admin_name(cmd->opcode), detail);
        return BM_EIO;
    }
    if (dw0)
        *dw0 = c->wait_dw0;
    return BM_OK;
}

/* Identify (section 5.15) into a 4 KiB page. */
static int nvme_identify(struct nvme_ctrl *c, uint8_t cns, uint32_t nsid, void *buf, char *err, size_t errlen)
{
    struct nvme_sqe cmd = { 0 };

    cmd.opcode = NVME_ADMIN_IDENTIFY;
    cmd.nsid = nsid;
    cmd.prp1 = plat_virt_to_phys(buf);
    cmd.cdw10 = cns;
    c->last_admin_status = 0;
    return nvme_admin(c, &cmd, NULL, err, errlen);
}

/* ---- Bring-up ---------------------------------------------------------------------- */

/* Reset, admin queue, enable (section 7.6.1 steps 1-5), as Linux
 * nvme_enable_ctrl() does it: CC is written without EN first, CAP read
 * again (it may change after that write), and when CAP.CRMS.CRWMS is set
 * the ready wait is CRTO.CRWMT (NVMe 2.0), unless that is below CAP.TO. */
/* Admin queue registers and CC without EN; computes the enable timeout.
 * Returns the CC value to write with EN. */
static uint32_t nvme_program_admin_queue(struct nvme_ctrl *c)
{
    uint32_t cc, to;

    c->asq_tail = c->acq_head = 0;
    c->aphase = 1;
    c->abort_outstanding = false;
    memset(c->asq, 0, NVME_PAGE_BYTES);
    memset((void *)c->acq, 0, NVME_PAGE_BYTES);
    wr32(c, NVME_REG_AQA, NVME_AQA_ASQS(NVME_ADMIN_ENTRIES) | NVME_AQA_ACQS(NVME_ADMIN_ENTRIES));
    mmio_write64(c->bar, NVME_REG_ASQ, plat_virt_to_phys(c->asq));
    mmio_write64(c->bar, NVME_REG_ACQ, plat_virt_to_phys((const void *)c->acq));
    cc = NVME_CC_CSS_NVM | NVME_CC_MPS(12) | NVME_CC_AMS_RR | NVME_CC_IOSQES(NVME_SQE_LOG2) |
         NVME_CC_IOCQES(NVME_CQE_LOG2);
    wr32(c, NVME_REG_CC, cc);
    c->cap = mmio_read64(c->bar, NVME_REG_CAP);
    to = MAX(NVME_CAP_TO(c->cap), 1u);
    if (c->cap & NVME_CAP_CRWMS) {
        uint32_t crwmt = NVME_CRTO_CRWMT(rd32(c, NVME_REG_CRTO));
        if (crwmt >= to)
            to = crwmt;
        else
            plat_diag(c->bdf, "CRTO.CRWMT %u is below CAP.TO %u; using CAP.TO", crwmt, to);
    }
    c->enable_timeout_ms = to * 500u;
    return cc;
}

static int nvme_enable(struct nvme_ctrl *c, char *err, size_t errlen)
{
    int rc = nvme_disable(c, err, errlen);
    uint32_t cc;

    if (rc != BM_OK)
        return rc;
    cc = nvme_program_admin_queue(c);
    wr32(c, NVME_REG_CC, cc | NVME_CC_EN);
    rc = nvme_wait_csts(c, NVME_CSTS_RDY, NVME_CSTS_RDY, c->enable_timeout_ms, "CSTS.RDY did not become 1", err,
                        errlen);
    c->admin_live = rc == BM_OK;
    return rc;
}

/* Advanced command retry (Set Features Host Behavior Support, ACRE = 1):
 * only then does the controller put a Command Retry Delay in its statuses.
 * As Linux nvme_configure_acre(), only when CRDT1 is reported. */
static void nvme_enable_acre(struct nvme_ctrl *c)
{
    struct nvme_sqe cmd = { 0 };
    char err[160];

    if (!c->info.crdt[0])
        return;
    memset(c->idbuf, 0, NVME_HOST_BEHAVIOR_BYTES);
    c->idbuf[0] = 1;
    cmd.opcode = NVME_ADMIN_SET_FEATURES;
    cmd.prp1 = plat_virt_to_phys(c->idbuf);
    cmd.cdw10 = NVME_FEAT_HOST_BEHAVIOR;
    if (nvme_admin(c, &cmd, NULL, err, sizeof(err)) != BM_OK)
        plat_diag(c->bdf, "advanced command retry not enabled (%s)", err);
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
        snprintf(err, errlen, "out of memory for I/O queue %u (%u entries)", qid, entries);
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

/* ---- Host Memory Buffer (section 8.9) ------------------------------------------- */

/* Linux max_host_mem_size_mb: the most we lend a controller. */
#define NVME_HMB_MAX_BYTES (128ull << 20)

/* Set Features Host Memory Buffer (section 5.21.1.13): enable with the
 * buffer described by the one-entry descriptor list, or disable (EHM = 0). */
static int nvme_hmb_set(struct nvme_ctrl *c, bool enable, bool returned, char *err, size_t errlen)
{
    struct nvme_sqe cmd = { 0 };
    uint64_t list = plat_virt_to_phys(c->hmb_descs);

    cmd.opcode = NVME_ADMIN_SET_FEATURES;
    cmd.cdw10 = NVME_FEAT_HOST_MEM_BUF;
    if (enable) {
        /* MR: the buffer handed back is the one it had (Linux
         * NVME_HOST_MEM_RETURN), its contents as the controller left them. */
        cmd.cdw11 = NVME_HMB_EHM | (returned ? NVME_HMB_MR : 0);
        cmd.cdw12 = (uint32_t)(c->hmb_bytes / NVME_PAGE_BYTES);
        cmd.cdw13 = (uint32_t)list;
        cmd.cdw14 = (uint32_t)(list >> 32);
        cmd.cdw15 = 1;
    }
    return nvme_admin(c, &cmd, NULL, err, errlen);
}

/* Lend the controller the memory it asks for (HMPRE, at least HMMIN), as
 * Linux nvme_setup_host_mem() does: DRAM-less drives keep their mapping
 * tables there and run far below their speed without it. The buffer is
 * one contiguous run of pages, so one descriptor; smaller runs are tried
 * down to HMMIN. A controller that must do without is told nothing. */
static void nvme_hmb_setup(struct nvme_ctrl *c)
{
    uint64_t pref = (uint64_t)c->info.hmpre * NVME_PAGE_BYTES, min = (uint64_t)c->info.hmmin * NVME_PAGE_BYTES;
    uint64_t minds = (uint64_t)c->info.hmminds * NVME_PAGE_BYTES, size;
    uint8_t *desc;
    char err[160];

    if (!pref)
        return;
    pref = MIN(pref, NVME_HMB_MAX_BYTES);
    if (min > pref) {
        plat_diag(c->bdf, "host memory buffer: minimum %llu MiB is above the %llu MiB we lend; none given",
                  (unsigned long long)(min >> 20), (unsigned long long)(pref >> 20));
        return;
    }
    c->hmb_descs = plat_alloc_pages(NVME_PAGE_BYTES, false);
    if (!c->hmb_descs)
        return;
    for (size = ALIGN_UP(pref, (uint64_t)NVME_PAGE_BYTES); size >= MAX(min, minds) && size >= NVME_PAGE_BYTES;
         size = ALIGN_UP(size / 2, (uint64_t)NVME_PAGE_BYTES)) {
        c->hmb = plat_alloc_pages((size_t)size, false);
        if (c->hmb || size == NVME_PAGE_BYTES)
            break;
    }
    if (!c->hmb) {
        plat_diag(c->bdf, "host memory buffer: no %llu KiB of memory to lend", (unsigned long long)(min >> 10));
        plat_free_pages(c->hmb_descs, NVME_PAGE_BYTES);
        c->hmb_descs = NULL;
        return;
    }
    c->hmb_bytes = size;
    desc = c->hmb_descs;
    memset(desc, 0, NVME_PAGE_BYTES);
    for (unsigned i = 0; i < 8; i++)
        desc[i] = (uint8_t)(plat_virt_to_phys(c->hmb) >> (8 * i));
    for (unsigned i = 0; i < 4; i++)
        desc[8 + i] = (uint8_t)((size / NVME_PAGE_BYTES) >> (8 * i));
    if (nvme_hmb_set(c, true, false, err, sizeof(err)) != BM_OK) {
        plat_diag(c->bdf, "host memory buffer refused (%s)", err);
        plat_free_pages(c->hmb, (size_t)c->hmb_bytes);
        plat_free_pages(c->hmb_descs, NVME_PAGE_BYTES);
        c->hmb = c->hmb_descs = NULL;
        return;
    }
    c->hmb_enabled = true;
    plat_diag(c->bdf, "host memory buffer: %llu KiB lent (preferred %llu KiB)",
              (unsigned long long)(size >> 10), (unsigned long long)((uint64_t)c->info.hmpre * 4));
}

/* ---- Teardown ---------------------------------------------------------------------- */

/* Before the controller is handed back: take the host memory buffer back
 * (EHM = 0), delete the I/O queues, and tell it to shut down (CC.SHN =
 * 01b, wait for CSTS.SHST = 10b), so it has written out what it caches
 * before the firmware resets it (section 7.6.2; Linux nvme_dev_disable()
 * and nvme_disable_ctrl(shutdown = true)). Only a controller that still
 * works gets this; the reset follows in any case. */
static void nvme_shutdown(struct nvme_ctrl *c)
{
    struct nvme_sqe cmd;
    char err[160];
    uint32_t cc;

    if (c->hmb_enabled) {
        if (nvme_hmb_set(c, false, false, err, sizeof(err)) == BM_OK)
            c->hmb_enabled = false;
        else
            plat_diag(c->bdf, "host memory buffer not released (%s)", err);
    }
    for (unsigned i = 0; i < c->nns; i++) {
        struct nvme_ns *ns = c->ns[i];
        for (unsigned k = 0; k < ns->nq; k++) {
            if (ns->q[k].dead || ns->q[k].broken)
                continue;
            memset(&cmd, 0, sizeof(cmd));
            cmd.opcode = NVME_ADMIN_DELETE_SQ;
            cmd.cdw10 = ns->q[k].qid;
            if (nvme_admin(c, &cmd, NULL, err, sizeof(err)) != BM_OK)
                return;
            memset(&cmd, 0, sizeof(cmd));
            cmd.opcode = NVME_ADMIN_DELETE_CQ;
            cmd.cdw10 = ns->q[k].qid;
            if (nvme_admin(c, &cmd, NULL, err, sizeof(err)) != BM_OK)
                return;
        }
    }
    cc = rd32(c, NVME_REG_CC);
    wr32(c, NVME_REG_CC, (cc & ~NVME_CC_SHN_MASK) | NVME_CC_SHN_NORMAL);
    if (nvme_wait_csts(c, NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_CMPLT, c->shutdown_timeout_ms,
                       "CSTS.SHST did not report shutdown complete", err, sizeof(err)) != BM_OK)
        plat_diag(c->bdf, "%s", err);
}

/* Stop the controller, free everything, hand the function back to the
 * firmware. Memory the controller may still write to is kept if it would
 * not stop. */
static void nvme_teardown(struct nvme_ctrl *c)
{
    char err[160];
    bool stopped = true;

    if (c->bar) {
        if (c->admin_live && c->state == NVME_LIVE)
            nvme_shutdown(c);
        /* Reset deletes every I/O queue and aborts what is in flight
         * (section 7.3.2); the firmware's driver sets the controller up
         * again from scratch when it reconnects. */
        if (nvme_disable(c, err, sizeof(err)) != BM_OK) {
            plat_diag(c->bdf, "%s", err);
            if (rd32(c, NVME_REG_CSTS) != 0xffffffffu) {
                plat_diag(c->bdf, "the controller did not stop; its queue memory is left allocated");
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
        if (c->hmb)
            plat_free_pages(c->hmb, (size_t)c->hmb_bytes);
        if (c->hmb_descs)
            plat_free_pages(c->hmb_descs, NVME_PAGE_BYTES);
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

/* A command did not come back in time and an Abort did not help (or the
 * controller reports a fatal status or left the bus, where Linux
 * nvme_should_reset() resets at once): stop the controller so it can no
 * longer write into buffers the engine will reuse (CC.EN = 0 aborts every
 * command, section 7.3.2). Once it has stopped, each queue reports its
 * timed-out commands and keeps the others for when it is back
 * (nvme_recover_step). */
static void nvme_fail_controller(struct nvme_ctrl *c)
{
    uint32_t csts;

    if (c->state != NVME_LIVE)
        return;
    /* Why it went quiet, if it says: a fatal status is reported in CSTS
     * instead of a completion (section 3.1.6); the reset clears it. */
    csts = rd32(c, NVME_REG_CSTS);
    c->fatal_seen = csts != 0xffffffffu && (csts & NVME_CSTS_CFS);
    c->stopped = false;
    c->admin_live = false;
    c->reset_at_ns = plat_now_ns();
    c->state_deadline_ns = c->reset_at_ns + (uint64_t)c->ready_timeout_ms * 1000000ull;
    if (c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY)
        c->state_deadline_ns += NVME_QUIRK_DELAY_MS * 1000000ull;
    c->recoveries++;
    c->hmb_enabled = false; /* a reset turns it off (features are not kept) */
    c->state = csts == 0xffffffffu ? NVME_FAILED : NVME_RESETTING;
    c->dead = true;
    if (csts == 0xffffffffu)
        c->stopped = true; /* it has left the bus: it writes nothing any more */
    else
        wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
}

/* Give up on the controller: its queues report everything they hold (once
 * it has stopped) and take no more commands. */
static void nvme_give_up(struct nvme_ctrl *c)
{
    c->admin_live = false;
    c->state = NVME_FAILED;
}

/* One step of bringing the controller back, from whichever poll() gets the
 * admin queue: wait (by looking, not waiting) for CSTS.RDY = 0 after the
 * reset, then enable it again as at probe, then Set Features Number of
 * Queues (features do not survive a reset), after which each queue's own
 * poll() re-creates it. A controller that does not stop keeps its
 * commands' buffers (they are never reported): the engine's stall
 * detection gives up on the disk, and release() keeps the queue memory. */
static void nvme_recover_step(struct nvme_ctrl *c)
{
    uint64_t now = plat_now_ns();
    uint32_t csts, cc;
    unsigned granted = 0;
    char err[160];

    if (c->state == NVME_LIVE || c->state == NVME_FAILED || c->state == NVME_CONFIGURING || !admin_trylock(c))
        return;
    switch (c->state) {
    case NVME_RESETTING:
        /* Linux nvme_disable_ctrl(): these must not be read too soon. */
        if ((c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY) &&
            now - c->reset_at_ns < NVME_QUIRK_DELAY_MS * 1000000ull)
            break;
        csts = rd32(c, NVME_REG_CSTS);
        if (csts == 0xffffffffu) {
            c->stopped = true;
            nvme_give_up(c);
            break;
        }
        if (csts & NVME_CSTS_RDY) {
            if (now > c->state_deadline_ns)
                nvme_give_up(c); /* it did not stop: stopped stays false */
            break;
        }
        c->stopped = true;
        if (c->recoveries > NVME_MAX_RECOVERIES) {
            nvme_give_up(c);
            break;
        }
        cc = nvme_program_admin_queue(c);
        wr32(c, NVME_REG_CC, cc | NVME_CC_EN);
        c->state_deadline_ns = now + (uint64_t)c->enable_timeout_ms * 1000000ull;
        c->state = NVME_ENABLING;
        break;
    case NVME_ENABLING:
        csts = rd32(c, NVME_REG_CSTS);
        if (csts == 0xffffffffu || (csts & NVME_CSTS_CFS) || (!(csts & NVME_CSTS_RDY) && now > c->state_deadline_ns)) {
            if (csts != 0xffffffffu)
                wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
            nvme_give_up(c);
            break;
        }
        if (!(csts & NVME_CSTS_RDY))
            break;
        c->admin_live = true;
        c->state = NVME_CONFIGURING; /* one poller does the rest */
        admin_unlock(c);
        /* Admin commands complete in microseconds on a controller that is
         * ready; nvme_admin() bounds the wait all the same. */
        if (nvme_set_queue_count(c, c->queue_want, &granted, err, sizeof(err)) != BM_OK) {
            nvme_give_up(c);
            return;
        }
        /* The controller has stopped since, so the buffer is ours to lend again. */
        if (c->hmb && nvme_hmb_set(c, true, true, err, sizeof(err)) == BM_OK)
            c->hmb_enabled = true;
        c->gen++;
        c->fatal_seen = false;
        c->state = NVME_LIVE;
        c->dead = false;
        return;
    }
    admin_unlock(c);
}

/* Re-create a queue after the controller came back (by the CPU that drives
 * it, so nobody else touches its memory): empty CQ, fresh indices, Create
 * I/O CQ and SQ again. The commands the reset took are resubmitted by
 * nvme_resubmit_due(). */
static void nvme_queue_revive(struct nvme_ctrl *c, struct nvme_ns *ns, struct nvme_queue *q)
{
    struct nvme_sqe cmd = { 0 };
    char err[160];

    memset((void *)q->cq, 0, cq_bytes(q->entries));
    q->sq_tail = q->sq_head = q->cq_head = 0;
    q->phase = 1;
    q->next_scan_ns = 0;
    cmd.opcode = NVME_ADMIN_CREATE_CQ;
    cmd.prp1 = plat_virt_to_phys((const void *)q->cq);
    cmd.cdw10 = NVME_CREATE_CQ_CDW10(q->qid, q->entries);
    cmd.cdw11 = NVME_CREATE_CQ_PC;
    if (nvme_admin(c, &cmd, NULL, err, sizeof(err)) == BM_OK) {
        memset(&cmd, 0, sizeof(cmd));
        cmd.opcode = NVME_ADMIN_CREATE_SQ;
        cmd.prp1 = plat_virt_to_phys(q->sq);
        cmd.cdw10 = NVME_CREATE_SQ_CDW10(q->qid, q->entries);
        cmd.cdw11 = NVME_CREATE_SQ_PC | NVME_CREATE_SQ_CQID(q->qid);
        if (nvme_admin(c, &cmd, NULL, err, sizeof(err)) == BM_OK) {
            q->gen = c->gen;
            q->dead = q->flushed = false;
            return;
        }
    }
    (void)ns;
    q->broken = true; /* its commands are reported by nvme_flush_dead() */
    q->flushed = false;
}

/* Put a slot's command on the SQ; false if the SQ is full. */
static bool nvme_sq_push(struct nvme_ctrl *c, struct nvme_queue *q, struct nvme_slot *slot)
{
    uint32_t next = q->sq_tail + 1 == q->entries ? 0 : q->sq_tail + 1;

    if (next == q->sq_head)
        return false;
    q->sq[q->sq_tail] = slot->cmd;
    slot->submit_ns = plat_now_ns();
    q->sq_tail = next;
    /* The entry (and PRP list) must be in memory before the doorbell. */
    plat_wmb();
    wr32(c, q->sq_db, next);
    return true;
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
    uint64_t *list;
    uint64_t bytes = (uint64_t)blocks * d->lba_bytes;

    if (queue >= ns->nq || tag >= d->max_qd || !buf || blocks == 0 || (op != BM_IO_READ && op != BM_IO_WRITE))
        return BM_EINVAL;
    if (bytes > d->max_transfer_bytes || lba >= d->blocks || blocks > d->blocks - lba)
        return BM_EINVAL;
    q = &ns->q[queue];
    if (c->state == NVME_FAILED || q->broken)
        return BM_EIO;
    if (c->dead || q->dead)
        return BM_EBUSY; /* being reset: poll() brings it back */
    slot = &q->slots[tag];
    if (slot->busy)
        return BM_EINVAL; /* the tag is still in flight: CIDs must be unique (section 4.2) */
    if ((q->sq_tail + 1) % q->entries == q->sq_head)
        return BM_EBUSY;

    list = (uint64_t *)((uint8_t *)q->prp_lists + (size_t)tag * ns->list_bytes);
    if (nvme_prp_build(plat_virt_to_phys(buf), (uint32_t)bytes, NVME_PAGE_BYTES, list, plat_virt_to_phys(list),
                       ns->list_bytes / 8, &prp) != BM_OK)
        return BM_EINVAL;

    cmd = &slot->cmd;
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = op == BM_IO_WRITE ? NVME_CMD_WRITE : NVME_CMD_READ;
    cmd->cid = (uint16_t)tag;
    cmd->nsid = ns->nsid;
    cmd->prp1 = prp.prp1;
    cmd->prp2 = prp.prp2;
    cmd->cdw10 = (uint32_t)lba;
    cmd->cdw11 = (uint32_t)(lba >> 32);
    cmd->cdw12 = NVME_RW_NLB(blocks);

    slot->busy = 1;
    slot->expired = 0;
    slot->retry_pending = 0;
    slot->retries = 0;
    slot->aborted = 0;
    q->inflight++;
    (void)nvme_sq_push(c, q, slot); /* room was checked above */
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
    bool moved = false;

    while (n < max) {
        volatile struct nvme_cqe *e = &q->cq[q->cq_head];
        uint16_t st = e->status, cid, sqhd;
        struct nvme_slot *slot;
        bool failed;

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
        if (cid >= ns->disk.max_qd || !q->slots[cid].busy || q->slots[cid].retry_pending)
            continue; /* not a command we have at the controller: ignore it */
        slot = &q->slots[cid];
        failed = NVME_CQE_SC(st) || NVME_CQE_SCT(st);
        if (failed && !slot->aborted && !c->dead) {
            int delay_ms = nvme_retry_delay_ms(st, c->info.crdt, slot->retries);
            if (delay_ms >= 0) {
                slot->retries++;
                slot->retry_pending = 1;
                slot->retry_at_ns = plat_now_ns() + (uint64_t)delay_ms * 1000000ull;
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
            snprintf(out[n].detail, sizeof(out[n].detail), "no completion within %llu s: aborted (SQ %u CID %u)",
                     (unsigned long long)(NVME_IO_TIMEOUT_NS / 1000000000ull), q->qid, cid);
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
    /* One head doorbell per batch; none once the controller is being
     * reset (its queues no longer exist). */
    if (moved && !c->dead)
        wr32(c, q->cq_db, q->cq_head);
    return n;
}

/* Submit again the commands whose retry delay has passed. */
static void nvme_resubmit_due(struct nvme_ctrl *c, struct nvme_ns *ns, struct nvme_queue *q)
{
    uint64_t now = plat_now_ns();

    for (uint32_t t = 0; t < ns->disk.max_qd && q->retries_pending; t++) {
        struct nvme_slot *s = &q->slots[t];
        if (!s->retry_pending || now < s->retry_at_ns)
            continue;
        if (!nvme_sq_push(c, q, s))
            return;
        s->retry_pending = 0;
        q->retries_pending--;
    }
}

/* Reap the admin queue for an Abort's completion, if nobody else is at it. */
static void nvme_admin_poll(struct nvme_ctrl *c)
{
    if (!c->abort_outstanding || !admin_trylock(c))
        return;
    admin_reap(c);
    admin_unlock(c);
}

/* Abort one command (section 5.1) without waiting for the answer; false
 * if the admin queue is busy or another Abort is still out. */
static bool nvme_send_abort(struct nvme_ctrl *c, uint16_t sqid, uint16_t cid)
{
    struct nvme_sqe cmd = { 0 };
    bool sent = false;

    if (!c->admin_live || !admin_trylock(c))
        return false;
    admin_reap(c);
    if (!c->abort_outstanding) {
        cmd.opcode = NVME_ADMIN_ABORT;
        cmd.cdw10 = NVME_ABORT_CDW10(sqid, cid);
        c->abort_cid = admin_post(c, &cmd);
        c->abort_outstanding = true;
        sent = true;
    }
    admin_unlock(c);
    return sent;
}

/* Commands older than NVME_IO_TIMEOUT_NS, as Linux nvme_timeout(): a
 * controller with a fatal status or off the bus is reset at once; else the
 * command gets an Abort and NVME_ABORT_WAIT_NS to come back (the other
 * commands and namespaces carry on); if it does not, the controller is
 * reset. Returns true if the controller is being reset. */
static bool nvme_check_timeouts(struct nvme_ns *ns, struct nvme_queue *q, uint64_t now)
{
    struct nvme_ctrl *c = ns->ctrl;
    bool reset = false;
    int healthy = -1;

    for (uint32_t t = 0; t < ns->disk.max_qd; t++) {
        struct nvme_slot *s = &q->slots[t];
        uint64_t age = now - s->submit_ns;
        if (!s->busy || s->retry_pending || age <= NVME_IO_TIMEOUT_NS)
            continue;
        if (healthy < 0) {
            uint32_t csts = rd32(c, NVME_REG_CSTS);
            healthy = csts != 0xffffffffu && !(csts & NVME_CSTS_CFS);
        }
        /* Past the Abort's wait: unanswered, or never sent (another was out). */
        if (!healthy || age > NVME_IO_TIMEOUT_NS + NVME_ABORT_WAIT_NS) {
            s->expired = 1;
            reset = true;
        } else if (!s->aborted && nvme_send_abort(c, q->qid, (uint16_t)t)) {
            s->aborted = 1;
        }
    }
    if (reset) {
        /* Every command of this queue that is overdue is named as such. */
        for (uint32_t t = 0; t < ns->disk.max_qd; t++)
            if (q->slots[t].busy && now - q->slots[t].submit_ns > NVME_IO_TIMEOUT_NS)
                q->slots[t].expired = 1;
        nvme_fail_controller(c);
    }
    return reset;
}

/* After the controller was stopped: report the commands that timed out;
 * keep the others to be submitted again once the queue is back (Linux
 * requeues what a reset cancels), unless the controller is given up on or
 * the queue could not be re-created: then they are reported as aborted.
 * Sets q->flushed when nothing is left to report. */
static int nvme_flush_dead(struct nvme_ns *ns, struct nvme_queue *q, struct bm_completion *out, int max)
{
    bool final = ns->ctrl->state == NVME_FAILED || q->broken;
    uint32_t t;
    int n = 0;

    for (t = 0; t < ns->disk.max_qd && n < max; t++) {
        struct nvme_slot *s = &q->slots[t];
        if (!s->busy || (!final && !s->expired && s->retry_pending))
            continue;
        if (!final && !s->expired) {
            s->retry_pending = 1;
            s->retry_at_ns = 0;
            s->aborted = 0;
            q->retries_pending++;
            continue;
        }
        s->busy = 0;
        q->inflight--;
        if (s->retry_pending) {
            s->retry_pending = 0;
            q->retries_pending--;
        }
        out[n].tag = t;
        if (s->expired) {
            out[n].status = BM_ETIMEDOUT;
            snprintf(out[n].detail, sizeof(out[n].detail), "no completion within %u s%s (SQ %u CID %u)",
                     (unsigned)(NVME_IO_TIMEOUT_NS / 1000000000ull),
                     ns->ctrl->fatal_seen ? ", CSTS.CFS set" : s->aborted ? ", nor after Abort" : "", q->qid & 0xffffu,
                     t & 0xffffu);
        } else {
            out[n].status = BM_EIO;
            snprintf(out[n].detail, sizeof(out[n].detail), "aborted: controller reset after a timeout");
        }
        s->expired = 0;
        n++;
    }
    if (t == ns->disk.max_qd)
        q->flushed = true;
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
    if (!q->dead && (c->dead || q->gen != c->gen))
        q->dead = true;
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
            nvme_queue_revive(c, ns, q);
            if (q->broken)
                n += nvme_flush_dead(ns, q, out + n, max - n);
        }
    }
    if (!q->dead && q->retries_pending)
        nvme_resubmit_due(c, ns, q);
    if (!q->dead && q->inflight) {
        uint64_t now = plat_now_ns();
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

static int nvme_probe(struct pci_addr a, unsigned index, struct bm_disk_list *disks, void **ctrl_out, char *err, size_t errlen)
{
    struct nvme_ctrl *c;
    static uint32_t ids[NVME_MAX_NS_PER_CTRL];
    static struct nvme_ns_info infos[NVME_MAX_NS_PER_CTRL];
    unsigned looked = 0, listed = 0, nusable = 0, nskipped = 0, granted = 0, qpn, room, ncand;
    bool sequential;
    uint32_t entries, max_qd;
    struct nvme_io_limits lim;
    char why[96];
    char limit[80] = "";        /* why namespaces beyond nusable were left out */
    uint32_t skipped_id = 0;    /* the last namespace skipped; why says why */
    int rc;

    *ctrl_out = NULL;
    c = plat_alloc(sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    c->addr = a;
    c->shutdown_timeout_ms = NVME_SHUTDOWN_MIN_MS;
    c->index = index;
    pci_addr_str(a, c->bdf, sizeof(c->bdf));

    rc = plat_pci_claim(a);
    if (rc != BM_OK) {
        snprintf(err, errlen, "could not take the controller from the firmware: %s", bm_strerror(rc));
        goto err;
    }
    c->bar = plat_pci_map_bar(a, 0, &c->bar_size);
    if (!c->bar || c->bar_size < 2 * NVME_REG_DBS) {
        snprintf(err, errlen, "BAR0 is not a usable register window");
        rc = BM_ENODEV;
        goto err;
    }
    pci_enable_device(a);
    c->quirks = nvme_pci_quirks(plat_pci_read16(a, 0x00), plat_pci_read16(a, 0x02));
    if (c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY)
        nvme_apply_quirk(c, "delay_before_chk_rdy");

    c->cap = mmio_read64(c->bar, NVME_REG_CAP);
    c->vs = rd32(c, NVME_REG_VS);
    if (c->cap == ~0ull) {
        snprintf(err, errlen, "CAP reads all ones: the controller is not answering");
        rc = BM_ENODEV;
        goto err;
    }
    c->dstrd = NVME_CAP_DSTRD(c->cap);
    c->ready_timeout_ms = MAX(NVME_CAP_TO(c->cap), 1u) * 500u;
    if (!(NVME_CAP_CSS(c->cap) & NVME_CAP_CSS_NVM)) {
        snprintf(err, errlen, "CAP.CSS lacks the NVM command set");
        rc = BM_ENOTSUP;
        goto err;
    }
    /* CC.MPS = 0 (4 KiB, the x86 page) must be within CAP.MPSMIN..MPSMAX. */
    if (NVME_CAP_MPSMIN(c->cap) != 0) {
        snprintf(err, errlen, "CAP.MPSMIN is %u KiB; only 4 KiB memory pages are supported",
                 4u << NVME_CAP_MPSMIN(c->cap));
        rc = BM_ENOTSUP;
        goto err;
    }

    c->asq = plat_alloc_pages(NVME_PAGE_BYTES, false);
    c->acq = plat_alloc_pages(NVME_PAGE_BYTES, false);
    c->idbuf = plat_alloc_pages(NVME_IDENTIFY_BYTES, false);
    c->nslist = plat_alloc_pages(NVME_IDENTIFY_BYTES, false);
    if (!c->asq || !c->acq || !c->idbuf || !c->nslist) {
        snprintf(err, errlen, "out of memory for the admin queue");
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
    if (c->info.rtd3e_us)
        c->shutdown_timeout_ms = (uint32_t)MIN(MAX(c->info.rtd3e_us / 1000000u * 1000u, NVME_SHUTDOWN_MIN_MS),
                                               NVME_SHUTDOWN_MAX_MS);
    /* Section 5.15.2: SQES/CQES give the required (3:0) and largest (7:4)
     * entry sizes; ours are 64 and 16 bytes. Zero means not reported. */
    if ((c->info.sqes && ((c->info.sqes & 0xf) > NVME_SQE_LOG2 || (c->info.sqes >> 4) < NVME_SQE_LOG2)) ||
        (c->info.cqes && ((c->info.cqes & 0xf) > NVME_CQE_LOG2 || (c->info.cqes >> 4) < NVME_CQE_LOG2))) {
        snprintf(err, errlen, "queue entry sizes SQES %02xh CQES %02xh exclude 64/16 bytes",
                 c->info.sqes, c->info.cqes);
        rc = BM_ENOTSUP;
        goto err;
    }

    nvme_enable_acre(c);

    /* Candidate NSIDs: the active namespace list (CNS 02h, NVMe 1.1+), or
     * 1..NN on 1.0 controllers and on those that refuse the list although
     * their version promises it (Linux nvme_scan_work() falls back to
     * nvme_scan_ns_sequential() when the list fails with a status). */
    sequential = c->vs < NVME_VS(1, 1);
    if (!sequential) {
        rc = nvme_identify(c, NVME_CNS_ACTIVE_NS_LIST, 0, c->nslist, why, sizeof(why));
        if (rc == BM_EIO && c->last_admin_status) {
            plat_diag(c->bdf, "active namespace list (CNS 02h): %s; scanning namespaces 1..%u one by one",
                      why, c->info.nn);
            nvme_apply_quirk(c, "ns_list_refused");
            sequential = true;
        } else if (rc != BM_OK) {
            snprintf(err, errlen, "%s", why);
            goto err;
        }
    }
    if (sequential) {
        ncand = MIN(c->info.nn, NVME_SCAN_MAX_NSID);
        if (c->info.nn > ncand)
            plat_diag(c->bdf, "NN is %u; only namespaces 1..%u are looked at", c->info.nn, ncand);
    } else {
        for (ncand = 0; ncand < NVME_NS_LIST_MAX && c->nslist[ncand]; ncand++)
            ;
        listed = ncand;
    }
    for (unsigned i = 0; i < ncand; i++) {
        uint32_t nsid = sequential ? i + 1 : c->nslist[i];

        /* With the list, the ones beyond our limit need not be asked. */
        if (!sequential && nusable == NVME_MAX_NS_PER_CTRL)
            break;
        rc = nvme_identify(c, NVME_CNS_NAMESPACE, nsid, c->idbuf, err, errlen);
        if (rc == BM_EIO && c->last_admin_status && sequential)
            continue; /* an inactive or unallocated NSID may be refused */
        if (rc != BM_OK)
            goto err;
        rc = nvme_parse_identify_ns(c->idbuf, c->info.awupf, &infos[MIN(nusable, NVME_MAX_NS_PER_CTRL - 1)], why,
                                    sizeof(why));
        if (rc == BM_ENODEV && sequential)
            continue; /* inactive: Identify returns zeroes (section 5.15.2) */
        looked++;
        if (sequential)
            listed++;
        if (rc != BM_OK) {
            plat_diag(c->bdf, "namespace %u skipped: %s", nsid, why);
            skipped_id = nsid;
            nskipped++;
            continue;
        }
        if (nusable < NVME_MAX_NS_PER_CTRL)
            ids[nusable++] = nsid;
    }
    if (listed > nusable + nskipped)
        snprintf(limit, sizeof(limit), "baremark takes at most %u namespaces per controller", NVME_MAX_NS_PER_CTRL);
    room = BM_MAX_DISKS - MIN(disks->count, (unsigned)BM_MAX_DISKS);
    if (nusable > room) {
        plat_diag(c->bdf, "only %u of %u namespaces fit the disk list", room, nusable);
        disks->dropped += nusable - room;
        nusable = room;
        snprintf(limit, sizeof(limit), "the disk list is full (%u disks)", (unsigned)BM_MAX_DISKS);
        if (!nusable) {
            snprintf(err, errlen, "%u namespace%s left out: %s", looked - nskipped,
                     looked - nskipped == 1 ? "" : "s", limit);
            rc = BM_ENOSPC;
            goto err;
        }
    }
    if (nusable == 0) {
        /* The last skip reason says why, e.g. a format with metadata. */
        if (skipped_id)
            snprintf(err, errlen, "no usable namespace (%u active; namespace %u: %s)", looked,
                     skipped_id, why);
        else
            snprintf(err, errlen, "no usable namespace (%u active)", looked);
        rc = BM_ENODEV;
        goto err;
    }

    nvme_hmb_setup(c);

    /* Queue pairs: up to 16 per namespace, each namespace its own, so disks
     * never share a CID space or a completion queue. */
    c->queue_want = MIN(NVME_MAX_QUEUES_PER_NS * nusable, 0xfffeu);
    rc = nvme_set_queue_count(c, c->queue_want, &granted, err, errlen);
    if (rc != BM_OK)
        goto err;
    if (granted < nusable) {
        plat_diag(c->bdf, "%u I/O queue pairs granted; only the first %u namespaces are used", granted, granted);
        nusable = granted;
        snprintf(limit, sizeof(limit), "the controller granted only %u I/O queue pairs", granted);
    }
    qpn = MIN(granted / nusable, (unsigned)NVME_MAX_QUEUES_PER_NS);
    /* Depth: CAP.MQES is the largest queue size, 0-based (section 3.1.1).
     * The PM1725/PM1725a report 0, which is not a queue; Linux
     * nvme_pci_enable() gives them 64 entries. */
    entries = MIN(NVME_CAP_MQES(c->cap) + 1u, (uint32_t)NVME_MAX_QD + 1u);
    if (NVME_CAP_MQES(c->cap) == 0 && (c->quirks & NVME_QUIRK_MQES0_DEPTH_64)) {
        entries = NVME_QUIRK_MQES0_DEPTH;
        plat_diag(c->bdf, "CAP.MQES is 0 (PM1725): queues of %u entries, as Linux uses", entries);
        nvme_apply_quirk(c, "mqes0_depth_64");
    }
    if (entries < 2) {
        snprintf(err, errlen, "CAP.MQES %u is too small", NVME_CAP_MQES(c->cap));
        rc = BM_ENOTSUP;
        goto err;
    }
    max_qd = entries - 1;
    nvme_io_limits(c->info.mdts, NVME_CAP_MPSMIN(c->cap), qpn, max_qd, &lim);
    if (NVME_CQ_HEAD_DB(nusable * qpn, c->dstrd) + 4 > c->bar_size) {
        snprintf(err, errlen, "BAR0 (%llu bytes) has no doorbell for queue %u",
                 (unsigned long long)c->bar_size, nusable * qpn);
        rc = BM_ENODEV;
        goto err;
    }

    for (unsigned i = 0; i < nusable; i++) {
        struct nvme_ns *ns = plat_alloc(sizeof(*ns));
        if (!ns) {
            snprintf(err, errlen, "out of memory");
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
    for (unsigned i = 0; i < c->nns; i++) {
        for (unsigned k = 0; k < c->napplied; k++)
            bm_disk_add_quirk(&c->ns[i]->disk, c->applied[k]);
        (void)disk_list_add(disks, &c->ns[i]->disk);
    }
    /* A success that leaves namespaces out says so (blkdev.h: the caller
     * makes it a note), so no active namespace vanishes without a word. */
    err[0] = '\0';
    if (limit[0] && nskipped)
        snprintf(err, errlen, "%u of %u namespaces used: %s; namespace %u skipped: %s",
                 c->nns, listed, limit, skipped_id, why);
    else if (limit[0])
        snprintf(err, errlen, "%u of %u namespaces used: %s", c->nns, listed, limit);
    else if (nskipped)
        snprintf(err, errlen, "namespace %u skipped: %s", skipped_id, why);
    plat_diag(c->bdf, "%s, serial %s, firmware %s: %u namespace%s, %u queue%s of %u, up to %u KiB per command",
             c->info.model, c->info.serial, c->info.firmware, c->nns, c->nns == 1 ? "" : "s", qpn,
             qpn == 1 ? "" : "s", max_qd, lim.max_transfer_bytes / 1024);
    *ctrl_out = c;
    return BM_OK;

err:
    nvme_teardown(c);
    return rc;
}

const struct bm_driver nvme_driver = {
    .name = "nvme",
    .match = nvme_match,
    .probe = nvme_probe,
    .release = nvme_release,
};
