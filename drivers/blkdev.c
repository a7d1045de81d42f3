/* The helpers of the driver interface (blkdev.h) every driver calls. They
 * live apart from registry.c, which names every driver: a driver calling
 * into the file that names it would be an import circle. */
#include "blkdev.h"

static uint64_t io_timeout_ns = BM_IO_TIMEOUT_DEFAULT_NS;

void bm_set_io_timeout_ns(uint64_t ns)
{
    io_timeout_ns = ns ? ns : BM_IO_TIMEOUT_DEFAULT_NS;
}

uint64_t bm_io_timeout_ns(void)
{
    return io_timeout_ns;
}

int disk_list_add(struct bm_disk_list *l, struct bm_disk *d)
{
    if (l->count >= BM_MAX_DISKS) {
        l->dropped++;
        return BM_ENOSPC;
    }
    l->disks[l->count++] = d;
    return BM_OK;
}

void bm_disk_add_quirk(struct bm_disk *d, const char *name)
{
    size_t len = strlen(d->quirks), n = strlen(name);
    const char *p = d->quirks;

    /* Already listed? Match whole comma-separated names only. */
    while (*p) {
        const char *end = strchr(p, ',');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == n && !memcmp(p, name, n))
            return;
        p += l + (end ? 1 : 0);
    }
    if (len + (len ? 1 : 0) + n + 1 > sizeof(d->quirks))
        return;
    if (len)
        d->quirks[len++] = ',';
    memcpy(d->quirks + len, name, n + 1);
}

void bm_health_init(struct bm_health *h, const char *source)
{
    memset(h, 0, sizeof(*h));
    bm_strlcpy(h->source, source, sizeof(h->source));
    h->temperature_c = -1;
    h->critical_warning = -1;
    h->percentage_used = -1;
    h->media_errors = -1;
    h->power_on_hours = -1;
    h->power_cycles = -1;
    h->unsafe_shutdowns = -1;
    h->data_read_bytes = -1;
    h->data_written_bytes = -1;
    h->smart_passed = -1;
    h->link_errors = -1;
}
