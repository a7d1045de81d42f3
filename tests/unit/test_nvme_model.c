/* The NVMe driver against a model of an NVMe 1.4 controller: the paths
 * QEMU cannot take (a read that never completes, a controller that never
 * becomes ready or reports a fatal status, a media error) driven through
 * the driver's real probe and the public submit/poll interface
 * (drivers/blkdev.h).
 *
 * The model follows the NVM Express Base Specification 1.4, not the
 * driver: controller registers (section 3.1), queues, entries and PRPs
 * (section 4), admin commands Identify, Set Features (Number of Queues),
 * Create I/O CQ/SQ (section 5), Read (NVM command set 6.9), controller
 * reset on CC.EN 1 -> 0 (7.3.2). It executes commands synchronously inside
 * the doorbell write, and moves the clock on (plat_sim_advance_ns) from
 * CSTS reads while it is stuck, so deadlines pass at once.
 *
 * It also has what real controllers do and QEMU does not, each from the
 * reference it comes from:
 * - slow ready after a reset, with NVMe 2.0 CAP.CRMS/CRTO saying so;
 * - CSTS reading all ones if read too soon after CC.EN = 0 on the
 *   controllers Linux gives NVME_QUIRK_DELAY_BEFORE_CHK_RDY (commit
 *   "nvme/quirk: Add a delay before checking for adapter readiness": the
 *   HGST adapter drops off if CSTS is polled during its reset);
 * - CAP.MQES = 0 on the Samsung PM1725/PM1725a, which take 64-entry queues
 *   (Linux nvme_pci_enable());
 * - more than 16 LBA formats, FLBAS bits 6:5 (NVMe 2.0 figure 276);
 * - an Identify CNS 02h that fails although VS says 1.1+ (Linux
 *   nvme_scan_work() falls back to a sequential scan for these);
 * - Namespace Not Ready (82h, DNR clear) just after enable, with a
 *   Command Retry Delay once ACRE is on (NVMe 1.4 sections 4.6.1.2.1, 5.21.1.22);
 * - reads that never complete until aborted (Abort, section 5.1);
 * - a Host Memory Buffer request (HMPRE/HMMIN, Set Features 0Dh, section 8.9);
 * - normal shutdown (CC.SHN, CSTS.SHST, section 7.6.2);
 * - a controller the firmware left half enabled (CC.EN = 1, CSTS.RDY = 0);
 * - a controller slow to answer admin commands after a reset: one Set
 *   Features (by feature identifier) answered seconds late, or never, while
 *   its registers still read normally (the NVMe 1.4 limit is only the
 *   host's timeout; Linux gives admin commands 60 s, NVME_ADMIN_TIMEOUT);
 * - namespaces formatted with protection information in 8 bytes of metadata
 *   (NVM command set 5.2.1.2): a Read without PRACT would move the PI to
 *   MPTR (separate buffer) or with the data (extended LBA), which the model
 *   refuses; type 1 with PRCHK ref checks ILBRT against the LBA (SCT 2h
 *   SC 84h Reference Tag Check Error, as QEMU nvme_dif_prchk());
 * - zoned namespaces (CSI 02h) that pose as NVM ones unless CC.CSS = 110b,
 *   as QEMU nvme_select_iocs_ns(); CC.CSS = 110b without CAP.CSS bit 6 is
 *   a controller that never becomes ready;
 * - the quirks of Linux nvme_id_table, as the chips behave: the Intel 0953
 *   stripe (vs[3], byte 3075; a command crossing it is failed, Invalid Field, and counted), 48-bit DMA
 *   (an address above is not reached: Data Transfer Error, counted),
 *   Apple 2005 128-byte I/O SQ entries (fetched at that stride) and one CID
 *   space for all its queues (an I/O CID below 32 is refused, counted; an
 *   I/O SQ created beside another is counted); and a controller memory
 *   buffer offering SQs (CMBSZ.SQS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform_sim.h"
#include "drivers/nvme/nvme.h"
#include "efi/disk/engine.h"
#include "../bench/nvme_instant.h"

/* ---- NVMe 1.4 facts the model needs (its own names, from the spec) ---- */

enum { R_CAP = 0x00, R_VS = 0x08, R_CC = 0x14, R_CSTS = 0x1c, R_AQA = 0x24, R_ASQ = 0x28, R_ACQ = 0x30,
       R_DBS = 0x1000 };
#define CC_EN 1u
#define CSTS_RDY 1u
#define CSTS_CFS 2u
#define PAGE 4096u

#define OP_CREATE_SQ 0x01
#define OP_CREATE_CQ 0x05
#define OP_DELETE_SQ 0x00
#define OP_DELETE_CQ 0x04
#define OP_IDENTIFY 0x06
#define OP_SET_FEATURES 0x09
#define OP_ABORT 0x08
#define OP_READ 0x02
#define OP_FLUSH 0x00

/* Status field values (4.6.1): SCT << 8 | SC. */
#define ST_OK 0x000
#define ST_INVALID_OPCODE 0x001
#define ST_INVALID_FIELD 0x002
#define ST_LBA_RANGE 0x080
#define ST_INVALID_NS 0x00b
#define ST_CQ_INVALID 0x100
#define ST_INVALID_QID 0x101
#define ST_INVALID_QSIZE 0x102
#define ST_UNRECOVERED_READ 0x281
#define ST_ABORT_REQUESTED 0x007
#define ST_NS_NOT_READY 0x082
#define ST_REF_TAG_CHECK 0x284
#define PRACT (1u << 29)
#define PRCHK_REF (1u << 26)
#define ST_DNR 0x4000              /* do not retry (status bit 14 once shifted past the phase) */
#define ST_CRD1 0x0800             /* command retry delay: CRDT1 */
#define CC_SHN_MASK (3u << 14)
#define CC_SHN_NORMAL (1u << 14)
#define CSTS_SHST_CMPLT (2u << 2)
#define R_CRTO 0x68

#define MODEL_MQES 255             /* 256 entries per queue */
#define MODEL_QUEUES 4             /* I/O queue pairs it grants */
#define MODEL_BLOCKS (1ull << 26)  /* 512-byte blocks, generated on read */
#define MODEL_TO 4                 /* CAP.TO: 2 s */
#define NO_LBA UINT64_MAX
#define MAXQ 40                    /* queue slots, admin included: room for grant > MODEL_QUEUES */

/* A queue as the controller sees it: struct nvme_instant_queue, shared with
 * the instant model of the per-I/O cost benchmark (tests/bench). */

struct held {                      /* a read the model sits on */
    bool used;
    uint16_t sqid, cid;
    uint8_t sqe[64];
};

struct nvme_model {
    struct plat_sim_dev dev;
    uint64_t cap;
    uint32_t cc, csts, aqa, crto;
    uint64_t asq, acq;
    struct nvme_instant_queue sq[MAXQ], cq[MAXQ];
    /* Faults */
    bool never_ready;              /* CSTS.RDY never follows CC.EN */
    bool cfs_on_enable;            /* CSTS.CFS instead of RDY */
    bool cfs_on_identify;          /* CSTS.CFS instead of an Identify completion */
    bool identify_hangs;           /* Identify never completes */
    bool admin_hung;
    uint64_t bad_lba;              /* reads covering it: Unrecovered Read Error */
    uint64_t hang_lba;             /* reads covering it: no completion */
    bool hold_sq2;                 /* keep SQ 2's reads until released */
    bool gone;                     /* surprise removal: reads all ones, nothing happens */
    bool ignores_reset;            /* CC.EN = 0 does not stop it: RDY stays, queues live */
    bool fatal_on_read;            /* a read makes it fail: CSTS.CFS, no completions */
    bool refuse_create_sq;         /* Create I/O SQ fails: Invalid Queue Identifier */
    unsigned grant;                /* I/O queue pairs Set Features grants (0: MODEL_QUEUES) */
    unsigned nns;                  /* namespaces 1..nns, all alike (0: one) */
    uint64_t inactive;             /* bit n-1: NSID n is inactive (Identify returns zeroes) */
    bool ns_list_refused;          /* CNS 02h: Invalid Field in Command, DNR */
    bool wide_formats;             /* 20 LBA formats, format 17 (4096 B) in use */
    uint64_t meta_ns;              /* bit n-1: NSID n is formatted with 8 bytes of metadata */
    bool sizes_by_nsid;            /* NSID n has n blocks fewer than the others */
    uint64_t pi_ns;                /* bit n-1: NSID n is 512 + 8 bytes of PI, type 1 */
    uint64_t ext_ns;               /* ...with the PI in the block (extended LBA) */
    uint64_t zoned_ns;             /* bit n-1: NSID n is a zoned namespace (CSI 02h) */
    bool no_mdts;                  /* Identify MDTS 0: no transfer limit */
    uint8_t vs3;                   /* Identify byte 3075 (Intel: stripe, log2 pages) */
    uint32_t stripe_bytes;         /* reads crossing a multiple of this are counted */
    bool dma48;                    /* addresses at or above 2^48 are not reached */
    bool sqe128;                   /* I/O SQ entries are fetched every 128 bytes */
    bool shared_tags;              /* one tag space: I/O CIDs below 32 collide with the admin queue's,
                                    * and a second I/O queue's with the first's (counted at its creation) */
    uint32_t cmbsz;                /* CMBSZ register (0: no CMB) */
    unsigned max_qsize;            /* largest queue Create I/O CQ/SQ accept (0: MQES + 1) */
    uint64_t ready_delay_ns;       /* CSTS.RDY follows CC.EN = 1 this much later */
    uint64_t blackout_ns;          /* CSTS reads all ones this long after CC.EN = 0 */
    bool half_enabled;             /* left by firmware: EN = 1, RDY never comes until a reset */
    unsigned not_ready_reads;      /* the first reads after enable: Namespace Not Ready */
    uint16_t crdt1;                /* Identify CRDT1 (100 ms units); CRD used once ACRE is on */
    bool ignores_abort;            /* Abort completes, but the command stays held */
    uint32_t hmpre, hmmin;         /* Identify HMPRE / HMMIN, 4 KiB units */
    uint32_t rtd3e_us;
    uint8_t late_feature;          /* after a reset, Set Features of this FID is answered late_ns late */
    uint64_t late_ns;              /* ...(UINT64_MAX: never) */
    struct {                       /* the late answer it sits on */
        bool pending;
        uint16_t cid, status;
        uint32_t dw0;
        uint64_t due_ns;
    } late;
    struct held held[16];
    /* What happened */
    unsigned enables, resets, reads_done, cq_overflows;
    unsigned bad_cq_heads;         /* CQ head doorbells past what was posted */
    unsigned io_cq_heads;          /* CQ head doorbell writes of I/O queues */
    uint64_t enabled_at_ns, reset_at_ns;
    unsigned early_csts_reads;     /* CSTS read inside the blackout */
    unsigned shutdowns, resets_after_shutdown;
    bool acre;                     /* Host Behavior Support: ACRE set */
    unsigned not_ready_sent, early_retries;
    uint64_t not_ready_at_ns;
    unsigned aborts, aborts_hit;
    bool hmb_on, hmb_returned;     /* ...and whether the last enable set MR */
    uint64_t hmb_bytes;
    unsigned hmb_enables, hmb_disables, resets_with_hmb_on;
    unsigned deleted_sqs, deleted_cqs;
    unsigned css;                  /* CC.CSS of the last enable */
    unsigned pi_reads, pi_refused; /* reads of a PI namespace done / refused */
    unsigned stripe_crossings, dma_over_48, cid_collisions;
    unsigned shared_tag_sqs;       /* I/O SQs created beside a live one while tags are shared */
    unsigned io_sq_size;           /* entries of the last I/O SQ created */
    unsigned desc_lists;           /* Identify CNS 03h answered */
    unsigned late_answered;        /* late Set Features answers posted */
    uint64_t reg_reads;            /* register reads of the host */
};

static unsigned model_qsize_max(const struct nvme_model *m)
{
    return m->max_qsize ? m->max_qsize : (unsigned)(m->cap & 0xffff) + 1;
}

static uint64_t le64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t le32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t le16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static void *phys(uint64_t a) { return (void *)(uintptr_t)a; }

/* The byte a read of block lba returns at offset off. */
static uint8_t pattern(uint64_t lba, unsigned off)
{
    uint32_t w = (uint32_t)(lba * 2246822519u) + off / 4;
    return (uint8_t)(w >> (8 * (off % 4)));
}

/* Move len bytes from src into the memory PRP1/PRP2 describe (4.3): PRP1
 * may start inside a page; beyond the first page PRP2 is the second page
 * or, for more than two pages, a PRP list whose last entry on each list
 * page points at the next list page. */
