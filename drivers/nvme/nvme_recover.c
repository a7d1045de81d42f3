/* Recovery from a command that does not come back (Linux nvme_timeout(),
 * nvme_reset_ctrl(), nvme_reset_work()): Abort, controller reset, bringing
 * the controller back step by step from poll(), and reporting what the
 * reset took. */
#include "nvme_types.h"

/* The recovery moves on to step (its record's name); now is when. */
static void step_begin(struct nvme_ctrl *c, const char *step, uint64_t now)
{
    if (c->step)
        c->step_ms_last = (now - c->step_at_ns) / NS_PER_MS;
    c->step = step;
    c->step_at_ns = now;
}

/* The recovery ended: back in service (why NULL) or given up on, why in
 * the record and the log. */
static void recovery_end(struct nvme_ctrl *c, const char *why, uint64_t now)
{
    c->recovery_ms = (now - c->reset_at_ns) / NS_PER_MS;
    c->step_ms_last = (now - c->step_at_ns) / NS_PER_MS;
    if (!why) {
        snprintf(c->outcome, sizeof(c->outcome), "back");
        return;
    }
    snprintf(c->outcome, sizeof(c->outcome), "gave up at %s (%s)", c->step, why);
    plat_diag(c->bdf, "controller reset %s after %llu ms", c->outcome, (unsigned long long)c->recovery_ms);
}

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
    c->step = NULL;
    c->outcome[0] = 0;
    step_begin(c, "CSTS.RDY = 0", c->reset_at_ns);
    c->state_deadline_ns = c->reset_at_ns + (uint64_t)c->ready_timeout_ms * NS_PER_MS;
    if (c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY)
        c->state_deadline_ns += NVME_QUIRK_DELAY_MS * NS_PER_MS;
    c->recoveries++;
    c->hmb_enabled = false; /* a reset turns it off (features are not kept) */
    c->state = csts == 0xffffffffu ? NVME_FAILED : NVME_RESETTING;
    c->dead = true;
    if (csts == 0xffffffffu) {
        c->stopped = true; /* it has left the bus: it writes nothing any more */
        recovery_end(c, "CSTS reads all ones (off the bus)", c->reset_at_ns);
    } else {
        wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
    }
}

/* Give up on the controller: its queues report everything they hold (once
 * it has stopped) and take no more commands. Nothing is freed here:
 * release() frees only what a stopped controller can no longer write. */
static void nvme_give_up(struct nvme_ctrl *c, const char *why, uint64_t now)
{
    if (c->step_posted) {
        nvme_admin_forget(c); /* a late answer is stale */
        c->step_posted = false;
    }
    c->admin_live = false;
    c->state = NVME_FAILED;
    recovery_end(c, why, now);
}

/* ---- The Set Features steps after the controller is enabled again ------------- */

/* Their order is Linux nvme_reset_work()'s: nvme_init_ctrl_finish() ->
 * nvme_configure_acre() (features do not survive a reset), then
 * nvme_setup_host_mem() (the buffer handed back with MR), then
 * nvme_setup_io_queues() -> nvme_set_queue_count(). Each is posted in one
 * poll and looked for in the next ones (Linux waits in a work item; a
 * poll() here must not: the other disks' CPUs run the same loop), each
 * with NVME_RECOVER_ADMIN_TIMEOUT_NS of its own. */
static const char *set_step_name(int state)
{
    switch (state) {
    case NVME_SET_ACRE: return "Set Features ACRE"; /* Host Behavior Support */
    case NVME_SET_HMB: return "Set Features HMB"; /* Host Memory Buffer */
    default: return "Set Features Number of Queues";
    }
}

/* The command of a step, or false if the controller needs none. */
static bool set_step_command(struct nvme_ctrl *c, struct nvme_sqe *cmd)
{
    switch (c->state) {
    case NVME_SET_ACRE:
        return nvme_acre_command(c, cmd);
    case NVME_SET_HMB:
        /* The controller has stopped since, so the buffer is ours to lend again. */
        if (!c->hmb)
            return false;
        nvme_hmb_command(c, cmd, true, true);
        return true;
    default:
        nvme_queue_count_command(cmd, c->queue_want);
        return true;
    }
}

/* I/O queue pairs the namespaces use. */
static unsigned queues_in_use(const struct nvme_ctrl *c)
{
    unsigned n = 0;

    for (unsigned i = 0; i < c->nns; i++)
        n += c->ns[i]->nq;
    return n;
}

