/* MPI 2 bring-up through the doorbell handshake: IOC FACTS, the queue sizes
 * and memory they allow, IOC INIT (see mpt_mpi2_types.h). */
#include "mpt_mpi2_types.h"

/* Milliseconds since 1970 for IOC INIT's TimeStamp (the firmware stamps
 * its log with it), from the platform's UTC "YYYY-MM-DDTHH:MM:SSZ". */
static uint64_t mpt2_time_stamp_ms(void)
{
    char iso[32] = "", compact[32];
    unsigned v[6] = { 0 }, n = 0;
    int64_t y, m, d, era, yoe, doy, doe, days;

    plat_time_iso(iso, sizeof(iso), compact, sizeof(compact));
    for (const char *p = iso; *p && n < 6; p++) {
        if (*p >= '0' && *p <= '9') {
            v[n] = v[n] * 10 + (unsigned)(*p - '0');
        } else if (p != iso && p[-1] >= '0' && p[-1] <= '9') {
            n++;
        }
    }
    if (n < 6 || v[0] < 1970 || v[1] < 1 || v[1] > 12)
        return 0;
    /* Days from the civil date (proleptic Gregorian, era of 400 years). */
    y = (int64_t)v[0] - (v[1] <= 2);
    m = v[1];
    d = v[2];
    era = y / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    days = era * 146097 + doe - 719468;
    return ((uint64_t)days * 86400 + v[3] * 3600ull + v[4] * 60ull + v[5]) * 1000ull;
}

/* ---- IOC FACTS and IOC INIT (doorbell handshake) ------------------------------------------------------------- */

/* IOC FACTS: credits, frame sizes, queue limits. */
void mpt2_ioc_facts_request(struct mpi2_ioc_facts_request *req)
{
    memset(req, 0, sizeof(*req));
    req->function = MPI2_FUNCTION_IOC_FACTS;
}

int mpt2_ioc_facts(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_ioc_facts_request req;
    int got;

    mpt2_ioc_facts_request(&req);
    memset(&s->facts, 0, sizeof(s->facts));
    got = mpt_handshake(c, &req, sizeof(req), &s->facts, sizeof(s->facts), MPT2_HANDSHAKE_TIMEOUT_NS, err, errlen);
    return mpt2_ioc_facts_check(c, got, err, errlen);
}

int mpt2_ioc_facts_check(struct mpt_ctrl *c, int got, char *err, size_t errlen)
{
    const struct mpi2_ioc_facts_reply *f = &st(c)->facts;

    if (got < 0)
        return got;
    if (got < (int)sizeof(struct mpi2_default_reply) || f->function != MPI2_FUNCTION_IOC_FACTS) {
        snprintf(err, errlen, "IOC FACTS: reply of %d bytes, function 0x%02x", got, f->function);
        return BM_EIO;
    }
    if ((f->ioc_status & MPI_IOCSTATUS_MASK) != MPI_IOCSTATUS_SUCCESS) {
        snprintf(err, errlen, "IOC FACTS: IOC status 0x%04x %s", f->ioc_status & MPI_IOCSTATUS_MASK,
                 mpt_ioc_status_name(f->ioc_status));
        return BM_EIO;
    }
    if ((f->msg_version >> 8) != 2) {
        snprintf(err, errlen, "IOC FACTS: MPI version %u.%u is not MPI 2", f->msg_version >> 8,
                 f->msg_version & 0xff);
        return BM_ENOTSUP;
    }
    if (f->request_credit < 2 || !f->reply_frame_size || !f->max_reply_descriptor_post_queue_depth ||
        (uint32_t)f->ioc_request_frame_size * 4 < sizeof(struct mpi2_scsi_io_request)) {
        snprintf(err, errlen, "IOC FACTS: %u credits, request frame %u bytes, reply frame %u bytes, post depth %u",
                 f->request_credit, f->ioc_request_frame_size * 4, f->reply_frame_size * 4,
                 f->max_reply_descriptor_post_queue_depth);
        return BM_EIO;
    }
    if ((uint32_t)f->reply_frame_size * 4 < sizeof(struct mpi2_scsi_io_reply)) {
        snprintf(err, errlen, "IOC FACTS: reply frames of %u bytes are too small", f->reply_frame_size * 4);
        return BM_EIO;
    }
    if (!(f->protocol_flags & MPI2_IOCFACTS_PROTOCOL_SCSI_INITIATOR)) {
        snprintf(err, errlen, "IOC FACTS: SCSI initiator protocol off (protocol flags 0x%04x)", f->protocol_flags);
        return BM_ENOTSUP;
    }
    return BM_OK;
}

