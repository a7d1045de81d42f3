/* The instant NVMe controller (see nvme_instant.h). Facts from the NVM
 * Express Base Specification 1.4; the full fault model is
 * tests/unit/test_nvme_model.c. */
#include <pthread.h>

#include "nvme_instant.h"

enum { R_CAP = 0x00, R_VS = 0x08, R_CC = 0x14, R_CSTS = 0x1c, R_AQA = 0x24, R_ASQ = 0x28, R_ACQ = 0x30,
       R_DBS = 0x1000 };
#define CC_EN 1u
#define CSTS_RDY 1u
#define CC_SHN_MASK (3u << 14)
#define CSTS_SHST_CMPLT (2u << 2)
#define MQES 1023                     /* 1024-entry queues */
#define PAGE 4096u

/* Status (4.6.1): SCT << 8 | SC, DNR bit 14. */
#define ST_OK 0x000
#define ST_INVALID_OPCODE 0x001
#define ST_INVALID_FIELD 0x002
#define ST_INVALID_NS 0x00b
#define ST_LBA_RANGE 0x080
#define ST_CQ_INVALID 0x100
#define ST_INVALID_QID 0x101
#define ST_INVALID_QSIZE 0x102
#define ST_INVALID_DELETE 0x10c
#define ST_DNR 0x4000

static uint64_t le64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t le32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t le16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static void *phys(uint64_t a) { return (void *)(uintptr_t)a; }

/* Post a completion queue entry (4.6) for a command of SQ sqid. */
static void complete(struct nvme_instant *m, uint16_t sqid, uint16_t cid, uint16_t status, uint32_t dw0)
{
    struct nvme_instant_queue *sq = &m->sq[sqid], *cq = &m->cq[sq->cqid];
    uint32_t dw[4];
    uint32_t next;

    if (!cq->live)
        return;
    next = cq->tail + 1 == cq->size ? 0 : cq->tail + 1;
    if (next == cq->head) {
        m->cq_overflows++;            /* the host did not free entries */
        return;
    }
    dw[0] = dw0;
    dw[1] = 0;
    dw[2] = sq->head | (uint32_t)sqid << 16;
    dw[3] = cid | (uint32_t)(cq->phase | status << 1) << 16;
    memcpy(cq->base + 16 * cq->tail, dw, 12);
    __atomic_store_n((uint32_t *)(cq->base + 16 * cq->tail + 12), dw[3], __ATOMIC_RELEASE); /* phase last */
    cq->tail = next;
    if (next == 0)
        cq->phase ^= 1;
}

/* Identify (5.15): the controller, namespace 1, the active namespace list. */
static uint16_t identify(struct nvme_instant *m, const uint8_t *sqe)
{
    uint32_t cns = le32(sqe + 40) & 0xff, nsid = le32(sqe + 4), one = 1;
    uint8_t *d = phys(le64(sqe + 24));

    if (le64(sqe + 24) % PAGE)
        return ST_INVALID_FIELD;      /* our driver gives a page; a list would need PRP2 */
    memset(d, 0, PAGE);
    switch (cns) {
    case 0x01:
        d[0] = 0x4d, d[1] = 0x1b;
        memset(d + 4, ' ', 60);
        memcpy(d + 4, "NVME-INSTANT-1", 14);
        memcpy(d + 24, "Baremark Instant NVMe", 21);
        memset(d + 64, ' ', 8);
        memcpy(d + 64, "1.0", 3);
        d[77] = 5;                    /* MDTS: 128 KiB */
        d[80] = 0x00, d[81] = 0x04, d[82] = 0x01; /* VER 1.4 */
        d[512] = 0x66;                /* SQES */
        d[513] = 0x44;                /* CQES */
        memcpy(d + 516, &one, 4);     /* NN */
        return ST_OK;
    case 0x00:
        if (nsid != 1)
            return ST_INVALID_NS | ST_DNR;
        for (int i = 0; i < 8; i++)
            d[i] = d[8 + i] = d[16 + i] = (uint8_t)(m->blocks >> (8 * i));
        d[128 + 2] = 9;               /* LBAF0: 512 bytes */
        return ST_OK;
    case 0x02:
        if (nsid < 1)
            memcpy(d, &one, 4);
        return ST_OK;
    }
    return ST_INVALID_FIELD;
}