/* A step's answer (rc, dw0, err): false, with why, if the recovery ends
 * here. As Linux: a status refusing ACRE is logged and passed
 * (nvme_configure_acre() fails the reset only on a host error), so is a
 * refused HMB (nvme_setup_host_mem() goes on without it); fewer queue
 * pairs than the disks use cannot carry their queues. */
static bool set_step_done(struct nvme_ctrl *c, int rc, uint32_t dw0, const char *err, char *why, size_t whylen)
{
    unsigned granted, used;

    switch (c->state) {
    case NVME_SET_ACRE:
        if (rc != BM_OK)
            plat_diag(c->bdf, "advanced command retry not enabled again (%s)", err);
        return true;
    case NVME_SET_HMB:
        if (rc == BM_OK)
            c->hmb_enabled = true;
        else
            plat_diag(c->bdf, "host memory buffer not lent again (%s)", err);
        return true;
    default:
        if (rc != BM_OK) {
            snprintf(why, whylen, "%s", err);
            return false;
        }
        granted = nvme_queues_granted(dw0);
        used = queues_in_use(c);
        if (granted < used) {
            snprintf(why, whylen, "%u I/O queue pairs granted, %u in use", granted, used);
            return false;
        }
        return true;
    }
}

/* Run the Set Features steps as far as they go without waiting (admin lock
 * held): post a step's command, take its answer if it is there, move on.
 * Returns when a command is out and unanswered, or the recovery ended. */
static void set_steps(struct nvme_ctrl *c, uint64_t now)
{
    struct nvme_sqe cmd;
    uint32_t dw0 = 0, csts;
    char err[112], why[112];
    int rc;

    for (;;) {
        if (!c->step_posted) {
            step_begin(c, set_step_name(c->state), now);
            if (!set_step_command(c, &cmd)) {
                c->state++;
                continue;
            }
            nvme_admin_post_nowait(c, &cmd);
            c->step_posted = true;
            c->step_deadline_ns = now + NVME_RECOVER_ADMIN_TIMEOUT_NS;
        }
        rc = nvme_admin_check(c, NVME_ADMIN_SET_FEATURES, &dw0, err, sizeof(err));
        if (rc == BM_EBUSY) {
            /* Not answered: a fatal status or leaving the bus ends it at
             * once, as Linux nvme_timeout() -> nvme_should_reset(). */
            csts = rd32(c, NVME_REG_CSTS);
            if (csts == 0xffffffffu) {
                nvme_give_up(c, "CSTS reads all ones (off the bus)", now);
                return;
            }
            if (csts & NVME_CSTS_CFS)
                snprintf(why, sizeof(why), "CSTS.CFS set (controller fatal status)");
            else if (now > c->step_deadline_ns)
                snprintf(why, sizeof(why), "no completion in %llu ms",
                         (unsigned long long)(NVME_RECOVER_ADMIN_TIMEOUT_NS / NS_PER_MS));
            else
                return; /* looked again by the next poll */
            /* Linux nvme_timeout() in the CONNECTING state: disable the
             * controller (nvme_dev_disable()), the reset fails. No I/O
             * queue exists yet, so no command of the disks is in it. */
            wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
            nvme_give_up(c, why, now);
            return;
        }
        c->step_posted = false;
        if (!set_step_done(c, rc, dw0, err, why, sizeof(why))) {
            wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
            nvme_give_up(c, why, now);
            return;
        }
        if (c->state == NVME_SET_QUEUES)
            break;
        c->state++;
    }
    c->gen++;
    c->fatal_seen = false;
    recovery_end(c, NULL, now);
    c->state = NVME_LIVE;
    c->dead = false;
}

/* One step of bringing the controller back, from whichever poll() gets the
 * admin queue: wait (by looking, not waiting) for CSTS.RDY = 0 after the
 * reset, then enable it again as at probe, then the Set Features steps
 * (set_steps), after which each queue's own poll() re-creates it. No step
 * waits: a slow controller costs each poll a register read or two. A
 * controller that does not stop keeps its commands' buffers (they are
 * never reported): the engine's stall detection gives up on the disk, and
 * release() keeps the queue memory. */