/* Queue depths (Linux mpt3sas _base_allocate_memory_pools): a reply frame
 * for every request plus 64 for events, a post queue that can hold every
 * reply at once; both multiples of 16 as the IOC requires, the post queue
 * no deeper than IOC FACTS allows. */
int mpt2_size_queues(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    uint32_t max_post = s->facts.max_reply_descriptor_post_queue_depth & ~15u;
    /* One credit stays free for task management (mpt3sas keeps
     * hi_priority_depth apart from scsiio_depth the same way). */
    uint32_t n = MIN((uint32_t)s->facts.request_credit - 1u, (uint32_t)MPT2_SLOTS_MAX);

    for (;;) {
        s->free_depth = ALIGN_UP(n + 64, 16u);
        s->post_depth = ALIGN_UP(n + s->free_depth + 1, 16u);
        if (s->post_depth <= max_post)
            break;
        if (n <= 16) {
            snprintf(err, errlen, "IOC FACTS: reply post queue depth %u is too small",
                     s->facts.max_reply_descriptor_post_queue_depth);
            return BM_EIO;
        }
        n -= 16;
    }
    c->nslots = n;
    s->frame_bytes = (uint32_t)s->facts.ioc_request_frame_size * 4;
    s->reply_frame_bytes = (uint32_t)s->facts.reply_frame_size * 4;
    return BM_OK;
}

/* Chain segments a transfer of MPT_MAX_TRANSFER_BYTES needs with SGEs
 * of max_sge bytes (0: fits in the frame). */
static uint32_t mpt2_chain_segments(const struct mpt2_sgl_space *g, uint32_t max_sge)
{
    uint32_t esz = g->ieee ? 16 : 12;
    uint32_t n = (MPT_MAX_TRANSFER_BYTES + max_sge - 1) / max_sge;
    uint32_t main_cap = (g->frame_bytes - MPI2_SCSIIO_SGL_OFFSET) / esz, seg_cap = g->chain_seg_bytes / esz;
    uint32_t left, segs = 0;

    if (n <= main_cap)
        return 0;
    if (main_cap < 2 || seg_cap < 2)
        return ~0u;
    left = n - (main_cap - 1);
    while (left > seg_cap) {
        left -= seg_cap - 1;
        segs++;
    }
    return segs + 1;
}

/* SGL geometry: 64 KiB SGEs through chain segments when the IOC's chain
 * limits allow, else one SGE per transfer (buffers are contiguous). */
static void mpt2_sgl_geometry(struct mpt_ctrl *c)
{
    struct mpt2_state *s = st(c);
    struct mpt2_sgl_space *g = &s->sgl;
    uint32_t segs;

    memset(g, 0, sizeof(*g));
    g->ieee = s->ieee_sgl;
    g->frame_bytes = s->frame_bytes;
    if (s->ieee_sgl)
        g->chain_seg_bytes = s->facts.ioc_max_chain_segment_size
                                 ? (uint32_t)s->facts.ioc_max_chain_segment_size * MPI25_CHAIN_SEGMENT_UNIT
                                 : MPI25_DEFAULT_CHAIN_SEGMENT_BYTES;
    else
        g->chain_seg_bytes = s->frame_bytes;
    segs = mpt2_chain_segments(g, MPT2_MAX_SGE_BYTES);
    if (segs == ~0u || (s->facts.max_chain_depth && segs > s->facts.max_chain_depth)) {
        plat_diag(c->bdf, "chain limits (segment %u bytes, depth %u): one SGE per transfer",
                  g->chain_seg_bytes, s->facts.max_chain_depth);
        g->max_sge_bytes = MPT_MAX_TRANSFER_BYTES;
        segs = 0;
    } else {
        g->max_sge_bytes = MPT2_MAX_SGE_BYTES;
    }
    g->chain_segs = segs;
}

