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
 * its reply comes through the reply queue (mpt2_tm_answer). */
static int mpt2_tm_post(struct mpt_ctrl *c, uint8_t task_type, const struct mpt_scsi_io *io, uint32_t slot,
                        char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_scsi_task_manage_request *r = (struct mpi2_scsi_task_manage_request *)mpt2_frame(s, c->nslots);

    if (s->tm_outstanding) {
        snprintf(err, errlen, "an earlier task management request is still unanswered");
        return BM_EBUSY;
    }
    memset(r, 0, s->frame_bytes);
    r->dev_handle = io->dev_handle;
    r->function = MPI2_FUNCTION_SCSI_TASK_MGMT;
    r->task_type = task_type;
    mpt_encode_lun(r->lun, io->lun);
    if (task_type == MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK)
        r->task_mid = (uint16_t)(slot + 1);
    memset(&s->tm_reply, 0, sizeof(s->tm_reply));
    s->tm_done = false;
    s->tm_outstanding = true;
    mpt2_post_descriptor(c, MPI2_REQ_DESCRIPT_FLAGS_HIGH_PRIORITY, c->nslots, 0);
    return BM_OK;
}

/* The task management reply, once the reply queue brought it. */
static bool mpt2_tm_answer(struct mpt_ctrl *c, uint16_t *ioc_status, uint8_t *response_code)
{
    struct mpt2_state *s = st(c);

    if (!s->tm_done)
        return false;
    *ioc_status = s->tm_reply.ioc_status;
    *response_code = s->tm_reply.response_code;
    return true;
}

/* After an IOC reset, find each disk's device again by SAS address and
 * follow a handle the firmware changed, as Linux mpt3sas
 * _scsih_search_responding_sas_devices does (called from
 * _scsih_reset_done_handler); requests waiting for a BUSY retry are
 * addressed to the new handle. A device no longer listed keeps its old
 * handle: its commands end with DEVICE_NOT_THERE. */
static void mpt2_find_devices_again(struct mpt_ctrl *c)
{
    struct mpt2_device *dev = plat_alloc(sizeof(*dev) * MPT2_MAX_DEVICES);
    char err[128];
    int n;

    if (!dev) {
        plat_diag(c->bdf, "after the IOC reset: out of memory to look the devices up again");
        return;
    }
    n = mpt2_list_devices(c, dev, MPT2_MAX_DEVICES, err, sizeof(err));
    if (n < 0) {
        plat_diag(c->bdf, "after the IOC reset: SAS Device Page 0 not read: %s", err);
        plat_free(dev);
        return;
    }
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
    plat_free(dev);
}

/* After a diagnostic reset, as mpt3sas_base_hard_reset_handler goes on
 * once _base_diag_reset is done: IOC FACTS again, which must still fit
 * the queues sized from the first ones (_base_check_ioc_facts_changes),
 * the reply free queue refilled and the post queue cleared, IOC INIT,
 * events masked and PORT ENABLE (_base_make_ioc_operational), then every
 * disk's device looked up again by SAS address. */
static int mpt2_reinit(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_ioc_facts_reply old = s->facts;
    int rc;

    s->tm_outstanding = s->tm_done = false;
    rc = mpt2_ioc_facts(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    if (s->facts.request_credit < old.request_credit || s->facts.ioc_request_frame_size != old.ioc_request_frame_size ||
        s->facts.reply_frame_size != old.reply_frame_size ||
        s->facts.max_reply_descriptor_post_queue_depth < s->post_depth) {
        snprintf(err, errlen, "IOC FACTS changed across the reset: %u credits (was %u), frames %u/%u dwords (were "
                 "%u/%u), post queue up to %u", s->facts.request_credit, old.request_credit,
                 s->facts.ioc_request_frame_size, s->facts.reply_frame_size, old.ioc_request_frame_size,
                 old.reply_frame_size, s->facts.max_reply_descriptor_post_queue_depth);
        return BM_EIO;
    }
    mpt2_reset_queues(c);
    rc = mpt2_ioc_init(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    rc = mpt2_enable_ports(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    mpt2_find_devices_again(c);
    return BM_OK;
}

const struct mpt_backend mpt_mpi2_backend = {
    .name = "MPI 2.0",
    .init = mpt2_init,
    .post = mpt2_post,
    .drain = mpt2_drain,
    .destroy = mpt2_destroy,
    .discover = mpt2_discover,
    .tm_post = mpt2_tm_post,
    .tm_answer = mpt2_tm_answer,
    .reinit = mpt2_reinit,
};

const struct mpt_backend mpt_mpi25_backend = {
    .name = "MPI 2.5",
    .init = mpt25_init,
    .post = mpt2_post,
    .drain = mpt2_drain,
    .destroy = mpt2_destroy,
    .discover = mpt2_discover,
    .tm_post = mpt2_tm_post,
    .tm_answer = mpt2_tm_answer,
    .reinit = mpt2_reinit,
};