static void prp_copy_in(uint64_t prp1, uint64_t prp2, const uint8_t *src, uint32_t len)
{
    uint32_t first = PAGE - (uint32_t)(prp1 % PAGE), done;
    const uint8_t *list = NULL;
    unsigned idx = 0;

    assert_int_equal(prp1 & 3, 0);
    done = len < first ? len : first;
    memcpy(phys(prp1), src, done);
    if (done == len)
        return;
    if (len - done <= PAGE) {
        assert_int_equal(prp2 % PAGE, 0);
        memcpy(phys(prp2), src + done, len - done);
        return;
    }
    list = phys(prp2);
    idx = (unsigned)(prp2 % PAGE) / 8;
    list -= prp2 % PAGE;
    while (done < len) {
        uint64_t e = le64(list + 8 * idx);
        uint32_t n = len - done < PAGE ? len - done : PAGE;
        if (idx == PAGE / 8 - 1 && len - done > PAGE) {
            list = phys(e);        /* chained list page */
            idx = 0;
            continue;
        }
        assert_int_equal(e % PAGE, 0);
        memcpy(phys(e), src + done, n);
        done += n;
        idx++;
    }
}

/* Post a completion queue entry (4.6) for a command of SQ sqid. */
static void complete(struct nvme_model *m, uint16_t sqid, uint16_t cid, uint16_t status, uint32_t dw0)
{
    struct nvme_instant_queue *sq = &m->sq[sqid], *cq = &m->cq[sq->cqid];
    uint8_t *e;
    uint32_t dw2 = sq->head | (uint32_t)sqid << 16, dw3;

    if (!cq->live)
        return;
    if ((cq->tail + 1) % cq->size == cq->head) {
        m->cq_overflows++;         /* a full CQ: the host did not free entries */
        return;
    }
    e = cq->base + 16 * cq->tail;
    dw3 = cid | (uint32_t)(cq->phase | status << 1) << 16;
    memcpy(e, &dw0, 4);
    memset(e + 4, 0, 4);
    memcpy(e + 8, &dw2, 4);
    memcpy(e + 12, &dw3, 4);      /* phase last: the host polls it */
    if (++cq->tail == cq->size) {
        cq->tail = 0;
        cq->phase ^= 1;
    }
}

static unsigned model_lba_bytes(const struct nvme_model *m) { return m->wide_formats ? 4096 : 512; }
static uint64_t model_blocks(const struct nvme_model *m) { return MODEL_BLOCKS * 512 / model_lba_bytes(m); }

/* Identify data (5.15.2): controller, namespaces 1..nns, active namespace list. */
static uint16_t identify(struct nvme_model *m, const uint8_t *sqe)
{
    static uint8_t d[4096];
    uint32_t cns = le32(sqe + 40) & 0xff, nsid = le32(sqe + 4);
    uint32_t nns = m->nns ? m->nns : 1;

    memset(d, 0, sizeof(d));
    switch (cns) {
    case 0x01:
        d[0] = 0x4d, d[1] = 0x1b;
        memset(d + 4, ' ', 20);
        memcpy(d + 4, "NVME-MODEL-7", 12);
        memset(d + 24, ' ', 40);
        memcpy(d + 24, "Baremark Model NVMe", 19);
        memset(d + 64, ' ', 8);
        memcpy(d + 64, "1.0", 3);
        d[77] = m->no_mdts ? 0 : 5; /* MDTS: 2^5 pages = 128 KiB */
        d[3075] = m->vs3;
        d[80] = 0x00, d[81] = 0x04, d[82] = 0x01;   /* VER 1.4 */
        d[512] = 0x66;             /* SQES: 64 bytes */
        d[513] = 0x44;             /* CQES: 16 bytes */
        memcpy(d + 516, &nns, 4);  /* NN */
        memcpy(d + 88, &m->rtd3e_us, 4);             /* RTD3E */
        memcpy(d + 128, &m->crdt1, 2);               /* CRDT1 */
        memcpy(d + 272, &m->hmpre, 4);               /* HMPRE */
        memcpy(d + 276, &m->hmmin, 4);               /* HMMIN */
        break;
    case 0x00:
        if (nsid < 1 || nsid > nns)
            return ST_INVALID_NS | ST_DNR;
        if (nsid <= 64 && (m->inactive >> (nsid - 1)) & 1)
            break;                 /* inactive: a zero-filled structure (5.15.2) */
        for (int i = 0; i < 8; i++)
            d[i] = d[8 + i] = d[16 + i] = (uint8_t)((model_blocks(m) - (m->sizes_by_nsid ? nsid : 0)) >> (8 * i));
        if (m->wide_formats) {
            /* NVMe 2.0: 20 formats; 1 is 512 B, 17 is 4096 B, FLBAS 21h. */
            d[25] = 19;
            for (int f = 0; f < 20; f++)
                d[128 + 4 * f + 2] = f == 17 ? 12 : 9;
            d[26] = 0x21;
            break;
        }
        d[25] = 0;                 /* NLBAF: one format */
        d[26] = 0;                 /* FLBAS: format 0 */
        d[128 + 2] = 9;            /* LBAF0: LBADS 9 (512 B), no metadata */
        if (nsid <= 64 && (m->meta_ns >> (nsid - 1)) & 1)
            d[128] = 8;            /* LBAF0.MS: 8 bytes of metadata per block */
        if (nsid <= 64 && (m->pi_ns >> (nsid - 1)) & 1) {
            d[128] = 8;            /* the 8 bytes are the PI... */
            d[29] = 1;             /* ...DPS: type 1 */
            if ((m->ext_ns >> (nsid - 1)) & 1)
                d[26] |= 0x10;     /* FLBAS bit 4: extended LBA */
        }
        break;
    case 0x03:                     /* identification descriptors: the CSI one */
        if (nsid < 1 || nsid > nns)
            return ST_INVALID_NS | ST_DNR;
        m->desc_lists++;
        d[0] = 0x04, d[1] = 1;
        d[4] = nsid <= 64 && (m->zoned_ns >> (nsid - 1)) & 1 ? 0x02 : 0x00;
        break;
    case 0x02:                     /* active ids above nsid, ascending, up to 1024 */
        if (m->ns_list_refused)
            return ST_INVALID_FIELD | ST_DNR;
        for (uint32_t id = nsid + 1, k = 0; id <= nns && k < 1024; id++) {
            if (id <= 64 && (m->inactive >> (id - 1)) & 1)
                continue;
            memcpy(d + 4 * k++, &id, 4);
        }
        break;
    default:
        return ST_INVALID_FIELD;
    }
    prp_copy_in(le64(sqe + 24), le64(sqe + 32), d, sizeof(d));
    return ST_OK;
}

/* Set Features Host Memory Buffer: EHM with HSIZE pages described by
 * HMDLEC descriptors at CDW13/14; the sizes must add up and reach HMMIN. */
static uint16_t set_hmb(struct nvme_model *m, const uint8_t *sqe)
{
    uint32_t ehm = le32(sqe + 44) & 1, mr = (le32(sqe + 44) >> 1) & 1, hsize = le32(sqe + 48), count = le32(sqe + 60);
    const uint8_t *list = phys((uint64_t)le32(sqe + 52) | (uint64_t)le32(sqe + 56) << 32);
    uint64_t pages = 0;

    if (!ehm) {
        m->hmb_on = false;
        m->hmb_disables++;
        return ST_OK;
    }
    if (m->hmb_on || !m->hmpre)
        return 0x10d;                               /* sequence error-ish: we take it as Invalid */
    if (!count || (le32(sqe + 52) & 0xf) || hsize < m->hmmin)
        return ST_INVALID_FIELD;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t badd = le64(list + 16 * i);
        uint32_t bsize = le32(list + 16 * i + 8);
        if (!bsize || badd % PAGE)
            return ST_INVALID_FIELD;
        memset(phys(badd), 0x5a, (size_t)bsize * PAGE); /* the controller uses it */
        pages += bsize;
    }
    if (pages != hsize)
        return ST_INVALID_FIELD;
    m->hmb_on = true;
    m->hmb_returned = mr;
    m->hmb_bytes = pages * PAGE;
    m->hmb_enables++;
    return ST_OK;
}

/* One admin command (section 5). Returns its status; *dw0 its result. */
static uint16_t admin(struct nvme_model *m, const uint8_t *sqe, uint32_t *dw0, bool *no_completion)
{
    uint32_t cdw10 = le32(sqe + 40), cdw11 = le32(sqe + 44);
    uint16_t qid = (uint16_t)cdw10, qsize = (uint16_t)((cdw10 >> 16) + 1);

    switch (sqe[0]) {
    case OP_IDENTIFY:
        if (m->cfs_on_identify) {
            m->csts |= CSTS_CFS;   /* the controller dies instead of answering */
            *no_completion = true;
            return ST_OK;
        }
        if (m->identify_hangs) {
            m->admin_hung = true;
            *no_completion = true;
            return ST_OK;
        }
        return identify(m, sqe);
    case OP_SET_FEATURES:
        switch (cdw10 & 0xff) {
        case 0x07:
            if ((cdw11 & 0xffff) == 0xffff || (cdw11 >> 16) == 0xffff)
                return ST_INVALID_FIELD;
            *dw0 = (m->grant ? m->grant : MODEL_QUEUES) - 1;
            *dw0 |= *dw0 << 16;                     /* NSQA, NCQA: 0-based */
            return ST_OK;
        case 0x16: {                                /* Host Behavior Support (5.21.1.22) */
            const uint8_t *hb = phys(le64(sqe + 24));
            m->acre = hb[0] & 1;
            return ST_OK;
        }
        case 0x0d:                                  /* Host Memory Buffer (5.21.1.13) */
            return set_hmb(m, sqe);
        }
        return ST_INVALID_FIELD;
    case OP_ABORT: {                                /* 5.1: SQID 15:0, CID 31:16 */
        m->aborts++;
        *dw0 = 1;                                   /* not aborted */
        for (unsigned i = 0; i < 16 && !m->ignores_abort; i++) {
            struct held h = m->held[i];
            if (!h.used || h.sqid != qid || h.cid != (uint16_t)(cdw10 >> 16))
                continue;
            m->held[i].used = false;
            complete(m, h.sqid, h.cid, ST_ABORT_REQUESTED, 0);
            m->aborts_hit++;
            *dw0 = 0;
        }
        return ST_OK;
    }
    case OP_CREATE_CQ:
        if (qid == 0 || qid >= MAXQ || m->cq[qid].live)
            return ST_INVALID_QID;
        if (qsize < 2 || qsize > model_qsize_max(m))
            return ST_INVALID_QSIZE;
        if (!(cdw11 & 1))
            return ST_INVALID_FIELD;   /* CAP.CQR: contiguous queues required */
        m->cq[qid] = (struct nvme_instant_queue){ .live = true, .base = phys(le64(sqe + 24)), .size = qsize,
                                                  .phase = 1 };
        return ST_OK;
    case OP_CREATE_SQ: {
        uint16_t cqid = (uint16_t)(cdw11 >> 16);
        if (m->refuse_create_sq)
            return ST_INVALID_QID;
        if (qid == 0 || qid >= MAXQ || m->sq[qid].live)
            return ST_INVALID_QID;
        if (qsize < 2 || qsize > model_qsize_max(m))
            return ST_INVALID_QSIZE;
        if (cqid == 0 || cqid >= MAXQ || !m->cq[cqid].live)
            return ST_CQ_INVALID;
        for (unsigned i = 1; m->shared_tags && i < MAXQ; i++)
            if (m->sq[i].live) {
                m->shared_tag_sqs++; /* its CIDs would collide with that queue's */
                break;
            }
        m->sq[qid] = (struct nvme_instant_queue){ .live = true, .base = phys(le64(sqe + 24)), .size = qsize,
                                                  .cqid = cqid };
        m->io_sq_size = qsize;
        return ST_OK;
    }
    case OP_DELETE_SQ:
        if (qid == 0 || qid >= MAXQ || !m->sq[qid].live)
            return ST_INVALID_QID;
        m->sq[qid].live = false;
        m->deleted_sqs++;
        return ST_OK;
    case OP_DELETE_CQ:
        if (qid == 0 || qid >= MAXQ || !m->cq[qid].live)
            return ST_INVALID_QID;
        for (unsigned i = 1; i < MAXQ; i++)
            if (m->sq[i].live && m->sq[i].cqid == qid)
                return 0x10c;                       /* Invalid Queue Deletion: its SQ is still there */
        m->cq[qid].live = false;
        m->deleted_cqs++;
        return ST_OK;
    }
    return ST_INVALID_OPCODE;
}

static bool covers(uint64_t lba, uint32_t n, uint64_t x) { return x != NO_LBA && x >= lba && x < lba + n; }

