/* MPI 2.0 / 2.5 queueing (SAS2004/2008/2116/2308 and SAS3004/3008 IT
 * firmware, e.g. LSI 9211-8i, Dell H200/H310 and HBA330, LSI 9300-8i).
 *
 * IOC FACTS and IOC INIT still go through the doorbell handshake
 * (mpt_doorbell.c). Everything after that goes through host memory
 * (MPI 2 specification, as Linux mpt3sas_base.c and FreeBSD mps/mpr
 * drive it):
 *   - request frames, one per System Message ID: SMID n's frame sits at
 *     base + n * frame size (SMID 0 is reserved), so slot s uses SMID s+1;
 *   - a 64-bit request descriptor (type, SMID, DevHandle) is written to
 *     RequestDescriptorPostLow then High; the IOC takes it on the high write;
 *   - the IOC answers in the reply descriptor post queue: a SCSI IO
 *     success descriptor (GOOD, everything moved) or an address reply
 *     descriptor naming one of the reply frames lent to it through the
 *     reply free queue. Read descriptors are set back to all ones and the
 *     host tells the IOC how far it read through ReplyPostHostIndex; a
 *     reply frame goes back to the free queue once read (ReplyFreeHostIndex).
 * Configuration, PORT ENABLE and EVENT NOTIFICATION requests use the same
 * queues with default-type descriptors. Everything the IOC reads or writes
 * is below 4 GiB, so every "high address" field is 0.
 */
#include "mpt.h"
#include "mpt_regs.h"
#include "mpi.h"
#include "mpi2.h"
#include "../../efi/time_units.h"

#define MPT2_SLOTS_MAX 512
#define MPT2_MSG_REPLY_BYTES 128        /* copy of an internal request's reply frame */
#define MPT2_HANDSHAKE_TIMEOUT_NS (10 * NS_PER_S)
#define MPT2_OPERATIONAL_TIMEOUT_NS (30 * NS_PER_S)
#define MPT2_EVENT_TIMEOUT_NS (30 * NS_PER_S)
#define MPT2_CONFIG_TIMEOUT_NS (15 * NS_PER_S)       /* Linux mpt3sas config requests: 15 s */
#define MPT2_TM_TIMEOUT_NS (30 * NS_PER_S)           /* Linux mpt3sas task management: 30 s */
#define MPT2_PORT_ENABLE_TIMEOUT_NS (300 * NS_PER_S) /* Linux mpt3sas: 300 s for SAS discovery */
#define MPT2_MAX_DEVICES 128
#define MPT2_HANDLES 0x10000            /* every 16-bit device handle */
#define MPT2_CONFIG_PAGE_BYTES 4096
/* Data per SGE: 64 KiB, the largest segment Linux hands these chips
 * (BLK_MAX_SEGMENT_SIZE; mpt3sas sets no other), so big transfers take
 * the chained SGL shape the firmware sees every day rather than one
 * 1 MiB element. Used only when the IOC's chain depth allows it. */
#define MPT2_MAX_SGE_BYTES (64u * 1024u)
/* Both dwords of an unused reply descriptor (MPI2_RPY_DESCRIPT_UNUSED_WORD0/1_MARK). */
#define MPT2_DESCRIPTOR_UNUSED (((uint64_t)MPI2_RPY_DESCRIPT_UNUSED_WORD << 32) | MPI2_RPY_DESCRIPT_UNUSED_WORD)

struct mpt2_device {
    uint16_t handle, slot, enclosure;
    uint64_t sas_address;
    uint32_t device_info;
    uint8_t access_status;
};

struct mpt2_state {
    bool ieee_sgl;              /* MPI 2.5: IEEE SGEs in SCSI IO */
    struct mpi2_ioc_facts_reply facts;
    uint16_t msg_version;
    uint8_t *req;               /* nslots + 1 request frames (SMID 0 unused) */
    size_t req_bytes;
    uint32_t frame_bytes;
    uint8_t *reply;             /* free_depth reply frames */
    size_t reply_bytes;
    uint32_t reply_frame_bytes;
    uint32_t reply_pa;
    uint32_t *free_q;           /* reply free queue: reply frame addresses */
    size_t free_q_bytes;
    uint32_t free_depth, free_host_index;
    volatile uint64_t *post_q;  /* reply descriptor post queue */
    size_t post_q_bytes;
    uint32_t post_depth, post_host_index;
    uint8_t *msg_reply;         /* MPT2_MSG_REPLY_BYTES per slot */
    uint8_t *chain;             /* chain_segs segments of chain_seg_bytes per slot */
    size_t chain_bytes;
    struct mpt2_sgl_space sgl;  /* geometry; chain and chain_pa set per request */
    uint8_t *page;              /* config page buffer */
    /* Task management: one request at a time in its own frame (SMID
     * nslots + 1, outside the engine's slots, so a full queue can still
     * be aborted). */
    bool tm_outstanding, tm_done;
    struct mpi2_scsi_task_manage_reply tm_reply;
};

