/* MPI 2.0 / 2.5 backend: the tables mpt.c picks by PCI id, bring-up (IOC
 * FACTS, queues, IOC INIT), task management and the IOC host reset. How the
 * backend's files share the work: mpt_mpi2_types.h. */
#include "mpt_mpi2_types.h"

/* Facts, queues, IOC INIT: READY to OPERATIONAL. */
static int mpt2_init_common(struct mpt_ctrl *c, bool ieee_sgl, char *err, size_t errlen)
{
    struct mpt2_state *s;
    int rc;

    s = plat_alloc(sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    memset(s, 0, sizeof(*s));
    c->be_state = s;
    s->ieee_sgl = ieee_sgl;
    rc = mpt2_ioc_facts(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    /* Speak the generation the chip was made for, never above what the
     * firmware says it implements. */
    s->msg_version = MIN(s->facts.msg_version, (uint16_t)(ieee_sgl ? MPI2_VERSION_2_5 : MPI2_VERSION_2_0));
    if (ieee_sgl && s->facts.msg_version < MPI2_VERSION_2_5) {
        snprintf(err, errlen, "IOC FACTS: MPI %u.%u firmware on an MPI 2.5 chip", s->facts.msg_version >> 8,
                 s->facts.msg_version & 0xff);
        return BM_ENOTSUP;
    }
    plat_diag(c->bdf, "MPI %u.%u, firmware %u.%u.%u.%u, %u credits, frames %u/%u bytes, post queue up to %u, %u ports",
              s->facts.msg_version >> 8, s->facts.msg_version & 0xff, s->facts.fw_version_major,
              s->facts.fw_version_minor, s->facts.fw_version_unit, s->facts.fw_version_dev, s->facts.request_credit,
              s->facts.ioc_request_frame_size * 4, s->facts.reply_frame_size * 4,
              s->facts.max_reply_descriptor_post_queue_depth, s->facts.number_of_ports);
    if (s->facts.ioc_capabilities & MPI2_IOCFACTS_CAPABILITY_INTEGRATED_RAID)
        plat_diag(c->bdf, "IR (integrated RAID) firmware: RAID volumes are not driven natively, their member "
                  "disks are hidden");
    rc = mpt2_size_queues(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    rc = mpt2_alloc(c);
    if (rc != BM_OK) {
        snprintf(err, errlen, "out of memory below 4 GiB for %u request frames", c->nslots);
        return rc;
    }
    c->max_targets = 0;
    c->port_id = ~0u;
    return mpt2_ioc_init(c, err, errlen);
}

/* MPI 2.0 chips: MPI simple SGEs. */
static int mpt2_init(struct mpt_ctrl *c, char *err, size_t errlen) { return mpt2_init_common(c, false, err, errlen); }

/* MPI 2.5 chips: IEEE SGEs. */
static int mpt25_init(struct mpt_ctrl *c, char *err, size_t errlen) { return mpt2_init_common(c, true, err, errlen); }

/* ---- Task management and the IOC host reset ---------------------------------------------------------------- */

/* Post a task management request for io's device, not waited for (Linux
 * mpt3sas mpt3sas_scsih_issue_tm: a high-priority request descriptor);
 * its reply comes through the reply queue (mpt_tm_answer). */
static int mpt2_tm_post(struct mpt_ctrl *c, uint8_t task_type, const struct mpt_scsi_io *io, uint32_t slot,
                        char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_scsi_task_manage_request *r = (struct mpi2_scsi_task_manage_request *)mpt2_frame(s, c->nslots);

    (void)err;
    (void)errlen;
    memset(r, 0, s->frame_bytes);
    r->dev_handle = io->dev_handle;
    r->function = MPI2_FUNCTION_SCSI_TASK_MGMT;
    r->task_type = task_type;
    mpt_encode_lun(r->lun, io->lun);
    if (task_type == MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK)
        r->task_mid = (uint16_t)(slot + 1);
    memset(&c->tm, 0, sizeof(c->tm));
    c->tm.outstanding = true;
    mpt2_post_descriptor(c, MPI2_REQ_DESCRIPT_FLAGS_HIGH_PRIORITY, c->nslots, 0);
    return BM_OK;
}

/* After an IOC reset, find each disk's device again by SAS address and
 * follow a handle the firmware changed, as Linux mpt3sas
 * _scsih_search_responding_sas_devices does (called from
 * _scsih_reset_done_handler); requests waiting for a BUSY retry are
 * addressed to the new handle. A device no longer listed keeps its old
 * handle: its commands end with DEVICE_NOT_THERE. dev: the n devices
 * SAS Device Page 0 lists now (the host reset's last part walked it). */
static void mpt2_follow_handles(struct mpt_ctrl *c, const struct mpt2_device *dev, int n)
{
    for (unsigned i = 0; i < c->h.ndisks; i++) {
        struct hba_disk *md = c->h.disks[i];
        int j;

        for (j = 0; j < n && dev[j].sas_address != md->t.sas_address; j++)
            ;
        if (j == n) {
            plat_diag(c->bdf, "%s (SAS address %016llx) not found after the IOC reset", md->d.id,
                      (unsigned long long)md->t.sas_address);
            continue;
        }
        if (dev[j].handle == md->t.dev_handle)
            continue;
        plat_diag(c->bdf, "%s (SAS address %016llx): handle 0x%04x after the IOC reset (was 0x%04x)", md->d.id,
                  (unsigned long long)md->t.sas_address, dev[j].handle, md->t.dev_handle);
        for (uint32_t slot = 0; slot < c->nslots; slot++)
            if (c->h.q.slots[slot].state == HBAQ_RETRY && c->h.q.slots[slot].owner == &md->q)
                c->slot_io[slot].dev_handle = dev[j].handle;
        md->t.dev_handle = dev[j].handle;
    }
}

/* The walk is over (n devices, or an error): follow the handles, free
 * the list. The host reset ends well either way: a device the walk did
 * not find keeps its old handle. */
static int mpt2_walk_end(struct mpt_ctrl *c, int n, const char *err)
{
    struct mpt2_state *s = st(c);

    if (n < 0)
        plat_diag(c->bdf, "after the IOC reset: SAS Device Page 0 not read: %s", err);
    else
        mpt2_follow_handles(c, s->walk.dev, n);
    plat_free(s->walk.dev);
    s->walk.dev = NULL;
    return BM_OK;
}

/* Has the host reset's request (what) been answered with success?
 * HBA_PENDING while not, within its part's bound. A request the IOC
 * never answers keeps its frame (c->tm.outstanding): nothing else uses
 * it until release has reset the IOC. */
static int mpt2_reset_answer(struct mpt_ctrl *c, const char *what, char *err, size_t errlen)
{
    mpt2_drain(c);
    if (!c->tm.done)
        return mpt_reinit_wait(c, what, true, err, errlen);
    c->tm.done = false;
    if ((c->tm.ioc_status & MPI_IOCSTATUS_MASK) != MPI_IOCSTATUS_SUCCESS) {
        snprintf(err, errlen, "%s: IOC status 0x%04x %s", what, c->tm.ioc_status & MPI_IOCSTATUS_MASK,
                 mpt_ioc_status_name(c->tm.ioc_status));
        return BM_EIO;
    }
    return BM_OK;
}

/* The parts of mpt2_reinit_step. */
enum { MPT2_RI_FACTS = 1, MPT2_RI_INIT, MPT2_RI_OPERATIONAL, MPT2_RI_EVENTS, MPT2_RI_PORT_ENABLE, MPT2_RI_DEVICES };

/* After a diagnostic reset, as mpt3sas_base_hard_reset_handler goes on
 * once _base_diag_reset is done, one part per call (poll()), each posted
 * and then looked at again until its bound, the reference driver's:
 * IOC FACTS again (10 s handshake), which must still fit the queues
 * sized from the first ones (_base_check_ioc_facts_changes); the reply
 * free queue refilled and the post queue cleared; IOC INIT (10 s
 * handshake; newer mpt3sas allow 30 s) and OPERATIONAL (30 s); events
 * masked (30 s) and PORT ENABLE (300 s, mpt3sas_port_enable)
 * (_base_make_ioc_operational). */
static int mpt2_reinit_step(struct mpt_ctrl *c, bool start, const char **step, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_ioc_facts_request fr;
    struct mpi2_ioc_init_request ir;
    struct mpi2_default_reply rep;
    struct mpi2_event_notification_request ev;
    struct mpi2_port_enable_request pe;
    const struct mpi2_ioc_facts_reply *old = &s->old_facts;
    int got, rc;

    if (start) {
        s->old_facts = s->facts;
        mpt2_ioc_facts_request(&fr);
        memset(&s->facts, 0, sizeof(s->facts));
        *step = "IOC FACTS";
        return mpt_reinit_post(c, &fr, sizeof(fr), MPT2_RI_FACTS, MPT2_HANDSHAKE_TIMEOUT_NS, err, errlen);
    }
    switch (c->ri.part) {
    case MPT2_RI_FACTS:
        *step = "IOC FACTS";
        got = mpt_reinit_reply(c, &s->facts, sizeof(s->facts), "IOC FACTS", err, errlen);
        if (got == HBA_PENDING)
            return got;
        rc = mpt2_ioc_facts_check(c, got, err, errlen);
        if (rc != BM_OK)
            return rc;
        if (s->facts.request_credit < old->request_credit ||
            s->facts.ioc_request_frame_size != old->ioc_request_frame_size ||
            s->facts.reply_frame_size != old->reply_frame_size ||
            s->facts.max_reply_descriptor_post_queue_depth < s->post_depth) {
            snprintf(err, errlen, "IOC FACTS changed across the reset: %u credits (was %u), frames %u/%u dwords (were "
                     "%u/%u), post queue up to %u", s->facts.request_credit, old->request_credit,
                     s->facts.ioc_request_frame_size, s->facts.reply_frame_size, old->ioc_request_frame_size,
                     old->reply_frame_size, s->facts.max_reply_descriptor_post_queue_depth);
            return BM_EIO;
        }
        mpt2_reset_queues(c);
        mpt2_ioc_init_request(c, &ir);
        *step = "IOC INIT";
        return mpt_reinit_post(c, &ir, sizeof(ir), MPT2_RI_INIT, MPT2_HANDSHAKE_TIMEOUT_NS, err, errlen);
    case MPT2_RI_INIT:
        *step = "IOC INIT";
        memset(&rep, 0, sizeof(rep));
        got = mpt_reinit_reply(c, &rep, sizeof(rep), "IOC INIT", err, errlen);
        if (got == HBA_PENDING)
            return got;
        rc = mpt2_ioc_init_check(got, &rep, err, errlen);
        if (rc != BM_OK)
            return rc;
        mpt_reinit_enter(c, MPT2_RI_OPERATIONAL, MPT2_OPERATIONAL_TIMEOUT_NS);
        *step = "OPERATIONAL";
        return HBA_PENDING;
    case MPT2_RI_OPERATIONAL:
        *step = "OPERATIONAL";
        if (mpt_ioc_state(c) != MPT_IOC_STATE_OPERATIONAL)
            return mpt_reinit_wait(c, "OPERATIONAL after IOC INIT", false, err, errlen);
        mpt2_ioc_operational(c);
        mpt2_event_mask_request(&ev);
        mpt2_reset_request(c, &ev, sizeof(ev));
        mpt_reinit_enter(c, MPT2_RI_EVENTS, MPT2_EVENT_TIMEOUT_NS);
        *step = "EVENT NOTIFICATION";
        return HBA_PENDING;
    case MPT2_RI_EVENTS:
        *step = "EVENT NOTIFICATION";
        rc = mpt2_reset_answer(c, "EVENT NOTIFICATION", err, errlen);
        if (rc != BM_OK)
            return rc;
        memset(&pe, 0, sizeof(pe));
        pe.function = MPI2_FUNCTION_PORT_ENABLE;
        mpt2_reset_request(c, &pe, sizeof(pe));
        mpt_reinit_enter(c, MPT2_RI_PORT_ENABLE, MPT2_PORT_ENABLE_TIMEOUT_NS);
        *step = "PORT ENABLE";
        return HBA_PENDING;
    case MPT2_RI_PORT_ENABLE:
        *step = "PORT ENABLE";
        rc = mpt2_reset_answer(c, "PORT ENABLE", err, errlen);
        if (rc != BM_OK)
            return rc;
        /* The devices again (their handles may have changed), one
         * SAS Device Page 0 per poll, each within mpt3sas' 15 s for a
         * config request. */
        if (!mpt2_walk_begin(c))
            return mpt2_walk_end(c, BM_ENOMEM, "out of memory");
        mpt_reinit_enter(c, MPT2_RI_DEVICES, MPT2_CONFIG_TIMEOUT_NS);
        *step = "SAS Device Page 0";
        return HBA_PENDING;
    case MPT2_RI_DEVICES:
        *step = "SAS Device Page 0";
        mpt2_drain(c);
        if (!c->tm.done) {
            /* A page never answered: its frame stays the IOC's
             * (c->tm.outstanding); the reset ends with the old handles. */
            rc = mpt_reinit_wait(c, "SAS Device Page 0", true, err, errlen);
            if (rc == HBA_PENDING)
                return rc;
            mpt2_walk_end(c, rc, err);
            return rc == BM_ETIMEDOUT ? BM_OK : rc; /* an IOC that left OPERATIONAL is given up */
        }
        c->tm.done = false;
        rc = mpt2_walk_next(c, err, errlen);
        if (rc == HBA_PENDING) {
            mpt_reinit_enter(c, MPT2_RI_DEVICES, MPT2_CONFIG_TIMEOUT_NS);
            return rc;
        }
        return mpt2_walk_end(c, rc, err);
    default:
        snprintf(err, errlen, "IOC bring-up in no known part");
        return BM_EIO;
    }
}

const struct mpt_backend mpt_mpi2_backend = {
    .name = "MPI 2.0",
    .init = mpt2_init,
    .post = mpt2_post,
    .drain = mpt2_drain,
    .destroy = mpt2_destroy,
    .discover = mpt2_discover,
    .tm_post = mpt2_tm_post,
    .reinit_step = mpt2_reinit_step,
};

const struct mpt_backend mpt_mpi25_backend = {
    .name = "MPI 2.5",
    .init = mpt25_init,
    .post = mpt2_post,
    .drain = mpt2_drain,
    .destroy = mpt2_destroy,
    .discover = mpt2_discover,
    .tm_post = mpt2_tm_post,
    .reinit_step = mpt2_reinit_step,
};