/* A read's data, and its completion. */
static void finish_read(struct nvme_model *m, uint16_t sqid, const uint8_t *sqe)
{
    static uint8_t data[1u << 20];
    uint64_t slba = le64(sqe + 40);
    uint32_t nlb = (le32(sqe + 48) & 0xffff) + 1;

    uint32_t bs = model_lba_bytes(m);

    assert_true(nlb * bs <= sizeof(data));
    for (uint32_t i = 0; i < nlb * bs; i++)
        data[i] = pattern(slba + i / bs, i % bs);
    prp_copy_in(le64(sqe + 24), le64(sqe + 32), data, nlb * bs);
    m->reads_done++;
    complete(m, sqid, le16(sqe + 2), ST_OK, 0);
}

static void hold(struct nvme_model *m, uint16_t sqid, const uint8_t *sqe)
{
    for (unsigned i = 0; i < 16; i++) {
        if (!m->held[i].used) {
            m->held[i] = (struct held){ .used = true, .sqid = sqid, .cid = le16(sqe + 2) };
            memcpy(m->held[i].sqe, sqe, 64);
            return;
        }
    }
    fail_msg("model: too many held commands");
}

/* One I/O command (NVM command set). */
static void io(struct nvme_model *m, uint16_t sqid, const uint8_t *sqe)
{
    uint64_t slba = le64(sqe + 40);
    uint32_t nlb = (le32(sqe + 48) & 0xffff) + 1;
    uint16_t cid = le16(sqe + 2);

    uint32_t nsid = le32(sqe + 4);

    if (nsid < 1 || nsid > (m->nns ? m->nns : 1)) {
        complete(m, sqid, cid, ST_INVALID_NS, 0);
        return;
    }
    if (m->shared_tags && cid < 32) {
        m->cid_collisions++;       /* the CID of an admin command: mixed up */
        complete(m, sqid, cid, ST_INVALID_FIELD | ST_DNR, 0);
        return;
    }
    if (m->dma48 && (le64(sqe + 24) >> 48 || le64(sqe + 32) >> 48)) {
        m->dma_over_48++;          /* the address is cut to 48 bits: not reached */
        complete(m, sqid, cid, 0x004 | ST_DNR, 0);   /* Data Transfer Error */
        return;
    }
    if (m->stripe_bytes && (slba * model_lba_bytes(m)) / m->stripe_bytes !=
                                ((slba + nlb) * model_lba_bytes(m) - 1) / m->stripe_bytes) {
        /* A real 0953 serves it, slowly (the firmware splits it behind
         * our back); the model flags it so a test sees the driver let it
         * through (Linux never sends one: chunk_sectors). */
        m->stripe_crossings++;
        complete(m, sqid, cid, ST_INVALID_FIELD | ST_DNR, 0);
        return;
    }
    switch (sqe[0]) {
    case OP_FLUSH:
        complete(m, sqid, cid, ST_OK, 0);
        return;
    case OP_READ:
        if (m->fatal_on_read) {
            m->csts |= CSTS_CFS;
            hold(m, sqid, sqe);
            return;
        }
        if (slba + nlb > model_blocks(m)) {
            complete(m, sqid, cid, ST_LBA_RANGE, 0);
            return;
        }
        if (m->not_ready_sent < m->not_ready_reads) {
            /* A retry before the Command Retry Delay we named is early. */
            if (m->acre && m->not_ready_sent && plat_now_ns() - m->not_ready_at_ns < m->crdt1 * 100000000ull)
                m->early_retries++;
            m->not_ready_sent++;
            m->not_ready_at_ns = plat_now_ns();
            complete(m, sqid, cid, ST_NS_NOT_READY | (m->acre && m->crdt1 ? ST_CRD1 : 0), 0);
            return;
        }
        if (covers(slba, nlb, m->hang_lba) || (sqid == 2 && m->hold_sq2)) {
            hold(m, sqid, sqe);
            return;
        }
        if (covers(slba, nlb, m->bad_lba)) {
            complete(m, sqid, cid, ST_UNRECOVERED_READ, 0);
            return;
        }
        if (nsid <= 64 && (m->pi_ns >> (nsid - 1)) & 1) {
            uint32_t cdw12 = le32(sqe + 48), ilbrt = le32(sqe + 56);
            if (!(cdw12 & PRACT)) {
                /* The PI would go to MPTR or with the data: the model
                 * takes that as the host not having asked for it. */
                m->pi_refused++;
                complete(m, sqid, cid, ST_INVALID_FIELD | ST_DNR, 0);
                return;
            }
            if ((cdw12 & PRCHK_REF) && ilbrt != (uint32_t)slba) {
                m->pi_refused++;
                complete(m, sqid, cid, ST_REF_TAG_CHECK | ST_DNR, 0);
                return;
            }
            m->pi_reads++;
        }
        finish_read(m, sqid, sqe);
        return;
    }
    complete(m, sqid, cid, ST_INVALID_OPCODE, 0);
}

/* The SQ tail doorbell: fetch and run every new entry. */
static void sq_doorbell(struct nvme_model *m, uint16_t qid, uint32_t tail)
{
    struct nvme_instant_queue *sq = &m->sq[qid];

    if (!(m->csts & CSTS_RDY) || !sq->live || tail >= sq->size)
        return;
    sq->tail = tail;
    while (sq->head != sq->tail) {
        const uint8_t *sqe = sq->base + (qid && m->sqe128 ? 128 : 64) * sq->head;
        sq->head = (sq->head + 1) % sq->size;
        if (qid == 0) {
            uint32_t dw0 = 0;
            bool none = false;
            uint16_t st;
            if (m->shared_tags && le16(sqe + 2) >= 32)
                m->cid_collisions++; /* an admin CID in the I/O queues' range */
            st = admin(m, sqe, &dw0, &none);
            if (!none && m->resets && m->late_ns && sqe[0] == OP_SET_FEATURES &&
                (le32(sqe + 40) & 0xff) == m->late_feature && !m->late.pending) {
                /* Done, but answered late (model_release_late). */
                m->late.pending = true;
                m->late.cid = le16(sqe + 2);
                m->late.status = st;
                m->late.dw0 = dw0;
                m->late.due_ns = m->late_ns == UINT64_MAX ? UINT64_MAX : plat_now_ns() + m->late_ns;
                none = true;
            }
            if (!none)
                complete(m, 0, le16(sqe + 2), st, dw0);
        } else {
            io(m, qid, sqe);
        }
    }
}

/* Controller reset (7.3.2): every queue is gone, nothing more completes. */
static void controller_reset(struct nvme_model *m)
{
    m->resets++;
    if (m->csts & CSTS_SHST_CMPLT)
        m->resets_after_shutdown++;
    if (m->hmb_on)
        m->resets_with_hmb_on++;
    m->hmb_on = false;             /* features are not kept over a reset */
    m->acre = false;               /* Host Behavior Support neither */
    m->reset_at_ns = plat_now_ns();
    memset(m->sq, 0, sizeof(m->sq));
    memset(m->cq, 0, sizeof(m->cq));
    memset(m->held, 0, sizeof(m->held));
    m->csts &= ~(CSTS_RDY | CSTS_CFS | CSTS_SHST_CMPLT);
    m->admin_hung = false;
    m->half_enabled = false;
    m->late.pending = false;       /* the admin queue is gone too */
}

/* Post the late Set Features answer once its time has come. */
static void model_release_late(struct nvme_model *m)
{
    if (!m->late.pending || plat_now_ns() < m->late.due_ns)
        return;
    m->late.pending = false;
    m->late_answered++;
    complete(m, 0, m->late.cid, m->late.status, m->late.dw0);
}

/* Finish what the model held: a late controller completes it, unless it
 * was reset since. */
static void model_release_held(struct nvme_model *m)
{
    for (unsigned i = 0; i < 16; i++) {
        struct held h = m->held[i];
        if (!h.used)
            continue;
        m->held[i].used = false;
        if (m->sq[h.sqid].live)
            finish_read(m, h.sqid, h.sqe);
    }
}

static uint32_t model_read(void *ctx, int bar, uint32_t off)
{
    struct nvme_model *m = ctx;

    assert_int_equal(bar, 0);
    m->reg_reads++;
    if (m->gone)
        return 0xffffffffu;                      /* PCIe: a read nobody answers */
    model_release_late(m);
    switch (off) {
    case R_CAP: return (uint32_t)m->cap;
    case R_CAP + 4: return (uint32_t)(m->cap >> 32);
    case R_VS: return 0x00010400;
    case R_CC: return m->cc;
    case R_CSTS:
        if (m->blackout_ns && m->resets && plat_now_ns() - m->reset_at_ns < m->blackout_ns) {
            m->early_csts_reads++;
            plat_sim_advance_ns(50000000ull);
            return 0xffffffffu;                    /* still resetting: no answer */
        }
        if ((m->cc & CC_EN) && !(m->csts & CSTS_RDY) && !m->never_ready && !m->cfs_on_enable &&
            !m->half_enabled && plat_now_ns() - m->enabled_at_ns >= m->ready_delay_ns)
            m->csts |= CSTS_RDY;                   /* slow ready has come */
        if (((m->cc & CC_EN) && !(m->csts & CSTS_RDY)) || (m->csts & CSTS_CFS) || m->admin_hung)
            plat_sim_advance_ns(50000000ull);      /* a controller that is stuck */
        return m->csts;
    case R_CRTO: return m->crto;
    case 0x38: return 0;                           /* CMBLOC: BIR 0, offset 0 */
    case 0x3c: return m->cmbsz;
    case R_AQA: return m->aqa;
    case R_ASQ: return (uint32_t)m->asq;
    case R_ASQ + 4: return (uint32_t)(m->asq >> 32);
    case R_ACQ: return (uint32_t)m->acq;
    case R_ACQ + 4: return (uint32_t)(m->acq >> 32);
    }
    return 0;
}

static void model_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct nvme_model *m = ctx;

    assert_int_equal(bar, 0);
    if (m->gone)
        return;
    switch (off) {
    case R_CC: {
        uint32_t old = m->cc;
        m->cc = v;
        if (!(old & CC_EN) && (v & CC_EN)) {
            m->enables++;
            m->css = (v >> 4) & 7;
            if (m->never_ready)
                return;
            if (m->css == 6 && !((m->cap >> 37) & 0x40)) {
                m->never_ready = true; /* a command set selection it does not offer */
                return;
            }
            if (m->cfs_on_enable) {
                m->csts |= CSTS_CFS;
                return;
            }
            /* 7.6.1: the admin queue comes from AQA/ASQ/ACQ. */
            m->sq[0] = (struct nvme_instant_queue){ .live = true, .base = phys(m->asq), .size = (m->aqa & 0xfff) + 1 };
            m->cq[0] = (struct nvme_instant_queue){ .live = true, .base = phys(m->acq),
                                                    .size = ((m->aqa >> 16) & 0xfff) + 1,
                                                    .phase = 1 };
            m->enabled_at_ns = plat_now_ns();
            m->not_ready_sent = 0;
            if (!m->ready_delay_ns)
                m->csts |= CSTS_RDY;
        } else if ((old & CC_EN) && !(v & CC_EN) && !m->ignores_reset) {
            controller_reset(m);
        } else if ((v & CC_EN) && (m->csts & CSTS_RDY) && (v & CC_SHN_MASK) == CC_SHN_NORMAL &&
                   !(old & CC_SHN_MASK)) {
            m->shutdowns++;        /* 7.6.2: done at once here */
            m->csts |= CSTS_SHST_CMPLT;
        }
        return;
    }
    case R_AQA: m->aqa = v; return;
    case R_ASQ: m->asq = (m->asq & ~0xffffffffull) | v; return;
    case R_ASQ + 4: m->asq = (m->asq & 0xffffffffull) | (uint64_t)v << 32; return;
    case R_ACQ: m->acq = (m->acq & ~0xffffffffull) | v; return;
    case R_ACQ + 4: m->acq = (m->acq & 0xffffffffull) | (uint64_t)v << 32; return;
    }
    if (off >= R_DBS && off < R_DBS + 8 * MAXQ) {
        uint16_t qid = (uint16_t)((off - R_DBS) / 8);
        if ((off - R_DBS) % 8 == 0)
            sq_doorbell(m, qid, v);
        else if (m->cq[qid].live && v < m->cq[qid].size) {
            struct nvme_instant_queue *cq = &m->cq[qid];
            if (!nvme_instant_cq_head_ok(cq, v))
                m->bad_cq_heads++;
            else
                cq->head = v;
            m->io_cq_heads += qid != 0;
        }
    }
}

/* ---- Test scaffolding ---- */

static const struct pci_addr model_addr = { 0, 3, 0, 0 };

