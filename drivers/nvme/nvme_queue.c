/* I/O queue pairs (NVMe 1.4 sections 5.3, 5.4): their memory, Create I/O
 * CQ and SQ at probe, and again after the controller was reset. */
#include "nvme_types.h"

static size_t sq_bytes(const struct nvme_queue *q)
{
    return ALIGN_UP((size_t)q->entries << q->sqe_log2, (size_t)NVME_PAGE_BYTES);
}

static size_t cq_bytes(uint32_t entries)
{
    return ALIGN_UP((size_t)entries << NVME_CQE_LOG2, (size_t)NVME_PAGE_BYTES);
}

static size_t prp_pool_bytes(const struct nvme_ns *ns)
{
    return ALIGN_UP((size_t)ns->disk.max_qd * ns->list_bytes, (size_t)NVME_PAGE_BYTES);
}

/* Free a queue's memory (the controller no longer owns it). */
void nvme_queue_free(struct nvme_ns *ns, struct nvme_queue *q)
{
    plat_free_pages(q->sq, sq_bytes(q));
    plat_free_pages((void *)q->cq, cq_bytes(q->entries));
    plat_free_pages(q->prp_lists, prp_pool_bytes(ns));
    plat_free(q->slots);
    q->sq = NULL;
    q->cq = NULL;
    q->prp_lists = NULL;
    q->slots = NULL;
}

/* Create I/O CQ, then the SQ bound to it (sections 5.3, 5.4), on the
 * queue's memory. Polled: IEN = 0. If the SQ fails, the CQ stays created
 * until the controller is reset. */
static int nvme_queue_register(struct nvme_ctrl *c, struct nvme_queue *q, char *err, size_t errlen)
{
    struct nvme_sqe cmd = { 0 };
    int rc;

    cmd.opcode = NVME_ADMIN_CREATE_CQ;
    cmd.prp1 = plat_virt_to_phys((const void *)q->cq);
    cmd.cdw10 = NVME_CREATE_CQ_CDW10(q->qid, q->entries);
    cmd.cdw11 = NVME_CREATE_CQ_PC;
    rc = nvme_admin(c, &cmd, NULL, err, errlen);
    if (rc != BM_OK)
        return rc;

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = NVME_ADMIN_CREATE_SQ;
    cmd.prp1 = plat_virt_to_phys(q->sq);
    cmd.cdw10 = NVME_CREATE_SQ_CDW10(q->qid, q->entries);
    cmd.cdw11 = NVME_CREATE_SQ_PC | NVME_CREATE_SQ_CQID(q->qid);
    return nvme_admin(c, &cmd, NULL, err, errlen);
}

/* Allocate an I/O queue pair and create it on the controller. */
int nvme_queue_create(struct nvme_ctrl *c, struct nvme_ns *ns, struct nvme_queue *q, uint16_t qid, uint32_t entries,
                      char *err, size_t errlen)
{
    memset(q, 0, sizeof(*q));
    q->qid = qid;
    q->entries = entries;
    q->phase = 1;
    /* Apple T2: 128-byte I/O SQ entries, CC.IOSQES notwithstanding (Linux
     * nvme_pci_enable(): io_sqes = 7 with NVME_QUIRK_128_BYTES_SQES). */
    q->sqe_log2 = (c->quirks & NVME_QUIRK_128_BYTES_SQES) ? NVME_QUIRK_SQE_LOG2_128 : NVME_SQE_LOG2;
    q->cid_base = (c->quirks & NVME_QUIRK_SHARED_TAGS) ? NVME_SHARED_TAGS_ADMIN : 0;
    q->sq_db = NVME_SQ_TAIL_DB(qid, c->dstrd);
    q->cq_db = NVME_CQ_HEAD_DB(qid, c->dstrd);
    q->sq = plat_alloc_pages(sq_bytes(q), false);
    q->cq = plat_alloc_pages(cq_bytes(entries), false);
    q->prp_lists = plat_alloc_pages(prp_pool_bytes(ns), false);
    q->slots = plat_alloc(sizeof(*q->slots) * ns->disk.max_qd);
    if (!q->sq || !q->cq || !q->prp_lists || !q->slots) {
        snprintf(err, errlen, "out of memory for I/O queue %u (%u entries)", qid, entries);
        nvme_queue_free(ns, q);
        return BM_ENOMEM;
    }
    /* A controller limited to 48-bit DMA must find its queues below 2^48
     * (Linux narrows the DMA mask; we check what the allocator gave). */
    if (!nvme_dma_reachable(plat_virt_to_phys(q->sq), sq_bytes(q), c->dma_bits) ||
        !nvme_dma_reachable(plat_virt_to_phys((const void *)q->cq), cq_bytes(q->entries), c->dma_bits) ||
        !nvme_dma_reachable(plat_virt_to_phys(q->prp_lists), prp_pool_bytes(ns), c->dma_bits)) {
        snprintf(err, errlen, "I/O queue %u memory lies above what %u-bit DMA reaches", qid, c->dma_bits);
        nvme_queue_free(ns, q);
        return BM_ENOMEM;
    }
    /* On failure the caller's teardown resets the controller, which
     * deletes whatever queue was created, and only then frees memory. */
    return nvme_queue_register(c, q, err, errlen);
}

/* Re-create a queue after the controller came back (by the CPU that drives
 * it, so nobody else touches its memory): empty CQ, fresh indices, Create
 * I/O CQ and SQ again. The commands the reset took are resubmitted by
 * poll() (nvme_io.c). */
void nvme_queue_revive(struct nvme_ctrl *c, struct nvme_queue *q)
{
    char err[160];

    memset((void *)q->cq, 0, cq_bytes(q->entries));
    q->sq_tail = q->sq_head = q->cq_head = q->sq_rung = q->cq_rung = 0;
    q->phase = 1;
    q->next_scan_ns = 0;
    if (nvme_queue_register(c, q, err, sizeof(err)) == BM_OK) {
        q->gen = c->gen;
        q->dead = q->flushed = false;
        return;
    }
    q->broken = true; /* its commands are reported by nvme_flush_dead() */
    q->flushed = false;
}
