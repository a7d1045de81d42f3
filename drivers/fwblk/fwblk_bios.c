/* The firmware path on a BIOS PC: the BIOS's INT 13h drives
 * (efi/bios/int13_bios.c), one request at a time (max_qd 1: INT 13h is
 * synchronous; the request runs to its end inside submit), for disks no
 * native driver takes: the USB stick, a RAID card with only an option ROM.
 *
 * A drive on a controller a native driver took is never used through
 * INT 13h again: the BIOS's own AHCI/NVMe code would drive a controller it
 * no longer owns. It is known by its EDD 3.0 PCI path; a drive without one
 * is taken for the native disk of exactly its capacity and the same sector
 * 1 (GPT header), if there is one.
 * Such drives stay in the census, so discovery matches them to the native
 * disk that covers them (nothing vanishes silently). */
#include "fwblk.h"
#include "../pci.h"
#include "../../efi/bios/bios_private.h"

struct i13_disk {
    struct bm_disk disk;
    struct bios_drive *drive;
    bool pending;               /* one completion waits for poll */
    struct bm_completion done;
};

static struct i13_disk *i13_disks[BIOS_DRIVES_MAX];
static unsigned i13_count;

static struct i13_disk *i13_of(const struct bm_disk *d)
{
    for (unsigned i = 0; i < i13_count; i++)
        if (&i13_disks[i]->disk == d)
            return i13_disks[i];
    return NULL;
}

/* The whole request, now (AH=42h/43h through the bounce buffer). */
static int i13_submit(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op, uint64_t lba,
                      uint32_t blocks, void *buf)
{
    struct i13_disk *x = d->priv;
    uint8_t st = 0;
    int rc;

    if (queue != 0 || tag != 0 || !blocks || lba >= d->blocks || blocks > d->blocks - lba)
        return BM_EINVAL;
    if (x->pending)
        return BM_EBUSY;
    /* The engine never asks for this; a second lock on the door. */
    if (op == BM_IO_WRITE && x->drive->boot)
        return BM_EPERM;
    rc = bios_drive_rw(x->drive, op == BM_IO_WRITE, lba, blocks, buf, &st);
    x->done.tag = tag;
    x->done.status = rc;
    x->done.detail[0] = '\0';
    if (rc == BM_EIO)
        snprintf(x->done.detail, sizeof(x->done.detail), "INT 13h AH=%02xh status %02xh",
                 op == BM_IO_WRITE ? 0x43 : 0x42, st);
    else if (rc == BM_EPERM)
        snprintf(x->done.detail, sizeof(x->done.detail), "its controller was taken by a native driver");
    x->pending = true;
    return BM_OK;
}

static int i13_poll(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max)
{
    struct i13_disk *x = d->priv;

    if (queue != 0 || max < 1 || !x->pending)
        return 0;
    out[0] = x->done;
    x->pending = false;
    return 1;
}

static const struct bm_disk_ops i13_ops = { i13_submit, i13_poll, NULL, NULL };

static bool pci_in(struct pci_addr a, const struct pci_addr *list, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (list[i].seg == a.seg && list[i].bus == a.bus && list[i].dev == a.dev && list[i].fn == a.fn)
            return true;
    return false;
}

/* Sector 1 (the GPT header, with its disk GUID) of a native disk, through
 * its own queue (no I/O is in flight during discovery and the write
 * decisions). BM_OK or an error. */
static int native_sector1(struct bm_disk *n, uint8_t *buf)
{
    struct bm_completion c;
    uint64_t deadline;
    int rc = n->ops->submit(n, 0, 0, BM_IO_READ, 1, 1, buf);

    if (rc != BM_OK)
        return rc;
    if (n->ops->flush)
        n->ops->flush(n, 0);
    for (deadline = plat_now_ns() + 2000000000ull; plat_now_ns() < deadline;)
        if (n->ops->poll(n, 0, &c, 1) == 1)
            return c.status;
    return BM_ETIMEDOUT;    /* waited for the read of sector 1 */
}

/* Is the native disk n the INT 13h drive dr? Same capacity, and the same
 * sector 1 (a GPT header holds the disk GUID, unique per disk). Any doubt
 * (a read fails, 4 KiB sectors) answers yes: taking two disks for one only
 * keeps the drive off the firmware path and the disk unwritten. */
static bool same_disk(struct bm_disk *n, struct bios_drive *dr)
{
    static struct { const struct bm_disk *n; const struct bios_drive *dr; bool same; } memo[BIOS_DRIVES_MAX];
    static unsigned nmemo;
    uint8_t *a;
    bool same = true;

    if (strcmp(n->path, BM_PATH_NATIVE) ||
        n->blocks * n->lba_bytes != dr->params.sectors * dr->params.bytes_per_sector)
        return false;
    for (unsigned i = 0; i < nmemo; i++)
        if (memo[i].n == n && memo[i].dr == dr)
            return memo[i].same;
    /* The drive's side was read at the scan: INT 13h may not touch it now. */
    a = plat_alloc_pages(4096, true);
    if (a && n->lba_bytes == 512 && dr->has_sector1 && native_sector1(n, a) == BM_OK)
        same = memcmp(a, dr->sector1, 512) == 0;
    if (a)
        plat_free_pages(a, 4096);
    if (nmemo < BIOS_DRIVES_MAX) {
        memo[nmemo].n = n;
        memo[nmemo].dr = dr;
        memo[nmemo++].same = same;
    }
    return same;
}

