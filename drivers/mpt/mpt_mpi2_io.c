/* MPI 2 request and reply queues: request descriptors, SCSI IO, the reply
 * descriptor post queue and reply frames, internal requests waited for
 * (see mpt_mpi2_types.h). */
#include "mpt_mpi2_types.h"

/* ---- Request and reply queues --------------------------------------------------------------------------------- */

/* Post a request descriptor: the whole 64 bits in one write to the low
 * register, as mpt3sas _base_writeq() on 64-bit kernels (writeq); 32-bit
 * hosts write the low dword, then the high one the IOC acts on. Each
 * descriptor names one SMID: one write per request, never fewer. */
void mpt2_post_descriptor(struct mpt_ctrl *c, uint8_t flags, uint32_t slot, uint16_t dev_handle)
{
    uint32_t smid = slot + 1;

    plat_wmb();
    mmio_write64_whole(c->regs, MPT2_REG_REQUEST_DESCRIPTOR_POST_LOW,
                       (uint64_t)dev_handle << 48 | smid << 16 | flags);
}

/* A request of the host reset's own through the task management frame
 * (no task management is out during a reset: the diagnostic reset ended
 * it), with a default descriptor, not waited for: its reply is c->tm. */
void mpt2_reset_request(struct mpt_ctrl *c, const void *req, unsigned req_bytes)
{
    struct mpt2_state *s = st(c);
    uint8_t *f = mpt2_frame(s, c->nslots);

    memset(f, 0, s->frame_bytes);
    memcpy(f, req, req_bytes);
    memset(&c->tm, 0, sizeof(c->tm));
    c->tm.outstanding = true;
    mpt2_post_descriptor(c, MPI2_REQ_DESCRIPT_FLAGS_DEFAULT_TYPE, c->nslots, 0);
}

/* Build a SCSI IO request in the slot's frame (and its chain segments)
 * and post it. */
void mpt2_post(struct mpt_ctrl *c, uint32_t slot, const struct mpt_scsi_io *io)
{
    struct mpt2_state *s = st(c);
    struct mpt2_sgl_space sp = s->sgl;
    size_t per_slot = (size_t)sp.chain_segs * sp.chain_seg_bytes;

    if (per_slot) {
        sp.chain = s->chain + (size_t)slot * per_slot;
        sp.chain_pa = plat_virt_to_phys(sp.chain);
    }
    if (!mpt2_build_scsi_io(mpt2_frame(s, slot), io, &sp)) {
        /* Sized so that it cannot happen; fail the command, not the IOC. */
        struct mpt_result r = { .ioc_status = MPI_IOCSTATUS_INVALID_SGL };
        plat_diag(c->bdf, "request %u: SGL for %u bytes does not fit", slot, io->data_len);
        mpt_slot_done(c, slot, &r);
        return;
    }
    mpt2_post_descriptor(c, MPI2_REQ_DESCRIPT_FLAGS_SCSI_IO, slot, io->dev_handle);
}

/* Give a reply frame back through the reply free queue. */
static void mpt2_free_reply(struct mpt_ctrl *c, uint32_t pa)
{
    struct mpt2_state *s = st(c);

    s->free_host_index = s->free_host_index + 1 == s->free_depth ? 0 : s->free_host_index + 1;
    s->free_q[s->free_host_index] = pa;
    plat_wmb();
    mpt_write(c, MPT2_REG_REPLY_FREE_HOST_INDEX, s->free_host_index);
}

