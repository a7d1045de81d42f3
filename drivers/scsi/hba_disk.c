/* The disk glue shared by host bus adapter drivers (see hba_disk.h). */
#include "hba_disk.h"
#include "scsi_health.h"

int hba_host_init(struct hba_host *h, uint32_t nslots, uint64_t timeout_ns, const struct hba_host_ops *ops,
                  void *ctrl, const char *where)
{
    h->ops = ops;
    h->ctrl = ctrl;
    h->where = where;
    h->ndisks = 0;
    return hbaq_init(&h->q, nslots, timeout_ns);
}

void hba_host_free_disks(struct hba_host *h)
{
    for (unsigned i = 0; i < h->ndisks; i++) {
        hbaq_disk_destroy(&h->disks[i]->q);
        plat_free(h->disks[i]);
    }
    h->ndisks = 0;
}

void hba_host_destroy(struct hba_host *h)
{
    hba_host_free_disks(h);
    hbaq_destroy(&h->q);
}

int hba_disk_add(struct hba_host *h, struct bm_disk_list *disks, const struct hba_disk_spec *s)
{
    struct hba_target t = s->t;
    struct scsi_transport tr = { s->exec, &t, s->scsi_name ? s->scsi_name : s->tname };
    struct scsi_hba_place at = s->at;
    struct scsi_disk_info info;
    struct hba_disk *hd;
    uint32_t qd;
    int rc;

    if (h->ndisks >= ARRAY_SIZE(h->disks)) {
        plat_diag(h->where, "%s: too many disks, skipped", s->tname);
        return BM_ENOSPC;
    }
    rc = scsi_identify_for_hba(&tr, &info);
    if (rc != BM_OK)
        return rc;
    hd = plat_alloc(sizeof(*hd));
    if (!hd)
        return BM_ENOMEM;
    qd = MIN(s->max_qd, h->q.nslots - 1);
    if (s->one_if_untagged && !info.inq.cmdque)
        qd = 1;
    if (hbaq_disk_init(&hd->q, qd) != BM_OK) {
        plat_free(hd);
        return BM_ENOMEM;
    }
    hd->host = h;
    hd->t = s->t;
    hd->exec = s->exec;
    bm_strlcpy(hd->scsi_name, tr.name, sizeof(hd->scsi_name));
    hd->sat = info.sat;
    snprintf(hd->d.id, sizeof(hd->d.id), "%s", s->id);
    at.max_qd = hd->q.max_inflight;
    scsi_fill_hba_disk(&hd->d, &info, &at, s->ops, hd);
    if (disk_list_add(disks, &hd->d) != BM_OK) {
        plat_diag(h->where, "%s: disk list full, skipped", s->tname);
        hbaq_disk_destroy(&hd->q);
        plat_free(hd);
        return BM_ENOSPC;
    }
    h->disks[h->ndisks++] = hd;
    plat_diag(h->where, "%s: %s \"%s\" serial \"%s\", %llu x %u-byte blocks, queue depth %u", s->tname, hd->d.id,
              hd->d.model, hd->d.serial, (unsigned long long)hd->d.blocks, hd->d.lba_bytes, hd->d.max_qd);
    return BM_OK;
}

bool hba_scsi_disposition(struct hba_host *h, uint32_t slot, uint8_t scsi_status, const uint8_t *sense,
                          size_t sense_len)
{
    struct hbaq_slot *s;
    struct hba_disk *hd;
    char what[64];

    if (slot >= h->q.nslots)
        return false;
    s = &h->q.slots[slot];
    if (s->state != HBAQ_BUSY || !s->owner)
        return false;
    switch (scsi_disposition(scsi_status, sense, sense_len)) {
    case SCSI_DISP_RECOVERED:
        hd = (struct hba_disk *)(void *)((char *)s->owner - offsetof(struct hba_disk, q));
        /* Logged the 1st, 2nd, 4th, 8th ... time: a disk that corrects
         * every read does not flood the log. */
        if (!(s->owner->recovered & (s->owner->recovered + 1)) || !s->owner->recovered) {
            scsi_describe(scsi_status, sense, sense_len, what, sizeof(what));
            plat_diag(h->where, "%s: %s; the command succeeded (%u recovered so far)", hd->d.id, what,
                      s->owner->recovered + 1);
        }
        s->owner->recovered++;
        hbaq_complete(&h->q, slot, BM_OK, NULL);
        return true;
    case SCSI_DISP_RETRY:
    case SCSI_DISP_WAIT_READY:
        return hbaq_requeue(&h->q, slot, plat_now_ns());
    default:
        return false;
    }
}

uint32_t hba_host_wait_idle(struct hba_host *h, uint64_t timeout_ns, bool (*gone)(void *ctrl))
{
    uint64_t deadline = plat_now_ns() + timeout_ns;
    uint32_t held;

    for (;;) {
        hbaq_lock(&h->q);
        h->ops->drain(h->ctrl);
        held = h->q.busy - h->q.retry_waiting;
        hbaq_unlock(&h->q);
        if (!held || plat_now_ns() > deadline || (gone && gone(h->ctrl)))
            return held;
        plat_delay_ns(1000000ull); /* 1 ms */
    }
}

int hba_disk_health(struct bm_disk *d, struct bm_health *out)
{
    struct hba_disk *hd = d->priv;
    struct hba_target t = hd->t;
    struct scsi_transport tr = { hd->exec, &t, hd->scsi_name };
    char err[160];
    int rc;

    if (hd->t.logical || !hd->exec)
        return BM_ENOTSUP;
    rc = scsi_read_health(&tr, hd->sat, out, err, sizeof(err));
    if (rc != BM_OK)
        plat_diag(hd->host->where, "%s: health not read: %s", d->id, err);
    return rc;
}

int hba_disk_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct hba_disk *hd = d->priv;
    struct hba_host *h = hd->host;
    int n;

    if (queue != 0 || max <= 0)
        return 0;
    hbaq_lock(&h->q);
    h->ops->drain(h->ctrl);
    hbaq_expire(&h->q, plat_now_ns(), h->ops->on_timeout, h->ctrl);
    if (h->ops->send_retries)
        h->ops->send_retries(h->ctrl);
    n = hbaq_reap(&hd->q, out, max);
    hbaq_unlock(&h->q);
    return n;
}
