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

/* ---- One LUN's request against the firmware --------------------------------------------------- */

/* Hand the request's next part to the firmware, and in blocking mode (or
 * when a part ends at once) the ones after it, until one is in the
 * firmware's hands, one failed, none is left, or the firmware has no
 * room (io->waiting: the next poll tries again, until that part's own
 * deadline). */
static void scsi_pt_next_part(struct scsi_pt_io *io)
{
    while (!io->stuck) {
        uint64_t lba;
        uint32_t blocks;
        void *buf;
        enum scsi_pt_fire f;
        int st = BM_OK;

        if (!scsi_pt_parts_peek(&io->req, &lba, &blocks, &buf))
            return;
        if (!io->waiting)
            io->deadline_ns = plat_now_ns() + bm_io_timeout_ns();
        io->detail[0] = '\0';
        f = io->fw->fire(io->ctx, io->req.op, lba, blocks, buf, blocks * io->lba_bytes, &st, io->detail,
                         sizeof(io->detail));
        if (f == SCSI_PT_NOT_READY) {
            if (plat_now_ns() > io->deadline_ns) {
                io->waiting = false;
                io->status = BM_ETIMEDOUT;
                snprintf(io->detail, sizeof(io->detail), "firmware took no command for %llu s",
                         (unsigned long long)(bm_io_timeout_ns() / 1000000000ull));
                io->done = true;
                return;
            }
            io->waiting = true;
            return;
        }
        io->waiting = false;
        scsi_pt_parts_advance(&io->req);
        if (f == SCSI_PT_TAKEN) {
            io->in_fw = true;
            io->taken_ns = plat_now_ns();
            return; /* in the firmware's hands until the event fires */
        }
        io->status = st;
        io->done = true;
        if (io->status != BM_OK || !io->req.left)
            return;
        io->done = false; /* that part ended well: on to the next */
    }
}

int scsi_pt_io_submit(struct scsi_pt_io *io, uint32_t tag, enum bm_io_op op, uint64_t lba, uint32_t blocks,
                      void *buf)
{
    if (io->stuck)
        return BM_EIO;
    if (io->busy)
        return BM_EBUSY;
    scsi_pt_parts_begin(&io->req, op, lba, blocks, buf, io->lba_bytes, io->part_bytes / io->lba_bytes);
    io->busy = true;
    io->done = false;
    io->waiting = false;
    io->tag = tag;
    scsi_pt_next_part(io);
    if (io->waiting && io->req.started == 0) {
        /* The firmware took nothing: the engine tries again later. */
        io->waiting = false;
        io->busy = false;
        return BM_EBUSY;
    }
    return BM_OK;
}

/* Collect the request once the firmware has finished its last part (or
 * one failed), starting the next part as each ends. */
int scsi_pt_io_poll(struct scsi_pt_io *io, struct bm_completion *out)
{
    if (!io->busy)
        return 0;
    if (!io->done && !io->waiting && io->in_fw) {
        int st = BM_OK;

        io->detail[0] = '\0';
        if (io->fw->ended(io->ctx, &st, io->detail, sizeof(io->detail))) {
            io->in_fw = false;
            if (io->overdue) {
                /* Back at last: a timeout all the same (whatever it moved
                 * came after the request was due), and the LUN takes
                 * commands again; its other parts never start. */
                io->overdue = false;
                io->stuck = false;
                io->status = BM_ETIMEDOUT;
                snprintf(io->detail, sizeof(io->detail), "firmware returned the command late, after %llu s",
                         (unsigned long long)((plat_now_ns() - io->taken_ns) / 1000000000ull));
                io->done = true;
            } else {
                io->status = st;
                io->done = true;
                if (io->status == BM_OK && io->req.left) {
                    io->done = false;
                    scsi_pt_next_part(io);
                }
            }
        } else if (!io->overdue && plat_now_ns() > io->deadline_ns + SCSI_PT_FW_GRACE_NS) {
            /* The firmware kept neither the packet's Timeout nor our grace.
             * Its packet, sense and data buffer stay its own until the
             * event says otherwise (UEFI 2.10 15.7: nothing else hands a
             * non-blocking packet back; EDK2's ScsiDiskDriverBindingStop
             * waits for its async queue to empty): no completion now, so
             * the engine neither frees nor reuses the buffer (its stall
             * limit ends the run and keeps it), and this LUN takes no
             * other command meanwhile. */
            io->overdue = true;
            io->stuck = true;
        }
    } else if (io->waiting) {
        scsi_pt_next_part(io);
    }
    if (!io->done)
        return 0;
    out->tag = io->tag;
    out->status = io->status;
    bm_strlcpy(out->detail, io->status == BM_OK ? "" : io->detail, sizeof(out->detail));
    io->done = false;
    if (!io->stuck)
        io->busy = false;
    return 1;
}

bool scsi_pt_io_fw_holds(const struct scsi_pt_io *io)
{
    return io->in_fw;
}

void scsi_pt_io_recovery(const struct scsi_pt_io *io, char *out, size_t len)
{
    if (!len)
        return;
    out[0] = '\0';
    if (io->in_fw && io->overdue)
        snprintf(out, len, "firmware holds the command since %llu s (its buffer is kept)",
                 (unsigned long long)((plat_now_ns() - io->taken_ns) / 1000000000ull));
}
