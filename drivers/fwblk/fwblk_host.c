/* The firmware path in the host build: files named in the environment
 * play the firmware's disks (see fwblk.h), so the whole disk benchmark
 * runs in host tests. Without BAREMARK_HOST_DISKS there are none. */
#include <stdlib.h>

#include "fwblk.h"
#include "../fileblk.h"

#define HOST_MAX_DISKS 16

static struct bm_disk *host_disks[HOST_MAX_DISKS];
static bool host_boot[HOST_MAX_DISKS];
static unsigned host_count;

/* Index of a file disk in our table, or -1. */
static int host_index(const struct bm_disk *d)
{
    for (unsigned i = 0; i < host_count; i++)
        if (host_disks[i] == d)
            return (int)i;
    return -1;
}

/* One "PATH[=SERIAL][+failread][+lat=NS][+lba=BYTES][+escw=N]" entry
 * (escw: press Esc after N writes to it). */
static struct bm_disk *open_entry(char *entry, unsigned index, char *err, size_t errlen)
{
    struct fileblk_opts o = { 0 };
    char *plus, *eq, id[24];
    const char *serial = "";

    o.max_qd = 256;
    o.max_transfer_bytes = 1u << 20;
    while ((plus = strrchr(entry, '+'))) {
        *plus = '\0';
        if (!strcmp(plus + 1, "failread"))
            o.fail_reads = true;
        else if (!strncmp(plus + 1, "lat=", 4))
            o.latency_ns = strtoull(plus + 5, NULL, 0);
        else if (!strncmp(plus + 1, "lba=", 4))
            o.lba_bytes = (uint32_t)strtoul(plus + 5, NULL, 0);
        else if (!strncmp(plus + 1, "escw=", 5))
            o.esc_after_writes = strtoull(plus + 6, NULL, 0);
    }
    eq = strchr(entry, '=');
    if (eq) {
        *eq = '\0';
        serial = eq + 1;
    }
    snprintf(id, sizeof(id), "fw%u", index);
    return fileblk_open(entry, id, serial, &o, err, errlen);
}

/* The files of BAREMARK_HOST_DISKS as firmware disks. */
int fwblk_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken, fwblk_keep_fn keep,
                   void *ctx)
{
    const char *env = getenv("BAREMARK_HOST_DISKS"), *boot = getenv("BAREMARK_HOST_BOOT");
    char list[2048], *p, *entry;
    int added = 0;

    (void)taken;
    (void)ntaken;
    if (!env || !*env)
        return 0;
    bm_strlcpy(list, env, sizeof(list));
    for (p = list; (entry = p) && *entry && host_count < HOST_MAX_DISKS;) {
        char err[160], path[512];
        struct bm_disk *d;
        char *comma = strchr(entry, ',');

        p = comma ? comma + 1 : entry + strlen(entry);
        if (comma)
            *comma = '\0';
        bm_strlcpy(path, entry, sizeof(path));
        {
            char *cut = strpbrk(path, "=+");
            if (cut)
                *cut = '\0';
        }
        d = open_entry(entry, host_count, err, sizeof(err));
        if (!d) {
            plat_log("FWBLK %s", err);
            continue;
        }
        if ((keep && !keep(d, ctx)) || disk_list_add(l, d) != BM_OK) {
            fileblk_close(d);
            continue;
        }
        host_boot[host_count] = boot && !strcmp(boot, path);
        host_disks[host_count++] = d;
        added++;
    }
    return added;
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
