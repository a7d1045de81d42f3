/* Recovery from a command that does not come back (Linux nvme_timeout(),
 * nvme_reset_ctrl(), nvme_reset_work()): Abort, controller reset, bringing
 * the controller back step by step from poll(), and reporting what the
 * reset took. */
#include "nvme_types.h"

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
    c->state_deadline_ns = c->reset_at_ns + (uint64_t)c->ready_timeout_ms * NS_PER_MS;
    if (c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY)
        c->state_deadline_ns += NVME_QUIRK_DELAY_MS * NS_PER_MS;
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
void nvme_recover_step(struct nvme_ctrl *c)
{
    uint64_t now = plat_now_ns();
    uint32_t csts, cc;
    unsigned granted = 0;
    char err[160];

    if (c->state == NVME_LIVE || c->state == NVME_FAILED || c->state == NVME_CONFIGURING || !nvme_admin_trylock(c))
        return;
    switch (c->state) {
    case NVME_RESETTING:
        /* Linux nvme_disable_ctrl(): these must not be read too soon. */
        if ((c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY) &&
            now - c->reset_at_ns < NVME_QUIRK_DELAY_MS * NS_PER_MS)
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
        c->state_deadline_ns = now + (uint64_t)c->enable_timeout_ms * NS_PER_MS;
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
        nvme_admin_unlock(c);
        /* Admin commands complete in microseconds on a controller that is
         * ready; nvme_admin() bounds the wait all the same. */
        if (nvme_set_queue_count(c, c->queue_want, &granted, err, sizeof(err)) != BM_OK) {
            nvme_give_up(c);
            return;
        }
        /* Host Behavior Support is a feature too: ACRE again, as Linux
         * nvme_init_ctrl_finish() -> nvme_configure_acre() on each reset. */
        nvme_enable_acre(c);
        /* The controller has stopped since, so the buffer is ours to lend again. */
        if (c->hmb && nvme_hmb_set(c, true, true, err, sizeof(err)) == BM_OK)
            c->hmb_enabled = true;
        c->gen++;
        c->fatal_seen = false;
        c->state = NVME_LIVE;
        c->dead = false;
        return;
    }
    nvme_admin_unlock(c);
}

/* Commands older than NVME_IO_TIMEOUT_NS, as Linux nvme_timeout(): a
 * controller with a fatal status or off the bus is reset at once; else the
 * command gets an Abort and NVME_ABORT_WAIT_NS to come back (the other
 * commands and namespaces carry on); if it does not, the controller is
 * reset. Returns true if the controller is being reset. */
bool nvme_check_timeouts(struct nvme_ns *ns, struct nvme_queue *q, uint64_t now)
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
        } else if (!s->aborted && nvme_send_abort(c, q->qid, (uint16_t)(t + q->cid_base))) {
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
int nvme_flush_dead(struct nvme_ns *ns, struct nvme_queue *q, struct bm_completion *out, int max)
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
                     (unsigned)(NVME_IO_TIMEOUT_NS / NS_PER_S),
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