/* The reply free queue full of reply frames, the post queue all ones
 * (unused), as IOC INIT must find them. */
void mpt2_reset_queues(struct mpt_ctrl *c)
{
    struct mpt2_state *s = st(c);

    for (uint32_t i = 0; i < s->free_depth; i++)
        s->free_q[i] = s->reply_pa + i * s->reply_frame_bytes;
    for (uint32_t i = 0; i < s->post_depth; i++)
        s->post_q[i] = MPT2_DESCRIPTOR_UNUSED;
    plat_wmb();
}

/* Request frames, reply frames, both queues and sense buffers, below
 * 4 GiB; the free queue filled with every reply frame, the post queue all
 * ones (unused). */
int mpt2_alloc(struct mpt_ctrl *c)
{
    struct mpt2_state *s = st(c);

    /* SMID 0 (unused), the engine's SMIDs, the task management SMID. */
    s->req_bytes = ALIGN_UP((size_t)(c->nslots + 2) * s->frame_bytes, (size_t)4096);
    s->reply_bytes = ALIGN_UP((size_t)s->free_depth * s->reply_frame_bytes, (size_t)4096);
    s->free_q_bytes = ALIGN_UP((size_t)s->free_depth * 4, (size_t)4096);
    s->post_q_bytes = ALIGN_UP((size_t)s->post_depth * 8, (size_t)4096);
    c->sense_bytes = ALIGN_UP((size_t)c->nslots * MPT_SENSE_BYTES, (size_t)4096);
    s->req = plat_alloc_pages(s->req_bytes, true);
    s->reply = plat_alloc_pages(s->reply_bytes, true);
    s->free_q = plat_alloc_pages(s->free_q_bytes, true);
    s->post_q = plat_alloc_pages(s->post_q_bytes, true);
    c->sense = plat_alloc_pages(c->sense_bytes, true);
    s->page = plat_alloc_pages(MPT2_CONFIG_PAGE_BYTES, true);
    s->msg_reply = plat_alloc((size_t)c->nslots * MPT2_MSG_REPLY_BYTES);
    mpt2_sgl_geometry(c);
    s->chain_bytes = ALIGN_UP((size_t)c->nslots * s->sgl.chain_segs * s->sgl.chain_seg_bytes, (size_t)4096);
    s->chain = s->chain_bytes ? plat_alloc_pages(s->chain_bytes, true) : NULL;
    if (!s->req || !s->reply || !s->free_q || !s->post_q || !c->sense || !s->page || !s->msg_reply ||
        (s->chain_bytes && !s->chain))
        return BM_ENOMEM;
    memset(s->req, 0, s->req_bytes);
    memset(s->reply, 0, s->reply_bytes);
    s->reply_pa = (uint32_t)plat_virt_to_phys(s->reply);
    mpt2_reset_queues(c);
    return BM_OK;
}

