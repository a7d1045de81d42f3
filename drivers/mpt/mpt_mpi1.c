/* MPI 1.5 queueing (SAS1064/1068/1068E/1078 IT firmware; QEMU mptsas1068).
 *
 * Request frames live in host memory; the host posts a frame's address to
 * the request FIFO. The IOC answers through the reply FIFO with either a
 * context reply (the request's MsgContext: success, nothing more to say)
 * or an address reply (bit 31 set, address >> 1 of one of the reply
 * frames we lent it through the reply free FIFO) carrying IOC status,
 * SCSI status and state; the host returns each reply frame to the free
 * FIFO once read. IOC FACTS, IOC INIT, PORT FACTS and PORT ENABLE go
 * through the doorbell handshake. All frames, replies and sense buffers
 * sit below 4 GiB, so the "high address" registers are 0.
 */
#include "mpt_types.h"
#include "mpt_regs.h"
#include "mpi.h"
#include "../../efi/time_units.h"

#define MPT1_REQ_FRAME_BYTES 128    /* Linux MPT_DEFAULT_FRAME_SIZE; our SCSI IO uses 60 */
#define MPT1_REPLY_FRAME_BYTES 128
#define MPT1_SLOTS_MAX 1024
#define MPT1_HANDSHAKE_TIMEOUT_NS (10 * NS_PER_S)
/* PORT ENABLE answers once the port's devices are discovered: Linux
 * mptbase SendPortEnable allows a SAS (or IR) IOC 300 s. Past it Linux
 * gives up: mpt_handshake_req_reply_wait fails, so SendIocInit and
 * mpt_do_ioc_recovery fail and mpt_HardResetHandler reports the reset
 * FAILED. So do we: the host reset gives the IOC up, its record naming
 * PORT ENABLE and the wait that ran out; from poll() the wait is a part of
 * the host reset, looked at on each call (mpt1_reinit_step). */
#define MPT1_PORT_ENABLE_TIMEOUT_NS (300 * NS_PER_S)
#define MPT1_OPERATIONAL_TIMEOUT_NS (30 * NS_PER_S)

struct mpt1_state {
    uint8_t *req;               /* nslots request frames */
    size_t req_bytes;
    uint8_t *reply;             /* nreply reply frames */
    size_t reply_bytes;
    uint32_t nreply;
    uint32_t reply_pa;          /* physical address of reply frame 0 */
    uint8_t *host_page;         /* buffer some IOCs ask for in IOC FACTS */
    size_t host_page_bytes;
    unsigned nb_shift;          /* Linux NBShiftFactor, from BlockSize */
    struct mpi_ioc_facts_reply facts;
    struct mpi_ioc_facts_reply old_facts; /* before a host reset, to compare */
    /* Task management (c->tm): frame nslots, MsgContext nslots (no engine slot). */
};

/* The MPI 1 backend's state of a controller. */
static struct mpt1_state *st(struct mpt_ctrl *c) { return c->be_state; }

/* A handshake reply of a sane length with a success IOC status. */
static int mpt1_check_reply(struct mpt_ctrl *c, const char *what, int got, uint16_t ioc_status, char *err,
                            size_t errlen)
{
    if (got < (int)sizeof(struct mpi_default_reply)) {
        snprintf(err, errlen, "%s: reply of %d bytes", what, got);
        return BM_EIO;
    }
    if ((ioc_status & MPI_IOCSTATUS_MASK) != MPI_IOCSTATUS_SUCCESS) {
        snprintf(err, errlen, "%s: IOC status 0x%04x %s", what, ioc_status & MPI_IOCSTATUS_MASK,
                 mpt_ioc_status_name(ioc_status));
        return BM_EIO;
    }
    return BM_OK;
}

static int mpt1_ioc_facts_check(struct mpt_ctrl *c, int got, char *err, size_t errlen);

