/* A regular file as a disk, for the host build's tests (see fileblk.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileblk.h"
#include "platform_sim.h"

struct file_cmd {
    bool used;
    uint64_t due_ns;
    int status;
};

struct file_disk {
    struct bm_disk disk;
    int fd;
    struct fileblk_opts o;
    struct file_cmd *cmds;       /* nqueues * max_qd */
    uint32_t inflight;
    uint64_t completed;
    struct fileblk_stats st;
};

static uint64_t writes_after_esc;

uint64_t fileblk_writes_after_esc(void) { return writes_after_esc; }
void fileblk_reset_counters(void) { writes_after_esc = 0; }

/* The file disk behind a struct bm_disk. */
static struct file_disk *fd_of(struct bm_disk *d) { return d->priv; }

/* Do the read or write now, hold the completion back for latency_ns; check the contract. */
static int file_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                       uint32_t blocks, void *buf)
{
    struct file_disk *f = fd_of(d);
    struct file_cmd *c;
    size_t bytes = (size_t)blocks * d->lba_bytes;
    off_t off = (off_t)(lba * d->lba_bytes);
    ssize_t n;
    bool fail;

    if (queue >= d->nqueues) {
        f->st.bad_queue++;
        return BM_EINVAL;
    }
    if (tag >= d->max_qd || f->cmds[queue * d->max_qd + tag].used) {
        f->st.bad_tag++;
        return BM_EINVAL;
    }
    if (!blocks || lba >= d->blocks || blocks > d->blocks - lba) {
        f->st.bad_range++;
        return BM_EINVAL;
    }
    if (bytes > d->max_transfer_bytes) {
        f->st.too_big++;
        return BM_EINVAL;
    }
    if ((uintptr_t)buf & 7)
        f->st.unaligned_buffers++;
    c = &f->cmds[queue * d->max_qd + tag];
    fail = (op == BM_IO_READ ? f->o.fail_reads : f->o.fail_writes) && f->completed >= f->o.fail_after;
    c->status = BM_OK;
    if (fail) {
        c->status = BM_EIO;
    } else if (op == BM_IO_READ) {
        n = pread(f->fd, buf, bytes, off);
        if (n != (ssize_t)bytes)
            c->status = BM_EIO;
        f->st.reads++;
        f->st.bytes_read += bytes;
    } else {
        if (plat_sim_abort_seen())
            writes_after_esc++;
        n = pwrite(f->fd, buf, bytes, off);
        if (n != (ssize_t)bytes)
            c->status = BM_EIO;
        f->st.writes++;
        f->st.bytes_written += bytes;
        if (f->o.esc_after_writes && f->st.writes == f->o.esc_after_writes)
            plat_sim_set_abort(true);
    }
    c->used = true;
    c->due_ns = plat_now_ns() + f->o.latency_ns;
    f->inflight++;
    if (f->inflight > f->st.max_inflight)
        f->st.max_inflight = f->inflight;
    if (blocks > f->st.max_blocks)
        f->st.max_blocks = blocks;
    return BM_OK;
}

/* Completions whose latency has passed. */
static int file_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct file_disk *f = fd_of(d);
    uint64_t now = plat_now_ns();
    int n = 0;

    if (queue >= d->nqueues) {
        f->st.bad_queue++;
        return 0;
    }
    for (uint32_t tag = 0; tag < d->max_qd && n < max; tag++) {
        struct file_cmd *c = &f->cmds[queue * d->max_qd + tag];
        if (!c->used || c->due_ns > now)
            continue;
        c->used = false;
        f->inflight--;
        f->completed++;
        out[n].tag = tag;
        out[n].status = c->status;
        snprintf(out[n].detail, sizeof(out[n].detail), "%s", c->status ? "injected I/O error (file disk)" : "");
        n++;
    }
    return n;
}

static const struct bm_disk_ops file_ops = { file_submit, file_poll, NULL };

/* Open a file as a disk. */
struct bm_disk *fileblk_open(const char *path, const char *id, const char *serial, const struct fileblk_opts *o,
                             char *err, size_t errlen)
{
    struct fileblk_opts def = { 0 };
    struct file_disk *f;
    struct stat sb;

    if (!o)
        o = &def;
    f = calloc(1, sizeof(*f));
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->o = *o;
    if (!f->o.lba_bytes)
        f->o.lba_bytes = 512;
    if (!f->o.nqueues)
        f->o.nqueues = 1;
    if (!f->o.max_qd)
        f->o.max_qd = 32;
    if (!f->o.max_transfer_bytes)
        f->o.max_transfer_bytes = 1u << 20;
    f->fd = open(path, O_RDWR);
    if (f->fd < 0 || fstat(f->fd, &sb) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (f->fd >= 0)
            close(f->fd);
        free(f);
        return NULL;
    }
    f->cmds = calloc((size_t)f->o.nqueues * f->o.max_qd, sizeof(*f->cmds));
    if (!f->cmds) {
        snprintf(err, errlen, "out of memory");
        close(f->fd);
        free(f);
        return NULL;
    }
    bm_strlcpy(f->disk.id, id, sizeof(f->disk.id));
    bm_strlcpy(f->disk.driver, "file", sizeof(f->disk.driver));
    f->disk.path = o->path_kind ? o->path_kind : BM_PATH_FIRMWARE;
    snprintf(f->disk.model, sizeof(f->disk.model), "file %.40s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    bm_strlcpy(f->disk.serial, serial ? serial : "", sizeof(f->disk.serial));
    bm_strlcpy(f->disk.firmware, "host", sizeof(f->disk.firmware));
    f->disk.lba_bytes = f->o.lba_bytes;
    f->disk.phys_bytes = f->o.phys_bytes ? f->o.phys_bytes : f->o.lba_bytes;
    f->disk.blocks = (uint64_t)sb.st_size / f->o.lba_bytes;
    f->disk.nqueues = f->o.nqueues;
    f->disk.max_qd = f->o.max_qd;
    f->disk.max_transfer_bytes = f->o.max_transfer_bytes;
    f->disk.ops = &file_ops;
    f->disk.priv = f;
    return &f->disk;
}

/* Close a file disk and free it. */
void fileblk_close(struct bm_disk *d)
{
    struct file_disk *f;

    if (!d || !fileblk_is(d))
        return;
    f = fd_of(d);
    close(f->fd);
    free(f->cmds);
    free(f);
}

/* Is d a file disk? */
bool fileblk_is(const struct bm_disk *d) { return d && d->ops == &file_ops; }

/* What the file disk saw (contract violations included). */
void fileblk_get_stats(const struct bm_disk *d, struct fileblk_stats *s)
{
    *s = ((const struct file_disk *)d->priv)->st;
}

/* Commands submitted and not reaped. */
uint32_t fileblk_inflight(const struct bm_disk *d) { return ((const struct file_disk *)d->priv)->inflight; }