static struct nvme_model *model_new(void)
{
    static struct nvme_model m;

    memset(&m, 0, sizeof(m));
    m.dev.addr = model_addr;
    m.dev.ctx = &m;
    m.dev.mmio_read32 = model_read;
    m.dev.mmio_write32 = model_write;
    m.dev.bar_size[0] = 0x4000;
    m.dev.config[0] = 0x4d, m.dev.config[1] = 0x1b;        /* 1b4d:0001 */
    m.dev.config[2] = 0x01;
    m.dev.config[9] = 0x02, m.dev.config[10] = 0x08, m.dev.config[11] = 0x01;
    /* CAP: MQES, CQR, TO, DSTRD 0, CSS NVM, MPSMIN 0 (4 KiB), MPSMAX 4. */
    m.cap = MODEL_MQES | 1ull << 16 | (uint64_t)MODEL_TO << 24 | 1ull << 37 | 4ull << 52;
    m.bad_lba = m.hang_lba = NO_LBA;
    plat_sim_attach(&m.dev);
    return &m;
}

/* Give the model another PCI ID (a quirk table entry). */
static void model_set_id(struct nvme_model *m, uint16_t vendor, uint16_t device)
{
    m->dev.config[0] = (uint8_t)vendor, m->dev.config[1] = (uint8_t)(vendor >> 8);
    m->dev.config[2] = (uint8_t)device, m->dev.config[3] = (uint8_t)(device >> 8);
}

static bool has_quirk(const struct bm_disk *d, const char *name)
{
    return strstr(d->quirks, name) != NULL;
}

static struct bm_disk *probe_one(struct nvme_model *m, void **ctrl)
{
    static struct bm_disk_list list;
    char err[160] = "";
    int rc;

    memset(&list, 0, sizeof(list));
    rc = nvme_driver.probe(model_addr, 0, &list, ctrl, err, sizeof(err));
    if (rc != BM_OK)
        fail_msg("probe: %s (%s)", bm_strerror(rc), err);
    assert_int_equal(list.count, 1);
    assert_int_equal(m->dev.claims, 1);
    return list.disks[0];
}

/* Probe m, which must fail with want_rc: no controller handed back, no
 * disk listed, the PCI function released once. The driver's words in err. */
static void probe_fails(struct nvme_model *m, int want_rc, char *err, size_t errlen)
{
    struct bm_disk_list list = { .count = 0 };
    void *ctrl = (void *)1;

    assert_int_equal(nvme_driver.probe(model_addr, 0, &list, &ctrl, err, errlen), want_rc);
    assert_null(ctrl);
    assert_int_equal(list.count, 0);
    assert_int_equal(m->dev.releases, 1);
}

static void finish(struct nvme_model *m, void *ctrl)
{
    nvme_driver.release(ctrl);
    assert_int_equal(m->dev.releases, 1);
    assert_false(m->cc & CC_EN);            /* handed back reset */
    assert_int_equal(m->cq_overflows, 0);
    assert_int_equal(m->bad_cq_heads, 0);
    plat_sim_detach(&m->dev);
}

#define QD 64
#define READ_BLOCKS 128            /* 64 KiB: a PRP list */
#define BUF_STRIDE (READ_BLOCKS * 512 + PAGE)
#define BUF_OFFSET 512             /* PRP1 starts inside a page */
static uint8_t *buffers;

static uint8_t *buf_of(unsigned tag) { return buffers + (size_t)tag * BUF_STRIDE + BUF_OFFSET; }
static uint64_t lba_of(unsigned queue, unsigned tag) { return 1000003ull * tag + 7919ull * queue + 11; }

static int setup(void **state)
{
    (void)state;
    buffers = plat_alloc_pages((size_t)QD * BUF_STRIDE, false);
    return buffers ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    plat_free_pages(buffers, (size_t)QD * BUF_STRIDE);
    return 0;
}

static bool data_ok(const uint8_t *buf, uint64_t lba, uint32_t blocks)
{
    for (uint32_t i = 0; i < blocks * 512u; i++)
        if (buf[i] != pattern(lba + i / 512, i % 512))
            return false;
    return true;
}

static void submit_reads(struct bm_disk *d, unsigned queue, unsigned first, unsigned n)
{
    for (unsigned t = first; t < first + n; t++) {
        memset(buf_of(t), 0xee, READ_BLOCKS * 512);
        assert_int_equal(d->ops->submit(d, queue, t, BM_IO_READ, lba_of(queue, t), READ_BLOCKS, buf_of(t)),
                         BM_OK);
    }
}

/* Poll until want completions arrived; while nothing comes, let 100 ms
 * of (simulated) time pass, as a real wait would. */
static int collect(struct bm_disk *d, unsigned queue, struct bm_completion *out, int want, uint64_t max_ns)
{
    uint64_t t0 = plat_now_ns();
    int got = 0;

    while (got < want && plat_now_ns() - t0 < max_ns) {
        int n = d->ops->poll(d, queue, out + got, want - got);
        assert_true(n >= 0);
        got += n;
        if (n == 0)
            plat_sim_advance_ns(100000000ull);
    }
    return got;
}

static void expect_reads_ok(struct bm_disk *d, unsigned queue, unsigned n)
{
    struct bm_completion c[QD];
    uint64_t seen = 0;

    assert_int_equal(collect(d, queue, c, (int)n, 1000000000ull), (int)n);
    for (unsigned i = 0; i < n; i++) {
        assert_true(c[i].tag < n);
        assert_false(seen & (1ull << c[i].tag));
        seen |= 1ull << c[i].tag;
        assert_int_equal(c[i].status, BM_OK);
        assert_true(data_ok(buf_of(c[i].tag), lba_of(queue, c[i].tag), READ_BLOCKS));
    }
}

/* ---- Tests ---- */

static void test_probe_sets_up_queues_and_reads_at_qd64_return_the_models_data(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    assert_int_equal(m->enables, 1);
    assert_string_equal(d->model, "Baremark Model NVMe");
    assert_string_equal(d->serial, "NVME-MODEL-7");
    assert_int_equal(d->blocks, MODEL_BLOCKS);
    assert_int_equal(d->lba_bytes, 512);
    assert_int_equal(d->nqueues, MODEL_QUEUES);
    assert_int_equal(d->max_qd, MODEL_MQES);       /* one entry of the queue stays free */
    assert_true(d->max_transfer_bytes >= READ_BLOCKS * 512);
    for (unsigned q = 0; q < MODEL_QUEUES; q++)
        assert_true(m->sq[q + 1].live && m->cq[q + 1].live);

    for (unsigned q = 0; q < MODEL_QUEUES; q++) {
        /* Queue 0 gets 320 commands: its 256-entry queues wrap. */
        for (int round = 0; round < (q == 0 ? 5 : 1); round++) {
            submit_reads(d, q, 0, QD);
            expect_reads_ok(d, q, QD);
        }
    }
    assert_int_equal(m->reads_done, (5 + MODEL_QUEUES - 1) * QD);
    finish(m, ctrl);
}

/* The CQ head doorbell is written only when a new command needs the room
 * of the entries read: at QD1 about once per queue length, not once per
 * I/O; with every tag in flight (max_qd = entries - 1) before each
 * submission, so the controller never meets a full CQ (finish() checks
 * that, and that no head moved past what was posted). */
static void test_cq_head_is_released_only_when_a_command_needs_the_room(void **state)
{
    const unsigned entries = MODEL_MQES + 1, bs = 4096;
    uint8_t *bufs = plat_alloc_pages((size_t)MODEL_MQES * bs, false);
    struct nvme_model *m = model_new();
    struct bm_completion c[8];
    struct bm_disk *d;
    void *ctrl;
    unsigned heads;

    (void)state;
    assert_non_null(bufs);
    d = probe_one(m, &ctrl);
    for (unsigned i = 0; i < 4 * entries; i++) {
        assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, (8ull * i) % MODEL_BLOCKS, bs / 512, bufs), BM_OK);
        d->ops->flush(d, 0);
        assert_int_equal(collect(d, 0, c, 1, 1000000000ull), 1);
        assert_int_equal(c[0].status, BM_OK);
    }
    assert_true(data_ok(bufs, 8ull * (4 * entries - 1) % MODEL_BLOCKS, bs / 512));
    /* Four times round the queue: a release each time it is about full. */
    assert_true(m->io_cq_heads >= 3 && m->io_cq_heads <= 4);

    heads = m->io_cq_heads;
    for (unsigned t = 0; t < MODEL_MQES; t++)
        assert_int_equal(d->ops->submit(d, 0, t, BM_IO_READ, 8ull * t, bs / 512, bufs + (size_t)t * bs), BM_OK);
    d->ops->flush(d, 0);
    for (unsigned i = 0; i < 3 * entries; i++) {
        assert_int_equal(collect(d, 0, c, 1, 1000000000ull), 1);
        assert_int_equal(c[0].status, BM_OK);
        assert_int_equal(d->ops->submit(d, 0, c[0].tag, BM_IO_READ, (8ull * i) % MODEL_BLOCKS, bs / 512,
                                        bufs + (size_t)c[0].tag * bs), BM_OK);
        d->ops->flush(d, 0);
    }
    assert_int_equal(collect(d, 0, c, 1, 1000000000ull), 1); /* still flowing */
    assert_true(m->io_cq_heads > heads);
    assert_int_equal(m->reads_done, 4 * entries + MODEL_MQES + 3 * entries);
    finish(m, ctrl);
    plat_free_pages(bufs, (size_t)MODEL_MQES * bs);
}

static void test_media_error_fails_that_read_with_the_decoded_status(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[QD];
    const unsigned bad = 17;
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    m->bad_lba = lba_of(0, bad) + 100;
    submit_reads(d, 0, 0, 32);
    assert_int_equal(collect(d, 0, c, 32, 1000000000ull), 32);
    for (unsigned i = 0; i < 32; i++) {
        if (c[i].tag != bad) {
            assert_int_equal(c[i].status, BM_OK);
            assert_true(data_ok(buf_of(c[i].tag), lba_of(0, c[i].tag), READ_BLOCKS));
            continue;
        }
        assert_int_equal(c[i].status, BM_EIO);
        assert_non_null(strstr(c[i].detail, "Unrecovered Read Error"));
        assert_non_null(strstr(c[i].detail, "SCT 2h SC 81h"));
        assert_non_null(strstr(c[i].detail, "(5 retries)")); /* DNR was clear */
    }
    /* One bad block costs one command, not the disk. */
    m->bad_lba = NO_LBA;
    submit_reads(d, 0, 0, QD);
    expect_reads_ok(d, 0, QD);
    finish(m, ctrl);
}

static void test_read_without_completion_is_reset_and_the_controller_comes_back(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[QD];
    const unsigned hung = 9, held_tag = 40;
    struct bm_disk *d;
    uint64_t t0;
    char want[64];
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(0, hung);
    m->ignores_abort = true;
    t0 = plat_now_ns();
    submit_reads(d, 0, 0, 32);
    /* Queue 2 (SQ 2) has a read in flight too, younger than the hung one. */
    assert_int_equal(collect(d, 0, c, 31, 5000000000ull), 31);
    plat_sim_advance_ns(3000000000ull);
    m->hold_sq2 = true;
    submit_reads(d, 1, held_tag, 1);
    for (unsigned i = 0; i < 31; i++)
        assert_int_equal(c[i].status, BM_OK);

    assert_int_equal(collect(d, 0, c, 1, 70000000000ull), 1);
    /* Abort first (at 30 s); when that does not bring it back either, the
     * reset (10 s later, inside the engine's 60 s stall limit). Not reported before the
     * controller stopped: it can no longer write into the buffer the
     * engine gets back. */
    assert_int_equal(m->aborts, 1);
    assert_int_equal(m->resets, 1);
    assert_int_equal(c[0].tag, hung);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    snprintf(want, sizeof(want), "SQ 1 CID %u", hung);
    assert_non_null(strstr(c[0].detail, want));
    assert_non_null(strstr(c[0].detail, "no completion"));
    assert_true(plat_now_ns() - t0 >= 40000000000ull);
    assert_true(plat_now_ns() - t0 < 42000000000ull);

    /* The controller is enabled again and each queue re-created by its own
     * poll (Linux nvme_reset_work()); the other queue's read, which the
     * reset took, goes out again and completes with its data (Linux
     * requeues what a reset cancels). */
    m->hold_sq2 = false;
    assert_int_equal(collect(d, 1, c, 1, 5000000000ull), 1);
    assert_int_equal(c[0].tag, held_tag);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(held_tag), lba_of(1, held_tag), READ_BLOCKS));
    assert_int_equal(m->enables, 2);
    assert_false(m->sq[1].live);             /* queue 0 comes back on its own next poll */
    assert_int_equal(d->ops->poll(d, 0, c, QD), 0);
    assert_true(m->sq[1].live && m->cq[1].live);

    /* A late completion of the reset's command finds nothing: no write. */
    memset(buf_of(hung), 0xee, READ_BLOCKS * 512);
    model_release_held(m);
    assert_int_equal(buf_of(hung)[0], 0xee);
    /* The disk is back in service, the timed-out queue too. */
    m->hang_lba = NO_LBA;
    submit_reads(d, 0, 0, QD);
    expect_reads_ok(d, 0, QD);
    finish(m, ctrl);
}