/* An address reply: decode it for its slot, then return the frame. */
static void mpt2_address_reply(struct mpt_ctrl *c, uint32_t smid, uint32_t pa)
{
    struct mpt2_state *s = st(c);
    uint32_t off = pa - s->reply_pa;
    const struct mpi2_default_reply *d;
    struct mpt_result res;

    if (pa < s->reply_pa || off >= s->free_depth * s->reply_frame_bytes || off % s->reply_frame_bytes) {
        plat_diag(c->bdf, "reply at 0x%08x is not one of our reply frames", pa);
        return;
    }
    plat_rmb();
    d = (const struct mpi2_default_reply *)(s->reply + off);
    if (smid == c->nslots + 1 && c->tm.outstanding) {
        /* Task management's frame (or a host reset's EVENT NOTIFICATION /
         * PORT ENABLE in it): IOCStatus sits at 0x0e in every reply. */
        c->tm.ioc_status = d->ioc_status;
        memcpy(&s->tm_reply, d, MIN(sizeof(s->tm_reply), (size_t)s->reply_frame_bytes));
        c->tm.response_code = ((const struct mpi2_scsi_task_manage_reply *)(const void *)d)->response_code;
        c->tm.outstanding = false;
        c->tm.done = true;
        mpt2_free_reply(c, pa);
        return;
    }
    if (smid == 0 || smid > c->nslots) {
        /* SMID 0: an event notification or other unsolicited reply; we
         * masked every event, so just note it. */
        plat_diag(c->bdf, "unsolicited reply (function 0x%02x, SMID %u)", d->function, smid);
        mpt2_free_reply(c, pa);
        return;
    }
    memset(&res, 0, sizeof(res));
    res.address_reply = true;
    res.ioc_status = d->ioc_status & MPI_IOCSTATUS_MASK;
    res.ioc_log_info = (d->ioc_status & MPI_IOCSTATUS_LOG_INFO_AVAILABLE) ? d->ioc_log_info : 0;
    if (d->function == MPI2_FUNCTION_SCSI_IO_REQUEST) {
        const struct mpi2_scsi_io_reply *r = (const struct mpi2_scsi_io_reply *)d;
        res.scsi_status = r->scsi_status;
        res.scsi_state = r->scsi_state;
        res.transfer_count = r->transfer_count;
        res.sense_count = r->sense_count;
    } else {
        /* Internal requests read their reply after completion. */
        memcpy(s->msg_reply + (size_t)(smid - 1) * MPT2_MSG_REPLY_BYTES, d,
               MIN((uint32_t)MPT2_MSG_REPLY_BYTES, s->reply_frame_bytes));
    }
    /* Return the frame before completing: the completion may let the
     * caller post the next request, which needs a frame to answer into. */
    mpt2_free_reply(c, pa);
    mpt_slot_done(c, smid - 1, &res);
}

/* Read the reply descriptor post queue until an unused descriptor. */
void mpt2_drain(struct mpt_ctrl *c)
{
    struct mpt2_state *s = st(c);
    unsigned n = 0;

    while (n < s->post_depth) {
        /* One 64-bit read, as the IOC writes a descriptor whole. */
        uint64_t w = s->post_q[s->post_host_index];
        uint32_t lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
        uint32_t type = lo & MPI2_RPY_DESCRIPT_FLAGS_TYPE_MASK, smid = lo >> 16;

        if (type == MPI2_RPY_DESCRIPT_FLAGS_UNUSED || w == MPT2_DESCRIPTOR_UNUSED)
            break;
        plat_rmb();
        /* Mark it unused before acting: the IOC may wrap around to it. */
        s->post_q[s->post_host_index] = MPT2_DESCRIPTOR_UNUSED;
        s->post_host_index = s->post_host_index + 1 == s->post_depth ? 0 : s->post_host_index + 1;
        n++;
        switch (type) {
        case MPI2_RPY_DESCRIPT_FLAGS_SCSI_IO_SUCCESS:
        case MPI25_RPY_DESCRIPT_FLAGS_FAST_PATH_SCSI_IO_SUCCESS:
            if (smid == 0 || smid > c->nslots)
                plat_diag(c->bdf, "success descriptor for SMID %u", smid);
            else
                mpt_slot_done(c, smid - 1, NULL);
            break;
        case MPI2_RPY_DESCRIPT_FLAGS_ADDRESS_REPLY:
            mpt2_address_reply(c, smid, hi);
            break;
        default:
            plat_diag(c->bdf, "reply descriptor of type 0x%x (0x%08x 0x%08x) ignored", type, lo, hi);
            break;
        }
    }
    if (n) {
        plat_wmb();
        mpt_write(c, MPT2_REG_REPLY_POST_HOST_INDEX, s->post_host_index);
    }
}