/* IOC FACTS: frame sizes, credits, queue depths, ports. */
static int mpt1_ioc_facts(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpi_ioc_facts_request req;
    struct mpi_ioc_facts_reply *f = &st(c)->facts;
    int got;

    memset(&req, 0, sizeof(req));
    memset(f, 0, sizeof(*f));
    req.function = MPI_FUNCTION_IOC_FACTS;
    got = mpt_handshake(c, &req, sizeof(req), f, sizeof(*f), MPT1_HANDSHAKE_TIMEOUT_NS, err, errlen);
    return mpt1_ioc_facts_check(c, got, err, errlen);
}

/* An IOC FACTS reply of got bytes (in the state's facts): sane? */
static int mpt1_ioc_facts_check(struct mpt_ctrl *c, int got, char *err, size_t errlen)
{
    const struct mpi_ioc_facts_reply *f = &st(c)->facts;

    if (got < 0)
        return got;
    if (mpt1_check_reply(c, "IOC FACTS", got, f->ioc_status, err, errlen) != BM_OK)
        return BM_EIO;
    if (!f->request_frame_size || f->global_credits < 2 || !f->reply_queue_depth || !f->block_size) {
        snprintf(err, errlen, "IOC FACTS: frame size %u dwords, %u credits, reply depth %u, block %u",
                 f->request_frame_size, f->global_credits, f->reply_queue_depth, f->block_size);
        return BM_EIO;
    }
    if ((uint32_t)f->request_frame_size * 4 < sizeof(struct mpi_scsi_io_request)) {
        snprintf(err, errlen, "IOC FACTS: request frames of %u bytes are too small", f->request_frame_size * 4);
        return BM_EIO;
    }
    return BM_OK;
}

/* Request, reply and sense memory, sized from the facts. */
static int mpt1_alloc(struct mpt_ctrl *c)
{
    struct mpt1_state *s = st(c);
    uint32_t hp = s->facts.host_page_buffer_sge.flags_length & MPI_SGE_LENGTH_MASK;

    /* Reply frames: no more than the reply queue holds (Linux mptbase
     * reply_depth) and never more than GlobalCredits - 1 (FreeBSD mpt
     * mpt_configure_ioc: "Do *not* exceed global credits"). One per
     * outstanding request: every request may end in an address reply at
     * the same moment. */
    s->nreply = MIN((uint32_t)s->facts.reply_queue_depth, (uint32_t)MPT1_SLOTS_MAX);
    s->nreply = MIN(s->nreply, (uint32_t)s->facts.global_credits - 1u);
    c->nslots = MIN((uint32_t)s->facts.global_credits, s->nreply);
    /* One frame more than the slots: task management's own. */
    s->req_bytes = ALIGN_UP((size_t)(c->nslots + 1) * MPT1_REQ_FRAME_BYTES, (size_t)4096);
    s->reply_bytes = ALIGN_UP((size_t)s->nreply * MPT1_REPLY_FRAME_BYTES, (size_t)4096);
    c->sense_bytes = ALIGN_UP((size_t)c->nslots * MPT_SENSE_BYTES, (size_t)4096);
    s->req = plat_alloc_pages(s->req_bytes, true);
    s->reply = plat_alloc_pages(s->reply_bytes, true);
    c->sense = plat_alloc_pages(c->sense_bytes, true);
    if (!s->req || !s->reply || !c->sense)
        return BM_ENOMEM;
    s->reply_pa = (uint32_t)plat_virt_to_phys(s->reply);
    if (hp) {
        s->host_page_bytes = ALIGN_UP((size_t)hp, (size_t)4096);
        s->host_page = plat_alloc_pages(s->host_page_bytes, true);
        if (!s->host_page)
            return BM_ENOMEM;
    }
    return BM_OK;
}