static unsigned probe_many(struct nvme_model *m, unsigned prefill, struct bm_disk_list *list, void **ctrl, char *err,
                           size_t errlen);

/* Submit one read, retrying while the controller is being brought back
 * (BM_EBUSY), and wait for it. */
static int read_when_back(struct bm_disk *d, unsigned tag, uint64_t lba, struct bm_completion *c, uint64_t max_ns)
{
    uint64_t t0 = plat_now_ns();
    int rc;

    while ((rc = d->ops->submit(d, 0, tag, BM_IO_READ, lba, READ_BLOCKS, buf_of(tag))) == BM_EBUSY) {
        assert_true(d->ops->poll(d, 0, c, 1) == 0);
        plat_sim_advance_ns(10000000ull);
        assert_true(plat_now_ns() - t0 < 20000000000ull);
    }
    if (rc != BM_OK)
        return rc;
    assert_int_equal(collect(d, 0, c, 1, max_ns), 1);
    return c->status;
}

static void test_other_namespace_carries_on_after_a_reset(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[4];
    struct bm_disk_list list;
    struct bm_disk *a, *b;
    char err[160];
    void *ctrl;

    (void)state;
    m->nns = 2;
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 2);
    a = list.disks[0];
    b = list.disks[1];
    m->hang_lba = lba_of(0, 1);
    m->ignores_abort = true;
    submit_reads(a, 0, 1, 1);
    assert_int_equal(collect(a, 0, c, 1, 50000000000ull), 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(m->resets, 1);
    /* The other namespace's disk works on once the controller is back. */
    assert_int_equal(read_when_back(b, 2, lba_of(0, 2), c, 1000000000ull), BM_OK);
    assert_true(data_ok(buf_of(2), lba_of(0, 2), READ_BLOCKS));
    assert_int_equal(m->enables, 2);
    finish(m, ctrl);
}

static void test_commands_kept_for_the_controllers_return_are_reported_if_it_does_not(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[4];
    const unsigned held_tag = 7;
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(0, 1);
    m->ignores_abort = true;
    submit_reads(d, 0, 1, 1);
    plat_sim_advance_ns(5000000000ull);
    m->hold_sq2 = true;
    submit_reads(d, 1, held_tag, 1);          /* younger: kept over the reset */
    m->never_ready = true;                   /* and it will not come back */
    assert_int_equal(collect(d, 0, c, 1, 50000000000ull), 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(collect(d, 1, c, 1, 10000000000ull), 1);
    assert_int_equal(c[0].tag, held_tag);
    assert_int_equal(c[0].status, BM_EIO);
    assert_non_null(strstr(c[0].detail, "aborted"));
    assert_int_equal(d->ops->submit(d, 1, 0, BM_IO_READ, 0, 8, buf_of(0)), BM_EIO);
    finish(m, ctrl);
}

static void test_controller_is_given_up_after_three_resets(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[4];
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(0, 1);
    m->ignores_abort = true;
    for (int i = 0; i < 3; i++)
        assert_int_equal(read_when_back(d, 1, lba_of(0, 1), c, 50000000000ull), BM_ETIMEDOUT);
    assert_int_equal(m->resets, 3);
    assert_int_equal(read_when_back(d, 1, lba_of(0, 1), c, 50000000000ull), BM_ETIMEDOUT);
    assert_int_equal(m->resets, 4);
    /* The fourth reset is the last: the disk is out of service. */
    m->hang_lba = NO_LBA;
    for (int i = 0; i < 10; i++)
        (void)d->ops->poll(d, 0, c, 4);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 8, buf_of(0)), BM_EIO);
    finish(m, ctrl);
}

static void test_controller_never_ready_fails_probe_within_cap_to_naming_csts(void **state)
{
    struct nvme_model *m = model_new();
    char err[160] = "";
    uint64_t t0 = plat_now_ns(), to_ns = MODEL_TO * 500000000ull;

    (void)state;
    m->never_ready = true;
    probe_fails(m, BM_ETIMEDOUT, err, sizeof(err));
    assert_non_null(strstr(err, "CSTS.RDY"));
    assert_non_null(strstr(err, "2000 ms"));
    assert_true(plat_now_ns() - t0 >= to_ns);
    assert_true(plat_now_ns() - t0 < to_ns + 500000000ull);
    plat_sim_detach(&m->dev);
}

static void test_fatal_status_while_enabling_fails_probe_naming_cfs(void **state)
{
    struct nvme_model *m = model_new();
    char err[160] = "";
    uint64_t t0 = plat_now_ns();

    (void)state;
    m->cfs_on_enable = true;
    probe_fails(m, BM_EIO, err, sizeof(err));
    assert_non_null(strstr(err, "CSTS.CFS"));
    /* No device prefix: the record's where (discover.c) names the controller. */
    assert_null(strstr(err, "0000:03:00.0"));
    assert_true(plat_now_ns() - t0 < MODEL_TO * 500000000ull);
    plat_sim_detach(&m->dev);
}

static void test_fatal_status_instead_of_an_admin_completion_fails_probe_naming_cfs(void **state)
{
    struct nvme_model *m = model_new();
    char err[160] = "";
    uint64_t t0 = plat_now_ns();

    (void)state;
    m->cfs_on_identify = true;
    probe_fails(m, BM_EIO, err, sizeof(err));
    assert_non_null(strstr(err, "CSTS.CFS"));
    assert_non_null(strstr(err, "Identify"));
    assert_false(m->cc & CC_EN);             /* reset on the way out */
    assert_true(plat_now_ns() - t0 < 10000000000ull);
    plat_sim_detach(&m->dev);
}

static void test_admin_command_without_completion_fails_probe_in_bounded_time(void **state)
{
    struct nvme_model *m = model_new();
    char err[160] = "";
    uint64_t t0 = plat_now_ns();

    (void)state;
    m->identify_hangs = true;
    probe_fails(m, BM_ETIMEDOUT, err, sizeof(err));
    assert_non_null(strstr(err, "Identify"));
    assert_non_null(strstr(err, "no completion"));
    assert_int_equal(m->resets, 1);          /* reset before its memory went back */
    assert_int_equal(m->shutdowns, 0);       /* no shutdown asked of a controller that stopped answering */
    assert_false(m->cc & CC_EN);
    assert_true(plat_now_ns() - t0 < 62000000000ull);
    plat_sim_detach(&m->dev);
}

static void test_controller_that_vanishes_returns_every_command_as_timed_out(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[8];
    struct bm_disk *d;
    uint64_t t0;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    m->gone = true;
    t0 = plat_now_ns();
    submit_reads(d, 0, 0, 8);
    assert_int_equal(collect(d, 0, c, 8, 40000000000ull), 8);
    for (unsigned i = 0; i < 8; i++) {
        assert_int_equal(c[i].status, BM_ETIMEDOUT);
        assert_non_null(strstr(c[i].detail, "no completion"));
    }
    assert_true(plat_now_ns() - t0 < 32000000000ull);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 8, buf_of(0)), BM_EIO);
    nvme_driver.release(ctrl);
    assert_int_equal(m->dev.releases, 1);
    plat_sim_detach(&m->dev);
}

static void test_controller_that_ignores_the_reset_keeps_its_buffers(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[8];
    const unsigned hung = 3;
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(0, hung);
    m->ignores_reset = true;
    m->ignores_abort = true;
    submit_reads(d, 0, 0, 8);
    assert_int_equal(collect(d, 0, c, 7, 1000000000ull), 7);
    /* Timed out, reset written (CC.EN = 0), but CSTS.RDY stays 1: the
     * controller may still write into the buffer, so the command must not
     * come back, however long the engine polls (its own stall detection
     * then keeps the buffers). */
    assert_int_equal(collect(d, 0, c, 1, 90000000000ull), 0);
    assert_false(m->cc & CC_EN);
    assert_true(m->csts & CSTS_RDY);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 8, buf_of(0)), BM_EIO);

    /* If it does finish the read after all, the command comes back then. */
    model_release_held(m);
    assert_int_equal(collect(d, 0, c, 1, 1000000000ull), 1);
    assert_int_equal(c[0].tag, hung);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(hung), lba_of(0, hung), READ_BLOCKS));

    /* Release cannot stop it either: bounded, and the memory stays. */
    nvme_driver.release(ctrl);
    assert_int_equal(m->dev.releases, 1);
    plat_sim_detach(&m->dev);
}

static void test_fatal_status_during_io_is_named_in_the_timed_out_commands(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[4];
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    m->fatal_on_read = true;
    submit_reads(d, 0, 0, 4);
    assert_int_equal(collect(d, 0, c, 4, 40000000000ull), 4);
    assert_int_equal(m->aborts, 0);          /* a fatal status is reset at once (Linux nvme_should_reset()) */
    assert_int_equal(m->resets, 1);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(c[i].status, BM_ETIMEDOUT);
        assert_non_null(strstr(c[i].detail, "CSTS.CFS"));
    }
    finish(m, ctrl);
}

static void test_queue_creation_refused_fails_probe_with_the_decoded_status(void **state)
{
    struct nvme_model *m = model_new();
    char err[160] = "";

    (void)state;
    m->refuse_create_sq = true;
    probe_fails(m, BM_EIO, err, sizeof(err));
    assert_non_null(strstr(err, "Create I/O SQ failed"));
    assert_non_null(strstr(err, "SCT 1h SC 01h"));
    assert_false(m->cc & CC_EN);             /* reset: the created CQ is gone before its memory */
    plat_sim_detach(&m->dev);
}

static void test_one_granted_queue_pair_gives_one_queue(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    m->grant = 1;
    d = probe_one(m, &ctrl);
    assert_int_equal(d->nqueues, 1);
    assert_false(m->sq[2].live);
    assert_int_equal(d->ops->submit(d, 1, 0, BM_IO_READ, 0, 8, buf_of(0)), BM_EINVAL);
    submit_reads(d, 0, 0, QD);
    expect_reads_ok(d, 0, QD);
    finish(m, ctrl);
}

/* Probe a model with nns namespaces into a list that already holds
 * prefill disks; returns the probe's note (err) and the disks it added. */
static unsigned probe_many(struct nvme_model *m, unsigned prefill, struct bm_disk_list *list, void **ctrl, char *err,
                           size_t errlen)
{
    static struct bm_disk fake;
    int rc;

    memset(list, 0, sizeof(*list));
    for (unsigned i = 0; i < prefill; i++)
        assert_int_equal(disk_list_add(list, &fake), BM_OK);
    err[0] = '\0';
    rc = nvme_driver.probe(model_addr, 0, list, ctrl, err, errlen);
    if (rc != BM_OK)
        fail_msg("probe: %s (%s)", bm_strerror(rc), err);
    return list->count - prefill;
}

static void test_namespaces_beyond_our_limit_are_named_in_the_probe_note(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    m->nns = 40;
    m->grant = 36;
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 32);
    assert_string_equal(list.disks[31]->id + strlen(list.disks[31]->id) - 3, "n32");
    assert_non_null(strstr(err, "32 of 40 namespaces used: baremark takes at most 32 namespaces per controller"));
    assert_int_equal(list.dropped, 0);
    finish(m, ctrl);
}

static void test_namespaces_without_a_queue_pair_are_named_in_the_probe_note(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    m->nns = 6;                    /* granted: MODEL_QUEUES (4) queue pairs */
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), MODEL_QUEUES);
    assert_non_null(strstr(err, "4 of 6 namespaces used: the controller granted only 4 I/O queue pairs"));
    finish(m, ctrl);
}

static void test_namespaces_past_a_full_disk_list_are_counted_as_dropped(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    m->nns = 3;
    assert_int_equal(probe_many(m, BM_MAX_DISKS - 2, &list, &ctrl, err, sizeof(err)), 2);
    assert_non_null(strstr(err, "2 of 3 namespaces used: the disk list is full (64 disks)"));
    assert_int_equal(list.dropped, 1);
    finish(m, ctrl);
}

/* The reason a namespace was skipped stays in the probe's note when a
 * usable namespace follows it (Identify of the next one must not wipe it). */
