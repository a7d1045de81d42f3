/* Portable part of the firmware SCSI pass-thru path. */
#include "scsi_passthru.h"

/* Match a disk against the pass-thru disks by controller, port and LUN. */
bool scsi_passthru_covers(const struct bm_disk_list *l, const struct bm_disk *d)
{
    if (!d->has_pci)
        return false;
    for (unsigned i = 0; i < l->count; i++) {
        const struct bm_disk *p = l->disks[i];
        if (p == d || strcmp(p->driver, "scsi_passthru") || !p->has_pci)
            continue;
        if (p->pci_addr.seg == d->pci_addr.seg && p->pci_addr.bus == d->pci_addr.bus &&
            p->pci_addr.dev == d->pci_addr.dev && p->pci_addr.fn == d->pci_addr.fn && p->port == d->port &&
            p->lun == d->lun)
            return true;
    }
    return false;
}

uint32_t scsi_pt_request_bytes(uint32_t part_bytes, uint32_t lba_bytes, uint32_t want)
{
    uint64_t most;

    if (!lba_bytes || part_bytes < lba_bytes)
        return part_bytes;
    part_bytes -= part_bytes % lba_bytes;
    most = MIN((uint64_t)part_bytes * SCSI_PT_MAX_PARTS, (uint64_t)want);
    most -= most % lba_bytes;
    return (uint32_t)MAX(most, (uint64_t)part_bytes);
}

void scsi_pt_parts_begin(struct scsi_pt_parts *r, enum bm_io_op op, uint64_t lba, uint32_t blocks, void *buf,
                         uint32_t lba_bytes, uint32_t part_blocks)
{
    r->op = op;
    r->lba = lba;
    r->left = blocks;
    r->part_blocks = part_blocks ? part_blocks : blocks;
    r->lba_bytes = lba_bytes;
    r->buf = buf;
    r->started = 0;
}

bool scsi_pt_parts_peek(const struct scsi_pt_parts *r, uint64_t *lba, uint32_t *blocks, void **buf)
{
    if (!r->left)
        return false;
    *lba = r->lba;
    *blocks = MIN(r->left, r->part_blocks);
    *buf = r->buf;
    return true;
}

void scsi_pt_parts_advance(struct scsi_pt_parts *r)
{
    uint32_t n = MIN(r->left, r->part_blocks);

    r->lba += n;
    r->left -= n;
    r->buf += (size_t)n * r->lba_bytes;
    r->started++;
}