/* The IOC INIT request: frame sizes and addresses. */
static void mpt1_ioc_init_request(struct mpt_ctrl *c, struct mpi_ioc_init_request *req)
{
    struct mpt1_state *s = st(c);

    memset(req, 0, sizeof(*req));
    req->who_init = MPI_WHOINIT_HOST_DRIVER;
    req->function = MPI_FUNCTION_IOC_INIT;
    req->max_devices = s->facts.max_devices;
    req->max_buses = s->facts.max_buses ? s->facts.max_buses : 1;
    req->reply_frame_size = MPT1_REPLY_FRAME_BYTES;
    req->host_mfa_high_addr = 0;
    req->sense_buffer_high_addr = 0;
    req->msg_version = MPI_VERSION_1_5;
    req->header_version = MPI_HEADER_VERSION;
    if (s->host_page) {
        /* Linux mpt_host_page_alloc: a simple host-to-IOC buffer. */
        req->host_page_buffer_sge.flags_length = MPI_SGE_FLAGS_SIMPLE_ELEMENT | MPI_SGE_FLAGS_END_OF_BUFFER |
                                                 MPI_SGE_FLAGS_HOST_TO_IOC | MPI_SGE_FLAGS_64_BIT_ADDRESSING |
                                                 (uint32_t)s->host_page_bytes;
        req->host_page_buffer_sge.addr = plat_virt_to_phys(s->host_page);
    }
}

/* IOC INIT: hand over frame sizes and addresses, wait for OPERATIONAL. */
static int mpt1_ioc_init(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpi_ioc_init_request req;
    struct mpi_default_reply rep;
    int got;

    mpt1_ioc_init_request(c, &req);
    memset(&rep, 0, sizeof(rep));
    got = mpt_handshake(c, &req, sizeof(req), &rep, sizeof(rep), MPT1_HANDSHAKE_TIMEOUT_NS, err, errlen);
    if (got < 0)
        return got;
    if (mpt1_check_reply(c, "IOC INIT", got, rep.ioc_status, err, errlen) != BM_OK)
        return BM_EIO;
    return mpt_wait_state(c, MPT_IOC_STATE_OPERATIONAL, MPT1_OPERATIONAL_TIMEOUT_NS, err, errlen);
}

/* PORT FACTS then PORT ENABLE on every port. */
static int mpt1_ports(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt1_state *s = st(c);
    unsigned ports = MAX(1u, MIN((unsigned)s->facts.number_of_ports, 8u));
    uint32_t max_targets = s->facts.max_devices ? s->facts.max_devices : 256;

    for (unsigned p = 0; p < ports; p++) {
        struct mpi_port_request req;
        struct mpi_port_facts_reply pf;
        int got;

        memset(&req, 0, sizeof(req));
        req.function = MPI_FUNCTION_PORT_FACTS;
        req.port_number = (uint8_t)p;
        memset(&pf, 0, sizeof(pf));
        got = mpt_handshake(c, &req, sizeof(req), &pf, sizeof(pf), MPT1_HANDSHAKE_TIMEOUT_NS, err, errlen);
        if (got < 0)
            return got;
        if (mpt1_check_reply(c, "PORT FACTS", got, pf.ioc_status, err, errlen) != BM_OK)
            return BM_EIO;
        if (p == 0) {
            if (pf.max_devices)
                max_targets = MIN(max_targets, (uint32_t)pf.max_devices);
            c->port_id = pf.port_scsi_id;
            plat_diag(c->bdf, "port 0: type 0x%02x, %u devices, IOC id %u, protocols 0x%04x", pf.port_type,
                      pf.max_devices, pf.port_scsi_id, pf.protocol_flags);
        }
    }
    c->max_targets = MIN(max_targets, 256u);
    for (unsigned p = 0; p < ports; p++) {
        struct mpi_port_request req;
        struct mpi_default_reply rep;
        int got;

        memset(&req, 0, sizeof(req));
        req.function = MPI_FUNCTION_PORT_ENABLE;
        req.port_number = (uint8_t)p;
        memset(&rep, 0, sizeof(rep));
        /* The IOC answers once it has discovered the port's devices. */
        got = mpt_handshake(c, &req, sizeof(req), &rep, sizeof(rep), MPT1_PORT_ENABLE_TIMEOUT_NS, err, errlen);
        if (got < 0)
            return got;
        if (mpt1_check_reply(c, "PORT ENABLE", got, rep.ioc_status, err, errlen) != BM_OK)
            return BM_EIO;
    }
    return BM_OK;
}