void nvme_recover_step(struct nvme_ctrl *c)
{
    uint64_t now = plat_now_ns();
    uint32_t csts, cc;

    if (c->state == NVME_LIVE || c->state == NVME_FAILED || !nvme_admin_trylock(c))
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
            nvme_give_up(c, "CSTS reads all ones (off the bus)", now);
            break;
        }
        if (csts & NVME_CSTS_RDY) {
            if (now > c->state_deadline_ns)
                nvme_give_up(c, "it did not stop within CAP.TO", now); /* stopped stays false */
            break;
        }
        c->stopped = true;
        if (c->recoveries > NVME_MAX_RECOVERIES) {
            nvme_give_up(c, "too many resets", now);
            break;
        }
        cc = nvme_program_admin_queue(c);
        wr32(c, NVME_REG_CC, cc | NVME_CC_EN);
        c->state_deadline_ns = now + (uint64_t)c->enable_timeout_ms * NS_PER_MS;
        step_begin(c, "CSTS.RDY = 1", now);
        c->state = NVME_ENABLING;
        break;
    case NVME_ENABLING:
        csts = rd32(c, NVME_REG_CSTS);
        if (csts == 0xffffffffu || (csts & NVME_CSTS_CFS) || (!(csts & NVME_CSTS_RDY) && now > c->state_deadline_ns)) {
            if (csts != 0xffffffffu)
                wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
            nvme_give_up(c,
                         csts == 0xffffffffu     ? "CSTS reads all ones (off the bus)"
                         : csts & NVME_CSTS_CFS ? "CSTS.CFS set (controller fatal status)"
                                                 : "not ready within CAP.TO",
                         now);
            break;
        }
        if (!(csts & NVME_CSTS_RDY))
            break;
        c->admin_live = true;
        c->step_posted = false;
        c->state = NVME_SET_ACRE;
        set_steps(c, now);
        break;
    default:
        set_steps(c, now);
        break;
    }
    nvme_admin_unlock(c);
}

/* What the recovery is doing, or how the last one ended (the disk's
 * recovery() record, which the engine cuts at 95 characters): "reset step
 * Set Features Number of Queues, 1200 ms (reset 1250 ms)"; "last reset
 * back after 40 ms (last step 0 ms)". Never blocks. */
void nvme_recovery_text(struct nvme_ctrl *c, char *out, size_t len)
{
    uint64_t now = plat_now_ns();
    int state = c->state;
    const char *step = c->step;

    if (!step) {
        snprintf(out, len, "%s", "");
        return;
    }
    if (state != NVME_LIVE && state != NVME_FAILED)
        snprintf(out, len, "reset step %s, %llu ms (reset %llu ms)", step,
                 (unsigned long long)((now - c->step_at_ns) / NS_PER_MS),
                 (unsigned long long)((now - c->reset_at_ns) / NS_PER_MS));
    else
        snprintf(out, len, "last reset %s after %llu ms (last step %llu ms)", c->outcome,
                 (unsigned long long)c->recovery_ms, (unsigned long long)c->step_ms_last);
}

/* Commands older than bm_io_timeout_ns(), as Linux nvme_timeout(): a
 * controller with a fatal status or off the bus is reset at once; else the
 * command gets an Abort and NVME_ABORT_WAIT_NS to come back (the other
 * commands and namespaces carry on); if it does not, the controller is
 * reset. Returns true if the controller is being reset. */
bool nvme_check_timeouts(struct nvme_ns *ns, struct nvme_queue *q, uint64_t now)
{
    struct nvme_ctrl *c = ns->ctrl;
    const uint64_t timeout_ns = bm_io_timeout_ns();
    bool reset = false;
    int healthy = -1;

    for (uint32_t t = 0; t < ns->disk.max_qd; t++) {
        struct nvme_slot *s = &q->slots[t];
        uint64_t age = now - s->submit_ns;
        if (!s->busy || s->retry_pending || age <= timeout_ns)
            continue;
        if (healthy < 0) {
            uint32_t csts = rd32(c, NVME_REG_CSTS);
            healthy = csts != 0xffffffffu && !(csts & NVME_CSTS_CFS);
        }
        /* Past the Abort's wait: unanswered, or never sent (another was out). */
        if (!healthy || age > timeout_ns + NVME_ABORT_WAIT_NS) {
            s->expired = 1;
            reset = true;
        } else if (!s->aborted && nvme_send_abort(c, q->qid, (uint16_t)(t + q->cid_base))) {
            s->aborted = 1;
        }
    }
    if (reset) {
        /* Every command of this queue that is overdue is named as such. */
        for (uint32_t t = 0; t < ns->disk.max_qd; t++)
            if (q->slots[t].busy && now - q->slots[t].submit_ns > timeout_ns)
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
                     (unsigned)(bm_io_timeout_ns() / NS_PER_S),
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