static void test_skipped_namespace_keeps_its_reason_in_the_probe_note(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    m->nns = 2;
    m->meta_ns = 1u << 0;
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 1);
    assert_int_equal(list.disks[0]->port, 2);
    assert_string_equal(err, "namespace 1 skipped: formatted with 8 bytes of metadata per block (separate buffer)");
    finish(m, ctrl);
}

/* A sequential scan past 32 usable namespaces gives each disk its own
 * namespace's size, not that of one identified later. */
static void test_scan_past_32_namespaces_keeps_each_disks_own_size(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    m->nns = 40;
    m->grant = 36;
    m->ns_list_refused = true;
    m->sizes_by_nsid = true;
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 32);
    for (unsigned i = 0; i < 32; i++) {
        assert_int_equal(list.disks[i]->port, i + 1);
        assert_int_equal(list.disks[i]->blocks, model_blocks(m) - (i + 1));
    }
    assert_non_null(strstr(err, "32 of 40 namespaces used: baremark takes at most 32 namespaces per controller"));
    finish(m, ctrl);
}

static void test_one_namespace_gives_no_probe_note(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 1);
    assert_string_equal(err, "");
    finish(m, ctrl);
}

/* ---- Real-hardware behaviour (issue 11) ---- */

static void test_flbas_high_bits_give_the_4096_byte_format_17(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[4];
    struct bm_disk *d;
    uint8_t *buf = buf_of(0);
    void *ctrl;

    (void)state;
    m->wide_formats = true;
    d = probe_one(m, &ctrl);
    assert_int_equal(d->lba_bytes, 4096);
    assert_int_equal(d->blocks, model_blocks(m));
    memset(buf, 0xee, 16 * 4096);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 1234, 16, buf), BM_OK);
    assert_int_equal(collect(d, 0, c, 1, 1000000000ull), 1);
    assert_int_equal(c[0].status, BM_OK);
    for (uint32_t i = 0; i < 16 * 4096; i++)
        if (buf[i] != pattern(1234 + i / 4096, i % 4096))
            fail_msg("byte %u of the 4 KiB-block read differs", i);
    finish(m, ctrl);
}

static void test_pm1725_with_mqes_0_gets_64_entry_queues(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    model_set_id(m, 0x144d, 0xa822);
    m->cap &= ~0xffffull;                    /* MQES 0 */
    m->max_qsize = 64;
    d = probe_one(m, &ctrl);
    assert_int_equal(d->max_qd, 63);
    assert_true(has_quirk(d, "mqes0_depth_64"));
    assert_true(has_quirk(d, "delay_before_chk_rdy"));
    submit_reads(d, 0, 0, 63);
    expect_reads_ok(d, 0, 63);
    finish(m, ctrl);
}

static void test_controller_without_the_quirk_and_mqes_0_is_refused(void **state)
{
    struct nvme_model *m = model_new();
    char err[160] = "";

    (void)state;
    m->cap &= ~0xffffull;
    probe_fails(m, BM_ENOTSUP, err, sizeof(err));
    assert_non_null(strstr(err, "CAP.MQES 0"));
    plat_sim_detach(&m->dev);
}

static void test_sn200_csts_is_not_read_while_it_resets(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    model_set_id(m, 0x1c58, 0x0023);         /* WD SN200 */
    m->blackout_ns = 2000000000ull;
    /* The firmware's driver left it running. */
    m->cc = CC_EN;
    m->csts = CSTS_RDY;
    d = probe_one(m, &ctrl);
    assert_int_equal(m->early_csts_reads, 0);
    assert_true(has_quirk(d, "delay_before_chk_rdy"));
    finish(m, ctrl);
    assert_int_equal(m->early_csts_reads, 0);
}

static void test_failed_active_namespace_list_falls_back_to_scanning_1_to_nn(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    m->ns_list_refused = true;
    m->nns = 4;
    m->inactive = 1u << 1;                   /* NSID 2 */
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 3);
    assert_string_equal(err, "");
    assert_string_equal(list.disks[0]->id + strlen(list.disks[0]->id) - 2, "n1");
    assert_string_equal(list.disks[1]->id + strlen(list.disks[1]->id) - 2, "n3");
    assert_string_equal(list.disks[2]->id + strlen(list.disks[2]->id) - 2, "n4");
    assert_true(has_quirk(list.disks[0], "ns_list_refused"));
    finish(m, ctrl);
}

static void test_slow_ready_is_waited_for_as_long_as_crto_says(void **state)
{
    struct nvme_model *m = model_new();
    void *ctrl;

    (void)state;
    m->ready_delay_ns = 5000000000ull;       /* 5 s; CAP.TO says 2 s */
    m->cap |= 1ull << 59;                    /* CAP.CRMS.CRWMS */
    m->crto = 12;                            /* CRWMT: 6 s */
    (void)probe_one(m, &ctrl);
    assert_int_equal(m->enables, 1);
    finish(m, ctrl);
}

static void test_half_enabled_controller_costs_no_cap_to_wait(void **state)
{
    struct nvme_model *m = model_new();
    uint64_t t0 = plat_now_ns();
    void *ctrl;

    (void)state;
    m->cc = CC_EN;                           /* EN = 1, RDY = 0, and it stays so */
    m->half_enabled = true;
    (void)probe_one(m, &ctrl);
    assert_true(plat_now_ns() - t0 < MODEL_TO * 500000000ull);
    finish(m, ctrl);
}

static void test_namespace_not_ready_is_retried_after_the_command_retry_delay(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[1];
    struct bm_disk *d;
    uint64_t t0;
    void *ctrl;

    (void)state;
    m->crdt1 = 5;                            /* 500 ms */
    m->not_ready_reads = 2;
    d = probe_one(m, &ctrl);
    assert_true(m->acre);                    /* asked for CRD (Linux nvme_configure_acre()) */
    t0 = plat_now_ns();
    submit_reads(d, 0, 0, 1);
    assert_int_equal(collect(d, 0, c, 1, 5000000000ull), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(0), lba_of(0, 0), READ_BLOCKS));
    assert_int_equal(m->not_ready_sent, 2);
    assert_int_equal(m->early_retries, 0);
    assert_true(plat_now_ns() - t0 >= 1000000000ull);
    finish(m, ctrl);
}

/* Read 5 of 16 hangs: the other 15 come back within 1 s, read 5 within
 * wait_ns as timed out (no sooner than timeout_ns after it was submitted),
 * its detail naming `said`, after one Abort and no reset. Returns the
 * disk, for the caller's further checks. */
static struct bm_disk *hung_read_is_aborted(struct nvme_model *m, void **ctrl, uint64_t timeout_ns, uint64_t wait_ns,
                                            const char *said)
{
    struct bm_completion c[QD];
    const unsigned hung = 5;
    struct bm_disk *d;
    uint64_t t0;

    d = probe_one(m, ctrl);
    m->hang_lba = lba_of(0, hung);
    t0 = plat_now_ns();
    submit_reads(d, 0, 0, 16);
    assert_int_equal(collect(d, 0, c, 15, 1000000000ull), 15);
    assert_int_equal(collect(d, 0, c, 1, wait_ns), 1);
    assert_int_equal(c[0].tag, hung);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_non_null(strstr(c[0].detail, said));
    assert_true(plat_now_ns() - t0 >= timeout_ns);
    assert_int_equal(m->aborts, 1);
    assert_int_equal(m->resets, 0);          /* no reset: the controller carries on */
    return d;
}

static void test_read_that_never_completes_is_aborted_and_the_rest_carry_on(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    d = hung_read_is_aborted(m, &ctrl, 30000000000ull, 35000000000ull, "aborted");
    assert_int_equal(m->aborts_hit, 1);
    m->hang_lba = NO_LBA;
    submit_reads(d, 0, 0, QD);
    expect_reads_ok(d, 0, QD);
    finish(m, ctrl);
}

/* io_timeout=2 (bm_set_io_timeout_ns, as discovery does before probing):
 * the hung read gets its Abort and comes back timed out after 2 s, not the
 * default 30 s, and its detail names the 2 s. */
static void test_io_timeout_option_sets_when_a_read_is_aborted(void **state)
{
    struct nvme_model *m = model_new();
    void *ctrl;

    (void)state;
    bm_set_io_timeout_ns(2000000000ull);
    hung_read_is_aborted(m, &ctrl, 2000000000ull, 3000000000ull, "no completion within 2 s: aborted");
    finish(m, ctrl);
}

/* Back to the default command timeout for the tests after. */
static int default_io_timeout(void **state)
{
    (void)state;
    bm_set_io_timeout_ns(0);
    return 0;
}

static void test_host_memory_buffer_is_lent_and_taken_back_before_release(void **state)
{
    struct nvme_model *m = model_new();
    void *ctrl;

    (void)state;
    m->hmpre = 8192;                         /* 32 MiB */
    m->hmmin = 1024;                         /* 4 MiB */
    (void)probe_one(m, &ctrl);
    assert_true(m->hmb_on);
    assert_int_equal(m->hmb_enables, 1);
    assert_int_equal(m->hmb_bytes, 32u << 20);
    nvme_driver.release(ctrl);
    assert_int_equal(m->hmb_disables, 1);
    assert_int_equal(m->resets_with_hmb_on, 0);
    plat_sim_detach(&m->dev);
}

static void test_host_memory_buffer_is_lent_again_after_a_timeout_reset(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[4];
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    m->hmpre = 2048;
    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(0, 1);
    m->ignores_abort = true;
    submit_reads(d, 0, 1, 1);
    assert_int_equal(collect(d, 0, c, 1, 50000000000ull), 1);
    assert_int_equal(m->resets, 1);
    assert_false(m->hmb_on);
    m->hang_lba = NO_LBA;
    assert_int_equal(read_when_back(d, 2, lba_of(0, 2), c, 1000000000ull), BM_OK);
    assert_true(m->hmb_on);
    assert_int_equal(m->hmb_enables, 2);
    assert_true(m->hmb_returned);            /* MR: the same memory as before (Linux NVME_HOST_MEM_RETURN) */
    assert_int_equal(m->resets_with_hmb_on, 1); /* the timeout reset: nothing else would stop it */
    nvme_driver.release(ctrl);
    assert_int_equal(m->hmb_disables, 1);
    assert_int_equal(m->resets_with_hmb_on, 1); /* release turned it off first */
    plat_sim_detach(&m->dev);
}

/* Advanced command retry is a feature, and features do not survive a
 * controller reset: after a timeout reset the driver turns ACRE on again
 * (Linux nvme_configure_acre() from nvme_init_ctrl_finish() on every
 * reset), or the controller's Command Retry Delay would be lost. */
static void test_acre_is_enabled_again_after_a_timeout_reset(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[4];
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    m->crdt1 = 5;
    d = probe_one(m, &ctrl);
    assert_true(m->acre);
    m->hang_lba = lba_of(0, 1);
    m->ignores_abort = true;
    submit_reads(d, 0, 1, 1);
    assert_int_equal(collect(d, 0, c, 1, 50000000000ull), 1);
    assert_int_equal(m->resets, 1);
    m->hang_lba = NO_LBA;
    assert_int_equal(read_when_back(d, 2, lba_of(0, 2), c, 1000000000ull), BM_OK);
    assert_true(m->acre);
    finish(m, ctrl);
}

/* One poll() of queue q, which must neither wait nor read registers in a
 * loop: a poll that waits for a slow controller freezes every other disk
 * the CPU (and the engine's loop) drives. The bounds are far above the
 * few register reads a step takes and far below any wait. */
#define POLL_READS_MAX 16
#define POLL_NS_MAX (50ull * 1000000ull)
static int poll_quick(struct nvme_model *m, struct bm_disk *d, unsigned q, struct bm_completion *out, int max)
{
    uint64_t reads = m->reg_reads, t0 = plat_now_ns();
    int n = d->ops->poll(d, q, out, max);

    assert_true(n >= 0);
    if (m->reg_reads - reads > POLL_READS_MAX || plat_now_ns() - t0 > POLL_NS_MAX)
        fail_msg("one poll made %llu register reads in %llu ms", (unsigned long long)(m->reg_reads - reads),
                 (unsigned long long)((plat_now_ns() - t0) / 1000000ull));
    return n;
}

/* The disk's recovery record (blkdev.h recovery). */
static void record_of(struct bm_disk *d, char *rec, size_t len)
{
    if (!d->ops->recovery)
        fail_msg("the disk keeps no recovery record");
    d->ops->recovery(d, rec, len);
}

/* A read times out and the controller is reset; queue 1 holds a younger
 * read the reset takes. Polls both queues (each poll checked by
 * poll_quick) until the timed-out read is reported. */
