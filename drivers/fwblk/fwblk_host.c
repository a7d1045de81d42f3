/* The firmware path in the host build: files named in the environment
 * play the firmware's disks (see fwblk.h), so the whole disk benchmark
 * runs in host tests. Without BAREMARK_HOST_DISKS there are none. */
#include <stdlib.h>
#include <sys/stat.h>

#include "fwblk.h"
#include "../fileblk.h"
#include "../pci.h"

#define HOST_MAX_DISKS 16

static struct bm_disk *host_disks[HOST_MAX_DISKS];
static bool host_boot[HOST_MAX_DISKS];
static unsigned host_count;

/* One entry of BAREMARK_HOST_DISKS, taken apart. */
struct host_entry {
    char path[512];
    const char *serial;
    struct fileblk_opts o;
    bool has_pci;
    struct pci_addr pci;
    enum fwblk_at at;
    uint32_t port, lun;
    const char *model;
    bool removable, gone;
};

/* Index of a file disk in our table, or -1. */
static int host_index(const struct bm_disk *d)
{
    for (unsigned i = 0; i < host_count; i++)
        if (host_disks[i] == d)
            return (int)i;
    return -1;
}

/* Split one "PATH[=SERIAL][+OPTION]..." entry (see fwblk.h) in place. */
static void parse_entry(char *entry, struct host_entry *e)
{
    char *plus, *eq;

    memset(e, 0, sizeof(*e));
    e->serial = "";
    e->o.max_qd = 256;
    e->o.max_transfer_bytes = 1u << 20;
    while ((plus = strrchr(entry, '+'))) {
        const char *opt = plus + 1;
        unsigned seg, bus, dev, fn;

        *plus = '\0';
        if (!strcmp(opt, "failread"))
            e->o.fail_reads = true;
        else if (!strncmp(opt, "lat=", 4))
            e->o.latency_ns = strtoull(opt + 4, NULL, 0);
        else if (!strncmp(opt, "lba=", 4))
            e->o.lba_bytes = (uint32_t)strtoul(opt + 4, NULL, 0);
        else if (!strncmp(opt, "escw=", 5))
            e->o.esc_after_writes = strtoull(opt + 5, NULL, 0);
        else if (!strncmp(opt, "pci=", 4) && sscanf(opt + 4, "%x:%x:%x.%x", &seg, &bus, &dev, &fn) == 4) {
            e->has_pci = true;
            e->pci = (struct pci_addr){ (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
        } else if (!strncmp(opt, "sata=", 5))
            e->at = FWBLK_AT_SATA, e->port = (uint32_t)strtoul(opt + 5, NULL, 0);
        else if (!strncmp(opt, "nvme=", 5))
            e->at = FWBLK_AT_NVME, e->port = (uint32_t)strtoul(opt + 5, NULL, 0);
        else if (!strncmp(opt, "scsi=", 5))
            e->at = FWBLK_AT_SCSI, e->port = (uint32_t)strtoul(opt + 5, NULL, 0);
        else if (!strncmp(opt, "model=", 6))
            e->model = opt + 6;
        else if (!strncmp(opt, "qd=", 3))
            e->o.max_qd = (uint32_t)strtoul(opt + 3, NULL, 0);
        else if (!strcmp(opt, "native"))
            e->o.path_kind = BM_PATH_NATIVE;   /* plays a native driver's disk */
        else if (!strcmp(opt, "removable"))
            e->removable = true;
        else if (!strcmp(opt, "gone"))
            e->gone = true;
    }
    eq = strchr(entry, '=');
    if (eq) {
        *eq = '\0';
        e->serial = eq + 1;
    }
    bm_strlcpy(e->path, entry, sizeof(e->path));
}

/* Is the entry's controller one a native driver holds? */
static bool entry_taken(const struct host_entry *e, const struct pci_addr *taken, unsigned ntaken)
{
    for (unsigned k = 0; e->has_pci && k < ntaken; k++)
        if (taken[k].seg == e->pci.seg && taken[k].bus == e->pci.bus && taken[k].dev == e->pci.dev &&
            taken[k].fn == e->pci.fn)
            return true;
    return false;
}

/* Call fn for every entry of BAREMARK_HOST_DISKS, in order. */
static void for_each_entry(void (*fn)(struct host_entry *e, void *arg), void *arg)
{
    const char *env = getenv("BAREMARK_HOST_DISKS");
    static char list[2048];
    char *p, *entry;

    if (!env || !*env)
        return;
    bm_strlcpy(list, env, sizeof(list));
    for (p = list; (entry = p) && *entry;) {
        struct host_entry e;
        char *comma = strchr(entry, ',');

        p = comma ? comma + 1 : entry + strlen(entry);
        if (comma)
            *comma = '\0';
        parse_entry(entry, &e);
        fn(&e, arg);
    }
}

struct discover_ctx {
    struct bm_disk_list *l;
    const struct pci_addr *taken;
    unsigned ntaken;
    fwblk_keep_fn keep;
    void *keep_ctx;
    int added;
};

/* One entry as a firmware disk, unless its controller is taken or it is gone. */
static void discover_entry(struct host_entry *e, void *arg)
{
    struct discover_ctx *x = arg;
    const char *boot = getenv("BAREMARK_HOST_BOOT");
    char err[160], id[24];
    struct bm_disk *d;

    if (host_count >= HOST_MAX_DISKS || e->gone || entry_taken(e, x->taken, x->ntaken))
        return;
    snprintf(id, sizeof(id), "fw%u", host_count);
    d = fileblk_open(e->path, id, e->serial, &e->o, err, sizeof(err));
    if (!d) {
        plat_diag(id, "%s", err);
        return;
    }
    if (e->model)
        bm_strlcpy(d->model, e->model, sizeof(d->model));
    if (e->has_pci) {
        d->has_pci = true;
        d->pci_addr = e->pci;
        pci_addr_str(e->pci, d->pci, sizeof(d->pci));
        d->port = e->port;
        d->lun = e->lun;
    }
    if ((x->keep && !x->keep(d, x->keep_ctx)) || disk_list_add(x->l, d) != BM_OK) {
        fileblk_close(d);
        return;
    }
    host_boot[host_count] = boot && !strcmp(boot, e->path);
    host_disks[host_count++] = d;
    x->added++;
}

/* The files of BAREMARK_HOST_DISKS as firmware disks. */
int fwblk_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken, fwblk_keep_fn keep,
                   void *ctx)
{
    struct discover_ctx x = { l, taken, ntaken, keep, ctx, 0 };

    for_each_entry(discover_entry, &x);
    return x.added;
}

/* One entry into the census, as the firmware would list it at start. */
static void census_entry(struct host_entry *e, void *arg)
{
    struct fwblk_census *c = arg;
    struct fwblk_census_disk *d;
    struct stat st;

    if (e->removable)
        return;
    if (c->count == FWBLK_CENSUS_MAX) {
        c->more++;
        return;
    }
    d = &c->disks[c->count++];
    d->has_pci = e->has_pci;
    d->pci = e->pci;
    d->at = e->at;
    d->port = e->port;
    d->lun = e->lun;
    bm_strlcpy(d->model, e->model ? e->model : "", sizeof(d->model));
    bm_strlcpy(d->serial, e->serial, sizeof(d->serial));
    d->bytes = stat(e->path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The files of BAREMARK_HOST_DISKS as the firmware lists them at start. */
int fwblk_census(struct fwblk_census *c)
{
    memset(c, 0, sizeof(*c));
    for_each_entry(census_entry, c);
    return (int)c->count;
}

/* Is this file the one BAREMARK_HOST_BOOT names? */
int fwblk_boot_disk(const struct bm_disk *d)
{
    int i = host_index(d);
    return i < 0 ? -1 : host_boot[i];
}

/* Files are never write-protected here. */
bool fwblk_read_only(const struct bm_disk *d)
{
    (void)d;
    return false;
}

/* Files have no device path. */
const char *fwblk_device_path(const struct bm_disk *d)
{
    (void)d;
    return "";
}

/* Close every file disk. */
void fwblk_release_all(void)
{
    for (unsigned i = 0; i < host_count; i++)
        fileblk_close(host_disks[i]);
    host_count = 0;
}
