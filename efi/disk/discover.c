/* Disk discovery (see discover.h). */
#include "discover.h"
#include "../record.h"
#include "../time_units.h"
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

/* ---- The census: the firmware's disks at start ------------------------------------- */

/* Is census disk e in the group of disk d (the same controller, or both
 * without one)? */
static bool census_same_ctrl(const struct fwblk_census_disk *e, const struct bm_disk *d)
{
    return e->has_pci == d->has_pci && (!e->has_pci || same_pci(e->pci, d->pci_addr));
}

/* Match the census disks on controller a (has_pci false: the disks without
 * a controller) against the list's disks from..to-1, marking the census
 * disks matched in matched[]. Where the device path names a place (SATA
 * port, NVMe namespace) only a disk at that place matches; a SCSI target
 * matches a firmware-path disk at that target and LUN (a native driver
 * numbers targets its own way) or, like a disk whose path names no
 * place, any disk of the controller left over (by count). Returns how many
 * census disks of the controller stay unmatched. */
static unsigned census_match(const struct disk_set *s, bool has_pci, struct pci_addr a, unsigned from, unsigned to,
                             bool *matched)
{
    const struct fwblk_census *c = &s->census;
    bool used[BM_MAX_DISKS] = { false };
    unsigned left = 0;

    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < c->count; i++) {
            const struct fwblk_census_disk *e = &c->disks[i];
            bool keyed = e->at == FWBLK_AT_SATA || e->at == FWBLK_AT_NVME;

            if (matched[i] || e->has_pci != has_pci || (has_pci && !same_pci(e->pci, a)))
                continue;
            if (pass == 1 && keyed)
                continue;
            for (unsigned j = from; j < to && !matched[i]; j++) {
                const struct bm_disk *d = s->list.disks[j];
                bool firmware = d->path && !strcmp(d->path, BM_PATH_FIRMWARE), exact;

                if (used[j] || !census_same_ctrl(e, d))
                    continue;
                exact = (keyed && d->port == e->port) ||
                        (e->at == FWBLK_AT_SCSI && firmware && d->port == e->port && d->lun == e->lun);
                if (exact || pass == 1)
                    used[j] = matched[i] = true;
            }
        }
    }
    for (unsigned i = 0; i < c->count; i++)
        left += !matched[i] && c->disks[i].has_pci == has_pci && (!has_pci || same_pci(c->disks[i].pci, a));
    return left;
}

/* How many census disks the firmware showed on controller a. */
static unsigned census_count_on(const struct disk_set *s, struct pci_addr a)
{
    unsigned n = 0;

    for (unsigned i = 0; i < s->census.count; i++)
        n += s->census.disks[i].has_pci && same_pci(s->census.disks[i].pci, a);
    return n;
}

/* A census disk in words: "the firmware's disk on port 1 (model "X",
 * serial "Y", 500.1 GB)". */
static void census_name(const struct fwblk_census_disk *e, char *buf, size_t len)
{
    char place[40], model[64] = "", serial[64] = "";

    fwblk_census_place(e, place, sizeof(place));
    if (e->model[0])
        snprintf(model, sizeof(model), "model \"%s\", ", e->model);
    if (e->serial[0])
        snprintf(serial, sizeof(serial), "serial \"%s\", ", e->serial);
    snprintf(buf, len, "the firmware's disk%s%s (%s%s%.1f GB)", place[0] ? " on " : "", place, model, serial,
             (double)e->bytes / 1e9);
}

/* The places of the census disks not in matched[] on controller a, for a
 * note: "port 1, port 3" (or "2 disks" when their paths name no place). */
static void census_missing_list(const struct disk_set *s, struct pci_addr a, const bool *matched, char *buf,
                                size_t len)
{
    size_t n = 0;
    unsigned unplaced = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < s->census.count; i++) {
        const struct fwblk_census_disk *e = &s->census.disks[i];
        char place[40];

        if (matched[i] || !e->has_pci || !same_pci(e->pci, a))
            continue;
        fwblk_census_place(e, place, sizeof(place));
        if (!place[0]) {
            unplaced++;
            continue;
        }
        if (n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s%s", n ? ", " : "", place,
                                  e->serial[0] ? " (serial " : "", e->serial, e->serial[0] ? ")" : "");
    }
    if (unplaced && n < len)
        snprintf(buf + n, len - n, "%s%u disk%s", n ? " and " : "", unplaced, unplaced == 1 ? "" : "s");
}

