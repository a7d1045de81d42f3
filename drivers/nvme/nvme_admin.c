/* The NVMe controller's registers and admin queue (NVM Express Base
 * Specification 1.4): wait for CSTS, reset and enable (section 7.6.1), the
 * admin submission/completion queue, the synchronous admin commands of
 * probe and recovery (Identify, Set Features), and the Abort that poll()
 * sends without waiting. Error strings name no device: the caller's
 * plat_diag() or record does. */
#include "nvme_types.h"

/* Wait for (CSTS & mask) == val within timeout_ms, as Linux nvme_wait_ready()
 * does: all ones means the function has left the bus. A fatal status while
 * waiting for ready is an error of its own. */
int nvme_wait_csts(struct nvme_ctrl *c, uint32_t mask, uint32_t val, uint32_t timeout_ms, const char *what,
                   char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + (uint64_t)timeout_ms * NS_PER_MS;
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
        plat_delay_ns(10 * NS_PER_US);
    }
}

/* Reset: CC.EN = 0 and wait for CSTS.RDY = 0 (section 7.3.2). EN is
 * cleared at once even when the firmware left the controller half enabled
 * (RDY still 0) or failed (CFS), as Linux does (nvme_pci_configure_admin_queue
 * -> nvme_disable_ctrl): waiting for a RDY that may never come first would
 * only add a full CAP.TO to a broken controller's cost. */
int nvme_disable(struct nvme_ctrl *c, char *err, size_t errlen)
{
    uint32_t cc = rd32(c, NVME_REG_CC);

    c->admin_live = false;
    if (cc & NVME_CC_EN) {
        wr32(c, NVME_REG_CC, cc & ~(NVME_CC_EN | NVME_CC_SHN_MASK));
        /* Linux nvme_disable_ctrl(): these read CSTS too soon at their peril. */
        if (c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY)
            plat_delay_ns(NVME_QUIRK_DELAY_MS * NS_PER_MS);
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
bool nvme_admin_trylock(struct nvme_ctrl *c)
{
    return !__atomic_test_and_set(&c->admin_lock, __ATOMIC_ACQUIRE);
}

void nvme_admin_unlock(struct nvme_ctrl *c)
{
    __atomic_clear(&c->admin_lock, __ATOMIC_RELEASE);
}

/* Put a command on the admin SQ (lock held); returns its CID. */
static uint16_t admin_post(struct nvme_ctrl *c, struct nvme_sqe *cmd)
{
    uint16_t cid = c->admin_cid++;

    /* Apple T2: admin and I/O CIDs share one space; the admin queue keeps
     * to the first 32 (Linux NVME_QUIRK_SHARED_TAGS). */
    if (c->quirks & NVME_QUIRK_SHARED_TAGS)
        cid %= NVME_SHARED_TAGS_ADMIN;

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

/* Put cmd on the admin queue as the one command waited for, without
 * waiting (admin lock held): nvme_admin_check() looks for its answer. */
void nvme_admin_post_nowait(struct nvme_ctrl *c, struct nvme_sqe *cmd)
{
    c->wait_done = false;
    c->waiting = true;
    c->wait_cid = admin_post(c, cmd);
}

/* Whether the command of nvme_admin_post_nowait() has come back (admin
 * lock held): BM_EBUSY while it has not (nothing waits here); BM_OK with
 * its result in *dw0; BM_EIO with its decoded status in err. */
int nvme_admin_check(struct nvme_ctrl *c, uint8_t opcode, uint32_t *dw0, char *err, size_t errlen)
{
    admin_reap(c);
    if (!c->wait_done)
        return BM_EBUSY;
    c->waiting = false;
    if (NVME_CQE_SC(c->wait_status) || NVME_CQE_SCT(c->wait_status)) {
        char detail[64];
        c->last_admin_status = c->wait_status;
        nvme_status_detail(c->wait_status, detail, sizeof(detail));
        snprintf(err, errlen, "%s failed: %s", admin_name(opcode), detail);
        return BM_EIO;
    }
    if (dw0)
        *dw0 = c->wait_dw0;
    return BM_OK;
}

/* Give up waiting for the command of nvme_admin_post_nowait(): a late
 * answer is then stale and ignored by admin_reap(). */
void nvme_admin_forget(struct nvme_ctrl *c)
{
    c->waiting = false;
}

/* Issue one admin command and wait for its completion (probe, health,
 * release, queue re-creation: never the steps of a controller reset). */
int nvme_admin(struct nvme_ctrl *c, struct nvme_sqe *cmd, uint32_t *dw0, char *err, size_t errlen)
{
    uint64_t deadline = plat_now_ns() + NVME_ADMIN_TIMEOUT_NS;
    int rc;

    /* A poller holds the lock only to post or reap, never to wait. */
    while (!nvme_admin_trylock(c)) {
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "the admin queue stayed busy");
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(NS_PER_US);
    }
    nvme_admin_post_nowait(c, cmd);
    for (;;) {
        rc = nvme_admin_check(c, cmd->opcode, dw0, err, errlen);
        if (rc != BM_EBUSY)
            break;
        if (rd32(c, NVME_REG_CSTS) & NVME_CSTS_CFS) {
            snprintf(err, errlen, "CSTS.CFS set (controller fatal status) during %s", admin_name(cmd->opcode));
            rc = BM_EIO;
            c->admin_live = false;
            break;
        }
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "%s got no completion within %llu ms (admin CQ phase bit)", admin_name(cmd->opcode),
                     (unsigned long long)(NVME_ADMIN_TIMEOUT_NS / NS_PER_MS));
            rc = BM_ETIMEDOUT;
            c->admin_live = false; /* no more admin commands: only a reset is left */
            break;
        }
        plat_delay_ns(NS_PER_US);
    }
    nvme_admin_forget(c);
    nvme_admin_unlock(c);
    return rc;
}

