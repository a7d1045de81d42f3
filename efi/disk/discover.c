/* Disk discovery (see discover.h). */
#include "discover.h"
#include "../record.h"
#include "../../drivers/fwblk/fwblk.h"
#include "../../drivers/pci.h"
#include "../../drivers/pci_regs.h"
#include "../../drivers/registry.h"
#include "../../drivers/scsi/scsi_passthru.h"

/* Same PCI function? */
static bool same_pci(struct pci_addr a, struct pci_addr b)
{
    return a.seg == b.seg && a.bus == b.bus && a.dev == b.dev && a.fn == b.fn;
}

struct keep_ctx {
    const struct config *c;
    const struct disk_set *s;
};

/* Which firmware disks to use: never one behind a controller a native
 * driver took (two drivers on one queue corrupt both); with driver=native
 * only those on controllers we left to the firmware on purpose. */
static bool keep_firmware_disk(const struct bm_disk *d, void *arg)
{
    const struct keep_ctx *k = arg;

    for (unsigned i = 0; d->has_pci && i < k->s->nctrls; i++)
        if (same_pci(d->pci_addr, k->s->ctrls[i].addr))
            return false;
    /* A Block I/O disk the SCSI pass-thru path already drives. */
    if (scsi_passthru_covers(&k->s->list, d))
        return false;
    if (k->c->driver != DRIVER_NATIVE)
        return true;
    for (unsigned i = 0; d->has_pci && i < k->s->nkept; i++)
        if (same_pci(d->pci_addr, k->s->kept_for_firmware[i]))
            return true;
    return false;
}

/* Try the native driver on one storage controller. */
static void probe_native(const struct config *c, const struct plat_boot_location *boot,
                         const struct plat_boot_location *results, struct disk_set *s, const struct pci_func *f)
{
    const struct bm_driver *drv = registry_find(f->vendor, f->device, f->class_code);
    char bdf[16], err[160];
    unsigned before = s->list.count, dropped_before = s->list.dropped;
    void *ctrl = NULL;
    int rc;

    pci_addr_str(f->addr, bdf, sizeof(bdf));
    if (!drv) {
        if (c->driver == DRIVER_NATIVE)
            record_note(bdf, "no native driver for %04x:%04x (class %06x): skipped (driver=native)", f->vendor,
                        f->device, f->class_code);
        return;
    }
    if ((boot->has_pci && same_pci(boot->pci, f->addr)) ||
        (results->has_volume && results->has_pci && same_pci(results->pci, f->addr))) {
        /* Resetting it would pull the file system (and the results file)
         * out from under the firmware mid-run. */
        record_note(bdf, "holds the %s volume: left to the firmware; its disks are benchmarked through "
                         "firmware Block I/O instead of the %s driver",
                    boot->has_pci && same_pci(boot->pci, f->addr) ? "boot" : "results", drv->name);
        if (s->nkept < DISK_MAX_CTRLS)
            s->kept_for_firmware[s->nkept++] = f->addr;
        return;
    }
    if (s->nctrls >= DISK_MAX_CTRLS) {
        record_note(bdf, "more than %u controllers: skipped", DISK_MAX_CTRLS);
        return;
    }
    err[0] = '\0';
    rc = drv->probe(f->addr, &s->list, &ctrl, err, sizeof(err));
    if (rc == BM_ENOSPC) {
        /* No room left on the disk list: a limit of ours, not a fault of
         * the machine (the count of disks left out is noted at the end). */
        record_note(bdf, "%s driver left the controller alone: %s", drv->name, err[0] ? err : bm_strerror(rc));
        s->list.count = before;
        return;
    }
    if (rc != BM_OK) {
        /* The driver left the controller as it found it. */
        if (c->driver == DRIVER_NATIVE)
            record_error(bdf, "%s driver could not take the controller: %s (%s)", drv->name,
                         err[0] ? err : bm_strerror(rc), bm_strerror(rc));
        else
            record_note(bdf, "%s driver could not take the controller: %s (%s); its disks use firmware Block I/O",
                        drv->name, err[0] ? err : bm_strerror(rc), bm_strerror(rc));
        s->list.count = before; /* a failed probe registers nothing */
        s->list.dropped = dropped_before;
        return;
    }
    s->ctrls[s->nctrls++] = (struct disk_ctrl){ drv, ctrl, f->addr };
    if (s->list.count == before)
        record_note(bdf, "%s driver took the controller but found no disk%s%s", drv->name, err[0] ? ": " : "", err);
    else if (err[0])
        record_note(bdf, "%s", err);    /* disks it left out on purpose (blkdev.h) */
}