/* Create I/O CQ / SQ (5.3, 5.4), Delete (5.6, 5.7). */
static uint16_t queue_admin(struct nvme_instant *m, const uint8_t *sqe)
{
    uint32_t cdw10 = le32(sqe + 40), cdw11 = le32(sqe + 44);
    uint16_t qid = (uint16_t)cdw10, cqid = (uint16_t)(cdw11 >> 16);
    uint32_t qsize = (cdw10 >> 16) + 1;
    bool create = sqe[0] == 0x01 || sqe[0] == 0x05, is_cq = sqe[0] == 0x05 || sqe[0] == 0x04;
    struct nvme_instant_queue *q;

    if (qid == 0 || qid >= NVME_INSTANT_MAXQ)
        return ST_INVALID_QID;
    q = is_cq ? &m->cq[qid] : &m->sq[qid];
    if (!create) {
        if (!q->live)
            return ST_INVALID_QID;
        for (unsigned i = 1; is_cq && i < NVME_INSTANT_MAXQ; i++)
            if (m->sq[i].live && m->sq[i].cqid == qid)
                return ST_INVALID_DELETE;
        q->live = false;
        return ST_OK;
    }
    if (q->live)
        return ST_INVALID_QID;
    if (qsize < 2 || qsize > MQES + 1)
        return ST_INVALID_QSIZE;
    if (!(cdw11 & 1) || le64(sqe + 24) % PAGE)
        return ST_INVALID_FIELD;      /* CAP.CQR: physically contiguous, page aligned */
    if (!is_cq && (cqid == 0 || cqid >= NVME_INSTANT_MAXQ || !m->cq[cqid].live))
        return ST_CQ_INVALID;
    *q = (struct nvme_instant_queue){ .live = true, .base = phys(le64(sqe + 24)), .size = qsize,
                                      .cqid = is_cq ? 0 : cqid, .phase = 1 };
    return ST_OK;
}

/* One admin command (section 5); *dw0 its result. */
static uint16_t admin(struct nvme_instant *m, const uint8_t *sqe, uint32_t *dw0)
{
    uint32_t cdw10 = le32(sqe + 40), cdw11 = le32(sqe + 44);

    switch (sqe[0]) {
    case 0x06:
        return identify(m, sqe);
    case 0x09:                        /* Set Features */
        if ((cdw10 & 0xff) == 0x07) {
            if ((cdw11 & 0xffff) == 0xffff || (cdw11 >> 16) == 0xffff)
                return ST_INVALID_FIELD;
            *dw0 = (m->grant - 1) | (m->grant - 1) << 16;
            return ST_OK;
        }
        return ST_INVALID_FIELD;
    case 0x08:                        /* Abort: nothing is ever held */
        *dw0 = 1;
        return ST_OK;
    case 0x00: case 0x01: case 0x04: case 0x05:
        return queue_admin(m, sqe);
    }
    return ST_INVALID_OPCODE;
}

/* Read or Write (6.9, 6.15): checked, completed, no data moved. */
static void io(struct nvme_instant *m, uint16_t sqid, const uint8_t *sqe)
{
    uint64_t slba = le64(sqe + 40);
    uint32_t nlb = (le32(sqe + 48) & 0xffff) + 1;
    uint16_t cid = le16(sqe + 2), st = ST_OK;

    if (sqe[0] != 0x01 && sqe[0] != 0x02)
        st = ST_INVALID_OPCODE;
    else if (le32(sqe + 4) != 1)
        st = ST_INVALID_NS;
    else if (slba >= m->blocks || nlb > m->blocks - slba)
        st = ST_LBA_RANGE;
    else if (le64(sqe + 24) & 3)
        st = ST_INVALID_FIELD;        /* 4.3: PRP offsets are dword aligned */
    if (st == ST_OK)
        m->io_done++;
    else
        m->io_refused++;
    complete(m, sqid, cid, st, 0);
}

void nvme_instant_sq_doorbell(struct nvme_instant *m, uint16_t qid, uint32_t tail)
{
    struct nvme_instant_queue *sq = &m->sq[qid];

    if (!(m->csts & CSTS_RDY) || !sq->live || tail >= sq->size)
        return;
    sq->tail = tail;
    while (sq->head != sq->tail) {
        const uint8_t *sqe = sq->base + 64 * sq->head;
        sq->head = sq->head + 1 == sq->size ? 0 : sq->head + 1;
        if (qid == 0) {
            uint32_t dw0 = 0;
            uint16_t st = admin(m, sqe, &dw0);
            complete(m, 0, le16(sqe + 2), st, dw0);
        } else {
            io(m, qid, sqe);
        }
    }
}

/* CC writes: enable (7.6.1: the admin queue from AQA/ASQ/ACQ), reset
 * (7.3.2: every queue gone), shutdown (7.6.2, done at once). */