/* Free the MPI 1 queues (after the IOC was reset). */
static void mpt1_destroy(struct mpt_ctrl *c)
{
    struct mpt1_state *s = st(c);

    if (!s)
        return;
    plat_free_pages(s->req, s->req_bytes);
    plat_free_pages(s->reply, s->reply_bytes);
    plat_free_pages(s->host_page, s->host_page_bytes);
    plat_free_pages(c->sense, c->sense_bytes);
    c->sense = NULL;
    plat_free(s);
    c->be_state = NULL;
}

/* Bring an IOC in READY state to OPERATIONAL with our queues. */
static int mpt1_init(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt1_state *s;
    unsigned shift = 1;
    int rc;

    s = plat_alloc(sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    c->be_state = s;
    rc = mpt1_ioc_facts(c, err, errlen);
    if (rc != BM_OK)
        goto err;
    /* Linux mptbase GetIocFacts: NBShiftFactor starts at 1 and adds the
     * bit length of BlockSize (dwords), so a block of BlockSize * 4 bytes
     * is 1 << NBShiftFactor for the usual powers of two (8 dwords: 5). */
    for (unsigned b = s->facts.block_size; b; b >>= 1)
        shift++;
    s->nb_shift = shift;
    plat_diag(c->bdf, "MPI %u.%u, firmware %u.%u.%u.%u, %u credits, reply depth %u, %u ports, %u devices",
              s->facts.msg_version >> 8, s->facts.msg_version & 0xff, s->facts.fw_version_major,
              s->facts.fw_version_minor, s->facts.fw_version_unit, s->facts.fw_version_dev, s->facts.global_credits,
              s->facts.reply_queue_depth, s->facts.number_of_ports, s->facts.max_devices);
    rc = mpt1_alloc(c);
    if (rc != BM_OK) {
        snprintf(err, errlen, "out of memory below 4 GiB for %u request frames", c->nslots);
        goto err;
    }
    rc = mpt1_ioc_init(c, err, errlen);
    if (rc != BM_OK)
        goto err;
    c->operational = true;
    /* Lend the IOC every reply frame. */
    for (uint32_t i = 0; i < s->nreply; i++)
        mpt_write(c, MPT_REG_REPLY_FIFO, s->reply_pa + i * MPT1_REPLY_FRAME_BYTES);
    rc = mpt1_ports(c, err, errlen);
    if (rc != BM_OK)
        goto err;
    return BM_OK;
err:
    /* The caller resets the IOC (if it got operational) and calls destroy. */
    return rc;
}

/* Build a SCSI IO request in the slot's frame and post it. */
static void mpt1_post(struct mpt_ctrl *c, uint32_t slot, const struct mpt_scsi_io *io)
{
    struct mpt1_state *s = st(c);
    uint8_t *frame = s->req + (size_t)slot * MPT1_REQ_FRAME_BYTES;
    unsigned used = mpt1_build_scsi_io(frame, io, slot);
    /* Linux mptscsih_AddSGE: the low two address bits tell the IOC how
     * much of the frame to fetch first. */
    uint32_t nb = (((used - 1) >> s->nb_shift) + 1) & 0x03;

    plat_wmb();
    mpt_write(c, MPT_REG_REQUEST_FIFO, (uint32_t)plat_virt_to_phys(frame) | nb);
}

/* Read the reply FIFO until it is empty. */
static void mpt1_drain(struct mpt_ctrl *c)
{
    struct mpt1_state *s = st(c);

    for (int budget = 0; budget < 4096; budget++) {
        uint32_t v = mpt_read(c, MPT_REG_REPLY_FIFO);

        if (v == MPT_REPLY_FIFO_EMPTY)
            return;
        if (!(v & MPT_REPLY_ADDRESS_BIT)) {
            /* Context reply: the request finished without anything to report. */
            if ((v & MPT_CONTEXT_REPLY_CONTEXT_MASK) == c->nslots && c->tm.outstanding) {
                c->tm.ioc_status = 0;
                c->tm.outstanding = false;
                c->tm.done = true;
                continue;
            }
            mpt_slot_done(c, v & MPT_CONTEXT_REPLY_CONTEXT_MASK, NULL);
            continue;
        }
        {
            uint32_t pa = v << 1, off = pa - s->reply_pa;
            const struct mpi_scsi_io_reply *r;
            struct mpt_result res;

            if (pa < s->reply_pa || off >= s->nreply * MPT1_REPLY_FRAME_BYTES || off % MPT1_REPLY_FRAME_BYTES) {
                plat_diag(c->bdf, "reply at 0x%08x is not one of our reply frames", pa);
                continue;
            }
            plat_rmb();
            r = (const struct mpi_scsi_io_reply *)(s->reply + off);
            if (r->function == MPI_FUNCTION_SCSI_TASK_MGMT && c->tm.outstanding &&
                (r->msg_context & MPT_CONTEXT_REPLY_CONTEXT_MASK) == c->nslots) {
                /* MPI 1 has no response code to look at: 0. */
                c->tm.ioc_status = r->ioc_status;
                c->tm.outstanding = false;
                c->tm.done = true;
                mpt_write(c, MPT_REG_REPLY_FIFO, pa);
                continue;
            }
            memset(&res, 0, sizeof(res));
            res.address_reply = true;
            res.ioc_status = r->ioc_status & MPI_IOCSTATUS_MASK;
            res.ioc_log_info = (r->ioc_status & MPI_IOCSTATUS_LOG_INFO_AVAILABLE) ? r->ioc_log_info : 0;
            if (r->function == MPI_FUNCTION_SCSI_IO_REQUEST) {
                res.scsi_status = r->scsi_status;
                res.scsi_state = r->scsi_state;
                res.transfer_count = r->transfer_count;
                res.sense_count = r->sense_count;
            }
            mpt_slot_done(c, r->msg_context & MPT_CONTEXT_REPLY_CONTEXT_MASK, &res);
            /* Give the frame back for the next address reply. */
            mpt_write(c, MPT_REG_REPLY_FIFO, pa);
        }
    }
}

/* A task management request, not waited for (its reply: mpt1_tm_answer), sent as Linux
 * mptscsih_IssueTaskMgmt sends it: through the high-priority request FIFO
 * when IOC FACTS advertises one (HIGH_PRI_Q, MPI 1.5 and later;
 * mpt_put_msg_frame_hi_pri: the frame address, no NB hint), else through
 * the doorbell handshake (mpt_send_handshake_request). Either way the
 * IOC answers through the reply FIFO. */
static int mpt1_tm_post(struct mpt_ctrl *c, uint8_t task_type, const struct mpt_scsi_io *io, uint32_t slot,
                        char *err, size_t errlen)
{
    struct mpt1_state *s = st(c);
    struct mpi_scsi_task_mgmt_request *r =
        (struct mpi_scsi_task_mgmt_request *)(s->req + (size_t)c->nslots * MPT1_REQ_FRAME_BYTES);
    bool hi_pri = (s->facts.ioc_capabilities & MPI_IOCFACTS_CAPABILITY_HIGH_PRI_Q) &&
                  s->facts.msg_version >= MPI_VERSION_1_5;
    int rc;

    memset(r, 0, MPT1_REQ_FRAME_BYTES);
    r->target_id = io->target;
    r->bus = io->bus;
    r->function = MPI_FUNCTION_SCSI_TASK_MGMT;
    r->task_type = task_type;
    r->msg_context = c->nslots;
    mpt_encode_lun(r->lun, io->lun);
    if (task_type == MPI_SCSITASKMGMT_TASKTYPE_ABORT_TASK)
        r->task_msg_context = slot;
    memset(&c->tm, 0, sizeof(c->tm));
    c->tm.outstanding = true;
    plat_wmb();
    if (hi_pri) {
        mpt_write(c, MPT_REG_REQUEST_HI_PRI_FIFO, (uint32_t)plat_virt_to_phys(r));
    } else {
        char why[128];

        /* Posted only: its dwords go out one per poll (mpt_tm_check). */
        rc = mpt_handshake_send_post(c, r, sizeof(*r), why, sizeof(why));
        if (rc != BM_OK) {
            /* Not taken: the frame is ours again (Linux frees it). */
            c->tm.outstanding = false;
            snprintf(err, errlen, "through the doorbell: %s", why);
            return rc == BM_EBUSY ? BM_EBUSY : BM_EIO;
        }
    }
    return BM_OK;
}

/* The parts of mpt1_reinit_step. */
enum { MPT1_RI_FACTS = 1, MPT1_RI_INIT, MPT1_RI_OPERATIONAL, MPT1_RI_PORT_FACTS, MPT1_RI_PORT_ENABLE };

/* Post the handshake of a port request (PORT FACTS or PORT ENABLE) for
 * port c->ri.port and enter its part. */
static int mpt1_port_request(struct mpt_ctrl *c, uint8_t function, uint8_t part, uint64_t bound_ns, char *err,
                             size_t errlen)
{
    struct mpi_port_request req;

    memset(&req, 0, sizeof(req));
    req.function = function;
    req.port_number = (uint8_t)c->ri.port;
    return mpt_reinit_post(c, &req, sizeof(req), part, bound_ns, err, errlen);
}

/* The reply to a port request (what) into rep: HBA_PENDING, BM_OK once
 * every port answered, or an error; the next port's request is posted. */
static int mpt1_port_reply(struct mpt_ctrl *c, const char *what, uint8_t function, uint8_t part, uint64_t bound_ns,
                           char *err, size_t errlen)
{
    struct mpt1_state *s = st(c);
    unsigned ports = MAX(1u, MIN((unsigned)s->facts.number_of_ports, 8u));
    struct mpi_port_facts_reply rep; /* the larger of the two replies */
    int got;

    memset(&rep, 0, sizeof(rep));
    got = mpt_reinit_reply(c, &rep, sizeof(rep), what, err, errlen);
    if (got == HBA_PENDING || got < 0)
        return got;
    if (mpt1_check_reply(c, what, got, rep.ioc_status, err, errlen) != BM_OK)
        return BM_EIO;
    if (++c->ri.port < ports)
        return mpt1_port_request(c, function, part, bound_ns, err, errlen);
    return BM_OK;
}

/* After a diagnostic reset (Linux mptbase mpt_HardResetHandler ->
 * mpt_do_ioc_recovery), one part per call (poll()), each handshake posted
 * and its reply looked for again until its bound (mptbase's: 10 s
 * handshakes, 300 s for PORT ENABLE, which answers once the port's
 * devices are discovered): IOC FACTS again, which must still fit the
 * queues sized from the first ones, IOC INIT, OPERATIONAL (30 s), every
 * reply frame lent again, PORT FACTS and PORT ENABLE on every port. */
static int mpt1_reinit_step(struct mpt_ctrl *c, bool start, const char **step, char *err, size_t errlen)
{
    struct mpt1_state *s = st(c);
    const struct mpi_ioc_facts_reply *old = &s->old_facts;
    struct mpi_ioc_facts_request fr;
    struct mpi_ioc_init_request ir;
    struct mpi_default_reply rep;
    int got, rc;

    if (start) {
        s->old_facts = s->facts;
        memset(&fr, 0, sizeof(fr));
        fr.function = MPI_FUNCTION_IOC_FACTS;
        memset(&s->facts, 0, sizeof(s->facts));
        *step = "IOC FACTS";
        return mpt_reinit_post(c, &fr, sizeof(fr), MPT1_RI_FACTS, MPT1_HANDSHAKE_TIMEOUT_NS, err, errlen);
    }
    switch (c->ri.part) {
    case MPT1_RI_FACTS:
        *step = "IOC FACTS";
        got = mpt_reinit_reply(c, &s->facts, sizeof(s->facts), "IOC FACTS", err, errlen);
        if (got == HBA_PENDING)
            return got;
        rc = mpt1_ioc_facts_check(c, got, err, errlen);
        if (rc != BM_OK)
            return rc;
        if (s->facts.global_credits < old->global_credits || s->facts.reply_queue_depth < s->nreply ||
            s->facts.block_size != old->block_size || s->facts.request_frame_size != old->request_frame_size) {
            snprintf(err, errlen, "IOC FACTS changed across the reset: %u credits (was %u), reply depth %u, block %u "
                     "(was %u)", s->facts.global_credits, old->global_credits, s->facts.reply_queue_depth,
                     s->facts.block_size, old->block_size);
            return BM_EIO;
        }
        mpt1_ioc_init_request(c, &ir);
        *step = "IOC INIT";
        return mpt_reinit_post(c, &ir, sizeof(ir), MPT1_RI_INIT, MPT1_HANDSHAKE_TIMEOUT_NS, err, errlen);
    case MPT1_RI_INIT:
        *step = "IOC INIT";
        memset(&rep, 0, sizeof(rep));
        got = mpt_reinit_reply(c, &rep, sizeof(rep), "IOC INIT", err, errlen);
        if (got == HBA_PENDING || got < 0)
            return got;
        if (mpt1_check_reply(c, "IOC INIT", got, rep.ioc_status, err, errlen) != BM_OK)
            return BM_EIO;
        mpt_reinit_enter(c, MPT1_RI_OPERATIONAL, MPT1_OPERATIONAL_TIMEOUT_NS);
        *step = "OPERATIONAL";
        return HBA_PENDING;
    case MPT1_RI_OPERATIONAL:
        *step = "OPERATIONAL";
        if (mpt_ioc_state(c) != MPT_IOC_STATE_OPERATIONAL)
            return mpt_reinit_wait(c, "OPERATIONAL after IOC INIT", false, err, errlen);
        c->operational = true;
        for (uint32_t i = 0; i < s->nreply; i++)
            mpt_write(c, MPT_REG_REPLY_FIFO, s->reply_pa + i * MPT1_REPLY_FRAME_BYTES);
        c->ri.port = 0;
        *step = "PORT FACTS";
        return mpt1_port_request(c, MPI_FUNCTION_PORT_FACTS, MPT1_RI_PORT_FACTS, MPT1_HANDSHAKE_TIMEOUT_NS, err,
                                 errlen);
    case MPT1_RI_PORT_FACTS:
        *step = "PORT FACTS";
        rc = mpt1_port_reply(c, "PORT FACTS", MPI_FUNCTION_PORT_FACTS, MPT1_RI_PORT_FACTS, MPT1_HANDSHAKE_TIMEOUT_NS,
                             err, errlen);
        if (rc != BM_OK)
            return rc;
        c->ri.port = 0;
        *step = "PORT ENABLE";
        return mpt1_port_request(c, MPI_FUNCTION_PORT_ENABLE, MPT1_RI_PORT_ENABLE, MPT1_PORT_ENABLE_TIMEOUT_NS, err,
                                 errlen);
    case MPT1_RI_PORT_ENABLE:
        *step = "PORT ENABLE";
        return mpt1_port_reply(c, "PORT ENABLE", MPI_FUNCTION_PORT_ENABLE, MPT1_RI_PORT_ENABLE,
                               MPT1_PORT_ENABLE_TIMEOUT_NS, err, errlen);
    default:
        snprintf(err, errlen, "IOC bring-up in no known part");
        return BM_EIO;
    }
}

const struct mpt_backend mpt_mpi1_backend = {
    .name = "MPI 1.5",
    .init = mpt1_init,
    .post = mpt1_post,
    .drain = mpt1_drain,
    .destroy = mpt1_destroy,
    .tm_post = mpt1_tm_post,
    .reinit_step = mpt1_reinit_step,
};