/* The controller's number among its driver's controllers (blkdev.h):
 * those of the same driver taken and kept so far. A failed probe, one left
 * alone for want of room and one handed back after the census are not in
 * s->ctrls, so they use no number. */
static unsigned driver_index(const struct disk_set *s, const struct bm_driver *drv)
{
    unsigned n = 0;

    for (unsigned i = 0; i < s->nctrls; i++)
        n += s->ctrls[i].drv == drv;
    return n;
}

/* Try the native driver on one storage controller. */
static void probe_native(const struct config *c, const struct plat_boot_location *boot,
                         const struct plat_boot_location *results, struct disk_set *s, const struct pci_func *f)
{
    const struct bm_driver *drv = registry_find(f->vendor, f->device, f->class_code);
    char bdf[16], err[160], coherent_why[240];
    unsigned before = s->list.count, dropped_before = s->list.dropped, fw_n, lost;
    bool matched[FWBLK_CENSUS_MAX];
    char left_out[320] = "";
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
    if (plat_dma_coherent(f->addr.seg, coherent_why, sizeof(coherent_why)) != BM_OK) {
        /* Arm without coherent PCIe: the driver's rings and buffers would
         * be read stale; the firmware's drivers know the platform. */
        record_note(bdf, "left to the firmware, its disks through firmware Block I/O instead of the %s driver: %s",
                    drv->name, coherent_why);
        if (s->nkept < DISK_MAX_CTRLS)
            s->kept_for_firmware[s->nkept++] = f->addr;
        return;
    }
    if (s->nctrls >= DISK_MAX_CTRLS) {
        record_note(bdf, "more than %u controllers: skipped", DISK_MAX_CTRLS);
        return;
    }
    err[0] = '\0';
    rc = drv->probe(f->addr, driver_index(s, drv), &s->list, &ctrl, err, sizeof(err));
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
    /* Did the driver find every disk the firmware showed on this
     * controller? A disk left out because the list is full is not lost
     * (the count left out is noted at the end). */
    fw_n = census_count_on(s, f->addr);
    memset(matched, 0, sizeof(matched));
    lost = census_match(s, true, f->addr, before, s->list.count, matched);
    if (lost && s->list.dropped == dropped_before) {
        char missing[200];

        census_missing_list(s, f->addr, matched, missing, sizeof(missing));
        if (err[0]) {
            /* The driver says it left disks out on purpose (a limit, a
             * format it does not drive; blkdev.h): not a lost disk, and
             * the firmware would not do better. Name them. */
            snprintf(left_out, sizeof(left_out),
                     "%s driver left out %u of the %u disks the firmware shows on this controller (%s): not "
                     "benchmarked",
                     drv->name, lost, fw_n, missing);
            for (unsigned i = 0; i < s->census.count; i++)
                if (!matched[i] && s->census.disks[i].has_pci && same_pci(s->census.disks[i].pci, f->addr))
                    s->census_named[i] = true;
        } else if (c->driver != DRIVER_NATIVE) {
            /* The firmware's driver brings up what ours did not (a port
             * whose link will not come up, a timeout during discovery):
             * give the controller back and run all its disks on the
             * firmware path. */
            drv->release(ctrl);
            s->list.count = before; /* those disks went with the controller */
            if (s->nhanded_back < DISK_MAX_CTRLS)
                s->handed_back[s->nhanded_back++] = f->addr;
            record_note(bdf, "%s driver found %u of the %u disks the firmware shows on this controller (not found: "
                             "%s); handed back to the firmware: its disks use firmware Block I/O",
                        drv->name, fw_n - lost, fw_n, missing);
            return;
        } else {
            /* driver=native: the user asked for native drivers only. Keep
             * the disks the driver found and name each one it lost. */
            for (unsigned i = 0; i < s->census.count; i++) {
                const struct fwblk_census_disk *e = &s->census.disks[i];
                char name[200];

                if (matched[i] || !e->has_pci || !same_pci(e->pci, f->addr))
                    continue;
                census_name(e, name, sizeof(name));
                record_error(bdf, "%s driver did not find %s: not benchmarked (driver=native; driver=auto would "
                                  "run it through firmware Block I/O)",
                             drv->name, name);
                s->census_named[i] = true;
            }
        }
    }
    s->ctrls[s->nctrls++] = (struct disk_ctrl){ drv, ctrl, f->addr };
    if (s->list.count == before)
        record_note(bdf, "%s driver took the controller but found no disk%s%s", drv->name, err[0] ? ": " : "", err);
    else if (err[0])
        record_note(bdf, "%s", err);    /* disks it left out on purpose (blkdev.h) */
    if (left_out[0])
        record_note(bdf, "%s", left_out); /* and which of the firmware's disks those are */
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
        /* Disks the firmware showed there are named one by one (note_census_leftovers). */
        if (found || census_count_on(s, f->addr))
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

/* Was controller a handed back to the firmware after its native probe? */
static bool handed_back(const struct disk_set *s, struct pci_addr a)
{
    for (unsigned i = 0; i < s->nhanded_back; i++)
        if (same_pci(s->handed_back[i], a))
            return true;
    return false;
}

/* Why a census disk ended up in no disk, for its note. */
static void census_why(const struct config *c, const struct disk_set *s, const struct pci_list *pci,
                       const struct fwblk_census_disk *e, char *buf, size_t len, bool *is_error)
{
    int at = e->has_pci ? pci_list_find(pci, e->pci) : -1;
    const struct bm_driver *drv = at >= 0 ? registry_find(pci->funcs[at].vendor, pci->funcs[at].device,
                                                          pci->funcs[at].class_code)
                                          : NULL;
    bool taken = false;

    for (unsigned i = 0; e->has_pci && i < s->nctrls; i++)
        taken |= same_pci(s->ctrls[i].addr, e->pci);
    *is_error = false;
    if (c->driver == DRIVER_NATIVE && drv && !taken) {
        /* The user asked for native drivers only and ours could not take it. */
        *is_error = true;
        snprintf(buf, len, "the %s driver could not take its controller (driver=native)", drv->name);
    } else if (c->driver == DRIVER_NATIVE && !taken) {
        snprintf(buf, len, "%s (driver=native)",
                 e->has_pci ? "baremark has no native driver for its controller" : "it sits on no PCI controller");
    } else if (s->list.dropped) {
        snprintf(buf, len, "it may be among the %u disk%s left out (baremark takes at most %u disks in one run)",
                 s->list.dropped, s->list.dropped == 1 ? "" : "s", (unsigned)BM_MAX_DISKS);
    } else if (e->has_pci && handed_back(s, e->pci)) {
        snprintf(buf, len, "the firmware no longer exposes it after the native driver handed the controller back");
    } else {
        snprintf(buf, len, "the firmware no longer exposes it");
    }
}

/* Every disk the firmware showed at start and that is now in no disk and
 * in no note so far gets a note naming it (an error with driver=native
 * when a native driver failed it): nothing goes missing silently. */
static void note_census_leftovers(const struct config *c, struct disk_set *s, const struct pci_list *pci)
{
    bool matched[FWBLK_CENSUS_MAX] = { false };

    /* Once per controller: a second pass would count its disks again. */
    for (unsigned i = 0; i < s->census.count; i++) {
        const struct fwblk_census_disk *e = &s->census.disks[i];
        bool first = true;

        for (unsigned j = 0; j < i && first; j++)
            first = !(s->census.disks[j].has_pci == e->has_pci &&
                      (!e->has_pci || same_pci(s->census.disks[j].pci, e->pci)));
        if (first)
            census_match(s, e->has_pci, e->pci, 0, s->list.count, matched);
    }
    for (unsigned i = 0; i < s->census.count; i++) {
        const struct fwblk_census_disk *e = &s->census.disks[i];
        char where[16] = "firmware", name[200], why[160];
        bool is_error;

        if (matched[i] || s->census_named[i])
            continue;
        if (e->has_pci)
            pci_addr_str(e->pci, where, sizeof(where));
        census_name(e, name, sizeof(name));
        census_why(c, s, pci, e, why, sizeof(why), &is_error);
        if (is_error)
            record_error(where, "%s is in no test: %s", name, why);
        else
            record_note(where, "%s was there when baremark started but is in no test: %s", name, why);
        s->census_named[i] = true;
    }
    if (s->census.more)
        record_note("firmware", "%u more whole disks than the %u baremark lists at start: not checked for going "
                                "missing",
                    s->census.more, (unsigned)FWBLK_CENSUS_MAX);
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
    /* io_timeout= reaches the drivers here, once, before any probe: every
     * native driver and firmware path reads it for its I/O commands. */
    bm_set_io_timeout_ns((uint64_t)c->io_timeout_s * NS_PER_S);
    pci_enumerate(&pci);
    /* What the firmware shows before a native driver takes anything. */
    fwblk_census(&s->census);
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
    note_census_leftovers(c, s, &pci);
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