/* The MPI 2 backend's state of a controller. */
static struct mpt2_state *st(struct mpt_ctrl *c) { return c->be_state; }

/* The request frame of a slot (SMID slot + 1). */
static uint8_t *mpt2_frame(struct mpt2_state *s, uint32_t slot)
{
    return s->req + (size_t)(slot + 1) * s->frame_bytes;
}

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
static int mpt2_ioc_facts(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_ioc_facts_request req;
    struct mpi2_ioc_facts_reply *f = &s->facts;
    int got;

    memset(&req, 0, sizeof(req));
    memset(f, 0, sizeof(*f));
    req.function = MPI2_FUNCTION_IOC_FACTS;
    got = mpt_handshake(c, &req, sizeof(req), f, sizeof(*f), MPT2_HANDSHAKE_TIMEOUT_NS, err, errlen);
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
static int mpt2_size_queues(struct mpt_ctrl *c, char *err, size_t errlen)
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
static void mpt2_reset_queues(struct mpt_ctrl *c)
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
static int mpt2_alloc(struct mpt_ctrl *c)
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

/* IOC INIT with our queues; then OPERATIONAL, and the host indexes set. */
static int mpt2_ioc_init(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_ioc_init_request req;
    struct mpi2_default_reply rep;
    int got, rc;

    memset(&req, 0, sizeof(req));
    req.who_init = MPI2_WHOINIT_HOST_DRIVER;
    req.function = MPI2_FUNCTION_IOC_INIT;
    req.msg_version = s->msg_version;
    /* The header set the firmware itself was built with (IOC FACTS
     * HeaderVersion): Linux and FreeBSD send their own header set's
     * version, which the firmware accepts from any header set. */
    req.header_version = s->facts.header_version;
    req.system_request_frame_size = (uint16_t)(s->frame_bytes / 4);
    req.reply_descriptor_post_queue_depth = (uint16_t)s->post_depth;
    req.reply_free_queue_depth = (uint16_t)s->free_depth;
    req.sense_buffer_address_high = (uint32_t)(plat_virt_to_phys(c->sense) >> 32);
    req.system_reply_address_high = (uint32_t)(plat_virt_to_phys(s->reply) >> 32);
    req.system_request_frame_base_address = plat_virt_to_phys(s->req);
    req.reply_descriptor_post_queue_address = plat_virt_to_phys((const void *)s->post_q);
    req.reply_free_queue_address = plat_virt_to_phys(s->free_q);
    req.time_stamp = mpt2_time_stamp_ms();
    memset(&rep, 0, sizeof(rep));
    got = mpt_handshake(c, &req, sizeof(req), &rep, sizeof(rep), MPT2_HANDSHAKE_TIMEOUT_NS, err, errlen);
    if (got < 0)
        return got;
    if (got < (int)sizeof(rep) || (rep.ioc_status & MPI_IOCSTATUS_MASK) != MPI_IOCSTATUS_SUCCESS) {
        snprintf(err, errlen, "IOC INIT: IOC status 0x%04x %s (log info 0x%08x)", rep.ioc_status & MPI_IOCSTATUS_MASK,
                 mpt_ioc_status_name(rep.ioc_status), rep.ioc_log_info);
        return BM_EIO;
    }
    rc = mpt_wait_state(c, MPT_IOC_STATE_OPERATIONAL, MPT2_OPERATIONAL_TIMEOUT_NS, err, errlen);
    if (rc != BM_OK)
        return rc;
    c->operational = true;
    /* Linux mpt3sas _base_make_ioc_operational: every frame but one is
     * the IOC's (the free queue index names the last entry filled); the
     * post queue is read from its start. */
    s->free_host_index = s->free_depth - 1;
    s->post_host_index = 0;
    mpt_write(c, MPT2_REG_REPLY_FREE_HOST_INDEX, s->free_host_index);
    mpt_write(c, MPT2_REG_REPLY_POST_HOST_INDEX, 0);
    return BM_OK;
}

/* Free the MPI 2 queues (after the IOC was reset). */
static void mpt2_destroy(struct mpt_ctrl *c)
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

/* ---- Request and reply queues --------------------------------------------------------------------------------- */

/* Post a request descriptor: low dword, then the high one the IOC acts on. */
static void mpt2_post_descriptor(struct mpt_ctrl *c, uint8_t flags, uint32_t slot, uint16_t dev_handle)
{
    uint32_t smid = slot + 1;

    plat_wmb();
    mpt_write(c, MPT2_REG_REQUEST_DESCRIPTOR_POST_LOW, (uint32_t)flags | (smid << 16));
    mpt_write(c, MPT2_REG_REQUEST_DESCRIPTOR_POST_HIGH, (uint32_t)dev_handle << 16);
}

/* Build a SCSI IO request in the slot's frame (and its chain segments)
 * and post it. */
static void mpt2_post(struct mpt_ctrl *c, uint32_t slot, const struct mpt_scsi_io *io)
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
    if (smid == c->nslots + 1 && s->tm_outstanding) {
        memcpy(&s->tm_reply, d, MIN(sizeof(s->tm_reply), (size_t)s->reply_frame_bytes));
        s->tm_outstanding = false;
        s->tm_done = true;
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
static void mpt2_drain(struct mpt_ctrl *c)
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
static int mpt2_message(struct mpt_ctrl *c, const void *req, unsigned req_bytes, void *reply, unsigned reply_cap,
                        uint64_t timeout_ns, const char *what, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    uint64_t deadline = plat_now_ns() + timeout_ns, next_check = 0;
    uint8_t *copy;
    int slot, status;

    if (req_bytes > s->frame_bytes)
        return BM_EINVAL;
    slot = hbaq_get_internal(&c->q, plat_now_ns(), timeout_ns);
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
        if (hbaq_internal_done(&c->q, (uint32_t)slot, &status))
            break;
        /* PORT ENABLE may take minutes: stop at once if the IOC faults. */
        if (plat_now_ns() >= next_check) {
            uint32_t db = mpt_read(c, MPT_REG_DOORBELL);
            if ((db & MPT_IOC_STATE_MASK) != MPT_IOC_STATE_OPERATIONAL) {
                hbaq_abandon(&c->q, (uint32_t)slot);
                snprintf(err, errlen, "%s: IOC left OPERATIONAL: doorbell 0x%08x (%s)", what, db,
                         mpt_ioc_state_name(db));
                return BM_EIO;
            }
            next_check = plat_now_ns() + NS_PER_MS;
        }
        if (plat_now_ns() > deadline) {
            hbaq_abandon(&c->q, (uint32_t)slot);
            snprintf(err, errlen, "%s: no reply within %llu ms (ReplyPostHostIndex %u, doorbell 0x%08x)", what,
                     (unsigned long long)(timeout_ns / NS_PER_MS), s->post_host_index, mpt_read(c, MPT_REG_DOORBELL));
            return BM_ETIMEDOUT;
        }
        __asm__ __volatile__("pause");
    }
    if (!c->results[slot].address_reply) {
        snprintf(err, errlen, "%s: answered without a reply frame", what);
        return BM_EIO;
    }
    memcpy(reply, copy, MIN(reply_cap, (unsigned)MPT2_MSG_REPLY_BYTES));
    return BM_OK;
}

/* An internal request whose reply must say success. */
static int mpt2_message_ok(struct mpt_ctrl *c, const void *req, unsigned req_bytes, uint64_t timeout_ns,
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

/* A task management request for io's device, waited for (Linux mpt3sas
 * mpt3sas_scsih_issue_tm: a high-priority request descriptor, 30 s). */
static int mpt2_task_mgmt(struct mpt_ctrl *c, uint8_t task_type, const struct mpt_scsi_io *io, uint32_t slot,
                          char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_scsi_task_manage_request *r = (struct mpi2_scsi_task_manage_request *)mpt2_frame(s, c->nslots);
    uint64_t deadline = plat_now_ns() + MPT2_TM_TIMEOUT_NS;
    const char *what = task_type == MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK ? "ABORT TASK" : "TARGET RESET";

    if (s->tm_outstanding) {
        snprintf(err, errlen, "%s: an earlier task management request is still unanswered", what);
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
    while (!s->tm_done) {
        uint32_t db = mpt_read(c, MPT_REG_DOORBELL);

        mpt2_drain(c);
        if (s->tm_done)
            break;
        if ((db & MPT_IOC_STATE_MASK) != MPT_IOC_STATE_OPERATIONAL) {
            snprintf(err, errlen, "%s: IOC left OPERATIONAL: doorbell 0x%08x (%s)", what, db, mpt_ioc_state_name(db));
            return BM_EIO;
        }
        if (plat_now_ns() > deadline) {
            snprintf(err, errlen, "%s: no reply within %llu ms (doorbell 0x%08x)", what,
                     (unsigned long long)(MPT2_TM_TIMEOUT_NS / NS_PER_MS), db);
            return BM_ETIMEDOUT;
        }
        __asm__ __volatile__("pause");
    }
    if ((s->tm_reply.ioc_status & MPI_IOCSTATUS_MASK) != MPI_IOCSTATUS_SUCCESS ||
        (s->tm_reply.response_code != MPI2_SCSITASKMGMT_RSP_TM_COMPLETE &&
         s->tm_reply.response_code != MPI2_SCSITASKMGMT_RSP_TM_SUCCEEDED)) {
        snprintf(err, errlen, "%s: IOC status 0x%04x %s, response code 0x%02x", what,
                 s->tm_reply.ioc_status & MPI_IOCSTATUS_MASK, mpt_ioc_status_name(s->tm_reply.ioc_status),
                 s->tm_reply.response_code);
        return BM_EIO;
    }
    return BM_OK;
}

/* ---- Discovery ------------------------------------------------------------------------------------------------- */

/* A configuration page: its type (extended pages name an ext type), number
 * and the version we read it as. */
struct mpt2_page_id {
    uint8_t type, ext_type, number, version;
    const char *what;
};

static const struct mpt2_page_id mpt2_sas_device0 = {
    MPI2_CONFIG_PAGETYPE_EXTENDED, MPI2_CONFIG_EXTPAGETYPE_SAS_DEVICE, 0, MPI2_SASDEVICE0_PAGEVERSION,
    "SAS Device Page 0"
};
static const struct mpt2_page_id mpt2_volume0 = {
    MPI2_CONFIG_PAGETYPE_RAID_VOLUME, 0, 0, MPI2_RAIDVOLPAGE0_PAGEVERSION, "RAID Volume Page 0"
};
static const struct mpt2_page_id mpt2_physdisk0 = {
    MPI2_CONFIG_PAGETYPE_RAID_PHYSDISK, 0, 0, MPI2_RAIDPHYSDISKPAGE0_PAGEVERSION, "RAID Physical Disk Page 0"
};

/* A config request: the page's header (action PAGE_HEADER, hdr NULL) or
 * the page itself into s->page (READ_CURRENT with the header hdr got).
 * Returns the reply's IOC status (>= 0) or a negative error. */
static int mpt2_config(struct mpt_ctrl *c, const struct mpt2_page_id *id, uint8_t action,
                       const struct mpi2_config_reply *hdr, uint32_t page_address, struct mpi2_config_reply *rep,
                       char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_config_request req;
    uint32_t flags = MPI_SGE_FLAGS_SIMPLE_ELEMENT | MPI_SGE_FLAGS_LAST_ELEMENT | MPI_SGE_FLAGS_END_OF_BUFFER |
                     MPI_SGE_FLAGS_END_OF_LIST | MPI_SGE_FLAGS_64_BIT_ADDRESSING;
    int rc;

    memset(&req, 0, sizeof(req));
    req.action = action;
    req.function = MPI2_FUNCTION_CONFIG;
    req.header_page_type = id->type;
    req.ext_page_type = id->ext_type;
    req.header_page_number = id->number;
    req.header_page_version = id->version;
    req.page_address = page_address;
    if (hdr) {
        uint32_t bytes = id->type == MPI2_CONFIG_PAGETYPE_EXTENDED ? (uint32_t)hdr->ext_page_length * 4
                                                                   : (uint32_t)hdr->header_page_length * 4;

        bytes = MIN(bytes, (uint32_t)MPT2_CONFIG_PAGE_BYTES);
        req.ext_page_length = hdr->ext_page_length;
        req.header_page_version = hdr->header_page_version;
        req.header_page_number = hdr->header_page_number;
        req.header_page_length = hdr->header_page_length;
        /* Linux mpt3sas _config_request: one simple SGE, IOC to host. */
        req.page_buffer_sge.flags_length = flags | bytes;
        req.page_buffer_sge.address = plat_virt_to_phys(s->page);
        memset(s->page, 0, bytes);
    } else {
        req.page_buffer_sge.flags_length = flags;
        req.page_buffer_sge.address = ~0ull;
    }
    memset(rep, 0, sizeof(*rep));
    rc = mpt2_message(c, &req, sizeof(req), rep, sizeof(*rep), MPT2_CONFIG_TIMEOUT_NS, id->what, err, errlen);
    if (rc != BM_OK)
        return rc;
    return rep->ioc_status & MPI_IOCSTATUS_MASK;
}

/* The header of a page that must exist (BM_EIO naming it otherwise). */
static int mpt2_page_header(struct mpt_ctrl *c, const struct mpt2_page_id *id, struct mpi2_config_reply *hdr,
                            char *err, size_t errlen)
{
    int ios = mpt2_config(c, id, MPI2_CONFIG_ACTION_PAGE_HEADER, NULL, 0, hdr, err, errlen);
    uint32_t len = id->type == MPI2_CONFIG_PAGETYPE_EXTENDED ? hdr->ext_page_length : hdr->header_page_length;

    if (ios < 0)
        return ios;
    if (ios != MPI_IOCSTATUS_SUCCESS || !len) {
        snprintf(err, errlen, "%s header: IOC status 0x%04x %s, %u dwords", id->what, ios,
                 mpt_ioc_status_name((uint16_t)ios), len);
        return BM_EIO;
    }
    return BM_OK;
}

/* IR firmware's volumes (RAID Volume Page 0 by GET_NEXT_HANDLE, as
 * mpt3sas _scsih_search_responding_raid_devices walks them): each named in
 * a diagnostic and in note (they are not benchmarked natively). Returns
 * how many, or a negative error. */
static int mpt2_raid_volumes(struct mpt_ctrl *c, char *note, size_t note_len, char *err, size_t errlen)
{
    static const char *const types[] = { "RAID0", "RAID1E", "RAID1", "?", "?", "RAID10" };
    struct mpt2_state *s = st(c);
    struct mpi2_config_reply hdr, rep;
    uint32_t handle = 0xffff;
    int n = 0, rc;

    rc = mpt2_page_header(c, &mpt2_volume0, &hdr, err, errlen);
    if (rc != BM_OK)
        return rc;
    for (unsigned guard = 0; guard < 256; guard++) {
        const struct mpi2_raid_volume_page0 *v = (const struct mpi2_raid_volume_page0 *)s->page;
        int ios = mpt2_config(c, &mpt2_volume0, MPI2_CONFIG_ACTION_PAGE_READ_CURRENT, &hdr,
                              MPI2_RAID_VOLUME_PGAD_FORM_GET_NEXT_HANDLE | handle, &rep, err, errlen);
        size_t used = strlen(note);

        if (ios < 0)
            return ios;
        if (ios != MPI_IOCSTATUS_SUCCESS)
            break; /* CONFIG_INVALID_PAGE: past the last volume */
        plat_rmb();
        if (v->dev_handle == 0 || (handle != 0xffff && v->dev_handle <= handle))
            break;
        handle = v->dev_handle;
        plat_diag(c->bdf, "IR RAID volume handle 0x%04x: %s of %u disks, %llu x %u-byte blocks, state %u: not "
                  "benchmarked natively", v->dev_handle, v->volume_type < ARRAY_SIZE(types) ? types[v->volume_type]
                  : "RAID", v->num_phys_disks, (unsigned long long)v->max_lba + 1, v->block_size,
                  v->volume_state);
        snprintf(note + used, note_len - used, "%s%s volume 0x%04x (%u disks)", used ? ", " : "IR RAID volumes "
                 "not benchmarked natively: ", v->volume_type < ARRAY_SIZE(types) ? types[v->volume_type] : "RAID",
                 v->dev_handle, v->num_phys_disks);
        n++;
    }
    return n;
}

/* The device handles IR firmware has made RAID volume members (or hot
 * spares), from RAID Physical Disk Page 0 walked by GET_NEXT_PHYSDISKNUM,
 * as Linux mpt3sas _scsih_search_responding_raid_devices fills pd_handles.
 * members[h] gets the PhysDiskNum + 1 of handle h. Returns how many. */
static int mpt2_raid_members(struct mpt_ctrl *c, uint16_t *members, unsigned cap, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_config_reply hdr, rep;
    uint32_t num = 0xff;
    int n = 0, rc;

    rc = mpt2_page_header(c, &mpt2_physdisk0, &hdr, err, errlen);
    if (rc != BM_OK)
        return rc;
    for (unsigned guard = 0; guard < 256; guard++) {
        const struct mpi2_raid_physdisk_page0 *p = (const struct mpi2_raid_physdisk_page0 *)s->page;
        int ios = mpt2_config(c, &mpt2_physdisk0, MPI2_CONFIG_ACTION_PAGE_READ_CURRENT, &hdr,
                              MPI2_PHYSDISK_PGAD_FORM_GET_NEXT_PHYSDISKNUM | num, &rep, err, errlen);

        if (ios < 0)
            return ios;
        if (ios == MPI2_IOCSTATUS_CONFIG_INVALID_PAGE)
            return n; /* past the last member */
        if (ios != MPI_IOCSTATUS_SUCCESS) {
            snprintf(err, errlen, "RAID Physical Disk Page 0 after %u: IOC status 0x%04x %s", num, ios,
                     mpt_ioc_status_name((uint16_t)ios));
            return BM_EIO;
        }
        plat_rmb();
        if (num != 0xff && p->phys_disk_num <= num) {
            snprintf(err, errlen, "RAID Physical Disk Page 0: disk %u after %u", p->phys_disk_num, num);
            return BM_EIO;
        }
        num = p->phys_disk_num;
        if (p->dev_handle < cap) {
            if (!members[p->dev_handle])
                n++;
            members[p->dev_handle] = (uint16_t)(num + 1);
        }
    }
    return n;
}

/* Is a SAS Device Page 0 entry a target we drive: an end device that
 * speaks SSP or is a SATA drive (Linux mpt3sas _scsih_is_end_device),
 * present and accessible? */
static bool mpt2_is_target(const struct mpi2_sas_device_page0 *p)
{
    uint32_t info = p->device_info;

    if ((info & MPI2_SAS_DEVICE_INFO_DEVICE_TYPE_MASK) != MPI2_SAS_DEVICE_INFO_END_DEVICE)
        return false;
    if (!(info & (MPI2_SAS_DEVICE_INFO_SSP_TARGET | MPI2_SAS_DEVICE_INFO_STP_TARGET |
                  MPI2_SAS_DEVICE_INFO_SATA_DEVICE)))
        return false;
    /* A SATA drive the IOC still has to initialise is accessible, as
     * Linux mpt3sas _scsih_check_access_status treats it. */
    return (p->flags & MPI2_SAS_DEVICE0_FLAGS_DEVICE_PRESENT) &&
           (p->access_status == MPI2_SAS_DEVICE0_ASTATUS_NO_ERRORS ||
            p->access_status == MPI2_SAS_DEVICE0_ASTATUS_SATA_NEEDS_INITIALIZATION);
}

/* Walk SAS Device Page 0 by GET_NEXT_HANDLE and list the end devices. */
static int mpt2_list_devices(struct mpt_ctrl *c, struct mpt2_device *out, unsigned cap, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_config_reply hdr, rep;
    uint32_t handle = 0xffff;
    unsigned n = 0;
    int ios;

    ios = mpt2_page_header(c, &mpt2_sas_device0, &hdr, err, errlen);
    if (ios != BM_OK)
        return ios;
    for (unsigned guard = 0; guard < 0x10000; guard++) {
        const struct mpi2_sas_device_page0 *p = (const struct mpi2_sas_device_page0 *)s->page;

        ios = mpt2_config(c, &mpt2_sas_device0, MPI2_CONFIG_ACTION_PAGE_READ_CURRENT, &hdr,
                          MPI2_SAS_DEVICE_PGAD_FORM_GET_NEXT_HANDLE | handle, &rep, err, errlen);
        if (ios < 0)
            return ios;
        if (ios == MPI2_IOCSTATUS_CONFIG_INVALID_PAGE)
            break; /* past the last handle */
        if (ios != MPI_IOCSTATUS_SUCCESS) {
            plat_diag(c->bdf, "SAS Device Page 0 after handle 0x%04x: IOC status 0x%04x %s", handle, ios,
                      mpt_ioc_status_name((uint16_t)ios));
            break;
        }
        plat_rmb();
        if (p->dev_handle == 0 || (handle != 0xffff && p->dev_handle <= handle)) {
            plat_diag(c->bdf, "SAS Device Page 0: handle 0x%04x after 0x%04x, walk stopped", p->dev_handle,
                      handle);
            break;
        }
        handle = p->dev_handle;
        if (!mpt2_is_target(p)) {
            plat_diag(c->bdf, "handle 0x%04x SAS address %016llx: not a target (info 0x%08x, flags 0x%04x, access "
                      "0x%02x)", p->dev_handle, (unsigned long long)p->sas_address, p->device_info, p->flags,
                      p->access_status);
            continue;
        }
        if (n == cap) {
            plat_diag(c->bdf, "more than %u devices: handle 0x%04x and later skipped", cap, handle);
            break;
        }
        out[n].handle = p->dev_handle;
        out[n].slot = p->slot;
        out[n].enclosure = p->enclosure_handle;
        out[n].sas_address = p->sas_address;
        out[n].device_info = p->device_info;
        out[n].access_status = p->access_status;
        n++;
    }
    return (int)n;
}

/* Mask every event, then enable the ports: the IOC discovers the SAS
 * domain before it answers (mpt3sas _base_make_ioc_operational:
 * _base_event_notification, then mpt3sas_port_enable). */
static int mpt2_enable_ports(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpi2_event_notification_request ev;
    struct mpi2_port_enable_request pe;
    int rc;

    memset(&ev, 0, sizeof(ev));
    ev.function = MPI2_FUNCTION_EVENT_NOTIFICATION;
    for (unsigned i = 0; i < ARRAY_SIZE(ev.event_masks); i++)
        ev.event_masks[i] = ~0u;
    ev.sas_broadcast_primitive_masks = 0xffff;
    ev.sas_notify_primitive_masks = 0xffff;
    rc = mpt2_message_ok(c, &ev, sizeof(ev), MPT2_EVENT_TIMEOUT_NS, "EVENT NOTIFICATION", err, errlen);
    if (rc != BM_OK)
        return rc;
    memset(&pe, 0, sizeof(pe));
    pe.function = MPI2_FUNCTION_PORT_ENABLE;
    return mpt2_message_ok(c, &pe, sizeof(pe), MPT2_PORT_ENABLE_TIMEOUT_NS, "PORT ENABLE", err, errlen);
}

/* Enable the ports, then add a disk for each end device, named by its
 * enclosure slot (or by handle when two enclosures share slot numbers). */
static int mpt2_discover(struct mpt_ctrl *c, struct bm_disk_list *disks, char *err, size_t errlen)
{
    struct mpt2_device *dev;
    uint16_t *members;
    bool members_noted = false;
    int n, rc;

    rc = mpt2_enable_ports(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    dev = plat_alloc(sizeof(*dev) * MPT2_MAX_DEVICES);
    members = plat_alloc(sizeof(*members) * MPT2_HANDLES);
    if (!dev || !members) {
        plat_free(dev);
        plat_free(members);
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    n = mpt2_list_devices(c, dev, MPT2_MAX_DEVICES, err, errlen);
    /* IR firmware: its volume members must never be driven (a write would
     * corrupt the volume; Linux mpt3sas keeps them from the disk driver,
     * no_uld_attach). Unknown membership is no reason to guess: the probe
     * fails and the firmware keeps the controller. */
    if (n >= 0 && (st(c)->facts.ioc_capabilities & MPI2_IOCFACTS_CAPABILITY_INTEGRATED_RAID)) {
        rc = mpt2_raid_members(c, members, MPT2_HANDLES, err, errlen);
        if (rc < 0)
            n = rc;
    }
    if (n < 0) {
        plat_free(dev);
        plat_free(members);
        return n;
    }
    err[0] = '\0';
    if (st(c)->facts.ioc_capabilities & MPI2_IOCFACTS_CAPABILITY_INTEGRATED_RAID) {
        char why[128];
        if (mpt2_raid_volumes(c, err, errlen, why, sizeof(why)) < 0)
            plat_diag(c->bdf, "IR RAID volumes not listed: %s", why);
        if (err[0])
            snprintf(err + strlen(err), errlen - strlen(err), "; ");
    }
    for (int i = 0; i < n; i++) {
        struct mpt_addr a;
        bool slot_shared = false, sata = (dev[i].device_info & MPI2_SAS_DEVICE_INFO_SATA_DEVICE) != 0;

        for (int j = 0; j < n; j++)
            if (j != i && dev[j].slot == dev[i].slot)
                slot_shared = true;
        memset(&a, 0, sizeof(a));
        a.dev_handle = dev[i].handle;
        a.sas_address = dev[i].sas_address;
        a.port = slot_shared ? dev[i].handle : dev[i].slot;
        a.max_qd = sata ? MPT_SATA_QUEUE_DEPTH : MPT_SAS_QUEUE_DEPTH;
        snprintf(a.label, sizeof(a.label), slot_shared ? "h%u" : "s%u", a.port);
        if (members[dev[i].handle]) {
            size_t used = strlen(err);
            plat_diag(c->bdf, "%s (handle 0x%04x, SAS address %016llx, enclosure 0x%04x slot %u, %s) is IR RAID "
                      "physical disk %u: hidden, never read or written natively", a.label, dev[i].handle,
                      (unsigned long long)dev[i].sas_address, dev[i].enclosure, dev[i].slot, sata ? "SATA" : "SAS",
                      members[dev[i].handle] - 1u);
            snprintf(err + used, errlen - used, "%s%s", members_noted ? ", " : "RAID volume members not listed: ",
                     a.label);
            members_noted = true;
            continue;
        }
        plat_diag(c->bdf, "%s: handle 0x%04x, SAS address %016llx, enclosure 0x%04x slot %u, %s", a.label,
                  dev[i].handle, (unsigned long long)dev[i].sas_address, dev[i].enclosure, dev[i].slot,
                  sata ? "SATA" : "SAS");
        if (dev[i].access_status == MPI2_SAS_DEVICE0_ASTATUS_SATA_NEEDS_INITIALIZATION)
            plat_diag(c->bdf, "%s: SATA drive the IOC still initialises (AccessStatus 0x02): used, as mpt3sas does",
                      a.label);
        mpt_add_disks(c, disks, &a);
    }
    if (!members_noted && strlen(err) >= 2 && !strcmp(err + strlen(err) - 2, "; "))
        err[strlen(err) - 2] = '\0';
    if (!n)
        plat_diag(c->bdf, "no end devices in SAS Device Page 0");
    plat_free(dev);
    plat_free(members);
    return BM_OK;
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
    for (unsigned i = 0; i < c->ndisks; i++) {
        struct mpt_disk *md = c->disks[i];
        int j;

        for (j = 0; j < n && dev[j].sas_address != md->sas_address; j++)
            ;
        if (j == n) {
            plat_diag(c->bdf, "%s (SAS address %016llx) not found after the IOC reset", md->d.id,
                      (unsigned long long)md->sas_address);
            continue;
        }
        if (dev[j].handle == md->dev_handle)
            continue;
        plat_diag(c->bdf, "%s (SAS address %016llx): handle 0x%04x after the IOC reset (was 0x%04x)", md->d.id,
                  (unsigned long long)md->sas_address, dev[j].handle, md->dev_handle);
        for (uint32_t slot = 0; slot < c->nslots; slot++)
            if (c->q.slots[slot].state == HBAQ_RETRY && c->q.slots[slot].owner == &md->q)
                c->slot_io[slot].dev_handle = dev[j].handle;
        md->dev_handle = dev[j].handle;
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
    .task_mgmt = mpt2_task_mgmt,
    .reinit = mpt2_reinit,
};

const struct mpt_backend mpt_mpi25_backend = {
    .name = "MPI 2.5",
    .init = mpt25_init,
    .post = mpt2_post,
    .drain = mpt2_drain,
    .destroy = mpt2_destroy,
    .discover = mpt2_discover,
    .task_mgmt = mpt2_task_mgmt,
    .reinit = mpt2_reinit,
};