/* Identify (section 5.15) into a 4 KiB page. */
int nvme_identify(struct nvme_ctrl *c, uint8_t cns, uint32_t nsid, void *buf, char *err, size_t errlen)
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

/* Admin queue registers and CC without EN; computes the enable timeout.
 * Returns the CC value to write with EN. */
uint32_t nvme_program_admin_queue(struct nvme_ctrl *c)
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
    /* All I/O command sets when CAP.CSS offers them (bit 6), so zoned and
     * key-value namespaces say what they are (Identify CNS 03h) instead of
     * posing as NVM ones; as Linux nvme_enable_ctrl() (NVME_CC_CSS_CSI). */
    c->multi_css = (NVME_CAP_CSS(c->cap) & NVME_CAP_CSS_IOCSS) != 0;
    cc = (c->multi_css ? NVME_CC_CSS_CSI : NVME_CC_CSS_NVM) | NVME_CC_MPS(12) | NVME_CC_AMS_RR | NVME_CC_IOSQES(NVME_SQE_LOG2) |
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

/* Reset, admin queue, enable (section 7.6.1 steps 1-5), as Linux
 * nvme_enable_ctrl() does it: CC is written without EN first, CAP read
 * again (it may change after that write), and when CAP.CRMS.CRWMS is set
 * the ready wait is CRTO.CRWMT (NVMe 2.0), unless that is below CAP.TO. */
int nvme_enable(struct nvme_ctrl *c, char *err, size_t errlen)
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
 * As Linux nvme_configure_acre(), only when CRDT1 is reported: false (no
 * command) otherwise. The data goes in idbuf. */
bool nvme_acre_command(struct nvme_ctrl *c, struct nvme_sqe *cmd)
{
    if (!c->info.crdt[0])
        return false;
    memset(c->idbuf, 0, NVME_HOST_BEHAVIOR_BYTES);
    c->idbuf[0] = 1;
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = NVME_ADMIN_SET_FEATURES;
    cmd->prp1 = plat_virt_to_phys(c->idbuf);
    cmd->cdw10 = NVME_FEAT_HOST_BEHAVIOR;
    return true;
}

/* ACRE at probe; a refusal costs only the retry delays. */
void nvme_enable_acre(struct nvme_ctrl *c)
{
    struct nvme_sqe cmd;
    char err[160];

    if (nvme_acre_command(c, &cmd) && nvme_admin(c, &cmd, NULL, err, sizeof(err)) != BM_OK)
        plat_diag(c->bdf, "advanced command retry not enabled (%s)", err);
}

/* Set Features Number of Queues (07h, section 5.21.1.7) asking for want
 * I/O queue pairs. */
void nvme_queue_count_command(struct nvme_sqe *cmd, unsigned want)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = NVME_ADMIN_SET_FEATURES;
    cmd->cdw10 = NVME_FEAT_NUMBER_OF_QUEUES;
    cmd->cdw11 = NVME_FEAT_NQ(want, want);
}

/* The I/O queue pairs a Number of Queues result (dw0) grants. */
unsigned nvme_queues_granted(uint32_t dw0)
{
    return MIN(NVME_FEAT_NQ_NSQA(dw0), NVME_FEAT_NQ_NCQA(dw0));
}

/* Number of I/O queue pairs the controller grants, at probe. */
int nvme_set_queue_count(struct nvme_ctrl *c, unsigned want, unsigned *granted, char *err, size_t errlen)
{
    struct nvme_sqe cmd;
    uint32_t dw0 = 0;
    int rc;

    nvme_queue_count_command(&cmd, want);
    rc = nvme_admin(c, &cmd, &dw0, err, errlen);
    if (rc != BM_OK)
        return rc;
    *granted = nvme_queues_granted(dw0);
    return BM_OK;
}

/* Reap the admin queue for an Abort's completion, if nobody else is at it. */
void nvme_admin_poll(struct nvme_ctrl *c)
{
    if (!c->abort_outstanding || !nvme_admin_trylock(c))
        return;
    admin_reap(c);
    nvme_admin_unlock(c);
}

/* Abort one command (section 5.1) without waiting for the answer; false
 * if the admin queue is busy or another Abort is still out. */
bool nvme_send_abort(struct nvme_ctrl *c, uint16_t sqid, uint16_t cid)
{
    struct nvme_sqe cmd = { 0 };
    bool sent = false;

    if (!c->admin_live || !nvme_admin_trylock(c))
        return false;
    admin_reap(c);
    if (!c->abort_outstanding) {
        cmd.opcode = NVME_ADMIN_ABORT;
        cmd.cdw10 = NVME_ABORT_CDW10(sqid, cid);
        c->abort_cid = admin_post(c, &cmd);
        c->abort_outstanding = true;
        sent = true;
    }
    nvme_admin_unlock(c);
    return sent;
}