static void write_cc(struct nvme_instant *m, uint32_t v)
{
    uint32_t old = m->cc;

    m->cc = v;
    if (!(old & CC_EN) && (v & CC_EN)) {
        m->sq[0] = (struct nvme_instant_queue){ .live = true, .base = phys(m->asq), .size = (m->aqa & 0xfff) + 1 };
        m->cq[0] = (struct nvme_instant_queue){ .live = true, .base = phys(m->acq),
                                                .size = ((m->aqa >> 16) & 0xfff) + 1, .phase = 1 };
        m->csts |= CSTS_RDY;
    } else if ((old & CC_EN) && !(v & CC_EN)) {
        memset(m->sq, 0, sizeof(m->sq));
        memset(m->cq, 0, sizeof(m->cq));
        m->csts = 0;
    } else if ((v & CC_SHN_MASK) && !(old & CC_SHN_MASK)) {
        m->csts |= CSTS_SHST_CMPLT;
    }
}

static uint32_t model_read(void *ctx, int bar, uint32_t off)
{
    struct nvme_instant *m = ctx;

    m->reg_reads++;
    switch (off) {
    case R_CAP: return (uint32_t)m->cap;
    case R_CAP + 4: return (uint32_t)(m->cap >> 32);
    case R_VS: return 0x00010400;
    case R_CC: return m->cc;
    case R_CSTS: return m->csts;
    case R_AQA: return m->aqa;
    case R_ASQ: return (uint32_t)m->asq;
    case R_ASQ + 4: return (uint32_t)(m->asq >> 32);
    case R_ACQ: return (uint32_t)m->acq;
    case R_ACQ + 4: return (uint32_t)(m->acq >> 32);
    }
    return 0;
}

/* Remember which thread rings queue qid (the engine: one CPU per queue). */
static void note_thread(struct nvme_instant *m, uint16_t qid)
{
    long self = (long)pthread_self();

    if (m->sq_thread[qid] == 0)
        m->sq_thread[qid] = self;
    else if (m->sq_thread[qid] != self)
        m->sq_thread[qid] = -1;
}

/* A CPU that never comes back: time goes on (a second per millisecond)
 * until the test releases it. */
static void hang(struct nvme_instant *m)
{
    __atomic_fetch_add(&m->hung_cpus, 1, __ATOMIC_RELAXED);
    while (!m->release) {
        if (!m->hang_still)
            plat_sim_advance_ns(1000000000ull);
        plat_delay_ns(1000000);
    }
    __atomic_fetch_sub(&m->hung_cpus, 1, __ATOMIC_RELAXED);
}

static void model_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct nvme_instant *m = ctx;
    uint16_t qid;

    switch (off) {
    case R_CC: write_cc(m, v); return;
    case R_AQA: m->aqa = v; return;
    case R_ASQ: m->asq = (m->asq & ~0xffffffffull) | v; return;
    case R_ASQ + 4: m->asq = (m->asq & 0xffffffffull) | (uint64_t)v << 32; return;
    case R_ACQ: m->acq = (m->acq & ~0xffffffffull) | v; return;
    case R_ACQ + 4: m->acq = (m->acq & 0xffffffffull) | (uint64_t)v << 32; return;
    }
    if (off < R_DBS || off >= R_DBS + 8 * NVME_INSTANT_MAXQ)
        return;
    qid = (uint16_t)((off - R_DBS) / 8);
    if ((off - R_DBS) % 8 == 0) {
        m->sq_doorbells += qid != 0;
        if (qid != 0)
            note_thread(m, qid);
        if (qid != 0 && m->hang_off_bsp && !plat_on_bsp())
            hang(m);
        nvme_instant_sq_doorbell(m, qid, v);
    } else if (m->cq[qid].live && v < m->cq[qid].size) {
        struct nvme_instant_queue *cq = &m->cq[qid];
        m->cq_doorbells += qid != 0;
        if (!nvme_instant_cq_head_ok(cq, v))
            m->bad_cq_heads++;
        else
            cq->head = v;
    }
}

void nvme_instant_attach(struct nvme_instant *m, struct pci_addr a, unsigned grant, uint64_t blocks)
{
    memset(m, 0, sizeof(*m));
    m->dev.addr = a;
    m->dev.ctx = m;
    m->dev.mmio_read32 = model_read;
    m->dev.mmio_write32 = model_write;
    m->dev.bar_size[0] = 0x2000;
    m->dev.config[0] = 0x4d, m->dev.config[1] = 0x1b;      /* 1b4d:0001 */
    m->dev.config[2] = 0x01;
    m->dev.config[9] = 0x02, m->dev.config[10] = 0x08, m->dev.config[11] = 0x01;
    /* CAP: MQES, CQR, TO 2 s, DSTRD 0, CSS NVM, MPSMIN 4 KiB. */
    m->cap = MQES | 1ull << 16 | 4ull << 24 | 1ull << 37 | 4ull << 52;
    m->grant = grant ? grant : 1;
    m->blocks = blocks;
    plat_sim_attach(&m->dev);
}

void nvme_instant_detach(struct nvme_instant *m)
{
    plat_sim_detach(&m->dev);
}