/* The native disk that is this drive, for a drive without a PCI path. */
static const struct bm_disk *native_twin(const struct bm_disk_list *l, struct bios_drive *dr)
{
    for (unsigned i = 0; i < l->count; i++)
        if (same_disk(l->disks[i], dr))
            return l->disks[i];
    return NULL;
}

/* The drive as a struct bm_disk (not yet on the list). */
static struct i13_disk *i13_new(struct bios_drive *dr)
{
    struct i13_disk *x = plat_alloc(sizeof(*x));
    struct bm_disk *d;

    if (!x)
        return NULL;
    memset(x, 0, sizeof(*x));
    d = &x->disk;
    x->drive = dr;
    snprintf(d->id, sizeof(d->id), "fw%u", i13_count);
    bm_strlcpy(d->driver, "int13", sizeof(d->driver));
    d->path = BM_PATH_FIRMWARE;
    snprintf(d->model, sizeof(d->model), "BIOS drive %02Xh%s%s", dr->dl, dr->params.interface[0] ? " " : "",
             dr->params.interface);
    d->lba_bytes = dr->params.bytes_per_sector;
    d->phys_bytes = dr->params.bytes_per_sector;
    d->blocks = dr->params.sectors;
    d->has_pci = dr->params.has_pci;
    d->pci_addr = dr->params.pci;
    if (dr->params.has_pci)
        pci_addr_str(dr->params.pci, d->pci, sizeof(d->pci));
    d->port = dr->params.device;
    d->nqueues = 1;
    d->max_qd = 1;
    d->max_transfer_bytes = BIOS_BOUNCE_BYTES;
    d->ops = &i13_ops;
    d->priv = x;
    return x;
}

int fwblk_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken, fwblk_keep_fn keep,
                   void *ctx)
{
    struct bios_drive *ds;
    unsigned n = bios_drives(&ds);
    int added = 0;
    char why[120];

    bios_stick();       /* the boot drive is marked before any disk is offered */
    for (unsigned i = 0; i < n && i13_count < BIOS_DRIVES_MAX; i++) {
        struct bios_drive *dr = &ds[i];
        const struct bm_disk *twin = NULL;
        struct i13_disk *x;

        if (dr->params.has_pci && pci_in(dr->params.pci, taken, ntaken)) {
            char bdf[16];
            pci_addr_str(dr->params.pci, bdf, sizeof(bdf));
            snprintf(why, sizeof(why), "its controller %s is driven by a native driver now", bdf);
            bios_drive_retire(dr, why);
            continue;
        }
        if (!dr->params.has_pci && (twin = native_twin(l, dr)) != NULL) {
            snprintf(why, sizeof(why), "no EDD PCI path, taken for native disk %s (same capacity and sector 1)",
                     twin->id);
            bios_drive_retire(dr, why);
            continue;
        }
        if (dr->retired)
            continue;
        x = i13_new(dr);
        if (!x)
            break;
        if ((keep && !keep(&x->disk, ctx)) || disk_list_add(l, &x->disk) != BM_OK) {
            plat_free(x);
            continue;
        }
        i13_disks[i13_count++] = x;
        added++;
    }
    return added;
}

/* Every INT 13h drive, before any native driver resets a controller. */
int fwblk_census(struct fwblk_census *c)
{
    struct bios_drive *ds;
    unsigned n = bios_drives(&ds);

    /* Disk discovery starts: the records' sinks are all open now, and the
     * native drivers come next (the stick's controller may be one they
     * take: what the results file holds goes to the stick first). */
    bios_stick_report();
    bios_results_sync_now();
    memset(c, 0, sizeof(*c));
    for (unsigned i = 0; i < n && c->count < FWBLK_CENSUS_MAX; i++) {
        struct fwblk_census_disk *e = &c->disks[c->count++];
        e->has_pci = ds[i].params.has_pci;
        e->pci = ds[i].params.pci;
        e->at = FWBLK_AT_NONE;
        snprintf(e->model, sizeof(e->model), "BIOS drive %02Xh%s%s", ds[i].dl,
                 ds[i].params.interface[0] ? " " : "", ds[i].params.interface);
        e->bytes = ds[i].params.sectors * ds[i].params.bytes_per_sector;
    }
    return (int)c->count;
}

/* 1 for the stick, 0 for the other INT 13h drives once the stick is known,
 * else -1. A native disk is the stick (1) when the stick has no PCI path
 * and the disk is the same disk (same_disk): seen twice, it must not become
 * writable because INT 13h could not say where it sits. */
int fwblk_boot_disk(const struct bm_disk *d)
{
    struct i13_disk *x = i13_of(d);
    struct bios_drive *st = bios_stick();

    if (!st)
        return -1;
    if (x)
        return x->drive->boot ? 1 : 0;
    if (!st->params.has_pci && same_disk((struct bm_disk *)d, st))
        return 1;
    return -1;
}

bool fwblk_read_only(const struct bm_disk *d) { return false; }

const char *fwblk_device_path(const struct bm_disk *d) { return ""; }

/* Nothing is ever in flight between calls: forget the disks. */
void fwblk_release_all(void)
{
    for (unsigned i = 0; i < i13_count; i++)
        plat_free(i13_disks[i]);
    i13_count = 0;
}