/* Send a non-SCSI request through the request queue and wait for its
 * reply frame (copied to reply). The slot stays held if the IOC never
 * answers, so a late reply cannot land on a reused frame. */
int mpt2_message(struct mpt_ctrl *c, const void *req, unsigned req_bytes, void *reply, unsigned reply_cap,
                 uint64_t timeout_ns, const char *what, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    uint64_t deadline = plat_now_ns() + timeout_ns, next_check = 0;
    uint8_t *copy;
    int slot, status;

    if (req_bytes > s->frame_bytes)
        return BM_EINVAL;
    slot = hbaq_get_internal(&c->h.q, plat_now_ns(), timeout_ns);
    if (slot < 0) {
        snprintf(err, errlen, "%s: no free request frame", what);
        return slot;
    }
    copy = s->msg_reply + (size_t)slot * MPT2_MSG_REPLY_BYTES;
    memset(copy, 0, MPT2_MSG_REPLY_BYTES);
    c->slot_bytes[slot] = 0;
    memset(mpt2_frame(s, (uint32_t)slot), 0, s->frame_bytes);
    memcpy(mpt2_frame(s, (uint32_t)slot), req, req_bytes);
    mpt2_post_descriptor(c, MPI2_REQ_DESCRIPT_FLAGS_DEFAULT_TYPE, (uint32_t)slot, 0);
    for (;;) {
        mpt2_drain(c);
        if (hbaq_internal_done(&c->h.q, (uint32_t)slot, &status))
            break;
        /* PORT ENABLE may take minutes: stop at once if the IOC faults. */
        if (plat_now_ns() >= next_check) {
            uint32_t db = mpt_read(c, MPT_REG_DOORBELL);
            if ((db & MPT_IOC_STATE_MASK) != MPT_IOC_STATE_OPERATIONAL) {
                hbaq_abandon(&c->h.q, (uint32_t)slot);
                snprintf(err, errlen, "%s: IOC left OPERATIONAL: doorbell 0x%08x (%s)", what, db,
                         mpt_ioc_state_name(db));
                return BM_EIO;
            }
            next_check = plat_now_ns() + NS_PER_MS;
        }
        if (plat_now_ns() > deadline) {
            hbaq_abandon(&c->h.q, (uint32_t)slot);
            snprintf(err, errlen, "%s: no reply within %llu ms (ReplyPostHostIndex %u, doorbell 0x%08x)", what,
                     (unsigned long long)(timeout_ns / NS_PER_MS), s->post_host_index, mpt_read(c, MPT_REG_DOORBELL));
            return BM_ETIMEDOUT;
        }
        plat_cpu_relax();
    }
    if (!c->results[slot].address_reply) {
        snprintf(err, errlen, "%s: answered without a reply frame", what);
        return BM_EIO;
    }
    memcpy(reply, copy, MIN(reply_cap, (unsigned)MPT2_MSG_REPLY_BYTES));
    return BM_OK;
}

/* An internal request whose reply must say success. */
int mpt2_message_ok(struct mpt_ctrl *c, const void *req, unsigned req_bytes, uint64_t timeout_ns,
                    const char *what, char *err, size_t errlen)
{
    struct mpi2_default_reply rep;
    int rc = mpt2_message(c, req, req_bytes, &rep, sizeof(rep), timeout_ns, what, err, errlen);

    if (rc != BM_OK)
        return rc;
    if ((rep.ioc_status & MPI_IOCSTATUS_MASK) != MPI_IOCSTATUS_SUCCESS) {
        snprintf(err, errlen, "%s: IOC status 0x%04x %s (log info 0x%08x)", what, rep.ioc_status & MPI_IOCSTATUS_MASK,
                 mpt_ioc_status_name(rep.ioc_status), rep.ioc_log_info);
        return BM_EIO;
    }
    return BM_OK;
}