static void time_out_one_read_with_one_kept(struct nvme_model *m, struct bm_disk *d, unsigned hung, unsigned kept)
{
    struct bm_completion c[4];
    uint64_t t0 = plat_now_ns();
    int n = 0;

    m->hang_lba = lba_of(0, hung);
    m->ignores_abort = true;
    submit_reads(d, 0, hung, 1);
    plat_sim_advance_ns(5000000000ull);
    m->hold_sq2 = true;
    submit_reads(d, 1, kept, 1);
    while (n == 0) {
        assert_true(plat_now_ns() - t0 < 50000000000ull);
        assert_int_equal(poll_quick(m, d, 1, c, 4), 0);
        n = poll_quick(m, d, 0, c, 4);
        if (n == 0)
            plat_sim_advance_ns(100000000ull);
    }
    assert_int_equal(n, 1);
    assert_int_equal(c[0].tag, hung);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_int_equal(m->resets, 1);
    m->hang_lba = NO_LBA;
    m->hold_sq2 = false;
}

/* A controller slow to answer Set Features Number of Queues after a reset
 * (3 s here): the recovery posts it in one poll and looks for the answer
 * in the next ones (Linux nvme_reset_work() -> nvme_setup_io_queues() ->
 * nvme_set_queue_count(), run by a work item, not by the I/O path), so no
 * poll waits; the disk's record names the step while it is under way,
 * and once answered the kept read goes out again and completes. Fails
 * before the step was split: one poll waited inside nvme_admin() for the
 * answer (about 3 million CSTS reads). */
static void test_late_set_features_after_a_reset_never_holds_a_poll(void **state)
{
    struct nvme_model *m = model_new();
    const unsigned hung = 3, kept = 12;
    struct bm_completion c[4];
    char rec[160] = "";
    struct bm_disk *d;
    uint64_t t0;
    bool named = false;
    int n = 0;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    m->late_feature = 0x07;
    m->late_ns = 3000000000ull;
    time_out_one_read_with_one_kept(m, d, hung, kept);
    t0 = plat_now_ns();
    while (n == 0) {
        assert_true(plat_now_ns() - t0 < 20000000000ull);
        n = poll_quick(m, d, 1, c, 4);
        (void)poll_quick(m, d, 0, c + n, 4 - n);
        if (m->late.pending && !named) {
            record_of(d, rec, sizeof(rec));
            named = strstr(rec, "Set Features Number of Queues") != NULL;
        }
        if (n == 0)
            plat_sim_advance_ns(100000000ull);
    }
    assert_true(named);
    assert_int_equal(m->late_answered, 1);
    assert_int_equal(n, 1);
    assert_int_equal(c[0].tag, kept);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(kept), lba_of(1, kept), READ_BLOCKS));
    assert_true(plat_now_ns() - t0 >= 3000000000ull); /* it did wait for the answer */
    record_of(d, rec, sizeof(rec));
    assert_non_null(strstr(rec, "last reset back after"));
    assert_int_equal(m->resets, 1);
    finish(m, ctrl);
}

/* Set Features Host Behavior Support (ACRE, Linux nvme_configure_acre(),
 * the first step after enable) never answered: the recovery gives up
 * after its own bound (NVME_RECOVER_ADMIN_TIMEOUT_NS, 10 s) without any
 * poll waiting, disables the controller (Linux nvme_timeout() during a
 * reset -> nvme_dev_disable()), reports the kept read as aborted, and the
 * disk's record names the step and the timeout. Fails before the step was
 * split: one poll waited 60 s inside nvme_admin(), then the reset went
 * on without ACRE. */
static void test_set_features_never_answered_after_a_reset_ends_the_recovery_naming_it(void **state)
{
    struct nvme_model *m = model_new();
    const unsigned hung = 3, kept = 12;
    struct bm_completion c[4];
    char rec[160] = "";
    struct bm_disk *d;
    uint64_t t0;
    int n = 0;
    void *ctrl;

    (void)state;
    m->crdt1 = 5;
    d = probe_one(m, &ctrl);
    m->late_feature = 0x16;
    m->late_ns = UINT64_MAX;
    time_out_one_read_with_one_kept(m, d, hung, kept);
    t0 = plat_now_ns();
    while (n == 0) {
        assert_true(plat_now_ns() - t0 < 30000000000ull);
        n = poll_quick(m, d, 1, c, 4);
        (void)poll_quick(m, d, 0, c + n, 4 - n);
        if (n == 0)
            plat_sim_advance_ns(100000000ull);
    }
    assert_int_equal(n, 1);
    assert_int_equal(c[0].tag, kept);
    assert_int_equal(c[0].status, BM_EIO);
    assert_non_null(strstr(c[0].detail, "aborted"));
    assert_true(plat_now_ns() - t0 >= 10000000000ull);
    assert_int_equal(m->late_answered, 0);
    assert_false(m->cc & CC_EN);             /* disabled on giving up */
    record_of(d, rec, sizeof(rec));
    assert_non_null(strstr(rec, "last reset gave up at Set Features ACRE (no completion in 10000 ms)"));
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 8, buf_of(0)), BM_EIO);
    finish(m, ctrl);
}

/* A bm_disk whose depth was raised past what its queues hold (max_qd >
 * entries - 1, section 4.1: a full queue holds entries - 1) is refused
 * at submit instead of overrunning the submission queue. */
static void test_submit_refuses_a_depth_beyond_the_queue(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk *d;
    uint8_t *buf = plat_alloc_pages(4096, false);
    uint32_t qd;
    void *ctrl;

    (void)state;
    d = probe_one(m, &ctrl);
    qd = d->max_qd;
    d->max_qd = qd + 1;                      /* what the queue cannot hold */
    assert_int_equal(d->ops->submit(d, 0, qd, BM_IO_READ, 0, 1, buf), BM_EINVAL);
    d->max_qd = qd;
    plat_free_pages(buf, 4096);
    finish(m, ctrl);
}

static void test_release_deletes_queues_and_shuts_down_before_the_reset(void **state)
{
    struct nvme_model *m = model_new();
    void *ctrl;

    (void)state;
    (void)probe_one(m, &ctrl);
    finish(m, ctrl);
    assert_int_equal(m->deleted_sqs, MODEL_QUEUES);
    assert_int_equal(m->deleted_cqs, MODEL_QUEUES);
    assert_int_equal(m->shutdowns, 1);
    assert_int_equal(m->resets_after_shutdown, 1);
}

/* A namespace formatted with type 1 PI in 8 bytes of metadata (QEMU
 * nvme-ns ms=8,pi=1; separate buffer, then extended LBA) is a disk of
 * 512-byte blocks whose reads carry PRACT and the LBA as reference tag:
 * data only crosses the bus. */
static void test_pi_namespace_is_read_with_pract_and_the_lbas_reference_tag(void **state)
{
    for (int ext = 0; ext < 2; ext++) {
        struct nvme_model *m = model_new();
        struct bm_disk *d;
        void *ctrl;

        (void)state;
        m->pi_ns = 1;
        m->ext_ns = ext ? 1 : 0;
        d = probe_one(m, &ctrl);
        assert_int_equal(d->pi_type, 1);
        assert_int_equal(d->lba_bytes, 512);
        submit_reads(d, 0, 0, 8);
        expect_reads_ok(d, 0, 8);
        assert_int_equal(m->pi_reads, 8);
        assert_int_equal(m->pi_refused, 0);
        finish(m, ctrl);
    }
}

/* CAP.CSS bit 6: CC.CSS = 110b, and a zoned namespace is named in the
 * probe's note instead of being measured as if it were NVM. */
static void test_zoned_namespace_is_named_and_not_measured(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    m->cap |= 0x40ull << 37;
    m->nns = 2;
    m->zoned_ns = 1u << 1;
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 1);
    assert_int_equal(m->css, 6);
    assert_int_equal(list.disks[0]->port, 1);
    assert_string_equal(err, "namespace 2 skipped: zoned namespace: not measured");
    assert_int_equal(m->desc_lists, 2);
    finish(m, ctrl);
}

/* A scan of 1..NN asks for the command set only of the namespaces that
 * are there (an inactive NSID returns zeroes). */
static void test_command_set_is_asked_only_of_present_namespaces(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    m->cap |= 0x40ull << 37;
    m->ns_list_refused = true;
    m->nns = 3;
    m->inactive = 1u << 1;
    m->zoned_ns = 1u << 2;
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 1);
    assert_int_equal(m->desc_lists, 2);
    assert_non_null(strstr(err, "namespace 3 skipped: zoned namespace: not measured"));
    finish(m, ctrl);
}

/* Without CAP.CSS bit 6, CC.CSS stays NVM (the model never becomes ready
 * otherwise) and no descriptor list is asked for. */
static void test_css_stays_nvm_without_cap_css_bit_6(void **state)
{
    struct nvme_model *m = model_new();
    void *ctrl;

    (void)state;
    (void)probe_one(m, &ctrl);
    assert_int_equal(m->css, 0);
    finish(m, ctrl);
}

/* Intel 0953 with a 128 KiB stripe (vs[3] = 5) and no MDTS: commands are
 * capped at the stripe, so 1 MiB reads split into aligned pieces the way
 * the engine splits them (efi/disk/engine.c) never cross one. */
static void test_intel_0953_commands_stay_within_its_stripe(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[8];
    struct bm_disk *d;
    uint8_t *big;
    uint32_t piece_blocks;
    void *ctrl;

    (void)state;
    model_set_id(m, 0x8086, 0x0953);
    m->no_mdts = true;
    m->vs3 = 5;
    m->stripe_bytes = 128u << 10;
    d = probe_one(m, &ctrl);
    assert_true(has_quirk(d, "stripe_size"));
    assert_int_equal(d->max_transfer_bytes, 128u << 10);
    big = plat_alloc_pages(1u << 20, true);
    assert_non_null(big);
    piece_blocks = MIN(d->max_transfer_bytes, 1u << 20) / 512;
    for (uint32_t t = 0; t * piece_blocks < 2048; t++)
        assert_int_equal(d->ops->submit(d, 0, t, BM_IO_READ, 4096 + t * piece_blocks, piece_blocks,
                                        big + (size_t)t * piece_blocks * 512), BM_OK);
    assert_int_equal(collect(d, 0, c, (int)(2048 / piece_blocks), 1000000000ull), (int)(2048 / piece_blocks));
    for (uint32_t i = 0; i < 2048 / piece_blocks; i++)
        assert_int_equal(c[i].status, BM_OK);
    assert_true(data_ok(big, 4096, 2048));
    assert_int_equal(m->stripe_crossings, 0);
    finish(m, ctrl);
    plat_free_pages(big, 1u << 20);
}

/* The engine's side of the 0953 stripe: a request that crosses a stripe
 * boundary goes out as commands that each stay inside one stripe (Linux:
 * chunk_sectors, blk_mq splitting at it), counted as one I/O. The model
 * fails any command that crosses. */
static const struct engine_timing stripe_timing = { 0, 20000000ull, 2000000000ull };

/* A 1 MiB sequential test on a disk whose I/O starts 64 KiB past a
 * 128 KiB stripe (its first aligned LBA there): nine commands per I/O. */
static void test_intel_0953_request_crossing_stripes_is_split_at_them(void **state)
{
    struct nvme_model *m = model_new();
    struct disk_test t = { .name = "SEQ1M", .op = BM_IO_READ, .bs = 1u << 20, .qd = 2, .threads = 1 };
    struct disk_job j;
    struct bm_disk *d;
    char why[160] = "";
    void *ctrl;

    (void)state;
    model_set_id(m, 0x8086, 0x0953);
    m->no_mdts = true;
    m->vs3 = 5;
    m->stripe_bytes = 128u << 10;
    d = probe_one(m, &ctrl);
    assert_int_equal(d->chunk_bytes, 128u << 10);
    d->align_lba = 128;                          /* 64 KiB: mid-stripe */
    assert_int_equal(engine_job_prepare(&j, d, &t, 1, why, sizeof(why)), BM_OK);
    assert_int_equal(j.pieces, 9);               /* 64 + 7 x 128 + 64 KiB */
    assert_int_equal(engine_run(&j, 1, &stripe_timing, "test", NULL), BM_OK);
    if (j.status != BM_OK)
        fail_msg("%s", j.detail);
    assert_int_equal(m->stripe_crossings, 0);
    assert_true(j.ios > 0);
    assert_int_equal(j.bytes, j.ios << 20);
    assert_int_equal(j.inflight, 0);
    assert_int_equal(j.slots[0].lba % 2048, 128); /* a whole I/O, landed where it was read */
    assert_true(data_ok(j.buf, j.slots[0].lba, 2048));
    engine_job_free(&j);
    finish(m, ctrl);
}

struct stripe_sweep {
    unsigned done;
    uint64_t lba;
    uint32_t blocks;
    int status;
    char detail[64];
};