void mpt2_ioc_init_request(struct mpt_ctrl *c, struct mpi2_ioc_init_request *req)
{
    struct mpt2_state *s = st(c);

    memset(req, 0, sizeof(*req));
    req->who_init = MPI2_WHOINIT_HOST_DRIVER;
    req->function = MPI2_FUNCTION_IOC_INIT;
    req->msg_version = s->msg_version;
    /* The header set the firmware itself was built with (IOC FACTS
     * HeaderVersion): Linux and FreeBSD send their own header set's
     * version, which the firmware accepts from any header set. */
    req->header_version = s->facts.header_version;
    req->system_request_frame_size = (uint16_t)(s->frame_bytes / 4);
    req->reply_descriptor_post_queue_depth = (uint16_t)s->post_depth;
    req->reply_free_queue_depth = (uint16_t)s->free_depth;
    req->sense_buffer_address_high = (uint32_t)(plat_virt_to_phys(c->sense) >> 32);
    req->system_reply_address_high = (uint32_t)(plat_virt_to_phys(s->reply) >> 32);
    req->system_request_frame_base_address = plat_virt_to_phys(s->req);
    req->reply_descriptor_post_queue_address = plat_virt_to_phys((const void *)s->post_q);
    req->reply_free_queue_address = plat_virt_to_phys(s->free_q);
    req->time_stamp = mpt2_time_stamp_ms();
}

int mpt2_ioc_init_check(int got, const struct mpi2_default_reply *rep, char *err, size_t errlen)
{
    if (got < 0)
        return got;
    if (got < (int)sizeof(*rep) || (rep->ioc_status & MPI_IOCSTATUS_MASK) != MPI_IOCSTATUS_SUCCESS) {
        snprintf(err, errlen, "IOC INIT: IOC status 0x%04x %s (log info 0x%08x)", rep->ioc_status & MPI_IOCSTATUS_MASK,
                 mpt_ioc_status_name(rep->ioc_status), rep->ioc_log_info);
        return BM_EIO;
    }
    return BM_OK;
}

void mpt2_ioc_operational(struct mpt_ctrl *c)
{
    struct mpt2_state *s = st(c);

    c->operational = true;
    /* Linux mpt3sas _base_make_ioc_operational: every frame but one is
     * the IOC's (the free queue index names the last entry filled); the
     * post queue is read from its start. */
    s->free_host_index = s->free_depth - 1;
    s->post_host_index = 0;
    mpt_write(c, MPT2_REG_REPLY_FREE_HOST_INDEX, s->free_host_index);
    mpt_write(c, MPT2_REG_REPLY_POST_HOST_INDEX, 0);
}

/* IOC INIT with our queues; then OPERATIONAL, and the host indexes set. */
int mpt2_ioc_init(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpi2_ioc_init_request req;
    struct mpi2_default_reply rep;
    int rc;

    mpt2_ioc_init_request(c, &req);
    memset(&rep, 0, sizeof(rep));
    rc = mpt2_ioc_init_check(mpt_handshake(c, &req, sizeof(req), &rep, sizeof(rep), MPT2_HANDSHAKE_TIMEOUT_NS, err,
                                           errlen), &rep, err, errlen);
    if (rc != BM_OK)
        return rc;
    rc = mpt_wait_state(c, MPT_IOC_STATE_OPERATIONAL, MPT2_OPERATIONAL_TIMEOUT_NS, err, errlen);
    if (rc != BM_OK)
        return rc;
    mpt2_ioc_operational(c);
    return BM_OK;
}

/* Free the MPI 2 queues (after the IOC was reset). */
void mpt2_destroy(struct mpt_ctrl *c)
{
    struct mpt2_state *s = st(c);

    if (!s)
        return;
    plat_free_pages(s->req, s->req_bytes);
    plat_free_pages(s->reply, s->reply_bytes);
    plat_free_pages(s->free_q, s->free_q_bytes);
    plat_free_pages((void *)s->post_q, s->post_q_bytes);
    plat_free_pages(s->page, MPT2_CONFIG_PAGE_BYTES);
    plat_free_pages(s->chain, s->chain_bytes);
    plat_free_pages(c->sense, c->sense_bytes);
    plat_free(s->msg_reply);
    c->sense = NULL;
    plat_free(s);
    c->be_state = NULL;
}