/* A storage controller's kind, for messages. */
static const char *storage_kind(uint32_t class_code)
{
    switch ((class_code >> 8) & 0xff) {
    case 0x00: return "SCSI controller";
    case 0x01: return "IDE controller";
    case 0x04: return "RAID controller";
    case 0x05: return "ATA controller";
    case 0x06: return "SATA controller";
    case 0x07: return "SAS controller";
    case 0x08: return "NVM controller";
    default: return "storage controller";
    }
}

/* Say so for every storage controller that ended up with no disk and
 * has not been talked about yet: a user whose disks are missing from
 * the results must see which controller nobody could drive. */
static void note_controllers_without_disks(const struct config *c, const struct disk_set *s,
                                           const struct pci_list *pci)
{
    if (c->driver == DRIVER_NATIVE)
        return;     /* each such controller already has its note or error */
    for (int i = 0; i < pci->count; i++) {
        const struct pci_func *f = &pci->funcs[i];
        bool found = false;
        char bdf[16];

        if ((f->class_code >> 16) != PCI_CLASS_STORAGE || f->header_type != PCI_HEADER_NORMAL)
            continue;
        for (unsigned j = 0; j < s->nctrls && !found; j++)
            found = same_pci(s->ctrls[j].addr, f->addr);    /* the driver's own note covers it */
        for (unsigned j = 0; j < s->list.count && !found; j++)
            found = s->list.disks[j]->has_pci && same_pci(s->list.disks[j]->pci_addr, f->addr);
        if (found)
            continue;
        pci_addr_str(f->addr, bdf, sizeof(bdf));
        record_note(bdf, "%s %04x:%04x (class %06x): no disk found behind it; %s", storage_kind(f->class_code),
                    f->vendor, f->device, f->class_code,
                    c->driver == DRIVER_FIRMWARE ? "the firmware exposes none (driver=firmware)"
                    : registry_find(f->vendor, f->device, f->class_code)
                        ? "the firmware exposes none either"
                        : "baremark has no driver for it and the firmware exposes none");
    }
}

/* Native drivers first (they take their controllers), then the firmware's disks. */
int disk_discover(const struct config *c, const struct plat_boot_location *boot,
                  const struct plat_boot_location *results, struct disk_set *s)
{
    static struct pci_list pci;
    struct keep_ctx k = { c, s };
    struct pci_addr taken[DISK_MAX_CTRLS];
    int n;

    memset(s, 0, sizeof(*s));
    pci_enumerate(&pci);
    if (c->driver != DRIVER_FIRMWARE) {
        for (int i = 0; i < pci.count; i++)
            if ((pci.funcs[i].class_code >> 16) == PCI_CLASS_STORAGE &&
                pci.funcs[i].header_type == PCI_HEADER_NORMAL)
                probe_native(c, boot, results, s, &pci.funcs[i]);
    }
    /* The firmware's disks come after: a controller we took has already
     * lost its firmware driver and its Block I/O handles. */
    for (unsigned i = 0; i < s->nctrls; i++)
        taken[i] = s->ctrls[i].addr;
    s->firmware_used = true;
    /* SCSI controllers without a native driver: the firmware's pass-thru
     * with our SCSI layer, before plain Block I/O. */
    if (c->driver != DRIVER_FIRMWARE) {
        n = scsi_passthru_discover(&s->list, taken, s->nctrls, keep_firmware_disk, &k);
        if (n < 0)
            record_error("firmware", "SCSI pass-thru discovery failed: %s", bm_strerror(n));
    }
    n = fwblk_discover(&s->list, taken, s->nctrls, keep_firmware_disk, &k);
    if (n < 0)
        record_error("firmware", "Block I/O discovery failed: %s", bm_strerror(n));
    note_controllers_without_disks(c, s, &pci);
    if (s->list.dropped)
        record_note("disk", "%u disk%s left out: baremark takes at most %u disks in one run", s->list.dropped,
                    s->list.dropped == 1 ? "" : "s", (unsigned)BM_MAX_DISKS);
    return BM_OK;
}

/* Give every controller back and forget the firmware disks. */
void disk_release(struct disk_set *s)
{
    /* Controllers in reverse order of taking them. */
    while (s->nctrls) {
        struct disk_ctrl *ctl = &s->ctrls[--s->nctrls];
        ctl->drv->release(ctl->ctrl);
    }
    if (s->firmware_used) {
        scsi_passthru_release_all();
        fwblk_release_all();
    }
    s->firmware_used = false;
    s->list.count = 0;
}