static void stripe_sweep_done(void *ctx, uint64_t lba, uint32_t blocks, int status, const char *detail,
                              uint64_t lat_ns, uint64_t now_ns)
{
    struct stripe_sweep *x = ctx;

    (void)lat_ns, (void)now_ns;
    x->done++;
    if (status != BM_OK && x->status == BM_OK) {
        x->lba = lba, x->blocks = blocks, x->status = status;
        bm_strlcpy(x->detail, detail, sizeof(x->detail));
    }
}

static const struct engine_io_hooks stripe_sweep_hooks = { .done = stripe_sweep_done };

/* A sweep (the scan's, the verify's) of stripe-sized reads from 64 KiB
 * past a stripe: each read is two commands and reaches its caller once,
 * when both have ended; a read error in the second fails the read with
 * that command's status. */
static void test_intel_0953_sweep_read_fails_with_its_failing_part(void **state)
{
    struct nvme_model *m = model_new();
    struct stripe_sweep x = { 0 };
    struct disk_job j;
    struct bm_disk *d;
    char why[160] = "";
    void *ctrl;

    (void)state;
    model_set_id(m, 0x8086, 0x0953);
    m->no_mdts = true;
    m->vs3 = 5;
    m->stripe_bytes = 128u << 10;
    d = probe_one(m, &ctrl);
    m->bad_lba = 128 + 256 + 200;                /* in the second read's second part */
    assert_int_equal(engine_job_prepare_sweep(&j, d, BM_IO_READ, 128, 2048, 256, 4, &stripe_sweep_hooks, &x, why,
                                              sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&j, 1, &stripe_timing, "test", NULL), BM_OK);
    assert_int_equal(m->stripe_crossings, 0);
    assert_int_equal(x.done, 8);                 /* one call per read, not per command */
    assert_int_not_equal(x.status, BM_OK);
    assert_int_equal(x.lba, 128 + 256);
    assert_int_equal(x.blocks, 256);
    assert_non_null(strstr(x.detail, "Unrecovered"));
    assert_int_equal(j.inflight, 0);
    engine_job_free(&j);
    finish(m, ctrl);
}

/* A part that never completes keeps its whole I/O open: the caller never
 * hears of it (its first part's data may not be trusted alone), the engine
 * counts the part in flight and so keeps the buffer the controller may
 * still write (engine_job_free), however long ago the other part ended. */
static void test_intel_0953_sweep_read_with_a_hung_part_stays_in_flight(void **state)
{
    static const struct engine_timing short_stall = { 0, 20000000ull, 300000000ull };
    struct nvme_model *m = model_new();
    struct stripe_sweep x = { 0 };
    struct disk_job j;
    struct bm_disk *d;
    char why[160] = "";
    void *ctrl;

    (void)state;
    model_set_id(m, 0x8086, 0x0953);
    m->no_mdts = true;
    m->vs3 = 5;
    m->stripe_bytes = 128u << 10;
    d = probe_one(m, &ctrl);
    m->hang_lba = 128 + 256 + 200;               /* the second read's second part */
    assert_int_equal(engine_job_prepare_sweep(&j, d, BM_IO_READ, 128, 2048, 256, 1, &stripe_sweep_hooks, &x, why,
                                              sizeof(why)), BM_OK);
    assert_int_equal(engine_run(&j, 1, &short_stall, "test", NULL), BM_OK);
    assert_int_equal(x.done, 1);                 /* the first read only */
    assert_int_equal(x.status, BM_OK);
    assert_true(j.stuck);
    assert_int_equal(j.status, BM_ETIMEDOUT);
    assert_int_equal(j.inflight, 1);             /* the hung part: its buffer is kept */
    assert_true(j.slots[0].busy);
    assert_int_equal(j.slots[0].lba, 128 + 256);
    assert_int_equal(m->stripe_crossings, 0);
    engine_job_free(&j);
    m->hang_lba = NO_LBA;
    model_release_held(m);
    finish(m, ctrl);
}

/* Amazon EC2 NVMe: a buffer above 2^48 is refused at submit instead of
 * being sent to a controller that would not reach it. */
static void test_48_bit_dma_controller_gets_no_address_above_2_to_48(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_completion c[1];
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    model_set_id(m, 0x1d0f, 0x0061);
    m->dma48 = true;
    d = probe_one(m, &ctrl);
    assert_true(has_quirk(d, "dma_address_bits_48"));
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 8, (void *)(uintptr_t)(1ull << 48)), BM_EINVAL);
    (void)d->ops->poll(d, 0, c, 1);
    assert_int_equal(m->dma_over_48, 0);
    submit_reads(d, 0, 0, 4);            /* ordinary buffers still go */
    expect_reads_ok(d, 0, 4);
    finish(m, ctrl);
}

/* Apple 2005 (T2): 128-byte I/O SQ entries and I/O CIDs clear of the
 * admin queue's 0..31; reads return the right data at QD64. */
static void test_apple_2005_gets_128_byte_sq_entries_and_cids_above_the_admin_ones(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    model_set_id(m, 0x106b, 0x2005);
    m->sqe128 = true;
    m->shared_tags = true;
    d = probe_one(m, &ctrl);
    assert_true(has_quirk(d, "128_bytes_sqes"));
    assert_true(has_quirk(d, "shared_tags"));
    assert_int_equal(d->nqueues, 1);
    for (int round = 0; round < 3; round++) {   /* round the SQ more than once */
        submit_reads(d, 0, 0, QD);
        expect_reads_ok(d, 0, QD);
        submit_reads(d, 0, 0, QD);
        expect_reads_ok(d, 0, QD);
    }
    assert_int_equal(m->cid_collisions, 0);
    finish(m, ctrl);
}

/* Apple 2005: its queues share one tag space, so one I/O queue for the
 * whole controller (Linux nvme_max_io_queues() returns 1), though the
 * controller grants four; a second namespace is left out, named. */
static void test_apple_2005_gets_one_io_queue_for_its_shared_tags(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[160];
    void *ctrl;

    (void)state;
    model_set_id(m, 0x106b, 0x2005);
    m->sqe128 = true;
    m->shared_tags = true;
    m->nns = 2;
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 1);
    assert_int_equal(list.disks[0]->nqueues, 1);
    assert_int_equal(m->shared_tag_sqs, 0);
    assert_non_null(strstr(err, "1 of 2 namespaces used: one I/O queue on a controller whose queues share one tag"));
    submit_reads(list.disks[0], 0, 0, QD);
    expect_reads_ok(list.disks[0], 0, QD);
    assert_int_equal(m->cid_collisions, 0);
    finish(m, ctrl);
}

/* Apple 2001: queues of 2 entries, one command in flight (Linux q_depth 2). */
static void test_apple_2001_gets_a_queue_depth_of_one(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    model_set_id(m, 0x106b, 0x2001);
    d = probe_one(m, &ctrl);
    assert_true(has_quirk(d, "qdepth_one"));
    assert_int_equal(d->max_qd, 1);
    assert_int_equal(m->io_sq_size, 2);
    submit_reads(d, 0, 0, 1);
    expect_reads_ok(d, 0, 1);
    finish(m, ctrl);
}

/* A CMB that offers SQs is named in the probe's note, with why not used. */
static void test_cmb_offering_sqs_is_named_in_the_probe_note(void **state)
{
    struct nvme_model *m = model_new();
    struct bm_disk_list list;
    char err[256];
    void *ctrl;

    (void)state;
    m->cmbsz = 1u | 2u << 8 | 16u << 12;   /* SQS, SZU 1 MiB, 16 MiB */
    assert_int_equal(probe_many(m, 0, &list, &ctrl, err, sizeof(err)), 1);
    assert_non_null(strstr(err, "controller memory buffer offers submission queues (CMBSZ.SQS): not used"));
    finish(m, ctrl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_sets_up_queues_and_reads_at_qd64_return_the_models_data),
        cmocka_unit_test(test_pi_namespace_is_read_with_pract_and_the_lbas_reference_tag),
        cmocka_unit_test(test_zoned_namespace_is_named_and_not_measured),
        cmocka_unit_test(test_css_stays_nvm_without_cap_css_bit_6),
        cmocka_unit_test(test_command_set_is_asked_only_of_present_namespaces),
        cmocka_unit_test(test_intel_0953_commands_stay_within_its_stripe),
        cmocka_unit_test(test_intel_0953_request_crossing_stripes_is_split_at_them),
        cmocka_unit_test(test_intel_0953_sweep_read_fails_with_its_failing_part),
        cmocka_unit_test(test_intel_0953_sweep_read_with_a_hung_part_stays_in_flight),
        cmocka_unit_test(test_48_bit_dma_controller_gets_no_address_above_2_to_48),
        cmocka_unit_test(test_apple_2005_gets_128_byte_sq_entries_and_cids_above_the_admin_ones),
        cmocka_unit_test(test_apple_2005_gets_one_io_queue_for_its_shared_tags),
        cmocka_unit_test(test_apple_2001_gets_a_queue_depth_of_one),
        cmocka_unit_test(test_cmb_offering_sqs_is_named_in_the_probe_note),
        cmocka_unit_test(test_cq_head_is_released_only_when_a_command_needs_the_room),
        cmocka_unit_test(test_media_error_fails_that_read_with_the_decoded_status),
        cmocka_unit_test(test_read_without_completion_is_reset_and_the_controller_comes_back),
        cmocka_unit_test(test_other_namespace_carries_on_after_a_reset),
        cmocka_unit_test(test_controller_is_given_up_after_three_resets),
        cmocka_unit_test(test_commands_kept_for_the_controllers_return_are_reported_if_it_does_not),
        cmocka_unit_test(test_controller_never_ready_fails_probe_within_cap_to_naming_csts),
        cmocka_unit_test(test_fatal_status_while_enabling_fails_probe_naming_cfs),
        cmocka_unit_test(test_fatal_status_instead_of_an_admin_completion_fails_probe_naming_cfs),
        cmocka_unit_test(test_admin_command_without_completion_fails_probe_in_bounded_time),
        cmocka_unit_test(test_controller_that_vanishes_returns_every_command_as_timed_out),
        cmocka_unit_test(test_controller_that_ignores_the_reset_keeps_its_buffers),
        cmocka_unit_test(test_acre_is_enabled_again_after_a_timeout_reset),
        cmocka_unit_test(test_late_set_features_after_a_reset_never_holds_a_poll),
        cmocka_unit_test(test_set_features_never_answered_after_a_reset_ends_the_recovery_naming_it),
        cmocka_unit_test(test_submit_refuses_a_depth_beyond_the_queue),
        cmocka_unit_test(test_fatal_status_during_io_is_named_in_the_timed_out_commands),
        cmocka_unit_test(test_queue_creation_refused_fails_probe_with_the_decoded_status),
        cmocka_unit_test(test_one_granted_queue_pair_gives_one_queue),
        cmocka_unit_test(test_namespaces_beyond_our_limit_are_named_in_the_probe_note),
        cmocka_unit_test(test_namespaces_without_a_queue_pair_are_named_in_the_probe_note),
        cmocka_unit_test(test_namespaces_past_a_full_disk_list_are_counted_as_dropped),
        cmocka_unit_test(test_one_namespace_gives_no_probe_note),
        cmocka_unit_test(test_skipped_namespace_keeps_its_reason_in_the_probe_note),
        cmocka_unit_test(test_scan_past_32_namespaces_keeps_each_disks_own_size),
        cmocka_unit_test(test_flbas_high_bits_give_the_4096_byte_format_17),
        cmocka_unit_test(test_pm1725_with_mqes_0_gets_64_entry_queues),
        cmocka_unit_test(test_controller_without_the_quirk_and_mqes_0_is_refused),
        cmocka_unit_test(test_sn200_csts_is_not_read_while_it_resets),
        cmocka_unit_test(test_failed_active_namespace_list_falls_back_to_scanning_1_to_nn),
        cmocka_unit_test(test_slow_ready_is_waited_for_as_long_as_crto_says),
        cmocka_unit_test(test_half_enabled_controller_costs_no_cap_to_wait),
        cmocka_unit_test(test_namespace_not_ready_is_retried_after_the_command_retry_delay),
        cmocka_unit_test(test_read_that_never_completes_is_aborted_and_the_rest_carry_on),
        cmocka_unit_test_teardown(test_io_timeout_option_sets_when_a_read_is_aborted, default_io_timeout),
        cmocka_unit_test(test_host_memory_buffer_is_lent_and_taken_back_before_release),
        cmocka_unit_test(test_host_memory_buffer_is_lent_again_after_a_timeout_reset),
        cmocka_unit_test(test_release_deletes_queues_and_shuts_down_before_the_reset),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
